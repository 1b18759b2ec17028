#!/usr/bin/env bats
# run-all: once
# wfrun report in headless Chromium: the page of a real run with a
# failure, a retry, a cancelled task and I/O tasks, drawn at 1280 and
# 1920 px: each task name's colour and the failure marker's in the
# screenshot's pixels, the legend, bar labels and failures in the DOM, and
# no sideways scroll.
load helper

setup_file() {
	command -v chromium >/dev/null || return 0
	cd "$BATS_FILE_TMPDIR" || return 1
	cat >wf.yaml <<'EOF'
tasks:
  - name: make
    foreach: {i: "1..3"}
    out: {f: "d/{i}.txt"}
    run: "sleep 0.4; head -c 100000 /dev/zero > {out.f}"
  - name: flaky
    on_failure: retry
    retries: 2
    out: {f: flaky.txt}
    run: "sleep 0.3; if [ -e once ]; then echo ok > {out.f}; else touch once; echo boom >&2; exit 4; fi"
  - name: bad
    in: {x: d/1.txt}
    out: {f: bad.txt}
    run: "sleep 0.3; echo 'oh <no> & bad' >&2; exit 3"
  - name: after
    in: {x: bad.txt}
    out: {f: after.txt}
    run: "cp {in.x} {out.f}"
  - name: copy
    foreach: {i: "1..3"}
    io: true
    in: {f: "d/{i}.txt"}
    out: {g: "c/{i}.txt"}
    run: "cp {in.f} {out.g}; sleep 0.3"
EOF
	"$WFRUN" -q -k -j 2 wf.yaml 2>/dev/null || true
	"$WFRUN" report -q -o r.html
	# a script added to the page moves the mouse over the timeline until
	# the tip shows the failed task, keeps what the tip says (its lines
	# joined by " ~ ") and hides it
	sed 's|</body>|<script>(function () {\
var cv = document.getElementById("tl"), r = cv.getBoundingClientRect(), tip = document.getElementById("tl-tip");\
for (var y = r.top + 1; y < r.bottom; y += 3) for (var x = r.left; x < r.right; x += 2) {\
cv.dispatchEvent(new MouseEvent("mousemove", {clientX: x, clientY: y}));\
if (!tip.hidden \&\& /exit status 3/.test(tip.textContent)) { document.body.setAttribute("data-tip", tip.textContent.replace(/\\n/g, " ~ ")); tip.hidden = true; return; }\
}})();</script></body>|' r.html >hover.html
	# both widths at once: Chromium mostly waits while it starts
	render 1280 &
	render 1920 &
	wait
}

# render WIDTH: the page at WIDTH x 900 into shot-WIDTH.png and its DOM
# after the scripts ran into dom-WIDTH.html (one Chromium for both: it
# starts slowly on a loaded machine).
render() {
	local flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars
		--user-data-dir="$BATS_FILE_TMPDIR/profile-$1" --window-size="$1,900")
	local page="file://$BATS_FILE_TMPDIR/hover.html"
	timeout 60 chromium "${flags[@]}" --screenshot="$PWD/shot-$1.png" \
		--dump-dom "$page" >"dom-$1.html" 2>/dev/null
}

# pixels PNG HTML: for each task name of the page HTML and the failure
# marker, "NAME COUNT": how many pixels of the screenshot PNG have its
# colour exactly.
pixels() {
	python3 - "$1" "$2" <<'PY'
import json, re, struct, sys, zlib
h = open(sys.argv[2], encoding="utf-8").read()
d = json.loads(re.search(r'id="tl-data">(.*?)</script>', h, re.S).group(1))
want = {n: c for n, c in d["names"]}
want["FAILED"] = d["fail"]
rgb = {tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)): n for n, c in want.items()}
data = open(sys.argv[1], "rb").read()
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, hgt, depth, ctype = struct.unpack(">IIBB", body[:10])
        bpp = {2: 3, 6: 4}[ctype]
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
count = dict.fromkeys(want, 0)
for y in range(hgt):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    if f == 1:
        for i in range(bpp, stride):
            line[i] = (line[i] + line[i - bpp]) & 255
    elif f == 2:
        line = bytearray((a + b) & 255 for a, b in zip(line, prev))
    elif f == 3:
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + (a + prev[i]) // 2) & 255
    elif f == 4:
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        n = rgb.get((line[x], line[x + 1], line[x + 2]))
        if n:
            count[n] += 1
    prev = line
for n, k in count.items():
    print(n, k)
PY
}

# check WIDTH: what the page shows at WIDTH px.
check() {
	command -v chromium >/dev/null || {
		echo "chromium is not installed: apt-get install -y chromium (.ci/install-deps does)" >&2
		return 1
	}
	cd "$BATS_FILE_TMPDIR"
	[ -s "shot-$1.png" ]
	[ -s "dom-$1.html" ]
	local dom=dom-$1.html
	# scaled to the window: nothing wider than it
	local body
	body=$(grep -o '<body[^>]*>' "$dom")
	[[ "$body" =~ data-window-width=\"([0-9]+)\" ]]
	[ "${BASH_REMATCH[1]}" -eq "$1" ]
	[[ "$body" =~ data-scroll-width=\"([0-9]+)\" ]]
	[ "${BASH_REMATCH[1]}" -le "$1" ]
	# the legend: each name, I/O told apart, the failure marker
	local n
	for n in make flaky bad 'copy (I/O)' 'failed attempt'; do
		grep -q "</span>$n</span>" "$dom" || { echo "no legend entry $n" >&2; return 1; }
	done
	# labels drawn on the bars wide enough (the canvas's text)
	sed -n '/<canvas id="tl"/,/<\/canvas>/{s/<[^>]*>//g;p}' "$dom" >labels
	grep -qx 'make i=2' labels
	grep -qx 'copy i=2' labels
	# the failures table: the failed attempt of the retried task and the
	# failed task with its exit status and stderr, escaped
	grep -q '<tr class="failure"><td>flaky</td><td>1</td><td>local</td><td>FAILED</td><td>4</td>' "$dom"
	grep -q '<tr class="failure"><td>bad</td><td>1</td><td>local</td><td>FAILED</td><td>3</td><td><pre>oh &lt;no&gt; &amp; bad</pre>' "$dom"
	[ "$(grep -c '<tr class="failure">' "$dom")" -eq 2 ]
	grep -q '<td id="ncancelled">1</td>' "$dom"
	# the pixels: every name's colour and the failure marker's, more of
	# each than its legend swatch (144 px) has, so bars were drawn
	pixels "shot-$1.png" "$dom" >"px-$1"
	cat "px-$1"
	[ "$(wc -l <"px-$1")" -eq 5 ]
	run -0 awk '$2 < 300 { print; bad = 1 } END { exit bad }' "px-$1"
}

@test "report in Chromium at 1280 px: colours, marker, legend, labels, failures, no sideways scroll" {
	check 1280
}

@test "report in Chromium: hovering the failed task shows its exit status and stderr tail" {
	command -v chromium >/dev/null || {
		echo "chromium is not installed: apt-get install -y chromium (.ci/install-deps does)" >&2
		return 1
	}
	cd "$BATS_FILE_TMPDIR"
	grep -o 'data-tip="[^"]*"' dom-1280.html >tip
	cat tip
	grep -Eq '^data-tip="bad ~ FAILED, 0\.[0-9]+ s from [0-9.]+ s, on local ~ exit status 3 ~ oh &lt;no&gt; &amp; bad"$' tip
}

@test "report in Chromium at 1920 px: colours, marker, legend, labels, failures, no sideways scroll" {
	check 1920
}
