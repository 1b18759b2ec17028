#!/usr/bin/env bats
# run-all: once
# container: (swenv.c) with docker and podman: a dockerd started by
# tests/cluster/dockerd unless one answers, and an image imported on the
# spot into both from a busybox-static rootfs (no registry is reachable);
# the containers' CPU time and peak memory in the trace (contain.c).
load helper

# (a tag of this run: another run of the file beside it removes its own)
IMG="wfrun-test-busybox:$(basename "$BATS_RUN_TMPDIR" | tr -cd "A-Za-z0-9_.-")"

setup_file() {
	if ! command -v docker >/dev/null || ! command -v podman >/dev/null ||
		[ ! -x /bin/busybox ]; then
		echo "needs docker.io, podman and busybox-static (.ci/install-deps)" >&2
		return 1
	fi
	# (tests/run-all's daemon, WFRUN_DOCKERD, is shared by the suites
	# of the run and stopped at its end; else this file's own)
	"$BATS_TEST_DIRNAME/../cluster/dockerd" up "${WFRUN_DOCKERD:-$BATS_FILE_TMPDIR/dockerd}"
	local r=$BATS_FILE_TMPDIR/rootfs a
	mkdir -p "$r/bin" "$r/tmp"
	cp /bin/busybox "$r/bin/"
	for a in $(/bin/busybox --list); do
		[ "$a" = busybox ] || ln -s busybox "$r/bin/$a"
	done
	tar -C "$r" -c . | docker import - "$IMG" >/dev/null
	tar -C "$r" -c . | podman import - "$IMG" >/dev/null
}

teardown_file() {
	docker rmi -f "$IMG" >/dev/null 2>&1
	podman rmi -f "$IMG" >/dev/null 2>&1
	[ -n "${WFRUN_DOCKERD:-}" ] ||
		"$BATS_TEST_DIRNAME/../cluster/dockerd" down "$BATS_FILE_TMPDIR/dockerd"
}

# No container of this test's wfrun ($1) left, running or not, in
# engine $2 (default docker).
no_containers_left() {
	run "${2:-docker}" ps -a -q --filter "name=^wfrun-$1-"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

# A task of engine $1 (wfrun's ARGS after it) that times out, then one
# that is interrupted: each ends as it should and leaves no container.
stops_leave_none() {
	local e=$1 pid i st=0
	shift
	wf <<EOF
container: $IMG
tasks:
  - name: slow
    timeout: 2s
    run: sleep 60
EOF
	run "$WFRUN" "$@" wf.yaml
	[ "$status" -eq 1 ]
	[[ "$output" == *"timed out after 2s"* ]]
	no_containers_left '[0-9]*' "$e"
	sed -i '/timeout/d' wf.yaml
	"$WFRUN" "$@" wf.yaml 2>err.txt &
	pid=$!
	for i in $(seq 100); do
		[ -n "$("$e" ps -q --filter "name=^wfrun-$pid-slow-")" ] && break
		sleep 0.1
	done
	[ -n "$("$e" ps -q --filter "name=^wfrun-$pid-slow-")" ]
	kill -INT "$pid"
	wait "$pid" || st=$?
	cat err.txt
	[ "$st" -eq 130 ]
	no_containers_left "$pid" "$e"
}

@test "a task in a container makes what it makes without one" {
	# a workdir with a colon, which docker's -v cannot bind
	for c in "$IMG" none; do
		mkdir "d:$c"
		cd "d:$c"
		wf <<EOF
container: $IMG
tasks:
  - name: mk
    env: {GREETING: "hi \"there\""}
    out: {o: "a b'c.txt"}
    run: printf '%s\n' "\$GREETING" > {out.o}; seq 3 >> {out.o}
  - name: cp
    container: $c
    in: {i: "a b'c.txt"}
    out: {o: "d e.txt"}
    run: tr a-z A-Z < {in.i} > {out.o}; ls /bin/busybox >> {out.o}
EOF
		run "$WFRUN" -q wf.yaml
		echo "$output"
		[ "$status" -eq 0 ]
		cd ..
	done
	cmp "d:$IMG/a b'c.txt" "d:none/a b'c.txt"
	[ "$(cat "d:none/a b'c.txt")" = "$(printf 'hi "there"\n1\n2\n3')" ]
	head -4 "d:$IMG/d e.txt" | cmp - <(head -4 "d:none/d e.txt")
	# in the image, and only there, busybox is /bin/busybox
	[ "$(tail -1 "d:$IMG/d e.txt")" = /bin/busybox ]
}

@test "outputs are the user's, not root's, and the task has no network" {
	getent group docker >/dev/null ||
		{ echo "no docker group (docker.io makes one)" >&2; return 1; }
	cd "$(mktemp -d /tmp/wfrun-containers.XXXXXX)"
	chmod 777 .
	wf <<EOF
container: $IMG
tasks:
  - name: who
    out: {o: who.txt}
    run: id -u > {out.o}; id -g >> {out.o}; ls /sys/class/net >> {out.o}
EOF
	local gid
	gid=$(getent group docker | cut -d: -f3)
	run setpriv --reuid=65534 --regid="$gid" --clear-groups "$WFRUN" -q wf.yaml
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(stat -c %u:%g who.txt)" = "65534:$gid" ]
	[ "$(cat who.txt)" = "$(printf '65534\n%s\nlo' "$gid")" ]
	rm -rf "$PWD"
}

@test "a timeout and Ctrl-C leave no container behind" {
	stops_leave_none docker
}

@test "a missing image is caught by check, and by run before any task" {
	wf <<EOF
container: $IMG
tasks:
  - name: ok
    out: {o: ok.txt}
    run: echo > {out.o}
  - name: a
    container: wfrun-test-nosuch:1
    run: "true"
  - name: b
    container: wfrun-test-nosuch:1
    run: "true"
EOF
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"task 'a': image 'wfrun-test-nosuch:1' not found by docker on this machine: "*"No such image"* ]]
	[ "$(grep -c nosuch <<<"$output")" -eq 1 ] # once per image
	run "$WFRUN" wf.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"task 'a': cannot pull image 'wfrun-test-nosuch:1' with docker: "* ]]
	[ ! -e ok.txt ]
	grep -q '"ev":"pull".*"image":"wfrun-test-nosuch:1".*"ok":false' .wfrun/events.jsonl
}

@test "a run with nothing to do asks the engine nothing" {
	wf <<EOF
container: $IMG
tasks:
  - {name: a, out: {o: a.txt}, run: "echo > {out.o}"}
EOF
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[ -e a.txt ]
	# every call of docker logged, then passed on
	mkdir shim
	printf '#!/bin/sh\necho "$*" >> %s/calls\nexec %s "$@"\n' \
		"$PWD" "$(command -v docker)" >shim/docker
	chmod +x shim/docker
	PATH="$PWD/shim:$PATH" run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"1 up to date"* ]]
	[ ! -e calls ]
	# a task to run: the image is asked about, once
	rm a.txt
	PATH="$PWD/shim:$PATH" run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[ "$(grep -c '^image inspect' calls)" -eq 1 ]
}

@test "--container-engine and container: are checked" {
	wf <<EOF
tasks:
  - name: a
    container: -v
    run: "true"
EOF
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"wf.yaml:3:16: error: container must be an image name"* ]]
	run "$WFRUN" check --container-engine rkt wf.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown container engine 'rkt'"* ]]
	sed -i 's/-v/some:image/' wf.yaml
	run "$WFRUN" check --container-engine apptainer wf.yaml
	if ! command -v apptainer >/dev/null; then
		[ "$status" -eq 2 ]
		[[ "$output" == *"task 'a' runs in a container, but apptainer is not installed on this machine"* ]]
	fi
}

@test "an SSH worker runs a task in a container" {
	local C=$BATS_FILE_TMPDIR/c
	cluster_up "$C" 1
	W="$C/shared/t$BATS_TEST_NUMBER"
	mkdir -p "$W"
	cd "$W"
	wf <<EOF
container: $IMG
tasks:
  - name: there
    out: {o: "o u t.txt"}
    run: ls /bin/busybox > {out.o}; id -u >> {out.o}
EOF
	run "$WFRUN" -q -r "$C/cluster.xml" wf.yaml
	"$TESTCLUSTER" down -q "$C"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cat "o u t.txt")" = "$(printf '/bin/busybox\n%s' "$(stat -c %u .)")" ]
	[ "$(trace_col worker)" = w1 ]
}

@test "podman, a worker's container-engine, runs a task as docker does" {
	mkdir "d:p"
	cd "d:p"
	cat >res.xml <<EOF
<resources>
  <worker name="local" host="localhost" container-engine="podman"/>
</resources>
EOF
	wf <<EOF
container: $IMG
tasks:
  - name: mk
    container: none
    env: {GREETING: "hi \"there\""}
    out: {o: "a b'c.txt"}
    run: printf '%s\n' "\$GREETING" > {out.o}; seq 3 >> {out.o}
  - name: in
    env: {GREETING: "hi \"there\""}
    out: {o: "d e'f.txt"}
    run: printf '%s\n' "\$GREETING" > {out.o}; seq 3 >> {out.o}; echo "\$container" >> {out.o}; ls /sys/class/net >> {out.o}
EOF
	run "$WFRUN" -q -r res.xml wf.yaml
	echo "$output"
	[ "$status" -eq 0 ]
	# the same text, made by podman (its containers have container=podman)
	head -4 "d e'f.txt" | cmp - "a b'c.txt"
	[ "$(tail -2 "d e'f.txt")" = "$(printf 'podman\nlo')" ]
	[ "$(stat -c %u:%g "d e'f.txt")" = "$(id -u):$(id -g)" ]
	no_containers_left '[0-9]*' podman
}

@test "podman: a timeout and Ctrl-C leave no container behind" {
	stops_leave_none podman --container-engine podman
}

@test "podman: a missing image is caught by check, and by run before any task" {
	wf <<EOF
container: wfrun-test-nosuch:1
tasks:
  - name: a
    run: "true"
  - name: b
    out: {o: b.txt}
    run: echo > {out.o}
EOF
	run "$WFRUN" check --container-engine podman wf.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"task 'a': image 'wfrun-test-nosuch:1' not found by podman on this machine: "*"image not known"* ]]
	[ "$(grep -c nosuch <<<"$output")" -eq 1 ] # once per image
	run "$WFRUN" --container-engine podman wf.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"task 'a': cannot pull image 'wfrun-test-nosuch:1' with podman: "* ]]
	[ ! -e b.txt ]
}

@test "the trace has a container's CPU time and peak memory, not its client's" {
	wf <<EOF
container: $IMG
tasks:
  - name: work
    run: i=0; while [ \$i -lt 500000 ]; do i=\$((i+1)); done; dd if=/dev/zero bs=64M count=1 of=/dev/null
  - name: idle
    run: "true"
EOF
	local e pid own
	# what a run whose wfrun is gone left of the engine's cgroups
	own=$(sed -n 's/^0:://p' /proc/self/cgroup)
	mkdir -p "/sys/fs/cgroup/cpu${own%/}/wfrun-999999/t0"
	for e in docker podman; do
		rm -rf .wfrun
		"$WFRUN" -q --container-engine "$e" wf.yaml &
		pid=$!
		wait "$pid"
		paste <(trace_col name) <(trace_col cpu_user_s) \
			<(trace_col cpu_sys_s) <(trace_col peak_rss_kb) >"$e.tsv"
		cat "$e.tsv"
		# burning ~0.6 s shows (the client's own time is in both)
		awk '{ c[$1] = $2 + $3 } END { exit !(c["work"] - c["idle"] >= 0.3) }' "$e.tsv"
		# 64 MiB touched shows (the client alone is below 50 MiB)
		awk '$1 == "work" { exit !($4 >= 51200) }' "$e.tsv"
		awk '$1 == "idle" { exit !($4 < 51200) }' "$e.tsv"
		# the engine's cgroups under the run's are gone with it
		[ -z "$(find /sys/fs/cgroup -maxdepth 4 -name "wfrun-$pid")" ]
	done
	# is gone too
	[ ! -e "/sys/fs/cgroup/cpu${own%/}/wfrun-999999" ]
}
