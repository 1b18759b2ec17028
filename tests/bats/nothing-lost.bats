#!/usr/bin/env bats
# Issue 18, "nothing lost, ever": inputs a hostile or careless user may
# write, and the data they must never destroy or alias.
load helper

@test "range arithmetic that overflows is an error at its line, not SIGFPE" {
	wf <<'EOF2'
tasks:
  - name: a
    foreach: {i: "(-9223372036854775807-1)/-1..1"}
    run: "echo {i}"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:3:15: error: foreach 'i' of task 'a': range bound '(-9223372036854775807-1)/-1' is not an integer expression (overflow)" ]
	run "$WFRUN" run wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:3:15: error: foreach 'i' of task 'a': range bound '(-9223372036854775807-1)/-1' is not an integer expression (overflow)" ]
	wf <<'EOF2'
tasks:
  - name: a
    foreach: {i: "1..(-9223372036854775807-1)%-1"}
    run: "echo {i}"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:3:15: error: foreach 'i' of task 'a': range bound '(-9223372036854775807-1)%-1' is not an integer expression (overflow)" ]
	wf <<'EOF2'
tasks:
  - name: a
    foreach: {i: "-(-9223372036854775807-1)..1"}
    run: "echo {i}"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:3:15: error: foreach 'i' of task 'a': range bound '-(-9223372036854775807-1)' is not an integer expression (overflow)" ]
}

@test "the same path as in and out is refused before anything runs; the input stays" {
	echo data >f.txt
	wf <<'EOF2'
tasks:
  - name: a
    in: {i: f.txt}
    out: {o: f.txt}
    run: "false"
EOF2
	run "$WFRUN" run wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:4:11: error: task 'a': out parameter 'o' and its in parameter 'i' both name 'f.txt', which the task writes: a failure would lose what was there; use one inout parameter, or two paths" ]
	[ "$(cat f.txt)" = data ]
	[ ! -e .wfrun/failed ]
}

@test "a path that leaves the workdir and comes back is the same datum" {
	mkdir w
	echo data >w/f.txt
	cd w
	wf <<'EOF2'
tasks:
  - name: a
    in: {i: "../w/f.txt"}
    out: {o: f.txt}
    run: "false"
  - name: b
    out: {o: "../w/.wfrun/x"}
    allow_outside: true
    run: "true"
EOF2
	run "$WFRUN" run wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:4:11: error: task 'a': out parameter 'o' and its in parameter 'i' both name 'f.txt', which the task writes: a failure would lose what was there; use one inout parameter, or two paths" ]
	[ "${lines[1]}" = "wf.yaml:7:11: error: task 'b': out parameter 'o' writes '.wfrun/x', which is inside wfrun's own state (.wfrun); choose another path" ]
	[ "$(cat f.txt)" = data ]
}

@test "a path inside a directory collection of the same task, written, is refused" {
	mkdir d
	echo x >d/a
	wf <<'EOF2'
tasks:
  - name: a
    in: {d: {dir: d}}
    out: {o: d/b}
    run: "true"
  - name: b
    out: {o: {list: "x{k}", foreach: {k: [a, b, a]}}}
    run: "true"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:4:11: error: task 'a': out parameter 'o' names 'd/b', inside 'd', the directory collection of its in parameter 'd', and one of them is written; give them paths apart" ]
	[ "${lines[1]}" = "wf.yaml:7:11: error: task 'b': out parameter 'o' names 'xa' twice, and writes it" ]
}

@test "wfrun's own files and the workdir are never data" {
	echo keep >afile
	mkdir sub
	wf <<'EOF2'
tasks:
  - name: j
    out: {j: .wfrun/journal}
    run: "true"
  - name: w
    inout: {dir: {dir: "."}}
    run: "true"
  - name: f
    out: {dir: {dir: afile}}
    run: "true"
  - name: y
    out: {y: wf.yaml}
    run: "true"
  - name: t
    out: {t: {dir: sub}}
    run: "true"
EOF2
	run "$WFRUN" run --trace sub/t.tsv wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:3:11: error: task 'j': out parameter 'j' writes '.wfrun/journal', which is inside wfrun's own state (.wfrun); choose another path" ]
	[ "${lines[1]}" = "wf.yaml:6:13: error: task 'w': inout parameter 'dir' writes '.', which is the workdir $(pwd -P); write to paths inside it" ]
	[ "${lines[2]}" = "wf.yaml:9:11: error: task 'f': out parameter 'dir' is a directory collection, but 'afile' is an existing file, not a directory; move it away or choose another path" ]
	[ "${lines[3]}" = "wf.yaml:12:11: error: task 'y': out parameter 'y' writes 'wf.yaml', which is the workflow file; choose another path" ]
	[ "${lines[4]}" = "wf.yaml:15:11: error: task 't': out parameter 't' writes 'sub', which holds the trace file of --trace (sub/t.tsv); choose another path" ]
	[ "${lines[5]}" = "wfrun: 5 errors in wf.yaml; nothing was run" ]
	[ "$(cat afile)" = keep ]
	[ ! -e sub/t.tsv ]
	[ ! -e .wfrun/journal ]
	wf <<'EOF2'
tasks:
  - name: t
    out: {t: t.tsv, e: events.jsonl}
    run: "touch {out.t} {out.e}"
EOF2
	run "$WFRUN" run --trace t.tsv wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:3:11: error: task 't': out parameter 't' writes 't.tsv', which is the trace file of --trace; choose another path" ]
	[ "${lines[1]}" = "wf.yaml:3:21: error: task 't': out parameter 'e' writes 'events.jsonl', which is the events file beside the trace; choose another path" ]
	run "$WFRUN" run wf.yaml
	[ "$status" -eq 0 ]
}

@test "a written directory collection that is, or holds, a symbolic link is refused" {
	mkdir real d
	echo x >real/f
	ln -s real lnk
	ln -s ../real/f d/l
	wf <<'EOF2'
tasks:
  - name: a
    inout: {d: {dir: lnk}}
    run: "true"
  - name: b
    inout: {d: {dir: d}}
    run: "true"
  - name: c
    inout: {d: {dir: h, depth: 2}}
    run: "true"
EOF2
	mkdir -p h/sub
	echo x >h/sub/f
	ln h/sub/f other
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:3:13: error: task 'a': inout parameter 'd' writes the directory collection 'lnk', which is a symbolic link: restoring it after a failure would miss what it points to; name the directory itself" ]
	[ "${lines[1]}" = "wf.yaml:6:13: error: task 'b': inout parameter 'd' writes the directory collection 'd', which holds symbolic links: restoring it after a failure would miss what they point to" ]
	[ "${lines[2]}" = "wf.yaml:9:13: error: task 'c': inout parameter 'd' writes the directory collection 'h', which holds 'h/sub/f', a file with other hard links: restoring it after a failure would leave the change under its other names" ]
}

# A failing task appends to its inout f, reached through a link.
linked_inout() {
	wf <<'EOF2'
tasks:
  - name: a
    inout: {f: f}
    run: "echo changed >> {inout.f}; exit 1"
EOF2
	run "$WFRUN" run wf.yaml
	[ "$status" -eq 1 ]
}

@test "a failed task's inout reached through a symbolic link in the workdir is put back" {
	echo old >real
	ln -s real f
	linked_inout
	[ "$(cat real)" = old ]
	[ -L f ]
	[ "$(cat .wfrun/failed/a/1/f)" = "old
changed" ]
}

@test "a failed task's inout reached through a symbolic link out of the workdir is put back" {
	mkdir w
	echo old >real
	cd w
	ln -s ../real f
	linked_inout
	[ "$(cat ../real)" = old ]
	[ -L f ]
}

@test "a failed task's inout with another hard link is put back under both names" {
	echo old >f
	ln f other
	linked_inout
	[ "$(cat f)" = old ]
	[ "$(cat other)" = old ]
	[ "$(stat -c %i f)" = "$(stat -c %i other)" ]
}

@test "values that start with - are never read as options: paths and globs get ./" {
	mkdir scratch
	touch scratch/keep ./-rf ./-q
	wf <<'EOF2'
tasks:
  - name: a
    foreach: {f: {glob: "-r*"}}
    in: {i: "{f}"}
    out: {o: "{f}.n"}
    env: {P: "{in.i}"}
    run: "rm {in.i} scratch; echo {f} \"$P\" > {out.o}"
    on_failure: ignore
  - name: b
    in: {all: {list: "{f}", foreach: {f: [-q, "-rf.n"]}}}
    run: "ls {in.all} scratch"
EOF2
	run "$WFRUN" -n wf.yaml
	[ "${lines[2]}" = "rm ./-rf scratch; echo ./-rf \"\$P\" > ./-rf.n" ]
	[ "${lines[4]}" = "ls ./-q ./-rf.n scratch" ]
	run "$WFRUN" -q wf.yaml
	[ "$(cat ./-rf.n)" = "./-rf ./-rf" ]
	[ -e scratch/keep ]
	[ ! -e ./-rf ]
	[ "$status" -eq 0 ]
}

@test "YAML nested deeper than 64 levels is refused at once, at its line" {
	{ printf 'tasks: []\nx:\n  '; head -c 100000 /dev/zero | tr '\0' '['; head -c 100000 /dev/zero | tr '\0' ']'; echo; } >wf.yaml
	SECONDS=0
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:3:66: error: the YAML nests more than 64 levels deep here; a workflow needs far fewer" ]
	[ "$SECONDS" -lt 3 ]
	{ printf 'tasks: []\nx: '; head -c 63 /dev/zero | tr '\0' '['; head -c 63 /dev/zero | tr '\0' ']'; echo; } >wf.yaml
	run "$WFRUN" check wf.yaml
	[ "${lines[1]}" = "wf.yaml:2:1: error: unknown key 'x' in the workflow" ]
	{ printf 'tasks: []\nx: '; head -c 64 /dev/zero | tr '\0' '['; head -c 64 /dev/zero | tr '\0' ']'; echo; } >wf.yaml
	run "$WFRUN" check wf.yaml
	[ "${lines[0]}" = "wf.yaml:2:67: error: the YAML nests more than 64 levels deep here; a workflow needs far fewer" ]
}

@test "--trace over the workflow, an input or wfrun's own files is refused" {
	echo in >in.txt
	wf w.yaml <<'EOF2'
tasks:
  - name: a
    in: {i: in.txt}
    out: {o: out.txt}
    run: "cp {in.i} {out.o}"
EOF2
	cp w.yaml w.orig
	run "$WFRUN" run --trace w.yaml w.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wfrun: error: --trace $(pwd -P)/w.yaml: it is the workflow file; choose another path" ]
	cmp w.yaml w.orig
	run "$WFRUN" run --trace in.txt w.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wfrun: error: --trace $(pwd -P)/in.txt: it is data of the workflow (a task reads or writes it); choose another path" ]
	[ "$(cat in.txt)" = in ]
	run "$WFRUN" run --trace .wfrun/journal w.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wfrun: error: --trace $(pwd -P)/.wfrun/journal: it is inside wfrun's own state (.wfrun); choose another path" ]
	mkdir t
	echo mine >t/events.jsonl
	wf t/w.yaml <<'EOF2'
tasks:
  - name: a
    in: {i: events.jsonl}
    run: "cat {in.i}"
EOF2
	run "$WFRUN" run --trace t/x.tsv t/w.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wfrun: error: the events file $(pwd -P)/t/events.jsonl: it is data of the workflow (a task reads or writes it); choose another path" ]
	[ "$(cat t/events.jsonl)" = mine ]
	run "$WFRUN" run -q --trace .wfrun/trace.tsv w.yaml
	[ "$status" -eq 0 ]
}

@test "an out over a workflow input that an earlier task read: a failure puts the user's file back" {
	# found by the property test: the input, already truncated by the
	# failed task, went to .wfrun/failed/ and the rerun stopped with
	# "input data.txt does not exist"
	echo original >data.txt
	wf <<'EOF2'
tasks:
  - {name: read, in: {i: data.txt}, out: {o: copy.txt}, run: "cp {in.i} {out.o}"}
  - {name: clobber, out: {o: data.txt}, run: "echo new > {out.o}; test -e ok"}
EOF2
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 1 ]
	[ "$(cat data.txt)" = original ]
	[ "$(cat .wfrun/failed/clobber/*/data.txt)" = new ]
	touch ok
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat data.txt)" = new ]
	[ "$(cat copy.txt)" = original ]
}

# An input updated in place (issue 18, property seeds 3091, 3080, 3099):
# t1 reads in2 and makes d1; t4 (i=1..N) append to in2; t5 and t7 update
# d1/b and d1/a in place, t7 by running LAST.  When t7 runs again, d1 is
# no longer as t1 left it (t5 changed it): t1 runs again and must read
# in2 as it was before t4, and each t4 append once.
reader_wf() {
	wf <<EOF2
tasks:
  - name: t1
    in: {y: in2}
    out: {d: {dir: d1}}
    run: "cat {in.y} > {out.d}/a; echo b > {out.d}/b"
  - name: t4
    foreach: {i: "1..$1"}
    inout: {x: in2}
    run: "echo t4{i} >> {inout.x}"
  - name: t5
    inout: {x: d1/b}
    run: "echo t5 >> {inout.x}"
  - name: t7
    inout: {x: d1/a}
    run: "$2"
EOF2
	echo in2 >in2
}

# in2, d1/a and d1/b as a sequential run of reader_wf N makes them
sequential_files() {
	[ "$(cat in2 | tr '\n' ' ')" = "in2 $(seq -f 't4%g' -s ' ' "$1") " ] &&
		[ "$(cat d1/a | tr '\n' ' ')" = "in2 t7 " ] &&
		[ "$(cat d1/b | tr '\n' ' ')" = "b t5 " ]
}

@test "a task that read an input before it was updated in place reads the original when it runs again" {
	reader_wf 1 'test ! -e fail && echo t7 >> {inout.x}'
	touch fail
	run "$WFRUN" -j 1 wf.yaml
	[ "$status" -eq 1 ]
	[ "$(cat in2 | tr '\n' ' ')" = "in2 t41 " ]
	rm fail
	run "$WFRUN" -n wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"# in2, updated in place by task 't4' (i=1) in an earlier run, is put back as it was first"* ]]
	run "$WFRUN" -j 1 wf.yaml
	[ "$status" -eq 0 ]
	sequential_files 1
	[[ "$output" == *"wfrun: put back the original of in2, which tasks that run again need; what it held is in .wfrun/failed/t4/2"* ]]
	[ "$(cat .wfrun/failed/t4/2/in2 | tr '\n' ' ')" = "in2 t41 " ]
	[ "$(cat .wfrun/orig/*/0)" = in2 ]
	run "$WFRUN" -n wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"4 of them up to date"* ]]
	# the original stays kept while the journal names its taker
	run "$WFRUN" --forceall -j 1 wf.yaml
	[ "$status" -eq 0 ]
	sequential_files 1
}

@test "kill -9 in a chain of updates in place of an input: each update applied once" {
	# t7 hangs until killed; its rerun sends t1 back, and the chain
	reader_wf 3 'echo t7 >> {inout.x}; if [ ! -e killed ]; then touch hung; sleep 300.318; fi'
	killed_when_hung -j 1 wf.yaml
	[ "$(cat in2 | tr '\n' ' ')" = "in2 t41 t42 t43 " ]
	touch killed
	run "$WFRUN" -j 1 wf.yaml
	[ "$status" -eq 0 ]
	sequential_files 3
}

@test "an input updated in place whose original is gone: the rerun that needs it is refused, nothing changed" {
	reader_wf 1 'test ! -e fail && echo t7 >> {inout.x}'
	touch fail
	run "$WFRUN" -j 1 wf.yaml
	[ "$status" -eq 1 ]
	rm -r fail
	rm -rf .wfrun/orig
	find . -type f ! -path './.wfrun/lock' ! -name before ! -name after -exec sha1sum {} + | sort >before
	run "$WFRUN" -n wf.yaml
	[[ "$output" == *"# the run would stop: in2, updated in place by task 't4' (i=1) in an earlier run, must be put back as it was, but its original is not kept"* ]]
	run "$WFRUN" -j 1 wf.yaml
	[ "$status" -eq 2 ]
	[ "$output" = "wfrun: error: in2 is a workflow input that task 't4' (i=1) updates in place and an earlier run updated; task 't1' read it before, and runs again, so it must be put back as it was, but its original is not kept in .wfrun/orig (removed, or an older wfrun ran here): put back in2 as it was before task 't4' (i=1) ran and remove .wfrun/journal, so that every task runs again from it" ]
	find . -type f ! -path './.wfrun/lock' ! -name before ! -name after -exec sha1sum {} + | sort >after
	diff before after
	# doing as it says
	echo in2 >in2
	rm .wfrun/journal
	run "$WFRUN" -j 1 wf.yaml
	[ "$status" -eq 0 ]
	sequential_files 1
}

@test "a task run again that fails puts back its last good output; one that succeeds replaces it" {
	# (before, the rerun wrote over it, and what it left went aside:
	# the output of the complete run was lost)
	echo one >in.txt
	wf <<'EOF2'
tasks:
  - {name: a, in: {i: in.txt}, out: {o: out.txt}, run: "if [ -e fails ]; then echo partial > {out.o}; exit 1; fi; cat {in.i} > {out.o}"}
EOF2
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat out.txt)" = one ]
	echo two >in.txt
	touch fails
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 1 ]
	[ "$(cat out.txt)" = one ]
	[ "$(cat .wfrun/failed/a/1/out.txt)" = partial ]
	[ -z "$(ls .wfrun/saved)" ]
	rm fails
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat out.txt)" = two ]
	[ -z "$(ls .wfrun/saved)" ]
	# up to date now
	run "$WFRUN" wf.yaml
	[[ "$output" == *"0 tasks done"*"1 up to date"* ]]
}

@test "a directory collection made again holds only what the new run wrote" {
	mkdir -p d
	echo 5 >n.txt
	wf <<'EOF2'
tasks:
  - {name: mk, in: {n: n.txt}, out: {d: {dir: d}}, run: "for i in $(seq $(cat {in.n})); do echo $i > {out.d}/f$i; done; if [ -e fails ]; then exit 1; fi"}
  - {name: all, in: {d: {dir: d}}, out: {o: all.txt}, run: "ls {in.d} | tr '\\n' ' ' > {out.o}"}
EOF2
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat all.txt)" = "f1 f2 f3 f4 f5 " ]
	echo 2 >n.txt
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat all.txt)" = "f1 f2 " ]
	[ "$(ls d | tr '\n' ' ')" = "f1 f2 " ]
	# a failed rerun: the last good directory back, whole
	echo 3 >n.txt
	touch fails
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 1 ]
	[ "$(ls d | tr '\n' ' ')" = "f1 f2 " ]
	[ "$(ls .wfrun/failed/mk/1/d | tr '\n' ' ')" = "f1 f2 f3 " ]
}

@test "kill -9 while a task runs again: the next run puts its last good output back first" {
	echo one >in.txt
	wf <<'EOF2'
tasks:
  - {name: a, in: {i: in.txt}, out: {o: out.txt}, run: "echo partial > {out.o}; if [ ! -e killed ]; then touch hung; sleep 300.319; fi; cat {in.i} > {out.o}"}
EOF2
	touch killed
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat out.txt)" = one ]
	rm killed
	echo two >in.txt
	killed_when_hung wf.yaml
	[ "$(cat out.txt)" = partial ]
	# the next run puts "one" back (the partial aside), then runs it
	touch killed
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat out.txt)" = two ]
	[ "$(cat .wfrun/failed/a/1/out.txt)" = partial ]
	[ -z "$(ls .wfrun/saved)" ]
}

@test "what a killed attempt left at an out is not kept as a good output: killed again, nothing is restored" {
	wf <<'EOF2'
tasks:
  - {name: a, out: {o: out.txt}, run: "echo partial > {out.o}; if [ ! -e killed ]; then touch hung; sleep 300.322; fi; echo whole > {out.o}"}
EOF2
	killed_when_hung wf.yaml
	rm hung
	killed_when_hung wf.yaml
	[ -z "$(ls .wfrun/saved)" ]
	touch killed
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" != *restored* ]]
	[ "$(cat out.txt)" = whole ]
}
