#!/usr/bin/env bash
# slurm-jobs.sh [N] - one Slurm job per task: wfrun with <slurm
# submit="jobs"> against Snakemake's generic cluster mode (`snakemake
# --cluster "sbatch ..." -j J`) on the same N short tasks (issue 19: wfrun
# at least 3x faster; squeue/scontrol calls per minute independent of N).
#
# Starts its own Slurm cluster (tests/cluster/slurmcluster, NODES nodes of
# CPUS CPUs on this machine; root) and runs, one after the other:
#   wfrun      wfrun -r res.xml wf.yaml: a foreach of N tasks ("sleep
#              SLEEP; echo i > out/f<i>"), one job array, poll POLL s,
#              at most J jobs in the queue
#   snakemake  snakemake --cluster "sbatch ..." -j J on a Snakefile of the
#              same N jobs (one rule, N outputs), each job one sbatch,
#              its state from Snakemake's own job-finished markers
# Every job asks for 1 CPU and 64 MB.  sbatch, squeue, scontrol and sacct
# are wrapped (PATH) to count the calls of each tool.  Each run is checked
# (exit 0, every file made, the same bytes).  Prints one table: wall
# seconds, jobs/s, calls of each Slurm command and squeue+scontrol calls
# per minute, and the ratio.
#
# Environment (all optional): WFRUN (default ../wfrun), NODES (3), CPUS
# (4), J (max jobs, 100), POLL (1), SLEEP (0), BENCH_TMP (bench/out),
# KEEP=1 keeps the scratch.  Snakemake must be on PATH (Debian's
# snakemake 7.21 was used).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WFRUN=${WFRUN:-$here/../wfrun}
N=${1:-${N:-500}}
NODES=${NODES:-3}
CPUS=${CPUS:-4}
J=${J:-100}
POLL=${POLL:-1}
SLEEP=${SLEEP:-0}
BENCH_TMP=${BENCH_TMP:-$here/out}
SC=$here/../tests/cluster/slurmcluster

# The comparison needs Debian's snakemake: installed here when missing (as
# root), as the project's other files install what they need.
if ! command -v snakemake >/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "slurm-jobs.sh: installing snakemake (apt-get install -y snakemake)" >&2
		{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q snakemake; } >&2 ||
			{ echo "slurm-jobs.sh: could not install snakemake" >&2; exit 2; }
	else
		echo "slurm-jobs.sh: snakemake is not installed (as root: apt-get install -y snakemake)" >&2
		exit 2
	fi
fi
. "$here/slurm-cluster.sh" slurm-jobs

# the counting wrappers
mkdir -p "$tmp/bin"
for t in sbatch squeue scontrol sacct scancel; do
	real=$(command -v "$t") || continue
	printf '#!/bin/sh\necho "$*" >>"$COUNT_DIR/%s"\nexec %s "$@"\n' "$t" "$real" >"$tmp/bin/$t"
	chmod +x "$tmp/bin/$t"
done

# one run: TOOL; prints "seconds sbatch squeue scontrol sacct"
run_one() {
	local tool=$1 d="$tmp/$1" start end
	mkdir -p "$d/out" "$d/count"
	cd "$d"
	start=$(date +%s.%N)
	case $tool in
	wfrun)
		cat >wf.yaml <<EOF
tasks:
  - name: t
    foreach: {i: "1..$N"}
    out: {o: "out/f{i}"}
    run: "sleep $SLEEP; echo {i} > {out.o}"
EOF
		cat >res.xml <<EOF
<resources>
  <slurm submit="jobs" max-jobs="$J" poll="$POLL">
    <option>--mem=64</option>
  </slurm>
</resources>
EOF
		COUNT_DIR=$d/count PATH="$tmp/bin:$PATH" "$WFRUN" -q -r res.xml wf.yaml >log 2>&1 ;;
	snakemake)
		cat >Snakefile <<EOF
rule all:
    input: expand("out/f{i}", i=range(1, $N + 1))
rule t:
    output: "out/f{i}"
    shell: "sleep $SLEEP; echo {wildcards.i} > {output}"
EOF
		COUNT_DIR=$d/count PATH="$tmp/bin:$PATH" snakemake -q -j "$J" --latency-wait 30 \
			--cluster "sbatch --parsable -c 1 --mem=64 -o /dev/null -e /dev/null" >log 2>&1 ;;
	esac
	end=$(date +%s.%N)
	local made
	made=$(find out -type f | wc -l)
	[ "$made" -eq "$N" ] || { echo "slurm-jobs.sh: $tool made $made of $N files (log: $d/log)" >&2; KEEP=1; exit 1; }
	local c s=""
	for c in sbatch squeue scontrol sacct; do
		s+=" $(cat "count/$c" 2>/dev/null | wc -l)"
	done
	echo "$(echo "$end - $start" | bc)$s"
}

declare -A res=()
for tool in wfrun snakemake; do
	res[$tool]=$(run_one "$tool")
	echo "# $tool: ${res[$tool]}" >&2
done
cmp -s <(cd "$tmp/wfrun/out" && cat $(ls | sort)) <(cd "$tmp/snakemake/out" && cat $(ls | sort)) ||
	{ echo "slurm-jobs.sh: the outputs differ" >&2; KEEP=1; exit 1; }

printf '%-10s %5s %8s %7s %7s %7s %9s %6s %18s\n' tool jobs "wall s" "jobs/s" sbatch squeue scontrol sacct "queries per min"
for tool in wfrun snakemake; do
	read -r s nb nq nc na <<<"${res[$tool]}"
	printf '%-10s %5d %8.1f %7.2f %7d %7d %9d %6d %18.1f\n' "$tool" "$N" "$s" \
		"$(echo "$N / $s" | bc -l)" "$nb" "$nq" "$nc" "$na" \
		"$(echo "($nq + $nc + $na) * 60 / $s" | bc -l)"
done
read -r ws _ <<<"${res[wfrun]}"
read -r ss _ <<<"${res[snakemake]}"
echo "snakemake / wfrun (wall): $(echo "scale=2; $ss / $ws" | bc) x (target >= 3)"
