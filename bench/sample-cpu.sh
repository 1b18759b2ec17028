#!/usr/bin/env bash
# What storage_bw: auto's in-flight sampling costs the master: wfrun's
# own CPU seconds (its process's utime + stime, not its tasks') for N
# I/O tasks that each write 1 MiB every 0.05 s for SECS seconds, with
# storage_bw: auto (the climb reads every running writer's bytes, 50
# times a second, while it learns) and storage_bw: 25 (nothing read), on
# a machine with PROCS more idle processes, as a login node has (the
# bytes come from /proc: wfrun-storage-bw(7)).
#
# Usage: bench/sample-cpu.sh; environment: WFRUN (default build/wfrun),
# PROCS (default "0 2000"), N (default 16), SECS (default 4), REPS (2).
# Prints a table: procs, storage_bw, wall s, wfrun CPU s.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
WFRUN=${WFRUN:-$here/../build/wfrun}
PROCS=${PROCS:-0 2000} N=${N:-16} SECS=${SECS:-4} REPS=${REPS:-2}
dir=$(mktemp -d)
sleepers=
cleanup() {
	[ -z "$sleepers" ] || kill -- -"$sleepers" 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT
iters=$(awk -v s="$SECS" 'BEGIN { print int(s / 0.05) }')

workflow() { # BW
	cat <<EOF2
tasks:
  - name: w
    foreach: {i: "1..$N"}
    io: true
    storage_bw: $1
    out: {f: "o/{i}"}
    run: "i=0; while [ \$i -lt $iters ]; do head -c 1048576 /dev/zero >> {out.f}; sleep 0.05; i=\$((i + 1)); done"
EOF2
}

# wfrun's own CPU seconds (utime + stime), read until it exits
measure() { # BW
	rm -rf "$dir/run" && mkdir -p "$dir/run"
	workflow "$1" >"$dir/run/wf.yaml"
	local t0 t1 cpu=0 tck
	tck=$(getconf CLK_TCK)
	t0=$(date +%s.%N)
	(cd "$dir/run" && exec "$WFRUN" -q -j 2 --io-executors "$N" \
		--disk-bw 200 wf.yaml) &
	local pid=$!
	while [ -r "/proc/$pid/stat" ]; do
		local s
		s=$(cut -d')' -f2 "/proc/$pid/stat" 2>/dev/null) || break
		# (fields 14 and 15 of stat: 12 and 13 after the name)
		set -- $s
		[ $# -ge 13 ] && cpu=$(( ${12} + ${13} ))
		sleep 0.05
	done
	wait "$pid"
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" -v c="$cpu" -v k="$tck" \
		'BEGIN { printf "%.2f %.2f\n", b - a, c / k }'
}

echo "# wfrun: $WFRUN; $N writers of $((iters)) MiB over ${SECS} s; $(nproc) cores"
echo
echo "| procs | storage_bw | wall s | wfrun CPU s |"
echo "|---|---|---|---|"
for p in $PROCS; do
	if [ "$p" -gt 0 ]; then
		setsid bash -c "for i in \$(seq 1 $p); do sleep 100000 & done; wait" &
		sleepers=$!
		while [ "$(ps -o pid= -g "$sleepers" 2>/dev/null | wc -l)" -lt "$p" ]; do
			sleep 0.2
		done
	fi
	for r in $(seq 1 "$REPS"); do
		for bw in auto 25; do
			read -r wall cpu < <(measure "$bw")
			echo "| $p | $bw | $wall | $cpu |"
		done
	done
	if [ -n "$sleepers" ]; then
		kill -- -"$sleepers" 2>/dev/null || true
		wait "$sleepers" 2>/dev/null || true
		sleepers=
	fi
done
