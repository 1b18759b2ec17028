#!/usr/bin/env bash
# bench/report.sh: how long `wfrun report` takes, and how big its output is,
# for a synthetic trace of N tasks (default 1,000,000) on W workers of 48
# cores and 96 I/O executors (a fifth of the tasks are I/O), HTML and
# Chrome JSON; then, when chromium is there, how long headless Chromium
# takes to load the HTML and draw it (its wall time, which includes its
# own start, and the page's: from navigation to the timeline drawn).
# Prints the load average before and after.
#   N=100000 W=4 bench/report.sh
set -euo pipefail
cd "$(dirname "$0")"
N=${N:-1000000} W=${W:-4}
WFRUN=${WFRUN:-../wfrun}
tmp=${BENCH_TMP:-out}/report.$$
mkdir -p "$tmp"
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
cp "$(readlink -f "$WFRUN")" "$tmp/wfrun"
echo "wfrun sha256 $(sha256sum "$tmp/wfrun" | cut -c1-12)"
# tasks of 2-20 s, dealt to workers round robin, start times packed so the
# slots stay busy: each worker runs 48 compute and 96 I/O at a time.
awk -v n="$N" -v w="$W" 'BEGIN {
	srand(1)
	print "task_id\tname\ttag\tworker\tkind\tcores\tstorage_bw\tepoch\tstatus\texit\tattempt\tsubmit\tstart\tcomplete\tqueue_s\trealtime_s\tcpu_user_s\tcpu_sys_s\tpeak_rss_kb\tread_bytes\twrite_bytes"
	t0 = 1764683400
	for (i = 0; i < n; i++) {
		wk = i % w; io = (i % 5 == 0)
		slot = int(i / w) % (io ? 96 : 48)
		key = wk "," io "," slot
		s = (key in free) ? free[key] : t0
		d = 2 + rand() * 18
		free[key] = s + d
		printf "%d\tt%d\ti=%d\tnode%d\t%s\t%d\t\t\t%s\t%d\t1\t%.6f\t%.6f\t%.6f\t0\t%.6f\t%.3f\t%.3f\t%d\t%d\t%d\n",
			i + 1, i % 7, i, wk, io ? "io" : "compute", io ? 0 : 1,
			(i % 1000 == 999) ? "FAILED" : "COMPLETED", (i % 1000 == 999),
			s, s, s + d, d, d * 0.9, d * 0.05, 1000 + i % 5000, 1048576, 2097152
	}
}' >"$tmp/trace.tsv"
echo "trace: $N tasks, $(du -h "$tmp/trace.tsv" | cut -f1)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for fmt in html chrome; do
	/usr/bin/time -f "$fmt: %e s wall, %M KiB max RSS" \
		"$tmp/wfrun" report -q --format "$fmt" -o "$tmp/out.$fmt" "$tmp/trace.tsv"
	echo "$fmt: output $(du -h "$tmp/out.$fmt" | cut -f1)"
done
if command -v chromium >/dev/null; then
	/usr/bin/time -o "$tmp/time" \
		-f "chromium: %e s wall to start, load and draw the HTML" \
		timeout 300 chromium --headless --no-sandbox --disable-gpu \
		--user-data-dir="$tmp/profile" --window-size=1280,900 \
		--dump-dom "file://$(readlink -f "$tmp/out.html")" 2>"$tmp/chromium.err" \
		>"$tmp/dom.html" || tail -3 "$tmp/chromium.err"
	cat "$tmp/time"
	ms=$(grep -o 'data-drawn-ms="[0-9]*"' "$tmp/dom.html" | grep -o '[0-9]*')
	echo "page: timeline drawn ${ms:-?} ms after navigation started"
	grep -q 'data-drawn-ms' "$tmp/dom.html" || echo "page: the timeline was not drawn"
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
