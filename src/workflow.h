/*
 * workflow: the workflow file as the user wrote it.  workflow_load() reads a
 * YAML file with libyaml's event parser (this is the only file that
 * includes yaml.h) into a compact tree freed once read, checks keys, types
 * and values, and fills a struct workflow of *templates*:
 * strings still hold their {placeholders}, foreach keys are not expanded.
 * Every error goes to a diags list with the file, line and column of the
 * offending node, so one run reports all of them.  expand.c turns templates
 * into task instances.
 */
#ifndef WFRUN_WORKFLOW_H
#define WFRUN_WORKFLOW_H

#include <stdbool.h>
#include <stdio.h>

#include "util.h"

/* 1-based line and column; 0 when unknown. */
struct wf_loc {
	unsigned line, col;
};

/* Diagnostics: errors and warnings with a location, printed sorted. */
struct diag {
	char *msg;
	struct wf_loc loc;
	bool warning;
};
struct diags {
	const char *file; /* not owned */
	VEC(struct diag) list;
	size_t nerrors;
};
void diags_init(struct diags *d, const char *file);
void diags_release(struct diags *d);
void diag_error(struct diags *d, struct wf_loc loc, const char *fmt, ...)
	PRINTF(3, 4);
void diag_warning(struct diags *d, struct wf_loc loc, const char *fmt, ...)
	PRINTF(3, 4);
/* Print as "file:line:col: error: msg", sorted by position. */
void diags_print(struct diags *d, FILE *fp);

/* The deepest nesting of YAML collections in a workflow file. */
#define WF_MAX_DEPTH 64
/* The longest value of a var, and of a rendered path, foreach value or
 * glob pattern (wfrun-workflow(5), LIMITS): vars that refer to vars
 * cannot grow a small file into gigabytes. */
#define WF_MAX_VALUE 65536
/* Keys of one foreach: a cross product of more is never meant, and the
 * scope checks of expand.c compare keys pairwise. */
#define WF_MAX_KEYS 64
/* Parameters of one task: the dag numbers them in 16 bits. */
#define WF_MAX_PARAMS 65535

enum wf_iter_kind { WF_ITER_RANGE, WF_ITER_LIST, WF_ITER_GLOB };

/* One foreach key: "lo..hi" (integer expressions), a list, or a glob. */
struct wf_iter {
	char *name;
	enum wf_iter_kind kind;
	char *lo, *hi;      /* RANGE: templates of integer expressions */
	char **items;       /* LIST */
	struct wf_loc *item_locs;
	size_t nitems;
	char *glob;         /* GLOB: a path template */
	struct wf_loc loc;
};

struct wf_foreach {
	struct wf_iter *v;
	size_t n;
};

enum wf_access { WF_IN, WF_OUT, WF_INOUT };
enum wf_data_kind { WF_FILE, WF_DIR, WF_LIST };

struct wf_list;

/* A datum template: a file, a directory collection or a list collection.
 * 40 bytes: the parts of a list are apart, in the lists that have them. */
struct wf_data {
	enum wf_data_kind kind;
	char *path;             /* FILE and DIR: a path template */
	long depth;             /* DIR: levels of elements, >= 1 */
	struct wf_list *list;   /* LIST */
	struct wf_loc loc;
};

/* A list collection: its element and the keys it iterates. */
struct wf_list {
	struct wf_data elem;    /* the element template (nests) */
	struct wf_foreach each; /* the keys the element iterates */
};

struct wf_param {
	char *name;
	struct wf_data data;
	struct wf_loc loc;
	enum wf_access access;
};

struct wf_kv {
	char *key;
	char *val;
	struct wf_loc loc;
};

enum wf_bw_kind { WF_BW_NONE, WF_BW_STATIC, WF_BW_AUTO, WF_BW_AUTO_BOUNDED };
struct wf_bw {
	enum wf_bw_kind kind;
	double value;            /* STATIC: MB/s */
	double min, max, delta;  /* AUTO_BOUNDED */
};

enum wf_on_failure {
	WF_FAIL,
	WF_RETRY,
	WF_IGNORE,
	WF_CANCEL_SUCCESSORS,
};

struct wf_task {
	char *name;
	struct wf_loc loc;
	struct wf_foreach foreach;
	struct wf_param *params;
	size_t nparams;
	long cores;                 /* >= 1; 0 for I/O tasks */
	long long memory;           /* bytes, 0 = not set */
	struct wf_bw storage_bw;
	char *learn_as;             /* NULL: its name (storage_bw: auto) */
	struct wf_loc learn_as_loc;
	long retries;
	enum wf_on_failure on_failure;
	/* the flags together: one per task of a file of a million */
	bool on_failure_set;
	bool io;
	bool allow_outside;         /* OUT/INOUT paths may leave the workdir */
	double timeout;             /* seconds, 0 = none */
	long long log_max;          /* bytes a log keeps, -1 = no cap (after
				       loading: the workflow's if unset) */
	struct wf_kv *env;
	size_t nenv;
	char *run;
	struct wf_loc run_loc;
	struct wf_loc cores_loc;
	/* software environment (swenv.h): after loading, the image or NULL
	 * (none), and the modules, one per line, or NULL */
	char *container;
	char *modules;
	bool network;               /* the container may use the network */
};

/* What a task's stdout or stderr log keeps unless log_max says. */
#define WF_LOG_MAX_DEFAULT ((long long)64 << 20)

struct workflow {
	char *file;      /* as given on the command line */
	char *name;
	char *workdir;   /* absolute, normalised */
	long long log_max; /* log_max: bytes, -1 = no cap */
	struct wf_kv *vars;
	size_t nvars;
	size_t vars_alloc;
	struct hmap var_index; /* var name -> index in vars */
	char *container;   /* the tasks' default image, NULL: none */
	char *modules;     /* the tasks' default modules, one per line */
	struct wf_task *tasks;
	size_t ntasks;
	struct arena strings; /* the tasks' names, run lines, parameter
				 names and paths */
};

/*
 * Load and check a workflow file.  Returns 0 when the file was read (errors
 * may still be in d: look at d->nerrors), -1 when it could not be read at
 * all (also reported in d).  wf is filled as far as possible either way and
 * must be released with workflow_release().  The file is a regular file or
 * a pipe (then the workdir defaults to the current directory), read up to
 * READ_MAX_WORKFLOW bytes; a device or a directory is refused unread.
 */
int workflow_load(struct workflow *wf, const char *path, struct diags *d);
/* The same from len bytes at buf; path names the file in messages and
 * gives the default workdir and name.  For the fuzz targets and tests. */
int workflow_load_mem(struct workflow *wf, const char *path, const char *buf,
		      size_t len, struct diags *d);
/* How many nodes YAML aliases may add to the document, by repeating
 * what they name (wfrun-workflow(5), LIMITS): an alias bomb is refused,
 * a large file is not. */
#define WF_MAX_ALIAS_NODES ((size_t)10000000)
/* workflow_load_mem() with another such limit, for the tests. */
int workflow_load_mem_limited(struct workflow *wf, const char *path,
			      const char *buf, size_t len, size_t max_alias,
			      struct diags *d);
void workflow_release(struct workflow *wf);

/* Look up a var; NULL if absent. */
const struct wf_kv *workflow_var(const struct workflow *wf, const char *name,
				 size_t len);

const char *wf_access_name(enum wf_access a);

/* Parse "30m", "1h30m", "90s", "45" (seconds); -1 on error. */
double parse_duration(const char *s);
/* Parse "4G", "512M", "100K", "2T", "1024B"; -1 on error. */
long long parse_memory(const char *s);

#endif
