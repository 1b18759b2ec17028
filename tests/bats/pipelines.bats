#!/usr/bin/env bats
# The example pipelines of workflows/, run at tiny scale with the real
# tools (hmmer, bwa, samtools, bcftools, dwgsim; installed by
# .ci/install-deps), checking their real results.
load helper

@test "an input out of a workdir that the run creates is found (../data/x)" {
	mkdir data
	echo hi >data/in.txt
	wf <<'EOF2'
workdir: out
tasks:
  - name: copy
    in: {f: ../data/in.txt}
    out: {g: g.txt}
    run: "cp {in.f} {out.g}"
EOF2
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat out/g.txt)" = hi ]
}

# Copy workflow $1 and data/ here, with vars set from "key=value" args.
pipeline() {
	local f=$1
	shift
	cp -r "$WFRUN_TOP/workflows/data" .
	cp "$WFRUN_TOP/workflows/$f" .
	local kv
	for kv in "$@"; do
		sed -i "s/^  ${kv%%=*}: [^ ]*/  ${kv%%=*}: ${kv#*=}/" "$f"
		grep -q "^  ${kv%%=*}: ${kv#*=}\b" "$f" || { echo "no var ${kv%%=*} in $f" >&2; return 1; }
	done
}

@test "hmmer.yaml: every planted homolog found by its family; each result checkpointed" {
	command -v hmmsearch >/dev/null || { echo "hmmer is not installed: apt-get install -y hmmer" >&2; return 1; }
	pipeline hmmer.yaml families=5 background=60 seq_frags=3 db_frags=2
	run "$WFRUN" -q -j 2 hmmer.yaml
	[ "$status" -eq 0 ]
	cd out-hmmer
	[ "$(wc -l <data/planted.txt)" -eq 15 ]
	# every planted homolog, against its own family
	while read -r seq fam; do
		grep -q "^$seq $fam " hits.tbl || { echo "missing: $seq $fam" >&2; return 1; }
	done <data/planted.txt
	# and nothing of the random background
	run -1 grep -q '^bg' hits.tbl
	# hits come best first (E-value, column 3)
	sort -g -k3,3 -c hits.tbl
	# one search and one checkpoint per (sequence fragment, db fragment)
	[ "$(trace_col name | grep -cx search)" -eq 6 ]
	[ "$(paste <(trace_col name) <(trace_col kind) | grep -c '^checkpoint	io$')" -eq 6 ]
	for s in 0 1 2; do for d in 0 1; do
		cmp "results/s$s/d$d.tbl" "ckpt/s${s}_d$d.tbl"
	done; done
	[ "$(ls dbfrags | wc -l)" -eq 2 ]
}

@test "variants.yaml: the SNPs dwgsim planted are called, per sample; BAM and VCF checkpointed" {
	for t in bwa samtools bcftools dwgsim; do
		command -v $t >/dev/null || { echo "$t is not installed: apt-get install -y $t" >&2; return 1; }
	done
	pipeline variants.yaml samples=2 ref_len=15000 pairs=2500
	run "$WFRUN" -q -j 2 variants.yaml
	[ "$status" -eq 0 ]
	cd out-variants
	cat summary.txt
	[ "$(wc -l <summary.txt)" -eq 2 ]
	# each sample: at least 10 planted SNPs, 90% of them called, and at
	# most 10% of the calls not planted
	awk '$1 ~ /^S[12]$/ && $3 >= 10 && $7 >= 0.9 * $3 && $7 >= 0.9 * $5 { ok++ } END { exit ok != 2 }' summary.txt
	[ "$(bcftools query -l cohort.vcf.gz | tr '\n' ' ')" = "S1 S2 " ]
	for n in 1 2; do
		cmp "bam/S$n.bam" "ckpt/S$n.bam"
		cmp "vcf/S$n.vcf.gz" "ckpt/S$n.vcf.gz"
	done
	[ "$(paste <(trace_col name) <(trace_col kind) | grep -c '^checkpoint-[a-z]*	io$')" -eq 4 ]
}

@test "kmeans.yaml: iterates until it converges on the true centres; a partial-sum task per fragment per iteration" {
	pipeline kmeans.yaml points=3000 frags=3
	run "$WFRUN" -j 2 kmeans.yaml
	[ "$status" -eq 0 ]
	[[ "$output" =~ "converged after "([0-9]+)" iterations" ]]
	n=${BASH_REMATCH[1]}
	cd out-kmeans
	cat result.txt
	# the last iteration is the one that moved no centre: it stopped there
	grep -qx "converged at iteration $n" result.txt
	[ "$n" -lt 30 ]
	# every true centre has a final centre within 0.5
	awk 'NR == FNR { if ($1 == "centre") { x[++n] = $2; y[n] = $3 }; next }
	     { best = 1e9; for (i = 1; i <= n; i++) { d = sqrt(($1 - x[i]) ^ 2 + ($2 - y[i]) ^ 2); if (d < best) best = d }
	       if (best > 0.5) bad++ } END { exit bad > 0 || FNR != n }' result.txt data/points.txt.centres
	[ "$(trace_col name | grep -cx partial)" -eq $((3 * n)) ]
	[ "$(paste <(trace_col name) <(trace_col kind) | grep -c '^checkpoint	io$')" -eq "$n" ]
	[ "$(ls centres | wc -l)" -eq "$n" ]
	[ "$(trace_col tag | grep -cx "iter=$n,prev=$((n - 1)),f=2")" -eq 1 ]
	# the centres of a later iteration that an earlier run left are
	# not read: result.txt stops where it converged
	cp result.txt before.txt
	cp centres/c1.txt "centres/c$((n + 1)).txt"
	cd ..
	run "$WFRUN" kmeans.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"1 task done"* ]]
	cmp out-kmeans/before.txt out-kmeans/result.txt
}

@test "checkpoint.yaml (make demo): blocks checkpointed, scaled, accumulated in order" {
	pipeline checkpoint.yaml
	sed -i 's/^vars: {blocks: 8, mb: 4}$/vars: {blocks: 4, mb: 1}/' checkpoint.yaml
	grep -q '^vars: {blocks: 4, mb: 1}$' checkpoint.yaml
	run "$WFRUN" -q -j 2 checkpoint.yaml
	[ "$status" -eq 0 ]
	cd out-checkpoint
	[ "$(cat count.txt)" -eq 4 ]
	[ "$(cut -d' ' -f1 total.txt | tr '\n' ' ')" = "block 0 1 2 3 " ]
	for i in 0 1 2 3; do cmp "blocks/b$i.bin" "ckpt/b$i.bin"; done
	[ "$(paste <(trace_col name) <(trace_col kind) | grep -c '^checkpoint	io$')" -eq 4 ]
}

@test "calling.yaml: sample sheet, target, regions scatter: planted SNPs called; temp gone; rerun and one sample's redo" {
	for t in bwa samtools bcftools dwgsim; do
		command -v $t >/dev/null || { echo "$t is not installed: apt-get install -y $t" >&2; return 1; }
	done
	pipeline calling.yaml ref_len=15000
	# a target before the scatter: S1's chain only, up to its sorted BAM
	run "$WFRUN" -q -j 2 calling.yaml out-calling/bam/S1.bam
	[ "$status" -eq 0 ]
	cd out-calling
	[ -s bam/S1.bam ]
	[ -s bam/S1.bam.bai ]
	[ "$(trace_col name | tr '\n' ' ')" = "make-reference index simulate align sort " ]
	[ "$(trace_col tag | grep -c 's=S1')" -eq 3 ]
	[ ! -e sim/S2.bwa.read1.fastq.gz ]
	[ ! -e regions ]
	# the unsorted BAM was temp: gone once sorted
	[ -z "$(ls tmp)" ]
	[ -s logs/align/S1.err ]
	# the whole run, with the reference in 3 regions (--set): the rest
	run "$WFRUN" -q -j 2 --set regions=3 ../calling.yaml
	[ "$status" -eq 0 ]
	[ "$(ls regions | tr '\n' ' ')" = "r001 r002 r003 " ]
	[ "$(trace_col name | grep -cx call)" -eq 9 ]
	[ "$(trace_col name | grep -cx simulate)" -eq 2 ]
	run -1 grep -q 's=S1' <(paste <(trace_col name) <(trace_col tag) | grep -v '^call\|^gather\|^evaluate')
	cat summary.txt
	# the sheet's samples that passed qc (S4 did not), each with at least
	# 10 planted SNPs, 90% of them called, at most 10% of calls not planted
	[ "$(cut -d' ' -f1 summary.txt | tr '\n' ' ')" = "S1 S2 S3 " ]
	awk '$3 >= 10 && $7 >= 0.9 * $3 && $7 >= 0.9 * $5 { ok++ } END { exit ok != 3 }' summary.txt
	# each sample's VCF is the concatenation of its regions, in order
	for s in S1 S2 S3; do
		[ "$(bcftools query -l vcf/$s.vcf.gz)" = "$s" ]
		bcftools query -f '%POS\n' vcf/$s.vcf.gz | sort -n -c
	done
	[ -z "$(ls tmp)" ]
	# a rerun runs nothing (and leaves no region VCF: they are temp)
	run "$WFRUN" -v --set regions=3 ../calling.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"0 tasks done"*", 28 up to date"* ]]
	[ -z "$(find calls -type f)" ]
	# one sample's VCF removed: only its calls, gather and what follows
	rm vcf/S2.vcf.gz
	run "$WFRUN" -q --set regions=3 ../calling.yaml
	[ "$status" -eq 0 ]
	[ "$(paste -d' ' <(trace_col name) <(trace_col tag) | sort | tr '\n' ';')" = "call s=S2,r=regions/r001;call s=S2,r=regions/r002;call s=S2,r=regions/r003;evaluate s=S2;gather s=S2;summary ;" ]
	[ -s vcf/S2.vcf.gz ]
	[ -z "$(find calls -type f)" ]
	[ "$(wc -l <summary.txt)" -eq 3 ]
}
