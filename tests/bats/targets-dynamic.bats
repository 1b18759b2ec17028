#!/usr/bin/env bats
# Targets that name what a task expanded during the run writes (issue 20,
# wfrun(1) targets, wfrun-workflow(5) DYNAMIC): the file, a directory, the
# task by name; -n shows the pending tasks a target needs; a target no
# task can write is refused; a rerun does only what the target lacks.
load helper

# wf.yaml: cut writes parts/; size, expanded once it has, counts the
# lines of each part; stamp needs nothing; sum adds the sizes up.
parts() {
	seq 1 5 >input.txt
	wf <<'EOF2'
tasks:
  - {name: cut, in: {text: input.txt}, out: {parts: {dir: parts}},
     run: "split -l 2 {in.text} {out.parts}/p"}
  - {name: size, foreach: {p: {glob: "parts/p*"}}, in: {part: "{p}"},
     out: {n: "sizes/{p}"}, run: "wc -l < {in.part} > {out.n}"}
  - {name: stamp, out: {o: stamp.txt}, run: "echo stamped > {out.o}"}
  - {name: sum, in: {all: {dir: sizes}}, out: {total: total.txt},
     run: "cat {in.all}/parts/* | paste -sd+ | bc > {out.total}"}
EOF2
}

@test "calling.yaml: a vcf target runs S1's chain only; a rerun runs nothing; without S1's vcf, only S1's calls and gather" {
	command -v bcftools >/dev/null || { echo "bcftools is not installed: apt-get install -y bwa samtools bcftools dwgsim" >&2; return 1; }
	cp -r "$WFRUN_TOP/workflows/data" .
	sed 's/^  regions: 4 /  regions: 2 /; s/^  ref_len: 20000 /  ref_len: 8000 /' "$WFRUN_TOP/workflows/calling.yaml" >calling.yaml
	grep -q '^  regions: 2 ' calling.yaml
	run "$WFRUN" -n calling.yaml out-calling/vcf/S1.vcf.gz
	[ "$status" -eq 0 ]
	[ "$(grep "^# '" <<<"$output" | tr '\n' ,)" = "# 'make-reference',# 'index',# 'regions',# 'simulate' (s=S1),# 'align' (s=S1),# 'sort' (s=S1),# 'call' pending: expanded after 'regions' writes regions (for target 'out-calling/vcf/S1.vcf.gz'),# 'gather' pending: expanded after 'regions' writes regions (for target 'out-calling/vcf/S1.vcf.gz')," ]
	[[ "$output" == *"# 6 of them left out: not needed by what is asked for"* ]]
	run "$WFRUN" -j 2 calling.yaml out-calling/vcf/S1.vcf.gz
	[ "$status" -eq 0 ]
	[[ "$output" == *"wfrun: 9 tasks done in "*", 16 left out (not asked for)" ]]
	[ "$(trace_col name out-calling/.wfrun/trace.tsv | sort | uniq -c | awk '{ printf "%s=%s,", $2, $1 }')" = "align=1,call=2,gather=1,index=1,make-reference=1,regions=1,simulate=1,sort=1," ]
	[ "$(trace_col tag out-calling/.wfrun/trace.tsv | grep -c S2)" -eq 0 ]
	[ -s out-calling/vcf/S1.vcf.gz ]
	[ ! -e out-calling/vcf/S2.vcf.gz ]
	[ ! -e out-calling/bam/S2.bam ]
	[ ! -e out-calling/summary.txt ]
	run "$WFRUN" calling.yaml out-calling/vcf/S1.vcf.gz
	[ "$status" -eq 0 ]
	[[ "$output" == *"wfrun: 0 tasks done in "*", 16 left out (not asked for), 9 up to date" ]]
	rm out-calling/vcf/S1.vcf.gz
	run "$WFRUN" calling.yaml out-calling/vcf/S1.vcf.gz
	echo "$output" # (shown if it fails)
	[ "$status" -eq 0 ]
	[[ "$output" == *"wfrun: 3 tasks done in "*", 16 left out (not asked for), 6 up to date" ]]
	[ "$(trace_col tag out-calling/.wfrun/trace.tsv | tail -n 3 | sort | tr '\n' ' ')" = "s=S1 s=S1,r=regions/r001 s=S1,r=regions/r002 " ]
	[ -s out-calling/vcf/S1.vcf.gz ]
	[ ! -e out-calling/vcf/S2.vcf.gz ]
}

@test "a directory, a task name and an instance of a pending task are targets; -n says which target a pending task is for" {
	parts
	run "$WFRUN" -n wf.yaml stamp.txt
	[ "$status" -eq 0 ]
	[ "$(grep "^# '" <<<"$output" | tr '\n' ,)" = "# 'cut',# 'stamp' pending: expanded after 'cut' writes parts (for target 'stamp.txt')," ]
	run "$WFRUN" wf.yaml stamp.txt
	[ "$status" -eq 0 ]
	[[ "$output" == *"wfrun: 2 tasks done in "*", 4 left out (not asked for)" ]]
	[ -e stamp.txt ]
	[ ! -e sizes ]
	rm -rf stamp.txt parts .wfrun
	run "$WFRUN" wf.yaml sizes
	[ "$status" -eq 0 ]
	[[ "$output" == *"wfrun: 4 tasks done in "*", 2 left out (not asked for)" ]]
	[ "$(ls sizes/parts | tr '\n' ' ')" = "paa pab pac " ]
	[ ! -e total.txt ]
	[ ! -e stamp.txt ]
	rm -rf sizes parts .wfrun
	run "$WFRUN" wf.yaml 'size[p=parts/pab]'
	[ "$status" -eq 0 ]
	[[ "$output" == *"wfrun: 2 tasks done in "*", 4 left out (not asked for)" ]]
	[ "$(ls sizes/parts)" = pab ]
	run "$WFRUN" wf.yaml sum
	[ "$status" -eq 0 ]
	[[ "$output" == *"wfrun: 3 tasks done in "*", 1 left out (not asked for), 2 up to date" ]]
	[ "$(cat total.txt)" = 5 ]
	[ ! -e stamp.txt ]
}

@test "a target no task, pending or not, can write is refused with a suggestion" {
	parts
	run "$WFRUN" -n wf.yaml stamp.tx
	[ "$status" -eq 2 ]
	[ "$output" = "wfrun: error: target 'stamp.tx' names nothing in wf.yaml: no task has that name, and none writes $PWD/stamp.tx, nor may the tasks from 'size' on, expanded during the run (wfrun-workflow(5), DYNAMIC); did you mean 'stamp'?" ]
	run "$WFRUN" wf.yaml 'size[x=1]'
	[ "$status" -eq 2 ]
	[ "$output" = "wfrun: error: target 'size[x=1]': task 'size' has no foreach key 'x' (write size[KEY=VALUE,...])" ]
	[ ! -e parts ]
}

# A repeat block expands its next iteration once the last one has run,
# all of it: a target made by a later iteration needs every task of the
# first, even one (note) that nothing of the target reads.
@test "a target written by a later iteration of a repeat block runs the iterations up to it" {
	wf <<'EOF2'
tasks:
  - {name: seed, out: {v: v0.txt}, run: "echo 5 > {out.v}"}
  - repeat:
      max: 9
      until: "test $(cat v{iter}.txt) -le 2"
      tasks:
        - {name: dec, in: {p: "v{prev}.txt"}, out: {v: "v{iter}.txt"},
           run: "expr $(cat {in.p}) - 1 > {out.v}"}
        - {name: note, in: {v: "v{iter}.txt"}, out: {l: "log/{iter}.txt"},
           run: "echo {iter} > {out.l}"}
  - {name: all, out: {r: all.txt}, run: "cat {in.all} > {out.r}",
     in: {all: {list: "{f}", foreach: {f: {glob: "log/*.txt"}}}}}
EOF2
	run "$WFRUN" wf.yaml v2.txt
	[ "$status" -eq 0 ]
	[[ "$output" == *"wfrun: 7 tasks done in "*", 1 left out (not asked for)" ]]
	[ "$(cat v2.txt)" = 3 ]
	[ "$(ls log | tr '\n' ' ')" = "1.txt 2.txt 3.txt " ]
	[ ! -e all.txt ]
}

# res/{c}/{i}.txt and the target res/parts/p2/3.txt: {c} could take
# "parts" and {i} "p2/3" but for their values, a path its glob matches
# and an integer: both keys are carried to what work reads.
@test "a pending task's keys are carried from a target whose placeholders could split two ways" {
	wf <<'EOF2'
tasks:
  - {name: gen, foreach: {i: "1..4"}, out: {o: "raw/{i}.txt"},
     run: "echo {i} > {out.o}"}
  - {name: mk, out: {d: {dir: parts}}, run: "touch {out.d}/p1 {out.d}/p2"}
  - {name: work, foreach: {c: {glob: "parts/p*"}, i: "1..4"},
     in: {a: "{c}", r: "raw/{i}.txt"}, out: {o: "res/{c}/{i}.txt"},
     run: "cat {in.a} {in.r} > {out.o}"}
EOF2
	run "$WFRUN" -n wf.yaml res/parts/p2/3.txt
	[ "$status" -eq 0 ]
	[ "$(grep "^# '" <<<"$output" | tr '\n' ,)" = "# 'gen' (i=3),# 'mk',# 'work' pending: expanded after 'mk' writes parts (for target 'res/parts/p2/3.txt')," ]
	run "$WFRUN" wf.yaml res/parts/p2/3.txt
	[ "$status" -eq 0 ]
	[[ "$output" == *"wfrun: 3 tasks done in "*", 10 left out (not asked for)" ]]
	[ "$(ls raw)" = 3.txt ]
	[ "$(ls res/parts)" = p2 ]
	[ "$(ls res/parts/p2)" = 3.txt ]
}
