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

# wait_for N CMD...: run CMD every 0.1 s until it succeeds, at most N s.
wait_for() {
	local n
	n=$(($1 * 10))
	shift
	until "$@"; do
		((n--)) || return 1
		sleep 0.1
	done
}

# The run's process $1 has exited within $2 seconds.
exits_within() {
	wait_for "$2" eval "! kill -0 $1 2>/dev/null"
}

has_marker() {
	[ "$(pcount 'sleep 1.75')" -ge 1 ]
}

@test "netns: a link gone dark as the run ends does not hold the exit past lost-after" {
	# issue 24: the close of a worker whose link had gone dark (and was
	# not yet found lost) waited for the agent's goodbye 10 s, then SFTP's
	# shutdown and the disconnect blocked 20 s each (the session
	# timeout): the run ended 50 s after its last task
	. "$C/cluster.env"
	# w3 has the only 4 cores: the task runs there, w1 stays idle
	sed -e 's|<ssh |<ssh lost-after="10" |' \
	    -e '/<worker name="w3"/,/<\/worker>/ s|<cores>2</cores>|<cores>4</cores>|' \
	    "$C/cluster.xml" >r.xml
	wf <<'EOF2'
tasks:
  - {name: last, cores: 4, out: {o: last.txt}, run: "sleep 1.75; echo done > {out.o}"}
EOF2
	"$WFRUN" -r r.xml wf.yaml 3>&- 2>err.txt &
	pid=$!
	wait_for 20 has_marker
	ip link set "wftc${TESTCLUSTER_NET}w1" down
	rc=0
	# the task ends 1.75 s from now; then the goodbye waits lost-after/2
	# for w1 and the close 2 s at most
	exits_within "$pid" 10 || rc=1
	ip link set "wftc${TESTCLUSTER_NET}w1" up
	kill -9 "$pid" 2>/dev/null || true
	cat err.txt
	[ "$rc" -eq 0 ]
	run wait "$pid"
	[ "$status" -eq 0 ]
	[ "$(cat last.txt)" = done ]
}
