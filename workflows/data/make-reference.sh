#!/bin/sh
# make-reference.sh OUT.fa LENGTH SEED: a random DNA reference of one contig,
# chr1, LENGTH bases, 60 a line.  The same SEED gives the same sequence
# (with one awk; mawk and gawk draw differently).  For variants.yaml.
set -eu
out=$1 len=$2 seed=$3
awk -v len="$len" -v seed="$seed" 'BEGIN {
	srand(seed)
	print ">chr1"
	for (i = 0; i < len; i++) {
		printf "%s", substr("ACGT", int(rand() * 4) + 1, 1)
		if (i % 60 == 59 || i == len - 1)
			print ""
	}
}' >"$out"
