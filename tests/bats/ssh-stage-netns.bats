#!/usr/bin/env bats
# Workers whose workdir is not shared, each a host of its own (a network
# namespace, its own address, port 22): inputs staged over SFTP, outputs
# brought back byte for byte.
load helper

setup_file() {
	export C="$BATS_FILE_TMPDIR/sn"
	"$TESTCLUSTER" up -q --netns --no-fallback 2 "$C"
	cluster_xml "$C" false
}

teardown_file() {
	"$TESTCLUSTER" down -q "$C"
}

setup() {
	W="$C/master/t$BATS_TEST_NUMBER"
	mkdir -p "$W"
	cd "$W" || exit 1
}

tree_of() {
	(cd "$1" && find . -path ./.wfrun -prune -o -type f -print | LC_ALL=C sort |
		while read -r f; do echo "== $f"; md5sum <"$f"; done)
}

pipeline() {
	wf <<'EOF2'
tasks:
  - name: split
    foreach: {i: "1..4"}
    in: {a: in/a.bin, n: in/n.txt}
    out: {o: "part/{i}.bin"}
    run: "sleep 0.3; tail -c +$(( ({i} - 1) * 500000 + 1 )) {in.a} | head -c 500000 > {out.o}; sed -n '{i}p' {in.n} >> {out.o}"
  - name: join
    in: {p: {dir: part}}
    out: {o: all.bin}
    run: "cat {in.p}/1.bin {in.p}/2.bin {in.p}/3.bin {in.p}/4.bin > {out.o}"
EOF2
}

@test "netns, not shared: outputs byte-identical to a local run, both hosts used" {
	grep -q '^TESTCLUSTER_MODE=netns$' "$C/cluster.env"
	mkdir -p local/in remote
	head -c 2000000 /dev/urandom >local/in/a.bin
	seq 1 1000 >local/in/n.txt
	cp -r local/in remote/
	(cd local && pipeline && "$WFRUN" -q wf.yaml)
	cd remote
	pipeline
	run "$WFRUN" -r "$C/cluster.xml" wf.yaml
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(tree_of .)" = "$(tree_of ../local)" ]
	cmp all.bin ../local/all.bin
	cut -f1-4,22- .wfrun/trace.tsv
	[ "$(trace_col worker | sort -u | tr '\n' ' ')" = "w1 w2 " ]
	# in/a.bin went to each host once: 2 hosts x (2000000 + 3893) bytes,
	# plus the two parts that 'join' found on the other host
	[ "$(trace_col bytes_staged | awk '{ s += $1 } END { print s }')" -eq $((2 * 2003893 + 2 * 500002)) ]
}

@test "netns, not shared: a timeout counts the staging; the task ends while its input is still on the way" {
	# 20 MB over 8 Mbit/s takes 20 s: far past the task's 1 s
	"$TESTCLUSTER" shape "$C" w1 --rate 8mbit
	"$TESTCLUSTER" shape "$C" w2 --rate 8mbit
	head -c 20000000 /dev/zero >big.bin
	wf <<'EOF2'
tasks:
  - name: slow
    timeout: 1
    in: {f: big.bin}
    out: {o: o.txt}
    run: "wc -c < {in.f} > {out.o}"
EOF2
	run "$WFRUN" -r "$C/cluster.xml" wf.yaml
	"$TESTCLUSTER" shape "$C" w1
	"$TESTCLUSTER" shape "$C" w2
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"error: task 'slow' could not start: timed out while its inputs were being staged"* ]]
	[ ! -e o.txt ]
}
