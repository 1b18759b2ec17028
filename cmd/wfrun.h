/*
 * The subcommands of wfrun and what they share: loading a workflow into a
 * plan with every error printed, and the exit statuses of wfrun(1).
 */
#ifndef WFRUN_CMD_H
#define WFRUN_CMD_H

#include "exitcode.h"
#include "expand.h"
#include "workflow.h"

int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_dag(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_report(int argc, char **argv);

/*
 * Load file into wf and p, printing every error as file:line:col.  cores is
 * what the local worker has (tasks asking for more are errors).  Returns 0,
 * or EXIT_USAGE after printing the errors.
 */
int load_plan(const char *file, long cores, struct workflow *wf,
	      struct plan *p);
struct cluster;
/* Load a resources file, printing every error; 0 or EXIT_USAGE. */
int load_cluster(const char *file, struct cluster *c);
/* Load a resources file as a description only (sim: nothing connects). */
int load_cluster_spec(const char *file, struct cluster *c);
/* Print the errors (and warnings) of file; release d; 0 or EXIT_USAGE. */
struct diags;
int report_diags(struct diags *d, const char *file);
/* Parse the argument of --disk-bw (MB/s); prints an error and returns -1
 * when bad. */
double parse_disk_bw(const char *s);
/* Parse the argument of --learn into *paper; prints an error and returns
 * -1 when bad. */
int parse_learn(const char *s, bool *paper);
/* Parse the argument of --io-executors; prints an error and returns -1
 * when bad. */
long parse_io_executors(const char *s);
/* The most cores one worker of c offers (cores when c is NULL); a remote
 * worker whose cores are not given counts as unlimited until it answers. */
long cluster_max_cores(const struct cluster *c, long local);
/* The wfrun-worker beside this binary, to upload to workers. */
char *agent_path(void);
/* The cores of this machine (the CPUs this process may run on). */
long local_cores(void);
/* Parse the argument of -j; prints an error and returns -1 when bad. */
long parse_cores_arg(const char *s);

#endif
