#!/usr/bin/env bats
# run-all: once
# <slurm submit="jobs">: each task instance is one Slurm batch job, on a
# real 3-node cluster (tests/cluster/slurmcluster).  Slurm's time limit
# is in minutes and slurmctld looks for jobs past it every 30 s, so the
# TIMEOUT run starts in setup_file and is checked by a test near the end
# while the others run.
load helper

setup_file() {
	export SC="$BATS_TEST_DIRNAME/../cluster/slurmcluster"
	export C="$BATS_FILE_TMPDIR/slurm"
	"$SC" up -q --nodes 3 --cpus 4 "$C"
	export SLURM_CONF="$C/slurm.conf"
	# sbatch and squeue through wrappers that log each call
	export SJ_BIN="$BATS_FILE_TMPDIR/bin"
	mkdir -p "$SJ_BIN"
	local t
	for t in sbatch squeue; do
		printf '#!/bin/sh\necho "$*" >>"${SJ_LOG:-/dev/null}.%s"\nexec %s "$@"\n' \
			"$t" "$(command -v $t)" >"$SJ_BIN/$t"
		chmod +x "$SJ_BIN/$t"
	done
	# a task over its time limit (1 min): TIMEOUT, then its retry works
	export TO="$BATS_FILE_TMPDIR/timeout"
	mkdir -p "$TO"
	cd "$TO" || exit 1
	printf '<resources><slurm submit="jobs" time="1" poll="1"><option>--mem-per-cpu=64</option></slurm></resources>\n' >res.xml
	cat >wf.yaml <<'EOF'
tasks:
  - name: overtime
    retries: 1
    out: {o: done.txt}
    run: "if [ -e first ]; then echo again > {out.o}; else touch first; sleep 600; fi"
EOF
	{
		timeout 300 "$WFRUN" -r res.xml wf.yaml >run.out 2>&1 </dev/null &
		echo $! >wpid
		wait $!
		echo $? >rc
	} &
}

teardown_file() {
	# the TIMEOUT run, if its test did not wait for it (--filter)
	if [ ! -e "$TO/rc" ]; then
		kill -INT "$(cat "$TO/wpid")" 2>/dev/null || true
		for _ in $(seq 300); do
			[ -e "$TO/rc" ] && break
			sleep 0.1
		done
	fi
	"$SC" down -q "$C"
}

# A job asks for little memory: without --mem, a job of this cluster
# (CR_Core_Memory, no DefMemPerCPU) takes a whole node's.
res_xml() { # [ATTRIBUTES]
	printf '<resources>\n  <slurm submit="jobs" poll="1" %s>\n    <option>--mem-per-cpu=64</option>\n  </slurm>\n</resources>\n' "$*" >res.xml
}

teardown() {
	# a run a failed test left
	[ -z "${pid:-}" ] || kill -9 "$pid" 2>/dev/null || true
	# the node a test took down
	[ -z "${down:-}" ] || scontrol update nodename="$down" state=resume
}

@test "a foreach of 50 runs as one job array; outputs as a local run's" {
	cat >wf.yaml.in <<'EOF'
tasks:
  - name: gen
    foreach: {i: "1..50"}
    out: {o: "out/{i}.txt"}
    run: "printf '%s\n' {i} 'two  spaces' \"it's\" > {out.o}"
  - name: cat
    in: {parts: {dir: out}}
    out: {all: all.txt}
    run: "cat {in.parts}/* | sort > {out.all}"
EOF
	mkdir local jobs
	(cd local && cp ../wf.yaml.in wf.yaml && "$WFRUN" -q -j 4 wf.yaml)
	cd jobs
	cp ../wf.yaml.in wf.yaml
	res_xml
	SJ_LOG=$PWD/calls PATH="$SJ_BIN:$PATH" run timeout 120 "$WFRUN" -q -r res.xml wf.yaml
	[ "$status" -eq 0 ]
	cmp all.txt ../local/all.txt
	for i in 1 17 50; do cmp out/$i.txt ../local/out/$i.txt; done
	# gen's 50 in one sbatch (an array), cat in another
	[ "$(wc -l <calls.sbatch)" -eq 2 ]
	grep -q -- '--array=0-49%1000 ' calls.sbatch
	grep -q -- '--job-name=gen ' calls.sbatch
	# each row says the node its job ran on
	[ "$(trace_col worker | grep -c '^slurm:n[123]$')" -eq 51 ]
	[ "$(trace_col status | sort -u)" = COMPLETED ]
	# nothing of the jobs' files is left
	[ ! -e .wfrun/slurm ]
}

@test "a failing command: its exit status and stderr tail, as locally" {
	wf <<'EOF'
tasks:
  - name: bad
    run: "echo first line >&2; echo 'it broke' >&2; exit 3"
EOF
	mkdir local
	cp wf.yaml local/
	(cd local && "$WFRUN" wf.yaml >../local.out 2>&1) || true
	res_xml
	run timeout 60 "$WFRUN" -r res.xml wf.yaml
	[ "$status" -eq 1 ]
	[[ $output == *"task 'bad' failed with exit status 3"* ]]
	[[ $output == *"  | first line"*"  | it broke"* ]]
	# the same lines as the local run's, but the paths and time
	diff <(grep -v 'in [0-9.]*s' local.out | sed "s#$PWD/local#W#") \
		<(echo "$output" | grep -v 'in [0-9.]*s' | sed "s#$PWD#W#")
	[ "$(trace_col exit)" = 3 ]
	[ "$(trace_col status)" = FAILED ]
}

@test "a command killed by a signal: reported as the signal, as locally" {
	wf <<'EOF'
tasks:
  - name: sig
    run: "kill -USR1 $$"
EOF
	mkdir local
	cp wf.yaml local/
	(cd local && "$WFRUN" wf.yaml >../local.out 2>&1) || true
	grep -q "task 'sig' was killed by signal 10 (User defined signal 1)" local.out
	res_xml
	run timeout 60 "$WFRUN" -r res.xml wf.yaml
	[ "$status" -eq 1 ]
	diff <(grep -v 'in [0-9.]*s' local.out | sed "s#$PWD/local#W#") \
		<(echo "$output" | grep -v 'in [0-9.]*s' | sed "s#$PWD#W#")
	[ "$(trace_col exit)" = "$(trace_col exit local/.wfrun/trace.tsv)" ]
	[ "$(trace_col status)" = FAILED ]
}

@test "sbatch refuses a job: Slurm's own words, as the task's failure" {
	wf <<'EOF'
tasks:
  - name: t
    run: "true"
EOF
	cat >res.xml <<'EOF'
<resources>
  <slurm submit="jobs" poll="1">
    <option>--mem-per-cpu=64</option>
    <option>--constraint=nosuchfeature</option>
  </slurm>
</resources>
EOF
	run timeout 60 "$WFRUN" -r res.xml wf.yaml
	[ "$status" -eq 1 ]
	[[ $output == *"task 't' could not start: sbatch refused it: sbatch: error: "*"Invalid feature specification"* ]]
}

@test "a partition Slurm does not have: scontrol's words before anything runs" {
	wf <<'EOF'
tasks:
  - name: t
    run: "touch ran"
EOF
	res_xml 'partition="nosuch"'
	run timeout 60 "$WFRUN" -r res.xml wf.yaml
	[ "$status" -eq 2 ]
	[[ $output == *"nosuch"* ]]
	[ ! -e ran ]
}

@test "squeue runs once per poll for all the jobs, not once per job" {
	wf <<'EOF'
tasks:
  - name: a
    foreach: {i: "1..24"}
    out: {o: "a/{i}"}
    run: "sleep 1; touch {out.o}"
  - name: b
    foreach: {i: "1..6"}
    cores: 2
    out: {o: "b/{i}"}
    run: "sleep 1; touch {out.o}"
EOF
	res_xml
	t0=$(date +%s)
	SJ_LOG=$PWD/calls PATH="$SJ_BIN:$PATH" run timeout 120 "$WFRUN" -q -r res.xml wf.yaml
	t1=$(date +%s)
	[ "$status" -eq 0 ]
	[ "$(ls a | wc -l)" -eq 24 ]
	# two arrays (their cores differ), each call of squeue asks for both
	# while both are in the queue, by array id, never one job each
	[ "$(wc -l <calls.sbatch)" -eq 2 ]
	grep -q -- '--cpus-per-task=2 ' calls.sbatch
	grep -q -- '-j [0-9]*,[0-9]*$' calls.squeue
	run grep -c -- '-j .*_' calls.squeue
	[ "$output" -eq 0 ]
	# one a poll (1 s), however long the run took: not 30 a poll
	[ "$(wc -l <calls.squeue)" -le $((t1 - t0 + 2)) ]
}

@test "Ctrl-C: exit 130, no job of the run left in squeue, no task process" {
	wf <<'EOF'
tasks:
  - name: long
    foreach: {i: "1..20"}
    out: {o: "o/{i}"}
    run: "sleep 3017"
EOF
	res_xml
	"$WFRUN" -r res.xml wf.yaml >run.out 2>&1 &
	pid=$!
	for _ in $(seq 300); do
		[ "$(pgrep -c -f -x 'sleep 3017')" -ge 6 ] && break
		sleep 0.1
	done
	[ "$(pgrep -c -f -x 'sleep 3017')" -ge 6 ]
	# pending ones too: 20 jobs, 12 CPUs
	[ "$(squeue -h -r -t PENDING -n long -o %i | wc -l)" -ge 1 ]
	kill -INT "$pid"
	st=0
	wait "$pid" || st=$?
	cat run.out # shown if the test fails
	[ "$st" -eq 130 ]
	run pgrep -f -x 'sleep 3017'
	[ "$status" -eq 1 ]
	[ -z "$(squeue -h -n long -o %i)" ]
	[ "$(trace_col status | sort -u)" = ABORTED ]
}

@test "wfrun's timeout: the running job is cancelled, as a local task is killed" {
	wf <<'EOF'
tasks:
  - name: slow
    timeout: 8
    run: "sleep 3031"
EOF
	res_xml
	run timeout 60 "$WFRUN" -r res.xml wf.yaml
	[ "$status" -eq 1 ]
	[[ $output == *"task 'slow' timed out after 8s and was killed"* ]]
	[ "$(trace_col status)" = FAILED ]
	[[ "$(trace_col worker)" == slurm:n[123] ]]
	run pgrep -f -x 'sleep 3031'
	[ "$status" -eq 1 ]
	[ -z "$(squeue -h -n slow -o %i)" ]
}

@test "Ctrl-C while Slurm does not answer: the run ends all the same" {
	# squeue, scontrol and scancel that fail once the file down exists,
	# as when slurmctld is unreachable
	slurm_unreachable fail 0 squeue scontrol scancel
	wf <<'EOF'
tasks:
  - name: stuck
    foreach: {i: "1..3"}
    out: {o: "o/{i}"}
    run: "sleep 3023"
EOF
	res_xml
	PATH="$PWD/bin:$PATH" "$WFRUN" -r res.xml wf.yaml >run.out 2>&1 &
	pid=$!
	for _ in $(seq 300); do
		[ "$(pgrep -c -f -x 'sleep 3023')" -eq 3 ] && break
		sleep 0.1
	done
	[ "$(pgrep -c -f -x 'sleep 3023')" -eq 3 ]
	touch down
	kill -INT "$pid"
	st=0
	timeout 60 tail --pid="$pid" -f /dev/null || st=$?
	scancel -n stuck # what it could not cancel
	cat run.out # shown if the test fails
	[ "$st" -eq 0 ] # it ended
	wait "$pid" || st=$?
	[ "$st" -eq 130 ]
	grep -q "scancel: scancel: error: Unable to contact slurm controller" run.out
	[ "$(trace_col status | sort -u)" = ABORTED ]
}

@test "Ctrl-C while Slurm hangs: the run's end waits for its commands together, not one after another" {
	# squeue, scontrol, scancel and sbatch that hang once the file down
	# exists, as when slurmctld's host is unreachable.  The run's end
	# waited 10 s for each command under way, one after another (4 of
	# them here: 46 s), where 10 s is for them all and its scancel
	slurm_unreachable hang 607 squeue scontrol scancel sbatch
	wf <<'EOF'
tasks:
  - name: hung
    foreach: {i: "1..3"}
    out: {o: "o/{i}"}
    run: "sleep 3037"
EOF
	res_xml
	PATH="$PWD/bin:$PATH" "$WFRUN" -r res.xml wf.yaml >run.out 2>&1 &
	pid=$!
	for _ in $(seq 300); do
		[ "$(pgrep -c -f -x 'sleep 3037')" -eq 3 ] && break
		sleep 0.1
	done
	[ "$(pgrep -c -f -x 'sleep 3037')" -eq 3 ]
	touch down
	sleep 2 # (a poll of squeue is under way, hung)
	kill -INT "$pid"
	start=$SECONDS
	st=0
	timeout 120 tail --pid="$pid" -f /dev/null || st=$?
	took=$((SECONDS - start))
	rm -f down
	scancel -n hung # what it could not cancel
	pkill -f -x 'sleep 607' || true # (not the TIMEOUT test's 600)
	cat run.out # shown if the test fails
	echo "ended $took s after Ctrl-C"
	[ "$st" -eq 0 ] # it ended
	wait "$pid" || st=$?
	[ "$st" -eq 130 ]
	# (the tasks' stop, then 12 s at most for the commands; 18 s here:
	# a bound, not a measure)
	[ "$took" -lt 32 ]
}

@test "log_max: a job's logs are cut at its end as a local task's" {
	cat >wf.yaml.in <<'EOF'
log_max: 4K
tasks:
  - name: big
    run: "seq 1 100000; seq 1 3000 >&2"
  - name: own
    log_max: none
    run: "seq 1 100000"
EOF
	mkdir local jobs
	(cd local && cp ../wf.yaml.in wf.yaml && "$WFRUN" -q wf.yaml)
	cd jobs
	cp ../wf.yaml.in wf.yaml
	res_xml
	run timeout 60 "$WFRUN" -q -r res.xml wf.yaml
	[ "$status" -eq 0 ]
	grep -qx '\[wfrun: log_max 4096: [0-9]* bytes cut here; the last 2048 follow\]' .wfrun/logs/big.out
	[ "$(stat -c %s .wfrun/logs/big.out)" -le 4200 ]
	for f in big.out big.err own.out; do
		cmp .wfrun/logs/$f ../local/.wfrun/logs/$f
	done
	[ "$(wc -l <.wfrun/logs/own.out)" -eq 100000 ]
}

@test "kill -9: the next run cancels the jobs the killed one left, then runs" {
	wf <<'EOF'
tasks:
  - name: held
    foreach: {i: "1..4"}
    out: {o: "o/{i}"}
    run: "if [ -e go ]; then echo {i} > {out.o}; else sleep 3041; fi"
EOF
	res_xml
	"$WFRUN" -r res.xml wf.yaml >run.out 2>&1 &
	pid=$!
	for _ in $(seq 300); do
		[ "$(running 'sleep 3041' | wc -l)" -eq 4 ] && break
		sleep 0.1
	done
	[ "$(running 'sleep 3041' | wc -l)" -eq 4 ]
	kill -9 "$pid"
	wait "$pid" || true
	# its array is recorded, and still in the queue, running
	old=$(cat .wfrun/slurm-jobs)
	[[ $old =~ ^[0-9]+$ ]]
	[ "$(squeue -h -r -j "$old" -t RUNNING -o %i | wc -l)" -eq 4 ]
	touch go
	run timeout 90 "$WFRUN" -q -r res.xml wf.yaml
	[ "$status" -eq 0 ]
	# none of the old jobs in the queue, no process of them left
	[ -z "$(squeue -h -r -j "$old" -t PENDING,RUNNING,COMPLETING -o %i 2>/dev/null)" ]
	[ -z "$(running 'sleep 3041')" ]
	for i in 1 2 3 4; do [ "$(cat o/$i)" = "$i" ]; done
	[ "$(trace_col status | sort -u)" = COMPLETED ]
	# nothing of either run left: record, scripts, status files
	[ ! -e .wfrun/slurm-jobs ]
	[ ! -e .wfrun/slurm ]
}

@test "a job over its Slurm time limit: TIMEOUT in the trace, then retried" {
	cd "$TO"
	for _ in $(seq 2400); do
		[ -e rc ] && break
		sleep 0.1
	done
	cat run.out # shown if the test fails
	[ "$(cat rc)" -eq 0 ]
	[ "$(trace_col status | tr '\n' ' ')" = "TIMEOUT COMPLETED " ]
	[ "$(trace_col attempt | tr '\n' ' ')" = "1 2 " ]
	[ "$(cat done.txt)" = again ]
	grep -q "task 'overtime' failed: Slurm ended job [0-9]*_0 with TIMEOUT (time limit 1 min) (stderr: .*); retry 1 of 1" run.out
	# the tail of its stderr log: what Slurm wrote there
	grep -q "  | slurmstepd.*CANCELLED AT .* DUE TO TIME LIMIT" run.out
	[ -z "$(squeue -h -n overtime -o %i)" ]
}

# After the TIMEOUT test: nothing else of the file runs while a node is
# down.
@test "a node fails under a job: NODE_FAIL, then run again on another node without a retry" {
	wf <<'EOF'
tasks:
  - name: onnode
    out: {o: o.txt}
    run: "if [ -e first ]; then echo again > {out.o}; else touch first; sleep 3053; fi"
EOF
	res_xml
	"$WFRUN" -r res.xml wf.yaml >run.out 2>&1 &
	pid=$!
	for _ in $(seq 300); do
		[ -n "$(running 'sleep 3053')" ] && break
		sleep 0.1
	done
	[ -n "$(running 'sleep 3053')" ]
	down=$(squeue -h -n onnode -t RUNNING -o %N)
	[[ $down == n[123] ]]
	# down ends its job; drained, it takes no job until the teardown
	scontrol update nodename="$down" state=down reason=wfrun-test
	scontrol update nodename="$down" state=drain reason=wfrun-test
	st=0
	timeout 60 tail --pid="$pid" -f /dev/null || st=$?
	[ "$st" -eq 0 ]
	wait "$pid" || st=$?
	cat run.out # shown if the test fails
	[ "$st" -eq 0 ]
	[ "$(cat o.txt)" = again ]
	[ "$(trace_col status | tr '\n' ' ')" = "NODE_FAIL COMPLETED " ]
	# no retry used (the task has none): both rows are attempt 1
	[ "$(trace_col attempt | tr '\n' ' ')" = "1 1 " ]
	[ "$(trace_col worker | head -1)" = "slurm:$down" ]
	[[ "$(trace_col worker | tail -1)" == slurm:n[123] ]]
	[ "$(trace_col worker | tail -1)" != "slurm:$down" ]
	grep -q "task 'onnode': Slurm ended job [0-9]*_0 with NODE_FAIL (NodeDown); it runs again" run.out
	[ -z "$(running 'sleep 3053')" ]
}
