#!/usr/bin/env bats
# run-all: once
# Issue 18, "nothing lost": the property test.  tests/property/check.py
# runs random workflows (tests/property/wfgen.py) at -j 1 and -j 4, with
# failures fixed and rerun, failures retried, and the master killed at a
# random moment then rerun, and compares every file with a sequential
# reference run by plain sh.  A fixed set of seeds here; bench/property.sh
# sweeps many.  A failing case prints its seed and the command to replay it.
load helper

# check.py SEED: every mode of one seed; on failure its lines (the seed,
# the mode, why, the replay command) are the test's output.
property() {
	run python3 "$BATS_TEST_DIRNAME/../property/check.py" "$@"
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "$# seeds, 0 failed (modes j1,j4,fix,retry,kill)" ]
}

# The seeds are chosen so that together they have every kind of task of
# wfgen.py (wfgen.py kinds SEED): 37 all but gather, 12 gathers too.
@test "property: seed 37 (22 instances: chain, concat, copy, directories, glob, scatter)" {
	property 37
}

@test "property: seed 12 (16 instances: chain, concat, gather, dirread, scatter)" {
	property 12
}

@test "wfrun -n judges what is up to date in the workdir, from any directory" {
	# found by the property test: -n looked for outputs in the current
	# directory, not the workdir, and listed every task as to run
	mkdir w
	printf '%s\n' 'tasks: [{name: a, out: {o: a.txt}, run: "echo a >{out.o}"}]' >w/wf.yaml
	run "$WFRUN" -q w/wf.yaml
	[ "$status" -eq 0 ]
	for f in w/wf.yaml "$PWD/w/wf.yaml"; do
		run "$WFRUN" -n --reason "$f"
		[ "$status" -eq 0 ]
		[ "${lines[*]:1}" = "# 1 of them up to date: not run" ]
	done
}

@test "a retry of a task whose out directory collection was moved aside makes it again" {
	# found by the property test: the directory was made once per run,
	# so the retry found it gone and could not write into it
	mkdir w
	printf '%s\n' 'tasks: [{name: a, out: {d: {dir: d}}, retries: 1,' \
		'  run: "echo x >{out.d}/a; [ -e ../once ] || {{ touch ../once; exit 3; }}"}]' >w/wf.yaml
	run "$WFRUN" -q w/wf.yaml
	[ "$status" -eq 0 ]
	[ -e once ]
	[ "$(cat w/d/a)" = x ]
}

@test "a rerun of an update in place of d/a reruns the task that made the directory d" {
	# found by the property test (seed 1057 of the first sweep): upd
	# reran because what it reads changed, but mk, which made d whole,
	# did not, so d/a got the update twice
	mkdir w
	cat >w/wf.yaml <<'EOF2'
tasks:
  - {name: mk, out: {d: {dir: d}}, run: "echo made >{out.d}/a"}
  - {name: p, out: {p: {dir: p}}, run: "echo p >{out.p}/x"}
  - {name: pu, inout: {x: p/x}, run: "echo pu >>{inout.x}"}
  - {name: r, in: {x: p/x}, out: {o: o}, run: "cat {in.x} >{out.o}"}
  - {name: upd, in: {o: o}, inout: {x: d/a}, run: "echo once >>{inout.x}"}
  - {name: fails, inout: {p: {dir: p}}, run: "[ -e ../fixed ]"}
EOF2
	run "$WFRUN" -q -j 1 w/wf.yaml
	[ "$status" -eq 1 ]
	touch fixed
	run "$WFRUN" -q -j 1 w/wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat w/d/a)" = "$(printf 'made\nonce')" ]
	[ "$(cat w/p/x)" = "$(printf 'p\npu')" ]
}

@test "a rerun of a failed update in place of d/a leaves the task that made d alone when d is as it left it" {
	# found by the property test (seed 2004 of the second sweep): mk
	# reran, and read the input that up had updated in place since
	mkdir w
	echo base >w/in
	cat >w/wf.yaml <<'EOF2'
tasks:
  - {name: mk, in: {i: in}, out: {d: {dir: d}}, run: "cat {in.i} >{out.d}/a; echo b >{out.d}/b"}
  - {name: up, inout: {i: in}, run: "echo up >>{inout.i}"}
  - {name: upd, inout: {x: d/b}, run: "echo once >>{inout.x}; [ -e ../fixed ]"}
EOF2
	run "$WFRUN" -q -j 1 w/wf.yaml
	[ "$status" -eq 1 ]
	[ "$(cat w/d/b)" = b ]
	touch fixed
	run "$WFRUN" -q -j 1 w/wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat w/d/a)" = base ]
	[ "$(cat w/d/b)" = "$(printf 'b\nonce')" ]
	[ "$(cat w/in)" = "$(printf 'base\nup')" ]
}
