/*
 * sim: `wfrun sim` — the runner's own decisions (place: scheduler queues,
 * placement, storage-bandwidth admission, make-way) and learner (iopol,
 * autobw) on a virtual clock, so that constraints can be tried on a
 * cluster far larger than this machine.  It owns only the clock, the
 * model's task times and the devices' laws; it models no failure and no
 * staging.  Nothing runs and no file of the workflow is touched.
 *
 * Task times come from a model file, one statement per line ('#' starts a
 * comment):
 *   task NAME seconds S [jitter F]   each instance takes S seconds, times
 *                                    a uniform factor in [1-F, 1+F]
 *   task NAME writes MB [jitter F]   each instance writes MB megabytes to
 *                                    the device of its worker (I/O tasks),
 *                                    times a uniform factor in [1-F, 1+F]
 *                                    drawn once for the instance
 *   device NAME|* bandwidth B [knee K] [alpha A] [stream R]
 *                                    the device's real law: k tasks writing
 *                                    at once share min(k R, B f(k)) MB/s,
 *                                    f(k) = 1 up to K tasks, then
 *                                    1 / (1 + A (k - K)) (the law of
 *                                    bench/congestdev); R = 0: no cap
 *   seed N                           for the jitter (default 1)
 * The scheduler is never told the law: it sees only the bandwidth the
 * resources file (or --disk-bw) gives and the task times it observes.
 */
#ifndef WFRUN_SIM_H
#define WFRUN_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "expand.h"
#include "workflow.h"

struct cluster;
struct trace;

enum sim_kind { SIM_NONE, SIM_SECONDS, SIM_WRITES };

struct sim_task_model {
	enum sim_kind kind;
	double secs;         /* SIM_SECONDS */
	double mb;           /* SIM_WRITES */
	double jitter;       /* either */
	bool named;          /* a line of the model names it (kind stays
				SIM_NONE if that line is in error) */
};

struct sim_dev_model {
	char *name;          /* a device name, or "*" for every other */
	double B, knee, alpha, stream;
};

struct sim_model {
	struct sim_task_model *task; /* per task of the workflow */
	size_t ntask;
	struct sim_dev_model *dev;
	size_t ndev;
	uint64_t seed;
};

/* Read the model for wf; every problem goes to d as file:line:col. */
int sim_model_load(struct sim_model *m, const char *path,
		   const struct workflow *wf, struct diags *d);
void sim_model_release(struct sim_model *m);
/* The aggregate MB/s of k tasks writing at once on a device. */
double sim_law(const struct sim_dev_model *dm, long k);

struct sim_opts {
	const struct cluster *cluster; /* NULL: this machine alone */
	long cores;          /* of this machine */
	long long memory;    /* of this machine (bytes), 0: not limited */
	bool scale_cores;    /* --scale-cores */
	long io_executors;   /* of this machine, 0: default */
	double disk_bw;      /* of this machine's disk, 0: unknown */
	bool no_io;
	bool learn_paper;    /* --learn paper */
	bool no_preempt;     /* --no-preempt (iopol_make_way) */
	struct trace *trace; /* NULL: none */
	FILE *events;        /* NULL: none */
	const char *registry; /* kept registries to start from and update;
				 NULL: learn from nothing, keep nothing */
};

struct sim_result {
	double makespan;     /* virtual seconds */
	size_t done;
	size_t preempted;    /* attempts stopped to make way (iopol.h) */
	size_t nworkers;
	long cores, io_executors;
	double *chosen;      /* per task name: final constraint, 0: none */
	double *last_c;      /* per task name: the choice for its last
				tasks, when it was not chosen (0: none) */
	long *last_n;        /* and how many they were */
	int *epochs;         /* per task name: learning epochs run */
	bool *kept;          /* per task name: it started from a kept
				registry */
};

/* Run the plan; 0, or -1 with a message printed (EXIT_USAGE-like
 * problems: a worker without cores, a task without a model). */
int sim_run(struct plan *p, const struct sim_model *m,
	    const struct sim_opts *o, struct sim_result *res);
void sim_result_release(struct sim_result *res);

#endif
