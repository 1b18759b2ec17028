#!/usr/bin/env bats
# The worker agent, driven directly through its protocol on stdin/stdout.
load helper

AGENT="${WFRUN%/*}/wfrun-worker"

# Start the agent on a fifo: fd 5 writes its input, out.txt and err.txt
# get its output and stderr, $pid is its process.
agent_start() {
	mkfifo in
	"$AGENT" <in >out.txt 2>err.txt &
	pid=$!
	exec 5>in
}

@test "wfrun-worker --version names the protocol" {
	run "$AGENT" --version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^wfrun-worker\ [0-9.]+\ protocol\ 7$ ]]
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
	[[ "$(sed -n 1p out.txt)" =~ ^HELLO$'\t'7$'\t'[a-z0-9_]+$'\t'[0-9]+$'\t'[0-9]+$ ]]
	grep -q $'^FAILED\t2\tno-such-program: command not found$' out.txt
	grep -q $'^DONE\t1\t0\t' out.txt
	[ "$(grep -c $'^DONE\t3\t0\t.*\t1\t1$' out.txt)" -eq 1 ]
	[ "$(tail -1 out.txt)" = BYE ]
	[ "$(cat 1.out)" = "hi b a r" ]
	[ "$(cat 1.err)" = e ]
	[ ! -e 3.out ]
}

@test "PING: the agent answers PONG, and stops its tasks when the master then goes silent" {
	# issue 24, defect 9: a master gone dark left the agent's tasks
	# running until TCP gave up (about 15 minutes)
	agent_start
	printf 'PING\t1\n' >&5
	printf 'RUN\t1\t%s\t%s/1.out\t%s/1.err\t0\tsh\tsh\t-c\tsleep 302\n' "$PWD" "$PWD" "$PWD" >&5
	for _ in $(seq 50); do [ "$(pcount 'sleep 302')" -gt 0 ] && break; sleep 0.1; done
	SECONDS=0
	# the input stays open, and silent
	wait "$pid"
	took=$SECONDS
	exec 5>&-
	cat out.txt err.txt
	[ "$(pcount 'sleep 302')" -eq 0 ]
	[ "$(sed -n 2p out.txt)" = PONG ]
	# to a master gone, it says nothing more
	[ "$(wc -l <out.txt)" -eq 2 ]
	grep -q 'no word from the master for 1 s: stopping' err.txt
	[ "$took" -le 3 ]
}

@test "DEADLINE: the agent kills a task past it by itself" {
	# issue 24: task timeouts held only while the master could kill
	agent_start
	printf 'RUN\t1\t%s\t%s/1.out\t%s/1.err\t0\tsleep\tsleep\t303\n' "$PWD" "$PWD" "$PWD" >&5
	printf 'DEADLINE\t1\t0.5\n' >&5
	SECONDS=0
	for _ in $(seq 50); do grep -q '^DONE' out.txt && break; sleep 0.1; done
	took=$SECONDS
	exec 5>&-
	wait "$pid"
	grep -q $'^DONE\t1\t9\t' out.txt
	[ "$took" -le 2 ]
}

@test "end of input kills the agent's running tasks" {
	mkfifo in
	"$AGENT" <in >out.txt &
	pid=$!
	exec 5>in
	printf 'RUN\t1\t%s\t%s/1.out\t%s/1.err\t0\tsh\tsh\t-c\tsleep 300 & sleep 301\n' "$PWD" "$PWD" "$PWD" >&5
	for _ in $(seq 50); do [ "$(pcount 'sleep 30[01]')" -gt 0 ] && break; sleep 0.1; done
	exec 5>&-
	wait "$pid"
	[ "$(pcount 'sleep 30[01]')" -eq 0 ]
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
	for _ in $(seq 50); do [ "$(pcount 'sleep 302')" -gt 0 ] && break; sleep 0.1; done
	printf 'KILL\t7\t9\n' >&5
	for _ in $(seq 50); do grep -q $'^DONE\t8' out.txt && break; sleep 0.1; done
	exec 5>&-
	wait "$pid"
	grep -q $'^DONE\t7\t9\t' out.txt
	[ "$(cat 8.out)" = fine ]
}

@test "WRITTEN says what a running task's process group has written so far" {
	mkfifo in
	"$AGENT" <in >out.txt &
	pid=$!
	exec 5>in
	# a child writes 1 MiB and ends (its parent counts it), another waits
	printf 'RUN\t5\t%s\t%s/5.out\t%s/5.err\t0\tsh\tsh\t-c\thead -c 1048576 /dev/zero > f; touch written; sleep 304\n' "$PWD" "$PWD" "$PWD" >&5
	for _ in $(seq 50); do [ -e written ] && [ "$(pcount 'sleep 304')" -gt 0 ] && break; sleep 0.1; done
	before=$(date +%s)
	printf 'WRITTEN\t5\n' >&5
	printf 'WRITTEN\t6\n' >&5 # not running: no answer
	for _ in $(seq 50); do grep -q '^WRITTEN' out.txt && break; sleep 0.1; done
	printf 'EXIT\n' >&5
	wait "$pid"
	exec 5>&-
	[ "$(grep -c '^WRITTEN' out.txt)" -eq 1 ]
	line=$(grep '^WRITTEN' out.txt)
	[[ "$line" =~ ^WRITTEN$'\t'5$'\t'([0-9]+)\.[0-9]{6}$'\t'([0-9]+)$ ]]
	when=${BASH_REMATCH[1]} bytes=${BASH_REMATCH[2]}
	[ "$bytes" -ge 1048576 ]
	[ "$bytes" -lt 2097152 ]
	[ "$when" -ge "$before" ]
	[ "$when" -le "$((before + 10))" ]
}

@test "SRUN: inputs linked (or copied) into a sandbox, outputs moved to the store and listed" {
	mkdir -p store/in/d
	echo hi >store/in/d/a.txt
	echo old >store/in/t.txt
	mkfifo in
	"$AGENT" <in >out.txt &
	pid=$!
	exec 5>in
	# nlink 2 (the second copied: the task also writes it), nmk 1,
	# nout 3 (a file, a directory, one it does not make)
	printf 'SRUN\t7\t%s/sb/7\t%s/store/t7\t2\t%s/store/in/d/a.txt\td/a.txt\t0\t%s/store/in/t.txt\tt.txt\t1\t1\tres\t3\tres/x.txt\tmade\tnot-made\t%s/logs/7.out\t%s/logs/7.err\t0\tsh\tsh\t-c\tcat d/a.txt > res/x.txt; echo new >> t.txt; mkdir -p made/e; echo 1 > made/y\n' \
		"$PWD" "$PWD" "$PWD" "$PWD" "$PWD" "$PWD" >&5
	printf 'SRUN\t8\t%s/sb/8\t%s/store/t8\t1\t%s/store/in/d/a.txt\ta.txt\t0\t0\t1\tz\t%s/logs/8.out\t%s/logs/8.err\t0\tsh\tsh\t-c\texit 4\n' \
		"$PWD" "$PWD" "$PWD" "$PWD" "$PWD" >&5
	for _ in $(seq 100); do [ "$(grep -c '^DONE' out.txt)" -eq 2 ] && break; sleep 0.1; done
	printf 'EXIT\n' >&5
	wait "$pid"
	exec 5>&-
	cat out.txt
	line=$(grep $'^DONE\t7\t0\t' out.txt)
	# stage_out_s nout KIND... nfile (PATH SIZE)...: made and made/e are
	# directories (-1), listed in the order the walk found them
	[[ "$line" =~ $'\t'1$'\t'1$'\t'[0-9.]+$'\t'3$'\t'f$'\t'd$'\t'-$'\t'4$'\t'res/x.txt$'\t'3$'\t' ]]
	for e in $'made\t-1' $'made/e\t-1' $'made/y\t2'; do
		[[ "$line" == *$'\t'"$e"* ]]
	done
	[ "$(cat store/t7/res/x.txt)" = hi ]
	[ "$(cat store/t7/made/y)" = 1 ]
	[ -d store/t7/made/e ]
	# the input it wrote was a copy: the stored version is unchanged
	[ "$(cat store/in/t.txt)" = old ]
	[ ! -e sb/7 ]
	# a failure keeps the sandbox and moves nothing
	grep -q $'^DONE\t8\t1024\t.*\t1\t-\t0$' out.txt
	[ -e sb/8/a.txt ]
	[ ! -e store/t8 ]
}

@test "STOP kills one task's process group and drops its sandbox, what it wrote included" {
	mkdir -p store/in
	echo hi >store/in/a.txt
	mkfifo in
	"$AGENT" <in >out.txt &
	pid=$!
	exec 5>in
	# 7 writes part of its output and waits; 8 fails and keeps its sandbox
	printf 'SRUN\t7\t%s/sb/7\t%s/store/t7\t1\t%s/store/in/a.txt\ta.txt\t0\t0\t1\tr.txt\t%s/logs/7.out\t%s/logs/7.err\t0\tsh\tsh\t-c\techo part > r.txt; sleep 303; echo rest >> r.txt\n' \
		"$PWD" "$PWD" "$PWD" "$PWD" "$PWD" >&5
	printf 'SRUN\t8\t%s/sb/8\t%s/store/t8\t1\t%s/store/in/a.txt\ta.txt\t0\t0\t1\tz\t%s/logs/8.out\t%s/logs/8.err\t0\tsh\tsh\t-c\texit 4\n' \
		"$PWD" "$PWD" "$PWD" "$PWD" "$PWD" >&5
	for _ in $(seq 50); do [ "$(pcount 'sleep 303')" -gt 0 ] && [ -s sb/7/r.txt ] && break; sleep 0.1; done
	[ "$(cat sb/7/r.txt)" = part ]
	printf 'STOP\t7\n' >&5
	for _ in $(seq 100); do [ "$(grep -c '^DONE' out.txt)" -eq 2 ] && break; sleep 0.1; done
	printf 'EXIT\n' >&5
	wait "$pid"
	exec 5>&-
	# killed by SIGKILL, its output not moved (-), its sandbox gone
	grep -q $'^DONE\t7\t9\t.*\t1\t-\t0$' out.txt
	[ ! -e sb/7 ]
	[ ! -e store/t7 ]
	[ "$(pcount 'sleep 303')" -eq 0 ]
	[ -e sb/8/a.txt ]
}

@test "SRUN: a store on another file system is copied into the sandbox" {
	# a test that cannot run here fails, saying why
	store=$(mktemp -d /dev/shm/wfrun-agent.XXXXXX)
	if [ "$(stat -c %d "$store")" = "$(stat -c %d .)" ]; then
		rm -rf "$store"
		echo "cannot run: /dev/shm is on the test directory's file system" >&2
		return 1
	fi
	echo hi >"$store/a.txt"
	mkfifo in
	"$AGENT" <in >out.txt &
	pid=$!
	exec 5>in
	printf 'SRUN\t1\t%s/sb/1\t%s/st/t1\t1\t%s/a.txt\ta.txt\t0\t0\t1\tb.txt\t%s/1.out\t%s/1.err\t0\tsh\tsh\t-c\tcat a.txt > b.txt\n' \
		"$PWD" "$PWD" "$store" "$PWD" "$PWD" >&5
	for _ in $(seq 100); do grep -q '^DONE' out.txt && break; sleep 0.1; done
	printf 'EXIT\n' >&5
	wait "$pid"
	exec 5>&-
	rm -rf "$store"
	cat out.txt
	grep -q $'^DONE\t1\t0\t' out.txt
	[ "$(cat st/t1/b.txt)" = hi ]
}

@test "HAVE: the agent says whether its store still holds a task's outputs as DONE listed them; PRUNE removes old runs' stores" {
	D="$PWD/wd/.wfrun/data"
	mkdir -p "$D/R2" wd/.wfrun/sandbox/R1/3 out
	agent_start
	printf 'SRUN\t1\t%s/wd/.wfrun/sandbox/R1/1\t%s/R1/t1\t0\t0\t1\tr.txt\t%s/1.out\t%s/1.err\t0\tsh\tsh\t-c\techo hello > r.txt\n' \
		"$PWD" "$D" "$PWD" "$PWD" >&5
	for _ in $(seq 100); do grep -q '^DONE' out.txt && break; sleep 0.1; done
	# one file, r.txt of 6 bytes, then its mtime (ns), last
	line=$(grep $'^DONE\t1\t0\t' out.txt)
	[[ "$line" =~ $'\t'1$'\t'r.txt$'\t'6$'\t'([0-9]+)$ ]]
	mt=${BASH_REMATCH[1]}
	[ "$mt" = "$(stat -c %.9Y "$D/R1/t1/r.txt" | tr -d .)" ]
	printf 'HAVE\t1\t%s/R1/t1\t1\tr.txt\t6\t%s\n' "$D" "$mt" >&5
	printf 'HAVE\t2\t%s/R1/t1\t1\tr.txt\t6\t%s\n' "$D" "$((mt + 1))" >&5
	printf 'HAVE\t3\t%s/R1/t1\t1\tnope.txt\t6\t%s\n' "$D" "$mt" >&5
	printf 'HAVE\t4\t%s/R1/t1\t1\t../t1/r.txt\t6\t%s\n' "$D" "$mt" >&5
	printf 'HAVE\t5\t%s/out\t0\n' "$PWD" >&5
	printf 'HAVE\t6\t%s/R1/t1\t1\t.\t-1\t0\n' "$D" >&5
	# the runs named go, their sandboxes with them; a name that is not
	# one component is refused
	printf 'PRUNE\t%s/wd\tR1\t..\n' "$PWD" >&5
	for _ in $(seq 100); do [ "$(grep -c '^HAS' out.txt)" -eq 6 ] && break; sleep 0.1; done
	printf 'EXIT\n' >&5
	wait "$pid"
	exec 5>&-
	cat out.txt
	grep -qx $'HAS\t1\t1' out.txt
	grep -qx $'HAS\t2\t0\t'"$D/R1/t1/r.txt changed" out.txt
	grep -qx $'HAS\t3\t0\t'"$D/R1/t1/nope.txt: No such file or directory" out.txt
	grep -qx $'HAS\t4\t0\tmalformed HAVE entry \'../t1/r.txt\'' out.txt
	grep -qx $'HAS\t5\t0\t\''"$PWD/out"$'\' is not a store' out.txt
	grep -qx $'HAS\t6\t0\tmalformed HAVE entry \'.\'' out.txt
	[ ! -e "$D/R1" ]
	[ ! -e wd/.wfrun/sandbox/R1 ]
	[ -d "$D/R2" ]
	[ -d wd/.wfrun ]
}
