#!/usr/bin/env bash
# rerun.sh - what running tasks again costs when their last good outputs
# are moved aside first (undo.c: renamed into .wfrun/saved/ID/, put back if
# the task fails, dropped when it succeeds) against a wfrun that wrote over
# them: N "touch" tasks made once, then run again with --forceall by each
# binary in turn (repetitions interleaved, so a shared machine's noise hits
# both alike).  Also how long a run takes that finds 2N tasks (N writers,
# N readers of their files) up to date (resume.c compares each reader's
# record with its writer's).
#
# Environment: WFRUN (this tree's), WFRUN_BASE (required: one built before,
# e.g. `git archive 700791f | tar -x -C DIR && make -C DIR`), N (default
# 3000), REPEATS (default 3), JOBS (default 2), BENCH_TMP (default
# bench/out).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WFRUN=${WFRUN:-$here/../build/wfrun}
: "${WFRUN_BASE:?set WFRUN_BASE to a wfrun built before the change}"
N=${N:-3000}
REPEATS=${REPEATS:-3}
JOBS=${JOBS:-2}
BENCH_TMP=${BENCH_TMP:-$here/out}
mkdir -p "$BENCH_TMP"
d=$(mktemp -d "$BENCH_TMP/rerun.XXXXXX")
trap 'rm -rf "$d"' EXIT
mkdir "$d/base" "$d/new"
for w in base new; do
	cat >"$d/$w/wf.yaml" <<EOF2
tasks:
  - name: mk
    foreach: {i: "1..$N"}
    out: {f: "f/{i}"}
    run: "touch {out.f}"
  - name: rd
    foreach: {i: "1..$N"}
    in: {f: "f/{i}"}
    out: {g: "g/{i}"}
    run: "touch {out.g}"
EOF2
done
(cd "$d/base" && "$WFRUN_BASE" -q -j "$JOBS" wf.yaml)
(cd "$d/new" && "$WFRUN" -q -j "$JOBS" wf.yaml)

secs() { # secs DIR BINARY ARGS... -> seconds
	local dir=$1 t0 t1
	shift
	t0=$(date +%s.%N)
	(cd "$dir" && "$@" -q -j "$JOBS" wf.yaml)
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$REPEATS"); do
	printf 'rep %d/%d  %-5s --forceall, %d tasks  %8.3f s\n' "$r" "$REPEATS" \
		base $((2 * N)) "$(secs "$d/base" "$WFRUN_BASE" --forceall)"
	printf 'rep %d/%d  %-5s --forceall, %d tasks  %8.3f s\n' "$r" "$REPEATS" \
		new $((2 * N)) "$(secs "$d/new" "$WFRUN" --forceall)"
done
for r in $(seq "$REPEATS"); do
	printf 'rep %d/%d  %-5s all %d up to date  %8.3f s\n' "$r" "$REPEATS" \
		base $((2 * N)) "$(secs "$d/base" "$WFRUN_BASE")"
	printf 'rep %d/%d  %-5s all %d up to date  %8.3f s\n' "$r" "$REPEATS" \
		new $((2 * N)) "$(secs "$d/new" "$WFRUN")"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
[ -z "$(ls "$d/new/.wfrun/saved")" ] || { echo "rerun.sh: saved copies left" >&2; exit 1; }
