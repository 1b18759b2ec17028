#!/usr/bin/env bats
# run-all: once
# Issue 18, crash consistency.  tests/crash/run injects a fault (ENOSPC,
# EIO, kill -9) at system calls of the master, reruns cleanly and checks
# that nothing is lost or applied twice: the suite tries a fixed subset
# (every 30th call of five kinds); bench/crash.sh tries every call (counts
# in bench/RESULTS.md §15).  The other tests pin what it found, each
# built by hand, so that they need no timing.
load helper

# the harness's workflow, run once to its end (task 'bad' fails: status 1)
fixture_run() {
	cp -r "$WFRUN_TOP/tests/crash/fixture/." .
	run "$WFRUN" -q -j1 wf.yaml
	[ "$status" -eq 1 ]
	cp total.txt total.ok
}

# saved_copy ID KEY NAME [ENTRY_DATA]: .wfrun/saved/ID as undo_save leaves
# it for an INOUT total.txt; without ENTRY_DATA, no entry 0 (removed).
saved_copy() {
	mkdir -p ".wfrun/saved/$1"
	printf '%s\0%s\0%s\0Ptotal.txt\0' "$2" "$3" "$1" >".wfrun/saved/$1/manifest"
	[ $# -lt 4 ] || printf '%s' "$4" >".wfrun/saved/$1/0"
}

@test "a fault at any write, fdatasync, open, rename or unlink of the master loses nothing (every 30th)" {
	run "$WFRUN_TOP/tests/crash/run" --stride 30 \
		--calls write,fdatasync,openat,rename,unlink
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" =~ ^[0-9]+\ points:\ [0-9]+\ reached,\ 0\ failed$ ]]
	# the faults were really injected: most points are reached
	reached=$(echo "${lines[-1]}" | awk '{ print $3 }')
	[ "$reached" -ge 24 ]
}

@test "the harness fails when an update is applied twice, a recorded task reruns or a copy stays" {
	run "$WFRUN_TOP/tests/crash/run" --only write:30:kill:double \
		--only write:30:kill:force --only write:30:kill:leave
	echo "$output"
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "3 points: 3 reached, 3 failed" ]
	[[ "$output" == *"(sabotage double)"*"other.txt differs"*"(sabotage force)"* ]]
	[[ "$output" == *"(sabotage force)"*"completed and recorded, yet run again: gen1 gen2 gen3"*"(sabotage leave)"* ]]
	[[ "$output" == *"(sabotage leave)"*".wfrun/saved holds x"* ]]
}

@test "a saved copy a fault left half dropped (manifest, no data) does not take the data in place" {
	# unlink(0) of a finished task's copy worked, unlink(done) and
	# unlink(manifest) did not: the next run moved total.txt aside and
	# had nothing to put back
	fixture_run
	saved_copy 4 "'acc' (i=1)" acc
	run "$WFRUN" -j1 wf.yaml
	[ "$status" -eq 1 ]
	cmp total.txt total.ok
	[ -z "$(ls .wfrun/saved)" ]
	[[ "$output" == *"9 of 11 tasks are up to date"* ]]
}

@test "an empty saved directory (its rmdir failed) neither stops the task nor stays" {
	fixture_run
	mkdir .wfrun/saved/4 .wfrun/saved/9
	run "$WFRUN" -j1 wf.yaml
	[ "$status" -eq 1 ]
	[[ "$output" == *"task 'bad' failed with exit status 3"* ]]
	[[ "$output" != *"could not start"* ]]
	[ -z "$(ls .wfrun/saved)" ]
}

@test "a copy whose rmdir failed does not stop the retry of its task" {
	wf <<'EOF2'
tasks:
  - name: t
    inout: {f: f.txt}
    retries: 1
    run: "echo more >> {inout.f}; if [ ! -e once ]; then touch once; exit 1; fi"
EOF2
	echo data >f.txt
	# rmdir 1: the first attempt's copy, dropped once put back
	run strace -qq -o /dev/null -e trace=rmdir \
		-e inject=rmdir:error=EIO:when=1 "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" != *"could not start"* ]]
	[ "$(cat f.txt)" = "$(printf 'data\nmore')" ]
	[ -z "$(ls .wfrun/saved)" ]
}

# chain_left RECORDED: in ./b, what a kill leaves when acc 1 .. RECORDED
# have their records and the later acc tasks ran without (their copies in
# .wfrun/saved, made in an order the directory's order does not keep);
# ./a holds the fixture run to its end.
chain_left() {
	rm -rf b
	mkdir b
	cd b
	cp -r "$WFRUN_TOP/tests/crash/fixture/." .
	cp -rp ../a/in .
	mkdir .wfrun
	grep -v "'acc' (i=[$(($1 + 1))-3])\|'split'\|'flaky'\|'bad'\|'last'" \
		../a/.wfrun/journal >.wfrun/journal
	printf 'base\ndata1\ndata2\ndata3\n' >total.txt
	[ "$1" -ge 2 ] || saved_copy 5 "'acc' (i=2)" acc $'base\ndata1\n'
	[ "$1" -ge 1 ] || saved_copy 4 "'acc' (i=1)" acc $'base\n'
	saved_copy 6 "'acc' (i=3)" acc $'base\ndata1\ndata2\n'
}

@test "copies of an INOUT chain a kill left unrecorded are put back latest first" {
	# the copy taken before the first unrecorded task is what total.txt
	# must hold (restored in the directory's order, it was another's,
	# and the tasks after it ran twice)
	mkdir a
	cd a
	fixture_run
	cd ..
	for recorded in 0 1; do
		chain_left $recorded
		run "$WFRUN" -j1 wf.yaml
		[ "$status" -eq 1 ]
		for f in total.txt book.txt other.txt sum.txt; do cmp $f ../a/$f; done
		[ "$(tr '\n' ' ' <ran.log)" = "$(printf 'acc%s ' $(seq $((recorded + 1)) 3))split flaky last " ]
		[ -z "$(ls .wfrun/saved)" ]
		cd ..
	done
}

@test "a kill while a failed task's INOUT file is put back never leaves the file missing" {
	wf <<'EOF2'
tasks:
  - name: t
    inout: {f: f.txt}
    run: "echo bad >> {inout.f}; exit 1"
EOF2
	# each rename of the master in turn: the copy made, the file moved
	# aside (before: a rename, and a gap), the copy put back
	for n in 1 2 3; do
		echo data >f.txt
		rm -rf .wfrun
		run strace -qq -o /dev/null -e trace=rename \
			-e inject=rename:signal=KILL:when=$n "$WFRUN" -q wf.yaml
		[ -e f.txt ]
		run "$WFRUN" -q wf.yaml
		[ "$status" -eq 1 ]
		[ "$(cat f.txt)" = data ]
	done
}

@test "an output directory that cannot be read for its record is not recorded as empty" {
	# walk_dir ignored a failed opendir and recorded 'parts' as an
	# empty, hashed directory; the next run found split's output
	# changed, reran split, flaky and last, and (flaky updates
	# total.txt in place) acc 1-3: the user's total.txt got every update
	# twice.  Found by tests/crash/run at openat (ENOSPC, EIO).  Now
	# split is not recorded and nothing starts after it.
	mkdir a b
	cd a
	fixture_run
	cd ../b
	cp -r "$WFRUN_TOP/tests/crash/fixture/." .
	# -P parts: the opens of parts only; the 2nd is split's record's
	run strace -qq -o /dev/null -P parts -e trace=openat \
		-e inject=openat:error=EIO:when=2 "$WFRUN" -q -j1 wf.yaml
	[ "$status" -eq 1 ]
	run "$WFRUN" -q -j1 wf.yaml
	[ "$status" -eq 1 ]
	for f in total.txt book.txt sum.txt; do cmp $f ../a/$f; done
}

@test "when every fdatasync fails, the copies of tasks on record are not restored over later work" {
	# the records reached the file, only their fdatasync failed: the
	# copies stayed unmarked, and the next run rolled the chain back to
	# acc 1's copy and ran everything again; 'last' appended to the
	# user's book.txt twice.  (Found by tests/crash/run, kind full.)
	# Each task outlasts the journal's 50 ms, so every flush syncs.
	wf <<'EOF2'
tasks:
  - name: acc
    foreach: {i: "1..3"}
    inout: {t: total.txt}
    run: "sleep 0.06; echo {i} >> {inout.t}"
  - name: last
    in: {t: total.txt}
    inout: {b: book.txt}
    run: "sleep 0.06; wc -l < {in.t} >> {inout.b}"
EOF2
	echo base >total.txt
	echo book >book.txt
	# the 1st fdatasync is the new journal's header; every later fails
	run strace -qq -o /dev/null -e trace=fdatasync \
		-e inject=fdatasync:error=EIO:when=2+ "$WFRUN" -j1 wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"cannot write .wfrun/journal: Input/output error"* ]]
	run "$WFRUN" -j1 wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"4 of 4 tasks are up to date"* ]]
	[ "$(tr '\n' ' ' <total.txt)" = "base 1 2 3 " ]
	[ "$(tr '\n' ' ' <book.txt)" = "book 4 " ]
	[ -z "$(ls .wfrun/saved)" ]
}
