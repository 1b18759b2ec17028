# What iobw.bats and iobw-rules.bats share (load iobw, after helper):
# workflows of I/O tasks and the most of them that ran at once.

# The most tasks of the trace that ran at the same time (an end and a start
# at the same instant do not overlap).
max_overlap() {
	awk -F'\t' 'NR > 1 { print $13, 1; print $14, -1 }' .wfrun/trace.tsv |
		sort -k1,1n -k2,2n |
		awk '{ n += $2; if (n > m) m = n } END { print m + 0 }'
}

ckpt() { # ckpt N STORAGE_BW [SECONDS]
	ckpt_run "$1" "$2" "sleep ${3:-0.3}; echo {i} > {out.f}"
}

ckpt_run() { # ckpt_run N STORAGE_BW RUN: N tasks ckpt writing out/{i}
	wf <<EOF2
tasks:
  - name: ckpt
    foreach: {i: "1..$1"}
    io: true
    storage_bw: $2
    out: {f: "out/{i}"}
    run: "$3"
EOF2
}

# Two workers on this machine, each its own disk of B = 2 MB/s, and 30
# instances of an auto name (iobw.bats: the stops to make way).  An
# instance's first attempt writes 'partial' to its output, then waits
# 2.5 s.
climb_two_disks() {
	cat >r.xml <<'XML'
<resources>
  <worker name="a" host="localhost">
    <cores>12</cores>
    <io-executors>12</io-executors>
    <disk bandwidth="2"/>
  </worker>
  <worker name="b" host="localhost">
    <cores>1</cores>
    <io-executors>12</io-executors>
    <disk bandwidth="2"/>
  </worker>
</resources>
XML
	wf <<'EOF2'
tasks:
  - name: ckpt
    foreach: {i: "1..30"}
    io: true
    storage_bw: auto
    out: {f: "out/{i}"}
    run: "if [ {i} = 1 ] || [ -e m/{i} ]; then sleep 1.3; else touch m/{i}; echo partial > {out.f}; sleep 2.5; fi; dd if=/dev/zero of={out.f} bs=1M count=1 conv=fsync status=none"
EOF2
	mkdir m
}
