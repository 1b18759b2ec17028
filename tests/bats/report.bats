#!/usr/bin/env bats
# wfrun report: the HTML page and the Chrome trace from a fixture trace.tsv
# and events.jsonl (tests/data/report), and from a real run.
load helper

fixture() {
	cp "$WFRUN_TOP/tests/data/report/trace.tsv" \
	   "$WFRUN_TOP/tests/data/report/events.jsonl" .
}

# The timeline's data (the JSON the page's canvas is drawn from) of FILE
# as the value of the Python expression EXPR over it, d.
tl() { # FILE EXPR
	python3 - "$1" "$2" <<'PY'
import json, re, sys
h = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<script type="application/json" id="tl-data">(.*?)</script>', h, re.S)
d = json.loads(m.group(1))
print(eval(sys.argv[2]))
PY
}

@test "report: lanes per worker slot, failed marked, table, curve" {
	fixture
	run "$WFRUN" report -o r.html trace.tsv
	[ "$status" -eq 0 ]
	[[ "$output" == *"report: 9 tasks and learner events -> r.html"* ]]
	# (one Python for all: it starts slowly on a loaded machine)
	# local: 2 cores (the 2-core task takes both), 2 I/O executors used
	# at once, node1: one of each; the 2-core task (the third row) in
	# lane 0 and, further, lane 1; a colour per name; the failed one
	# (status 1) with its exit status and escaped tag
	[ "$(tl r.html 'd["workers"], d["T"][16:22], d["X"], [n for n, c in d["names"]], [d["T"][i*8+6] for i in range(9)], d["G"][6], d["F"]')" = \
	  "([['local', 2, 2], ['node1', 1, 1]], [1, 0, 0, 0, 3.0, 2.0], [2, 1], ['gen', 'big', 'ckpt', 'fail'], [0, 0, 0, 0, 0, 0, 1, 0, 0], '<x&y>', {'6': [3, '(no stderr log left: it was empty, removed, or a later attempt replaced it)']})" ]
	# the legend: the names and the two markers
	[ "$(grep -o '<span class="entry">' r.html | wc -l)" -eq 6 ]
	grep -q '<span class="sw io" style="background-color:#59a14f"></span>ckpt (I/O)</span>' r.html
	# in the page's source the tag cannot close the script
	grep -q '"\\u003cx\\u0026y\\u003e"' r.html
	# the failures table: escaped tag, attempt, worker, status, exit
	grep -q '<tr class="failure"><td>fail &lt;x&amp;y&gt;</td><td>1</td><td>local</td><td>FAILED</td><td>3</td>' r.html
	grep -q '<td id="nfailed">1</td>' r.html
	# per-name table: gen has 3 tasks of 2, 3 and 1 s
	grep -q '<tr><td>gen</td><td>compute</td><td>3</td><td>0</td><td>2.000 s</td><td>2.000 s</td><td>3.000 s</td>' r.html
	# distributions: gen's wall times 1, 2, 3 s: quartiles 1.5, 2, 2.5
	grep -q '<title>gen: 3 tasks; least 1.000 s, quartiles 1.500 s, 2.000 s, 2.500 s; greatest 3.000 s</title>' r.html
	# resource use: ckpt has a storage_bw constraint, and wrote the
	# devices of two workers: a chart for each
	grep -q '<svg class="use" id="use-bw2-w0"' r.html
	grep -q '<h3>ckpt on the device of node1: throughput and concurrency' r.html
	# learning curve: three epochs, the third not registered, choice 5
	grep -q 'Final choice: <b class="choice">5 MB/s</b> (2 at once, for 17 ready tasks), learned é.' r.html
	[ "$(grep -o 'class="epoch registered"' r.html | wc -l)" -eq 2 ]
	[ "$(grep -o 'class="epoch unregistered"' r.html | wc -l)" -eq 1 ]
	# self-contained: nothing fetched, no URL at all
	run -1 grep -Eq '(src|href)="?(https?:)?//|https?:' r.html
}

@test "report: the learning section says why each epoch's k, and why learning ended" {
	fixture
	# epoch 2 from a climb's search (its fields after device, as written)
	sed -i '4s/"device":"local:disk",/&"step":"golden-up","best":4,"best_rate":120.5,"lo":2,"hi":8,/' events.jsonl
	sed -i '8i {"t":1764683404.4,"ev":"search","name":"ckpt","device":"local:disk","step":"bracketed","best":2,"best_rate":130,"lo":1,"hi":4,"epoch":0,"c":5,"k":2}' events.jsonl
	run "$WFRUN" report -o r.html trace.tsv
	[ "$status" -eq 0 ]
	grep -q '<td>golden-up: best k so far 4, between 2 and 8</td></tr>' r.html
	[ "$(grep -c '<td></td></tr>' r.html)" -ge 2 ] # epochs 1 and 3: none
	grep -q '<p class="note">Learning ended: bracketed ' r.html
	# held until two tasks ended, then on (wfrun-storage-bw(7))
	sed -i '8i {"t":1764683404.1,"ev":"search","name":"ckpt","device":"local:disk","step":"held","best":4,"best_rate":120.5,"lo":2,"hi":8,"epoch":0,"c":5,"k":2}' events.jsonl
	run "$WFRUN" report -o r.html trace.tsv
	[ "$status" -eq 0 ]
	grep -q '<p class="note">Learning ended: bracketed, after a hold until two of its tasks had ended (' r.html
}

@test "report: a resumed search's epoch says the step its k was chosen by" {
	fixture
	# epoch 2 as a kept registry's next run resumes its search
	sed -i '4s/"device":"local:disk",/&"step":"resume","best":5,"best_rate":200,"lo":5,"hi":8,"open":"tail",/' events.jsonl
	run "$WFRUN" report -o r.html trace.tsv
	[ "$status" -eq 0 ]
	grep -q '<td>resume (tail): best k so far 5, between 5 and 8</td></tr>' r.html
	# an escaped step
	sed -i '4s/"open":"tail"/"open":"a<b"/' events.jsonl
	run "$WFRUN" report -o r.html trace.tsv
	[ "$status" -eq 0 ]
	grep -q '<td>resume (a&lt;b): best k so far 5' r.html
}

@test "report: default paths beside the trace; events are optional" {
	mkdir -p .wfrun
	cp "$WFRUN_TOP/tests/data/report/trace.tsv" .wfrun/
	run "$WFRUN" report
	[ "$status" -eq 0 ]
	[[ "$output" == *"report: 9 tasks -> .wfrun/report.html"* ]]
	grep -q '<td>events</td><td id="events">none</td>' .wfrun/report.html
	grep -q '<td>run record</td><td>none (no run.json beside the trace)' .wfrun/report.html
	# rebuilt from the trace's storage_bw and epoch columns
	grep -q 'Rebuilt from trace.tsv' .wfrun/report.html
	grep -q 'Final choice: <b class="choice">5 MB/s</b>' .wfrun/report.html
}

@test "report: the header from run.json beside the trace, of a run that did not end" {
	mkdir -p .wfrun/runs/R1
	cp "$WFRUN_TOP/tests/data/report/trace.tsv" .wfrun/runs/R1/
	cat >.wfrun/runs/R1/run.json <<'EOF2'
{
  "id": "R1",
  "start": 1764683400.5,
  "end": null,
  "pid": 1,
  "argv": ["wfrun", "-j", "2", "my wf.yaml", "a\"b<c>"],
  "version": "9.9",
  "workflow": "/w/my wf.yaml",
  "workflow_sha256": "0123456789abcdef0123",
  "resources": null,
  "resources_sha256": null,
  "exit": null,
  "status": "running",
  "counts": {"run": 0, "up_to_date": 3, "failed": 0, "cancelled": 0, "not_run": 0, "left_out": 0}
}
EOF2
	run "$WFRUN" report R1
	[ "$status" -eq 0 ]
	local h=.wfrun/runs/R1/report.html
	grep -q '<title>wfrun report: /w/my wf.yaml</title>' "$h"
	grep -q '<td id="runid">R1</td>' "$h"
	grep -q '<tr><td>started</td><td>2025-12-02 13:50:00 UTC</td></tr>' "$h"
	grep -q '<tr><td>ended</td><td>did not end</td></tr>' "$h"
	grep -q '<td id="argv">wfrun -j 2 &#39;my wf.yaml&#39; &#39;a&quot;b&lt;c&gt;&#39;</td>' "$h"
	grep -q '<td id="version">9.9</td>' "$h"
	grep -q '<td id="exit">running (no end recorded: the run was killed, or is still going)</td>' "$h"
	grep -q '<td id="nuptodate">3</td>' "$h"
	grep -q '<td id="ncancelled">0</td>' "$h"
}

@test "report: columns found by name, extra and missing ones tolerated" {
	printf 'complete\tzzz\tname\tstart\n' >t.tsv
	printf '1764683402.5\tx\ta\t1764683400\n' >>t.tsv
	printf '1764683401\ty\tb\t1764683400.5\n' >>t.tsv
	run "$WFRUN" report -o t.html t.tsv
	[ "$status" -eq 0 ]
	[ "$(tl t.html 'd["workers"]')" = "[['local', 2, 0]]" ]
	grep -q '<tr><td>a</td><td>compute</td><td>1</td><td>0</td><td>2.500 s</td>' t.html
	grep -q 'The trace has no byte counts.' t.html
	# nothing learned: no learning section
	run -1 grep -q 'Storage-bandwidth learning' t.html
	# a last row still being written (no newline yet) is left out
	printf '1764683403\tz' >>t.tsv
	run "$WFRUN" report -o t.html t.tsv
	[ "$status" -eq 0 ]
	[[ "$output" == *"wfrun: warning: t.tsv:4: ignoring an incomplete last line"* ]]
	[[ "$output" == *"report: 2 tasks -> t.html"* ]]
}

@test "report: retries and preempted attempts are told apart from failures" {
	{
		printf 'name\ttag\tstatus\texit\tattempt\tstart\tcomplete\n'
		printf 'a\ti=1\tPREEMPTED\t137\t1\t0\t1\n'
		printf 'a\ti=1\tFAILED\t2\t2\t1\t2\n'
		printf 'a\ti=1\tCOMPLETED\t0\t3\t2\t3\n'
	} >p.tsv
	run "$WFRUN" report -o p.html p.tsv
	[ "$status" -eq 0 ]
	[ "$(tl p.html '[d["T"][i*8+6:i*8+8] for i in range(3)]')" = "[[2, 1], [1, 2], [0, 3]]" ]
	grep -q '<td id="ntasks">3 (3 compute, 0 I/O; 2 retries, 1 preempted)</td>' p.html
	grep -q '<td id="nfailed">1</td>' p.html
	[ "$(grep -c '<tr class="failure">' p.html)" -eq 1 ]
	grep -q '<tr class="failure"><td>a i=1</td><td>2</td><td>local</td><td>FAILED</td><td>2</td>' p.html
}

@test "report: a trace without tasks, or of one instant, still makes a page" {
	printf 'name\tstart\tcomplete\n' >empty.tsv
	run "$WFRUN" report -o e.html empty.tsv
	[ "$status" -eq 0 ]
	[ "$output" = "wfrun: report: 0 tasks -> e.html" ]
	grep -q '<p>The trace has no tasks.</p>' e.html
	run -1 grep -q 'id="tl-data"' e.html
	printf 'name\tstart\tcomplete\nx\t5\t5\n' >one.tsv
	run "$WFRUN" report -o o.html one.tsv
	[ "$status" -eq 0 ]
	[ "$output" = "wfrun: report: 1 tasks -> o.html" ]
	[ "$(tl o.html 'd["workers"], d["span"]')" = "([['local', 1, 0]], 0.0)" ]
	grep -q 'The run took no measurable time.' o.html
	printf '' >nothing.tsv
	run "$WFRUN" report -o n.html nothing.tsv
	[ "$status" -eq 2 ]
	[ "$output" = "wfrun: error: nothing.tsv: empty file; a wfrun trace.tsv starts with a header line" ]
}

@test "report: errors name the file and line; the old report is kept" {
	printf 'task_id\tname\tcomplete\n1\ta\t2\n' >bad.tsv
	echo keep >r.html
	run "$WFRUN" report -o r.html bad.tsv
	[ "$status" -eq 2 ]
	[ "$output" = "wfrun: error: bad.tsv:1: no 'start' column in the header; is this a wfrun trace.tsv?" ]
	[ "$(cat r.html)" = keep ]
	printf 'name\tstart\tcomplete\na\t1\tsoon\n' >bad2.tsv
	run "$WFRUN" report -o r.html bad2.tsv
	[ "$status" -eq 2 ]
	[ "$output" = "wfrun: error: bad2.tsv:2: start and complete must be times in seconds, not '1' and 'soon'" ]
	fixture
	printf '{"ev":"constraint","name":"x","c":1}\n{"ev": "epoch_end", oops}\n' >events.jsonl
	run "$WFRUN" report -o r.html trace.tsv
	[ "$status" -eq 2 ]
	[ "$output" = "wfrun: error: ./events.jsonl:2:21: expected a key" ]
	[ "$(cat r.html)" = keep ]
	run "$WFRUN" report --format svg trace.tsv
	[ "$status" -eq 2 ]
	[ "$output" = "wfrun: error: --format wants html or chrome, not 'svg'" ]
	cd "$BATS_TEST_TMPDIR"
	mkdir empty
	cd empty
	run "$WFRUN" report
	[ "$status" -eq 2 ]
	[[ "$output" == *"cannot read the trace .wfrun/trace.tsv: No such file or directory"*"run it in a workflow's workdir"* ]]
}

@test "report: malformed events are errors with line and column; odd ones are tolerated" {
	cp "$WFRUN_TOP/tests/data/report/trace.tsv" .
	check_ev() { # LINE EXPECTED-OUTPUT
		printf '%s\n' "$1" >events.jsonl
		run "$WFRUN" report -o r.html trace.tsv
		[ "$output" = "$2" ] || { echo "for $1: got: $output" >&2; return 1; }
	}
	check_ev '{"a":tru}' "wfrun: error: ./events.jsonl:1:6: expected a value"
	check_ev '{"a":"x\q"}' "wfrun: error: ./events.jsonl:1:10: bad escape in a string"
	check_ev '{"a":"\u12"}' "wfrun: error: ./events.jsonl:1:12: bad \\u escape"
	check_ev '{"a":1}}' "wfrun: error: ./events.jsonl:1:8: text after the object"
	check_ev '[1]' "wfrun: error: ./events.jsonl:1:2: a line must be a JSON object"
	check_ev '{"ev":"epoch_end","name":"x","epoch":1}' \
		'wfrun: error: ./events.jsonl:1: epoch_end without a numeric "epoch" and "c"'
	# nested values, null, huge numbers, a constraint with no epochs, a
	# NUL in a name: all read without harm
	check_ev '{"ev":"constraint","name":"a\u0000b","c":3,"k":1e300,"x":[{"y":null}],"z":null}' \
		"wfrun: report: 9 tasks and learner events -> r.html"
	grep -q 'Final choice: <b class="choice">3 MB/s</b>' r.html
	check_ev '{"ev":"epoch_end","name":"y","device":"d","epoch":1e308,"c":-1,"tasks":1e30,"mean_s":2,"registered":false}' \
		"wfrun: report: 9 tasks and learner events -> r.html"
}

@test "report --format chrome: trace-event JSON, one X event per task" {
	fixture
	run "$WFRUN" report --format chrome trace.tsv
	[ "$status" -eq 0 ]
	[[ "$output" == *"chrome trace: 9 tasks and learner events -> ./trace.json"* ]]
	python3 - <<'PY'
import json
d = json.load(open("trace.json"))
ev = d["traceEvents"]
x = [e for e in ev if e["ph"] == "X"]
assert len(x) == 9, len(x)
big = [e for e in x if e["name"] == "big"][0]
assert big["dur"] == 2e6 and big["ts"] == 3e6 and big["cat"] == "compute"
fail = [e for e in x if e["name"] == "fail"][0]
assert fail["args"]["status"] == "FAILED" and fail["args"]["exit"] == 3
assert fail["args"]["tag"] == "<x&y>"
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
         if e["ph"] == "M" and e["name"] == "thread_name"}
ck = [e for e in x if e["name"] == "ckpt" and e["pid"] == 1]
assert all(names[(1, e["tid"])].startswith("io ") for e in ck), ck
assert sorted(names.values()) == ["cpu 0", "cpu 0", "cpu 1", "io 0", "io 0", "io 1"]
PY
}

@test "report of a real run: every task of the trace in the page" {
	wf <<'EOF2'
tasks:
  - name: make
    foreach: {i: "1..4"}
    out: {f: "d/{i}.txt"}
    run: "head -c 100000 /dev/zero > {out.f}"
  - name: copy
    foreach: {i: "1..4"}
    io: true
    in: {f: "d/{i}.txt"}
    out: {g: "c/{i}.txt"}
    run: "cp {in.f} {out.g}"
EOF2
	run "$WFRUN" -q -j 2 wf.yaml
	[ "$status" -eq 0 ]
	run "$WFRUN" report -q
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$(tl .wfrun/report.html 'sorted(d["G"]), d["workers"][0][1] <= 2')" = "(['i=1', 'i=1', 'i=2', 'i=2', 'i=3', 'i=3', 'i=4', 'i=4'], True)" ]
	grep -q '<tr><td>copy</td><td>io</td><td>4</td>' .wfrun/report.html
	# the header from the run's record
	grep -q '<td id="argv">.*wfrun -q -j 2 wf.yaml</td>' .wfrun/report.html
	grep -q '<td id="exit">0 ok</td>' .wfrun/report.html
	grep -q '<td id="nrun">8</td>' .wfrun/report.html
	grep -q "<td id=\"workflow\">$PWD/wf.yaml</td>" .wfrun/report.html
}

@test "report lists the tasks that never started: cancelled, not run, not expanded" {
	wf <<'EOF2'
tasks:
  - {name: bad, foreach: {i: "1..2"}, out: {o: "b{i}"}, on_failure: cancel_successors,
     run: "if [ {i} = 2 ]; then exit 3; fi; touch {out.o}"}
  - {name: after, foreach: {i: "1..2"}, in: {b: "b{i}"}, out: {o: "a{i}"},
     run: "touch {out.o}"}
  - {name: split, out: {d: {dir: parts}}, run: "mkdir -p {out.d}; exit 4"}
  - {name: each, foreach: {p: {glob: "parts/*"}}, in: {x: "{p}"},
     out: {o: "e/{p}"}, run: "cp {in.x} {out.o}"}
EOF2
	run "$WFRUN" -k -j 1 wf.yaml
	[ "$status" -ne 0 ]
	[[ "$output" == *"cancelled the 1 task that depends on it; the others go on"* ]]
	# the run's record, and the latest's beside the latest trace
	id=$(ls .wfrun/runs)
	cmp .wfrun/notrun.tsv ".wfrun/runs/$id/notrun.tsv"
	[ "$(cat .wfrun/notrun.tsv)" = "$(printf 'state\tname\ttag\ncancelled\tafter\ti=2\nnot expanded\teach\t')" ]
	run "$WFRUN" report
	[ "$status" -eq 0 ]
	# (its events file holds no learning: none is announced)
	[ "$output" = "wfrun: report: 4 tasks -> .wfrun/report.html" ]
	grep -q '<tr class="notrun"><td>cancelled</td><td>after</td><td>i=2</td></tr>' .wfrun/report.html
	grep -q '<tr class="notrun"><td>not expanded</td><td>each</td><td></td></tr>' .wfrun/report.html
	grep -q '<p id="notrun">2 tasks never started' .wfrun/report.html
	# a second run fails the same way and lists them again
	run "$WFRUN" -q -k -j 1 wf.yaml
	grep -q 'cancelled' .wfrun/notrun.tsv
}

@test "dag --format mermaid: a flowchart, labels quoted, same edges as dot" {
	echo x >in.txt
	wf <<'EOF2'
name: 'say "hi"'
tasks:
  - name: a
    foreach: {i: ["1", "#2"]}
    in: {x: in.txt}
    out: {y: "y{i}"}
    run: "cp {in.x} {out.y}"
  - name: b
    in: {ys: {list: "y{i}", foreach: {i: ["1", "#2"]}}}
    out: {z: z}
    run: "cat {in.ys} > {out.z}"
EOF2
	run "$WFRUN" dag --format mermaid wf.yaml
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '---' ]
	[ "${lines[1]}" = 'title: "say \"hi\""' ]
	[ "${lines[3]}" = 'flowchart TB' ]
	[[ "$output" == *'  t1["a<br>i=1"]'* ]]
	[[ "$output" == *'  t2["a<br>i=#35;2"]'* ]]
	[ "$(grep -c -- ' --> ' <<<"$output")" -eq "$("$WFRUN" dag wf.yaml | grep -c -- ' -> ')" ]
	[[ "$output" == *"t1 --> t3"* && "$output" == *"t2 --> t3"* ]]
	run "$WFRUN" dag --names --format=mermaid wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *'  n1["a<br>2 tasks"]'*'  n1 --> n2'* ]]
	run "$WFRUN" dag --format png wf.yaml
	[ "$status" -eq 2 ]
	[ "$output" = "wfrun: error: --format wants dot or mermaid, not 'png'" ]
}

@test "report: the timeline is one canvas and compact data, whatever the number of tasks" {
	awk 'BEGIN { print "name\tworker\tstart\tcomplete"
		     for (i = 0; i < 3000; i++) printf "t%d\tw\t%.3f\t%.3f\n", i % 3, i * 0.01, i * 0.01 + 0.5 }' >m.tsv
	run "$WFRUN" report -o m.html m.tsv
	[ "$status" -eq 0 ]
	[ "$output" = "wfrun: report: 3000 tasks -> m.html" ]
	[ "$(tl m.html 'len(d["T"]) // 8, len(d["G"])')" = "(3000, 3000)" ]
	# elements do not grow with the tasks: the page has the same tags
	head -n 301 m.tsv >s.tsv
	"$WFRUN" report -q -o s.html s.tsv
	[ "$(grep -o '<canvas' m.html | wc -l)" -eq 1 ]
	[ "$(sed 's/<script type="application.json".*//' m.html | grep -o '<[a-z]' | wc -l)" -eq \
	  "$(sed 's/<script type="application.json".*//' s.html | grep -o '<[a-z]' | wc -l)" ]
	# a row of the data is a short line: under 40 bytes a task here
	[ "$(wc -c <m.html)" -lt $((3000 * 40 + 60000)) ]
}
