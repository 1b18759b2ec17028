#!/usr/bin/env bats
# wfrun report: the HTML page and the Chrome trace from a fixture trace.tsv
# and events.jsonl (tests/data/report), and from a real run.
load helper

fixture() {
	cp "$WFRUN_TOP/tests/data/report/trace.tsv" \
	   "$WFRUN_TOP/tests/data/report/events.jsonl" .
}

@test "report: lanes per worker slot, failed marked, table, curve" {
	fixture
	run "$WFRUN" report -o r.html trace.tsv
	[ "$status" -eq 0 ]
	[[ "$output" == *"report: 9 tasks and learner events -> r.html"* ]]
	# local: 2 cores (the 2-core task takes both), 2 I/O executors used
	# at once; node1: one of each
	[ "$(grep -o '<g class="lane" data-worker="local" data-kind="compute"' r.html | wc -l)" -eq 2 ]
	[ "$(grep -o '<g class="lane" data-worker="local" data-kind="io"' r.html | wc -l)" -eq 2 ]
	[ "$(grep -o '<g class="lane" data-worker="node1"' r.html | wc -l)" -eq 2 ]
	# the 2-core task is drawn in both compute lanes of local
	[ "$(grep -o '<title>big: 2.000 s, COMPLETED</title>' r.html | wc -l)" -eq 2 ]
	# the failed task: its own class, exit status, escaped tag
	grep -q '<rect class="failed"[^>]*><title>fail &lt;x&amp;y&gt;: 0.500 s, FAILED (exit 3)</title>' r.html
	grep -q '<td id="nfailed">1</td>' r.html
	# per-name table: gen has 3 tasks of 2, 3 and 1 s
	grep -q '<tr><td>gen</td><td>compute</td><td>3</td><td>0</td><td>2.000 s</td><td>2.000 s</td><td>3.000 s</td>' r.html
	# learning curve: three epochs, the third not registered, choice 5
	grep -q 'Final choice: <b class="choice">5 MB/s</b> (2 at once, for 17 ready tasks), learned é.' r.html
	[ "$(grep -o 'class="epoch registered"' r.html | wc -l)" -eq 2 ]
	[ "$(grep -o 'class="epoch unregistered"' r.html | wc -l)" -eq 1 ]
	# self-contained: nothing fetched
	run -1 grep -Eq '(src|href)="?(https?:)?//' r.html
}

@test "report: default paths beside the trace; events are optional" {
	mkdir -p .wfrun
	cp "$WFRUN_TOP/tests/data/report/trace.tsv" .wfrun/
	run "$WFRUN" report
	[ "$status" -eq 0 ]
	[[ "$output" == *"report: 9 tasks -> .wfrun/report.html"* ]]
	grep -q '<td>events</td><td>none</td>' .wfrun/report.html
	# rebuilt from the trace's storage_bw and epoch columns
	grep -q 'Rebuilt from trace.tsv' .wfrun/report.html
	grep -q 'Final choice: <b class="choice">5 MB/s</b>' .wfrun/report.html
}

@test "report: columns found by name, extra and missing ones tolerated" {
	printf 'complete\tzzz\tname\tstart\n' >t.tsv
	printf '1764683402.5\tx\ta\t1764683400\n' >>t.tsv
	printf '1764683401\ty\tb\t1764683400.5\n' >>t.tsv
	run "$WFRUN" report -o t.html t.tsv
	[ "$status" -eq 0 ]
	[ "$(grep -o '<g class="lane" data-worker="local" data-kind="compute"' t.html | wc -l)" -eq 2 ]
	grep -q '<tr><td>a</td><td>compute</td><td>1</td><td>0</td><td>2.500 s</td>' t.html
	grep -q 'The trace has no byte counts.' t.html
	# a last row still being written (no newline yet) is left out
	printf '1764683403\tz' >>t.tsv
	run "$WFRUN" report -o t.html t.tsv
	[ "$status" -eq 0 ]
	[[ "$output" == *"wfrun: warning: t.tsv:4: ignoring an incomplete last line"* ]]
	[[ "$output" == *"report: 2 tasks -> t.html"* ]]
}

@test "report: a trace without tasks, or of one instant, still makes a page" {
	printf 'name\tstart\tcomplete\n' >empty.tsv
	run "$WFRUN" report -o e.html empty.tsv
	[ "$status" -eq 0 ]
	[ "$output" = "wfrun: report: 0 tasks -> e.html" ]
	grep -q '<p>The trace has no tasks.</p>' e.html
	run -1 grep -q 'class="lane"' e.html
	printf 'name\tstart\tcomplete\nx\t5\t5\n' >one.tsv
	run "$WFRUN" report -o o.html one.tsv
	[ "$status" -eq 0 ]
	[ "$output" = "wfrun: report: 1 tasks -> o.html" ]
	[ "$(grep -o '<g class="lane"' o.html | wc -l)" -eq 1 ]
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
	[ "$(grep -o '<title>[a-z]* i=[0-9]: ' .wfrun/report.html | wc -l)" -eq 8 ]
	[ "$(grep -o 'data-kind="compute"' .wfrun/report.html | wc -l)" -le 2 ]
	grep -q '<tr><td>copy</td><td>io</td><td>4</td>' .wfrun/report.html
}

# Headless Chromium renders the page: not blank, and its DOM has the lanes.
@test "report renders in headless Chromium: a non-blank picture, the lanes in the DOM" {
	command -v chromium >/dev/null || {
		echo "chromium is not installed: apt-get install -y chromium (.ci/install-deps does)" >&2
		return 1
	}
	fixture
	"$WFRUN" report -q -o r.html trace.tsv
	local flags=(--headless --disable-gpu --no-sandbox --hide-scrollbars
		--user-data-dir="$BATS_TEST_TMPDIR/profile" --window-size=1300,900)
	timeout 120 chromium "${flags[@]}" --screenshot="$PWD/shot.png" "file://$PWD/r.html" 2>/dev/null
	[ -s shot.png ]
	timeout 120 chromium "${flags[@]}" --dump-dom "file://$PWD/r.html" >dom.html 2>/dev/null
	[ "$(grep -o '<g class="lane"' dom.html | wc -l)" -eq 6 ]
	grep -q 'class="failed"' dom.html
	# the PNG: decode it and count colours; blank pages have one or two
	python3 - shot.png <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        bpp = {2: 3, 6: 4}[ctype]
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
colours = set()
blue = orange = 0
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp * 4):
        px = tuple(line[x:x + 3])
        colours.add(px)
        blue += px == (0x4e, 0x79, 0xa7)
        orange += px == (0xf2, 0x8e, 0x2b)
    prev = line
assert len(colours) > 20, len(colours)
assert blue > 50 and orange > 50, (blue, orange)
PY
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

@test "report: a busy lane of sub-pixel tasks is a few rectangles, wide tasks stay apart" {
	{
		printf 'name\tworker\tstart\tcomplete\n'
		# 1000 tasks of 1 ms back to back, then two of 400 s, in one lane;
		# a task of 1000 s in the other lane sets the scale (~1 px/s)
		awk 'BEGIN { for (i = 0; i < 1000; i++) printf "tiny\tw\t%.3f\t%.3f\n", i * 0.001, (i + 1) * 0.001
		             printf "long\tw\t100\t500\nlong\tw\t500\t900\nref\tw\t0\t1000\n" }'
	} >m.tsv
	run "$WFRUN" report -o m.html m.tsv
	[ "$status" -eq 0 ]
	[ "$output" = "wfrun: report: 1003 tasks -> m.html" ]
	[ "$(grep -o '<g class="lane"' m.html | wc -l)" -eq 2 ]
	grep -q '<title>1000 tasks</title>' m.html
	[ "$(grep -o '<title>long: 400.0 s, COMPLETED</title>' m.html | wc -l)" -eq 2 ]
	[ "$(grep -o '<rect class="compute"' m.html | wc -l)" -eq 4 ]
}
