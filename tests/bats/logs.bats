#!/usr/bin/env bats
# Task logs (src/exec_local.c): named once a task has run for a second or
# when it ends having written, removed when empty, never shared by two
# tasks although silent tasks' files are used again.
load helper

# has FILE TEXT: FILE holds TEXT (and a newline)
has() {
	[ "$(cat "$1")" = "$2" ]
}

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
		[ -e .wfrun/logs/long.err ] && break
		sleep 0.1
	done
	[ ! -e done ]
	[ -e .wfrun/logs/long.err ]
	[ "$(cat .wfrun/logs/long.out)" = started ]
	wait "$pid"
	[ -e done ]
	[ "$(cat .wfrun/logs/long.out)" = started ]
	[ ! -e .wfrun/logs/long.err ]
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
	[ "$(ls .wfrun/logs/t | sort | tr '\n' ' ')" = "$(for i in $(seq 3 3 39); do printf 'i=%s.err\ni=%s.out\n' $i $i; done | sort | tr '\n' ' ')" ]
	for i in $(seq 3 3 39); do
		[ "$(cat .wfrun/logs/t/i=$i.out)" = "out $i" ]
		[ "$(cat .wfrun/logs/t/i=$i.err)" = "err $i" ]
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
	echo old >.wfrun/logs/t/i=1.out
	echo old >.wfrun/logs/t/i=2.err
	echo other >.wfrun/logs/t/i=7.out
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ ! -e .wfrun/logs/t/i=1.out ]
	[ ! -e .wfrun/logs/t/i=2.err ]
	[ "$(cat .wfrun/logs/t/i=7.out)" = other ]
	sed -i 's/run: .*/run: "echo new; touch {out.f}"/' wf.yaml
	echo old >.wfrun/logs/t/i=1.out
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat .wfrun/logs/t/i=1.out)" = new ]
	[ "$(cat .wfrun/logs/t/i=2.out)" = new ]
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
	[ ! -e .wfrun/logs/flaky.err ]
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
	[ "$(cat .wfrun/logs/talk.out)" = mine ]
	run grep -rq late .wfrun/logs
	[ "$status" -eq 1 ]
}

@test "logs are named by the instance's foreach values, so adding a task renames none" {
	wf <<'EOF2'
tasks:
  - name: align
    foreach: {s: [S1, "a/b c"], n: "1..2"}
    out: {f: "o/{n}-{s}"}
    run: "echo {s} {n}; mkdir -p o; touch {out.f}"
  - name: sum
    in: {a: "o/1-S1"}
    out: {f: s}
    run: "echo sum >&2; touch {out.f}"
EOF2
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	has '.wfrun/logs/align/s=S1,n=2.out' "S1 2"
	has '.wfrun/logs/align/s=a%2Fb%20c,n=1.out' "a/b c 1"
	has .wfrun/logs/sum.err sum
	# a task put first: the others' logs keep their names
	sed -i 's/^tasks:$/tasks:\n  - name: first\n    foreach: {i: "1..3"}\n    run: "echo first {i}"/' wf.yaml
	sed -i 's/echo {s} {n}/echo again {s} {n}/' wf.yaml
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	has .wfrun/logs/first/i=3.out "first 3"
	has '.wfrun/logs/align/s=S1,n=2.out' "again S1 2"
	has .wfrun/logs/sum.err sum
}

@test "a value too long for a file name is cut and given a hash; two such differ" {
	a=$(printf 'x%.0s' $(seq 300))
	wf <<EOF2
tasks:
  - name: t
    foreach: {v: ["${a}1", "${a}2"]}
    run: "echo {v} | tail -c 2"
EOF2
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(ls .wfrun/logs/t | wc -l)" -eq 2 ]
	for f in .wfrun/logs/t/*; do
		b=${f##*/}
		[ "${#b}" -eq 201 ]
		[[ "$b" == v=xxx*~[0-9a-f][0-9a-f]*.out ]]
	done
	[ "$(cat .wfrun/logs/t/* | sort | tr '\n' ' ')" = "1 2 " ]
}

@test "log: puts an instance's logs where the task says, named in its failure" {
	wf <<'EOF2'
tasks:
  - name: a
    log: "logs/{s}"
    foreach: {s: [S1, S2]}
    run: "echo out {s}; echo err {s} >&2"
  - {name: b, log: {out: "b/stdout.txt", err: "b.txt"}, run: "echo B; echo why >&2; exit 4"}
EOF2
	run "$WFRUN" -k wf.yaml
	[ "$status" -eq 1 ]
	has logs/S1.out "out S1"
	has logs/S2.err "err S2"
	has b/stdout.txt B
	has b.txt why
	[[ "$output" == *"task 'b' failed with exit status 4 (stderr: $PWD/b.txt)"*"  | why"* ]]
	[ ! -e .wfrun/logs/a ]
	[ ! -e .wfrun/logs/b.out ]
}

@test "log: paths are checked before anything runs: unique, inside the workdir, no data, not wfrun's" {
	# one task a line: the columns below are those of each log:
	wf <<'EOF2'
tasks:
  - {name: a, foreach: {s: [S1, S2]}, log: "logs/x", out: {o: "o{s}"}, run: "touch {out.o}"}
  - {name: b, log: {out: "oS1", err: "e"}, run: "true"}
  - {name: c, log: {out: "/tmp/x", err: "e2"}, run: "true"}
  - {name: d, log: {out: "d", err: "d"}, run: "true"}
  - {name: e, log: ".wfrun/x", run: "true"}
  - {name: f, log: {out: "x"}, run: "true"}
EOF2
	run "$WFRUN" wf.yaml
	[ "$status" -eq 2 ]
	[ "$output" = "wf.yaml:7:20: error: log: {out: PATH, err: PATH} needs both
wfrun: 1 error in wf.yaml; nothing was run" ]
	sed -i '$d' wf.yaml
	run "$WFRUN" wf.yaml
	[ "$status" -eq 2 ]
	cat >want <<EOF2
wf.yaml:2:44: error: task 'a' (s=S2): its log 'logs/x.out' is also the log of 'a' (s=S1)
wf.yaml:3:20: error: task 'b': its log 'oS1' is data of the workflow (a task reads or writes it)
wf.yaml:4:20: error: task 'c': its log '/tmp/x' is outside the workdir; a log goes inside it
wf.yaml:5:20: error: task 'd': its out and err logs are one file, 'd'
wf.yaml:6:20: error: task 'e': its log '.wfrun/x.out' is wfrun's own state
wfrun: 5 errors in wf.yaml; nothing was run
EOF2
	[ "$output" = "$(cat want)" ]
	[ ! -e oS1 ]
}

# A task that ran a second had its empty logs named, then removed at its
# end: such a file can never be linked again, so it must not be handed to
# a later task as a spare (its log was lost, and said to be named).
@test "a log whose file once had a name is not reused: later tasks' logs are all there" {
	wf <<'EOF2'
tasks:
  - {name: slow, foreach: {s: [S1, S2, S3]}, out: {o: "s/{s}.txt"}, run: "sleep 1.2; echo {s} > {out.o}"}
  - {name: talk, foreach: {s: [S1, S2, S3]}, in: {i: "s/{s}.txt"}, out: {o: "t/{s}.txt"}, run: "echo said {s} >&2; cp {in.i} {out.o}"}
EOF2
	run "$WFRUN" -q -j 3 wf.yaml
	[ "$status" -eq 0 ]
	for s in S1 S2 S3; do
		has ".wfrun/logs/talk/s=$s.err" "said $s"
	done
	[ ! -e ".wfrun/logs/slow/s=S1.err" ]
}
