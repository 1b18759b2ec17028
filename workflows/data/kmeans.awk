# kmeans.awk — the kernel of kmeans.yaml.  Partial sums are lines
# "cluster sum_x sum_y count"; a line of count 0 carries a centre that no
# point of its fragment was nearest to, "cluster x y 0", so that a centre
# no point chose anywhere stays where it was.
#
# mode=partial: every file but the last holds the partial sums of the
#   previous iteration (of every fragment); the centres are their totals
#   divided by their counts.  The last file is a fragment of points "x y":
#   each point goes to its nearest centre (ties: the lower cluster), and
#   the fragment's partial sums are printed.
# mode=centres: every file holds partial sums; print the centres, "x y"
#   in cluster order.
# mode=init: print the first k points of the file as partial sums of
#   count 1: the starting centres.
function centres(   j) {
	for (j in have)
		if (n[j] > 0) { cx[j] = sx[j] / n[j]; cy[j] = sy[j] / n[j] }
		else { cx[j] = zx[j]; cy[j] = zy[j] }
}
mode == "init" {
	if (FNR <= k) print FNR - 1, $1, $2, 1
	next
}
mode == "centres" || FILENAME != ARGV[ARGC - 1] {
	have[$1] = 1
	if ($4 > 0) { sx[$1] += $2; sy[$1] += $3; n[$1] += $4 }
	else { zx[$1] = $2; zy[$1] = $3 }
	next
}
{
	if (!started) { centres(); started = 1 }
	best = -1
	for (j in cx) {
		d = ($1 - cx[j]) ^ 2 + ($2 - cy[j]) ^ 2
		if (best < 0 || d < bd || (d == bd && j + 0 < best)) { best = j + 0; bd = d }
	}
	px[best] += $1; py[best] += $2; pn[best]++
}
END {
	if (mode == "init")
		exit
	if (!started) centres()
	for (j = 0; j in cx; j++)
		if (mode == "centres") printf "%.6f %.6f\n", cx[j], cy[j]
		else if (pn[j] > 0) printf "%d %.6f %.6f %d\n", j, px[j], py[j], pn[j]
		else printf "%d %.6f %.6f 0\n", j, cx[j], cy[j]
}
