/*
 * dag: the task graph derived from data accesses in program order, as
 * COMPSs derives it from a sequential program.  It owns the data (one datum
 * per normalised path, arranged in a tree of known paths so a directory
 * collection finds its elements), the task instances, their accesses, the
 * edges (RAW, WAR, WAW, deduplicated), and at run time the count of
 * unfinished predecessors of each task.  It is pure: no file system, no
 * clock.  expand.c feeds it; the runner drains it.
 *
 * Building: for each task in program order, dag_add_task(), then
 * dag_add_access() for each datum it touches, then dag_seal_task().  Reads
 * of a task are resolved before its writes, so an INOUT is a read then a
 * write.  dag_finalize() then builds the successor lists.
 */
#ifndef WFRUN_DAG_H
#define WFRUN_DAG_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

#define DAG_NONE UINT32_MAX

enum { DAG_READ = 1, DAG_WRITE = 2 };

/* Datum flags */
enum {
	DATUM_SCANNED = 1,   /* its directory was read from disk */
	DATUM_INPUT = 2,     /* read with no writer: must exist at start */
	DATUM_ON_DISK = 4,   /* seen on disk by a scan */
	DATUM_DIR_MADE = 8,  /* the runner created it as a directory */
	DATUM_COLLECTION = 16, /* accessed as a directory collection */
	DATUM_LINK = 32,       /* a scan found it a symbolic link */
	DATUM_HOLDS_LINK = 64, /* a symbolic link lies below it */
};

struct dag_datum {
	const char *path;      /* normalised, relative to workdir or absolute */
	uint32_t len;
	uint32_t parent;       /* datum of the parent directory, or DAG_NONE */
	uint32_t first_child;  /* the tree of known paths */
	uint32_t next_sibling;
	uint32_t writer;       /* last task that wrote this path itself */
	uint32_t readers;      /* reader list since that write (node index) */
	uint32_t flags;
};

struct dag_access {
	uint32_t datum;
	uint16_t param;  /* index of the task template's parameter */
	uint8_t mode;    /* DAG_READ | DAG_WRITE */
	uint8_t is_dir;  /* a directory collection */
	uint16_t depth;  /* for directory collections */
};

enum dag_state {
	TASK_WAITING,
	TASK_READY,
	TASK_RUNNING,
	TASK_DONE,
	TASK_FAILED,
	TASK_CANCELLED, /* downstream of a failure: never runs */
	TASK_LEFT_OUT,  /* not needed by what the run asks for (select.h):
			   never runs, never becomes ready */
};

struct dag_task {
	uint32_t tmpl;      /* index of the workflow task it instantiates */
	uint32_t bind;      /* offset of its foreach values in dag.binds */
	uint32_t acc;       /* offset of its accesses in dag.acc */
	uint32_t nacc;
	uint32_t waiting;   /* predecessors not yet done (after finalize) */
	uint8_t state;
};

/* The first task that reads each input datum, for error messages. */
struct dag_input {
	uint32_t datum, task;
	uint16_t param;
};

struct dag {
	struct arena arena;           /* path strings (and the plan's
					 compiled templates) */
	struct hmap paths;            /* path -> datum index */
	VEC(struct dag_datum) data;
	VEC(struct dag_task) tasks;
	VEC(struct dag_access) acc;
	VEC(const char *) binds;      /* foreach values (arena strings) */
	VEC(struct dag_input) inputs; /* data that must exist at start */
	size_t nedges;
	/* build state */
	VEC(uint32_t) edge_from;
	VEC(uint32_t) edge_to;
	VEC(uint64_t) rnodes;         /* reader list: task << 32 | next */
	VEC(uint32_t) stamp;          /* last successor given an edge */
	VEC(uint32_t) mark;           /* per datum: task + 1 (dag_alias) */
	VEC(uint32_t) mark_acc;       /* per datum: that task's access */
	/* after finalize: successors in CSR form */
	uint32_t *succ_off;
	uint32_t *succ;
	bool open;  /* tasks may be appended after finalize (a foreach
		       expanded at run time): the build state is kept */
};

void dag_init(struct dag *d);
void dag_release(struct dag *d);

/* The datum for a normalised path (created with its parents if new). */
uint32_t dag_intern(struct dag *d, const char *path, size_t len);
/* The datum for path if known, else DAG_NONE. */
uint32_t dag_lookup(const struct dag *d, const char *path, size_t len);

uint32_t dag_add_task(struct dag *d, uint32_t tmpl);
void dag_add_bind(struct dag *d, const char *value);
void dag_add_access(struct dag *d, uint32_t task, uint32_t datum, int mode,
		    bool is_dir, unsigned depth, unsigned param);
/*
 * Do two accesses of task t (added, not yet sealed) name one datum, or
 * one lie in a directory collection of the other, with either of them
 * a write?  Then *i and *j are their indices among t's accesses (*j
 * the one found to clash with *i) and true is returned.  Linear in the
 * accesses' path depths.
 */
bool dag_alias(struct dag *d, uint32_t t, uint32_t *i, uint32_t *j);
/* Compute the edges of the task just added. */
void dag_seal_task(struct dag *d, uint32_t task);
void dag_finalize(struct dag *d);
/*
 * Appending after dag_finalize (d->open set before it): tasks from
 * first on were added and sealed as before, their edges found from the
 * same data state, so program order holds across the two.  The
 * successor lists are made again with their edges; an edge from a task
 * already done counts as satisfied.  The new tasks are READY or
 * WAITING.  O(edges): the lists are one array.
 */
void dag_extend(struct dag *d, uint32_t first);
/* Nothing more will be appended: the build state goes. */
void dag_close(struct dag *d);

/* The datum after y in a walk of the known paths below root (start at
 * root's first_child), or DAG_NONE at the end. */
uint32_t dag_next_descendant(const struct dag *d, uint32_t root, uint32_t y);

/* The task that last wrote path (itself or as part of a collection
 * written whole) before the tasks added so far, or DAG_NONE. */
uint32_t dag_latest_writer(const struct dag *d, uint32_t datum);

/* The accesses of a task; NULL when it has none (acc.v may be NULL, and
 * NULL + 0 is undefined behaviour). */
static inline const struct dag_access *
dag_task_acc(const struct dag *d, const struct dag_task *t)
{
	return t->nacc ? d->acc.v + t->acc : NULL;
}

static inline uint32_t
dag_nsucc(const struct dag *d, uint32_t t)
{
	return d->succ_off[t + 1] - d->succ_off[t];
}

/* Does t write only plain files it makes (OUT), nothing it also reads
 * (INOUT) and no directory?  Then stopping it and running it again
 * loses nothing: the next attempt writes them anew. */
bool dag_out_only(const struct dag *d, uint32_t t);

/* Mark t done; append successors that became ready to *ready. */
void dag_complete(struct dag *d, uint32_t t, uint32_t **ready, size_t *nready,
		  size_t *alloc);

#endif
