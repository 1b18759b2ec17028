#!/usr/bin/env bats
# The journal under faults (issue 18): a full disk, a damaged record, a
# journal of another version, inputs that are devices or FIFOs.  Each
# check that a run does not double-apply reads a file that three INOUT
# tasks append to.
load helper

# appender NAME [LINE]: a task NAME (with LINE) that appends NAME to log.
appender() {
	printf '  - name: %s\n' "$1"
	if [ -n "${2:-}" ]; then
		printf '    %s\n' "$2"
	fi
	printf '    inout: {l: log}\n    run: "echo %s >> {inout.l}"\n' "$1"
}

# wf.yaml: 'a', 'm', then 'x' (which reads log, and fills the disk when the file 'full'
# exists, once the saved copies of a and m are dropped; its record is
# long: it crosses a page, so the full disk cuts it part way), 'free'
# (which frees the disk once x's record failed), then 'b' and 'c'.
# a, m, b and c append to log, which no task creates.
full_disk_wf() {
	local pad
	pad=$(printf '%6000s' '' | tr ' ' p)
	{
		echo 'tasks:'
		appender a
		appender m
		cat <<EOF2
  - name: x
    in: {l: log}
    out: {o: x.txt}
    run: "sleep 0.3; echo x > {out.o}; if [ -e full ]; then head -c 4M /dev/zero > filler 2>/dev/null; fi; true; : $pad"
  - name: free
    in: {o: x.txt}
    out: {g: gone}
    run: "sleep 0.3; rm -f filler; echo > {out.g}"
EOF2
		appender b 'in: {g: gone}'
		appender c
	} >wf.yaml
	echo base >log
}

@test "a full disk while the journal is written: nothing lost, nothing applied twice" {
	mkdir m
	full_disk_wf
	touch full
	# a 512 KiB tmpfs of its own, in a mount namespace that ends with it
	cat >inner.sh <<'EOF2'
set -e
mount -t tmpfs -o size=512k tmpfs m
cp "$1"/wf.yaml "$1"/log "$1"/full m/
cd m
"$WFRUN" -j 1 wf.yaml >"$1/first.out" 2>&1
rm full
"$WFRUN" -j 1 wf.yaml >"$1/second.out" 2>&1
cp log "$1/log.after"
EOF2
	run unshare -m sh inner.sh "$PWD"
	[ "$status" -eq 0 ]
	cat first.out second.out
	# the disk was full when a record was written...
	grep -q "cannot write .wfrun/journal: No space left on device" first.out
	# ...and the next run found every record: it ran nothing again
	[[ "$(cat second.out)" == *"0 tasks done"*", 6 up to date"* ]]
	[[ "$(cat second.out)" != *"partial record"* ]]
	[ "$(cat log.after | tr '\n' ' ')" = "base a m b c " ]
}

# wf.yaml: 'other' (independent), then a, b and c appending to log; run.
chain_wf() {
	{
		echo 'tasks:'
		echo '  - name: other'
		echo '    out: {o: o.txt}'
		echo '    run: "echo o > {out.o}"'
		appender a
		appender b
		appender c
	} >wf.yaml
	echo base >log
	"$WFRUN" -q -j 1 wf.yaml
}

# rerun_damaged SED: chain_wf run, its journal edited by SED, run again.
rerun_damaged() {
	chain_wf
	sed -i "$1" .wfrun/journal
	run "$WFRUN" -j 1 wf.yaml
}

@test "a damaged record costs that record alone" {
	# one byte of the first record ('other') flipped
	rerun_damaged '2s/echo o/echo O/'
	[ "$status" -eq 0 ]
	[ "$(cat log | tr '\n' ' ')" = "base a b c " ]
	[[ "$output" == *"1 task done"*"3 up to date"* ]]
	[[ "$output" == *"wfrun: warning: .wfrun/journal: 1 damaged line skipped: a task whose record is lost runs again; the journal is rewritten without it"* ]]
	# rewritten without the damaged line: the next run is quiet
	run "$WFRUN" -j 1 wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" != *warning* ]]
	[[ "$output" == *"0 tasks done"*"4 up to date"* ]]
}

@test "a damaged record of an INOUT task that reruns: the original is put back, each update applied once" {
	rerun_damaged '3s/echo a/echo A/'
	[ "$status" -eq 0 ]
	[[ "$output" == *"wfrun: put back the original of log, which tasks that run again need; what it held is in .wfrun/failed/a/2"* ]]
	[ "$(cat log | tr '\n' ' ')" = "base a b c " ]
	[[ "$output" == *"3 tasks done"*"1 up to date"* ]]
}

@test "a journal of another format version is an error, and is left alone" {
	chain_wf
	printf '7fcfa883 H\twfrun-journal\t999\n' >.wfrun/journal
	cp .wfrun/journal saved
	run "$WFRUN" -j 1 wf.yaml
	[ "$status" -eq 2 ]
	[ "$output" = "wfrun: error: .wfrun/journal is a journal of format version 999, which this wfrun (format 1) cannot read: a newer wfrun wrote it, or it is damaged; use that wfrun, or move the file away to start with no record of earlier runs" ]
	cmp saved .wfrun/journal
	[ "$(cat log | tr '\n' ' ')" = "base a b c " ]
	run "$WFRUN" -n wf.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"journal is a journal of format version 999"* ]]
}

# zero_wf RUN: wf.yaml with a task z that reads /dev/zero, its command
# RUN; more tasks from stdin.
zero_wf() {
	{
		printf 'tasks:\n  - name: z\n    in: {z: /dev/zero}\n'
		printf '    out: {o: z.txt}\n    run: "%s"\n' "$1"
		cat
	} >wf.yaml
}

@test "inputs that are a device or a FIFO: the run ends, and they stay up to date" {
	mkfifo ff
	zero_wf "head -c 3 {in.z} | od -An -c > {out.o}" <<'EOF2'
  - name: f
    in: {f: ff}
    out: {o: f.txt}
    run: "(echo hi > {in.f} &); cat {in.f} > {out.o}"
EOF2
	run timeout 20 "$WFRUN" -j 1 wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat f.txt)" = hi ]
	[ "$(tr -d ' \n' <z.txt)" = '\0\0\0' ]
	# the FIFO's mtime changed with the write: still up to date
	run timeout 20 "$WFRUN" -j 1 wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"0 tasks done"*"2 up to date"* ]]
}

@test "SIGINT ends a run whose task reads a device" {
	zero_wf "head -c 3 {in.z} > {out.o}; touch started; sleep 30" </dev/null
	"$WFRUN" -j 1 wf.yaml 2>err.txt &
	pid=$!
	for _ in $(seq 100); do
		[ -e started ] && break
		sleep 0.1
	done
	[ -e started ]
	kill -INT "$pid"
	wait "$pid" || status=$?
	[ "${status:-0}" -eq 130 ]
	grep -q "interrupted (Interrupt)" err.txt
}

@test "a run killed after a writer's record and before its reader: the next run runs the reader" {
	# (before, the writer was up to date and so, with no predecessor
	# rerunning, was the reader: copy.txt stayed made from the old
	# out.txt for good)
	echo one >in.txt
	wf <<'EOF2'
tasks:
  - {name: a, in: {i: in.txt}, out: {o: out.txt, f: flag.txt}, run: "cat {in.i} > {out.o}; echo x > {out.f}"}
  - {name: s, in: {f: flag.txt}, out: {s: s.txt}, run: "if [ -e hang ]; then touch hung; sleep 300.321; fi; echo s > {out.s}"}
  - {name: b, in: {o: out.txt, s: s.txt}, out: {c: copy.txt}, run: "cat {in.o} > {out.c}"}
EOF2
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat copy.txt)" = one ]
	echo two >in.txt
	touch hang
	killed_when_hung -j 1 wf.yaml
	[ "$(cat out.txt)" = two ]
	rm hang
	run "$WFRUN" -n --reason wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"# 'b': its input 'o' (out.txt) changed"* ]]
	# s's last good output is in .wfrun/saved (s was running): -n says
	# so, and that the run puts it back first
	[[ "$output" == *"# a killed run left what 1 task started from in .wfrun/saved: a run puts it back first, and may then find more up to date than this says"* ]]
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat copy.txt)" = two ]
	# and then nothing is left to do
	run "$WFRUN" wf.yaml
	[[ "$output" == *"0 tasks done"*"3 up to date"* ]]
}
