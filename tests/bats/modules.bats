#!/usr/bin/env bats
# modules: (swenv.c): `module load` before the command, in its shell, with
# the host's module system (Lmod here, Debian's lmod) and module files the
# tests write; a missing module fails the task with Lmod's own message,
# and `wfrun check` finds it before anything runs.
load helper

setup() {
	cd "$BATS_TEST_TMPDIR" || exit 1
	[ -r /usr/share/lmod/lmod/init/profile ] ||
		{ echo "Lmod is not installed (.ci/install-deps: lmod)" >&2; return 1; }
	mkdir -p mods/tool bin
	printf 'setenv("TOOL_VERSION", "1.7")\nprepend_path("PATH", "%s/bin")\n' \
		"$PWD" >mods/tool/1.7.lua
	printf '#!/bin/sh\necho "tool says $*"\n' >bin/tooly
	chmod +x bin/tooly
	export MODULEPATH=$PWD/mods
}

@test "modules: loads each module in the task's own shell" {
	wf <<'EOF'
tasks:
  - name: a
    modules: [tool/1.7]
    out: {o: "with space's.txt"}
    run: echo "$TOOL_VERSION" > {out.o}; tooly hi >> {out.o}
  - name: b
    out: {o: plain.txt}
    run: echo "${{TOOL_VERSION-unset}}" > {out.o}
EOF
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat "with space's.txt")" = "$(printf '1.7\ntool says hi')" ]
	[ "$(cat plain.txt)" = unset ]
}

@test "the workflow's modules: are every task's, but those that say theirs" {
	wf <<'EOF'
modules: tool/1.7
tasks:
  - name: a
    out: {o: a.txt}
    run: echo "$TOOL_VERSION" > {out.o}
  - name: b
    modules: []
    out: {o: b.txt}
    run: echo "${{TOOL_VERSION-unset}}" > {out.o}
EOF
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat a.txt)" = 1.7 ]
	[ "$(cat b.txt)" = unset ]
}

# Task a loads tool/1.7 and nosuch/2, b (with $1) nosuch/2 alone.
missing_wf() {
	printf 'tasks:\n  - name: a\n    modules: [tool/1.7, nosuch/2]\n    out: {o: a.txt}\n    run: echo ran > {out.o}\n' >wf.yaml
	if [ "${1-}" = b ]; then
		printf '  - name: b\n    modules: nosuch/2\n    run: "true"\n' >>wf.yaml
	fi
}

@test "a module that does not exist fails its task with Lmod's message" {
	missing_wf
	run "$WFRUN" wf.yaml
	[ "$status" -eq 1 ]
	[ ! -e a.txt ]
	grep -q 'unknown' .wfrun/logs/a.err
	grep -q '"nosuch/2"' .wfrun/logs/a.err
}

@test "wfrun check reports a missing module before anything runs" {
	missing_wf b
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"task 'a': module 'nosuch/2' cannot be loaded"*"unknown"* ]]
	# one probe per module: b's is a's
	[ "$(grep -c "module 'nosuch/2'" <<<"$output")" -eq 1 ]
	[ ! -e .wfrun ]
	sed -i 's|nosuch/2|tool/1.7|' wf.yaml
	run "$WFRUN" check -q wf.yaml
	[ "$status" -eq 0 ]
}

@test "modules: with a name that is not one word is refused" {
	wf <<'EOF'
tasks:
  - name: a
    modules: ["two words"]
    run: "true"
EOF
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"wf.yaml:3:15: error: module name 'two words' must be one word"* ]]
}

# The journal keeps a task's modules (and image) beside its command: a
# new list makes the task run again, the same list does not.
@test "changing a task's modules runs it again; the same ones do not" {
	printf 'setenv("TOOL_VERSION", "1.8")\n' >mods/tool/1.8.lua
	wf <<'EOF'
tasks:
  - name: a
    modules: [tool/1.7]
    out: {o: v.txt}
    run: echo "$TOOL_VERSION" > {out.o}
EOF
	run "$WFRUN" -q wf.yaml
	[ "$(cat v.txt)" = 1.7 ]
	run "$WFRUN" wf.yaml
	[[ "$output" == *"0 tasks done"*"1 up to date"* ]]
	sed -i 's#tool/1.7#tool/1.8#' wf.yaml
	run "$WFRUN" -n --reason wf.yaml
	[[ "$output" == *"command changed"* ]]
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat v.txt)" = 1.8 ]
	run "$WFRUN" wf.yaml
	[[ "$output" == *"0 tasks done"*"1 up to date"* ]]
}
