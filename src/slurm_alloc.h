/*
 * slurm_alloc: the nodes a run asks Slurm for itself, from a login node
 * (<slurm>, submit="nodes").  It owns the jobs it made: one sbatch job
 * per node (`sbatch --parsable --nodes=1 --exclusive --wrap 'exec sleep
 * infinity'`, named after the run), what Slurm says of them, and their
 * end.  Every Slurm command runs as a child process watched by the
 * caller's loop: nothing here blocks the loop, except slurm_alloc_release
 * (the run is over) and the startup helpers.  The state of all pending
 * jobs comes from one squeue per poll interval, never one per job.
 *
 * It starts no agent and knows no task: when a job runs, ops.up tells the
 * caller its node and CPUs (the runner then starts wfrun-worker there
 * with `srun --jobid=J --overlap`: slurm_agent_argv); the caller says how
 * many cores its waiting tasks want (slurm_alloc_want) and which node it
 * gives back (slurm_alloc_give_back).
 *
 * The job ids are also written, as they come, to a record file, so that
 * when the master is killed (SIGKILL) the next run in the workdir cancels
 * what was left (slurm_alloc_clean).  The record is shared with the jobs
 * of <slurm submit="jobs"> (slurm_jobs.c), which write their arrays' ids
 * there with slurm_record_job.
 */
#ifndef WFRUN_SLURM_ALLOC_H
#define WFRUN_SLURM_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

#include "loop.h"
#include "util.h"

struct slurm_spec;
struct slurm_cmd;

enum slurm_node_state {
	SLURM_SUBMITTING,   /* sbatch runs */
	SLURM_PENDING,      /* in the queue */
	SLURM_RUNNING,      /* granted: ops.up was called */
	SLURM_GONE,         /* ended, cancelled or never made */
};

/* One job of the run: one node. */
struct slurm_node {
	char *job;               /* its id, NULL while sbatch runs */
	char *node;              /* its node, once running */
	long cores;              /* its CPUs, once running */
	enum slurm_node_state state;
	struct slurm_cmd *cmd;   /* its sbatch or scancel, while it runs */
	struct slurm_alloc *alloc;
	/* the caller's */
	size_t wi;
	double idle_since;
};

struct slurm_alloc_ops {
	/* n's job runs on n->node with n->cores CPUs. */
	void (*up)(void *arg, struct slurm_node *n);
	/* Slurm refused something: msg says what it said. */
	void (*error)(void *arg, const char *msg);
	void *arg;
};

struct slurm_alloc {
	const struct slurm_spec *spec;
	char *name;              /* the jobs' name */
	char *record;            /* the file of their ids */
	long node_cores;         /* the CPUs a node is expected to have */
	struct loop *loop;
	struct slurm_alloc_ops ops;
	VEC(struct slurm_node *) nodes;
	struct slurm_cmd *squeue;
	struct loop_timer poll;
	double interval;         /* seconds between two squeue */
	bool refused;            /* an sbatch failed: ask no more */
	bool closing;            /* in slurm_alloc_release */
};

/* What a partition offers. */
struct slurm_partition {
	char *name;              /* the one asked, or the default one */
	long cpus;               /* the most CPUs of one of its nodes */
	long mem_mb;             /* the most memory of one of its nodes */
};

/* Look partition (NULL: the default) up with scontrol and sinfo, waiting
 * for them: -1 with err saying what Slurm said (or that its commands are
 * missing).  Release with slurm_partition_release. */
int slurm_partition_get(const char *partition, struct slurm_partition *pi,
			struct errbuf *err);
void slurm_partition_release(struct slurm_partition *pi);

/* Pure parsers, for the above and the tests.  From `scontrol show
 * partition` text: the name of partition want (NULL: the one with
 * Default=YES), new string, or NULL. */
char *slurm_parse_partition(const char *text, const char *want);
/* From `sinfo -h -N -o '%c %m'` text: the most CPUs and memory (MB) of
 * a node; -1 when text holds no node. */
int slurm_parse_sinfo(const char *text, long *cpus, long *mem_mb);
/* One `squeue -o '%i %T %N %C'` line: its job id, state, node and CPUs
 * (pointers into the line, which is cut); -1 when malformed. */
int slurm_parse_squeue(char *line, char **id, char **state, char **node,
		       long *cpus);
/* Slurm's size ("4000", "4G", "2T"...) in MB, or -1. */
long slurm_parse_mem(const char *s);
/* The sbatch argv for one node of spec, job named name (NULL-terminated,
 * new strings: slurm_argv_free). */
char **slurm_sbatch_argv(const struct slurm_spec *spec, const char *name);

/* Set up for spec, jobs named name, ids recorded in record; node_cores:
 * the CPUs a node is expected to have. */
void slurm_alloc_init(struct slurm_alloc *a, const struct slurm_spec *spec,
		      const char *name, const char *record, long node_cores,
		      struct loop *loop, const struct slurm_alloc_ops *ops);
/* Waiting tasks want cores more than the free ones: ask for the nodes
 * they need, counting those asked for and not granted yet, up to
 * max-nodes held at once. */
void slurm_alloc_want(struct slurm_alloc *a, long cores);
/* Nodes asked for and not granted yet. */
size_t slurm_alloc_coming(const struct slurm_alloc *a);
/* For the loop's SIGCHLD: reap the commands that ended. */
void slurm_alloc_on_sigchld(struct slurm_alloc *a);
/* The caller is done with n (its agent ended): cancel its job. */
void slurm_alloc_give_back(struct slurm_alloc *a, struct slurm_node *n);
/* Cancel every job of the run, pending ones included, waiting for the
 * commands (boundedly; less in a hurry: a second Ctrl-C); then free
 * everything and remove the record. */
void slurm_alloc_release(struct slurm_alloc *a, bool hurry);

/* The record of a run's Slurm jobs, under the workdir: one job id a line
 * (a node's job, or a job array of submit="jobs"), appended as each
 * sbatch answers, removed when the run has cancelled them all. */
#define SLURM_RECORD ".wfrun/slurm-jobs"

/* Append job id to record (a file name as SLURM_RECORD). */
void slurm_record_job(const char *record, const char *id);

/* Cancel the jobs a killed run recorded in record, if any, wait until
 * they have left the queue (a bounded time: their processes are gone
 * then), and remove it: 0, or -1 with err when scancel said why not. */
int slurm_alloc_clean(const char *record, struct errbuf *err);

#endif
