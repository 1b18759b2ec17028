#!/usr/bin/env bats
# wfrun list (and --list): the tasks of a workflow, their instances and
# what each reads and writes; --names, one name a line, for completion.
load helper

small() {
	mkdir -p reads
	touch reads/S1.fq reads/S2.fq
	wf <<'EOF2'
name: demo
vars: {n: 2}
tasks:
  - name: index
    in: {ref: ref.fa}
    out: {idx: {dir: idx}}
    run: "true"
  - name: align
    foreach: {s: {glob: "reads/*.fq"}, k: "1..{n}"}
    in: {idx: {dir: idx, depth: 2}, fq: "{s}"}
    out: {bam: "bam/{k}.bam"}
    inout: {log: log.txt}
    run: "true"
  - name: merge
    in: {bams: {list: "bam/{k}.bam", foreach: {k: "1..{n}"}}}
    out: {m: merged.bam}
    run: "true"
EOF2
	touch ref.fa log.txt
}

@test "list: one block per task, in program order, with instances and data" {
	small
	run "$WFRUN" list wf.yaml
	[ "$status" -eq 0 ]
	diff -u - <(printf '%s\n' "$output") <<EOF2
# workflow 'demo': 3 tasks, 6 instances, run in $PWD

index: 1 instance
  in    ref  ref.fa
  out   idx  {dir: idx}

align: 4 instances (foreach s, k)
  in    idx  {dir: idx, depth: 2}
  in    fq   {s}
  out   bam  bam/{k}.bam
  inout log  log.txt

merge: 1 instance
  in    bams  {list: bam/{k}.bam, foreach k}
  out   m     merged.bam
EOF2
	# --list is the same
	run "$WFRUN" --list wf.yaml
	[ "$status" -eq 0 ]
	[ "$output" = "$("$WFRUN" list wf.yaml)" ]
}

@test "list --names: one task name a line, even of a file with errors" {
	small
	run "$WFRUN" list --names wf.yaml
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'index\nalign\nmerge')" ]
	wf bad.yaml <<'EOF2'
tasks:
  - name: first
    run: "true"
  - name: second
    rn: "true"
EOF2
	run --separate-stderr "$WFRUN" list --names bad.yaml
	[ "$status" -eq 2 ]
	[ "$output" = "$(printf 'first\nsecond')" ]
	[[ "$stderr" == *"bad.yaml:5:5: error: unknown key 'rn'"* ]]
}

@test "list checks the workflow first; --list takes no targets" {
	small
	rm ref.fa
	run "$WFRUN" list wf.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"ref.fa"* ]]
	[[ "$output" != *"index: 1 instance"* ]]
	run "$WFRUN" list
	[ "$status" -eq 2 ]
	[[ "$output" == *"usage: wfrun list [--names] WORKFLOW.yaml"* ]]
	touch ref.fa
	run "$WFRUN" --list wf.yaml merge
	[ "$status" -eq 2 ]
	[ "$output" = "wfrun: error: --list takes one workflow file, not targets" ]
}
