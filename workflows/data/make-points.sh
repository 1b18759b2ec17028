#!/bin/sh
# make-points.sh OUT K N SIGMA SEED: N points in the plane around K centres for
# kmeans.yaml.  Centre j is at (10 j, 10 (3 j mod 7)), the
# points are Gaussian around it (standard deviation SIGMA), and point i belongs to centre
# i mod K, so the first K points are one per cluster (kmeans.yaml starts
# from them).  OUT.centres gets the true centres, one "x y" a line.
set -eu
out=$1 k=$2 n=$3 sigma=$4 seed=$5
awk -v k="$k" -v n="$n" -v sigma="$sigma" -v seed="$seed" -v out="$out" 'BEGIN {
	srand(seed)
	for (j = 0; j < k; j++) {
		cx[j] = 10 * j; cy[j] = 10 * ((3 * j) % 7)
		print cx[j], cy[j] > (out ".centres")
	}
	for (i = 0; i < n; i++) {
		j = i % k
		# Box-Muller
		u = rand(); v = rand(); if (u < 1e-12) u = 1e-12
		r = sigma * sqrt(-2 * log(u))
		printf "%.4f %.4f\n", cx[j] + r * cos(6.283185307 * v), cy[j] + r * sin(6.283185307 * v) > out
	}
}'
