#!/usr/bin/env bats
# Resuming runs on workers whose workdir is not shared: their tasks are
# journaled once what they made is back, so a rerun does nothing, an
# update in place (inout) is never applied twice, a fetch cut short
# never becomes data, and an output lost with its worker during the
# fetch is made again elsewhere.
load helper

setup_file() {
	export C="$BATS_FILE_TMPDIR/r"
	"$TESTCLUSTER" up -q 3 "$C"
	cluster_xml "$C" false
}

teardown_file() {
	"$TESTCLUSTER" down -q "$C"
}

# Each test in its own directory under the master's dir, which the
# workers cannot see.
setup() {
	W="$C/master/t$BATS_TEST_NUMBER"
	mkdir -p "$W"
	cd "$W" || exit 1
}

# gen (6, spread over the workers) -> sum, each adding a line to
# total.txt in place; list reads the collection gen wrote.  $1: bytes of
# padding in each gen output (to make the fetch last).
inout_wf() {
	echo base >total.txt
	wf <<EOF2
tasks:
  - name: gen
    foreach: {i: "1..6"}
    out: {f: "out/{i}.txt"}
    run: "echo {i} > {out.f}; head -c ${1:-0} /dev/zero >> {out.f}"
  - name: sum
    foreach: {i: "1..6"}
    in: {f: "out/{i}.txt"}
    inout: {t: total.txt}
    run: "head -1 {in.f} >> {inout.t}"
  - name: list
    in: {d: {dir: out}}
    out: {o: list.txt}
    run: "ls {in.d} > {out.o}"
EOF2
}

@test "not shared: a rerun after success runs nothing, and total.txt keeps one update per task" {
	inout_wf
	run "$WFRUN" -r "$C/cluster.xml" wf.yaml
	[ "$status" -eq 0 ]
	[ "$(wc -l <total.txt)" -eq 7 ]
	[ "$(trace_col worker | sort -u | wc -l)" -ge 2 ]
	run "$WFRUN" -r "$C/cluster.xml" wf.yaml
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"13 of 13 tasks are up to date"* ]]
	[ "$(wc -l <total.txt)" -eq 7 ]
	[ "$(cat total.txt | tr '\n' ' ')" = "base 1 2 3 4 5 6 " ]
	# the relay of the first run is gone
	[ ! -e .wfrun/relay ]
}

@test "--fetch final: what stayed on a worker is journaled absent; its producer runs again when a reader must" {
	wf <<'EOF2'
tasks:
  - name: a
    out: {o: mid/m.txt}
    run: "echo mid > {out.o}"
  - name: b
    in: {i: mid/m.txt}
    out: {o: final.txt}
    run: "cat {in.i} {in.i} > {out.o}"
EOF2
	run "$WFRUN" -q -r "$C/cluster.xml" --fetch final wf.yaml
	[ "$status" -eq 0 ]
	[ ! -e mid/m.txt ]
	run "$WFRUN" -r "$C/cluster.xml" --fetch final wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"2 of 2 tasks are up to date"* ]]
	rm final.txt
	run "$WFRUN" -n --reason -r "$C/cluster.xml" --fetch final wf.yaml
	echo "$output"
	[[ "$output" == *"# 'a': 'b', which runs, reads what it left on a worker"* ]]
	run "$WFRUN" -r "$C/cluster.xml" --fetch final wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat final.txt)" = "$(printf 'mid\nmid')" ]
	[ "$(grep -c . .wfrun/trace.tsv)" -eq 3 ]
}

@test "not shared: the master killed during the final fetch; the rerun applies each update once and no partial file is data" {
	inout_wf 10000000
	"$WFRUN" -q -r "$C/cluster.xml" wf.yaml >out.txt 2>&1 &
	pid=$!
	for _ in $(seq 600); do
		[ -n "$(find . -name '*.wfrun-part')" ] && break
		sleep 0.05
	done
	kill -KILL "$pid"
	find . -name '*.wfrun-part' | grep -q .
	wait "$pid" || true
	old=$(ls .wfrun/relay)
	# nothing half fetched is under its own name, nor beside it
	[ -z "$(find . -path ./.wfrun -prune -o -name '*.wfrun-part' -print)" ]
	run "$WFRUN" -r "$C/cluster.xml" wf.yaml
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cat total.txt | tr '\n' ' ')" = "base 1 2 3 4 5 6 " ]
	[ "$(cat list.txt | tr '\n' ' ')" = "1.txt 2.txt 3.txt 4.txt 5.txt 6.txt " ]
	[ ! -e ".wfrun/relay/$old" ]
	run "$WFRUN" -r "$C/cluster.xml" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"13 of 13 tasks are up to date"* ]]
	[ "$(wc -l <total.txt)" -eq 7 ]
}

# Kill worker $1's sshd and everything under it (its agent, its tasks).
kill_worker() {
	local pid all c
	pid=$(cat "$C/$1/sshd.pid")
	all=$pid
	while [ -n "$pid" ]; do
		c=$(for p in $pid; do ps -o pid= --ppid "$p" || true; done)
		all="$all $c"
		pid=$c
	done
	kill -KILL $all 2>/dev/null || true
}

# Last: it kills a worker for good.
@test "not shared: the worker holding an output lost during the final fetch: its producer runs again elsewhere" {
	wf <<'EOF2'
tasks:
  - name: big
    out: {o: big.bin}
    run: "head -c 60000000 /dev/zero > {out.o}; echo end >> {out.o}"
EOF2
	"$WFRUN" -r "$C/cluster.xml" wf.yaml >out.txt 2>&1 &
	pid=$!
	for _ in $(seq 600); do
		[ -n "$(find . -name '*.wfrun-part')" ] && break
		sleep 0.05
	done
	find . -name '*.wfrun-part' | grep -q .
	on=$(trace_col worker)
	kill_worker "$on"
	status=0
	wait "$pid" || status=$?
	cat out.txt
	[ "$status" -eq 0 ]
	grep -q "warning: output 'big.bin' (written by task 'big') was only on worker '$on', which was lost: running task 'big' again" out.txt
	[ "$(tail -c 4 big.bin)" = end ]
	[ "$(stat -c %s big.bin)" -eq 60000004 ]
	[ "$(trace_col worker | tr '\n' ' ')" != "$on $on " ]
	[ "$(grep -c . .wfrun/trace.tsv)" -eq 3 ]
}
