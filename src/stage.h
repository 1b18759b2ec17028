/*
 * stage: the data of workers whose workdir is not shared.  It owns where
 * each datum version lives (which workers hold which file of it, and the
 * master), stages a task's inputs onto the worker that runs it before the
 * task is submitted, records the files a task produced where it ran, scores
 * workers by the input bytes they already hold (locality), and at the end
 * brings the workflow's outputs back to the master's workdir.  The runner
 * calls it from a few hooks; it runs in the loop thread only, and moves
 * bytes through the executors' transfer op (SFTP on the worker's own SSH
 * thread), never itself.
 *
 * A datum version is (path, the task that wrote it); inputs that exist on
 * the master at start are version 0.  The files of a version are what the
 * agent reported under the written path (a directory collection is many
 * files).  On a worker, version v of path P lives in
 *   WD/.wfrun/data/RUN/in/P        (v = 0, staged from the master)
 *   WD/.wfrun/data/RUN/tN/P        (written by task N, moved there after
 *                                   it succeeded)
 * and a task runs in WD/.wfrun/sandbox/RUN/N, where its inputs are
 * hard-linked at their relative paths (copied when it also writes them).
 * A file goes to a worker at most once per run, however many tasks and
 * parameters (alone or inside collections) read it there.  A file that
 * only another worker holds is relayed through the master's
 * WORKDIR/.wfrun/relay/RUN, removed at the end (and by the runner when a
 * run starts, after a kill).  The fetch at the end lands there too: a
 * file takes its own name in the workdir only when the fetch is over
 * (stage_place), never half written.
 *
 * The store outlives the run (and the master, and the agent): a task is
 * journaled when it ends on its worker, with where its outputs are there
 * (stage_store, journal.h's S lines); a later run asks the worker whether
 * its store still holds exactly that (stage_store_ask) and, if it does,
 * takes the task's outputs from there (stage_adopt) rather than running it
 * again.  WORKDIR/.wfrun/stores on the master lists the runs that have a
 * store on each worker; a run's store (and sandboxes) are removed when a
 * later run starts and no record refers to it (stage_prune).
 */
#ifndef WFRUN_STAGE_H
#define WFRUN_STAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "exec.h"
#include "expand.h"
#include "journal.h"

/* The master's list of the runs that have a store on each worker. */
#define STAGE_STORES ".wfrun/stores"

enum stage_fetch { FETCH_ALL, FETCH_FINAL, FETCH_NONE };

struct stage;

/* nworkers: every worker of the runner (staged or not), indexed as its. */
struct stage *stage_new(struct plan *p, size_t nworkers);
void stage_free(struct stage *st);
/* Worker wi's workdir is not shared: its tasks are staged.  Sets ex's
 * xfer_done to the stage's (ex->arg must stay the runner's). */
void stage_add_worker(struct stage *st, size_t wi, struct exec *ex,
		      const char *name, const char *workdir);
bool stage_is_staged(const struct stage *st, size_t wi);
/*
 * Lineage: data lost with a worker is made again by running its producer
 * again.  rerun(p) asks the runner to run finished task p once more
 * (false if it cannot); unpark(t) makes a task parked until then ready
 * again.  Without hooks, a task whose input is lost fails.
 */
struct stage_hooks {
	bool (*rerun)(uint32_t p, void *arg);
	void (*unpark)(uint32_t t, void *arg);
	void *arg;
};
void stage_set_hooks(struct stage *st, const struct stage_hooks *h);
/* Bytes of task t's inputs that worker wi holds already (or receives). */
long long stage_local_bytes(struct stage *st, uint32_t t, size_t wi);
/*
 * Stage task t's inputs on worker wi, then submit job there (a copy is
 * kept).  The task ends through the executor's done callback as any task:
 * started=false when its inputs cannot be had (the error names the data),
 * lost=true when wi is lost meanwhile.
 */
void stage_launch(struct stage *st, uint32_t t, size_t wi,
		  const struct exec_job *job);
/*
 * Record what task t left on worker wi (res of a staged job; exited0: it
 * exited with status 0).  Returns the index in the task's accesses of an
 * output it did not create, or DAG_NONE.  *in_s, *out_s and *bytes get
 * its staging figures.
 */
uint32_t stage_done(struct stage *st, uint32_t t, size_t wi,
		    const struct exec_result *res, bool exited0, double *in_s,
		    double *out_s, long long *bytes);
/* Worker wi is gone: forget what it held, end its tasks being staged. */
void stage_worker_lost(struct stage *st, size_t wi);
/* End task t if it is still being staged (started=false, error msg):
 * true if it was. */
bool stage_abort(struct stage *st, uint32_t t, const char *msg);
/* End every task still being staged (interrupted): started=false. */
void stage_cancel(struct stage *st);
/* Start bringing outputs back into the relay; stage_busy() is true
 * until done.  An
 * output only a lost worker had is made again (its producer runs again:
 * keep dispatching while busy). */
void stage_fetch_start(struct stage *st, enum stage_fetch mode);
bool stage_busy(const struct stage *st);
/* No worker is left to run the producers of lost outputs: give up on
 * them (each reported). */
void stage_abandon(struct stage *st);
/*
 * After the fetch, for each task t that succeeded here (stage_ran), in
 * program order: put what was fetched of t under its own names in the
 * workdir (an INOUT datum only if all of t came back).  got[i], per
 * access of t: t's version of that written datum is now in the workdir
 * whole (else it stayed on the workers: a later task read it, or it
 * could not be had).  True when everything of t to be brought back is
 * there: t can be journaled.
 */
bool stage_ran(const struct stage *st, uint32_t t);
bool stage_place(struct stage *st, uint32_t t, bool *got);
/* stage_place(t) would put t's version of an INOUT datum in place (so
 * what is there now is to be saved first). */
bool stage_brings_update(struct stage *st, uint32_t t);
/* After the fetch: write WORKDIR/.wfrun/data.tsv (where each output
 * version is), remove the relay; the number of outputs that could not be
 * fetched (each reported). */
size_t stage_finish(struct stage *st);

/*
 * Where task t's outputs are in its worker's store, t having just
 * succeeded there (stage_done): false when that cannot be said (its agent
 * gave no mtimes).  out's strings are borrowed from the stage; free
 * out->f.
 */
bool stage_store(struct stage *st, uint32_t t, struct jstore *out);
/* Ask the worker of js whether its store still holds t's outputs as js
 * says; the answer comes in the loop (stage_asking is true until every
 * question is answered, or its worker lost).  A worker that is not in
 * this run, or not up, holds nothing. */
void stage_store_ask(struct stage *st, uint32_t t, const struct jstore *js);
bool stage_asking(const struct stage *st);
bool stage_store_held(const struct stage *st, uint32_t t);
/* Task t (skipped, its store held) made its outputs as js says, on the
 * worker asked: they are read, relayed and fetched from there. */
void stage_adopt(struct stage *st, uint32_t t, const struct jstore *js);
/* Remove on each reachable worker the stores of the runs that ledger
 * lists and no record of j refers to; rewrite ledger with the others and
 * this run.  0, or -1 with errno (the ledger could not be written). */
int stage_prune(struct stage *st, const struct journal *j, const char *ledger);

#endif
