#!/usr/bin/env bats
# Temp outputs (src/temp.c, resume.c): out: {x: {temp: PATH}} is removed
# once every task that reads it has succeeded, and the journal knows it
# can be made again, so a later run does not rerun for it.
load helper

# has FILE TEXT: FILE holds TEXT (and a newline)
has() {
	[ "$(cat "$1")" = "$2" ]
}

pipeline() {
	printf 'A\n' >in1
	printf 'B\n' >in2
	wf <<'EOF2'
tasks:
  - name: align
    foreach: {s: ["1", "2"]}
    in: {r: "in{s}"}
    out: {bam: {temp: "tmp/{s}.bam"}}
    run: "echo align {s} >> ran.log; mkdir -p tmp; cat {in.r} > {out.bam}"
  - name: call
    foreach: {s: ["1", "2"]}
    in: {bam: "tmp/{s}.bam", c: "cfg{s}"}
    out: {vcf: "out/{s}.vcf"}
    run: "echo call {s} >> ran.log; test -e fail{s} && exit 3; cat {in.bam} {in.c} > {out.vcf}"
EOF2
	echo x >cfg1
	echo y >cfg2
}

@test "a temp output goes once its readers succeeded; a rerun runs nothing for it" {
	pipeline
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ ! -e tmp/1.bam ]
	[ ! -e tmp/2.bam ]
	has out/1.vcf "$(printf 'A\nx')"
	: >ran.log
	run "$WFRUN" -n --reason wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"4 of them up to date"* ]]
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ ! -s ran.log ]
	# back as its writer left it (a master killed after the journal said
	# it goes, before it went): up to date, and it goes at the end
	mkdir -p tmp
	echo A >tmp/1.bam
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ ! -s ran.log ]
	[ ! -e tmp/1.bam ]
}

@test "a reader that must rerun has its temp input made again first, then it goes again" {
	pipeline
	"$WFRUN" -q wf.yaml
	: >ran.log
	echo z >cfg2
	run "$WFRUN" -n --reason wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"# 'align' (s=2): 'call' (s=2), which runs, reads a temp output of it that was removed"* ]]
	[[ "$output" != *"'align' (s=1)"* ]]
	[ ! -e tmp/2.bam ]
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat ran.log | tr '\n' ' ')" = "align 2 call 2 " ]
	has out/2.vcf "$(printf 'B\nz')"
	[ ! -e tmp/2.bam ]
}

@test "a temp output stays when its reader fails, and goes when it succeeds later" {
	pipeline
	touch fail2
	run "$WFRUN" -q -k wf.yaml
	[ "$status" -eq 1 ]
	[ ! -e tmp/1.bam ]
	has tmp/2.bam B
	rm fail2
	: >ran.log
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	has ran.log "call 2"
	[ ! -e tmp/2.bam ]
}

@test "-n and --keep-temp remove nothing; an interrupted run leaves the temp files" {
	pipeline
	run "$WFRUN" -n wf.yaml
	[ "$status" -eq 0 ]
	run "$WFRUN" -q --keep-temp wf.yaml
	[ "$status" -eq 0 ]
	has tmp/1.bam A
	has tmp/2.bam B
	# interrupted while a reader runs: its input stays
	rm -rf .wfrun tmp out ran.log
	sed -i 's/echo call {s} >> ran.log;/echo call {s} >> ran.log; sleep 30;/' wf.yaml
	"$WFRUN" -q -j 4 wf.yaml &
	pid=$!
	for _ in $(seq 100); do
		[ "$(grep -c call ran.log)" = 2 ] && break
		sleep 0.1
	done
	kill -INT "$pid"
	wait "$pid" || status=$?
	[ "${status:-0}" -eq 130 ]
	[ -e tmp/1.bam ]
	[ -e tmp/2.bam ]
}

@test "a temp output no task reads goes at the end; one updated in place stays" {
	wf <<'EOF2'
tasks:
  - name: make
    out: {a: {temp: a.tmp}, b: {temp: b.tmp}, l: {list: {temp: "l{i}.tmp"}, foreach: {i: "1..2"}}}
    run: "echo a > {out.a}; echo b > {out.b}; touch {out.l}"
  - name: update
    inout: {b: b.tmp}
    run: "echo more >> {inout.b}"
  - name: gather
    in: {l: {list: "l{i}.tmp", foreach: {i: "1..2"}}}
    out: {o: o}
    run: "cat {in.l} > {out.o}"
EOF2
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ ! -e a.tmp ]
	[ ! -e l1.tmp ]
	[ ! -e l2.tmp ]
	has b.tmp "$(printf 'b\nmore')"
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == "" ]]
	has b.tmp "$(printf 'b\nmore')"
}

@test "only an out file can be temp, at its line" {
	wf <<'EOF2'
tasks:
  - name: t
    in: {x: {temp: in.txt}}
    out: {d: {temp: {dir: d}}, e: {temp: e, depth: 2}}
    run: "true"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"wf.yaml:3:13: error: parameter 'x': only an out parameter can be temp (an in one is not wfrun's to remove)"* ]]
	[[ "$output" == *"wf.yaml:4:21: error: parameter 'd': only a file can be temp ({temp: PATH}), not a mapping"* ]]
	[[ "$output" == *"wf.yaml:4:35: error: parameter 'e': temp stands alone: {temp: PATH}"* ]]
}
