#!/usr/bin/env bats
# Program-order data flow: any parallel schedule gives the files of the
# sequential program.
load helper

accumulate() {
	wf <<'EOF2'
name: acc
vars: {n: 40}
tasks:
  - name: make
    foreach: {i: "1..{n}"}
    out: {r: "r/{i}.txt"}
    run: "sleep 0.0{i}; echo line {i} > {out.r}"
  - name: init
    out: {total: total.txt}
    run: "echo start > {out.total}"
  - name: add
    foreach: {i: "1..{n}"}
    in: {r: "r/{i}.txt"}
    inout: {total: total.txt}
    run: "cat {in.r} >> {inout.total}"
  - name: snapshot
    in: {total: total.txt}
    out: {copy: snap.txt}
    run: "cp {in.total} {out.copy}"
  - name: append-more
    inout: {total: total.txt}
    run: "echo end >> {inout.total}"
EOF2
}

@test "an INOUT chain gives the same file with -j 1 and -j 64" {
	accumulate
	run "$WFRUN" -q -j 1 wf.yaml
	[ "$status" -eq 0 ]
	cp total.txt one.txt
	cp snap.txt snap1.txt
	rm -r r total.txt snap.txt
	run "$WFRUN" -q -j 64 wf.yaml
	[ "$status" -eq 0 ]
	cmp one.txt total.txt
	cmp snap1.txt snap.txt
	[ "$(head -1 total.txt)" = start ]
	[ "$(sed -n 41p total.txt)" = "line 40" ]
	[ "$(tail -1 total.txt)" = end ]
	# WAR: the snapshot was taken before "end" was appended
	[ "$(tail -1 snap.txt)" = "line 40" ]
}

@test "WAW: the last writer in program order wins" {
	wf <<'EOF2'
tasks:
  - name: first
    out: {f: f.txt}
    run: "sleep 0.3; echo first > {out.f}"
  - name: second
    out: {f: f.txt}
    run: "echo second > {out.f}"
EOF2
	run "$WFRUN" -q -j 4 wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat f.txt)" = second ]
}

@test "a directory collection is read after every element is written" {
	wf <<'EOF2'
tasks:
  - name: part
    foreach: {i: "1..6"}
    out: {p: "parts/p{i}"}
    run: "sleep 0.{i}; echo {i} > {out.p}"
  - name: gather
    in: {all: {dir: parts}}
    out: {n: n.txt}
    run: "cat {in.all}/* | wc -l > {out.n}"
EOF2
	run "$WFRUN" -q -j 8 wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat n.txt)" = 6 ]
}

@test "files under a directory written whole come from its writer" {
	wf <<'EOF2'
tasks:
  - name: split
    out: {d: {dir: chunks}}
    run: "sleep 0.2; for i in 1 2 3; do echo $i > {out.d}/c$i; done"
  - name: use
    in: {c: chunks/c2}
    out: {o: o.txt}
    run: "cat {in.c} > {out.o}"
  - name: count
    in: {all: {dir: chunks, depth: 1}}
    out: {n: n.txt}
    run: "ls {in.all} | wc -l > {out.n}"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"edges: 2"* && "$output" == *"inputs that must exist: 0"* ]]
	run "$WFRUN" -q -j 4 wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat o.txt)" = 2 ]
	[ "$(cat n.txt)" = 3 ]
}

@test "existing files of an input directory are elements too" {
	mkdir -p data/sub
	touch data/a data/b data/sub/deep
	wf <<'EOF2'
tasks:
  - name: list
    in: {d: {dir: data, depth: 1}}
    out: {o: o.txt}
    run: "ls {in.d} > {out.o}"
  - name: rewrite
    out: {a: data/a}
    run: "echo new > {out.a}"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"edges: 1"* ]]
	[[ "$output" == *"inputs that must exist: 1"*"  data"* ]]
}

@test "paths are one datum however they are written" {
	wf <<'EOF2'
tasks:
  - name: w
    out: {f: "./a//b/../b/f.txt"}
    run: "echo hi > {out.f}"
  - name: r
    in: {f: "a/b/f.txt"}
    out: {g: g.txt}
    run: "cat {in.f} > {out.g}"
EOF2
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat g.txt)" = hi ]
}

@test "nested collections: a list of directories" {
	wf <<'EOF2'
tasks:
  - name: mk
    foreach: {s: [x, y]}
    out: {d: {dir: "samples/{s}"}}
    run: "mkdir -p {out.d} && echo {s} > {out.d}/v"
  - name: all
    in: {ds: {list: {dir: "samples/{s}"}, foreach: {s: [x, y]}}}
    out: {o: o.txt}
    run: "for d in {in.ds}; do cat $d/v; done > {out.o}"
EOF2
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat o.txt | tr '\n' ' ')" = "x y " ]
}

@test "output directories are created before a task runs" {
	wf <<'EOF2'
tasks:
  - name: t
    out: {f: "deep/er/and/deeper/f.txt", d: {dir: "made/dir"}}
    run: "touch {out.f} && test -d {out.d} && touch {out.d}/x"
EOF2
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ -f deep/er/and/deeper/f.txt ]
	[ -f made/dir/x ]
}

@test "vars may use vars defined above them" {
	wf <<'EOF2'
vars: {sample: NA12878, dir: "data/{sample}", file: "{dir}/{sample}.txt", lit: "{{x}}"}
tasks:
  - name: t
    out: {f: "{file}"}
    run: "echo {lit} > {out.f}"
EOF2
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat data/NA12878/NA12878.txt)" = "{x}" ]
	wf <<'EOF2'
vars: {a: "{b}", b: 1}
tasks:
  - name: t
    run: "true"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:1:11: error: var 'a': '{b}' names no var defined above it; write '{{' for a literal brace" ]
}

@test "an absolute path inside the workdir is the same datum as the relative one" {
	wf <<EOF2
tasks:
  - name: w
    out: {f: x.txt}
    run: "sleep 0.3; echo v1 > {out.f}"
  - name: r
    in: {f: "$PWD/x.txt"}
    out: {g: g.txt}
    run: "cat {in.f} > {out.g}"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"edges: 1"* && "$output" == *"inputs that must exist: 0"* ]]
	run "$WFRUN" -q -j 2 wf.yaml
	[ "$(cat g.txt)" = v1 ]
}

@test "a foreach that expands to nothing is a warning" {
	wf <<'EOF2'
tasks:
  - name: none
    foreach: {i: "5..4"}
    out: {f: "x{i}"}
    run: "touch {out.f}"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "wf.yaml:2:5: warning: task 'none' has no instances: its foreach is empty" ]
}
