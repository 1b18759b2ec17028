# Shared by the bats suites: each test runs in its own temporary directory.
: "${WFRUN:?set WFRUN to the wfrun binary (tests/run-all does)}"

setup() {
	cd "$BATS_TEST_TMPDIR" || exit 1
}

# mine PATTERN: how many processes match PATTERN (pgrep -f) and belong to
# this test run: their working directory is under this run's TMPDIR (where
# tests/run-all puts every test directory and cluster), or they are SSH
# sessions of one of its test clusters (TESTCLUSTER_WORKDIR under it).
# Other runs of the suite on the same machine are not counted.
mine() {
	local p n=0 root=${TMPDIR:-/tmp}
	for p in $(pgrep -f "$1"); do
		case "$(readlink "/proc/$p/cwd" 2>/dev/null)" in
		"$root"/*) n=$((n + 1)); continue ;;
		esac
		tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null |
			grep -q "^TESTCLUSTER_WORKDIR=$root/" && n=$((n + 1))
	done
	echo "$n"
}

# wf FILE <<EOF ... EOF: write a workflow file from stdin.
wf() {
	cat >"${1:-wf.yaml}"
}

# The trace column named $1 for every row, one per line.
trace_col() {
	awk -F'\t' -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } { print $k }' "${2:-.wfrun/trace.tsv}"
}

# cluster_up DIR OPTIONS... N: start testcluster workers with a shared
# workdir and write DIR/cluster.xml with one 2-core worker per host.
cluster_up() {
	local dir=$1
	shift
	: "${TESTCLUSTER:?set TESTCLUSTER to shared/testcluster/testcluster}"
	"$TESTCLUSTER" up -q --shared "$@" "$dir" || return 1
	{
		echo '<resources>'
		while read -r n h p u k wd; do
			echo "  <worker name=\"$n\" host=\"$h\" port=\"$p\" user=\"$u\">"
			echo "    <cores>2</cores>"
			echo "    <workdir shared=\"true\">$wd</workdir>"
			echo "    <ssh identity=\"$k\" known-hosts=\"$dir/known_hosts\"/>"
			echo "  </worker>"
		done <"$dir/hosts"
		echo '</resources>'
	} >"$dir/cluster.xml"
}

# Each test in its own directory of the cluster's shared workdir.
cluster_setup() {
	W="$C/shared/t$BATS_TEST_NUMBER"
	mkdir -p "$W"
	cd "$W" || exit 1
}
