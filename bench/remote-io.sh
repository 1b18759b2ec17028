#!/usr/bin/env bash
# 200 concurrent I/O tasks (`sleep 1`, io: true) on ONE loopback SSH worker
# through one connection: do they all run at once?  sshd allows 10
# sessions per connection (MaxSessions); wfrun's agent runs every task on
# one channel.  Prints the wall time and the peak concurrency seen in the
# trace (times measured on the worker).
#
#   bench/remote-io.sh           # N=200
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
WFRUN=${WFRUN:-$here/../wfrun}
TESTCLUSTER=${TESTCLUSTER:-$here/../tests/cluster/testcluster}
N=${N:-200}
IO_EXECUTORS=$N
# shellcheck source=bench/one-worker.sh
. "$here/one-worker.sh"
mkdir -p "$wd/b"
cat >"$wd/b/wf.yaml" <<EOF2
tasks:
  - name: io
    foreach: {i: "1..$N"}
    io: true
    run: "sleep 1"
EOF2
echo "# $N I/O tasks 'sleep 1' on 1 loopback sshd worker (MaxSessions $(grep -i '^MaxSessions' "$C/w1/sshd_config" | awk '{print $2}')), $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
s=$(date +%s.%N)
"$WFRUN" -q -r "$C/cluster.xml" "$wd/b/wf.yaml"
e=$(date +%s.%N)
peak=$(awk -F'\t' 'NR > 1 { print $13, 1; print $14, -1 }' "$wd/b/.wfrun/trace.tsv" |
	sort -k1,1n -k2,2n | awk '{ c += $2; if (c > m) m = c } END { print m }')
awk -v s="$s" -v e="$e" -v p="$peak" -v n="$N" 'BEGIN {
	printf "wall %.2f s (connection and agent start included), peak concurrency %d of %d\n", e - s, p, n }'
