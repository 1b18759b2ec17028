#!/usr/bin/env bats
# foreach over the rows of a sample sheet ({table: F}) and glob captures
# ({glob: "reads/{sample}_R1.fq"}), as a user writes them (issue 20).
load helper

# The last run's output is exactly stdin (a diff on stderr if not).
output_is() {
	local want
	want=$(cat)
	if [ "$output" != "$want" ]; then
		diff <(printf '%s\n' "$want") <(printf '%s\n' "$output") >&2
		return 1
	fi
}

# A TSV sheet of three samples and their reads.
sheet() {
	mkdir -p reads
	printf '# samples of the run\nsample\ttype\tfastq_1\n\n' >samples.tsv
	for s in S1:tumor S2:normal S3:tumor; do
		printf '%s\t%s\treads/%s_R1.fq\n' "${s%%:*}" "${s#*:}" "${s%%:*}" \
			>>samples.tsv
		echo "reads of ${s%%:*}" >"reads/${s%%:*}_R1.fq"
	done
}

@test "a sample sheet drives a two-step pipeline, one instance per row" {
	sheet
	wf <<'EOF'
tasks:
  - name: align
    foreach: {s: {table: samples.tsv}}
    in: {fq: "{s.fastq_1}"}
    out: {bam: "bam/{s}.bam"}
    run: "echo {s.type} > {out.bam} && cat {in.fq} >> {out.bam}"
  - name: call
    foreach: {s: {table: samples.tsv}}
    in: {bam: "bam/{s}.bam"}
    out: {vcf: "vcf/{s}.vcf"}
    run: "wc -l < {in.bam} > {out.vcf}"
EOF
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"task instances: 6"* ]]
	run "$WFRUN" -n wf.yaml
	[ "$status" -eq 0 ]
	output_is <<OUT
# workflow 'wf': 6 tasks, run in $PWD
# 'align' (s=S1)
echo tumor > bam/S1.bam && cat reads/S1_R1.fq >> bam/S1.bam
# 'align' (s=S2)
echo normal > bam/S2.bam && cat reads/S2_R1.fq >> bam/S2.bam
# 'align' (s=S3)
echo tumor > bam/S3.bam && cat reads/S3_R1.fq >> bam/S3.bam
# 'call' (s=S1)
wc -l < bam/S1.bam > vcf/S1.vcf
# 'call' (s=S2)
wc -l < bam/S2.bam > vcf/S2.vcf
# 'call' (s=S3)
wc -l < bam/S3.bam > vcf/S3.vcf
OUT
	[ ! -e bam ]
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat bam/S2.bam)" = "normal
reads of S2" ]
	[ "$(cat vcf/S3.vcf)" = 2 ]
	run "$WFRUN" -v wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"6 of 6 tasks are up to date"* ]]
}

@test "where keeps the rows whose column holds a value, or one of a list" {
	sheet
	printf 'S4\tnormal\treads/S4_R1.fq\n' >>samples.tsv
	wf <<'EOF'
vars: {kind: tumor}
tasks:
  - name: t
    foreach: {s: {table: samples.tsv, where: {type: "{kind}"}}}
    run: "echo {s}"
  - name: n
    foreach: {s: {table: samples.tsv, where: {type: [normal, x], sample: [S4, S3]}}}
    run: "echo {s}"
  - name: f
    foreach: {s: {table: samples.tsv, key: fastq_1, where: {sample: S2}}}
    run: "echo {s} {s.sample}"
EOF
	run "$WFRUN" -n wf.yaml
	[ "$status" -eq 0 ]
	output_is <<OUT
# workflow 'wf': 4 tasks, run in $PWD
# 't' (s=S1)
echo S1
# 't' (s=S3)
echo S3
# 'n' (s=S4)
echo S4
# 'f' (s=reads/S2_R1.fq)
echo reads/S2_R1.fq S2
OUT
}

@test "a CSV sheet: quotes, a byte order mark, CRLF; each field is one word" {
	printf '\xef\xbb\xbfid,note,n\r\nA,"x, y",1\r\nB,"say ""hi""",2\r\n' >s.csv
	printf 'id\tnote\nC\t"as is"\n' >s.txt
	wf <<'EOF'
tasks:
  - name: a
    foreach: {r: {table: s.csv}}
    out: {o: "out/{r}.txt"}
    run: "printf '%s|' {r.note} {r.n} > {out.o}"
  - name: b
    foreach: {r: {table: s.txt, format: tsv}}
    run: "echo {r.note}"
  - {name: c, foreach: {r: {table: s.csv}}, run: "touch {r.note}"}
EOF
	run "$WFRUN" -n wf.yaml
	[ "$status" -eq 0 ]
	output_is <<OUT
# workflow 'wf': 5 tasks, run in $PWD
# 'a' (r=A)
printf '%s|' 'x, y' 1 > out/A.txt
# 'a' (r=B)
printf '%s|' 'say "hi"' 2 > out/B.txt
# 'b' (r=C)
echo '"as is"'
# 'c' (r=A)
touch 'x, y'
# 'c' (r=B)
touch 'say "hi"'
OUT
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat out/A.txt)" = "x, y|1|" ]
	[ "$(cat out/B.txt)" = 'say "hi"|2|' ]
	[ -e "x, y" ]
	[ -e 'say "hi"' ]
}

@test "a bad sheet is an error at its own line, saying what to do" {
	printf 'a,b\n1,2\n3\n' >ragged.csv
	printf 's\tt\nS1\tx\n\nS1\ty\n' >dup.tsv
	printf 's\t\tt\n' >hole.tsv
	printf 'a,b\n1,"open\n2,3\n' >quote.csv
	printf 's\tt\n\tx\n' >nokey.tsv
	{
		echo "tasks:"
		for t in ragged.csv dup.tsv hole.tsv quote.csv nokey.tsv; do
			printf '  - {name: %s, foreach: {r: {table: %s}}, run: "true"}\n' \
				"${t%.*}" "$t"
		done
	} >wf.yaml
	run "$WFRUN" wf.yaml
	[ "$status" -eq 2 ]
	output_is <<'OUT'
dup.tsv:4: error: key 'S1' (column 's') is that of line 2 too: foreach 'r' of task 'dup' takes one row per key; give each row a key of its own, drop a row, or name another column with key:
hole.tsv:1: error: the header's column 2 is empty; name every column (the first line that is not blank or a # comment is the header) (the table of foreach 'r' of task 'hole')
nokey.tsv:2: error: this row's key (column 's') is empty: foreach 'r' of task 'nokey' takes one row per key; give each row a key of its own, drop a row, or name another column with key:
quote.csv:2: error: a quoted field opens here and never closes; end it with ", and write "" for a quote inside it (the table of foreach 'r' of task 'quote')
ragged.csv:3: error: this row has 1 field, the header (line 1) 2; give every row one field per column (an empty field is two separators side by side) (the table of foreach 'r' of task 'ragged')
wfrun: 5 errors in wf.yaml; nothing was run
OUT
}

@test "a column the header lacks is an error at its name, with the closest column" {
	sheet
	mkdir -p sub
	wf sub/wf.yaml <<'EOF'
workdir: ..
tasks:
  - name: a
    foreach: {s: {table: samples.tsv, key: smaple, where: {typ: tumor}}}
    run: "true"
  - name: b
    foreach: {s: {table: samples.tsv}}
    run: "echo {s.fastq1}"
  - name: c
    foreach: {s: {table: missing.tsv}}
    run: "true"
  - name: d
    foreach: {i: "1..2", s: {table: "s{i}.tsv"}}
    run: "true"
  - name: e
    foreach: {s: {table: wf.yaml}}
    run: "true"
  - {name: f, foreach: {s: {table: samples.tsv}}, run: "echo {type}"}
  - {name: g, foreach: {i: [x], s: {table: samples.tsv, where: {type: "{i}"}}}, run: "true"}
EOF
	run "$WFRUN" check sub/wf.yaml
	[ "$status" -eq 2 ]
	output_is <<'OUT'
sub/wf.yaml:4:44: error: foreach 's' of task 'a': key column 'smaple': the table samples.tsv has no such column (its header, line 2: sample, type, fastq_1); did you mean 'sample'?
sub/wf.yaml:4:60: error: foreach 's' of task 'a': where column 'typ': the table samples.tsv has no such column (its header, line 2: sample, type, fastq_1); did you mean 'type'?
sub/wf.yaml:8:10: error: run of task 'b': {s.fastq1}: the table samples.tsv has no column 'fastq1'; did you mean {s.fastq_1}?
sub/wf.yaml:10:26: error: foreach 's' of task 'c': cannot read the table missing.tsv: No such file or directory (a table is read when the workflow is loaded, before any task runs)
sub/wf.yaml:13:37: error: foreach 's' of task 'd': a table's path may use vars, not foreach keys: the table is read once, when the workflow is loaded
sub/wf.yaml:16:26: error: foreach 's' of task 'e': is wf.yaml a TSV or a CSV table? Its name ends in neither .tsv, .tab nor .csv; add format: tsv or format: csv
sub/wf.yaml:18:56: error: run of task 'f': unknown placeholder {type}: no var or foreach key has that name; did you mean {s.type}?
sub/wf.yaml:19:65: error: foreach 's' of task 'g': a where value may use vars, not foreach keys: the table is read once, when the workflow is loaded
wfrun: 8 errors in sub/wf.yaml; nothing was run
OUT
}

@test "no task may write a table: its rows were taken before any task ran" {
	sheet
	wf <<'EOF'
tasks:
  - {name: a, foreach: {s: {table: samples.tsv}}, run: "echo {s}"}
  - {name: check, in: {t: samples.tsv}, run: "cat {in.t}"}
  - {name: fix, inout: {t: samples.tsv}, run: "true"}
EOF
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	output_is <<'OUT'
wf.yaml:4:25: error: task 'fix': inout parameter 't' writes 'samples.tsv', which is a table that a foreach reads; choose another path
wfrun: 1 error in wf.yaml; nothing was run
OUT
	sed -i '$d' wf.yaml
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
}

@test "a glob capture binds the name, not the path; a second name is a field" {
	mkdir -p reads
	touch reads/S1_L1_R1.fq reads/S1_L2_R1.fq reads/S2_L1_R1.fq \
		reads/S2_L1_R2.fq reads/_L1_R1.fq
	wf <<'EOF'
vars: {end: R1}
tasks:
  - name: one
    foreach: {sample: {glob: "reads/{sample}_*_{end}.fq"}}
    run: "echo {sample} {sample.path}"
  - name: two
    foreach: {s: {glob: "reads/{s}_{lane}_R1.fq"}}
    out: {o: "out/{s}.{s.lane}"}
    run: "echo {s.path} > {out.o}"
  - name: nokey
    foreach: {f: {glob: "reads/S2_{lane}_{end}.fq"}}
    run: "echo {f} {f.lane}"
EOF
	run "$WFRUN" -n wf.yaml
	[ "$status" -eq 0 ]
	output_is <<OUT
# workflow 'wf': 6 tasks, run in $PWD
# 'one' (sample=S1)
echo S1 reads/S1_L1_R1.fq
# 'one' (sample=S2)
echo S2 reads/S2_L1_R1.fq
# 'two' (s=S1,s.lane=L1)
echo reads/S1_L1_R1.fq > out/S1.L1
# 'two' (s=S1,s.lane=L2)
echo reads/S1_L2_R1.fq > out/S1.L2
# 'two' (s=S2,s.lane=L1)
echo reads/S2_L1_R1.fq > out/S2.L1
# 'nokey' (f=reads/S2_L1_R1.fq)
echo reads/S2_L1_R1.fq L1
OUT
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat out/S1.L2)" = "reads/S1_L2_R1.fq" ]
	run "$WFRUN" -v wf.yaml
	[[ "$output" == *"6 of 6 tasks are up to date"* ]]
}

@test "glob captures: wildcards and brackets around them, odd file names" {
	mkdir r
	touch 'r/a+b.x_L1.fq' 'r/c(d)_R1.fq' 'r/e_X1.fq' 'r/-h_L1.fq' \
		'r/i[1]_L1.fq'
	wf <<'EOF'
tasks:
  - {name: a, foreach: {s: {glob: "r/{s}_[!X]1.fq"}}, run: "echo {s.path}"}
  - {name: b, foreach: {s: {glob: "r/{s}[_]?1.f?"}}, run: "echo {s}"}
EOF
	run "$WFRUN" -n wf.yaml
	[ "$status" -eq 0 ]
	output_is <<OUT
# workflow 'wf': 9 tasks, run in $PWD
# 'a' (s=-h)
echo r/-h_L1.fq
# 'a' (s=a+b.x)
echo r/a+b.x_L1.fq
# 'a' (s=c(d))
echo 'r/c(d)_R1.fq'
# 'a' (s=i[1])
echo 'r/i[1]_L1.fq'
# 'b' (s=-h)
echo -h
# 'b' (s=a+b.x)
echo a+b.x
# 'b' (s=c(d))
echo 'c(d)'
# 'b' (s=e)
echo e
# 'b' (s=i[1])
echo 'i[1]'
OUT
}

@test "glob captures: a name twice must agree; errors name the capture" {
	mkdir -p d
	touch d/a_a.x d/a_b.x
	wf <<'EOF'
tasks:
  - {name: same, foreach: {k: {glob: "d/{k}_{k}.x"}}, run: "echo {k}"}
  - {name: bad, foreach: {k: {glob: "d/{k}_{j}.x"}}, run: "echo {k.jj}"}
  - {name: reserved, foreach: {k: {glob: "d/{path}.x"}}, run: "true"}
EOF
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	output_is <<'OUT'
wf.yaml:3:59: error: run of task 'bad': {k.jj}: the glob 'd/{k}_{j}.x' captures no 'jj'; did you mean {k.j}?
wf.yaml:4:32: error: foreach 'k' of task 'reserved': a glob cannot capture {path}: {k.path} is the whole path; choose another name
wfrun: 2 errors in wf.yaml; nothing was run
OUT
	sed -i '3,$d' wf.yaml
	run "$WFRUN" -n wf.yaml
	[ "$status" -eq 0 ]
	output_is <<OUT
# workflow 'wf': 1 task, run in $PWD
# 'same' (k=a)
echo a
OUT
}
