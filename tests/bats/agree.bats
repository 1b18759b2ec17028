#!/usr/bin/env bats
# wfrun sim predicts wfrun: the same workflow run for real (local, tasks
# that sleep for known times) and simulated (a model of the same times)
# starts its tasks in the same order and holds each device to the same
# number of I/O tasks at once.  Times are never compared, only orders:
# the tasks' lengths keep every start 0.5 s away from the next.
load helper

# 2 cores, a 100 MB/s disk: 2 checkpoints of storage_bw 50 at once.
#   0 s: a1 a2 (2 cores), w1 w2 (I/O, no core; 2 fit the disk)
#   1 s: a3 (a1 and a2 end)      1.5 s: w3 w4 (w1 and w2 end)
#   2 s: b (2 cores; a3 ends)    3 s: w5 w6 (w3 and w4 end)
agree_wf() {
	wf <<'EOF'
tasks:
  - name: a
    foreach: {i: "1..3"}
    out: {f: "a/{i}"}
    run: "sleep 1; echo {i} > {out.f}"
  - name: w
    foreach: {i: "1..6"}
    io: true
    storage_bw: 50
    out: {f: "w/{i}"}
    run: "sleep 1.5; echo {i} > {out.f}"
  - name: b
    cores: 2
    in: {x: a/1, y: a/2, z: a/3}
    out: {f: b}
    run: "sleep 0.5; cat {in.x} {in.y} {in.z} > {out.f}"
EOF
	printf 'task a seconds 1\ntask w seconds 1.5\ntask b seconds 0.5\n' >m.txt
}

# start_groups TRACE: the task ids by start time, tasks that start at the
# same time on one line (sorted); for the simulated trace, whose times
# are exact.
start_groups() {
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "start") s = i; if ($i == "task_id") t = i }; next }
		{ print $s "\t" $t }' "$1" | sort -t"$(printf '\t')" -k1,1g -k2,2n |
		awk -F'\t' '$1 != last && NR > 1 { print line; line = "" } { line = line (line == "" ? "" : " ") $2; last = $1 } END { print line }'
}

# starts TRACE: the task ids in the order they started, one per line.
starts() {
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "start") s = i; if ($i == "task_id") t = i }; next }
		{ print $s "\t" $t }' "$1" | sort -t"$(printf '\t')" -k1,1g | cut -f2
}

# io_peak TRACE: the most I/O tasks running at once (an end before a
# start at the same time).
io_peak() {
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "start") s = i; if ($i == "complete") c = i; if ($i == "kind") k = i }; next }
		$k == "io" { print $s "\t1"; print $c "\t0" }' "$1" |
		sort -t"$(printf '\t')" -k1,1g -k2,2n |
		awk -F'\t' '{ n += $2 ? 1 : -1; if (n > m) m = n } END { print m + 0 }'
}

# same_order SIM REAL: REAL's starts are SIM's groups, in order, each in
# any order within.
same_order() {
	local sim=$1 real=$2 group n got want
	mapfile -t ids < <(starts "$real")
	n=0
	while IFS= read -r group; do
		want=$(tr ' ' '\n' <<<"$group" | sort -n | tr '\n' ' ')
		local k
		k=$(wc -w <<<"$group")
		got=$(printf '%s\n' "${ids[@]:n:k}" | sort -n | tr '\n' ' ')
		if [ "$got" != "$want" ]; then
			echo "start $((n + 1))..$((n + k)): wfrun started '$got', wfrun sim '$want'"
			return 1
		fi
		n=$((n + k))
	done < <(start_groups "$sim")
	[ "$n" -eq "${#ids[@]}" ] || { echo "wfrun started ${#ids[@]}, wfrun sim $n"; return 1; }
}

@test "agree: wfrun sim starts tasks in wfrun's order, as many I/O at once" {
	agree_wf
	run "$WFRUN" sim -m m.txt -j 2 --disk-bw 100 --trace sim.tsv wf.yaml
	[ "$status" -eq 0 ]
	run "$WFRUN" -j 2 --disk-bw 100 wf.yaml
	[ "$status" -eq 0 ]
	start_groups sim.tsv >groups.txt
	# the model's order, as the comment above says
	[ "$(cat groups.txt)" = "$(printf '1 2 4 5\n3\n6 7\n10\n8 9')" ]
	run same_order sim.tsv .wfrun/trace.tsv
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(io_peak sim.tsv)" -eq 2 ]
	[ "$(io_peak .wfrun/trace.tsv)" -eq 2 ]
}

@test "agree: a changed order is caught" {
	agree_wf
	run "$WFRUN" sim -m m.txt -j 2 --disk-bw 100 --trace sim.tsv wf.yaml
	[ "$status" -eq 0 ]
	# the same rows with b's start moved before a3's
	awk -F'\t' 'BEGIN { OFS = "\t" } NR == 1 { for (i = 1; i <= NF; i++) if ($i == "start") s = i }
		NR > 1 && $1 == 10 { $s = 0.9 } { print }' sim.tsv >moved.tsv
	run same_order sim.tsv moved.tsv
	[ "$status" -eq 1 ]
	[ "$(io_peak moved.tsv)" -eq 2 ]
}
