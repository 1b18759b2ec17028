#!/usr/bin/env bats
# Workers whose workdir is not shared: inputs staged over SFTP into a
# sandbox, outputs kept where they were made and brought back at the end,
# their tasks journaled then (a rerun does nothing, an inout update is
# never applied twice, a fetch cut short never becomes data).
# testcluster without --shared covers the master's directory (and the other
# workers' workdirs) with an empty tmpfs on every worker, so a file that
# was not staged is not there.
load helper
load stage-cluster

# sum of a trace column
trace_sum() {
	trace_col "$1" | awk '{ s += $1 } END { print s + 0 }'
}

# The files of a directory tree and their contents, wfrun's own left out.
tree_of() {
	(cd "$1" && find . -path ./.wfrun -prune -o -type f -print | LC_ALL=C sort |
		while read -r f; do echo "== $f"; cat "$f"; done)
}

pipeline() {
	mkdir -p data/deep/er
	for i in 1 2 3 4 5 6; do echo "input $i" >data/in$i.txt; done
	echo nested >data/deep/er/x.txt
	echo base >total.txt
	wf <<'EOF2'
tasks:
  - name: gen
    foreach: {i: "1..6"}
    in: {src: "data/in{i}.txt", all: {dir: data, depth: 2}}
    out: {f: "out/{i}.txt"}
    run: "sleep 0.5; cat {in.src} > {out.f}; ls -R {in.all} >> {out.f}; cat {in.all}/deep/er/x.txt >> {out.f}"
  - name: sum
    foreach: {i: "1..6"}
    in: {f: "out/{i}.txt"}
    inout: {t: total.txt}
    run: "head -1 {in.f} >> {inout.t}"
  - name: gather
    in: {d: {dir: out}, l: {list: "out/{i}.txt", foreach: {i: "1..3"}}}
    out: {n: "res/count.txt", dd: {dir: made}}
    run: "ls {in.d} > {out.n}; cat {in.l} | wc -l >> {out.n}; echo x > {out.dd}/a; mkdir {out.dd}/sub; printf 'y\\n' > {out.dd}/sub/b; mkdir {out.dd}/empty"
EOF2
}

@test "not shared: the outputs are byte-identical to a local run, tasks spread over the workers" {
	mkdir local remote
	(cd local && pipeline && "$WFRUN" -q wf.yaml)
	cd remote
	pipeline
	run "$WFRUN" -q -r "$C/cluster.xml" wf.yaml
	[ "$status" -eq 0 ]
	[ "$(tree_of .)" = "$(tree_of ../local)" ]
	[ -d made/empty ]
	[ "$(cat total.txt)" = "$(printf 'base\ninput 1\ninput 2\ninput 3\ninput 4\ninput 5\ninput 6')" ]
	# the six gen tasks ran at once, two per worker
	[ "$(awk -F'\t' 'NR > 1 && $2 == "gen" { print $4 }' .wfrun/trace.tsv | sort | uniq -c | awk '{ print $1 $2 }' | tr '\n' ' ')" = "2w1 2w2 2w3 " ]
	# the inputs were not on the workers: each was sent
	[ "$(trace_sum bytes_staged)" -gt 0 ]
	# sandboxes of tasks that succeeded are gone; the store holds what
	# the tasks made
	[ -z "$(find "$C"/w*/work/.wfrun/sandbox -mindepth 2 -maxdepth 2)" ]
	ls "$C"/w*/work/.wfrun/data/*/t1/out/1.txt
	# where each version is
	grep -q "^made/sub/b	13	2	w[123]	$C/w[123]/work/.wfrun/data/[^/]*/t13/made/sub/b	yes\$" .wfrun/data.tsv
}

@test "not shared: a file is sent to a worker once, also when passed alone and inside a collection" {
	mkdir -p data
	head -c 300000 /dev/urandom >data/big.bin
	echo small >data/small.txt
	wf <<'EOF2'
tasks:
  - name: both
    in: {f: data/big.bin, d: {dir: data}, l: {list: "data/{n}", foreach: {n: [big.bin, small.txt]}}}
    out: {o: both.txt}
    run: "cat {in.f} {in.d}/small.txt | wc -c > {out.o}"
  - name: again
    foreach: {i: "1..9"}
    in: {f: data/big.bin, w: both.txt}
    out: {o: "again/{i}.txt"}
    run: "sleep 0.3; wc -c < {in.f} > {out.o}"
EOF2
	run "$WFRUN" -q -r "$C/cluster.xml" wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat both.txt)" = 300006 ]
	# the first task: each file of data/ once (300000 + 6 bytes)
	[ "$(awk -F'\t' 'NR > 1 && $2 == "both"' .wfrun/trace.tsv | cut -f1)" = 1 ]
	[ "$(trace_col bytes_staged | head -1)" = 300006 ]
	# every worker that ran 'again' got big.bin once (and both.txt, 7
	# bytes, unless it made it): the bytes add up to that, not to 9 copies
	n=$(awk -F'\t' 'NR > 1 && $2 == "again" { print $4 }' .wfrun/trace.tsv | sort -u | wc -l)
	first=$(awk -F'\t' 'NR > 1 && $2 == "both" { print $4 }' .wfrun/trace.tsv)
	others=$(awk -F'\t' -v f="$first" 'NR > 1 && $2 == "again" && $4 != f { print $4 }' .wfrun/trace.tsv | sort -u | wc -l)
	[ "$n" -ge 2 ]
	[ "$(trace_sum bytes_staged)" -eq $((300006 + others * (300000 + 7))) ]
	for w in $(awk -F'\t' 'NR > 1 { print $4 }' .wfrun/trace.tsv | sort -u); do
		[ "$(find "$C/$w/work/.wfrun/data" -name big.bin | wc -l)" -eq 1 ]
	done
	for i in 1 2 3 4 5 6 7 8 9; do [ "$(cat again/$i.txt)" = 300000 ]; done
}

@test "not shared: a task goes where most of its input bytes are" {
	wf <<'EOF2'
tasks:
  - name: make
    foreach: {i: "1..3"}
    out: {o: "big{i}.bin"}
    run: "head -c 3000000 /dev/zero > {out.o}"
  - name: use
    foreach: {i: "1..3"}
    in: {f: "big{i}.bin"}
    out: {o: "n{i}.txt"}
    run: "wc -c < {in.f} > {out.o}"
EOF2
	run "$WFRUN" -q -r "$C/cluster.xml" wf.yaml
	[ "$status" -eq 0 ]
	for i in 1 2 3; do
		made=$(awk -F'\t' -v t="i=$i" 'NR > 1 && $2 == "make" && $3 == t { print $4 }' .wfrun/trace.tsv)
		used=$(awk -F'\t' -v t="i=$i" 'NR > 1 && $2 == "use" && $3 == t { print $4 }' .wfrun/trace.tsv)
		[ "$made" = "$used" ]
		[ "$(cat n$i.txt)" = 3000000 ]
	done
	[ "$(trace_sum bytes_staged)" -eq 0 ]
}

fetch_wf() {
	wf <<'EOF2'
tasks:
  - name: a
    out: {o: mid/m.txt}
    run: "echo mid > {out.o}"
  - name: b
    in: {i: mid/m.txt}
    out: {o: final.txt}
    run: "cat {in.i} {in.i} > {out.o}"
EOF2
}

@test "not shared: temp outputs go from the workdir at the end, after the fetch; a rerun runs nothing" {
	echo a >in.txt
	wf <<'EOF2'
tasks:
  - name: p
    foreach: {i: "1..3"}
    in: {a: in.txt}
    out: {t: {temp: "tmp/{i}.txt"}}
    run: "cat {in.a} > {out.t}; echo {i} >> {out.t}"
  - name: r
    foreach: {i: "1..3"}
    in: {t: "tmp/{i}.txt"}
    out: {o: "o/{i}.txt"}
    run: "cat {in.t} > {out.o}"
EOF2
	run "$WFRUN" -q -r "$C/cluster.xml" wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat o/3.txt | tr '\n' ' ')" = "a 3 " ]
	[ ! -e tmp/1.txt ]
	[ ! -e tmp/3.txt ]
	run "$WFRUN" -r "$C/cluster.xml" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"0 tasks done"*"6 up to date"* ]]
}

@test "--fetch all (the default) brings back every file a task wrote" {
	fetch_wf
	run "$WFRUN" -q -r "$C/cluster.xml" wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat mid/m.txt)" = mid ]
	[ "$(cat final.txt)" = "$(printf 'mid\nmid')" ]
	run "$WFRUN" -q -r "$C/cluster.xml" --fetch all wf.yaml
	[ "$status" -eq 0 ]
	[ -f mid/m.txt ]
}

@test "--fetch final brings back what no task reads; --fetch none nothing, and says where it is" {
	fetch_wf
	run "$WFRUN" -q -r "$C/cluster.xml" --fetch final wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat final.txt)" = "$(printf 'mid\nmid')" ]
	[ ! -e mid/m.txt ]
	rm final.txt
	run "$WFRUN" -q -r "$C/cluster.xml" --fetch none wf.yaml
	[ "$status" -eq 0 ]
	[ ! -e final.txt ]
	[ ! -e mid ]
	line=$(grep '^final.txt	' .wfrun/data.tsv)
	[ "$(echo "$line" | cut -f6)" = no ]
	[ "$(cat "$(echo "$line" | cut -f5)")" = "$(printf 'mid\nmid')" ]
	run "$WFRUN" -q -r "$C/cluster.xml" --fetch some wf.yaml
	[ "$status" -eq 2 ]
	[ "$output" = "wfrun: error: --fetch wants all, final or none, not 'some'" ]
}

@test "--fetch final with a target: what a task left out would read is final all the same" {
	fetch_wf
	run "$WFRUN" -q -r "$C/cluster.xml" --fetch final wf.yaml mid/m.txt
	[ "$status" -eq 0 ]
	[ "$(cat mid/m.txt)" = mid ]
	[ ! -e final.txt ]
}

@test "not shared: a failed task's stderr is named on its worker, its sandbox kept" {
	echo in >in.txt
	wf <<'EOF2'
tasks:
  - name: bad
    in: {i: in.txt}
    out: {o: o.txt}
    run: "echo oops >&2; exit 3"
EOF2
	run "$WFRUN" -r "$C/cluster.xml" wf.yaml
	[ "$status" -eq 1 ]
	[[ "$output" == *"error: task 'bad' failed with exit status 3 (stderr on worker 'w1': $C/w1/work/.wfrun/logs/bad.err)"* ]]
	[ "$(cat "$C/w1/work/.wfrun/logs/bad.err")" = oops ]
	ls "$C"/w1/work/.wfrun/sandbox/*/1/in.txt
	[ "$(cat in.txt)" = in ]
}

@test "not shared: links a task makes come back as links, never followed" {
	wf <<'EOF2'
tasks:
  - name: mk
    out: {d: {dir: d}, l: rel.txt}
    run: "echo data > {out.d}/f.txt; ln -s f.txt {out.d}/in.lnk; ln -s /etc/hostname {out.d}/out.lnk; ln -s d/f.txt {out.l}"
EOF2
	run "$WFRUN" -r "$C/cluster.xml" wf.yaml
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(readlink d/in.lnk)" = f.txt ]
	[ "$(cat d/in.lnk)" = data ]
	# a link out of the workdir stays a link: its target is not copied
	[ "$(readlink d/out.lnk)" = /etc/hostname ]
	[ "$(readlink rel.txt)" = d/f.txt ]
	[ "$(cat rel.txt)" = data ]
}

# Kill worker $1's sshd and everything under it (its agent, its tasks).
kill_worker() {
	local pid
	pid=$(cat "$C/$1/sshd.pid")
	all=$(descendants "$pid")
	kill -KILL $pid $all 2>/dev/null || true
}

descendants() {
	local c
	for c in $(ps -o pid= --ppid "$1"); do
		echo "$c"
		descendants "$c"
	done
}

@test "a worker killed mid-run: its running tasks run again on the others" {
	wf <<EOF2
tasks:
  - name: t
    foreach: {i: "1..6"}
    out: {o: "o/{i}.txt"}
    run: "if [ \$(hostname) = w2 ]; then touch $BATS_TEST_TMPDIR/on-w2.{i}; sleep 287; fi; echo {i} > {out.o}"
EOF2
	"$WFRUN" -r "$C/cluster.xml" wf.yaml >out.txt 2>&1 &
	pid=$!
	for _ in $(seq 300); do
		[ -e "$BATS_TEST_TMPDIR/on-w2.2" ] && [ -e "$BATS_TEST_TMPDIR/on-w2.5" ] && break
		sleep 0.1
	done
	ls "$BATS_TEST_TMPDIR"/on-w2.2 "$BATS_TEST_TMPDIR"/on-w2.5
	kill_worker w2
	wait "$pid" || status=$?
	cat out.txt
	[ "${status:-0}" -eq 0 ]
	grep -q "warning: worker 'w2' lost: .*; its running tasks go back to the queue" out.txt
	for i in 1 2 3 4 5 6; do [ "$(cat o/$i.txt)" = "$i" ]; done
	[ "$(awk -F'\t' 'NR > 1 && $9 == "COMPLETED" { print $4 }' .wfrun/trace.tsv | sort -u | tr '\n' ' ')" = "w1 w3 " ]
	# the two attempts lost with w2 have their rows there
	[ "$(awk -F'\t' 'NR > 1 && $9 != "COMPLETED" { print $4, $9, $3 }' .wfrun/trace.tsv | sort | tr '\n' ,)" = "w2 LOST i=2,w2 LOST i=5," ]
	cluster_start
}

# gen_wf CMD: three 'gen' tasks (spread: i=2 runs on w2), a 'gate' that
# waits for $BATS_TEST_TMPDIR/go, and 'use', which reads g/2.txt after it.
gen_wf() {
	wf <<EOF2
tasks:
  - name: gen
    foreach: {i: "1..3"}
    out: {o: "g/{i}.txt"}
    run: "$1"
  - name: gate
    out: {o: gate.txt}
    run: "while [ ! -e $BATS_TEST_TMPDIR/go ]; do sleep 0.1; done; echo > {out.o}"
  - name: use
    in: {a: g/2.txt, b: gate.txt}
    out: {o: use.txt}
    run: "cat {in.a} > {out.o}"
EOF2
}

# Run the workflow in the background; once gen i=2 is done on w2, kill w2
# and open the gate.  Leaves wfrun's status in $status, its output in
# out.txt.
run_and_kill_w2() {
	"$WFRUN" -r "$C/cluster.xml" wf.yaml >out.txt 2>&1 &
	pid=$!
	for _ in $(seq 200); do
		grep -q '	gen	i=2	w2	.*COMPLETED' .wfrun/trace.tsv 2>/dev/null && break
		sleep 0.1
	done
	grep -q '	gen	i=2	w2	.*COMPLETED' .wfrun/trace.tsv
	kill_worker w2
	touch "$BATS_TEST_TMPDIR/go"
	status=0
	wait "$pid" || status=$?
	cat out.txt
}

@test "a worker killed after making data only it had: its producer runs again elsewhere" {
	gen_wf "echo {i} > {out.o}"
	run_and_kill_w2
	[ "$status" -eq 0 ]
	grep -q "warning: 'g/2.txt' (written by task 'gen' (i=2)) was only on worker 'w2', which was lost: running task 'gen' (i=2) again" out.txt
	[ "$(cat use.txt)" = 2 ]
	for i in 1 2 3; do [ "$(cat g/$i.txt)" = $i ]; done
	# gen i=2 twice: on w2, then on another worker
	[ "$(awk -F'\t' 'NR > 1 && $2 == "gen" && $3 == "i=2" { print $4 }' .wfrun/trace.tsv | tr '\n' ' ')" != "w2 " ]
	[ "$(awk -F'\t' 'NR > 1 && $2 == "gen" && $3 == "i=2"' .wfrun/trace.tsv | wc -l)" -eq 2 ]
	cluster_start
}

@test "a worker killed after making an output no task reads: its producer runs again at the end" {
	wf <<EOF2
tasks:
  - name: gen
    foreach: {i: "1..3"}
    out: {o: "g/{i}.txt"}
    run: "echo {i} > {out.o}"
  - name: gate
    out: {o: gate.txt}
    run: "while [ ! -e $BATS_TEST_TMPDIR/go ]; do sleep 0.1; done; echo > {out.o}"
EOF2
	run_and_kill_w2
	[ "$status" -eq 0 ]
	grep -q "warning: output 'g/2.txt' (written by task 'gen' (i=2)) was only on worker 'w2', which was lost: running task 'gen' (i=2) again" out.txt
	for i in 1 2 3; do [ "$(cat g/$i.txt)" = $i ]; done
	[ "$(awk -F'\t' 'NR > 1 && $2 == "gen" && $3 == "i=2"' .wfrun/trace.tsv | wc -l)" -eq 2 ]
	cluster_start
}

@test "a worker killed after making data only it had, which cannot be made again: the run stops naming it" {
	# gen i=2 succeeds on w2 only
	gen_wf '[ {i} != 2 ] || [ $(hostname) = w2 ] || exit 5; echo {i} > {out.o}'
	run_and_kill_w2
	[ "$status" -eq 1 ]
	grep -q "error: task 'gen' (i=2), run again to make lost data, failed with exit status 5" out.txt
	grep -q "error: task 'use' could not start: its input 'g/2.txt' (written by task 'gen' (i=2)) was only on worker 'w2', which was lost, and running its producer again did not make it" out.txt
	[ ! -e use.txt ]
	# what the others made still comes back
	[ "$(cat g/1.txt)" = 1 ]
	[ "$(cat g/3.txt)" = 3 ]
	cluster_start
}

@test "tasks run on workers whose workdir is not shared are journaled once back: a later run runs what changed" {
	fetch_wf
	run "$WFRUN" -q -r "$C/cluster.xml" wf.yaml
	[ "$status" -eq 0 ]
	run "$WFRUN" -r "$C/cluster.xml" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"2 of 2 tasks are up to date"* ]]
	echo changed >final.txt
	run "$WFRUN" -r "$C/cluster.xml" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"1 of 2 tasks are up to date"* ]]
	[ "$(cat final.txt)" = "$(printf 'mid\nmid')" ]
}

# gen (6, spread over the workers) -> sum, each adding a line to
# total.txt in place; list reads the collection gen wrote.  $1: bytes of
# padding in each gen output (to make the fetch last).
inout_wf() {
	echo base >total.txt
	wf <<EOF2
tasks:
  - name: gen
    foreach: {i: "1..6"}
    out: {f: "out/{i}.txt"}
    run: "echo {i} > {out.f}; head -c ${1:-0} /dev/zero >> {out.f}"
  - name: sum
    foreach: {i: "1..6"}
    in: {f: "out/{i}.txt"}
    inout: {t: total.txt}
    run: "head -1 {in.f} >> {inout.t}"
  - name: list
    in: {d: {dir: out}}
    out: {o: list.txt}
    run: "ls {in.d} > {out.o}"
EOF2
}

@test "not shared: a rerun after success runs nothing, and total.txt keeps one update per task" {
	inout_wf
	run "$WFRUN" -r "$C/cluster.xml" wf.yaml
	[ "$status" -eq 0 ]
	[ "$(wc -l <total.txt)" -eq 7 ]
	[ "$(trace_col worker | sort -u | wc -l)" -ge 2 ]
	run "$WFRUN" -r "$C/cluster.xml" wf.yaml
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"13 of 13 tasks are up to date"* ]]
	[ "$(wc -l <total.txt)" -eq 7 ]
	[ "$(cat total.txt | tr '\n' ' ')" = "base 1 2 3 4 5 6 " ]
	# the relay of the first run is gone
	[ ! -e .wfrun/relay ]
}

@test "--fetch final: what stayed on a worker is journaled absent; its producer runs again when a reader must" {
	fetch_wf
	run "$WFRUN" -q -r "$C/cluster.xml" --fetch final wf.yaml
	[ "$status" -eq 0 ]
	[ ! -e mid/m.txt ]
	run "$WFRUN" -r "$C/cluster.xml" --fetch final wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"2 of 2 tasks are up to date"* ]]
	rm final.txt
	run "$WFRUN" -n --reason -r "$C/cluster.xml" --fetch final wf.yaml
	echo "$output"
	[[ "$output" == *"# 'a': 'b', which runs, reads what it left on a worker"* ]]
	run "$WFRUN" -r "$C/cluster.xml" --fetch final wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat final.txt)" = "$(printf 'mid\nmid')" ]
	[ "$(grep -c . .wfrun/trace.tsv)" -eq 3 ]
}

@test "not shared: the master killed during the final fetch; the rerun applies each update once and no partial file is data" {
	inout_wf 10000000
	"$WFRUN" -q -r "$C/cluster.xml" wf.yaml >out.txt 2>&1 &
	pid=$!
	for _ in $(seq 1200); do
		[ -n "$(find . -name '*.wfrun-part')" ] && break
		sleep 0.05
	done
	kill -KILL "$pid"
	find . -name '*.wfrun-part' | grep -q .
	wait "$pid" || true
	old=$(ls .wfrun/relay)
	# nothing half fetched is under its own name, nor beside it
	[ -z "$(find . -path ./.wfrun -prune -o -name '*.wfrun-part' -print)" ]
	run "$WFRUN" -r "$C/cluster.xml" wf.yaml
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cat total.txt | tr '\n' ' ')" = "base 1 2 3 4 5 6 " ]
	[ "$(cat list.txt | tr '\n' ' ')" = "1.txt 2.txt 3.txt 4.txt 5.txt 6.txt " ]
	[ ! -e ".wfrun/relay/$old" ]
	run "$WFRUN" -r "$C/cluster.xml" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"13 of 13 tasks are up to date"* ]]
	[ "$(wc -l <total.txt)" -eq 7 ]
}

@test "not shared: the worker holding an output lost during the final fetch: its producer runs again elsewhere" {
	wf <<'EOF2'
tasks:
  - name: big
    out: {o: big.bin}
    run: "head -c 60000000 /dev/zero > {out.o}; echo end >> {out.o}"
EOF2
	"$WFRUN" -r "$C/cluster.xml" wf.yaml >out.txt 2>&1 &
	pid=$!
	for _ in $(seq 1200); do
		[ -n "$(find . -name '*.wfrun-part')" ] && break
		sleep 0.05
	done
	# the master stands still while its worker is killed, so that the
	# fetch cannot end first (it did on a loaded machine)
	kill -STOP "$pid"
	find . -name '*.wfrun-part' | grep -q .
	on=$(trace_col worker)
	kill_worker "$on"
	kill -CONT "$pid"
	status=0
	wait "$pid" || status=$?
	cat out.txt
	[ "$status" -eq 0 ]
	grep -q "warning: output 'big.bin' (written by task 'big') was only on worker '$on', which was lost: running task 'big' again" out.txt
	[ "$(tail -c 4 big.bin)" = end ]
	[ "$(stat -c %s big.bin)" -eq 60000004 ]
	# its last attempt completed elsewhere (one more may have been lost
	# with the worker, placed before the loss was seen)
	last=$(awk -F'\t' 'NR > 1 { w = $4; st = $9 } END { print w, st }' .wfrun/trace.tsv)
	[ "${last#* }" = COMPLETED ]
	[ "${last% *}" != "$on" ]
	cluster_start
}

# gen (4, spread over the workers) -> sum, each adding a line to the
# user's total.txt in place (a `>>` chain; the third waits for
# $BATS_TEST_TMPDIR/go), then last, which reads it: the master is killed
# while the third sum runs, the updates of the first two only in their
# workers' stores.
store_wf() {
	echo base >total.txt
	wf <<EOF2
tasks:
  - name: gen
    foreach: {i: "1..4"}
    out: {f: "out/{i}.txt", d: {dir: "dir{i}"}}
    run: "echo {i} > {out.f}; echo x{i} > {out.d}/x"
  - name: sum
    foreach: {i: "1..4"}
    in: {f: "out/{i}.txt"}
    inout: {t: total.txt}
    run: "[ {i} != 3 ] || while [ ! -e $BATS_TEST_TMPDIR/go ]; do sleep 0.1; done; head -1 {in.f} >> {inout.t}"
  - name: last
    in: {t: total.txt, d: {dir: out}}
    out: {o: last.txt}
    run: "cat {in.t} > {out.o}; ls {in.d} >> {out.o}"
EOF2
}

# The S lines of the journal: tasks that ended on their workers, their
# outputs not brought back.
s_lines() {
	[ -e .wfrun/journal ] || { echo 0; return; }
	grep -c $'^[0-9a-f]\{8\} S\t' .wfrun/journal
}

# store_wf run locally in ./local, and in ./remote (then the cwd) on the
# workers, its master killed (-9) once gen and the first two sums are
# journaled as done on their workers (the third waits for the gate until
# then: a fixed sleep there was outrun on a loaded machine); the gate is
# open for the reruns.
killed_before_fetch() {
	mkdir local remote
	touch "$BATS_TEST_TMPDIR/go"
	(cd local && store_wf && "$WFRUN" -q wf.yaml)
	rm "$BATS_TEST_TMPDIR/go"
	cd remote
	store_wf
	"$WFRUN" -q -r "$C/cluster.xml" wf.yaml >../killed.txt 2>&1 &
	local pid=$! n=0
	until [ "$(s_lines)" -ge 6 ] || [ $((n += 1)) -gt 1200 ]; do sleep 0.05; done
	kill -KILL "$pid"
	wait "$pid" || true
	touch "$BATS_TEST_TMPDIR/go"
	[ "$(s_lines)" -eq 6 ]
	# nothing of the workers' came back
	[ "$(cat total.txt)" = base ]
	[ ! -e out ]
}

@test "not shared: the master killed before the fetch; the rerun takes what the workers' stores hold, each update applied once" {
	killed_before_fetch
	first=$(cut -f2 .wfrun/stores | sort -u)
	run "$WFRUN" -r "$C/cluster.xml" wf.yaml
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"6 of 9 tasks are up to date"* ]]
	# only the third and fourth sum and last ran: the third from the
	# second's update, taken from its worker's store
	[ "$(trace_col name | tr '\n' ' ')" = "sum sum last " ]
	[ "$(tree_of .)" = "$(tree_of ../local)" ]
	[ "$(cat total.txt | tr '\n' ' ')" = "base 1 2 3 4 " ]
	run "$WFRUN" -r "$C/cluster.xml" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"9 of 9 tasks are up to date"* ]]
	# nothing to do: the trace stays the last real run's
	[ "$(trace_col name | tr '\n' ' ')" = "sum sum last " ]
	[ "$(tree_of .)" = "$(tree_of ../local)" ]
	# the stores of the runs before are removed once nothing refers to
	# them: only this run's is listed
	[ -n "$first" ]
	[ "$(cut -f2 .wfrun/stores | sort -u | wc -l)" -eq 1 ]
	[ "$(cut -f2 .wfrun/stores | sort -u)" != "$first" ]
	[ -z "$(ls -d "$C"/w*/work/.wfrun/data/"$first" 2>/dev/null)" ]
}

@test "not shared: the master killed before the fetch, the workers' stores removed: the rerun runs it all again" {
	killed_before_fetch
	run_id=$(cut -f2 .wfrun/stores | sort -u)
	[ -n "$run_id" ]
	[ -n "$(ls -d "$C"/w*/work/.wfrun/data/"$run_id")" ]
	rm -rf "$C"/w*/work/.wfrun/data/"$run_id"
	run "$WFRUN" -r "$C/cluster.xml" wf.yaml
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *"up to date"* ]]
	[ "$(trace_col name | wc -l)" -eq 9 ]
	[ "$(tree_of .)" = "$(tree_of ../local)" ]
	[ "$(cat total.txt | tr '\n' ' ')" = "base 1 2 3 4 " ]
}
