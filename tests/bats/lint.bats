#!/usr/bin/env bats
# run-all: once
# tests/lint-bats rejects the checks that bats' set -e ignores, naming
# file:line, and passes the suites as they are.
load helper

lint() { "$WFRUN_TOP/tests/lint-bats" "$@"; }
# (The files below say %test: bats would take an @test line of a
# here-document for one of its own.)
at() { sed 's/^%test/@test/'; }

@test "lint-bats: each dead check is named by file:line, exit 1" {
	at >bad.bats <<'EOF2'
%test "dead checks" {
	! grep -q x f
	[ -e a ] && [ -e b ]
	"$WFRUN" run wf.yaml | grep -q done
	for f in a b; do
		[ -e "$f" ] && [ -s "$f" ]
	done
	[ -e c ]
}
f() {
	local n=$(grep -c x f)
	echo "$n"
}
EOF2
	run lint bad.bats
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 5 ]
	[[ "${lines[0]}" == "bad.bats:2: \`! cmd\` never fails"* ]]
	[[ "${lines[1]}" == "bad.bats:3: \`a && b\`"* ]]
	[[ "${lines[2]}" == "bad.bats:4: \`\"\$WFRUN\" ... |\`"* ]]
	[[ "${lines[3]}" == "bad.bats:6: \`a && b\`"* ]]
	[[ "${lines[4]}" == "bad.bats:11: \`local x=\$(cmd)\`"* ]]
}

@test "lint-bats: conditions, polls, strings and here-documents pass" {
	at >good.bats <<'EOF2'
%test "live checks" {
	run ! grep -q x f
	if ! grep -q x f && [ -e g ]; then echo no; fi
	for _ in 1 2; do [ -e f ] && break; sleep 1; done
	[[ -e f && -e g ]]
	awk '$1 && !$2' f | sort
	cat <<EOF
! a && b
EOF
	[ -e a ] || { echo "no a" >&2; false; }
}
EOF2
	run lint good.bats
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "lint-bats: its self-test and the suites pass" {
	run lint --self-test
	[ "$status" -eq 0 ]
	[[ "$output" == *"1..30" ]]
	run lint
	[ "$status" -eq 0 ]
}
