#!/usr/bin/env bash
# property.sh - the property test of issue 18 over many seeds: each seed's
# random workflow (tests/property/wfgen.py) run by wfrun at -j 1 and -j 4,
# with failures fixed then rerun, failures retried, and kill -9 of the
# master then a rerun, each compared file by file with the sequential
# reference (tests/property/check.py says how).  The suite
# (tests/bats/property.bats) runs a few fixed seeds; this runs FROM..TO.
#
# Usage: bench/property.sh [FROM [TO]]   (default 1000..1099)
# Environment: WFRUN (default build/wfrun of this tree, copied so that a
# rebuild during the sweep cannot mix binaries), MODES (default all:
# j1,j4,fix,retry,kill), BENCH_TMP (default bench/out).  Prints each
# failing seed with its replay command, then one summary line; exits 1
# when any seed failed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WFRUN=${WFRUN:-$here/../build/wfrun}
FROM=${1:-1000}
TO=${2:-$((FROM + 99))}
MODES=${MODES:-j1,j4,fix,retry,kill}
BENCH_TMP=${BENCH_TMP:-$here/out}
mkdir -p "$BENCH_TMP"
d=$(mktemp -d "$BENCH_TMP/property.XXXXXX")
# a failing seed's directories are kept (check.py names them)
trap '[ "${rc:-1}" -ne 0 ] || rm -rf "$d"' EXIT
cp "$WFRUN" "$d/wfrun"
echo "# property: seeds $FROM..$TO, modes $MODES, wfrun $(sha256sum "$d/wfrun" | cut -c1-12), $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)
rc=0
TMPDIR=$d WFRUN=$d/wfrun python3 "$here/../tests/property/check.py" \
	--mode "$MODES" --seeds "$FROM..$TO" || rc=$?
echo "# $(($(date +%s) - start)) s"
exit "$rc"
