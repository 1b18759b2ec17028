#!/usr/bin/env bash
# ssh-stress: issue 24's proof of "one owner per libssh2 session": SFTP
# uploads and the agent's channel traffic interleaved on every session of
# WORKERS non-shared workers (testcluster --netns, each link shaped to
# RATE, with DELAY of netem delay each way where the kernel has netem),
# TASKS tasks `cksum < input`, the inputs of 0 to MAXMB MB, RUNS runs.
# Each run starts with no data on the workers (so every input is
# uploaded again) and no .wfrun; it must exit 0, lose no worker and bring
# back every checksum equal to the one computed on the master.  Prints one line
# per run (wall s, exit, workers lost, wrong outputs) and a summary; exits
# 1 if any run failed.
#
#   bench/ssh-stress.sh [RUNS [TASKS [WORKERS]]]  # 20 200 8
#   env: RATE (8mbit), DELAY (50ms), MAXMB (20), CORES per worker (2)
#
# Input i (of TASKS) has MAXMB MB * u^6 bytes, u = ((37 i) mod TASKS) /
# (TASKS - 1): a few large inputs among many small ones (with the
# defaults, 0 to 20 MB, 578 MB in all, mean 2.9 MB), in a shuffled order.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
WFRUN=${WFRUN:-$here/../wfrun}
TESTCLUSTER=${TESTCLUSTER:-$here/../tests/cluster/testcluster}
RUNS=${1:-20} TASKS=${2:-200} N=${3:-8}
RATE=${RATE:-8mbit} DELAY=${DELAY:-50ms} MAXMB=${MAXMB:-20} CORES=${CORES:-2}
((TASKS >= 2)) || { echo "ssh-stress: TASKS must be at least 2" >&2; exit 2; }
NETNS_N=$N NETNS_CORES=$CORES NETNS_UP="--rate $RATE"
# shellcheck source=bench/netns-workers.sh
. "$here/netns-workers.sh"
# shellcheck source=/dev/null
. "$C/cluster.env"
# netem's delay where the kernel has it (tbf, testcluster's shaping, has
# no delay): both ends of each veth, delay and rate together
shaped="tbf rate $RATE, no delay (this kernel has no netem)"
if tc qdisc replace dev "wftc${TESTCLUSTER_NET}w1" root netem \
	delay "$DELAY" rate "$RATE" 2>/dev/null; then
	for ((k = 1; k <= N; k++)); do
		tc qdisc replace dev "wftc${TESTCLUSTER_NET}w$k" root netem \
			delay "$DELAY" rate "$RATE"
		ip netns exec "wftc-${TESTCLUSTER_NET}-w$k" tc qdisc replace \
			dev eth0 root netem delay "$DELAY" rate "$RATE"
	done
	shaped="netem rate $RATE, delay $DELAY each way"
fi

m=$wd/m
mkdir -p "$m/in"
total=0
for ((i = 1; i <= TASKS; i++)); do
	bytes=$(awk -v i="$i" -v t="$TASKS" -v mb="$MAXMB" 'BEGIN {
		u = ((37 * i) % t) / (t - 1); printf "%d", mb * 1048576 * u ^ 6 }')
	head -c "$bytes" /dev/urandom >"$m/in/$i.bin"
	total=$((total + bytes))
	cksum <"$m/in/$i.bin" >"$m/in/$i.want"
done
cat >"$m/wf.yaml" <<EOF
tasks:
  - name: sum
    foreach: {i: "1..$TASKS"}
    in: {f: "in/{i}.bin"}
    out: {o: "out/{i}.sum"}
    run: "cksum < {in.f} > {out.o}"
EOF
echo "# $RUNS runs of $TASKS tasks on $N non-shared workers of $CORES cores," \
	"links $shaped; inputs 0 to $MAXMB MB, $((total / 1048576)) MB in all;" \
	"$(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-4s %8s %5s %5s %6s\n' run wall_s exit lost wrong
bad=0 lost_all=0 walls=()
for ((r = 1; r <= RUNS; r++)); do
	workers_forget
	rm -rf "$m/.wfrun" "$m/out"
	s=$(date +%s.%N)
	rc=0
	(cd "$m" && "$W" -q -r "$wd/cluster.xml" wf.yaml) 2>"$wd/err.$r" || rc=$?
	e=$(date +%s.%N)
	lost=$(grep -c "worker '[^']*' lost" "$wd/err.$r" || true)
	wrong=0
	for ((i = 1; i <= TASKS; i++)); do
		cmp -s "$m/out/$i.sum" "$m/in/$i.want" || wrong=$((wrong + 1))
	done
	wall=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.1f", e - s }')
	walls+=("$wall")
	printf '%-4s %8s %5s %5s %6s\n' "$r" "$wall" "$rc" "$lost" "$wrong"
	lost_all=$((lost_all + lost))
	if ((rc || lost || wrong)); then
		bad=$((bad + 1))
		sed 's/^/#   /' "$wd/err.$r" | head -5
	fi
done
printf '%s\n' "${walls[@]}" | sort -n | awk -v r="$RUNS" -v b="$bad" -v l="$lost_all" '
	{ w[NR] = $1 } END {
	printf "# %d runs: %d failed, %d workers lost; wall min %.1f median %.1f max %.1f s\n",
		r, b, l, w[1], w[int((NR + 1) / 2)], w[NR] }'
((bad == 0))
