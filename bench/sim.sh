#!/usr/bin/env bash
# The paper's experiment shapes at the paper's scale, in simulation
# (wfrun sim): 12 workers x 48 cores, 225 I/O executors and a 450 MB/s
# disk each; every variant side by side in one run:
#   baseline (--no-io), io (no storage_bw), static storage_bw 2..256,
#   auto, "auto(2,256,2)", each auto variant twice: a first run that
#   learns, and a second run that starts from the registry the first kept
#   (--registry, as wfrun run keeps .wfrun/storage_bw.tsv); and auto
#   learning the paper's way (--learn paper), first run; and auto with
#   --no-preempt (its first guess on the other disks is never corrected),
#   first run.  "stopped": I/O attempts auto's first run stopped to make
#   way.
# Shapes: HMMER-like (2,304 searches of 60 s +-10 %, each followed by a
# 290 MB checkpoint; hmmer4: four times as many, where learning pays) and Kmeans-like (1, 3 and 6 iterations of 500
# partial sums of 30 s +-10 %, a 5 s reduce, and 500 checkpoints of
# 290 MB; the checkpoints of all iterations learn as one, learn_as).
# Three device laws (wfrun(1), SIMULATION), never given to the scheduler:
#   paper:   knee 56, alpha 0.01, stream 8 MB/s: the best concurrency is 56
#            per disk (c = 8), as the paper's Figure 17 found;
#   steep:   knee 8, alpha 0.1, no stream cap: one writer fills the disk,
#            more than 8 lose bandwidth fast (congestdev's collapse, without
#            its per-writer cap);
#   congest: congestdev's own law on 200 MB/s disks (knee 4, alpha 0.1,
#            stream 50): one writer is slow, 4 fill the disk, more
#            collapse it (its statics are B / k, k = 64 .. 1).
# Usage: bench/sim.sh [WFRUN]   (prints a Markdown table per law)
set -eu
WFRUN=${1:-${WFRUN:-$(dirname "$0")/../build/wfrun}}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

cluster() { # B
	echo '<resources>'
	for i in $(seq 1 12); do
		echo "  <worker name=\"n$i\" host=\"n$i.example\"><cores>48</cores><io-executors>225</io-executors><disk bandwidth=\"$1\"/><workdir>/scratch</workdir></worker>"
	done
	echo '</resources>'
}

# bw_lines BW [LEARN_AS]: the storage_bw lines of a checkpoint task
bw_lines() {
	[ "$1" = io ] && return
	echo "    storage_bw: $1"
	case $1 in auto* | \"auto*) [ -n "${2:-}" ] && echo "    learn_as: $2" ;; esac
	return 0
}

hmmer() { # N BW
	cat <<EOF
tasks:
  - name: search
    foreach: {i: "1..$1"}
    out: {f: "r/{i}"}
    run: "true"
  - name: ckpt
    foreach: {i: "1..$1"}
    io: true
$(bw_lines "$2")
    in: {f: "r/{i}"}
    out: {g: "c/{i}"}
    run: "true"
EOF
}

kmeans() { # ITERS BW
	echo "tasks:"
	echo "  - {name: init, out: {c: centres/0}, run: \"true\"}"
	for j in $(seq 1 "$1"); do
		cat <<EOF
  - name: partial$j
    foreach: {i: "1..500"}
    in: {c: centres/$((j - 1))}
    out: {p: "p$j/{i}"}
    run: "true"
  - name: reduce$j
    in: {p: {list: "p$j/{i}", foreach: {i: "1..500"}}}
    out: {c: centres/$j}
    run: "true"
  - name: ckpt$j
    foreach: {i: "1..500"}
    io: true
$(bw_lines "$2" ckpt)
    in: {p: "p$j/{i}"}
    out: {k: "k$j/{i}"}
    run: "true"
EOF
	done
}

model() { # SHAPE ITERS LAW
	if [ "$1" = hmmer ]; then
		printf 'task search seconds 60 jitter 0.1\ntask ckpt writes 290\n'
	else
		echo 'task init seconds 1'
		for j in $(seq 1 "$2"); do
			printf 'task partial%d seconds 30 jitter 0.1\ntask reduce%d seconds 5\ntask ckpt%d writes 290\n' "$j" "$j" "$j"
		done
	fi
	case $3 in
	paper) echo 'device * bandwidth 450 knee 56 alpha 0.01 stream 8' ;;
	steep) echo 'device * bandwidth 450 knee 8 alpha 0.1' ;;
	congest) echo 'device * bandwidth 200 knee 4 alpha 0.1 stream 50' ;;
	esac
}

makespan() { awk 'NR == 1 { print $2 }'; }

for law in paper steep congest; do
	statics="2 4 8 16 32 64 128 256" B=450 bounded='auto(2,256,2)'
	if [ $law = congest ]; then
		statics="3.125 6.25 12.5 25 50 100 200" B=200 bounded='auto(3.125,200,2)'
	fi
	cluster $B >"$dir/cluster.xml"
	variants="baseline io $statics auto auto2 paper nopre $bounded ${bounded}2"
	echo "### law: $law ($(model hmmer 0 $law | tail -1))"
	echo
	printf '| shape | %s | best static | auto vs best (1st / 2nd run) | stopped | --no-preempt vs best | paper'"'"'s auto vs best | %s vs best (1st / 2nd) | auto vs baseline (1st / 2nd) |\n' "$(echo $variants | sed "s/ / | /g; s/auto2/auto, 2nd run/; s/paper/auto, --learn paper/; s/nopre/auto, --no-preempt/; s/$bounded""2/$bounded, 2nd run/")" "$bounded"
	ncol=$(($(echo $variants | wc -w) + 8))
	printf '|%s\n' "$(for _ in $(seq 1 $ncol); do printf -- '---|'; done)"
	for shape in hmmer hmmer4 kmeans1 kmeans3 kmeans6; do
		iters=${shape#kmeans}
		n=2304
		[ "$shape" = hmmer4 ] && n=9216
		case $shape in hmmer*) iters=0 ;; esac
		case $shape in
		hmmer*) model hmmer 0 $law ;;
		*) model kmeans "$iters" $law ;;
		esac >"$dir/model.txt"
		row="| $shape"
		declare -A t=()
		rm -f "$dir"/reg-*
		for v in $variants; do
			bw=$v reg=
			case $v in
			baseline) bw=io ;;
			auto | auto2) bw=auto reg=auto ;;
			paper | nopre) bw=auto ;;
			auto\(*) bw="\"$bounded\"" reg=bounded ;;
			esac
			case $shape in
			hmmer*) hmmer $n "$bw" ;;
			*) kmeans "$iters" "$bw" ;;
			esac >"$dir/wf.yaml"
			extra=()
			[ "$v" = baseline ] && extra=(--no-io)
			[ "$v" = paper ] && extra=(--learn paper)
			[ "$v" = nopre ] && extra=(--no-preempt)
			# a first and a second run share a registry
			[ -n "$reg" ] && extra=(--registry "$dir/reg-$reg")
			out=$("$WFRUN" sim -q "${extra[@]}" -m "$dir/model.txt" -r "$dir/cluster.xml" "$dir/wf.yaml")
			t[$v]=$(makespan <<<"$out")
			[ "$v" = auto ] && stopped=$(awk '/I\/O attempts? stopped/ { n = $1 } END { print n + 0 }' <<<"$out")
			row="$row | ${t[$v]}"
		done
		best=
		for v in $statics; do
			if [ -z "$best" ] || awk -v a="${t[$v]}" -v b="${t[$best]}" 'BEGIN { exit !(a < b) }'; then best=$v; fi
		done
		pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f %%", 100 * (a - b) / b }'; }
		row="$row | ${t[$best]} (c=$best) | $(pct "${t[auto]}" "${t[$best]}") / $(pct "${t[auto2]}" "${t[$best]}") | $stopped | $(pct "${t[nopre]}" "${t[$best]}") | $(pct "${t[paper]}" "${t[$best]}") | $(pct "${t[$bounded]}" "${t[$best]}") / $(pct "${t[${bounded}2]}" "${t[$best]}") | $(pct "${t[auto]}" "${t[baseline]}") / $(pct "${t[auto2]}" "${t[baseline]}") |"
		echo "$row"
		unset t
	done
	echo
done
