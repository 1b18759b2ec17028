#!/usr/bin/env bats
# Placeholders are always shell-quoted: hostile paths and values can
# neither break a command nor inject one.
load helper

hostile_names() {
	printf '%s\n' 'with space' "it's" 'dq"uote' '$(touch INJECTED)' '`touch INJECTED`' \
		'semi;touch INJECTED' 'pipe|x' 'amp&x' 'star*' '-dash' 'back\slash' 'brace{x}'
}

@test "hostile file names as inputs and outputs, through the shell" {
	mkdir in
	while IFS= read -r n; do printf '%s' "$n" >"in/$n"; done < <(hostile_names)
	wf <<'EOF2'
tasks:
  - name: copy
    foreach: {f: {glob: "in/*"}}
    in: {src: "{f}"}
    out: {dst: "out/{f}.copy"}
    run: "cat {in.src} > {out.dst} && echo done >&2"
EOF2
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ ! -e INJECTED ]
	while IFS= read -r n; do
		[ "$(cat "out/in/$n.copy")" = "$n" ]
	done < <(hostile_names)
	[ "$(ls out/in | wc -l)" -eq 12 ]
}

@test "hostile values without a shell (argv path)" {
	wf <<'EOF2'
vars: {evil: "$(touch INJECTED); `touch INJECTED` 'q' \"d\""}
tasks:
  - name: t
    foreach: {i: ["a b", "$HOME"]}
    out: {f: "o/{i}"}
    run: "touch {out.f}"
  - name: u
    out: {f: "v.txt"}
    run: "printf %s,%s {evil} {out.f}"
EOF2
	run "$WFRUN" -q wf.yaml
	# printf writes to stdout: the log, not a file; the output is missing
	[ "$status" -eq 1 ]
	[ -e "o/a b" ]
	[ -e 'o/$HOME' ]
	[ ! -e INJECTED ]
	[ "$(cat .wfrun/logs/u.out)" = "\$(touch INJECTED); \`touch INJECTED\` 'q' \"d\",v.txt" ]
}

@test "a newline in a path cannot start a new command" {
	mkdir in
	printf 'x' >"in/a
touch INJECTED"
	wf <<'EOF2'
tasks:
  - name: copy
    foreach: {f: {glob: "in/*"}}
    in: {src: "{f}"}
    out: {dst: "{f}.out"}
    run: "cp {in.src} {out.dst}; echo ok"
EOF2
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ ! -e INJECTED ]
	[ -e "in/a
touch INJECTED.out" ]
}

@test "dry run shows the quoted command" {
	wf <<'EOF2'
vars: {msg: "it's $(bad)"}
tasks:
  - name: t
    out: {f: "my file.txt"}
    run: "echo {msg} > {out.f}"
EOF2
	run "$WFRUN" -n wf.yaml
	[ "$status" -eq 0 ]
	[ "${lines[2]}" = "echo 'it'\\''s \$(bad)' > 'my file.txt'" ]
}

@test "{{ and }} are literal braces" {
	wf <<'EOF2'
tasks:
  - name: t
    out: {f: sum.txt}
    run: "printf '1\\n2\\n' | awk '{{s += $1}} END {{print s}}' > {out.f}"
EOF2
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat sum.txt)" = 3 ]
}

@test "env values are passed unquoted, placeholders expanded" {
	wf <<'EOF2'
vars: {threads: 3}
tasks:
  - name: t
    out: {f: "e v.txt"}
    env: {NT: "{threads}", WHERE: "{out.f}"}
    run: "echo \"$NT $WHERE\" > \"$WHERE\""
EOF2
	run "$WFRUN" -q wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat 'e v.txt')" = "3 e v.txt" ]
}
