#!/usr/bin/env bats
# run-all: once
# Storage-bandwidth constraints, what needs no quiet machine: static
# limits (upper bounds the scheduler keeps at any load), the disk
# measured once, refusals, --no-io, counts of epochs and tasks; so it
# runs in the lanes.  The learner's timed tests are in iobw.bats (alone);
# both run once (the learner's code runs under the sanitizers through
# sim.bats and test-autobw).
load helper
load iobw

@test "static storage_bw: at most floor(B / c) share the disk" {
	ckpt 12 30
	run "$WFRUN" -q -j 2 --io-executors 8 --disk-bw 100 wf.yaml
	[ "$status" -eq 0 ]
	[ "$(max_overlap)" -le 3 ]
	[ "$(trace_col storage_bw | sort -u)" = 30 ]
	[ -z "$(trace_col epoch | sort -u)" ]
	[ "$(ls out | wc -l)" -eq 12 ]
}

@test "without a constraint the same tasks do overlap beyond 3" {
	ckpt 12 30
	sed -i '/storage_bw/d' wf.yaml
	run "$WFRUN" -q -j 2 --io-executors 8 wf.yaml
	[ "$status" -eq 0 ]
	[ "$(max_overlap)" -gt 3 ]
	[ -z "$(trace_col storage_bw | sort -u)" ]
}

@test "without --disk-bw this machine's disk is measured once, and kept" {
	ckpt 3 30
	run "$WFRUN" -j 2 wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"this machine's disk writes "*" MB/s (measured for storage_bw, kept in $PWD/.wfrun/disk_bw; --disk-bw sets it)"* ]]
	B=$(cat .wfrun/disk_bw)
	[ "${B%.*}" -ge 1 ]
	[ "$(trace_col storage_bw | sort -u)" = 30 ]
	# the next run takes it from there, and says nothing
	run "$WFRUN" -j 2 --forceall wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" != *measured* ]]
	# a workflow without storage_bw measures nothing
	mkdir other
	cd other
	ckpt 2 30
	sed -i '/storage_bw/d' wf.yaml
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ ! -e .wfrun/disk_bw ]
}

@test "a constraint above the disk's bandwidth is refused" {
	ckpt 3 300
	run "$WFRUN" -j 2 --disk-bw 100 wf.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"storage_bw 300 MB/s is more than the 100 MB/s of disk@local"* ]]
}

@test "--disk-bw wants a positive number" {
	ckpt 1 30
	run "$WFRUN" --disk-bw fast wf.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"--disk-bw wants the disk's bandwidth in MB/s, a number > 0, not 'fast'"* ]]
}

@test "--no-io is the baseline: no constraint is applied" {
	ckpt 4 30
	run "$WFRUN" -q -j 2 --no-io wf.yaml
	[ "$status" -eq 0 ]
	[ -z "$(trace_col storage_bw | sort -u)" ]
	[ "$(trace_col kind | sort -u)" = io ]
	[ "$(trace_col cores | sort -u)" = 1 ]
}

@test "a retried I/O task counts again among those left to start" {
	# 8 tasks on one disk: the climb's second epoch (k = 2, 4 tasks)
	# runs only while 2 x 1 x 4 = 8 are left.  Every task fails once:
	# when the first epoch's two tasks failed, they were counted as
	# started and never again, 6 were left, and learning stopped after
	# one epoch.
	wf <<'EOF'
tasks:
  - name: ckpt
    foreach: {i: "1..8"}
    io: true
    storage_bw: auto
    on_failure: retry
    retries: 1
    out: {f: "out/{i}"}
    run: "if [ -e tried-{i} ]; then echo {i} > {out.f}; else touch tried-{i}; exit 1; fi"
EOF
	run "$WFRUN" -q -j 2 --io-executors 2 --disk-bw 100 wf.yaml
	[ "$status" -eq 0 ]
	[ "$(ls out | wc -l)" -eq 8 ]
	grep -q '"ev":"epoch_begin",.*"epoch":2,"c":50,"k":2}$' .wfrun/events.jsonl
	grep -q '"why":"learned"}$' .wfrun/events.jsonl
}

@test "auto(min,max,delta) runs every epoch and registers each" {
	ckpt 30 '"auto(10,40,2)"' 0.2
	run "$WFRUN" -q -j 2 --io-executors 16 --disk-bw 100 wf.yaml
	[ "$status" -eq 0 ]
	# epochs at 10 (k = 10), 20 (5), 40 (2); then the choice
	[ "$(paste <(trace_col storage_bw) <(trace_col epoch) | grep -v ':$' | awk -F'\t' '$2 != ""' | sort -u | tr '\t\n' ':,')" = "10:1,20:2,40:3," ]
	[ "$(grep -c '"registered":true' .wfrun/events.jsonl)" -eq 3 ]
	grep -q $'^ckpt\tdisk\t100\tauto(10,40,2)\t10:10:[0-9.]*:[0-9.e+-]*:[0-9.e+-]*:0:0:[0-9.e+-]*:[0-9.e+-]*:[0-9.e+-]*:[0-9.e+-]*,20:5:[0-9.]*:[0-9.e+-]*:[0-9.e+-]*:0:0:[0-9.e+-]*:[0-9.e+-]*:[0-9.e+-]*:[0-9.e+-]*,40:2:' .wfrun/storage_bw.tsv
}

@test "a learning epoch waiting for its tasks does not hold up the I/O they need" {
	# ckpt i needs copy i, and both are I/O on the same disk: while ckpt
	# learns, copies may not run there, so the epoch closes with what
	# joined instead of waiting for ever.
	wf <<'EOF'
tasks:
  - name: copy
    foreach: {i: "1..6"}
    io: true
    out: {f: "c/{i}"}
    run: "sleep 0.1; echo {i} > {out.f}"
  - name: ckpt
    foreach: {i: "1..6"}
    io: true
    storage_bw: auto
    in: {f: "c/{i}"}
    out: {g: "k/{i}"}
    run: "cp {in.f} {out.g}"
EOF
	run timeout 60 "$WFRUN" -q -j 1 --io-executors 1 --disk-bw 100 wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat k/* | wc -l)" -eq 6 ]
	grep -q '"ev":"constraint"' .wfrun/events.jsonl
}

@test "a localhost worker's <disk bandwidth> is its B" {
	cat >r.xml <<'EOF'
<resources>
  <worker name="here" host="localhost">
    <cores>2</cores>
    <io-executors>8</io-executors>
    <disk bandwidth="60"/>
  </worker>
</resources>
EOF
	ckpt 8 20
	run "$WFRUN" -q -r r.xml wf.yaml
	[ "$status" -eq 0 ]
	[ "$(max_overlap)" -le 3 ]
	[ "$(trace_col worker | sort -u)" = here ]
}

@test "learn_as: only with auto, and the same storage_bw" {
	wf <<'EOF2'
tasks:
  - name: a
    io: true
    storage_bw: auto
    out: {f: a}
    run: "touch {out.f}"
  - name: b
    io: true
    storage_bw: "auto(2,8,2)"
    learn_as: a
    out: {f: b}
    run: "touch {out.f}"
  - name: c
    io: true
    storage_bw: 10
    learn_as: a
    out: {f: c}
    run: "touch {out.f}"
  - name: d
    io: true
    storage_bw: auto
    learn_as: "not a name"
    out: {f: d}
    run: "touch {out.f}"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:10:15: error: task 'b' learns as 'a' with task 'a' (line 2), so give both the same storage_bw" ]
	[ "${lines[1]}" = "wf.yaml:16:15: error: learn_as applies to storage_bw: auto or \"auto(min,max,delta)\", which task 'c' does not have" ]
	[ "${lines[2]}" = "wf.yaml:22:15: error: learn_as 'not a name' must be a task name: a letter or '_', then letters, digits, '_' and '-'" ]
	[ "${lines[3]}" = "wfrun: 3 errors in wf.yaml; nothing was run" ]
}

@test "--no-preempt: a climb's first guess on another disk runs to its end" {
	# As iobw.bats's test of the stops, with --no-preempt: nothing is
	# stopped whatever the rates (so no quiet machine is needed).
	climb_two_disks
	run "$WFRUN" -q --no-preempt -r r.xml wf.yaml
	[ "$status" -eq 0 ]
	[ "$(trace_col status | sort | uniq -c | tr -s ' ')" = " 30 COMPLETED" ]
	run -1 grep -q '"preempt"' .wfrun/events.jsonl
}

# What events.jsonl says auto chose: c, k and w (writer, writers) of its
# last constraint before any for the name's last tasks (why "last"), and
# in last what the closing line adds for those (", and C MB/s (K
# writers) for its last N tasks,") or nothing.
chose() {
	local ev=.wfrun/events.jsonl l
	l=$(grep '"ev":"constraint"' $ev | grep -v '"why":"last"' | tail -1)
	c=$(sed 's/.*"c":\([0-9.e+-]*\),.*/\1/' <<<"$l")
	k=$(sed 's/.*"k":\([0-9]*\),.*/\1/' <<<"$l")
	w=writers
	[ "$k" -ne 1 ] || w=writer
	last=
	grep -q '"why":"last"' $ev || return 0
	local n c2 k2 w2=writers
	n=$(grep '"why":"last"' $ev | head -1 | sed 's/.*"n":\([0-9]*\),.*/\1/')
	l=$(grep '"why":"last"' $ev | tail -1)
	c2=$(sed 's/.*"c":\([0-9.e+-]*\),.*/\1/' <<<"$l")
	k2=$(sed 's/.*"k":\([0-9]*\),.*/\1/' <<<"$l")
	[ "$k2" -ne 1 ] || w2=writer
	last=", and $c2 MB/s ($k2 $w2) for its last $n tasks,"
}

@test "a run's closing lines say what storage_bw: auto chose, and whether it was kept" {
	ckpt 12 auto 0.2
	run "$WFRUN" -j 2 --io-executors 4 --disk-bw 100 wf.yaml
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == "wfrun: 12 tasks done in "* ]]
	# what it says is what events.jsonl and the registry say
	chose
	e=$(grep -c '"ev":"epoch_end"' .wfrun/events.jsonl)
	[ "$e" -ge 1 ]
	s=s
	[ "$e" -ne 1 ] || s=
	[ "${lines[-2]}" = "wfrun: storage_bw of 'ckpt': auto chose $c MB/s ($k $w on disk@local of 100 MB/s)$last after $e epoch$s; kept in $PWD/.wfrun/storage_bw.tsv" ]
	grep -q $'^ckpt\tdisk\t100\tauto\t' .wfrun/storage_bw.tsv

	# the next run chooses from the registry (and, when the first left
	# its search open, as a loaded machine can make it, goes on with
	# it: "and N epochs more", as many as events.jsonl ends)
	rm -rf out
	run "$WFRUN" -j 2 --io-executors 4 --disk-bw 100 wf.yaml
	[ "$status" -eq 0 ]
	said=${lines[-2]}
	chose
	e=$(grep -c '"ev":"epoch_end"' .wfrun/events.jsonl || true)
	more=
	[ "$e" -eq 0 ] || more=" and $e epoch more; kept in $PWD/.wfrun/storage_bw.tsv"
	[ "$e" -le 1 ] || more=" and $e epochs more; kept in $PWD/.wfrun/storage_bw.tsv"
	printf 'said: %s\n' "$said" # (shown if the check fails)
	grep -v '"ev":"sample"' .wfrun/events.jsonl
	[ "$said" = "wfrun: storage_bw of 'ckpt': auto chose $c MB/s ($k $w on disk@local of 100 MB/s)$last from the kept registry$more" ]

	# -q: nothing; a static storage_bw: no such line
	rm -rf out
	run "$WFRUN" -q -j 2 --io-executors 4 --disk-bw 100 wf.yaml
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	ckpt 4 25 0
	run "$WFRUN" -j 2 --io-executors 4 --disk-bw 100 wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" != *"storage_bw of"* ]]
}

@test "a run interrupted while auto learns says so, and keeps nothing of it" {
	# (12 tasks: a climb, whose one writer sleeps; fd 3 closed: bats
	# waits for whatever holds it)
	ckpt 12 auto 3000
	"$WFRUN" -j 2 --io-executors 4 --disk-bw 100 wf.yaml > run.out 2>&1 3>&- &
	pid=$!
	wait_until sleeping 1
	sleeping 1
	kill -INT "$pid"
	st=0
	wait "$pid" || st=$?
	cat run.out
	[ "$st" -eq 130 ]
	# (the epoch it was in, as events.jsonl says)
	e=$(grep '"ev":"epoch_begin","name":"ckpt"' .wfrun/events.jsonl | tail -1 | sed 's/.*"epoch":\([0-9]*\),.*/\1/')
	[ "$(tail -2 run.out | head -1)" = "wfrun: storage_bw of 'ckpt': auto was still learning on disk@local (epoch $e); nothing was kept" ]
	run grep -qs $'^ckpt\t' .wfrun/storage_bw.tsv
	[ "$status" -ne 0 ]
}

@test "a run resumed partway neither plays its tasks out as a kept registry's run saw them become ready, nor replaces that" {
	# A kept registry (knee 5, 30 MB/s a writer; 6 the best) whose run
	# saw its 12 checkpoints become ready 8, then 4 at 2.11 s: played
	# out so, 6 end them soonest, and nothing is tried.
	ckpt 12 auto 0.05
	mkdir -p .wfrun
	printf 'ckpt\tdisk\t200\tauto\t%s\n' \
		"200:1:0.68:30:30:0.1:0:64:0:2.11:0.29,28.5714286:7:0.78:181.8:25.97:0.05:1:64:0:2.11:0.29,33.3333333:6:1.5:180:30:0.025:1:64:0:2.11:0.29" \
		> .wfrun/storage_bw.tsv
	run "$WFRUN" -q -j 8 --io-executors 16 --disk-bw 200 wf.yaml
	[ "$status" -eq 0 ]
	grep -v '"ev":"sample"' .wfrun/events.jsonl
	grep -q '"ev":"constraint","name":"ckpt",.*"k":6,"n":12,"why":"registry"}$' .wfrun/events.jsonl
	run grep -c '"ev":"epoch_begin"' .wfrun/events.jsonl
	[ "$output" = 0 ]
	# Resumed partway (out/12 up to date, the 11 others ready at once):
	# not as that run saw them; the wave of 8 is tried, as for tasks all
	# ready at once, and whatever is kept keeps the period and spread.
	rm out/[0-9] out/1[01]
	run "$WFRUN" -q -j 8 --io-executors 16 --disk-bw 200 wf.yaml
	[ "$status" -eq 0 ]
	grep -v '"ev":"sample"' .wfrun/events.jsonl
	grep -q '"ev":"epoch_begin","name":"ckpt",.*"epoch":1,"c":25,"k":8}$' .wfrun/events.jsonl
	cat .wfrun/storage_bw.tsv
	line=$(grep $'^ckpt\tdisk\t200\tauto\t' .wfrun/storage_bw.tsv)
	n=$(tr ',' '\n' <<<"$line" | grep -c ':2.11:0.29$')
	[ "$n" -eq "$(tr ',' '\n' <<<"$line" | grep -c .)" ]
}
