#!/usr/bin/env bats
# memory: what a task declares it reserves on its worker (this machine's
# MemTotal or --memory, a worker's <memory>): tasks that do not fit
# together wait, a task larger than every worker is an error before
# anything runs, and a task over its memory is reported as such (peak
# RSS), ended by the kernel where a cgroup v2 memory controller allows.
load helper

# two N SIZE: N instances of a task reserving SIZE, each sleeping 0.3 s.
two() {
	wf <<EOF
tasks:
  - name: m
    foreach: {i: "1..$1"}
    memory: $2
    out: {o: "m{i}"}
    run: "sleep 0.3; echo {i} > {out.o}"
EOF
}

# overlaps: whether two trace rows' [start, complete] intersect.
overlaps() {
	paste <(trace_col start) <(trace_col complete) |
		awk 'NR == 1 { s = $1; c = $2 } NR == 2 { exit !($1 < c && s < $2) }'
}

@test "memory: two tasks that do not fit together run one after the other" {
	two 2 600M
	run "$WFRUN" --memory 1G -j 4 wf.yaml
	[ "$status" -eq 0 ]
	[ "$(trace_col status | sort -u)" = COMPLETED ]
	run ! overlaps
	# the same with room for both: they overlap (so the check can tell)
	rm -rf .wfrun m1 m2
	run "$WFRUN" --memory 1300M -j 4 wf.yaml
	[ "$status" -eq 0 ]
	overlaps
}

@test "memory: a task larger than this machine is an error at check time" {
	two 1 3G
	run "$WFRUN" check --memory 2G wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:4:13: error: task 'm' asks for 3 GiB of memory but this machine has 2 GiB; lower memory or raise --memory" ]
	run "$WFRUN" --memory 2G wf.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"asks for 3 GiB of memory but this machine has 2 GiB"* ]]
	[ ! -e m1 ]
	[ ! -e .wfrun/trace.tsv ]
	run "$WFRUN" check --memory 3G wf.yaml
	[ "$status" -eq 0 ]
	run "$WFRUN" check --memory 3x wf.yaml
	[ "$status" -eq 2 ]
	[ "$output" = "wfrun: error: --memory wants a size with a unit (512M, 16G), not '3x'" ]
}

@test "memory: by default this machine's memory limits, with MemTotal" {
	local kb
	kb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
	two 1 "$((kb * 2))K"
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"task 'm' asks for "*" of memory but this machine has "* ]]
	two 1 "$((kb / 4))K"
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 0 ]
}

@test "memory: a worker's <memory> in the resources file; none is not limited" {
	cat >r.xml <<'EOF'
<resources>
  <worker name="here" host="localhost"><cores>2</cores><memory unit="MB">512</memory></worker>
</resources>
EOF
	two 1 600M
	run "$WFRUN" check -r r.xml wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:4:13: error: task 'm' asks for 600 MiB of memory but no worker has more than 512 MiB; lower memory or give a worker more <memory>" ]
	# 512 MB: two of 300M one after the other
	two 2 300M
	run "$WFRUN" -r r.xml wf.yaml
	[ "$status" -eq 0 ]
	run ! overlaps
	# an SSH worker without <memory> is not limited (never connected: check)
	cat >r2.xml <<'EOF'
<resources>
  <worker name="far" host="192.0.2.1"><cores>2</cores><workdir>/w</workdir></worker>
</resources>
EOF
	two 1 100T
	run "$WFRUN" check -r r2.xml wf.yaml
	[ "$status" -eq 0 ]
}

@test "memory: a task over its memory is reported with its peak" {
	wf <<'EOF'
tasks:
  - name: hog
    memory: 40M
    run: "dd if=/dev/zero of=/dev/null bs=100M count=1 2>/dev/null; exit 3"
EOF
	# without cgroups memory is only reserved, however the kernel is
	WFRUN_NO_CGROUP=1 run "$WFRUN" wf.yaml
	[ "$status" -eq 1 ]
	[[ "$output" == *"error: task 'hog' failed with exit status 3 and was over its memory: peak 10"[0-9]" MiB of 40 MiB"* ]]
	[ "$(trace_col peak_rss_kb)" -gt 102400 ]
	[ "$(trace_col status)" = FAILED ]
}

@test "memory: a task that passed its memory and succeeded is warned about once" {
	wf <<'EOF'
tasks:
  - name: hog
    foreach: {i: "1..2"}
    memory: 40M
    out: {o: "h{i}"}
    run: "dd if=/dev/zero of=/dev/null bs=100M count=1 2>/dev/null && touch {out.o}"
EOF
	WFRUN_NO_CGROUP=1 run "$WFRUN" -j 1 wf.yaml
	[ "$status" -eq 0 ]
	[ "$(grep -c 'used more memory than it reserves: peak 10[0-9] MiB of 40 MiB' <<<"$output")" -eq 1 ]
	[ -e h1 ]
	[ -e h2 ]
}

# The run's cgroup is made under wfrun's own: the memory controller must be
# among that cgroup's (cgroup v2), or be a v1 hierarchy wfrun can write
# (hybrid mode, as on this kind of machine), for a limit per task.
enforced() {
	local cg mnt
	cg=$(sed -n 's/^0:://p' /proc/self/cgroup)
	mnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	if [ -n "$mnt" ] && grep -qw memory "$mnt$cg/cgroup.controllers" 2>/dev/null; then
		return 0
	fi
	grep -q ':memory:/' /proc/self/cgroup || return 1
	[ -w /sys/fs/cgroup/memory ]
}

# Where the kernel offers a memory limit per task it ends the task at its
# memory; where it does not, memory is only reserved, and the run says the
# task went over it.  Each machine checks what it can do; WFRUN_NO_CGROUP
# shows the second everywhere.
@test "memory: a task over its memory is ended by the kernel where it can, or else warned about" {
	wf <<'EOF'
tasks:
  - name: hog
    memory: 40M
    run: "dd if=/dev/zero of=/dev/null bs=300M count=1 2>/dev/null"
EOF
	WFRUN_NO_CGROUP=1 run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"warning: task 'hog' used more memory than it reserves: peak "*" MiB of 40 MiB"* ]]
	[ "$(trace_col status)" = COMPLETED ]
	rm -rf .wfrun
	run "$WFRUN" wf.yaml
	if ! enforced; then
		echo "# no memory controller for wfrun's cgroups here: reserved only" >&3
		[ "$status" -eq 0 ]
		return 0
	fi
	[ "$status" -eq 1 ]
	[[ "$output" == *"error: task 'hog' was over its memory: peak "*" of 40 MiB (the kernel ended it at its memory (its cgroup's memory limit))"* ]]
	[ "$(trace_col status)" = OUT_OF_MEMORY ]
}

@test "memory: sim reserves it too" {
	wf <<'EOF'
tasks:
  - name: c
    foreach: {i: "1..2"}
    memory: 600M
    out: {o: "c{i}"}
    run: "true"
EOF
	printf 'task c seconds 10\n' >m.txt
	run "$WFRUN" sim -m m.txt -j 2 --memory 1G wf.yaml
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "makespan 20.000 s: "* ]]
	run "$WFRUN" sim -m m.txt -j 2 --memory 2G wf.yaml
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "makespan 10.000 s: "* ]]
	run "$WFRUN" sim -m m.txt -j 2 --memory 500M wf.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"task 'c' asks for 600 MiB of memory but no worker has more than 500 MiB"* ]]
}

@test "memory: an SSH worker's <memory> holds tasks back there too" {
	local c=$BATS_TEST_TMPDIR/c
	cluster_up "$c" 1
	sed -i 's|<cores>2</cores>|<cores>2</cores><memory unit="MB">512</memory>|' "$c/cluster.xml"
	mkdir -p "$c/shared/t"
	cd "$c/shared/t"
	two 2 300M
	run "$WFRUN" -r "$c/cluster.xml" wf.yaml
	"$TESTCLUSTER" down -q "$c"
	[ "$status" -eq 0 ]
	[ "$(trace_col worker | sort -u)" = w1 ]
	run ! overlaps
}
