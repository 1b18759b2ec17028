#!/usr/bin/env bash
# crash.sh - the whole crash-consistency sweep of issue 18: tests/crash/run
# at every call of the master (write, fdatasync, fsync, openat, rename,
# unlink, mkdir, rmdir, ftruncate) with each fault (ENOSPC, EIO, kill -9),
# each followed by a clean rerun and the harness's checks.  The suite
# (tests/bats/crash.bats) tries every 30th point of five of those calls;
# this tries them all.  Prints the harness's lines (a line per failing
# point, the counts of calls, the totals) and the time it took; exit
# status 1 when a point failed.
#
# Environment: WFRUN (default build/wfrun), KINDS (default
# enospc,eio,kill), CALLS (default: the harness's), STRIDE (default 1).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export WFRUN=${WFRUN:-$here/../build/wfrun}
args=(--kinds "${KINDS:-enospc,eio,kill}" --stride "${STRIDE:-1}")
[ -z "${CALLS:-}" ] || args+=(--calls "$CALLS")
echo "# crash sweep: $(date -u +%FT%TZ), wfrun $WFRUN (sha256 $(sha256sum "$WFRUN" | cut -c1-12)), load $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)
rc=0
"$here/../tests/crash/run" "${args[@]}" || rc=$?
echo "# $(($(date +%s) - start)) s; load $(cut -d' ' -f1-3 /proc/loadavg)"
exit $rc
