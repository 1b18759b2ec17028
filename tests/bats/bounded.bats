#!/usr/bin/env bats
# Issue 18, bounded reads and bounded logs: every file wfrun reads is a
# regular file or a pipe within a size limit; task logs are capped; task
# output echoed to a terminal cannot drive it.
load helper

hello() {
	wf <<'EOF2'
tasks:
  - name: a
    run: "echo hi > x.txt"
    out: {o: x.txt}
EOF2
}

@test "a device, a directory or a FIFO as the workflow is refused unread, naming it" {
	run timeout 10 "$WFRUN" check /dev/zero
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "/dev/zero: error: cannot read: a character device, not a regular file or a pipe" ]
	mkdir d
	run timeout 10 "$WFRUN" run d
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "d: error: cannot read: a directory, not a regular file or a pipe" ]
	# a FIFO nobody writes: opened without waiting, read as empty
	mkfifo fifo
	run timeout 10 "$WFRUN" check fifo
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "fifo:1:1: error: the workflow is empty: it needs tasks:" ]
}

@test "a workflow larger than the limit is refused, from a file or a pipe" {
	truncate -s 257M big.yaml
	run timeout 10 "$WFRUN" check big.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "big.yaml: error: cannot read: larger than the limit of 256 MiB" ]
	run timeout 60 "$WFRUN" check <(head -c 300M /dev/zero)
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "/dev/fd/"*": error: cannot read: larger than the limit of 256 MiB" ]]
}

@test "a workflow from a pipe runs in the current directory" {
	hello
	run "$WFRUN" run <(cat wf.yaml)
	[ "$status" -eq 0 ]
	[ "$(cat x.txt)" = hi ]
	[ -f .wfrun/journal ]
}

@test "resources, the model and a trace from a device are refused unread" {
	hello
	run timeout 10 "$WFRUN" check -r /dev/zero wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "/dev/zero: error: cannot read: a character device, not a regular file or a pipe" ]
	run timeout 10 "$WFRUN" sim -m /dev/zero wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "/dev/zero: error: cannot read the model: a character device, not a regular file or a pipe" ]
	run timeout 10 "$WFRUN" report -o r.html /dev/zero
	[ "$status" -ne 0 ]
	[ "${lines[0]}" = "wfrun: error: cannot read the trace /dev/zero: a character device, not a regular file or a pipe" ]
	run timeout 30 "$WFRUN" sim -m <(yes "seed 1") wf.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"error: cannot read the model: larger than the limit of 64 MiB"* ]]
}

@test "a failed task's stderr tail and names it made are shown, not sent to the terminal" {
	wf <<'EOF2'
tasks:
  - name: a
    run: "printf '\\033]0;pwned\\007\\033[2J boom\\r\\n' >&2; exit 1"
EOF2
	run "$WFRUN" run wf.yaml
	[ "$status" -eq 1 ]
	[[ "$output" != *$'\033'* ]]
	[[ "$output" != *$'\007'* ]]
	[[ "$output" == *'  | \e]0;pwned\x07\e[2J boom\r'* ]]
	# a file name with controls, made by an earlier run, in a message
	touch $'in\033[2J.txt'
	wf <<'EOF2'
tasks:
  - name: b
    foreach: {f: {glob: "in*.txt"}}
    in: {i: "{f}"}
    run: "exit 1"
EOF2
	run "$WFRUN" run wf.yaml
	[ "$status" -eq 1 ]
	[[ "$output" != *$'\033'* ]]
	[[ "$output" == *'in\e[2J.txt'*"failed with exit status 1"* ]]
}
