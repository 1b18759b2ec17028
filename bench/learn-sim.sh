#!/usr/bin/env bash
# storage_bw: auto against the best static constraint of ANY value
# (issue 23), in simulation (wfrun sim): one node of CORES cores and
# IO_EXECUTORS I/O executors writing a device of B MB/s whose law
# (wfrun(1), SIMULATION) the scheduler is never given.  For each law and
# shape: a fine static sweep (storage_bw: B/k for every k from 1 to the
# executors, at most 32, written rounded to 6 digits), the baseline (--no-io: one
# writer per core), auto's first run, and its second run from the
# registry the first kept.
# Laws (aggregate(k) = min(k r1, B f(k)), f = 1 up to the knee, then
# 1 / (1 + alpha (k - knee))), chosen to cover the family:
#   k1flat  knee 1,  alpha 0.05, no cap: one writer fills, more lose a little
#   k1steep knee 1,  alpha 0.5,  r1 40: best 3 (not a power of two), fill
#           point B/r1 = 5 past it
#   knee8   knee 8,  alpha 0.05, r1 25: best 8 = the fill point
#   knee10  knee 10, alpha 0.5,  r1 16: best 10, fill 12.5 past it
#   congest knee 4,  alpha 0.1,  r1 50: congestdev's law, best 4
#   best7   knee 6,  alpha 0.5,  r1 20: best 7, fill 10 past it
#   plain   no knee, r1 50: a disk that does not congest (control: auto
#           must claim no gain and not be slower than the baseline)
#   kK-aA-rR  any other law of the family: knee K, alpha A, r1 R (r0: no
#           per-writer cap), e.g. LAWS="k3-a0.2-r30 k12-a1-r10"
# Shapes (the checkpoint writes MB each):
#   hmmer    N searches of 2 s +-10 %, each followed by a checkpoint
#   variant  per sample: align (3 s +-10 %), a checkpoint of it, and a
#            call (1 s) reading the checkpoint
#   kmeans1, kmeans3  iterations of N partial sums (2 s +-10 %), a
#            reduce, and a checkpoint of each partial (learn_as: one)
# Usage: bench/learn-sim.sh [WFRUN]; environment: B (200), CORES (8),
# IO_EXECUTORS (16), N (64), MB (64), MB_JITTER (0: with F, each
# checkpoint writes MB times its own factor in [1-F, 1+F]: MB=136
# MB_JITTER=0.88 is tasks of 16 to 256 MB), LAWS, SHAPES, TIME_SCALE (1: the
# compute seconds above are multiplied by it; 0.25 with CORES=2 and N=8
# is bench/learn-real.sh's Kmeans-like run, 0.5 s partials); WORKERS (1): with 2
# or more, that many workers of CORES cores and IO_EXECUTORS I/O
# executors each write one shared <storage> of B MB/s (the paper's
# setting: nodes on one parallel file system), k counted across them.
# Prints one Markdown table: per law and shape, the best static (its k),
# auto's 1st and 2nd run against it, and auto against the baseline.
set -eu
WFRUN=${1:-${WFRUN:-$(dirname "$0")/../build/wfrun}}
B=${B:-200} CORES=${CORES:-8} IO_EXECUTORS=${IO_EXECUTORS:-16}
N=${N:-64} MB=${MB:-64} WORKERS=${WORKERS:-1} TIME_SCALE=${TIME_SCALE:-1}
MB_JITTER=${MB_JITTER:-0}
writes="$MB"
sizes="$MB MB"
if [ "$MB_JITTER" != 0 ]; then
	writes="$MB jitter $MB_JITTER"
	sizes=$(awk -v m="$MB" -v f="$MB_JITTER" 'BEGIN { printf "%.4g to %.4g MB", m * (1 - f), m * (1 + f) }')
fi
LAWS=${LAWS:-k1flat k1steep knee8 knee10 congest best7 plain}
SHAPES=${SHAPES:-hmmer variant kmeans1 kmeans3}
dir=${KEEP:-$(mktemp -d)}; mkdir -p "$dir"
trap '[ -n "${KEEP:-}" ] || rm -rf "$dir"' EXIT

law() { # NAME: the device line
	case $1 in
	k1flat) echo "device * bandwidth $B knee 1 alpha 0.05" ;;
	k1steep) echo "device * bandwidth $B knee 1 alpha 0.5 stream 40" ;;
	knee8) echo "device * bandwidth $B knee 8 alpha 0.05 stream 25" ;;
	knee10) echo "device * bandwidth $B knee 10 alpha 0.5 stream 16" ;;
	congest) echo "device * bandwidth $B knee 4 alpha 0.1 stream 50" ;;
	best7) echo "device * bandwidth $B knee 6 alpha 0.5 stream 20" ;;
	plain) echo "device * bandwidth $B stream 50" ;;
	k*-a*-r*) # any law of the family: kKNEE-aALPHA-rR1 (r0: no cap)
		local k=${1#k} a r
		a=${k#*-a} k=${k%%-*} r=${a#*-r} a=${a%%-*}
		echo "device * bandwidth $B knee $k alpha $a$([ "$r" = 0 ] || echo " stream $r")" ;;
	*) echo "learn-sim.sh: unknown law $1" >&2; exit 2 ;;
	esac
}

bw() { [ "$1" = none ] || echo "    storage_bw: $1"; }

workflow() { # SHAPE BW
	echo "tasks:"
	case $1 in
	hmmer)
		cat <<EOF
  - name: search
    foreach: {i: "1..$N"}
    out: {f: "r/{i}"}
    run: "true"
  - name: ckpt
    foreach: {i: "1..$N"}
    io: true
$(bw "$2")
    in: {f: "r/{i}"}
    out: {g: "c/{i}"}
    run: "true"
EOF
		;;
	variant)
		cat <<EOF
  - name: align
    foreach: {s: "1..$N"}
    out: {b: "bam/{s}"}
    run: "true"
  - name: ckpt
    foreach: {s: "1..$N"}
    io: true
$(bw "$2")
    in: {b: "bam/{s}"}
    out: {c: "ck/{s}"}
    run: "true"
  - name: call
    foreach: {s: "1..$N"}
    in: {c: "ck/{s}"}
    out: {v: "vcf/{s}"}
    run: "true"
EOF
		;;
	kmeans*)
		echo "  - {name: init, out: {c: centres/0}, run: \"true\"}"
		for j in $(seq 1 "${1#kmeans}"); do
			# (flow style: one task a line)
			echo "  - {name: partial$j, foreach: {i: \"1..$N\"}, in: {c: centres/$((j - 1))}, out: {p: \"p$j/{i}\"}, run: \"true\"}"
			echo "  - {name: reduce$j, in: {p: {list: \"p$j/{i}\", foreach: {i: \"1..$N\"}}}, out: {c: centres/$j}, run: \"true\"}"
			echo "  - name: ckpt$j"
			echo "    foreach: {i: \"1..$N\"}"
			echo "    io: true"
			bw "$2"
			case $2 in auto*) echo "    learn_as: ckpt" ;; esac
			echo "    in: {p: \"p$j/{i}\"}"
			echo "    out: {k: \"k$j/{i}\"}"
			echo "    run: \"true\""
		done
		;;
	esac
}

model() { # SHAPE LAW
	model_tasks "$1" | awk -v f="$TIME_SCALE" '$3 == "seconds" { $4 *= f } { print }'
	law "$2"
}
model_tasks() { # SHAPE
	case $1 in
	hmmer) printf 'task search seconds 2 jitter 0.1\ntask ckpt writes %s\n' "$writes" ;;
	variant) printf 'task align seconds 3 jitter 0.1\ntask ckpt writes %s\ntask call seconds 1\n' "$writes" ;;
	kmeans*)
		echo 'task init seconds 0.1'
		for j in $(seq 1 "${1#kmeans}"); do
			printf 'task partial%d seconds 2 jitter 0.1\ntask reduce%d seconds 0.5\ntask ckpt%d writes %s\n' "$j" "$j" "$j" "$writes"
		done
		;;
	esac
}

# The resources file of WORKERS workers sharing one storage.
shared_xml() {
	echo "<resources><storage name=\"shared\" bandwidth=\"$B\"/>"
	for i in $(seq 1 "$WORKERS"); do
		echo "<worker name=\"n$i\" host=\"h$i\"><cores>$CORES</cores><io-executors>$IO_EXECUTORS</io-executors><workdir storage=\"shared\" shared=\"true\">/w</workdir></worker>"
	done
	echo "</resources>"
}

run() { # BW [ARGS...]: the makespan
	local b=$1
	shift
	workflow "$shape" "$b" >"$dir/wf.yaml"
	if [ "$WORKERS" -gt 1 ]; then
		"$WFRUN" sim -q -r "$dir/res.xml" -m "$dir/model.txt" "$@" "$dir/wf.yaml"
	else
		"$WFRUN" sim -q -j "$CORES" --io-executors "$IO_EXECUTORS" --disk-bw "$B" \
			-m "$dir/model.txt" "$@" "$dir/wf.yaml"
	fi | awk 'NR == 1 { print $2 }'
}

pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f %%", 100 * (a - b) / b }'; }

shared_xml >"$dir/res.xml"
kmax=$((IO_EXECUTORS * WORKERS > 32 ? 32 : IO_EXECUTORS * WORKERS))
if [ "$WORKERS" -gt 1 ]; then
	echo "$WORKERS workers of $CORES cores and $IO_EXECUTORS I/O executors sharing one storage of B = $B MB/s, $N tasks of $sizes per checkpoint name"
else
	echo "B = $B MB/s, $CORES cores, $IO_EXECUTORS I/O executors, $N tasks of $sizes per checkpoint name"
fi
echo
echo "| law | shape | baseline s | best static s (k) | auto s (k chosen) | auto vs best | 2nd run vs best | auto vs baseline | epochs |"
echo "|---|---|---|---|---|---|---|---|---|"
fails=0
for l in $LAWS; do
	for shape in $SHAPES; do
		model "$shape" "$l" >"$dir/model.txt"
		base=$(run none --no-io)
		best= bestk=
		for k in $(seq 1 "$kmax"); do
			c=$(awk -v B="$B" -v k="$k" 'BEGIN { printf "%.6g", B / k }')
			t=$(run "$c")
			if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then
				best=$t bestk=$k
			fi
		done
		rm -f "$dir/reg"
		auto=$(run auto --registry "$dir/reg" --trace "$dir/trace.tsv")
		ev="$dir/events.jsonl"
		kch=$(grep '"ev":"constraint"' "$ev" | head -1 | sed 's/.*"k":\([0-9]*\).*/\1/')
		nep=$(grep -c '"ev":"epoch_begin"' "$ev" || true)
		auto2=$(run auto --registry "$dir/reg")
		echo "| $l | $shape | $base | $best ($bestk) | $auto (${kch:-?}) | $(pct "$auto" "$best") | $(pct "$auto2" "$best") | $(pct "$auto" "$base") | $nep |"
		awk -v a="$auto" -v b="$best" -v z="$base" 'BEGIN { exit !(a > 1.1 * b || a > z * 1.0005) }' && fails=$((fails + 1))
	done
done
echo
echo "runs where auto is more than 10 % over the best static, or slower than the baseline: $fails"
