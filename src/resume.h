/*
 * resume: which tasks of a plan still need to run, from the journal.
 *
 * Decided once, before anything runs: a task is skipped iff the journal
 * has a record of it with the same command, nothing it wrote that no
 * later task overwrites has changed or gone, nothing it read that no task
 * at or after it writes has changed, nothing it read that an earlier task
 * wrote (a file, or a directory collection none wrote into since) was
 * then other than that writer's latest record has it (records compared,
 * no stat), no file it read from a directory collection an earlier task
 * wrote, that no task at or after it writes, has changed since (a stat),
 * none of its predecessors reruns, and
 * no later task that reads or updates (INOUT) what it wrote reruns while
 * that is no longer as it left it, and no later task that reads what it
 * left on a worker (recorded absent) reruns.
 * An output recorded as in a worker's store (journal.h, S lines) is not
 * looked for here: the stage asks the worker (stage_store_ask), and a
 * task whose store is gone runs again (resume_plan_again).
 * "Changed" is a different size, or a different mtime unless the recorded
 * content hash still matches.  Forced tasks rerun too.  O(tasks + edges +
 * accesses x path depth), plus a stat per checked file.
 */
#ifndef WFRUN_RESUME_H
#define WFRUN_RESUME_H

#include <stdbool.h>
#include <stdint.h>

#include "expand.h"
#include "journal.h"

enum resume_why {
	RESUME_SKIP,          /* up to date */
	RESUME_NO_RECORD,
	RESUME_FORCED,
	RESUME_COMMAND,       /* its command changed */
	RESUME_MISSING,       /* an output is missing; detail: datum */
	RESUME_CHANGED_OUT,   /* an output changed since; detail: datum */
	RESUME_CHANGED_IN,    /* an input changed; detail: datum */
	RESUME_PREDECESSOR,   /* detail: the predecessor that reruns */
	RESUME_REWRITTEN,     /* detail: a later task that runs and updates
				 (INOUT) what this one wrote */
	RESUME_LEFT,          /* detail: a later task that runs and reads
				 what this one left on a worker */
	RESUME_STORE_GONE,    /* what it left in a worker's store is no
				 longer there (or its worker is not) */
	RESUME_DROPPED,       /* its record was dropped: the original of a
				 workflow input it updates was put back */
	RESUME_TEMP,          /* detail: a later task that runs and reads a
				 temp output of it that was removed */
	RESUME_REREAD,        /* detail: a later task that runs and reads
				 what this one wrote, since changed (a
				 later task overwrote or updated it) */
	RESUME_LEFT_OUT,      /* not needed by what the run asks for
				 (select.h: TASK_LEFT_OUT): never runs */
};

/* A workflow input updated in place by an earlier run whose first
 * update runs again: its original must be put back before the run. */
struct resume_orig {
	uint32_t datum;
	uint32_t updater;   /* the first task that updates it in place */
	uint32_t reader;    /* a task that read it before and runs again,
			       or DAG_NONE */
};

struct resume {
	uint8_t *why;       /* per task */
	uint32_t *detail;   /* per task */
	size_t nskip;
	uint8_t *first;     /* per access of the dag: the first update in
			       place (INOUT) of a workflow input, whose
			       original undo_keep_originals keeps */
	struct resume_orig *orig; /* the originals to put back, in program */
	size_t norig;             /* order of their updater */
	uint32_t *drop;     /* the tasks that ran before and write those */
	size_t ndrop;       /* inputs: their records are void */
	struct jident *ids; /* per datum: the last identity recorded, so a
			       file many tasks read is hashed once */
	size_t nids;
};

/* forced[tmpl] set: every instance of that task reruns; all: every task. */
void resume_plan(struct resume *rs, const struct plan *p,
		 const struct journal *j, const bool *forced, bool all);
void resume_release(struct resume *rs);
/*
 * resume_plan, but first, when p has stages (wfrun-workflow(5),
 * DYNAMIC), p is built again with every stage expanded from the disk
 * (plan_build_eager) and kept so if the tasks that write what they glob
 * are all up to date: the tasks before a stage are then judged knowing
 * what the tasks after write (a task of a later stage writing into a
 * directory an earlier one made does not make that one run again).
 * Else p stays as it is.  Tasks left out of p (select.h) stay so, and
 * of the tasks added, those ask does not need are left out too (NULL:
 * all needed).  Called in the workdir.
 */
struct select_ask;
void resume_plan_eager(struct resume *rs, struct plan *p,
		       const struct journal *j, const bool *forced, bool all,
		       const struct select_ask *ask);
/* Decide again, the tasks of gone[] (whose stores are gone) running. */
void resume_plan_again(struct resume *rs, const struct plan *p,
		       const struct journal *j, const bool *forced, bool all,
		       const bool *gone);
/*
 * Tasks from first on were appended to the plan (a foreach expanded at
 * run time, plan_expand_stage) after the tasks before them were decided
 * (some may still run): decide them.  Each runs when its own record
 * says so, or when a task it depends on runs (before first: in this
 * run, done or not); a workflow
 * input they update in place first is not kept aside for a later run
 * (resume_originals is not asked again).  O(tasks + edges + accesses).
 */
void resume_extend(struct resume *rs, const struct plan *p,
		   const struct journal *j, const bool *forced, bool all,
		   uint32_t first);
/*
 * (Called by resume_plan.)  The originals to put back: a workflow input
 * that a task updates in place must be as it was before that update
 * when the task runs again, or a task that read it before (a reader
 * runs again, so do all its updates: they depend on it).  When a task
 * at or after the first update that writes it ran before (it may hold
 * an update of an earlier run), it goes in rs->orig, and the tasks that
 * ran before and write it at or after that update go in rs->drop.
 */
void resume_originals(struct resume *rs, const struct plan *p,
		      const struct journal *j);
/* Make void the records of rs->drop (a record with no command, which
 * resume_plan reads as RESUME_DROPPED), so that a run killed after the
 * originals are put back still runs their updates again; queued in j. */
void resume_drop_records(const struct resume *rs, const struct plan *p,
			 struct journal *j);
/* Why task t runs, as a phrase ("no record of an earlier run"). */
void resume_reason(const struct resume *rs, const struct plan *p, uint32_t t,
		   struct strbuf *out);

/* The journal record of a finished task t (read and written data).  A
 * file whose size and mtime are those of its last recorded identity is
 * not hashed again.  got (NULL: every written datum is here), per
 * access of t: whether t's version of a datum it wrote is in the workdir;
 * one that is not (a task on a worker whose workdir is not shared made
 * it, and it was not brought back) is recorded absent ('-').  -1, and
 * no record, when a directory t used cannot be read (err says which):
 * its identity is unknown, and a record of it would be a guess. */
int resume_record(struct resume *rs, const struct plan *p, uint32_t t,
		  const bool *got, struct journal *j, struct strbuf *scratch,
		  struct errbuf *err);

/* The record of task t that ended on a worker whose workdir is not
 * shared: its outputs absent here, and where they are (store, its file
 * paths relative to store->dir).  As resume_record. */
int resume_record_stored(struct resume *rs, const struct plan *p, uint32_t t,
			 const struct jstore *store, struct journal *j,
			 struct strbuf *scratch, struct errbuf *err);

#endif
