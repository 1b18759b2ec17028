#!/usr/bin/env bats
# run-all: once
# wfrun --slurm inside an allocation of a real Slurm cluster
# (tests/cluster/slurmcluster: munged, slurmctld, slurmd n1..n3 on this
# machine): one agent per node as a job step, tasks spread over the nodes,
# the same outputs as a local run, nothing left behind.
load helper

setup_file() {
	slurm_up
}

teardown_file() {
	slurm_down
}

@test "inside salloc -N3: tasks spread over n1..n3, outputs as a local run's" {
	mkdir local slurm
	(cd local && scatter_wf && "$WFRUN" -q -j 2 wf.yaml)
	cd slurm
	scatter_wf
	run timeout 120 salloc -N3 "$WFRUN" -q --slurm wf.yaml
	[ "$status" -eq 0 ]
	cmp all.txt ../local/all.txt
	[ "$(trace_col worker | sort -u | tr '\n' ' ')" = "n1 n2 n3 " ]
	# the tasks ran in the nodes' job steps
	run grep -L '^xn[123]$' where/1.txt where/2.txt where/6.txt
	[ -z "$output" ]
	# a rerun does nothing: the journal is the same as a local run's
	run timeout 120 salloc -N3 "$WFRUN" --slurm wf.yaml
	[ "$status" -eq 0 ]
	[[ $output == *"nothing to do"* || $output == *"up to date"* ]]
}

@test "in an sbatch script: the job's nodes run the workflow" {
	scatter_wf
	printf '#!/bin/sh\n"%s" -q --slurm wf.yaml\necho "wfrun exit $?"\n' "$WFRUN" >job.sh
	run sbatch --parsable -N2 -o "$PWD/job.out" job.sh
	[ "$status" -eq 0 ]
	id=$output
	for _ in $(seq 600); do
		[ -z "$(squeue -h -j "$id" -o %i 2>/dev/null)" ] && break
		sleep 0.1
	done
	[ "$(tail -1 job.out)" = "wfrun exit 0" ]
	[ "$(wc -l <all.txt)" -eq 12 ]
	[ "$(trace_col worker | sort -u | tr '\n' ' ')" = "n1 n2 " ]
}

@test "--slurm outside an allocation, or with workers in -r: exit 2, says what to do" {
	scatter_wf
	run env -u SLURM_JOB_ID -u SLURM_JOBID -u SLURM_JOB_NODELIST "$WFRUN" --slurm wf.yaml
	[ "$status" -eq 2 ]
	[[ $output == *"not inside a Slurm allocation"*"salloc"* ]]
	echo '<resources><worker name="a" host="localhost"/></resources>' >r.xml
	run salloc -N1 "$WFRUN" --slurm -r r.xml wf.yaml
	[ "$status" -eq 2 ]
	[[ $output == *"--slurm -r r.xml: the file must have a <slurm> element"*"no <worker>"* ]]
	[ ! -e .wfrun/trace.tsv ]
}

@test "Ctrl-C: exit 130, no step left in squeue, no task process left" {
	wf <<'EOF'
tasks:
  - name: long
    foreach: {i: "1..3"}
    out: {o: "o/{i}"}
    run: "sleep 3000"
EOF
	timeout 120 salloc -N3 "$WFRUN" --slurm wf.yaml >run.out 2>&1 &
	pid=$!
	wait_until sleeping 3 || true
	sleeping 3
	# to the master, not salloc
	stopped_clean "$pid" INT "$(pgrep -o -f -x "$WFRUN --slurm wf.yaml")"
}

# (last: the cluster keeps a dead node)
@test "a node's slurmd killed mid-run: its tasks run again on the others, after -r's lost-after" {
	echo '<resources><slurm lost-after="3"/></resources>' >lost.xml
	wf <<'EOF'
tasks:
  - name: slow
    foreach: {i: "1..9"}
    out: {o: "o/{i}.txt"}
    run: "touch started.$SLURMD_NODENAME; sleep 4; echo {i} $SLURMD_NODENAME > {out.o}"
EOF
	timeout 120 salloc -N3 "$WFRUN" --slurm -r lost.xml wf.yaml >run.out 2>&1 &
	pid=$!
	# n2 has a task: killed now, it cannot end before it is lost (a
	# kill after its tasks ended, on a loaded machine, proved nothing)
	wait_until test -e started.n2 || true
	"$SC" kill-node "$C" n2
	st=0
	wait "$pid" || st=$? # (not `run wait`: run's subshell has no child)
	cat run.out # shown if the test fails
	[ "$st" -eq 0 ]
	[[ $(cat run.out) == *"worker 'n2' lost: no word from"*"3 s"* ]]
	[ "$(ls o | wc -l)" -eq 9 ]
	# what ran on n2 when it died ran again on another node
	lost=$(awk -F'\t' '$4 == "n2" && $9 == "LOST" { print $1 }' .wfrun/trace.tsv)
	[ -n "$lost" ]
	for t in $lost; do
		[ "$(awk -F'\t' -v t="$t" '$1 == t && $9 == "COMPLETED" { print $4 }' .wfrun/trace.tsv)" != n2 ]
		grep -qx "$t x" <(awk -F'\t' -v t="$t" '$1 == t && $9 == "COMPLETED" { print $1, "x" }' .wfrun/trace.tsv)
	done
}
