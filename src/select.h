/*
 * select: the part of a plan a run is asked for.  Targets name what the
 * user wants made: a file or directory (by a path relative to the current
 * directory, as a shell user types it) or a task by name (all its
 * instances), or one instance as NAME[KEY=VALUE,...]; --until NAME stops
 * the program after task NAME.  The tasks a run needs are those targets'
 * producers and every task they depend on in the dag, and, with --until,
 * only those written no later than NAME; every other task is marked
 * TASK_LEFT_OUT in the plan's dag, so that it is never queued, run,
 * cancelled or counted as not run (resume.c does not decide for it).
 *
 * It owns nothing after it returns; it touches no file (the current
 * directory is read once, to place relative targets).  One pass over the
 * tasks and edges (every edge points forward in program order), plus a
 * walk of the known paths below each directory target.
 */
#ifndef WFRUN_SELECT_H
#define WFRUN_SELECT_H

#include <stddef.h>

#include "expand.h"
#include "util.h"

struct select_state;

/* What a run asks for: n targets, and the task of --until (NULL: none).
 * With neither, every task is needed.  st: what select_tasks learnt of
 * the pending tasks the targets need (NULL until then; release it with
 * select_release). */
struct select_ask {
	const char *const *targets;
	size_t n;
	const char *until;
	struct select_state *st;
};

/*
 * Mark the tasks of p that what ask names does not need TASK_LEFT_OUT
 * (before anything runs: after dag_finalize, before resume).  *left: how
 * many.  -1 with err when a target names nothing (no task writes that
 * path, none of the pending tasks may, and no task has that name) or
 * --until names no task: err then says which, with the closest task name
 * or written path.
 *
 * A target may name what a pending task (wfrun-workflow(5), DYNAMIC)
 * writes, or the task: its template's out: and inout: paths say which
 * (their literal parts; a placeholder stands for any string, or for the
 * value the target gives its foreach key: vcf/{s}.vcf.gz makes
 * vcf/S1.vcf.gz with s=S1).  Such a template is needed, and so are the
 * earlier pending ones that may write what it reads, what it reads being
 * known by the same rule (a key's value carried from what it writes to
 * what it reads), and the tasks that write what the stages up to it
 * glob.  The tasks expanded now that write any of that are needed
 * (ask->st keeps it for select_appended).
 */
int select_tasks(struct plan *p, struct select_ask *ask, size_t *left,
		 struct errbuf *err);

/*
 * Tasks first.. were just appended by a stage (wfrun-workflow(5),
 * DYNAMIC): mark those ask does not need TASK_LEFT_OUT, before resume
 * decides for them; how many.  One backward pass over them and their
 * edges (every edge points forward): a task is needed when it writes a
 * target (or is one by name), when a needed task reads what it writes,
 * or when it may write what a needed task still pending reads or globs
 * (select_tasks); with --until, only those written up to its task.
 */
size_t select_appended(struct plan *p, const struct select_ask *ask,
		       uint32_t first);

/* Whether pending task template k of p is needed by what ask names
 * (always, when it names nothing); *target: the first target it is needed for,
 * or NULL when no target asked for it. */
bool select_pending(const struct plan *p, const struct select_ask *ask,
		    uint32_t k, const char **target);

void select_release(struct select_ask *ask);

/* A datum path (relative to the workdir, or absolute) as a path relative
 * to the directory cwd (absolute, normalised), into out. */
void select_path_from(const char *workdir, const char *cwd, const char *path,
		      struct strbuf *out);

#endif
