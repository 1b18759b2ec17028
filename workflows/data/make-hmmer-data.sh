#!/bin/sh
# make-hmmer-data.sh OUTDIR FAMILIES BACKGROUND SEED: small, made-up protein
# data for hmmer.yaml, so nothing is downloaded.
#   OUTDIR/families.sto  FAMILIES Stockholm alignments (fam1, fam2, ...),
#                        each of 12 members that differ from a random
#                        ancestor at about 15% of the positions
#   OUTDIR/seqs.fa       BACKGROUND random proteins, and for each family
#                        3 planted homologs (hit_famJ_N, about 25% of
#                        positions changed) between random flanks
#   OUTDIR/planted.txt   "hit_famJ_N famJ" for every planted homolog
# hmmsearch finds each planted homolog with its family's profile; random
# background sequences score far below the reporting threshold.
set -eu
out=$1 nfam=$2 nbg=$3 seed=$4
mkdir -p "$out"
awk -v out="$out" -v nfam="$nfam" -v nbg="$nbg" -v seed="$seed" '
function aa() { return substr("ACDEFGHIKLMNPQRSTVWY", int(rand() * 20) + 1, 1) }
function rnd(n,   s, i) { s = ""; for (i = 0; i < n; i++) s = s aa(); return s }
function mutate(s, rate,   r, i, c) {
	r = ""
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		r = r (rand() < rate ? aa() : c)
	}
	return r
}
function fasta(f, name, s,   i) {
	print ">" name > f
	for (i = 1; i <= length(s); i += 60)
		print substr(s, i, 60) > f
}
BEGIN {
	srand(seed)
	sto = out "/families.sto"; fa = out "/seqs.fa"; pl = out "/planted.txt"
	printf "" > sto; printf "" > fa; printf "" > pl
	n = 0
	for (j = 1; j <= nfam; j++) {
		anc = rnd(90 + int(rand() * 40))
		print "# STOCKHOLM 1.0" > sto
		print "#=GF ID fam" j > sto
		for (m = 1; m <= 12; m++)
			printf "fam%d_m%-3d %s\n", j, m, mutate(anc, 0.15) > sto
		print "//" > sto
		for (h = 1; h <= 3; h++) {
			fasta(fa, "hit_fam" j "_" h, rnd(20 + int(rand() * 60)) mutate(anc, 0.25) rnd(20 + int(rand() * 60)))
			print "hit_fam" j "_" h, "fam" j > pl
		}
		# background between families, so fragments mix both kinds
		for (b = 0; b < nbg / nfam; b++)
			fasta(fa, "bg" ++n, rnd(100 + int(rand() * 200)))
	}
	while (n < nbg)
		fasta(fa, "bg" ++n, rnd(100 + int(rand() * 200)))
}'
