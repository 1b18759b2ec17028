/*
 * runner: runs a plan on its workers (this machine, or the workers of a
 * resources file).  It owns the loop, the executors, the trace and the
 * progress display; what starts where, and the tasks' run state, are
 * place's decisions, which it carries out (launch, stop) and feeds (ends,
 * failures, lost workers).  It and place alone touch the dag's run-time
 * state (one thread: no locks).  It chdirs into the workdir, creates
 * output directories before each task, launches the tasks place starts,
 * and on each finished task checks its outputs, writes the trace row and
 * hands it back to place, which releases its successors.
 */
#ifndef WFRUN_RUNNER_H
#define WFRUN_RUNNER_H

#include <stdbool.h>

#include "expand.h"

struct cluster;
struct select_ask;

struct runner_opts {
	long cores;              /* cores of the local worker, >= 1 */
	long long memory;        /* bytes of the local worker, 0: not
				    limited */
	bool scale_cores;        /* --scale-cores: any task asking for more
				    cores than a worker has gets its most */
	bool keep_going;         /* -k: run what does not depend on a failure */
	const char *trace_path;  /* absolute, or NULL for the default */
	const struct cluster *cluster; /* -r: workers; NULL: this machine */
	bool accept_new_host_keys;
	long io_executors;       /* of the local worker; 0: two per core */
	bool no_io;              /* --no-io: I/O tasks run as compute tasks */
	const char *agent_path;  /* the wfrun-worker to upload to workers */
	double disk_bw;          /* MB/s of this machine's disk, 0: unknown */
	bool relearn;            /* forget the kept storage_bw registries */
	bool learn_paper;        /* --learn paper: auto learns the paper's way */
	bool no_preempt;         /* --no-preempt (iopol_make_way) */
	const bool *forced;      /* per workflow task: rerun (--force) */
	const struct select_ask *ask; /* targets, --until: what tasks that a
				    stage appends are needed; NULL: all */
	bool force_all;          /* --forceall: ignore the journal */
	int fetch;               /* enum stage_fetch: outputs of workers
				    whose workdir is not shared */
	bool keep_temp;          /* --keep-temp: temp outputs stay */
	const char *container_engine; /* NULL: a worker's own, else the
					 first found there (swenv.h) */
};

/* Run every task; returns the exit status (exitcode.h: EXIT_OK,
 * EXIT_TASK_FAILED, EXIT_USAGE, EXIT_UNREACHABLE or EXIT_INTERRUPTED). */
int runner_run(struct plan *p, const struct runner_opts *o);

#endif
