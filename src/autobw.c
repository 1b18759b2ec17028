#include "autobw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

long
autobw_writers(double B, double c)
{
	if (!(c > 0) || !(B > 0))
		return 0;
	return (long)floor(B / c * (1 + AUTOBW_BW_TOL));
}

bool
autobw_fits(double B, double used, double c)
{
	return used + c <= B * (1 + AUTOBW_BW_TOL);
}

static long
concurrency(double B, double c)
{
	return autobw_writers(B, c);
}

static const struct autobw_entry *reg_find(const struct autobw *a, long k);
static double rate_of(const struct autobw *a, const struct autobw_entry *e);
static int bytes_known(const struct autobw *a);

/* climb: do kb writers, registered, write B (within CLIMB_GAIN)? */
static bool
writes_B(const struct autobw *a, long kb)
{
	const struct autobw_entry *b = reg_find(a, kb);
	return b && bytes_known(a) == 2 &&
	       rate_of(a, b) >= (1 - AUTOBW_CLIMB_GAIN) * a->B;
}

/* climb: how many more writers a stage adds above a best kb
 * (stage_first): half as many again.  (A quarter or one, then twice as
 * many at each stage, waited longer where the device lets them all
 * write B, and reached its knee past kb + 2 with as many too many: at
 * worst 3.3 and 3.5 % over the best static in the next run against
 * 3.2 on ten devices of knee 11 to 20 in wfrun sim.) */
static long
stage_step(long kb)
{
	long d = (kb + 1) / 2;
	return d < 1 ? 1 : d;
}

/* climb: the first stage of an epoch of k writers above a best kb that
 * writes B: more writers cannot write more, they are there to end the
 * tasks in fewer rounds, and on a device that congests above kb every
 * one of them slows them all.  So they join a stage at a time, kb and
 * half as many again, each stage's writers read (ramp_edge) before the
 * next joins: a device that slows them shows it with a few writers too
 * many, not all of them (knee 12, 20 MB/s a writer: 10 write B, and a
 * next run tried 16 at once to end 16 checkpoints in one round; they
 * wrote 91 MB/s for 0.4 s and 6 were stopped, +3.4 % over the best
 * static, 10, in wfrun sim; 15 first, +2.3 %).  0: no stages. */
static long
stage_first(const struct autobw *a)
{
	if (!a->climb || a->k < 3)
		return 0;
	long kb = autobw_best(a, NULL);
	if (kb < 2 || kb >= a->k || !writes_B(a, kb))
		return 0;
	long s = kb + stage_step(kb);
	return s < a->k ? s : 0;
}

static void
begin_epoch(struct autobw *a, double c)
{
	a->epoch++;
	a->c = c;
	a->k = concurrency(a->B, c);
	/* a climb's epoch streams two waves' worth through k places; one
	 * writer has nothing to overlap with */
	a->target = a->climb && a->k > 1 ? 2 * a->k : a->k;
	a->joined = a->finished = 0;
	a->partial = false;
	a->sum = 0;
	a->mb = 0;
	memset(&a->kpool, 0, sizeof(a->kpool));
	memset(&a->rpool, 0, sizeof(a->rpool));
	a->rj = 0;
	a->peak = 0;
	a->nseen = 0;
	a->stage = stage_first(a);
}

void
autobw_init(struct autobw *a, double B, long executors, bool bounded,
	    double min, double max, double delta)
{
	memset(a, 0, sizeof(*a));
	a->B = B;
	a->executors = executors > 0 ? executors : 1;
	a->bounded = bounded;
	a->min = min;
	a->max = max;
	a->delta = delta;
	a->phase = AUTOBW_LEARNING;
	double c0 = bounded ? min : B / (double)a->executors;
	if (concurrency(B, c0) < 1)
		c0 = B;
	begin_epoch(a, c0);
}

void
autobw_init_climb(struct autobw *a, double B, long executors, long cores)
{
	autobw_init(a, B, executors, false, 0, 0, 0);
	a->climb = true;
	a->cores = cores > 0 ? cores : 1;
	a->epoch = 0;
	begin_epoch(a, B); /* k = 1 */
}

void
autobw_release(struct autobw *a)
{
	free(a->reg);
	free(a->span);
	free(a->slot);
	free(a->seen);
	a->seen = NULL;
	a->nseen = 0;
	a->reg = NULL;
	a->span = NULL;
	a->slot = NULL;
	a->nreg = a->spancap = a->nslot = 0;
	a->flying = a->writing = 0;
}

bool
autobw_can_start(const struct autobw *a)
{
	if (a->phase == AUTOBW_LEARNED)
		return true;
	return a->joined - a->finished < (a->stage ? a->stage : a->k) &&
	       (a->joined < a->target ||
		(a->climb && a->k > 1 && !a->carry)); /* (autobw.h) */
}

long
autobw_joined(const struct autobw *a)
{
	return a->joined < a->target ? a->joined : a->target;
}

long
autobw_tasks(const struct autobw *a)
{
	return a->target;
}

double
autobw_constraint(const struct autobw *a)
{
	return a->phase == AUTOBW_LEARNED ? a->chosen : a->c;
}

int
autobw_epoch(const struct autobw *a)
{
	return a->phase == AUTOBW_LEARNED ? 0 : a->epoch;
}

void
autobw_started(struct autobw *a)
{
	if (a->phase == AUTOBW_LEARNING)
		a->joined++;
	if (autobw_wants_rate(a)) {
		/* its samples start afresh (one before it may have been
		 * lost with its worker) */
		a->s_have = 0;
		memset(&a->s_st, 0, sizeof(a->s_st));
		a->s_skipped = false;
	}
}

static void
reg_add(struct autobw *a, double c, long k, double t, double mbps,
	double pace, double err)
{
	a->reg = xrealloc(a->reg, (a->nreg + 1) * sizeof(*a->reg));
	a->reg[a->nreg++] = (struct autobw_entry){
		.c = c, .k = k, .t = t, .mbps = mbps, .pace = pace, .err = err,
	};
}

static void
finish_learning(struct autobw *a)
{
	a->phase = AUTOBW_LEARNED;
	/* With nothing registered, run unconstrained-but-fair: the first c.
	 * (A climb chooses for a wave of its last epoch's k: the one
	 * writer, carried, may be the last registered, and for one task
	 * one writer is as good as any; iopol chooses again for the tasks
	 * left.) */
	long n = a->climb ? a->k : a->nreg ? a->reg[a->nreg - 1].k : 0;
	a->chosen = a->nreg ? autobw_choose(a, n > 0 ? n : 1) : a->c;
}

static int
by_start(const void *x, const void *y)
{
	const struct autobw_span *p = x, *q = y;
	return (p->start > q->start) - (p->start < q->start);
}

/* S: the time at least one of the epoch's tasks was running. */
static double
busy_time(struct autobw *a)
{
	qsort(a->span, (size_t)a->finished, sizeof(*a->span), by_start);
	double S = 0, from = 0, to = 0;
	for (long i = 0; i < a->finished; i++) {
		const struct autobw_span *s = &a->span[i];
		if (i == 0 || s->start > to) {
			S += to - from;
			from = s->start;
			to = s->end;
		} else if (s->end > to) {
			to = s->end;
		}
	}
	return S + (to - from);
}

/* What a climb knows of the bytes of all its registered epochs: 0
 * nothing, 1 their MB/s (a registry kept by an earlier run), 2 also
 * each one's pace.  Then it ranks them by MB/s, not tasks/s: tasks of
 * one name may write 16 to 256 MiB each, and an epoch that drew small
 * ones is not faster for it. */
static int
bytes_known(const struct autobw *a)
{
	if (!a->climb || !a->nreg)
		return 0;
	int known = 2;
	for (size_t i = 0; i < a->nreg; i++) {
		if (!(a->reg[i].mbps > 0))
			return 0;
		if (!(a->reg[i].pace > 0))
			known = 1;
	}
	return known;
}

/* The one writer's pace: the rate its epoch registered (read while it
 * wrote, autobw_sample, when it was taken early; else its MB over its
 * time, the same as its pace), not its MB over its whole time.  A
 * writer whose rate was taken early runs on beside the next epoch's,
 * and its whole time counts their congestion (issue 23: 15 of its 40
 * MB/s alone, where 5 writers congested; the search took 4 writers to
 * be unable to win, and stopped at the fill point, 43 % over the best
 * static); or a device's first budget, which the rate passes over (on
 * congestdev's knee8, 26.5 MB/s over its whole time, 24.8 read: 8
 * writers at 195 MB/s did not keep that pace, and 7 were tried, 12 to
 * 18 % over the best static). */
static double
one_pace(const struct autobw_entry *one)
{
	return one->mbps > 0 ? one->mbps : one->pace;
}

/* What a climb maximises for the epoch of e: k times its pace (what its
 * k places write in a steady run: its MB over its busy time S also
 * counts the tail of the epoch where its last tasks, the larger ones,
 * run with fewer than k places busy, which made it up to 40 % slow with
 * tasks of 16 to 256 MB), else its MB/s, else tasks/s (k / t). */
static double
rate_of(const struct autobw *a, const struct autobw_entry *e)
{
	int known = bytes_known(a);
	/* (k times a pace is what k busy places would write: where tasks
	 * came too few to keep them busy, paces stayed high and more
	 * places "wrote" more than the device can, 466 and 699 MB/s of
	 * 200 for 4 and 8 on congestdev, and 8 were chosen for a device
	 * whose best was 1 to 4, 16 % over the best static.  No device
	 * writes more than its B: the fewest places that fill it win.) */
	if (known == 2 && e->k == 1)
		return fmin(one_pace(e), a->B);
	if (known == 2)
		return fmin((double)e->k * e->pace, a->B);
	if (known == 1)
		return e->mbps;
	return e->t > 0 ? (double)e->k / e->t : HUGE_VAL;
}

static const struct autobw_entry *
reg_find(const struct autobw *a, long k)
{
	for (size_t i = 0; i < a->nreg; i++)
		if (a->reg[i].k == k)
			return &a->reg[i];
	return NULL;
}

long
autobw_best(const struct autobw *a, double *c)
{
	/* from the least k up: more writers must earn their place */
	const struct autobw_entry *best = NULL;
	for (long k = 1; k <= a->executors; k++) {
		const struct autobw_entry *e = reg_find(a, k);
		if (e && (!best || rate_of(a, e) > rate_of(a, best) *
						  (1 + AUTOBW_CLIMB_GAIN)))
			best = e;
	}
	if (c)
		*c = best ? best->c : 0;
	return best ? best->k : 0;
}

long
autobw_climb_jump(long cores, long executors)
{
	long j = cores < 4 ? 4 : cores;
	return j < executors ? j : executors;
}

long
autobw_most_tried(const struct autobw *a)
{
	long most = 0;
	for (size_t i = 0; i < a->nreg; i++)
		if (a->reg[i].k > most)
			most = a->reg[i].k;
	return most;
}

bool
autobw_saturated(const struct autobw *a, const struct autobw_entry *e)
{
	return e && e->mbps >= (1 - AUTOBW_CLIMB_GAIN) * a->B;
}

static bool slowed_clearly(const struct autobw *a,
			   const struct autobw_entry *e);

bool
autobw_scaling(const struct autobw *a)
{
	long most = autobw_most_tried(a);
	const struct autobw_entry *m = reg_find(a, most);
	/* (a climb that stopped at its fill point bet on it: f writers at
	 * one writer's rate fill B; writers that clearly slowed one another
	 * say the device congests there, and more cannot gain: a kept
	 * registry of 1 writer at 16 MB/s and 6 at 36 was read as still
	 * scaling, and its next run ran 6, not the family's bound, 4, its
	 * first run's choice: +58 % over the best static in wfrun sim) */
	return most > 1 && most != a->fill && autobw_best(a, NULL) == most &&
	       !autobw_saturated(a, m) && !slowed_clearly(a, m);
}

/* climb: how many tasks become ready at once when each core ends one:
 * the device's cores, at most its executors. */
static long
wave_width(const struct autobw *a)
{
	return a->cores < a->executors ? a->cores : a->executors;
}

double
autobw_elsewhere(const struct autobw *a)
{
	double c;
	long best = autobw_best(a, &c);
	if (a->fill >= 2 && a->k <= a->fill && a->k > best)
		return a->c; /* the fill point is about B's worth */
	if (!best) {
		/* nothing known: as the baseline runs them, one per core */
		long k = wave_width(a);
		return a->B / (double)(k > 0 ? k : 1);
	}
	if (best >= 2 && best == autobw_most_tried(a) && a->k > best)
		return a->c;
	return c;
}

/* climb: did e's writers each keep the one writer's (one's) pace,
 * within CLIMB_GAIN, both paces known? */
static bool
at_pace(const struct autobw_entry *e, const struct autobw_entry *one)
{
	return e->pace > 0 && one->pace > 0 &&
	       e->pace >= (1 - AUTOBW_CLIMB_GAIN) * one_pace(one);
}

/* climb: did k writers, at or beyond the fill point, each keep the one
 * writer's pace (autobw_init_climb)? */
static bool
kept_pace(const struct autobw *a, long k)
{
	const struct autobw_entry *e = reg_find(a, k), *one = reg_find(a, 1);
	return a->fill >= 2 && k >= a->fill && e && one && at_pace(e, one);
}

/* climb: is e's epoch at or beyond the fill point (or measured in
 * flight, where its pace is its writers' own, not their start-up's),
 * and did its writers slow one another (each below the one writer's
 * pace by CLIMB_GAIN)?
 * Then the device congests there: k writers that fill B at one
 * writer's rate write at most B f(k) together, f falling with k, and
 * more cannot gain (issue 23: a fill point past the optimum was left by
 * 2 k, which the tasks left could not repay, and learning stopped
 * there, 43 % over the best static in wfrun sim). */
static bool
slowed(const struct autobw *a, const struct autobw_entry *e)
{
	const struct autobw_entry *one = reg_find(a, 1);
	return a->fill >= 2 && (e->k >= a->fill || e->flown) && one &&
	       one->pace > 0 && e->pace > 0 && !at_pace(e, one);
}

/* Does R, known within e (relative), fall clearly on one side of thr? */
static bool
clear_of(double R, double e, double thr)
{
	return !(thr > 0) || fabs(R - thr) > e * R;
}

/* climb: did e's writers slow one another (slowed), clearly: k times
 * their pace below 95 % of k times the one writer's by more than their
 * rate's error and the one writer's (on congestdev a one writer read at
 * 21.6 MB/s, 8 % fast, made best7's 6 writers at 118 MB/s "slowed",
 * where 6 x 20 is the law's 120 and 7 write 133)? */
static bool
slowed_clearly(const struct autobw *a, const struct autobw_entry *e)
{
	const struct autobw_entry *one = reg_find(a, 1);
	if (!slowed(a, e))
		return false;
	double R = (double)e->k * e->pace;
	return clear_of(R, e->err + one->err,
			(1 - AUTOBW_CLIMB_GAIN) * (double)e->k * one_pace(one));
}

/* climb: the bracket around the best k kb: lo, the most writers tried
 * below it or that cannot win (a writer is never faster than
 * alone, so k of them write at most k times the first epoch's rate,
 * and fewer writers win only by CLIMB_GAIN), and hi, the fewest tried
 * above it, or kb + 1 when none can gain (kb is all executors, or it
 * wrote at B), or 0 when none was tried. */
static void
bracket(const struct autobw *a, const struct autobw_entry *b, long *lo,
	long *hi)
{
	long kb = b->k;
	*lo = 0;
	*hi = 0;
	for (size_t i = 0; i < a->nreg; i++) {
		long k = a->reg[i].k;
		if (k < kb && k > *lo)
			*lo = k;
		if (k > kb && (!*hi || k < *hi))
			*hi = k;
	}
	const struct autobw_entry *one = reg_find(a, 1);
	if (one && rate_of(a, one) > 0 && kb > 1) {
		double m = floor(rate_of(a, b) /
				 (rate_of(a, one) * (1 + AUTOBW_CLIMB_GAIN)));
		long ml = m < (double)(kb - 1) ? (long)m : kb - 1;
		if (ml > *lo)
			*lo = ml;
	}
	bool closed = kb >= a->executors || autobw_saturated(a, b);
	if (!*hi && (closed || slowed(a, b)))
		*hi = kb + 1;
	/* (and when more were tried, if kb's writers clearly slowed one
	 * another: on a law of the family they write B f(kb), and f does
	 * not rise; congestdev's k1steep on three workers tried 4 after 3
	 * at 99 MB/s and 5 at 69, Kmeans-1 +21 % over the best static) */
	if (*hi > kb + 1 && (closed || slowed_clearly(a, b)))
		*hi = kb + 1;
}

static double climb_r1(const struct autobw *a);
static double rounds_time(const struct autobw *a, long k, long n,
			  double r1);
static double rounds_time_at(const struct autobw *a, long k, long n,
			     double r1, double R);
static double fall_rate(const struct autobw *a, long k, double r1);

/* climb: the wave of the cores, w, when k writers leave w mod k of each
 * wave to write after the others, too few to fill B at r1 each, and w
 * was never measured; else 0. */
static long
wave_count(const struct autobw *a, long k, double r1)
{
	long w = wave_width(a);
	return w > k && w % k && !reg_find(a, w) &&
			       (double)(w % k) * r1 <
				       (1 - AUTOBW_CLIMB_GAIN) * a->B
		       ? w
		       : 0;
}

/* climb: the count that ends n tasks piled up in a round fewer than k
 * places do, ceil(n / (c - 1)), when those take c >= 2 rounds and the
 * last, n mod k writers at r1 each, cannot fill B; else 0.  (Any c:
 * when it looked at 2 to 4 rounds only, knee 13, fall 0.5, 16 MB/s a
 * writer, 64 checkpoints on 8 cores: 12 kept pace at 192 MB/s, 13 write
 * 200, and 12 left the 64 to 6 rounds where 13 end them in 5, +5.4 %
 * over the best static, 13, in every run in wfrun sim; 0.0 % now.) */
static long
tail_count(const struct autobw *a, long k, long n, double r1)
{
	long c = n > k ? (n + k - 1) / k : 0;
	if (c < 2 || !(n % k) ||
	    (double)(n % k) * r1 >= (1 - AUTOBW_CLIMB_GAIN) * a->B)
		return 0;
	long k2 = (n + c - 2) / (c - 1);
	return k2 > k && k2 <= a->executors ? k2 : 0;
}

/* climb: above a bracketed best kb (its neighbours measured), the wave
 * of the cores, or the count that ends the name's tasks not yet ended
 * (pile) in a round fewer, when kb's rounds leave a last one too few to
 * fill B, the count was never measured, and its rounds, at the rate the
 * registry lets it hope for (rate_est: no slower than the most writers
 * registered), take CLIMB_GAIN less; else 0.  a->step says which.  (As
 * kept_pace_next's wave and tail, for a best below the fill point: knee
 * 5, 30 MB/s a writer, 16 samples aligned 8 at a time: 6 writers
 * write 180 MB/s, 7 write 182, and 6 chosen left 2 checkpoints of each
 * 8 to write after the others, +10.9 % over the best static, 8, in
 * wfrun sim, in every run.) */
static double arrive_time(const struct autobw *a, long k, long n,
			  double r1, double Rk);
static double rate_est(const struct autobw *a, long m, double r1);

/* climb: the name's n tasks not yet ended through k places at R (of
 * fewer, rate_est's): as they become ready (arrive_time) when that is
 * known, else all ready at once (rounds_time_at). */
static double
pile_time(const struct autobw *a, long k, long n, double r1, double R)
{
	double T = arrive_time(a, k, n, r1, R);
	return T >= 0 ? T : rounds_time_at(a, k, n, r1, R);
}

/* climb: do w writers, at Rk, end the name's tasks not yet ended
 * (pile) by a factor keep sooner than kb's places, as they become ready
 * (arrive_time); when that is not known, a wave of w of them ready at
 * once (rounds_time)? */
static bool
wave_sooner_than(const struct autobw *a, long w, double r1, double Rk,
		 long kb, double keep)
{
	double Tw = arrive_time(a, w, a->pile, r1, Rk),
	       Tb = arrive_time(a, kb, a->pile, r1, rate_est(a, kb, r1));
	if (Tw >= 0 && Tb >= 0)
		return Tw < keep * Tb;
	return rounds_time_at(a, w, w, r1, Rk) <
	       keep * rounds_time(a, kb, w, r1);
}

static long
above_step(struct autobw *a, long kb)
{
	double r1 = climb_r1(a), keep = 1 - AUTOBW_CLIMB_GAIN;
	if (!(r1 > 0))
		return 0;
	long w = wave_count(a, kb, r1);
	if (w && wave_sooner_than(a, w, r1, fall_rate(a, w, r1), kb, keep)) {
		a->step = "wave";
		return w;
	}
	long n = a->pile, k2 = tail_count(a, kb, n, r1);
	if (k2 && !reg_find(a, k2) &&
	    pile_time(a, k2, n, r1, fall_rate(a, k2, r1)) <
		    keep * pile_time(a, kb, n, r1, rate_est(a, kb, r1))) {
		a->step = "tail";
		return k2;
	}
	return 0;
}

/* climb: the search for the best k of any value (autobw_init_climb).
 * Returns the next k, or 0 when the bracket holds no k untried;
 * a->step, lo and hi say why. */
static long
search_next(struct autobw *a)
{
	/* (as autobw_best ranks them: an epoch's rate is a sample, and
	 * more writers must earn their place by CLIMB_GAIN) */
	long kb = autobw_best(a, NULL), lo, hi;
	const struct autobw_entry *b = reg_find(a, kb);
	bracket(a, b, &lo, &hi);
	a->lo = lo;
	a->hi = hi;
	a->kbest = kb;
	if (!hi) {
		/* more writers gained so far: widen */
		long up = 2 * kb;
		a->step = "expand";
		return up < a->executors ? up : a->executors;
	}
	long below = kb - lo - 1, above = hi - kb - 1;
	if (below <= 0 && above <= 0) {
		a->step = "bracketed";
		return 0;
	}
	/* golden section: into the larger side, 0.382 of it from kb */
	if (above >= below) {
		long d = (long)floor(0.382 * (double)(hi - kb) + 0.5);
		a->step = "golden-up";
		return kb + (d < 1 ? 1 : d > above ? above : d);
	}
	long d = (long)floor(0.382 * (double)(kb - lo) + 0.5);
	a->step = "golden-down";
	return kb - (d < 1 ? 1 : d > below ? below : d);
}

/* climb: can the tasks of the name not yet started (a->pile, when
 * known, less those running) fill an epoch of k writers? */
static bool
fills_epoch(const struct autobw *a, long k)
{
	return a->pile <= 0 || k <= a->pile - a->flying;
}

/* climb: do k2 places, at the rate hoped for them (fall_rate), end the
 * name's tasks not yet ended no sooner than kb's, played out as they
 * become ready (arrive_time)?  False when how they do is not known: all
 * at once, k2's round fewer is sooner.  (Knee 10, fall 0.5, 30 MB/s a
 * writer, 12 checkpoints on 8 cores, 8 then 4 ready 2.11 s later: 7
 * fill B, and 12 hoped at B end the first wave with the second; the
 * next run tried them, 12 wrote 100 MB/s, +8.2 % over the best static,
 * 6, in wfrun sim.) */
static bool
tail_arrives_later(const struct autobw *a, long k2, long kb)
{
	double r1 = climb_r1(a),
	       T2 = arrive_time(a, k2, a->pile, r1, fall_rate(a, k2, r1)),
	       Tb = arrive_time(a, kb, a->pile, r1, rate_est(a, kb, r1));
	return T2 >= 0 && Tb >= 0 && !(T2 < Tb);
}

/* climb: above a best kb whose writers kept the one writer's pace
 * (kept_pace), the count to try next, or 0 when neither more nor fewer
 * can do better; a->step says why.  A climb in flight asks it, and a
 * kept registry's next run (autobw_open): a first run stopped by its
 * last tasks left the step untried, and its next run chose 3 where 4
 * fill B (r1 62: 3.597 s where 4 take 3.423 in wfrun sim). */
static long
kept_pace_next(struct autobw *a, long best)
{
	/* The fill point is the count nearest B / r1: when it was
	 * the lower one, its writers kept pace and still wrote less
	 * than B (200 / 62 = 3.23: 3 write 186 MB/s).  One more,
	 * if the device lets it, writes B. */
	const struct autobw_entry *bb = reg_find(a, best);
	if (best == autobw_most_tried(a) && best < a->executors &&
	    !reg_find(a, best + 1) &&
	    rate_of(a, bb) < (1 - AUTOBW_CLIMB_GAIN) * a->B) {
		a->step = "fill-up";
		return best + 1;
	}
	/* Tasks that follow a compute task on each core become
	 * ready a wave of the cores at a time: a wave of w leaves w
	 * mod best to write after the others, too few to fill B
	 * (knee 14, 30 MB/s a writer: 7 fill it, and of each 8
	 * checkpoints the 8th wrote alone at 30 MB/s, 7 to 29 %
	 * over the best static, 8, in wfrun sim).  Do w writers
	 * write B too?  Their epoch says, in flight, once; the
	 * choice then ranks them (autobw_choose).  Its epoch needs w
	 * tasks not yet started: with fewer left, the round fewer
	 * below is tried instead (12 HMMER-like checkpoints on 8
	 * cores, knee 11, 40 MB/s a writer: 5 fill B, 7 were left for
	 * the wave of 8, and learning stopped at 5, whose third round
	 * of 2 wrote 80 MB/s: +17.6 % over the best static, 7; 6 tried
	 * end them in two rounds, +6.7 %). */
	const struct autobw_entry *one = reg_find(a, 1);
	double r1 = one ? one_pace(one) : 0;
	long w = one ? wave_count(a, best, r1) : 0;
	if (w && !fills_epoch(a, w))
		w = 0;
	/* Nor when the next waves would wait behind it: played out as the
	 * tasks become ready, w at their best (B, or w at the one writer's
	 * pace) no sooner than best's places (wave_sooner_than). */
	if (w && !wave_sooner_than(a, w, climb_r1(a),
				  fmin((double)w * r1, a->B), best, 1))
		w = 0;
	if (best == autobw_most_tried(a) && w) {
		a->step = "wave";
		return w;
	}
	/* The name's tasks not yet ended, n, in c waves of best: when they
	 * pile up (their writes outlast the compute before them), the last
	 * wave's n mod best writers cannot fill B; ceil(n / (c - 1))
	 * writers end them in a wave fewer, if the device lets them (32
	 * checkpoints on 8 cores, 20 MB/s a writer, knee 12: 10 fill B,
	 * 31 were left, and 11 end them in 3 waves of writes, not 4: 5 %
	 * over the best static, 11, in wfrun sim, now -0.1 %).  The last
	 * tasks' choice (autobw_choose_batch) then has it measured.  Not
	 * when, played out as they become ready, they end no sooner so
	 * (tail_arrives_later). */
	long k2 = one ? tail_count(a, best, a->pile, r1) : 0;
	if (best == autobw_most_tried(a) && k2 && !reg_find(a, k2) &&
	    !tail_arrives_later(a, k2, best)) {
		a->step = "tail";
		return k2;
	}
	a->step = "kept-pace";
	return 0; /* neither more nor fewer can do better */
}

static long fill_epoch(const struct autobw *a, long f);
static long sooner_above(struct autobw *a, long kb, long down);

/* climb: the k of the next epoch, or 0 when learning is over. */
static long
climb_next(struct autobw *a, long k)
{
	long best = autobw_best(a, NULL);
	a->kbest = best;
	a->best_rate = best ? rate_of(a, reg_find(a, best)) : 0;
	a->lo = a->hi = 0;
	if (k == 1 && a->nreg == 1) {
		a->step = a->fill >= 2	      ? "fill"
			  : a->executors >= 2 ? "second"
					      : "no-gain";
		if (a->fill >= 2)
			return fill_epoch(a, a->fill);
		return a->executors >= 2 ? 2 : 0;
	}
	if (a->nreg == 2 && k == 2 && a->fill < 2) {
		/* (a fill point of 2 goes on as any other: by neighbours) */
		a->step = "no-gain";
		if (best != 2)
			return 0; /* a second writer added nothing */
		long jump = autobw_climb_jump(a->cores, a->executors);
		if (jump > 2)
			a->step = "jump";
		return jump > 2 ? jump : 0;
	}
	if (kept_pace(a, best))
		return kept_pace_next(a, best);
	long next = search_next(a);
	if (next && next < a->kbest) {
		/* A step down stops the youngest writers and leaves more of
		 * each wave to write after the others: above the best, the
		 * wave or the round fewer first, as a kept registry's next
		 * run does (sooner_above), when the tasks not yet started
		 * can fill its epoch.  (Knee 5, fall 0.05, 30 MB/s a writer,
		 * 16 samples aligned 8 at a time: the fill point's 7 wrote
		 * 182 MB/s, slowed; the step down to 6 stopped one and left
		 * 2 of each 8 checkpoints to write alone, +10.5 % over the
		 * best static, 8, in wfrun sim; the wave tried, +1.0 %.) */
		const char *step = a->step;
		long up = sooner_above(a, a->kbest, next);
		if (up && fills_epoch(a, up))
			return up;
		a->step = step;
	}
	if (!next && !strcmp(a->step, "bracketed")) {
		/* A bracketed best that writes B: more writers cannot
		 * write more, but a wave or a round fewer may end the
		 * tasks sooner (above_step; knee 6, 30 MB/s a writer, 16
		 * checkpoints 8 at a time: 7 wrote 190 MB/s, slowed, and
		 * the 8th of each wave wrote alone after them, +16 % over
		 * the best static, 8, in wfrun sim).  Below B, where a
		 * wave would slow a best that kept pace, the next run
		 * tries it (autobw_open): tried here, it cost more than
		 * it saved. */
		if (writes_B(a, a->kbest))
			next = above_step(a, a->kbest);
	}
	return next;
}

/* climb: how many writers at one writer's rate (mbps) fill B, within
 * [1, executors]; 0 when the rate is not known.  The nearest count, not
 * the floor: one task's rate is a sample, a few % off either way, and
 * where B / r is near an integer the floor turned a sample 5 % fast into
 * a writer fewer (3 of congestdev's 4: a quarter of the device idle, and
 * the climb from 3 went 6, 12 and chose 6, 20 % slower). */
static long
fill_point(const struct autobw *a, double mbps)
{
	if (!(mbps > 0))
		return 0;
	double f = floor(a->B / mbps + 0.5);
	return f < 1 ? 1 : f > (double)a->executors ? a->executors : (long)f;
}

/* climb: the k of the fill point f's epoch (f >= 2): f, or all the
 * name's tasks not yet ended when they are one more, which would write
 * alone after the others, short of B (8 checkpoints, 30 MB/s a writer: 7
 * fill 200 MB/s, and the 8th wrote alone for 2 s, +12 % over the best
 * static, 8, in wfrun sim).  (All of up to 2 f: 8 where 5 fill B ran
 * 7 writers on congestdev's k1steep before the ramp was read, +18 %
 * over the best static, 3; 16 where 10 fill it, +4.4 % in wfrun sim.
 * kept_pace_next's tail step tries more, once f kept pace.) */
static long
fill_epoch(const struct autobw *a, long f)
{
	return a->pile == f + 1 && f + 1 <= a->executors ? f + 1 : f;
}

static void flight_reset(struct autobw *a);
static bool pooled_rate(const struct autobw *a, const struct autobw_pool *kept,
			long j, double *R, double *e, double *W);
static double reg_flown(struct autobw *a, double c, long j, double R,
			double e, double q, double w);

/* A climb's epoch of k >= 2 writers ended (its n tasks did) with its
 * rate never taken in flight: register the rate of the windows when
 * exactly k wrote, if there were 0.2 s of them, rather than its MB over
 * its tasks' time, which also counts the writers of the epoch before,
 * still draining beside its first tasks (congestdev's k1steep: 3
 * writers after 5 measured 65 to 80 MB/s over their tasks' time, 99 in
 * their windows, and 4 were tried too).  True if it did. */
static bool
windows_taken(struct autobw *a, long n)
{
	double R, e, W;
	flight_reset(a); /* (the windows now, if of k, are kept) */
	if (a->k < 2 || (a->nreg && bytes_known(a) != 2) || !(a->mb > 0) ||
	    !pooled_rate(a, &a->kpool, a->k, &R, &e, &W) ||
	    W < AUTOBW_RATE_SPAN || e > 0.5)
		return false;
	double t = reg_flown(a, a->c, a->k, R, e, a->mb / (double)n, W);
	a->flight_s = W;
	a->windows = true;
	a->last_mean = t;
	a->last_t = t;
	a->last_mbps = R;
	return true;
}

/* The epoch is over: register it or stop, and start the next. */
static void
end_epoch(struct autobw *a, bool full)
{
	long n = a->finished;
	double mean = n ? a->sum / (double)n : 0;
	a->busy = busy_time(a);
	/* a partial epoch measured the concurrency it had: its n tasks */
	long k = full ? a->k : n;
	double t = n ? (double)k * a->busy / (double)n : 0;
	double mbps = a->mb > 0 && a->busy > 0 ? a->mb / a->busy : 0;
	double pace = a->mb > 0 && a->sum > 0 ? a->mb / a->sum : 0;
	a->last_mean = mean;
	a->last_t = t;
	a->last_mbps = mbps;
	if (!full) {
		if (a->nreg == 0 && k > 0)
			reg_add(a, a->c, k, t, mbps, pace, 0);
		finish_learning(a);
		return;
	}
	if (a->climb) {
		if (a->nreg == 0 && a->k == 1)
			a->fill = fill_point(a, mbps);
		if (!windows_taken(a, n))
			reg_add(a, a->c, a->k, t, mbps, pace, 0);
		long next = climb_next(a, a->k);
		if (!next) {
			finish_learning(a);
			return;
		}
		begin_epoch(a, a->B / (double)next); /* climb_next compares */
		return;
	}
	if (a->bounded) {
		reg_add(a, a->c, a->k, t, mbps, pace, 0);
		double next = a->c * a->delta;
		if (next > a->max + 1e-9 || concurrency(a->B, next) < 1) {
			finish_learning(a);
			return;
		}
		a->prev_t = t;
		begin_epoch(a, next);
		return;
	}
	if (a->epoch > 1 && !(t <= a->prev_t / 2)) {
		/* halving the concurrency did not halve the time: stop, and
		 * leave this epoch out */
		finish_learning(a);
		return;
	}
	reg_add(a, a->c, a->k, t, mbps, pace, 0);
	double next = a->c * 2;
	if (concurrency(a->B, next) < 1) {
		finish_learning(a);
		return;
	}
	a->prev_t = t;
	begin_epoch(a, next);
}

/* autobw_finished, the task's size counted by the caller. */
static bool
epoch_task_done(struct autobw *a, int epoch, double start, double end,
		double mb)
{
	if (a->phase != AUTOBW_LEARNING || epoch != a->epoch)
		return false; /* a straggler of an earlier phase */
	if (end < start)
		end = start;
	a->sum += end - start;
	/* one task of unknown bytes makes the epoch's unknown */
	a->mb = mb >= 0 && a->mb >= 0 ? a->mb + mb : -1;
	if ((size_t)a->finished == a->spancap) {
		a->spancap = a->spancap ? 2 * a->spancap : 16;
		a->span = xrealloc(a->span, a->spancap * sizeof(*a->span));
	}
	a->span[a->finished].start = start;
	a->span[a->finished].end = end;
	a->finished++;
	if (a->finished < a->target)
		return false;
	end_epoch(a, !a->partial);
	return true;
}

bool
autobw_finished(struct autobw *a, int epoch, double start, double end,
		double mb)
{
	/* (the mean size of a wave, for an epoch measured in flight) */
	autobw_ended(a, mb);
	return epoch_task_done(a, epoch, start, end, mb);
}

bool
autobw_wants_rate(const struct autobw *a)
{
	return a->climb && a->phase == AUTOBW_LEARNING && a->epoch == 1 &&
	       a->k == 1 && a->joined == 1 && a->finished == 0 && !a->nreg;
}

/* An edge of the one writer's count (autobw.h): at t, late by at most
 * d, mb MB written.  Returns true when the rate was taken. */
static bool
edge(struct autobw *a, double now, double t, double d, double mb)
{
	if (!a->s_skipped) {
		a->s_skipped = true; /* the first step */
		return false;
	}
	if (a->s_have == 0) {
		a->s_have = 1;
		a->s_t0 = t;
		a->s_mb0 = mb;
		a->s_d0 = d;
		return false;
	}
	/* (the halves' lengths, too, are known only within their edges'
	 * lateness: a throttle's steps 0.1 s apart measure 0.1 s give or
	 * take it, and asking for 0.1 s exactly waited a step more) */
	if (a->s_have == 1) {
		if (t - a->s_t0 >= AUTOBW_RATE_SPAN / 2 - fmax(a->s_d0, d)) {
			a->s_have = 2; /* the middle */
			a->s_t1 = t;
			a->s_mb1 = mb;
			a->s_d1 = d;
		}
		return false;
	}
	double wa = a->s_t1 - a->s_t0, wb = t - a->s_t1;
	if (wb < wa - fmax(a->s_d1, d))
		return false;
	double ra = (a->s_mb1 - a->s_mb0) / wa, rb = (mb - a->s_mb1) / wb;
	if (fabs(ra - rb) > ra * fmax(a->s_d0, a->s_d1) / wa +
				    rb * fmax(a->s_d1, d) / wb) {
		/* not steady: start again from the middle */
		a->s_t0 = a->s_t1;
		a->s_mb0 = a->s_mb1;
		a->s_d0 = a->s_d1;
		a->s_t1 = t;
		a->s_mb1 = mb;
		a->s_d1 = d;
		return false;
	}
	double span = t - a->s_t0, r = (mb - a->s_mb0) / span;
	double e = fmax(a->s_d0, d) / span;
	long f = fill_point(a, r), lo = fill_point(a, r * (1 + e)),
	     hi = e < 1 ? fill_point(a, r * (1 - e)) : a->executors;
	/* Below 8, a fill point known within one writer is taken when the
	 * nearest count is the upper one, with the halves' difference
	 * counted in its error too: never under the true one, where the
	 * writers would keep the one writer's pace and the search end
	 * below B.  (200 / 30 = 6.67 rounds to 7 only within 2.6 %: one
	 * writer wrote alone for 0.82 s while 7 checkpoints waited, 17 %
	 * over the best static of 16 in wfrun sim; now 0.2 s.  Without
	 * the halves' difference, 3 of 38 rates on congestdev's recorded
	 * steps were taken 12 % off, a fill point of 5 where 4 fill B.) */
	double eh = e + fabs(ra - rb) / (ra + rb);
	long loh = fill_point(a, r * (1 + eh)),
	     hih = eh < 1 ? fill_point(a, r * (1 - eh)) : a->executors;
	bool upper = f < 8 && f == hih && hih - loh <= 1 && loh >= 2;
	/* And when the nearest is the lower one, f, of two, and f writers
	 * cannot write B even at the fastest the one writer may be: f + 1
	 * is the fill point.  (200 / 60 = 3.33: the fill point 3 was
	 * known only after 0.44 s, and its epoch read 180 MB/s after 1.6 s
	 * more; 8 checkpoints on 2 cores ended before a fourth was tried,
	 * 22 % over the best static in wfrun sim, 2 % with 4 at once.) */
	if (!upper && f < 8 && f == loh && hih == f + 1 && loh >= 2 &&
	    (double)f * r * (1 + eh) < (1 - AUTOBW_CLIMB_GAIN) * a->B) {
		upper = true;
		f = hih;
	}
	if (!upper && (lo < 2 || hi - lo > 2 * (f / 8)))
		return false; /* not yet sure enough of the fill point */
	a->early = r;
	a->early_err = e;
	a->fill = f;
	a->carry = a->epoch;
	a->carry_from = now;
	a->carry_mb = a->s_st.last; /* (the count now) */
	begin_epoch(a, a->B / (double)fill_epoch(a, f)); /* carry + 1 */
	a->joined = 1; /* the writer, from now */
	return true;
}

/* An edge of a count's steps: at t, late by at most d, mb MB written
 * (autobw.h, autobw_sample). */
struct autobw_edge {
	double t, d, mb;
};

/* The count read at now is mb: the edges this sample completes (0 to
 * 3) into ed, in time order. */
static int
steps_feed(struct autobw_steps *s, double now, double mb,
	   struct autobw_edge ed[3])
{
	/* (the first sample's d is not known: it is the start's edge) */
	double d = s->tlast > 0 ? now - s->tlast : HUGE_VAL;
	int n = 0;
	s->tlast = now;
	if (mb > s->last) {
		s->last = mb;
		if (s->run < 2) {
			s->rt[s->run] = now;
			s->rd[s->run] = d;
			s->rmb[s->run++] = mb;
			return 0;
		}
		/* a count that grows at every sample has no steps: each
		 * sample is an edge (the two before this one too) */
		if (s->run++ == 2)
			for (int i = 0; i < 2; i++)
				ed[n++] = (struct autobw_edge){ s->rt[i],
								s->rd[i],
								s->rmb[i] };
		ed[n++] = (struct autobw_edge){ now, d, mb };
		return n;
	}
	int run = s->run;
	s->run = 0;
	/* the step that ended: its whole MB, from its first sample */
	if (run > 0 && run < 3)
		ed[n++] = (struct autobw_edge){ s->rt[0], s->rd[0], s->last };
	return n;
}

bool
autobw_sample(struct autobw *a, double now, double mb)
{
	if (!autobw_wants_rate(a))
		return false;
	struct autobw_edge ed[3];
	int n = steps_feed(&a->s_st, now, mb, ed);
	for (int i = 0; i < n; i++)
		if (edge(a, now, ed[i].t, ed[i].d, ed[i].mb))
			return true;
	return false;
}

bool
autobw_carry_done(struct autobw *a, double start, double end, double mb)
{
	int carry = a->carry;
	if (!carry)
		return false;
	a->carry = 0;
	double d = end > start ? end - start : 0;
	reg_add(a, a->B, 1, d, a->early, mb >= 0 && d > 0 ? mb / d : 0,
		a->early_err);
	/* (its size is all it wrote; the epoch it was carried into
	 * counts what it wrote there) */
	autobw_ended(a, mb);
	return epoch_task_done(a, carry + 1, a->carry_from, end,
			       mb >= 0 ? mb - a->carry_mb : -1);
}

void
autobw_no_more_ready(struct autobw *a)
{
	if (a->phase != AUTOBW_LEARNING || a->joined >= a->target)
		return;
	if (a->joined == 0)
		return; /* nothing measured yet: wait for tasks */
	/* Close the epoch with those that joined, once they have finished.
	 * A stream that filled its k places at least once measured k; one
	 * that did not measured the concurrency it had: shrink k. */
	bool full = a->joined >= a->k;
	if (!full) {
		a->k = a->joined;
		a->partial = true;
	}
	a->target = a->joined;
	if (a->finished >= a->joined)
		end_epoch(a, full);
}

bool
autobw_stop(struct autobw *a)
{
	/* (the one writer carried into this epoch is not one of its own) */
	if (a->phase != AUTOBW_LEARNING ||
	    a->joined > (a->carry && a->epoch == a->carry + 1))
		return false;
	if (a->climb && a->nreg) {
		/* the best is the most writers tried: more may still pay */
		a->still_scaling = autobw_scaling(a) &&
				   a->k >= autobw_most_tried(a);
		a->step = "stopped"; /* the tasks left cannot repay it */
	}
	finish_learning(a);
	return true;
}

void
autobw_hold(struct autobw *a, const char *step)
{
	if (!a->climb || a->phase != AUTOBW_LEARNED)
		return;
	a->held = true; /* (at a->k: only learning writes it) */
	a->held_step = step;
	a->step = "held";
}

void
autobw_unhold(struct autobw *a)
{
	if (a->held)
		a->step = "stopped";
	a->held = false;
}

void
autobw_reopen(struct autobw *a)
{
	int epoch = a->epoch;
	a->held = false;
	a->step = a->held_step;
	autobw_resume(a, a->k, a->cores);
	a->epoch = epoch; /* (the held one: none joined it) */
}

void
autobw_abandon(struct autobw *a, int epoch)
{
	if (a->carry && epoch == a->carry) {
		/* its rate stands (the fill point); its time is not known */
		epoch = a->carry + 1;
		a->carry = 0;
	}
	if (a->phase == AUTOBW_LEARNING && epoch == a->epoch && a->joined > 0)
		a->joined--;
}

void
autobw_preload(struct autobw *a, const struct autobw_entry *reg, size_t n,
	       long ready)
{
	free(a->reg);
	a->reg = xmalloc((n ? n : 1) * sizeof(*reg));
	memcpy(a->reg, reg, n * sizeof(*reg));
	a->nreg = n;
	if (n) {
		a->period = reg[0].period;
		a->wave_s = reg[0].wave_s;
	}
	a->opening = true;
	const struct autobw_entry *one = reg_find(a, 1);
	a->fill = one ? fill_point(a, one->mbps) : 0;
	a->phase = AUTOBW_LEARNED;
	a->chosen = n ? autobw_choose(a, ready) : a->c;
}

/* The time of a wave of k tasks at entry e's rate: t, or, when a climb
 * knows every epoch's bytes, k tasks of the mean size q at its rate
 * (rate_of; q: the mean over the epochs of the MB per task each wrote, mbps t /
 * k), so that an epoch that drew small tasks is not taken as fast. */
static double
wave_time(const struct autobw *a, const struct autobw_entry *e)
{
	if (!bytes_known(a))
		return e->t;
	double q = 0;
	for (size_t j = 0; j < a->nreg; j++)
		q += a->reg[j].mbps * a->reg[j].t / (double)a->reg[j].k;
	q /= (double)a->nreg;
	return (double)e->k * q / rate_of(a, e);
}

static double
objective_of(const struct autobw *a, long n, const struct autobw_entry *e)
{
	long k = e->k > 0 ? e->k : 1;
	if (bytes_known(a) && n >= k) {
		/* A climb's tasks stream through k places (one starts as
		 * another ends), they do not run in waves: n tasks at k's
		 * rate.  (Waves made a remainder choose: 2 waves of 11 and
		 * one of 9 beat 3 of 10 and a lone 1, and the choice
		 * flipped between 9, 10 and 11 as tasks ended, 6 % over the
		 * best static in wfrun sim.) */
		return (double)n * wave_time(a, e) / (double)k;
	}
	const struct autobw_entry *one = reg_find(a, 1);
	if (bytes_known(a) == 2 && n < k && one && n > 0) {
		/* Only n of its k run: at least as fast as n writers at the
		 * one writer's pace, or as its k (a writer is not slower
		 * with fewer beside it, the family's law).  (The time of a
		 * whole wave of k made the last few tasks of a run choose
		 * one writer: 2 of them at 1 writer's 28 MB/s "beat" 7
		 * writers' 34.) */
		double r = fmin((double)n * one_pace(one), rate_of(a, e));
		return (double)n * wave_time(a, e) * rate_of(a, e) /
		       ((double)k * r);
	}
	long waves = n / k, r = n % k;
	double T = (double)waves * wave_time(a, e);
	if (r > 0) {
		double est = wave_time(a, e);
		long bestk = 0;
		for (size_t j = 0; j < a->nreg; j++)
			if (a->reg[j].k >= r && (!bestk || a->reg[j].k < bestk)) {
				bestk = a->reg[j].k;
				est = wave_time(a, &a->reg[j]);
			}
		T += est;
	}
	return T;
}

double
autobw_objective(const struct autobw *a, long n, size_t i)
{
	return objective_of(a, n, &a->reg[i]);
}

/* climb: the fall alpha of the family's law with its knee at 1 that
 * the best epoch's kb writers fit (see bound_entry), with the one
 * writer's pace in *r1 and kb's rate in *Ab; 0 when its writers did not
 * clearly slow one another. */
static double
law_alpha(const struct autobw *a, double *r1, double *Ab)
{
	long kb = autobw_best(a, NULL);
	const struct autobw_entry *b = reg_find(a, kb), *one = reg_find(a, 1);
	if (!a->climb || bytes_known(a) != 2 || kb < 3 || !one ||
	    !slowed_clearly(a, b))
		return 0;
	*r1 = one_pace(one);
	*Ab = rate_of(a, b);
	double alpha = (a->B / *Ab - 1) / (double)(kb - 1);
	return alpha > 0 && *r1 > 0 ? alpha : 0;
}

/* climb: the k of no epoch that the family's law says writes the most,
 * in *v, when the best epoch's writers clearly slowed one another (its
 * learning stopped short, the tasks left too few to repay an epoch).
 * Its kb writers then write B f(kb), and f falls from a knee k0 >= 1 as
 * 1 / (1 + alpha (k - k0)): with the knee at 1, alpha fits B f(kb),
 * and fewer writers write at least min(k r1, B / (1 + alpha (k - 1)))
 * whatever the knee (a knee past 1 only raises it).  False when no k
 * untried below kb has such a bound over kb's rate.  (Congestdev's
 * k1steep on three workers: 8 checkpoints, 1 writer and then the fill
 * point's 5 at 74 MB/s took 7 of them, and 5 were chosen, +31 % over
 * the best static, and kept: the second run +18 %.  The bound says 3.) */
static bool
bound_entry(const struct autobw *a, struct autobw_entry *v)
{
	long kb = autobw_best(a, NULL);
	double r1 = 0, Ab = 0, alpha = law_alpha(a, &r1, &Ab);
	const struct autobw_entry *b = reg_find(a, kb);
	if (!(alpha > 0))
		return false;
	long best = 0;
	double bestA = Ab;
	for (long k = 2; k < kb; k++) {
		double A = fmin((double)k * r1,
				a->B / (1 + alpha * (double)(k - 1)));
		/* (more writers must earn their place, as in autobw_best) */
		if (!reg_find(a, k) &&
		    A > bestA * (best ? 1 + AUTOBW_CLIMB_GAIN : 1)) {
			best = k;
			bestA = A;
		}
	}
	if (!best)
		return false;
	memset(v, 0, sizeof(*v));
	v->k = best;
	v->c = a->B / (double)best;
	v->mbps = bestA;
	v->pace = bestA / (double)best;
	v->t = (double)best * b->t * Ab / ((double)kb * bestA);
	return true;
}

/* climb: at least what m writers write, by what was measured: a
 * registered m's rate; else no more than m at the one writer's pace r1,
 * and no less than m at the pace of the fewest registered above m (a
 * writer is not slower with fewer beside it) or than the family's law
 * with its knee at 1 says (law_alpha; bound_entry). */
static double
rate_floor(const struct autobw *a, long m, double r1)
{
	const struct autobw_entry *e = reg_find(a, m), *up = NULL;
	if (e)
		return rate_of(a, e);
	for (size_t j = 0; j < a->nreg; j++)
		if (a->reg[j].k > m && (!up || a->reg[j].k < up->k))
			up = &a->reg[j];
	double A = up ? (double)m * rate_of(a, up) / (double)up->k : 0;
	double x = 0, Ab = 0, alpha = law_alpha(a, &x, &Ab);
	if (alpha > 0 && m < autobw_best(a, NULL))
		A = fmax(A, a->B / (1 + alpha * (double)(m - 1)));
	return fmin(A, (double)m * r1);
}

/* climb: the one writer's pace, when every epoch's bytes are known;
 * 0: the registry cannot say how fast fewer writers go. */
static double
climb_r1(const struct autobw *a)
{
	const struct autobw_entry *one = reg_find(a, 1);
	if (!a->climb || bytes_known(a) != 2 || !one || !(one_pace(one) > 0))
		return 0;
	return one_pace(one);
}

bool
autobw_drain_pays(const struct autobw *a, long running, long k)
{
	double r1 = climb_r1(a), keep = 0, stop = 0;
	if (!(r1 > 0) || k < 1 || running <= k)
		return true;
	double R = rate_floor(a, running, r1);
	if (!(R > 0))
		return true;
	/* (a task's time in units of its size: m writers at A(m) / m) */
	keep = (double)running / R;
	for (long n = running; n > 0; n -= k) {
		long m = n < k ? n : k;
		double A = rate_floor(a, m, r1);
		if (!(A > 0))
			return false;
		stop += (double)m / A;
	}
	return stop * (1 + AUTOBW_CLIMB_GAIN) < keep;
}

/* climb: what m writers write, as well as the registry tells: a
 * registered m's rate, else between the registered counts around m
 * (above the most registered: its rate) with 1 / rate on the line
 * between theirs, or, when more, what rate_floor says at least; no more
 * than m at the one writer's pace r1.  (Past a device's knee the
 * family's writers write B / (1 + alpha (m - k0)): 1 / rate is a line
 * in m, where a line of rates from 3 writers' 80 MB/s to 7's 23.5 said
 * 4 write 66, and they write 50.  Below the best the family's bound is
 * more: the line of 1 / rate from 1 writer's 30 MB/s to 7's 50 said 3
 * write 39, the bound at least 90.) */
static double
rate_est(const struct autobw *a, long m, double r1)
{
	const struct autobw_entry *lo = NULL, *hi = NULL;
	for (size_t j = 0; j < a->nreg; j++) {
		const struct autobw_entry *x = &a->reg[j];
		if (x->k == m)
			return rate_of(a, x);
		if (x->k < m && (!lo || x->k > lo->k))
			lo = x;
		if (x->k > m && (!hi || x->k < hi->k))
			hi = x;
	}
	double A = rate_of(a, lo ? lo : hi);
	if (lo && hi && A > 0 && rate_of(a, hi) > 0) {
		double u = 1 / A, v = 1 / rate_of(a, hi);
		A = 1 / (u + (v - u) * (double)(m - lo->k) /
				     (double)(hi->k - lo->k));
	}
	return fmin(fmax(A, rate_floor(a, m, r1)), (double)m * r1);
}

/* sz[0..n): the sizes, in units of the mean task's, of n tasks spread
 * uniformly over 1 - h to 1 + h (the n quantiles, at least 0.05 each),
 * in the order of the draw-th of a fixed sequence of shuffles: the
 * order tasks of unknown sizes come in. */
static void
draw_sizes(double *sz, long n, double h, unsigned draw)
{
	for (long i = 0; i < n; i++) {
		double x = 1 + h * (2 * ((double)i + 0.5) / (double)n - 1);
		sz[i] = x < 0.05 ? 0.05 : x;
	}
	uint64_t x = 0x9e3779b97f4a7c15u * (draw + 1);
	for (long i = n - 1; i > 0; i--) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		long j = (long)((x >> 33) % (uint64_t)(i + 1));
		double t = sz[i];
		sz[i] = sz[j];
		sz[j] = t;
	}
}

/* F[head..*tail) sorted, x put in its place. */
static void
put_end(double *F, long head, long *tail, double x)
{
	long i = (*tail)++;
	for (; i > head && F[i - 1] > x; i--)
		F[i] = F[i - 1];
	F[i] = x;
}

/* The time (in units of the mean task's MB over MB/s) that the running
 * tasks, with left[0..running) of each still to write (least first), and
 * ready more, take through k places; F: room for running + ready.  The
 * ready are of the mean size (sz NULL) or of sz[0..ready), in the order
 * they start.  All writers go at one pace (k's share of rate_est), so
 * they end in the order of what they have left; the running run on
 * whatever k (whether to stop some is autobw_drain_pays'). */
static double
batch_time(const struct autobw *a, long k, const double *left, long running,
	   long ready, double r1, const double *sz, double *F)
{
	long head = 0, tail = 0, j = 0;
	for (long i = 0; i < running; i++)
		F[tail++] = left[i];
	/* F: the amounts the active writers end at, V: what each has
	 * written since t = 0 (all at one pace) */
	double V = 0, t = 0;
	for (; tail < k && ready > 0; ready--)
		put_end(F, head, &tail, sz ? sz[j++] : 1);
	while (head < tail) {
		long m = tail - head;
		double p = rate_est(a, m, r1) / (double)m;
		if (!(p > 0)) {
			t = HUGE_VAL;
			break;
		}
		t += (F[head] - V) / p;
		V = F[head++];
		/* (of one size F stays sorted by appending: what starts now
		 * ends after all) */
		for (; ready > 0 && tail - head < k; ready--)
			put_end(F, head, &tail, V + (sz ? sz[j++] : 1));
	}
	return t;
}

static double task_size(const struct autobw *a);
static double play_half_width(const struct autobw *a);

/* batch_time with the ready of sizes spread over 1 - h to 1 + h: the
 * mean of AUTOBW_PLAY_DRAWS orders of them (draw_sizes); of one size
 * (h = 0), the one play-out. */
static double
batch_time_pm(const struct autobw *a, long k, const double *left,
	      long running, long ready, double r1, double h, double *F)
{
	if (!(h > 0) || ready < 2)
		return batch_time(a, k, left, running, ready, r1, NULL, F);
	double *sz = xmalloc((size_t)ready * sizeof(double)), T = 0;
	for (unsigned d = 0; d < AUTOBW_PLAY_DRAWS; d++) {
		draw_sizes(sz, ready, h, d);
		T += batch_time(a, k, left, running, ready, r1, sz, F);
	}
	free(sz);
	return T / AUTOBW_PLAY_DRAWS;
}

/* climb: the period and the first wave's spread of how the name's
 * tasks become ready, in batch_time's units (the mean task's MB over
 * MB/s); false when not known (autobw_arrivals: fewer than a wave and
 * one more became ready, or all at once). */
static bool
arrive_units(const struct autobw *a, double *P, double *D)
{
	double q = autobw_task_mb(a);
	if (!a->opening || !(a->period > 0) || !(q > 0) || bytes_known(a) < 1)
		return false;
	long w = wave_width(a);
	*P = a->period / q;
	/* (a wave spread over more than its period: tasks that become
	 * ready one at a time, w of them a period) */
	*D = w > 1 ? fmin(a->wave_s / q, *P * (double)(w - 1) / (double)w)
		   : 0;
	return true;
}

/* climb: when the i-th of the name's tasks becomes ready, as the tasks
 * of the run that measured them did: a wave of the cores each period,
 * each wave's tasks spread evenly over D. */
static double
arrive_at(long i, long w, double P, double D)
{
	return (double)(i / w) * P +
	       (w > 1 ? (double)(i % w) * D / (double)(w - 1) : 0);
}

/* climb: the time, in batch_time's units, that the name's next n tasks,
 * of the mean size, take through k places at k writers' rate Rk (fewer
 * at rate_est's), when they become ready as the run that measured them
 * did (arrive_units; the first at 0), past the last one's arrival: what
 * the places decide (a gain is a share of it: CLIMB_GAIN of the whole,
 * compute included, kept a round fewer of 32 checkpoints from being
 * tried, 7 writers where 5 fill B, knee 7, fall 0.8, 40 MB/s a writer,
 * +4.6 % over the best static, 7, in wfrun sim); < 0 when that is not
 * known.  The
 * choices that ask about a wave of the cores (above_step,
 * kept_pace_next, autobw_choose) played it out alone, or all the tasks
 * as if ready at once: the next waves then waited behind a wave of
 * writers whose rounds outlasted their compute.  (Knee 5, fall 0.05,
 * 30 MB/s a writer, 12 HMMER-like checkpoints on 8 cores, 8 then 4: 6
 * writers write 180 MB/s and 8, 174; a next run tried 8 for the first
 * wave alone, and the 4 of the second then waited and wrote at 120,
 * +11.6 % over the best static, 6, in wfrun sim.)  At most 8 waves
 * are played out: past them the rounds are the rate's. */
static double
arrive_time(const struct autobw *a, long k, long n, double r1, double Rk)
{
	double P, D;
	long w = wave_width(a);
	if (k < 1 || n < 1 || !arrive_units(a, &P, &D))
		return -1;
	if (n > 8 * w)
		n = 8 * w;
	double *F = xmalloc((size_t)n * sizeof(double)), t = 0, V = 0;
	long head = 0, tail = 0, arrived = 0;
	while (head < tail || tail < n) {
		while (arrived < n && arrive_at(arrived, w, P, D) <= t + 1e-12)
			arrived++;
		/* (of one size the ends stay sorted by appending) */
		for (; tail - head < k && tail < arrived; tail++)
			F[tail] = V + 1;
		double ta = arrived < n ? arrive_at(arrived, w, P, D)
					: HUGE_VAL;
		if (head == tail) {
			t = ta;
			continue;
		}
		long m = tail - head;
		double p = (m == k ? Rk : rate_est(a, m, r1)) / (double)m;
		if (!(p > 0)) {
			t = HUGE_VAL;
			break;
		}
		double te = t + (F[head] - V) / p;
		if (ta < te) {
			V += (ta - t) * p;
			t = ta;
		} else {
			t = te;
			V = F[head++];
		}
	}
	free(F);
	return t - arrive_at(n - 1, w, P, D);
}

/* What a task that wrote w (in units of the mean task's MB) has left,
 * sizes spread over 1 - h to 1 + h (draw_sizes): of unlike sizes, one
 * past the least has the mean left of those larger than what it wrote;
 * at least 0.05 (one past what its pace says is nearly done, not
 * done). */
static double
left_of(double w, double h)
{
	double x = h > 0 && w > 1 - h ? (1 + h - w) / 2 : 1 - w;
	return x < 0.05 ? 0.05 : x > 1 ? 1 : x;
}

/* The half-width of the uniform spread of sizes with spread s (a
 * standard deviation over the mean: sqrt(3) s); 0 within 1 %. */
static double
half_width(double s)
{
	return s < 0.01 ? 0 : sqrt(3.0) * s;
}

/* Held (autobw_hold), the sizes seen: those that ended and each running
 * one's twice what it wrote; their mean, and (spread) their standard
 * deviation over it.  (The first to end are the least: 16 checkpoints
 * of 16 to 256 MB, knee 7, fall 0.8, the two that ended first wrote 32
 * and 36 MB, and with their mean the 8 running looked all but done: the
 * step down to 7, the best static, was refused again.) */
static double
held_size(const struct autobw *a, double *spread)
{
	double s = a->task_mb, s2 = a->task_mb2, n = (double)a->task_n;
	for (size_t i = 0; i < a->nslot; i++)
		if (a->slot[i].used) {
			double q = 2 * a->slot[i].mb;
			s += q;
			s2 += q * q;
			n++;
		}
	double m = n > 0 ? s / n : 0, v = n > 0 ? s2 / n - m * m : 0;
	if (spread)
		*spread = m > 0 && v > 0 ? sqrt(v) / m : 0;
	return m;
}

/* The task size autobw_epoch_pays plays with: the mean of those that
 * ended; with none ended, a kept registry's mean (an earlier run's), at
 * least the most any running one wrote; with neither, twice the most
 * written, the one that wrote most taken as halfway.  (The most written
 * alone is a lower bound that plays every writer out as all but done:
 * 16 HMMER-like checkpoints of 16 to 256 MB, k8-a0.3-r8, had written
 * 19.3 MB at most where the mean was 130, and the step down from 16
 * writers that paid was refused: +42.4 % over the best static.) */
static double
play_size(const struct autobw *a)
{
	if (a->task_n)
		return a->task_mb / (double)a->task_n;
	double w = task_size(a), kept = autobw_task_mb(a);
	return kept > 0 ? fmax(kept, w) : 2 * w;
}

bool
autobw_epoch_pays(const struct autobw *a, long k, long left)
{
	long m = a->flying;
	const struct autobw_entry *one = reg_find(a, 1);
	double r1 = one ? one_pace(one) : a->early, q, h;
	if (a->held) {
		q = held_size(a, &h);
		h = half_width(h);
	} else {
		q = play_size(a);
		h = play_half_width(a);
	}
	if (!a->climb || k < 2 || a->nreg < 2 || reg_find(a, k) ||
	    !(r1 > 0) || !(q > 0) || left < 0)
		return true;
	long most = autobw_most_tried(a);
	if (k > most)
		return true; /* (above all tried: kept for the next runs too,
				a wave's say: climb_next) */
	most = most > m ? most : m;
	if (left + m > 4 * (most > k ? most : k))
		return true; /* (many to come: they stream at k, and repay) */
	/* what each writer has left (least first), at most q MB a task */
	double *L = xmalloc((size_t)(2 * (m + left) + 1) * sizeof(double));
	double *F = L + m + left;
	long n = 0;
	for (size_t i = 0; i < a->nslot && n < m; i++)
		if (a->slot[i].used)
			L[n++] = left_of(a->slot[i].mb / q, h);
	qsort(L, (size_t)n, sizeof(double), cmp_double);
	/* the registered count that ends them soonest, all running on */
	double keep = HUGE_VAL;
	for (size_t i = 0; i < a->nreg; i++)
		keep = fmin(keep,
			    batch_time_pm(a, a->reg[i].k, L, n, left, r1, h, F));
	/* k writing the most it can (k at the one writer's pace, or B),
	 * in a registry of its own; the youngest n - k run again */
	struct autobw b = *a;
	b.reg = xmalloc((a->nreg + 1) * sizeof(*b.reg));
	memcpy(b.reg, a->reg, a->nreg * sizeof(*b.reg));
	reg_flown(&b, a->B / (double)k, k, fmin((double)k * r1, a->B), 0, 1,
		  0);
	long stay = n < k ? n : k;
	double step = batch_time_pm(&b, k, L, stay, left + n - stay, r1, h, F);
	free(b.reg);
	free(L);
	return step < keep;
}

void
autobw_ended(struct autobw *a, double mb)
{
	if (mb >= 0) {
		a->task_mb += mb;
		a->task_mb2 += mb * mb;
		a->task_n++;
	}
}

double
autobw_task_spread(const struct autobw *a)
{
	if (a->task_n < 2 || !(a->task_mb > 0))
		return 0;
	double m = a->task_mb / (double)a->task_n,
	       v = a->task_mb2 / (double)a->task_n - m * m;
	return v > 0 ? sqrt(v) / m : 0;
}

static int
by_double(const void *x, const void *y)
{
	double u = *(const double *)x, v = *(const double *)y;
	return (u > v) - (u < v);
}

void
autobw_arrivals(struct autobw *a, const double *t, long n)
{
	long w = wave_width(a);
	if (w < 1 || n <= w)
		return;
	long m = n - w < w ? n - w : w;
	double *d = xmalloc((size_t)m * sizeof(double));
	for (long i = 0; i < m; i++)
		d[i] = t[i + w] - t[i];
	qsort(d, (size_t)m, sizeof(double), by_double);
	a->period = d[m / 2];
	a->wave_s = t[w - 1] - t[0];
	free(d);
}

/* How the name's task sizes spread: as a kept registry's run said or
 * as those that ended in this run say, the more of the two. */
static double
spread_of(const struct autobw *a)
{
	double kept = 0;
	for (size_t i = 0; i < a->nreg; i++)
		kept = fmax(kept, a->reg[i].spread);
	return fmax(kept, autobw_task_spread(a));
}

bool
autobw_unlike(const struct autobw *a)
{
	return spread_of(a) > AUTOBW_SPREAD_MAX;
}

/* The half-width of the uniform spread of sizes (over the mean's) with
 * the name's spread (a standard deviation over the mean of s: sqrt(3) s)
 * that the play-outs draw from (draw_sizes); 0, every task of the mean
 * size, for sizes within 1 % (of one size, the sums' rounding). */
static double
play_half_width(const struct autobw *a)
{
	return half_width(spread_of(a));
}

/* Are the name's sizes unlike, as the tasks that ended say, or a
 * running one that wrote more than SPREAD_MAX over their mean? */
static bool
seen_unlike(const struct autobw *a)
{
	if (autobw_unlike(a))
		return true;
	if (!a->task_n)
		return false;
	double q = a->task_mb / (double)a->task_n;
	for (size_t i = 0; i < a->nslot; i++)
		if (a->slot[i].used &&
		    a->slot[i].mb > q * (1 + AUTOBW_SPREAD_MAX))
			return true;
	return false;
}

bool
autobw_drain_gains(const struct autobw *a, long running, long k)
{
	double r1 = climb_r1(a);
	if (!(r1 > 0) || k < 1 || running <= k || !seen_unlike(a))
		return true;
	double Rk = rate_est(a, k, r1), Rm = rate_est(a, running, r1);
	return !(Rm > 0) || Rk > Rm * (1 + AUTOBW_CLIMB_GAIN);
}

double
autobw_task_mb(const struct autobw *a)
{
	if (a->task_n)
		return a->task_mb / (double)a->task_n;
	double q = 0;
	for (size_t i = 0; i < a->nreg; i++)
		if (a->reg[i].q > q)
			q = a->reg[i].q; /* (a run's mean: all alike) */
	return q;
}

/* The pace, MB/s, of each of m writers of the name (none: 0). */
static double
pace_of(const struct autobw *a, long m, double r1)
{
	return m > 0 ? rate_est(a, m, r1) / (double)m : 0;
}

bool
autobw_batch_left(const struct autobw *a, const double *start, long n,
		  const struct autobw_count *h, size_t nh, double now,
		  double *left)
{
	double r1 = climb_r1(a), q = autobw_task_mb(a);
	double hw = play_half_width(a);
	double p = n > 0 && r1 > 0 ? pace_of(a, n, r1) : 0;
	if (!(q > 0) || !(p > 0))
		return false;
	for (long i = 0; i < n; i++) {
		double s = start[i];
		double mb = fmax(fmin(nh ? h[0].t : now, now) - s, 0) * p;
		for (size_t j = 0; j < nh; j++) {
			double t0 = fmax(h[j].t, s),
			       t1 = fmin(j + 1 < nh ? h[j + 1].t : now, now);
			if (t1 > t0)
				mb += (t1 - t0) * pace_of(a, h[j].m, r1);
		}
		/* past the largest size drawn: the tasks that ended are
		 * the small ones, and the sizes are not known yet (16
		 * checkpoints of 16 to 256 MB: three of 32 to 46 MB ended,
		 * four running had written 49 to 54, and the play-out,
		 * taking those as all but done, chose 12 places, which
		 * slowed, for the 13 left: 10.7 % over the best static,
		 * 8, in wfrun sim, 0.9 % without the choice) */
		if (hw > 0 && mb > q * (1 + hw))
			return false;
		left[i] = left_of(mb / q, hw);
	}
	return true;
}

/* batch_time for count k with the running that the drain stops for k
 * (autobw_choose_batch's stop) run again from the start: L the others'
 * left, least first (room for running), F the play-out's room. */
static double
batch_time_drained(const struct autobw *a, long k, const double *left,
		   const long *stop, long running, long ready, double r1,
		   double h, double *L, double *F)
{
	long n = 0, over = running - k;
	for (long i = 0; i < running; i++)
		if (stop && stop[i] >= 0 && stop[i] < over)
			ready++;
		else
			L[n++] = left[i];
	qsort(L, (size_t)n, sizeof(double), cmp_double);
	return batch_time_pm(a, k, L, n, ready, r1, h, F);
}

double
autobw_choose_batch(const struct autobw *a, const double *left,
		    const long *stop, long running, long ready,
		    double current)
{
	double r1 = climb_r1(a), best = 0, bestT = 0, curT = 0;
	if (!(r1 > 0) || running + ready < 1)
		return 0;
	/* (what is left, least first, and the play-outs' room) */
	double *L = xmalloc((size_t)(2 * (running + ready)) * sizeof(double));
	double *F = L + running + ready;
	long kc = a->B > 0 && current > 0 ? autobw_writers(a->B, current) : 0;
	double h = play_half_width(a);
	for (size_t i = 0; i < a->nreg; i++) {
		double T = batch_time_drained(a, a->reg[i].k, left, stop,
					      running, ready, r1, h, L, F);
		if (!best || T < bestT * (1 - 1e-9) ||
		    (T <= bestT * (1 + 1e-9) && a->reg[i].c > best)) {
			best = a->reg[i].c;
			bestT = T;
		}
	}
	if (kc > 0)
		curT = batch_time_drained(a, kc, left, stop, running, ready,
					  r1, h, L, F);
	free(L);
	/* (the current stays while within BATCH_GAIN) */
	if (curT > 0 && curT <= bestT * (1 + AUTOBW_BATCH_GAIN))
		return current;
	return best;
}

/* The time, in units of a task's MB, that n tasks piled up take
 * through k places in rounds: n / k rounds of k at k's rate, then the
 * n mod k left at theirs (rate_est), no faster than k's: they start as
 * the others end, beside their tails.  (At their own rate, 10 writers'
 * 160 MB/s, a last round of 10 made 11 places at 133 MB/s seem 9 %
 * sooner for 32 tasks than 10 places and a last round of 2 at 32 MB/s;
 * 11 chosen ran 4 % slower in wfrun sim.) */
static double
rounds_time_at(const struct autobw *a, long k, long n, double r1, double R)
{
	long full = n / k, rem = n % k;
	double T = (double)(full * k) / R;
	if (rem)
		T += (double)rem / fmin(rate_est(a, rem, r1), R);
	return T;
}

static double
rounds_time(const struct autobw *a, long k, long n, double r1)
{
	return rounds_time_at(a, k, n, r1, rate_est(a, k, r1));
}

double
autobw_choose_pile(const struct autobw *a, double chosen)
{
	long n = a->pile, k = a->B > 0 && chosen > 0
				     ? autobw_writers(a->B, chosen) : 0;
	double r1 = climb_r1(a);
	if (!(r1 > 0) || k < 1 || !reg_find(a, k))
		return chosen;
	/* (kept_pace_next's tail, measured) */
	long k2 = tail_count(a, k, n, r1);
	const struct autobw_entry *e2 = k2 ? reg_find(a, k2) : NULL;
	if (!e2)
		return chosen;
	/* Of unlike sizes there are no rounds: both played out with the
	 * sizes drawn, the play-out's margin.  (Knee 10, fall 0.3, 16 MB/s
	 * a writer, 32 checkpoints of 16 to 256 MB: 10 write 160 MB/s, 11
	 * write 154, and a kept registry's next run took 11 for ending
	 * the 32 in 3 rounds, not 4: +2.1 % over the best static, 10, in
	 * wfrun sim; played out, 10, 0.0 %.)  Not within two waves of k,
	 * where one wave is all and a spread kept from few tasks is too
	 * narrow: 7 places and an eighth after them looked no slower than
	 * more at once, and the eighth wrote alone (8 Kmeans-like
	 * checkpoints on 2 cores, drawn: next runs up to +15.7 % over the
	 * best static). */
	double h = play_half_width(a), T, T2, gain = AUTOBW_CLIMB_GAIN;
	/* (While fewer than a wave of the cores have ended, the first to
	 * end are the least and their spread too narrow: the sizes seen,
	 * held_size's, when they spread more.  Knee 3, fall 1, 8 MB/s a
	 * writer, 16 HMMER-like checkpoints of 16 to 256 MB: 6 write 48
	 * MB/s, 7 write 40; the two that had ended spread 0.05 and 7
	 * played out 3.0 % sooner, +7.6 % over the best static, 6, in
	 * wfrun sim; with the sizes seen, 6, +0.4 %.  Only within three
	 * waves of k: further on, more end before the last rounds, and
	 * the running ones' doubled sizes spread too wide (64 checkpoints,
	 * knee 7, fall 0.1: 9 played out less than 3 % sooner than 8, +2.7
	 * % over the best static, 9).) */
	if (h > 0 && n >= 2 * k) {
		if (a->task_n < wave_width(a) && n < 3 * k) {
			double s;
			held_size(a, &s);
			h = fmax(h, half_width(s));
		}
		gain = AUTOBW_BATCH_GAIN;
		double *F = xmalloc((size_t)n * sizeof(double));
		T = batch_time_pm(a, k, NULL, 0, n, r1, h, F);
		T2 = batch_time_pm(a, k2, NULL, 0, n, r1, h, F);
		free(F);
	} else {
		T = pile_time(a, k, n, r1, rate_est(a, k, r1));
		T2 = pile_time(a, k2, n, r1, rate_est(a, k2, r1));
	}
	return T2 < T * (1 - gain) ? e2->c : chosen;
}

double
autobw_rechoose(const struct autobw *a, long n, double current)
{
	double best = autobw_choose(a, n);
	const struct autobw_entry *i = reg_find(a, concurrency(a->B, current)),
				  *b = reg_find(a, concurrency(a->B, best));
	if (i && b &&
	    autobw_objective(a, n, (size_t)(i - a->reg)) <=
		    autobw_objective(a, n, (size_t)(b - a->reg)) *
			    (1 + AUTOBW_CLIMB_GAIN))
		return current;
	return best;
}

/* What a wave of the cores, all ready at once, takes through k places
 * (batch_time; F room for it); or, when how the name's tasks become
 * ready is known, its tasks not yet ended (pile) as they do
 * (arrive_time, at rate_est's rates): a wave whose writes outlast the
 * next wave's compute makes that one wait. */
static double
wave_play(const struct autobw *a, long k, double r1, double *F)
{
	double T = arrive_time(a, k, a->pile, r1, rate_est(a, k, r1));
	return T >= 0 ? T
		      : batch_time(a, k, NULL, 0, wave_width(a), r1, NULL, F);
}

/* Does a wave of w tasks, all ready at once, end sooner through k
 * places than through kp (batch_time, at rate_est's rates)? */
static bool
wave_sooner(const struct autobw *a, long k, long kp, long w, double r1)
{
	double *F = xmalloc((size_t)w * sizeof(double));
	double T = batch_time(a, k, NULL, 0, w, r1, NULL, F),
	       Tp = batch_time(a, kp, NULL, 0, w, r1, NULL, F);
	free(F);
	return T < Tp * (1 - 1e-9);
}

/* climb, tasks of unlike sizes: of the counts that write B (within
 * AUTOBW_KNEE_TOL), the most writers' constraint; 0 when none does or
 * the sizes are alike.  Their rounds do not end together, and more
 * places at B cost no MB/s and start the largest tasks sooner, whose
 * one writer's pace is then all that writes (8 checkpoints of 16 to
 * 256 MB writing B at 25 MB/s each, on a device that keeps B up to 12
 * writers: the 267 MB one waited for a place and wrote alone for 10 s,
 * +8.6 % over the best static, 10, in every next run in wfrun sim).
 * Below B fewer places write faster, and with few tasks how the last
 * end outweighs it: the choice is left to the rounds.  (8 checkpoints
 * on 2 cores, 6 writers at 120 MB/s and 8 at 100: 6 taken for the
 * faster rate left 2 to write alone, +19 % over the best static, 8.) */
static double
most_at_B(const struct autobw *a)
{
	if (!autobw_unlike(a))
		return 0;
	const struct autobw_entry *pick = NULL;
	for (size_t i = 0; i < a->nreg; i++)
		if (rate_of(a, &a->reg[i]) >= (1 - AUTOBW_KNEE_TOL) * a->B &&
		    (!pick || a->reg[i].k > pick->k))
			pick = &a->reg[i];
	return pick ? pick->c : 0;
}

double
autobw_choose(const struct autobw *a, long n)
{
	double best = 0, bestT = 0;
	for (size_t i = 0; i < a->nreg; i++) {
		double T = autobw_objective(a, n, i);
		if (!best || T < bestT - 1e-12 ||
		    (fabs(T - bestT) <= 1e-12 && a->reg[i].c > best)) {
			best = a->reg[i].c;
			bestT = T;
		}
	}
	if (!a->climb)
		return best;
	double most = most_at_B(a);
	if (most > 0)
		return most;
	/* A climb: the fewest writers whose T is within CLIMB_GAIN of the
	 * least, as autobw_best ranks them (one epoch's time is a sample:
	 * a fill point's epoch 10 % slow made 8 writers 1 % "better" than
	 * 4 on congestdev, where 8 write 29 % less) */
	double pick = best;
	for (size_t i = 0; i < a->nreg; i++)
		if (a->reg[i].c > pick &&
		    autobw_objective(a, n, i) <= bestT * (1 + AUTOBW_CLIMB_GAIN))
			pick = a->reg[i].c;
	/* Of those within CLIMB_GAIN, the one that writes a wave of the
	 * cores soonest (played out as the last tasks are): 7 and 8
	 * writers both wrote B, and 7 chosen left the 8th of each wave of
	 * 8 checkpoints to write alone, +19 % in a second run of 16. */
	long w = wave_width(a);
	double r1 = climb_r1(a);
	/* (played out only when another count is within CLIMB_GAIN: this
	 * runs as each task of the name becomes ready) */
	bool tied = false;
	for (size_t i = 0; i < a->nreg && !tied; i++)
		tied = a->reg[i].k >= 2 && a->reg[i].c != pick &&
		       autobw_objective(a, n, i) <=
			       bestT * (1 + AUTOBW_CLIMB_GAIN);
	if (tied && w >= 2 && r1 > 0 && n >= w) {
		double *F = xmalloc((size_t)w * sizeof(double)), wT = 0;
		long kp = autobw_writers(a->B, pick);
		wT = wave_play(a, kp, r1, F);
		for (size_t i = 0; i < a->nreg; i++) {
			if (a->reg[i].k < 2 ||
			    autobw_objective(a, n, i) > bestT * (1 + AUTOBW_CLIMB_GAIN))
				continue;
			double T = wave_play(a, a->reg[i].k, r1, F);
			if (T < wT * (1 - 1e-9)) {
				wT = T;
				pick = a->reg[i].c;
			}
		}
		free(F);
	}
	/* (a bound wins only by CLIMB_GAIN: it was never measured; and
	 * only if, at its best, it writes a wave of the cores sooner: a
	 * bound of 6 at 96 MB/s beside 8 measured at 91, on 8 cores,
	 * left 2 of each 8 checkpoints to write after the others, +7 to
	 * +9 % over the best static, 8, in wfrun sim) */
	struct autobw_entry v;
	if (bound_entry(a, &v) &&
	    objective_of(a, n, &v) * (1 + AUTOBW_CLIMB_GAIN) < bestT &&
	    (!(r1 > 0) || v.k >= w ||
	     wave_sooner(a, v.k, autobw_writers(a->B, pick), w, r1)))
		pick = v.c;
	return pick;
}

bool
autobw_bound(const struct autobw *a, double c)
{
	struct autobw_entry v;
	return bound_entry(a, &v) && fabs(v.c - c) < 1e-9 * c;
}

/* climb, a kept registry's next run: above a best kb that kept the one
 * writer's pace at B, the fewest tried above it, hi > kb + 1, slowed
 * below B.  The family's knee is somewhere from kb to hi - 1, and a
 * count between them that writes B too may end the name's tasks not yet
 * ended (pile) in fewer rounds: of those never measured, the one whose
 * rounds at B take least, if CLIMB_GAIN less than kb's (the fewest of
 * equals); else 0.  a->step says tail.  (Knee 7, fall 0.8, 40 MB/s a
 * writer, 32 checkpoints on 8 cores: 5 fill B, 8 wrote 111 MB/s, and 5
 * chosen left the last rounds short, +4.6 % over the best static, 7,
 * in the next run in wfrun sim; 7 tried, -0.3 %.  Knee 5, fall 0.5:
 * 7 write 100 MB/s, a try that costs the next run 1.5 %, and 6 ends
 * them in no fewer rounds than 5, so it is not tried after.) */
static long
tail_under(struct autobw *a, long kb)
{
	double r1 = climb_r1(a);
	long n = a->pile, hi = 0, best = 0;
	if (!writes_B(a, kb) || n < 1 || !(r1 > 0))
		return 0;
	for (size_t i = 0; i < a->nreg; i++)
		if (a->reg[i].k > kb && (!hi || a->reg[i].k < hi))
			hi = a->reg[i].k;
	if (hi <= kb + 1 || writes_B(a, hi))
		return 0;
	double T = (1 - AUTOBW_CLIMB_GAIN) *
		   pile_time(a, kb, n, r1, rate_est(a, kb, r1));
	for (long k = kb + 1; k < hi; k++) {
		double Tk = pile_time(a, k, n, r1, a->B);
		if (!reg_find(a, k) && Tk < T - 1e-12) {
			T = Tk;
			best = k;
		}
	}
	if (best) {
		a->step = "tail";
		a->lo = kb;
		a->hi = hi;
	}
	return best;
}

/* climb: what k writers, more than the most registered, write: rate_est's
 * hope, or less when the two most registered both slowed one another
 * (slowed) and the more wrote less: on the family's law, past the knee
 * 1 / rate grows by a line in k, the line through theirs.  (Knee 1,
 * fall 0.2, 25 MB/s a writer, 8 Kmeans-like checkpoints on 2 cores: 5
 * writers wrote 111 MB/s and 6 wrote 100, and the next run tried 8 to
 * end the 8 in one round at no less than 100: they wrote 83, the line's
 * rate, +3.6 % over the best static in wfrun sim.) */
static double
fall_rate(const struct autobw *a, long k, double r1)
{
	double R = rate_est(a, k, r1);
	const struct autobw_entry *h = NULL, *l = NULL;
	for (size_t i = 0; i < a->nreg; i++) {
		const struct autobw_entry *x = &a->reg[i];
		if (!h || x->k > h->k) {
			l = h;
			h = x;
		} else if (!l || x->k > l->k) {
			l = x;
		}
	}
	if (!l || k <= h->k || !slowed(a, h) || !slowed(a, l))
		return R;
	double u = rate_of(a, l), v = rate_of(a, h);
	if (!(v > 0) || !(u > v))
		return R;
	return fmin(R, 1 / (1 / v + (1 / v - 1 / u) * (double)(k - h->k) /
					   (double)(h->k - l->k)));
}

/* climb: what k writers, more than the most registered, m, write on
 * the family's line when m's slowed one another: 1 / rate a line in k
 * from the most registered below m whose writers kept the one writer's
 * pace, taken as the knee at B, through m's rate; rate_est's when
 * less, or otherwise.  (rate_est holds m's rate above m: past the knee
 * the family's writers write less with each one more.) */
static double
family_rate(const struct autobw *a, long k, double r1)
{
	double R = rate_est(a, k, r1);
	long m = autobw_most_tried(a), kp = 0;
	const struct autobw_entry *em = reg_find(a, m), *one = reg_find(a, 1);
	if (k <= m || !em || !one || !slowed(a, em) || !(rate_of(a, em) > 0))
		return R;
	for (size_t i = 0; i < a->nreg; i++) {
		const struct autobw_entry *x = &a->reg[i];
		if (x->k < m && x->k > kp && at_pace(x, one))
			kp = x->k;
	}
	if (!kp)
		return R;
	double alpha = (a->B / rate_of(a, em) - 1) / (double)(m - kp);
	return fmin(R, a->B / (1 + alpha * (double)(k - kp)));
}

/* climb, a search that steps down to down writers (a first run's,
 * climb_next, or a kept registry's next run's, autobw_open):
 * above_step's count (a wave or a round fewer above the best kb), when
 * its rounds through the name's tasks not yet ended, at the family's
 * rate for it (family_rate), take less than down's could at best (down
 * at the one writer's pace, or B); else 0, a->step as it was.  (Knee
 * 8, fall 0.05, 16 MB/s a writer, 16 checkpoints on 8 cores: 12 wrote
 * 167 MB/s, slowed, and the search's 11 (174) left 5 to a second round,
 * +4.5 % over the best static, 16 (143), in the next run; 16 end them
 * in one round, 0.0 %.  Fall 0.1: 12 wrote 143, 16 would write 111 and
 * the search goes on, to 10, the best static.) */
static long
sooner_above(struct autobw *a, long kb, long down)
{
	const char *step = a->step;
	long n = a->pile;
	double r1 = climb_r1(a);
	long up = n > 0 && r1 > 0 ? above_step(a, kb) : 0;
	if (up && pile_time(a, up, n, r1, family_rate(a, up, r1)) <
			  pile_time(a, down, n, r1,
					 fmin((double)down * r1, a->B)))
		return up;
	a->step = step;
	return 0;
}

/* climb, a kept registry's next run: one writer more than the most
 * registered, m, when m are more than a wave of the cores and wrote B
 * (within AUTOBW_KNEE_TOL: not slowed), above a best kb that kept the
 * one writer's pace; else 0.  Below the knee more places cost nothing,
 * and where the writes of one wave outlast the next wave's compute
 * (more than a wave write at once) the last tasks' choice
 * (autobw_choose_batch) ends them sooner through them; it chooses only
 * counts measured.  Each next run tries one more, until one writes
 * less.  (Knee 12, 20 MB/s a writer, 32 HMMER-like checkpoints on 8
 * cores: 10 and 11 wrote B, 12 were never tried, and the last tasks
 * were played out through 10 and 11: +4.7 % over the best static, 12,
 * in every next run in wfrun sim; 12 tried, 0.0 %.  At m no more than
 * a wave (8 of 8 cores at B, knee 14, 30 MB/s) the try only cost,
 * +0.2 to +2.2 % in the next run.) */
static long
knee_up(struct autobw *a, long kb)
{
	long m = autobw_most_tried(a);
	const struct autobw_entry *e = reg_find(a, m);
	/* (tasks of unlike sizes: not in waves, and more places at B
	 * start the largest sooner, from the best on: most_at_B) */
	bool unlike = autobw_unlike(a);
	if (m < kb || (!unlike && (m == kb || m <= wave_width(a))) ||
	    m >= a->executors || !e ||
	    bytes_known(a) != 2 ||
	    (double)m * e->pace < (1 - AUTOBW_KNEE_TOL) * a->B)
		return 0;
	a->step = "knee";
	a->lo = kb;
	a->hi = 0;
	return m + 1;
}

long
autobw_open(struct autobw *a)
{
	if (!a->climb || a->phase != AUTOBW_LEARNED || a->nreg < 2 ||
	    bytes_known(a) != 2 || autobw_scaling(a))
		return 0; /* (still scaling: see autobw_scaling) */
	long kb = autobw_best(a, NULL);
	if (!kb)
		return 0;
	a->best_rate = rate_of(a, reg_find(a, kb));
	a->kbest = kb;
	if (kept_pace(a, kb)) {
		long next = kept_pace_next(a, kb);
		if (!next)
			next = tail_under(a, kb);
		return next ? next : knee_up(a, kb);
	}
	long next = search_next(a);
	long up = next && next < kb ? sooner_above(a, kb, next) : 0;
	if (up)
		return up;
	if (!next && (next = above_step(a, kb)))
		return next; /* the bracket closed: above it, a wave or a
				round fewer */
	/* a count chosen by the family's bound was never run: it is the
	 * one to measure (the search's own next step, above it, is
	 * predicted slower) */
	struct autobw_entry v;
	if (bound_entry(a, &v) && fabs(v.c - a->chosen) < 1e-9 * v.c) {
		next = v.k;
		a->step = "bound";
	}
	return next;
}

long
autobw_open_above(struct autobw *a)
{
	if (!a->climb || a->phase != AUTOBW_LEARNED || a->kbest < 1)
		return 0;
	return above_step(a, a->kbest); /* (a->step untouched when 0) */
}

void
autobw_resume(struct autobw *a, long k, long cores)
{
	a->cores = cores > 0 ? cores : 1;
	a->phase = AUTOBW_LEARNING;
	a->still_scaling = false;
	a->epoch = 0;
	a->open_step = a->step;
	a->step = "resume";
	begin_epoch(a, a->B / (double)k);
}

/* --- in flight (autobw.h) ------------------------------------------- */

bool
autobw_flies(const struct autobw *a)
{
	return a->climb && (a->phase == AUTOBW_LEARNING || a->held);
}

/* A writer's window: its rate, MB/s, and that rate's error, MB/s (its
 * edges are late by at most d0 and d1: its length is known within the
 * larger).  False when it has none. */
static bool
slot_window(const struct autobw_slot *x, double *r, double *err)
{
	double w = x->t1 - x->t0;
	if (!x->used || x->n < 2 || !(w > 0))
		return false;
	*r = (x->mb1 - x->mb0) / w;
	*err = *r * fmax(x->d0, x->d1) / w;
	return true;
}

/* Add (sign 1) or take away (-1) slot x's window from the windows
 * now. */
static void
window_count(struct autobw *a, const struct autobw_slot *x, int sign)
{
	double r, err;
	if (!slot_window(x, &r, &err))
		return;
	double w = x->t1 - x->t0;
	a->now.n += sign;
	a->now.w += sign * w;
	a->now.rw += sign * r * w;
	a->now.r2w += sign * r * r * w;
	a->now.err += sign * err * w;
}

/* How many write now, when two or more do and none of the running
 * tasks is starting up (a device may count it: congestdev does), so
 * that their windows are of that count; else 0. */
static long
count_now(const struct autobw *a)
{
	return a->flying >= 2 && a->writing == a->flying ? a->flying : 0;
}

/* Add q, one period's windows (the windows now), to p: its errors
 * (added within it) in quadrature with p's periods. */
static void
pool_add(struct autobw_pool *p, const struct autobw_pool *q)
{
	p->w += q->w;
	p->rw += q->rw;
	p->r2w += q->r2w;
	p->n += q->n;
	p->e2 += q->e2 + q->err * q->err;
}

/* A writer starts, starts writing, or ends: the windows now are kept
 * (when exactly k wrote, or, for the ramp, fewer) and every writer's
 * starts afresh at its next edge. */
static void
flight_reset(struct autobw *a)
{
	long j = count_now(a);
	if (j && a->now.n > 0 && j == a->k) {
		pool_add(&a->kpool, &a->now);
	} else if (j && a->now.n > 0 && j < a->k) {
		if (a->rj != j) {
			a->rj = j;
			memset(&a->rpool, 0, sizeof(a->rpool));
		}
		pool_add(&a->rpool, &a->now);
	}
	for (size_t i = 0; i < a->nslot; i++)
		a->slot[i].n = 0;
	memset(&a->now, 0, sizeof(a->now));
}

int
autobw_slot_open(struct autobw *a)
{
	size_t i = 0;
	while (i < a->nslot && a->slot[i].used)
		i++;
	if (i == a->nslot) {
		a->slot = xrealloc(a->slot, (a->nslot + 1) * sizeof(*a->slot));
		a->nslot++;
	}
	flight_reset(a);
	memset(&a->slot[i], 0, sizeof(a->slot[i]));
	a->slot[i].used = true;
	a->flying++;
	return (int)i;
}

void
autobw_slot_close(struct autobw *a, int slot)
{
	if (slot < 0 || (size_t)slot >= a->nslot || !a->slot[slot].used)
		return;
	flight_reset(a);
	if (a->slot[slot].grew)
		a->writing--;
	a->slot[slot].used = false;
	a->flying--;
}

void
autobw_last_tasks(struct autobw *a, bool all_there)
{
	a->last_tasks = all_there;
}

/* climb, learning: would the search end after this epoch whether its k
 * writers write R (1 - e), R or R (1 + e)?  (Each registered for the
 * question only, then dropped: the search's own state as it was.) */
static bool
epoch_is_last(struct autobw *a, double R, double e)
{
	const char *step = a->step;
	long kbest = a->kbest, lo = a->lo, hi = a->hi;
	double best_rate = a->best_rate;
	bool last = a->climb && a->k >= 2 && !reg_find(a, a->k) &&
		    (!a->nreg || bytes_known(a) == 2);
	for (int i = -1; last && i <= 1; i++) {
		double r = R * (1 + (double)i * e);
		reg_flown(a, a->c, a->k, r, e, 1, 0);
		last = climb_next(a, a->k) == 0;
		a->nreg--;
	}
	a->step = step;
	a->kbest = kbest;
	a->lo = lo;
	a->hi = hi;
	a->best_rate = best_rate;
	return last;
}

/* Is R (MB/s of k writers, within e) decided against every threshold
 * the search compares it with (autobw.h)? */
static bool
flight_decides(struct autobw *a, double R, double e)
{
	if (e <= AUTOBW_FLIGHT_TOL)
		return true;
	if (e > 0.5)
		return false;
	/* (the name's last tasks wait for learning to end, and nothing
	 * will be compared with this rate: autobw_last_tasks) */
	if (a->last_tasks && epoch_is_last(a, R, e))
		return true;
	const struct autobw_entry *one = reg_find(a, 1);
	double r1 = one ? one_pace(one) : a->early;
	/* (k writers at the one writer's pace: what slowed and kept_pace
	 * ask, only at or beyond the fill point) */
	bool past = a->fill >= 2 && a->k >= a->fill;
	double paced = (1 - AUTOBW_CLIMB_GAIN) * (double)a->k * r1;
	/* a rate within GAIN of these decides little either way (the
	 * fill point writing at B sat on both, never clear of them, and
	 * its epoch streamed half the run) */
	if (e > AUTOBW_CLIMB_GAIN &&
	    ((past && !clear_of(R, e, paced)) ||
	     !clear_of(R, e, (1 - AUTOBW_CLIMB_GAIN) * a->B)))
		return false;
	/* k writers that slowed one another past the fill point: the
	 * search leaves them downward, whatever their rate */
	bool leaves = past && R < paced && clear_of(R, e, paced);
	long kb = autobw_best(a, NULL);
	/* (the one writer carried: they beat it.  At the fill point,
	 * clearly at B and at the one writer's pace, they kept pace and
	 * filled B whatever their rate within e: the search's next step
	 * is the same, and 8 checkpoints ended before 5 writers at 200
	 * MB/s were known within 2.5 %, leaving the tail untried) */
	if (!kb)
		return leaves || (past && R > paced &&
				  R > (1 - AUTOBW_CLIMB_GAIN) * a->B);
	if (bytes_known(a) != 2)
		return false; /* (its rate is not MB/s of k writers) */
	const struct autobw_entry *b = reg_find(a, kb);
	double Rb = rate_of(a, b);
	double thr = kb < a->k ? Rb * (1 + AUTOBW_CLIMB_GAIN)
			       : Rb / (1 + AUTOBW_CLIMB_GAIN);
	if (!clear_of(R, e + b->err, thr))
		return false;
	/* A rate that loses matters no more.  One that wins becomes the
	 * best every later epoch is compared with: known within
	 * FLIGHT_TOL (best7's 7 writers taken within 10 % because they
	 * beat 10, 116 MB/s of 133, then lost to 6 writers' 121: +16 %
	 * on congestdev). */
	return R < thr || leaves;
}

/* The mean MB of a task: of those that finished, else at least what
 * the running one that wrote most wrote; 0: not known. */
static double
task_size(const struct autobw *a)
{
	double q = a->task_n ? a->task_mb / (double)a->task_n : 0;
	for (size_t i = 0; !(q > 0) && i < a->nslot; i++)
		if (a->slot[i].used && a->slot[i].mb > q)
			q = a->slot[i].mb;
	return q;
}

bool
autobw_slot_young(const struct autobw *a, int slot)
{
	if (slot < 0 || (size_t)slot >= a->nslot || !a->slot[slot].used)
		return false;
	if (a->task_n) {
		double q = a->task_mb / (double)a->task_n;
		return q > 0 && a->slot[slot].mb <= q / 2;
	}
	/* No task ended: their size is not known, only that it is more
	 * than the most any wrote.  Stopping one loses what it wrote; the
	 * step down needs n - k of them (best7 with 32 tasks: of the fill
	 * point's 10 writers, the 2 under half of the most any wrote were
	 * stopped, and 8 drained at 100 MB/s where 7 write 133: +18 % in
	 * wfrun sim).  So all but the one that wrote most may stop. */
	return a->slot[slot].mb < task_size(a);
}

/* Register j writers' rate R (constraint c), taken in flight within e
 * over w s of windows, for tasks of q MB: a wave's time j q / R
 * (returned). */
static double
reg_flown(struct autobw *a, double c, long j, double R, double e, double q,
	  double w)
{
	double t = (double)j * q / R;
	reg_add(a, c, j, t, R, R / (double)j, e);
	a->reg[a->nreg - 1].flown = true;
	a->reg[a->nreg - 1].w = w;
	return t;
}

static void seen_taken(struct autobw *a, double q);

/* The k writers' rate is taken, R within e over w seconds: register
 * the epoch (and the carried one writer's, whose rate was taken
 * early), and begin the next. */
static void
flight_taken(struct autobw *a, double R, double e, double w)
{
	double q = task_size(a);
	if (!(q > 0))
		q = 1;
	if (a->carry && a->epoch == a->carry + 1) {
		reg_add(a, a->B, 1, q / a->early, a->early, a->early,
			a->early_err);
		a->carry = 0;
	}
	seen_taken(a, q);
	double t = reg_flown(a, a->c, a->k, R, e, q, w);
	a->flight_s = w;
	a->last_mean = t; /* (a task of the mean size, at R / k) */
	a->last_t = t;
	a->last_mbps = R;
	a->busy = w;
	long next = climb_next(a, a->k);
	if (!next)
		finish_learning(a);
	else
		begin_epoch(a, a->B / (double)next);
	/* what they wrote so far was this epoch's: their windows start
	 * afresh (begin_epoch dropped the kept ones; these are kept only
	 * as windows of the count that wrote them, if that is the new k or
	 * a ramp below it) */
	flight_reset(a);
}

/* The ramp's j writers write R within e (W s of windows): kept, the
 * closest reading of each count, for when the epoch's rate is taken
 * (seen_taken). */
static void
seen_add(struct autobw *a, long j, double R, double e, double W)
{
	size_t i = 0;
	while (i < a->nseen && a->seen[i].j != j)
		i++;
	if (i == a->nseen) {
		a->seen = xrealloc(a->seen, (a->nseen + 1) * sizeof(*a->seen));
		a->nseen++;
	} else if (a->seen[i].e <= e) {
		return;
	}
	a->seen[i] = (struct autobw_seen){ j, R, e, W };
}

/* The epoch's k writers' rate is taken: the counts its ramp passed,
 * read within AUTOBW_SEEN_TOL but not registered (not known within
 * FLIGHT_TOL, nor clearly slowed), are registered for q MB tasks too.
 * (Checkpoints ready two at a time: 4 writers read at 160 MB/s within
 * 4.3 %, then 6 at 100, clearly slowed; with 4 untold, the family's
 * bound from 6 said 3, +19 % over the best static, 4, in wfrun sim.) */
static void
seen_taken(struct autobw *a, double q)
{
	if (a->nreg && bytes_known(a) != 2)
		return;
	for (size_t i = 0; i < a->nseen; i++) {
		const struct autobw_seen *s = &a->seen[i];
		if (s->j >= 2 && s->j < a->k && s->e <= AUTOBW_SEEN_TOL &&
		    !reg_find(a, s->j))
			reg_flown(a, a->B / (double)s->j, s->j, s->R, s->e, q,
				  s->W);
	}
	a->nseen = 0;
}

/* j writers of a ramp to k, at R MB/s within e: did they clearly slow
 * one another (autobw_flight)? */
static bool
ramp_slowed(const struct autobw *a, long j, double R, double e)
{
	const struct autobw_entry *one = reg_find(a, 1);
	double r1 = one ? one_pace(one) : a->early;
	double e1 = one ? one->err : a->early_err;
	if (!(r1 > 0) || e > 0.5 || reg_find(a, j))
		return false;
	double thr = (1 - AUTOBW_CLIMB_GAIN) * fmin((double)j * r1, a->B);
	return R < thr && clear_of(R, e + e1, thr);
}

/* The rate of j writers from the windows kept of j and those now:
 * j times their mean rate, weighted by their lengths (a device shares
 * itself among its writers: congestdev's throttle does, and a window
 * of every writer at once never formed where 8 writers of 5 s tasks at
 * 12.5 MB/s, each needing 1.2 s for a window, started or ended every
 * 0.6 s: best7's 8 writers, never taken, ran 16 tasks, +22 %).  Its
 * error: the windows' own (their edges', summed within a period, the
 * periods' in quadrature), and the spread of their rates over the
 * square root of how many there are less one (a share that is not
 * fair shows there).  False until there are j windows. */
static bool
pooled_rate(const struct autobw *a, const struct autobw_pool *kept, long j,
	    double *R, double *e, double *W)
{
	struct autobw_pool P = *kept;
	pool_add(&P, &a->now);
	if (P.n < j || j < 2 || !(P.w > 0) || !(P.rw > 0))
		return false;
	double m = P.rw / P.w;
	double var = fmax(P.r2w / P.w - m * m, 0);
	double edge = sqrt(P.e2) / P.w / m;
	double spread = sqrt(var / (double)(P.n - 1)) / m;
	*R = (double)j * m;
	*e = sqrt(edge * edge + spread * spread);
	*W = P.w / (double)j;
	return true;
}

/* The windows now are of j < k writers, ramping up to k: with those
 * kept of j, do they say the device congests at j?  Then the epoch is
 * one of j writers, taken.  If not, and their rate is known within
 * FLIGHT_TOL, j is registered as its own epoch would be, and the epoch
 * goes on. */
static bool
ramp_edge(struct autobw *a, long j)
{
	static const struct autobw_pool none;
	double R, e, W;
	if (!pooled_rate(a, a->rj == j ? &a->rpool : &none, j, &R, &e, &W) ||
	    W < AUTOBW_RATE_SPAN)
		return false;
	seen_add(a, j, R, e, W);
	if (!ramp_slowed(a, j, R, e)) {
		/* (the one writer may be carried, not registered yet) */
		if (e <= AUTOBW_FLIGHT_TOL && !reg_find(a, j) &&
		    (!a->nreg || bytes_known(a) == 2)) {
			double q = task_size(a);
			reg_flown(a, a->B / (double)j, j, R, e, q > 0 ? q : 1,
				  W);
		}
		if (a->stage && j >= a->stage) {
			/* a stage that did not slow: the next joins */
			long s = a->stage + stage_step(autobw_best(a, NULL));
			a->stage = s < a->k ? s : 0;
		}
		return false;
	}
	a->k = j;
	a->c = a->B / (double)j;
	flight_taken(a, R, e, W);
	return true;
}

/* An edge of slot x's count: its window grows.  True when that took
 * the k writers' rate (or, ramping up to k, fewer writers'). */
static bool
slot_edge(struct autobw *a, struct autobw_slot *x, struct autobw_edge ed)
{
	if (!x->grew) {
		/* its first step is passed over; the others' windows
		 * start again: one more writes from now (a task's start,
		 * before it writes, is not) */
		flight_reset(a);
		x->grew = true;
		a->writing++;
		return false;
	}
	window_count(a, x, -1);
	if (x->n == 0) {
		x->t0 = ed.t;
		x->mb0 = ed.mb;
		x->d0 = ed.d;
	}
	x->t1 = ed.t;
	x->mb1 = ed.mb;
	x->d1 = ed.d;
	x->n++;
	window_count(a, x, 1);
	if (a->phase != AUTOBW_LEARNING)
		return false; /* (held: read, nothing registered) */
	long j = count_now(a);
	if (j > a->peak)
		a->peak = j;
	/* (fewer than the most so far: writers that ended, at the end of
	 * the run, not a ramp: congestdev's 2 writers of k1steep's last
	 * 2 tasks, 70 of 80 MB/s, ended an epoch of 3 as slowed, and 4
	 * were chosen; 3 writers were never measured) */
	if (j && j < a->k)
		return j >= a->peak && ramp_edge(a, j);
	/* with the windows kept since the epoch began */
	double R, e, W;
	if (j != a->k || !pooled_rate(a, &a->kpool, j, &R, &e, &W) ||
	    W < AUTOBW_RATE_SPAN || !flight_decides(a, R, e))
		return false;
	flight_taken(a, R, e, W);
	return true;
}

bool
autobw_flight(struct autobw *a, int slot, double now, double mb)
{
	if (!autobw_flies(a) || slot < 0 || (size_t)slot >= a->nslot ||
	    !a->slot[slot].used)
		return false;
	struct autobw_slot *x = &a->slot[slot];
	if (mb < x->st.last) {
		/* (a count that went back: its task started again) */
		flight_reset(a);
		if (x->grew)
			a->writing--;
		memset(&x->st, 0, sizeof(x->st));
		x->grew = false;
	}
	x->mb = mb;
	struct autobw_edge ed[3];
	int n = steps_feed(&x->st, now, mb, ed);
	for (int i = 0; i < n; i++)
		if (slot_edge(a, x, ed[i]))
			return true;
	return false;
}
