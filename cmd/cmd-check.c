/* wfrun check: validate, then summarise the graph on stdout. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "wfrun.h"

/* Inputs listed by name before the rest are only counted. */
#define MAX_INPUTS_SHOWN 20

int
cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cores", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	long cores = 0;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "j:qv", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			if ((cores = parse_cores_arg(optarg)) < 0)
				return EXIT_USAGE;
			break;
		case 'q':
			log_level = 0;
			break;
		case 'v':
			log_level = 2;
			break;
		default:
			fputs("Try 'wfrun --help'.\n", stderr);
			return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		error_msg("usage: wfrun check [-j N] WORKFLOW.yaml");
		return EXIT_USAGE;
	}
	if (!cores)
		cores = local_cores();
	struct workflow wf;
	struct plan p;
	int rc = load_plan(argv[optind], cores, &wf, &p);
	if (!rc && log_level >= 1) {
		const struct dag *g = &p.dag;
		size_t width = 4;
		for (size_t i = 0; i < wf.ntasks; i++)
			if (strlen(wf.tasks[i].name) > width)
				width = strlen(wf.tasks[i].name);
		printf("%s: ok\n", argv[optind]);
		printf("workflow '%s', workdir %s\n", wf.name, wf.workdir);
		printf("task instances: %zu\n", g->tasks.n);
		for (size_t i = 0; i < wf.ntasks; i++)
			printf("  %-*s %u\n", (int)width, wf.tasks[i].name,
			       p.pt[i].ninst);
		printf("edges: %zu\n", g->nedges);
		size_t ninputs = g->inputs.n;
		printf("inputs that must exist: %zu\n", ninputs);
		for (size_t i = 0; i < ninputs && i < MAX_INPUTS_SHOWN; i++)
			printf("  %s\n", g->data.v[g->inputs.v[i].datum].path);
		if (ninputs > MAX_INPUTS_SHOWN)
			printf("  ... and %zu more\n", ninputs - MAX_INPUTS_SHOWN);
	}
	plan_release(&p);
	workflow_release(&wf);
	return rc;
}
