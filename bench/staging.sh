#!/usr/bin/env bash
# SFTP staging throughput: a 256 MiB input sent to a worker whose workdir
# is not shared, by wfrun (stage_in_s of a one-task workflow, from the
# trace) and by `scp` to the same worker over the same link.  Two links:
# loopback, and a network namespace whose veth is shaped to RATE (default
# 100mbit) by testcluster (tbf on both ends).  Each is run REPEATS times
# (default 3); the best of each is compared (target: wfrun >= 80 % of scp).
#
#   bench/staging.sh                 # both links
#   LINKS=loopback bench/staging.sh  # one of them
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
WFRUN=${WFRUN:-$here/../wfrun}
TESTCLUSTER=${TESTCLUSTER:-$here/../tests/cluster/testcluster}
MB=${MB:-256}
REPEATS=${REPEATS:-3}
RATE=${RATE:-100mbit}
LINKS=${LINKS:-"loopback netns"}
work=$(mktemp -d "${TMPDIR:-/tmp}/wfrun-bench.XXXXXX")
clusters=()
cleanup() {
	for c in "${clusters[@]}"; do "$TESTCLUSTER" down -q "$c" >/dev/null 2>&1 || true; done
	rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/m"
head -c $((MB << 20)) /dev/urandom >"$work/m/big.bin"
cat >"$work/m/wf.yaml" <<'EOF2'
tasks:
  - name: use
    in: {f: big.bin}
    out: {n: n.txt}
    run: "wc -c < {in.f} > {out.n}"
EOF2

# best (smallest) of the numbers on stdin
best() { sort -g | head -1; }

for link in $LINKS; do
	C="$work/$link"
	clusters+=("$C")
	if [ "$link" = netns ]; then
		"$TESTCLUSTER" up -q --netns --no-fallback --rate "$RATE" 1 "$C"
		label="netns link shaped to $RATE"
	else
		"$TESTCLUSTER" up -q 1 "$C"
		label="loopback"
	fi
	read -r name host port user key wd <"$C/hosts"
	cat >"$C/cluster.xml" <<EOF2
<resources>
  <worker name="$name" host="$host" port="$port" user="$user">
    <workdir shared="false">$wd</workdir>
    <ssh identity="$key" known-hosts="$C/known_hosts"/>
  </worker>
</resources>
EOF2
	echo "# $MB MiB to 1 worker, $label, $REPEATS runs each, $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
	w=() s=()
	for _ in $(seq "$REPEATS"); do
		(cd "$work/m" && "$WFRUN" -q --fetch none -r "$C/cluster.xml" wf.yaml)
		[ "$(cat "$wd"/.wfrun/data/*/t1/n.txt)" = $((MB << 20)) ]
		w+=("$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "stage_in_s") k = i; next } { print $k }' "$work/m/.wfrun/trace.tsv")")
		rm -rf "$wd/.wfrun/data" "$wd/.wfrun/sandbox"
		t0=$(date +%s.%N)
		scp -q -F "$C/ssh_config" "$work/m/big.bin" "$name:$wd/scp.bin"
		t1=$(date +%s.%N)
		s+=("$(echo "$t1 - $t0" | bc -l)")
		rm -f "$wd/scp.bin"
	done
	wb=$(printf '%s\n' "${w[@]}" | best)
	sb=$(printf '%s\n' "${s[@]}" | best)
	awk -v mb="$MB" -v w="$wb" -v s="$sb" -v wa="${w[*]}" -v sa="${s[*]}" 'BEGIN {
		printf "wfrun SFTP staging: best %.2f s = %.1f MB/s   (runs: %s)\n", w, mb * 1.048576 / w, wa
		printf "scp:                best %.2f s = %.1f MB/s   (runs: %s)\n", s, mb * 1.048576 / s, sa
		printf "wfrun / scp throughput: %.0f %%\n", 100 * s / w }'
	"$TESTCLUSTER" down -q "$C"
done
