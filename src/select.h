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

/* What a run asks for: n targets, and the task of --until (NULL: none).
 * With neither, every task is needed. */
struct select_ask {
	const char *const *targets;
	size_t n;
	const char *until;
};

/*
 * Mark the tasks of p that what ask names does not need TASK_LEFT_OUT
 * (before anything runs: after dag_finalize, before resume).  *left: how
 * many.  -1 with err when a target names nothing (no task writes that
 * path, and no task has that name) or --until names no task: err then
 * says which, with the closest task name or written path.
 */
int select_tasks(struct plan *p, const struct select_ask *ask, size_t *left,
		 struct errbuf *err);

/*
 * Tasks first.. were just appended by a stage (wfrun-workflow(5),
 * DYNAMIC): mark those ask does not need TASK_LEFT_OUT, before resume
 * decides for them; how many.  Every edge points forward and no target
 * names a pending task (select_tasks refuses it), so targets need none
 * of them; --until alone needs those written up to its task.
 */
size_t select_appended(struct plan *p, const struct select_ask *ask,
		       uint32_t first);

/* A datum path (relative to the workdir, or absolute) as a path relative
 * to the directory cwd (absolute, normalised), into out. */
void select_path_from(const char *workdir, const char *cwd, const char *path,
		      struct strbuf *out);

#endif
