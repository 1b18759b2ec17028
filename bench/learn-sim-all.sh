#!/usr/bin/env bash
# storage_bw: auto in wfrun sim over all the rows RESULTS §41 to §47
# compare (issue 23): the 9 sets of bench/learn-sim-sets.sh, and for
# each of the five lists of 24 laws drawn in §33 to §36 and §40, sets 3,
# 4 and 9 (N=64, 32 and 16), 10 and 11 (N=12 and 20: waves of the 8
# cores and a partial one) and 8 Kmeans-1 checkpoints on 2 cores: 1858
# rows (1378 before §54 added sets 10 and 11: LIST_SETS="3 4 9" runs
# those alone).  Each table is kept in OUTDIR (sets/, L33/ ... L40/); compare
# two such directories with bench/learn-sim-diff.py.
#
# Usage: bench/learn-sim-all.sh [WFRUN [OUTDIR]]; the environment goes
# to bench/learn-sim.sh: MB=136 MB_JITTER=0.88 for checkpoints of 16 to
# 256 MB (the "sized" rows), nothing for those of 64 MB; SETS, the
# nine sets to run (learn-sim-sets.sh's: all), and LISTS, the lists
# (all five: L33 L34 L35 L36 L40); LIST_SETS, the sets run for each
# list (default "3 4 9 10 11").  About 30 minutes on two cores (60
# with two sweeps at once).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
WFRUN=${1:-${WFRUN:-$here/../build/wfrun}}
out=${2:-$(mktemp -d)}
mkdir -p "$out"

# the five lists (RESULTS §33: seed 7341; §34: the hold-out, 51205;
# §35: 61206; §36: 71206; §40: 20261206)
L33="k7-a1-r0 k7-a0.1-r25 k7-a0.05-r25 k12-a1.5-r0 k5-a0.2-r12 k12-a0.5-r25 k13-a0.3-r60 k3-a1-r30 k5-a0.8-r100 k3-a0.3-r0 k2-a0.5-r30 k10-a0.3-r16 k13-a0.05-r60 k5-a1-r60 k11-a0.05-r40 k12-a0.05-r25 k8-a1.5-r60 k12-a0.2-r8 k10-a0.5-r30 k10-a0.3-r60 k12-a0.05-r20 k7-a0.3-r40 k9-a0.5-r60 k5-a0.2-r100"
L34="k11-a0.2-r60 k10-a1-r0 k10-a0.5-r0 k7-a0.3-r0 k6-a0.3-r25 k7-a0.8-r20 k4-a1-r16 k13-a1-r30 k6-a0.2-r25 k10-a0.8-r25 k2-a1-r0 k7-a0.1-r0 k8-a0.3-r0 k6-a1-r100 k8-a0.8-r100 k8-a0.05-r16 k5-a0.8-r100 k10-a0.5-r8 k3-a0.3-r12 k12-a0.2-r40 k14-a1.5-r12 k1-a0.1-r40 k8-a0.8-r30 k12-a0.5-r0"
L35="k11-a0.05-r30 k9-a0.3-r20 k4-a1.5-r0 k3-a1-r60 k1-a0.2-r25 k12-a0.8-r25 k8-a0.3-r0 k1-a0.05-r20 k6-a0.05-r8 k5-a0.05-r30 k6-a0.1-r20 k9-a0.3-r30 k1-a1.5-r0 k11-a1-r20 k11-a1.5-r60 k13-a0.2-r12 k4-a0.8-r30 k6-a0.1-r0 k1-a0.8-r8 k13-a0.5-r20 k10-a0.3-r25 k13-a0.5-r100 k4-a0.05-r25 k4-a0.5-r30"
L36="k4-a0.1-r30 k12-a0.3-r12 k10-a0.5-r100 k8-a0.8-r100 k13-a0.2-r20 k13-a0.1-r60 k11-a0.1-r0 k8-a0.1-r16 k3-a1-r8 k1-a0.3-r16 k14-a0.5-r40 k1-a0.1-r16 k2-a0.1-r100 k13-a0.3-r0 k5-a0.3-r100 k5-a0.2-r0 k11-a0.05-r100 k6-a0.8-r12 k8-a0.8-r25 k8-a0.3-r8 k4-a0.5-r25 k2-a0.5-r40 k2-a0.8-r8 k7-a0.8-r40"
L40="k10-a0.1-r20 k11-a0.8-r60 k13-a0.8-r30 k12-a0.3-r0 k8-a0.5-r0 k8-a1.5-r25 k14-a0.2-r30 k12-a0.5-r30 k4-a0.3-r12 k2-a0.5-r12 k7-a0.8-r60 k1-a1.5-r0 k12-a0.3-r12 k10-a0.5-r60 k9-a0.3-r20 k12-a0.1-r16 k8-a0.1-r60 k14-a0.1-r8 k7-a0.1-r20 k8-a1-r40 k7-a0.2-r0 k14-a0.05-r12 k10-a0.05-r0 k13-a0.5-r16"

lists=${LISTS:-L33 L34 L35 L36 L40}
for l in $lists; do
	case $l in
	L33 | L34 | L35 | L36 | L40) ;;
	*) echo "learn-sim-all.sh: no list $l (L33 L34 L35 L36 L40)" >&2; exit 2 ;;
	esac
done

"$here/learn-sim-sets.sh" "$WFRUN" "$out/sets" >"$out/sets.sum"
for l in $lists; do
	laws=${!l}
	SETS=${LIST_SETS:-3 4 9 10 11} LAWS_RANDOM="$laws" "$here/learn-sim-sets.sh" "$WFRUN" "$out/$l" >"$out/$l.sum"
	CORES=2 TIME_SCALE=0.25 N=8 SHAPES=kmeans1 LAWS="$laws" \
		"$here/learn-sim.sh" "$WFRUN" >"$out/$l/c2.md"
done
python3 "$here/learn-sim-diff.py" "$out"
echo "tables: $out"
