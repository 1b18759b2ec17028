#!/usr/bin/env bats
# wfrun probe: measures a directory's write bandwidth and prints the lines
# to paste; leaves nothing behind; refuses what is not a writable directory.
# (No figure is asserted beyond "a positive number": the disk is shared.)
load helper

# The bandwidth of the --disk-bw line of $output.
probe_mbps() {
	sed -n 's/^command line:   --disk-bw \([0-9][0-9]*\)$/\1/p' <<<"$output"
}

@test "probe prints a positive MB/s, the XML line and --disk-bw, and leaves the dir empty" {
	mkdir d
	run "$WFRUN" probe --size 8 d
	[ "$status" -eq 0 ]
	n=$(probe_mbps)
	[ -n "$n" ]
	[ "$n" -gt 0 ]
	[[ "${lines[0]}" == "$PWD/d: $n MB/s (8 MB in "*" s, 1 writer, "*", fsync'd)" ]]
	[ "${lines[1]}" = "resources file: <disk bandwidth=\"$n\"/>" ]
	[ "${#lines[@]}" -eq 3 ]
	[ -z "$(ls -A d)" ]
}

@test "probe measures the current directory by default" {
	mkdir d
	cd d
	run "$WFRUN" probe -s 4
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "$PWD: "*" MB/s (4 MB in "* ]]
	[ -z "$(ls -A)" ]
}

@test "probe -j splits the size among concurrent writers" {
	mkdir d
	run "$WFRUN" probe -j 3 --size 10 d
	[ "$status" -eq 0 ]
	# 3 writers of 3 whole MB each
	[[ "${lines[0]}" == *" MB/s (9 MB in "*" s, 3 writers, "* ]]
	[ "$(probe_mbps)" -gt 0 ]
	[ -z "$(ls -A d)" ]
}

@test "the XML line probe prints is a valid <disk> of a resources file" {
	mkdir d
	run "$WFRUN" probe --size 4 d
	[ "$status" -eq 0 ]
	xml=${lines[1]#resources file: }
	cat >res.xml <<EOF2
<resources>
  <worker name="local" host="localhost">
    $xml
  </worker>
</resources>
EOF2
	wf <<'EOF2'
tasks:
  - name: t
    run: "true"
EOF2
	run "$WFRUN" check -r res.xml wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"wf.yaml: ok"* ]]
}

@test "probe without O_TMPFILE (named file, unlinked at once) leaves nothing either" {
	mkdir d
	WFRUN_PROBE_NAMED=1 run "$WFRUN" probe --size 4 -j 2 d
	[ "$status" -eq 0 ]
	[ "$(probe_mbps)" -gt 0 ]
	[ -z "$(ls -A d)" ]
}

# interrupt [ENV=VALUE]: start a long probe of d, send SIGINT once it has
# said it is writing, check that it stops with 130 and d is empty.
interrupt() {
	mkdir d
	mkfifo err
	env "$@" "$WFRUN" probe -v --size 1000 d 2>err &
	pid=$!
	exec 4<err
	read -r line <&4
	[[ "$line" == "wfrun: probe: writing 1000 MB in $PWD/d with 1 writer" ]]
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	rest=$(cat <&4)
	exec 4<&-
	echo "rc=$rc rest=$rest"
	[ "$rc" -eq 130 ]
	[[ "$rest" == *"probe: interrupted; nothing was measured, nothing is left in $PWD/d"* ]]
	[ -z "$(ls -A d)" ]
}

@test "Ctrl-C stops the probe with 130 and leaves nothing in the dir" {
	interrupt WFRUN_PROBE_UNUSED=1
}

@test "Ctrl-C leaves nothing on the named-file path either" {
	interrupt WFRUN_PROBE_NAMED=1
}

@test "probe refuses a directory that does not exist" {
	run "$WFRUN" probe nope
	[ "$status" -eq 2 ]
	[ "$output" = "wfrun: error: probe: nope: No such file or directory; give an existing directory on the storage to measure" ]
	[ ! -e nope ]
}

@test "probe refuses a file that is not a directory, and leaves it alone" {
	echo keep >f
	run "$WFRUN" probe f
	[ "$status" -eq 2 ]
	[ "$output" = "wfrun: error: probe: f is not a directory; give a directory on the storage to measure" ]
	[ "$(cat f)" = keep ]
}

@test "probe refuses a directory it cannot write in" {
	mkdir d
	if [ "$(id -u)" -ne 0 ]; then
		chmod 555 d
		run "$WFRUN" probe d
		chmod 755 d
		[ "$status" -eq 2 ]
		[ "$output" = "wfrun: error: probe: d is not a writable directory (Permission denied); give one this user can write in" ]
	else
		# root writes anywhere mode bits forbid: a read-only mount,
		# private to a mount namespace that dies with the command
		run unshare -m sh -c 'mount -t tmpfs -o ro tmpfs d && exec "$0" probe d' "$WFRUN"
		[ "$status" -eq 2 ]
		[ "$output" = "wfrun: error: probe: d is not a writable directory (Read-only file system); give one this user can write in" ]
	fi
}

@test "probe refuses a size larger than the free space, before writing" {
	mkdir d
	run "$WFRUN" probe --size 1073741824 d
	[ "$status" -eq 2 ]
	[[ "$output" == "wfrun: error: probe: d has "*" MB free but the probe writes 1073741824 MB; give a smaller --size" ]]
}

@test "probe option errors are usage errors" {
	run "$WFRUN" probe --size 0 .
	[ "$status" -eq 2 ]
	[[ "$output" == *"--size wants a number from 1 to 1073741824, not '0'"* ]]
	run "$WFRUN" probe -j x .
	[ "$status" -eq 2 ]
	[[ "$output" == *"-j/--writers wants a number from 1 to 256, not 'x'"* ]]
	run "$WFRUN" probe -j 4 --size 2 .
	[ "$status" -eq 2 ]
	[[ "$output" == *"--size 2 is less than 1 MB per writer (-j 4); raise --size or lower -j"* ]]
	run "$WFRUN" probe a b
	[ "$status" -eq 2 ]
	[[ "$output" == *"usage: wfrun probe [--size MB] [-j WRITERS] [DIR]"* ]]
}

@test "--help describes probe" {
	run "$WFRUN" probe --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"wfrun probe [--size MB] [-j WRITERS] [DIR]"* ]]
	[[ "$output" == *"--writers N"* ]]
}
