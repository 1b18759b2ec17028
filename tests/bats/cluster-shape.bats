#!/usr/bin/env bats
# run-all: once alone
# tests/cluster/testcluster's link shaping, timed: copies over a shaped
# link against an unshaped one, so this file runs with nothing beside
# it.  The rest of testcluster's self-test is cluster.bats.
load helper

setup_file() {
	export TC="$BATS_TEST_DIRNAME/../cluster/testcluster" # whatever TESTCLUSTER says
}

# seconds (to 0.01) that copying FILE to worker $2 of cluster $3 takes
copy_time() {
	local t0 t1
	t0=$EPOCHREALTIME
	scp -q -F "$3/ssh_config" "$1" "$2:$3/shared/copy-$2" || return 1
	t1=$EPOCHREALTIME
	echo "$t0 $t1" | awk '{ printf "%.2f\n", $2 - $1 }'
}

@test "netns: --shape slows one worker's link both ways; shape changes it at run time" {
	N="$BATS_TEST_TMPDIR/s"
	"$TC" up -q --netns --no-fallback --shared --shape w2:8mbit 2 "$N"
	head -c 1000000 /dev/urandom >mb
	# 1 MB is 1 s at 8 Mbit/s; unshaped it takes a fraction of that
	t1=$(copy_time mb w1 "$N")
	t2=$(copy_time mb w2 "$N")
	back=$( { time -p scp -q -F "$N/ssh_config" "w2:$N/shared/copy-w2" back; } 2>&1 | awk '/^real/ { print $2 }')
	cmp mb back
	"$TC" shape "$N" w1 --rate 8mbit
	t3=$(copy_time mb w1 "$N")
	"$TC" shape "$N" w2
	t4=$(copy_time mb w2 "$N")
	run "$TC" status "$N"
	"$TC" down -q "$N"
	echo "w1 $t1, w2 $t2 (back $back), w1 shaped $t3, w2 unshaped $t4"
	[[ ${lines[1]} == *" up rate 8mbit" && ${lines[2]} == *" up" ]]
	awk -v a="$t1" -v b="$t2" -v c="$back" -v d="$t3" -v e="$t4" \
		'BEGIN { exit !(b >= 0.8 && c >= 0.8 && d >= 0.8 && a < 0.6 * b && e < 0.6 * b) }'
}
