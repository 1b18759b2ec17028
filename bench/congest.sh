#!/usr/bin/env bash
# I/O congestion: the paper's experiment shapes (HMMER-like, Kmeans-like with
# 1, 3 and 6 iterations) run by wfrun with every I/O variant, on an emulated
# congestible device (bench/congestdev) and, as the control, on the plain
# disk.  Needs root (congestdev).  See bench/README.md for what it measures.
#
#   bench/congest.sh                 # calibrate, then sweep everything
#   PHASES=calibrate bench/congest.sh
#   WORKFLOWS="hmmer kmeans1" DEVICES=congest VARIANTS="baseline io" bench/congest.sh
#
# Knobs (environment):
#   WFRUN          the wfrun binary (default ../wfrun; a private copy is run)
#   CONGESTDEV     the congestdev tool (default bench/congestdev)
#   CD_B CD_K0 CD_ALPHA CD_R1   the device's law (default: congestdev's own
#                  defaults 200, 4, 0.1, 50); CD_SIZE its image (default 6G)
#   S_MIB          MiB each I/O task writes with O_DIRECT (default 64)
#   IO_EXECUTORS   wfrun --io-executors (default 16: more than the knee, as the
#                  paper's runs had, so unconstrained I/O can congest)
#   TC             seconds of CPU work per compute task (default 0.5; an awk
#                  loop calibrated on this machine at start)
#   HMMER_N        HMMER-like: compute+checkpoint pairs (default 32)
#   VARIANT_N      variant-discovery-like: samples, each an alignment
#                  (compute), its checkpoint and a call reading the
#                  checkpoint (compute) (default 32)
#   KMEANS_P       Kmeans-like: partial sums (and checkpoints) per iteration
#                  (default 8)
#   WORKFLOWS      default "hmmer kmeans1 kmeans3 kmeans6" (also: variant)
#   DEVICES        default "congest plain"
#   VARIANTS       default "baseline io iolimit static auto paper bounded";
#                  paper is auto with --learn paper (the paper's way); auto2
#                  runs auto again with the registry the last auto row of
#                  the same workflow and device kept (its second run), auto3
#                  with the one the last auto2 row kept (its third); iolimit
#                  is io with --io-executors k for k in IOLIMIT_KS (default
#                  "2 4 8"; 16 is the io row): the concurrency a static
#                  constraint allows, imposed without storage_bw (a reference
#                  for the static rows, not one of them)
#   STATIC_KS      the static rows: storage_bw B / k for each k (default
#                  every power of 2 up to IO_EXECUTORS)
#   CAL_KS         concurrencies of the calibration (default "1 2 4 8 16")
#   WORKERS        with 2 or more: that many SSH workers (testcluster,
#                  loopback; TESTCLUSTER, default tests/cluster/testcluster)
#                  of WORKER_CORES (default 1) cores and IO_EXECUTORS I/O
#                  executors each run every variant, their workdir on the
#                  device declared one <storage> of B (the paper's setting:
#                  nodes on one parallel file system); the master runs no
#                  task.  The plain disk control is then a <storage> too
#   REPEATS        run the whole sweep this many times (default 1); each
#                  run is a row, its ratio against the same repeat's baseline
#   PHASES         default "calibrate sweep"
#   MAX_LOAD       wait (up to WAIT_MAX s, default 120) for the 1-min load
#                  average to fall below it before each run (default 2); the
#                  load is printed beside every figure either way
#   FORCE_CONSTRAINED=1  run the constrained variants even when this wfrun
#                  has no --disk-bw (they are then reported as NOT
#                  CONSTRAINED, without a figure: used to test the check)
#   BENCH_TMP, KEEP=1  scratch location / keep it (see scratch.sh)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
WFRUN=${WFRUN:-$here/../wfrun}
CONGESTDEV=${CONGESTDEV:-$here/congestdev}
CONGESTDEV=$(realpath "$CONGESTDEV")
BENCH_TMP=${BENCH_TMP:-$here/out}
CD_B=${CD_B:-200} CD_K0=${CD_K0:-4} CD_ALPHA=${CD_ALPHA:-0.1} CD_R1=${CD_R1:-50}
CD_SIZE=${CD_SIZE:-6G}
S_MIB=${S_MIB:-64}
IO_EXECUTORS=${IO_EXECUTORS:-16}
TC=${TC:-0.5}
HMMER_N=${HMMER_N:-32}
VARIANT_N=${VARIANT_N:-32}
WORKERS=${WORKERS:-1}
WORKER_CORES=${WORKER_CORES:-1}
TESTCLUSTER=${TESTCLUSTER:-$here/../tests/cluster/testcluster}
KMEANS_P=${KMEANS_P:-8}
WORKFLOWS=${WORKFLOWS:-hmmer kmeans1 kmeans3 kmeans6}
DEVICES=${DEVICES:-congest plain}
VARIANTS=${VARIANTS:-baseline io iolimit static auto paper bounded}
REPEATS=${REPEATS:-1}
CAL_KS=${CAL_KS:-1 2 4 8 16}
IOLIMIT_KS=${IOLIMIT_KS:-2 4 8}
STATIC_KS=${STATIC_KS:-$(for ((j = 1; j <= IO_EXECUTORS; j *= 2)); do printf '%d ' $j; done)}
PHASES=${PHASES:-calibrate sweep}
MAX_LOAD=${MAX_LOAD:-2}
WAIT_MAX=${WAIT_MAX:-120}
FORCE_CONSTRAINED=${FORCE_CONSTRAINED:-0}

[ "$(id -u)" = 0 ] || { echo "congest.sh: congestdev needs root" >&2; exit 4; }
[ -x "$WFRUN" ] || { echo "congest.sh: no wfrun at $WFRUN (run make, or set WFRUN)" >&2; exit 2; }
[ -x "$CONGESTDEV" ] || { echo "congest.sh: no congestdev at $CONGESTDEV (set CONGESTDEV)" >&2; exit 2; }

# shellcheck source=bench/scratch.sh
. "$here/scratch.sh" congest
DEV=$tmp/dev            # the congestdev DIR; the device's filesystem is $DEV/mnt
PLAIN=$tmp/plain        # the control: a directory on the plain disk
mkdir -p "$PLAIN"
dev_up=0
cluster_up=0
finish() {
	[ "$cluster_up" = 0 ] || "$TESTCLUSTER" down -q "$tmp/cluster" >/dev/null 2>&1 || true
	if [ "$dev_up" = 1 ]; then
		"$CONGESTDEV" down -f "$DEV" >&2 || echo "congest.sh: 'congestdev down $DEV' failed; run it by hand" >&2
		# the daemon's log of k is the record of what the device saw
		[ -f "$DEV/congestd.log" ] && cp "$DEV/congestd.log" "$BENCH_TMP/congestd-$(date -u +%Y%m%dT%H%M%S).log"
	fi
	cleanup
}
trap finish EXIT

load1() { cut -d' ' -f1 /proc/loadavg; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
# Wait (at most WAIT_MAX s) until the 1-minute load is below MAX_LOAD.
wait_quiet() {
	local i
	for ((i = 0; ; i++)); do
		awk -v l="$(load1)" -v m="$MAX_LOAD" 'BEGIN { exit !(l < m) }' && return 0
		((i < WAIT_MAX / 5)) || break
		((i % 12)) || echo "# waiting for load < $MAX_LOAD (now $(loadavg))" >&2
		sleep 5
	done
	echo "# load still $(loadavg) after ${WAIT_MAX}s: running anyway" >&2
}
now() { date +%s.%N; }

echo "# congest.sh $(date -u +%FT%TZ), $(nproc) cores, load $(loadavg)"
echo "# wfrun: $wfrun_src (sha256 $(sha256sum "$WFRUN" | cut -c1-12))"

# ------------------------------------------------------------ the device
"$CONGESTDEV" up "$DEV" --size "$CD_SIZE" --B "$CD_B" --k0 "$CD_K0" \
	--alpha "$CD_ALPHA" --r1 "$CD_R1" -q
dev_up=1
# shellcheck disable=SC1091
. "$DEV/congestdev.env"
echo "# device: $CONGESTDEV_LABEL"
echo "# law injected by congestdev (not measured from any device): B=$CONGESTDEV_B k0=$CONGESTDEV_K0 alpha=$CONGESTDEV_ALPHA r1=$CONGESTDEV_R1 MiB/s; optimum k*=$CONGESTDEV_KBEST, c*=$CONGESTDEV_CBEST (never given to wfrun)"
echo "# law table: $CONGESTDEV_TABLE"
echo "# control: $PLAIN on $(findmnt -n -o SOURCE,FSTYPE -T "$PLAIN" | tr -s ' ')"

# write_task DIR FILE: the I/O task, S_MIB MiB with O_DIRECT, fsync'd.
dd_cmd() { echo "dd if=/dev/zero of=$1 bs=1M count=$S_MIB oflag=direct conv=fsync status=none"; }

# ------------------------------------------------------------ calibration
# k concurrent writers of S_MIB each, every one its own task (process
# group; on the device each joins its cgroup), released together once all
# k are ready (a flock barrier, as congestdev's self-test does): aggregate
# MiB/s and mean task time per k.
calibrate() {
	local where=$1 k i
	echo
	echo "## calibration on $where: k concurrent dd writers of $S_MIB MiB each (O_DIRECT, fsync), released together"
	printf '%4s %12s %12s %12s %10s  %s\n' k agg_MiB/s mean_task_s law_MiB/s max_k_seen load
	for k in $CAL_KS; do
		wait_quiet
		local d=$tmp/cal
		if [ "$where" = congest ]; then d=$CONGESTDEV_MNT/cal; fi
		rm -rf "$d"
		mkdir -p "$d"
		local l0 t0 t1 logn job
		exec 8>"$tmp/barrier"
		flock -x 8
		logn=$(wc -l <"$DEV/congestd.log")
		for ((i = 0; i < k; i++)); do
			job="touch $d/ready$i; flock -s $tmp/barrier true; $(dd_cmd "$d/f$i"); date +%s.%N > $d/end$i"
			if [ "$where" = congest ]; then
				"$CONGESTDEV" run -g "$DEV" -- sh -c "$job" 8>&- &
			else
				sh -c "$job" 8>&- &
			fi
		done
		while [ "$(find "$d" -name 'ready*' | wc -l)" -lt "$k" ]; do sleep 0.05; done
		sleep 0.2 # let the last one block on the lock (and congestd see k)
		l0=$(loadavg)
		t0=$(now)
		flock -u 8
		exec 8>&-
		wait
		local kmax=-
		if [ "$where" = congest ]; then
			kmax=$(tail -n +"$((logn + 1))" "$DEV/congestd.log" | awk 'BEGIN { m = 0 } $2 > m { m = $2 } END { print m }')
		fi
		cat "$d"/end* | awk -v k="$k" -v s="$S_MIB" -v t0="$t0" \
			-v law="$(law "$k")" -v km="$kmax" -v l="$l0" '
			{ sum += $1 - t0; if ($1 > last) last = $1 }
			END { printf "%4d %12.1f %12.3f %12s %10s  %s\n", k, k * s / (last - t0), sum / k, law, km, l }'
		rm -rf "$d"
	done
}
# The law's aggregate at k, MiB/s (for the table; wfrun never sees it).
law() {
	[ "${where:-}" = congest ] || { echo -; return; }
	awk -v k="$1" -v B="$CONGESTDEV_B" -v k0="$CONGESTDEV_K0" -v a="$CONGESTDEV_ALPHA" -v r1="$CONGESTDEV_R1" 'BEGIN {
		f = k <= k0 ? 1 : 1 / (1 + a * (k - k0)); agg = B * f
		if (r1 > 0 && k * r1 < agg) agg = k * r1
		printf "%.1f", agg }'
}

# ------------------------------------------------------------ workflows
# Compute tasks: an awk loop of ITER iterations, about TC s on one idle core.
calibrate_compute() {
	local t best=999 i
	for i in 1 2 3; do
		t=$( { /usr/bin/time -f %e awk 'BEGIN { for (i = 0; i < 2000000; i++) s += i % 7 }' >/dev/null; } 2>&1)
		best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (b < a ? b : a) }')
	done
	ITER=$(awk -v t="$best" -v tc="$TC" 'BEGIN { if (t < 0.01) t = 0.01; printf "%d", 2000000 * tc / t }')
	echo "# compute task: awk loop of $ITER iterations (~${TC}s on an idle core; 2M took ${best}s)"
}
compute_cmd() { # OUT
	echo "awk 'BEGIN {{ for (i = 0; i < $ITER; i++) s += i % 7; print s }}' > $1"
}

# gen_WF FILE WORKDIR WRAP BWLINE: write the workflow.  WRAP prefixes the
# I/O command ('congestdev run DEV --' on the device); BWLINE is the
# checkpoint's storage_bw line or empty.
gen_hmmer() {
	cat >"$1" <<EOF2
# HMMER-like: $HMMER_N searches, each followed by a checkpoint of $S_MIB MiB
name: hmmer-like
workdir: $2
tasks:
  - name: search
    foreach: {i: "1..$HMMER_N"}
    out: {hits: "hits/h{i}.txt"}
    run: "$(compute_cmd '{out.hits}')"
  - name: checkpoint
    foreach: {i: "1..$HMMER_N"}
    io: true${4:+
$4}
    in:  {hits: "hits/h{i}.txt"}
    out: {ckpt: "ckpt/c{i}.bin"}
    run: "$3 $(dd_cmd '{out.ckpt}')"
EOF2
}
gen_variant() {
	cat >"$1" <<EOF2
# variant-discovery-like: $VARIANT_N samples, each aligned (compute), its
# alignment checkpointed ($S_MIB MiB), then called from the checkpoint
name: variant-like
workdir: $2
tasks:
  - name: align
    foreach: {s: "1..$VARIANT_N"}
    out: {bam: "bam/s{s}.txt"}
    run: "$(compute_cmd '{out.bam}')"
  - name: checkpoint
    foreach: {s: "1..$VARIANT_N"}
    io: true${4:+
$4}
    in:  {bam: "bam/s{s}.txt"}
    out: {ckpt: "ckpt/s{s}.bin"}
    run: "$3 $(dd_cmd '{out.ckpt}')"
  - name: call
    foreach: {s: "1..$VARIANT_N"}
    in:  {ckpt: "ckpt/s{s}.bin"}
    out: {vcf: "vcf/s{s}.txt"}
    run: "head -c 4194304 {in.ckpt} | wc -c > {out.vcf}"
EOF2
}
gen_kmeans() { # ... ITERATIONS
	local it n=$5
	{
		cat <<EOF2
# Kmeans-like: $n iterations of $KMEANS_P partial sums (1 core each), a
# reduction, and a checkpoint of $S_MIB MiB of each partial, which overlaps
# the next iteration
name: kmeans-like-$n
workdir: $2
tasks:
  - name: init
    out: {c: "centers/c1.txt"}
    run: "echo 0 > {out.c}"
EOF2
		for ((it = 1; it <= n; it++)); do
			cat <<EOF2
  - name: partial_$it
    foreach: {p: "1..$KMEANS_P"}
    in:  {c: "centers/c$it.txt"}
    out: {s: "partials/$it/s{p}.txt"}
    run: "$(compute_cmd '{out.s}')"
  - name: reduce_$it
    in:  {all: {dir: "partials/$it"}}
    out: {c: "centers/c$((it + 1)).txt"}
    run: "cat {in.all}/* | wc -l > {out.c}"
EOF2
		done
		cat <<EOF2
  - name: checkpoint
    foreach: {it: "1..$n", p: "1..$KMEANS_P"}
    io: true${4:+
$4}
    in:  {s: "partials/{it}/s{p}.txt"}
    out: {ckpt: "ckpt/{it}_{p}.bin"}
    run: "$3 $(dd_cmd '{out.ckpt}')"
EOF2
	} >"$1"
}
gen() { # WF FILE WORKDIR WRAP BWLINE
	case $1 in
	hmmer) gen_hmmer "${@:2}" ;;
	variant) gen_variant "${@:2}" ;;
	kmeans[0-9]*) gen_kmeans "${@:2}" "${1#kmeans}" ;;
	*) echo "congest.sh: unknown workflow '$1' (hmmer, variant, kmeansN)" >&2; exit 2 ;;
	esac
}
ncheckpoints() {
	case $1 in
	hmmer) echo "$HMMER_N" ;;
	variant) echo "$VARIANT_N" ;;
	kmeans*) echo $((${1#kmeans} * KMEANS_P)) ;;
	esac
}

# From a trace: the peak number of concurrent checkpoint tasks, their mean
# time, how many rows have storage_bw filled in, and the constraint (and
# epoch) of the last checkpoint to start.
trace_stats() {
	awk -F'\t' '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["name"] == "checkpoint" {
			n++; sum += $col["realtime_s"]
			if ($col["storage_bw"] != "") filled++
			if ($col["start"] > last) { last = $col["start"]; c = $col["storage_bw"] }
		}
		END { printf "%d %.3f %d %s\n", n, n ? sum / n : 0, filled + 0, c == "" ? "-" : c }' "$1" >"$1.stats"
	# the peak: at equal times an end is counted before a start
	local peak
	peak=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["name"] == "checkpoint" { print $col["start"], 1; print $col["complete"], -1 }' "$1" |
		sort -k1,1n -k2,2n | awk '{ c += $2; if (c > m) m = c } END { print m + 0 }')
	read -r n mean filled c <"$1.stats"
	echo "$n $mean $filled $c $peak"
}

declare -A BW BASE CBEST_NOTE
# (congestdev's CBEST is the best k's MiB/s per writer, not B / k*)
CBEST_NOTE[congest]=" (k*=$CONGESTDEV_KBEST)"
results=()
run_variant() { # WF DEVICE VARIANT [C]
	local wf=$1 dev=$2 var=$3 c=${4:-} wd wrap="" bwline="" flags=()
	local label=$var ioexec=$IO_EXECUTORS
	case $dev in
	congest) wd=$CONGESTDEV_MNT/run wrap="$CONGESTDEV run $DEV --" ;;
	plain) wd=$PLAIN/run ;;
	esac
	case $var in
	baseline) flags+=(--no-io) ;;
	io) ;;
	iolimit) ioexec=$c label="io, ${c} I/O executors" ;;
	static) bwline="    storage_bw: $c" label="static c=$c" ;;
	auto) bwline="    storage_bw: auto" ;;
	auto2) bwline="    storage_bw: auto" label="auto, 2nd run" ;;
	auto3) bwline="    storage_bw: auto" label="auto, 3rd run" ;;
	paper) bwline="    storage_bw: auto" label="auto --learn paper" flags+=(--learn paper) ;;
	bounded) bwline="    storage_bw: \"$c\"" label=$c ;;
	esac
	local constrained=0
	[ -z "$bwline" ] || constrained=1
	if ((constrained)) && [ -z "${BW[$dev]:-}" ]; then
		printf '%-8s %-7s %-22s %s\n' "$wf" "$dev" "$label" "SKIPPED: no storage bandwidth for this wfrun ($why_no_bw)"
		return
	fi
	# (WORKERS: B is their <storage>'s)
	[ -z "${BW[$dev]:-}" ] || [ "$HAVE_DISK_BW" = 0 ] || ((WORKERS > 1)) ||
		flags+=(--disk-bw "${BW[$dev]}")
	local y=$tmp/wf/$wf-$dev-${label//[^A-Za-z0-9.]/_}.yaml
	mkdir -p "$tmp/wf"
	gen "$wf" "$y" "$wd" "$wrap" "$bwline"
	rm -rf "$wd"
	local reg=$tmp/registry-$wf-$dev
	if [ "$var" = auto2 ] || [ "$var" = auto3 ]; then
		local from=$reg prev=auto
		[ "$var" = auto2 ] || from=$reg.2 prev=auto2
		[ -s "$from" ] || { printf '%-8s %-7s %-22s %s\n' "$wf" "$dev" "$label" "SKIPPED: no $prev row kept a registry"; return; }
		mkdir -p "$wd/.wfrun"
		cp "$from" "$wd/.wfrun/storage_bw.tsv"
	fi
	local run_with=(-j 2 --io-executors "$ioexec")
	if ((WORKERS > 1)); then
		run_with=(-r "$tmp/workers-$dev.xml")
		workers_xml "$dev" "$wd" "${BW[$dev]:-0}" "$ioexec" >"$tmp/workers-$dev.xml"
	fi
	wait_quiet
	local l0 t0 t1 rc=0 logn
	l0=$(loadavg)
	logn=$(wc -l <"$DEV/congestd.log")
	t0=$(now)
	"$WFRUN" -q "${run_with[@]}" "${flags[@]}" "$y" || rc=$?
	t1=$(now)
	local tr=${y%.yaml}.trace.tsv ev=${y%.yaml}.events.jsonl
	cp "$wd/.wfrun/trace.tsv" "$tr" 2>/dev/null || true
	cp "$wd/.wfrun/events.jsonl" "$ev" 2>/dev/null || true
	[ "$var" != auto ] || cp "$wd/.wfrun/storage_bw.tsv" "$reg" 2>/dev/null || true
	[ "$var" != auto2 ] || cp "$wd/.wfrun/storage_bw.tsv" "$reg.2" 2>/dev/null || true
	local nck
	nck=$(find "$wd/ckpt" -name '*.bin' -size "${S_MIB}M" 2>/dev/null | wc -l)
	rm -rf "$wd"
	local wall
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	if [ "$rc" != 0 ] || [ "$nck" != "$(ncheckpoints "$wf")" ]; then
		printf '%-8s %-7s %-22s %s\n' "$wf" "$dev" "$label" "FAILED: exit $rc, $nck of $(ncheckpoints "$wf") checkpoints written (workflow $y)"
		return
	fi
	local n mean filled cl peak note="" devk=-
	read -r n mean filled cl peak < <(trace_stats "$tr")
	# what the device saw: the largest k congestd logged during the run
	[ "$dev" != congest ] ||
		devk=$(tail -n +"$((logn + 1))" "$DEV/congestd.log" | awk 'BEGIN { m = 0 } $2 > m { m = $2 } END { print m }')
	if ((constrained)); then
		local kmax=0
		[ "$var" != static ] ||
			kmax=$(awk -v B="${BW[$dev]}" -v c="$c" 'BEGIN { printf "%d", B / c * (1 + 1e-5) }') # (wfrun's tolerance: B / k to 6 digits means k)
		if [ "$filled" != "$n" ]; then
			printf '%-8s %-7s %-22s %s\n' "$wf" "$dev" "$label" "NOT CONSTRAINED: storage_bw empty in $((n - filled)) of $n trace rows; no figure recorded (peak concurrency $peak)"
			return
		fi
		if [ "$var" = static ] && { ((peak > kmax)) || { [ "$devk" != - ] && ((devk > kmax)); }; }; then
			printf '%-8s %-7s %-22s %s\n' "$wf" "$dev" "$label" "NOT CONSTRAINED: peak concurrency $peak (device saw k=$devk) > floor(B/c) = $kmax; no figure recorded"
			return
		fi
		[ "$var" = static ] || note="chose c=$cl${CBEST_NOTE[$dev]:-}"
	fi
	[ "$var" != baseline ] || BASE[$wf-$dev]=$wall
	local base=${BASE[$wf-$dev]:-} ratio="-" gain="-"
	if [ -n "$base" ]; then
		ratio=$(awk -v w="$wall" -v b="$base" 'BEGIN { printf "%.2f", w / b }')
		gain=$(awk -v w="$wall" -v b="$base" 'BEGIN { printf "%+.0f%%", 100 * (b - w) / b }')
	fi
	printf '%-8s %-7s %-22s %8s %8s %8s %5s %5s %8s  %-14s %s\n' "$wf" "$dev" "$label" "$wall" "$ratio" "$gain" "$peak" "$devk" "$mean" "$note" "$l0"
	# what learning did: each epoch's k (tasks, MB/s), then each choice
	case $var in auto | auto2 | auto3 | paper | bounded) learning_line "$ev" ;; esac
}

# learning_line EVENTS: "#   learning: [rate 50 MB/s after 0.20 s: fill 4]
# k=1 (1, 50 MB/s) k=4 (8, 170 MB/s) -> c=50 learned" from events.jsonl
# (in their order: the rate, when read while the one writer ran, comes
# before its epoch's end)
learning_line() {
	[ -s "$1" ] || return 0
	awk '
	function num(f,   m) { return match($0, "\"" f "\":[-0-9.e+]*") ? substr($0, RSTART + length(f) + 3, RLENGTH - length(f) - 3) : "" }
	function str(f) { return match($0, "\"" f "\":\"[^\"]*\"") ? substr($0, RSTART + length(f) + 4, RLENGTH - length(f) - 5) : "" }
	/"ev":"epoch_end"/ { s = s sprintf(" k=%s (%s, %.0f MB/s%s)", num("k"), num("tasks"), num("mbps"), $0 ~ /"registered":false/ ? ", not registered" : "") }
	/"ev":"rate"/ { s = s sprintf(" [rate %.0f MB/s after %.2f s: fill %s]", num("mbps"), num("after_s"), num("fill")) }
	/"ev":"constraint"/ { s = s sprintf(" -> c=%g %s", num("c"), str("why")) }
	/"ev":"preempt"/ { n++ }
	END { if (s != "") print "#   learning:" s (n ? sprintf(", %d preempt lines", n) : "") }' "$1"
}

# workers_xml DEVICE WORKDIR B IO_EXECUTORS: the WORKERS SSH workers,
# their one workdir on DEVICE declared a <storage> of B MiB/s.
workers_xml() {
	local n h p u k d
	echo "<resources>"
	echo "  <storage name=\"$1\" bandwidth=\"$3\"/>"
	while read -r n h p u k d; do
		echo "  <worker name=\"$n\" host=\"$h\" port=\"$p\" user=\"$u\">"
		echo "    <cores>$WORKER_CORES</cores><io-executors>$4</io-executors>"
		echo "    <workdir storage=\"$1\" shared=\"true\">$2</workdir>"
		echo "    <ssh identity=\"$k\" known-hosts=\"$tmp/cluster/known_hosts\"/>"
		echo "  </worker>"
	done <"$tmp/cluster/hosts"
	echo "</resources>"
}
workers_up() {
	((WORKERS > 1)) || return 0
	cp "$(dirname "$wfrun_src")/wfrun-worker" "$tmp/wfrun-worker"
	"$TESTCLUSTER" up -q --shared "$WORKERS" "$tmp/cluster"
	cluster_up=1
	echo "# $WORKERS SSH workers (testcluster, loopback) of $WORKER_CORES core(s) and $IO_EXECUTORS I/O executors, one workdir on the device: one <storage>"
}

sweep() {
	workers_up
	calibrate_compute
	HAVE_DISK_BW=0 why_no_bw=""
	# (not grep -q: under pipefail, wfrun killed by SIGPIPE before the
	# end of its help would make it fail)
	if "$WFRUN" --help | grep -c -- '--disk-bw' >/dev/null; then
		HAVE_DISK_BW=1
	else
		why_no_bw="it has no --disk-bw"
	fi
	if ((HAVE_DISK_BW)) || [ "$FORCE_CONSTRAINED" = 1 ]; then
		BW[congest]=$CONGESTDEV_B
		local p
		if p=$("$WFRUN" probe --size 256 "$PLAIN"); then
			BW[plain]=$(sed -n 's/^command line: *--disk-bw //p' <<<"$p")
			echo "# plain disk: $(head -n 1 <<<"$p")"
		else
			why_no_bw="'wfrun probe' failed"
		fi
		echo "# storage bandwidth given to wfrun: device ${BW[congest]} MiB/s (its nominal B, not its law), plain disk ${BW[plain]:-?} MiB/s (wfrun probe)"
		if p=$("$CONGESTDEV" run "$DEV" -- "$WFRUN" probe --size 128 "$CONGESTDEV_MNT"); then
			echo "# for reference, wfrun probe on the device as ONE task (k=1): $(head -n 1 <<<"$p")"
		fi
	fi
	echo "# every variant: wfrun -q -j 2 --io-executors $IO_EXECUTORS$( [ "$HAVE_DISK_BW" = 1 ] && echo " --disk-bw B"); baseline adds --no-io; iolimit rows change --io-executors"
	echo
	echo "## sweep: wall seconds (ratio = wall / baseline wall; gain = time saved vs baseline)"
	printf '%-8s %-7s %-22s %8s %8s %8s %5s %5s %8s  %-14s %s\n' workflow device variant wall_s ratio gain peak dev_k ckpt_s learned load
	local wf dev var j rep
	for ((rep = 1; rep <= REPEATS; rep++)); do
	((REPEATS == 1)) || echo "# repeat $rep of $REPEATS"
	for wf in $WORKFLOWS; do
		for dev in $DEVICES; do
			for var in $VARIANTS; do
				case $var in
				static)
					for j in $STATIC_KS; do
						[ -n "${BW[$dev]:-}" ] || { run_variant "$wf" "$dev" static "B/$j"; break; }
						run_variant "$wf" "$dev" static "$(awk -v B="${BW[$dev]}" -v j="$j" 'BEGIN { print B / j }')"
					done
					;;
				iolimit)
					for j in $IOLIMIT_KS; do
						run_variant "$wf" "$dev" iolimit "$j"
					done
					;;
				bounded)
					if [ -n "${BW[$dev]:-}" ]; then
						run_variant "$wf" "$dev" bounded "$(awk -v B="${BW[$dev]}" -v e="$IO_EXECUTORS" 'BEGIN { printf "auto(%g,%g,2)", B / e, B / 2 }')"
					else
						run_variant "$wf" "$dev" bounded "auto(B/$IO_EXECUTORS,B/2,2)"
					fi
					;;
				*) run_variant "$wf" "$dev" "$var" ;;
				esac
			done
		done
	done
	done
}

for ph in $PHASES; do
	case $ph in
	calibrate)
		for where in $DEVICES; do calibrate "$where"; done
		;;
	sweep) sweep ;;
	*) echo "congest.sh: unknown phase '$ph' (calibrate, sweep)" >&2; exit 2 ;;
	esac
done
