/*
 * cli: what the subcommands of wfrun share — reading their options (the
 * getopt loop, -q and -v, the answer to a bad option, and the options run
 * and sim both take), parsing option values, and loading a workflow and a
 * resources file with every error printed as file:line:col.  Each function
 * that fails prints why and returns EXIT_USAGE (or -1 for a bad value);
 * none exits: the subcommand returns the status to main.
 */
#ifndef WFRUN_CLI_H
#define WFRUN_CLI_H

#include <getopt.h>
#include <stdbool.h>

#include "exitcode.h"
#include "expand.h"
#include "workflow.h"

struct cluster;
struct diags;

/* One option of a subcommand's own: 0, or -1 after printing why arg is
 * bad. */
typedef int (*cli_opt_fn)(int c, const char *arg, void *ctx);

/* What a subcommand takes. */
struct cli_spec {
	const char *shortopts;          /* for getopt_long */
	const struct option *longopts;
	cli_opt_fn fn;                  /* its own options */
	int min, max;                   /* how many operands */
	const char *usage;              /* an error when not */
	/* run and sim: the operand is one workflow file; when it is not, or
	 * when lack(ctx) says what else is missing, that is said in words,
	 * then usage (a line) after it. */
	bool workflow;
	const char *(*lack)(void *ctx);
};

/*
 * Read argv's options as s says: -q and -v set log_level, every other
 * option goes to s->fn(ctx); then check the operands.  0 with optind at the
 * first operand, or EXIT_USAGE after an error (an unknown option: "Try
 * 'wfrun COMMAND --help'.").
 */
int cli_parse(int argc, char **argv, const struct cli_spec *s, void *ctx);
/* The command being run ("run" by default; main sets it), for "Try
 * 'wfrun COMMAND --help'." */
extern const char *cli_command;

/* The options run and sim both take, stored through these pointers. */
struct cli_shared {
	long *cores;            /* -j, --cores */
	const char **resources; /* -r, --resources */
	long *io_executors;     /* --io-executors */
	double *disk_bw;        /* --disk-bw */
	bool *no_io;            /* --no-io */
	bool *learn_paper;      /* --learn */
	bool *no_preempt;       /* --no-preempt */
};
/* The cli_shared of o (a struct runner_opts or sim_opts) and resources. */
#define CLI_SHARED(o, resources)                                           \
	{ &(o).cores, &(resources), &(o).io_executors, &(o).disk_bw,       \
	  &(o).no_io, &(o).learn_paper, &(o).no_preempt }
/* The long options of struct cli_shared (and -j, -r) map to these. */
enum {
	CLI_IO_EXECUTORS = 'I',
	CLI_DISK_BW = 'D',
	CLI_NO_IO = 'B',
	CLI_LEARN = 'P',
	CLI_NO_PREEMPT = 'W',
	CLI_MEMORY = 0x100,      /* --memory SIZE (kept in cli.c) */
	CLI_SCALE_CORES = 0x101, /* --scale-cores (kept in cli.c) */
};
/* --set NAME=VALUE and --vars FILE (repeatable), for every subcommand
 * that loads a workflow: cli_parse keeps them, load_plan applies them
 * (wfrun-workflow(5), VARS). */
enum { CLI_SET = 0x7301, CLI_VARS = 0x7302 };
#define CLI_VARS_OPTIONS                                                   \
	{ "set", required_argument, NULL, CLI_SET },                       \
	{ "vars", required_argument, NULL, CLI_VARS }
/* The memory of this machine's worker: --memory, or what the machine
 * gives (contain_memory); 0: not known, not limited. */
long long cli_memory(void);
/* --scale-cores was given. */
bool cli_scale_cores(void);
/* A cli_opt_fn for the options of struct cli_shared (ctx): 0 or -1; 1
 * when c is not one of them. */
int cli_shared_opt(int c, const char *arg, void *ctx);
/* --container-engine ENGINE (NULL: not given): 0 when it names one,
 * else EXIT_USAGE said (checked after the options: --help comes first). */
int cli_container_engine(const char *engine);

/*
 * Load resources (when not NULL) into c, then file into wf and p, with the
 * most cores a worker offers as the limit (cores: this machine's).  spec:
 * the resources are only a description (sim: nothing connects), so a mix
 * of shared and staged workers is not an error.  trace: the run's --trace
 * file, or NULL; no task may write it, the events file beside it, nor the
 * resources file.  0 or EXIT_USAGE; release c, wf and p in either case.
 */
/* As resources: the workers are the nodes of the Slurm allocation this
 * process runs in (run --slurm), not a file's. */
extern const char cli_slurm[];
int cli_load(const char *resources, bool spec, const char *file,
	     const char *trace, long cores, struct cluster *c,
	     struct workflow *wf, struct plan *p);
/* run --slurm -r FILE: FILE's <slurm lost-after> for every node of c (the
 * allocation's); FILE must have a <slurm> and no <worker>.  0 or
 * EXIT_USAGE with every error printed. */
int cli_slurm_file(const char *file, struct cluster *c);

/*
 * Load file into wf and p, printing every error as file:line:col.  cores is
 * what the local worker has (tasks asking for more are errors).  Returns 0,
 * or EXIT_USAGE after printing the errors.
 */
int load_plan(const char *file, long cores, struct workflow *wf,
	      struct plan *p);
/* The same, no task writing any of the n files (what names each). */
int load_plan_guarded(const char *file, long cores, struct workflow *wf,
		      struct plan *p, const char *const *files,
		      const char *const *what, size_t n);
/* Print the errors (and warnings) of file; release d; 0 or EXIT_USAGE. */
int report_diags(struct diags *d, const char *file);
/* Parse the argument of -j; prints an error and returns -1 when bad. */
long parse_cores_arg(const char *s);
/* The wfrun-worker beside this binary, to upload to workers. */
char *agent_path(void);
/* The --memory and --scale-cores entries of a subcommand's options. */
#define CLI_RESOURCE_OPTS                                                  \
	{ "memory", required_argument, NULL, CLI_MEMORY },                 \
	{ "scale-cores", no_argument, NULL, CLI_SCALE_CORES }
/* The cores of this machine (the CPUs this process may run on). */
long local_cores(void);

#endif
