/*
 * autobw: the learner of automatic storage-bandwidth constraints
 * (storage_bw: auto and auto(min,max,delta)), one per task name, exactly
 * as the PyCOMPSs I/O paper specifies it (below).  Pure: it is told when
 * tasks of its name start and finish and how long they took, and answers
 * which constraint the next task gets.  No clock, no I/O.
 *
 * Learning runs in epochs.  Epoch i uses constraint c_i, so that
 * k_i = floor(B / c_i) tasks share the device; it ends when the tasks that
 * joined it have all finished, and records its time t_i.  The paper
 * records the tasks' mean time, which is what one wave of k_i tasks
 * takes when they all start together.  wfrun records the time a wave of
 * k_i tasks takes at the throughput the epoch really had: t_i = k_i S / n,
 * n the tasks that ran in it and S the time at least one of them was
 * running.  When all k_i start together and take the same time, the two
 * agree; when the tasks become ready a few at a time (on a machine with
 * few cores, checkpoints come two by two), the concurrency never reaches
 * k_i, their mean flatters c_i, and the halving rule below compares
 * noise: measured on congestdev (bench/RESULTS.md), the mean made auto
 * stop at the most congested constraint.
 *   auto:             c_1 = B / executors (the lowest constraint that lets
 *                     every I/O executor run), c_(i+1) = 2 c_i; learning goes
 *                     on while t_i <= t_(i-1) / 2 (halving the concurrency at
 *                     least halves the task time); the epoch that breaks the
 *                     rule is not registered.  It also ends when doubling c
 *                     would leave fewer than one task on the device.
 *   auto(min,max,d):  c_1 = min, c_(i+1) = d c_i while c <= max; every epoch
 *                     is registered.
 * The registry maps each registered constraint to its time t_i.
 *
 * Choices the design leaves open, made here (and in wfrun-workflow(5)):
 *   - An epoch takes the first k tasks that start under it.  When no more
 *     tasks of the name are ready before k have joined, the epoch ends with
 *     those that joined, and is registered with that concurrency only if it
 *     is the first epoch (there is nothing to compare it with); otherwise it
 *     ends learning without being registered, as a broken rule does.
 *   - The objective for n ready tasks is T(n, c) = floor(n / k_c) t_c +
 *     (r > 0 ? est(r) : 0) with r = n mod k_c, where est(r) is the time of
 *     the registered constraint with the smallest concurrency that still
 *     holds r tasks at once (k >= r), or t_c if none does: a last, partial
 *     wave runs at most as congested as that epoch did.  A climb that
 *     knows every epoch's bytes counts as t_c the time of k_c tasks of
 *     the epochs' mean size at the epoch's rate (tasks of one name may
 *     write 16 to 256 MiB each), and for n >= k_c counts them streamed,
 *     not in waves: T = n t_c / k_c (autobw_objective), and for
 *     n < k_c the n tasks at the lesser of n times the one writer's
 *     pace and k_c's rate.  The least T wins; ties go to the highest c
 *     (least congestion).
 */
#ifndef WFRUN_AUTOBW_H
#define WFRUN_AUTOBW_H

#include <stdbool.h>
#include <stddef.h>

struct autobw_entry {
	double c;      /* constraint, MB/s */
	long k;        /* floor(B / c) */
	double t;      /* its epoch's time t_i, s */
	double mbps;   /* MB/s its tasks wrote at (their MB / S), 0: not
			  known (the tasks' write_bytes were not) */
	double pace;   /* MB/s each of its tasks wrote at (their MB over
			  the sum of their times), 0: not known */
	double err;    /* how far off its rate may be, relative: 0 for an
			  epoch measured at its end */
	bool flown;    /* measured in flight (autobw_flight) */
	double q;      /* the mean MB of the name's tasks that ended in the
			  run that registered it, 0: not known */
	double w;      /* in flight: the windows its rate was read over, s
			  (0: not known; not kept in a registry) */
	double spread; /* how unlike the sizes of the tasks of q were
			  (autobw_task_spread), 0: alike or not known */
	double period; /* climb: the seconds between waves of the name's
			  tasks becoming ready, a wave of the cores each
			  (autobw_arrivals), and */
	double wave_s; /* the seconds each wave's spread over; period 0:
			  not known (or all ready at once) */
};

enum autobw_phase { AUTOBW_LEARNING, AUTOBW_LEARNED };

/* A count read every AUTOBW_SAMPLE_S seconds that may grow in steps,
 * and the edges of its steps (autobw_sample says how). */
struct autobw_steps {
	double last;       /* the count at the sample before */
	double tlast;      /* when it was taken (0: none yet) */
	int run;           /* samples in a row that saw the count grow */
	double rt[2], rd[2], rmb[2]; /* the first two of them: when, the
					time since the sample before, MB */
};

/* A climb's running writer, read while it runs (autobw_flight). */
struct autobw_slot {
	bool used;
	bool grew;         /* its first step, passed over, is over */
	struct autobw_steps st;
	int n;             /* edges in the window (0: it starts at the
			      next) */
	double t0, mb0, d0; /* the window's first edge: when, MB, how late
			       its time may be */
	double t1, mb1, d1; /* its latest */
	double mb;         /* MB written, at the latest sample */
};

struct autobw_span {
	double start, end;
};

/* Writers' windows pooled (autobw_flight): their length in all, s, their
 * rates times their lengths, MB, the squares of their rates times
 * their lengths, MB^2/s, how many, and the square of their errors
 * times their lengths, MB^2 (summed within a period of one count,
 * those of periods in quadrature: see err for the current one). */
struct autobw_pool {
	double w, rw, r2w, e2;
	long n;
	double err;        /* the current period's errors times lengths,
			      summed (the windows now only), MB */
};

/* A count's rate read while an epoch's writers ramped up to its k,
 * not registered then (autobw_flight): R MB/s within e over W s. */
struct autobw_seen {
	long j;
	double R, e, W;
};

struct autobw {
	double B;
	long executors;
	bool bounded;
	bool climb;        /* wfrun's climb from k = 1 (autobw_init_climb) */
	long cores;        /* climb: the learning worker's cores */
	bool still_scaling; /* climb: stopped while more writers still
			       added throughput at the highest k tried */
	double min, max, delta;
	enum autobw_phase phase;
	/* the current epoch */
	int epoch;         /* 1-based */
	double c;          /* its constraint */
	long k;            /* its concurrency */
	long target;       /* tasks it measures: k, or 2 k in a climb */
	long joined, finished;
	bool partial;      /* closed early: fewer than k tasks joined */
	double sum;        /* of the task times */
	double mb;         /* of the MB they wrote, < 0: not known */
	long fill;         /* climb: writers at one writer's rate that fill
			      B, from its first epoch (0: not known) */
	long pile;         /* climb: the name's tasks not yet ended (told
			      by iopol; 0: not known) */
	/* climb: the one writer's rate read while it runs (autobw_sample) */
	int s_have;        /* edges kept: 0, 1 (t0), 2 (t0 and t1) */
	double s_t0, s_mb0, s_d0; /* the window's first edge: when, MB by
				     then, how late its time may be */
	double s_t1, s_mb1, s_d1; /* its middle edge */
	struct autobw_steps s_st; /* its count's steps */
	bool s_skipped;    /* the first step was passed over */
	double early;      /* the rate taken, MB/s (0: not taken) */
	double early_err;  /* how far off it may be, relative */
	int carry;         /* the epoch whose one task still runs after
			      its rate was taken (0: none); it is one of
			      epoch carry + 1's tasks */
	double carry_from, carry_mb; /* when, and MB it had written */
	struct autobw_span *span; /* the epoch's finished tasks (finished) */
	size_t spancap;
	double busy;       /* S of the epoch that ended last */
	double prev_t;  /* t_(i-1), 0 before the first */
	double last_mean;  /* mean task time of the epoch that ended last */
	double last_t;     /* its time t_i (k_i S / n) */
	double last_mbps;  /* the MB/s it wrote at, 0: not known */
	/* climb: why the current epoch's k (the search's step: fill,
	 * second, jump, expand, golden-up, golden-down, fill-up, wave,
	 * tail, resume; autobw_open's bound: the family's bound's count
	 * no epoch ran, and knee: one more than the most registered, at
	 * B; after learning,
	 * why it ended: bracketed, kept-pace, no-gain, stopped by
	 * autobw_stop, or held by autobw_hold), and the
	 * bracket it was chosen in: the best k then, and the k around it
	 * (0: none) */
	const char *step;
	const char *open_step; /* a resumed search (step resume): the step
				  autobw_open or autobw_open_above chose its
				  k by, or NULL */
	long kbest, lo, hi;
	double best_rate;  /* kbest's rate: MB/s, or tasks/s when some
			      epoch's bytes were not known */
	/* climb: the writers running on the device, read while they run
	 * (autobw_flight) */
	struct autobw_slot *slot;
	size_t nslot;
	long flying;       /* slots in use */
	long writing;      /* of them, those that started writing */
	/* the writers' windows that ended since the epoch began while
	 * exactly k wrote (autobw_flight) */
	struct autobw_pool kpool;
	/* the same while fewer wrote, all of one count rj (the last seen:
	 * 0, none), as the epoch's writers ramp up to k */
	long rj;
	struct autobw_pool rpool;
	long peak;         /* the most that wrote at once in the epoch: a
			      count below it is not a ramp's */
	long stage;        /* climb: the most that may write now, an
			      epoch above a best that writes B being
			      ramped up to a stage at a time (0: k) */
	/* the windows now */
	struct autobw_pool now;
	double flight_s;   /* the window of the last in-flight rate, s */
	bool windows;      /* the epoch that ended last was rated by its
			      windows at its end (end_epoch), not yet
			      said */
	struct autobw_seen *seen; /* the epoch's ramp: each count's rate */
	size_t nseen;
	bool last_tasks;   /* climb: every task of the name still to start
			      is ready, and few (autobw_last_tasks) */
	bool held;         /* climb, learned: its step (k) held until two
			      tasks end (autobw_hold); its writers still
			      fly */
	const char *held_step; /* why that step (its step) */
	double task_mb;    /* MB of the tasks that finished (of any phase:
			      autobw_ended), and */
	long task_n;       /* how many: their mean sizes a wave */
	double task_mb2;   /* and the sum of their squares
			      (autobw_task_spread) */
	double period, wave_s; /* climb: how the name's tasks become ready
				  (autobw_entry's, autobw_arrivals) */
	bool opening;      /* a kept registry's run as it opens, none of
			      the name's tasks started: they become ready
			      as period and wave_s say (arrive_time) */
	/* results */
	struct autobw_entry *reg;
	size_t nreg;
	double chosen;     /* after learning */
};

/* bounded: auto(min,max,delta); else auto.  B > 0, executors >= 1. */
void autobw_init(struct autobw *a, double B, long executors, bool bounded,
		 double min, double max, double delta);
/* Beyond the paper: learn by climbing from the cheap end instead.  The
 * first epoch is one writer.  When its tasks' write_bytes are known, it
 * says how fast one writer goes (r1 MB/s), so how many such writers
 * fill B: fill = B / r1 rounded, and the next epoch runs at k = fill (if
 * that is 2 or more).  Otherwise (unknown bytes, or one writer fills B)
 * the next epoch is k = 2, and if the second writer added throughput (by
 * more than CLIMB_GAIN) the next jumps to one task per core (at least
 * 4).  From there it searches for the best k of any value (issue 23):
 * each epoch's rate is k times its tasks' pace (MB over their times, at
 * most B)
 * when every epoch's bytes are known, else MB/s, else tasks/s (k / t);
 * the best k so far (a larger k must give CLIMB_GAIN more) is
 * bracketed between the most writers tried below it (or more: k
 * writers write at most k times the first one) and the fewest tried
 * above; while none was tried above, 2 k is, unless the best wrote at B
 * (autobw_saturated) or, at or beyond the fill point, its writers
 * slowed one another (the device congests there); then golden-section
 * steps on whole k, 0.382 of the larger side from the best, until no k
 * in the bracket is left untried (step, kbest, lo, hi say each step).
 * No other k is tried when the best is at or beyond
 * the fill point and each of its writers kept the one writer's pace
 * (within CLIMB_GAIN; theirs as MB over their whole times, the one
 * writer's as the rate its epoch registered, one_pace): k
 * writers that do not slow one another at k r >= B write at B whenever
 * all k run, what they wrote below it was the time some places waited
 * for tasks to become ready (HMMER on 2 cores: 163-183 of 200 MB/s at
 * the fill point, then 8 writers tried, 25 % slower, a few per cent of
 * the run), and k / 2 such writers write half as much.  Every epoch
 * is registered; the k are kept within [1, executors]; c = B / k.  For
 * storage_bw: auto only: auto(min,max,delta) runs the epochs it names.
 */
void autobw_init_climb(struct autobw *a, double B, long executors,
		       long cores);
#define AUTOBW_CLIMB_GAIN 0.05
/* The last tasks' choice (autobw_choose_batch) plays out what each
 * running one has left: it changes the count when another ends them
 * this much sooner, less than CLIMB_GAIN asks of a rate (8 checkpoints
 * on 2 cores, knee 3, fall 1, 8 MB/s a writer: 8 places played out
 * 3.7 % sooner than the 6 chosen and were not taken, +3.3 % over the
 * best static in every next run in wfrun sim; taken, 0.0 %). */
#define AUTOBW_BATCH_GAIN 0.03
/* m writers "wrote B" for the knee's next try (autobw_open, step
 * knee): m times their pace within this of B, not slowed. */
#define AUTOBW_KNEE_TOL 0.01
/* The last tasks' play-out (autobw_choose_batch) draws the sizes of the
 * tasks still to write from the name's spread, not knowing which is
 * which: it is not played where the sizes of the tasks that ended, or
 * of a kept registry's run, spread more than this (their standard
 * deviation over their mean; autobw_unlike).  (64 Kmeans-1 checkpoints
 * of 16 to 256 MB, spread 0.51, knee 13, fall 0.2, 12 MB/s a writer:
 * the play-out with every task of the mean size took 14 places to 15,
 * 14 and 16, where 16 write 125 MB/s and 14 write 167: +8.4 % over the
 * best static, 14, in the first run and +8.1 % in the next, in wfrun
 * sim; not played, +0.3 and 0.0 %.  Drawn and played at any spread,
 * 37 second runs of §43's 1378 went past 3 % of the best static and 50
 * came within it; drawn below this, none past and 30 within.) */
#define AUTOBW_SPREAD_MAX 0.3
/* The orders of tasks of unlike sizes a play-out's time is the mean of
 * (draw_sizes; autobw_choose_batch, autobw_epoch_pays): with 8, the
 * counts' times for 16 tasks of 16 to 256 MB came within 4 % of their
 * mean over 400 random draws, and in the same order. */
#define AUTOBW_PLAY_DRAWS 8
/* The k a climb jumps to after 1 and 2: max(4, cores), at most
 * executors. */
long autobw_climb_jump(long cores, long executors);
/* The k of the best registered epoch by throughput (climb's rule), or
 * 0; its constraint in *c. */
long autobw_best(const struct autobw *a, double *c);
/* Is the best registered k also the most writers tried (and more than
 * one), and did it write at less than B (autobw_saturated)?  Then more
 * might still pay (see still_scaling). */
bool autobw_scaling(const struct autobw *a);
/* While a climb learns: the constraint for the name's tasks on the other
 * devices.  Before two epochs are compared, one task per core (as the
 * baseline would run them), except during an epoch at the fill point,
 * which is bet on: fill writers at one writer's rate add up to B
 * (within half a writer).  Then the best so far; or, while each step up has added
 * throughput (the best is the most writers tried, at least 2), the
 * current epoch's, betting that the climb goes on. */
double autobw_elsewhere(const struct autobw *a);
void autobw_release(struct autobw *a);

/* While learning: may another task join the current epoch now?  (After
 * learning this is always true: the constraint alone limits them.)  An
 * epoch of the paper's takes k tasks, which share the device; a climb's
 * epoch of k >= 2 streams 2 k tasks through its k places (one joins as
 * another finishes), so that the time its tasks spend before they write
 * overlaps with others' writing, as in a steady run, and two waves'
 * worth of tasks average out a slow one (one writer has nothing to
 * overlap with: its epoch is one task), unless its rate is taken in
 * flight first (autobw_flight).  Once its 2 k have joined, more may
 * still take the places its tasks leave (they join it too: the first 2 k
 * to finish end it, and those still running carry on into the next, as
 * in flight; not while the one writer carried into it runs, whose end
 * registers the first epoch): an epoch that was never measured in flight held the tasks
 * ready after its 2 k until the slowest of them ended (in wfrun sim, 3 s
 * of a 17 s run, +18 % over the best static). */
bool autobw_can_start(const struct autobw *a);
/* The tasks that joined the current epoch, at most the 2 k (or k) that
 * measure it: what its epoch_end says ran in it. */
long autobw_joined(const struct autobw *a);
/* How many tasks the current epoch measures (k, or 2 k in a climb). */
long autobw_tasks(const struct autobw *a);
/* The constraint the next task starts with: c of the current epoch while
 * learning, then the chosen one. */
double autobw_constraint(const struct autobw *a);
/* The epoch a task started now belongs to (0 after learning). */
int autobw_epoch(const struct autobw *a);

/* A task of this name started under the current epoch. */
void autobw_started(struct autobw *a);
/* A task of epoch `epoch` that ran from start to end (seconds, any one
 * clock) and wrote mb MB (< 0: not known) finished.  Returns true when
 * this ended an epoch (look at phase, epoch, reg). */
bool autobw_finished(struct autobw *a, int epoch, double start, double end,
		     double mb);
/* Beyond the paper: the one writer's rate, read while it runs.  A
 * climb's first epoch is one task; its rate says the fill point, and
 * waiting for its end leaves the rest of the device idle for a whole
 * task time (on congestdev a sixth of a 16-checkpoint run).  While that
 * task runs, its driver reads the MB it has written so far every
 * AUTOBW_SAMPLE_S seconds and passes them here (mb; now on the clock of
 * the tasks' start and end).  The count may grow in steps: congestdev's
 * kernel throttle lets a writer's 1 MiB writes through about 5 MiB at a
 * time every 0.1 s, each step in two or three bursts a few ms apart,
 * after a first step of twice that at once.  So rates are taken between
 * edges: a step is the samples in a row that saw the count grow, and
 * its edge is the first of them (when; late by at most the time since
 * the sample before it, d) with the MB of the next sample that saw no
 * growth (the whole step: a sample in the middle of a step saw part of
 * it, and taking that part made rates 20 to 30 % off).  A count that
 * grows at three samples in a row or more grows without steps, and each
 * of them is an edge of its own.  The first step is passed over (a
 * throttle's first budget, or a cache's, is not its rate: it made the
 * first window's rate up to 15 % slow).  The edges from there make a
 * window, cut in two halves at an edge (the first at least
 * AUTOBW_RATE_SPAN / 2 long, the second at least as long, each within
 * its edges' lateness).  A rate over w seconds between
 * edges late by at most d0 and d1 is known within max(d0, d1) / w.
 * When the halves' rates agree within what that allows, the writer is
 * steady; if not (it started slowly, or wrote in a burst and waits), the
 * window starts again from its middle edge.  A steady window's rate is
 * taken once it says the fill point (B / rate rounded) within an eighth
 * either way, and two or more (one writer that fills B, or a faster
 * one, whose writes were only buffered, proves nothing early).  A
 * writer that stops writing makes no edges, and nothing is taken.  When
 * it is taken, the next epoch begins at once with the writer still
 * running, as the first of its tasks (from now, with the MB it writes
 * from now).  When it ends (autobw_carry_done), its own epoch is
 * registered with its whole time and the rate taken, and it counts in
 * the new epoch as any other of its tasks.  A rate never taken leaves
 * the epoch to end as before.  Returns true when the rate was taken
 * (look at early, fill, epoch). */
#define AUTOBW_SAMPLE_S 0.02
#define AUTOBW_RATE_SPAN 0.2
bool autobw_sample(struct autobw *a, double now, double mb);
/* Would autobw_sample use a sample now (a climb's one writer runs, and
 * its rate has not been taken)? */
bool autobw_wants_rate(const struct autobw *a);
/* The carried task (of epoch a->carry) ran from start to end and wrote
 * mb MB in all (< 0: not known): register its epoch, and count it in the
 * one it joined.  Returns true when that ended an epoch (as
 * autobw_finished). */
bool autobw_carry_done(struct autobw *a, double start, double end,
		       double mb);

/* Beyond the paper: a climb's epoch of k >= 2 writers measured while
 * they write, not when 2 k of them have finished (issue 23: with 32
 * tasks, an epoch at a fill point past the optimum streamed most of
 * them at half the best rate, and stopping short of it left the fill
 * point chosen, 67 % over the best static on congestdev).  Every task
 * of a learning climb that starts on the learning device holds a slot
 * (autobw_slot_open) while it runs, and what it has written so far is
 * passed here every AUTOBW_SAMPLE_S seconds (its own clock: rates are
 * taken per slot, and added).  Its count's steps make edges as the one
 * writer's do (autobw_sample), and its window runs from one edge to
 * another: its rate is known within the larger of its edges' lateness
 * over the window's length.  The windows start afresh whenever a
 * task starts, a writer starts writing (its first step, passed over: a
 * throttle's or a cache's first budget is not its rate; a task that
 * starts up before it writes does not congest) or one ends; every
 * window that ended while exactly k wrote, none of the running tasks
 * still starting up (a device may count it: congestdev does), is kept
 * for the epoch (struct autobw_pool).  A device shares itself among
 * its writers: their summed rate R is k times their mean rate over the
 * windows kept and those now, each weighted by its length, so that no
 * window of every writer at once is needed (8 writers of 5 s tasks at
 * 12.5 MB/s, each needing 1.2 s for a window, started or ended every
 * 0.6 s on congestdev: no such window ever formed).  Once there are k
 * windows or more, AUTOBW_RATE_SPAN seconds or more of them a writer, R
 * is known within e (relative: the windows' edges' error, added within
 * a stretch of one count, in quadrature across them, and the spread of
 * their rates over the square root of their number less one, where a
 * device that does not share fairly shows).  It is taken when it decides what the search
 * asks of it: with e (plus the best's own error, when that too was
 * taken in flight) on either side, R is clearly below the best (1 +
 * GAIN times it when the best has fewer writers, over it when more), or
 * k writers past the fill point clearly slowed one another (below 1 -
 * GAIN of k times the one writer's pace: the search leaves them
 * downward), and it is clear of that pace and of 1 - GAIN of B unless e
 * is within GAIN (a rate that near them decides little either way); or
 * e is within GAIN / 2.  So a rate that becomes the best, which every
 * later epoch is compared with, is known within GAIN / 2.  A device far
 * past its knee is known within a few tenths of a second; one near the
 * optimum within a second or two; one never known is left to the
 * epoch's end.  Then the epoch is registered (MB/s R, pace R / k, its
 * error e, its t for a wave of tasks of the mean size that finished so
 * far) and the next begins at once: the writers running carry on under
 * its constraint, so that a step up starts more at once and a step down
 * lets them drain.
 *   While the epoch's writers ramp up to k (tasks become ready a few at
 * a time), the windows of every count j from 2 to k - 1 are read the
 * same way (while j is the most that wrote at once in the epoch: fewer
 * are writers that ended, at the end of the run, not a ramp).  When j
 * writers clearly slowed one another, their rate R (within e) clear
 * below 1 - GAIN of the lesser of j times the one
 * writer's pace and B (e plus that pace's own error), the device
 * congests at j: in the family aggregate(k) = min(k r1, B f(k)), f
 * falling, the best k is at most j, and the epoch's k more writers
 * would only be slower.  The epoch then becomes one of j writers, taken
 * as above, and the search goes on below j (issue 23: k1steep's fill
 * point 5, past its best 3, with 8 checkpoints two at a time: 4 writers
 * wrote 80 MB/s for half a second before the fifth came, and waiting for
 * the fifth made the run 17 to 21 % over the best static on
 * congestdev).  When j writers did not slow one another and their rate
 * is known within FLIGHT_TOL, j is registered (flown) as an epoch of j
 * would be, and the epoch goes on: the search knows j without an epoch
 * of its own (k8-a0.8-r12, variant-like with 32 tasks: 8 writers
 * ramped for 2.7 s at 96 MB/s, its best 9's 108 being 12 % more, before
 * the fill point's 16 came; the search then stepped from 16 down to 11,
 * 8 and up to 9, its 8 writers stopping 3 tasks: +10.9 % in wfrun sim,
 * +4.7 % with 8 known).  A count the ramp passed whose rate was known
 * within SEEN_TOL, but neither within FLIGHT_TOL nor clearly slowed, is
 * registered (flown) when the epoch's rate is taken: a reading, if a
 * coarser one, where the family's bound would guess (k3-a1-r30, 8
 * checkpoints two at a time: 4 writers read at 100 MB/s within 5 %,
 * then 6 at 50; the bound from 6 chose 3, +23 % over the best static,
 * 4, in wfrun sim).  Returns true when it ended the epoch (look at
 * phase, epoch, reg, flight_s; an entry registered on the way, of
 * k >= 2, with its windows' seconds in w). */
#define AUTOBW_FLIGHT_TOL (AUTOBW_CLIMB_GAIN / 2)
#define AUTOBW_SEEN_TOL 0.1
/* The name's last tasks are all there (every one still to start is
 * ready, and they are few: iopol's want_batch), or no longer.  While
 * they are, an epoch after which the search ends whatever its writers
 * write (within e, at e's ends and R itself) is taken as soon as its
 * rate is known at all (e within 1/2): no later epoch is compared with
 * it, and its last tasks are then chosen for with how far the running
 * ones are, which learning forbids (congestdev's k1steep, Kmeans-1, 8
 * checkpoints: the epoch of 3, last either way, took 2.6 s of windows
 * to read within FLIGHT_TOL, to the run's end, and its last checkpoint
 * wrote alone for 0.96 s; 11 to 14 % over the best static). */
void autobw_last_tasks(struct autobw *a, bool all_there);
int autobw_slot_open(struct autobw *a);
void autobw_slot_close(struct autobw *a, int slot);
bool autobw_flight(struct autobw *a, int slot, double now, double mb);
/* Has the writer in slot written less than half a task (of the mean
 * size that finished), or, when none finished, less than the most any
 * running one wrote?  Then a step down may stop it and run it again
 * (iopol_make_way: the youngest first, until k remain). */
bool autobw_slot_young(const struct autobw *a, int slot);
/* Does a climb learn in flight (a slot for each task started now)? */
bool autobw_flies(const struct autobw *a);

/* Did the epoch of e write at B, or near enough (within CLIMB_GAIN) that
 * more writers cannot add what the climb asks of them? */
bool autobw_saturated(const struct autobw *a, const struct autobw_entry *e);
/* No more tasks of the name are ready now while an epoch still has room:
 * close it with the tasks that joined (see above). */
void autobw_no_more_ready(struct autobw *a);

/* Beyond the paper.  Stop learning before the current epoch takes any
 * task (when the tasks left cannot repay it); false if it has begun.
 * A climb that stops while its highest k still gained throughput sets
 * still_scaling. */
bool autobw_stop(struct autobw *a);
/* Beyond the paper.  After autobw_stop, when the play-out refused the
 * step while no task had ended (autobw_epoch_pays: their sizes not
 * known, every one taken as of one size): learning ends for now (step
 * held) and its writers still fly, their windows read but nothing
 * registered, until autobw_reopen or autobw_unhold. */
void autobw_hold(struct autobw *a, const char *step);
/* A held climb whose step stays refused: its writers no longer fly
 * (step stopped). */
void autobw_unhold(struct autobw *a);
/* A held climb learns again: the next epoch is the held step's (step
 * resume, open the held one's), numbered as the held one was. */
void autobw_reopen(struct autobw *a);
/* A task that joined epoch `epoch` will not finish (its worker was lost):
 * its place in the epoch is free again (the carried one's: in the epoch
 * it joined; its own is not registered). */
void autobw_abandon(struct autobw *a, int epoch);
/* Start learned, from a registry kept by an earlier run (n entries). */
void autobw_preload(struct autobw *a, const struct autobw_entry *reg,
		    size_t n, long ready);

/* Beyond the paper: a kept registry is a search paused.  For a climb's
 * registry preloaded (every epoch's bytes known, not still scaling)
 * whose best did not keep the one writer's pace: the k its search would
 * try next (search_next: an untried k in the bracket around the best),
 * or 0 when the bracket holds none (step, kbest, lo, hi, best_rate say
 * it); or, when the choice is the family's bound (autobw_bound), a
 * count never run, that count.  A run that stopped short of it (no
 * tasks were left to repay an epoch: congestdev's best7 with Kmeans-3,
 * 6 writers known within 2.5 % only after 3 to 5 s, 7 never tried,
 * chosen 6 again by every second run, 5 to 7 % over the best static)
 * leaves the next run one epoch to try.  Once the bracket is closed,
 * the wave of the cores or a round fewer above the best (above_step).
 * A best that kept the one writer's pace: the step the climb would
 * take next (kept_pace_next), or a count below the fewest that slowed
 * that ends the tasks in fewer rounds (tail_under), or one more than
 * the most registered when they are more than a wave and wrote B (step
 * knee: knee_up).
 */
long autobw_open(struct autobw *a);
/* After autobw_open, when the tasks to run cannot repay its k: the wave
 * of the cores or a round fewer above the best, if that pays (its k,
 * step "wave" or "tail"), else 0.  (8 checkpoints on 2 cores, knee 1,
 * 16 MB/s a writer: 6 write 80 MB/s, the search's 5 or 7 cannot be
 * repaid, and 8 at once end them in one round: the best static.) */
long autobw_open_above(struct autobw *a);
/* Learn again from the preloaded registry: the next epoch is k (from
 * autobw_open; step "resume"), measured as any climb's, and the search
 * goes on from there as the first run's would have. */
void autobw_resume(struct autobw *a, long k, long cores);
/* The constraint with the least T(n, c) among the registry (ties: the
 * highest c); 0 when the registry is empty.  For a climb (and a registry
 * a climb kept), the highest c whose T is within CLIMB_GAIN of the
 * least: more writers must earn their place. */
double autobw_choose(const struct autobw *a, long n);
/* A climb's choice at its learning's end, or from the registry a climb
 * kept, for the name's tasks not yet ended (pile) when they pile up:
 * chosen (autobw_choose's, which ranks counts by their rate, as tasks
 * that stream) or, when chosen's k leaves a last round of them too few
 * to fill B, the registered count that ends them in a round fewer if
 * its rounds take CLIMB_GAIN less.  (32
 * checkpoints, knee 12, 8 MB/s a writer: 15 write 120 MB/s, 16 write
 * 111, and 15 chosen left the 32nd to write alone for 8 s, +17 % over
 * the best static, 16, in wfrun sim.)  Of unlike sizes (spread_of, 0.01
 * or more) and two waves of k or more, there are no rounds: both are
 * played out with the sizes drawn (batch_time_pm), and the count is
 * taken if it ends them BATCH_GAIN sooner; while fewer than a wave of
 * the cores have ended and fewer than three waves of k are left, the
 * spread drawn is the sizes seen (held_size's: the running ones' at
 * twice what they wrote) when more. */
double autobw_choose_pile(const struct autobw *a, double chosen);
/* A climb's re-evaluation for n ready tasks: current (a registered c)
 * stays while its T is within CLIMB_GAIN of the least, else
 * autobw_choose.  (Checkpoints that become ready one at a time made the
 * choice flip between 1 and 2 writers at each one, equivalent for n of
 * 1 or 2: 96 constraint events in a 128-checkpoint run.) */
double autobw_rechoose(const struct autobw *a, long n, double current);
/* A climb that learned while running writers of its name, more than
 * the k it chose, and none of its tasks left to start: would stopping
 * the youngest running - k of them (which run again from nothing, k at
 * a time) end the name sooner than letting all run on?  Counted at the
 * least the registry says k's and the tail's writers write (and
 * CLIMB_GAIN sooner): when every running writer had written as much,
 * the answer does not depend on how much.  True when it cannot tell.
 * (16 checkpoints on 16 writers at 83 MB/s, each capped at 8 MB/s: 12
 * chosen, at 96, and 4 stopped that then ran alone for 8 s at their
 * cap, 18.8 % over the best static in wfrun sim.) */
bool autobw_drain_pays(const struct autobw *a, long running, long k);
/* A climb that learned while running writers of its name, more than
 * the k it chose, with tasks of the name still to start: stop the
 * youngest running - k of them?  Yes, unless the sizes are unlike (as
 * the tasks that ended say, or a running one that wrote more than
 * SPREAD_MAX over their mean) and k's rate is within CLIMB_GAIN of the
 * running ones': one stopped may be among the largest, and waits for a
 * place.  (16 Kmeans-like checkpoints of 16 to 256 MB, 20 MB/s a
 * writer: 10 running at 154 MB/s, 8 chosen at 160; the 267 MB one,
 * stopped, started again 3.1 s later, +12 % over the best static in
 * wfrun sim; left to run, -4 %.) */
bool autobw_drain_gains(const struct autobw *a, long running, long k);
/* A climb's epoch of k writers, not registered, with left tasks of the
 * name still to start and the writers running now (the youngest of
 * them stop if more than k): would the name end sooner, were k to
 * write the most it can (k at the one writer's pace, or B), than with
 * the registered count that ends it soonest?  The tasks left are of the
 * mean size, or of unlike sizes (a spread, as autobw_unlike's, of 0.01
 * or more) drawn from it: the mean of AUTOBW_PLAY_DRAWS orders.  True
 * when many tasks are left (more than four waves: they stream at k),
 * when k is more writers than any registered (what it measures is kept
 * for the next runs too), when fewer than two counts are registered,
 * or when it cannot tell. */
bool autobw_epoch_pays(const struct autobw *a, long k, long left);
/* The most writers of any registered count. */
long autobw_most_tried(const struct autobw *a);
/* A climb's choice for the last of its name's tasks, all there: running
 * of them with left[i] of each still to write (a fraction of a task),
 * ready more, none to come.  The registered count whose places take
 * them through soonest, the tail included (the last ones at their
 * count's share of its rate, none faster than the one writer: a lone
 * last task at its pace, where one more place would have run it beside
 * the others); the running run on whatever the count, except when
 * stop (NULL: none) ranks them: the name's learning has just ended
 * and its drain (iopol_make_way) stops, for a count k below running,
 * those of rank 0 to running - k - 1 (-1: never), which run again
 * from the start, ready.  The ready are drawn as autobw_epoch_pays'
 * are.  current stays while within BATCH_GAIN.  0 when the registry
 * cannot tell (no climb's, no one writer's pace). */
double autobw_choose_batch(const struct autobw *a, const double *left,
			   const long *stop, long running, long ready,
			   double current);
/* A task of the name ended having written mb (< 0: not known; an
 * epoch's through autobw_finished, the one writer's carried into the
 * next epoch through autobw_carry_done, all it wrote): counted in the
 * mean task size (task_mb) and its spread. */
void autobw_ended(struct autobw *a, double mb);
/* The mean MB of the name's tasks: of those that ended in this run, else
 * as an earlier run registered it (autobw_entry's q); 0: not known. */
double autobw_task_mb(const struct autobw *a);
/* How the sizes of the name's tasks that ended in this run spread: their
 * standard deviation over their mean; 0 with fewer than two. */
double autobw_task_spread(const struct autobw *a);
/* The times t[0..n) (s, in order) at which the name's first n tasks
 * became ready: how they do (period, wave_s), when more than a wave
 * of the cores did; else as they were (a kept registry's).  The period
 * is the median over the first wave of the time from a task's to the
 * wave-th after it; wave_s the first wave's spread. */
void autobw_arrivals(struct autobw *a, const double *t, long n);
/* Are the name's tasks of sizes too unlike (over AUTOBW_SPREAD_MAX) for
 * rounds of tasks of the mean size to say when they end: as those that
 * ended in this run say, or a kept registry's run (autobw_entry's
 * spread: the first to end in a run are the least)? */
bool autobw_unlike(const struct autobw *a);
/* How many of the name's tasks wrote from t on (until the next). */
struct autobw_count {
	double t;
	long m;
};
/* For autobw_choose_batch: what n running tasks that started at
 * start[i] have left at now, each stretch of their lives, h[0..nh) (on
 * the same clock; before h[0], or with none, as many as run now) at the
 * pace of as many writers as wrote then (rate_est: between the
 * registered counts), over the mean task's MB (autobw_task_mb).  (At the
 * pace of those that write now, two tasks that had written through the
 * learning epochs at 4 or 5 writers' pace were taken as nearly done,
 * and the last 6 of 8 checkpoints chose 2 writers, 80 MB/s, where 3
 * write 100.)  False when it cannot tell, or, where the sizes are
 * unlike, when a running task has written more than the largest size
 * the play-outs draw (draw_sizes): the sizes are not known yet. */
bool autobw_batch_left(const struct autobw *a, const double *start, long n,
		       const struct autobw_count *h, size_t nh, double now,
		       double *left);
/* Is c, chosen by autobw_choose, a count no epoch ran: the family's
 * lower bound below a best whose writers clearly slowed one another,
 * when learning stopped short of it? */
bool autobw_bound(const struct autobw *a, double c);
/* T(n, c) for a registered c (exposed for tests and reports). */
double autobw_objective(const struct autobw *a, long n, size_t entry);

/* The writers a constraint of c MB/s lets share a device of B MB/s:
 * floor(B / c), with a relative tolerance AUTOBW_BW_TOL so that a B / k
 * written to 6 significant digits (as %g prints it) means k
 * (storage_bw: 66.6667 with B = 200 allows 3, where floor(2.999998)
 * would allow 2; 16.6667 allows 12, 200 / 16.6667 being 11.99998, 2e-6
 * short, which a tolerance of 1e-6 made 11); 0 when c <= 0.  The one
 * rule for every place that counts writers (the learner, iopol). */
#define AUTOBW_BW_TOL 1e-5
long autobw_writers(double B, double c);
/* Does one more task of constraint c fit on a device of B MB/s whose
 * running tasks hold used MB/s?  The same tolerance: k tasks of a
 * rounded B / k fit. */
bool autobw_fits(double B, double used, double c);

#endif
