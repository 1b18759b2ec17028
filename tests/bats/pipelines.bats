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
