#!/usr/bin/env bash
# contain.sh [N [REPEATS]] - what containment costs per task: N trivial
# tasks ("touch out/f<i>", 2 slots) run by wfrun with a cgroup per task
# (the default where the kernel offers it) and with WFRUN_NO_CGROUP (the
# process-group fallback), and, when WFRUN_BASE names a wfrun built
# without containment, by that one too.  Runs are interleaved (rep 1 of
# every variant, then rep 2, ...) so that the load of a shared machine
# hits all alike; each is checked (status 0, N files).  Printed: wall and
# CPU (user+sys of wfrun and its tasks) per run, then the median of each
# variant and its ratio to the first.  CPU is the figure to trust on a
# loaded machine: wall time there measures the other users.
#
#   WFRUN       wfrun binary (default: ../wfrun relative to this script)
#   WFRUN_BASE  optional: a wfrun without containment, for comparison
#   BENCH_TMP   parent of the scratch directory (default bench/out)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WFRUN=${WFRUN:-$here/../wfrun}
N=${1:-2000}
REPEATS=${2:-3}
mkdir -p "${BENCH_TMP:-$here/out}"
scratch=$(mktemp -d "${BENCH_TMP:-$here/out}/contain.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

cat >"$scratch/wf.yaml" <<EOF
tasks:
  - name: t
    foreach: {i: "1..$N"}
    out: {f: "out/f{i}"}
    run: "touch {out.f}"
EOF

variants=(cgroup nocgroup)
[ -z "${WFRUN_BASE:-}" ] || variants+=(base)

# one VARIANT REP: run it; print "wall cpu".
one() {
	local v=$1 dir="$scratch/$1.$2" bin=$WFRUN env=()
	mkdir "$dir"
	cp "$scratch/wf.yaml" "$dir/"
	case $v in
	nocgroup) env=(WFRUN_NO_CGROUP=1) ;;
	base) bin=$WFRUN_BASE ;;
	esac
	local TIMEFORMAT='%R %U %S' t
	t=$( { time env -C "$dir" "${env[@]}" "$bin" -q -j 2 wf.yaml >/dev/null 2>&1; } 2>&1)
	[ "$(find "$dir/out" -type f | wc -l)" -eq "$N" ] ||
		{ echo "contain.sh: $v run $2 made the wrong number of files" >&2; exit 1; }
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' <<<"$t"
}

echo "containment cost: $N tasks (touch one file each), 2 slots, $REPEATS repeats"
echo "date: $(date -Is)   load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "wfrun: $WFRUN${WFRUN_BASE:+   base: $WFRUN_BASE}"
declare -A walls cpus
for ((r = 1; r <= REPEATS; r++)); do
	for v in "${variants[@]}"; do
		read -r w c < <(one "$v" "$r")
		printf 'rep %d/%d  %-9s %8.3f s wall %8.3f s cpu\n' "$r" "$REPEATS" "$v" "$w" "$c"
		walls[$v]+="$w "
		cpus[$v]+="$c "
	done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-9s %10s %10s %12s %10s\n' variant wall_s cpu_s cpu_us/task cpu_ratio
c0=$(median <<<"${cpus[cgroup]}")
for v in "${variants[@]}"; do
	w=$(median <<<"${walls[$v]}")
	c=$(median <<<"${cpus[$v]}")
	awk -v v="$v" -v w="$w" -v c="$c" -v c0="$c0" -v n="$N" \
		'BEGIN { printf "%-9s %10.3f %10.3f %12.1f %10.3f\n", v, w, c, c / n * 1e6, c / c0 }'
done
