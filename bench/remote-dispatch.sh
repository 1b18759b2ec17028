#!/usr/bin/env bash
# Remote dispatch: N trivial tasks (`true`) on ONE loopback SSH worker with
# 2 cores, side by side:
#   wfrun -r      one libssh2 connection, the wfrun-worker agent on one channel
#   ssh per task  `ssh -F cfg w1 true`, a new process and connection each
#                 (run for SAMPLE tasks and scaled to N: it is too slow to
#                 run N times; the scaling is printed as such)
#   parallel -S   GNU parallel -j2 -S w1 with an OpenSSH ControlMaster
# Needs root (testcluster), openssh-server, parallel.
#
#   bench/remote-dispatch.sh     # N=5000 SAMPLE=200
set -euo pipefail
command -v bc >/dev/null || { echo "needs bc: apt-get install -y bc" >&2; exit 3; }
here=$(cd "$(dirname "$0")" && pwd)
WFRUN=${WFRUN:-$here/../wfrun}
TESTCLUSTER=${TESTCLUSTER:-$here/../tests/cluster/testcluster}
N=${N:-5000}
SAMPLE=${SAMPLE:-200}
# shellcheck source=bench/one-worker.sh
. "$here/one-worker.sh"
mkdir -p "$wd/b"
cat >"$wd/b/wf.yaml" <<EOF2
tasks:
  - name: t
    foreach: {i: "1..$N"}
    run: "true"
EOF2

now() { date +%s.%N; }
echo "# remote dispatch, $N tasks 'true', 1 loopback sshd worker, 2 slots; $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"

t0=$(now)
"$WFRUN" -q -r "$C/cluster.xml" "$wd/b/wf.yaml"
t1=$(now)
done_rows=$(awk -F'\t' 'NR > 1 && $9 == "COMPLETED"' "$wd/b/.wfrun/trace.tsv" | wc -l)
wf=$(echo "$t1 - $t0" | bc -l)
printf 'wfrun -r:        %8.2f s  (%d tasks completed, %.0f tasks/s)\n' "$wf" "$done_rows" "$(echo "$done_rows / $wf" | bc -l)"

t0=$(now)
seq "$SAMPLE" | xargs -P2 -I{} ssh -n -F "$C/ssh_config" "$name" true
t1=$(now)
ssh_s=$(echo "($t1 - $t0) * $N / $SAMPLE" | bc -l)
printf 'ssh per task:    %8.2f s  (measured on %d tasks with 2 at a time, scaled to %d)\n' "$ssh_s" "$SAMPLE" "$N"

if command -v parallel >/dev/null; then
	cp="$work/cm-%C"
	sshcmd="ssh -F $C/ssh_config -o ControlMaster=auto -o ControlPath=$cp -o ControlPersist=120"
	$sshcmd -n "$name" true # open the master connection
	t0=$(now)
	seq "$N" | parallel -j2 -S "$name" --ssh "$sshcmd" true
	t1=$(now)
	par=$(echo "$t1 - $t0" | bc -l)
	printf 'parallel -S:     %8.2f s  (ControlMaster on)\n' "$par"
	$sshcmd -O exit "$name" 2>/dev/null || true
else
	par=0
	echo "parallel -S: not installed (apt-get install -y parallel)"
fi
printf 'speed-up of wfrun: %.1fx over ssh per task' "$(echo "$ssh_s / $wf" | bc -l)"
[ "$par" != 0 ] && printf ', %.1fx over parallel -S' "$(echo "$par / $wf" | bc -l)"
echo
