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

@test "a workflow larger than the limit is refused unread" {
	# (a pipe past a bound: tests/unit/test-util.c)
	truncate -s 257M big.yaml
	run timeout 10 "$WFRUN" check big.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "big.yaml: error: cannot read: larger than the limit of 256 MiB" ]
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
	truncate -s 65M model
	run timeout 10 "$WFRUN" sim -m model wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "model: error: cannot read the model: larger than the limit of 64 MiB" ]
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

@test "log_max: a log keeps its head, says the cut, and keeps its last bytes" {
	wf <<'EOF2'
log_max: 4K
tasks:
  - name: big
    run: "seq 1 100000; echo e >&2"
  - name: own
    log_max: none
    run: "seq 1 100000"
EOF2
	run "$WFRUN" run -q wf.yaml
	[ "$status" -eq 0 ]
	size=$(stat -c %s .wfrun/logs/big.out)
	[ "$size" -le 4200 ]
	[ "$(head -1 .wfrun/logs/big.out)" = 1 ]
	grep -qx '\[wfrun: log_max 4096: [0-9]* bytes cut here; the last 2048 follow\]' .wfrun/logs/big.out
	[ "$(tail -1 .wfrun/logs/big.out)" = 100000 ]
	[ "$(cat .wfrun/logs/big.err)" = e ]
	[ "$(wc -l <.wfrun/logs/own.out)" -eq 100000 ]
}

@test "log_max: a running task's log is cut while it runs, not only at its end" {
	# the task reads its own stdout's size after a second and more
	wf <<'EOF2'
tasks:
  - name: chatty
    log_max: 8K
    run: "head -c 1000000 /dev/zero | tr '\\0' x; sleep 1.6; s=$(stat -L -c %s /proc/$$/fd/1); echo $s >&2"
EOF2
	run "$WFRUN" run -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat .wfrun/logs/chatty.err)" -eq 4096 ]
	grep -q '^\[wfrun: log_max 8192: 995904 bytes cut here; the last 0 follow\]$' .wfrun/logs/chatty.out
}

@test "log_max must be a size or none, at its line" {
	wf <<'EOF2'
tasks:
  - name: a
    log_max: lots
    run: "true"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:3:14: error: log_max must be a size of at least 1K with a unit, e.g. 64M, or none; not 'lots'" ]
}

@test "LOGMAX: the agent caps the logs of the task it precedes" {
	mkfifo in
	"${WFRUN%/*}/wfrun-worker" <in >out.txt &
	pid=$!
	exec 5>in
	printf 'LOGMAX\t1\t2048\n' >&5
	printf 'RUN\t1\t%s\t%s/1.out\t%s/1.err\t0\tseq\tseq\t1\t50000\n' "$PWD" "$PWD" "$PWD" >&5
	printf 'RUN\t2\t%s\t%s/2.out\t%s/2.err\t0\tseq\tseq\t1\t50000\n' "$PWD" "$PWD" "$PWD" >&5
	for _ in $(seq 50); do [ "$(grep -c '^DONE' out.txt)" -eq 2 ] && break; sleep 0.1; done
	printf 'EXIT\n' >&5
	wait "$pid"
	exec 5>&-
	[ "$(stat -c %s 1.out)" -le 2200 ]
	grep -q '^\[wfrun: log_max 2048: [0-9]* bytes cut here; the last 1024 follow\]$' 1.out
	[ "$(tail -1 1.out)" = 50000 ]
	# the next task has no cap: LOGMAX was for one
	[ "$(wc -l <2.out)" -eq 50000 ]
}

@test "a task that fills the disk still says so in its stderr" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to mount a small tmpfs"
	mkdir full
	mount -t tmpfs -o size=1M tmpfs full
	cd full
	wf <<'EOF2'
tasks:
  - name: fill
    run: "head -c 2M /dev/zero > big"
EOF2
	run "$WFRUN" run wf.yaml
	[ "$status" -eq 1 ]
	[[ "$output" == *"task 'fill' failed with exit status 1 (stderr: "*"  | head: error writing 'standard output': No space left on device"* ]]
	# a task that says nothing on a full disk: the message says why
	# its stderr may be empty
	wf <<'EOF2'
tasks:
  - name: fill
    out: {o: big}
    run: "head -c 2M /dev/zero > big 2>/dev/null || true"
  - name: mute
    in: {i: big}
    run: "exit 3"
EOF2
	run "$WFRUN" run wf.yaml
	cd ..
	umount full
	[ "$status" -eq 1 ]
	[[ "$output" == *"task 'mute' failed with exit status 3 (the file system of its logs is full: what it wrote to stderr may be lost)"* ]]
}

@test "an out that is a symbolic link is set aside, never written through, and put back on failure" {
	mkdir w
	echo keep >target
	cd w
	ln -s ../target o
	wf <<'EOF2'
tasks:
  - name: w
    out: {o: o}
    run: "echo new > {out.o}; exit 1"
EOF2
	run "$WFRUN" run wf.yaml
	[ "$status" -eq 1 ]
	[ "$(cat ../target)" = keep ]
	[ "$(readlink o)" = ../target ]
	[ "$(cat .wfrun/failed/w/1/o)" = new ]
	# on success the task's own file takes the link's place
	sed -i 's/; exit 1//' wf.yaml
	run "$WFRUN" run wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat ../target)" = keep ]
	[ ! -L o ]
	[ "$(cat o)" = new ]
	[ -z "$(ls .wfrun/saved)" ]
}

@test "a link an earlier task made inside a later task's inout collection is refused when it starts" {
	mkdir d
	echo x >d/f
	echo secret >outside
	wf <<'EOF2'
tasks:
  - {name: mk, inout: {d: {dir: d}}, run: "ln -s ../outside d/l"}
  - {name: use, inout: {d: {dir: d}}, run: "echo changed >> d/l; exit 1"}
EOF2
	run "$WFRUN" run wf.yaml
	[ "$status" -eq 1 ]
	[ "$(cat outside)" = secret ]
	[[ "$output" == *"task 'use' could not start: its INOUT data d now holds 'd/l', a symbolic link: restoring it after a failure would miss what it points to"* ]]
	# and a hard link made the same way
	rm d/l
	sed -i 's|ln -s ../outside d/l|ln d/f other|; s|d/l;|d/f;|' wf.yaml
	run "$WFRUN" run --forceall wf.yaml
	[ "$status" -eq 1 ]
	[ "$(cat other)" = x ]
	[[ "$output" == *"its INOUT data d now holds 'd/f', a file with other hard links: restoring it after a failure would miss the change under its other names"* ]]
}
