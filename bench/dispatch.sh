#!/usr/bin/env bash
# dispatch.sh [N [REPEATS]] - per-task dispatch overhead of wfrun against
# make, and optionally xargs, GNU parallel, makeflow and snakemake.
#
# Every tool runs the same N independent trivial tasks ("touch out/f<i>",
# one process per task) on JOBS slots, in a fresh directory each time.
# Repetitions are interleaved (rep 1 of every tool, then rep 2, ...), the
# order of the tools reversed every other repetition, so that noise on a
# shared machine hits all tools alike and neither of a pair always goes
# first.  Each run is checked: the exit status must be 0 and exactly the
# expected number of files must exist.  Each run is timed by bash's `time`
# (wall, and user and system CPU of the tool and every process it waited
# for).  The run directories are removed at the end, not between runs: on
# ext4 a new inode is a scan past the recently deleted ones, so removing
# 10,000 files would slow down the file creations of the next run.
#
# The result is the median over repetitions of wfrun/make in each one (a
# pair run back to back) for wall, CPU (user+sys) and system time, against
# the target wall ratio of TARGET.
#
# Arguments and environment (all optional; an argument wins):
#   WFRUN            wfrun binary (default: ../wfrun relative to this script)
#   N                tasks per run (default 10000)
#   REPEATS          runs per tool (default 5); the table shows median and min
#   JOBS             parallel slots (default 2)
#   TOOLS            subset/order of: wfrun make xargs parallel makeflow
#                    snakemake (default "wfrun make")
#   TARGET           the wall ratio wfrun/make to meet (default 1.05)
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
N=${1:-${N:-10000}}
REPEATS=${2:-${REPEATS:-5}}
JOBS=${JOBS:-2}
TOOLS=${TOOLS:-"wfrun make"}
TARGET=${TARGET:-1.05}
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
# Prints "WALL USER SYS" in seconds, or FAIL / BADCOUNT; the log is kept on
# failure, the directory until the end.
run_one() { # tool n dir
	local t=$1 n=$2 d=$3 rc=0 got tm
	mkdir -p "$d/out"
	tm=$(
		TIMEFORMAT='%3R %3U %3S'
		# a group, not a subshell: bash would print a timed
		# subshell's times into its own redirection
		{ time {
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
		} >"$d.log" 2>&1; } 2>&1
	) || rc=$?
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
		echo "$tm"
	fi
}

echo "dispatch benchmark: $N tasks (touch one file each), $JOBS slots, $REPEATS repeats"
echo "date: $(date -Is)   host: $(uname -n)   nproc: $(nproc)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "wfrun: $wfrun_src ($("$WFRUN" --version 2>&1 | head -1), sha256 $(sha256sum "$WFRUN" | cut -c1-12), built $(date -r "$wfrun_src" -Is))"
# (the checkout's commit says nothing of a binary from elsewhere)
if git -C "$here/.." rev-parse --git-dir >/dev/null 2>&1 &&
	{ [ "$wfrun_src" -ef "$here/../wfrun" ] || [ "$wfrun_src" -ef "$here/../build/wfrun" ]; }; then
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

declare -A wall cpu sys
for t in "${run_tools[@]}"; do
	gen "$t" "$(tasks_for "$t")" "$tmp/gen/$t"
	wall[$t]="" cpu[$t]="" sys[$t]=""
done

order=("${run_tools[@]}")
for ((r = 1; r <= REPEATS; r++)); do
	for t in "${order[@]}"; do
		n=$(tasks_for "$t")
		d=$tmp/run/$t.$r
		mkdir -p "$tmp/run"
		cp -r "$tmp/gen/$t" "$d"
		read -r w u k < <(run_one "$t" "$n" "$d")
		if [ -n "${u:-}" ]; then
			c=$(awk -v u="$u" -v k="$k" 'BEGIN { printf "%.3f", u + k }')
			printf 'rep %d/%d  %-18s %6d tasks  %9s s wall  %9s s cpu  %8s s sys  load %s\n' \
				"$r" "$REPEATS" "$t" "$n" "$w" "$c" "$k" "$(cut -d' ' -f1 /proc/loadavg)"
		else
			c=$w k=$w
			printf 'rep %d/%d  %-18s %6d tasks  %s\n' "$r" "$REPEATS" "$t" "$n" "$w"
		fi
		wall[$t]+="$w " cpu[$t]+="$c " sys[$t]+="$k "
	done
	# the other way round next time
	for ((i = 0, j = ${#order[@]} - 1; i < j; i++, j--)); do
		x=${order[i]} order[i]=${order[j]} order[j]=$x
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
printf '%-22s %7s %9s %9s %9s %9s %9s\n' tool tasks median_s min_s ms/task cpu_s sys_s
printf '%-22s %7s %9s %9s %9s %9s %9s\n' ---- ----- -------- ----- ------- ----- -----
for t in "${run_tools[@]}"; do
	n=$(tasks_for "$t")
	read -r "med[$t]" "min[$t]" < <(printf '%s' "${wall[$t]}" | stats)
	read -r mcpu _ < <(printf '%s' "${cpu[$t]}" | stats)
	read -r msys _ < <(printf '%s' "${sys[$t]}" | stats)
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
	printf '%-22s %7d %9s %9s %9s %9s %9s\n' "$label" "$n" "${med[$t]}" "${min[$t]}" "$mspt" "$mcpu" "$msys"
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

# The pairs: wfrun/make of each repetition (run back to back), and their
# median, for wall, CPU and system time.
ratios() { # list-of-wfrun list-of-make -> "r1 r2 ... | median"
	awk -v a="$1" -v b="$2" 'BEGIN {
		n = split(a, x, " "); split(b, y, " ")
		for (i = 1; i <= n; i++) {
			if (x[i] !~ /^[0-9.]+$/ || y[i] !~ /^[0-9.]+$/ || y[i] == 0) { print "FAIL"; exit }
			r[i] = x[i] / y[i]; printf "%.3f ", r[i]
		}
		for (i = 2; i <= n; i++) for (j = i; j > 1 && r[j - 1] > r[j]; j--) { t = r[j]; r[j] = r[j - 1]; r[j - 1] = t }
		printf "| %.3f\n", (n % 2) ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
	}'
}
if [ -n "${wall[wfrun]:-}" ] && [ -n "${wall[make]:-}" ]; then
	rw=$(ratios "${wall[wfrun]}" "${wall[make]}")
	rc=$(ratios "${cpu[wfrun]}" "${cpu[make]}")
	rs=$(ratios "${sys[wfrun]}" "${sys[make]}")
	echo "wfrun / make -j$JOBS per repetition | median:"
	echo "  wall  $rw"
	echo "  cpu   $rc"
	echo "  sys   $rs"
	awk -v r="${rw##*| }" -v t="$TARGET" 'BEGIN {
		if (r !~ /^[0-9.]+$/) { print "wall ratio: FAIL"; exit }
		printf "wall ratio %.3f (median of %s pairs)  target <= %s: %s\n", r, "'"$REPEATS"'", t,
			(r <= t + 0) ? "MET" : "MISSED"
	}'
fi
# a failed or short run is reported above; make it visible to callers too
if [ -e "$tmp/keep" ]; then
	exit 1
fi
