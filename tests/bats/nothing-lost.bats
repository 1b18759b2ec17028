#!/usr/bin/env bats
# Issue 18, "nothing lost, ever": inputs a hostile or careless user may
# write, and the data they must never destroy or alias.
load helper

@test "range arithmetic that overflows is an error at its line, not SIGFPE" {
	wf <<'EOF2'
tasks:
  - name: a
    foreach: {i: "(-9223372036854775807-1)/-1..1"}
    run: "echo {i}"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:3:15: error: foreach 'i' of task 'a': range bound '(-9223372036854775807-1)/-1' is not an integer expression (overflow)" ]
	run "$WFRUN" run wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:3:15: error: foreach 'i' of task 'a': range bound '(-9223372036854775807-1)/-1' is not an integer expression (overflow)" ]
	wf <<'EOF2'
tasks:
  - name: a
    foreach: {i: "1..(-9223372036854775807-1)%-1"}
    run: "echo {i}"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:3:15: error: foreach 'i' of task 'a': range bound '(-9223372036854775807-1)%-1' is not an integer expression (overflow)" ]
	wf <<'EOF2'
tasks:
  - name: a
    foreach: {i: "-(-9223372036854775807-1)..1"}
    run: "echo {i}"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:3:15: error: foreach 'i' of task 'a': range bound '-(-9223372036854775807-1)' is not an integer expression (overflow)" ]
}
