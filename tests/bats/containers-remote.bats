#!/usr/bin/env bats
# run-all: once
# container: and modules: on remote workers (swenv_remote.c): check asks
# each SSH worker's engine and module system, run pulls once per worker
# before any task.  Two testcluster workers sharing the machine's dockerd
# (tests/cluster/dockerd unless one answers); each worker's ~/.bashrc
# (Debian's bash reads it for the agent's command) puts on its PATH a
# docker that logs its calls; w1's also sets MODULEPATH, w2's does not.
load helper

# (a tag of this run: another run of the file beside it removes its own)
IMG="wfrun-test-busybox:remote-$(basename "$BATS_RUN_TMPDIR" | tr -cd "A-Za-z0-9_.-")"

setup_file() {
	if ! command -v docker >/dev/null || [ ! -x /bin/busybox ] ||
		[ ! -r /usr/share/lmod/lmod/init/profile ]; then
		echo "needs docker.io, busybox-static and lmod (.ci/install-deps)" >&2
		return 1
	fi
	# (tests/run-all's daemon, WFRUN_DOCKERD, is shared by the suites
	# of the run and stopped at its end; else this file's own)
	"$BATS_TEST_DIRNAME/../cluster/dockerd" up "${WFRUN_DOCKERD:-$BATS_FILE_TMPDIR/dockerd}"
	local r=$BATS_FILE_TMPDIR/rootfs w
	mkdir -p "$r/bin"
	cp /bin/busybox "$r/bin/"
	ln -s busybox "$r/bin/sh"
	ln -s busybox "$r/bin/echo"
	tar -C "$r" -c . | docker import - "$IMG" >/dev/null
	export C=$BATS_FILE_TMPDIR/c B=$BATS_FILE_TMPDIR/bin
	export DLOG=$BATS_FILE_TMPDIR/docker.log
	mkdir -p "$B" "$BATS_FILE_TMPDIR/mods/tool"
	printf '#!/bin/sh\necho "$TESTCLUSTER_WORKER $*" >>%s\nexec %s "$@"\n' \
		"$DLOG" "$(command -v docker)" >"$B/docker"
	chmod +x "$B/docker"
	printf 'setenv("TOOL_VERSION", "1.7")\n' >"$BATS_FILE_TMPDIR/mods/tool/1.7.lua"
	cluster_up "$C" 2
	for w in w1 w2; do
		echo "export PATH=$B:\$PATH" >"$C/$w/home/.bashrc"
	done
	echo "export MODULEPATH=$BATS_FILE_TMPDIR/mods" >>"$C/w1/home/.bashrc"
}

teardown_file() {
	"$TESTCLUSTER" down -q "$C"
	docker rmi -f "$IMG" >/dev/null 2>&1
	[ -n "${WFRUN_DOCKERD:-}" ] ||
		"$BATS_TEST_DIRNAME/../cluster/dockerd" down "$BATS_FILE_TMPDIR/dockerd"
}

setup() {
	cluster_setup
	: >"$DLOG"
}

# The docker calls of worker $1 whose arguments are $2.
calls() {
	grep -c "^$1 $2\$" "$DLOG" || true
}

@test "check: an image missing on SSH workers, asked once per worker" {
	wf <<EOF
tasks:
  - {name: there, container: $IMG, run: echo there}
  - name: a
    container: wfrun-test-nosuch:1
    run: echo a
  - {name: b, container: "wfrun-test-nosuch:1", run: echo b}
EOF
	run "$WFRUN" check -r "$C/cluster.xml" wf.yaml
	echo "$output"
	[ "$status" -eq 2 ]
	local w
	for w in w1 w2; do
		[[ "$output" == *"wf.yaml:3: task 'a': image 'wfrun-test-nosuch:1' not found by docker on worker '$w': "*"No such image"* ]]
		[ "$(calls $w "image inspect wfrun-test-nosuch:1")" -eq 1 ]
		[ "$(calls $w "image inspect $IMG")" -eq 1 ]
	done
	[ "$(grep -c nosuch <<<"$output")" -eq 2 ] # once per worker
	[[ "$output" != *"'$IMG'"* ]]
	[ "$(grep -vc "image inspect" "$DLOG")" -eq 0 ] # no pull
}

@test "check: a module missing on one worker only" {
	wf <<'EOF'
tasks:
  - name: a
    modules: [tool/1.7]
    run: "true"
EOF
	run "$WFRUN" check -r "$C/cluster.xml" wf.yaml
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == *"wf.yaml:2: task 'a': modules cannot be loaded on worker 'w2': "*'"tool/1.7"'* ]]
	[[ "$output" != *"worker 'w1'"* ]]
	# w1 alone: no error
	sed -i '/<worker name="w2"/,/<\/worker>/d' "$C/cluster.xml"
	run "$WFRUN" check -r "$C/cluster.xml" wf.yaml
	cluster_xml "$C" true
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "run: a missing image pulled once per worker before any task" {
	wf <<EOF
tasks:
  - name: in
    container: $IMG
    foreach: {i: "1..2"}
    out: {o: "in{i}.txt"}
    run: echo in > {out.o}
  - name: gone
    container: wfrun-test-nosuch:1
    foreach: {i: "1..3"}
    run: "true"
  - name: plain
    out: {o: plain.txt}
    run: echo plain > {out.o}
EOF
	run "$WFRUN" -k -r "$C/cluster.xml" wf.yaml
	echo "$output"
	cat "$DLOG"
	[ "$status" -eq 1 ]
	local w
	for w in w1 w2; do
		[ "$(calls $w "pull -q wfrun-test-nosuch:1")" -eq 1 ]
		[ "$(calls $w "pull -q $IMG")" -eq 0 ]
		[[ "$output" == *"task 'gone': cannot pull image 'wfrun-test-nosuch:1' with docker on worker '$w': "* ]]
		grep -q "\"ev\":\"pull\",\"worker\":\"$w\",\"engine\":\"docker\",\"image\":\"wfrun-test-nosuch:1\",.*\"ok\":false" .wfrun/events.jsonl
	done
	[ "$(grep -c '"ev":"pull"' .wfrun/events.jsonl)" -eq 2 ]
	# the pulls ended before the first task started, and the others ran
	local pulled first
	pulled=$(sed -n 's/.*"t":\([0-9.]*\),"ev":"pull".*"s":\([0-9.]*\).*/\1 \2/p' \
		.wfrun/events.jsonl | awk '{ if ($1 + $2 > m) m = $1 + $2 } END { printf "%.3f", m }')
	first=$(trace_col start | sort -n | head -1)
	awk -v p="$pulled" -v f="$first" 'BEGIN { exit !(p > 0 && p <= f + 0.002) }'
	[ "$(cat in1.txt in2.txt plain.txt)" = "$(printf 'in\nin\nplain')" ]
	[ "$(trace_col name | grep -c gone)" -eq 3 ]
	[ "$(trace_col status | sort | uniq -c | awk '{print $1 $2}' | tr '\n' ' ')" = "3COMPLETED 3FAILED " ]
}

@test "a worker with a workdir of its own: its answers come over SFTP" {
	local O=$BATS_FILE_TMPDIR/own
	"$TESTCLUSTER" up -q 1 "$O"
	cluster_xml "$O" false
	echo "export PATH=$B:\$PATH" >"$O/w1/home/.bashrc"
	mkdir -p "$O/master/t"
	cd "$O/master/t"
	wf <<'EOF'
tasks:
  - name: far
    container: wfrun-test-nosuch:2
    foreach: {i: "1..2"}
    run: echo {i}
  - name: near
    out: {o: near.txt}
    run: echo near > {out.o}
EOF
	local before
	before=$(ls /tmp/wfrun-swenv-* 2>/dev/null || true)
	run "$WFRUN" check -r "$O/cluster.xml" wf.yaml
	local cst=$status cout=$output
	run "$WFRUN" -k -r "$O/cluster.xml" wf.yaml
	"$TESTCLUSTER" down -q "$O"
	# the answers left in the worker's /tmp (this machine's): ours go
	comm -13 <(echo "$before") <(ls /tmp/wfrun-swenv-* 2>/dev/null || true) |
		xargs -r rm -f
	echo "$cout"
	echo "$output"
	[ "$cst" -eq 2 ]
	[[ "$cout" == *"wf.yaml:2: task 'far': image 'wfrun-test-nosuch:2' not found by docker on worker 'w1': "*"No such image"* ]]
	[ "$status" -eq 1 ]
	[[ "$output" == *"task 'far': cannot pull image 'wfrun-test-nosuch:2' with docker on worker 'w1': "* ]]
	[ "$(calls w1 "image inspect wfrun-test-nosuch:2")" -eq 2 ] # check, run
	[ "$(calls w1 "pull -q wfrun-test-nosuch:2")" -eq 1 ]
	[ "$(cat near.txt)" = near ]
	[ ! -e .wfrun/swenv-0.out ]
}

@test "Slurm jobs: one preparation job asks for the images and modules" {
	local S=$BATS_FILE_TMPDIR/slurm
	"$BATS_TEST_DIRNAME/../cluster/slurmcluster" up -q --nodes 1 --cpus 2 "$S"
	export SLURM_CONF=$S/slurm.conf
	printf '<resources><slurm submit="jobs" poll="1"><option>--mem-per-cpu=64</option></slurm></resources>\n' >res.xml
	wf <<EOF
tasks:
  - name: a
    modules: [tool/1.7]
    run: "true"
  - name: b
    modules: [nosuch/3]
    run: "true"
  - name: c
    container: wfrun-test-nosuch:1
    run: "true"
  - name: d
    container: $IMG
    run: "true"
EOF
	MODULEPATH=$BATS_FILE_TMPDIR/mods run "$WFRUN" check -r res.xml wf.yaml
	"$BATS_TEST_DIRNAME/../cluster/slurmcluster" down "$S"
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == *"wf.yaml:8: task 'c': image 'wfrun-test-nosuch:1' not found by docker on worker 'slurm': "*"No such image"* ]]
	[[ "$output" == *"wf.yaml:5: task 'b': modules cannot be loaded on worker 'slurm': "*'"nosuch/3"'* ]]
	[ "$(grep -c "error:" <<<"$output")" -eq 2 ]
}
