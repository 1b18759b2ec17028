#!/usr/bin/env bash
# ssh-fetch: the final fetch of many small files over SFTP (issue 24,
# "faster final fetch").  Task `many` makes a directory of N files of
# SIZE bytes each on one non-shared worker (testcluster --netns,
# unshaped unless RATE, e.g. RATE=8mbit); the run ends by bringing them
# all back (--fetch all, the default).  For each N: the wall seconds of
# the run, the seconds from the end of `many` to the end of the run (the
# fetch: the master's trace gives the end of the task), files per second
# of that, and whether every file came back with its bytes.
#
#   bench/ssh-fetch.sh [N...]     # 2000 10000
#   SIZE=4096 bench/ssh-fetch.sh 5000
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
WFRUN=${WFRUN:-$here/../wfrun}
TESTCLUSTER=${TESTCLUSTER:-$here/../tests/cluster/testcluster}
SIZE=${SIZE:-0}
(($#)) || set -- 2000 10000
NETNS_N=1
NETNS_UP=${RATE:+--rate $RATE}
# shellcheck source=bench/netns-workers.sh
. "$here/netns-workers.sh"
echo "# $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg), size $SIZE, rate ${RATE:-unshaped}"
printf '%-7s %7s %8s %8s %6s\n' N wall_s fetch_s files/s ok
for N in "$@"; do
	m=$wd/fetch-$N
	# N files f000000... of SIZE bytes
	if ((SIZE)); then
		make="head -c $((N * SIZE)) /dev/zero | split -b $SIZE -a 6 -d - f"
	else
		make="seq -f f%06g 0 $((N - 1)) | xargs touch"
	fi
	mkdir -p "$m"
	cat >"$m/wf.yaml" <<EOF
tasks:
  - {name: many, out: {d: {dir: out}},
     run: "mkdir -p {out.d} && cd {out.d} && $make"}
EOF
	s=$(date +%s.%N)
	(cd "$m" && "$W" -q -r "$wd/cluster.xml" wf.yaml)
	e=$(date +%s.%N)
	# the trace's times are epoch seconds
	end=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$(c["name"]) == "many" { print $(c["complete"]) }' "$m/.wfrun/trace.tsv")
	ok=no
	if [ "$(find "$m/out" -type f | wc -l)" -eq "$N" ] &&
		[ -z "$(find "$m/out" -type f ! -size "${SIZE}c")" ]; then
		ok=yes
	fi
	awk -v n="$N" -v s="$s" -v e="$e" -v t="$end" -v ok="$ok" 'BEGIN {
		f = e - t
		printf "%-7s %7.1f %8.1f %8.0f %6s\n", n, e - s, f, n / f, ok }'
	rm -rf "$m"
	workers_forget
done
