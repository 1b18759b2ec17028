#!/usr/bin/env bash
# soak.sh - the soak test of issue 5: a workflow of N tasks (default
# 20,000) with dependencies, where about 5 % of the tasks fail once at
# random and are retried (retries: 2), run
#   1. locally (-j 2): the clean reference;
#   2. on 3 loopback testcluster workers with a shared workdir, where one
#      worker (its sshd and everything under it, the agent included) is
#      killed -9 midway and the master is killed -9 later;
#   3. resumed: the same command again (wfrun skips the dead worker);
# then checks that every output equals the local run's, byte for byte, and
# that no task that completed before the master was killed ran again (task
# rows of the two traces: each task ID COMPLETED at most once overall).
# Prints PASS or FAIL with counts and timings; exits 1 on FAIL.
#
# The workflow (task IDs in program order):
#   gen   G x M  a/G/J = a line of text from (G, J)
#   mix   G x M  b/G/J = cksum(1) of a/G/J and a/G/(J mod M + 1)
#   sum   G      c/G   = cksum of b/G/1 .. b/G/M        (a gather)
#   pad   P      p/K   = a line of text from K          (fills N exactly)
#   final 1      final.txt = cksum of c/*, p/*           (a gather)
# with G = 100 (fewer for small N), M = (N - G - 1) / 2G, P the rest.
# Outputs are a pure function of the inputs.  A task fails on its first
# attempt when a hash of (stage, G, J) is 0 modulo 20 and its marker
# markers/STAGE.G.J (outside the outputs) does not exist yet: it writes
# the marker and garbage to its output, and exits 1; the retry succeeds.
#
# Needs root (testcluster), openssh-server, bc.  Environment: WFRUN
# (default ../wfrun), TESTCLUSTER, N (default 20000), KILL_WORKER_AT and
# KILL_MASTER_AT (completed tasks in the trace before each kill; default
# 25 % and 60 % of N), BENCH_TMP, KEEP=1.  About 10 minutes for N=20000.
#
#   N=500 bench/soak.sh
set -euo pipefail
command -v bc >/dev/null || { echo "needs bc: apt-get install -y bc" >&2; exit 3; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WFRUN=${WFRUN:-$here/../wfrun}
TESTCLUSTER=${TESTCLUSTER:-$here/../tests/cluster/testcluster}
N=${N:-20000}
KILL_WORKER_AT=${KILL_WORKER_AT:-$((N / 4))}
KILL_MASTER_AT=${KILL_MASTER_AT:-$((N * 6 / 10))}
BENCH_TMP=${BENCH_TMP:-$here/out}
[ "$N" -ge 20 ] || { echo "soak.sh: N must be at least 20" >&2; exit 2; }
[ "$KILL_WORKER_AT" -lt "$KILL_MASTER_AT" ] && [ "$KILL_MASTER_AT" -lt "$N" ] ||
	{ echo "soak.sh: need KILL_WORKER_AT < KILL_MASTER_AT < N" >&2; exit 2; }

# shellcheck source=bench/scratch.sh
. "$here/scratch.sh" soak
C=$tmp/c
master=
# the agent the private copy sends to the workers
cp "$(dirname "$wfrun_src")/wfrun-worker" "$tmp/" ||
	{ echo "soak.sh: no wfrun-worker beside $wfrun_src (run make)" >&2; exit 3; }
eval "scratch_$(declare -f cleanup)"
cleanup() {
	[ -z "$master" ] || kill -9 "$master" 2>/dev/null || true
	"$TESTCLUSTER" down -q "$C" >/dev/null 2>&1 || true
	scratch_cleanup
}

G=$((N >= 1000 ? 100 : N / 10))
M=$(((N - G - 1) / (2 * G)))
P=$((N - 2 * G * M - G - 1))

cat >"$tmp/task.sh" <<'EOF2'
# task.sh STAGE G J OUT [IN...]: write OUT from (STAGE, G, J) and the INs
s=$1 g=$2 j=$3 out=$4
shift 4
h=$(( ((s * 1000003 + g) * 8191 + j) & 0xffffffff ))
h=$(( ((h ^ (h >> 16)) * 0x45d9f3b) & 0xffffffff ))
h=$(( ((h ^ (h >> 16)) * 0x45d9f3b) & 0xffffffff ))
h=$(( h ^ (h >> 16) ))
if [ $((h % 20)) -eq 0 ] && ! [ -e "markers/$s.$g.$j" ]; then
	: >"markers/$s.$g.$j"
	echo "partial $s $g $j" >"$out"
	echo "soak: injected failure of $s.$g.$j" >&2
	exit 1
fi
if [ $# -eq 0 ]; then
	printf 'stage %s g %s j %s: %s\n' "$s" "$g" "$j" "$((h % 1000003))" >"$out"
else
	{ printf 'stage %s g %s j %s\n' "$s" "$g" "$j"; cksum "$@"; } >"$out"
fi
EOF2

cat >"$tmp/wf.yaml" <<EOF2
name: soak
workdir: .
vars: {G: $G, M: $M, P: $P}
tasks:
  - name: gen
    foreach: {g: "1..{G}", j: "1..{M}"}
    retries: 2
    out: {o: "a/{g}/{j}"}
    run: "sh task.sh 1 {g} {j} {out.o}"
  - name: mix
    foreach: {g: "1..{G}", j: "1..{M}", k: "{j} % {M} + 1..{j} % {M} + 1"}
    retries: 2
    in: {x: "a/{g}/{j}", y: "a/{g}/{k}"}
    out: {o: "b/{g}/{j}"}
    run: "sh task.sh 2 {g} {j} {out.o} {in.x} {in.y}"
  - name: sum
    foreach: {g: "1..{G}"}
    retries: 2
    in: {b: {list: "b/{g}/{j}", foreach: {j: "1..{M}"}}}
    out: {o: "c/{g}"}
    run: "sh task.sh 3 {g} 0 {out.o} {in.b}"
  - name: pad
    foreach: {q: "1..{P}"}
    retries: 2
    out: {o: "p/{q}"}
    run: "sh task.sh 4 {q} 0 {out.o}"
  - name: final
    retries: 2
    in: {c: {list: "c/{g}", foreach: {g: "1..{G}"}}, p: {list: "p/{q}", foreach: {q: "1..{P}"}}}
    out: {o: final.txt}
    run: "sh task.sh 5 0 0 {out.o} {in.c} {in.p}"
EOF2

now() { date +%s.%N; }
secs() { printf '%.1f' "$(echo "$2 - $1" | bc -l)"; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
# The trace column named $1 for every row of trace $2, one per line.
col() { awk -F'\t' -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } { print $k }' "$2"; }
completed_ids() { paste <(col task_id "$1") <(col status "$1") | awk '$2 == "COMPLETED" { print $1 }'; }
ncompleted() { [ -e "$1" ] && awk -F'\t' '$0 ~ /\tCOMPLETED\t/' "$1" | wc -l || echo 0; }
fresh() { # fresh DIR: the workflow and its task script in an empty DIR
	mkdir -p "$1/markers"
	cp "$tmp/wf.yaml" "$tmp/task.sh" "$1/"
}

echo "# soak, $N tasks (gen $((G * M)), mix $((G * M)), sum $G, pad $P, final 1), retries 2; $(date -u +%FT%TZ)"
echo "# wfrun $wfrun_src (sha256 $(sha256sum "$WFRUN" | cut -c1-12)); load $(load)"

# 1. the clean local reference
L=$tmp/local
fresh "$L"
t0=$(now)
(cd "$L" && "$WFRUN" -q -j 2 wf.yaml) 2>"$tmp/err-local.txt" ||
	{ echo "FAIL: the local run failed:" >&2; tail "$tmp/err-local.txt" >&2; exit 1; }
t1=$(now)
echo "local -j 2:           $(secs "$t0" "$t1") s, $(ncompleted "$L/.wfrun/trace.tsv") completed, $(ls "$L/markers" | wc -l) injected failures retried; load $(load)"

# 2. three workers with a shared workdir
"$TESTCLUSTER" up -q --shared 3 "$C"
{
	echo '<resources>'
	while read -r n h p u k wd; do
		echo "  <worker name=\"$n\" host=\"$h\" port=\"$p\" user=\"$u\">"
		echo "    <cores>2</cores>"
		echo "    <workdir shared=\"true\">$wd</workdir>"
		echo "    <ssh identity=\"$k\" known-hosts=\"$C/known_hosts\"/>"
		echo "  </worker>"
	done <"$C/hosts"
	echo '</resources>'
} >"$C/cluster.xml"
R=$C/shared/soak
fresh "$R"
# The processes of worker $1 of this cluster: its sshd (from its PID file)
# and every descendant (the session's sshd, shell and wfrun-worker agent).
worker_pids() {
	local todo next p
	todo=$(cat "$C/$1/sshd.pid")
	while [ -n "$todo" ]; do
		echo "$todo"
		next=
		for p in $todo; do next="$next $(pgrep -P "$p" || true)"; done
		todo=$(echo $next)
	done
}

t0=$(now)
(cd "$R" && exec "$WFRUN" -r "$C/cluster.xml" --trace "$tmp/trace1.tsv" wf.yaml) 2>"$tmp/err1.txt" &
master=$!
until [ "$(ncompleted "$tmp/trace1.tsv")" -ge "$KILL_WORKER_AT" ]; do
	kill -0 "$master" 2>/dev/null || { echo "FAIL: run 1 ended before the worker kill" >&2; exit 1; }
	sleep 0.2
done
pids=$(worker_pids w3 | tr '\n' ' ')
kill -9 $pids 2>/dev/null || true # some are short-lived task processes
tw=$(now)
echo "killed w3 (pids $pids) at $(ncompleted "$tmp/trace1.tsv") completed, $(secs "$t0" "$tw") s"
until [ "$(ncompleted "$tmp/trace1.tsv")" -ge "$KILL_MASTER_AT" ]; do
	kill -0 "$master" 2>/dev/null || { echo "FAIL: run 1 ended before the master kill" >&2; exit 1; }
	sleep 0.2
done
{ kill -9 "$master"; tk=$(now); wait "$master"; } 2>/dev/null || true
master=
done1=$(ncompleted "$tmp/trace1.tsv")
echo "run 1 (3 workers):    $(secs "$t0" "$tk") s until kill -9 of the master, $done1 completed; load $(load)"
grep -q "worker 'w3' lost" "$tmp/err1.txt" && lost=yes || lost=no

# 3. resume: the same command again (w3 is gone: wfrun skips it)
plan=$(cd "$R" && "$WFRUN" -n -r "$C/cluster.xml" wf.yaml 2>/dev/null | sed -n 's/^# \([0-9]*\) of them up to date.*/\1/p')
t0=$(now)
rc=0
(cd "$R" && "$WFRUN" -r "$C/cluster.xml" --trace "$tmp/trace2.tsv" wf.yaml) 2>"$tmp/err2.txt" || rc=$?
t1=$(now)
done2=$(ncompleted "$tmp/trace2.tsv")
echo "run 2 (resume):        $(secs "$t0" "$t1") s, exit $rc, ${plan:-?} up to date beforehand, $done2 completed; load $(load)"

# 4. checks
fail=0
check() { # check OK|FAIL-condition message
	if [ "$1" = 0 ]; then echo "  ok    $2"; else echo "  FAIL  $2"; fail=1; fi
}
echo "checks:"
check "$([ "$rc" = 0 ]; echo $?)" "the resumed run exited 0 (got $rc)"
check "$([ "$lost" = yes ]; echo $?)" "run 1 reported worker 'w3' lost"
check "$(grep -q "worker 'w3' skipped" "$tmp/err2.txt"; echo $?)" "run 2 skipped the dead worker 'w3'"
ndiff=$(diff -r -q -x .wfrun -x markers -x wf.yaml -x task.sh "$L" "$R" | wc -l || true)
nout=$(find "$L/a" "$L/b" "$L/c" "$L/final.txt" ${P:+"$L/p"} -type f 2>/dev/null | wc -l)
check "$([ "$ndiff" = 0 ]; echo $?)" "$nout outputs equal the local run's byte for byte ($ndiff differ or missing)"
completed_ids "$tmp/trace1.tsv" | sort -n >"$tmp/c1"
completed_ids "$tmp/trace2.tsv" | sort -n >"$tmp/c2"
dup1=$(uniq -d "$tmp/c1" | wc -l)
dup2=$(uniq -d "$tmp/c2" | wc -l)
again=$(comm -12 <(sort -u "$tmp/c1") <(sort -u "$tmp/c2") | wc -l)
all=$(sort -u "$tmp/c1" "$tmp/c2" | wc -l)
check "$([ "$dup1" = 0 ] && [ "$dup2" = 0 ]; echo $?)" "no task ID COMPLETED twice within a run ($dup1 in run 1, $dup2 in run 2)"
check "$([ "$again" = 0 ]; echo $?)" "no task completed in run 1 ran again in run 2 ($again did)"
check "$([ "$all" = "$N" ]; echo $?)" "every task completed exactly once overall ($all of $N)"
check "$([ "${plan:-x}" = "$done1" ]; echo $?)" "wfrun -n before the resume counted the $done1 tasks of run 1 up to date (${plan:-?})"
# An injected failure writes its marker, then its row; a task killed in
# between (on w3, or by the master's kill) leaves a marker and no row.
# A task that was running on the killed worker has a LOST row (it then
# ran again elsewhere): the only other status allowed, and only on w3.
rows=$(cat <(paste <(col status "$tmp/trace1.tsv") <(col exit "$tmp/trace1.tsv") <(col worker "$tmp/trace1.tsv")) \
	<(paste <(col status "$tmp/trace2.tsv") <(col exit "$tmp/trace2.tsv") <(col worker "$tmp/trace2.tsv")))
nfailed=$(awk -F'\t' '$1 == "FAILED"' <<<"$rows" | wc -l)
nlost=$(awk -F'\t' '$1 == "LOST" && $3 == "w3"' <<<"$rows" | wc -l)
nother=$(awk -F'\t' '$1 != "COMPLETED" && !($1 == "FAILED" && $2 == 1) && !($1 == "LOST" && $3 == "w3")' <<<"$rows" | wc -l)
ninjected=$(find "$R/markers" -type f | wc -l)
check "$([ "$nother" = 0 ] && [ "$nfailed" -le "$ninjected" ]; echo $?)" \
	"no failure but the injected ones ($nfailed FAILED rows, $ninjected injected, $nlost LOST on w3, $nother other rows)"
for t in 1 2; do
	printf '  run %s rows by worker and status: %s\n' "$t" \
		"$(paste <(col worker "$tmp/trace$t.tsv") <(col status "$tmp/trace$t.tsv") | sort | uniq -c |
			awk '{ printf "%s%s %s %s", (NR > 1 ? ", " : ""), $2, $3, $1 }')"
done
echo "  injected failures: $(ls "$R/markers" | wc -l) on the cluster, $(ls "$L/markers" | wc -l) locally; retried attempts (attempt > 1): $(cat <(col attempt "$tmp/trace1.tsv") <(col attempt "$tmp/trace2.tsv") | awk '$1 > 1' | wc -l)"
if [ "$fail" = 0 ]; then
	echo "PASS: soak of $N tasks"
else
	echo "FAIL: soak of $N tasks (scratch kept in $tmp)"
	: >"$tmp/keep"
	exit 1
fi
