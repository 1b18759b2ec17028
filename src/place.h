/*
 * place: where and when each ready task of a plan runs.  It owns the
 * run state of every task (one struct place_task each: its worker, its
 * grant, its attempts and failures), the capacity of every worker (cores,
 * memory and I/O executors, free or taken, usable or lost), the ready queues
 * (sched) and every placement and admission decision: which task starts
 * on which worker (the worker with the most free cores asks first, and
 * takes the earliest ready task whose cores and memory fit it:
 * backfilling), which I/O
 * task may start under the storage-bandwidth constraints (iopol), where
 * an on_failure: retry task runs again, which worker holds its inputs
 * (staging locality), which running I/O tasks must make way, and when a
 * learning epoch that holds others up is closed.
 *
 * It never runs, stops, times or logs anything itself: a backend does,
 * through place_ops — the runner with real executors, `wfrun sim` on its
 * virtual clock.  Both drive the same decisions, so the simulator
 * predicts what the runner does.  Pure: no I/O, no clock (times are the
 * backend's, passed in).
 */
#ifndef WFRUN_PLACE_H
#define WFRUN_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iopol.h"
#include "sched.h"
#include "util.h"

struct cluster;
struct plan;

/* One task's run state. */
struct place_task {
	struct iopol_grant grant; /* what it holds while it runs */
	double submit;       /* when it last became ready (backend's clock) */
	double start;        /* when it last started (place_dispatch's
				now) */
	uint32_t seq;        /* launches of any task before its last one */
	uint32_t launches;   /* its launches, and requeues: an older value
				names a stale attempt */
	uint16_t where;      /* its worker while it runs */
	uint16_t failed_on;  /* the worker of its last failure */
	uint16_t failures;   /* failed attempts so far */
	bool timed_out;      /* killed past its timeout */
	bool rerun;          /* done, and running again to make data lost
				with a worker (lineage) */
	bool preempt;        /* stopped to make way (iopol_make_way) */
	char *stop_aside;    /* where a stopped attempt's outputs were moved
				until its next attempt ends (the runner's;
				freed by place_release) */
};

/* A worker's capacity. */
struct place_worker {
	long cores, free;    /* cores, and those no running task takes */
	long io, io_free;    /* I/O executors, and those free */
	long long mem, mem_free; /* memory (bytes; 0: not limited), and
				what no running task reserves */
	bool usable;         /* connected and not lost */
	bool tried;          /* asked in this dispatch round */
	bool per_job;        /* each task is a job of its own (Slurm): any
				task fits, and takes one of cores (then
				job slots, free and io alike) */
};

/* What the backend does for the decisions. */
struct place_ops {
	/* Start task t (of task name) on worker wi: its capacity is taken,
	 * its state is TASK_RUNNING and its grant, where, seq and launches
	 * are set. */
	void (*launch)(void *arg, uint32_t t, uint32_t name, size_t wi);
	/* Stop running task t to make way (its preempt is set): when it
	 * has ended, place_end and place_requeue it. */
	void (*stop)(void *arg, uint32_t t);
	/* Bytes of t's inputs already on worker wi; NULL: no staging (every
	 * worker sees the same files). */
	long long (*local_bytes)(void *arg, uint32_t t, size_t wi);
	void *arg;
};

struct place {
	struct plan *p;
	struct iopol *pol;
	struct place_ops ops;
	struct place_task *t;       /* per task of the plan */
	size_t nt;
	struct place_worker *w;
	size_t nw;
	struct sched sched;
	long *cores;                /* per task name: cores each instance
				       takes (0: an I/O task) */
	long long *mem;             /* per task name: memory each instance
				       reserves (bytes, 0: none) */
	bool *io;                   /* per task name: takes an I/O executor */
	bool *scaled;               /* per task name: its cores were lowered
				       to as many as a worker has (cores:
				       {max, min}, --scale-cores): a worker
				       is held for it rather than let it
				       starve */
	size_t running;             /* over all workers */
	double now;                 /* place_dispatch's now (the
				       backend's clock) */
	uint32_t nlaunched;
	struct idset io_run;        /* I/O tasks running */
	/* per task name (its iopol group's): I/O instances running, and
	 * since the oldest of them started, each change of that count */
	long *nio;
	VEC(struct autobw_count) *counts;
	VEC(uint32_t) pinned;       /* on_failure: retry, back-off over */
	bool stop;                  /* start nothing more */
	/* scratch */
	VEC(struct iopol_running) way;
	uint32_t *ready;
	size_t nready, aready;
	size_t asking;              /* the worker being asked */
	size_t held;                /* the worker held for a scaled task */
};

/* For plan p, nw workers (all unusable until place_worker_set) and the
 * policy pol (iopol_init'ed, its workers added); no_io: I/O tasks are
 * 1-core compute tasks (the baseline). */
void place_init(struct place *pl, struct plan *p, struct iopol *pol,
		size_t nw, bool no_io, const struct place_ops *ops);
void place_release(struct place *pl);
/* Tasks were appended to the plan (plan_expand_stage): their run
 * state, counted as left to run by the policy. */
void place_grow(struct place *pl);

/* How a run is set up: its workers and policy options. */
struct place_conf {
	const struct cluster *cluster; /* NULL: this machine alone */
	long cores, io_executors;      /* this machine's (0: default) */
	double disk_bw;                /* this machine's disk, 0: unknown */
	bool no_io;                    /* --no-io */
	bool relearn, paper, no_preempt; /* iopol's options */
	iopol_event_fn event;          /* iopol's events, to ops.arg */
};
/* iopol_init pol for plan p with every worker of the cluster added,
 * then place_init pl on them. */
void place_open(struct place *pl, struct iopol *pol, struct plan *p,
		const struct place_conf *c, const struct place_ops *ops);

/* Worker wi has cores and io executors, all free, and is usable. */
void place_worker_set(struct place *pl, size_t wi, long cores, long io);
/* A worker that comes during the run (a node Slurm granted): its index,
 * after every other, unusable until place_worker_set.  Its policy
 * worker is added too (iopol_add_worker), at the same index. */
size_t place_worker_add(struct place *pl);
/* Worker wi has bytes of memory for its tasks (0: not limited), all
 * free. */
void place_worker_memory(struct place *pl, size_t wi, long long bytes);
/* Worker wi runs each task as a job of its own, at most slots at once,
 * whatever their cores (place_worker.per_job), and is usable. */
void place_worker_jobs(struct place *pl, size_t wi, long slots);
/* Worker wi is gone: nothing starts there any more (its running tasks
 * come back through place_end and place_requeue). */
void place_worker_lost(struct place *pl, size_t wi);
size_t place_usable(const struct place *pl);
/* The most cores of a usable worker. */
long place_most_cores(const struct place *pl);
/* bytes as a size for people ("512 MiB", "1.5 GiB") in buf. */
const char *place_size(long long bytes, char *buf, size_t len);
/* The task name's memory does not fit the usable worker with the most:
 * true, with why ("task 'x' asks for 3 GiB of memory but no worker has
 * more than 2 GiB") in buf. */
bool place_too_big(const struct place *pl, uint32_t name, char *buf,
		   size_t len);
/* The most memory of a usable worker: LLONG_MAX when one is not limited
 * (or runs each task as a job of its own: the cluster says). */
long long place_most_memory(const struct place *pl);
/* Task name is given n cores (fewer than it asked: no worker has more;
 * plan_set_cores too) and is one that a worker is held for. */
void place_scale(struct place *pl, uint32_t name, long n);
/* Whether task name fits a usable worker: 0 when it does; when it asks
 * for more cores than every one has (most), scaled down (place_scale)
 * where it may (plan_fit_cores; scale_all: --scale-cores), 1 with a
 * warning in buf; -1 with why it cannot run in buf (its cores, or its
 * memory: place_too_big). */
int place_fit(struct place *pl, uint32_t name, long most, bool scale_all,
	      char *buf, size_t len);
/* Why no usable worker can run an instance of name at all (iopol_unfit),
 * or NULL when one can (or none is usable). */
const char *place_unfit(const struct place *pl, uint32_t name, char *buf,
			size_t len);

/* Queue the tasks of the plan that are ready (at time now). */
void place_queue_ready(struct place *pl, double now);
/* Queue the tasks from first on that are ready (appended ones). */
void place_queue_from(struct place *pl, uint32_t first, double now);
/* t is done without running (up to date): its successors wait no more
 * for it, but are not queued (place_queue_ready does); and its name's
 * tasks do not become ready as in a run from nothing
 * (iopol_up_to_date). */
void place_skip(struct place *pl, uint32_t t);
/* t is done: queue the successors that became ready (at now). */
void place_complete(struct place *pl, uint32_t t, double now);
/* Queue t (ready again at now: lineage, unparked). */
void place_push(struct place *pl, uint32_t t, double now);
/* t's back-off after a failure is over (at now): an on_failure: retry
 * task waits for its worker (see place_dispatch), another is queued. */
void place_retry(struct place *pl, uint32_t t, double now);
/* Ready tasks waiting for a worker. */
size_t place_waiting(const struct place *pl);

/* t's attempt ended (any way), at now on the clock of place_dispatch:
 * its capacity is free again. */
void place_end(struct place *pl, uint32_t t, double now);
/* An attempt of t failed on the worker it ran on. */
void place_failed(struct place *pl, uint32_t t);
/* t's ended attempt will not finish (its worker was lost, an input is
 * being made again): it gives its grant back. */
void place_abandon(struct place *pl, uint32_t t);
/* The same, and t goes back to the queue (lost, stopped to make way). */
void place_requeue(struct place *pl, uint32_t t);

/*
 * Start what can start, at now (the backend's clock: the tasks started
 * are stamped with it).  Unless stopped: first a climb's choice for a
 * name's last tasks is made (iopol_take_batch) and the I/O tasks that
 * must make way are stopped (ops.stop); then the on_failure: retry
 * tasks whose back-off is over start (the first retry on the worker where the task
 * failed, later ones on another, or on any when no other can take it);
 * then, round after round, the usable worker with the most free cores
 * not asked yet takes the earliest ready task that fits it and that
 * iopol_may_start lets start there, moved to the worker with the most of
 * its inputs (ops.local_bytes), or for an I/O task spread to the worker
 * running the fewest (iopol_spread); then the learning epochs that hold
 * others up are closed, and what that lets through starts.
 */
void place_dispatch(struct place *pl, double now);

#endif
