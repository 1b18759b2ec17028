#!/usr/bin/env bats
# Repeat blocks (wfrun-workflow(5), REPEAT): tasks run again, iteration
# after iteration, until a command says they converged or max is reached.
load helper

# countdown STOP MAX: v0 holds 10; each iteration writes v{iter} one less
# than v{prev}; converged once it is <= STOP; "last" gathers what every
# iteration wrote.  Iteration 2 sleeps while the file "slow" exists.
countdown() {
	wf <<EOF2
tasks:
  - name: start
    out: {v: v0.txt}
    run: "echo 10 > {out.v}"
  - repeat:
      until: "test \$(cat v{iter}.txt) -le $1"
      max: $2
      tasks:
        - name: step
          in: {p: "v{prev}.txt"}
          out: {v: "v{iter}.txt"}
          run: "if [ {iter} = 2 ] && [ -e slow ]; then sleep 30; fi; echo \$(( \$(cat {in.p}) - 1 )) > {out.v}"
        - {name: log, in: {v: "v{iter}.txt"}, out: {l: "log/{iter}.txt"},
           run: "echo iteration {iter} after {prev}: \$(cat {in.v}) > {out.l}"}
  # every log the iterations wrote
  - {name: last, out: {r: result.txt}, run: "cat {in.all} > {out.r}",
     in: {all: {list: "{f}", foreach: {f: {glob: "log/*.txt"}}}}}
EOF2
}

# iterations N: the run made exactly N iterations (v{N} = 10 - N, no
# v{N+1}), and "last" gathered the N logs.
iterations() {
	[ "$(cat "v$1.txt")" -eq $((10 - $1)) ]
	[ ! -e "v$(($1 + 1)).txt" ]
	[ "$(wc -l < result.txt)" -eq "$1" ]
}

@test "a repeat block stops once its until command exits 0, before max" {
	countdown 7 5
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"the repeat block of 'step', 'log' converged after 3 iterations"* ]]
	iterations 3
	grep -qx 'iteration 3 after 2: 7' result.txt
	# the trace tags each task with its iteration
	run trace_col tag
	[ "$(grep -c '^iter=' <<<"$output")" -eq 6 ]
	grep -qx 'iter=3,prev=2' <<<"$output"
	run trace_col name
	[ "$(tail -n 1 <<<"$output")" = last ]
	# and the events say each iteration and how the block ended
	[ "$(grep -c '"ev":"iteration","name":"step","iter":[23]}' .wfrun/events.jsonl)" -eq 2 ]
	grep -q '"ev":"repeated","name":"step","iter":3,"end":"converged"}' .wfrun/events.jsonl
}

@test "reaching max is a warning: the run goes on with the last iteration" {
	countdown 0 4
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"warning: the repeat block of 'step', 'log' did not converge in 4 iterations (its max)"* ]]
	iterations 4
	grep -q '"ev":"repeated","name":"step","iter":4,"end":"max"}' .wfrun/events.jsonl
}

@test "an until command that fails stops the run; nothing after the block runs" {
	countdown 7 5
	sed -i 's/until: .*/until: "exit 3"/' wf.yaml
	run "$WFRUN" wf.yaml
	[ "$status" -ne 0 ]
	[[ "$output" == *"its until command exited with 3 after iteration 1"* ]]
	[[ "$output" == *"not expanded, so not run: last (see the errors above)"* ]]
	[ -e v1.txt ]
	[ ! -e v2.txt ]
	[ ! -e result.txt ]
}

@test "a rerun after a complete run runs nothing; -n says so" {
	countdown 7 5
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	run "$WFRUN" -n wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"# 8 of them up to date: not run"* ]]
	[[ "$output" != *pending* ]]
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"0 tasks done"*"8 up to date"* ]]
	# a stricter until: the iterations made stay, two more run
	sed -i 's/-le 7"/-le 5"/' wf.yaml
	run "$WFRUN" -n wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"# 7 of them up to date: not run"* ]]
	[[ "$output" == *"# 'step' (iter=4,prev=3)"* ]]
	[[ "$output" != *"(iter=3,prev=2)"* ]]
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"converged after 5 iterations"*"5 tasks done"*"7 up to date"* ]]
	iterations 5
}

@test "-n shows the first iteration and how the block is repeated" {
	countdown 7 5
	run "$WFRUN" -n wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"# 'step' (iter=1,prev=0)"* ]]
	[[ "$output" != *"iter=2"* ]]
	[[ "$output" == *"# 'last' pending: repeated until \`test \$(cat v{iter}.txt) -le 7\` exits 0, at most 5 times"* ]]
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"at most 5 times"* ]]
}

@test "kill -9 in the middle of an iteration, then a rerun resumes it" {
	countdown 7 5
	touch slow
	"$WFRUN" -q wf.yaml 3>&- &
	pid=$!
	# iteration 1 recorded, iteration 2's step asleep: then kill it
	wait_until grep -q 'log/1.txt' .wfrun/journal
	kill -9 "$pid"
	wait "$pid" || true
	rm slow
	grep -q 'log/1.txt' .wfrun/journal
	[ ! -e v2.txt ]
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"converged after 3 iterations"* ]]
	run trace_col tag
	[[ "$output" != *'iter=1'* ]]
	grep -qx 'iter=2,prev=1' <<<"$output"
	iterations 3
}

@test "a repeat block is checked: max and until given, iter and prev its own" {
	wf <<'EOF2'
tasks:
  - repeat:
      tasks:
        - name: a
          foreach: {iter: "1..2"}
          out: {o: "a{iter}"}
          run: "touch {out.o}"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -ne 0 ]
	for m in "repeat has no max" "repeat has no until" \
		 "foreach key 'iter' of task 'a' is the repeat block's own"; do
		grep -qF "error: $m" <<<"$output"
	done
	# until sees vars, iter and prev, no task's parameters
	wf <<'EOF2'
tasks:
  - repeat:
      until: "test -s {in.x} {nokey}"
      max: 2
      tasks: [{name: a, in: {x: a}, run: "true"}]
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"{in.x}: parameters cannot be used here, only vars, {iter} and {prev}"* ]]
	[[ "$output" == *"unknown placeholder {nokey}"* ]]
}

# The until command runs beside the tasks, not in place of the loop: here
# it waits for a file that only a task ending while it runs can make.  A
# runner that waited for it could not start that task: the until would
# time out (exit 124) and the run fail.
@test "the until command runs beside the tasks: one that ends meanwhile starts the next" {
	wf <<'EOF2'
tasks:
  - {name: a, out: {o: a.out}, run: "sleep 1; touch {out.o}"}
  - {name: b, in: {i: a.out}, out: {o: flag}, run: "touch {out.o}"}
  - repeat:
      until: "timeout 20 sh -c 'while [ ! -e flag ]; do sleep 0.05; done'"
      max: 3
      tasks:
        - {name: step, out: {o: "s{iter}"}, run: "touch {out.o}"}
EOF2
	run "$WFRUN" -j 2 wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"converged after 1 iteration"* ]]
	[ -e flag ]
	[ -e s1 ]
	[ ! -e s2 ]
}

@test "the until command runs once per iteration, not before the first one" {
	wf <<'EOF2'
tasks:
  - repeat:
      until: "echo {iter} >> until.log; test -e s2"
      max: 5
      tasks:
        - {name: step, out: {o: "s{iter}"}, run: "touch {out.o}"}
EOF2
	run "$WFRUN" wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"converged after 2 iterations"* ]]
	[ "$(cat until.log)" = "$(printf '1\n2')" ]
}

@test "Ctrl-C while an until command runs stops it too" {
	wf <<'EOF2'
tasks:
  - repeat:
      until: "echo $$ > until.pid; exec sleep 60"
      max: 3
      tasks:
        - {name: step, out: {o: "s{iter}"}, run: "touch {out.o}"}
EOF2
	"$WFRUN" -q wf.yaml 3>&- &
	pid=$!
	wait_until test -s until.pid
	kill -INT "$pid"
	wait "$pid" || status=$? # (not `run wait`: run's subshell has no child)
	[ "${status:-0}" -eq 130 ]
	# the until's shell (exec'd into sleep) is gone
	upid=$(cat until.pid)
	wait_until sh -c "! kill -0 $upid 2>/dev/null"
}
