# Shared by the bats suites: each test runs in its own temporary directory.
: "${WFRUN:?set WFRUN to the wfrun binary (tests/run-all does)}"

setup() {
	cd "$BATS_TEST_TMPDIR" || exit 1
}

# wf FILE <<EOF ... EOF: write a workflow file from stdin.
wf() {
	cat >"${1:-wf.yaml}"
}

# The trace column named $1 for every row, one per line.
trace_col() {
	awk -F'\t' -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } { print $k }' "${2:-.wfrun/trace.tsv}"
}
