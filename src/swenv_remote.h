/*
 * swenv_remote: the images and modules of a workflow's tasks asked of the
 * workers that run through an agent or as Slurm jobs (SSH workers, the
 * nodes of `run --slurm`, <slurm submit="jobs">), as swenv_prepare asks
 * this machine.  Each worker gets ONE hidden preparation job, sent through
 * its executor as a task's would be (the agent protocol as it is): a
 * shell script that asks the worker's engine once per image (`ENGINE
 * image inspect`; with SWENV_PULL, `ENGINE pull` when it is not there)
 * and its module system once per module list (a subshell that loads
 * them), and writes one line per answer to its stdout log.  The jobs of
 * all workers run at once, in the caller's loop.
 *
 * Owns those jobs (while they run, the executor's done, on_state and
 * xfer_done callbacks are its own, then given back), the answers, and, for each
 * (worker, task), why the task cannot run there.  Never places a task.
 * A worker whose workdir is the master's writes the log where the master
 * reads it; one with a workdir of its own writes it in its /tmp, from
 * where it is fetched over the worker's SFTP (removed there by a preparation
 * job an hour later).
 */
#ifndef WFRUN_SWENV_REMOTE_H
#define WFRUN_SWENV_REMOTE_H

#include <stdbool.h>
#include <stdio.h>

#include "exec.h"
#include "loop.h"

struct workflow;

/* A worker to ask: ready. */
struct swenv_worker {
	const char *name;       /* in messages and events */
	struct exec *ex;        /* borrowed; EXEC_READY */
	const char *engine;     /* NULL: the first found there */
	long cores;             /* what its job asks (a Slurm job) */
	bool own;               /* its workdir is its own: the answers are
				   written in its /tmp and fetched (SFTP) */
	/* its own */
	exec_done_fn done;
	exec_state_fn on_state;
	void (*xfer_done)(struct exec *, const struct xfer_result *, void *);
	void *arg, *xfer_arg;
	bool waiting;
};

struct swenv_remote {
	const struct workflow *wf;
	const char *workdir;    /* the master's (absolute) */
	unsigned what;          /* SWENV_MODULES, SWENV_PULL (swenv.h) */
	FILE *events;           /* NULL: none written */
	struct swenv_worker *w;
	size_t nw;
	char **why;             /* [wi * ntasks + task]: NULL, or why task
				   cannot run on worker wi */
	size_t waiting;         /* jobs sent and not answered */
	int nerr;
};

/* Ready sr to ask nw workers (w copied) about wf's tasks. */
void swenv_remote_init(struct swenv_remote *sr, const struct workflow *wf,
		       const char *workdir, const struct swenv_worker *w,
		       size_t nw, unsigned what, FILE *events);

/*
 * Send each worker its job, then run loop until every worker answered,
 * was lost, or *stop became nonzero (then the executors still asked keep
 * sr's callbacks: release them before sr).  Each image not there (and, with
 * SWENV_MODULES, each module list that does not load) is an error on
 * stderr naming its first task (FILE:LINE), the worker and the tool's
 * own message; with SWENV_PULL a missing image is pulled, the pull an
 * event (swenv.h, "worker" the worker's name).  Returns the errors.
 */
int swenv_remote_ask(struct swenv_remote *sr, struct loop *loop,
		     const int *stop);

/* Why task (a workflow task's index) cannot run on worker wi (NULL: it
 * can, or it was not asked). */
const char *swenv_remote_why(const struct swenv_remote *sr, size_t wi,
			     size_t task);

void swenv_remote_release(struct swenv_remote *sr);

/*
 * wfrun check: connect to the workers of cl that are not this machine
 * (SSH workers, the worker of <slurm submit="jobs">), ask each as above without pulling (SWENV_MODULES),
 * and close them.  engine: --container-engine, or NULL.  agent: the
 * local wfrun-worker to install.  Returns the errors (said on stderr).
 */
struct cluster;
int swenv_remote_check(const struct workflow *wf, const struct cluster *cl,
		       const char *engine, const char *agent);

#endif
