#!/usr/bin/env bats
# Failures, retries, nothing lost, resume, the workdir lock, crashes.
load helper

# Poll until the command succeeds (at most a minute, so a broken run
# fails the test instead of hanging the suite).
wait_until() {
	local i
	for i in $(seq 1200); do
		"$@" && return 0
		sleep 0.05
	done
	"$@"
}
procs() { # procs PATTERN: how many processes match
	pgrep -fc "$1" || true
}
none_left() { [ "$(procs "$1")" -eq 0 ]; }
# Hung tasks sleep for 30N.MARK seconds: a pattern no concurrent run of
# this suite (another worktree's) shares.
export MARK=$$

# A task that fails until its attempt number reaches $1 (counted in a
# file outside the outputs).
flaky() {
	wf <<EOF2
tasks:
  - name: flaky
    retries: ${2:-2}
    out: {f: f.txt}
    run: "n=\$(cat count 2>/dev/null || echo 0); echo \$((n+1)) > count; echo try > {out.f}; [ \$n -ge $1 ]"
  - name: after
    in: {f: f.txt}
    out: {g: g.txt}
    run: "cp {in.f} {out.g}"
EOF2
}

@test "retries: a task that fails twice then succeeds is run three times" {
	flaky 2
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"warning: task 'flaky' failed with exit status 1; retry 1 of 2 in 0.5s"* ]]
	[[ "$output" == *"warning: task 'flaky' failed with exit status 1; retry 2 of 2 in 1s"* ]]
	[ "$(cat count)" = 3 ]
	[ -e g.txt ]
	[ "$(awk -F'\t' '$2 == "flaky" { print $9, $11 }' .wfrun/trace.tsv | tr '\n' ,)" = "FAILED 1,FAILED 2,COMPLETED 3," ]
	# the partial outputs of the failed attempts were moved aside
	[ "$(cat .wfrun/failed/flaky/1/f.txt)" = try ]
	[ "$(cat .wfrun/failed/flaky/1.2/f.txt)" = try ]
}

@test "retries spent: the task fails, its successor never runs, exit 1" {
	flaky 5 1
	run "$WFRUN" wf.yaml
	[ "$status" -eq 1 ]
	[ "$(cat count)" = 2 ]
	[[ "$output" == *"wfrun: error: task 'flaky' failed with exit status 1"* ]]
	[[ "$output" == *"1 task failed, 0 done, 1 not run"* ]]
	[ ! -e f.txt ]
	[ ! -e g.txt ]
	[ "$(trace_col status | tr '\n' ,)" = "FAILED,FAILED," ]
}

@test "on_failure: retry without retries retries twice" {
	wf <<'EOF2'
tasks:
  - name: t
    on_failure: retry
    out: {f: f.txt}
    run: "echo x >> attempts; false"
EOF2
	run "$WFRUN" wf.yaml
	[ "$status" -eq 1 ]
	[ "$(wc -l <attempts)" -eq 3 ]
}

@test "a timed-out attempt counts as a failure and is retried" {
	wf <<'EOF2'
tasks:
  - name: slow-once
    timeout: 1s
    retries: 1
    out: {f: f.txt}
    run: "if [ -e seen ]; then touch {out.f}; else touch seen; sleep 308.$MARK; fi"
EOF2
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"task 'slow-once' timed out after 1s and was killed; retry 1 of 1"* ]]
	[ -e f.txt ]
	[ "$(pgrep -fc "sleep 308.$MARK")" -eq 0 ]
}

policy() {
	wf <<EOF2
tasks:
  - name: bad
    on_failure: $1
    out: {f: bad.txt}
    run: "$2 exit 3"
  - name: child
    in: {f: bad.txt}
    out: {g: child.txt}
    run: "cp {in.f} {out.g}"
  - name: grandchild
    in: {g: child.txt}
    out: {h: grand.txt}
    run: "cp {in.g} {out.h}"
  - name: other
    foreach: {i: "1..3"}
    out: {f: "o{i}.txt"}
    run: "touch {out.f}"
EOF2
}

@test "on_failure: ignore with its outputs made: successors run, exit 0" {
	policy ignore "echo made > {out.f};"
	run "$WFRUN" -j 1 wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"warning: task 'bad' failed with exit status 3; ignored (on_failure: ignore): its outputs exist, so what depends on it runs"* ]]
	[ "$(cat grand.txt)" = made ]
	[ -e o3.txt ]
	[[ "$output" == *"5 tasks done in "*", 1 failure ignored"* ]]
}

@test "on_failure: ignore without its outputs: successors are cancelled, exit 1" {
	policy ignore ""
	run "$WFRUN" -j 1 wf.yaml
	[ "$status" -eq 1 ]
	[[ "$output" == *"on_failure is ignore, but it did not create its output 'f' (bad.txt): the 2 tasks that depend on it are cancelled"* ]]
	[ ! -e child.txt ]
	[ ! -e grand.txt ]
	[ -e o1.txt ]
	[ -e o2.txt ]
	[ -e o3.txt ]
	[[ "$output" == *"1 task failed, 3 done, 0 not run, 2 cancelled"* ]]
}

@test "on_failure: cancel_successors: everything downstream is cancelled, the rest runs" {
	policy cancel_successors "echo part > {out.f};"
	run "$WFRUN" -j 1 wf.yaml
	[ "$status" -eq 1 ]
	[[ "$output" == *"cancelled the 2 tasks that depend on it; the others go on"* ]]
	[ ! -e bad.txt ]
	[ ! -e child.txt ]
	[ ! -e grand.txt ]
	[ -e o1.txt ]
	[ -e o2.txt ]
	[ -e o3.txt ]
	[ "$(cat .wfrun/failed/bad/1/bad.txt)" = part ]
}

@test "on_failure: fail (the default) stops launching; -k makes it cancel_successors" {
	policy fail ""
	run "$WFRUN" -j 1 wf.yaml
	[ "$status" -eq 1 ]
	[ ! -e o1.txt ]
	rm -rf .wfrun
	run "$WFRUN" -k -j 1 wf.yaml
	[ "$status" -eq 1 ]
	[[ "$output" == *"cancelled the 2 tasks that depend on it"* ]]
	[ -e o1.txt ]
	[ -e o3.txt ]
}

@test "a failed task's INOUT file is put back as it was; what it wrote is kept aside" {
	wf <<'EOF2'
tasks:
  - name: init
    out: {t: total.txt}
    run: "echo start > {out.t}"
  - name: add
    in: {x: input.txt}
    inout: {t: total.txt}
    out: {side: side.txt}
    run: "cat {in.x} >> {inout.t}; echo s > {out.side}; exit 1"
EOF2
	echo half >input.txt
	touch -d 2001-01-01 input.txt
	run "$WFRUN" wf.yaml
	[ "$status" -eq 1 ]
	[ "$(cat total.txt)" = start ]
	# the input is neither moved nor written
	[ "$(cat input.txt)" = half ]
	[ "$(stat -c %Y input.txt)" = "$(date -d 2001-01-01 +%s)" ]
	[ ! -e .wfrun/failed/add/2/input.txt ]
	[ ! -e side.txt ]
	[ "$(cat .wfrun/failed/add/2/total.txt | tr '\n' ,)" = "start,half," ]
	[ "$(cat .wfrun/failed/add/2/side.txt)" = s ]
	[[ "$output" == *"what it wrote was moved aside to $PWD/.wfrun/failed/add/2"* ]]
	# nothing is left in the save area
	[ -z "$(ls .wfrun/saved)" ]
}

@test "an INOUT directory collection is put back too" {
	mkdir d
	echo one >d/a
	wf <<'EOF2'
tasks:
  - name: mess
    inout: {d: {dir: d}}
    run: "rm {inout.d}/a; echo junk > {inout.d}/b; exit 2"
EOF2
	run "$WFRUN" wf.yaml
	[ "$status" -eq 1 ]
	[ "$(ls d)" = a ]
	[ "$(cat d/a)" = one ]
	[ "$(cat .wfrun/failed/mess/1/d/b)" = junk ]
}

resume_wf() {
	wf <<'EOF2'
tasks:
  - name: gen
    foreach: {i: "1..3"}
    in: {seed: seed.txt}
    out: {f: "g{i}.txt"}
    run: "cat {in.seed} > {out.f}; echo {i} >> {out.f}; echo gen{i} >> ran"
  - name: init
    out: {t: total.txt}
    run: "echo start > {out.t}; echo init >> ran"
  - name: acc
    foreach: {i: "1..3"}
    in: {g: "g{i}.txt"}
    inout: {t: total.txt}
    run: "cat {in.g} >> {inout.t}; echo acc{i} >> ran"
  - name: last
    in: {t: total.txt}
    out: {n: n.txt}
    run: "wc -l < {in.t} > {out.n}; echo last >> ran"
EOF2
	echo s >seed.txt
}

@test "resume: a second run skips what is up to date" {
	resume_wf
	"$WFRUN" -q wf.yaml
	[ "$(wc -l <ran)" -eq 8 ]
	cp total.txt total1.txt
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"8 of 8 tasks are up to date"* ]]
	[[ "$output" == *"0 tasks done in "*", 8 up to date"* ]]
	[ "$(wc -l <ran)" -eq 8 ]
	cmp total.txt total1.txt
	run "$WFRUN" -n --reason wf.yaml
	[ "${lines[1]}" = "# 8 of them up to date: not run" ]
	[ "${#lines[@]}" -eq 2 ]
}

@test "resume: -n --reason says why each task would run" {
	resume_wf
	"$WFRUN" -q wf.yaml
	rm g2.txt
	run "$WFRUN" -n --reason wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"# 'gen' (i=2): its output 'f' (g2.txt) is missing"* ]]
	[[ "$output" == *"# 'acc' (i=2): it depends on 'gen' (i=2), which runs"* ]]
	[[ "$output" == *"# 'acc' (i=1): 'acc' (i=2), which runs, updates its output in place"* ]]
	[[ "$output" == *"# 'init': 'acc' (i=1), which runs, updates its output in place"* ]]
	[[ "$output" == *"# 'last': it depends on 'acc' (i=3), which runs"* ]]
	[[ "$output" != *"'gen' (i=1)"* ]]
	# the rerun gives the same total as the first run
	cp total.txt before.txt
	: >ran
	"$WFRUN" -q wf.yaml
	cmp total.txt before.txt
	[ "$(sort ran | tr '\n' ' ')" = "acc1 acc2 acc3 gen2 init last " ]
}

@test "resume: a changed input or command reruns it and what depends on it" {
	resume_wf
	"$WFRUN" -q wf.yaml
	echo t >seed.txt
	run "$WFRUN" -n --reason wf.yaml
	[[ "$output" == *"# 'gen' (i=1): its input 'seed' (seed.txt) changed"* ]]
	"$WFRUN" -q wf.yaml
	sed -i 's/wc -l/wc -c/' wf.yaml
	run "$WFRUN" -n --reason wf.yaml
	[ "${lines[1]}" = "# 7 of them up to date: not run" ]
	[ "${lines[2]}" = "# 'last': its command changed" ]
}

@test "resume: a rewritten input with the same content is still up to date" {
	resume_wf
	"$WFRUN" -q wf.yaml
	cp seed.txt tmp
	rm seed.txt
	cp tmp seed.txt
	touch -d '2001-01-01' seed.txt
	run "$WFRUN" -n wf.yaml
	[ "${lines[1]}" = "# 8 of them up to date: not run" ]
}

@test "--force TASK and --forceall rerun up-to-date tasks" {
	resume_wf
	"$WFRUN" -q wf.yaml
	run "$WFRUN" -n --reason --force last wf.yaml
	[ "${lines[2]}" = "# 'last': forced" ]
	[ "${#lines[@]}" -eq 4 ]
	run "$WFRUN" -n --forceall wf.yaml
	[ "${#lines[@]}" -eq 17 ]
	run "$WFRUN" -n --force lst wf.yaml
	[ "$status" -eq 2 ]
	[ "$output" = "wfrun: error: --force: wf.yaml has no task named 'lst'; did you mean 'last'?" ]
}

@test "a journal cut short by a crash is read up to its last whole record" {
	resume_wf
	# one at a time: records in program order (gen 2 is the third line)
	"$WFRUN" -q -j 1 wf.yaml
	# a torn last record: no newline
	printf '12345678 T\tgen' >>.wfrun/journal
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"ends in a partial record (a crash while it was written); it is read up to its last whole record"* ]]
	[[ "$output" == *"8 up to date"* ]]
	# the tail was cut off before appending
	[ "$(tail -c 1 .wfrun/journal | od -An -c | tr -d ' ')" = '\n' ]
	# a record whose checksum does not match costs that record alone
	sed -i '3s/^\(........\) T/00000000 T/' .wfrun/journal
	run "$WFRUN" -n --reason wf.yaml
	[[ "$output" == *"# 'gen' (i=2): no record of it in the journal"* ]]
	[[ "$output" != *"'gen' (i=1): no record"* ]]
}

@test "the journal is binary-safe: tabs, newlines and backslashes in commands" {
	wf <<'EOF2'
tasks:
  - name: odd
    out: {f: "a b\\c.txt"}
    run: "printf 'x\ty\n\\\\' > {out.f}"
EOF2
	"$WFRUN" -q wf.yaml
	run "$WFRUN" -n wf.yaml
	[ "${lines[1]}" = "# 1 of them up to date: not run" ]
}

@test "a second wfrun on the same workdir refuses, naming the PID" {
	wf <<'EOF2'
tasks:
  - name: wait
    out: {f: done.txt}
    run: "touch started; while [ ! -e go ]; do sleep 0.05; done; touch {out.f}"
EOF2
	"$WFRUN" -q wf.yaml &
	pid=$!
	wait_until test -e started
	run "$WFRUN" wf.yaml
	touch go
	wait "$pid"
	[ "$status" -eq 2 ]
	[ "$output" = "wfrun: error: another wfrun (PID $pid) is running in $PWD; wait for it to end or stop it (the lock is $PWD/.wfrun/lock)" ]
	[ -e done.txt ]
	# the lock goes with its holder
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
}

crash_wf() {
	wf <<'EOF2'
tasks:
  - name: quick
    foreach: {i: "1..4"}
    out: {f: "q{i}.txt"}
    run: "echo q{i} > {out.f}; echo quick{i} >> ran"
  - name: init
    out: {t: total.txt}
    run: "echo start > {out.t}"
  - name: acc
    foreach: {i: "1..4"}
    in: {f: "q{i}.txt"}
    inout: {t: total.txt}
    run: "cat {in.f} >> {inout.t}; echo acc{i} >> ran; if [ {i} = 3 ] && [ ! -e go ]; then touch hung; sleep 309.$MARK; fi"
  - name: side
    foreach: {i: "1..2"}
    in: {f: "q{i}.txt"}
    out: {s: "s{i}.txt"}
    run: "echo partial > {out.s}; echo side{i} >> ran; [ -e go ] || sleep 309.$MARK; cp {in.f} {out.s}"
EOF2
}

@test "kill -9 of the master: tasks die, the rerun finishes only what was unfinished, same outputs" {
	mkdir clean crash
	cd clean
	crash_wf
	touch go
	"$WFRUN" -q wf.yaml
	cd ../crash
	crash_wf
	"$WFRUN" -q -j 4 wf.yaml &
	pid=$!
	# acc 3 hangs, both sides run, and every quick task is on record
	crashed_enough() {
		[ -e hung ] && [ "$(grep -c side ran 2>/dev/null)" -eq 2 ] &&
			grep -q "'quick' (i=4)" .wfrun/journal
	}
	wait_until crashed_enough
	kill -9 "$pid"
	wait "$pid" || true
	# the guardian killed the task groups of the dead master
	wait_until none_left "sleep 309.$MARK"
	# acc3 appended before it hung: the rerun must put total.txt back
	grep -q q3 total.txt
	[ "$(cat s1.txt)" = partial ]
	: >ran
	touch go
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"restored what task 'acc' (i=3) started from (its INOUT data, its earlier outputs), which a killed run left unfinished"* ]]
	[ "$(sort ran | tr '\n' ' ')" = "acc3 acc4 side1 side2 " ]
	for f in q1.txt q4.txt total.txt s1.txt s2.txt; do cmp "$f" "../clean/$f"; done
	[ -z "$(ls .wfrun/saved)" ]
}

@test "a copy of INOUT data left by a kill after its task finished is dropped, not restored over later tasks' work" {
	# A kill -9 can land after a task's journal record is written and
	# before its saved copy is dropped (that waits for the journal to be
	# on disk).  Later tasks of the chain changed the data since, so it
	# no longer matches the record; the copy is marked once the record
	# is written, and the next run drops a marked copy.  Restoring it
	# rolled the chain back (which copies were restored, and in which
	# order, depended on the directory's order).
	crash_wf
	touch go
	"$WFRUN" -q wf.yaml
	cp total.txt total.ok
	: >ran
	leftover() { # MARKED: acc1's copy as a killed run leaves it
		mkdir -p .wfrun/saved/6
		echo start >.wfrun/saved/6/0
		printf "'acc' (i=1)\0acc\0006\0Ptotal.txt\0" >.wfrun/saved/6/manifest
		[ "$1" = no ] || : >.wfrun/saved/6/done
	}
	leftover yes
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" != *restored* ]]
	[[ "$output" == *"11 up to date"* ]]
	cmp total.txt total.ok
	[ ! -s ran ]
	[ -z "$(ls .wfrun/saved)" ]
	# unmarked, the record may be an earlier run's: the copy is put back
	# and the chain runs again from it
	leftover no
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"restored what task 'acc' (i=1)"* ]]
	cmp total.txt total.ok
	[ "$(sort ran | tr '\n' ' ')" = "acc1 acc2 acc3 acc4 " ]
}

@test "the guardian waits for a crashed master's tasks before a new run takes the lock" {
	wf <<'EOF2'
tasks:
  - name: hang
    out: {f: f.txt}
    run: "touch started; sleep 310.$MARK; touch {out.f}"
EOF2
	"$WFRUN" -q wf.yaml &
	pid=$!
	wait_until test -e started
	kill -9 "$pid"
	wait "$pid" || true
	# at once: the next run either sees the orphans gone or waits for
	# the guardian that kills them; it never refuses
	cat >wf2.yaml <<'EOF2'
tasks:
  - name: other
    out: {f: other.txt}
    run: "touch {out.f}"
EOF2
	run "$WFRUN" wf2.yaml
	[ "$status" -eq 0 ]
	[ -e other.txt ]
	wait_until none_left "sleep 310.$MARK"
}

@test "a second Ctrl-C kills at once; nothing is left running" {
	wf <<'EOF2'
tasks:
  - name: stubborn
    foreach: {i: "1..2"}
    out: {f: "f{i}"}
    run: "trap '' TERM; sleep 311.$MARK; touch {out.f}"
EOF2
	"$WFRUN" -j 2 wf.yaml 2>err.txt &
	pid=$!
	two_running() { [ "$(procs "sleep 311.$MARK")" -ge 2 ]; }
	wait_until two_running
	kill -INT "$pid"
	wait_until grep -q interrupted err.txt
	kill -INT "$pid"
	wait "$pid" || status=$?
	[ "${status:-0}" -eq 130 ]
	[ "$(pgrep -fc "sleep 311.$MARK")" -eq 0 ]
	[ "$(trace_col status | tr '\n' ' ')" = "ABORTED ABORTED " ]
}
