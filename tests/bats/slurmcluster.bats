#!/usr/bin/env bats
# run-all: once
# tests/cluster/slurmcluster itself: the Slurm cluster (munged, slurmctld,
# slurmd n1..n3 on this machine) the Slurm suites and benchmarks run on.
# Needs root and Debian's slurmctld, slurmd, slurm-client and munge.
load helper

setup_file() {
	export SC="$BATS_TEST_DIRNAME/../cluster/slurmcluster"
	export C="$BATS_FILE_TMPDIR/slurm"
	"$SC" up -q "$C"
	export SLURM_CONF="$C/slurm.conf"
}

teardown() { # a test's own clusters, whatever happened
	"$SC" down-all -q "$BATS_TEST_TMPDIR"
}

teardown_file() {
	"$SC" down -q "$C"
}

# alive PID: PID runs (a zombie whose parent does not reap it is dead)
alive() {
	local stat
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
	stat=${stat##*) }
	[ "${stat:0:1}" != Z ]
}

# the processes of the cluster in $1 (its daemons and what they started)
cluster_pids() {
	local tag
	tag=$(sed -n 's/^SLURMCLUSTER_TAG=//p' "$1/cluster.env")
	grep -lzx "SLURMCLUSTER_TAG=$tag" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3
}

@test "up: three idle nodes n1..n3 of 4 CPUs; status exits 0; env names the conf" {
	run "$SC" status "$C"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "n1 idle 4 2000" ]
	[ "${lines[3]}" = "n3 idle 4 2000" ]
	run "$SC" env "$C"
	[ "$output" = "export SLURM_CONF=$C/slurm.conf" ]
	run grep -c '^NodeName=n[123] NodeHostname=localhost Port=' "$C/slurm.conf"
	[ "$output" = 3 ]
}

@test "srun spreads steps over the three nodes; an allocation names them as Slurm writes them" {
	run timeout 30 srun -N3 -n3 sh -c 'echo $SLURMD_NODENAME'
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "${lines[@]}" | sort | tr '\n' ' ')" = "n1 n2 n3 " ]
	run timeout 30 salloc -N2 -w n2,n3 sh -c 'echo "$SLURM_JOB_NODELIST $SLURM_JOB_NUM_NODES"'
	[ "$status" -eq 0 ]
	[[ $output == *"n[2-3] 2"* ]]
}

@test "sbatch runs a job to completion and writes its output" {
	printf '#!/bin/sh\necho "job on $SLURMD_NODENAME"\n' >job.sh
	run sbatch --parsable -w n3 -o "$PWD/job.out" job.sh
	[ "$status" -eq 0 ]
	id=$output
	for _ in $(seq 100); do
		[ -s job.out ] && [ -z "$(squeue -h -j "$id" -o %i 2>/dev/null)" ] && break
		sleep 0.1
	done
	[ "$(cat job.out)" = "job on n3" ]
}

@test "kill-node kills a node's slurmd and its step; the others still run steps" {
	# a cluster of its own: this one ends with a dead node
	local k="$BATS_TEST_TMPDIR/k" task=""
	"$SC" up -q --nodes 2 "$k"
	timeout 60 env SLURM_CONF="$k/slurm.conf" srun -N1 -w n1 sleep 300 2>srun.err &
	srun_pid=$!
	for _ in $(seq 100); do
		task=$(grep -lzx "SLURM_CONF=$k/slurm.conf" /proc/[0-9]*/environ 2>/dev/null |
			cut -d/ -f3 | while read -r p; do
				[ "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" != "/usr/bin/sleep 300 " ] || echo "$p"
			done || true)
		[ -n "$task" ] && break
		sleep 0.1
	done
	[ -n "$task" ]
	run "$SC" kill-node "$k" n1
	[ "$status" -eq 0 ]
	run alive "$task"
	[ "$status" -ne 0 ]
	# srun ends, seeing its task killed or its node failed (its exit
	# status is 0 after a node failure, as Slurm 22.05 has it)
	st=0
	wait "$srun_pid" || st=$?
	[ "$st" -ne 124 ] # not timeout's
	cat srun.err # shown if the test fails
	grep -Eq 'n1: task 0: Killed|Node failure on n1' srun.err
	run timeout 30 env SLURM_CONF="$k/slurm.conf" srun -N1 -w n2 hostname
	[ "$status" -eq 0 ]
	run "$SC" kill-node "$k" n1
	[ "$status" -eq 1 ]
	[[ $output == *"n1's slurmd is not running"* ]]
	"$SC" down -q "$k"
}

@test "stop-ctld: the controller answers nothing until cont-ctld; down stops it stopped" {
	local k="$BATS_TEST_TMPDIR/k"
	"$SC" up -q --nodes 1 "$k"
	run "$SC" stop-ctld "$k"
	[ "$status" -eq 0 ]
	# sinfo waits on it (Slurm's own MessageTimeout is 10 s)
	run timeout 3 env SLURM_CONF="$k/slurm.conf" sinfo -h
	[ "$status" -eq 124 ]
	run "$SC" cont-ctld "$k"
	[ "$status" -eq 0 ]
	run timeout 30 env SLURM_CONF="$k/slurm.conf" sinfo -h -o %t
	[ "$status" -eq 0 ]
	[ "$output" = idle ]
	"$SC" stop-ctld "$k"
	local ctld
	read -r ctld <"$k/slurmctld.pid"
	alive "$ctld"
	"$SC" down -q "$k"
	run alive "$ctld"
	[ "$status" -ne 0 ]
	run "$SC" stop-ctld "$PWD/nothing"
	[ "$status" -eq 1 ]
	run "$SC" cont-ctld
	[ "$status" -eq 2 ]
}

@test "down cancels every job and stops every process it started; up again works" {
	local d="$BATS_TEST_TMPDIR/d"
	"$SC" up -q --nodes 1 "$d"
	printf '#!/bin/sh\nsleep 300\n' >long.sh
	SLURM_CONF="$d/slurm.conf" sbatch -o /dev/null long.sh
	for _ in $(seq 100); do
		[ "$(SLURM_CONF="$d/slurm.conf" squeue -h -o %t)" = R ] && break
		sleep 0.1
	done
	[ "$(SLURM_CONF="$d/slurm.conf" squeue -h -o %t)" = R ]
	pids=$(cluster_pids "$d")
	[ -n "$pids" ]
	"$SC" down -q "$d"
	for p in $pids; do
		run alive "$p"
		[ "$status" -ne 0 ]
	done
	[ ! -e "$d/cluster.env" ]
	"$SC" up -q --nodes 1 "$d"
	run "$SC" status "$d"
	[ "$status" -eq 0 ]
	"$SC" down -q "$d"
}

@test "down-all UNDER stops the clusters under UNDER, and only those, their DIR deleted or not" {
	mkdir -p a b
	"$SC" up -q --nodes 1 "$PWD/a/c"
	pids=$(cluster_pids a/c)
	[ -n "$pids" ]
	rm -rf a/c
	"$SC" down-all -q "$PWD/a"
	for p in $pids; do
		run alive "$p"
		[ "$status" -ne 0 ]
	done
	run "$SC" status "$C" # the file's cluster is not under a/
	[ "$status" -eq 0 ]
}

@test "usage errors exit 2; a missing tool exits 3 naming the package" {
	run "$SC" up --nodes 0 "$PWD/x"
	[ "$status" -eq 2 ]
	run "$SC" frob
	[ "$status" -eq 2 ]
	mkdir bin
	for t in bash sed grep cut sort head realpath mkdir cat; do ln -s "$(command -v $t)" bin/; done
	run env PATH="$PWD/bin" "$SC" up "$PWD/y"
	[ "$status" -eq 3 ]
	[[ $output == *"apt-get install -y munge"* ]]
}
