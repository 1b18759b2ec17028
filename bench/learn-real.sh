#!/usr/bin/env bash
# storage_bw: auto against the best static constraint on a real
# congestible device (bench/congestdev, through bench/congest.sh), for
# several laws of the family aggregate(k) = min(k r1, B f(k)), f = 1 up
# to the knee k0, then 1 / (1 + alpha (k - k0)) (issue 23).  For each law
# and shape: the baseline, a static sweep around the law's optimum and
# its fill point (STATIC_KS of the law below), auto's first run, and its
# second from the registry the first kept.  Needs root.
#
# Usage: bench/learn-real.sh [LAW...]; environment: WFRUN, WORKFLOWS
# (default "hmmer variant kmeans3"), WORKERS (1; 3: three SSH workers
# sharing the device as one <storage>), and congest.sh's knobs.
# Laws (B = 200 MiB/s):
#   best7    knee 6, alpha 0.5, r1 20: best 7 (not a power of two), the
#            fill point 10 past it
#   k1steep  knee 1, alpha 0.5, r1 40: best 3, the fill point 5 past it
#   knee8    knee 8, alpha 0.05, r1 25: best 8 = the fill point
#   nocap    knee 4, alpha 0.3, no per-writer cap: one writer fills B
# Prints congest.sh's tables, one per law.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export WFRUN=${WFRUN:-$here/../build/wfrun}
export WORKFLOWS=${WORKFLOWS:-hmmer variant kmeans3}
export DEVICES=${DEVICES:-congest} PHASES=${PHASES:-sweep}
export VARIANTS=${VARIANTS:-baseline static auto auto2}
export KMEANS_P=${KMEANS_P:-8}
[ $# -gt 0 ] || set -- best7 k1steep knee8 nocap
for law in "$@"; do
	case $law in
	best7) k0=6 a=0.5 r1=20 ks="5 6 7 8 10" ;;
	k1steep) k0=1 a=0.5 r1=40 ks="2 3 4 5" ;;
	knee8) k0=8 a=0.05 r1=25 ks="6 7 8 9 10" ;;
	nocap) k0=4 a=0.3 r1=0 ks="1 2 4 6" ;;
	*) echo "learn-real.sh: unknown law $law" >&2; exit 2 ;;
	esac
	echo "# law $law: B 200, knee $k0, alpha $a, r1 $r1"
	CD_K0=$k0 CD_ALPHA=$a CD_R1=$r1 STATIC_KS=${STATIC_KS:-$ks} \
		"$here/congest.sh"
done
