#!/usr/bin/env bats
# Paths that escape the workdir, unsafe names found on disk, and limits:
# the behaviours of a run, beside the exact messages of tests/corpus.
load helper

@test "an out path outside the workdir: nothing runs, nothing is written" {
	mkdir w
	wf w/wf.yaml <<'EOF2'
tasks:
  - name: first
    out: {o: inside.txt}
    run: "touch {out.o}"
  - name: esc
    out: {o: "../escaped.txt"}
    run: "touch {out.o}"
EOF2
	run "$WFRUN" w/wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "w/wf.yaml:6:11: error: task 'esc': out parameter 'o' writes '../escaped.txt', outside the workdir $(pwd -P)/w; add allow_outside: true to the task if it is meant to" ]
	[ ! -e escaped.txt ]
	[ ! -e w/inside.txt ]
}

@test "allow_outside: true lets a task write outside the workdir" {
	mkdir w
	wf w/wf.yaml <<'EOF2'
tasks:
  - name: esc
    allow_outside: true
    out: {o: "../escaped.txt", d: {dir: "../outdir"}}
    run: "echo hi > {out.o} && touch {out.d}/x"
  - name: back
    in: {o: "../escaped.txt", d: {dir: ../outdir}}
    out: {c: copy.txt}
    run: "cat {in.o} > {out.c}"
EOF2
	run "$WFRUN" -q w/wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat escaped.txt)" = hi ]
	[ -e outdir/x ]
	[ "$(cat w/copy.txt)" = hi ]
}

@test "an absolute out path inside the workdir is not outside" {
	mkdir w
	wf w/wf.yaml <<EOF2
tasks:
  - name: abs
    out: {o: "$(pwd -P)/w/sub/../a.txt"}
    run: "touch {out.o}"
EOF2
	run "$WFRUN" -q w/wf.yaml
	[ "$status" -eq 0 ]
	[ -e w/a.txt ]
}

@test "a name with a newline in an input directory collection is refused" {
	mkdir -p data
	touch data/ok "data/bad
name"
	wf <<'EOF2'
tasks:
  - name: ls
    in: {all: {dir: data}}
    out: {n: n.txt}
    run: "ls {in.all} > {out.n}"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:3:10: error: task 'ls': parameter 'all': the collection data holds 'bad\\nname', which is not a safe path: it contains a control character (a newline, a tab, ...); rename it" ]
	[ "${#lines[@]}" -eq 2 ]
}

@test "a file name starting with '-' inside a directory collection is fine" {
	mkdir -p data
	touch data/-rf
	wf <<'EOF2'
tasks:
  - name: ls
    in: {all: {dir: data}}
    out: {n: n.txt}
    run: "ls {in.all} > {out.n}"
EOF2
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat n.txt)" = "-rf" ]
}

@test "wfrun -n of a huge foreach is refused quickly, not expanded" {
	wf <<'EOF2'
tasks:
  - name: big
    foreach: {i: "0..99999999999"}
    run: "echo {i}"
EOF2
	run "$WFRUN" -n wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:2:5: error: task 'big': the workflow expands to more than 10000000 task instances (wfrun's limit); narrow the foreach or split the workflow" ]
}

@test "run -n and check show control characters of names, never send them to the terminal" {
	touch "$(printf 'x\033]0;T\007y.txt')" "$(printf 'a\033[31mb')"
	cat >wf.yaml <<'YAML'
name: "vis\e[2J"
tasks:
  - name: show
    foreach: {f: {glob: "*.txt"}}
    in: {i: "{f}"}
    run: "cat {in.i}"
  - name: lit
    in: {j: "a\e[31mb"}
    run: "cat {in.j}"
YAML
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 0 ]
	[[ $output == *"workflow 'vis\\e[2J'"* ]]
	[[ $output == *"  x\\e]0;T\\x07y.txt"* ]]
	[[ $output == *"  a\\e[31mb"* ]]
	[[ $output != *$'\033'* && $output != *$'\007'* ]]
	run "$WFRUN" -n wf.yaml
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "# workflow 'vis\\e[2J': 2 tasks, run in "* ]]
	[ "${lines[1]}" = "# 'show' (f=x\\e]0;T\\x07y.txt)" ]
	# into a pipe the commands stay as they would run
	[ "${lines[2]}" = "cat '$(printf 'x\033]0;T\007y.txt')'" ]
	# on a terminal they are shown too
	run script -qec "$WFRUN -n wf.yaml" /dev/null
	[[ $output == *"cat 'a\\e[31mb'"* ]]
	[[ $output != *$'\033'* ]]
}
