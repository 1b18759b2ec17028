#!/usr/bin/env bats
# include: other files' vars and tasks (wfrun-workflow(5), INCLUDE):
# paths relative to the including file, program order, one namespace,
# cycles, errors at the included file's line and column.
load helper

# expect [N] <<EOF: the output of the last run (from its line N, the
# first 0) is exactly these lines.
expect() {
	diff -u - <(printf '%s\n' "${lines[@]:${1:-0}}")
}

# A workflow in sub/ whose parts include a common file twice over.
pipeline() {
	mkdir -p sub/parts
	wf sub/wf.yaml <<'EOF2'
vars:
  final: "{base}/final.txt"
tasks:
  - name: gather
    in: {b: {list: "{base}/{s}.bam", foreach: {s: {var: samples}}}}
    inout: {log: order.log}
    out: {o: "{final}"}
    run: cat {in.b} > {out.o}; echo gather >> {inout.log}
include: [parts/align.yaml, parts/common.yaml]
EOF2
	wf sub/parts/common.yaml <<'EOF2'
vars:
  samples: [S1, S2]
  base: res
tasks:
  - name: prepare
    inout: {log: order.log}
    run: echo prepare >> {inout.log}
EOF2
	wf sub/parts/align.yaml <<'EOF2'
include: [common.yaml]
vars:
  base: res
tasks:
  - name: align
    foreach: {s: {var: samples}}
    inout: {log: order.log}
    out: {b: "{base}/{s}.bam"}
    run: echo {s} > {out.b}; echo align {s} >> {inout.log}
EOF2
	touch sub/order.log
}

@test "included tasks come first, depth first, a file included once; paths are the workdir's" {
	pipeline
	run "$WFRUN" check sub/wf.yaml
	[ "$status" -eq 0 ]
	expect 2 <<'EOF2'
vars: 3
  samples = [S1, S2]  (sub/parts/common.yaml:2:3)
  base = res  (sub/parts/common.yaml:3:3)
  final = res/final.txt  (sub/wf.yaml:2:3)
task instances: 4
  prepare 1
  align   2
  gather  1
edges: 4
inputs that must exist: 1
  order.log
EOF2
	run "$WFRUN" -q -j 4 sub/wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat sub/res/final.txt)" = "$(printf 'S1\nS2')" ]
	[ "$(cat sub/order.log)" = "$(printf 'prepare\nalign S1\nalign S2\ngather')" ]
}

@test "--set reaches the vars of an included file" {
	pipeline
	run "$WFRUN" -q --set samples=X sub/wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat sub/res/final.txt)" = "X" ]
}

@test "errors inside an included file are said at its file, line and column" {
	pipeline
	wf sub/parts/common.yaml <<'EOF2'
workdir: elsewhere
vars:
  samples: [S1, S2]
  base: other
tasks:
  - name: gather
    run: echo {nope}
EOF2
	run "$WFRUN" check sub/wf.yaml
	[ "$status" -eq 2 ]
	# the workflow's file first, then the others in the order they were
	# first met: align.yaml, then common.yaml
	expect <<'EOF2'
sub/wf.yaml:4:5: error: duplicate task name 'gather' (first at sub/parts/common.yaml:6:5); task names must be unique
sub/parts/align.yaml:3:3: error: var 'base' is defined again with another value (first at sub/parts/common.yaml:4:3); the files of a workflow share their vars
sub/parts/common.yaml:1:10: error: workdir belongs to the workflow file given to wfrun (sub/wf.yaml), not to a file it includes
sub/parts/common.yaml:7:10: error: run of task 'gather': unknown placeholder {nope}: no var or foreach key has that name
wfrun: 4 errors in sub/wf.yaml; nothing was run
EOF2
	printf 'tasks: [\n' >sub/parts/common.yaml
	run "$WFRUN" check sub/wf.yaml
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "sub/parts/common.yaml:2:1: error: YAML syntax error: "* ]]
	# it stops everything, as in the workflow's own file
	[ "${lines[1]}" = "wfrun: 1 error in sub/wf.yaml; nothing was run" ]
}

@test "an include cycle is an error naming the chain; a missing file names its include" {
	mkdir parts
	wf <<'EOF2'
include: [parts/a.yaml, parts/none.yaml]
tasks:
  - {name: t, run: "true"}
EOF2
	printf 'include: [b.yaml]\n' >parts/a.yaml
	printf 'include: [../wf.yaml]\n' >parts/b.yaml
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "wf.yaml:1:25: error: cannot include parts/none.yaml: No such file or directory" ]]
	[ "${lines[1]}" = "parts/b.yaml:1:11: error: include cycle: wf.yaml -> parts/a.yaml -> parts/b.yaml -> wf.yaml" ]
	[ "${lines[2]}" = "wfrun: 2 errors in wf.yaml; nothing was run" ]
	printf 'include: [a.yaml]\n' >parts/a.yaml
	run "$WFRUN" check wf.yaml
	[ "${lines[1]}" = "parts/a.yaml:1:11: error: include cycle: parts/a.yaml -> parts/a.yaml" ]
}

@test "a workflow of includes only; include must be a list" {
	mkdir parts
	printf 'tasks:\n  - {name: t, out: {o: x}, run: "touch {out.o}"}\n' >parts/t.yaml
	printf 'include: [parts/t.yaml]\n' >wf.yaml
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ -f x ]
	[ ! -e parts/x ]
	printf 'include: parts/t.yaml\n' >wf.yaml
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:1:1: error: the workflow has no tasks: add tasks: with a list of tasks" ]
	[ "${lines[1]}" = "wf.yaml:1:10: error: include must be a list of files ([parts/a.yaml, ...]), not a scalar" ]
}
