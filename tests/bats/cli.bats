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
	[[ "$output" == *"Try 'wfrun run --help'."* ]]
	run "$WFRUN" sim -x wf.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"Try 'wfrun sim --help'."* ]]
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
	helps=$(for c in run check dag sim probe report; do "$WFRUN" "$c" --help; done)
	[[ "$helps" == *"--registry FILE"* ]]
	missing=$(comm -23 <(grep -o -- '--[a-z][a-z-]*' <<<"$helps" | sort -u) \
		<(sed 's/\\-/-/g' "$WFRUN_TOP/man/wfrun.1" | grep -o -- '--[a-z][a-z-]*' | sort -u))
	[ -z "$missing" ] || { echo "not in man/wfrun.1:" $missing; false; }
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

# "COMMAND OPTION", one a line, for every option the --help of each
# command lists in its first column (-x, --long), but -h and -V.
help_opts() {
	local c
	for c in "$@"; do
		echo "== $c"
		"$WFRUN" "$c" --help
	done | awk '/^== / {c = $2} /^  (-[a-zA-Z]|    --)/ {
		for (i = 1; i <= NF && $i ~ /^-/; i++) {
			sub(/,$/, "", $i)
			if ($i !~ /^(-h|--help|-V|--version)$/) print c, $i } }' | sort -u
}

# The same for what the parser of each command takes: the getopt_long
# table and short-option string in the source of cmd_COMMAND in cmd/.
parser_opts() {
	awk -v cmds=" $* " 'FILENAME ~ /cli\.h$/ {
			if (match($0, /^#define CLI_[A-Z_]+/)) m = substr($0, 9, RLENGTH - 8)
			if (m != "" && match($0, /\{ "[a-z-]+", [a-z_]+, NULL/)) {
				split($0, q, "\""); macro[m] = macro[m] " --" q[2] }
			if ($0 !~ /\\$/) m = ""
			next
		}
		on && match($0, /^[ \t]*CLI_[A-Z_]+,?[ \t]*$/) {
			k = $0; gsub(/[ \t,]/, "", k); n = split(macro[k], o, " ")
			for (i = 1; i <= n; i++) print c, o[i]
		}
		/^cmd_[a-z]*\(/ {
			c = substr($0, 5, index($0, "(") - 5)
			if (index(cmds, " " c " ")) { on = 1; seen[c] = 1 }
		}
		on && match($0, /^[ \t]*\{ "[a-z-]+", [a-z_]+, NULL/) {
			split($0, q, "\""); print c, "--" q[2]
		}
		on && spec { split($0, q, "\""); gsub(/:/, "", q[2])
			for (i = 1; i <= length(q[2]); i++) print c, "-" substr(q[2], i, 1)
			spec = 0 }
		on && /struct cli_spec spec = \{/ { spec = 1 }
		on && /^}/ { on = 0 }
		END { n = split(cmds, a, " "); for (i = 1; i <= n; i++)
			if (!(a[i] in seen)) print a[i], "(no cmd_" a[i] " in cmd/)" }' \
		"$WFRUN_TOP"/cmd/cli.h "$WFRUN_TOP"/cmd/*.c | sort -u
}

@test "every command's --help lists exactly the options its parser takes" {
	cmds=$("$WFRUN" --help | awk '/^commands:/ {on = 1; next} on && /^$/ {exit} on {print $1}')
	[[ "$cmds" == *sim* && "$cmds" == *report* ]]
	p=$(parser_opts $cmds)
	h=$(help_opts $cmds)
	[[ "$p" == *"sim --registry"* && "$p" == *"run -n"* ]]
	d=$(diff <(echo "$p") <(echo "$h")) || { echo "< parser only, > help only:"; echo "$d"; false; }
}

@test "wfrun(1): each command is an entry of COMMANDS; no option another command takes says 'For run only'" {
	man="$WFRUN_TOP/man/wfrun.1"
	entries=$(awk '/^\.SH/ {on = ($0 == ".SH COMMANDS")} on && prev == ".TP" {print $2} {prev = $0}' "$man")
	for c in run check dag sim probe report log version help; do
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
	# every option whose help line names a value (FILE, N, A|B), each
	# with the value "dag": one taken for the command prints dag's help
	args=()
	for o in $(for c in run check dag sim probe report; do "$WFRUN" "$c" --help; done |
		awk '/^  (-[a-zA-Z]|    --)/ { n = 0
			for (i = 1; i <= NF && $i ~ /^-/; i++) { sub(/,$/, "", $i); o[++n] = $i }
			if ($i ~ /^[A-Z]/ || $i ~ /\|/) for (k = 1; k <= n; k++) print o[k] }' | sort -u); do
		args+=("$o" dag)
	done
	[ "${#args[@]}" -ge 40 ]
	run "$WFRUN" "${args[@]}" --help
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "usage: wfrun [run] [options] WORKFLOW.yaml [TARGET...]" ]
}

@test "every worker lost: 'N tasks could not run' leaves out those up to date" {
	wf <<'EOF2'
tasks:
  - name: a
    foreach: {i: "1..3"}
    out: {f: "a{i}"}
    run: "echo {i} > {out.f}; [ {i} -le 3 ] || while [ ! -e stop ]; do sleep 0.1; done"
EOF2
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	sed -i 's/1\.\.3/1..5/' wf.yaml
	# the one node of an allocation, whose agent is killed once a4 runs
	mkdir bin
	cat >bin/srun <<EOF2
#!/bin/sh
for a; do agent=\$a; done
(while [ ! -e "$PWD/a4" ]; do sleep 0.05; done; kill -9 \$\$) </dev/null >/dev/null 2>&1 &
exec "\$agent"
EOF2
	chmod +x bin/srun
	PATH="$PWD/bin:$PATH" SLURM_JOB_ID=1 SLURM_JOB_NODELIST=n1 SLURM_JOB_CPUS_PER_NODE=2 \
		run timeout 60 "$WFRUN" --slurm wf.yaml 3>&-
	touch stop # the tasks the agent left
	[ "$status" -eq 3 ]
	[[ "$output" == *"wfrun: 3 of 5 tasks are up to date"* ]]
	[[ "$output" == *"wfrun: error: every worker was lost; 2 tasks could not run"* ]]
}

# The bash completion of the words given (the last is completed, or the
# CWORDth) for $WFRUN: COMPREPLY, one a line.
complete_bash() {
	bash -c 'source "$1/cmd/completion/wfrun.bash"; shift
		COMP_WORDS=("$@"); COMP_CWORD=${CWORD:-$(($# - 1))}; _wfrun
		printf "%s\n" "${COMPREPLY[@]}"' _ "$WFRUN_TOP" "$WFRUN" "$@"
}

@test "bash completion: commands, each command's options and values, workflow files, task names" {
	hello
	run complete_bash ch
	[ "$status" -eq 0 ]
	[ "$output" = check ]
	run complete_bash -j 2 s
	[ "$output" = sim ]
	run complete_bash sim --re
	[ "$output" = $'--resources\n--registry' ]
	run complete_bash --fetch f
	[ "$output" = final ]
	run complete_bash dag --format = m
	[ "$output" = mermaid ]
	run complete_bash check w
	[ "$output" = wf.yaml ]
	# task names of the workflow on the line
	run complete_bash wf.yaml --force g
	[ "$output" = greet ]
	# the workflow may come after the word completed
	CWORD=3 run complete_bash -q --force "" wf.yaml
	[ "$output" = greet ]
}

# The zsh completion of the words given for $WFRUN, with compadd and
# _files stubbed: what each was given, one a line.
complete_zsh() {
	zsh -f -c 'compadd() { while [[ $1 == -* && $1 != -- ]]; do shift; done
			[[ $1 == -- ]] && shift; print -rl -- "$@"; }
		_files() { print -r -- "_files $*"; }
		compset() { :; }
		words=("${@:2}"); CURRENT=$#words
		source "$1/cmd/completion/_wfrun"' _ "$WFRUN_TOP" "$WFRUN" "$@"
}

@test "zsh completion parses and offers commands, options, values, task names" {
	command -v zsh >/dev/null || { echo "zsh is not installed: apt-get install -y zsh" >&2; return 1; }
	run zsh -n "$WFRUN_TOP/cmd/completion/_wfrun"
	[ "$status" -eq 0 ]
	hello
	run complete_zsh ""
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '%s\n' run check list dag sim probe report log version help '_files -g *.(yaml|yml)')" ]
	run complete_zsh probe --
	[ "$output" = "$(printf '%s\n' -s --size -j --writers -q --quiet -v --verbose -h --help)" ]
	run complete_zsh --learn=c
	[ "$output" = $'climb\npaper' ]
	run complete_zsh wf.yaml --force ""
	[ "$output" = greet ]
	run complete_zsh probe ""
	[ "$output" = "_files -/" ]
}
