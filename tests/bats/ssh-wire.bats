#!/usr/bin/env bats
# run-all: once (a netns cluster of shaped links; the costs are the links')
# The wire between the master and its SSH workers (issue 24): the end of
# a run whose link went dark, SFTP and agent traffic interleaved on every
# session of several shaped workers, and large protocol messages.
load helper

setup_file() {
	export C="$BATS_FILE_TMPDIR/wire"
	"$TESTCLUSTER" up -q --netns --no-fallback 3 "$C"
	cluster_xml "$C" false
}

teardown_file() {
	"$TESTCLUSTER" down -q "$C"
}

setup() {
	master_setup
}

has_marker() {
	[ "$(pcount 'sleep 3.75')" -ge 1 ]
}

# r.xml, lost-after 10 s, and wf.yaml, one task 'last' of 4 cores: w3 has
# the only 4 cores, the task runs there, w1 and w2 stay idle.
last_on_w3() {
	sed -e 's|<ssh |<ssh lost-after="10" |' \
	    -e '/<worker name="w3"/,/<\/worker>/ s|<cores>2</cores>|<cores>4</cores>|' \
	    "$C/cluster.xml" >r.xml
	wf <<'EOF2'
tasks:
  - {name: last, cores: 4, out: {o: last.txt}, run: "sleep 3.75; echo done > {out.o}"}
EOF2
}

@test "netns: a link gone dark as the run ends does not hold the exit past lost-after" {
	# issue 24: the close of a worker whose link had gone dark (and was
	# not yet found lost) waited for the agent's goodbye 10 s, then SFTP's
	# shutdown and the disconnect blocked 20 s each (the session
	# timeout): the run ended 50 s after its last task
	. "$C/cluster.env"
	last_on_w3
	"$WFRUN" -r r.xml wf.yaml 3>&- 2>err.txt &
	pid=$!
	rc=2 # the task must be running when the link goes
	for _ in $(seq 200); do has_marker && rc=0 && break; sleep 0.1; done
	ip link set "wftc${TESTCLUSTER_NET}w1" down
	# the task ends within 3.75 s from now; then the goodbye waits
	# lost-after/2 for w1 and the close 2 s at most: the run ends before
	# the lost-after from the task's end
	timeout 13 tail --pid="$pid" -f /dev/null || rc=1
	ip link set "wftc${TESTCLUSTER_NET}w1" up
	kill -9 "$pid" 2>/dev/null || true
	cat err.txt
	[ "$rc" -eq 0 ]
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 0 ]
	[ "$(cat last.txt)" = done ]
}

@test "netns: two links gone dark as the run ends: their goodbyes wait together" {
	# issue 24: the workers were released one after another, so every
	# dark link added its wait (lost-after/2 for the goodbye, then the
	# close) to the end of the run; now each connection ends in its own
	# thread at once: every worker is told to close before any is closed
	. "$C/cluster.env"
	last_on_w3
	"$WFRUN" -v -r r.xml wf.yaml 3>&- 2>err.txt &
	pid=$!
	rc=2 # the task must be running when the links go
	for _ in $(seq 200); do has_marker && rc=0 && break; sleep 0.1; done
	ip link set "wftc${TESTCLUSTER_NET}w1" down
	ip link set "wftc${TESTCLUSTER_NET}w2" down
	st=0
	wait "$pid" || st=$?
	ip link set "wftc${TESTCLUSTER_NET}w1" up
	ip link set "wftc${TESTCLUSTER_NET}w2" up
	grep "worker 'w[123]': clos" err.txt
	[ "$rc" -eq 0 ]
	[ "$st" -eq 0 ]
	[ "$(cat last.txt)" = done ]
	# the last "closing" comes before the first "closed"
	grep -n "worker 'w[123]': clos" err.txt >ends.txt
	[ "$(grep -c ': closing$' ends.txt)" -eq 3 ]
	[ "$(grep -c ': closed' ends.txt)" -eq 3 ]
	[ "$(grep ': closing$' ends.txt | tail -n 1 | cut -d: -f1)" -lt "$(grep ': closed' ends.txt | head -n 1 | cut -d: -f1)" ]
	grep -q "worker 'w1': closed (no goodbye from its agent)" ends.txt
	grep -q "worker 'w2': closed (no goodbye from its agent)" ends.txt
	grep -qx "[0-9]*:wfrun: worker 'w3': closed" ends.txt
}

@test "netns, 3 shaped workers: uploads beside agent traffic, no worker lost, every output right" {
	# issue 24, "one owner per libssh2 session": the suite's cut of
	# bench/ssh-stress.sh (8 workers, 200 tasks, 20 runs there)
	for k in 1 2 3; do "$TESTCLUSTER" shape "$C" "w$k" --rate 8mbit; done
	mkdir in
	for i in $(seq 1 16); do
		head -c $((i * 80000)) /dev/urandom >"in/$i.bin"
	done
	wf <<'EOF2'
tasks:
  - {name: sum, foreach: {i: "1..16"}, in: {f: "in/{i}.bin"},
     out: {o: "out/{i}.sum"}, run: "cksum < {in.f} > {out.o}"}
  - {name: echo, foreach: {i: "1..60"}, out: {o: "e/{i}.txt"},
     run: "echo {i} > {out.o}"}
EOF2
	run "$WFRUN" -r "$C/cluster.xml" wf.yaml
	for k in 1 2 3; do "$TESTCLUSTER" shape "$C" "w$k"; done
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *lost* ]]
	for i in $(seq 1 16); do
		[ "$(cat "out/$i.sum")" = "$(cksum <"in/$i.bin")" ]
	done
	[ "$(cat e/60.txt)" = 60 ]
	[ "$(trace_col worker | sort -u | wc -l)" -eq 3 ]
}

@test "netns: a task of 20,000 output files over SSH, read by the next task, as locally" {
	# issue 24, "framing without a line limit": its DONE (1 MB) and the
	# next task's SRUN (3 MB) are single lines; the agent, busy linking
	# or listing them, says PONG unasked, so a short lost-after holds
	sed 's|<ssh |<ssh lost-after="4" |' "$C/cluster.xml" >l4.xml
	wf <<'EOF2'
tasks:
  - {name: many, out: {d: {dir: out}},
     run: "mkdir -p {out.d} && cd {out.d} && seq -f 'file-with-a-name-of-forty-characters-%06g' 1 20000 | xargs touch"}
  - {name: count, in: {d: {dir: out}}, out: {n: n.txt},
     run: "ls {in.d} | wc -l > {out.n}"}
EOF2
	run timeout 120 "$WFRUN" -r l4.xml --fetch final wf.yaml
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *lost* ]]
	[ "$(cat n.txt)" -eq 20000 ]
}
