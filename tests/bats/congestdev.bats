#!/usr/bin/env bats
# run-all: once alone
# bench/congestdev, the benchmarks' emulated congestible device: a loop
# device whose blkio write cap follows the law from the count of tasks.
# Needs root, a cgroup-v1 blkio hierarchy and loop devices; where the
# machine has none of these, up exits 4 and every test fails saying so (a
# test that cannot run is a failure, never a skip).
load helper

setup_file() {
	export CD="$BATS_TEST_DIRNAME/../../bench/congestdev"
	export D="$BATS_FILE_TMPDIR/dev"
	run "$CD" up -q "$D" --size 512M
	if [ "$status" -eq 4 ]; then
		export NODEV="$output"
	else
		[ "$status" -eq 0 ] || { echo "$output" >&2; return 1; }
		. "$D/congestdev.env"
		export CONGESTDEV_CGROUP CONGESTDEV_DEVNUM CONGESTDEV_LOG CONGESTDEV_MNT CONGESTDEV_LOOP
	fi
}

teardown_file() {
	"$CD" down -f -q "$D"
}

setup() {
	if [ -n "${NODEV:-}" ]; then
		echo "bench/congestdev cannot run here: $NODEV" >&2
		return 1
	fi
	cd "$BATS_TEST_TMPDIR" || exit 1
}

cap() { # the kernel's write cap on the device now
	awk -v d="$CONGESTDEV_DEVNUM" '$1 == d { print $2 }' "$CONGESTDEV_CGROUP/blkio.throttle.write_bps_device"
}

# wait_k K: until the daemon has logged K tasks and set their cap
wait_k() {
	for _ in $(seq 300); do
		[ "$(tail -1 "$CONGESTDEV_LOG" | cut -d' ' -f2)" = "$1" ] && break
		sleep 0.05
	done
	[ "$(tail -1 "$CONGESTDEV_LOG" | cut -d' ' -f2)" = "$1" ]
}

@test "up: ext4 on a loop device, the idle cap is the law's for one task; up again changes nothing" {
	[ "$(findmnt -n -o SOURCE,FSTYPE "$CONGESTDEV_MNT")" = "$CONGESTDEV_LOOP ext4" ]
	[ -d "$CONGESTDEV_CGROUP" ]
	[ "$(cap)" -eq $((50 * 1048576)) ]
	run "$CD" status "$D"
	[ "$status" -eq 0 ]
	[[ $output == *"k=0, cap 52428800 B/s"* ]]
	grep -qx 'CONGESTDEV_TABLE=1:50\\ 2:100\\ 4:200\\ 8:142.9\\ 16:90.91\\ 32:52.63\\ 64:28.57' "$D/congestdev.env"
	grep -q '^CONGESTDEV_KBEST=4$' "$D/congestdev.env"
	pid=$(cat "$D/congestd.pid")
	"$CD" up -q "$D" --size 512M
	[ "$(cat "$D/congestd.pid")" = "$pid" ]
	run "$CD" up -q "$D" --size 512M --k0 8
	[ "$status" -eq 1 ]
	[[ $output == *"down $D first"* ]]
}

@test "run: the command joins the cgroup; its status passes; 125 and 127 for ours" {
	run "$CD" run "$D" -- sh -c 'grep blkio /proc/self/cgroup; exit 7'
	[ "$status" -eq 7 ]
	[[ $output == *":blkio:/${CONGESTDEV_CGROUP##*/}" ]]
	rc=0
	"$CD" run "$D" -- no-such-command || rc=$?
	[ "$rc" -eq 127 ]
	run "$CD" run "$BATS_TEST_TMPDIR" -- true
	[ "$status" -eq 125 ]
}

@test "k counts process groups: a task of three processes once, -g jobs each; the cap follows" {
	"$CD" run "$D" -- sh -c 'sleep 3 & sleep 3 & wait' &
	wait_k 1
	[ "$(wc -l <"$CONGESTDEV_CGROUP/cgroup.procs")" -ge 3 ]
	"$CD" run -g "$D" -- sleep 3 &
	"$CD" run -g "$D" -- sleep 3 &
	wait_k 3
	[ "$(cap)" -eq $((150 * 1048576)) ]
	wait
	wait_k 0
	[ "$(cap)" -eq $((50 * 1048576)) ]
}

# round K: K writers of 16 MiB released together; prints aggregate MiB/s
round() {
	local k=$1 i t0 t1
	exec 8>barrier
	flock -x 8
	for ((i = 0; i < k; i++)); do
		"$CD" run -g "$D" -- sh -c "flock -s barrier true; dd if=/dev/zero of=$CONGESTDEV_MNT/f$i bs=1M count=16 oflag=direct conv=fsync status=none" 8>&- &
	done
	# (all K counted before they are let go: CI once saw the writers
	# released with fewer counted, and 16 never in the log)
	if ! wait_k "$k" >/dev/null; then
		echo "round $k: the daemon counted $(tail -1 "$CONGESTDEV_LOG" | cut -d' ' -f2)" >&2
		return 1
	fi
	t0=$EPOCHREALTIME
	flock -u 8
	exec 8>&-
	wait
	t1=$EPOCHREALTIME
	rm -f "$CONGESTDEV_MNT"/f*
	awk -v k="$k" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", k * 16 / (b - a) }'
}

@test "congestion: 16 writers get less in all than 4 (the law: 91 against 200 MiB/s)" {
	a4=$(round 4)
	a16=$(round 16)
	echo "aggregate MiB/s: k=4 $a4, k=16 $a16"
	awk -v a="$a4" -v b="$a16" 'BEGIN { exit !(b < 0.8 * a && b < 1.5 * 90.91) }'
	# the daemon counted all 16 at once (round waits for that before it
	# lets them go).  Not that no count passed 16: CI once saw this
	# fail with 16 counted and the law's aggregate; as the writers end,
	# a pid of the cgroup's list can be gone and reused by another
	# group's process before the daemon reads its stat (pid_max is
	# 32768 here), a count of one tick
	echo "the daemon's counts: $(awk '{ print $2 }' "$CONGESTDEV_LOG" | tr '\n' ' ')"
	awk '$2 == 16 { n++ } END { exit !n }' "$CONGESTDEV_LOG"
}

@test "down refuses while a task runs, -f kills it; nothing is left; a second down does nothing" {
	"$CD" run -g "$D" -- sleep 60 &
	wait_k 1
	run "$CD" down "$D"
	[ "$status" -eq 1 ]
	[[ $output == *"tasks still run"* ]]
	"$CD" status "$D"
	"$CD" down -f -q "$D"
	wait || true
	run ! findmnt "$CONGESTDEV_MNT"
	[ ! -d "$CONGESTDEV_CGROUP" ]
	[ -z "$(losetup -j "$D/congestdev.img")" ]
	[ ! -e "$D/congestdev.img" ]
	[ -s "$CONGESTDEV_LOG" ]
	run "$CD" status "$D"
	[ "$status" -eq 1 ]
	"$CD" down "$D"
	"$CD" up -q "$D" --size 512M # for the tests after this one
}

@test "a missing tool exits 3 naming its package, no blkio 4; neither makes anything" {
	mkdir bin
	for t in losetup mount umount findmnt flock setsid awk realpath sed; do ln -s "$(command -v $t)" bin/; done
	run env PATH="$PWD/bin" /bin/bash "$CD" up "$PWD/x" --size 64M
	[ "$status" -eq 3 ]
	[[ $output == *"mkfs.ext4 is missing: apt-get install -y e2fsprogs"* ]]
	mkdir fake
	CONGESTDEV_BLKIO_ROOT=$PWD/fake run "$CD" up "$PWD/y" --size 64M
	[ "$status" -eq 4 ]
	[ ! -e x ]
	[ ! -e y ]
}
