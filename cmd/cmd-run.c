/* wfrun run: parse the run options, load the plan, run it or print it. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "runner.h"
#include "util.h"
#include "wfrun.h"

static void
dry_run(struct plan *p)
{
	struct strbuf cmd = STRBUF_INIT, lab = STRBUF_INIT;
	printf("# workflow '%s': %zu task%s, run in %s\n", p->wf->name,
	       p->dag.tasks.n, p->dag.tasks.n == 1 ? "" : "s", p->wf->workdir);
	/* Program order is a valid order: every edge points forward. */
	for (uint32_t t = 0; t < p->dag.tasks.n; t++) {
		strbuf_reset(&cmd);
		strbuf_reset(&lab);
		plan_label(p, t, &lab);
		plan_command(p, t, &cmd);
		printf("# %s\n%s\n", lab.buf, cmd.buf);
	}
	strbuf_release(&cmd);
	strbuf_release(&lab);
}

int
cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cores", required_argument, NULL, 'j' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "keep-going", no_argument, NULL, 'k' },
		{ "trace", required_argument, NULL, 'T' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct runner_opts o = { 0, false, NULL };
	bool dry = false;
	char *trace = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "j:nkqv", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			if ((o.cores = parse_cores_arg(optarg)) < 0)
				return EXIT_USAGE;
			break;
		case 'n':
			dry = true;
			break;
		case 'k':
			o.keep_going = true;
			break;
		case 'T':
			free(trace);
			trace = path_absolute(optarg);
			break;
		case 'q':
			log_level = 0;
			break;
		case 'v':
			log_level = 2;
			break;
		default:
			fputs("Try 'wfrun --help'.\n", stderr);
			free(trace);
			return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		error_msg(optind == argc ? "no workflow file given"
					 : "give one workflow file, not %d",
			  argc - optind);
		fputs("usage: wfrun [run] [options] WORKFLOW.yaml\n", stderr);
		free(trace);
		return EXIT_USAGE;
	}
	if (!o.cores)
		o.cores = local_cores();
	o.trace_path = trace;
	struct workflow wf;
	struct plan p;
	int rc = load_plan(argv[optind], o.cores, &wf, &p);
	if (!rc) {
		if (dry)
			dry_run(&p);
		else
			rc = runner_run(&p, &o);
	}
	plan_release(&p);
	workflow_release(&wf);
	free(trace);
	return rc;
}
