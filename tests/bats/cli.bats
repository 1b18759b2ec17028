#!/usr/bin/env bats
# The command line: subcommands, options, help and exit statuses.
load helper

hello() {
	wf <<'EOF2'
name: hello
tasks:
  - name: greet
    foreach: {who: [world, moon]}
    out: {f: "greet/{who}.txt"}
    run: "echo hello {who} > {out.f}"
EOF2
}

@test "--help describes every command and exits 0" {
	run "$WFRUN" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"usage: wfrun [run] [options] WORKFLOW.yaml"* ]]
	[[ "$output" == *"check"* && "$output" == *"dag"* ]]
	[[ "$output" == *"--dry-run"* && "$output" == *"--keep-going"* && "$output" == *"--trace FILE"* ]]
}

@test "--version prints the version" {
	run "$WFRUN" --version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^wfrun\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
}

@test "no arguments is a usage error (exit 2)" {
	run "$WFRUN"
	[ "$status" -eq 2 ]
	[[ "$output" == *"usage:"* ]]
}

@test "an unknown option is a usage error" {
	hello
	run "$WFRUN" --frobnicate wf.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"unrecognized option"* ]]
}

@test "a missing workflow file names the file" {
	run "$WFRUN" nope.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"nope.yaml: error: cannot read: No such file or directory"* ]]
}

@test "wfrun FILE is wfrun run FILE" {
	hello
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$output" = "" ]
	[ "$(cat greet/world.txt)" = "hello world" ]
	rm -r greet
	run "$WFRUN" run -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat greet/moon.txt)" = "hello moon" ]
}

@test "-j must be a positive number" {
	hello
	run "$WFRUN" -j 0 wf.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"-j/--cores wants a number of cores >= 1, not '0'"* ]]
	run "$WFRUN" --cores=x wf.yaml
	[ "$status" -eq 2 ]
}

@test "-n prints the commands in program order and runs nothing" {
	hello
	run "$WFRUN" -n wf.yaml
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "# 'greet' (who=world)" ]
	[ "${lines[2]}" = "echo hello world > greet/world.txt" ]
	[ "${lines[4]}" = "echo hello moon > greet/moon.txt" ]
	[ ! -e greet ]
	[ ! -e .wfrun ]
}

@test "check prints a summary: instances per name, edges, inputs" {
	echo data >input.txt
	wf <<'EOF2'
name: summary
tasks:
  - name: split
    foreach: {i: "1..3"}
    in: {src: input.txt}
    out: {part: "p{i}"}
    run: "cp {in.src} {out.part}"
  - name: join
    in: {parts: {list: "p{i}", foreach: {i: "1..3"}}}
    out: {all: all.txt}
    run: "cat {in.parts} > {out.all}"
EOF2
	run "$WFRUN" check wf.yaml
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "wf.yaml: ok" ]
	[[ "$output" == *"task instances: 4"* ]]
	[[ "$output" == *"  split 3"* ]]
	[[ "$output" == *"  join  1"* ]]
	[[ "$output" == *"edges: 3"* ]]
	[[ "$output" == *"inputs that must exist: 1"*"  input.txt"* ]]
	[ ! -e p1 ]
}

@test "dag prints instances, --names one node per task name" {
	echo x >in.txt
	wf <<'EOF2'
name: g
tasks:
  - name: a
    foreach: {i: "1..2"}
    in: {x: in.txt}
    out: {y: "y{i}"}
    run: "cp {in.x} {out.y}"
  - name: b
    in: {ys: {list: "y{i}", foreach: {i: "1..2"}}}
    out: {z: z}
    run: "cat {in.ys} > {out.z}"
EOF2
	run "$WFRUN" dag wf.yaml
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 'digraph "g" {' ]
	[[ "$output" == *'t1 [label="a\ni=1"];'* ]]
	[[ "$output" == *"t1 -> t3;"* && "$output" == *"t2 -> t3;"* ]]
	run "$WFRUN" dag --names wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *'n1 [label="a\n2 tasks"];'* ]]
	[[ "$output" == *'n2 [label="b"];'* ]]
	[ "$(grep -c -- '->' <<<"$output")" -eq 1 ]
}

@test "-v prints each task start and end; -q prints nothing" {
	hello
	run "$WFRUN" -v -j 1 wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"wfrun: start 'greet' (who=world): echo hello world > greet/world.txt"* ]]
	[[ "$output" == *"wfrun: done 'greet' (who=moon) in "* ]]
	[[ "$output" == *"wfrun: 2 tasks done in "* ]]
}

@test "--trace writes the trace where asked" {
	hello
	run "$WFRUN" -q --trace my/trace.tsv wf.yaml
	[ "$status" -eq 0 ]
	[ -f my/trace.tsv ]
	[ "$(wc -l <my/trace.tsv)" -eq 3 ]
	[ ! -e .wfrun/trace.tsv ]
}

@test "workdir is relative to the workflow file" {
	mkdir sub
	wf sub/wf.yaml <<'EOF2'
workdir: results
tasks:
  - name: t
    out: {f: here.txt}
    run: "pwd > {out.f}"
EOF2
	run "$WFRUN" -q sub/wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat sub/results/here.txt)" = "$PWD/sub/results" ]
	[ -f sub/results/.wfrun/trace.tsv ]
}

@test "options may follow the workflow file" {
	hello
	run "$WFRUN" wf.yaml -q -j 1
	[ "$status" -eq 0 ]
	[ "$output" = "" ]
	[ -f greet/moon.txt ]
}

@test "a program found through a relative PATH entry runs from the workdir" {
	mkdir bin sub
	printf '#!/bin/sh\necho mine > "$1"\n' >bin/myprog
	chmod +x bin/myprog
	wf sub/wf.yaml <<'EOF2'
tasks:
  - name: t
    out: {f: o.txt}
    run: "myprog {out.f}"
EOF2
	PATH="bin:$PATH" run "$WFRUN" -q sub/wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat sub/o.txt)" = mine ]
}

@test "every long option of every command's --help is in wfrun(1)" {
	all=
	for c in run check dag sim probe report; do
		run "$WFRUN" "$c" --help
		[ "$status" -eq 0 ]
		all="$all$output"
	done
	missing=
	for o in $(grep -o -- '--[a-z][a-z-]*' <<<"$all" | sort -u); do
		grep -qF -- "$(sed 's/-/\\-/g' <<<"$o")" "$WFRUN_TOP/man/wfrun.1" ||
			missing="$missing $o"
	done
	[ -z "$missing" ] || { echo "not in man/wfrun.1:$missing"; false; }
}

@test "-v counts only the tasks that run, not those up to date" {
	hello
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	sed -i 's/world, moon/world, moon, sun/' wf.yaml
	run "$WFRUN" -v -j 1 wf.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"wfrun: 2 of 3 tasks are up to date"* ]]
	[[ "$output" == *"wfrun: running 1 task of 'hello' in $PWD"$'\n'* ]]
	[[ "$output" == *"wfrun: 1 task done in "*", 2 up to date"* ]]
}

@test "a misspelt command is said, not taken for a workflow file" {
	hello
	run "$WFRUN" chek wf.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wfrun: error: unknown command 'chek'; did you mean check?" ]
	run "$WFRUN" help chek
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wfrun: error: unknown command 'chek'; did you mean check?" ]
	# a file of that name is a workflow, as is any other word
	cp wf.yaml chek
	run "$WFRUN" -q chek
	[ "$status" -eq 0 ]
	[ -f greet/moon.txt ]
	run "$WFRUN" nosuch
	[ "$status" -eq 2 ]
	[[ "$output" == *"nosuch: error: cannot read: No such file or directory"* ]]
}

@test "wfrun COMMAND --help prints that command's help; version prints the version" {
	run "$WFRUN" sim --help
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "usage: wfrun sim -m MODEL [-r FILE] [options] WORKFLOW.yaml" ]
	[[ "$output" == *"--registry FILE"* ]]
	[[ "$output" != *"--dry-run"* ]]
	[ "${#lines[@]}" -lt 40 ]
	run "$WFRUN" help probe
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "usage: wfrun probe [--size MB] [-j WRITERS] [DIR]" ]
	[[ "$output" == *"-j, --writers N"* ]]
	run "$WFRUN" report -o x.html -h
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "usage: wfrun report "* ]]
	run "$WFRUN" version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^wfrun\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
}

# The options a command's --help lists (first column: -x, --long).
help_opts() {
	local h
	h=$("$WFRUN" "$1" --help)
	awk '/^  (-[a-zA-Z]|    --)/ {
		for (i = 1; i <= NF && $i ~ /^-/; i++) { sub(/,$/, "", $i); print $i } }' <<<"$h" |
		grep -vxE -- '-h|--help|-V|--version' | sort -u
}

# The options the parser of a command takes: its getopt_long table and
# short-option string in the source (cmd_NAME in cmd/).
parser_opts() {
	local body
	body=$(awk -v f="^cmd_$1\\\\(" '$0 ~ f {on = 1} on; on && /^}/ {exit}' "$WFRUN_TOP"/cmd/*.c)
	[ -n "$body" ] || { echo "no cmd_$1 in cmd/" >&2; return 1; }
	{
		sed -n 's/^[[:space:]]*{ "\([a-z-]*\)", [a-z_]*, NULL, .*/--\1/p' <<<"$body"
		grep -A1 'struct cli_spec spec = {' <<<"$body" | sed -n '2s/^[[:space:]]*"\([^"]*\)".*/\1/p' |
			tr -d ':' | grep -o . | sed 's/^/-/'
	} | sort -u
}

@test "every command's --help lists exactly the options its parser takes" {
	cmds=$("$WFRUN" --help | awk '/^commands:/ {on = 1; next} on && /^$/ {exit} on {print $1}')
	[[ "$cmds" == *sim* && "$cmds" == *report* ]]
	bad=
	for c in $cmds; do
		p=$(parser_opts "$c") || { bad="$bad $c(no parser)"; continue; }
		h=$(help_opts "$c")
		d=$(diff <(echo "$p") <(echo "$h") | grep '^[<>]' | tr '\n' ' ') || true
		[ -z "$d" ] || bad="$bad $c: $d (< parser only, > help only);"
	done
	[ -z "$bad" ] || { echo "$bad"; false; }
}

@test "wfrun(1): each command is an entry of COMMANDS; no option another command takes says 'For run only'" {
	man="$WFRUN_TOP/man/wfrun.1"
	entries=$(awk '/^\.SH/ {on = ($0 == ".SH COMMANDS")} on && prev == ".TP" {print $2} {prev = $0}' "$man")
	for c in run check dag sim probe report version help; do
		grep -qx "$c" <<<"$entries" || { echo "no .TP entry for $c"; false; }
	done
	run_only=$(awk '/^\.SH/ {on = ($0 == ".SH OPTIONS")}
		on && /^\.TP/ {getline tag}
		on && p2 == "For" && p1 == ".B run" && $0 == "only." {print tag}
		{p2 = p1; p1 = $0}' "$man" | grep -o -- '\\-\\-[a-z\\-]*' | sed 's/\\//g')
	[[ "$run_only" == *--forceall* ]]
	others=
	for c in check dag sim probe report; do
		others="$others $("$WFRUN" "$c" --help)"
	done
	wrong=
	for o in $run_only; do
		if grep -qE -- "(^|[ ,])$o( |$)" <<<"$others"; then wrong="$wrong $o"; fi
	done
	[ -z "$wrong" ] || { echo "'For run only' but another command takes:$wrong"; false; }
}

@test "an option's value before the command is not taken for the command" {
	for c in run check dag sim probe report; do
		run "$WFRUN" "$c" --help
		[ "$status" -eq 0 ]
		# the options whose help line names a value (FILE, N, A|B)
		for o in $(awk '/^  (-[a-zA-Z]|    --)/ { n = 0
			for (i = 1; i <= NF && $i ~ /^-/; i++) { sub(/,$/, "", $i); o[++n] = $i }
			if ($i ~ /^[A-Z]/ || $i ~ /\|/) for (k = 1; k <= n; k++) print o[k] }' <<<"$output"); do
			run "$WFRUN" "$o" dag --help
			[ "$status" -eq 0 ]
			[ "${lines[0]}" != "usage: wfrun dag [--names] [--format dot|mermaid] WORKFLOW.yaml" ] ||
				{ echo "$c $o: its value was taken for the command"; false; }
		done
	done
}
