#!/usr/bin/env bash
# slurm-alloc.sh [N [REPEATS]] - wfrun --slurm inside an allocation against
# one `srun` per task and against the same run on local cores (issue 19:
# at least 30x the throughput of srun per task, within 1.5x of local).
#
# Starts its own Slurm cluster (tests/cluster/slurmcluster, NODES nodes of
# CPUS CPUs on this machine; root) and runs, side by side and interleaved:
#   wfrun-slurm  salloc -N NODES -c CPUS: wfrun --slurm on N trivial tasks
#                ("touch out/f<i>"), an agent per node as a job step
#   wfrun-local  wfrun -j (NODES x CPUS) on the same N tasks, no Slurm
#   srun-each    inside the same kind of allocation, one `srun -N1 -n1
#                --overlap touch out/f<i>` per task, NODES x CPUS at once
#                (xargs -P), on SRUN_TASKS tasks (default 200: each srun
#                costs about 0.3 s), compared per task
# Each run is checked (exit 0, every file made).  Prints a table of median
# wall seconds and tasks/s, and the two ratios the issue asks for.
#
# Environment (all optional): WFRUN (default ../wfrun), NODES (3), CPUS
# (2), SRUN_TASKS (200), BENCH_TMP (bench/out), KEEP=1 keeps the scratch.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WFRUN=${WFRUN:-$here/../wfrun}
N=${1:-${N:-2000}}
REPEATS=${2:-${REPEATS:-3}}
NODES=${NODES:-3}
CPUS=${CPUS:-2}
SRUN_TASKS=${SRUN_TASKS:-200}
BENCH_TMP=${BENCH_TMP:-$here/out}
SC=$here/../tests/cluster/slurmcluster

. "$here/slurm-cluster.sh" slurm-alloc
slots=$((NODES * CPUS))

workflow() { # N
	cat <<EOF
tasks:
  - name: t
    foreach: {i: "1..$1"}
    out: {o: "out/f{i}"}
    run: "touch {out.o}"
EOF
}

# one run: TOOL REP; prints seconds
run_one() {
	local tool=$1 d="$tmp/$1.$2" n=$N start end
	mkdir -p "$d/out"
	cd "$d"
	workflow "$N" >wf.yaml
	start=$(date +%s.%N)
	case $tool in
	wfrun-slurm)
		salloc -Q -N "$NODES" --ntasks-per-node="$CPUS" "$WFRUN" -q --slurm wf.yaml >log 2>&1 ;;
	wfrun-local)
		"$WFRUN" -q -j "$slots" wf.yaml >log 2>&1 ;;
	srun-each)
		n=$SRUN_TASKS
		salloc -Q -N "$NODES" --ntasks-per-node="$CPUS" bash -c \
			"seq $n | xargs -P $slots -I{} srun -Q -N1 -n1 --overlap touch out/f{}" >log 2>&1 ;;
	esac
	end=$(date +%s.%N)
	local made
	made=$(find out -type f | wc -l)
	[ "$made" -eq "$n" ] || { echo "slurm-alloc.sh: $tool made $made of $n files (log: $d/log)" >&2; KEEP=1; exit 1; }
	echo "$end - $start" | bc
}

declare -A times=()
for ((r = 1; r <= REPEATS; r++)); do
	for tool in wfrun-slurm wfrun-local srun-each; do
		s=$(run_one "$tool" "$r")
		times[$tool]+=" $s"
		printf '# rep %d %-12s %6.2f s\n' "$r" "$tool" "$s" >&2
	done
done

median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%-12s %6s %9s %9s\n' tool tasks "median s" "tasks/s"
declare -A rate=()
for tool in wfrun-slurm wfrun-local srun-each; do
	n=$N
	[ "$tool" = srun-each ] && n=$SRUN_TASKS
	m=$(echo "${times[$tool]}" | median)
	rate[$tool]=$(echo "scale=2; $n / $m" | bc)
	printf '%-12s %6d %9.2f %9.1f\n' "$tool" "$n" "$m" "${rate[$tool]}"
done
echo "wfrun --slurm / srun per task (throughput): $(echo "scale=1; ${rate[wfrun-slurm]} / ${rate[srun-each]}" | bc) x (target >= 30)"
echo "wfrun --slurm / local (wall, same tasks):   $(echo "scale=2; ${rate[wfrun-local]} / ${rate[wfrun-slurm]}" | bc) x (target <= 1.5)"
