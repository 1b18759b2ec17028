#!/usr/bin/env bash
# scale.sh - time and peak memory of `wfrun check` on workflows that expand
# to 10,000, 100,000 and 1,000,000 task instances.
#
# Shape (every instance has exactly one IN and one OUT):
#   produce  foreach i in 1..N/2   in: ref.txt (exists)   out: out/a{i}
#   consume  foreach i in 1..N/2   in: out/a{i}           out: out/b{i}
# so `check` must resolve N/2 RAW edges and one pre-existing input shared by
# N/2 readers.  Only ref.txt is created on disk; check runs nothing.
#
# SHAPE=tasks measures N DISTINCT tasks instead (issue 18): N task
# mappings, no foreach, each with its own name, one IN and one OUT,
#   - {name: t0, in: {i: ref.txt}, out: {o: out/b0}, run: "cp {in.i} {out.o}"}
#   - {name: tK, in: {i: out/b(K-1)}, out: {o: out/bK}, run: "cp {in.i} {out.o}"}
# a chain of N-1 RAW edges: the cost of a template (its YAML, its struct
# wf_task, its compiled templates) rather than of an instance.
#
# Environment (all optional):
#   WFRUN      wfrun binary (default: ../wfrun relative to this script)
#   SHAPE      foreach (default) or tasks
#   SIZES      instance counts (default "10000 100000 1000000"; even numbers;
#              SHAPE=tasks: "10000 100000 957000")
#   REPEATS    runs per size (default 3): median wall time, max peak RSS
# The table also gives the marginal KiB per instance between sizes, which
# takes out the fixed cost of the binary and libraries.
#   BENCH_TMP  parent of the scratch directory (default bench/out)
#   KEEP=1     keep the scratch directory
# Targets: 1,000,000 instances in under 10 s and under 1 GiB peak RSS;
# SHAPE=tasks: under 1 KiB per task, time linear in the tasks.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WFRUN=${WFRUN:-$here/../wfrun}
SHAPE=${SHAPE:-foreach}
case $SHAPE in
foreach) SIZES=${SIZES:-"10000 100000 1000000"} ;;
tasks) SIZES=${SIZES:-"10000 100000 957000"} ;;
*) echo "scale.sh: SHAPE is foreach or tasks, not '$SHAPE'" >&2; exit 2 ;;
esac
REPEATS=${REPEATS:-3}
BENCH_TMP=${BENCH_TMP:-$here/out}
TIME=/usr/bin/time

[ -x "$WFRUN" ] || { echo "scale.sh: no wfrun binary at $WFRUN (run make, or set WFRUN)" >&2; exit 2; }
WFRUN=$(cd "$(dirname "$WFRUN")" && pwd)/$(basename "$WFRUN")
if ! "$TIME" -v true >/dev/null 2>&1; then
	echo "scale.sh: GNU time is missing (apt-get install -y time)" >&2
	exit 2
fi

# shellcheck source=bench/scratch.sh
. "$here/scratch.sh" scale

mkdir -p "$tmp/w"
echo "reference input" >"$tmp/w/ref.txt"

echo "scale benchmark ($SHAPE): wfrun check, $REPEATS repeats per size"
echo "date: $(date -Is)   host: $(uname -n)   nproc: $(nproc)   mem: $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "wfrun: $wfrun_src ($("$WFRUN" --version 2>&1 | head -1), sha256 $(sha256sum "$WFRUN" | cut -c1-12), built $(date -r "$wfrun_src" -Is))"
if git -C "$here/.." rev-parse --git-dir >/dev/null 2>&1; then
	echo "source: commit $(git -C "$here/.." rev-parse --short HEAD)$(git -C "$here/.." diff --quiet HEAD -- src cmd 2>/dev/null || echo ' + uncommitted changes in src/ cmd/')"
fi
echo "scratch: $tmp"
echo

# The workflow of n instances in $SHAPE's shape.
make_workflow() {
	local n=$1 wf=$2 h=$(($1 / 2))
	if [ "$SHAPE" = tasks ]; then
		awk -v n="$n" 'BEGIN {
			printf "name: tasks-%d\nworkdir: w\ntasks:\n", n
			printf "  - {name: t0, in: {i: ref.txt}, out: {o: out/b0}, run: \"cp {in.i} {out.o}\"}\n"
			for (k = 1; k < n; k++)
				printf "  - {name: t%d, in: {i: out/b%d}, out: {o: out/b%d}, run: \"cp {in.i} {out.o}\"}\n", k, k - 1, k
		}' >"$wf"
		return
	fi
	cat >"$wf" <<-EOF
	name: scale-$n
	workdir: w
	tasks:
	  - name: produce
	    foreach: {i: "1..$h"}
	    in:  {ref: "ref.txt"}
	    out: {a: "out/a{i}"}
	    run: "cat {in.ref} > {out.a}"
	  - name: consume
	    foreach: {i: "1..$h"}
	    in:  {a: "out/a{i}"}
	    out: {b: "out/b{i}"}
	    run: "cp {in.a} {out.b}"
	EOF
}

rows=()
for n in $SIZES; do
	want=$n
	[ "$SHAPE" = tasks ] || want=$((n / 2 * 2))
	wf=$tmp/scale-$n.yaml
	make_workflow "$n" "$wf"
	walls=""
	rss=0
	for ((r = 1; r <= REPEATS; r++)); do
		rc=0
		t0=$(date +%s.%N)
		"$TIME" -v -o "$tmp/time.txt" "$WFRUN" check "$wf" >"$tmp/check.txt" 2>&1 || rc=$?
		t1=$(date +%s.%N)
		if [ "$rc" -ne 0 ] || ! grep -q "^task instances: $want\$" "$tmp/check.txt"; then
			echo "scale.sh: wfrun check failed on $n instances (exit $rc):" >&2
			head -20 "$tmp/check.txt" >&2
			cat "$tmp/time.txt" >&2
			touch "$tmp/keep"
			exit 1
		fi
		# wall time from date(1): GNU time's own clock has 10 ms resolution
		w=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
		m=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tmp/time.txt")
		printf 'n=%-8d rep %d/%d  %8.3f s  %8d KiB\n' "$n" "$r" "$REPEATS" "$w" "$m"
		walls+="$w "
		[ "$m" -gt "$rss" ] && rss=$m
	done
	med=$(tr ' ' '\n' <<<"$walls" | awk 'NF' | sort -g | awk '{ v[NR] = $1 } END {
		printf "%.3f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	edges=$(awk '/^edges:/ { print $2 }' "$tmp/check.txt")
	rows+=("$n $edges $med $rss")
	rm -f "$wf"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

printf '%10s %9s %9s %12s %12s %11s %12s\n' instances edges wall_s us/instance peak_rss_KiB KiB/instance marginal_KiB
printf '%10s %9s %9s %12s %12s %11s %12s\n' --------- ----- ------ ----------- ------------ ----------- ------------
verdict=""
pn=0
prss=0
for row in "${rows[@]}"; do
	read -r n edges med rss <<<"$row"
	# marginal: extra KiB per extra instance since the previous size
	awk -v n="$n" -v e="$edges" -v t="$med" -v m="$rss" -v pn="$pn" -v pm="$prss" 'BEGIN {
		marg = (pn > 0 && n > pn) ? sprintf("%.3f", (m - pm) / (n - pn)) : "-"
		printf "%10d %9d %9.3f %12.2f %12d %11.3f %12s\n", n, e, t, 1e6 * t / n, m, m / n, marg }'
	pn=$n
	prss=$rss
	if [ "$SHAPE" = tasks ]; then
		verdict=$(awk -v n="$n" -v m="$rss" 'BEGIN {
			printf "%d distinct tasks: %.3f KiB per task (target < 1 KiB: %s)",
				n, m / n, (m < n) ? "MET" : "MISSED" }')
	elif [ "$n" = 1000000 ]; then
		verdict=$(awk -v t="$med" -v m="$rss" 'BEGIN {
			printf "1,000,000 instances: %.2f s (target < 10 s: %s), %.0f MiB peak RSS (target < 1 GiB: %s)",
				t, (t < 10) ? "MET" : "MISSED", m / 1024, (m < 1048576) ? "MET" : "MISSED" }')
	fi
done
[ -n "$verdict" ] && { echo; echo "$verdict"; }
true
