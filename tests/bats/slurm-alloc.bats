#!/usr/bin/env bats
# run-all: once
# wfrun asks Slurm for nodes itself (<slurm> in the resources file), from
# outside any allocation, on a real cluster (tests/cluster/slurmcluster:
# n1..n3 of 2 CPUs): nodes asked as tasks wait, agents as steps of their
# jobs, idle nodes given back, every job cancelled at the end, after a
# failure, on SIGINT and SIGTERM, and by the next run after a kill -9.
load helper

setup_file() {
	slurm_up
}

teardown_file() {
	slurm_down
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	unset SLURM_JOB_ID SLURM_JOBID SLURM_JOB_NODELIST SLURM_NODELIST
	cat >res.xml <<'EOF'
<resources>
  <slurm partition="debug" max-nodes="3" idle="2"/>
</resources>
EOF
}

# a run left in the background by a test that failed ends here (on
# SIGTERM it cancels its jobs), not in the next test's queue
teardown() {
	# (a test that stopped slurmctld and failed: the next ones need it)
	"$SC" cont-ctld "$C" >/dev/null 2>&1 || true
	if [ -n "${pid:-}" ] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid"
		wait "$pid" || true
	fi
}

# the jobs in the queue (any state), one id a line
jobs() {
	squeue -h -o %i
}

# whether N jobs are in the queue
jobs_are() {
	[ "$(jobs | wc -l)" -eq "$1" ]
}

# whether wfrun gave back N nodes (its output in run.out)
given_back() {
	[ "$(grep -c 'given back' run.out)" -eq "$1" ]
}

# N tasks that sleep until killed
long_wf() {
	wf <<EOF
tasks:
  - name: long
    foreach: {i: "1..$1"}
    out: {o: "o/{i}"}
    run: "sleep 3000"
EOF
}

@test "from outside an allocation: nodes asked as tasks wait, outputs as a local run's, no job left" {
	mkdir local slurm
	(cd local && scatter_wf && "$WFRUN" -q -j 2 wf.yaml)
	cd slurm
	# scatter_wf, but each "where" task waits until tasks of two nodes
	# have written theirs: the run ends only if the allocations grew
	# (timing alone did not prove it: on a loaded machine one node ran
	# all 18 tasks before a second was granted)
	scatter_wf
	sed -i 's|run: "sleep 0.3; echo x$SLURMD_NODENAME > {out.o}"|run: "echo x$SLURMD_NODENAME > {out.o}; until [ $(cat where/*.txt \| sort -u \| wc -l) -gt 1 ]; do sleep 0.1; done"|' wf.yaml
	grep -q 'until' wf.yaml
	run timeout 60 "$WFRUN" -r ../res.xml wf.yaml
	echo "$output"
	[ "$status" -eq 0 ]
	cmp all.txt ../local/all.txt
	[[ $output == *"Slurm job "*": node n"*", 2 cores"* ]]
	# the allocations grew: the tasks ran on more than one node
	[ "$(trace_col worker | sort -u | grep -c '^n[123]$')" -gt 1 ]
	# in the steps of the nodes' jobs
	run grep -L '^xn[123]$' where/1.txt where/2.txt where/6.txt
	[ -z "$output" ]
	[ -z "$(jobs)" ]
	[ ! -e .wfrun/slurm-jobs ]
}

@test "a local worker and Slurm's nodes in one run" {
	# each "where" task waits until those of three workers (here, and
	# two nodes) have written theirs: on a loaded machine the tasks
	# had all ended before a second node was granted (CI, 2026-12-05)
	scatter_wf
	sed -i 's|run: "sleep 0.3; echo x$SLURMD_NODENAME > {out.o}"|run: "echo x$SLURMD_NODENAME > {out.o}; until [ $(cat where/*.txt \| sort -u \| wc -l) -gt 2 ]; do sleep 0.1; done"|' wf.yaml
	grep -q 'until' wf.yaml
	cat >mix.xml <<'EOF'
<resources>
  <worker name="here" host="localhost"><cores>1</cores></worker>
  <slurm partition="debug" max-nodes="2"/>
</resources>
EOF
	run timeout 60 "$WFRUN" -q -r mix.xml wf.yaml
	[ "$status" -eq 0 ]
	[ "$(wc -l <all.txt)" -eq 12 ]
	[ "$(trace_col worker | sort -u | tr '\n' ' ')" = "here n1 n2 " ]
	[ -z "$(jobs)" ]
}

@test "a task fails: exit 1, no job left" {
	wf <<'EOF'
tasks:
  - name: gen
    foreach: {i: "1..8"}
    out: {o: "out/{i}.txt"}
    run: "sleep 0.3 && test {i} != 3 && echo {i} > {out.o}"
EOF
	run timeout 60 "$WFRUN" -q -r res.xml wf.yaml
	[ "$status" -eq 1 ]
	[[ $output == *"task 'gen' (i=3) failed"* ]]
	[ -z "$(jobs)" ]
}

@test "SIGINT and SIGTERM: exit 130, no job left, pending ones included, no task process left" {
	long_wf 10
	# a 4th node is asked and pends: the cluster has 3
	sed -i 's/max-nodes="3"/max-nodes="4"/' res.xml
	for sig in INT TERM; do
		timeout 150 "$WFRUN" -r res.xml wf.yaml >run.out 2>&1 &
		pid=$!
		# (90 s: CI once saw fewer than 6 after 30 s, the machine
		# loaded and this file twice its usual time)
		wait_until_s 90 sleeping 6 ||
			{ cat run.out; squeue; sinfo -N; } # shown if it fails
		sleeping 6
		# (the 4th job's sbatch, under way with the others', may be
		# in the queue after the 3rd node's tasks started: CI, loaded,
		# once saw 3 there the instant 6 slept)
		wait_until jobs_are 4 || squeue
		jobs_are 4
		stopped_clean "$pid" "$sig"
	done
}

@test "Ctrl-C while Slurm hangs: the run ends, saying its jobs may be left" {
	# squeue, scontrol, scancel and sbatch that hang once the file down
	# exists, as when slurmctld's host does not answer: the run's end
	# waited for them as long as they took (here: ever)
	slurm_unreachable hang 611 squeue scontrol scancel sbatch
	long_wf 3
	PATH="$PWD/bin:$PATH" "$WFRUN" -r res.xml wf.yaml >run.out 2>&1 &
	pid=$!
	wait_until sleeping 3 || true
	sleeping 3
	touch down
	sleep 1 # (a poll of squeue is under way, hung)
	kill -INT "$pid"
	st=0
	timeout 90 tail --pid="$pid" -f /dev/null || st=$?
	rm -f down
	pkill -f -x 'sleep 611' || true
	cat run.out # shown if the test fails
	[ "$st" -eq 0 ] # it ended
	wait "$pid" || st=$?
	[ "$st" -eq 130 ]
	[ -z "$(running 'sleep 3000')" ]
	grep -q "scancel did not answer; the jobs of this run may be left in Slurm's queue (the next run here cancels them)" run.out
	# and the next run here does, before it runs
	wf <<'EOF'
tasks:
  - {name: quick, out: {o: q}, run: "touch {out.o}"}
EOF
	timeout 120 "$WFRUN" -r res.xml wf.yaml
	jobs_are 0
}

@test "an agent's srun that outlives SIGTERM: killed, said, the run ends" {
	# an srun that does not end after its step has (as one that cannot
	# reach slurmctld), deaf to SIGTERM: the run's end waited for it as
	# long as it lived, and a second SIGTERM was not heard meanwhile
	mkdir -p bin
	printf '#!/bin/sh\ntrap "" TERM\n%s "$@"\nexec sleep 613\n' \
		"$(command -v srun)" >bin/srun
	chmod +x bin/srun
	wf <<'EOF'
tasks:
  - name: short
    foreach: {i: "1..3"}
    out: {o: "o/{i}"}
    run: "sleep 1; touch {out.o}"
EOF
	st=0
	PATH="$PWD/bin:$PATH" timeout -k 5 120 "$WFRUN" -r res.xml wf.yaml \
		>run.out 2>&1 || st=$?
	pkill -KILL -f -x 'sleep 613' || true # (deaf to SIGTERM)
	cat run.out # shown if the test fails
	[ "$st" -eq 0 ]
	[ -e o/1 ]
	[ -e o/2 ]
	[ -e o/3 ]
	# each node's agent
	nodes=$(grep -c '^wfrun: Slurm job .*: node' run.out)
	[ "$nodes" -ge 1 ]
	[ "$(grep -cE "^wfrun: warning: worker 'n[0-9]+': its agent did not end within 5 s of SIGTERM: killed$" run.out)" -eq "$nodes" ]
	[ -z "$(running 'sleep 613')" ]
	wait_until jobs_are 0
}

@test "kill -9: the next run in the workdir cancels the jobs the killed one left" {
	long_wf 6
	"$WFRUN" -r res.xml wf.yaml >run.out 2>&1 &
	pid=$!
	wait_until sleeping 6 || true
	[ "$(jobs | wc -l)" -eq 3 ]
	kill -9 "$pid"
	wait "$pid" || true
	[ "$(jobs | wc -l)" -eq 3 ]
	[ "$(wc -l <.wfrun/slurm-jobs)" -eq 3 ]
	# the same workdir, another workflow that needs no node
	wf <<'EOF'
tasks:
  - name: one
    out: {o: "x"}
    run: "echo x > {out.o}"
EOF
	run timeout 60 "$WFRUN" -q -r res.xml wf.yaml
	[ "$status" -eq 0 ]
	[ -z "$(jobs)" ]
	[ ! -e .wfrun/slurm-jobs ]
	wait_until sleeping 0 || true
	[ -z "$(running 'sleep 3000')" ]
}

@test "idle nodes are given back before the end" {
	wf <<'EOF'
tasks:
  - name: wide
    foreach: {i: "1..6"}
    out: {o: "w/{i}"}
    run: "sleep 1; echo {i} > {out.o}"
  - name: tail
    in: {w: {dir: w}}
    out: {o: "t"}
    run: "sleep 6; cat {in.w}/* > {out.o}"
EOF
	timeout 60 "$WFRUN" -r res.xml wf.yaml >run.out 2>&1 &
	pid=$!
	wait_until given_back 2 || true
	cat run.out
	[ "$(grep -c 'given back (Slurm job [0-9]*): idle for 2s' run.out)" -eq 2 ]
	# while the tail runs, one job is left: the tail's node (the two
	# given back leave the queue once scancel has run and their nodes
	# have cleaned up, in the tail's 6 s)
	wait_until jobs_are 1 || true
	squeue
	[ -d "/proc/$pid" ]
	jobs_are 1
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 0 ]
	[ "$(wc -c <t)" -eq 12 ]
	[ -z "$(jobs)" ]
}

@test "a partition Slurm does not have: exit 2 with scontrol's words, nothing run or queued" {
	scatter_wf
	sed -i 's/"debug"/"nosuch"/' res.xml
	run "$WFRUN" -r res.xml wf.yaml
	[ "$status" -eq 2 ]
	[ "$output" = "wfrun: error: res.xml:2: <slurm>: partition 'nosuch': scontrol says: Partition nosuch not found" ]
	[ -z "$(jobs)" ]
	[ ! -e .wfrun/trace.tsv ]
	run "$WFRUN" check -r res.xml wf.yaml
	[ "$status" -eq 2 ]
	[[ $output == *"Partition nosuch not found"* ]]
}

@test "check: the partition's nodes, and every task that does not fit one, named" {
	wf <<'EOF'
tasks:
  - name: small
    out: {o: "a"}
    run: "echo > {out.o}"
  - name: big
    cores: 4
    out: {o: "b"}
    run: "echo > {out.o}"
  - name: fat
    memory: 3G
    out: {o: "c"}
    run: "echo > {out.o}"
EOF
	run "$WFRUN" check -r res.xml wf.yaml
	[ "$status" -eq 2 ]
	[[ $output == *"task 'big' asks for 4 cores but a node of Slurm partition 'debug' has 2"* ]]
	[[ $output == *"task 'fat' asks for 3072 MB of memory but a node of Slurm partition 'debug' has 2000 MB"* ]]
	[[ $output != *"'small'"* ]]
	sed -i '/name: big/,$d' wf.yaml
	run "$WFRUN" check -r res.xml wf.yaml
	[ "$status" -eq 0 ]
	[[ $output == *"slurm: partition debug, up to 3 nodes of 2 cores and 2000 MB"* ]]
	# without Slurm's commands
	run env PATH=/nonexistent "$WFRUN" check -r res.xml wf.yaml
	[ "$status" -eq 2 ]
	[[ $output == *"cannot run scontrol"*"Slurm's commands installed"* ]]
}

@test "sbatch refuses the jobs: exit 3 with sbatch's words, nothing queued" {
	scatter_wf
	cat >bad.xml <<'EOF2'
<resources>
  <slurm partition="debug" max-nodes="3">
    <option>--constraint=nosuchfeature</option>
  </slurm>
</resources>
EOF2
	run timeout 60 "$WFRUN" -q -r bad.xml wf.yaml
	[ "$status" -eq 3 ]
	[ "${lines[0]}" = "wfrun: error: Slurm: sbatch: error: Batch job submission failed: Invalid feature specification" ]
	[ "${lines[1]}" = "wfrun: error: no node to run on; 19 tasks could not run" ]
	[ -z "$(jobs)" ]
}

# (last: after it, slurmctld keeps the nodes of the jobs it lost
# COMPLETING for a minute, and a test after it waited for them: 44 s
# where 18 alone)
@test "slurmctld stops answering mid-run: Ctrl-C ends the run, saying its jobs may be left; the next run cancels them" {
	long_wf 3
	"$WFRUN" -r res.xml wf.yaml >run.out 2>&1 &
	pid=$!
	wait_until sleeping 3 || true
	sleeping 3
	# the controller holds its connections and answers none: squeue,
	# scancel and the nodes' srun steps wait on it
	"$SC" stop-ctld "$C"
	kill -INT "$pid"
	st=0
	timeout 120 tail --pid="$pid" -f /dev/null || st=$?
	"$SC" cont-ctld "$C"
	cat run.out # shown if the test fails
	[ "$st" -eq 0 ] # it ended
	wait "$pid" || st=$?
	[ "$st" -eq 130 ]
	grep -q "the jobs of this run may be left in Slurm's queue (the next run here cancels them)" run.out
	# the agents ended their tasks
	wait_until sleeping 0 || true
	[ -z "$(running 'sleep 3000')" ]
	[ "$(wc -l <.wfrun/slurm-jobs)" -eq 2 ]
	# slurmctld back: the next run here cancels what was left (Slurm
	# may keep them COMPLETING a minute more: its nodes' reports were
	# lost while it was stopped, and it sends TERMINATE_JOB again)
	wf <<'EOF'
tasks:
  - {name: quick, out: {o: q}, run: "touch {out.o}"}
EOF
	timeout 120 "$WFRUN" -r res.xml wf.yaml
	[ -e q ]
	[ ! -e .wfrun/slurm-jobs ]
	[ -z "$(squeue -h -t PD,R,CF,S -o %i)" ]
}
