#!/usr/bin/env bash
# journal.sh - what the journal, the INOUT saves and the lock cost on many
# tiny tasks: N independent "touch" tasks on 2 slots, with the wfrun of
# this tree (WFRUN) and one built before the journal existed (WFRUN_BASE),
# repetitions interleaved so a shared machine's noise hits both alike.
# Then, with WFRUN: how many fdatasync calls a run made (strace), the
# journal's size, and how long a second run takes when every task is up
# to date (it reads the journal and stats every output).
#
# Environment: WFRUN, WFRUN_BASE (required: e.g. build commit e923f1d with
# `git archive e923f1d | tar -x -C DIR && make -C DIR`), N (default
# 10000), REPEATS (default 3), JOBS (default 2), BENCH_TMP (default
# bench/out).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WFRUN=${WFRUN:-$here/../build/wfrun}
: "${WFRUN_BASE:?set WFRUN_BASE to a wfrun built without the journal}"
N=${N:-10000}
REPEATS=${REPEATS:-3}
JOBS=${JOBS:-2}
BENCH_TMP=${BENCH_TMP:-$here/out}
mkdir -p "$BENCH_TMP"
d=$(mktemp -d "$BENCH_TMP/journal.XXXXXX")
trap 'rm -rf "$d"' EXIT
cat >"$d/wf.yaml" <<EOF2
name: journal
workdir: .
tasks:
  - name: t
    foreach: {i: "1..$N"}
    out: {f: "out/f{i}"}
    run: "touch {out.f}"
EOF2

run_one() { # run_one BINARY -> seconds
	rm -rf "$d/out" "$d/.wfrun"
	mkdir "$d/out"
	local t0 t1
	t0=$(date +%s.%N)
	(cd "$d" && "$1" -q -j "$JOBS" wf.yaml)
	t1=$(date +%s.%N)
	[ "$(ls "$d/out" | wc -l)" -eq "$N" ] || { echo "journal.sh: wrong output count" >&2; exit 1; }
	echo "$t1 - $t0" | bc
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$REPEATS"); do
	printf 'rep %d/%d  %-10s %6d tasks  %8.3f s\n' "$r" "$REPEATS" base "$N" "$(run_one "$WFRUN_BASE")"
	printf 'rep %d/%d  %-10s %6d tasks  %8.3f s\n' "$r" "$REPEATS" journal "$N" "$(run_one "$WFRUN")"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

rm -rf "$d/out" "$d/.wfrun"
mkdir "$d/out"
if command -v strace >/dev/null; then
	(cd "$d" && strace -c -e trace=fdatasync,fsync -o "$d/strace.txt" "$WFRUN" -q -j "$JOBS" wf.yaml)
	printf 'fdatasync calls in one run of %d tasks: %s\n' "$N" \
		"$(awk '$NF == "fdatasync" { print $4 }' "$d/strace.txt")"
else
	(cd "$d" && "$WFRUN" -q -j "$JOBS" wf.yaml)
fi
printf 'journal size: %s bytes for %d records\n' "$(stat -c %s "$d/.wfrun/journal")" "$N"
t0=$(date +%s.%N)
(cd "$d" && "$WFRUN" -q -j "$JOBS" wf.yaml)
t1=$(date +%s.%N)
printf 'second run, all %d up to date: %.3f s\n' "$N" "$(echo "$t1 - $t0" | bc)"
