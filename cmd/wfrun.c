/*
 * wfrun: main() and the subcommand table.  `wfrun FILE` is `wfrun run FILE`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "wfrun.h"

static const struct subcmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} subcmds[] = {
	{ "run", cmd_run, "run a workflow (the default)" },
	{ "check", cmd_check, "validate a workflow and summarise its graph" },
	{ "dag", cmd_dag, "print the task graph (Graphviz dot or Mermaid)" },
	{ "sim", cmd_sim, "simulate a run on a virtual clock (-m MODEL)" },
	{ "probe", cmd_probe, "measure the write bandwidth of a directory's disk" },
	{ "report", cmd_report, "write a run's trace as HTML or Chrome JSON" },
};

static void
usage(FILE *fp)
{
	fputs("usage: wfrun [run] [options] WORKFLOW.yaml\n"
	      "       wfrun check [options] WORKFLOW.yaml\n"
	      "       wfrun dag [--names] [--format dot|mermaid] WORKFLOW.yaml\n"
	      "       wfrun sim -m MODEL [-r FILE] [options] WORKFLOW.yaml\n"
	      "       wfrun probe [--size MB] [-j WRITERS] [DIR]\n"
	      "       wfrun report [-o FILE] [--format html|chrome] [TRACE]\n"
	      "\n"
	      "Runs a workflow of shell-command tasks whose order comes from the\n"
	      "files they read and write (see wfrun-workflow(5)).\n"
	      "\n"
	      "commands:\n", fp);
	for (size_t i = 0; i < ARRAY_SIZE(subcmds); i++)
		fprintf(fp, "  %-8s %s\n", subcmds[i].name, subcmds[i].help);
	fputs("\n"
	      "run options (-j also for check):\n"
	      "  -j, --cores N      use N cores (default: all of this machine)\n"
	      "  -n, --dry-run      print the commands in a valid order, run nothing\n"
	      "  -k, --keep-going   after a failure, run what does not depend on it\n"
	      "                     (on_failure: cancel_successors for every task)\n"
	      "      --reason       with -n: say why each task would run\n"
	      "      --force TASK   rerun every instance of TASK (and what depends\n"
	      "                     on it) even if up to date; repeatable\n"
	      "      --forceall     rerun every task, as if no earlier run (the\n"
	      "                     originals of inputs updated in place back first)\n"
	      "  -r, --resources FILE  run on the workers of a resources file\n"
	      "                     (wfrun-resources(5)); also for check; with\n"
	      "                     <slurm>, on nodes wfrun asks Slurm for\n"
	      "      --slurm        inside a Slurm allocation (salloc, sbatch): run\n"
	      "                     on its nodes, an agent per node as a job step\n"
	      "                     (-r FILE: only its <slurm lost-after>)\n"
	      "      --io-executors N  I/O tasks (io: true) this machine runs at\n"
	      "                     once beside compute (default: two per core)\n"
	      "      --no-io        run I/O tasks as 1-core compute tasks (baseline)\n"
	      "      --disk-bw MBPS this machine's disk bandwidth, for storage_bw\n"
	      "                     (default: measured once, kept in .wfrun/disk_bw)\n"
	      "      --relearn      forget what storage_bw: auto learned before\n"
	      "      --learn climb|paper  how storage_bw: auto learns: from one\n"
	      "                     writer up (default), or the paper's way, from\n"
	      "                     every I/O executor down (wfrun-workflow(5))\n"
	      "      --no-preempt   never stop running I/O tasks when a learned\n"
	      "                     storage_bw: auto corrects its first guess\n"
	      "      --memory SIZE  this machine's memory that tasks reserve (default:\n"
	      "                     MemTotal, or its cgroup's limit); also for check\n"
	      "      --scale-cores  give a task asking for more cores than any worker\n"
	      "                     has the most one has; also for check\n"
	      "      --accept-new-host-keys  add unknown SSH host keys to\n"
	      "                     known_hosts (changed keys are always refused)\n"
	      "      --fetch all|final|none  outputs of workers whose workdir is\n"
	      "                     not shared brought back to the workdir: every\n"
	      "                     file a task wrote (default), those no task\n"
	      "                     reads, or none (see .wfrun/data.tsv)\n"
	      "      --trace FILE   write the trace there (default:\n"
	      "                     WORKDIR/.wfrun/trace.tsv)\n"
	      "sim options (and -r, -j, --io-executors, --disk-bw, --no-io,\n"
	      "--learn, --no-preempt, --memory, --scale-cores):\n"
	      "  -m, --model FILE   task times and device laws (wfrun(1), SIMULATION)\n"
	      "      --trace FILE   write the simulated trace (and events.jsonl\n"
	      "                     beside it); default: none\n"
	      "      --registry FILE  start from the storage_bw registries kept\n"
	      "                     there and keep what is learned (as run does)\n"
	      "probe options (DIR: default the current directory):\n"
	      "  -s, --size MB      write MB in all (default 256; MB = 2^20 bytes)\n"
	      "  -j, --writers N    N concurrent sequential writers (default 1)\n"
	      "report options (TRACE defaults to .wfrun/trace.tsv):\n"
	      "  -o, --output FILE  write there (default: report.html or\n"
	      "                     trace.json beside the trace; - for stdout)\n"
	      "      --format F     html (default) or chrome (trace-event JSON)\n"
	      "      --events FILE  learner events (default: events.jsonl\n"
	      "                     beside the trace, if there)\n"
	      "common options:\n"
	      "  -q, --quiet        print only errors\n"
	      "  -v, --verbose      print each task as it starts and ends\n"
	      "  -h, --help         show this help\n"
	      "  -V, --version      show the version\n"
	      "\n"
	      "exit status: 0 all tasks succeeded, 1 a task failed, 2 usage or\n"
	      "workflow error, 3 no worker reachable, 130 interrupted.  See\n"
	      "wfrun(1).\n", fp);
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
	       !strcmp(a, "--format") || !strcmp(a, "--events");
}

int
main(int argc, char **argv)
{
	setvbuf(stderr, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			break;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			/* a subcommand's --help comes here too: one text */
			usage(stdout);
			return EXIT_OK;
		} else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			printf("wfrun %s\n", WFRUN_VERSION);
			return EXIT_OK;
		}
	}
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	/* The first word that is not an option names the subcommand, or
	 * else it is the workflow and the command is run. */
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-' && argv[i][1]) {
			if (takes_arg(argv[i]))
				i++;
			continue;
		}
		for (size_t k = 0; k < ARRAY_SIZE(subcmds); k++)
			if (!strcmp(argv[i], subcmds[k].name)) {
				memmove(argv + i, argv + i + 1,
					(size_t)(argc - i) * sizeof(char *));
				return subcmds[k].fn(argc - 1, argv);
			}
		break;
	}
	return cmd_run(argc, argv);
}

