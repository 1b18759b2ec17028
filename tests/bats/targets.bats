#!/usr/bin/env bats
# Asking for part of the work (issue 20): targets after the workflow file
# (files, directories, task names, NAME[KEY=VALUE] instances) and
# --until NAME run only what they need; -n shows exactly that set.
load helper

# proj/wf.yaml, workdir proj/out: per sample an align then a call, a side
# task on S1's alignment, a merge of every call, and an index directory
# written whole.
pipeline() {
	mkdir -p proj/data
	echo ref >proj/data/ref.txt
	wf proj/wf.yaml <<'EOF2'
workdir: out
tasks:
  - name: index
    in: {ref: ../data/ref.txt}
    out: {idx: {dir: idx}}
    run: "cp {in.ref} {out.idx}/ref.fa && echo i > {out.idx}/ref.fa.fai"
  - name: align
    foreach: {s: [S1, S2, S3]}
    in: {ref: idx/ref.fa}
    out: {bam: "bam/{s}.bam"}
    run: "cat {in.ref} > {out.bam}; echo {s} >> {out.bam}"
  - name: call
    foreach: {s: [S1, S2, S3]}
    in: {bam: "bam/{s}.bam"}
    out: {vcf: "calls/{s}.vcf"}
    run: "cat {in.bam} > {out.vcf}"
  - name: side
    in: {bam: bam/S1.bam}
    out: {t: side.txt}
    run: "cp {in.bam} {out.t}"
  - name: merge
    in: {all: {dir: calls}}
    out: {m: merged.txt}
    run: "cat {in.all}/*.vcf > {out.m}"
EOF2
}

# The label lines of a dry run, joined by commas.
labels() {
	grep '^# .' <<<"$1" | grep -v '^# workflow\|^# [0-9]' | tr '\n' , 
}

@test "-n with a file target shows exactly what it needs, and a run runs only that" {
	pipeline
	run "$WFRUN" -n proj/wf.yaml proj/out/calls/S2.vcf
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "# 6 of them left out: not needed by what is asked for" ]
	[ "$(labels "$output")" = "# 'index',# 'align' (s=S2),# 'call' (s=S2)," ]
	run "$WFRUN" proj/wf.yaml proj/out/calls/S2.vcf
	[ "$status" -eq 0 ]
	[ "$output" = "wfrun: 3 tasks done in ${output##*done in }" ]
	[[ "$output" == *"in "*"s, 6 left out (not asked for)" ]]
	[ "$(cat proj/out/calls/S2.vcf)" = "$(printf 'ref\nS2')" ]
	[ ! -e proj/out/calls/S1.vcf ]
	[ ! -e proj/out/merged.txt ]
	[ "$(trace_col name proj/out/.wfrun/trace.tsv | tr '\n' ,)" = "index,align,call," ]
	# nothing left for that target; the rest still runs in full
	run "$WFRUN" -n proj/wf.yaml proj/out/calls/S2.vcf
	[ "${lines[2]}" = "# 3 of them up to date: not run" ]
	[ "${#lines[@]}" -eq 3 ]
	run "$WFRUN" -q proj/wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat proj/out/merged.txt)" = "$(printf 'ref\nS1\nref\nS2\nref\nS3')" ]
}

@test "targets are relative to the current directory, from the workdir or anywhere" {
	pipeline
	mkdir elsewhere proj/out
	cd proj/out
	run "$WFRUN" -n ../wf.yaml side.txt
	[ "$status" -eq 0 ]
	[ "$(labels "$output")" = "# 'index',# 'align' (s=S1),# 'side'," ]
	cd ../../elsewhere
	run "$WFRUN" -n ../proj/wf.yaml ../proj/out/side.txt
	[ "$(labels "$output")" = "# 'index',# 'align' (s=S1),# 'side'," ]
	run "$WFRUN" -n "$BATS_TEST_TMPDIR/proj/wf.yaml" "$BATS_TEST_TMPDIR/proj/out/side.txt"
	[ "$(labels "$output")" = "# 'index',# 'align' (s=S1),# 'side'," ]
	# run from here, -n from the workdir then finds it all up to date
	run "$WFRUN" -q ../proj/wf.yaml ../proj/out/side.txt
	[ "$status" -eq 0 ]
	cd ../proj/out
	run "$WFRUN" -n ../wf.yaml side.txt
	[ "${lines[2]}" = "# 3 of them up to date: not run" ]
	[ "${#lines[@]}" -eq 3 ]
}

@test "a directory target, a file in a directory written whole, task names and instances" {
	pipeline
	run "$WFRUN" -n proj/wf.yaml proj/out/calls
	[ "$(labels "$output")" = "# 'index',# 'align' (s=S1),# 'align' (s=S2),# 'align' (s=S3),# 'call' (s=S1),# 'call' (s=S2),# 'call' (s=S3)," ]
	run "$WFRUN" -n proj/wf.yaml proj/out/idx/ref.fa.fai
	[ "$(labels "$output")" = "# 'index'," ]
	run "$WFRUN" -n proj/wf.yaml side 'call[s=S3]'
	[ "$(labels "$output")" = "# 'index',# 'align' (s=S1),# 'align' (s=S3),# 'call' (s=S3),# 'side'," ]
	run "$WFRUN" -n proj/wf.yaml 'align[s=S2]' proj/out
	[ "$(labels "$output")" = "# 'index',# 'align' (s=S1),# 'align' (s=S2),# 'align' (s=S3),# 'call' (s=S1),# 'call' (s=S2),# 'call' (s=S3),# 'side',# 'merge'," ]
	# what reads a target is not run, though all it waits for ended
	run "$WFRUN" proj/wf.yaml proj/out/bam/S1.bam
	[ "$status" -eq 0 ]
	[[ "$output" == *" 2 tasks done in "*"s, 7 left out (not asked for)" ]]
	[ ! -e proj/out/side.txt ]
	[ ! -e proj/out/calls/S1.vcf ]
}

@test "a task name wins over a file of that name; ./NAME is the file" {
	wf <<'EOF2'
tasks:
  - name: a
    out: {o: b}
    run: "echo > {out.o}"
  - name: b
    out: {o: a}
    run: "echo > {out.o}"
EOF2
	run "$WFRUN" -n wf.yaml a
	[ "$(labels "$output")" = "# 'a'," ]
	run "$WFRUN" -n wf.yaml ./a
	[ "$(labels "$output")" = "# 'b'," ]
}

@test "a target that names nothing is an error with a suggestion" {
	pipeline
	run "$WFRUN" -n proj/wf.yaml proj/out/calls/S9.vcf
	[ "$status" -eq 2 ]
	[ "$output" = "wfrun: error: target 'proj/out/calls/S9.vcf' names nothing in proj/wf.yaml: no task has that name, and none writes $PWD/proj/out/calls/S9.vcf; did you mean 'proj/out/calls/S1.vcf'?" ]
	run "$WFRUN" proj/wf.yaml allign
	[ "$status" -eq 2 ]
	[[ "$output" == *"none writes $PWD/allign; did you mean 'align'?" ]]
	# relative to the workdir instead of here: the right spelling
	run "$WFRUN" proj/wf.yaml calls/S2.vcf
	[ "$status" -eq 2 ]
	[[ "$output" == *"did you mean 'proj/out/calls/S2.vcf'? (a target path is relative to the current directory, not the workdir)" ]]
	run "$WFRUN" proj/wf.yaml proj/data/ref.txt
	[ "$status" -eq 2 ]
	[[ "$output" == *"none writes $PWD/proj/data/ref.txt (a workflow input, which no task makes)" ]]
	run "$WFRUN" proj/wf.yaml 'call[s=S9]'
	[ "$status" -eq 2 ]
	[ "$output" = "wfrun: error: target 'call[s=S9]': no instance of task 'call' has s=S9" ]
	run "$WFRUN" proj/wf.yaml 'call[x=S1]'
	[ "$status" -eq 2 ]
	[[ "$output" == *"task 'call' has no foreach key 'x'"* ]]
	run "$WFRUN" proj/wf.yaml --until cal
	[ "$status" -eq 2 ]
	[ "$output" = "wfrun: error: --until: proj/wf.yaml has no task named 'cal'; did you mean 'call'?" ]
	# nothing ran, nothing was made
	[ ! -e proj/out ]
}

@test "--until runs the program up to a task's instances, nothing after" {
	pipeline
	run "$WFRUN" -n --until align proj/wf.yaml
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "# 5 of them left out: not needed by what is asked for" ]
	[ "$(labels "$output")" = "# 'index',# 'align' (s=S1),# 'align' (s=S2),# 'align' (s=S3)," ]
	# with a target: what it needs among those
	run "$WFRUN" -n --until align proj/wf.yaml proj/out/merged.txt
	[ "$(labels "$output")" = "# 'index',# 'align' (s=S1),# 'align' (s=S2),# 'align' (s=S3)," ]
	run "$WFRUN" --until call proj/wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"7 tasks done in "*"s, 2 left out (not asked for)" ]]
	[ -e proj/out/calls/S3.vcf ]
	[ ! -e proj/out/side.txt ]
}

@test "a failure among the targets: the tasks left out are not counted as not run or cancelled" {
	pipeline
	sed -i 's/cat {in.bam} > {out.vcf}/cat {in.bam} > {out.vcf}; test {s} != S2/' proj/wf.yaml
	run "$WFRUN" -k proj/wf.yaml proj/out/calls side
	[ "$status" -eq 1 ]
	[[ "$output" == *"1 task failed, 7 done, 0 not run, 1 left out (not asked for), in "* ]]
	[ ! -e proj/out/merged.txt ]
	# merge, needed, is not run; side, not needed, is left out
	run "$WFRUN" proj/wf.yaml proj/out/merged.txt
	[ "$status" -eq 1 ]
	[[ "$output" == *"1 task failed, 0 done, 1 not run, 1 left out (not asked for), 6 up to date, in "* ]]
}

@test "an input updated in place by a task left out is put back only for a reader that runs" {
	echo orig >data.txt
	wf <<'EOF2'
tasks:
  - name: read
    in: {d: data.txt}
    out: {r: r.txt}
    run: "cp {in.d} {out.r}"
  - name: update
    inout: {d: data.txt}
    run: "echo u >> {inout.d}"
  - name: other
    out: {o: o.txt}
    run: "echo o > {out.o}"
EOF2
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat data.txt)" = "$(printf 'orig\nu')" ]
	# other runs again; the update is left out and no reader runs: the
	# input keeps its update
	rm o.txt
	run "$WFRUN" wf.yaml o.txt
	[ "$status" -eq 0 ]
	[ "$(cat data.txt)" = "$(printf 'orig\nu')" ]
	[[ "$output" != *"put back"* ]]
	# the reader runs again: it reads the input as it was
	rm r.txt
	run "$WFRUN" wf.yaml r.txt
	[ "$status" -eq 0 ]
	[ "$(cat r.txt)" = orig ]
	[[ "$output" == *"put back the original of data.txt"* ]]
	# and a full run then applies the update once
	run "$WFRUN" -q wf.yaml
	[ "$(cat data.txt)" = "$(printf 'orig\nu')" ]
}

@test "a task that runs reads a file as its writer left it, though a later task changed it since" {
	wf <<'EOF2'
vars: {v: 1}
tasks:
  - name: make
    out: {x: x.txt}
    run: "echo made > {out.x}"
  - name: read
    in: {x: x.txt}
    out: {r: r.txt}
    run: "cat {in.x} > {out.r}; echo {v} >> {out.r}"
  - name: update
    inout: {x: x.txt}
    run: "echo updated >> {inout.x}"
  - name: overwrite
    out: {x: y.txt}
    run: "echo new > {out.x}"
EOF2
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat r.txt)" = "$(printf 'made\n1')" ]
	# asked for alone, read runs again: make too, or read would see the
	# update of the task left out
	rm r.txt
	run "$WFRUN" -n --reason wf.yaml r.txt
	[ "${lines[2]}" = "# 'make': 'read', which runs, reads what it wrote, which is no longer as it left it" ]
	run "$WFRUN" wf.yaml r.txt
	[ "$status" -eq 0 ]
	[ "$(cat r.txt)" = "$(printf 'made\n1')" ]
	[ "$(cat x.txt)" = made ]
	run "$WFRUN" -q wf.yaml
	[ "$(cat x.txt)" = "$(printf 'made\nupdated')" ]
	# the same in a whole run, when a later task overwrote it and read's
	# command changed
	sed '1a workdir: w2' wf.yaml |
		sed 's/inout: {x: x.txt}/out: {x: x.txt}/; s/echo updated >> {inout.x}/echo other > {out.x}/' >w2.yaml
	run "$WFRUN" -q w2.yaml
	[ "$status" -eq 0 ]
	[ "$(cat w2/x.txt)" = other ]
	sed -i 's/v: 1/v: 2/' w2.yaml
	run "$WFRUN" -q w2.yaml
	[ "$status" -eq 0 ]
	[ "$(cat w2/r.txt)" = "$(printf 'made\n2')" ]
	[ "$(cat w2/x.txt)" = other ]
}

@test "targets through a symbolic link to the project name its files all the same" {
	pipeline
	mv proj real
	ln -s real proj
	# the workflow named through the link, the target from the real path
	cd real
	run "$WFRUN" -n "$BATS_TEST_TMPDIR/proj/wf.yaml" out/side.txt
	[ "$status" -eq 0 ]
	[ "$(labels "$output")" = "# 'index',# 'align' (s=S1),# 'side'," ]
	# and the reverse
	run "$WFRUN" -n wf.yaml "$BATS_TEST_TMPDIR/proj/out/side.txt"
	[ "$status" -eq 0 ]
	[ "$(labels "$output")" = "# 'index',# 'align' (s=S1),# 'side'," ]
}
