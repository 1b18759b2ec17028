/*
 * expand: from workflow templates to the task instances of a dag.  It
 * compiles every string with {placeholders} once (reporting unknown names
 * with a suggestion), enumerates foreach keys (ranges of integer
 * expressions, lists, globs with their {captures}, the rows of a sample
 * sheet read once; several keys are a cross product, the first key
 * outermost), renders paths, scans the directories that collections
 * read, checks that every input exists, and renders each instance's command
 * on demand: as a shell command with every value shell-quoted, or, when the
 * command needs no shell, directly as an argv.
 *
 * The plan owns the dag and the compiled templates; the workflow must
 * outlive it.
 */
#ifndef WFRUN_EXPAND_H
#define WFRUN_EXPAND_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dag.h"
#include "workflow.h"

/* SEG_LIST: a list var in run, its items (s, len: each followed by a
 * NUL) each one word. */
enum seg_kind { SEG_LIT, SEG_BIND, SEG_VAR, SEG_PARAM, SEG_LIST, SEG_FIELD,
		SEG_CORES /* {cores}: the cores the task is given */ };

/* 16 bytes: a file of a million tasks holds several per task. */
struct seg {
	const char *s;    /* LIT: text (not NUL-terminated); VAR: value */
	uint32_t len;     /* a workflow file is at most 256 MiB; FIELD:
			     the column of the row the slot's value is */
	uint16_t idx;     /* BIND, FIELD: value slot; PARAM: parameter
			     index (a task has at most WF_MAX_PARAMS) */
	uint8_t kind;     /* enum seg_kind */
};

struct tmpl {
	struct seg *v;
	size_t n;
};

/* A list collection: its element and its compiled foreach keys. */
struct plist {
	struct pdata *elem;
	struct wf_foreach *each;  /* the workflow's, not owned */
	struct tmpl *each_lo, *each_hi, **each_items, *each_glob;
};

/* A parameter's datum (two per task in a file of a million). */
struct pdata {
	enum wf_data_kind kind;
	uint32_t depth;
	struct tmpl path;
	struct plist *list;       /* LIST only */
};

/* A file of wfrun's own (the workflow, the trace, ...) that no task may
 * write, nor a directory above it. */
struct plan_file {
	char *path;        /* normalised, named as a datum is */
	const char *what;  /* "the workflow file" */
	bool tree;         /* writing inside it is refused too */
};

/* A task's compiled foreach keys. */
struct pforeach {
	struct tmpl *lo, *hi, **items, *glob; /* per foreach key */
};

struct ptask {
	const struct wf_task *wt;
	struct tmpl run;
	struct tmpl *env;
	struct tmpl *log;  /* log: out and err; NULL: .wfrun/logs */
	struct pdata *params;
	struct pforeach *fe; /* its foreach keys; NULL: none */
	bool simple;       /* run needs no shell */
	const char *exe;   /* simple: the program, resolved on PATH (in
			      the plan's exes) */
	uint32_t ninst;
	long cores;        /* what {cores} says: wt's, or what it was
			      scaled down to (plan_set_cores) */
	bool failed;       /* expansion stopped on an error */
	bool *reported;    /* per parameter: a path error was reported */
};

/*
 * What one workflow may expand to.  Past a limit, expansion stops with an
 * error naming the task, instead of filling memory: a typo such as
 * "1..10000000000" is reported, not obeyed.  plan_build() uses the
 * defaults (wfrun-workflow(5), LIMITS); the fuzz targets use smaller ones.
 */
#define PLAN_MAX_TASKS 10000000     /* task instances */
#define PLAN_MAX_ACCESSES 50000000  /* paths of parameters, all instances */
#define PLAN_MAX_EMPTY 1000000      /* outer foreach values making nothing */
struct plan_limits {
	size_t max_tasks;
	size_t max_accesses;
	size_t max_empty;
};
/* How a repeat block went: iterations expanded, and its end. */
enum plan_repeat_end { REPEAT_RUNNING, REPEAT_CONVERGED, REPEAT_MAX };
struct plan_repeat {
	struct tmpl until;
	uint32_t iters;
	uint8_t end;       /* enum plan_repeat_end */
};
/* Task instances (a VEC). */
struct plan_writers {
	uint32_t *v;
	size_t n, alloc;
};

struct plan {
	const struct workflow *wf;
	struct dag dag;
	struct ptask *pt;
	int workdir_fd;   /* -1 if the workdir does not exist yet */
	size_t ninputs_missing;
	VEC(struct plan_file) guard; /* wfrun's own files: never data */
	struct hmap exes;  /* program word -> its path on PATH, or 0: one
			      search per program, not per task */
	struct hmap rows;  /* a foreach key whose values are rows (a table,
			      a glob's captures): its wf_iter's address ->
			      its struct prows, in the dag's arena */
	/* Staged expansion (wfrun-workflow(5), DYNAMIC): the first task
	 * not expanded yet (wf->ntasks: none), because its foreach globs
	 * paths that the stage_writers (instances) write: once they are
	 * all done it can be.  The first, stage_writer, writes stage_dir. */
	uint32_t stage_from;
	struct plan_writers stage_writers;
	uint32_t stage_writer;
	const char *stage_dir;   /* in the dag's arena */
	struct plan_writers eager_writers; /* plan_build_eager */
	struct plan_limits lim;
	/* Repeat blocks (wfrun-workflow(5), REPEAT), parallel to
	 * wf->repeats; rep_at: the block whose last iteration, the
	 * stage_writers, decides on what comes next (-1: none). */
	struct plan_repeat *reps;
	int rep_at;
	/* plan_until_status: the until command's status, known before the
	 * stage expands (the runner ran it beside the tasks) */
	bool until_known;
	int until_st;
};

/*
 * Compile every template, then (when expand is true and nothing failed)
 * expand the tasks into the dag and check that inputs exist.  Errors go to
 * d; returns 0 when d holds no error.  The plan must be released either
 * way.
 */
int plan_build(struct plan *p, const struct workflow *wf, struct diags *d,
	       bool expand);

int plan_build_limited(struct plan *p, const struct workflow *wf,
		       struct diags *d, bool expand,
		       const struct plan_limits *lim);
/*
 * plan_build(), also refusing any task that writes one of the n files
 * (paths relative to the current directory, or absolute) or a directory
 * holding one.  Whatever the caller names, no task may write the
 * workdir itself, .wfrun/ or the workflow file; nor may a task write a
 * path it also names through another parameter (or inside a directory
 * collection of another), nor write a directory collection that is a
 * symbolic link, holds one or a hard-linked file (an inout one), or is
 * an existing file.
 */
int plan_build_guarded(struct plan *p, const struct workflow *wf,
		       struct diags *d, bool expand, const char *const *files,
		       const char *const *what, size_t n);
void plan_release(struct plan *p);

/*
 * Dynamic fan-out.  Expansion goes in program order and stops at the
 * first task one of whose foreach globs (its own keys, or those of a
 * list collection) names paths that an earlier task of the plan writes:
 * that task and every later one are pending until those writers have
 * run.  plan_pending() says whether tasks are pending; plan_expand_stage()
 * expands them from the disk as it is now, up to the next such task,
 * appending to the dag (dag_extend): the new tasks are from the task
 * count before the call.  Errors (a glob that matches nothing, a missing
 * input) go to d: -1.
 */
static inline bool
plan_pending(const struct plan *p)
{
	return p->wf && p->stage_from < p->wf->ntasks;
}
int plan_expand_stage(struct plan *p, struct diags *d);
/* The same, its diagnostics printed to fp. */
int plan_next_stage(struct plan *p, FILE *fp);
/*
 * A repeat block's until command, which decides whether the pending
 * stage is another iteration, is run by plan_expand_stage itself, and
 * waited for, unless its status was given first: a runner that must not
 * wait (one poll loop) asks for the command with plan_until_command (1
 * and the command in cmd, to run in the workdir with sh -c; 0 when the
 * pending stage needs none), runs it beside its tasks and hands its
 * status over with plan_until_status (its exit status, 128 + N when
 * killed by signal N, -1 when it could not start).
 */
int plan_until_command(const struct plan *p, struct strbuf *cmd);
void plan_until_status(struct plan *p, int status);
/*
 * Build q as p (its workflow, guarded files, limits) but with every
 * stage expanded now from the disk: right only if the tasks that write
 * what the stages glob, q->eager_writers, do not run again (then q is
 * what staged expansion would make, and the journal can judge the
 * tasks before a stage knowing those after it).  Call it in the
 * workdir.  -1 on an error (a glob matching nothing yet ...).
 */
int plan_build_eager(struct plan *q, const struct plan *p, struct diags *d);
/* "expanded after 'split' writes chunks": why the pending tasks wait,
 * control characters shown (xvisible); the caller frees it. */
char *plan_pending_why(const struct plan *p);
/* Is path (relative to the current directory, or absolute) one wfrun
 * must not write over: one of its own files (the workflow, the
 * resources, .wfrun/ but for its trace.tsv and events.jsonl, the files
 * given to plan_build_guarded() but the one guarded as self), the
 * workdir, or data of the plan?  Then why says which. */
bool plan_claims(const struct plan *p, const char *path, const char *self,
		 struct strbuf *why);

/* The cores task name gets where a worker has at most most: its own if
 * they fit, else (cores: {max, min}, or any task when scale_all: the
 * --scale-cores) most if at least its min; -1 if none fits. */
long plan_fit_cores(const struct wf_task *t, long most, bool scale_all);
/* Task name is given n cores: {cores} says n. */
void plan_set_cores(struct plan *p, uint32_t name, long n);

/* The shell form of task t's command (every value quoted). */
void plan_command(const struct plan *p, uint32_t t, struct strbuf *out);
/* The same with {cores} left as it is written: what the journal keeps,
 * so that a run given other cores does not run the task again. */
void plan_command_key(const struct plan *p, uint32_t t, struct strbuf *out);
/*
 * The argv of a task whose command needs no shell: words are built in buf,
 * argv points into it.  Returns false (and builds nothing) when the
 * command needs /bin/sh.
 */
bool plan_argv(const struct plan *p, uint32_t t, struct strbuf *buf,
	       struct strvec *argv);
/* The program of a command that needs no shell, found on this machine's
 * PATH (argv[0] of plan_argv() keeps the word as written); NULL when the
 * command needs the shell. */
const char *plan_exe(const struct plan *p, uint32_t t);
/* KEY=VALUE environment additions of task t, values unquoted. */
void plan_env(const struct plan *p, uint32_t t, size_t i, struct strbuf *out);
/* Task t's log: its out (err false) or err log as the task's log: key
 * says, normalised, relative to the workdir when inside it; false (out
 * untouched) when the task has no log: key. */
bool plan_log(const struct plan *p, uint32_t t, bool err, struct strbuf *out);
/* "i=3,j=a" */
void plan_tag(const struct plan *p, uint32_t t, struct strbuf *out);
/* "name (i=3)" or "name" */
void plan_label(const struct plan *p, uint32_t t, struct strbuf *out);

/* Append s to out, single-quoted for sh unless it is made only of safe
 * characters. */
void sq_quote(struct strbuf *out, const char *s, size_t n);
/* Evaluate an integer expression (+ - * / % parentheses, unary -). */
int eval_int(const char *s, long long *out, struct errbuf *err);

#endif
