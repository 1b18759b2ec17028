/*
 * slurm: what a Slurm allocation says about itself, read from the
 * environment Slurm gives a job (salloc, sbatch): its nodes
 * (SLURM_JOB_NODELIST, a hostlist such as "n[1-3,7],gpu01") and the CPUs
 * it has on each (SLURM_JOB_CPUS_PER_NODE, such as "4(x3),2"), expanded as
 * Slurm writes them, and the workers a run inside it has: one agent per
 * node, started as a job step (`srun -N1 -n1 -w NODE wfrun-worker`),
 * sharing the master's workdir.  It runs nothing itself.
 */
#ifndef WFRUN_SLURM_H
#define WFRUN_SLURM_H

#include <stddef.h>

#include "util.h"

struct cluster;

/* Append the host names of hostlist s to out (new strings, the caller's
 * to free), in Slurm's order.  -1 with err on a malformed list. */
int slurm_hostlist(const char *s, struct strvec *out, struct errbuf *err);

/* The CPUs of each of n nodes from s ("4(x3),2"): -1 with err when s is
 * malformed or does not count exactly n nodes. */
int slurm_cpus(const char *s, size_t n, long *out, struct errbuf *err);

/* Fill c (zeroed by the caller) with one worker per node of the
 * allocation this process runs in, from the environment: -1 with err
 * (saying what is missing or wrong) when there is none.  c->file is
 * "the Slurm allocation N" for messages.  Release with
 * resources_release. */
int slurm_cluster_from_env(struct cluster *c, struct errbuf *err);

/* The argv (NULL-terminated, new strings: strvec_free-able as a strvec
 * plus the NULL) that starts agent on node with cores CPUs as a job step
 * of the allocation: the one this process runs in (job NULL), or job
 * (one that wfrun asked for: slurm_alloc.h). */
char **slurm_agent_argv(const char *node, long cores, const char *agent,
			const char *job);
void slurm_argv_free(char **argv);

#endif
