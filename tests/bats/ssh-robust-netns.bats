#!/usr/bin/env bats
# One worker host whose workdir is not shared, in a network namespace with
# a shaped link: SFTP transfers and the agent's messages interleaved on
# one SSH session, and the liveness of a worker that goes silent.
load helper

setup_file() {
	export C="$BATS_FILE_TMPDIR/rn"
	"$TESTCLUSTER" up -q --netns --no-fallback 1 "$C"
	cluster_xml "$C" false
	sed -i 's|<cores>2</cores>|<cores>4</cores>|' "$C/cluster.xml"
}

teardown_file() {
	"$TESTCLUSTER" down -q "$C"
}

setup() {
	master_setup
}

@test "netns, shaped: tasks sent while an input is uploaded never lose the worker" {
	# issue 24, defect 1: the channel write met the SFTP upload's
	# half-sent packet, got LIBSSH2_ERROR_BAD_USE, and the healthy
	# worker was declared lost (exit 3)
	"$TESTCLUSTER" shape "$C" w1 --rate 8mbit
	head -c 3000000 /dev/urandom >big.bin
	wf <<'EOF2'
tasks:
  - {name: big, in: {f: big.bin}, out: {o: big.sum},
     run: "cksum < {in.f} > {out.o}"}
  - {name: echo, foreach: {i: "1..60"}, out: {o: "e/{i}.txt"},
     run: "echo {i} > {out.o}"}
EOF2
	run "$WFRUN" -r "$C/cluster.xml" wf.yaml
	"$TESTCLUSTER" shape "$C" w1
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *lost* ]]
	[ "$(cat big.sum)" = "$(cksum < big.bin)" ]
	[ "$(cat e/60.txt)" = 60 ]
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

# w1's sshd accepts a connection (its link back up: the next test's run
# met "No route to host" when it connected at once).
w1_reachable() {
	local host port
	host=$(awk '$1 == "Host" { h = $2 } h == "w1" && $1 == "HostName" { print $2; exit }' "$C/ssh_config")
	port=$(awk '$1 == "Host" { h = $2 } h == "w1" && $1 == "Port" { print $2; exit }' "$C/ssh_config")
	timeout 1 bash -c "exec 7<>/dev/tcp/$host/$port" 2>/dev/null
}

has_sleep() {
	[ "$(pcount 'sleep 3600')" -ge 1 ]
}

@test "netns: a second interrupt ends the run at once though the agent is stopped" {
	# issue 24, defect 6: only shared workers counted as remote, so with
	# a stopped agent a second SIGINT waited for it without end
	wf <<'EOF2'
tasks:
  - name: stuck
    run: "sleep 3600"
EOF2
	"$WFRUN" -q -r "$C/cluster.xml" wf.yaml 3>&- &
	pid=$!
	wait_for 10 has_sleep
	agents=$(mine 'wfrun-worker')
	kill -STOP $agents
	kill -INT "$pid"
	sleep 0.3
	kill -INT "$pid"
	rc=0
	exits_within "$pid" 4 || rc=1
	kill -CONT $agents
	kill -9 "$pid" 2>/dev/null || true
	[ "$rc" -eq 0 ]
	wait "$pid" || [ $? -eq 130 ]
}

@test "netns: a silent partition loses the worker within lost-after; its agent stops its tasks" {
	# issue 24, defect 9: a link that went dark was never noticed (the
	# kernel's retries take 15 minutes) and the run sat there
	. "$C/cluster.env"
	sed 's|<ssh |<ssh lost-after="2" |' "$C/cluster.xml" >lost2.xml
	wf <<'EOF2'
tasks:
  - name: stuck
    run: "sleep 3600"
EOF2
	"$WFRUN" -r lost2.xml wf.yaml 3>&- 2>err.txt &
	pid=$!
	wait_for 10 has_sleep
	ip link set "wftc${TESTCLUSTER_NET}w1" down
	rc=0
	exits_within "$pid" 8 || rc=1
	# the agent, without a word from the master, stops its task
	wait_for 8 eval '[ "$(pcount "sleep 3600")" -eq 0 ]' || rc=2
	ip link set "wftc${TESTCLUSTER_NET}w1" up
	wait_for 10 w1_reachable || rc=3
	kill -9 "$pid" 2>/dev/null || true
	cat err.txt
	[ "$rc" -eq 0 ]
	grep -q "worker 'w1' lost: no word from the agent on .* for 2 s" err.txt
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 3 ]
}

@test "netns: a DONE over 1 MiB (5,000 outputs of 220-character names) is read" {
	# issue 24, defect 5: protocol lines were limited to 1 MiB; the DONE
	# was dropped and the run waited for its task for good
	wf <<'EOF2'
tasks:
  - {name: many, out: {d: {dir: out}},
     run: "mkdir -p {out.d} && cd {out.d} && seq -f '%0220g' 1 5000 | xargs touch"}
  - {name: count, in: {d: {dir: out}}, out: {n: n.txt},
     run: "ls {in.d} | wc -l > {out.n}"}
EOF2
	run timeout 60 "$WFRUN" -r "$C/cluster.xml" --fetch final wf.yaml
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cat n.txt)" -eq 5000 ]
}

@test "netns: a task's timeout holds though its agent is stopped" {
	# issue 24, defect 7: a task of timeout 2 s whose agent was stopped
	# ran until the worker was given up (17 s and more)
	wf <<'EOF2'
tasks:
  - name: stopper
    timeout: 2
    run: "kill -STOP $PPID; sleep 3600"
EOF2
	SECONDS=0
	run timeout 60 "$WFRUN" -r "$C/cluster.xml" wf.yaml
	took=$SECONDS
	for p in $(mine wfrun-worker); do kill -CONT "$p"; done
	echo "$output"
	echo "took $took s"
	[ "$status" -eq 3 ]
	[[ "$output" == *"did not end a task within 5 s of being told to kill it"* ]]
	[ "$took" -le 12 ]
}

@test "netns: an agent that never greets fails at the timeout; the healthy worker runs the tasks" {
	# issue 24, defect 7: it held the whole run, timeout="3" or not
	read -r _ h p u k wd <"$C/hosts"
	ver=$("${WFRUN%/*}/wfrun-worker" --version)
	read -r _ v _ proto <<<"$ver"
	mkdir -p "$wd/mute/.wfrun/bin"
	agent="$wd/mute/.wfrun/bin/wfrun-worker-$v-p$proto"
	printf '#!/bin/sh\n[ "$1" = --version ] && { echo "%s"; exit 0; }\nexec sleep 3600\n' "$ver" >"$agent"
	chmod +x "$agent"
	{
		echo '<resources>'
		echo "  <worker name=\"mute\" host=\"$h\" port=\"$p\" user=\"$u\">"
		echo "    <cores>2</cores><workdir shared=\"false\">$wd/mute</workdir>"
		echo "    <ssh timeout=\"3\" identity=\"$k\" known-hosts=\"$C/known_hosts\"/>"
		echo "  </worker>"
		echo "  <worker name=\"ok\" host=\"$h\" port=\"$p\" user=\"$u\">"
		echo "    <cores>2</cores><workdir shared=\"false\">$wd</workdir>"
		echo "    <ssh identity=\"$k\" known-hosts=\"$C/known_hosts\"/>"
		echo "  </worker>"
		echo '</resources>'
	} >two.xml
	wf <<'EOF2'
tasks:
  - name: hello
    foreach: {i: "1..4"}
    out: {o: "h{i}.txt"}
    run: "echo {i} > {out.o}"
EOF2
	SECONDS=0
	run timeout 60 "$WFRUN" -r two.xml wf.yaml
	took=$SECONDS
	for q in $(mine 'sleep 3600'); do kill "$q"; done
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"worker 'mute'"*"the agent on $h did not greet within 3 s"* ]]
	[ "$(cat h4.txt)" = 4 ]
	[ "$took" -le 15 ]
	[ "$(trace_col worker | sort -u)" = ok ]
}
