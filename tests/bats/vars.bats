#!/usr/bin/env bats
# List vars, foreach {var: NAME}, and the values given from outside the
# file (--set NAME=VALUE, --vars FILE) with what check says of them
# (wfrun-workflow(5), vars and VARS FROM THE COMMAND LINE).
load helper

# expect [N] <<EOF: the output of the last run (from its line N, the
# first 0) is exactly these lines.
expect() {
	diff -u - <(printf '%s\n' "${lines[@]:${1:-0}}")
}

samples_wf() {
	wf <<'EOF2'
vars:
  samples: [S1, "S 2", S3]
  ref: hg38
  fa: "genome/{ref}.fa"
tasks:
  - name: call
    foreach: {s: {var: samples}}
    out: {v: "calls/{s}.txt"}
    run: echo {s} {fa} > {out.v}
  - name: merge
    in: {v: {list: "calls/{s}.txt", foreach: {s: {var: samples}}}}
    out: {all: all.txt}
    env: {SAMPLES: "{samples}"}
    run: printf '<%s>' {samples} "$SAMPLES" > {out.all}; echo >> {out.all}; cat {in.v} >> {out.all}
EOF2
}

@test "a foreach takes a list var's items; {list} in run is one word per item" {
	samples_wf
	run "$WFRUN" -n wf.yaml
	[[ "$output" == *"printf '<%s>' S1 'S 2' S3 \"\$SAMPLES\""* ]]
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat 'calls/S 2.txt')" = "S 2 genome/hg38.fa" ]
	run cat all.txt
	[ "${lines[0]}" = "<S1><S 2><S3><S1 S 2 S3>" ]
	[ "${lines[1]}" = "S1 genome/hg38.fa" ]
	[ "${lines[3]}" = "S3 genome/hg38.fa" ]
	[ "${#lines[@]}" -eq 4 ]
}

@test "a list var where one value is wanted is an error at its place" {
	wf <<'EOF2'
vars:
  samples: [S1, S2]
  joined: "x{samples}"
  one: A
tasks:
  - name: a
    foreach: {s: {var: sampels}, t: {var: one}}
    out: {o: "out/{samples}.txt"}
    run: echo > {out.o}
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	expect <<'EOF2'
wf.yaml:3:11: error: var 'joined': {samples} is a list; a var's value holds one text (a foreach takes a list: {var: samples})
wf.yaml:7:15: error: foreach 's' of task 'a': no list var 'sampels'; did you mean 'samples'?
wf.yaml:7:34: error: foreach 't' of task 'a': var 'one' is not a list; give it a list ([a, b]) or iterate a list here
wf.yaml:8:14: error: a path of task 'a': {samples} is a list var, and a path holds one value: iterate it with foreach: {KEY: {var: samples}} and write {KEY}
wfrun: 4 errors in wf.yaml; nothing was run
EOF2
}

@test "--set replaces a var where it is defined; later vars see it; a list takes commas" {
	samples_wf
	run "$WFRUN" -n --set ref=mm10 --set samples=A,B wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"echo A genome/mm10.fa > calls/A.txt"* ]]
	[[ "$output" == *"echo B genome/mm10.fa > calls/B.txt"* ]]
	[[ "$output" != *S1* ]]
	# the last --set of a name wins; an empty value is the empty list
	run "$WFRUN" check --set samples=A --set samples= wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"  samples = []  (--set)"* ]]
	run "$WFRUN" check --set samples=a,,b, wf.yaml
	[[ "$output" == *"  samples = [a, , b, ]  (--set)"* ]]
	# braces of an outside value are no placeholders
	run "$WFRUN" -n --set 'ref={x}' wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"echo S1 'genome/{x}.fa' > calls/S1.txt"* ]]
}

@test "--vars FILE under --set; check says each value and where it comes from" {
	samples_wf
	printf 'samples: [A, "B,C"]\nref: hg19\n' >cfg.yaml
	printf 'ref: t2t\n' >cfg2.yaml
	run "$WFRUN" check --vars cfg.yaml --vars cfg2.yaml wf.yaml
	[ "$status" -eq 0 ]
	expect 2 <<'EOF2'
vars: 3
  samples = [A, B,C]  (--vars cfg.yaml:1:1)
  ref = t2t  (--vars cfg2.yaml:1:1)
  fa = genome/t2t.fa  (wf.yaml:4:3)
task instances: 3
  call  2
  merge 1
edges: 2
inputs that must exist: 0
EOF2
	run "$WFRUN" check --set ref=mm10 --vars cfg.yaml wf.yaml
	[ "$status" -eq 0 ]
	[ "${lines[4]}" = "  ref = mm10  (--set)" ]
	run "$WFRUN" check wf.yaml
	[ "${lines[3]}" = "  samples = [S1, S 2, S3]  (wf.yaml:2:3)" ]
	# dag and sim load the workflow with them too
	run "$WFRUN" dag --set samples=Q,R wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *'t2 [label="call\ns=R"];'* ]]
	[[ "$output" == *'t3 [label="merge"];'* ]]
}

@test "an unknown or mistyped override is an error naming its file or option" {
	samples_wf
	printf 'sampels: [A]\nref: [x]\nfa: {a: b}\n' >cfg.yaml
	run "$WFRUN" check --vars cfg.yaml --set rf=1 --set bad wf.yaml
	[ "$status" -eq 2 ]
	expect <<'EOF2'
cfg.yaml:1:1: error: wf.yaml defines no var 'sampels'; did you mean 'samples'?
cfg.yaml:2:1: error: var 'ref' is a text in wf.yaml:3:3: give one value, not a list
cfg.yaml:3:5: error: a var value (a text or a list of texts) must be a scalar, not a mapping
--set rf: error: wf.yaml defines no var 'rf'; did you mean 'ref'?
--set: error: 'bad' is not NAME=VALUE with NAME a var's name
wfrun: 5 errors in wf.yaml; nothing was run
EOF2
	printf 'ref: [unclosed\n' >bad.yaml
	run "$WFRUN" -n --vars bad.yaml wf.yaml
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "bad.yaml:2:1: error: YAML syntax error: "* ]]
	run "$WFRUN" check --vars missing.yaml wf.yaml
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "missing.yaml: error: cannot read missing.yaml: "* ]]
}

@test "--set and --vars are options of run, check, dag and sim, before or after the file" {
	samples_wf
	run "$WFRUN" wf.yaml -q --set samples=Z
	[ "$status" -eq 0 ]
	[ -f calls/Z.txt ]
	[ ! -e calls/S1.txt ]
	printf 'task call seconds 10\ntask merge seconds 1\n' >model.txt
	run "$WFRUN" sim -m model.txt --set samples=Q,R,S,T -j 2 wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == "makespan 21.000 s: 5 tasks on 1 worker"* ]]
	run "$WFRUN" sim -m model.txt --set nope=1 wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "--set nope: error: wf.yaml defines no var 'nope'" ]
}

@test "a list var in a command run without a shell gives one argument per item" {
	wf <<'EOF2'
vars: {names: [a, "b c", "-d"], none: []}
tasks:
  - name: t
    run: touch -- {names} {none}
EOF2
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ -f a ]
	[ -f "b c" ]
	[ -f ./-d ]
	run ls
	[ "${#lines[@]}" -eq 4 ]
}
