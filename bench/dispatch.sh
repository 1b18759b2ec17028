#!/usr/bin/env bash
# dispatch.sh - per-task dispatch overhead of wfrun against make, xargs,
# GNU parallel, makeflow and snakemake.
#
# Every tool runs the same N independent trivial tasks ("touch out/f<i>",
# one process per task) on JOBS slots, in a fresh directory each time.
# Repetitions are interleaved (rep 1 of every tool, then rep 2, ...) so that
# noise on a shared machine hits all tools alike.  Each run is checked: the
# exit status must be 0 and exactly the expected number of files must exist.
#
# Environment (all optional):
#   WFRUN            wfrun binary (default: ../wfrun relative to this script)
#   N                tasks per run (default 10000)
#   REPEATS          runs per tool (default 3); the table shows median and min
#   JOBS             parallel slots (default 2)
#   TOOLS            subset/order of: wfrun make xargs parallel makeflow snakemake
#   PARALLEL_TASKS   task count for GNU parallel  (default 2000: ~45 ms/task)
#   SNAKEMAKE_TASKS  task count for snakemake     (default 1000: ~60 ms/task)
#   MAKEFLOW_TASKS   task count for makeflow      (default N)
#   BENCH_TMP        parent of the scratch directory (default bench/out)
#   KEEP=1           keep the scratch directory
# A tool run on fewer than N tasks is marked with '*' in the table; compare
# its ms/task column, not its seconds.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WFRUN=${WFRUN:-$here/../wfrun}
N=${N:-10000}
REPEATS=${REPEATS:-3}
JOBS=${JOBS:-2}
TOOLS=${TOOLS:-"wfrun make xargs parallel makeflow snakemake"}
PARALLEL_TASKS=${PARALLEL_TASKS:-2000}
SNAKEMAKE_TASKS=${SNAKEMAKE_TASKS:-1000}
MAKEFLOW_TASKS=${MAKEFLOW_TASKS:-$N}
BENCH_TMP=${BENCH_TMP:-$here/out}

# makeflow from Debian's coop-computing-tools is linked with Open MPI and
# calls MPI_Init even for -T local; without openmpi-bin (orted) that aborts.
# This makes the MPI singleton init self-contained instead.
export OMPI_MCA_ess_singleton_isolated=1

[ -x "$WFRUN" ] || { echo "dispatch.sh: no wfrun binary at $WFRUN (run make, or set WFRUN)" >&2; exit 2; }
WFRUN=$(cd "$(dirname "$WFRUN")" && pwd)/$(basename "$WFRUN")

# shellcheck source=bench/scratch.sh
. "$here/scratch.sh" dispatch

now() { date +%s.%N; }

tasks_for() {
	case $1 in
	parallel) echo "$PARALLEL_TASKS" ;;
	snakemake | snakemake-startup)
		[ "$1" = snakemake-startup ] && echo 1 || echo "$SNAKEMAKE_TASKS" ;;
	makeflow) echo "$MAKEFLOW_TASKS" ;;
	*) echo "$N" ;;
	esac
}

# ---- which tools are usable ---------------------------------------------
declare -A pkg=([make]=make [xargs]=findutils [parallel]=parallel
	[makeflow]=coop-computing-tools [snakemake]=snakemake)
declare -A bin=([make]=make [xargs]=xargs [parallel]=parallel
	[makeflow]=makeflow [snakemake]=snakemake)
run_tools=()
skipped=()
for t in $TOOLS; do
	case $t in
	wfrun) run_tools+=(wfrun); continue ;;
	make | xargs | parallel | makeflow | snakemake) ;;
	*) echo "dispatch.sh: unknown tool '$t'" >&2; exit 2 ;;
	esac
	if ! command -v "${bin[$t]}" >/dev/null 2>&1; then
		echo "MISSING: $t is not installed; skipping it (apt-get install -y ${pkg[$t]})" >&2
		skipped+=("$t (missing: apt-get install -y ${pkg[$t]})")
		continue
	fi
	if [ "$t" = parallel ] && ! parallel --version 2>/dev/null | grep -q 'GNU parallel'; then
		echo "MISSING: 'parallel' is not GNU parallel (moreutils?); skipping (apt-get install -y parallel)" >&2
		skipped+=("parallel (not GNU parallel: apt-get install -y parallel)")
		continue
	fi
	run_tools+=("$t")
	[ "$t" = snakemake ] && run_tools+=(snakemake-startup)
done

# ---- generate each tool's input once -------------------------------------
gen() { # tool n dir
	local t=$1 n=$2 d=$3 i
	mkdir -p "$d"
	case $t in
	wfrun)
		cat >"$d/wf.yaml" <<-EOF
		name: dispatch
		workdir: .
		tasks:
		  - name: t
		    foreach: {i: "1..$n"}
		    out: {f: "out/f{i}"}
		    run: "touch {out.f}"
		EOF
		;;
	make)
		# No shell metacharacters in the recipe: make execs touch directly.
		{
			printf '.PHONY: all\nall:'
			for ((i = 1; i <= n; i++)); do printf ' out/f%d' "$i"; done
			printf '\n'
			for ((i = 1; i <= n; i++)); do printf 'out/f%d:\n\ttouch $@\n' "$i"; done
		} >"$d/Makefile"
		;;
	makeflow)
		for ((i = 1; i <= n; i++)); do
			printf 'out/f%d:\n\ttouch out/f%d\n\n' "$i" "$i"
		done >"$d/wf.mf"
		;;
	snakemake | snakemake-startup)
		cat >"$d/Snakefile" <<-'EOF'
		N = int(config["n"])
		wildcard_constraints:
		    i = r"\d+"
		rule all:
		    input: expand("out/f{i}", i=range(1, N + 1))
		rule t:
		    output: "out/f{i}"
		    shell: "touch {output}"
		EOF
		;;
	xargs | parallel) ;; # the command line is the whole input
	esac
}

# ---- one timed run --------------------------------------------------------
# Prints the wall seconds, or FAIL / BADCOUNT; the log is kept on failure.
run_one() { # tool n dir
	local t=$1 n=$2 d=$3 t0 t1 rc=0 got
	mkdir -p "$d/out"
	t0=$(now)
	(
		cd "$d"
		case $t in
		wfrun) "$WFRUN" -q -j "$JOBS" wf.yaml ;;
		make) make -r -s -j "$JOBS" ;;
		xargs) seq -f 'out/f%.0f' 1 "$n" | xargs -P "$JOBS" -n 1 touch ;;
		parallel) seq 1 "$n" | parallel --will-cite -j "$JOBS" touch out/f{} ;;
		makeflow) makeflow -T local -j "$JOBS" wf.mf ;;
		snakemake | snakemake-startup)
			snakemake --snakefile Snakefile --cores "$JOBS" --config n="$n" --quiet ;;
		esac
	) >"$d.log" 2>&1 || rc=$?
	t1=$(now)
	got=$(find "$d/out" -maxdepth 1 -type f | wc -l)
	if [ "$rc" -ne 0 ]; then
		echo "  $t: exit status $rc, see $d.log" >&2
		touch "$tmp/keep"
		echo FAIL
	elif [ "$got" -ne "$n" ]; then
		echo "  $t: created $got files, expected $n, see $d.log" >&2
		touch "$tmp/keep"
		echo BADCOUNT
	else
		rm -rf "$d" "$d.log"
		awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
	fi
}

echo "dispatch benchmark: $N tasks (touch one file each), $JOBS slots, $REPEATS repeats"
echo "date: $(date -Is)   host: $(uname -n)   nproc: $(nproc)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "wfrun: $wfrun_src ($("$WFRUN" --version 2>&1 | head -1), sha256 $(sha256sum "$WFRUN" | cut -c1-12), built $(date -r "$wfrun_src" -Is))"
if git -C "$here/.." rev-parse --git-dir >/dev/null 2>&1; then
	echo "source: commit $(git -C "$here/.." rev-parse --short HEAD)$(git -C "$here/.." diff --quiet HEAD -- src cmd 2>/dev/null || echo ' + uncommitted changes in src/ cmd/')"
fi
for t in "${run_tools[@]}"; do
	case $t in
	make) echo "make: $(make --version | head -1)" ;;
	xargs) echo "xargs: $(xargs --version | head -1)" ;;
	parallel) echo "parallel: $(parallel --will-cite --version | head -1)" ;;
	makeflow) echo "makeflow: $(makeflow --version 2>&1 | grep -m1 -i version || echo '?')" ;;
	snakemake) echo "snakemake: $(snakemake --version)" ;;
	esac
done
echo "scratch: $tmp"
echo

declare -A times
for t in "${run_tools[@]}"; do
	gen "$t" "$(tasks_for "$t")" "$tmp/gen/$t"
	times[$t]=""
done

for ((r = 1; r <= REPEATS; r++)); do
	for t in "${run_tools[@]}"; do
		n=$(tasks_for "$t")
		d=$tmp/run/$t.$r
		mkdir -p "$tmp/run"
		cp -r "$tmp/gen/$t" "$d"
		s=$(run_one "$t" "$n" "$d")
		printf 'rep %d/%d  %-18s %6d tasks  %s s\n' "$r" "$REPEATS" "$t" "$n" "$s"
		times[$t]+="$s "
	done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# median and min of a list of numbers (or FAIL if any run failed)
stats() {
	tr ' ' '\n' | awk 'NF' | sort -g | awk '
		/^[A-Z]/ { bad = $0 }
		{ v[NR] = $1 }
		END {
			if (bad != "" || NR == 0) { print "FAIL FAIL"; exit }
			m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.2f %.2f\n", m, v[1]
		}'
}

declare -A med min
startup=""
scaled=0
printf '%-22s %7s %9s %9s %9s\n' tool tasks median_s min_s ms/task
printf '%-22s %7s %9s %9s %9s\n' ---- ----- -------- ----- -------
for t in "${run_tools[@]}"; do
	n=$(tasks_for "$t")
	read -r "med[$t]" "min[$t]" < <(printf '%s' "${times[$t]}" | stats)
	label=$t
	case $t in
	make) label="make -j$JOBS" ;;
	xargs) label="xargs -P$JOBS" ;;
	parallel) label="parallel -j$JOBS" ;;
	makeflow) label="makeflow -j$JOBS" ;;
	snakemake) label="snakemake --cores $JOBS" ;;
	wfrun) label="wfrun -j $JOBS" ;;
	snakemake-startup) label="  (snakemake startup)" ;;
	esac
	if [ "$n" -ne "$N" ] && [ "$t" != snakemake-startup ]; then
		label="$label *"
		scaled=1
	fi
	if [ "${med[$t]}" = FAIL ]; then
		printf '%-22s %7d %9s %9s %9s\n' "$label" "$n" FAIL FAIL -
		continue
	fi
	mspt=$(awk -v m="${med[$t]}" -v n="$n" 'BEGIN { printf "%.2f", 1000 * m / n }')
	[ "$t" = snakemake-startup ] && { mspt=-; startup=${med[$t]}; }
	printf '%-22s %7d %9s %9s %9s\n' "$label" "$n" "${med[$t]}" "${min[$t]}" "$mspt"
done
for s in "${skipped[@]+"${skipped[@]}"}"; do printf '%-22s %s\n' "${s%% *}" "skipped: ${s#* }"; done
if [ -n "$startup" ] && [ "${med[snakemake]:-FAIL}" != FAIL ]; then
	awk -v m="${med[snakemake]}" -v s="$startup" -v n="$SNAKEMAKE_TASKS" 'BEGIN {
		printf "snakemake without its startup: %.2f ms/task\n", 1000 * (m - s) / n }'
fi
if [ "$scaled" = 1 ]; then
	echo "* run on fewer than $N tasks (too slow for the full count here); compare ms/task"
fi
echo

if [ "${med[wfrun]:-FAIL}" != FAIL ] && [ "${med[make]:-FAIL}" != FAIL ]; then
	awk -v w="${med[wfrun]}" -v m="${med[make]}" -v wm="${min[wfrun]}" -v mm="${min[make]}" 'BEGIN {
		r = w / m
		printf "wfrun / make -j'"$JOBS"': %.3f (median), %.3f (min)  target <= 1.10: %s\n",
			r, wm / mm, (r <= 1.10) ? "MET" : "MISSED"
	}'
fi
# a failed or short run is reported above; make it visible to callers too
if [ -e "$tmp/keep" ]; then
	exit 1
fi
