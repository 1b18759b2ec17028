#!/usr/bin/env bats
# Dynamic fan-out (wfrun-workflow(5), DYNAMIC): a foreach over a glob of
# what an earlier task writes is expanded once that task has run.
load helper

# split makes an unknown number of chunks; count runs once per chunk;
# gather reads every count through a list collection over a glob (itself
# expanded once the counts are made); other depends on none of them.
scatter() {
	seq 1 "${1:-7}" >input.txt
	wf <<'EOF2'
tasks:
  - name: split
    in: {src: input.txt}
    out: {d: {dir: chunks}}
    run: "mkdir -p {out.d} && split -l 2 {in.src} {out.d}/part- && if [ -e split-fails ]; then exit 3; fi"
  - name: count
    foreach: {c: {glob: "chunks/part-*"}}
    in: {f: "{c}"}
    out: {n: "counts/{c}.n"}
    run: "wc -l < {in.f} > {out.n}; if [ -e slow ]; then case {c} in *aa) ;; *) sleep 30;; esac; fi"
  - name: gather
    in: {all: {list: "{n}", foreach: {n: {glob: "counts/chunks/*.n"}}}}
    out: {total: total.txt}
    run: "cat {in.all} | paste -sd+ | bc > {out.total}"
  - name: other
    out: {o: other.txt}
    run: "echo independent > {out.o}"
EOF2
}

# nothing_to_do N: -n and a run find every stage and its N tasks up to
# date, and nothing of them changed.
nothing_to_do() {
	run "$WFRUN" -n --reason wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"# $1 of them up to date: not run"* ]]
	[[ "$output" != *pending* ]]
	[[ "$output" != *changed* ]]
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"0 tasks done"*"$1 up to date"* ]]
}

@test "a scatter into chunks the split makes, then a gather over them" {
	scatter 7
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat total.txt)" = 7 ]
	[ "$(cat other.txt)" = independent ]
	[ "$(ls counts/chunks | wc -l)" -eq 4 ]
	run trace_col name
	[ "$(grep -c '^count' <<<"$output")" -eq 4 ]
	[ "${#lines[@]}" -eq 7 ]
	grep -q '"ev":"expanded","name":"count","tasks":4' .wfrun/events.jsonl
	grep -q '"ev":"expanded","name":"gather","tasks":1' .wfrun/events.jsonl
	# another number of chunks: another number of instances
	rm -r chunks counts
	seq 1 11 >input.txt
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat total.txt)" = 11 ]
	[ "$(ls counts/chunks | wc -l)" -eq 6 ]
}

@test "check and -n show the tasks of a later stage as pending, with why" {
	scatter 7
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"task instances: 1"* ]]
	[[ "$output" == *"count  pending: expanded after 'split' writes chunks"* ]]
	[[ "$output" == *"other  pending: expanded after 'split' writes chunks"* ]]
	run "$WFRUN" -n wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"# 'split'"* ]]
	[[ "$output" == *"# 'count' pending: expanded after 'split' writes chunks"* ]]
	[[ "$output" == *"# 'gather' pending: expanded after 'split' writes chunks"* ]]
	[ ! -e chunks ]
}

@test "sim says which tasks it does not simulate" {
	scatter 7
	printf 'task %s seconds 1\n' split count gather other >m.txt
	run "$WFRUN" sim -m m.txt wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"warning: task 'count' and those after it are expanded after 'split' writes chunks: not simulated"* ]]
	[[ "$output" == *"makespan 1.000 s: 1 tasks"* ]]
}

@test "check finds an error in a pending task before anything runs" {
	scatter 7
	sed -i 's/wc -l < {in.f}/wc -l < {in.ff}/' wf.yaml
	run "$WFRUN" check wf.yaml
	[ "$status" -ne 0 ]
	[[ "$output" == *"in.ff"* ]]
	run "$WFRUN" -q wf.yaml
	[ "$status" -ne 0 ]
	[ ! -e chunks ]
}

@test "after a complete run, every stage is expanded from disk and up to date" {
	scatter 7
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	nothing_to_do 7
	# recorded as nothing to do; the trace stays the last real run's
	run "$WFRUN" log
	[[ "${lines[-1]}" == *"nothing to do (exit 0)" ]]
	[ "$(trace_col name | wc -l)" -gt 0 ]
	# a chunk's count lost: it alone and the gather run again
	rm counts/chunks/part-ab.n
	run "$WFRUN" -n wf.yaml
	[[ "$output" == *"# 4 of them up to date: not run"* ]]
	[[ "$output" == *"# 'count' (c=chunks/part-ab)"* ]]
	[[ "$output" == *"# 'gather' pending: expanded after 'count' (c=chunks/part-ab) writes counts/chunks"* ]]
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	run trace_col name
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = "count" ]
	[ "${lines[1]}" = "gather" ]
}

@test "a run killed after the split resumes with what is missing only" {
	scatter 7
	touch slow
	"$WFRUN" -q -j 4 wf.yaml 3>&- &
	pid=$!
	for _ in $(seq 200); do
		grep -q 'part-aa' .wfrun/journal 2>/dev/null && break
		sleep 0.05
	done
	grep -q 'part-aa' .wfrun/journal
	kill -9 "$pid"
	wait "$pid" || true
	rm slow
	run "$WFRUN" -n wf.yaml
	[[ "$output" != *"# 'split'"* ]]
	[[ "$output" != *"(c=chunks/part-aa)"* ]]
	[[ "$output" == *"(c=chunks/part-ab)"* ]]
	run "$WFRUN" -q -j 4 wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat total.txt)" = 7 ]
	run trace_col name
	[[ "$output" != *split* ]]
	[ "$(grep -c '^count' <<<"$output")" -eq 3 ]
	[ "$(trace_col tag | grep -c 'part-aa')" -eq 0 ]
}

@test "a split that fails: its stage is never expanded, its tasks not run" {
	scatter 7
	touch split-fails
	run "$WFRUN" wf.yaml
	[ "$status" -eq 1 ]
	[[ "$output" == *"not expanded, so not run: count, gather, other (expanded after 'split' writes chunks)"* ]]
	[ ! -e counts ]
	[ ! -e other.txt ]
	run trace_col name
	[ "$output" = split ]
	run grep -c '"ev":"expanded"' .wfrun/events.jsonl
	[ "$output" = 0 ]
}

@test "a split into no chunk: the glob's error when the stage comes, nothing of it runs" {
	scatter 7
	: >input.txt
	# a task before the stage that ends after it failed to expand, and
	# that a task of the stage waits for
	sed -i 's/^tasks:$/tasks:\n  - name: slow\n    out: {s: slow.txt}\n    run: "sleep 1; echo > {out.s}"/' wf.yaml
	sed -i 's/^    out: {o: other.txt}$/    in: {s: slow.txt}\n    out: {o: other.txt}/' wf.yaml
	grep -q 'in: {s: slow.txt}' wf.yaml
	run "$WFRUN" -k wf.yaml
	[ "$status" -eq 1 ]
	[[ "$output" == *"not expanded, so not run: count, gather, other (see the errors above)"* ]]
	[[ "$output" == *"wf.yaml:10:"*"glob 'chunks/part-*' matches no file"* ]]
	[ ! -e other.txt ]
	[ "$(trace_col name | sort | tr '\n' ' ')" = "slow split " ]
}

@test "-k: a failure the stage does not depend on lets it expand and run" {
	scatter 7
	sed -i 's/^tasks:$/tasks:\n  - name: bad\n    out: {b: bad.txt}\n    run: "exit 2"/' wf.yaml
	run "$WFRUN" -k wf.yaml
	[ "$status" -eq 1 ]
	[ "$(cat total.txt)" = 7 ]
	[ "$(cat other.txt)" = independent ]
	run trace_col status
	[ "$(grep -c -v COMPLETED <<<"$output")" -eq 1 ]
}

@test "a stage is expanded when its writer has run, not when all before it have" {
	scatter 7
	sed -i 's/^tasks:$/tasks:\n  - name: slow\n    out: {s: slow.txt}\n    run: "sleep 2; echo > {out.s}"/' wf.yaml
	run "$WFRUN" -q -j 4 wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat total.txt)" = 7 ]
	# the gather (two stages after the split) ended before slow did
	run awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		{ e[$h["name"]] = $h["complete"] }
		END { print (e["gather"] < e["slow"]) ? "before" : "after" }' .wfrun/trace.tsv
	[ "$output" = before ]
}

@test "-j runs the chunks side by side" {
	scatter 7
	sed -i 's/wc -l < {in.f} > {out.n};/wc -l < {in.f} > {out.n}; sleep 1;/' wf.yaml
	run "$WFRUN" -q -j 4 wf.yaml
	[ "$status" -eq 0 ]
	# every count started before any ended
	run awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$h["name"] == "count" { s = $h["start"]; e = $h["complete"];
			if (s > ms) ms = s; if (me == "" || e < me) me = e }
		END { print (ms < me) ? "overlap" : "serial" }' .wfrun/trace.tsv
	[ "$output" = overlap ]
}

@test "a stage writing into the directory the split made leaves the split up to date" {
	scatter 5
	# count writes into chunks/, which split writes whole
	sed -i 's|out: {n: "counts/{c}.n"}|out: {n: "chunks/n/{c}.n"}|; /^  - name: gather$/,$d' wf.yaml
	grep -q 'chunks/n/' wf.yaml
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	nothing_to_do 4
	# the split runs again (its input changed): the stage waits for it
	seq 1 9 >input.txt
	run "$WFRUN" -n wf.yaml
	[[ "$output" == *"# 'count' pending: expanded after 'split' writes chunks"* ]]
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(ls chunks/n/chunks | wc -l)" -eq 5 ]
}

@test "foreach over the lines of a file: read at load, or once the task writing it has run" {
	printf 'a\n\nb\r\n' >given.txt
	wf <<'EOF2'
tasks:
  - name: early
    foreach: {s: {lines: given.txt}}
    out: {o: "early/{s}"}
    run: "echo {s} > {out.o}"
  - name: list
    run: "cat {in.g} > {out.l}; echo c >> {out.l}"
    in: {g: given.txt}
    out: {l: samples.txt}
  - name: per
    foreach: {s: {lines: samples.txt}}
    out: {o: "out/{s}.txt"}
    run: "echo {s} > {out.o}"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"  per   pending: expanded after 'list' writes samples.txt"* ]]
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(ls out | tr '\n' ' ')" = "a.txt b.txt c.txt " ]
	[ "$(ls early | tr '\n' ' ')" = "a b " ]
	run "$WFRUN" wf.yaml
	[[ "$output" == *"0 tasks done"*"6 up to date"* ]]
	sed -i 's/lines: given.txt/lines: nosuch.txt/' wf.yaml
	run "$WFRUN" check wf.yaml
	[ "$status" -ne 0 ]
	[[ "$output" == *"foreach 's' of task 'early': cannot read the lines of 'nosuch.txt': No such file or directory"* ]]
}

# A temp file may be read by tasks of a stage not expanded yet: it stays
# until the end of the run, then goes.
@test "a temp file read by a later stage stays until that stage has run" {
	seq 1 5 >input.txt
	wf <<'EOF2'
tasks:
  - name: prep
    in: {src: input.txt}
    out: {ref: {temp: ref.txt}}
    run: "sed s/^/r/ {in.src} > {out.ref}"
  - name: split
    in: {ref: ref.txt}
    out: {d: {dir: chunks}}
    run: "mkdir -p {out.d} && split -l 2 {in.ref} {out.d}/part-"
  - name: count
    foreach: {c: {glob: "chunks/part-*"}}
    in: {f: "{c}", ref: ref.txt}
    out: {n: "counts/{c}.n"}
    run: "cat {in.f} {in.ref} | wc -l > {out.n}"
EOF2
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat counts/chunks/part-aa.n)" = 7 ]
	[ "$(cat counts/chunks/part-ac.n)" = 6 ]
	[ ! -e ref.txt ]
}

# Targets and --until (wfrun(1), Asking for part of the work) with a
# stage: what a stage appends runs only when what is asked needs it.
@test "targets and --until leave out what a stage appends unless asked for" {
	scatter 5
	run "$WFRUN" wf.yaml nosuch.txt
	[ "$status" -eq 2 ]
	[[ "$output" == *"none writes $PWD/nosuch.txt, nor may the tasks from 'count' on, expanded during the run"* ]]
	run "$WFRUN" wf.yaml chunks
	[ "$status" -eq 0 ]
	[ -e chunks/part-aa ]
	[ ! -e counts ]
	[ ! -e other.txt ]
	[[ "$output" == *"left out (not asked for)"* ]]
	run "$WFRUN" --until count wf.yaml
	[ "$status" -eq 0 ]
	[ -e counts/chunks/part-ac.n ]
	[ ! -e total.txt ]
	[[ "$output" == *"left out (not asked for)"* ]]
	run "$WFRUN" -n --until count wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"left out: not needed by what is asked for"* ]]
	[[ "$output" != *gather* ]]
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat total.txt)" = 5 ]
	run "$WFRUN" -n wf.yaml split
	[ "$status" -eq 0 ]
	[[ "$output" == *"up to date: not run"* ]]
	[[ "$output" != *"count"* ]]
}

# Temp files written by a stage's tasks go at the end of the run that
# wrote them (they were not known when the run counted readers).
@test "temp files written in a stage are removed by the run that writes them" {
	wf <<'EOF2'
tasks:
  - name: split
    out: {d: {dir: chunks}}
    run: "mkdir -p {out.d} && echo a > {out.d}/c1 && echo b > {out.d}/c2"
  - name: up
    foreach: {c: {glob: "chunks/c*"}}
    in: {i: "{c}"}
    out: {o: {temp: "tmp/{c}.up"}}
    run: "tr a-z A-Z < {in.i} > {out.o}"
  - name: gather
    in: {all: {list: "tmp/{c}.up", foreach: {c: {glob: "chunks/c*"}}}}
    out: {t: total.txt}
    run: "cat {in.all} > {out.t}"
EOF2
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat total.txt | tr -d '\n')" = AB ]
	[ -z "$(ls tmp/chunks)" ]
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"0 tasks done"*"4 up to date"* ]]
	[[ "$output" != *removed* ]]
}

# A glob with captures ({glob: "regions/{r}.txt"}) over what an earlier
# task writes waits for it as a plain glob does.
@test "a glob with a capture over what an earlier task writes is expanded at run time" {
	wf <<'EOF2'
tasks:
  - name: split
    out: {d: {dir: regions}}
    run: "mkdir -p {out.d} && echo a > {out.d}/chr1.txt && echo b > {out.d}/chr2.txt"
  - name: call
    foreach: {r: {glob: "regions/{r}.txt"}}
    in: {i: "{r.path}"}
    out: {o: "calls/{r}.vcf"}
    run: "tr a-z A-Z < {in.i} > {out.o}"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"call  pending: expanded after 'split' writes regions"* ]]
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat calls/chr1.vcf)" = A ]
	[ "$(cat calls/chr2.vcf)" = B ]
	run "$WFRUN" wf.yaml
	[[ "$output" == *"0 tasks done"*"3 up to date"* ]]
}

# split_count_gather COUNT: split input.txt into chunks of 2 lines, run
# COUNT once per chunk ({in.f} to {out.n}), and gather the counts
# through the split's own glob (wfrun-workflow(5), DYNAMIC).
split_count_gather() {
	wf <<EOF2
tasks:
  - name: split
    in: {src: input.txt}
    out: {d: {dir: chunks}}
    run: "split -l 2 {in.src} {out.d}/part-"
  - name: count
    foreach: {c: {glob: "chunks/part-*"}}
    in: {f: "{c}"}
    out: {n: "counts/{c}.n"}
    run: "$1"
  - name: gather
    in: {all: {list: "counts/{c}.n", foreach: {c: {glob: "chunks/part-*"}}}}
    out: {total: total.txt}
    run: "cat {in.all} | paste -sd+ | bc > {out.total}"
EOF2
}

@test "a split run again into fewer chunks: the old chunks go, the gather over the split's glob sees the new ones" {
	# (before, the chunks directory kept the old run's part-ad .. af
	# beside the new part-aa .. ac, and count and gather read them)
	seq 1 11 >input.txt
	split_count_gather "wc -l < {in.f} > {out.n}"
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat total.txt)" = 11 ]
	[ "$(ls chunks | wc -l)" -eq 6 ]
	seq 1 5 >input.txt
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(ls chunks | tr '\n' ' ')" = "part-aa part-ab part-ac " ]
	[ "$(cat total.txt)" = 5 ]
	grep -q '"ev":"expanded","name":"count","tasks":3' .wfrun/events.jsonl
}

@test "a run killed after the split made new chunks and before they were counted: the next run counts them" {
	# (before, the split was up to date and so was each count, whose
	# record was of the old chunk: the total stayed the old one)
	seq 1 5 >input.txt
	split_count_gather "if [ -e hang ]; then touch hung; sleep 300.323; fi; paste -sd+ {in.f} | bc > {out.n}"
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat total.txt)" = 15 ]
	seq 11 15 >input.txt
	touch hang
	killed_when_hung -j 1 wf.yaml
	rm hang
	run "$WFRUN" -n --reason wf.yaml
	[[ "$output" == *"# 'count' (c=chunks/part-ab): its input 'f' (chunks/part-ab) changed"* ]]
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat total.txt)" = 65 ]
	run "$WFRUN" wf.yaml
	[[ "$output" == *"0 tasks done"*"5 up to date"* ]]
}
