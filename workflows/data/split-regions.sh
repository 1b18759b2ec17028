#!/bin/sh
# split-regions.sh REF.fa.fai N DIR: cut the reference whose samtools faidx
# index is REF.fa.fai into N pieces of about equal length (a contig shorter
# than a piece is one piece), written DIR/r001, DIR/r002, ... in
# reference order, each holding one region "contig:start-end" (1-based,
# inclusive) for bcftools -r.  For calling.yaml.
set -eu
fai=$1 n=$2 dir=$3
mkdir -p "$dir"
awk -v n="$n" -v dir="$dir" '
	{ name[NR] = $1; len[NR] = $2; total += $2 }
	END {
		piece = int((total + n - 1) / n)
		for (i = 1; i <= NR; i++)
			for (start = 1; start <= len[i]; start += piece) {
				end = start + piece - 1
				if (end > len[i])
					end = len[i]
				f = sprintf("%s/r%03d", dir, ++k)
				print name[i] ":" start "-" end > f
				close(f)
			}
	}' "$fai"
