#!/usr/bin/env bats
# Issue 22, run history: every run's record in .wfrun/runs/RUNID, wfrun
# log, wfrun report RUNID, and what a SIGKILL leaves.
load helper

two_tasks() {
	wf <<'EOF2'
tasks:
  - name: a
    out: {f: a.txt}
    run: "echo a > {out.f}"
  - name: b
    in: {f: a.txt}
    out: {g: b.txt}
    run: "cat {in.f} > {out.g}"
EOF2
}

# The field $1 of log --json's line $2 (1: the oldest).
log_field() {
	local out
	out=$("$WFRUN" log --json) || return 1
	sed -n "${2}p" <<<"$out" | grep -o "\"$1\": [^,}]*" | cut -d' ' -f2-
}

@test "history: a run then a nothing-to-do run: log lists both, the trace stays the real run's" {
	two_tasks
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	run "$WFRUN" log
	[ "$status" -eq 0 ]
	echo "$output"
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[1]}" =~ \ +2\ +0\ +0\ +ok\ \(exit\ 0\)$ ]]
	[[ "${lines[2]}" =~ \ +0\ +2\ +0\ +nothing\ to\ do\ \(exit\ 0\)$ ]]
	[ "$(log_field status 2)" = '"nothing to do"' ]
	[ "$(log_field up_to_date 2)" = 2 ]
	# the latest trace is still the first run's: both tasks in it
	[ "$(trace_col name | sort | tr '\n' ' ')" = "a b " ]
	first=$(ls .wfrun/runs | head -1)
	cmp .wfrun/trace.tsv ".wfrun/runs/$first/trace.tsv"
	cmp .wfrun/run.json ".wfrun/runs/$first/run.json"
	grep -q '"status": "ok"' .wfrun/run.json
	# its record: the command line, the workflow and its hash
	grep -q '"argv": \[.*"wf.yaml"\]' ".wfrun/runs/$first/run.json"
	grep -q "\"workflow\": \"$PWD/wf.yaml\"" ".wfrun/runs/$first/run.json"
	grep -q "\"workflow_sha256\": \"$(sha256sum wf.yaml | cut -d' ' -f1)\"" \
		".wfrun/runs/$first/run.json"
	# report with no argument: the real run's two tasks
	run "$WFRUN" report -o -
	[ "$status" -eq 0 ]
	[[ "$output" == *'<title>a: '* && "$output" == *'<title>b: '* ]]
}

@test "history: report RUNID, log WORKFLOW and -C, a failed run" {
	two_tasks
	"$WFRUN" -q wf.yaml
	sed -i 's/echo a > {out.f}/exit 3/' wf.yaml
	run "$WFRUN" -q --forceall wf.yaml
	[ "$status" -eq 1 ]
	[ "$(log_field status 2)" = '"failed"' ]
	[ "$(log_field exit 2)" = 1 ]
	[ "$(log_field failed 2)" = 1 ]
	[ "$(log_field not_run 2)" = 1 ]
	first=$(ls .wfrun/runs | head -1)
	run "$WFRUN" report -o - "$first"
	[ "$status" -eq 0 ]
	[[ "$output" == *'<title>b: '* ]]
	run "$WFRUN" report -o - "$(ls .wfrun/runs | tail -1)"
	[ "$status" -eq 0 ]
	[[ "$output" != *'<title>b: '* ]]
	mkdir sub
	cd sub
	run "$WFRUN" log ../wf.yaml
	[ "${#lines[@]}" -eq 3 ]
	run "$WFRUN" log -C ..
	[ "${#lines[@]}" -eq 3 ]
	run "$WFRUN" report nosuchrun
	[ "$status" -eq 2 ]
	run "$WFRUN" log -C /
	[ "$status" -eq 0 ]
	[ "$output" = "wfrun: no run recorded in /" ]
}

@test "history: a run killed with SIGKILL is running, then killed" {
	wf <<'EOF2'
tasks:
  - name: slow
    out: {f: s.txt}
    run: "echo $$ > task.pid; sleep 300; touch {out.f}"
EOF2
	"$WFRUN" -q wf.yaml & pid=$!
	wait_until test -s task.pid
	[ "$(log_field status 1)" = '"running"' ]
	kill -9 "$pid"
	wait "$pid" || true
	# the task ends with it (the guardian)
	wait_until sh -c '! kill -0 $(cat task.pid) 2>/dev/null' || kill "$(cat task.pid)"
	run "$WFRUN" log
	echo "$output"
	[[ "${lines[1]}" =~ \ -\ .*\ killed$ ]]
	[ "$(log_field end 1)" = null ]
	[ "$(log_field exit 1)" = null ]
	# the next run is recorded after it and says it ended
	rm task.pid
	sed -i 's/sleep 300; //' wf.yaml
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(log_field status 1)" = '"killed"' ]
	[ "$(log_field status 2)" = '"ok"' ]
}

@test "history: --keep N keeps the last N and the last run that ran something" {
	two_tasks
	"$WFRUN" -q wf.yaml
	for _ in 1 2 3; do "$WFRUN" -q wf.yaml; done
	[ "$(ls .wfrun/runs | wc -l)" -eq 4 ]
	real=$(ls .wfrun/runs | head -1)
	run "$WFRUN" log --keep 2
	[ "$status" -eq 0 ]
	[[ "$output" == *"1 old run removed"* ]]
	[ "$(ls .wfrun/runs | wc -l)" -eq 3 ]
	[ -d ".wfrun/runs/$real" ]
	run "$WFRUN" log --keep 0
	[ "$status" -eq 2 ]
	# -n records nothing
	"$WFRUN" -n wf.yaml >/dev/null
	[ "$(ls .wfrun/runs | wc -l)" -eq 3 ]
}
