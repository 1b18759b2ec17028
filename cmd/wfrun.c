/*
 * wfrun: main(), the subcommand table and the help of each subcommand.
 * `wfrun FILE` is `wfrun run FILE`; `wfrun SUB --help` prints SUB's help,
 * `wfrun --help` the commands and run's options.  A word that is not a
 * command, not an existing file and close to a command's name is taken
 * for a misspelt command, not for a workflow file.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "history.h"
#include "util.h"
#include "wfrun.h"

/* The option lines of the helps, one option each ("-x, --long ARG"
 * in the first column; an ARG of A|B names the values; FILE, TASK a
 * file or task name): those run and sim share are written once. */
#define H_CORES \
	"  -j, --cores N      use N cores (default: all of this machine)\n"
#define H_IO_EXECUTORS \
	"      --io-executors N  I/O tasks (io: true) this machine runs at\n" \
	"                     once beside compute (default: two per core)\n"
#define H_NO_IO \
	"      --no-io        run I/O tasks as 1-core compute tasks (baseline)\n"
#define H_DISK_BW \
	"      --disk-bw MBPS this machine's disk bandwidth, for storage_bw\n"
#define H_LEARN \
	"      --learn climb|paper  how storage_bw: auto learns: from one\n" \
	"                     writer up (default), or the paper's way, from\n" \
	"                     every I/O executor down (wfrun-workflow(5))\n"
#define H_NO_PREEMPT \
	"      --no-preempt   never stop running I/O tasks when a learned\n" \
	"                     storage_bw: auto corrects its first guess\n"
#define H_VARS \
	"      --set NAME=VALUE  give var NAME that value for this run (a\n" \
	"                     list var: items between commas); repeatable\n" \
	"      --vars FILE    vars' values from a YAML file of NAME: VALUE\n" \
	"                     (--set wins)\n"
#define H_RESOURCES \
	"      --memory SIZE  this machine's memory that tasks reserve (default:\n" \
	"                     MemTotal, or its cgroup's limit)\n" \
	"      --scale-cores  give a task asking for more cores than any worker\n" \
	"                     has the most one has\n"
#define H_QUIET "  -q, --quiet        print only errors\n"
#define H_VERBOSE \
	"  -v, --verbose      print each task as it starts and ends\n"
#define H_HELP "  -h, --help         show this help\n"
#define H_ENGINE                                                           \
	"      --container-engine ENGINE  docker, podman, apptainer or\n"   \
	"                     singularity for tasks with container: (default:\n" \
	"                     the worker's, else the first found there)\n"

static const char run_opts[] =
	H_CORES
	"  -n, --dry-run      print the commands in a valid order, run nothing\n"
	"  -k, --keep-going   after a failure, run what does not depend on it\n"
	"                     (on_failure: cancel_successors for every task)\n"
	"      --reason       with -n: say why each task would run\n"
	"  TARGET...          run only what these need: files or directories\n"
	"                     (relative to the current directory) and what\n"
	"                     writes them, or task names (NAME[KEY=VALUE]:\n"
	"                     one instance), with the tasks they depend on\n"
	"      --until TASK   run the tasks written up to TASK, and its\n"
	"                     instances; none after it\n"
	"      --list         list the tasks, as wfrun list does\n"
	"      --force TASK   rerun every instance of TASK (and what depends\n"
	"                     on it) even if up to date; repeatable\n"
	"      --forceall     rerun every task, as if no earlier run (the\n"
	"                     originals of inputs updated in place back first)\n"
	"      --keep-temp    keep temp outputs ({temp: PATH}) once read\n"
	H_VARS
	"  -r, --resources FILE  run on the workers of a resources file\n"
	"                     (wfrun-resources(5)); with <slurm>, on nodes\n"
	"                     wfrun asks Slurm for\n"
	"      --slurm        inside a Slurm allocation (salloc, sbatch): run\n"
	"                     on its nodes, an agent per node as a job step\n"
	"                     (-r FILE: only its <slurm lost-after>)\n"
	H_IO_EXECUTORS
	H_NO_IO
	H_DISK_BW
	"                     (default: measured once, kept in .wfrun/disk_bw)\n"
	"      --relearn      forget what storage_bw: auto learned before\n"
	H_LEARN
	H_NO_PREEMPT
	H_RESOURCES
	"      --accept-new-host-keys  add unknown SSH host keys to\n"
	"                     known_hosts (changed keys are always refused)\n"
	"      --fetch all|final|none  outputs of workers whose workdir is\n"
	"                     not shared brought back to the workdir: every\n"
	"                     file a task wrote (default), those no task\n"
	"                     reads, or none (see .wfrun/data.tsv)\n"
	"      --trace FILE   write the trace there (default:\n"
	"                     WORKDIR/.wfrun/trace.tsv)\n"
	H_ENGINE
	H_QUIET H_VERBOSE H_HELP;

static const char check_opts[] =
	"  -j, --cores N      a task asking for more than N cores is an error\n"
	"                     (default: all of this machine)\n"
	"  -r, --resources FILE  validate a resources file too, check the\n"
	"                     cores of each task against its largest worker\n"
	"                     and list its workers\n"
	H_RESOURCES
	H_VARS
	"  -q, --quiet        print only errors (the exit status tells)\n"
	H_ENGINE
	"                     (check: asks it for each image, once)\n"
	H_VERBOSE H_HELP;

static const char dag_opts[] =
	"      --names        one node per task name, not per instance\n"
	"      --format dot|mermaid  Graphviz dot (default) or a Mermaid\n"
	"                     flowchart\n"
	H_VARS
	H_QUIET H_VERBOSE H_HELP;

static const char list_opts[] =
	"      --names        only the task names, one a line\n"
	H_VARS
	H_QUIET H_VERBOSE H_HELP;

static const char sim_opts[] =
	"  -m, --model FILE   task times and device laws (wfrun(1), SIMULATION)\n"
	"  -r, --resources FILE  simulate the workers of a resources file\n"
	"                     (never contacted; each needs its <cores>)\n"
	H_CORES
	H_IO_EXECUTORS
	H_NO_IO
	H_DISK_BW
	"                     (nothing is measured: give it for those tasks)\n"
	H_LEARN
	H_NO_PREEMPT
	H_RESOURCES
	"      --trace FILE   write the simulated trace (and events.jsonl\n"
	"                     beside it); default: none\n"
	"      --registry FILE  start from the storage_bw registries kept\n"
	"                     there and keep what is learned (as run does)\n"
	H_VARS
	H_QUIET H_HELP;

static const char probe_opts[] =
	"  -s, --size MB      write MB in all (default 256; MB = 2^20 bytes)\n"
	"  -j, --writers N    N concurrent sequential writers (default 1)\n"
	H_QUIET H_VERBOSE H_HELP;

static const char report_opts[] =
	"  -o, --output FILE  write there (default: report.html or\n"
	"                     trace.json beside the trace; - for stdout)\n"
	"      --format html|chrome  an HTML page (default) or Chrome\n"
	"                     trace-event JSON\n"
	"      --events FILE  learner events (default: events.jsonl\n"
	"                     beside the trace, if there)\n"
	"      --compare A [B]  compare run A with run B (default: the\n"
	"                     latest run), each a run id, a unique prefix,\n"
	"                     latest, previous or a trace: per task name,\n"
	"                     time, CPU, memory and I/O and their change;\n"
	"                     text on stdout unless --format html|json\n"
	"                     (html: .wfrun/compare.html) or -o FILE.html\n"
	H_QUIET H_VERBOSE H_HELP;

static const char log_opts[] =
	"  -C DIR             the runs of the workdir DIR (default: the\n"
	"                     current directory, or WORKFLOW's workdir)\n"
	"      --json         one JSON object a line\n"
	"      --keep N       remove all but the last N runs' records (never\n"
	"                     the last run that ran something); each run\n"
	"                     keeps the last 50\n"
	H_QUIET H_HELP;

static int cmd_version(int argc, char **argv);
static int cmd_help(int argc, char **argv);

static const struct subcmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
	const char *usage;      /* after "usage: wfrun " */
	const char *opts;       /* its option lines */
} subcmds[] = {
	{ "run", cmd_run, "run a workflow (the default)",
	  "[run] [options] WORKFLOW.yaml [TARGET...]", run_opts },
	{ "check", cmd_check, "validate a workflow and summarise its graph",
	  "check [options] WORKFLOW.yaml", check_opts },
	{ "list", cmd_list, "list the tasks: instances, what each reads and writes",
	  "list [--names] WORKFLOW.yaml", list_opts },
	{ "dag", cmd_dag, "print the task graph (Graphviz dot or Mermaid)",
	  "dag [--names] [--format dot|mermaid] WORKFLOW.yaml", dag_opts },
	{ "sim", cmd_sim, "simulate a run on a virtual clock (-m MODEL)",
	  "sim -m MODEL [-r FILE] [options] WORKFLOW.yaml", sim_opts },
	{ "probe", cmd_probe, "measure the write bandwidth of a directory's disk",
	  "probe [--size MB] [-j WRITERS] [DIR]", probe_opts },
	{ "report", cmd_report, "write a run's trace as HTML or Chrome JSON",
	  "report [-o FILE] [--format html|chrome] [TRACE | RUNID]",
	  report_opts },
	{ "log", cmd_log, "list the runs of a workdir, oldest first",
	  "log [--json] [--keep N] [WORKFLOW | -C DIR]", log_opts },
	{ "version", cmd_version, "print the version", "version", NULL },
	{ "help", cmd_help, "print the help of wfrun or of a command",
	  "help [COMMAND]", NULL },
};

static const char exit_text[] =
	"exit status: 0 all tasks succeeded, 1 a task failed, 2 usage or\n"
	"workflow error, 3 no worker reachable, 130 interrupted.  See\n"
	"wfrun(1).\n";

static void
usage(FILE *fp)
{
	for (size_t i = 0; i < ARRAY_SIZE(subcmds); i++)
		fprintf(fp, "%s wfrun %s\n", i ? "      " : "usage:",
			subcmds[i].usage);
	fputs("\n"
	      "Runs a workflow of shell-command tasks whose order comes from the\n"
	      "files they read and write (see wfrun-workflow(5)).\n"
	      "\n"
	      "commands:\n", fp);
	for (size_t i = 0; i < ARRAY_SIZE(subcmds); i++)
		fprintf(fp, "  %-8s %s\n", subcmds[i].name, subcmds[i].help);
	fputs("\nrun options ('wfrun COMMAND --help' lists a command's):\n", fp);
	fputs(subcmds[0].opts, fp);
	fputs("  -V, --version      show the version\n\n", fp);
	fputs(exit_text, fp);
}

/* The help of one subcommand. */
static void
subcmd_usage(const struct subcmd *s, FILE *fp)
{
	fprintf(fp, "usage: wfrun %s\n\n%c%s.\n", s->usage,
		s->help[0] - 'a' + 'A', s->help + 1);
	if (s->opts)
		fprintf(fp, "\noptions:\n%s", s->opts);
	fputs("\nSee wfrun(1).\n", fp);
}

static const struct subcmd *
find_subcmd(const char *name)
{
	for (size_t k = 0; k < ARRAY_SIZE(subcmds); k++)
		if (!strcmp(name, subcmds[k].name))
			return &subcmds[k];
	return NULL;
}

/* The command a word that names none is close to, when the word cannot
 * be a workflow file (no such file, no '/' or '.' in it); else NULL. */
static const char *
misspelt_command(const char *word)
{
	const char *names[ARRAY_SIZE(subcmds)];
	for (size_t k = 0; k < ARRAY_SIZE(subcmds); k++)
		names[k] = subcmds[k].name;
	if (strpbrk(word, "/.") || !access(word, F_OK))
		return NULL;
	return closest_word(word, names, ARRAY_SIZE(subcmds));
}

/* "unknown command" (with what it may have meant): EXIT_USAGE. */
static int
unknown_command(const char *word, const char *sug)
{
	char *v = xvisible(word);
	error_msg("unknown command '%s'%s%s%s", v, sug ? "; did you mean " : "",
		  sug ? sug : "", sug ? "?" : "");
	free(v);
	fputs("Try 'wfrun --help'.\n", stderr);
	return EXIT_USAGE;
}

/* More than max words (the command's name first, usage its usage):
 * whether that was said. */
static bool
too_many(int argc, int max, const char *usage)
{
	if (argc <= max)
		return false;
	error_msg("usage: wfrun %s", usage);
	return true;
}

static int
cmd_version(int argc, char **argv)
{
	if (too_many(argc, 1, "version"))
		return EXIT_USAGE;
	printf("wfrun %s\n", WFRUN_VERSION);
	return EXIT_OK;
}

/* wfrun help [COMMAND] */
static int
cmd_help(int argc, char **argv)
{
	const struct subcmd *s = argc == 2 ? find_subcmd(argv[1]) : NULL;
	if (too_many(argc, 2, "help [COMMAND]"))
		return EXIT_USAGE;
	if (argc == 2 && !s)
		return unknown_command(argv[1], misspelt_command(argv[1]));
	if (s)
		subcmd_usage(s, stdout);
	else
		usage(stdout);
	return EXIT_OK;
}

/* Options taking a separate argument, so their value is not taken for
 * the subcommand or the file. */
static int
takes_arg(const char *a)
{
	return !strcmp(a, "-j") || !strcmp(a, "--cores") ||
	       !strcmp(a, "--trace") || !strcmp(a, "-r") ||
	       !strcmp(a, "--resources") || !strcmp(a, "--io-executors") ||
	       !strcmp(a, "--disk-bw") || !strcmp(a, "-m") ||
	       !strcmp(a, "--model") || !strcmp(a, "--registry") ||
	       !strcmp(a, "-s") || !strcmp(a, "--size") ||
	       !strcmp(a, "--writers") || !strcmp(a, "--force") ||
	       !strcmp(a, "--fetch") || !strcmp(a, "--learn") ||
	       !strcmp(a, "-o") || !strcmp(a, "--output") ||
	       !strcmp(a, "--format") || !strcmp(a, "--events") ||
	       !strcmp(a, "--until") || !strcmp(a, "--compare") ||
	       !strcmp(a, "--set") || !strcmp(a, "--vars") ||
	       !strcmp(a, "--memory") || !strcmp(a, "-C") ||
	       !strcmp(a, "--keep") || !strcmp(a, "--container-engine");
}

/* The index in argv of the first word that is not an option (argc when
 * none): the subcommand, or the workflow of run. */
static int
first_word(int argc, char **argv)
{
	int i;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return argc; /* what follows is no command */
		if (argv[i][0] != '-' || !argv[i][1])
			break;
		if (takes_arg(argv[i]))
			i++;
	}
	return i < argc ? i : argc;
}

/* -h or -V before any "--": 'h', 'V' or 0. */
static int
help_or_version(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return 'h';
		if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version"))
			return 'V';
	}
	return 0;
}

int
main(int argc, char **argv)
{
	setvbuf(stderr, NULL, _IOLBF, 0);
	history_set_argv(argc, argv);
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	int i = first_word(argc, argv);
	const struct subcmd *s = i < argc ? find_subcmd(argv[i]) : NULL;
	const char *sug = !s && i < argc ? misspelt_command(argv[i]) : NULL;
	if (sug)
		return unknown_command(argv[i], sug);
	switch (help_or_version(argc, argv)) {
	case 'V':
		return cmd_version(1, argv);
	case 'h':
		if (s)
			subcmd_usage(s, stdout);
		else if (i < argc && !s)
			subcmd_usage(&subcmds[0], stdout); /* wfrun FILE -h */
		else
			usage(stdout);
		return EXIT_OK;
	}
	if (!s)
		return cmd_run(argc, argv);
	cli_command = s->name;
	memmove(argv + i, argv + i + 1, (size_t)(argc - i) * sizeof(char *));
	return s->fn(argc - 1, argv);
}
