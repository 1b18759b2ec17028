#!/usr/bin/env bats
# SSH workers as separate hosts: one network namespace per worker (own IP,
# port 22), from tests/cluster/testcluster --netns, with a shared workdir.
load helper

setup_file() {
	export C="$BATS_FILE_TMPDIR/n"
	cluster_up "$C" --netns --no-fallback 2
}

teardown_file() {
	"$TESTCLUSTER" down -q "$C"
}

setup() {
	cluster_setup
}

@test "netns: workers on their own addresses at port 22 run the workflow" {
	grep -q '^TESTCLUSTER_MODE=netns$' "$C/cluster.env"
	[ "$(awk '{ print $3 }' "$C/hosts" | sort -u)" = 22 ]
	wf <<'EOF2'
tasks:
  - name: who
    foreach: {i: "1..8"}
    out: {f: "out/{i}.txt"}
    run: "sleep 0.2; echo $(hostname) {i} > {out.f}"
  - name: all
    in: {d: {dir: out}}
    out: {f: all.txt}
    run: "cat {in.d}/* > {out.f}"
EOF2
	run "$WFRUN" -q -r "$C/cluster.xml" wf.yaml
	[ "$status" -eq 0 ]
	[ "$(wc -l <all.txt)" -eq 8 ]
	[ "$(awk '{print $1}' all.txt | sort -u | tr '\n' ' ')" = "w1 w2 " ]
	[ "$(trace_col worker | sort -u | tr '\n' ' ')" = "w1 w2 " ]
}

@test "netns: Ctrl-C leaves nothing behind on either host" {
	wf <<'EOF2'
tasks:
  - name: hang
    foreach: {i: "1..4"}
    out: {f: "h{i}"}
    run: "sleep 305; touch {out.f}"
EOF2
	"$WFRUN" -r "$C/cluster.xml" wf.yaml 2>err.txt &
	pid=$!
	for _ in $(seq 100); do
		[ "$(pcount 'sleep 305')" -ge 4 ] && break
		sleep 0.1
	done
	[ "$(pcount 'sleep 305')" -ge 4 ]
	kill -INT "$pid"
	wait "$pid" || status=$?
	[ "${status:-0}" -eq 130 ]
	for _ in $(seq 50); do
		[ "$(pcount 'sleep 305|wfrun-worker')" -eq 0 ] && break
		sleep 0.1
	done
	[ "$(pcount 'sleep 305|wfrun-worker')" -eq 0 ]
}
