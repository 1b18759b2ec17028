# Sourced by dispatch.sh and scale.sh: a scratch directory $tmp under
# $BENCH_TMP (kept with KEEP=1), removed on exit, and a private copy of
# $WFRUN in it, so a rebuild during the benchmark cannot mix binaries
# ($wfrun_src keeps the original path).  $1 names the directory.
mkdir -p "$BENCH_TMP"
tmp=$(mktemp -d "$BENCH_TMP/$1.XXXXXX")
cleanup() {
	if [ "${KEEP:-0}" = 1 ] || [ -e "$tmp/keep" ]; then
		echo "scratch kept in $tmp" >&2
	else
		rm -rf "$tmp"
		rmdir "$BENCH_TMP" 2>/dev/null || true
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wfrun_src=$WFRUN
cp "$WFRUN" "$tmp/wfrun"
WFRUN=$tmp/wfrun
