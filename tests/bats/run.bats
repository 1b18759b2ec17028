#!/usr/bin/env bats
# Running: failures, -k, logs, trace, core limits, interrupts.
load helper

failing() {
	wf <<'EOF2'
tasks:
  - name: bad
    out: {f: bad.txt}
    run: "echo some context >&2; echo the reason >&2; exit 3"
  - name: after-bad
    in: {f: bad.txt}
    out: {g: after.txt}
    run: "cp {in.f} {out.g}"
  - name: slow
    out: {s: slow.txt}
    run: "sleep 1; echo ok > {out.s}"
  - name: independent
    foreach: {i: "1..3"}
    out: {f: "ind{i}.txt"}
    run: "touch {out.f}"
EOF2
}

@test "a failing task: stderr tail shown, no new launches, exit 1" {
	failing
	run "$WFRUN" -j 2 wf.yaml
	[ "$status" -eq 1 ]
	[[ "$output" == *"wfrun: error: task 'bad' failed with exit status 3 (stderr: $PWD/.wfrun/logs/bad.err)"* ]]
	[[ "$output" == *"  | some context"*"  | the reason"* ]]
	[[ "$output" == *"waiting for 1 running task (use -k to keep going)"* ]]
	# the running task finished; nothing new started
	[ "$(cat slow.txt)" = ok ]
	[ ! -e after.txt ]
	[ ! -e ind1.txt ]
	[[ "$output" == *"1 task failed, 1 done, 4 not run"* ]]
	[ "$(trace_col status | sort | uniq -c | tr -s ' ' | tr '\n' ,)" = " 1 COMPLETED, 1 FAILED," ]
	[ "$(trace_col exit | head -1)" = 3 ]
}

@test "-k runs what does not depend on the failure" {
	failing
	run "$WFRUN" -k -j 2 wf.yaml
	[ "$status" -eq 1 ]
	[ ! -e after.txt ]
	[ -e ind1.txt ]
	[ -e ind2.txt ]
	[ -e ind3.txt ]
	[ -e slow.txt ]
	[[ "$output" == *"1 task failed, 4 done, 0 not run, 1 cancelled"* ]]
}

@test "a task that exits 0 without its output fails" {
	wf <<'EOF2'
tasks:
  - name: lazy
    out: {f: promised.txt}
    run: "true"
EOF2
	run "$WFRUN" wf.yaml
	[ "$status" -eq 1 ]
	# the empty stderr log was removed, so it is not named
	[[ "$output" == *"wfrun: error: task 'lazy' exited 0 but did not create its output 'f' (promised.txt)"$'\n'* ]]
}

@test "a command that cannot be found fails with 127" {
	wf <<'EOF2'
tasks:
  - name: t
    out: {f: x}
    run: "no-such-program-here {out.f}"
EOF2
	run "$WFRUN" wf.yaml
	[ "$status" -eq 1 ]
	[[ "$output" == *"failed with exit status 127"* ]]
	[[ "$output" == *"no-such-program-here: not found"* ]]
}

@test "stdout and stderr go to per-task logs; empty logs are removed" {
	wf <<'EOF2'
tasks:
  - name: talk
    foreach: {i: "1..2"}
    out: {f: "t{i}"}
    run: "echo out {i}; echo err {i} >&2; touch {out.f}"
  - name: quiet
    out: {f: q}
    run: "touch {out.f}"
EOF2
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat .wfrun/logs/talk/i=2.out)" = "out 2" ]
	[ "$(cat .wfrun/logs/talk/i=2.err)" = "err 2" ]
	[ ! -e .wfrun/logs/quiet.out ]
	[ ! -e .wfrun/logs/quiet.err ]
}

@test "trace.tsv: the columns of the design, one row per task" {
	wf <<'EOF2'
tasks:
  - name: work
    foreach: {i: "1..3"}
    cores: 2
    out: {f: "w{i}"}
    run: "head -c 100000 /dev/zero > {out.f}"
EOF2
	run "$WFRUN" -q -j 4 wf.yaml
	[ "$status" -eq 0 ]
	[ "$(head -1 .wfrun/trace.tsv)" = "$(printf 'task_id\tname\ttag\tworker\tkind\tcores\tstorage_bw\tepoch\tstatus\texit\tattempt\tsubmit\tstart\tcomplete\tqueue_s\trealtime_s\tcpu_user_s\tcpu_sys_s\tpeak_rss_kb\tread_bytes\twrite_bytes\tstage_in_s\tstage_out_s\tbytes_staged')" ]
	# staging columns are for workers whose workdir is not shared
	[ "$(trace_col bytes_staged | sort -u)" = "" ]
	[ "$(trace_col task_id | sort -n | tr '\n' ' ')" = "1 2 3 " ]
	[ "$(trace_col tag | sort | tr '\n' ' ')" = "i=1 i=2 i=3 " ]
	[ "$(trace_col worker | sort -u)" = local ]
	[ "$(trace_col kind | sort -u)" = compute ]
	[ "$(trace_col cores | sort -u)" = 2 ]
	[ "$(trace_col storage_bw | sort -u)" = "" ]
	[ "$(trace_col exit | sort -u)" = 0 ]
	# storage bytes are counted in pages: at least what was written
	for b in $(trace_col write_bytes); do
		[ "$b" -ge 100000 ]
		[ "$b" -lt 200000 ]
	done
	# times are epoch seconds with microseconds; start <= complete; a
	# peak RSS positive, or empty (not known: below wfrun's own)
	awk -F'\t' 'NR > 1 && !($12 ~ /^[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9]$/ && $13 <= $14 && $12 <= $13 && ($19 == "" || $19 > 0)) { exit 1 }' .wfrun/trace.tsv
}

@test "tasks never use more cores than given" {
	wf <<'EOF2'
tasks:
  - name: two
    foreach: {i: "1..4"}
    cores: 2
    out: {f: "a{i}"}
    run: "sleep 0.3; touch {out.f}"
  - name: one
    foreach: {i: "1..4"}
    out: {f: "b{i}"}
    run: "sleep 0.2; touch {out.f}"
EOF2
	run "$WFRUN" -q -j 3 wf.yaml
	[ "$status" -eq 0 ]
	# the peak of the sum of cores over the start/complete intervals
	peak=$(awk -F'\t' 'NR > 1 { print $13, $6; print $14, -$6 }' .wfrun/trace.tsv |
		sort -k1,1n -k2,2n | awk '{ c += $2; if (c > m) m = c } END { print m }')
	[ "$peak" -le 3 ]
	[ "$peak" -ge 2 ]
}

@test "SIGINT kills running tasks (whole process groups), writes the trace, exits 130" {
	wf <<'EOF2'
tasks:
  - name: done-fast
    out: {f: fast}
    run: "touch {out.f}"
  - name: hang
    foreach: {i: "1..2"}
    out: {f: "h{i}"}
    run: "sleep 300 & sleep 300; touch {out.f}"
EOF2
	"$WFRUN" -j 4 wf.yaml 2>err.txt &
	pid=$!
	for _ in $(seq 100); do
		[ "$(pcount 'sleep 300')" -ge 4 ] && break
		sleep 0.1
	done
	kill -INT "$pid"
	wait "$pid" || status=$?
	[ "${status:-0}" -eq 130 ]
	grep -q "interrupted (Interrupt): stopping 2 running tasks" err.txt
	for _ in $(seq 50); do
		[ "$(pcount 'sleep 300')" -eq 0 ] && break
		sleep 0.1
	done
	[ "$(pcount 'sleep 300')" -eq 0 ]
	[ "$(trace_col status | sort | tr '\n' ' ')" = "ABORTED ABORTED COMPLETED " ]
}

io_overlap() {
	wf <<'EOF2'
tasks:
  - name: compute
    out: {f: c}
    run: "sleep 1.5; touch {out.f}"
  - name: ckpt
    foreach: {i: "1..4"}
    io: true
    out: {f: "k{i}"}
    run: "sleep 0.5; touch {out.f}"
EOF2
}

# The peak number of rows of kind $1 running at once, from the trace.
peak_kind() {
	awk -F'\t' -v k="$1" 'NR > 1 && $5 == k { print $13, 1; print $14, -1 }' .wfrun/trace.tsv |
		sort -k1,1n -k2,2n | awk '{ c += $2; if (c > m) m = c } END { print m + 0 }'
}

@test "I/O tasks take no core: they run while every core is busy" {
	io_overlap
	run "$WFRUN" -q -j 1 --io-executors 2 wf.yaml
	[ "$status" -eq 0 ]
	[ "$(trace_col kind | sort | uniq -c | tr -s ' ' | tr '\n' ,)" = " 1 compute, 4 io," ]
	[ "$(awk -F'\t' 'NR > 1 && $5 == "io" { print $6 }' .wfrun/trace.tsv | sort -u)" = 0 ]
	# every I/O task ended before the 1-core compute task did
	c_end=$(awk -F'\t' '$2 == "compute" { print $14 }' .wfrun/trace.tsv)
	io_end=$(awk -F'\t' '$2 == "ckpt" { print $14 }' .wfrun/trace.tsv | sort -n | tail -1)
	awk -v a="$io_end" -v b="$c_end" 'BEGIN { exit !(a < b) }'
	# never more than the 2 executors at once, and both were used
	[ "$(peak_kind io)" -eq 2 ]
}

@test "--no-io runs I/O tasks as 1-core compute tasks (the baseline)" {
	io_overlap
	run "$WFRUN" -q -j 1 --no-io wf.yaml
	[ "$status" -eq 0 ]
	[ "$(awk -F'\t' 'NR > 1 && $5 == "io" { print $6 }' .wfrun/trace.tsv | sort -u)" = 1 ]
	# one core: nothing overlaps
	all=$(awk -F'\t' 'NR > 1 { print $13, 1; print $14, -1 }' .wfrun/trace.tsv |
		sort -k1,1n -k2,2n | awk '{ c += $2; if (c > m) m = c } END { print m }')
	[ "$all" -eq 1 ]
}

@test "--io-executors must be a positive number" {
	io_overlap
	run "$WFRUN" --io-executors 0 wf.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"--io-executors wants a number >= 1, not '0'"* ]]
}

@test "trace rows reach the file as tasks end; queue_s counts the wait for cores" {
	wf <<'EOF2'
tasks:
  - name: quick
    foreach: {i: "1..2"}
    out: {f: "q{i}"}
    run: "sleep 0.5; touch {out.f}"
  - name: long
    out: {f: l}
    run: "sleep 3; touch {out.f}"
EOF2
	"$WFRUN" -q -j 1 wf.yaml &
	pid=$!
	for _ in $(seq 50); do
		[ -f .wfrun/trace.tsv ] && [ "$(wc -l <.wfrun/trace.tsv)" -ge 3 ] && break
		sleep 0.1
	done
	[ "$(wc -l <.wfrun/trace.tsv)" -ge 3 ]
	kill -0 "$pid"
	wait "$pid"
	[ "$(wc -l <.wfrun/trace.tsv)" -eq 4 ]
	# with one core, the second quick task waited for the first
	q=$(awk -F'\t' '$1 == 2 { print ($15 >= 0.4) }' .wfrun/trace.tsv)
	[ "$q" = 1 ]
}

@test "timeout: a task past its time is killed (its whole group) and fails" {
	wf <<'EOF2'
tasks:
  - name: stuck
    timeout: 1s
    out: {f: never}
    run: "sleep 306 & sleep 307; touch {out.f}"
  - name: fine
    timeout: 1m
    out: {f: ok}
    run: "sleep 0.2; touch {out.f}"
EOF2
	SECONDS=0
	run "$WFRUN" -j 2 wf.yaml
	[ "$status" -eq 1 ]
	[ "$SECONDS" -lt 20 ]
	[[ "$output" == *"wfrun: error: task 'stuck' timed out after 1s and was killed"* ]]
	[ -e ok ]
	[ ! -e never ]
	[ "$(pcount 'sleep 30[67]')" -eq 0 ]
	[ "$(awk -F'\t' '$2 == "stuck" { print $9, $10 }' .wfrun/trace.tsv)" = "FAILED 137" ]
}

@test "two localhost workers: every task's end is seen, whichever worker ran it" {
	# Both run tasks as children of wfrun; each reaps any child that
	# ends.  A child reaped by the other worker was lost, and the run
	# waited for it for ever.
	cat >r.xml <<'XML'
<resources>
  <worker name="a" host="localhost"><cores>1</cores></worker>
  <worker name="b" host="localhost"><cores>1</cores></worker>
</resources>
XML
	wf <<'EOF2'
tasks:
  - name: t
    foreach: {i: "1..8"}
    out: {f: "o/{i}"}
    run: "sleep 0.2; echo {i} > {out.f}"
EOF2
	run timeout -s KILL 60 "$WFRUN" -q -r r.xml wf.yaml
	[ "$status" -eq 0 ]
	[ "$(trace_col worker | sort | uniq -c | tr -s ' ' | tr '\n' ,)" = " 4 a, 4 b," ]
	[ "$(cat o/8)" = 8 ]
}

# A task's process starts in wfrun's memory (spawn.h) and the kernel
# counts that memory's peak into the task's when it execs: the trace
# showed wfrun's own RSS (6 MB, 23 MB under ASan, 200 MB for a large
# plan) as every small task's peak.
@test "peak_rss_kb is the task's, never wfrun's own" {
	wf <<'EOF2'
tasks:
  - {name: small, foreach: {i: "1..3"}, run: "true"}
  - {name: big, run: "head -c 60000000 /dev/zero | sort >/dev/null"}
EOF2
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	paste <(trace_col name) <(trace_col peak_rss_kb) >rss.txt
	cat rss.txt
	# true's own peak is about 1 MB: unknown (empty) or below wfrun's
	[ "$(awk '$1 == "small" && $2 != "" && $2 >= 4000' rss.txt | wc -l)" -eq 0 ]
	# sort holds its 60 MB line
	[ "$(awk '$1 == "big" && $2 >= 55000' rss.txt | wc -l)" -eq 1 ]
}
