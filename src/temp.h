/*
 * temp: the outputs a workflow marks temp (out: {x: {temp: PATH}}),
 * during a run.  It owns which task instance's version of which file is
 * temp, how many of the tasks that read that version are still to finish
 * in this run, and their removal: once the last of them has succeeded
 * (temp_task_done, before the runner releases what follows it), or at
 * the end of a run that was not interrupted for a temp file no task of
 * this run still reads (temp_finish).  Each removal is said in the
 * journal (journal_add_temp_gone) so that the next run does not make it
 * again unless a task that reads it runs (resume.c).  It never removes a
 * version that a later task updates in place (inout), nor at the end one
 * that a later task writes again, nor anything when the run keeps temp
 * files (--keep-temp).  In a run with workers whose workdir is not
 * shared (deferred), removals wait for the end, after the fetch: the
 * master's copy goes (the workers' stores are pruned as ever).
 * The runner's loop thread only; paths are relative to the workdir,
 * the current directory.
 */
#ifndef WFRUN_TEMP_H
#define WFRUN_TEMP_H

#include <stdbool.h>
#include <stdint.h>

#include "expand.h"
#include "journal.h"

struct temp_out {
	uint32_t task;     /* its writer */
	uint32_t datum;
	uint32_t left;     /* readers in this run not yet succeeded */
	bool superseded;   /* a later task writes it (or a directory above) */
	bool updated;      /* a later task updates this version in place */
	bool removed;
};

struct temp {
	VEC(struct temp_out) outs;
	uint32_t *roff;    /* per task (CSR): the outs it reads */
	uint32_t *reads;
	uint32_t ntasks;   /* tasks of the plan at temp_init: those a later
			      stage appends (DYNAMIC) are not counted */
	bool active;       /* removes anything */
	bool deferred;     /* only at the end (temp_finish) */
};

/* The temp outputs of plan p's tasks; run[t]: task t runs in this run
 * (not up to date).  Nothing is removed when !active; only at the end
 * when deferred. */
void temp_init(struct temp *tp, const struct plan *p, const bool *run,
	       bool active, bool deferred);
void temp_release(struct temp *tp);
/* Task t succeeded: the temp files whose last reader it was go, each
 * said in j.  Returns how many were removed.  A task appended after
 * temp_init removes nothing (the runner defers removal to the end while
 * stages are pending: their tasks may read any temp file). */
size_t temp_task_done(struct temp *tp, const struct plan *p, uint32_t t,
		      struct journal *j);
/* The end of a run that was not interrupted: temp files that no task of
 * this run still reads and that no later task writes go (those read by
 * no task at all, or only by tasks up to date; when deferred, all those
 * whose readers succeeded). */
size_t temp_finish(struct temp *tp, const struct plan *p, struct journal *j);

#endif
