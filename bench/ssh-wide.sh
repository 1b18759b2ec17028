#!/usr/bin/env bash
# ssh-wide: a task with N output files, over SSH as locally (issue 24,
# "framing without a line limit").  Task `many` makes a directory of N
# empty files of 47-character names; task `count` reads it and counts
# them.  Locally (no resources file) and on one non-shared worker
# (testcluster --netns, unshaped, --fetch final: the directory stays on
# the worker, only the count comes back), for each N: the wall seconds,
# the master's peak RSS, the seconds from the end of `many` to the start
# of `count` (the master reads the DONE that lists the N files, records
# them, sends the SRUN that links them; the agent links them) and the
# count, which must be N.
#
#   bench/ssh-wide.sh [N...]      # 10000 30000 100000
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
WFRUN=${WFRUN:-$here/../wfrun}
TESTCLUSTER=${TESTCLUSTER:-$here/../tests/cluster/testcluster}
(($#)) || set -- 10000 30000 100000
NETNS_N=1
# shellcheck source=bench/netns-workers.sh
. "$here/netns-workers.sh"
echo "# $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-7s %-5s %7s %9s %9s %6s\n' N where wall_s rss_MB gap_s ok
for N in "$@"; do
	for where in local ssh; do
		m=$wd/$where-$N
		mkdir -p "$m"
		cat >"$m/wf.yaml" <<EOF
tasks:
  - {name: many, out: {d: {dir: out}},
     run: "mkdir -p {out.d} && cd {out.d} && seq -f 'file-with-a-name-of-forty-characters-%06g' 1 $N | xargs touch"}
  - {name: count, in: {d: {dir: out}}, out: {n: n.txt},
     run: "ls {in.d} | wc -l > {out.n}"}
EOF
		args=(-q)
		[ "$where" = local ] || args+=(-r "$wd/cluster.xml" --fetch final)
		s=$(date +%s.%N)
		(cd "$m" && /usr/bin/time -f %M -o "$m/rss" "$W" "${args[@]}" wf.yaml)
		e=$(date +%s.%N)
		# the end of many (complete) to the start of count
		gap=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			{ t[$(c["name"])] = $0; s[$(c["name"])] = $(c["start"]); f[$(c["name"])] = $(c["complete"]) }
			END { printf "%.1f", s["count"] - f["many"] }' "$m/.wfrun/trace.tsv")
		ok=no
		[ "$(cat "$m/n.txt")" -eq "$N" ] && ok=yes
		awk -v n="$N" -v w="$where" -v s="$s" -v e="$e" -v r="$(cat "$m/rss")" \
			-v g="$gap" -v ok="$ok" 'BEGIN {
			printf "%-7s %-5s %7.1f %9.1f %9s %6s\n", n, w, e - s, r / 1024, g, ok }'
		rm -rf "$m"
		workers_forget
	done
done
