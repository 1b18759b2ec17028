#!/usr/bin/env bats
# run-all: once
# tests/cluster/testcluster itself: the sshd worker hosts the SSH suites
# run on.  Needs root and openssh-server, iproute2 for the netns tests.
# Nothing here times anything (each waits for the event it checks), so
# it runs in the lanes; the one test that times a shaped link is in
# cluster-shape.bats, alone.
load helper

setup_file() {
	export TC="$BATS_TEST_DIRNAME/../cluster/testcluster" # whatever TESTCLUSTER says
	export C="$BATS_FILE_TMPDIR/c"
	"$TC" up -q 3 "$C"
}

teardown_file() {
	"$TC" down -q "$C"
}

on() { # WORKER COMMAND: run COMMAND on a worker of $C
	ssh -F "$C/ssh_config" -n "$@"
}

@test "loopback: hosts and known_hosts name every worker, each its own sshd" {
	[ "$(wc -l <"$C/hosts")" -eq 3 ]
	local k=0 n h p u key wd
	while read -r n h p u key wd; do
		k=$((k + 1))
		[ "$n" = "w$k" ]
		[ "$h" = 127.0.0.1 ]
		[ "$u" = root ]
		[ "$key" = "$C/id_ed25519" ]
		[ "$wd" = "$C/w$k/work" ]
		[ -d "$wd" ]
		grep -q "^\[127.0.0.1\]:$p ssh-ed25519 " "$C/known_hosts"
		[ "$(cat "$C/w$k/sshd.pid")" != "$(cat "$C/w1/sshd.pid")" ] || [ $k = 1 ]
	done <"$C/hosts"
	[ "$(cut -d' ' -f3 "$C/hosts" | sort -u | wc -l)" -eq 3 ]
	grep -qx 'TESTCLUSTER_MODE=loopback' "$C/cluster.env"
}

@test "loopback: a session has the worker's hostname, an empty HOME and its workdir" {
	for k in 1 2 3; do
		run on "w$k" 'hostname; echo "$HOME $TESTCLUSTER_WORKER $TESTCLUSTER_WORKDIR"; ls -A "$HOME" | wc -l'
		[ "$status" -eq 0 ]
		[ "${lines[0]}" = "w$k" ]
		[ "${lines[1]}" = "$C/w$k/home w$k $C/w$k/work" ]
		[ "${lines[2]}" -eq 0 ]
	done
}

@test "loopback: a worker's host key does not pass for another worker's" {
	read -r _ h p1 _ <"$C/hosts"
	p2=$(sed -n 2p "$C/hosts" | cut -d' ' -f3)
	run ssh -F "$C/ssh_config" -o HostKeyAlias="[$h]:$p2" -p "$p1" -n "$h" true
	[ "$status" -ne 0 ]
	[[ $output == *"IDENTIFICATION HAS CHANGED"* || $output == *"verification failed"* ]]
}

@test "not shared: a worker sees its own workdir, not the master's nor another's" {
	echo secret >"$C/master/m.txt"
	echo two >"$C/w2/work/two.txt"
	run on w1 "ls -A $C/master $C/w2/work; echo mine > $C/w1/work/one.txt"
	[ "$status" -eq 0 ]
	[[ $output != *m.txt* && $output != *two.txt* ]]
	[ "$(cat "$C/w1/work/one.txt")" = mine ]
	[ "$(on w2 "cat $C/w2/work/two.txt")" = two ]
}

@test "status: every worker up, exit 0; a dead one is named, exit 1; up restarts it" {
	run "$TC" status "$C"
	[ "$status" -eq 0 ]
	[ "$(grep -c ' up$' <<<"$output")" -eq 3 ]
	kill "$(cat "$C/w2/sshd.pid")"
	for _ in $(seq 100); do "$TC" status "$C" >/dev/null || break; sleep 0.05; done
	run "$TC" status "$C"
	[ "$status" -eq 1 ]
	[[ ${lines[2]} == "w2 "*" down" ]]
	"$TC" up -q 3 "$C"
	"$TC" status "$C"
	# up again on a live cluster changes nothing
	pid=$(cat "$C/w1/sshd.pid")
	"$TC" up -q 3 "$C"
	[ "$(cat "$C/w1/sshd.pid")" = "$pid" ]
	[ "$(on w1 hostname)" = w1 ]
}

@test "down stops the sshds, their sessions and what escaped them; up again works" {
	on w3 'setsid sleep 313 </dev/null >/dev/null 2>&1 &'
	on w1 'sleep 314' &
	for _ in $(seq 50); do [ "$(pcount '^sleep 31[34]$')" -eq 2 ] && break; sleep 0.1; done
	[ "$(pcount '^sleep 31[34]$')" -eq 2 ]
	pids=$(cat "$C"/w*/sshd.pid)
	"$TC" down -q "$C"
	wait
	for p in $pids; do [ ! -e "/proc/$p" ] || grep -q '^State:.*Z' "/proc/$p/status"; done
	[ "$(pcount '^sleep 31[34]$')" -eq 0 ]
	run "$TC" status "$C"
	[ "$status" -ne 0 ]
	[ ! -e "/run/wfrun-testcluster/${C//\//%}" ]
	"$TC" down -q "$C" # a second down does nothing
	"$TC" up -q 3 "$C"
	[ "$(on w3 hostname)" = w3 ]
}

@test "down-all UNDER stops the clusters under UNDER, and only those" {
	"$TC" up -q 1 "$BATS_TEST_TMPDIR/in/a"
	"$TC" up -q 1 "$BATS_TEST_TMPDIR/in/b"
	"$TC" down-all -q "$BATS_TEST_TMPDIR/in"
	run "$TC" status "$BATS_TEST_TMPDIR/in/a"
	[ "$status" -ne 0 ]
	run "$TC" status "$BATS_TEST_TMPDIR/in/b"
	[ "$status" -ne 0 ]
	"$TC" status "$C"
}

@test "down-all stops a cluster whose directory was deleted under it" {
	"$TC" up -q 2 "$BATS_TEST_TMPDIR/gone/a"
	local pids
	pids=$(pgrep -f -- "-f $BATS_TEST_TMPDIR/gone/a/w[12]/sshd_config")
	[ "$(wc -w <<<"$pids")" -eq 2 ]
	rm -rf "$BATS_TEST_TMPDIR/gone/a"
	"$TC" down-all -q "$BATS_TEST_TMPDIR/gone"
	local p
	for p in $pids; do
		[ ! -d "/proc/$p" ] || [ "$(cut -d' ' -f3 "/proc/$p/stat")" = Z ]
	done
	run pgrep -f -- "-f $BATS_TEST_TMPDIR/gone/a/"
	[ "$status" -eq 1 ]
	"$TC" status "$C"
}

@test "a missing tool exits 3 naming the package to install; shaping wants netns" {
	mkdir bin
	ln -s "$(command -v ssh)" bin/ssh
	run env PATH="$PWD/bin" /bin/bash "$TC" up 1 "$PWD/x"
	[ "$status" -eq 3 ]
	[[ $output == *"ssh-keygen is missing: apt-get install -y openssh-client"* ]]
	run "$TC" up --rate 8mbit 1 "$PWD/y"
	[ "$status" -eq 4 ]
	[[ $output == *"shaping needs --netns"* ]]
	[ ! -e y/cluster.env ]
}

@test "netns: own addresses at port 22, no way off the machine; down removes it all" {
	N="$BATS_TEST_TMPDIR/n"
	"$TC" up -q --netns --no-fallback --shared 2 "$N"
	grep -qx 'TESTCLUSTER_MODE=netns' "$N/cluster.env"
	. "$N/cluster.env"
	[ "$(cut -d' ' -f2,3 "$N/hosts" | tr '\n' ' ')" = "${TESTCLUSTER_SUBNET%.0/24}.11 22 ${TESTCLUSTER_SUBNET%.0/24}.12 22 " ]
	[ "$(ssh -F "$N/ssh_config" -n w2 'hostname; echo $TESTCLUSTER_WORKDIR')" = "w2
$N/shared" ]
	run ssh -F "$N/ssh_config" -n w1 'ip route show default; ip route get 192.0.2.1'
	[[ $output == *"Network is unreachable"* ]]
	ip route show "$(cut -d. -f1,2 <<<"$TESTCLUSTER_SUBNET").0.0/16" | grep -q '^unreachable'
	[ "$(cat "/proc/sys/net/ipv4/conf/wftc$TESTCLUSTER_NET/forwarding")" = 0 ]
	ip netns exec "wftc-$TESTCLUSTER_NET-w1" sleep 315 3>&- &
	ssh -F "$N/ssh_config" -n w2 'setsid sleep 316 </dev/null >/dev/null 2>&1 &'
	for _ in $(seq 50); do [ "$(pcount '^sleep 31[56]$')" -eq 2 ] && break; sleep 0.1; done
	[ "$(pcount '^sleep 31[56]$')" -eq 2 ]
	"$TC" down -q "$N"
	[ "$(pcount '^sleep 31[56]$')" -eq 0 ]
	[ ! -e "/sys/class/net/wftc$TESTCLUSTER_NET" ]
	[ ! -e "/sys/class/net/wftc${TESTCLUSTER_NET}w1" ]
	[ ! -e "/run/netns/wftc-$TESTCLUSTER_NET-w1" ]
	[ ! -e "/run/netns/wftc-$TESTCLUSTER_NET-w2" ]
}

# pstate PID: the one-letter state of a process (S sleeping, T stopped,
# Z a zombie), or "gone"
pstate() {
	local s
	if read -r s 2>/dev/null <"/proc/$1/stat"; then
		s=${s##*) }
		echo "${s%% *}"
	else
		echo gone
	fi
}

# whether process $p is in state $1 (a signal is delivered when the
# process next runs: on a loaded machine its state changes a moment
# after kill returns)
in_state() { [ "$(pstate "$p")" = "$1" ]; }
ended() { [[ $(pstate "$p") == [Z]* || $(pstate "$p") == gone ]]; }

# whether the command of the partition test runs on w1, or has ended
waiting_on_w1() { [[ $("$TC" procs "$N" w1) == *"echo alive"* ]]; }
gone_on_w1() { [[ $("$TC" procs "$N" w1) != *"echo alive"* ]]; }

@test "netns: partition cuts a link silently and heal puts it back; kill-host, stop-agent and procs act on one host" {
	N="$BATS_TEST_TMPDIR/f"
	"$TC" up -q --netns --no-fallback --shared 2 "$N"
	cp /bin/sleep "$N/shared/wfrun-worker-x"
	ssh -F "$N/ssh_config" -n w1 "setsid $N/shared/wfrun-worker-x 317 </dev/null >/dev/null 2>&1 &"
	run "$TC" procs "$N" w1
	[[ $output == *" $N/shared/wfrun-worker-x 317"* ]]
	[[ $output != *listener* ]]
	[[ $("$TC" procs "$N" w2) != *worker-x* ]]
	# an open connection lives through a partition; new ones fail.  (Its
	# command waits for a file, not a fixed time: the partition is made
	# once the command runs, and it answers once the link is cut.)
	ssh -F "$N/ssh_config" -n w1 "while [ ! -e $N/shared/go ]; do sleep 0.1; done; echo alive" >alive.txt 3>&- &
	a=$!
	wait_until waiting_on_w1
	"$TC" partition -q "$N" w1
	run -255 ssh -F "$N/ssh_config" -o ConnectTimeout=1 -n w1 true
	run -1 "$TC" status "$N"
	[[ ${lines[1]} == "w1 "*" partitioned" && ${lines[2]} == *" up" ]]
	touch "$N/shared/go"
	wait_until gone_on_w1
	sleep 0.5
	[ ! -s alive.txt ]
	"$TC" heal -q "$N" w1
	wait "$a"
	[ "$(cat alive.txt)" = alive ]
	"$TC" status "$N"
	# stop-agent: every wfrun-worker* process of that host, and only those
	run "$TC" stop-agent "$N" w1
	[ "$status" -eq 0 ]
	p=$output
	wait_until in_state T
	"$TC" stop-agent "$N" w1 --cont
	wait_until in_state S
	run -1 "$TC" stop-agent "$N" w2
	[[ $output == *"no wfrun-worker process on w2"* ]]
	# kill-host: all of w1 gone, w2 untouched; up brings w1 back
	"$TC" kill-host -q "$N" w1
	run -1 "$TC" status "$N"
	[[ ${lines[1]} == "w1 "*" - down" && ${lines[2]} == *" up" ]]
	[ -z "$("$TC" procs "$N" w1)" ]
	wait_until ended
	w2=$(cat "$N/w2/sshd.pid")
	"$TC" up -q --netns --no-fallback --shared 2 "$N"
	"$TC" status "$N"
	[ "$(cat "$N/w2/sshd.pid")" = "$w2" ] # only the dead one started again
	run -4 "$TC" partition "$C" w1
	[[ $output == *"partitions need a cluster in netns mode"* ]]
	"$TC" down -q "$N"
}
