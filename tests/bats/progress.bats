#!/usr/bin/env bats
# Live progress: one line redrawn on a terminal (a pty from script(1)),
# plain lines otherwise, NO_COLOR honoured, nothing with -q.
load helper

# With -j 1 in program order: 'bad' fails, then the others start one by
# one, so a line is drawn after the failure whatever the timing.
progress_wf() {
	wf <<'EOF2'
tasks:
  - name: bad
    out: {f: bad.txt}
    run: "exit 3"
  - name: ok
    foreach: {i: "1..2"}
    out: {f: "ok{i}.txt"}
    run: "touch {out.f}"
  - name: cp
    io: true
    in: {f: ok1.txt}
    out: {g: c.txt}
    run: "cp {in.f} {out.g}"
EOF2
}

on_tty() { # run "$@" with stderr on a pty; output in out.txt
	script -qec "$(printf '%q ' "$@")" /dev/null >out.txt
}

@test "progress on a terminal: one line redrawn in place, cleared at the end" {
	command -v script >/dev/null || { echo "script(1) is missing: apt-get install -y bsdutils" >&2; return 1; }
	progress_wf
	unset NO_COLOR
	TERM=xterm on_tty "$WFRUN" -k -j 1 wf.yaml || true
	cat -v out.txt
	# the first start draws at once
	grep -q $'^\r\e\[K\[0/4\] running 1 (cpu 1, io 0), failed 0, [0-9]*s\r' out.txt
	# the error erased the line before it was printed
	grep -q $'\r\e\[Kwfrun: error: task .bad. failed with exit status 3' out.txt
	# after it, the failed count in red, and an ETA
	grep -q $'\e\[1;31mfailed 1\e\[0m, [0-9]*s, ETA ' out.txt
	# the summary starts on a cleared line
	grep -q $'\r\e\[Kwfrun: 1 task failed, 3 done, 0 not run' out.txt
	# redrawn in place: a progress line never ends a line
	[ "$(tr -d '\r' <out.txt | grep -c '] running .*[0-9]s$\|ETA [0-9hms]*$')" -eq 0 ]
	[ "$(grep -c 'running' out.txt)" -ge 2 ]
}

@test "progress: NO_COLOR and TERM=dumb turn the colour off" {
	command -v script >/dev/null || { echo "script(1) is missing: apt-get install -y bsdutils" >&2; return 1; }
	progress_wf
	NO_COLOR=1 TERM=xterm on_tty "$WFRUN" -k -j 1 wf.yaml || true
	grep -q $'running 1 (cpu 1, io 0), failed 1, ' out.txt
	run -1 grep -q $'\e\[1;31m' out.txt
	rm -rf .wfrun ./*.txt
	NO_COLOR= TERM=dumb on_tty "$WFRUN" -k -j 1 wf.yaml || true
	grep -q $'running 1 (cpu 1, io 0), failed 1, ' out.txt
	run -1 grep -q $'\e\[1;31m' out.txt
}

@test "progress: -q draws nothing on a terminal; not on a terminal, no carriage returns" {
	command -v script >/dev/null || { echo "script(1) is missing: apt-get install -y bsdutils" >&2; return 1; }
	progress_wf
	on_tty "$WFRUN" -q -k -j 1 wf.yaml || true
	# errors only
	[ "$(cat out.txt)" = $'wfrun: error: task \'bad\' failed with exit status 3\r' ]
	run "$WFRUN" -k -j 1 wf.yaml
	[ "$status" -eq 1 ]
	[[ "$output" != *$'\r'* ]]
	[[ "$output" != *"] running "* ]]  # a run under 2 s prints no line
}
