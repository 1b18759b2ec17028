# Sourced by slurm-alloc.sh and slurm-jobs.sh: checks $WFRUN (made
# absolute), makes a scratch directory $tmp under $BENCH_TMP (kept with
# KEEP=1) and starts a Slurm cluster of $NODES nodes of $CPUS CPUs in it
# (tests/cluster/slurmcluster, $SC), with SLURM_CONF exported; on exit the
# cluster goes down and the scratch goes.  $1 names the benchmark.
[ -x "$WFRUN" ] || { echo "$1.sh: no wfrun binary at $WFRUN (run make, or set WFRUN)" >&2; exit 2; }
WFRUN=$(cd "$(dirname "$WFRUN")" && pwd)/$(basename "$WFRUN")
mkdir -p "$BENCH_TMP"
tmp=$(mktemp -d "$BENCH_TMP/$1.XXXXXX")
cleanup() {
	"$SC" down -q "$tmp/cluster" || true
	[ -n "${KEEP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT
"$SC" up -q --nodes "$NODES" --cpus "$CPUS" "$tmp/cluster"
export SLURM_CONF=$tmp/cluster/slurm.conf
