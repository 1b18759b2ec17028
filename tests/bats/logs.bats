#!/usr/bin/env bats
# Task logs (src/exec_local.c): named once a task has run for a second or
# when it ends having written, removed when empty, never shared by two
# tasks although silent tasks' files are used again.
load helper

@test "a running task's logs get their names after a second; the empty one goes at the end" {
	wf <<'EOF2'
tasks:
  - name: long
    out: {f: done}
    run: "echo started; sleep 3; touch {out.f}"
EOF2
	"$WFRUN" -q wf.yaml &
	pid=$!
	for _ in $(seq 50); do
		[ -e .wfrun/logs/long/1.err ] && break
		sleep 0.1
	done
	[ ! -e done ]
	[ -e .wfrun/logs/long/1.err ]
	[ "$(cat .wfrun/logs/long/1.out)" = started ]
	wait "$pid"
	[ -e done ]
	[ "$(cat .wfrun/logs/long/1.out)" = started ]
	[ ! -e .wfrun/logs/long/1.err ]
}

@test "a quick task's log appears at its end only if it wrote" {
	wf <<'EOF2'
tasks:
  - name: t
    foreach: {i: "1..40"}
    out: {f: "o/{i}"}
    run: "if [ $(({i} % 3)) = 0 ]; then echo out {i}; echo err {i} >&2; fi; touch {out.f}"
EOF2
	"$WFRUN" -q -j 2 wf.yaml
	# every third task talked, each into its own logs, whole
	[ "$(ls .wfrun/logs/t | sort -n | tr '\n' ' ')" = "$(for i in $(seq 3 3 39); do printf '%s.err %s.out ' $i $i; done)" ]
	for i in $(seq 3 3 39); do
		[ "$(cat .wfrun/logs/t/$i.out)" = "out $i" ]
		[ "$(cat .wfrun/logs/t/$i.err)" = "err $i" ]
	done
}

@test "the log of an earlier run of the same instance is removed or replaced when it runs again" {
	wf <<'EOF2'
tasks:
  - name: t
    foreach: {i: "1..2"}
    out: {f: "o{i}"}
    run: "touch {out.f}"
EOF2
	mkdir -p .wfrun/logs/t
	echo old >.wfrun/logs/t/1.out
	echo old >.wfrun/logs/t/2.err
	echo other >.wfrun/logs/t/7.out
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ ! -e .wfrun/logs/t/1.out ]
	[ ! -e .wfrun/logs/t/2.err ]
	[ "$(cat .wfrun/logs/t/7.out)" = other ]
	sed -i 's/run: .*/run: "echo new; touch {out.f}"/' wf.yaml
	echo old >.wfrun/logs/t/1.out
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat .wfrun/logs/t/1.out)" = new ]
	[ "$(cat .wfrun/logs/t/2.out)" = new ]
}

@test "a retried task's earlier attempt's log goes when the retry writes nothing" {
	wf <<'EOF2'
tasks:
  - name: flaky
    retries: 1
    out: {f: ok}
    run: "if [ -e tried ]; then touch {out.f}; else touch tried; echo first >&2; exit 1; fi"
EOF2
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ -e ok ]
	[ ! -e .wfrun/logs/flaky/1.err ]
}

@test "what a task left running writes later lands in no other task's log" {
	wf <<'EOF2'
tasks:
  - name: first
    out: {f: a}
    run: "(sleep 1; echo late; echo late >&2) & touch {out.f}"
  - name: rest
    foreach: {i: "1..30"}
    in: {a: a}
    out: {f: "r{i}"}
    run: "sleep 0.05; touch {out.f}"
  - name: talk
    in: {a: r30}
    out: {f: t}
    run: "sleep 1.2; echo mine; touch {out.f}"
EOF2
	run "$WFRUN" -q -j 2 wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat .wfrun/logs/talk/32.out)" = mine ]
	run grep -rq late .wfrun/logs
	[ "$status" -eq 1 ]
}
