/*
 * slurm_jobs: the executor of <slurm submit="jobs"> (wfrun-resources(5),
 * SLURM): each task instance is one Slurm batch job in the master's
 * (shared) workdir.  It owns the jobs of the run in Slurm's queue, the
 * sbatch, squeue, scontrol and scancel children that submit, watch and
 * cancel them (started from the loop, never waited for in it), and the
 * files of .wfrun/slurm/ that the jobs read and write: one script per
 * instance that runs its command as the runner renders it, and the status
 * file the job writes at its end (exit status, start and end times, node),
 * so that no accounting (sacct) is needed.
 *
 * Instances handed over in one loop round with the same name and
 * resources go as one job array (one sbatch); the state of every job of
 * the run comes from one squeue per poll interval.  It never decides
 * where or when a task runs (place.c gives it at most max_jobs at once).
 */
#ifndef WFRUN_SLURM_JOBS_H
#define WFRUN_SLURM_JOBS_H

#include "exec.h"

struct cluster;
struct slurm_spec;

/* The worker that stands for the jobs of a <slurm submit="jobs">, added
 * to c (its name "slurm"; slurm_jobs set). */
void slurm_jobs_add_worker(struct cluster *c);

/* The executor: ready at once; s is borrowed (it must outlive the exec);
 * workdir is the master's cwd (absolute), where the jobs run. */
struct exec *slurm_jobs_new(const struct slurm_spec *s, const char *workdir,
			    struct loop *loop, exec_done_fn done, void *arg);

#endif
