/*
 * workflow: the workflow file as the user wrote it.  workflow_load() reads a
 * YAML file with libyaml's event parser (this is the only file that
 * includes yaml.h) into a compact tree freed once read, checks keys, types
 * and values, and fills a struct workflow of *templates*:
 * strings still hold their {placeholders}, foreach keys are not expanded.
 * Every error goes to a diags list with the file, line and column of the
 * offending node, so one run reports all of them.  expand.c turns templates
 * into task instances.  It also reads the files the workflow includes
 * (include:, depth first: every file's vars before any task, the tasks in
 * program order) and the vars' values given from outside (--vars FILE,
 * --set NAME=VALUE: struct wf_settings), each error in the file it is in.
 */
#ifndef WFRUN_WORKFLOW_H
#define WFRUN_WORKFLOW_H

#include <stdbool.h>
#include <stdio.h>

#include "util.h"

/* 1-based line and column; 0 when unknown.  8 bytes: one per node, so
 * the index of the file among the diags' (0: the one diags_init named,
 * others from diags_file(); an error in an included file names it) is in
 * col's top bits: { line, col } alone is a place in file 0.  Read them
 * with WF_LOC_COL and WF_LOC_FILE, make one with wf_loc_at(). */
#define WF_MAX_FILES 4095
#define WF_MAX_COL 0xfffffu /* a column beyond is said as this one */
#define WF_LOC_COL(l) ((l).col & WF_MAX_COL)
#define WF_LOC_FILE(l) ((l).col >> 20)
struct wf_loc {
	unsigned line, col;
};
static inline struct wf_loc
wf_loc_at(unsigned line, unsigned long col, unsigned file)
{
	struct wf_loc l = { line, (col < WF_MAX_COL ? (unsigned)col
						    : WF_MAX_COL) |
					  (file & WF_MAX_FILES) << 20 };
	return l;
}

/* Diagnostics: errors and warnings with a location, printed sorted. */
struct diag {
	char *msg;
	struct wf_loc loc;
	bool warning;
	char *file; /* NULL: the diags' file; else another (a sheet) */
};
struct diags {
	const char *file; /* not owned */
	VEC(struct diag) list;
	size_t nerrors;
	VEC(char *) files; /* files 1..: names of the other files */
};
void diags_init(struct diags *d, const char *file);
/* The index of name among d's files (added when new), for wf_loc.file;
 * 0 when it is d->file. */
unsigned diags_file(struct diags *d, const char *name);
/* The name of file index i. */
const char *diags_file_name(const struct diags *d, unsigned i);
void diags_release(struct diags *d);
void diag_error(struct diags *d, struct wf_loc loc, const char *fmt, ...)
	PRINTF(3, 4);
void diag_warning(struct diags *d, struct wf_loc loc, const char *fmt, ...)
	PRINTF(3, 4);
/* An error in another file than the workflow (a sample sheet); printed
 * after the workflow's own, by file and position; with col 0 as
 * "file:line: error: msg". */
void diag_error_in(struct diags *d, const char *file, struct wf_loc loc,
		   const char *fmt, ...) PRINTF(4, 5);
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

enum wf_iter_kind { WF_ITER_RANGE, WF_ITER_LIST, WF_ITER_GLOB, WF_ITER_TABLE,
		   WF_ITER_VAR, WF_ITER_LINES };

/* A row filter of a table: column col holds one of vals. */
struct wf_where {
	char *col;
	char **vals;
	size_t nvals;
	struct wf_loc loc;  /* of col */
};

enum wf_table_format { WF_TABLE_AUTO, WF_TABLE_TSV, WF_TABLE_CSV };

/* {table: P, format: F, key: K, where: {COL: V, ...}}: one value per row
 * of a sample sheet (expand.c reads it, sheet.c parses it). */
struct wf_table {
	char *path;                  /* a path template: vars only */
	struct wf_loc loc;           /* of the path */
	enum wf_table_format format; /* AUTO: by the path's extension */
	struct wf_loc format_loc;
	char *key;                   /* the key column; NULL: the first */
	struct wf_loc key_loc;
	struct wf_where *where;      /* every one must hold */
	size_t nwhere;
};

/* One foreach key: "lo..hi" (integer expressions), a list, a glob, a
 * table, or the items of a list var ({var: NAME}). */
struct wf_iter {
	char *name;
	enum wf_iter_kind kind;
	char *lo, *hi;      /* RANGE: templates of integer expressions */
	char **items;       /* LIST */
	struct wf_loc *item_locs;
	size_t nitems;
	char *glob;         /* GLOB: a path template; LINES: the file's */
	char *var;          /* VAR: the name of a list var */
	struct wf_table *table; /* TABLE */
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
	bool temp;              /* FILE: {temp: P}, removed once read (in
				   the padding after kind) */
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

/* log: where a task's logs go instead of .wfrun/logs (path templates). */
struct wf_log {
	char *out, *err;
	struct wf_loc loc;
};

struct wf_task {
	char *name;
	struct wf_loc loc;
	struct wf_foreach foreach;
	struct wf_param *params;
	size_t nparams;
	long cores;                 /* >= 1; 0 for I/O tasks; with
				       cores: {max, min}, the max (then
				       what it was scaled down to) */
	long cores_min;             /* cores: {min}; 0: plain cores: N */
	bool cores_scaled;          /* cores was lowered to a worker's */
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
	struct wf_log *log;         /* NULL: .wfrun/logs (logname.h) */
	char *run;
	struct wf_loc run_loc;
	struct wf_loc cores_loc;
	struct wf_loc memory_loc;
	/* software environment (swenv.h): after loading, the image or NULL
	 * (none), and the modules, one per line, or NULL */
	char *container;
	char *modules;
	bool network;               /* the container may use the network */
};

/* What a task's stdout or stderr log keeps unless log_max says. */
#define WF_LOG_MAX_DEFAULT ((long long)64 << 20)

/* Where a var's value comes from: the workflow's files, --vars FILE,
 * --set NAME=VALUE (wfrun check says). */
enum wf_var_from { WF_FROM_FILE, WF_FROM_VARS, WF_FROM_SET };

/* What a var holds beyond its text, parallel to workflow.vars. */
struct wf_var_ext {
	char *items;           /* a list: each item followed by a NUL (and
				  kv.val the items joined by spaces);
				  NULL: a scalar */
	uint32_t items_len, nitems;
	struct wf_loc from_loc; /* FILE: kv.loc; VARS: in that file */
	uint8_t from;           /* enum wf_var_from */
};

/* Values for vars from outside the workflow: --vars FILE (in order),
 * then --set NAME=VALUE (in order); a later one wins. */
struct wf_settings {
	const char *const *vars_files;
	size_t nvars_files;
	const char *const *set;  /* "NAME=VALUE" */
	size_t nset;
};

/* A repeat block (wfrun-workflow(5), REPEAT): tasks [from, to) run
 * once per iteration, with the implicit foreach keys iter (1, 2, ...)
 * and prev (iter - 1) first, until the until command exits 0 or max
 * iterations have run. */
struct wf_repeat {
	size_t from, to;
	char *until;      /* a shell command template: iter, prev, vars */
	struct wf_loc loc, until_loc;
	long max;
};

struct workflow {
	char *file;      /* as given on the command line */
	char *name;
	char *workdir;   /* absolute, normalised */
	long long log_max; /* log_max: bytes, -1 = no cap */
	struct wf_kv *vars;
	size_t nvars;
	size_t vars_alloc;
	struct hmap var_index; /* var name -> index in vars */
	struct wf_var_ext *var_ext; /* parallel to vars */
	VEC(char *) files; /* file index (wf_loc.file) -> its name; [0]: file */
	char *container;   /* the tasks' default image, NULL: none */
	char *modules;     /* the tasks' default modules, one per line */
	struct wf_task *tasks;
	size_t ntasks;
	struct wf_repeat *repeats; /* in task order */
	size_t nrepeats;
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
/* The repeat block holding task i, or NULL. */
const struct wf_repeat *workflow_repeat_of(const struct workflow *wf,
					   size_t i);
/* The same with the vars of set (NULL: none) over the file's. */
int workflow_load_set(struct workflow *wf, const char *path,
		      const struct wf_settings *set, struct diags *d);
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
/* The rest of var v (one of wf->vars). */
const struct wf_var_ext *workflow_var_ext(const struct workflow *wf,
					  const struct wf_kv *v);

const char *wf_access_name(enum wf_access a);
/* Whether d is {temp: PATH}, or a list collection of such files. */
bool wf_data_temp(const struct wf_data *d);

/* Parse "30m", "1h30m", "90s", "45" (seconds); -1 on error. */
double parse_duration(const char *s);
/* Parse "4G", "512M", "100K", "2T", "1024B"; -1 on error. */
long long parse_memory(const char *s);

#endif
