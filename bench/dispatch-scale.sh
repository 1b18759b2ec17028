#!/usr/bin/env bash
# Does dispatch slow down when the graph in memory is large?  wfrun spawns
# with vfork semantics (src/spawn.c), so it should not: a fork copies page
# tables, which grow with the master's memory.  This runs the same trivial
# task (`true`, 2 cores) from a workflow of SMALL instances (run to the
# end) and from one of BIG instances (interrupted after SECONDS), and
# compares the dispatch rate measured from the trace: finished tasks per
# second between the first start and the last completion.
#
#   bench/dispatch-scale.sh            # SMALL=2000 BIG=1000000 SECONDS_BIG=40
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
WFRUN=${WFRUN:-$here/../wfrun}
SMALL=${SMALL:-2000}
BIG=${BIG:-1000000}
SECONDS_BIG=${SECONDS_BIG:-40}
work=$(mktemp -d "${TMPDIR:-/tmp}/wfrun-dscale.XXXXXX")
trap 'rm -rf "$work"' EXIT

gen() { # N DIR
	mkdir -p "$2"
	cat >"$2/wf.yaml" <<EOF2
tasks:
  - name: t
    foreach: {i: "1..$1"}
    run: "true"
EOF2
}

rate() { # trace -> "rows rate"
	awk -F'\t' 'NR > 1 && $9 == "COMPLETED" {
		n++; if (!s || $13 < s) s = $13; if ($14 > e) e = $14 }
		END { printf "%d %.1f\n", n, n / (e - s) }' "$1"
}

rss_of() { # pid -> KiB
	awk '/^VmRSS/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo "?"
}

echo "# dispatch rate vs graph size: task 'true', 2 cores, $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
gen "$SMALL" "$work/small"
"$WFRUN" -q -j 2 "$work/small/wf.yaml"
read -r n r < <(rate "$work/small/.wfrun/trace.tsv")
echo "small graph: $SMALL tasks, $n completed, $r tasks/s"

gen "$BIG" "$work/big"
"$WFRUN" -q -j 2 "$work/big/wf.yaml" &
pid=$!
sleep "$SECONDS_BIG"
rss=$(rss_of "$pid")
kill -INT "$pid"
wait "$pid" || true
read -r n r2 < <(rate "$work/big/.wfrun/trace.tsv")
echo "big graph:   $BIG tasks in memory (master RSS ${rss} KiB), $n completed in ${SECONDS_BIG}s, $r2 tasks/s"
awk -v a="$r" -v b="$r2" 'BEGIN { printf "ratio big/small: %.2f\n", b / a }'
