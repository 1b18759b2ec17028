/*
 * iopol: which I/O task may start on which worker, under storage-bandwidth
 * constraints (storage_bw).  Each worker writes one device: its own disk,
 * or the shared <storage> its workdir lives on; a device of bandwidth B
 * (MB/s) holds constrained I/O tasks whose constraints c add up to at
 * most B, so floor(B / c) tasks of one name share it.  A task name with
 * storage_bw: auto or auto(min,max,delta) has one learner (autobw) that
 * runs on one worker, its active learning node: while it learns, no other
 * name's I/O task starts on that worker's device, so its measurements are
 * clean, and the name's tasks run nowhere else (as in the paper: the
 * other workers go on with compute and other I/O).  Letting other devices
 * run them under the epoch's constraint, or under the best one registered
 * so far, was tried in `wfrun sim` and lost: they take the tasks the
 * epochs need, and the first epoch's constraint is the most congested.
 * The climb (autobw_init_climb, the default unless --learn paper) is
 * different: its epochs are small and its first is the least congested,
 * so the other devices run the name's tasks under autobw_elsewhere's
 * constraint meanwhile (and when an epoch's end raises it, those already
 * running far beyond it make way: iopol_make_way).  When learning ends,
 * the chosen constraint applies on every device, and is re-evaluated for
 * the tasks of the name ready or running each time more become ready.
 *
 * Tasks with the same learn_as (wfrun-workflow(5)) are one name here: an
 * iterative workflow whose iterations are separate tasks learns once.
 *
 * Beyond the paper: the registry of a name can come from an earlier run
 * (autobw_preload; see iopol_registry_*); an epoch of k tasks runs only
 * while at least 2 D k of the name's tasks are left, D the devices (the
 * epoch takes at most half of the learning node's share of the work
 * left, the other half uses what it learns); a climb (autobw.h) runs when
 * its second epoch (k = 2) passes that; when it stopped after one epoch
 * it runs at the fill point if it knows one; and when nothing was
 * compared the constraint falls back to one task per core, as the
 * baseline runs them.
 *
 * May-start answers have one side effect: they mark a device that held
 * back another name's I/O task (see iopol_close_idle).
 *
 * Pure: no clock and no I/O except the registry file functions; the
 * runner and `wfrun sim` (a virtual clock) drive it alike.  What it
 * decides is reported through an event callback.
 */
#ifndef WFRUN_IOPOL_H
#define WFRUN_IOPOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "autobw.h"
#include "workflow.h"

struct iopol_event {
	const char *ev;     /* epoch_begin, epoch_end, rate, ramp,
			       constraint, preempt, search */
	uint32_t name;      /* task template (the first of its learn_as) */
	const char *key;    /* its learn_as, or its name */
	const char *device;
	int epoch;
	double c;
	long k;
	long tasks;         /* epoch_end: how many ran in it; preempt:
			       how many were stopped */
	double mean_s;      /* epoch_end: the tasks' mean time */
	double t_s;         /* epoch_end: its time t_i (see autobw.h) */
	double busy_s;      /* epoch_end: S, some task of it was running */
	double mbps;        /* epoch_end: MB/s its tasks wrote (0: unknown);
			       rate, ramp: the rate taken (of k writers) */
	double after_s;     /* rate, ramp: seconds its samples spanned */
	double err;         /* rate, ramp: how far off it may be,
			       relative */
	long fill;          /* rate, ramp: how many such writers fill B */
	bool registered;    /* epoch_end */
	long n;             /* constraint: ready tasks it was chosen for */
	const char *why;    /* constraint: learned, fallback, registry,
			       reevaluated */
	const char *open;   /* epoch_begin of a resumed search (step
			       resume): the step its k was chosen by */
	const char *step;   /* epoch_begin of a climb's epoch 2 on, and
			       search (just before the constraint that
			       ends its learning): the search's step
			       (autobw.h) */
	long best, lo, hi;  /* with step: the best k measured, the bracket */
	double best_rate;   /* with step: the best k's MB/s (or tasks/s) */
};
typedef void (*iopol_event_fn)(const struct iopol_event *e, void *arg);

struct iopol_device {
	char *name;         /* "disk@WORKER" or the <storage> name */
	const char *kind;   /* registry key: "disk" or the storage name */
	double B;           /* MB/s, 0: unknown */
	double used;        /* reserved by running constrained tasks */
	uint32_t learner;   /* the name learning on it, or UINT32_MAX */
	bool waiting;       /* another I/O task was held back by it */
};

struct iopol_name {
	bool io;
	struct wf_bw bw;
	const char *key;    /* learn_as, or the task's name */
	uint32_t grp;       /* the first task with the same key: its learner,
			       left and epochs serve them all */
	long left;          /* instances not started yet (of the group) */
	long running;       /* instances running (of the group) */
	bool has_learner;
	bool kept;          /* it started from a kept registry */
	int epochs;         /* learning epochs ended (of the group) */
	struct autobw a;
	size_t learn_worker;
	uint32_t learn_dev;
	double reported;    /* the constraint last reported */
	double others_c;    /* a climb: the constraint last given to the
			       devices other than its learning one */
	bool tight;         /* others_c rose: see iopol_take_tight */
	bool drain;         /* with tight: an in-flight step down, or
			       learning's end choosing fewer than write
			       now: its device over the new k
			       (iopol_make_way) */
	bool batch;         /* its last tasks are all there: choose for
			       them with their progress (iopol_take_batch) */
	bool regrant;       /* its choice gave more places: the running
			       take the new share (iopol_batch) */
	bool due_batch, due_regrant; /* what iopol_take_batch took */
	double stream_c;    /* what was chosen before a choice for its last
			       tasks (iopol_batch) changed it, 0: none did */
	long last_n;        /* those last tasks, at that first change */
	double *arr;        /* an auto name's: when its first narr tasks
			       became ready (iopol_arrived), at most
			       IOPOL_ARRIVALS */
	long narr;
	bool resumed;       /* some of its tasks were up to date
			       (iopol_up_to_date): the others do not become
			       ready as in a run from nothing */
};

struct iopol_worker {
	uint32_t dev;
	long cores;
	long io_executors;
};

/* A registry entry read from or written to the registry file. */
struct iopol_saved {
	char *key;          /* name \t device kind \t B \t spec */
	struct autobw_entry *reg;
	size_t nreg;
};

struct iopol {
	const struct workflow *wf;
	struct iopol_name *nm;
	size_t nn;
	struct iopol_device *dev;
	size_t ndev;
	struct iopol_worker *w;
	size_t nw;
	iopol_event_fn event;
	void *arg;
	struct iopol_saved *saved;
	size_t nsaved;
	bool relearn;       /* ignore the saved registries */
	bool paper;         /* --learn paper: no climb (autobw.h) */
	bool no_preempt;    /* --no-preempt: never stop a running task */
	size_t ntight;      /* names with tight set */
	size_t nbatch;      /* names with batch set */
};

/* What a started task holds: c MB/s of its device (0: unconstrained) and
 * the learning epoch it belongs to (0: none). */
struct iopol_grant {
	double c;
	int epoch;
	bool sample;  /* a climb's writer: pass what it has written so far
			 to iopol_sample every AUTOBW_SAMPLE_S s */
	int slot;     /* 1 + its slot in the climb (autobw_flight), 0:
			 none */
};

/* ninst[i]: instances of task i; no_io: the baseline, nothing is I/O. */
void iopol_init(struct iopol *p, const struct workflow *wf,
		const uint32_t *ninst, bool no_io, iopol_event_fn event,
		void *arg);
void iopol_release(struct iopol *p);
/* Worker wi (added in order 0, 1, ...) with cores and I/O executors
 * writes the device named dev of bandwidth B (0: unknown); kind names it
 * in the registry. */
void iopol_add_worker(struct iopol *p, const char *dev, const char *kind,
		      double B, long cores, long io_executors);

struct cluster;
/* I/O executors of a worker that does not say: two per core. */
long iopol_default_io(long cores);
/* Add every worker of c (NULL: this machine alone, named "local") with
 * its device: the <storage> its workdir lives on, else its own disk.
 * This machine's cores, I/O executors (0: default) and disk bandwidth
 * (0: unknown) stand for what a localhost worker does not say. */
void iopol_add_cluster(struct iopol *p, const struct cluster *c,
		       long local_cores, long local_io, double local_disk_bw);

/* Why task name i cannot run on worker wi at all, or NULL. */
const char *iopol_unfit(const struct iopol *p, uint32_t name, size_t wi,
			char *buf, size_t len);
/* May an instance of name start on worker wi now?  (Marks a device that
 * holds it back: see iopol_close_idle.) */
bool iopol_may_start(struct iopol *p, uint32_t name, size_t wi);
/* The same question with no side effect: where else could it start? */
bool iopol_could_start(struct iopol *p, uint32_t name, size_t wi);
/* Where an I/O task of name that worker best popped should start: the
 * worker running the fewest I/O tasks among those it could start on
 * (best on a tie).  I/O tasks need no core, so placing them by free
 * cores, which all tie once compute ends, filled the first workers'
 * devices (measured in wfrun sim: 48 writers on some disks, 11 on
 * others, a run 40 % slower than the baseline).  busy(wi, arg): the I/O
 * tasks running on wi, or -1 if it cannot take one now. */
size_t iopol_spread(struct iopol *p, uint32_t name, size_t best,
		    long (*busy)(size_t wi, void *arg), void *arg);
/* It starts there now (after iopol_may_start said yes). */
struct iopol_grant iopol_start(struct iopol *p, uint32_t name, size_t wi,
			       long ready);
/* It finished (well or not); it ran from start to end (seconds) and
 * wrote bytes (< 0: not known; the climb uses them, autobw.h). */
void iopol_finish(struct iopol *p, uint32_t name, size_t wi,
		  struct iopol_grant g, double start, double end,
		  long long bytes);
/* A task on worker wi whose grant says sample has written bytes by now
 * (seconds, on the clock of its start and end; bytes < 0: not known).
 * Returns false once the learner wants no more samples of it.  When the
 * one writer's rate is taken (autobw_sample), or k writers' rate in
 * flight (autobw_flight), emits a "rate" event (and "epoch_end" for the
 * epochs it registers) and begins the next epoch (or ends learning).
 * Each sampled task's grant follows the constraint in force: it holds
 * one of its places (a step down drains, a step up starts more). */
bool iopol_sample(struct iopol *p, uint32_t name, size_t wi,
		  struct iopol_grant *g, double now, long long bytes);
/* It finished and failed, and will run again (on_failure: retry): it is
 * one of the name's instances left to start once more. */
void iopol_again(struct iopol *p, uint32_t name);
/* It will not finish (its worker was lost) and goes back to the queue. */
void iopol_abandon(struct iopol *p, uint32_t name, size_t wi,
		   struct iopol_grant g);
/* A learning epoch with no task running can wait for more of its tasks
 * only while that holds nothing up.  Close such epochs (with the tasks
 * that ran in them) when force (nothing runs anywhere: they would wait
 * for ever) or when another I/O task was held back by their device since
 * the last call.  Returns how many were closed; clears the held-back
 * marks. */
size_t iopol_close_idle(struct iopol *p, bool force);
/* More tasks of name became ready: ready of them wait now. */
void iopol_ready(struct iopol *p, uint32_t name, long ready);
/* One task of name became ready at now (s): how the name's tasks
 * arrive, kept in its registry (autobw_arrivals). */
#define IOPOL_ARRIVALS 128
void iopol_arrived(struct iopol *p, uint32_t name, double now);
/* A task of name is done without running (up to date: a run resumed
 * partway).  How the name's others become ready is then not known: a
 * kept registry's arrivals are neither played out (arrive_time) nor
 * replaced by this run's. */
void iopol_up_to_date(struct iopol *p, uint32_t name);
/* What storage_bw: auto made of name's tasks so far, for a run's closing
 * lines (wfrun(1)): "auto chose 66.6667 MB/s (3 writers on disk@local
 * of 200 MB/s) after 3 epochs", "... of 200 MB/s), and 28.5714 MB/s (7
 * writers) for its last 4 tasks, ...", "... from the kept registry",
 * "auto was still learning on disk@local (epoch 2); nothing was kept".
 * False (buf untouched) when name is not the first of its learn_as
 * group, does not learn, or none of its tasks started. */
bool iopol_outcome(const struct iopol *p, uint32_t name, char *buf,
		   size_t len);

/*
 * Beyond the paper: correct the bet.  Until a climb has measured
 * anything, the devices other than its learning one run the name's tasks
 * one per core (autobw_elsewhere); when an epoch's end raises that
 * constraint (the first epoch's fill point, or the choice), the tasks
 * already running there under the old one would hold those devices
 * congested to their end.  The same when an epoch measured in flight
 * steps down (autobw_flight): the writers running on the learning
 * device would hold it congested until they end.  iopol_take_tight
 * names such a name (and clears its mark), or returns UINT32_MAX; the
 * backend then lists the name's tasks running outside any epoch (and,
 * when iopol_draining says so, those of its epochs too) and calls
 * iopol_make_way.
 */
uint32_t iopol_take_tight(struct iopol *p);
struct iopol_running {
	uint32_t task;           /* the backend's id (a tie-break only) */
	size_t wi;               /* its worker */
	double start;            /* when it started (any one clock) */
	struct iopol_grant *g;   /* its grant, raised here if it stays */
	bool can_stop;           /* it may be stopped and run again: it
				    writes only OUT files (dag_out_only) */
	bool stop;               /* out: stop it and hand it back with
				    iopol_abandon (not a failure) */
};
/* Is the name draining its learning device (iopol_take_tight just
 * named it)? */
bool iopol_draining(const struct iopol *p, uint32_t name);
/* On each device, the constraint c now in force for the name there
 * allows k = floor(B / c) tasks.  Where more than 2 k run, the youngest
 * that can stop and started under less than c / 2 are marked stop until
 * k remain; on a learning device that drains, where more than k run,
 * the youngest that can stop and have written less than half a task
 * (autobw_slot_young) are; those that stay hold c from now on (so that no new task
 * starts there until the device is back within k).  Sorts r by device
 * and start; returns how many are marked; emits a "preempt" event per
 * device that stops any (tasks: how many, k: how many stay).  Marks
 * nothing under --no-preempt (p->no_preempt): the grants still rise. */
size_t iopol_make_way(struct iopol *p, uint32_t name, struct iopol_running *r,
		      size_t n);

/* A climb's last tasks of a name are all there, or piled up (no more
 * to come than are there, ready or running), and few (at most four
 * waves of the most writers registered): its choice for them counts how
 * far each running one is (autobw_choose_batch); or a name's choice
 * gave more places, which its running instances take.  The next such
 * name (its group's), or UINT32_MAX; the caller then gives iopol_batch
 * how many of its group are ready, now, and its running instances
 * (their start on the same clock, and whether each can stop; those
 * that stay are regranted when it chooses more places; r may be
 * sorted). */
uint32_t iopol_take_batch(struct iopol *p);
/* h[0..nh): how many of the group's instances ran from each h[j].t on,
 * on the clock of their starts, since the oldest running one started:
 * how far each has gone counts the pace of each stretch of its life
 * (autobw_batch_left). */
void iopol_batch(struct iopol *p, uint32_t name, long ready, double now,
		 struct iopol_running *r, size_t n,
		 const struct autobw_count *h, size_t nh);

/* Registries kept across runs: a TSV file of lines
 * "name \t kind \t B \t spec \t c:k:t:mbps:pace:err:flown:q,..."
 * (":err", ":flown" and ":q" may be missing; ":pace" and
 * ":mbps" may be missing, as earlier versions wrote them: a climb read
 * back without each writer's pace ranks its epochs by their MB/s, and
 * a second run chose 7 writers where its first, from the same epochs,
 * chose 8).  Load returns -1 with
 * errno when the file exists but cannot be read; a line it cannot parse
 * is skipped. */
int iopol_registry_load(struct iopol *p, const char *path);
/* Writes every learned registry (and the others loaded) atomically. */
int iopol_registry_save(struct iopol *p, const char *path);

#endif
