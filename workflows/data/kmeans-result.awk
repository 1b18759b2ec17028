# kmeans-result.awk c1.txt c2.txt ...: the centres of each iteration, in
# order.  Prints "iteration I moved M" for each I > 1 (M: the largest move
# of one centre since iteration I - 1), then "converged at iteration I"
# (the first whose move is below 1e-6) or "not converged", then the final
# centres, "centre X Y".  Files after the one that converged are not
# read: a run that converged earlier than the one before it may leave
# that run's later centres in place.
function done_file() {
	if (it > 1) {
		printf "iteration %d moved %.6g\n", it, m
		if (m < 1e-6 && !conv) conv = it
	}
}
FNR == 1 { if (it) done_file(); if (conv) { stop = 1; exit } it++; m = 0 }
{
	if (it > 1) {
		d = sqrt(($1 - x[FNR]) ^ 2 + ($2 - y[FNR]) ^ 2)
		if (d > m) m = d
	}
	x[FNR] = $1; y[FNR] = $2; k = FNR
}
END {
	if (!stop) done_file()
	if (conv) print "converged at iteration", conv
	else print "not converged"
	for (j = 1; j <= k; j++) print "centre", x[j], y[j]
}
