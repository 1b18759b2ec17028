/*
 * resources: the resources file (wfrun-resources(5)), read with libxml2
 * and validated against resources/wfrun-resources.xsd, which is compiled
 * into the binary so that an uninstalled wfrun validates exactly like an
 * installed one.  This is the only file that includes libxml2.  It fills a
 * struct cluster and reports every problem as file:line:col in a diags
 * list; it never connects anywhere.
 */
#ifndef WFRUN_RESOURCES_H
#define WFRUN_RESOURCES_H

#include <stdbool.h>

#include "workflow.h"

struct storage_spec {
	char *name;
	double bandwidth; /* MB/s */
	unsigned line;
};

struct worker_spec {
	char *name;
	char *host;
	int port;
	char *user;          /* NULL: $USER, else this user's name */
	char *container_engine; /* NULL: --container-engine or the first
				   found (swenv.h) */
	bool local;          /* host is localhost: runs in-process, no SSH */
	long cores;          /* 0: detected (local CPUs, or the agent's) */
	long long memory;    /* bytes, 0: not given */
	long io_executors;   /* 0: default */
	double disk_bw;      /* MB/s, 0: not given */
	char *workdir;       /* NULL: the workflow's workdir (local only) */
	bool shared;         /* the workdir is the master's, same paths */
	bool srun;           /* a node of the Slurm allocation wfrun runs in:
				its agent is a job step (slurm.h) */
	bool slurm_jobs;     /* stands for the jobs of <slurm submit="jobs">
				(slurm_jobs.h): each task is a job of its
				own, its cores and memory its own */
	char *storage;       /* the <storage> a shared workdir lives on */
	char *identity;      /* absolute (~ expanded, relative to the
				resources file); NULL: ssh-agent, defaults */
	char *known_hosts;   /* likewise */
	int keepalive;       /* seconds, 0: off */
	int timeout;         /* seconds for connect and login */
	int lost_after;      /* seconds of the agent's silence: lost; 0 off */
	unsigned line;
};

/* <slurm>: where wfrun asks Slurm for nodes or jobs itself, from a login
 * node (wfrun-resources(5), SLURM).  NULL strings: Slurm's default. */
struct slurm_spec {
	char *partition;
	char *account;
	char *qos;
	char *time;          /* sbatch --time, as written */
	long max_nodes;      /* nodes held at once (submit="nodes") */
	long cores_per_node; /* 0: what the partition's nodes have */
	char *memory;        /* sbatch --mem per node, as written */
	int idle;            /* seconds a node stays idle before given back */
	int lost_after;      /* seconds of an agent's silence: node lost */
	bool jobs;           /* submit="jobs": one sbatch job per instance */
	long max_jobs;       /* submit="jobs": in the queue at once */
	int poll;            /* submit="jobs": seconds between squeue calls */
	struct strvec options; /* <option> words, given to sbatch as they are */
	unsigned line;
	/* not in the file: what Slurm says of the partition's nodes
	 * (slurm_partition_get; 0: not asked) */
	long node_cpus, node_mem_mb;
};

struct cluster {
	char *file;
	struct slurm_spec *slurm; /* NULL: no <slurm> */
	struct worker_spec *workers;
	size_t nworkers;
	struct storage_spec *storages;
	size_t nstorages;
};

/* Returns 0 when d holds no new error.  Release the cluster either way. */
int resources_load(struct cluster *c, const char *path, struct diags *d);
/* The same from len bytes at buf (path names it in messages and anchors
 * relative paths).  For the fuzz target and tests. */
int resources_load_mem(struct cluster *c, const char *path, const char *buf,
		       size_t len, struct diags *d);
void resources_release(struct cluster *c);
/* "~/x" -> "$HOME/x"; a new string. */
char *expand_tilde(const char *p);

#endif
