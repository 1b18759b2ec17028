#!/usr/bin/env bats
# cores: {cores} in a command is the number a task is given; cores:
# {max, min} and --scale-cores give a task asking for more than every
# worker has the most one has (a warning once per task), and below min
# it is an error.
load helper

# max8: wf.yaml with one task of up to 8 cores that writes {cores} to b.
max8() {
	wf <<'EOF'
tasks:
  - name: big
    cores: {max: 8}
    out: {o: b}
    run: "echo {cores} > {out.o}"
EOF
}

@test "cores: {cores} says a task's cores, in run and in env" {
	wf <<'EOF'
tasks:
  - name: t
    cores: 3
    out: {o: t}
    env: {N: "n={cores}"}
    run: "echo {cores} $N > {out.o}"
  - {name: one, out: {o: one}, run: "echo {cores} > {out.o}"}
EOF
	run "$WFRUN" -j 4 wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat t)" = "3 n=3" ]
	[ "$(cat one)" = 1 ]
	[ "$(trace_col cores | sort | tr '\n' ' ')" = "1 3 " ]
}

@test "cores: a var or foreach key named cores is that value" {
	wf <<'EOF'
vars: {cores: many}
tasks:
  - name: t
    cores: 2
    out: {o: t}
    run: "echo {cores} > {out.o}"
EOF
	run "$WFRUN" -j 2 wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat t)" = many ]
}

@test "cores: {max, min} is scaled to the most a worker has, with one warning" {
	wf <<'EOF'
tasks:
  - name: big
    foreach: {i: "1..2"}
    cores: {max: 8, min: 2}
    out: {o: "b{i}"}
    run: "echo {cores} > {out.o}"
EOF
	run "$WFRUN" -j 3 wf.yaml
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "wf.yaml:4:12: warning: task 'big' asks for 8 cores and is given 3, the most a worker has" ]
	[ "$(grep -c warning <<<"$output")" -eq 1 ]
	[ "$(cat b1 b2 | tr '\n' ' ')" = "3 3 " ]
	[ "$(trace_col cores | sort -u)" = 3 ]
	# under its max: as asked, no warning
	rm -rf .wfrun b1 b2
	run "$WFRUN" -j 16 wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" != *warning* ]]
	[ "$(cat b1)" = 8 ]
}

@test "cores: -n shows the command with the cores given" {
	max8
	run "$WFRUN" -n -j 2 wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"echo 2 > b"* ]]
}

@test "cores: fewer than min is an error naming the task" {
	wf <<'EOF'
tasks:
  - name: big
    cores: {max: 8, min: 4}
    out: {o: b}
    run: "echo {cores} > {out.o}"
EOF
	run "$WFRUN" check -j 3 wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wf.yaml:3:12: error: task 'big' needs at least 4 cores (cores: {min: 4}) but only 3 are available" ]
	run "$WFRUN" -j 3 wf.yaml
	[ "$status" -eq 2 ]
	[ ! -e b ]
	run "$WFRUN" check -j 4 wf.yaml
	[ "$status" -eq 0 ]
}

@test "cores: --scale-cores scales plain cores; without it, more than a worker has is an error" {
	wf <<'EOF'
tasks:
  - name: big
    cores: 6
    out: {o: b}
    run: "echo {cores} > {out.o}"
EOF
	run "$WFRUN" -j 2 wf.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"task 'big' asks for 6 cores but only 2 are available; lower cores or raise -j"* ]]
	run "$WFRUN" check -j 2 --scale-cores wf.yaml
	[ "$status" -eq 0 ]
	run "$WFRUN" -j 2 --scale-cores wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"warning: task 'big' asks for 6 cores and is given 2, the most a worker has"* ]]
	[ "$(cat b)" = 2 ]
}

@test "cores: a worker's <cores> in the resources file bounds the scaling" {
	cat >r.xml <<'EOF'
<resources>
  <worker name="here" host="localhost"><cores>2</cores></worker>
</resources>
EOF
	wf <<'EOF'
tasks:
  - name: big
    cores: {max: 4}
    out: {o: b}
    run: "echo {cores} > {out.o}"
EOF
	run "$WFRUN" -r r.xml wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat b)" = 2 ]
}

@test "cores: a bad cores mapping is an error at its line" {
	printf '%s\n' tasks: "  - {name: a, run: 'true', cores: {min: 2}}" \
		"  - {name: b, run: 'true', cores: {max: 2, min: 3}}" \
		"  - {name: c, run: 'true', cores: {max: 2, mn: 1}}" >wf.yaml
	run --separate-stderr "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	diff - <(printf '%s\n' "$stderr") <<'EOF'
wf.yaml:2:35: error: cores as a mapping needs max, the most cores the task can use: {max: 8, min: 2}
wf.yaml:3:35: error: cores' min (3) is more than its max (2)
wf.yaml:4:44: error: unknown key 'mn' in cores; did you mean 'min'?
wfrun: 3 errors in wf.yaml; nothing was run
EOF
}

@test "cores: a task given other cores by a later run is still up to date" {
	max8
	run "$WFRUN" -j 3 wf.yaml
	[ "$status" -eq 0 ]
	run "$WFRUN" -j 2 wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"1 of 1 tasks are up to date"* ]]
	[[ "$output" == *"0 tasks done"* ]]
	[ "$(cat b)" = 3 ]
}

@test "cores: scaled when an SSH worker without <cores> says how many it has" {
	local c=$BATS_TEST_TMPDIR/c n
	cluster_up "$c" 1
	sed -i 's|<cores>2</cores>||' "$c/cluster.xml"
	mkdir -p "$c/shared/t"
	cd "$c/shared/t"
	wf <<'EOF'
tasks:
  - name: big
    cores: {max: 100000, min: 1}
    out: {o: b}
    run: "echo {cores} > {out.o}"
EOF
	run "$WFRUN" -r "$c/cluster.xml" wf.yaml
	"$TESTCLUSTER" down -q "$c"
	[ "$status" -eq 0 ]
	n=$(nproc)
	[[ "$output" == *"warning: task 'big' asks for 100000 cores and is given $n, the most a worker has"* ]]
	[ "$(cat b)" = "$n" ]
	[ "$(trace_col cores)" = "$n" ]
}
