# shellcheck shell=bash
# Sourced by ssh-stress.sh and ssh-wide.sh: a scratch directory $wd
# (under BENCH_TMP or bench/out; removed on exit unless KEEP), private
# copies of wfrun and wfrun-worker ($W), and NETNS_N non-shared testcluster
# workers in network namespaces ($C, stopped on exit; testcluster up
# options in NETNS_UP), with $wd/cluster.xml of NETNS_CORES (2) cores each.
mkdir -p "${BENCH_TMP:-$here/out}"
wd=$(mktemp -d "${BENCH_TMP:-$here/out}/$(basename "$0" .sh).XXXXXX")
C=$wd/c
cleanup() {
	"$TESTCLUSTER" down -q "$C" >/dev/null 2>&1 || true
	[ -n "${KEEP:-}" ] || rm -rf "$wd"
}
trap cleanup EXIT
cp "$WFRUN" "$wd/wfrun"
cp "$(dirname "$WFRUN")/wfrun-worker" "$wd/wfrun-worker"
W=$wd/wfrun
echo "# wfrun $(sha256sum "$W" | cut -c1-16)"
# shellcheck disable=SC2086 # NETNS_UP is a list of options
"$TESTCLUSTER" up -q --netns --no-fallback ${NETNS_UP:-} "$NETNS_N" "$C"
{
	echo '<resources>'
	while read -r n h p u k d; do
		echo "  <worker name=\"$n\" host=\"$h\" port=\"$p\" user=\"$u\">"
		echo "    <cores>${NETNS_CORES:-2}</cores><workdir shared=\"false\">$d</workdir>"
		echo "    <ssh identity=\"$k\" known-hosts=\"$C/known_hosts\"/>"
		echo "  </worker>"
	done <"$C/hosts"
	echo '</resources>'
} >"$wd/cluster.xml"

# Drop the data the workers hold (their agent stays installed).
workers_forget() {
	local d
	while read -r _ _ _ _ _ d; do
		rm -rf "$d/.wfrun/data" "$d/.wfrun/sandbox"
	done <"$C/hosts"
}
