#!/usr/bin/env bash
# scale-tasks.sh - time and peak memory of `wfrun check` on workflows of
# many DISTINCT tasks (issue 18): N task mappings, no foreach, each with
# its own name, one IN, one OUT and a run line:
#   - {name: t0, in: {i: ref.txt}, out: {o: out/b0}, run: "cp {in.i} {out.o}"}
#   - {name: tK, in: {i: out/b(K-1)}, out: {o: out/bK}, run: "cp {in.i} {out.o}"}
# a chain of N-1 RAW edges; only ref.txt exists on disk.  Where bench/scale.sh
# measures instances of a few task templates, this measures the cost of a
# template: its YAML, its struct wf_task, its compiled templates.
#
# Environment (all optional):
#   WFRUN      wfrun binary (default: ../build/wfrun, else ../wfrun)
#   SIZES      task counts (default "10000 100000 957000")
#   REPEATS    runs per size (default 1): median wall time, max peak RSS
#   BENCH_TMP  parent of the scratch directory (default bench/out)
#   KEEP=1     keep the scratch directory
# The table gives KiB and us per task and the marginal KiB per task between
# sizes (which takes out the binary and its libraries).  Target: under
# 1 KiB per task, linear time.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -z "${WFRUN:-}" ]; then
	WFRUN=$here/../build/wfrun
	[ -x "$WFRUN" ] || WFRUN=$here/../wfrun
fi
SIZES=${SIZES:-"10000 100000 957000"}
REPEATS=${REPEATS:-1}
BENCH_TMP=${BENCH_TMP:-$here/out}
TIME=/usr/bin/time

[ -x "$WFRUN" ] || { echo "scale-tasks.sh: no wfrun binary at $WFRUN (run make, or set WFRUN)" >&2; exit 2; }
WFRUN=$(cd "$(dirname "$WFRUN")" && pwd)/$(basename "$WFRUN")
if ! "$TIME" -v true >/dev/null 2>&1; then
	echo "scale-tasks.sh: GNU time is missing (apt-get install -y time)" >&2
	exit 2
fi

# shellcheck source=bench/scratch.sh
. "$here/scratch.sh" scale-tasks

mkdir -p "$tmp/w"
echo "reference input" >"$tmp/w/ref.txt"

echo "scale-tasks benchmark: wfrun check on N distinct tasks, $REPEATS repeat(s) per size"
echo "date: $(date -Is)   host: $(uname -n)   nproc: $(nproc)   mem: $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "wfrun: $wfrun_src (sha256 $(sha256sum "$WFRUN" | cut -c1-12), built $(date -r "$wfrun_src" -Is))"
if git -C "$here/.." rev-parse --git-dir >/dev/null 2>&1; then
	echo "source: commit $(git -C "$here/.." rev-parse --short HEAD)$(git -C "$here/.." diff --quiet HEAD -- src cmd 2>/dev/null || echo ' + uncommitted changes in src/ cmd/')"
fi
echo "scratch: $tmp"
echo

rows=()
for n in $SIZES; do
	wf=$tmp/tasks-$n.yaml
	awk -v n="$n" 'BEGIN {
		printf "name: tasks-%d\nworkdir: w\ntasks:\n", n
		printf "  - {name: t0, in: {i: ref.txt}, out: {o: out/b0}, run: \"cp {in.i} {out.o}\"}\n"
		for (k = 1; k < n; k++)
			printf "  - {name: t%d, in: {i: out/b%d}, out: {o: out/b%d}, run: \"cp {in.i} {out.o}\"}\n", k, k - 1, k
	}' >"$wf"
	walls=""
	rss=0
	for ((r = 1; r <= REPEATS; r++)); do
		rc=0
		t0=$(date +%s.%N)
		"$TIME" -v -o "$tmp/time.txt" "$WFRUN" check "$wf" >"$tmp/check.txt" 2>&1 || rc=$?
		t1=$(date +%s.%N)
		if [ "$rc" -ne 0 ] || ! grep -q "^task instances: $n\$" "$tmp/check.txt"; then
			echo "scale-tasks.sh: wfrun check failed on $n tasks (exit $rc):" >&2
			head -20 "$tmp/check.txt" >&2
			cat "$tmp/time.txt" >&2
			touch "$tmp/keep"
			exit 1
		fi
		w=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
		m=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tmp/time.txt")
		printf 'n=%-8d rep %d/%d  %8.3f s  %8d KiB\n' "$n" "$r" "$REPEATS" "$w" "$m"
		walls+="$w "
		[ "$m" -gt "$rss" ] && rss=$m
	done
	med=$(tr ' ' '\n' <<<"$walls" | awk 'NF' | sort -g | awk '{ v[NR] = $1 } END {
		printf "%.3f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	rows+=("$n $(stat -c %s "$wf") $med $rss")
	rm -f "$wf"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

printf '%8s %10s %9s %8s %12s %9s %12s\n' tasks yaml_bytes wall_s us/task peak_rss_KiB KiB/task marginal_KiB
printf '%8s %10s %9s %8s %12s %9s %12s\n' ----- ---------- ------ ------- ------------ -------- ------------
pn=0
prss=0
for row in "${rows[@]}"; do
	read -r n bytes med rss <<<"$row"
	awk -v n="$n" -v b="$bytes" -v t="$med" -v m="$rss" -v pn="$pn" -v pm="$prss" 'BEGIN {
		marg = (pn > 0 && n > pn) ? sprintf("%.3f", (m - pm) / (n - pn)) : "-"
		printf "%8d %10d %9.3f %8.1f %12d %9.3f %12s\n", n, b, t, 1e6 * t / n, m, m / n, marg }'
	pn=$n
	prss=$rss
done
