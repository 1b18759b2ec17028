#!/usr/bin/env bats
# Issue 24: what neither side trusts.  The agent never removes or writes
# anything outside its workdir and store, whatever paths a task names;
# symbolic links in staged data; absolute outputs checked as locally.
# One worker whose workdir is not shared (testcluster without --shared).
load helper

setup_file() {
	export C="$BATS_FILE_TMPDIR/t"
	"$TESTCLUSTER" up -q 1 "$C" || return 1
	cluster_xml "$C" false
}

teardown_file() {
	"$TESTCLUSTER" down -q "$C"
}

setup() {
	W="$C/master/t$BATS_TEST_NUMBER"
	mkdir -p "$W"
	cd "$W" || exit 1
	read -r n h p u k WWD <"$C/hosts"
}

@test "the agent deletes nothing outside its workdir: an out dir of ../../../../victim" {
	# the sandbox and the store are 4 levels under the worker's workdir:
	# outdir/../../../../victim is WWD/victim there
	mkdir -p "$WWD"
	echo precious >"$WWD/victim"
	wf <<'EOF2'
tasks:
  - name: t
    allow_outside: true
    out: {v: "../../../../victim"}
    run: "true"
EOF2
	run "$WFRUN" -q -r "$C/cluster.xml" wf.yaml
	[ "$status" -ne 0 ]
	[ "$(cat "$WWD/victim")" = precious ]
	[[ "$output" == *"outside the sandbox"* ]]
}

@test "the agent moves nothing from outside: an output under a link a task made" {
	mkdir -p "$WWD/outside"
	wf <<EOF2
tasks:
  - name: t
    out: {f: "dd/x"}
    run: "rm -rf dd && ln -s $WWD/outside dd && echo mine > dd/x"
EOF2
	run "$WFRUN" -q -r "$C/cluster.xml" wf.yaml
	[ "$status" -ne 0 ]
	[ "$(cat "$WWD/outside/x")" = mine ]
	[[ "$output" == *"did not create its output 'f' (dd/x)"* ]]
}
