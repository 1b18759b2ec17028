#!/usr/bin/env bats
# Bad input: every error as file:line:col, all before anything runs, exit 2.
load helper

@test "YAML syntax error with its position" {
	printf 'tasks:\n  - name: a\n    run: [x\n' >wf.yaml
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "wf.yaml:4:1: error: YAML syntax error: did not find expected ',' or ']' while parsing a flow sequence (line 3)" ]]
	[ "${lines[1]}" = "wfrun: 1 error in wf.yaml; nothing was run" ]
}

@test "unknown keys get a suggestion" {
	wf <<'EOF2'
tasks:
  - name: a
    foreach: {i: "1..2"}
    outt: {f: "x{i}"}
    run: "true"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:4:5: error: unknown key 'outt' in a task; did you mean 'out'?" ]
	wf <<'EOF2'
taks:
  - name: a
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:1:1: error: unknown key 'taks' in the workflow; did you mean 'tasks'?" ]
}

@test "wrong types are named" {
	wf <<'EOF2'
tasks:
  - name: a
    cores: [1]
    io: maybe
    in: "x"
    run: "true"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:3:12: error: cores must be a scalar, not a list" ]
	[ "${lines[1]}" = "wf.yaml:4:9: error: io must be true or false, not 'maybe'" ]
	[ "${lines[2]}" = "wf.yaml:5:9: error: in must be a mapping (key: value), not a scalar" ]
}

@test "placeholders naming unknown parameters or vars" {
	wf <<'EOF2'
vars: {genome: hg38}
tasks:
  - name: a
    in: {reads: r.fq}
    out: {bam: a.bam}
    run: "align {genom} {in.read} > {out.bam}"
EOF2
	touch r.fq
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:6:10: error: run of task 'a': unknown placeholder {genom}: no var or foreach key has that name; did you mean {genome}?" ]
	[ "${lines[1]}" = "wf.yaml:6:10: error: run of task 'a': {in.read}: the task has no in parameter 'read'; did you mean {in.reads}?" ]
	[ "${lines[2]}" = "wfrun: 2 errors in wf.yaml; nothing was run" ]
}

@test "a lone brace must be doubled" {
	wf <<'EOF2'
tasks:
  - name: a
    out: {o: o.txt}
    run: "awk '{print $1}' /dev/null > {out.o}"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "wf.yaml:4:10: error: run of task 'a': '{' at offset 5 starts no placeholder"*"write '{{' for a literal brace" ]]
}

@test "duplicate task names and empty run" {
	wf <<'EOF2'
tasks:
  - name: a
    run: "true"
  - name: a
    run: "  "
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:4:5: error: duplicate task name 'a' (first at line 2); task names must be unique" ]
	[ "${lines[1]}" = "wf.yaml:5:10: error: task 'a' has an empty run command" ]
}

@test "an input nobody writes and that does not exist" {
	wf <<'EOF2'
tasks:
  - name: count
    foreach: {s: [a, b]}
    in: {reads: "{s}.fq"}
    out: {n: "{s}.n"}
    run: "wc -l < {in.reads} > {out.n}"
EOF2
	touch a.fq
	run "$WFRUN" wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:4:10: error: task 'count' (s=b): input 'reads' (b.fq) does not exist and no earlier task writes it" ]
	[ ! -e a.n ]
	[ ! -e .wfrun ]
}

@test "an input written only by a later task is still missing" {
	wf <<'EOF2'
tasks:
  - name: use
    in: {x: x.txt}
    out: {y: y.txt}
    run: "cp {in.x} {out.y}"
  - name: make
    out: {x: x.txt}
    run: "echo > {out.x}"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "wf.yaml:3:10: error: task 'use': input 'x' (x.txt) does not exist"* ]]
}

@test "every error is reported at once, nothing runs" {
	wf <<'EOF2'
vars: {n: 3}
tasks:
  - name: a
    foreach: {i: "1..{n}"}
    out: {o: "o{i}"}
    retries: -1
    on_failure: retyr
    timeout: soon
    memory: 12
    storage_bw: fast
    run: "touch {out.o}"
EOF2
	run "$WFRUN" wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:6:14: error: retries must be at least 0, not -1" ]
	[ "${lines[1]}" = "wf.yaml:7:17: error: on_failure must be fail, retry, ignore or cancel_successors, not 'retyr'; did you mean 'retry'?" ]
	[ "${lines[2]}" = "wf.yaml:8:14: error: timeout must be a duration such as 90s, 30m, 2h or 1h30m; not 'soon'" ]
	[ "${lines[3]}" = "wf.yaml:9:13: error: memory must be a size with a unit, e.g. 512M or 4G; not '12'" ]
	[[ "${lines[4]}" == "wf.yaml:10:17: error: storage_bw must be a bandwidth in MB/s"* ]]
	[ "${lines[5]}" = "wf.yaml:10:17: error: storage_bw applies to I/O tasks; add io: true to task 'a'" ]
	[ "${lines[6]}" = "wfrun: 6 errors in wf.yaml; nothing was run" ]
	[ ! -e o1 ]
}

@test "a task asking for more cores than exist is an error before the run" {
	wf <<'EOF2'
tasks:
  - name: big
    cores: 4
    out: {o: o}
    run: "touch {out.o}"
EOF2
	run "$WFRUN" -j 2 wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:3:12: error: task 'big' asks for 4 cores but only 2 are available; lower cores or raise -j" ]
	[ ! -e o ]
}

@test "storage_bw values are validated" {
	wf <<'EOF2'
tasks:
  - name: a
    io: true
    storage_bw: "auto(8,2,2)"
    run: "true"
  - name: b
    io: true
    cores: 2
    storage_bw: auto
    run: "true"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:4:17: error: storage_bw 'auto(8,2,2)': need 0 < min <= max and delta > 1" ]
	[ "${lines[1]}" = "wf.yaml:8:12: error: task 'b' is an I/O task (io: true), which takes no cores; remove cores" ]
}

@test "a glob matching nothing is an error" {
	wf <<'EOF2'
tasks:
  - name: a
    foreach: {f: {glob: "data/*.fq"}}
    in: {x: "{f}"}
    run: "cat {in.x}"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:3:15: error: foreach 'f' of task 'a': glob 'data/*.fq' matches no file under $PWD" ]
}

@test "key errors and placeholder errors are reported together" {
	wf <<'EOF2'
tasks:
  - name: a
    cores: x
    out: {o: o}
    run: "touch {out.oo}"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:3:12: error: cores must be an integer, not 'x'" ]
	[[ "${lines[1]}" == "wf.yaml:5:10: error: run of task 'a': {out.oo}: the task has no out parameter 'oo'"* ]]
}

@test "task names start with a letter or _" {
	wf <<'EOF2'
tasks:
  - name: 1st-pass
    run: "true"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:2:11: error: task name '1st-pass' must start with a letter or '_' and use letters, digits, '_' and '-'" ]
}

@test "a resources file cannot mix workers in the master's workdir with staged ones" {
	cat >mix.xml <<'EOF2'
<resources>
  <worker name="here" host="localhost"/>
  <worker name="n1" host="node01"><workdir shared="false">/scratch/x</workdir></worker>
</resources>
EOF2
	wf <<'EOF2'
tasks:
  - name: t
    run: "true"
EOF2
	run "$WFRUN" check -r mix.xml wf.yaml
	[ "$status" -eq 2 ]
	[ "$output" = "mix.xml:2:1: error: worker 'here' uses the master's workdir (localhost) and worker 'n1' a workdir of its own (shared=\"false\"): one run cannot mix them yet; use one kind in a resources file
wfrun: 1 error in mix.xml; nothing was run" ]
	# staged workers alone are fine (nothing connects for check)
	sed -i '/name="here"/d' mix.xml
	run "$WFRUN" check -r mix.xml wf.yaml
	[ "$status" -eq 0 ]
}
