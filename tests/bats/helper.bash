# Shared by the bats suites: each test runs in its own temporary directory.
: "${WFRUN:?set WFRUN to the wfrun binary (tests/run-all does)}"
# The SSH suites' worker hosts: the repository's own script unless
# TESTCLUSTER names another.
export TESTCLUSTER="${TESTCLUSTER:-$BATS_TEST_DIRNAME/../cluster/testcluster}"
# `run -1 cmd` and `run ! cmd` (a bare `! cmd` never fails a test under
# set -e: tests/lint-bats rejects it).
bats_require_minimum_version 1.5.0

setup() {
	cd "$BATS_TEST_TMPDIR" || exit 1
}

# wf FILE <<EOF ... EOF: write a workflow file from stdin.
wf() {
	cat >"${1:-wf.yaml}"
}

# The trace column named $1 for every row, one per line.
trace_col() {
	awk -F'\t' -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } { print $k }' "${2:-.wfrun/trace.tsv}"
}

# cluster_xml DIR true|false: write DIR/cluster.xml for the testcluster in
# DIR, one 2-core worker per host, its workdir shared or not.
cluster_xml() {
	local dir=$1 shared=$2 n h p u k wd
	{
		echo '<resources>'
		while read -r n h p u k wd; do
			echo "  <worker name=\"$n\" host=\"$h\" port=\"$p\" user=\"$u\">"
			echo "    <cores>2</cores>"
			echo "    <workdir shared=\"$shared\">$wd</workdir>"
			echo "    <ssh identity=\"$k\" known-hosts=\"$dir/known_hosts\"/>"
			echo "  </worker>"
		done <"$dir/hosts"
		echo '</resources>'
	} >"$dir/cluster.xml"
}

# climb_xml CLUSTER_XML: the testcluster's resources with w1 of 12 cores
# (it learns storage_bw: auto), the others of 1, each with 12 I/O
# executors and a disk of B = 2 MB/s, on stdout.
# steady_writers: wf.yaml with 8 I/O tasks of an auto name, each writing
# 16 KiB every 12.5 ms for 1.5 s (1.3 MB/s): a steady writer whose rate a
# climb can read while it runs.  One process paced by a deadline, so that
# a loaded machine delays a write without changing the pace (a shell loop
# forking a sleep per write jittered, and the climb sometimes saw no two
# halves agree).
steady_writers() {
	wf <<'EOF'
tasks:
  - name: ckpt
    foreach: {i: "1..8"}
    io: true
    storage_bw: auto
    out: {f: "out/{i}"}
    run: "/usr/bin/python3 -c 'import os, sys, time\nfd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)\nt = time.monotonic()\nfor i in range(120):\n    os.write(fd, b\" \" * 16384)\n    t += 0.0125\n    time.sleep(max(0, t - time.monotonic()))\n' {out.f}"
EOF
}

# epoch_c_before T: the c of the last epoch_begin in .wfrun/events.jsonl
# before T (wall seconds): what a task running then was granted last
epoch_c_before() {
	grep '"ev":"epoch_begin"' .wfrun/events.jsonl |
		sed 's/^{"t":\([0-9.]*\),.*"c":\([0-9.]*\),"k":[0-9]*}$/\1 \2/' |
		awk -v e="$1" '$1 < e { c = $2 } END { printf "%g", c }'
}

climb_xml() {
	sed -e '/<worker name="w1"/,/<\/worker>/ s|<cores>2</cores>|<cores>12</cores>|' \
	    -e 's|<cores>2</cores>|<cores>1</cores>|' \
	    -e 's|</worker>|<io-executors>12</io-executors><disk bandwidth="2"/></worker>|' "$1"
}

# cluster_up DIR OPTIONS... N: start testcluster workers with a shared
# workdir and write DIR/cluster.xml with one 2-core worker per host.
cluster_up() {
	local dir=$1
	shift
	"$TESTCLUSTER" up -q --shared "$@" "$dir" || return 1
	cluster_xml "$dir" true
}

# Each test in its own directory of the cluster's shared workdir.
cluster_setup() {
	W="$C/shared/t$BATS_TEST_NUMBER"
	mkdir -p "$W"
	cd "$W" || exit 1
}

# Each test in its own directory under the master's dir of a cluster
# whose workdirs are not shared (the workers cannot see it).
master_setup() {
	W="$C/master/t$BATS_TEST_NUMBER"
	mkdir -p "$W"
	cd "$W" || exit 1
}

# Processes matching the pgrep -f pattern $1 that belong to this bats run
# (their working directory is under its temporary directory, or, for a
# worker agent, whose cwd is the login's home, their testcluster workdir
# is), so that another test suite running on the machine at the same time
# never counts or gets killed.
mine() {
	local root p
	root=$(realpath "$BATS_RUN_TMPDIR")
	pgrep -f "$1" | while read -r p; do
		case "$(readlink "/proc/$p/cwd" 2>/dev/null)" in
		"$root"/*) echo "$p" ;;
		*) if { tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null |
			grep -q "^TESTCLUSTER_WORKDIR=$root/"; then
				echo "$p"
			fi ;;
		esac
	done
}
pcount() {
	mine "$1" | wc -l
}

# The Slurm suites' cluster (tests/cluster/slurmcluster): n1..n3 of 2
# CPUs in the suite's own directory, from setup_file; down in
# teardown_file.
slurm_up() {
	export SC="$BATS_TEST_DIRNAME/../cluster/slurmcluster"
	export C="$BATS_FILE_TMPDIR/slurm"
	"$SC" up -q --nodes 3 --cpus 2 "$C"
	export SLURM_CONF="$C/slurm.conf"
}

# slurm_unreachable fail|hang SECONDS CMD...: wrappers in ./bin for
# Slurm's commands CMD that, once the file ./down exists, fail as when
# slurmctld is unreachable (fail) or hang for SECONDS (hang: a sleep the
# caller can tell apart and kill), as when its host does not answer.
slurm_unreachable() {
	local how=$1 secs=$2 t
	shift 2
	mkdir -p bin
	for t in "$@"; do
		if [ "$how" = hang ]; then
			printf '#!/bin/sh\nif [ -e %s/down ]; then exec sleep %s; fi\nexec %s "$@"\n' \
				"$PWD" "$secs" "$(command -v "$t")" >bin/"$t"
		else
			printf '#!/bin/sh\nif [ -e %s/down ]; then echo "%s: error: Unable to contact slurm controller (connect failure)" >&2; exit 1; fi\nexec %s "$@"\n' \
				"$PWD" "$t" "$(command -v "$t")" >bin/"$t"
		fi
		chmod +x bin/"$t"
	done
}

slurm_down() {
	"$SC" down -q "$C"
}

# The Slurm suites' workflow: 12 tasks, 6 that say on which node they
# ran, and one that gathers the 12's outputs.
scatter_wf() {
	wf <<'EOF'
tasks:
  - name: gen
    foreach: {i: "1..12"}
    out: {o: "out/{i}.txt"}
    run: "sleep 0.2; echo {i} > {out.o}"
  - name: where
    foreach: {i: "1..6"}
    out: {o: "where/{i}.txt"}
    run: "sleep 0.3; echo x$SLURMD_NODENAME > {out.o}"
  - name: cat
    in: {parts: {dir: out}}
    out: {all: all.txt}
    run: "cat {in.parts}/* | sort -n > {out.all}"
EOF
}

# The pids of this bats run's processes running COMMAND LINE (exactly),
# not zombies: their cwd is under its temporary directory (a task's is
# its workdir), so that two Slurm suites side by side in the lanes, both
# with 'sleep 3000' tasks, do not count each other's (slurm-alloc.bats
# saw slurm.bats's task left and failed).
running() {
	local p root
	root=$(realpath "$BATS_RUN_TMPDIR")
	for p in $(pgrep -f -x "$1"); do
		case "$(readlink "/proc/$p/cwd" 2>/dev/null)" in
		"$root"/*) ;;
		*) continue ;;
		esac
		[ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" = Z ] || echo "$p"
	done
}

# Whether N 'sleep 3000' tasks run.
sleeping() {
	[ "$(running 'sleep 3000' | wc -l)" -eq "$1" ]
}

# wait_until CMD...: CMD every 0.1 s until it succeeds, 30 s at most
# (the caller checks again what it waited for).
wait_until() {
	wait_until_s 30 "$@"
}

# wait_until_s SECONDS CMD...: wait_until, SECONDS at most (10 tries a
# second: on a loaded machine, longer)
wait_until_s() {
	local _ n
	n=$(($1 * 10))
	shift
	for _ in $(seq "$n"); do
		if "$@"; then return 0; fi
		sleep 0.1
	done
	return 1
}

# killed_when_hung ARGS...: "$WFRUN" -q ARGS in the background until a
# task of it makes the file 'hung', then kill -9 of it; returns once the
# guardian has ended the task and let go of the lock.  (fd 3 closed: bats
# waits for whatever holds it.)
killed_when_hung() {
	local pid i
	"$WFRUN" -q "$@" 3>&- &
	pid=$!
	for i in $(seq 600); do [ -e hung ] && break; sleep 0.05; done
	[ -e hung ] || return 1
	kill -9 "$pid"
	wait "$pid" || true
	flock .wfrun/lock true
}

# stopped_clean PID SIG [MASTER]: SIG to MASTER (default: PID), then PID
# must end with status 130, leaving no 'sleep 3000' task and nothing in
# squeue (its output, run.out, shown should it not).
stopped_clean() {
	local st=0
	kill -"$2" "${3:-$1}"
	wait "$1" || st=$? # (not `run wait`: run's subshell has no child)
	cat run.out
	[ "$st" -eq 130 ]
	[ -z "$(running 'sleep 3000')" ]
	[ -z "$(squeue -h -s -o %i)" ]
	[ -z "$(squeue -h -o %i)" ]
}
