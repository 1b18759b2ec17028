#!/usr/bin/env bats
# run-all: alone
# Workers whose workdir is not shared (as ssh-stage.bats), and a learning
# that stops tasks to make way: the one test of them whose learner times
# one writer, so it runs with nothing else running (the other tests of
# ssh-stage.bats run in the lanes: their faults wait for the event they
# race, a file or a gate, not for a fixed time).
load helper
load stage-cluster

@test "not shared: tasks stopped to make way run again, and their outputs come back whole" {
	# As in ssh.bats, on workers whose workdir is not shared: w1 learns,
	# the youngest of w2's and w3's first guess stop (in their sandbox or
	# while their inputs are sent), run again, and every output is
	# brought back whole.  (The marks say which attempt runs: outside
	# the sandbox, where every worker sees them.)
	climb_xml "$C/cluster.xml" >r.xml
	rm -rf "$C"/w*/work/.wfrun/sandbox # (failed tests' before keep theirs)
	M="$C/marks$BATS_TEST_NUMBER"
	mkdir -p "$M"
	echo seed >seed.txt
	wf <<EOF2
tasks:
  - name: ckpt
    foreach: {i: "1..40"}
    io: true
    storage_bw: auto
    in: {s: seed.txt}
    out: {f: "out/{i}"}
    run: "if [ {i} = 1 ] || [ -e $M/{i} ]; then sleep 1.3; else touch $M/{i}; sleep 2.5; fi; dd if=/dev/zero of={out.f} bs=1M count=1 conv=fsync status=none"
EOF2
	run "$WFRUN" -r r.xml wf.yaml
	[ "$status" -eq 0 ]
	[ "$(grep -c '"ev":"preempt",' .wfrun/events.jsonl)" -eq 2 ]
	stopped=$(grep '"ev":"preempt",' .wfrun/events.jsonl | sed 's/.*"tasks":\([0-9]*\)}$/\1/' | awk '{ n += $1 } END { print n }')
	[ "$stopped" -ge 14 ]
	[[ "${lines[-1]}" == "wfrun: 40 tasks done in "*"s, $stopped I/O attempts stopped to make way" ]]
	[ "$(paste <(trace_col status) <(trace_col worker) | grep PREEMPTED | cut -f2 | sort | uniq -c | awk '{ n += $1 } END { print n }')" -eq "$stopped" ]
	[ "$(paste <(trace_col task_id) <(trace_col status) | grep COMPLETED | cut -f1 | sort -u | wc -l)" -eq 40 ]
	for i in $(seq 1 40); do [ "$(stat -c %s out/$i)" -eq 1048576 ]; done
	[ -z "$(mine 'sleep 2.5')" ]
	# no sandbox is left: those stopped went with them
	[ -z "$(find "$C"/w*/work/.wfrun/sandbox -mindepth 2 -maxdepth 2)" ]
}
