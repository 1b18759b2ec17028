#!/usr/bin/env bats
# Containment: every process a task starts ends with it, whatever becomes
# of the task (success, failure, timeout) or of wfrun (Ctrl-C, kill -9,
# kill -9 of wfrun and its guardian together), with a cgroup per task and
# without one (WFRUN_NO_CGROUP), locally and on an SSH worker's agent.
load helper

setup_file() {
	export C="$BATS_FILE_TMPDIR/c"
	cluster_up "$C" 1
}

teardown_file() {
	"$TESTCLUSTER" down -q "$C"
}

# alive PID: the process runs (a zombie has ended).
alive() {
	local s
	[ -n "$1" ] || return 1
	# (read, not $(<...): bats would see the subshell fail)
	{ read -r s <"/proc/$1/stat"; } 2>/dev/null || return 1
	s=${s##*) }
	[[ $s != Z* ]]
}
# ended PID: poll until process PID has ended (at most 20 s, so that a
# process left running fails the test instead of hanging the suite).
ended() {
	local until
	until=$((SECONDS + 20))
	[ -n "$1" ] || return 1
	while ((SECONDS < until)); do
		alive "$1" || return 0
		sleep 0.05
	done
	if alive "$1"; then
		echo "process $1 still runs: $(tr '\0' ' ' <"/proc/$1/cmdline")"
		return 1
	fi
}
# pid_in FILE: wait for a task to write a process id into FILE; print it.
pid_in() {
	local until
	until=$((SECONDS + 20))
	while ((SECONDS < until)) && [ ! -s "$1" ]; do
		sleep 0.05
	done
	cat "$1"
}

# The background process every task below leaves: it writes its pid to
# bg.pid and sleeps; the task goes on once it has.
BG="sh -c 'echo \$\$ >bg.pid; exec sleep 300' & while [ ! -s bg.pid ]; do sleep 0.01; done;"

# And one that left the task's process group and session: esc.pid.
ESC="setsid sh -c 'echo \$\$ >esc.pid; exec sleep 300' & while [ ! -s esc.pid ]; do sleep 0.01; done;"

one_task() { # one_task RUN [KEY: VALUE]
	wf <<EOF
tasks:
  - name: t
    ${2:-retries: 0}
    run: "$1"
EOF
}

@test "a process left in the background ends with its task when the task succeeds" {
	one_task "$BG echo started"
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	ended "$(cat bg.pid)"
	[ "$(cat .wfrun/logs/t.out)" = started ]
}

@test "a process left in the background ends with its task when the task fails" {
	one_task "$BG exit 3"
	run "$WFRUN" wf.yaml
	[ "$status" -ne 0 ]
	ended "$(cat bg.pid)"
}

@test "a process left in the background ends with its task when the task times out" {
	one_task "$BG $ESC sleep 300" "timeout: 1s"
	run "$WFRUN" wf.yaml
	[ "$status" -ne 0 ]
	[[ "$output" == *"timed out"* ]]
	ended "$(cat bg.pid)"
	ended "$(cat esc.pid)"
}

# stop_wfrun SIGNAL [OPTIONS]: run one task that leaves a background and
# a setsid'd process and hangs, send wfrun SIGNAL, check both have ended.
stop_wfrun() {
	local sig=$1 pid esc
	shift
	one_task "$BG $ESC sleep 300"
	"$WFRUN" -q "$@" wf.yaml &
	pid=$!
	esc=$(pid_in esc.pid)
	kill -"$sig" "$pid"
	st=0
	wait "$pid" || st=$?
	[ "$st" -ne 0 ]
	ended "$(cat bg.pid)"
	ended "$esc"
}

@test "a task's processes end when wfrun is interrupted (SIGINT)" {
	stop_wfrun INT
}

@test "a task's processes end when wfrun is killed (kill -9): its guardian ends them" {
	stop_wfrun KILL
}

# A task that appends to its INOUT file: its first run leaves a process
# that would append again later, and hangs.
late_writer() {
	echo base >data.txt
	wf <<'EOF'
tasks:
  - name: add
    inout: {f: data.txt}
    run: "if [ ! -e second ]; then sh -c 'echo $$ >bg.pid; sleep 3; echo late >>data.txt' & echo early >>{inout.f}; sleep 300; fi; echo new >>{inout.f}"
EOF
}

# Start wfrun, wait for its task, kill wfrun and its guardian together.
kill_both() {
	"$WFRUN" -q wf.yaml &
	pid=$!
	bg=$(pid_in bg.pid)
	guardian=$(pgrep -P "$pid" -x wfrun)
	[ -n "$guardian" ]
	# the guardian first: it would end the task if it saw wfrun die
	kill -9 "$guardian"
	kill -9 "$pid"
	wait "$pid" || true
	alive "$bg"
}

# wfrun and its guardian killed together, then the next run: it must end
# the old task before it restores and reruns, so "late" is never written.
crash_both_rerun() {
	late_writer
	kill_both
	touch second
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"killed 1 task of an earlier run that was still running"* ]]
	[[ "$output" == *"restored what task 'add'"* ]]
	if alive "$bg"; then false; fi
	[ "$(cat data.txt)" = "base
new" ]
	# nothing left to kill next time: the record is gone
	[ ! -e .wfrun/contain ]
}

@test "wfrun and its guardian killed together: the next run ends the old task before it touches its data" {
	crash_both_rerun
}

# Task a leaves a background process and one in a session of its own;
# task b, after it, fails if the latter still runs.
leaver_then_checker() {
	wf <<EOF
tasks:
  - name: a
    run: "$BG $ESC touch {out.f}"
    out: {f: a.txt}
  - name: b
    run: "ps -o stat= -p \$(cat esc.pid) | grep -qv Z && echo escaped >&2 && exit 1; echo ok"
    in: {f: a.txt}
EOF
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	ended "$(cat bg.pid)"
	ended "$(cat esc.pid)"
}

@test "a process that left its task's process group and session ends before the next task starts" {
	leaver_then_checker
}

@test "without a cgroup (WFRUN_NO_CGROUP), background and setsid processes end with their task" {
	export WFRUN_NO_CGROUP=1
	leaver_then_checker
}

@test "without a cgroup, wfrun and its guardian killed together: the next run ends the old task first" {
	export WFRUN_NO_CGROUP=1
	crash_both_rerun
}

@test "on an SSH worker, background and setsid processes end with their task" {
	cluster_setup
	one_task "$BG $ESC echo started"
	run "$WFRUN" -r "$C/cluster.xml" wf.yaml
	[ "$status" -eq 0 ]
	ended "$(cat bg.pid)"
	ended "$(cat esc.pid)"
}

@test "on an SSH worker, a task's processes end when wfrun is killed (kill -9)" {
	cluster_setup
	stop_wfrun KILL -r "$C/cluster.xml"
}
