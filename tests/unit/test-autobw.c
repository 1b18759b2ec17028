/* Unit tests of the storage-bandwidth learner, after the paper's Fig. 17. */
#include <math.h>
#include <string.h>

#include "autobw.h"
#include "tap.h"

/* Run one full epoch in which every task takes secs and writes mb MB
 * (< 0: not known): k at once, in waves (a climb's epoch is two). */
static void
epoch_mb(struct autobw *a, double secs, double mb)
{
	int e = autobw_epoch(a);
	long k = a->k, n = autobw_tasks(a);
	for (long i = 0; i < n; i++) {
		double w = (double)(i / k) * secs;
		autobw_started(a);
		autobw_finished(a, e, w, w + secs, mb);
	}
}

/* A law of the family (issue 23): k writers write at
 * min(k r1, B f(k)) MB/s in all, f(k) = 1 up to the knee k0, then
 * 1 / (1 + alpha (k - k0)); r1 = 0: no per-writer cap. */
struct law {
	double B, r1, knee, alpha;
};

static double
law_rate(const struct law *L, long k)
{
	double f = k <= L->knee ? 1 : 1 / (1 + L->alpha * ((double)k - L->knee));
	double dev = L->B * f;
	return L->r1 > 0 && (double)k * L->r1 < dev ? (double)k * L->r1 : dev;
}

/* One epoch streamed through its k places by the law, its tasks
 * writing 16 to 256 MB each (a fixed sequence from *seq): each place
 * takes the next task as its last ends, every writer at the law's rate
 * for k. */
static void
epoch_sizes(struct autobw *a, const struct law *L, unsigned *seq)
{
	int e = autobw_epoch(a);
	long k = a->k, n = autobw_tasks(a);
	double per = law_rate(L, k) / (double)k, at[64] = { 0 };
	for (long i = 0; i < n; i++) {
		*seq = *seq * 1103515245u + 12345u;
		double mb = 16 + (double)((*seq >> 16) % 241);
		long p = i % k;
		autobw_started(a);
		autobw_finished(a, e, at[p], at[p] + mb / per, mb);
		at[p] += mb / per;
	}
}

/* Drive a climb by the law, epoch by epoch (every task writes mb MB at
 * the law's rate for its epoch's k; mb = 0: 16 to 256 MB each), for at
 * most 20 epochs; the k chosen for many tasks, and the epochs run in
 * *epochs. */
static long
learn_law(struct autobw *a, const struct law *L, double mb, int *epochs)
{
	int n = 0;
	unsigned seq = 1;
	while (a->phase == AUTOBW_LEARNING && n < 20) {
		long k = a->k;
		if (mb > 0)
			epoch_mb(a, mb * (double)k / law_rate(L, k), mb);
		else
			epoch_sizes(a, L, &seq);
		n++;
	}
	*epochs = n;
	return autobw_writers(a->B, autobw_choose(a, 10000));
}

/* Was k writers' epoch registered? */
static bool
reg_has(const struct autobw *a, long k)
{
	for (size_t i = 0; i < a->nreg; i++)
		if (a->reg[i].k == k)
			return true;
	return false;
}

/* Feed the running slots' counts to autobw_flight every 0.02 s from t0
 * until it takes their rate or limit seconds pass: n writers (those
 * slots) at the law's rate for n each, their counts growing in steps
 * of step MB (0: smoothly).  The time it took, or -1. */
static double
fly(struct autobw *a, const struct law *L, const int *slot, long n,
    double step, double limit)
{
	double per = law_rate(L, n) / (double)n;
	for (int j = 1; j * 0.02 < limit; j++) {
		double t = j * 0.02, mb = per * t;
		if (step > 0)
			mb = floor(mb / step) * step;
		for (long i = 0; i < n; i++)
			if (autobw_flight(a, slot[i], t, mb))
				return t;
	}
	return -1;
}

/* As fly, the counts in steps of step MB (1: dd's 1 MiB blocks; more: a
 * kernel throttle's, whose first step, of twice that, comes at once), but
 * every `every` seconds one writer ends and another starts in its place
 * (its count from 0): no writer's window is longer than n times that. */
static double
fly_churn(struct autobw *a, const struct law *L, int *slot, long n,
	  double every, double limit, double step)
{
	double per = law_rate(L, n) / (double)n, from[32] = { 0 };
	long next = 0;
	for (int j = 1; j * 0.02 < limit; j++) {
		double t = j * 0.02;
		if (t >= (double)(next + 1) * every) {
			long i = next++ % n;
			autobw_slot_close(a, slot[i]);
			slot[i] = autobw_slot_open(a);
			from[i] = t;
		}
		for (long i = 0; i < n; i++)
			if (autobw_flight(a, slot[i], t,
					  step * (floor(per * (t - from[i]) /
							step) +
						  (step > 1 ? 2 : 0))))
				return t;
	}
	return -1;
}

/* As fly_churn, but the device is one throttle its n writers share, as
 * congestdev's (a cgroup's blkio cap): every 0.1 s it lets the law's
 * rate for n through, in 1 MB writes (dd's blocks) handed round the
 * writers in turn, so that each gets one more or one fewer than the
 * others from one tick to the next (13 MB a tick among 7 writers: 1 or
 * 2 each, 1 to 3 MB as read on congestdev), their sum the law's. */
static double
fly_shared(struct autobw *a, const struct law *L, int *slot, long n,
	   double every, double limit)
{
	double mb[32] = { 0 }, budget = 0;
	long next = 0, turn = 0;
	for (int j = 1; j * 0.02 < limit; j++) {
		double t = j * 0.02;
		if (t >= (double)(next + 1) * every) {
			long i = next++ % n;
			autobw_slot_close(a, slot[i]);
			slot[i] = autobw_slot_open(a);
			mb[i] = 0;
		}
		if (j % 5 == 0)
			for (budget += law_rate(L, n) * 0.1; budget >= 1;
			     budget -= 1)
				mb[turn++ % n] += 1;
		for (long i = 0; i < n; i++)
			if (autobw_flight(a, slot[i], t, mb[i]))
				return t;
	}
	return -1;
}

/* A climb on B 200 with 16 executors whose one writer wrote 64 MB at
 * r1 MB/s: its next epoch is the fill point. */
static void
one_writer_at(struct autobw *a, double r1)
{
	autobw_init_climb(a, 200, 16, 2);
	int e = autobw_epoch(a);
	autobw_started(a);
	autobw_finished(a, e, 0, 64.0 / r1, 64);
}

/* A climb whose one writer wrote at r1 MB/s, then whose fill point's n
 * writers (slot[0] to slot[n - 1]) wrote by law L until their rate was
 * taken: true if its next epoch is k writers, the first k of them left
 * running. */
static bool
fill_then(struct autobw *a, const struct law *L, double r1, int *slot,
	  long n, long k)
{
	one_writer_at(a, r1);
	for (long i = 0; i < n; i++)
		slot[i] = autobw_slot_open(a);
	bool taken = fly(a, L, slot, n, 0, 2) > 0 && a->k == k;
	for (long i = k; i < n; i++)
		autobw_slot_close(a, slot[i]);
	return taken;
}

/* autobw_open for a climb's registry reg (n entries) of a device of
 * 200 MB/s, 16 executors and `cores` cores, pile tasks piled up; a
 * is left preloaded for its step, lo and hi (the caller releases it). */
static long
open_piled(struct autobw *a, const struct autobw_entry *reg, size_t n,
	   long pile, long cores)
{
	autobw_init_climb(a, 200, 16, cores);
	autobw_preload(a, reg, n, pile);
	a->pile = pile;
	return autobw_open(a);
}

static void
epoch(struct autobw *a, double secs)
{
	epoch_mb(a, secs, -1);
}

/* MB a writer has written by t: whole 1 MB writes (as dd's 1 MiB
 * blocks are counted) at rate MB/s after lag s of start-up, or, when
 * burst > 0, burst MB at once at lag and nothing after; or (fast > 0)
 * at fast MB/s for its first 0.1 s, then at rate. */
static double lag, rate, burst, fast, steps;

static double
written(double t)
{
	if (t <= lag)
		return 0;
	if (steps > 0) /* 2 steps at once, then one every steps / rate s */
		return fmin(32, steps * (2 + floor((t - lag) * rate / steps)));
	if (burst > 0)
		return burst;
	if (fast > 0 && t - lag > 0.1)
		return floor(0.1 * fast + (t - lag - 0.1) * rate);
	return floor((t - lag) * (fast > 0 ? fast : rate));
}

/* Feed a climb's one writer a sample every AUTOBW_SAMPLE_S s up to
 * `until`; return the time the rate was taken, or -1. */
static double
feed_fn(struct autobw *a, double until)
{
	for (int i = 1; i * AUTOBW_SAMPLE_S <= until + 1e-9; i++) {
		double now = i * AUTOBW_SAMPLE_S;
		if (autobw_sample(a, now, written(now)))
			return now;
	}
	return -1;
}

static double
feed(struct autobw *a, double l, double mbps, double until)
{
	lag = l;
	rate = mbps;
	burst = fast = steps = 0;
	return feed_fn(a, until);
}

int
main(void)
{
	struct autobw a;

	/* Unbounded, B = 450 MB/s, 225 I/O executors: c starts at 2. */
	autobw_init(&a, 450, 225, false, 0, 0, 0);
	is_int((long)autobw_constraint(&a), 2, "unbounded starts at B / executors = 2");
	is_int(a.k, 225, "225 tasks share the device");
	ok(autobw_can_start(&a), "tasks may join");
	epoch(&a, 100);
	is_int((long)autobw_constraint(&a), 4, "then 4");
	is_int(a.k, 112, "floor(450 / 4) = 112");
	epoch(&a, 40);    /* 40 <= 100 / 2: go on */
	is_int((long)autobw_constraint(&a), 8, "then 8");
	epoch(&a, 15);    /* 15 <= 20: go on */
	is_int((long)autobw_constraint(&a), 16, "then 16");
	is_int(autobw_epoch(&a), 4, "the 4th epoch");
	epoch(&a, 10);    /* 10 > 7.5: stop, not registered */
	ok(a.phase == AUTOBW_LEARNED, "learning stops after the 4th epoch");
	is_int(a.nreg, 3, "registry of 3 (2, 4, 8)");
	is_int((long)a.reg[2].c, 8, "the last registered is 8");
	is_int((long)autobw_choose(&a, 2304), 8, "the choice for 2304 tasks is 8");
	is_int((long)autobw_constraint(&a), 8, "and tasks now get 8");
	is_int(autobw_epoch(&a), 0, "no epoch after learning");
	ok(autobw_can_start(&a), "the constraint alone limits tasks now");
	autobw_release(&a);

	/* Bounded auto(2,256,2): 8 epochs, all registered; choose 8. */
	autobw_init(&a, 450, 225, true, 2, 256, 2);
	double t[] = { 100, 45, 14, 9, 8, 7, 6.5, 6.4 };
	int n_epochs = 0;
	while (a.phase == AUTOBW_LEARNING && n_epochs < 20) {
		epoch(&a, t[n_epochs < 8 ? n_epochs : 7]);
		n_epochs++;
	}
	is_int(n_epochs, 8, "bounded runs 8 epochs (2 .. 256)");
	is_int(a.nreg, 8, "every epoch is registered");
	is_int((long)a.reg[7].c, 256, "up to 256");
	is_int(a.reg[7].k, 1, "one task at 256 MB/s");
	is_int((long)autobw_choose(&a, 2304), 8, "the choice is 8");
	/* T(2304, 8) = floor(2304/56) * 14 + est(8): 41 waves of 14 s, and
	 * the 8 left run as in the epoch of least k >= 8 (c=32, k=14: 8 s) */
	ok(fabs(autobw_objective(&a, 2304, 2) - (41 * 14 + 8)) < 1e-9,
	   "objective with a remainder uses the epoch of least k >= r");
	autobw_release(&a);

	/* Ties go to the highest constraint (least congestion). */
	autobw_init(&a, 100, 10, true, 10, 20, 2);
	epoch(&a, 10); /* c=10, k=10 */
	epoch(&a, 5);  /* c=20, k=5 */
	ok(a.phase == AUTOBW_LEARNED, "bounded ends past max");
	is_int(a.nreg, 2, "two entries");
	/* n = 10: T(10) = 1 x 10 = 10; T(20) = 2 x 5 = 10: a tie */
	is_int((long)autobw_choose(&a, 10), 20, "a tie goes to the highest c");
	/* n = 11: T(10) = 10 + est(1) = 10 + 5 = 15; T(20) = 2 x 5 + 5 = 15 */
	is_int((long)autobw_choose(&a, 11), 20, "still a tie with remainders");
	/* n = 3: T(10) = est(3) = 5 (k=5 holds 3); T(20) = 5 */
	is_int((long)autobw_choose(&a, 3), 20, "few tasks: least congestion");
	autobw_release(&a);

	/* Re-evaluation: the choice changes with n. */
	autobw_init(&a, 100, 10, true, 10, 50, 5);
	epoch(&a, 4);  /* c=10, k=10, t=4 */
	epoch(&a, 1);  /* c=50, k=2, t=1 */
	is_int((long)autobw_choose(&a, 2), 50, "2 tasks: one wave at k=2 (1 s) beats k=10 (4 s)");
	is_int((long)autobw_choose(&a, 100), 10, "100 tasks: 10 waves of 4 s beat 50 waves of 1 s");
	autobw_release(&a);

	/* Fewer tasks than an epoch's concurrency. */
	autobw_init(&a, 450, 225, false, 0, 0, 0);
	for (int i = 0; i < 30; i++)
		autobw_started(&a);
	autobw_no_more_ready(&a);
	ok(a.phase == AUTOBW_LEARNING, "waits for the 30 that joined");
	for (int i = 0; i < 30; i++)
		autobw_finished(&a, 1, 0, 2.0, -1);
	ok(a.phase == AUTOBW_LEARNED, "a partial first epoch ends learning");
	is_int(a.nreg, 1, "registered with its real concurrency");
	is_int(a.reg[0].k, 30, "k = 30");
	is_int((long)autobw_constraint(&a), 2, "the constraint stays 2");
	autobw_release(&a);

	/* Stopping before an epoch has begun; not after. */
	autobw_init(&a, 100, 10, false, 0, 0, 0); /* c=10, k=10 */
	epoch(&a, 4);
	ok(autobw_stop(&a), "stop before epoch 2 takes a task");
	ok(a.phase == AUTOBW_LEARNED, "learned");
	is_int((long)autobw_constraint(&a), 10, "with what was registered");
	autobw_release(&a);
	autobw_init(&a, 100, 10, false, 0, 0, 0);
	autobw_started(&a);
	ok(!autobw_stop(&a), "an epoch that began runs to its end");
	/* A lost task frees its place. */
	autobw_abandon(&a, 1);
	is_int(a.joined, 0, "abandoned: no longer in the epoch");
	ok(autobw_can_start(&a), "its place is free");
	autobw_release(&a);

	/* A registry from an earlier run: learned from the start. */
	struct autobw_entry kept[] = {
		{ 10, 10, 4, 0, 0, 0, false, 0, 0, 0, 0, 0 },
		{ 50, 2, 1, 0, 0, 0, false, 0, 0, 0, 0, 0 },
	};
	autobw_init(&a, 100, 10, true, 10, 50, 5);
	autobw_preload(&a, kept, 2, 100);
	ok(a.phase == AUTOBW_LEARNED, "preloaded: no learning");
	is_int((long)autobw_constraint(&a), 10, "100 tasks: 10");
	is_int(autobw_epoch(&a), 0, "no epoch");
	autobw_release(&a);

	/* An epoch is measured by the throughput it really had.  As on
	 * congestdev (bench/RESULTS.md §7): B = 200, 16 executors, tasks
	 * ready two at a time.  Epoch 1 (c=12.5, k=16): pairs start every
	 * 0.25 s and each takes 2 s, so at most 16 never run at once; their
	 * mean (2 s) says nothing of k=16, their throughput does: 16 tasks
	 * kept the device busy 3.75 s, t_1 = 16 x 3.75 / 16 = 3.75 s. */
	autobw_init(&a, 200, 16, false, 0, 0, 0);
	for (int i = 0; i < 16; i++)
		autobw_started(&a);
	for (int i = 0; i < 16; i++)
		autobw_finished(&a, 1, 0.25 * (i / 2), 0.25 * (i / 2) + 2, -1);
	is_int(a.nreg, 1, "staggered epoch registered");
	ok(fabs(a.reg[0].t - 3.75) < 1e-9, "t = k S / n = 3.75 s (S from first start to last end)");
	ok(fabs(a.last_mean - 2) < 1e-9, "while the tasks' mean was 2 s");
	/* Epoch 2 (c=25, k=8), all at once, 1.8 s each: 1.8 <= 3.75 / 2, so
	 * learning goes on (compared with the mean, 1.8 > 1, it would have
	 * stopped at the most congested constraint). */
	epoch(&a, 1.8);
	ok(a.phase == AUTOBW_LEARNING && a.epoch == 3, "halving held: epoch 3");
	/* Two pairs, the second starting after the first ended: the idle
	 * gap between them is not counted (S = 1 + 1). */
	autobw_release(&a);
	autobw_init(&a, 100, 25, true, 25, 25, 2); /* one epoch, c=25, k=4 */
	for (int i = 0; i < 4; i++)
		autobw_started(&a);
	autobw_finished(&a, 1, 0, 1, -1);
	autobw_finished(&a, 1, 0, 1, -1);
	autobw_finished(&a, 1, 5, 6, -1);
	autobw_finished(&a, 1, 5, 6, -1);
	ok(fabs(a.busy - 2) < 1e-9, "S leaves out the time no task ran");
	ok(fabs(a.reg[0].t - 2) < 1e-9, "t = 4 x 2 / 4 = 2 s");
	autobw_release(&a);

	/* The climb (beyond the paper), on three laws; B = 450, 225
	 * executors, 48 cores.  t(k) is the time of k writers of 290 MB. */
	/* steep: one writer fills the device; t = 0.64 k up to 8 */
	autobw_init_climb(&a, 450, 225, 48);
	is_int(a.k, 1, "climb starts at k = 1");
	is_int((long)autobw_constraint(&a), 450, "c = B");
	ok(fabs(autobw_elsewhere(&a) - 450.0 / 48) < 1e-9,
	   "elsewhere before anything is known: one per core, as the baseline");
	epoch(&a, 0.64);
	is_int(a.k, 2, "then k = 2");
	is_int((long)autobw_elsewhere(&a), 450, "elsewhere: the best so far, k = 1");
	epoch(&a, 1.28);
	ok(a.phase == AUTOBW_LEARNED, "two writers added nothing: learned");
	is_int((long)autobw_constraint(&a), 450, "k = 1");
	is_int(a.nreg, 2, "both registered");
	autobw_release(&a);
	/* stream-capped (the paper's law): 36 s up to 56 writers */
	autobw_init_climb(&a, 450, 225, 48);
	epoch(&a, 36);
	epoch(&a, 36);
	is_int(a.k, 48, "two writers doubled it: jump to one per core");
	ok(fabs(autobw_elsewhere(&a) - 450.0 / 48) < 1e-9, "elsewhere: bet on 48");
	epoch(&a, 36);
	is_int(a.k, 96, "48 is best: try 96");
	epoch(&a, 86.6);
	/* 45 writers or fewer, at most 45 times one, cannot beat 48; the
	 * larger side of the bracket (48, 96) is searched */
	is_int(a.k, 66, "96 lost: 66, golden section of (48, 96)");
	is_int(a.lo, 45, "below 46 none can win");
	is_int(a.hi, 96, "the bracket's top: 96");
	ok(!strcmp(a.step, "golden-up"), "the step says why");
	autobw_release(&a);
	/* congestdev's shape (B = 200, 16 executors, 2 cores): 4 writers
	 * fill it, more congest; the jump is to 4 */
	autobw_init_climb(&a, 200, 16, 2);
	epoch(&a, 0.64);
	epoch(&a, 0.64);
	is_int(a.k, 4, "jump to max(4, cores) = 4");
	epoch(&a, 0.64);
	is_int(a.k, 8, "4 best: try 8");
	epoch(&a, 1.79);
	is_int(a.k, 6, "8 lost: 6, between 4 and 8");
	epoch(&a, 1.15);
	is_int(a.k, 5, "6 lost: 5, the last between 4 and 6");
	epoch(&a, 0.88);
	ok(a.phase == AUTOBW_LEARNED && !strcmp(a.step, "bracketed"),
	   "no k untried left between 3 and 6: learned");
	is_int((long)autobw_choose(&a, 1000), 50,
	       "for 1000 tasks c = 50, k = 4, the law's optimum");
	autobw_release(&a);
	/* stopped early while the most writers tried were the best */
	autobw_init_climb(&a, 450, 225, 48);
	epoch(&a, 36);
	epoch(&a, 36);
	ok(autobw_stop(&a), "stopped before the jump");
	ok(a.still_scaling, "still scaling at k = 2");
	autobw_release(&a);
	/* With the bytes known (epoch_mb): the fill point.  Paper's law:
	 * one writer of 290 MB takes 36.25 s (8 MB/s): 450 / 8 rounded:
	 * 56 fill B, the next epoch; at 56 the device writes 448 MB/s, near
	 * B, so 112 is not tried; 28 is, and loses. */
	autobw_init_climb(&a, 450, 225, 48);
	epoch_mb(&a, 36.25, 290);
	is_int(a.fill, 56, "one writer at 8 MB/s: 56 fill 450 MB/s");
	is_int(a.k, 56, "the next epoch is at the fill point");
	ok(fabs(autobw_elsewhere(&a) - 450.0 / 56) < 1e-9,
	   "elsewhere: bet on the fill point");
	epoch_mb(&a, 36.25, 290);
	ok(fabs(a.reg[1].mbps - 56 * 290 / 36.25) < 1e-6, "its MB/s recorded");
	ok(autobw_saturated(&a, &a.reg[1]), "448 of 450 MB/s: saturated");
	ok(a.phase == AUTOBW_LEARNED,
	   "so not 112; nor 28 (at most 28 times one writer): learned");
	is_int(autobw_best(&a, NULL), 56, "best: 56");
	ok(fabs(autobw_choose(&a, 2304) - 450.0 / 56) < 1e-9,
	   "chosen for 2304: c = B / 56");
	ok(!autobw_scaling(&a), "saturated: not scaling");
	autobw_release(&a);
	/* congestdev's law: 32 MB at 50 MB/s: 4 fill 200; 8 not tried */
	autobw_init_climb(&a, 200, 16, 2);
	epoch_mb(&a, 0.64, 32);
	is_int(a.k, 4, "fill point 4");
	epoch_mb(&a, 0.64, 32);
	ok(a.phase == AUTOBW_LEARNED && autobw_best(&a, NULL) == 4 &&
		   (long)autobw_choose(&a, 100) == 50,
	   "4 wrote at B: not 8, and 2 cannot beat 4: c = 50 in 2 epochs");
	autobw_release(&a);
	/* one task's rate is a sample: 5 % fast (52.5 MB/s) or 5 % slow
	 * (47.6 MB/s), 4 fill 200 still (the floor made it 3 when fast) */
	double samples[] = { 0.64 / 1.05, 0.64 * 1.05 };
	for (int i = 0; i < 2; i++) {
		autobw_init_climb(&a, 200, 16, 2);
		epoch_mb(&a, samples[i], 32);
		is_int(a.fill, 4, i ? "a slow sample: 4" : "a fast sample: 4");
		autobw_release(&a);
	}
	/* ... and B / r is rounded: 200 / 36 = 5.6 is 6, 200 / 44 = 4.5 is 5 */
	autobw_init_climb(&a, 200, 16, 2);
	epoch_mb(&a, 1.0, 36);
	is_int(a.fill, 6, "36 MB/s: 6");
	autobw_release(&a);
	autobw_init_climb(&a, 200, 16, 2);
	epoch_mb(&a, 1.0, 44);
	is_int(a.fill, 5, "44 MB/s: 5");
	autobw_release(&a);
	/* a fill point's epoch below B because its tasks came one by one
	 * (8 of 0.64 s starting 0.2 s apart: 125 of 200 MB/s), each at
	 * the one writer's pace (50 MB/s): 8 is not tried; nor with tasks
	 * of 0.8 s (40 MB/s each: they slowed one another, the device
	 * congests at the fill point, and more cannot gain) */
	for (int slow = 0; slow < 2; slow++) {
		double d = slow ? 0.8 : 0.64;
		autobw_init_climb(&a, 200, 16, 2);
		epoch_mb(&a, 0.64, 32);
		for (int i = 0; i < 8; i++) {
			autobw_started(&a);
			autobw_finished(&a, 2, 0.2 * i, 0.2 * i + d, 32);
		}
		ok(a.reg[1].mbps < 0.95 * 200, "%s: below B (%.0f MB/s)",
		   slow ? "slowed" : "kept pace", a.reg[1].mbps);
		ok(a.phase == AUTOBW_LEARNED &&
			   (long)autobw_constraint(&a) == 50,
		   "%s: learned, c = 50",
		   slow ? "writers slowed at 4" : "each kept one writer's pace");
		autobw_release(&a);
	}
	/* ... nor half as many: the paper's law (8 MB/s a writer, 56 fill
	 * 450), 112 tasks of 36.25 s through 56 places, ready 1.3 s apart
	 * (212 MB/s): t_56 = 76 s made 28 writers look as if they could
	 * beat 56 (28 x one writer's 1 / 36.25 s within 5 % of 56 / 76),
	 * and 28 was tried (wfrun sim, 6,000 checkpoints on 12 nodes) */
	autobw_init_climb(&a, 450, 225, 48);
	epoch_mb(&a, 36.25, 290);
	for (int i = 0; i < 112; i++) {
		autobw_started(&a);
		autobw_finished(&a, 2, 1.3 * i, 1.3 * i + 36.25, 290);
	}
	ok(a.reg[1].mbps < 0.95 * 450 && a.phase == AUTOBW_LEARNED &&
		   (long)autobw_constraint(&a) == (long)(450.0 / 56),
	   "56 below B, each at one writer's pace: learned, neither 28 nor 112");
	autobw_release(&a);
	/* the choice, too, asks more writers to earn their place: a fill
	 * point's epoch 10 % slow (8 tasks in 1.41 s), then 8 writers 1 %
	 * better (16 in 2.79 s), as a climb kept them: 4, not 8 (the
	 * paper's objective alone chose 8) */
	autobw_init_climb(&a, 200, 16, 2);
	{
		struct autobw_entry r3[] = {
			{ 200, 1, 0.64, 50, 0, 0, false, 0, 0, 0, 0, 0 },
			{ 50, 4, 0.705, 8 * 32 / 1.41, 0, 0, false, 0, 0, 0,
			  0, 0 },
			{ 25, 8, 1.395, 16 * 32 / 2.79, 0, 0, false, 0, 0, 0,
			  0, 0 },
		};
		autobw_preload(&a, r3, 3, 100);
	}
	ok(a.phase == AUTOBW_LEARNED, "learned");
	ok(autobw_objective(&a, 100, 2) < autobw_objective(&a, 100, 1),
	   "8's objective is the least");
	is_int((long)autobw_choose(&a, 100), 50, "but 4 is chosen: c = 50");
	autobw_release(&a);
	/* ... but when the fill point gained little over one writer, its
	 * half may beat it, and is tried */
	autobw_init_climb(&a, 200, 16, 2);
	epoch_mb(&a, 0.64, 32);
	epoch_mb(&a, 1.7, 32); /* 4 at 1.5 times one writer's rate */
	is_int(a.k, 3, "4 slowed: not 8, 3 (of (1, 4))");
	epoch_mb(&a, 0.96, 32);
	is_int(a.k, 2, "3 beat 4: then 2 (of (1, 3, 4))");
	epoch_mb(&a, 0.64, 32);
	ok(a.phase == AUTOBW_LEARNED && autobw_best(&a, NULL) == 2,
	   "2 beat it: c = 100");
	autobw_release(&a);
	/* a fill point of 2 goes on by neighbours: when its two writers
	 * write at B, learning is over (no jump to one per core, which is
	 * for a climb with no fill point: it cost a 45 s epoch of 8
	 * congested writers in wfrun sim) */
	autobw_init_climb(&a, 200, 16, 8);
	epoch_mb(&a, 0.32, 32);
	is_int(a.fill, 2, "one writer at 100 MB/s: 2 fill 200");
	is_int(a.k, 2, "fill point 2");
	epoch_mb(&a, 0.32, 32);
	ok(a.phase == AUTOBW_LEARNED && autobw_best(&a, NULL) == 2,
	   "2 wrote at B: learned, no jump to 8");
	autobw_release(&a);
	/* one writer fills B (the steep law): k = 2 checks it, and
	 * elsewhere runs one writer meanwhile */
	autobw_init_climb(&a, 450, 225, 48);
	epoch_mb(&a, 0.64, 290);
	is_int(a.fill, 1, "one writer at 453 MB/s fills B");
	is_int(a.k, 2, "then k = 2");
	is_int((long)autobw_elsewhere(&a), 450, "elsewhere one writer");
	epoch_mb(&a, 1.28, 290);
	ok(a.phase == AUTOBW_LEARNED && (long)autobw_constraint(&a) == 450,
	   "a second writer added nothing: k = 1");
	autobw_release(&a);
	/* one writer of unknown bytes: no fill point */
	autobw_init_climb(&a, 450, 225, 48);
	autobw_started(&a);
	autobw_finished(&a, 1, 0, 36.25, -1);
	is_int(a.fill, 0, "bytes unknown: no fill point");
	is_int(a.k, 2, "k = 2, as without bytes");
	autobw_release(&a);

	/* A climb's epoch is a stream: 2 k tasks through k places. */
	autobw_init_climb(&a, 100, 8, 2);
	epoch(&a, 1);
	is_int(a.k, 2, "k = 2");
	is_int(autobw_tasks(&a), 4, "it measures 4 tasks");
	autobw_started(&a);
	autobw_started(&a);
	ok(!autobw_can_start(&a), "2 running: no third");
	autobw_finished(&a, 2, 0, 1, -1);
	ok(autobw_can_start(&a), "one finished: another joins");
	autobw_started(&a);
	autobw_started(&a);
	autobw_finished(&a, 2, 0, 1, -1);
	ok(!autobw_can_start(&a), "4 joined: no more");
	/* no more ready: a stream that filled its places is a full epoch
	 * of k = 2 with the 3 tasks that ran (S = 2: t = 2 x 2 / 3) */
	autobw_release(&a);
	autobw_init_climb(&a, 100, 8, 2);
	epoch(&a, 1);
	autobw_started(&a);
	autobw_started(&a);
	autobw_finished(&a, 2, 0, 1, -1);
	autobw_started(&a);
	autobw_no_more_ready(&a);
	autobw_finished(&a, 2, 0, 1, -1);
	autobw_finished(&a, 2, 1, 2, -1);
	is_int(a.nreg, 2, "registered");
	ok(a.reg[1].k == 2 && fabs(a.reg[1].t - 4.0 / 3) < 1e-9,
	   "as k = 2, t = 4/3 s");
	autobw_release(&a);

	is_int(autobw_climb_jump(2, 16), 4, "jump: at least 4");
	is_int(autobw_climb_jump(48, 16), 16, "jump: at most the executors");

	/* A straggler from an earlier epoch does not count. */
	autobw_init(&a, 100, 50, false, 0, 0, 0); /* c=2, k=50 */
	ok(!autobw_finished(&a, 7, 0, 1.0, -1), "a task of another epoch is ignored");
	is_int(a.finished, 0, "nothing counted");
	autobw_release(&a);

	/* The early rate (autobw_sample).  congestdev: one writer at 50
	 * MB/s after 30 ms of start-up; the rate is taken once two
	 * successive rates agree within 5 %, at least 0.2 s after the first
	 * sample that had written; the fill point's epoch begins at once,
	 * the one writer the first of its tasks. */
	autobw_init_climb(&a, 200, 16, 2);
	autobw_started(&a);
	ok(autobw_wants_rate(&a), "its one writer is sampled");
	double at = feed(&a, 0.03, 50, 0.6);
	ok(at >= 0.05 + AUTOBW_RATE_SPAN - 1e-9 && at <= 0.4,
	   "taken 0.2 to 0.35 s after it began writing");
	ok(fabs(a.early - 50) <= 5, "at about 50 MB/s");
	ok(a.epoch == 2 && a.k == 4 && a.fill == 4 && a.carry == 1 &&
		   a.joined == 1,
	   "the fill point's epoch (4) began, the writer its first task");
	ok(!autobw_wants_rate(&a), "no more samples");
	is_int(a.nreg, 0, "nothing registered yet");
	for (int i = 0; i < 3; i++)
		autobw_started(&a);
	ok(!autobw_can_start(&a), "3 join: 4 at once");
	ok(!autobw_finished(&a, 2, at, at + 0.64, 32),
	   "one of epoch 2 ends: not over");
	ok(autobw_can_start(&a), "its place is free");
	double carried_mb = a.carry_mb;
	ok(!autobw_carry_done(&a, 0, 0.70, 32), "the carried ends: epoch 2 goes on");
	ok(a.nreg == 1 && a.reg[0].k == 1 && fabs(a.reg[0].t - 0.70) < 1e-9 &&
		   a.reg[0].mbps == a.early,
	   "epoch 1 registered: its whole time, the rate taken");
	is_int(a.finished, 2, "and it counts in epoch 2");
	ok(fabs(a.mb - (64 - carried_mb)) < 1e-9 && a.span[1].start == at,
	   "from the rate's time, with what it wrote since");
	for (int i = 0; i < 5; i++)
		autobw_started(&a);
	for (int i = 0; i < 5; i++)
		autobw_finished(&a, 2, at + 0.64 * (1 + i / 3),
				at + 0.64 * (2 + i / 3), 32);
	ok(autobw_can_start(&a) && a.epoch == 2 && a.finished == 7,
	   "epoch 2's tasks started (with the carried), 7 ended: the "
	   "places they left take more, which join it too");
	ok(autobw_finished(&a, 2, at + 1.28, at + 1.92, 32),
	   "the 8th ends epoch 2");
	ok(a.nreg == 2 && a.reg[1].k == 4, "4 registered after 1");
	long finished = a.finished;
	ok(!autobw_finished(&a, 2, at + 1.5, at + 2.2, 32) &&
		   a.finished == finished && a.nreg == 2,
	   "one that joined epoch 2 after its 8 ends after it: a straggler");
	autobw_release(&a);

	/* congestdev's kernel throttle lets a writer's 1 MiB writes through
	 * 5 MiB at a time, every 0.1 s (10 MiB at first): the count has few
	 * edges, but the MB at each are exact and their times known within
	 * 20 ms, so the rate is known within 10 % over 0.2 s, 5 % over 0.4;
	 * 32 MiB take 0.64 s */
	autobw_init_climb(&a, 200, 16, 2);
	autobw_started(&a);
	lag = 0.013, rate = 50, burst = fast = 0, steps = 5;
	at = feed_fn(&a, 0.64);
	ok(at > 0 && at <= 0.45, "steps of 5 MB: taken before the end");
	ok(fabs(a.early - 50) <= 5 && a.fill == 4, "at about 50 MB/s: 4");
	autobw_release(&a);
	steps = 0;

	/* Two writers' counts as congestdev's throttle let them through,
	 * read every 5 ms under load (2 CPU hogs; /tmp/cdx samp.py of
	 * session 9): a first step of 8 MiB, then 5 MiB every 0.1 s, each
	 * in bursts a few ms apart.  Sampled every 20 ms from any phase, a
	 * sample in the middle of a step saw part of it: taking those
	 * parts for edges made the rate 40.6 to 64.7 MB/s (fill 3 or 5) at
	 * some phases.  Whole steps say 4, at every phase where a rate is
	 * taken before the end. */
	{
		static const double tr[2][14][2] = {
			{ { .029, 1 }, { .034, 4 }, { .039, 6 }, { .049, 8 },
			  { .171, 11 }, { .176, 13 }, { .268, 18 },
			  { .370, 23 }, { .467, 26 }, { .472, 28 },
			  { .570, 32 } },
			{ { .023, 1 }, { .028, 5 }, { .033, 6 }, { .038, 8 },
			  { .161, 9 }, { .166, 13 }, { .262, 18 },
			  { .360, 22 }, { .365, 23 }, { .457, 24 },
			  { .462, 27 }, { .468, 28 }, { .560, 32 } },
		};
		int taken = 0, right = 0;
		for (int w = 0; w < 2; w++)
			for (int ph = 0; ph < 20; ph++) {
				autobw_init_climb(&a, 200, 16, 2);
				autobw_started(&a);
				for (double now = ph / 1000.0; now < 0.58;
				     now += AUTOBW_SAMPLE_S) {
					double mb = 0;
					for (int i = 0; i < 14 && tr[w][i][0] > 0;
					     i++)
						if (tr[w][i][0] <= now)
							mb = tr[w][i][1];
					if (autobw_sample(&a, now, mb))
						break;
				}
				taken += a.fill > 0;
				right += a.fill == 4 && fabs(a.early - 50) <= 5;
				autobw_release(&a);
			}
		ok(taken >= 10, "congestdev's steps: a rate taken at %d of 40 "
		   "phases", taken);
		is_int(right, taken, "each at 50 MB/s within 10 %%: fill 4");
	}

	/* A half is 0.1 s long within its edges' lateness: steps 0.095 and
	 * 0.1 s apart, sampled every 10 ms, measure 0.09 and 0.1 s.  The
	 * rate is taken from the second step on (at 0.33 s, seen 10 ms
	 * later); asking for 0.1 s exactly waited two steps more. */
	{
		static const double step[] = { 0.02, 0.135, 0.23, 0.33, 0.43,
					       0.53, 0.63 };
		autobw_init_climb(&a, 200, 16, 2);
		autobw_started(&a);
		at = -1;
		for (int i = 1; i <= 65 && at < 0; i++) {
			double now = i * 0.01, mb = 0;
			for (int j = 0; j < 7 && step[j] <= now + 1e-9; j++)
				mb = j ? 10 + 5 * j : 10;
			if (autobw_sample(&a, now, mb))
				at = now;
		}
		ok(at > 0 && at <= 0.345, "halves of 0.09 and 0.1 s: taken at "
		   "%.2f s", at);
		is_int(a.fill, 4, "fill 4");
		autobw_release(&a);
	}

	/* The epoch it joined ends only once the carried writer has ended:
	 * its 7 others first, then the carried one ends it. */
	autobw_init_climb(&a, 200, 16, 2);
	autobw_started(&a);
	at = feed(&a, 0, 50, 0.6);
	for (int i = 0; i < 7; i++) {
		autobw_started(&a);
		ok(!autobw_finished(&a, 2, at, at + 0.3, 32),
		   "epoch 2's task ends: the carried one still runs");
	}
	autobw_no_more_ready(&a);
	ok(a.phase == AUTOBW_LEARNING && a.epoch == 2, "epoch 2 waits");
	ok(autobw_carry_done(&a, 0, 0.64, 32), "the carried ends it");
	is_int(a.nreg, 2, "both registered");
	autobw_release(&a);

	/* No rate is taken early from a writer that wrote in one burst
	 * (buffered, then its fsync: the second half's rate is 0), from one
	 * so fast that one fills B (B / r < 1.5), or before there is a
	 * window of 2 x 0.1 s: its epoch runs to its end, as before. */
	autobw_init_climb(&a, 200, 16, 2);
	autobw_started(&a);
	lag = 0.03, burst = 32, fast = 0;
	ok(feed_fn(&a, 3) < 0, "one burst, then 3 s of nothing: no rate");
	ok(autobw_wants_rate(&a) && a.epoch == 1, "epoch 1 goes on");
	autobw_finished(&a, 1, 0, 3, 32);
	ok(a.epoch == 2 && a.k == 16 && a.carry == 0 && a.joined == 0,
	   "its end says the fill point, as before (11 MB/s: 16, the most)");
	autobw_release(&a);
	autobw_init_climb(&a, 200, 16, 2);
	autobw_started(&a);
	ok(feed(&a, 0, 150, 0.6) < 0, "150 of 200 MB/s: no rate");
	autobw_release(&a);
	autobw_init_climb(&a, 200, 16, 2);
	autobw_started(&a);
	ok(feed(&a, 0, 50, 0.2) < 0, "0.2 s in: too soon");
	autobw_release(&a);
	/* a writer at 100 MB/s for 0.1 s (its writes buffered), then 50:
	 * the first window is not steady, the next one is, at 50 */
	autobw_init_climb(&a, 200, 16, 2);
	autobw_started(&a);
	lag = 0, rate = 50, burst = 0, fast = 100;
	at = feed_fn(&a, 1);
	ok(at >= 0.3 && at <= 0.5, "taken from the second window");
	ok(fabs(a.early - 50) <= 5 && a.fill == 4, "at about 50 MB/s: 4");
	autobw_release(&a);
	/* near a fill point's edge (B / r = 3.5): 200 / 57 = 3.51 is 4,
	 * the upper of 3 and 4, taken within one writer (4 writers fill B
	 * whichever it is); 200 / 58 = 3.45 is 3 only once the rate is
	 * known within 1.5 %, else 4 (3 writers would keep the one
	 * writer's pace and end the search below B if 4 were the fill
	 * point) */
	autobw_init_climb(&a, 200, 16, 2);
	autobw_started(&a);
	at = feed(&a, 0, 57, 2);
	ok(at > 0 && at <= 0.3 && a.fill == 4,
	   "B / r = 3.51: 4, the upper count, taken at once (%.2f s)", at);
	autobw_release(&a);
	autobw_init_climb(&a, 200, 16, 2);
	autobw_started(&a);
	at = feed(&a, 0, 58, 2);
	ok(at > 0 && (a.fill == 4 || (a.fill == 3 && a.early_err <= 0.015)),
	   "B / r = 3.45: 4 (or 3 within 1.5 %%): fill %ld, %.3g MB/s "
	   "within %.3f", a.fill, a.early, a.early_err);
	autobw_release(&a);

	/* The carried writer is lost (its worker was): its rate stands, its
	 * own epoch is not registered, and its place in epoch 2 is free
	 * again: epoch 2 takes another task, as for any task lost. */
	autobw_init_climb(&a, 200, 16, 2);
	autobw_started(&a);
	at = feed(&a, 0, 50, 0.6);
	for (int i = 0; i < 7; i++) {
		double w = at + 0.85 * (i / 4); /* 4 at 150 MB/s */
		autobw_started(&a);
		autobw_finished(&a, 2, w, w + 0.85, 32);
	}
	autobw_abandon(&a, 1);
	ok(a.carry == 0 && a.joined == 7 && autobw_can_start(&a),
	   "the carried one is lost: another may take its place");
	autobw_started(&a);
	ok(autobw_finished(&a, 2, at + 0.85, at + 1.7, 32), "it ends epoch 2");
	ok(a.nreg == 1 && a.reg[0].k == 4, "4 registered, not 1");
	ok(a.phase == AUTOBW_LEARNING && a.k == 8, "then 8 (4 wrote below B)");
	autobw_release(&a);

	/* The one writer is lost (its worker was) before its rate was
	 * taken: the next one's samples start afresh (the bytes of the
	 * lost one said 200 MB/s against this one's 50). */
	autobw_init_climb(&a, 200, 16, 2);
	autobw_started(&a);
	ok(!autobw_sample(&a, 0.02, 1) && !autobw_sample(&a, 0.12, 21),
	   "a writer sampled");
	autobw_abandon(&a, 1);
	ok(!autobw_wants_rate(&a), "lost: no writer to sample");
	autobw_started(&a);
	ok(autobw_wants_rate(&a) && !a.s_have, "another: sampled afresh");
	at = feed(&a, 0, 50, 0.6);
	ok(at > 0 && fabs(a.early - 50) <= 5 && a.fill == 4,
	   "its own rate: 50 MB/s, 4");
	autobw_release(&a);

	/* A climb's re-evaluation keeps its choice while it is within 5 %
	 * of the least T: 1 writer (1 s a task) or 2 (1.68 s for two); for
	 * one task both take 1 s, for two 2 s against 1.68 s. */
	{
		struct autobw_entry reg[2] = {
			{ 100, 1, 1.0, 100, 0, 0, false, 0, 0, 0, 0, 0 },
			{ 50, 2, 1.68, 119, 0, 0, false, 0, 0, 0, 0, 0 },
		};
		autobw_init(&a, 100, 8, false, 0, 0, 0);
		autobw_preload(&a, reg, 2, 2);
		a.climb = true;
		ok(autobw_choose(&a, 2) == 50 && autobw_choose(&a, 1) == 100,
		   "choose: 2 writers for 2 tasks, 1 for 1");
		ok(autobw_rechoose(&a, 1, 50) == 50,
		   "for 1 task, 2 writers stay (the same T)");
		ok(autobw_rechoose(&a, 2, 100) == 50,
		   "for 2 tasks, 1 writer gives way (a fifth slower)");
		ok(autobw_rechoose(&a, 3, 50) == 50 &&
			   autobw_rechoose(&a, 4, 50) == 50,
		   "and 2 stay for 3 and 4");
		autobw_release(&a);
	}

	/* Learning stopped while the carried writer runs (it is not one of
	 * epoch 2's own): it registers epoch 1 when it ends, and ends
	 * nothing. */
	autobw_init_climb(&a, 200, 16, 2);
	autobw_started(&a);
	feed(&a, 0, 50, 0.6);
	ok(autobw_stop(&a), "stopped before epoch 2 took a task of its own");
	ok(!autobw_carry_done(&a, 0, 0.64, 32) && a.nreg == 1 &&
		   a.reg[0].k == 1,
	   "the carried ends: epoch 1 registered, nothing else");
	autobw_release(&a);
	autobw_init_climb(&a, 200, 16, 2);
	autobw_started(&a);
	feed(&a, 0, 50, 0.6);
	autobw_started(&a);
	ok(!autobw_stop(&a), "one of its own joined: not stopped");
	autobw_release(&a);

	/* Held (autobw_hold): its writers fly, read but registering
	 * nothing, and none joins an epoch; unheld, they fly no more;
	 * reopened, it learns again from the epoch it held. */
	autobw_init_climb(&a, 200, 16, 2);
	autobw_started(&a);
	feed(&a, 0, 50, 0.6);
	{
		int held = a.epoch;
		long k = a.k; /* (the fill point, 200 / 50) */
		ok(k == 4 && autobw_stop(&a),
		   "stopped before epoch 2 took a task");
		autobw_hold(&a, "golden-down");
		ok(a.held && autobw_flies(&a) && autobw_epoch(&a) == 0 &&
			   !strcmp(a.step, "held"),
		   "held: its writers fly, no epoch to join");
		int s0 = autobw_slot_open(&a), s1 = autobw_slot_open(&a);
		size_t n = a.nreg;
		bool took = false;
		for (int i = 1; i <= 40; i++) {
			took |= autobw_flight(&a, s0, 0.1 * i, 5.0 * i);
			took |= autobw_flight(&a, s1, 0.1 * i, 4.0 * i);
		}
		ok(!took && a.nreg == n && a.slot[s0].mb == 200 &&
			   a.slot[s1].mb == 160 && a.writing == 2,
		   "held: read, nothing registered");
		autobw_reopen(&a);
		ok(a.phase == AUTOBW_LEARNING && !a.held &&
			   autobw_epoch(&a) == held && a.k == k &&
			   !strcmp(a.step, "resume") &&
			   !strcmp(a.open_step, "golden-down"),
		   "reopened: the held epoch, of 4, step resume");
	}
	autobw_release(&a);
	autobw_init_climb(&a, 200, 16, 2);
	autobw_started(&a);
	feed(&a, 0, 50, 0.6);
	autobw_stop(&a);
	autobw_hold(&a, "golden-down");
	autobw_unhold(&a);
	ok(!a.held && !autobw_flies(&a) && !strcmp(a.step, "stopped") &&
		   a.phase == AUTOBW_LEARNED,
	   "unheld: learned, stopped, its writers fly no more");
	autobw_release(&a);

	/* The search lands within 10 % of the law's best k, of any value,
	 * on a grid of laws: knee 1 to 12, alpha 0.05 to 1, a per-writer
	 * cap or none, B 200 and 450, 16 and 64 executors; tasks of 64 MB,
	 * and tasks of 16 to 256 MB (the objective is bytes). */
	{
		static const double knees[] = { 1, 3, 8, 12 },
				    alphas[] = { 0.05, 0.2, 0.5, 1 },
				    caps[] = { 0, 9, 25, 60 };
		int bad = 0, runs = 0, most = 0;
		for (int sizes = 0; sizes < 2; sizes++)
		for (int bi = 0; bi < 2; bi++)
		for (size_t ki = 0; ki < 4; ki++)
		for (size_t ai = 0; ai < 4; ai++)
		for (size_t ci = 0; ci < 4; ci++) {
			struct law L = { bi ? 450 : 200, caps[ci], knees[ki],
					 alphas[ai] };
			long ex = bi ? 64 : 16, kbest = 1;
			for (long k = 2; k <= ex; k++)
				if (law_rate(&L, k) > law_rate(&L, kbest))
					kbest = k;
			int n;
			autobw_init_climb(&a, L.B, ex, 2);
			long k = learn_law(&a, &L, sizes ? 0 : 64, &n);
			runs++;
			most = n > most ? n : most;
			if (law_rate(&L, k) < 0.9 * law_rate(&L, kbest)) {
				bad++;
				printf("# %s B %g r1 %g knee %g alpha %g: k %ld "
				     "(%.1f MB/s), best %ld (%.1f MB/s)\n",
				     sizes ? "16..256 MB" : "64 MB", L.B, L.r1,
				     L.knee, L.alpha, k,
				     law_rate(&L, k), kbest,
				     law_rate(&L, kbest));
			}
			autobw_release(&a);
		}
		is_int(bad, 0, "%d laws: every choice within 10 %% of the "
		       "best k's rate", runs);
		ok(most < 20, "each within %d epochs", most);
	}

	/* In flight (issue 23): the best7 law, B 200, 20 MB/s a writer,
	 * knee 6, alpha 0.5: the fill point 10 is past the best, 7. */
	{
		struct law L = { 200, 20, 6, 0.5 };
		int slot[16];
		one_writer_at(&a, 20);
		is_int(a.k, 10, "flight: one writer at 20 MB/s, the fill point 10");
		for (int i = 0; i < 6; i++)
			slot[i] = autobw_slot_open(&a);
		ok(fly(&a, &L, slot, 6, 0, 2) < 0 && a.k == 10,
		   "6 writers of the fill point's 10 keep pace: the epoch "
		   "goes on");
		ok(a.nreg == 2 && a.reg[1].k == 6 && a.reg[1].flown &&
			   fabs(a.reg[1].mbps - 120) < 1e-6 &&
			   fabs(a.reg[1].c - 200.0 / 6) < 1e-9 &&
			   a.reg[1].err <= AUTOBW_FLIGHT_TOL &&
			   a.reg[1].w >= AUTOBW_RATE_SPAN,
		   "and are registered: 6 writers, 120 MB/s, within %.1f %% "
		   "over %.2f s", 100 * a.reg[1].err, a.reg[1].w);
		for (int i = 0; i < 6; i++)
			autobw_slot_close(&a, slot[i]);
		for (int i = 0; i < 10; i++)
			slot[i] = autobw_slot_open(&a);
		ok(a.flying == 10 && autobw_flies(&a), "10 writers fly");
		double tf = fly(&a, &L, slot, 10, 0, 2);
		ok(tf > 0.2 && tf < 0.3,
		   "their rate is taken once each was read over 0.2 s (%.2f s)", tf);
		ok(a.nreg == 3 && a.reg[2].k == 10 &&
			   fabs(a.reg[2].mbps - 200.0 / 3) < 1e-6,
		   "the fill point registered: 10 writers, 66.7 MB/s");
		is_int(a.k, 8, "the next epoch steps up from 6 to 8 (golden)");
		is_int(a.lo, 5, "its bracket: from 5 (6 x 20 > 120 / 1.05)");
		is_int(a.hi, 10, "to 10");
		ok(autobw_slot_young(&a, slot[9]),
		   "a writer 1.7 MB into tasks of 64 MB is young (may stop)");
		for (int i = 8; i < 10; i++)
			autobw_slot_close(&a, slot[i]);
		tf = fly(&a, &L, slot, 8, 0, 2);
		ok(tf > 0 && a.reg[3].k == 8 &&
			   fabs(a.reg[3].mbps - 100) < 1e-6,
		   "8 writers, measured as the others drained: 100 MB/s");
		is_int(a.k, 7, "then 7 (golden down)");
		autobw_slot_close(&a, slot[7]);
		ok(fly(&a, &L, slot, 7, 0, 2) > 0 && a.phase == AUTOBW_LEARNED,
		   "7 writers: bracketed, learned");
		is_int(autobw_writers(200, a.chosen), 7, "7 chosen");
		for (int i = 0; i < 7; i++)
			autobw_slot_close(&a, slot[i]);
		is_int(a.flying, 0, "every slot closed");
		autobw_release(&a);

		/* the fill point's writers ramp up (tasks ready a few at a
		 * time): 7 write 133.3 MB/s, within GAIN of 7 x 20: they
		 * are registered and the ramp goes on; 8 write 100, clearly
		 * slowed: the device congests at 8, the epoch is one of 8
		 * writers, taken; 7 is the best, from 6 (133.3 / 21) to 8:
		 * learned, no epoch of 6 */
		one_writer_at(&a, 20);
		for (int i = 0; i < 7; i++)
			slot[i] = autobw_slot_open(&a);
		ok(fly(&a, &L, slot, 7, 0, 2) < 0 && a.nreg == 2 &&
			   a.reg[1].k == 7,
		   "ramp: 7 writers of the fill point's 10 (133.3 MB/s): "
		   "registered, the epoch goes on");
		for (int i = 0; i < 7; i++)
			autobw_slot_close(&a, slot[i]);
		for (int i = 0; i < 8; i++)
			slot[i] = autobw_slot_open(&a);
		tf = fly(&a, &L, slot, 8, 0, 2);
		ok(tf > 0.2 && tf < 0.3 && a.nreg == 3 && a.reg[2].k == 8 &&
			   fabs(a.reg[2].c - 25) < 1e-9 &&
			   fabs(a.reg[2].mbps - 100) < 1e-6,
		   "ramp: 8 writers slowed (100 MB/s), taken as k = 8 after "
		   "%.2f s", tf);
		ok(a.phase == AUTOBW_LEARNED &&
			   autobw_writers(200, a.chosen) == 7 &&
			   !strcmp(a.step, "bracketed"),
		   "ramp: 7 bracketed between 6 and 8: chosen, learned");
		for (int i = 0; i < 8; i++)
			autobw_slot_close(&a, slot[i]);
		autobw_release(&a);

		/* k8-a0.8-r12 (knee 8, alpha 0.8, 12 MB/s a writer): the
		 * fill point 16, the best 9 (108 MB/s); 8 writers ramp for
		 * 2 s (96 MB/s) before the fill point's 16 come (27 MB/s):
		 * 8 is registered, so the search goes up from it (11, 9,
		 * 10), not down from 16 (11, 8, 9, 10; +10.9 % in wfrun
		 * sim, variant-like with 32 tasks) */
		struct law K = { 200, 12, 8, 0.8 };
		int ks[16];
		one_writer_at(&a, 12);
		is_int(a.k, 16, "k8-a0.8-r12: the fill point 16");
		for (int i = 0; i < 8; i++)
			ks[i] = autobw_slot_open(&a);
		ok(fly(&a, &K, ks, 8, 0, 2) < 0 && a.nreg == 2 &&
			   a.reg[1].k == 8 && fabs(a.reg[1].mbps - 96) < 1e-6,
		   "k8-a0.8-r12: 8 writers of the ramp to 16 registered, "
		   "96 MB/s");
		for (int i = 0; i < 8; i++)
			autobw_slot_close(&a, ks[i]);
		for (int i = 0; i < 16; i++)
			ks[i] = autobw_slot_open(&a);
		ok(fly(&a, &K, ks, 16, 0, 2) > 0 && a.nreg == 3 &&
			   a.reg[2].k == 16,
		   "k8-a0.8-r12: 16 writers taken");
		ok(a.k == 11 && !strcmp(a.step, "golden-up") &&
			   a.kbest == 8 && a.lo == 7 && a.hi == 16,
		   "k8-a0.8-r12: the search steps up from 8 (bracket 7 to "
		   "16) to 11 (k %ld, %s)", a.k, a.step);
		for (int i = 0; i < 16; i++)
			autobw_slot_close(&a, ks[i]);
		int n;
		is_int(learn_law(&a, &K, 64, &n), 9,
		       "k8-a0.8-r12: 9 chosen");
		is_int(n, 3, "k8-a0.8-r12: after 11, 9 and 10");
		autobw_release(&a);

		/* a cap above B (one writer 150 MB/s of 200, fill 1 ... no
		 * fill: 2): 3 writers of a jump to 4 at 190 MB/s are not
		 * slowed (within GAIN of B, not of 3 x 150) */
		{
			struct law F = { 200, 150, 1, 0.02 };
			one_writer_at(&a, 150);
			is_int(a.k, 2, "fill point 1.3 rounds to 1: k = 2 "
			       "next");
			for (int i = 0; i < 2; i++)
				slot[i] = autobw_slot_open(&a);
			ok(fly(&a, &F, slot, 2, 0, 2) > 0, "2 writers taken");
			long kj = a.k;
			for (int i = 0; i < 2; i++)
				autobw_slot_close(&a, slot[i]);
			for (int i = 0; i < 3 && kj > 3; i++)
				slot[i] = autobw_slot_open(&a);
			ok(kj <= 3 || fly(&a, &F, slot, 3, 0, 2) < 0,
			   "ramp: 3 writers at %.0f MB/s of B 200 "
			   "(k %ld next): not slowed", law_rate(&F, 3), kj);
			for (int i = 0; i < 3 && kj > 3; i++)
				autobw_slot_close(&a, slot[i]);
			autobw_release(&a);
		}

		/* counts in steps of 5 MB (a kernel throttle's): the rate is
		 * known within 5 MB over the window; it is taken when that
		 * decides against the thresholds (here after 1.5 s) */
		one_writer_at(&a, 20);
		for (int i = 0; i < 10; i++)
			slot[i] = autobw_slot_open(&a);
		tf = fly(&a, &L, slot, 10, 5, 10);
		ok(tf > 1.4 && tf < 3, "in steps: taken after %.2f s", tf);
		ok(a.nreg == 2 && fabs(a.reg[1].mbps - 200.0 / 3) < 0.1 * 200 / 3,
		   "within 10 %% of 66.7 MB/s (%.1f)", a.nreg == 2 ? a.reg[1].mbps : 0);
		ok(a.reg[1].err > AUTOBW_FLIGHT_TOL,
		   "taken before it was known within %.1f %% (%.1f %%): "
		   "past the fill point, slowed, the search leaves it",
		   100 * AUTOBW_FLIGHT_TOL, 100 * a.reg[1].err);
		/* 7 writers, below the fill point: 133 MB/s is far above the
		 * best, 10 writers' 66.7, and becomes the best every later
		 * epoch is compared with: it is taken once known within
		 * FLIGHT_TOL (a rate taken within 10 % because it beat 10
		 * then lost to 6 on congestdev) - well under a task's time
		 * all the same */
		for (int i = 7; i < 10; i++)
			autobw_slot_close(&a, slot[i]);
		tf = fly(&a, &L, slot, 7, 5, 10);
		ok(tf > 0 && tf < 2 && a.nreg == 3 && a.reg[2].k == 7,
		   "7 writers in steps: taken after %.2f s", tf);
		ok(a.nreg == 3 && a.reg[2].err <= AUTOBW_FLIGHT_TOL &&
			   fabs(a.reg[2].mbps - 400.0 / 3) <
				   AUTOBW_FLIGHT_TOL * 400 / 3,
		   "known within %.1f %%: %.1f MB/s (the law's 133.3)",
		   100 * AUTOBW_FLIGHT_TOL, a.nreg == 3 ? a.reg[2].mbps : 0);
		/* then 8 (golden up): 100 MB/s, clearly under 7's 133 with
		 * both errors: taken as soon as that is clear */
		is_int(a.k, 8, "then 8");
		slot[7] = autobw_slot_open(&a);
		double t8 = fly(&a, &L, slot, 8, 5, 10);
		ok(t8 > 0 && t8 < tf && a.nreg == 4 && a.reg[3].k == 8 &&
			   a.reg[3].err > AUTOBW_FLIGHT_TOL,
		   "8 writers lose: taken after %.2f s, within %.1f %%", t8,
		   a.nreg == 4 ? 100 * a.reg[3].err : 0);
		is_int(autobw_writers(200, a.chosen), 7, "7 chosen");
		autobw_release(&a);
	}

	/* No task ended: a task's size is not known, only that it is more
	 * than the most any wrote; all but the writer that wrote most may
	 * stop on a step down. */
	{
		autobw_init_climb(&a, 200, 16, 2);
		int s[3];
		for (int i = 0; i < 3; i++)
			s[i] = autobw_slot_open(&a);
		autobw_flight(&a, s[0], 0.02, 14);
		autobw_flight(&a, s[1], 0.02, 13);
		autobw_flight(&a, s[2], 0.02, 1);
		ok(!autobw_slot_young(&a, s[0]) && autobw_slot_young(&a, s[1]) &&
			   autobw_slot_young(&a, s[2]),
		   "no task ended: 13 MB and 1 MB are young, 14 MB (the most) "
		   "is not");
		autobw_started(&a);
		autobw_finished(&a, autobw_epoch(&a), 0, 3.2, 64);
		ok(autobw_slot_young(&a, s[0]),
		   "a 64 MB task ended: 14 MB, under half of it, is young");
		for (int i = 0; i < 3; i++)
			autobw_slot_close(&a, s[i]);
		autobw_release(&a);
	}

	/* Writers that start and end every 0.45 s, 7 at a time (tasks of
	 * 64 MB at 19 MB/s): their windows, none longer than 0.45 s, are
	 * kept across the starts and ends, and add up to the 2.5 % a new
	 * best needs. */
	{
		struct law L = { 200, 20, 6, 0.5 };
		int slot[16];
		ok(fill_then(&a, &L, 20, slot, 10, 7),
		   "churn: the fill point 10 taken, then 7");
		double tf = fly_churn(&a, &L, slot, 7, 0.45, 30, 1);
		ok(tf > 0 && a.nreg == 3 && a.reg[2].k == 7,
		   "churn: 7 writers' rate taken after %.2f s", tf);
		ok(a.nreg == 3 && a.reg[2].err <= AUTOBW_FLIGHT_TOL &&
			   fabs(a.reg[2].mbps - 400.0 / 3) <
				   AUTOBW_FLIGHT_TOL * 400 / 3,
		   "churn: %.1f MB/s within %.1f %% (the law's 133.3)",
		   a.nreg == 3 ? a.reg[2].mbps : 0,
		   a.nreg == 3 ? 100 * a.reg[2].err : 0);
		ok(a.flight_s > 0.5,
		   "churn: over %.2f s of windows, none of them 0.45 s",
		   a.flight_s);
		for (int i = 0; i < (int)a.nslot; i++)
			autobw_slot_close(&a, i);
		autobw_release(&a);

		/* congestdev, best7 (issue 23): one writer read 18.75 MB/s,
		 * the fill point 11 slowed, and the step went to 8, each at
		 * 12.5 MB/s in steps of 5 MB (one every 0.4 s), one of 8
		 * tasks of 5 s replaced every 0.64 s: a writer needs two
		 * edges after each start or end for a window, so all 8
		 * never had one at once, and the epoch ran 16 tasks.  Their
		 * windows, pooled, say the rate. */
		ok(fill_then(&a, &L, 18.75, slot, 11, 8),
		   "churn, best7: fill point 11, then 8");
		tf = fly_churn(&a, &L, slot, 8, 0.64, 30, 5);
		ok(tf > 0 && a.nreg == 3 && a.reg[2].k == 8 &&
			   a.reg[2].err <= AUTOBW_FLIGHT_TOL &&
			   fabs(a.reg[2].mbps - 100) < AUTOBW_FLIGHT_TOL * 100,
		   "churn in 5 MB steps: %.1f MB/s within %.1f %% after "
		   "%.2f s (the law's 100)",
		   a.nreg == 3 ? a.reg[2].mbps : 0,
		   a.nreg == 3 ? 100 * a.reg[2].err : 0, tf);
		for (int i = 0; i < (int)a.nslot; i++)
			autobw_slot_close(&a, i);
		autobw_release(&a);
	}

	/* Fewer than the most that wrote at once in an epoch are writers
	 * that ended, not a ramp (congestdev, k1steep, Kmeans-1: the last 2
	 * tasks' writers at 70 of 80 MB/s ended an epoch of 3 as slowed,
	 * and 4 were chosen, 3 never measured): the fill point's 5 write,
	 * then only 2 are left, slower than 2 x 40: nothing is taken. */
	{
		struct law L = { 200, 40, 1, 0.5 }, S = { 200, 35, 1, 0.5 };
		int slot[16];
		one_writer_at(&a, 40);
		is_int(a.k, 5, "drain: the fill point 5");
		for (int i = 0; i < 5; i++)
			slot[i] = autobw_slot_open(&a);
		ok(fly(&a, &L, slot, 5, 0, 0.1) < 0 && a.peak == 5,
		   "drain: 5 wrote at once");
		for (int i = 2; i < 5; i++)
			autobw_slot_close(&a, slot[i]);
		ok(fly(&a, &S, slot, 2, 0, 2) < 0 && a.k == 5 && a.nreg == 1,
		   "drain: then 2 at 70 MB/s for 2 s: not a ramp, nothing "
		   "taken");
		for (int i = 0; i < 2; i++)
			autobw_slot_close(&a, slot[i]);
		/* while they ramp up, the same 2 are */
		autobw_release(&a);
		one_writer_at(&a, 40);
		for (int i = 0; i < 2; i++)
			slot[i] = autobw_slot_open(&a);
		ok(fly(&a, &S, slot, 2, 0, 2) > 0 && a.nreg == 2 &&
			   a.reg[1].k == 2,
		   "ramp: 2 at 70 MB/s before the others came: slowed, taken");
		for (int i = 0; i < 2; i++)
			autobw_slot_close(&a, slot[i]);
		autobw_release(&a);
	}

	/* Writers that slowed one another close the bracket above them,
	 * whether or not more were tried: on a law of the family, k
	 * writers below k times the one writer's pace write B f(k), and f
	 * does not rise (congestdev, k1steep on three workers: 5 at 69
	 * MB/s, 3 at 99, then 4 tried too, Kmeans-1 +21 %). */
	{
		struct law L = { 200, 40, 1, 0.5 };
		int slot[16];
		one_writer_at(&a, 40);
		a.reg[0].err = 0.07; /* (as read on congestdev) */
		for (int i = 0; i < 5; i++)
			slot[i] = autobw_slot_open(&a);
		ok(fly(&a, &L, slot, 5, 0, 2) > 0 && a.k == 3 &&
			   !strcmp(a.step, "golden-down"),
		   "k1steep: the fill point 5 taken (66.7 MB/s), then 3");
		for (int i = 3; i < 5; i++)
			autobw_slot_close(&a, slot[i]);
		ok(fly(&a, &L, slot, 3, 0, 2) > 0 &&
			   a.phase == AUTOBW_LEARNED && a.nreg == 3 &&
			   !strcmp(a.step, "bracketed") && a.hi == 4,
		   "k1steep: 3 taken at 100 MB/s, slowed: bracketed, "
		   "4 not tried");
		is_int(autobw_writers(200, autobw_choose(&a, 100)), 3,
		       "k1steep: 3 chosen");
		for (int i = 0; i < 3; i++)
			autobw_slot_close(&a, slot[i]);
		autobw_release(&a);
	}

	/* Not when the one writer's rate, read 8 % fast within 11 %, makes
	 * them seem slowed (congestdev, best7: 6 writers at 118 MB/s
	 * against 0.95 x 6 x 21.6 = 123, where 6 x 20 = 120 is the law's
	 * and 7 write 133; 7 was never tried, +12.5 %). */
	{
		struct law L = { 200, 20, 6, 0.5 };
		int slot[16];
		one_writer_at(&a, 21.6);
		a.reg[0].err = 0.11;
		is_int(a.k, 9, "best7, one writer 8 %% fast: the fill point 9");
		for (int i = 0; i < 8; i++)
			slot[i] = autobw_slot_open(&a);
		ok(fly(&a, &L, slot, 8, 0, 2) > 0 && a.nreg == 2 &&
			   a.reg[1].k == 8 && a.k == 6,
		   "best7: 8 of them slowed as they ramped up (100 MB/s), "
		   "then 6");
		for (int i = 6; i < 8; i++)
			autobw_slot_close(&a, slot[i]);
		ok(fly(&a, &L, slot, 6, 0, 2) > 0 && a.nreg == 3 &&
			   a.phase == AUTOBW_LEARNING && a.k == 7 &&
			   !strcmp(a.step, "golden-up"),
		   "best7: 6 at 120 MB/s, not clearly slowed: 7 is tried");
		for (int i = 0; i < 6; i++)
			autobw_slot_close(&a, slot[i]);
		autobw_release(&a);
	}

	/* An epoch whose rate was never known within the tolerance in
	 * flight is rated at its end by the windows when exactly its k
	 * wrote, not by its MB over its tasks' time, which counts the
	 * writers of the epoch before still draining beside its first
	 * tasks (congestdev, k1steep: 3 writers after 5 measured 65 to 80
	 * MB/s over their tasks' time, 99 in their windows). */
	{
		struct law L = { 200, 40, 1, 0.5 };
		int slot[16];
		ok(fill_then(&a, &L, 40, slot, 5, 3) &&
			   fly(&a, &L, slot, 3, 8, 1.0) < 0 && a.k == 3 &&
			   a.nreg == 2,
		   "windows: 3 writers in 8 MB steps for 1 s: not taken");
		int e = autobw_epoch(&a);
		for (int i = 0; i < 6; i++) {
			/* 64 MB each in 2.9 s: 66 MB/s for the 3 */
			double w = (double)(i / 3) * 2.9;
			autobw_started(&a);
			autobw_finished(&a, e, w, w + 2.9, 64);
		}
		ok(a.nreg == 3 && a.reg[2].k == 3 && a.reg[2].flown &&
			   a.windows && fabs(a.reg[2].mbps - 100) < 10,
		   "windows: its end registers 3 at %.1f MB/s (within %.1f "
		   "%%, over %.2f s), not 66", a.nreg == 3 ? a.reg[2].mbps : 0,
		   a.nreg == 3 ? 100 * a.reg[2].err : 0, a.flight_s);
		for (int i = 0; i < 3; i++)
			autobw_slot_close(&a, slot[i]);
		autobw_release(&a);
	}

	/* Writers that share one throttle, as congestdev's cgroup cap: its
	 * 0.1 s ticks handed round them in 1 MB writes, 1 to 3 MB each as
	 * read on congestdev, one writer replaced every 0.6 s: one's window
	 * fast where another's is slow, their sum the law's.  (Taking the
	 * spread of the stretches' means as the error, not the windows',
	 * took this in 2.22 s, not 2.82; but its one congestdev run of
	 * best7 HMMER-like went 10 s at the fill point and 10 s at 6
	 * writers with no rate taken, +34 %, and it was not kept.) */
	{
		struct law L = { 200, 20, 6, 0.5 };
		int slot[16];
		ok(fill_then(&a, &L, 20, slot, 10, 7),
		   "shared: the fill point 10 taken, then 7");
		double tf = fly_shared(&a, &L, slot, 7, 0.6, 30);
		ok(tf > 0 && tf < 4 && a.nreg == 3 && a.reg[2].k == 7 &&
			   a.reg[2].err <= AUTOBW_FLIGHT_TOL &&
			   fabs(a.reg[2].mbps - 400.0 / 3) < 0.05 * 400 / 3,
		   "shared: 7 writers' rate taken after %.2f s: %.1f MB/s "
		   "within %.1f %% (the law's 133.3)", tf,
		   a.nreg == 3 ? a.reg[2].mbps : 0,
		   a.nreg == 3 ? 100 * a.reg[2].err : 0);
		for (int i = 0; i < (int)a.nslot; i++)
			autobw_slot_close(&a, i);
		autobw_release(&a);
	}

	/* The last tasks all there (autobw_last_tasks): an epoch after
	 * which the search ends whatever it reads is taken as soon as its
	 * rate is known at all, not within FLIGHT_TOL (congestdev, k1steep,
	 * Kmeans-1: the epoch of 3 read for 2.6 s, to the run's end, and
	 * its last tasks were never chosen for).  An epoch that may lead
	 * to another is read as before. */
	{
		struct law L = { 200, 40, 1, 0.5 };
		double tf[2];
		for (int last = 0; last < 2; last++) {
			int slot[16];
			ok(fill_then(&a, &L, 40, slot, 5, 3),
			   "last tasks %d: the fill point 5 taken, then 3",
			   last);
			autobw_last_tasks(&a, last);
			tf[last] = fly_shared(&a, &L, slot, 3, 0.6, 30);
			ok(tf[last] > 0 && a.phase == AUTOBW_LEARNED &&
				   a.nreg == 3 && a.reg[2].k == 3 &&
				   autobw_writers(a.B, autobw_choose(&a, 5)) == 3,
			   "last tasks %d: 3 writers' rate taken after %.2f s "
			   "(%.1f MB/s within %.1f %%), learning over, 3 "
			   "chosen", last, tf[last],
			   a.nreg == 3 ? a.reg[2].mbps : 0,
			   a.nreg == 3 ? 100 * a.reg[2].err : 0);
			for (int i = 0; i < (int)a.nslot; i++)
				autobw_slot_close(&a, i);
			autobw_release(&a);
		}
		ok(tf[1] < tf[0] / 2,
		   "last tasks: the epoch that is the last either way taken "
		   "after %.2f s, not %.2f", tf[1], tf[0]);
		struct law L7 = { 200, 20, 6, 0.5 };
		int slot[16];
		ok(fill_then(&a, &L7, 20, slot, 10, 7),
		   "last tasks, best7: the fill point 10 taken, then 7");
		autobw_last_tasks(&a, true);
		double t7 = fly_shared(&a, &L7, slot, 7, 0.6, 30);
		ok(t7 > 0 && a.nreg == 3 && a.reg[2].k == 7 &&
			   a.reg[2].err <= AUTOBW_FLIGHT_TOL,
		   "last tasks, best7: 7 writers, which may lead to 8 or 9, "
		   "still read within FLIGHT_TOL (%.1f %%, after %.2f s)",
		   a.nreg == 3 ? 100 * a.reg[2].err : 0, t7);
		for (int i = 0; i < (int)a.nslot; i++)
			autobw_slot_close(&a, i);
		autobw_release(&a);
	}

	/* Epochs measured at their ends where tasks came too few to keep
	 * k places busy: each task's pace stayed high, and k times it is
	 * more than the device writes (congestdev, nocap with three
	 * workers of one core: 2 x 99.4, 4 x 116.4, 8 x 87.3 MB/s of
	 * 200).  No k writes more than B: 2, the fewest that fill it, is
	 * the best, and chosen. */
	{
		autobw_init_climb(&a, 200, 16, 2);
		struct autobw_entry r[] = {
			{ 200, 1, 0.46, 138.5, 138.5, 0, false, 0, 0, 0, 0, 0 },
			{ 100, 2, 0.69, 186, 99.4, 0, false, 0, 0, 0, 0, 0 },
			{ 50, 4, 1.73, 148, 116.4, 0, false, 0, 0, 0, 0, 0 },
			{ 25, 8, 2.84, 180, 87.3, 0, false, 0, 0, 0, 0, 0 },
		};
		autobw_preload(&a, r, 4, 16);
		is_int(autobw_best(&a, NULL), 2,
		       "scarce tasks: no k is rated over B, 2 is the best");
		is_int(autobw_writers(200, autobw_choose(&a, 16)), 2,
		       "scarce tasks: 2 chosen for 16 tasks");
		autobw_release(&a);
	}

	/* A climb's objective streams: n tasks at k's rate, no waves (a
	 * remainder made the choice flip between neighbours). */
	{
		autobw_init_climb(&a, 200, 16, 2);
		struct autobw_entry r[] = {
			{ 200, 1, 4, 16, 16, 0, false, 0, 0, 0, 0, 0 },
			{ 22.2222, 9, 4, 144, 16, 0, false, 0, 0, 0, 0, 0 },
			{ 20, 10, 4, 160, 16, 0, false, 0, 0, 0, 0, 0 },
			{ 18.1818, 11, 5.28, 133.3, 12.12, 0, false, 0, 0, 0,
			  0, 0 },
		};
		autobw_preload(&a, r, 4, 31);
		long n = 11;
		while (n <= 64 && autobw_writers(200, autobw_choose(&a, n)) == 10)
			n++;
		ok(n == 65, "10 chosen for every n from 11 to 64");
		if (n != 65)
			printf("# not for %ld\n", n);
		autobw_release(&a);
		/* fewer tasks than k: only they run, at least at n times the
		 * one writer's pace or at k's rate */
		autobw_init_climb(&a, 200, 16, 2);
		struct autobw_entry r2[] = {
			{ 200, 1, 2.29, 28, 28, 0, false, 0, 0, 0, 0, 0 },
			{ 28.5714, 7, 13.18, 34, 4.857, 0, false, 0, 0, 0,
			  0, 0 },
		};
		autobw_preload(&a, r2, 2, 2);
		ok(autobw_objective(&a, 2, 1) < autobw_objective(&a, 2, 0),
		   "2 tasks left: 7 writers' constraint (34 MB/s) beats 1's "
		   "(28)");
		ok(fabs(autobw_objective(&a, 2, 1) - 2 * 64.0 / 34) < 0.01,
		   "2 tasks of 64 MB at 34 MB/s: %.3f s", autobw_objective(&a, 2, 1));
		/* (7 writers at 34 of 200 MB/s, each at a sixth of the one
		 * writer's 28, slowed one another: the family's bound says 3
		 * write at least 76) */
		double c = autobw_choose(&a, 2);
		ok(autobw_writers(200, c) == 3 && autobw_bound(&a, c),
		   "2 tasks left: 3 writers, the family's bound under 7");
		autobw_release(&a);
	}

	/* A climb that stopped short (too few tasks left for another
	 * epoch) at a fill point whose writers clearly slowed one another:
	 * the family's bound below it is chosen, not it (congestdev,
	 * k1steep on three workers, Kmeans-1: 1 writer at 39 MB/s, the
	 * fill point's 5 at 74, 5 chosen: +31 %, and +18 % in the second
	 * run, which chose from the same registry). */
	{
		autobw_init_climb(&a, 200, 16, 2);
		struct autobw_entry r[] = {
			{ 200, 1, 1.64, 39, 39, 0.07, false, 0, 0, 0, 0, 0 },
			{ 40, 5, 4.32, 74, 14.8, 0.14, true, 0, 0, 0, 0, 0 },
		};
		autobw_preload(&a, r, 2, 100);
		double c = autobw_choose(&a, 100);
		ok(autobw_writers(200, c) == 3 && autobw_bound(&a, c),
		   "stopped at 5 writers' 74 MB/s: 3 chosen (c = %.4g), the "
		   "bound", c);
		autobw_release(&a);
		/* where 3 was measured, it is chosen as measured */
		autobw_init_climb(&a, 200, 16, 2);
		struct autobw_entry r3[] = {
			{ 200, 1, 1.64, 39, 39, 0.07, false, 0, 0, 0, 0, 0 },
			{ 40, 5, 4.32, 74, 14.8, 0.14, true, 0, 0, 0, 0, 0 },
			{ 66.6667, 3, 1.92, 100, 33.3, 0.03, true, 0, 0, 0,
			  0, 0 },
		};
		autobw_preload(&a, r3, 3, 100);
		c = autobw_choose(&a, 100);
		ok(autobw_writers(200, c) == 3 && !autobw_bound(&a, c),
		   "3 measured at 100 MB/s: chosen, no bound");
		autobw_release(&a);
		/* best7 stopped at its fill point 10 (100 MB/s, one writer
		 * 20): the bound, knee taken at 1, says 6 (120 MB/s), below
		 * the law's best 7 (133) but not the 10 measured */
		autobw_init_climb(&a, 200, 16, 2);
		struct autobw_entry r7[] = {
			{ 200, 1, 3.2, 20, 20, 0.1, false, 0, 0, 0, 0, 0 },
			{ 20, 10, 6.4, 100, 10, 0.1, true, 0, 0, 0, 0, 0 },
		};
		autobw_preload(&a, r7, 2, 100);
		c = autobw_choose(&a, 100);
		ok(autobw_writers(200, c) == 6 && autobw_bound(&a, c),
		   "best7 stopped at 10: the bound's 6 chosen (c = %.4g)", c);
		autobw_release(&a);
	}

	/* Learning ended with more writers running than chosen and none
	 * of the name left to start: the youngest stop only if running
	 * them again pays (autobw_drain_pays). */
	{
		/* k2-a0.1-r8 (each writer capped at 8 MB/s): 16 at 83 MB/s;
		 * 12 write 96, but 4 stopped then run alone at their cap */
		autobw_init_climb(&a, 200, 16, 8);
		struct autobw_entry r[] = {
			{ 200, 1, 8, 8, 8, 0.1, true, 0, 0, 0, 0, 0 },
			{ 25, 8, 8, 64, 8, 0.02, true, 0, 0, 0, 0, 0 },
			{ 12.5, 16, 12.29, 83.33, 5.208, 0.1, true, 0, 0, 0,
			  0, 0 },
		};
		autobw_preload(&a, r, 3, 16);
		ok(!autobw_drain_pays(&a, 16, 12),
		   "16 running at 83 MB/s, none to start: 4 not stopped for 12");
		ok(!autobw_drain_pays(&a, 16, 8),
		   "nor 8 for 8 (8 at 64 MB/s: two waves at the cap)");
		autobw_release(&a);
		/* k2-a1.5-r12: 16 writers at 9 MB/s, 8 at 20: the device
		 * collapses, and 4 at a time (the family's bound: 41) pay */
		autobw_init_climb(&a, 200, 16, 8);
		struct autobw_entry c[] = {
			{ 200, 1, 5.33, 12, 12, 0.05, true, 0, 0, 0, 0, 0 },
			{ 25, 8, 25.6, 20, 2.5, 0.02, true, 0, 0, 0, 0, 0 },
			{ 12.5, 16, 112.5, 9.1, 0.569, 0.02, true, 0, 0, 0,
			  0, 0 },
		};
		autobw_preload(&a, c, 3, 16);
		ok(autobw_drain_pays(&a, 16, 4),
		   "16 running at 9 MB/s: stopping 12 for 4 at a time pays");
		autobw_release(&a);
		/* no one writer's pace: it cannot tell, and stops as before */
		autobw_init_climb(&a, 200, 16, 8);
		autobw_preload(&a, r + 1, 2, 16);
		ok(autobw_drain_pays(&a, 16, 12), "no one writer: drained");
		autobw_release(&a);
	}

	/* Learning ended with more writers running than chosen and some
	 * of the name left to start: the youngest stop, unless the sizes
	 * are unlike and the choice writes hardly more (autobw_drain_gains;
	 * k9-a0.3-r20: 10 at 154 MB/s, 8 at 160). */
	{
		autobw_init_climb(&a, 200, 16, 8);
		struct autobw_entry r[] = {
			{ 200, 1, 6.8, 20, 20, 0.05, true, 0, 0, 0, 0, 0 },
			{ 25, 8, 6.8, 160, 20, 0.02, true, 0, 0, 0, 0, 0 },
			{ 20, 10, 8.84, 153.8, 15.38, 0.02, true, 0, 0, 0,
			  0, 0 },
		};
		autobw_preload(&a, r, 3, 16);
		ok(autobw_drain_gains(&a, 10, 8),
		   "no task ended: 2 stopped for 8, as before");
		autobw_ended(&a, 29);
		autobw_ended(&a, 34);
		autobw_ended(&a, 37);
		ok(autobw_drain_gains(&a, 10, 8),
		   "29, 34 and 37 MB ended, alike: 2 stopped for 8");
		autobw_ended(&a, 16);
		autobw_ended(&a, 256);
		ok(!autobw_drain_gains(&a, 10, 8),
		   "and 16 and 256 MB, unlike: 8 write 4 %% more, none stop");
		ok(autobw_drain_gains(&a, 8, 8), "8 running for 8: none over");
		autobw_release(&a);
		/* unlike, and 10 write 120 (8: 33 % more): 2 stop */
		autobw_init_climb(&a, 200, 16, 8);
		r[2].mbps = 120;
		r[2].pace = 12;
		autobw_preload(&a, r, 3, 16);
		autobw_ended(&a, 16);
		autobw_ended(&a, 256);
		ok(autobw_drain_gains(&a, 10, 8),
		   "unlike, 10 at 120 MB/s: 2 stopped for 8 at 160");
		autobw_release(&a);
	}

	/* A bracketed best that writes B, fewer than the cores, is tried
	 * against the wave of the cores too (above_step): knee 6, alpha
	 * 0.05, r1 30: 7 fill B and slow a little (190 MB/s, not 210),
	 * 6 and 8 are the bracket, and 8 write 182, a wave at once (each
	 * 8th checkpoint wrote alone at 30 MB/s after 7: +16 % over the
	 * best static, 8, in wfrun sim).  Below B (knee 5: 7 write 182,
	 * 6 write 180), the search ends as before. */
	{
		struct law W = { 200, 30, 6, 0.05 }, S = { 200, 30, 5, 0.05 };
		int n;
		autobw_init_climb(&a, 200, 16, 8);
		is_int(learn_law(&a, &W, 64, &n), 8,
		       "knee 6: 8 chosen (they write a wave sooner)");
		ok(n == 3 && a.nreg == 3 && a.reg[1].k == 7 &&
			   a.reg[2].k == 8,
		   "after 1 and 7, a wave of 8 (%d epochs, %s)", n, a.step);
		autobw_release(&a);
		autobw_init_climb(&a, 200, 16, 8);
		learn_law(&a, &S, 64, &n);
		ok(!reg_has(&a, 8), "knee 5: no wave tried");
		autobw_release(&a);
	}

	/* A best that kept the one writer's pace at the fill point, fewer
	 * than the cores: is a wave of the cores at B too (climb_next's
	 * "wave")?  Knee 14, alpha 0.5, r1 30: 7 fill B, and 8 write it
	 * too; with a knee of 7 and alpha 1.5, 8 write 80 MB/s. */
	{
		struct law W = { 200, 30, 14, 0.5 }, S = { 200, 30, 7, 1.5 };
		int n;
		autobw_init_climb(&a, 200, 16, 8);
		is_int(learn_law(&a, &W, 64, &n), 8,
		       "knee 14, 8 cores: 8 chosen (they write a wave sooner)");
		ok(n == 3 && a.nreg == 3 && a.reg[2].k == 8 &&
			   !strcmp(a.step, "kept-pace"),
		   "after 1, 7 and a wave of 8 (%d epochs, %s)", n, a.step);
		autobw_release(&a);
		autobw_init_climb(&a, 200, 16, 8);
		is_int(learn_law(&a, &S, 64, &n), 7,
		       "knee 7, alpha 1.5, 8 cores: the wave of 8 tried, 7 "
		       "chosen");
		is_int(n, 3, "knee 7: 3 epochs");
		autobw_release(&a);
		autobw_init_climb(&a, 200, 16, 2);
		is_int(learn_law(&a, &W, 64, &n), 7, "2 cores: 7");
		is_int(n, 2, "2 cores: no wave tried");
		autobw_release(&a);
		/* r1 60: 200 / 60 = 3.33, the fill point 3 (read at the
		 * epoch's end, as here; in flight, 4 at once: edge()); 3
		 * keep pace and write 180 MB/s, less than B: 4 are tried
		 * (knee 10: they write B, and are chosen) */
		struct law U = { 200, 60, 10, 0.05 };
		autobw_init_climb(&a, 200, 16, 2);
		is_int(learn_law(&a, &U, 64, &n), 4,
		       "r1 60: 3 fill 180 MB/s, 4 chosen (they write B)");
		ok(n == 3 && a.reg[1].k == 3 && a.reg[2].k == 4,
		   "after 1, 3 and 4 ('fill-up')");
		autobw_release(&a);
		/* 14 cores: 14 mod 7 = 0, waves of 14 write as 2 of 7 */
		autobw_init_climb(&a, 200, 16, 14);
		learn_law(&a, &W, 64, &n);
		is_int(n, 2, "14 cores, a fill point of 7: no wave tried");
		autobw_release(&a);
	}

	/* A kept registry whose most writers tried clearly slowed one
	 * another is not still scaling: knee 3, alpha 1.5, r1 16, one
	 * writer and the fill point's ramp read at 6 (36 MB/s, where 6 at
	 * the one writer's pace write 96); the family's bound, 4, is
	 * chosen, as the run that kept it chose. */
	{
		struct autobw_entry r[] = {
			{ 200, 1, 1.126, 16, 16, 0.083, false, 64, 0, 0, 0, 0 },
			{ 200.0 / 6, 6, 2.97, 36.36, 6.06, 0.1, true, 64, 0,
			  0, 0, 0 },
		};
		autobw_init_climb(&a, 200, 16, 2);
		autobw_preload(&a, r, 2, 8);
		ok(!autobw_scaling(&a), "6 writers at 36 MB/s: not scaling");
		is_int(autobw_writers(200, a.chosen), 4,
		       "the bound's 4 chosen");
		ok(autobw_bound(&a, a.chosen), "as the bound");
		autobw_release(&a);
	}

	/* An epoch not tried yet, with few tasks left: it runs only if
	 * the name would end sooner with it at the most it can write
	 * (autobw_epoch_pays). */
	{
		/* knee 6, alpha 0.1, r1 25: 8 writers wrote 167 MB/s; 7 write
		 * at most 175.  16 tasks left: two waves of 8 (0.096 s a MB)
		 * beat 7, 7 and 2 (0.12) */
		autobw_init_climb(&a, 200, 16, 8);
		struct autobw_entry r[] = {
			{ 200, 1, 2.56, 25, 25, 0.14, false, 64, 0, 0, 0, 0 },
			{ 25, 8, 3.072, 166.667, 20.833, 0.1, true, 64, 0, 0,
			  0, 0 },
		};
		autobw_preload(&a, r, 2, 16);
		ok(!autobw_epoch_pays(&a, 7, 16),
		   "16 left, 8 at 167 MB/s: 7 (at most 175) does not pay");
		ok(autobw_epoch_pays(&a, 7, 64),
		   "64 left: more than four waves stream at 7, and repay it");
		ok(autobw_epoch_pays(&a, 8, 16), "a registered count: true");
		autobw_release(&a);
		/* knee 1, alpha 0.5, r1 40: 4 writers wrote 80 MB/s; 3 write
		 * at most 120 */
		autobw_init_climb(&a, 200, 16, 2);
		struct autobw_entry s1[] = {
			{ 200, 1, 1.6, 40, 40, 0.09, false, 64, 0, 0, 0, 0 },
			{ 50, 4, 3.2, 80, 20, 0.1, true, 64, 0, 0, 0, 0 },
		};
		autobw_preload(&a, s1, 2, 8);
		ok(autobw_epoch_pays(&a, 3, 8),
		   "8 left, 4 at 80 MB/s: 3 (at most 120) pays");
		ok(!autobw_epoch_pays(&a, 3, 4),
		   "4 left: one wave of 4 at 80 is as soon as 3 and 1");
		autobw_release(&a);
		/* one count registered: nothing to compare with */
		autobw_init_climb(&a, 200, 16, 8);
		autobw_preload(&a, r, 1, 16);
		ok(autobw_epoch_pays(&a, 8, 16), "the one writer only: true");
		autobw_release(&a);
	}

	/* Learning's end with the name's tasks piled up: a last round too
	 * few to fill B, and a registered count that ends them in a round
	 * fewer (autobw_choose_pile). */
	{
		/* k12-a0.2-r8: 15 writers at the one's 8 MB/s write 120,
		 * 16 write 111 */
		autobw_init_climb(&a, 200, 16, 8);
		struct autobw_entry r[] = {
			{ 200, 1, 8, 8, 8, 0.1, false, 64, 0, 0, 0, 0 },
			{ 12.5, 16, 9.216, 111.11, 6.944, 0.09, true, 64, 0,
			  0, 0, 0 },
			{ 200.0 / 15, 15, 8, 120, 8, 0.025, true, 64, 0, 0,
			  0, 0 },
		};
		autobw_preload(&a, r, 3, 16);
		double c15 = autobw_choose(&a, 32);
		is_int(autobw_writers(200, c15), 15,
		       "by their rates, as a stream: 15");
		a.pile = 32;
		is_int(autobw_writers(200, autobw_choose_pile(&a, c15)), 16,
		       "32 piled: 16 in 2 rounds, not 15 and 2 at 16 MB/s");
		a.pile = 30;
		ok(autobw_choose_pile(&a, c15) == c15,
		   "30 piled: 2 rounds of 15, 15 stays");
		a.pile = 12;
		ok(autobw_choose_pile(&a, c15) == c15, "12 piled: 15 stays");
		a.pile = 40;
		ok(autobw_choose_pile(&a, c15) == c15,
		   "40 piled: 20 would end them in 2 rounds, never measured");
		a.pile = 0;
		ok(autobw_choose_pile(&a, c15) == c15, "not known: 15 stays");
		a.pile = 64;
		is_int(autobw_writers(200, autobw_choose_pile(&a, c15)), 16,
		       "64 piled: 16 in 4 rounds, not 15 in 5");
		/* the same, of sizes spread as 16 to 256 MB are (0.51):
		 * no rounds, and 15 write 8 % more */
		for (size_t i = 0; i < 3; i++)
			a.reg[i].spread = 0.51;
		a.pile = 32;
		ok(autobw_choose_pile(&a, c15) == c15,
		   "of unlike sizes, 32 piled: 15 stay");
		a.pile = 64;
		ok(autobw_choose_pile(&a, c15) == c15,
		   "of unlike sizes, 64 piled: 15 stay");
		autobw_release(&a);
		/* k13-a0.5-r16: 12 writers keep the one's 16 MB/s, 192
		 * MB/s; 13 write 200.  Any number of rounds: 64 piled take
		 * 6 of 12 (the last 4 alone at 64 MB/s), 5 of 13 */
		autobw_init_climb(&a, 200, 16, 8);
		struct autobw_entry k13[] = {
			{ 200, 1, 3.06, 16, 16, 0.083, false, 64, 0, 0, 0, 0 },
			{ 25, 8, 1.16, 128, 16, 0.025, true, 64, 0, 0, 0, 0 },
			{ 200.0 / 12, 12, 3.06, 192, 16, 0.025, true, 64, 0,
			  0, 0, 0 },
			{ 200.0 / 13, 13, 4.08, 200, 15.38, 0.025, true, 64, 0,
			  0, 0, 0 },
		};
		autobw_preload(&a, k13, 4, 64);
		double c12 = autobw_choose(&a, 64);
		is_int(autobw_writers(200, c12), 12,
		       "by their rates: 12 (13 only 4 %% more)");
		a.pile = 64;
		is_int(autobw_writers(200, autobw_choose_pile(&a, c12)), 13,
		       "64 piled: 13 in 5 rounds, not 12 in 6");
		a.pile = 60;
		ok(autobw_choose_pile(&a, c12) == c12,
		   "60 piled: 5 rounds of 12, 12 stays");
		autobw_release(&a);
		/* knee 10, fall 0.5, 16 MB/s a writer: 10 write 160, 11
		 * write 133; the last round of 10 of 11 places goes at 133
		 * at most, beside the others' tails */
		autobw_init_climb(&a, 200, 16, 2);
		struct autobw_entry k10[] = {
			{ 200, 1, 4, 16, 16, 0.05, false, 64, 0, 0, 0, 0 },
			{ 20, 10, 4, 160, 16, 0.02, true, 64, 0, 0, 0, 0 },
			{ 200.0 / 11, 11, 5.28, 133.33, 12.12, 0.02, true, 64,
			  0, 0, 0, 0 },
		};
		autobw_preload(&a, k10, 3, 16);
		a.pile = 32;
		ok(autobw_choose_pile(&a, 20) == 20,
		   "knee 10, 32 piled: 10 stay (11's rounds 4 %% sooner)");
		autobw_release(&a);
	}

	/* The name's last tasks, all there: the choice for them counts
	 * how far each running one is (autobw_batch_left,
	 * autobw_choose_batch). */
	{
		/* k2-a0.1-r8, each writer capped at 8 MB/s: 12 write 96 MB/s,
		 * 16 write 83; tasks of 64 MB (as the run that kept it
		 * said) */
		autobw_init_climb(&a, 200, 16, 8);
		struct autobw_entry r[] = {
			{ 200, 1, 8, 8, 8, 0.1, false, 64, 0, 0, 0, 0 },
			{ 25, 8, 8, 64, 8, 0.02, true, 64, 0, 0, 0, 0 },
			{ 200.0 / 12, 12, 8, 96, 8, 0.02, true, 64, 0, 0,
			  0, 0 },
			{ 12.5, 16, 12.29, 83.33, 5.208, 0.1, true, 64, 0, 0,
			  0, 0 },
		};
		autobw_preload(&a, r, 4, 16);
		ok(fabs(autobw_task_mb(&a) - 64) < 1e-9,
		   "the kept mean task: 64 MB");
		ok(autobw_task_spread(&a) == 0,
		   "no task ended in this run: no spread");
		double el[12], left[12];
		for (int i = 0; i < 12; i++)
			el[i] = i < 8 ? 7 : 9.2; /* their starts; now 10 */
		ok(autobw_batch_left(&a, el, 12, NULL, 0, 10, left) &&
			   fabs(left[0] - 0.625) < 1e-6 &&
			   fabs(left[11] - 0.9) < 1e-6,
		   "12 writers at 8 MB/s: 3 s in, 5/8 left; 0.8 s in, 0.9");
		/* the same with how many wrote: 8 for a second (8 MB/s
		 * each), 16 for 1.2 s (5.2), then 12 (8) */
		struct autobw_count h[] = { { 7, 8 }, { 8, 16 }, { 9.2, 12 } };
		ok(autobw_batch_left(&a, el, 12, h, 3, 10, left) &&
			   fabs(left[0] - (1 - (8 + 1.2 * 5.208 + 6.4) / 64)) <
				   1e-6 &&
			   fabs(left[11] - 0.9) < 1e-6,
		   "3 s in, a second at 8 MB/s, 1.2 at 5.2, 0.8 at 8: "
		   "0.677 left");
		ok(autobw_batch_left(&a, el, 12, NULL, 0, 10, left),
		   "(back to 3 s at 8 MB/s)");
		/* 4 ready and none to come: 12 places leave them to start as
		 * the first 8 end and run 8 s more; 16 run them now */
		is_int(autobw_writers(200, autobw_choose_batch(&a, left, NULL, 12, 4,
							       200.0 / 12)),
		       16, "12 running, the last 4 ready: 16 places");
		/* 36 ready: a stream more than a tail, 12 stay (96 MB/s) */
		is_int(autobw_writers(200, autobw_choose_batch(&a, left, NULL, 12,
							       36, 200.0 / 12)),
		       12, "12 running, 36 ready: 12 stay");
		/* 16 running, none ready: the running run on whatever the
		 * count (stopping some is autobw_drain_pays'), and the
		 * current stays */
		double l16[16];
		for (int i = 0; i < 16; i++)
			l16[i] = 0.5;
		is_int(autobw_writers(200, autobw_choose_batch(&a, l16, NULL, 16, 0,
							       200.0 / 12)),
		       12, "16 running, none to come: the current stays");
		autobw_release(&a);
		/* knee 14, alpha 0.5, r1 30: 7 and 8 writers both write B;
		 * the last 8 ready at once: 7 places leave the 8th alone at
		 * 30 MB/s after them, 8 run them together */
		autobw_init_climb(&a, 200, 16, 8);
		struct autobw_entry rb[] = {
			{ 200, 1, 2.133, 30, 30, 0, false, 64, 0, 0, 0, 0 },
			{ 200.0 / 7, 7, 2.24, 200, 28.57, 0, false, 64, 0, 0,
			  0, 0 },
			{ 25, 8, 2.56, 200, 25, 0, false, 64, 0, 0, 0, 0 },
		};
		autobw_preload(&a, rb, 3, 64);
		is_int(autobw_writers(200, autobw_choose(&a, 64)), 8,
		       "7 and 8 write B, 8 cores: 8 write a wave of 8 sooner");
		is_int(autobw_writers(200, autobw_choose_batch(&a, NULL, NULL, 0, 8,
							       200.0 / 7)),
		       8, "the last 8 ready at once: 8 places");
		is_int(autobw_writers(200, autobw_choose_batch(&a, NULL, NULL, 0, 7,
							       200.0 / 7)),
		       7, "the last 7: 7 stay");
		autobw_release(&a);
		/* on 2 cores tasks come two at a time: a stream, and of two
		 * counts within 5 % the fewer writers */
		autobw_init_climb(&a, 200, 16, 2);
		autobw_preload(&a, rb, 3, 64);
		is_int(autobw_writers(200, autobw_choose(&a, 64)), 7,
		       "7 and 8 write B, 2 cores: 7 chosen for a stream");
		autobw_release(&a);
		/* 6 cores: a wave of 6 is written as soon by either; the
		 * fewer writers */
		autobw_init_climb(&a, 200, 16, 6);
		autobw_preload(&a, rb, 3, 64);
		is_int(autobw_writers(200, autobw_choose(&a, 64)), 7,
		       "6 cores: 7 chosen");
		autobw_release(&a);
		/* knee 4, alpha 0.1, r1 30: 6 writers write 167 MB/s, 7
		 * write 154, 8 write 143; a next run's wave of 8 has just
		 * ended learning with 6 chosen, the 8 still running with
		 * 0.84 of a task each to write, and 8 more piled up.  On,
		 * the 8 would keep 143 MB/s and 8 places win; the drain
		 * stops the 2 youngest for 6, which write the rest at 167 */
		autobw_init_climb(&a, 200, 16, 8);
		struct autobw_entry rk[] = {
			{ 200, 1, 2.133, 30, 30, 0.1, false, 64, 0, 0, 0, 0 },
			{ 200.0 / 7, 7, 0.636, 153.85, 21.98, 0.1, true, 64, 0,
			  0, 0, 0 },
			{ 200.0 / 6, 6, 1.323, 166.67, 27.78, 0.025, true, 64,
			  0, 0, 0, 0 },
			{ 25, 8, 0.742, 142.86, 17.86, 0.1, true, 64, 0, 0,
			  0, 0 },
		};
		autobw_preload(&a, rk, 4, 16);
		double l8[8];
		long st8[8];
		for (int i = 0; i < 8; i++) {
			l8[i] = 0.84;
			st8[i] = i < 6 ? -1 : i - 6; /* the 2 youngest */
		}
		is_int(autobw_writers(200, autobw_choose_batch(&a, l8, NULL, 8, 8,
							       200.0 / 6)),
		       8, "8 running on, 8 piled: 8 places");
		is_int(autobw_writers(200, autobw_choose_batch(&a, l8, st8, 8, 8,
							       200.0 / 6)),
		       6, "the drain stops 2 of the 8 for 6: 6 stay");
		for (int i = 0; i < 8; i++)
			st8[i] = -1;
		is_int(autobw_writers(200, autobw_choose_batch(&a, l8, st8, 8, 8,
							       200.0 / 6)),
		       8, "none of them young enough to stop: 8 places");
		autobw_release(&a);
		/* k10-a0.5-r8, each writer capped at 8 MB/s: 8 and 12 keep
		 * the pace (64 and 96 MB/s), 16 slow to 50; the last 16
		 * ready at once, 8 places chosen.  Of one size 8 and 12 end
		 * them in two rounds alike, and 8 stay; of sizes spread 0.28
		 * (44 to 228 MB) 12 places start the largest sooner */
		struct autobw_entry rs[] = {
			{ 200, 1, 17, 8, 8, 0.1, false, 136, 0, 0, 0, 0 },
			{ 25, 8, 2.4, 64, 8, 0.02, true, 136, 0, 0, 0, 0 },
			{ 200.0 / 12, 12, 2.4, 96, 8, 0.02, true, 136, 0, 0,
			  0, 0 },
			{ 12.5, 16, 2.4, 50, 3.125, 0.1, true, 136, 0, 0,
			  0, 0 },
		};
		autobw_init_climb(&a, 200, 16, 8);
		autobw_preload(&a, rs, 4, 16);
		is_int(autobw_writers(200, autobw_choose_batch(&a, NULL, NULL, 0,
							       16, 25)),
		       8, "16 of one size ready, 8 or 12 two rounds: 8 stay");
		autobw_release(&a);
		for (int i = 0; i < 4; i++)
			rs[i].spread = 0.28;
		autobw_init_climb(&a, 200, 16, 8);
		autobw_preload(&a, rs, 4, 16);
		is_int(autobw_writers(200, autobw_choose_batch(&a, NULL, NULL, 0,
							       16, 25)),
		       12, "16 of unlike sizes ready: 12 places");
		/* a running task that wrote past the least of such sizes
		 * has the mean left of those larger: half of 1 + 0.485 - w
		 * (of one size, 1 - w: 0.412) */
		double st1 = 0, l1;
		ok(autobw_batch_left(&a, &st1, 1, NULL, 0, 10, &l1) &&
			   fabs(l1 - (1 + sqrt(3.0) * 0.28 - 80.0 / 136) / 2) <
				   1e-6,
		   "unlike sizes, 80 of the mean 136 MB written: 0.449 left");
		autobw_release(&a);
		/* a registry without the one writer, or without the task's
		 * size: no choice */
		autobw_init_climb(&a, 200, 16, 8);
		autobw_preload(&a, r + 1, 3, 16);
		ok(autobw_choose_batch(&a, left, NULL, 12, 4, 200.0 / 12) == 0,
		   "no one writer's pace: no choice");
		autobw_release(&a);
		autobw_init_climb(&a, 200, 16, 8);
		struct autobw_entry nq[] = {
			{ 200, 1, 8, 8, 8, 0.1, false, 0, 0, 0, 0, 0 },
			{ 12.5, 16, 12.29, 83.33, 5.208, 0.1, true, 0, 0, 0,
			  0, 0 },
		};
		autobw_preload(&a, nq, 2, 16);
		ok(!autobw_batch_left(&a, el, 12, NULL, 0, 10, left),
		   "no task's size known: no progress");
		autobw_release(&a);
	}

	/* A kept registry whose search is still open goes on with it
	 * before it tries a wave or a round fewer above its best (knee 8,
	 * fall 0.1, 16 MB/s a writer: the fill point's 12 slowed one
	 * another, 143 MB/s, and the next run tried 16 to end 16
	 * checkpoints in one round, 111 MB/s, +5.4 % over the best static,
	 * 10, in wfrun sim; the search's own next step is 10) */
	{
		struct autobw_entry r[] = {
			{ 200, 1, 4, 16, 16, 0.03, false, 64, 0, 0, 0, 0 },
			{ 25, 8, 4, 128, 16, 0.025, true, 64, 0, 0, 0, 0 },
			{ 16.6667, 12, 5.38, 142.86, 11.9, 0.034, true, 64, 0,
			  0, 0, 0 },
		};
		is_int(open_piled(&a, r, 3, 16, 8),
		       10, "12 slowed: the search goes on at 10");
		ok(!strcmp(a.step, "golden-down"), "golden-down (%s)", a.step);
		autobw_release(&a);
		/* ...unless the round fewer, at the family's rate (1 / rate a
		 * line from 8, which kept pace, through 12), beats the best
		 * the search's step could do: fall 0.05, 12 wrote 167 MB/s,
		 * so 16 may write 143 and end the 16 in one round (0.112 of a
		 * task's MB per MB/s), where 11 at 176 at best leave 5 to a
		 * second round (0.125): 16 tried, the best static */
		r[2] = (struct autobw_entry){ 16.6667, 12, 4.6, 166.67, 13.9,
					      0.03, true, 64, 0, 0, 0, 0 };
		is_int(open_piled(&a, r, 3, 16, 8),
		       16, "12 wrote 167: 16 before the search");
		ok(!strcmp(a.step, "tail"), "tail (%s)", a.step);
		/* 32 piled: 16 would take 2 rounds at 143 (0.224), 11 at
		 * best 2 of 11 and 10 at 160 (0.188): the search goes on */
		autobw_preload(&a, r, 3, 32);
		a.pile = 32;
		is_int(autobw_open(&a), 11, "32 piled: the search's 11");
		ok(!strcmp(a.step, "golden-down"), "golden-down (%s)", a.step);
		autobw_release(&a);
	}

	/* ...and when the tasks to run cannot repay the search's step,
	 * the round fewer above the best is asked for (autobw_open_above):
	 * knee 1, fall 0.3, 16 MB/s a writer, 8 checkpoints on 2 cores: 6
	 * write 80 MB/s, 4 write 64; the search's next is 5, and 8 end the
	 * 8 in one round. */
	{
		struct autobw_entry r[] = {
			{ 200, 1, 1.39, 16, 16, 0.083, false, 64, 0, 0, 0, 0 },
			{ 50, 4, 1.39, 64, 16, 0.051, true, 64, 0, 0, 0, 0 },
			{ 33.3333, 6, 1.67, 80, 13.33, 0.057, true, 64, 0, 0,
			  0, 0 },
		};
		is_int(open_piled(&a, r, 3, 8, 2),
		       5, "knee 1: the search's next is 5");
		is_int(autobw_open_above(&a), 8, "8 at once instead (%s)",
		       a.step);
		ok(!strcmp(a.step, "tail"), "step tail");
		autobw_release(&a);
	}

	/* A try above a best that writes B joins a stage at a time (knee
	 * 12 or 20, 20 MB/s a writer): 10 wrote B, and a next run of 16
	 * checkpoints tries 16 to end them in one round.  15 may write
	 * first; where they slow one another (knee 12: 105 MB/s), that is
	 * the epoch, and the 16th never joins; where they write B (knee
	 * 20), it joins. */
	for (int knee = 12; knee <= 20; knee += 8) {
		struct autobw_entry r[] = {
			{ 200, 1, 3.2, 20, 20, 0.03, false, 64, 0, 0, 0, 0 },
			{ 25, 8, 3.2, 160, 20, 0.025, true, 64, 0, 0, 0, 0 },
			{ 20, 10, 3.2, 200, 20, 0.025, true, 64, 0, 0, 0, 0 },
		};
		struct law L = { 200, 20, knee, 0.3 };
		int slot[16];
		is_int(open_piled(&a, r, 3, 16, 8),
		       16, "knee %d: 16 tried (tail)", knee);
		autobw_resume(&a, 16, 8);
		is_int(a.stage, 15, "knee %d: 15 may write first", knee);
		int started = 0;
		while (started < 16 && autobw_can_start(&a)) {
			autobw_started(&a);
			slot[started++] = autobw_slot_open(&a);
		}
		is_int(started, 15, "knee %d: 15 start, the 16th waits", knee);
		double took = fly(&a, &L, slot, 15, 0, 1.0);
		if (knee == 12) {
			ok(took > 0 && a.nreg == 4 && a.reg[3].k == 15 &&
				   a.reg[3].mbps < 120,
			   "knee 12: 15 slowed (%.0f MB/s), the epoch taken "
			   "at %.2f s", a.nreg == 4 ? a.reg[3].mbps : 0, took);
		} else {
			ok(took < 0 && a.stage == 0 && autobw_can_start(&a),
			   "knee 20: 15 write B, the 16th joins");
		}
		autobw_release(&a);
	}

	/* A kept registry is a search paused (autobw_open): best7 on
	 * congestdev, Kmeans-3, stopped with 6 the best (120 MB/s), 8
	 * tried above it, 7 never; the next run tries 7 (133), and then
	 * the bracket is closed: 7 chosen. */
	{
		struct autobw_entry r[] = {
			{ 200, 1, 3.2, 20, 20, 0.03, false, 0, 0, 0, 0, 0 },
			{ 20, 10, 6.4, 100, 10, 0.03, true, 0, 0, 0, 0, 0 },
			{ 25, 8, 4.3, 118, 14.75, 0.02, true, 0, 0, 0, 0, 0 },
			{ 33.3333, 6, 3.2, 120, 20, 0.025, true, 0, 0, 0,
			  0, 0 },
		};
		autobw_init_climb(&a, 200, 16, 2); /* (congestdev's cores) */
		autobw_preload(&a, r, 4, 100);
		is_int(autobw_writers(200, a.chosen), 6, "kept: 6 chosen");
		is_int(autobw_open(&a), 7, "the search left 7 untried");
		ok(a.kbest == 6 && a.lo == 5 && a.hi == 8,
		   "between 5 (6 writers' 120 over 21 a writer) and 8");
		autobw_resume(&a, 7, 8);
		ok(a.phase == AUTOBW_LEARNING && a.k == 7 && a.epoch == 1 &&
			   !strcmp(a.step, "resume"),
		   "resumed: epoch 1 of 7 writers");
		/* 14 tasks of 64 MB, 7 at a time, at 133 MB/s */
		double tt = 64.0 * 7 / 133;
		bool ended = false;
		for (int w = 0; w < 2; w++)
			for (int j = 0; j < 7; j++)
				autobw_started(&a);
		for (int w = 0; w < 2; w++)
			for (int j = 0; j < 7; j++)
				ended = autobw_finished(&a, 1, w * tt,
							(w + 1) * tt, 64);
		ok(ended && a.phase == AUTOBW_LEARNED && a.nreg == 5,
		   "7 registered, learning over");
		ok(!strcmp(a.step, "bracketed"), "bracketed");
		is_int(autobw_writers(200, autobw_choose(&a, 50)), 7,
		       "7 chosen");
		is_int(autobw_open(&a), 0, "nothing left open");
		autobw_release(&a);
		/* no bytes known (the paces of an earlier version's file):
		 * nothing to resume */
		struct autobw_entry r0[4];
		memcpy(r0, r, sizeof(r));
		for (int i = 0; i < 4; i++)
			r0[i].pace = 0;
		autobw_init_climb(&a, 200, 16, 8);
		autobw_preload(&a, r0, 4, 100);
		is_int(autobw_open(&a), 0, "paces not known: not resumed");
		autobw_release(&a);
		/* the best kept the one writer's pace: nothing to try */
		struct autobw_entry rk[] = {
			{ 200, 1, 3.2, 20, 20, 0.03, false, 0, 0, 0, 0, 0 },
			{ 20, 10, 3.2, 200, 20, 0.03, true, 0, 0, 0, 0, 0 },
		};
		autobw_init_climb(&a, 200, 16, 8);
		autobw_preload(&a, rk, 2, 100);
		is_int(autobw_open(&a), 0, "kept pace at the fill point");
		autobw_release(&a);
		/* kept pace below B, one writer more never tried (the first
		 * run's last tasks could not repay it): the next run tries
		 * it, fill-up (r1 60: 3 write 180 MB/s, 8 checkpoints on 2
		 * cores chose 3 again, +9 % over the best static, 4) */
		struct autobw_entry ru[] = {
			{ 200, 1, 1.07, 60, 60, 0.045, false, 64, 0, 0, 0, 0 },
			{ 66.6667, 3, 0.95, 180, 60, 0.025, true, 64, 0, 0,
			  0, 0 },
		};
		autobw_init_climb(&a, 200, 16, 2);
		autobw_preload(&a, ru, 2, 8);
		is_int(a.fill, 3, "r1 60: the fill point 3");
		is_int(autobw_open(&a), 4, "3 kept pace below B: 4 left open");
		ok(!strcmp(a.step, "fill-up") && a.kbest == 3,
		   "fill-up above 3 (%s, best %ld)", a.step, a.kbest);
		autobw_release(&a);
		/* a best below the fill point, bracketed (knee 5, fall
		 * 0.05, 30 MB/s a writer: 6 write 180, 7 182, slowed): on 8
		 * cores 6 leave 2 of each wave behind; 8 at no less than 7's
		 * rate write a wave 30 % sooner: the wave is tried */
		struct autobw_entry rw[] = {
			{ 200, 1, 0.68, 30, 30, 0.1, false, 64, 0, 0, 0, 0 },
			{ 200.0 / 7, 7, 0.78, 181.8, 25.97, 0.05, true, 64, 0,
			  0, 0, 0 },
			{ 200.0 / 6, 6, 1.5, 180, 30, 0.025, true, 64, 0, 0,
			  0, 0 },
		};
		autobw_init_climb(&a, 200, 16, 8);
		autobw_preload(&a, rw, 3, 16);
		is_int(autobw_open(&a), 8, "6 of 8 cores, below the fill point: 8");
		ok(!strcmp(a.step, "wave"), "step wave (%s)", a.step);
		autobw_release(&a);
		/* the same on 6 cores: nothing behind, nothing tried */
		autobw_init_climb(&a, 200, 16, 6);
		autobw_preload(&a, rw, 3, 16);
		is_int(autobw_open(&a), 0, "6 of 6 cores: bracketed");
		autobw_release(&a);
		/* knee 5, fall 1.5: 6 write 80; 8 could not write a wave of
		 * 8 sooner than 5 at 150 */
		struct autobw_entry rk5[] = {
			{ 200, 1, 0.68, 30, 30, 0.1, false, 64, 0, 0, 0, 0 },
			{ 200.0 / 6, 6, 4.8, 80, 13.3, 0.05, true, 64, 0, 0,
			  0, 0 },
			{ 40, 5, 2.1, 150, 30, 0.025, true, 64, 0, 0, 0, 0 },
		};
		autobw_init_climb(&a, 200, 16, 8);
		autobw_preload(&a, rk5, 3, 16);
		is_int(autobw_open(&a), 0, "fall 1.5: no wave tried");
		autobw_release(&a);
		/* 16 tasks piled, 11 the best, 12 slowed (knee 8, fall 0.05,
		 * 16 MB/s): 11 and 5 after them; 16 at once at no less than
		 * 12's 167 end them 24 % sooner: tried (tail) */
		struct autobw_entry rt[] = {
			{ 200, 1, 2.4, 16, 16, 0.08, false, 64, 0, 0, 0, 0 },
			{ 25, 8, 1.2, 128, 16, 0.025, true, 64, 0, 0, 0, 0 },
			{ 200.0 / 12, 12, 2.8, 166.7, 13.9, 0.09, true, 64, 0,
			  0, 0, 0 },
			{ 200.0 / 11, 11, 2.4, 173.9, 15.8, 0.1, true, 64, 0,
			  0, 0, 0 },
		};
		is_int(open_piled(&a, rt, 4, 16, 8),
		       16, "16 piled, 11 the best: 16");
		ok(!strcmp(a.step, "tail"), "step tail (%s)", a.step);
		autobw_release(&a);
		/* 5 kept pace at B (40 MB/s a writer), 8 slowed to 111: the
		 * knee is from 5 to 7; of 32 piled, 5 leave 2 to a last
		 * round at 80 MB/s, 7 would leave 4 at 160 and take 5.7 %
		 * less at B: 7 tried (tail, between 5 and 8) */
		struct autobw_entry rtu[] = {
			{ 200, 1, 0.74, 40, 40, 0.09, false, 64, 0, 0, 0, 0 },
			{ 40, 5, 0.74, 200, 40, 0.05, true, 64, 0, 0, 0, 0 },
			{ 25, 8, 2.46, 111.1, 13.9, 0.1, true, 64, 0, 0, 0, 0 },
		};
		is_int(open_piled(&a, rtu, 3, 32, 8),
		       7, "5 at B, 8 slowed, 32 piled: 7");
		ok(!strcmp(a.step, "tail") && a.lo == 5 && a.hi == 8,
		   "step tail between 5 and 8 (%s, %ld, %ld)", a.step, a.lo,
		   a.hi);
		autobw_release(&a);
		/* 7 tried and slowed too (100 MB/s): 6 would leave 2 as 5
		 * do, no sooner: nothing more is tried */
		rtu[2] = (struct autobw_entry){ 200.0 / 7, 7, 4.5, 100, 14.3, 0.1,
					       true, 64, 0, 0, 0, 0 };
		is_int(open_piled(&a, rtu, 3, 32, 8),
		       0, "5 at B, 7 slowed: nothing");
		autobw_release(&a);
		/* 30 piled: 5 end them in 6 full rounds, as 6 do: nothing */
		rtu[2] = (struct autobw_entry){ 25, 8, 2.46, 111.1, 13.9, 0.1, true,
					       64, 0, 0, 0, 0 };
		is_int(open_piled(&a, rtu, 3, 30, 8),
		       0, "30 piled, 5 at B: no round short");
		autobw_release(&a);
		/* 10 fill B at 20 MB/s a writer and 11 write B too (knee
		 * 12, 32 HMMER-like checkpoints on 8 cores): below the knee
		 * more places cost nothing, and the last tasks' choice ends
		 * them sooner through them; 12 are tried (knee, above 11) */
		struct autobw_entry rkn[] = {
			{ 200, 1, 3.2, 20, 20, 0.1, false, 64, 0, 0, 0, 0 },
			{ 20, 10, 2.98, 200, 20, 0.025, true, 64, 0, 0, 0, 0 },
			{ 200.0 / 11, 11, 3.52, 200, 200.0 / 11, 0.025, true, 64,
			  0, 0, 0, 0 },
		};
		is_int(open_piled(&a, rkn, 3, 32, 8),
		       12, "10 and 11 write B: 12");
		ok(!strcmp(a.step, "knee") && a.lo == 10,
		   "step knee above 10 (%s, %ld)", a.step, a.lo);
		autobw_release(&a);
		/* 11 slowed a little (190 MB/s, fall 0.05): the knee is
		 * known, nothing more is tried */
		rkn[2].mbps = 190;
		rkn[2].pace = 190.0 / 11;
		is_int(open_piled(&a, rkn, 3, 32, 8),
		       0, "11 at 190: nothing above");
		autobw_release(&a);
		/* 10 alone measured, 30 piled (3 full rounds: no tail): the
		 * fill point, and nothing above it said more write B */
		is_int(open_piled(&a, rkn, 2, 30, 8),
		       0, "10 only: nothing above");
		autobw_release(&a);
		/* all 16 executors at B: none more to try */
		struct autobw_entry rk16[] = {
			{ 200, 1, 3.2, 20, 20, 0.1, false, 64, 0, 0, 0, 0 },
			{ 20, 10, 2.98, 200, 20, 0.025, true, 64, 0, 0, 0, 0 },
			{ 12.5, 16, 5.1, 200, 12.5, 0.025, true, 64, 0, 0,
			  0, 0 },
		};
		is_int(open_piled(&a, rk16, 3, 32, 8),
		       0, "16 of 16 at B: nothing above");
		autobw_release(&a);
		/* 5 fill B at 40 MB/s, 8 (the wave of 8 cores) write B too:
		 * a wave at once; one more only cost (knee 8: 9 write 100) */
		struct autobw_entry rkw[] = {
			{ 200, 1, 1.6, 40, 40, 0.1, false, 64, 0, 0, 0, 0 },
			{ 40, 5, 1.6, 200, 40, 0.025, true, 64, 0, 0, 0, 0 },
			{ 25, 8, 2.56, 200, 25, 0.025, true, 64, 0, 0, 0, 0 },
		};
		is_int(open_piled(&a, rkw, 3, 40, 8),
		       0, "8 of 8 cores at B: no knee try");
		autobw_release(&a);
		/* the same on 6 cores: 8 are more than a wave, 9 tried */
		is_int(open_piled(&a, rkw, 3, 40, 6),
		       9, "8 at B on 6 cores: 9");
		autobw_release(&a);
		/* The family's bound (knee 2, fall 0.2, 16 MB/s a writer: 8
		 * wrote 90.9 MB/s, so 6 may write 96) is chosen only if it
		 * writes a wave of the cores sooner: on 8 cores, 6 leave 2
		 * of each 8 to write after the others (+7 to +9 % over the
		 * best static, 8, in wfrun sim); on 2 cores it is. */
		struct autobw_entry rb[] = {
			{ 200, 1, 0.48, 16, 16, 0.083, false, 64, 0, 0, 0, 0 },
			{ 25, 8, 0.68, 90.9091, 11.36, 0.1, true, 64, 0, 0,
			  0, 0 },
		};
		autobw_init_climb(&a, 200, 16, 8);
		autobw_preload(&a, rb, 2, 16);
		is_int(autobw_writers(200, a.chosen), 8,
		       "8 cores: 8 chosen, not the bound 6");
		autobw_release(&a);
		autobw_init_climb(&a, 200, 16, 2);
		autobw_preload(&a, rb, 2, 16);
		is_int(autobw_writers(200, a.chosen), 6, "2 cores: the bound 6");
		ok(autobw_bound(&a, a.chosen), "6 is the family's bound");
		autobw_release(&a);
		/* still scaling: left to the scaling rule */
		struct autobw_entry rs[] = {
			{ 200, 1, 3.2, 10, 10, 0.03, false, 0, 0, 0, 0, 0 },
			{ 100, 2, 3.2, 20, 10, 0.03, false, 0, 0, 0, 0, 0 },
			{ 50, 4, 3.2, 40, 10, 0.03, false, 0, 0, 0, 0, 0 },
		};
		autobw_init_climb(&a, 200, 16, 8);
		autobw_preload(&a, rs, 3, 100);
		ok(autobw_scaling(&a) && !autobw_open(&a),
		   "still scaling: not resumed");
		autobw_release(&a);
	}

	/* The one writer's pace is the rate read while it wrote, not its
	 * MB over its whole time, which a device's first budget made 7 %
	 * more (congestdev's knee8: 24.8 read, 26.5 over its time): 8
	 * writers at 194.7 MB/s kept that pace, and 7 is not tried. */
	{
		struct autobw_entry r[] = {
			{ 200, 1, 2.41, 24.84, 26.5, 0.05, false, 0, 0, 0,
			  0, 0 },
			{ 25, 8, 2.6, 194.7, 24.34, 0.035, true, 0, 0, 0,
			  0, 0 },
		};
		autobw_init_climb(&a, 200, 16, 2);
		autobw_preload(&a, r, 2, 100);
		ok(a.fill == 8 && autobw_open(&a) == 0,
		   "knee8: 8 kept the one writer's 24.8 MB/s, nothing to "
		   "try");
		is_int(autobw_writers(200, a.chosen), 8, "8 chosen");
		autobw_release(&a);
	}

	/* storage_bw: N counts floor(B / N) writers, a rounded B / k
	 * meaning k (issue 23). */
	is_int(autobw_writers(200, 66.6667), 3, "66.6667 of 200: 3 writers");
	is_int(autobw_writers(200, 16.6667), 12,
	       "16.6667 of 200 (B / 12 to 6 digits, 2e-6 short): 12");
	is_int(autobw_writers(200, 66.668), 2, "66.668 of 200: 2");
	is_int(autobw_writers(200, 50), 4, "50 of 200: 4");
	is_int(autobw_writers(200, 50.01), 3, "50.01 of 200: 3");
	is_int(autobw_writers(450, 4), 112, "4 of 450: 112");
	is_int(autobw_writers(200, 0), 0, "no constraint: 0");
	ok(autobw_fits(200, 2 * 66.6667, 66.6667), "the third of 66.6667 fits");
	ok(!autobw_fits(200, 3 * 66.6667, 66.6667), "a fourth does not");
	ok(!autobw_fits(200, 2 * 66.668, 66.668), "a third of 66.668 does not");
	autobw_init(&a, 200, 16, true, 66.6667, 200, 2);
	is_int(a.k, 3, "an epoch at 66.6667 of 200 runs 3");
	autobw_release(&a);

	/* The spread of the sizes of the tasks that ended: the play-out's
	 * mean task stands for them below AUTOBW_SPREAD_MAX. */
	autobw_init(&a, 200, 16, false, 0, 0, 0);
	autobw_ended(&a, 64);
	ok(autobw_task_spread(&a) == 0, "one task: no spread");
	autobw_ended(&a, 64);
	autobw_ended(&a, -1); /* (its size not known: not counted) */
	autobw_ended(&a, 64);
	ok(autobw_task_spread(&a) < 1e-6, "three of 64 MB: none");
	autobw_ended(&a, 16);
	autobw_ended(&a, 256);
	/* 64, 64, 64, 16, 256: mean 92.8, deviation 83.7 */
	ok(fabs(autobw_task_spread(&a) - 0.9018) < 1e-3 &&
		   autobw_task_spread(&a) > AUTOBW_SPREAD_MAX,
	   "and 16 and 256 MB: 0.902, over the play-out's limit");
	autobw_release(&a);
	autobw_init(&a, 200, 16, false, 0, 0, 0);
	for (int i = 0; i < 10; i++)
		autobw_ended(&a, i % 2 ? 72 : 56); /* 64 +- 12.5 % */
	ok(fabs(autobw_task_spread(&a) - 0.125) < 1e-9,
	   "56 and 72 MB: 0.125, under it");
	autobw_release(&a);

	/* A kept registry says how unlike its run's tasks were: 8 fill B
	 * at 25 MB/s a writer (knee 12, 16 Kmeans-1 checkpoints of 16 to
	 * 256 MB on 8 cores).  Alike, 8 are the wave and the best: nothing
	 * to try; unlike, the tasks are not in waves and more places at B
	 * start the largest sooner: 9 are tried (knee), and chosen once
	 * they write B. */
	{
		struct autobw_entry rv[] = {
			{ 200, 1, 0.76, 25, 25, 0.14, false, 136, 0, 0, 0, 0 },
			{ 25, 8, 0.76, 200, 25, 0.05, true, 136, 0, 0, 0, 0 },
			{ 200.0 / 9, 9, 0.76, 200, 200.0 / 9, 0.05, true, 136, 0,
			  0, 0, 0 },
			{ 20, 10, 0.76, 180, 18, 0.05, true, 136, 0, 0, 0, 0 },
		};
		is_int(open_piled(&a, rv, 2, 16, 8), 0,
		       "alike: 8 at B, the wave: nothing to try");
		is_int(autobw_writers(200, a.chosen), 8, "8 chosen");
		ok(autobw_task_spread(&a) == 0, "no spread kept: 0");
		autobw_release(&a);
		for (int i = 0; i < 4; i++)
			rv[i].spread = 0.9;
		is_int(open_piled(&a, rv, 2, 16, 8), 9,
		       "unlike (0.9 kept): 9 tried");
		ok(!strcmp(a.step, "knee") && a.lo == 8,
		   "step knee above 8 (%s, %ld)", a.step, a.lo);
		ok(autobw_task_spread(&a) == 0,
		   "the kept spread is not this run's (the play-out's): 0");
		autobw_release(&a);
		/* 9 wrote B too: 9 chosen, and 10 tried next */
		is_int(open_piled(&a, rv, 3, 16, 8), 10, "9 at B too: 10 tried");
		is_int(autobw_writers(200, a.chosen), 9,
		       "9 chosen, the most at B");
		/* two alike ended first (the least end first): still */
		autobw_ended(&a, 64);
		autobw_ended(&a, 64);
		is_int(autobw_writers(200, autobw_choose(&a, 14)), 9,
		       "two of 64 MB ended: 9 still");
		autobw_release(&a);
		/* 10 slowed (180 MB/s): 9 stay, nothing more is tried */
		is_int(open_piled(&a, rv, 4, 16, 8), 0, "10 slowed: nothing");
		is_int(autobw_writers(200, a.chosen), 9, "9 chosen");
		autobw_release(&a);
		for (int i = 0; i < 4; i++)
			rv[i].spread = 0;
		is_int(open_piled(&a, rv, 3, 16, 8), 10,
		       "alike, 8 and 9 at B: 10 tried (9 are over a wave)");
		is_int(autobw_writers(200, a.chosen), 8,
		       "8 chosen, the fewest of equals");
		autobw_release(&a);
	}

	/* How the name's tasks become ready (autobw_arrivals): a wave of
	 * the 8 cores at 1.8 to 2.09 s, then 4 more 2.1 s after the first
	 * four: the period is the median of the times from a task's
	 * arrival to the 8th after it; the first wave's spread, 0.29 s. */
	{
		double rt[12];
		for (int i = 0; i < 8; i++)
			rt[i] = 1.8 + 0.29 * i / 7;
		for (int i = 8; i < 12; i++)
			rt[i] = rt[i - 8] + 2.1 + (i == 11 ? 1 : 0);
		autobw_init_climb(&a, 200, 16, 8);
		autobw_arrivals(&a, rt, 8);
		ok(a.period == 0, "a wave only: not known (%g)", a.period);
		autobw_arrivals(&a, rt, 12);
		ok(fabs(a.period - 2.1) < 1e-9 && fabs(a.wave_s - 0.29) < 1e-9,
		   "period 2.1 s (the median of 2.1, 2.1, 2.1, 3.1: %g), "
		   "spread 0.29 (%g)", a.period, a.wave_s);
		autobw_release(&a);
		/* Knee 5, fall 0.05, 30 MB/s a writer: 7 wrote 182 MB/s, 6
		 * kept pace at 180 and are the best; 12 tasks piled.  Ready
		 * all at once (not known), 8 leave none of the first wave
		 * behind: tried.  Ready 8, then 4 at 2.11 s: the 4 would wait
		 * for the 8 and write at 120 MB/s; 6 end them sooner, so
		 * nothing is tried.  16 (two whole waves): 8 are tried. */
		struct autobw_entry r[] = {
			{ 200, 1, 0.68, 30, 30, 0.1, false, 64, 0, 0, 0, 0 },
			{ 200.0 / 7, 7, 0.78, 181.8, 25.97, 0.05, true, 64, 0,
			  0, 0, 0 },
			{ 200.0 / 6, 6, 1.5, 180, 30, 0.025, true, 64, 0, 0, 0,
			  0 },
		};
		is_int(open_piled(&a, r, 3, 12, 8), 8,
		       "ready not known: the wave of 8 tried");
		autobw_release(&a);
		for (int i = 0; i < 3; i++) {
			r[i].period = 2.11;
			r[i].wave_s = 0.29;
		}
		is_int(open_piled(&a, r, 3, 12, 8), 0,
		       "8, then 4 at 2.11 s: nothing tried");
		is_int(autobw_writers(200, a.chosen), 6, "6 chosen");
		ok(a.period == 2.11 && a.wave_s == 0.29,
		   "the registry's period and spread (%g, %g)", a.period,
		   a.wave_s);
		autobw_release(&a);
		is_int(open_piled(&a, r, 3, 16, 8), 8,
		       "two waves of 8: the wave tried");
		autobw_release(&a);
	}

	return done_testing();
}
