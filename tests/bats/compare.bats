#!/usr/bin/env bats
# Issue 22, wfrun report --compare A B: per task name, what changed from
# run A to run B, and what ran in one only.  Two real runs made once
# (setup_file): B's 'work' sleeps 2 s and sorts 60 MB, A's 30 MB (more
# memory; both more than wfrun's own, below which a peak is not known),
# 'extra' ran only in B (A stopped --until work), and prep's foreach grew
# from 1..2 to 1..3 (i=1,2 up to date in B: ran in A only; i=3 in B only);
# then a run with nothing to do.
load helper

setup_file() {
	mkdir -p "$BATS_FILE_TMPDIR/wd"
	cd "$BATS_FILE_TMPDIR/wd" || return 1
	cat >wf.yaml <<'EOF2'
tasks:
  - name: prep
    foreach: {i: "1..2"}
    out: {f: "prep{i}.txt"}
    run: "echo {i} > {out.f}"
  - name: work
    in: {f: prep1.txt}
    out: {g: work.txt}
    run: "head -c 30000000 /dev/zero | sort >/dev/null; echo small > {out.g}"
  - name: extra
    in: {g: work.txt}
    out: {h: extra.txt}
    run: "cat {in.g} > {out.h}"
EOF2
	"$WFRUN" -q wf.yaml --until work
	sed -i -e 's/1\.\.2/1..3/' \
		-e 's/head -c 30000000/sleep 2; head -c 60000000/' -e 's/echo small/echo big/' wf.yaml
	"$WFRUN" -q wf.yaml
	"$WFRUN" -q wf.yaml
}

setup() {
	cd "$BATS_FILE_TMPDIR/wd" || exit 1
}

# The run ids, oldest first: A, B, the nothing-to-do run.
run_id() {
	ls .wfrun/runs | sed -n "${1}p"
}

# The row of task name $2 in the text table titled $1, from $output.
text_row() {
	awk -v t="$1" -v n="$2" 'index($0, t) == 1 { on = 1; next }
		/^$/ { on = 0 } on && $1 == n' <<<"$output"
}

@test "compare: the slower task's change is positive, the task and instances only in B are named" {
	run "$WFRUN" report --compare previous latest
	[ "$status" -eq 0 ]
	echo "$output"
	[[ "${lines[0]}" == "A: $(run_id 1): 3 instances run, "* ]]
	[[ "${lines[1]}" == "B: $(run_id 2): 3 instances run, "* ]]
	grep -qx 'Task names only in A: none' <<<"$output"
	grep -qx 'Task names only in B: extra' <<<"$output"
	grep -qx 'Instances only in A: prep (i=1, i=2)' <<<"$output"
	grep -qx 'Instances only in B: prep (i=3)' <<<"$output"
	# work: B's wall time holds the 2 s sleep, the change is B - A and
	# positive.  (Not "up by the sleep": on a loaded machine A's 30 MB
	# sort took 0.62 s and B's 60 MB 0.53, and a change of 0.41 s
	# failed ">= 0.45".)
	row=$(text_row "wall time, total" work)
	read -r _ a _ b _ d _ p <<<"$row"
	awk -v a="$a" -v b="$b" -v d="$d" 'BEGIN { x = b - a - d; exit !(b >= 2 && d > 0 && x < 0.002 && x > -0.002) }'
	[[ "$d" == +* && "$p" == +*% ]]
	# its peak RSS up by the sort's 30 MB more (10 MiB at least)
	row=$(text_row "peak RSS, max" work)
	[[ "$row" =~ \ \+([0-9.]+)\ MiB\ +\+[0-9.]+%$ ]]
	awk -v m="${BASH_REMATCH[1]}" 'BEGIN { exit !(m >= 10) }'
	# extra ran in B only: no A, no change
	[[ "$(text_row "wall time, total" extra)" =~ ^\ +extra\ +-\ +[0-9.]+\ s\ +-\ +-$ ]]
	# B defaults to the latest run
	run "$WFRUN" report --compare previous
	[ "$status" -eq 0 ]
	[[ "${lines[1]}" == "B: $(run_id 2): "* ]]
}

@test "compare --format json: it parses and has the changes and what ran in one run only" {
	"$WFRUN" report --compare "$(run_id 1)" "$(run_id 2)" --format json >ab.json
	# -o FILE.json picks json; trace files and a run directory as operands
	run "$WFRUN" report --compare ".wfrun/runs/$(run_id 1)/trace.tsv" ".wfrun/runs/$(run_id 2)" -o c.json
	[ "$status" -eq 0 ]
	# one python (json.load parses as strictly as python3 -m json.tool)
	python3 -c '
import json, sys
c = json.load(open("ab.json"))
assert json.load(open("c.json"))["only_in_b"] == ["extra"]
n = {x["name"]: x for x in c["names"]}
assert c["a"]["label"] == sys.argv[1] and c["b"]["label"] == sys.argv[2], c["a"]
assert c["a"]["instances"] == 3 and c["b"]["instances"] == 3
assert c["only_in_a"] == [] and c["only_in_b"] == ["extra"], c["only_in_b"]
w = n["work"]
assert w["in"] == "both" and w["instances"] == {"a": 1, "b": 1, "change": 0, "pct": 0}
ws = w["wall_s"]
assert ws["b"] >= 2 and ws["change"] > 0 and ws["pct"] > 0, ws
assert abs(ws["change"] - (ws["b"] - ws["a"])) < 5e-5, ws
assert w["peak_rss_max_kb"]["change"] >= 10000, w["peak_rss_max_kb"]
for k in ("wall_median_s", "cpu_s", "cpu_median_s", "peak_rss_median_kb", "read_bytes", "write_bytes"):
    assert set(w[k]) == {"a", "b", "change", "pct"}, k
p = n["prep"]
assert p["instances_only_in_a"] == ["i=1", "i=2"] and p["instances_only_in_b"] == ["i=3"], p
e = n["extra"]
assert e["in"] == "b" and e["instances"]["a"] == 0 and e["wall_s"]["a"] is None and e["wall_s"]["change"] is None
' "$(run_id 1)" "$(run_id 2)"
	rm ab.json c.json
}

@test "compare --format html: one page with the tables and a bar per task name, no external URL" {
	run "$WFRUN" report --compare previous latest --format html
	[ "$status" -eq 0 ]
	[ -s .wfrun/compare.html ]
	grep -q '<div class="bar up" style="left:50.00%;width:50.00%"></div></div><div>+' .wfrun/compare.html
	grep -q '<div>extra</div>.*only in B' .wfrun/compare.html
	grep -q '<tr><td>work</td><td>' .wfrun/compare.html
	grep -q '<li>only in B: <b>prep</b> (i=3)</li>' .wfrun/compare.html
	run grep -Eic 'https?:|src=|href=|@import|url\(' .wfrun/compare.html
	[ "$output" = 0 ]
	rm .wfrun/compare.html
	run "$WFRUN" report --compare previous latest -o - --format html
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "<!DOCTYPE html>" && "${lines[-1]}" == "</body></html>" ]]
}

@test "compare: unknown, ambiguous and nothing-to-do runs are errors that say what to name; the same run twice changes nothing" {
	a=$(run_id 1) b=$(run_id 2) n=$(run_id 3)
	run "$WFRUN" report --compare "${a}x" latest
	[ "$status" -eq 2 ]
	[[ "$output" == *"no run '${a}x' in .wfrun/runs, and no file of that name; the nearest run ids: $a, "* ]]
	run "$WFRUN" report --compare "${a:0:4}" latest
	[ "$status" -eq 2 ]
	[[ "$output" == *"run id prefix '${a:0:4}' is ambiguous: $a, $b, $n"* ]]
	run "$WFRUN" report --compare "$n" "$a"
	[ "$status" -eq 2 ]
	[[ "$output" == *"run $n had nothing to do: it has no trace; the trace it kept as the latest is run $b's (try wfrun report --compare $b ...)"* ]]
	# a unique prefix; the same run twice: every change 0 (the 27 rows
	# of the 9 tables of 3 names end in +0.0%, but the peak RSS of prep
	# and extra, too small to be known: '-')
	run "$WFRUN" report --compare "${b:0:20}" "$b"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "A: $b: "* && "${lines[1]}" == "B: $b: "* ]]
	[ "$(grep -c '^  [a-z]' <<<"$output")" -eq 27 ]
	[ "$(grep -c '^  [a-z].* +0\.0%$' <<<"$output")" -ge 23 ]
	[ "$(grep '^  [a-z]' <<<"$output" | grep -cvE ' (\+0\.0%|-)$')" -eq 0 ]
	grep -qx 'Task names only in B: none' <<<"$output"
	run "$WFRUN" report --compare latest --format chrome
	[ "$status" -eq 2 ]
	[[ "$output" == *"--compare writes text, html or json, not 'chrome'"* ]]
	run "$WFRUN" report --format json
	[ "$status" -eq 2 ]
	[[ "$output" == *"--format json is for --compare"* ]]
}
