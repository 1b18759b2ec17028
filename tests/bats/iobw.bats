#!/usr/bin/env bats
# run-all: once alone
# Storage-bandwidth constraints, the learner's timed tests: what auto
# learns from how fast its tasks ran (epochs, the climb, rates read in
# flight, stops to make way), so this file runs with nothing beside it.
# What needs no quiet machine (static limits, refusals, counts of
# epochs) is in iobw-rules.bats, in the lanes.
load helper
load iobw

@test "auto --learn paper learns in epochs, says so in the trace and events.jsonl, and keeps the registry" {
	# 4 executors on B = 100: c = 25 (4 at once), then 50 (2): sleeps do
	# not get faster with less company, so learning stops at epoch 2.
	ckpt 14 auto 0.5
	run "$WFRUN" -q -j 2 --io-executors 4 --disk-bw 100 --learn paper wf.yaml
	[ "$status" -eq 0 ]
	[ "$(max_overlap)" -le 4 ]
	[ "$(trace_col epoch | sort | uniq -c | tr -s ' ' | tr '\n' ,)" = " 8 , 4 1, 2 2," ]
	[ "$(paste <(trace_col storage_bw) <(trace_col epoch) | sort -u | tr '\t\n' ':,')" = "25:,25:1,50:2," ]
	grep -q '^{"t":[0-9.]*,"ev":"epoch_begin","name":"ckpt","device":"disk@local","epoch":1,"c":25,"k":4}$' .wfrun/events.jsonl
	grep -q '"ev":"epoch_end","name":"ckpt","device":"disk@local","epoch":1,"c":25,"k":4,"tasks":4,"mean_s":[0-9.]*,"t_s":[0-9.]*,"busy_s":[0-9.]*,"mbps":[0-9.e+-]*,"registered":true}$' .wfrun/events.jsonl
	# a full epoch: t = k S / n = S, at least the tasks' mean
	grep '"ev":"epoch_end",.*"epoch":1,' .wfrun/events.jsonl |
		sed 's/.*"mean_s":\([0-9.]*\),"t_s":\([0-9.]*\),"busy_s":\([0-9.]*\),.*/\1 \2 \3/' |
		awk '{ exit !($2 == $3 && $2 >= $1 && $1 >= 0.5) }'
	grep -q '"ev":"epoch_end",.*"epoch":2,"c":50,"k":2,"tasks":2,.*"registered":false}$' .wfrun/events.jsonl
	grep -q '"ev":"constraint","name":"ckpt","device":"disk@local","c":25,"k":4,"n":[0-9]*,"why":"learned"}$' .wfrun/events.jsonl
	[ "$(grep -c . .wfrun/events.jsonl)" -eq 5 ]
	grep -q $'^ckpt\tdisk\t100\tauto\t25:4:' .wfrun/storage_bw.tsv

	# The next run starts from the registry: no epoch at all.
	rm -rf out
	run "$WFRUN" -q -j 2 --io-executors 4 --disk-bw 100 --learn paper wf.yaml
	[ "$status" -eq 0 ]
	[ -z "$(trace_col epoch | sort -u)" ]
	[ "$(trace_col storage_bw | sort -u)" = 25 ]
	[ "$(grep -c . .wfrun/events.jsonl)" -eq 1 ]
	grep -q '"why":"registry"}$' .wfrun/events.jsonl

	# Another disk bandwidth is another registry: it learns again.
	rm -rf out
	run "$WFRUN" -q -j 2 --io-executors 4 --disk-bw 200 --learn paper wf.yaml
	[ "$status" -eq 0 ]
	[ "$(trace_col epoch | sort -u | tr '\n' ,)" = ",1,2," ]
	[ "$(grep -c . .wfrun/storage_bw.tsv)" -eq 3 ] # comment + 2 registries

	# --relearn forgets it.
	rm -rf out
	run "$WFRUN" -q -j 2 --io-executors 4 --disk-bw 100 --relearn --learn paper wf.yaml
	[ "$status" -eq 0 ]
	[ "$(trace_col epoch | sort -u | tr '\n' ,)" = ",1,2," ]
}

@test "auto climbs from one writer: epochs of 1, then the fill point; the trace and events say so" {
	# B = 100, 4 executors, 2 cores: a task that sleeps 0.5 s and writes
	# 1 MiB writes about 2 MB/s, far less than 100, so the writers that
	# would fill B are more than the executors: the second epoch runs 4,
	# and 4 writers each keep the one writer's pace: c = 25 (kept-pace).
	# An epoch of k >= 2 streams 2 k tasks through its k places; once
	# they have joined, the places they leave take more (up to k - 1
	# before the 2 k have ended), which join the epoch too.  (Tasks that
	# wrote a line made the pace a few KB/s, where a page of the
	# directory's, counted for one task, made it "slowed" and the search
	# went on: it failed now and then in CI.)
	ckpt_run 24 auto "sleep 0.5; head -c 1048576 /dev/zero > {out.f}"
	run "$WFRUN" -q -j 2 --io-executors 4 --disk-bw 100 wf.yaml
	[ "$status" -eq 0 ]
	[ "$(max_overlap)" -le 4 ]
	grep -v '"task_' .wfrun/events.jsonl # (shown if a check fails)
	[ "$(paste <(trace_col storage_bw) <(trace_col epoch) | sort -u | tr '\t\n' ':,')" = "100:1,25:,25:2," ]
	[ "$(trace_col epoch | grep -c '^1$')" -eq 1 ]
	e2=$(trace_col epoch | grep -c '^2$')
	[ "$e2" -ge 8 ]
	[ "$e2" -le 11 ]
	grep -q '"ev":"epoch_end",.*"epoch":2,"c":25,"k":4,"tasks":8,' .wfrun/events.jsonl
	[ "$(grep -o '"ev":"epoch_end",.*"epoch":[0-9],"c":[0-9.]*,"k":[0-9]*' .wfrun/events.jsonl | grep -o '"epoch".*' | tr '\n' ' ')" = '"epoch":1,"c":100,"k":1 "epoch":2,"c":25,"k":4 ' ]
	grep -q '"ev":"constraint","name":"ckpt","device":"disk@local","c":25,"k":4,"n":[0-9]*,"why":"learned"}$' .wfrun/events.jsonl
	grep -q $'^ckpt\tdisk\t100\tauto\t100:1:[0-9.]*:[0-9.e+-]*:[0-9.e+-]*:[0-9.e+-]*:[01]:[0-9.e+-]*:[0-9.e+-]*:[0-9.e+-]*:[0-9.e+-]*,25:4:[0-9.]*:[0-9.e+-]*:[0-9.e+-]*:[0-9.e+-]*:[01]:[0-9.e+-]*:[0-9.e+-]*:[0-9.e+-]*:[0-9.e+-]*$' .wfrun/storage_bw.tsv

	# (without known bytes the climb goes 1, 2, then max(4, cores): the
	# unit tests; here write_bytes is always known)

	# --learn wants climb or paper
	run "$WFRUN" --learn fast wf.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"--learn wants climb or paper, not 'fast'"* ]]
}

@test "the climb's fill point comes from what one writer really wrote" {
	# Each task writes 4 MiB and syncs it.  The first epoch's MB/s (from
	# the task's write_bytes over its time) says how many such writers
	# fill B = 100: the second epoch runs that many, at most the 16
	# executors (or 2 if one writer fills B).
	wf <<'EOF'
tasks:
  - name: ckpt
    foreach: {i: "1..40"}
    io: true
    storage_bw: auto
    out: {f: "out/{i}"}
    run: "dd if=/dev/zero of={out.f} bs=1M count=4 conv=fsync status=none"
EOF
	run "$WFRUN" -q -j 2 --io-executors 16 --disk-bw 100 wf.yaml
	[ "$status" -eq 0 ]
	[ "$(stat -c %s out/40)" -eq 4194304 ]
	e1=$(grep '"ev":"epoch_end",.*"epoch":1,' .wfrun/events.jsonl)
	mbps=$(sed 's/.*"mbps":\([0-9.e+-]*\),.*/\1/' <<<"$e1")
	busy=$(sed 's/.*"busy_s":\([0-9.e+-]*\),.*/\1/' <<<"$e1")
	# 4 MiB in its busy time (a little more: the file's metadata; a
	# little less: both figures are rounded in events.jsonl)
	awk -v m="$mbps" -v s="$busy" 'BEGIN { exit !(m * s > 3.95 && m * s < 4.2) }'
	k2=$(grep '"ev":"epoch_begin",.*"epoch":2,' .wfrun/events.jsonl | sed 's/.*"k":\([0-9]*\)}$/\1/')
	want=$(awk -v m="$mbps" 'BEGIN { f = int(100 / m + 1e-9); if (f > 16) f = 16; print (f >= 2 ? f : 2) }')
	[ "$k2" -eq "$want" ]
	[ "$(trace_col write_bytes | sort -u | awk '$1 >= 4194304' | wc -l)" -ge 1 ]
}

@test "a climb reads its one writer's rate while it runs, and does not wait for its end" {
	# Steady writers of about 1.3 MB/s on B = 4.  The one writer's
	# bytes so far are read from its process group; once two halves of
	# 0.1 s or more (less their edges' lateness, a sample's 20 ms or
	# so) agree and the rate says the fill point, the "rate"
	# event says so and the fill point's writers start beside it (its
	# grant drops to theirs).  Its own epoch ends later, registered
	# with the rate taken.
	steady_writers
	run "$WFRUN" -q -j 2 --io-executors 8 --disk-bw 4 wf.yaml
	[ "$status" -eq 0 ]
	for i in $(seq 1 8); do [ "$(stat -c %s out/$i)" -eq 1966080 ]; done
	rate=$(grep '"ev":"rate",.*"epoch":1,' .wfrun/events.jsonl)
	[[ "$rate" == *'"name":"ckpt","device":"disk@local","epoch":1,"c":4,"k":1,'* ]]
	mbps=$(sed 's/.*"mbps":\([0-9.e+-]*\),.*/\1/' <<<"$rate")
	after=$(sed 's/.*"after_s":\([0-9.]*\),.*/\1/' <<<"$rate")
	fill=$(sed 's/.*"fill":\([0-9]*\)}$/\1/' <<<"$rate")
	awk -v a="$after" 'BEGIN { exit !(a >= 0.12 && a < 1.5) }'
	want=$(awk -v m="$mbps" 'BEGIN { f = int(4 / m + 0.5); print (f > 8 ? 8 : f) }')
	[ "$fill" -eq "$want" ]
	[ "$fill" -ge 2 ]
	# epoch 1 ends after the rate, registered with it
	e1=$(grep -n '"ev":"epoch_end",.*"epoch":1,' .wfrun/events.jsonl)
	[ "${e1%%:*}" -gt "$(grep -n '"ev":"rate",.*"epoch":1,' .wfrun/events.jsonl | cut -d: -f1)" ]
	[[ "$e1" == *'"tasks":1,'*"\"mbps\":$mbps,\"registered\":true}" ]]
	# others started while the one writer ran; it holds the fill
	# point's c, or that of the epoch begun last before it ended (3
	# writers at 1.25 MB/s write less than B: 4 are tried, fill-up)
	end1=$(awk -F'\t' '$1 == 1 { print $14 }' .wfrun/trace.tsv)
	[ "$(awk -F'\t' -v e="$end1" 'NR > 1 && $1 != 1 && $13 < e' .wfrun/trace.tsv | wc -l)" -ge 1 ]
	c=$(epoch_c_before "$end1")
	[ "$(awk -F'\t' '$1 == 1 { print $7 }' .wfrun/trace.tsv)" = "$c" ]
}

@test "an epoch past the knee is measured in flight, and its youngest writers make way" {
	# Writers that congest one another as a device would: each writes
	# 8 MiB at law(n) / n MB/s, n the writers running (their files in
	# w/, those alive), law(n) = min(10 n, 40 f(n)), f = 1 up to 2, then
	# 1 / (1 + 2 (n - 2)): 10, 20, 13.3 and 8 MB/s for 1 to 4.  B = 40:
	# one writer's 10 MB/s says the fill point 4, past the best, 2.  (A
	# writer late by more than 50 ms does not catch up: on a loaded
	# machine, writers that caught up wrote 4 at once at 14.5 MB/s.)
	cat >writer.py <<'PY'
import os, sys, time
me = os.path.join("w", str(os.getpid()))
os.makedirs("w", exist_ok=True)
open(me, "w").close()
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
t = time.monotonic()
for i in range(128):
    n = sum(os.path.exists("/proc/" + p) for p in os.listdir("w"))
    law = min(10 * n, 40 / (1 + 2 * max(0, n - 2)))
    os.write(fd, b" " * 65536)
    t = max(t, time.monotonic() - 0.05) + 0.0625 / (law / n)
    time.sleep(max(0, t - time.monotonic()))
os.unlink(me)
PY
	ckpt_run 24 auto "/usr/bin/python3 writer.py {out.f}"
	run "$WFRUN" -q -j 2 --io-executors 8 --disk-bw 40 wf.yaml
	[ "$status" -eq 0 ]
	for i in $(seq 1 24); do [ "$(stat -c %s out/$i)" -eq 8388608 ]; done
	ev=.wfrun/events.jsonl
	grep -q '"ev":"rate",.*"epoch":1,"c":40,"k":1,' $ev
	grep -q '"ev":"epoch_begin",.*"epoch":2,"c":10,"k":4}$' $ev
	# the fill point's 4 writers: their rate taken while they wrote
	r2=$(grep '"ev":"rate",.*"epoch":2,"c":10,"k":4,' $ev)
	mbps=$(sed 's/.*"mbps":\([0-9.e+-]*\),.*/\1/' <<<"$r2")
	after=$(sed 's/.*"after_s":\([0-9.]*\),.*/\1/' <<<"$r2")
	awk -v m="$mbps" 'BEGIN { exit !(m > 5 && m < 10) }'
	awk -v a="$after" 'BEGIN { exit !(a >= 0.2 && a < 3) }'
	# with how far off it may be (a rate that lost: taken when clear)
	err=$(sed 's/.*"err":\([0-9.]*\),.*/\1/' <<<"$r2")
	awk -v e="$err" 'BEGIN { exit !(e > 0 && e < 0.5) }'
	grep -q '"ev":"epoch_end",.*"epoch":2,"c":10,"k":4,.*"registered":true}$' $ev
	# ... before any task of epoch 2 ended (8 MiB at 2 MB/s: 4 s)
	t2=$(grep '"ev":"rate",.*"epoch":2,' $ev | sed 's/^{"t":\([0-9.]*\),.*/\1/')
	first=$(awk -F'\t' 'NR > 1 && $8 == 2 { print $14 }' .wfrun/trace.tsv | sort -n | head -1)
	awk -v r="$t2" -v e="$first" 'BEGIN { exit !(r < e) }'
	# then down to 2 writers, the youngest of the 4 stopped to make
	# way, and the search keeps 2
	grep -q '"ev":"epoch_begin",.*"step":"golden-up","best":1,.*"epoch":3,"c":20,"k":2}$' $ev
	grep -q '"ev":"preempt",.*"epoch":3,"c":20,"k":2,"tasks":2}$' $ev
	grep -q '"ev":"constraint",.*"c":20,"k":2,.*"why":"learned"}$' $ev
	# each of them ran again: 24 tasks completed, no file half written;
	# when learning ends (bracketed after 3 writers are tried, or 2
	# kept) with more than 2 writing, the youngest stop too
	[ "$(trace_col status | grep -c '^COMPLETED$')" -eq 24 ]
	stopped=$(awk -F'"tasks":' '/"ev":"preempt",/ { s += $2 + 0 } END { print s }' $ev)
	[ "$(trace_col status | grep -c '^PREEMPTED$')" -eq "$stopped" ]
	[ -z "$(grep '"ev":"preempt",.*"epoch":0,' $ev | grep -v '"c":20,"k":2,')" ]
	# the report says how each epoch was measured
	"$WFRUN" report
	grep -q '<tr><td>2</td><td>10 MB/s</td><td>4</td><td>4</td><td>[0-9.]* s</td><td>while writing, over [0-9.]* s: [0-9.]* MB/s, within [0-9.]* %</td>' .wfrun/report.html
}

@test "learn_as: tasks of several iterations learn once" {
	wf <<'EOF2'
tasks:
  - name: ckpt1
    foreach: {i: "1..14"}
    io: true
    storage_bw: auto
    learn_as: ckpt
    out: {f: "a/{i}"}
    run: "sleep 0.5; echo {i} > {out.f}"
  - name: ckpt2
    foreach: {i: "1..6"}
    io: true
    storage_bw: auto
    learn_as: ckpt
    in: {f: "a/{i}"}
    out: {g: "b/{i}"}
    run: "cp {in.f} {out.g}"
EOF2
	run "$WFRUN" -q -j 2 --io-executors 4 --disk-bw 100 --learn paper wf.yaml
	[ "$status" -eq 0 ]
	[ "$(grep -c '"ev":"epoch_begin"' .wfrun/events.jsonl)" -eq 2 ]
	[ "$(grep -c '"name":"ckpt"' .wfrun/events.jsonl)" -eq 5 ]
	[ -z "$(paste <(trace_col name) <(trace_col epoch) | awk -F'\t' '$1 == "ckpt2" && $2 != ""')" ]
	[ "$(paste <(trace_col name) <(trace_col storage_bw) | awk -F'\t' '$1 == "ckpt2" { print $2 }' | sort -u)" = 25 ]
	grep -q $'^ckpt\tdisk\t100\tauto\t' .wfrun/storage_bw.tsv
}

@test "a climb's first guess on another disk is corrected: the youngest of its tasks stop and run again" {
	# Two workers on this machine, each its own disk of B = 2 MB/s.
	# Worker a (12 cores) learns; until its one writer ends, b runs the
	# name one per core of a (12, c = 2/12).  Instance 1, a's one
	# writer, writes 1 MiB in 1.3 s or a little more (a rate in (0.36,
	# 0.77] MB/s): 3 to 5 such writers fill B (B / r rounded), so more
	# than twice that many run on b: its youngest stop (killed, PREEMPTED
	# rows) until the fill point's k stay, and run again; nothing fails
	# and every output is whole.  (An instance's first attempt takes
	# 2.5 s, so that none ends on its own as it is being stopped; a
	# second attempt, 1.3 s, as the first writer.  Whether a's epoch at
	# the fill point runs depends on how many are left when the first
	# ends: the stops do not.)
	climb_two_disks
	run "$WFRUN" -r r.xml wf.yaml
	[ "$status" -eq 0 ]
	k=$(grep '"ev":"preempt",' .wfrun/events.jsonl | sed 's/.*"k":\([0-9]*\),.*/\1/')
	[ "$k" -ge 3 ]
	[ "$k" -le 5 ]
	stopped=$((12 - k))
	[[ "${lines[-1]}" == "wfrun: 30 tasks done in "*"s, $stopped I/O attempts stopped to make way" ]]
	grep -q "\"ev\":\"preempt\",\"name\":\"ckpt\",\"device\":\"disk@b\",\"epoch\":[0-9]*,\"c\":[0-9.]*,\"k\":$k,\"tasks\":$stopped}" .wfrun/events.jsonl
	[ "$(paste <(trace_col status) <(trace_col worker) <(trace_col exit) | grep PREEMPTED | sort | uniq -c | tr -s ' ')" = " $stopped PREEMPTED	b	137" ]
	# each instance completed once; those stopped were the youngest
	[ "$(trace_col status | grep -c COMPLETED)" -eq 30 ]
	[ "$(paste <(trace_col task_id) <(trace_col status) | grep COMPLETED | cut -f1 | sort -u | wc -l)" -eq 30 ]
	for i in $(seq 1 30); do [ "$(stat -c %s out/$i)" -eq 1048576 ]; done
	# what a stopped attempt left was moved aside, and went once the
	# task was done
	[ ! -e .wfrun/failed ]
}

@test "an attempt stopped to make way leaves nothing looking complete when the run is interrupted" {
	# As above; the run is interrupted as soon as the stops are said,
	# before those stopped can run again: their partial outputs are in
	# .wfrun/failed/ckpt/, none in out/.
	climb_two_disks
	"$WFRUN" -q -r r.xml wf.yaml 2>err &
	pid=$!
	for _ in $(seq 1 300); do
		grep -q '"ev":"preempt"' .wfrun/events.jsonl 2>/dev/null && break
		sleep 0.1
	done
	kill -INT $pid
	wait $pid || true
	grep -q '"ev":"preempt"' .wfrun/events.jsonl
	# whatever is in out/ is whole
	for f in out/*; do
		[ ! -e "$f" ] || [ "$(stat -c %s "$f")" -eq 1048576 ]
	done
	# those stopped or interrupted and not done since: their partial
	# output is aside, none in out/ (a stop that the interrupt overtook
	# before its task was reaped is ABORTED: seen once in a full run)
	undone=$(paste <(trace_col task_id) <(trace_col status) |
		 awk '$2 == "PREEMPTED" || $2 == "ABORTED" { s[$1] = 1 }
		      $2 == "COMPLETED" { c[$1] = 1 }
		      END { for (t in s) if (!c[t]) print t }')
	[ -n "$undone" ]
	for id in $undone; do
		[ ! -e out/$id ]
		if paste <(trace_col task_id) <(trace_col status) |
			grep -q "^$id	PREEMPTED"; then
			[ "$(cat .wfrun/failed/ckpt/$id/out/*)" = partial ]
		fi
	done
}
