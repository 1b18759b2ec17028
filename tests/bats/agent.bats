#!/usr/bin/env bats
# The worker agent, driven directly through its protocol on stdin/stdout.
load helper

AGENT="${WFRUN%/*}/wfrun-worker"

@test "wfrun-worker --version names the protocol" {
	run "$AGENT" --version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^wfrun-worker\ [0-9.]+\ protocol\ 1$ ]]
}

@test "the agent runs tasks, reports DONE and FAILED, and says BYE at EXIT" {
	mkfifo in
	"$AGENT" <in >out.txt &
	pid=$!
	exec 5>in
	printf 'RUN\t1\t%s\t%s/1.out\t%s/1.err\t1\tFOO=b a r\tsh\tsh\t-c\techo hi $FOO; echo e >&2\n' "$PWD" "$PWD" "$PWD" >&5
	printf 'RUN\t2\t\t%s/2.out\t%s/2.err\t0\tno-such-program\tx\n' "$PWD" "$PWD" >&5
	printf 'RUN\t3\t%s\t%s/3.out\t%s/3.err\t0\ttrue\ttrue\n' "$PWD" "$PWD" "$PWD" >&5
	for _ in $(seq 50); do [ "$(grep -c '^DONE' out.txt)" -eq 2 ] && break; sleep 0.1; done
	printf 'EXIT\n' >&5
	wait "$pid"
	exec 5>&-
	[[ "$(sed -n 1p out.txt)" =~ ^HELLO$'\t'1$'\t'[a-z0-9_]+$'\t'[0-9]+$'\t'[0-9]+$ ]]
	grep -q $'^FAILED\t2\tno-such-program: command not found$' out.txt
	grep -q $'^DONE\t1\t0\t' out.txt
	[ "$(grep -c $'^DONE\t3\t0\t.*\t1\t1$' out.txt)" -eq 1 ]
	[ "$(tail -1 out.txt)" = BYE ]
	[ "$(cat 1.out)" = "hi b a r" ]
	[ "$(cat 1.err)" = e ]
	[ ! -e 3.out ]
}

@test "end of input kills the agent's running tasks" {
	mkfifo in
	"$AGENT" <in >out.txt &
	pid=$!
	exec 5>in
	printf 'RUN\t1\t%s\t%s/1.out\t%s/1.err\t0\tsh\tsh\t-c\tsleep 300 & sleep 301\n' "$PWD" "$PWD" "$PWD" >&5
	for _ in $(seq 50); do [ "$(mine 'sleep 30[01]')" -gt 0 ] && break; sleep 0.1; done
	exec 5>&-
	wait "$pid"
	[ "$(mine 'sleep 30[01]')" -eq 0 ]
	grep -q $'^DONE\t1\t15\t' out.txt
	[ "$(tail -1 out.txt)" = BYE ]
}

@test "KILL signals one task's process group" {
	mkfifo in
	"$AGENT" <in >out.txt &
	pid=$!
	exec 5>in
	printf 'RUN\t7\t%s\t%s/7.out\t%s/7.err\t0\tsleep\tsleep\t302\n' "$PWD" "$PWD" "$PWD" >&5
	printf 'RUN\t8\t%s\t%s/8.out\t%s/8.err\t0\tsh\tsh\t-c\tsleep 0.5; echo fine\n' "$PWD" "$PWD" "$PWD" >&5
	for _ in $(seq 50); do [ "$(mine 'sleep 302')" -gt 0 ] && break; sleep 0.1; done
	printf 'KILL\t7\t9\n' >&5
	for _ in $(seq 50); do grep -q $'^DONE\t8' out.txt && break; sleep 0.1; done
	exec 5>&-
	wait "$pid"
	grep -q $'^DONE\t7\t9\t' out.txt
	[ "$(cat 8.out)" = fine ]
}
