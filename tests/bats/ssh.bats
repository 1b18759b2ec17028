#!/usr/bin/env bats
# SSH workers: real sshd hosts from tests/cluster/testcluster (loopback), with
# real keys and host-key checking, and a workdir shared by all of them.
load helper

setup_file() {
	export C="$BATS_FILE_TMPDIR/c"
	cluster_up "$C" 3
}

teardown_file() {
	"$TESTCLUSTER" down -q "$C"
}

setup() {
	cluster_setup
}

# The resources file with worker w1 alone.
only_w1() {
	awk '/<worker name="w[23]"/ { skip = 1 } !skip { print } /<\/worker>/ { skip = 0 }' "$C/cluster.xml"
}

spread() {
	wf <<'EOF2'
tasks:
  - name: who
    foreach: {i: "1..12"}
    out: {f: "out/{i}.txt"}
    run: "sleep 0.3; echo $TESTCLUSTER_WORKER {i} > {out.f}"
  - name: all
    in: {d: {dir: out}}
    out: {f: all.txt}
    run: "cat {in.d}/* | sort -k2n > {out.f}"
EOF2
}

@test "a workflow runs across three workers, spread over them" {
	spread
	run "$WFRUN" -q -r "$C/cluster.xml" wf.yaml
	[ "$status" -eq 0 ]
	[ "$(wc -l <all.txt)" -eq 12 ]
	# each worker ran tasks, and the trace names them
	[ "$(awk '{print $1}' all.txt | sort -u | tr '\n' ' ')" = "w1 w2 w3 " ]
	[ "$(trace_col worker | sort -u | tr '\n' ' ')" = "w1 w2 w3 " ]
	# no worker ran more than its 2 cores at once
	for w in w1 w2 w3; do
		peak=$(awk -F'\t' -v w=$w 'NR > 1 && $4 == w { print $13, 1; print $14, -1 }' .wfrun/trace.tsv |
			sort -k1,1n -k2,2n | awk '{ c += $2; if (c > m) m = c } END { print m }')
		[ "$peak" -le 2 ]
	done
}

@test "outputs are byte-identical to a local run" {
	wf <<'EOF2'
vars: {n: 20}
tasks:
  - name: gen
    foreach: {i: "1..{n}"}
    out: {f: "g/{i}"}
    run: "seq {i} 3 200 > {out.f}"
  - name: init
    out: {t: total}
    run: "echo start > {out.t}"
  - name: acc
    foreach: {i: "1..{n}"}
    in: {f: "g/{i}"}
    inout: {t: total}
    run: "sum {in.f} >> {inout.t}"
EOF2
	run "$WFRUN" -q -r "$C/cluster.xml" wf.yaml
	[ "$status" -eq 0 ]
	mv total remote-total
	rm -r g
	run "$WFRUN" -q -j 1 wf.yaml
	[ "$status" -eq 0 ]
	cmp total remote-total
}

@test "check -r validates the resources and lists the workers" {
	spread
	run "$WFRUN" check -r "$C/cluster.xml" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"workers: 3"* && "$output" == *"  w2: 127.0.0.1, 2 cores, shared workdir $C/shared"* ]]
	printf '<resources>\n  <worker name="x" host="h">\n    <cores>0</cores>\n  </worker>\n</resources>\n' >bad.xml
	run "$WFRUN" check -r bad.xml wf.yaml
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "bad.xml:3:1: error: Element 'cores': '0' is not a valid value of the atomic type 'xs:positiveInteger'." ]]
}

@test "a task needing more cores than any worker has is refused before the run" {
	wf <<'EOF2'
tasks:
  - name: big
    cores: 3
    out: {f: f}
    run: "touch {out.f}"
EOF2
	run "$WFRUN" -r "$C/cluster.xml" wf.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"task 'big' asks for 3 cores but only 2 are available"* ]]
}

@test "an unknown host key is refused with its fingerprint; --accept-new-host-keys adds it" {
	spread
	: >kh
	only_w1 | sed "s|known-hosts=\"[^\"]*\"|known-hosts=\"$PWD/kh\"|" >w1.xml
	run "$WFRUN" -r w1.xml wf.yaml
	[ "$status" -eq 3 ]
	[[ "$output" == *"error: worker 'w1' refused: the host key of [127.0.0.1]:"*" is not in $PWD/kh (ssh-ed25519 key SHA256:"*"--accept-new-host-keys"* ]]
	[[ "$output" == *"no worker can be reached; nothing was run"* ]]
	run "$WFRUN" -q --accept-new-host-keys -r w1.xml wf.yaml
	[ "$status" -eq 0 ]
	[ "$(wc -l <kh)" -eq 1 ]
	# the recorded key is the one ssh-keygen finds for that host
	port=$(awk '$1 == "w1" { print $3 }' "$C/hosts")
	ssh-keygen -F "[127.0.0.1]:$port" -f kh >/dev/null
}

@test "a changed host key is refused, even with --accept-new-host-keys" {
	spread
	p1=$(awk '$1 == "w1" { print $3 }' "$C/hosts")
	p2=$(awk '$1 == "w2" { print $3 }' "$C/hosts")
	# w1's entry carries w2's key: what a changed key looks like
	grep "\[127.0.0.1\]:$p2 " "$C/known_hosts" | sed "s/:$p2 /:$p1 /" >kh
	only_w1 |
		sed "s|known-hosts=\"[^\"]*\"|known-hosts=\"$PWD/kh\"|" >w1.xml
	run "$WFRUN" --accept-new-host-keys -r w1.xml wf.yaml
	[ "$status" -eq 3 ]
	[[ "$output" == *"the ssh-ed25519 host key of [127.0.0.1]:$p1 (SHA256:"*") does NOT match the one in $PWD/kh"* ]]
	[ "$(wc -l <kh)" -eq 1 ]
}

@test "a wrong key is refused with a message naming worker, user and key" {
	spread
	ssh-keygen -q -t ed25519 -N '' -f wrongkey
	only_w1 |
		sed "s|identity=\"[^\"]*\"|identity=\"$PWD/wrongkey\"|" >w1.xml
	run "$WFRUN" -r w1.xml wf.yaml
	[ "$status" -eq 3 ]
	[[ "$output" == *"worker 'w1' skipped: login as root on 127.0.0.1 failed; tried key $PWD/wrongkey ("* ]]
}

@test "an unreachable worker is skipped when the others can run the workflow" {
	spread
	sed 's|</resources>|  <worker name="gone" host="127.0.0.1" port="9"><workdir shared="true">/x</workdir></worker>\n</resources>|' \
		"$C/cluster.xml" >four.xml
	run "$WFRUN" -r four.xml wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"worker 'gone' skipped: cannot connect to 127.0.0.1 port 9: Connection refused"* ]]
	[ "$(wc -l <all.txt)" -eq 12 ]
}

@test "the agent is uploaded when a host lacks it" {
	spread
	rm -rf "$C/shared/.wfrun/bin"
	run "$WFRUN" -v -r "$C/cluster.xml" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"uploaded the agent to $C/shared/.wfrun/bin/wfrun-worker-"* ]]
	[ -x "$C"/shared/.wfrun/bin/wfrun-worker-* ]
}

@test "many tasks at once on one worker through one connection" {
	only_w1 | sed 's|<cores>2</cores>|<cores>60</cores>|' >w1.xml
	wf <<'EOF2'
tasks:
  - name: nap
    foreach: {i: "1..60"}
    out: {f: "n/{i}"}
    run: "sleep 2; touch {out.f}"
EOF2
	SECONDS=0
	run "$WFRUN" -q -r w1.xml wf.yaml
	[ "$status" -eq 0 ]
	[ "$(ls n | wc -l)" -eq 60 ]
	# far beyond MaxSessions 10: they overlapped (60 x 2 s sequentially)
	[ "$SECONDS" -lt 30 ]
}

@test "Ctrl-C kills remote tasks and leaves no agent or task on any worker" {
	wf <<'EOF2'
tasks:
  - name: hang
    foreach: {i: "1..6"}
    out: {f: "h{i}"}
    run: "sleep 303 & sleep 304; touch {out.f}"
EOF2
	"$WFRUN" -r "$C/cluster.xml" wf.yaml 2>err.txt &
	pid=$!
	for _ in $(seq 100); do
		[ "$(pcount 'sleep 30[34]')" -ge 12 ] && break
		sleep 0.1
	done
	[ "$(pcount 'sleep 30[34]')" -ge 12 ]
	kill -INT "$pid"
	wait "$pid" || status=$?
	[ "${status:-0}" -eq 130 ]
	for _ in $(seq 50); do
		[ "$(pcount 'sleep 30[34]|wfrun-worker')" -eq 0 ] && break
		sleep 0.1
	done
	[ "$(pcount 'sleep 30[34]')" -eq 0 ]
	[ "$(pcount 'wfrun-worker')" -eq 0 ]
}

@test "a worker lost mid-run: its tasks run again on the others" {
	# The tasks wait at a gate, opened once w2's agent is killed: six
	# run at once however slowly the workers connect, and none ends
	# before the kill (they slept 4.5 s, three rounds of them).
	wf <<'EOF2'
tasks:
  - name: slow
    foreach: {i: "1..9"}
    out: {f: "s/{i}"}
    run: "while [ ! -e gate ]; do sleep 0.05; done; echo $TESTCLUSTER_WORKER > {out.f}"
EOF2
	"$WFRUN" -r "$C/cluster.xml" wf.yaml 2>err.txt &
	pid=$!
	for _ in $(seq 300); do
		[ "$(pcount 'while \[ ! -e gate \]')" -ge 6 ] && break
		sleep 0.1
	done
	[ "$(pcount 'while \[ ! -e gate \]')" -ge 6 ]
	# kill w2's agent: its channel closes, as when the host goes away
	agent=$(mine wfrun-worker | while read -r p; do
		grep -qz '^TESTCLUSTER_WORKER=w2$' /proc/$p/environ && echo $p; done | head -1)
	[ -n "$agent" ]
	kill -9 "$agent"
	touch gate
	wait "$pid"
	grep -q "worker 'w2' lost: " err.txt
	[ "$(ls s | wc -l)" -eq 9 ]
	[ "$(cat s/* | grep -c w2)" -lt 9 ]
	# each attempt lost with w2 has its row, and runs again elsewhere
	[ "$(trace_col status | grep -c COMPLETED)" -eq 9 ]
	[ "$(trace_col status | grep -vc COMPLETED)" -ge 1 ]
	awk -F'\t' 'NR > 1 && $9 != "COMPLETED" {
		if ($9 != "LOST" || $4 != "w2" || $10 != "" || $17 != "" ||
		    $13 < $12 || $14 < $13) bad = 1
		lost[$1] = 1 }
	NR > 1 && $9 == "COMPLETED" && ($1 in lost) && $4 != "w2" { again[$1] = 1 }
	END { for (t in lost) if (!(t in again)) bad = 1; exit bad }' .wfrun/trace.tsv
}

@test "a known_hosts entry without a port does not speak for other ports" {
	spread
	p2=$(awk '$1 == "w2" { print $3 }' "$C/hosts")
	# a plain "127.0.0.1 key" line (port 22) holding another key
	grep "\[127.0.0.1\]:$p2 " "$C/known_hosts" | sed "s/^\[127.0.0.1\]:$p2 /127.0.0.1 /" >kh
	only_w1 | sed "s|known-hosts=\"[^\"]*\"|known-hosts=\"$PWD/kh\"|" >w1.xml
	run "$WFRUN" -r w1.xml wf.yaml
	[ "$status" -eq 3 ]
	[[ "$output" == *"is not in $PWD/kh"* ]]
	run "$WFRUN" -q --accept-new-host-keys -r w1.xml wf.yaml
	[ "$status" -eq 0 ]
	[ "$(wc -l <kh)" -eq 2 ]
}

@test "relative key and known_hosts paths are taken from the resources file's directory" {
	spread
	mkdir -p conf
	cp "$C/id_ed25519" conf/key
	cp "$C/known_hosts" conf/kh
	only_w1 | sed -e 's|identity="[^"]*"|identity="key"|' -e 's|known-hosts="[^"]*"|known-hosts="kh"|' >conf/w1.xml
	run "$WFRUN" -q -r conf/w1.xml wf.yaml
	[ "$status" -eq 0 ]
	[ -f all.txt ]
}

@test "storage_bw on a shared <storage>: the constraint holds across workers" {
	# the shared workdir lives on one device for all three workers
	sed -e 's|<resources>|<resources>\n  <storage name="nfs" bandwidth="100"/>|' \
		-e 's|<workdir shared="true">|<workdir shared="true" storage="nfs">|' \
		"$C/cluster.xml" >nfs.xml
	wf <<'EOF2'
tasks:
  - name: ckpt
    foreach: {i: "1..12"}
    io: true
    storage_bw: 30
    out: {f: "c/{i}"}
    run: "sleep 0.5; echo $TESTCLUSTER_WORKER > {out.f}"
EOF2
	run "$WFRUN" -q -r nfs.xml wf.yaml
	[ "$status" -eq 0 ]
	# at most floor(100 / 30) = 3 at once over all workers
	most=$(awk -F'\t' 'NR > 1 { print $13, 1; print $14, -1 }' .wfrun/trace.tsv |
		sort -k1,1n -k2,2n | awk '{ n += $2; if (n > m) m = n } END { print m }')
	[ "$most" -le 3 ]
	[ "$(trace_col storage_bw | sort -u)" = 30 ]
	[ "$(ls c | wc -l)" -eq 12 ]
}

@test "on_failure: retry: the first retry on the same worker, the next on another" {
	wf <<'EOF2'
tasks:
  - name: flaky
    on_failure: retry
    out: {f: f.txt}
    run: "n=$(cat count 2>/dev/null || echo 0); echo $((n+1)) > count; [ $n -ge 2 ] && echo $TESTCLUSTER_WORKER > {out.f}"
EOF2
	run "$WFRUN" -r "$C/cluster.xml" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"retry 1 of 2 in 0.5s on the same worker"* ]]
	[[ "$output" == *"retry 2 of 2 in 1s on another worker"* ]]
	w=($(trace_col worker))
	[ "${#w[@]}" -eq 3 ]
	[ "${w[1]}" = "${w[0]}" ]
	[ "${w[2]}" != "${w[0]}" ]
	[ "$(cat f.txt)" = "${w[2]}" ]
}

@test "a second Ctrl-C does not wait for remote tasks; none is left on any worker" {
	# a sleep no concurrent run of the suite shares
	MARK=$$
	wf <<EOF2
tasks:
  - name: stubborn
    foreach: {i: "1..3"}
    out: {f: "h{i}"}
    run: "trap '' TERM; sleep 312.$MARK; touch {out.f}"
EOF2
	"$WFRUN" -r "$C/cluster.xml" wf.yaml 2>err.txt &
	pid=$!
	for _ in $(seq 600); do
		[ "$(pgrep -fc "sleep 312.$MARK")" -ge 3 ] && break
		sleep 0.1
	done
	kill -INT "$pid"
	for _ in $(seq 600); do
		grep -q interrupted err.txt && break
		sleep 0.1
	done
	kill -INT "$pid"
	wait "$pid" || status=$?
	[ "${status:-0}" -eq 130 ]
	for _ in $(seq 600); do
		[ "$(pgrep -fc "sleep 312.$MARK")" -eq 0 ] && break
		sleep 0.1
	done
	[ "$(pgrep -fc "sleep 312.$MARK")" -eq 0 ]
}

@test "a climb on an SSH worker reads its one writer's rate there while it runs (WRITTEN)" {
	# As in iobw.bats, on w1 (its disk of B = 4): the master asks the
	# agent every 20 ms what the writer's process group has written; the
	# rate is taken while it runs and the fill point's writers start
	# beside it on w1 (the master's clock is not the worker's: the
	# agent says when it read the bytes).
	only_w1 | sed 's|</worker>|<io-executors>8</io-executors><disk bandwidth="4"/></worker>|' >r.xml
	steady_writers
	run "$WFRUN" -q -r r.xml wf.yaml
	[ "$status" -eq 0 ]
	for i in $(seq 1 8); do [ "$(stat -c %s out/$i)" -eq 1966080 ]; done
	[ "$(trace_col worker | sort -u)" = w1 ]
	rate=$(grep '"ev":"rate",.*"epoch":1,' .wfrun/events.jsonl)
	[[ "$rate" == *'"name":"ckpt","device":"disk@w1","epoch":1,"c":4,"k":1,'* ]]
	fill=$(sed 's/.*"fill":\([0-9]*\)}$/\1/' <<<"$rate")
	[ "$fill" -ge 2 ]
	# (the fill point's epoch, a wave of $fill of the 7 left, runs)
	grep -q "\"ev\":\"epoch_begin\",.*\"epoch\":2,.*\"k\":$fill}$" .wfrun/events.jsonl
	grep -q '"ev":"constraint",.*"n":[0-9]*,"why":"[a-z]*"}$' .wfrun/events.jsonl
	end1=$(awk -F'\t' '$1 == 1 { print $14 }' .wfrun/trace.tsv)
	[ "$(awk -F'\t' -v e="$end1" 'NR > 1 && $1 != 1 && $13 < e' .wfrun/trace.tsv | wc -l)" -ge 1 ]
	# it holds the fill point's c, or that of the epoch begun last
	# before it ended (3 writers at 1.25 MB/s write less than B: 4 are
	# tried, fill-up)
	c=$(epoch_c_before "$end1")
	[ "$(awk -F'\t' '$1 == 1 { print $7 }' .wfrun/trace.tsv)" = "$c" ]
}

@test "a climb's first guess on the remote disks is corrected: their youngest tasks stop and run again" {
	# w1 (12 cores) learns on its disk; until its one writer ends, w2
	# and w3 (1 core each, each its own disk of B = 2) run the name one
	# per core of w1, up to their 12 I/O executors; then 2 to 5 per disk
	# (see iobw.bats): the youngest stop there (their agent kills them)
	# and run again, and nothing fails.
	climb_xml "$C/cluster.xml" >r.xml
	mkdir m
	wf <<'EOF2'
tasks:
  - name: ckpt
    foreach: {i: "1..40"}
    io: true
    storage_bw: auto
    out: {f: "out/{i}"}
    run: "if [ {i} = 1 ] || [ -e m/{i} ]; then sleep 1.3; else touch m/{i}; sleep 2.5; fi; dd if=/dev/zero of={out.f} bs=1M count=1 conv=fsync status=none"
EOF2
	run "$WFRUN" -r r.xml wf.yaml
	[ "$status" -eq 0 ]
	# each preempt line: the tasks stopped and the k that stayed make 12
	[ "$(grep -c '"ev":"preempt",' .wfrun/events.jsonl)" -eq 2 ]
	[ "$(grep '"ev":"preempt",' .wfrun/events.jsonl | sed 's/.*"device":"\([^"]*\)".*"k":\([0-9]*\),"tasks":\([0-9]*\)}$/\1 \2 \3/' | awk '{ print $1, $2 + $3 }' | sort | tr '\n' ,)" = "disk@w2 12,disk@w3 12," ]
	stopped=$(grep '"ev":"preempt",' .wfrun/events.jsonl | sed 's/.*"tasks":\([0-9]*\)}$/\1/' | awk '{ n += $1 } END { print n }')
	[[ "${lines[-1]}" == "wfrun: 40 tasks done in "*"s, $stopped I/O attempts stopped to make way" ]]
	[ "$(paste <(trace_col status) <(trace_col worker) | grep -c PREEMPTED)" -eq "$stopped" ]
	[ "$(paste <(trace_col status) <(trace_col worker) | grep PREEMPTED | cut -f2 | sort -u | tr '\n' ,)" = "w2,w3," ]
	[ "$(paste <(trace_col task_id) <(trace_col status) | grep COMPLETED | cut -f1 | sort -u | wc -l)" -eq 40 ]
	[ "$(trace_col status | grep -c COMPLETED)" -eq 40 ]
	for i in $(seq 1 40); do [ "$(stat -c %s out/$i)" -eq 1048576 ]; done
	# no stopped task is left running on a worker
	[ -z "$(mine 'sleep 2.5')" ]
}
