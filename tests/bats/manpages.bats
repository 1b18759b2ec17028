#!/usr/bin/env bats
# wfrun-workflow(5) has an entry for every key the parser accepts:
# the key names are read from src/workflow.c's own tables, so a key
# added to the parser without its entry in the page fails here.

setup() {
	TOP=${WFRUN_TOP:-$BATS_TEST_DIRNAME/../..}
}

# table START: the strings of the first table in src/workflow.c whose
# line holds START (e.g. `*const task_keys[] = {`), up to its `};`
table() {
	awk -v start="$1" '
		index($0, start) { on = 1 }
		on { s = $0
		     while (match(s, /"[a-z_]+"/)) {
			print substr(s, RSTART + 1, RLENGTH - 2)
			s = substr(s, RSTART + RLENGTH)
		     } }
		on && /};/ { exit }
	' "$TOP/src/workflow.c"
}

# keys ARRAY: the strings of `static const char *const ARRAY[]`
keys() { table "static const char *const $1[] = {"; }

# missing PAGE ARRAY...: the keys of the arrays with no .B/.TP/.I line in PAGE
missing() {
	local page=$1 a k
	shift
	for a in "$@"; do
		for k in $(keys "$a"); do
			grep -Eq "^\.(B|BR|I|IR|TP|IP) \"?$k([^a-z_]|\$)" "$page" ||
				echo "$a: $k"
		done
	done
}

@test "the key tables of src/workflow.c are found" {
	[ "$(keys task_keys | wc -l)" -ge 15 ]
	[ "$(keys top_keys | wc -l)" -ge 5 ]
	keys task_keys | grep -qx run
	keys top_keys | grep -qx tasks
}

@test "wfrun-workflow(5) has an entry for every top-level and task key" {
	run missing "$TOP/man/wfrun-workflow.5" top_keys task_keys
	[ "$status" -eq 0 ]
	[ -z "$output" ] || { echo "keys without an entry: $output" >&2; return 1; }
}

@test "a key removed from wfrun-workflow(5) is reported" {
	sed '/^\.B storage_bw/d; /^\.TP.*storage_bw/d; /^\.BR\{0,1\} "\{0,1\}storage_bw/d' \
		"$TOP/man/wfrun-workflow.5" > "$BATS_TEST_TMPDIR/page.5"
	run missing "$BATS_TEST_TMPDIR/page.5" task_keys
	[ "$output" = "task_keys: storage_bw" ]
}

# form_keys FIRST: the strings of the local `keys[]` table that starts with
# "FIRST" (the forms {dir: ..}, {table: ..}, log: {out: ..}, cores: {max: ..})
form_keys() { table "static const char *const keys[] = { \"$1\""; }

# no_example PAGE: the entries (.TP, then the key) of TOP-LEVEL KEYS and
# TASK KEYS for a key of top_keys or task_keys whose text shows no use of
# it ("KEY:" with a value), as "section: key"
no_example() {
	{ keys top_keys | sed 's/^/top /'; keys task_keys | sed 's/^/task /'; } |
	awk '
		FILENAME == "-" { want[$1 " " $2] = 1; next }
		/^\.SH TOP-LEVEL KEYS/ { sec = "top"; next }
		/^\.SH TASK KEYS/ { flush(); sec = "task"; next }
		/^\.SH/ { flush(); sec = ""; next }
		!sec { next }
		(prev == ".TP" || prev == ".TQ") && /^\.B[IR]? / {
			# the keys an entry line names: .B k, .BR in ", " out, .BI "log: " P
			l = $0; sub(/^\.B[IR]? /, "", l); gsub(/"[^a-z_"]*"/, " ", l)
			gsub(/[":]/, " ", l); n = split(l, w, " "); got = ""
			for (i = 1; i <= n; i++)
				if ((sec " " w[i]) in want) got = got " " w[i]
			if (got != "") {
				if (prev == ".TP") flush()
				keys_ = keys_ got
			}
		}
		{ prev = $0; text = text " " $0 }
		function flush(   n, i, k) {
			n = split(keys_, k, " ")
			for (i = 1; i <= n; i++) {
				seen[sec " " k[i]] = 1
				if (text !~ ("[ \"({]" k[i] ": *[^ ]")) print sec ": " k[i]
			}
			keys_ = ""; text = "" }
		END { flush(); for (x in want) if (!(x in seen)) print x " (no entry)" }
	' - "$1"
}

@test "every top-level and task key's entry in wfrun-workflow(5) shows it in use" {
	run no_example "$TOP/man/wfrun-workflow.5"
	[ "$status" -eq 0 ]
	[ -z "$output" ] || { echo "entries without an example: $output" >&2; return 1; }
	# and the check sees a missing one
	sed '/^\.B "timeout: 1h30m"$/d' "$TOP/man/wfrun-workflow.5" >"$BATS_TEST_TMPDIR/p.5"
	run no_example "$BATS_TEST_TMPDIR/p.5"
	[ "$output" = "task: timeout" ]
}

@test "wfrun-workflow(5) shows every key of the data, sheet, log and cores forms" {
	local f k miss=
	for f in dir table out max; do
		[ -n "$(form_keys $f)" ] || { echo "no table starting with $f" >&2; return 1; }
		for k in $(form_keys $f); do
			grep -Eq "^\.[A-Z]+ .*[{ \"]$k:" "$TOP/man/wfrun-workflow.5" ||
				miss="$miss $k"
		done
	done
	[ -z "$miss" ] || { echo "form keys not shown:$miss" >&2; return 1; }
}

# examples DIR: write each .EX block of wfrun-workflow(5) after SYNOPSIS that
# is a whole workflow (it has a `tasks:` line) to DIR/exN.yaml, roff
# escapes undone; a block meant to show an error would start with a
# `# error` comment line and is checked to fail instead (none so far);
# one that starts `# needs:` names software (an image, a module) that
# check must find missing, and nothing else wrong
examples() {
	awk -v dir="$1" '
		/^\.SH/ { body = ($0 !~ /SYNOPSIS/) }
		/^\.EX/ { on = body; n++; buf = ""; wf = 0; next }
		/^\.EE/ { if (on && wf) {
				f = dir "/ex" n ".yaml"; printf "%s", buf > f; close(f) }
			  on = 0; next }
		on { l = $0
		     gsub(/\\-/, "-", l); gsub(/\\\(aq/, "\047", l); gsub(/\\e/, "\\", l)
		     if (l ~ /^tasks:/) wf = 1
		     if (l ~ /[^\\]\\$/) { buf = buf substr(l, 1, length(l) - 1); next }
		     buf = buf l "\n" }
	' "$TOP/man/wfrun-workflow.5"
}

@test "the whole-workflow examples of wfrun-workflow(5) pass wfrun check" {
	local d="$BATS_TEST_TMPDIR/ex" f bad=
	mkdir -p "$d"
	examples "$d"
	[ "$(ls "$d" | wc -l)" -ge 2 ]
	for f in "$d"/*.yaml; do
		if head -1 "$f" | grep -q '^# error'; then
			if "$WFRUN" check "$f" >/dev/null 2>&1; then bad="$bad $f(accepted)"; fi
			continue
		fi
		# the inputs a user brings are made first, empty
		"$WFRUN" check "$f" >"$f.first" 2>&1 || true
		for p in $(sed -n "s/.*input '[a-z_]*' (\(.*\)) does not exist and no earlier task writes it\$/\1/p" "$f.first"); do
			mkdir -p "$d/$(dirname "$p")"
			: > "$d/$p"
		done
		# one that names software this machine lacks (`# needs:`): every
		# error check finds is about that software, none about the file
		if head -1 "$f" | grep -q '^# needs:'; then
			if "$WFRUN" check "$f" >"$f.out" 2>&1 ||
			   grep 'error:' "$f.out" | grep -Eqv 'module|image|engine'; then
				bad="$bad $f(needs)"
				cat "$f.out" >&2
			fi
			continue
		fi
		if ! "$WFRUN" check "$f" >"$f.out" 2>&1; then
			bad="$bad $f"
			cat "$f.out" >&2
		fi
	done
	[ -z "$bad" ] || { echo "examples rejected:$bad" >&2; return 1; }
}
