/* wfrun check: validate, then summarise the graph on stdout. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resources.h"
#include "util.h"
#include "wfrun.h"

/* Inputs listed by name before the rest are only counted. */
#define MAX_INPUTS_SHOWN 20

int
cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cores", required_argument, NULL, 'j' },
		{ "resources", required_argument, NULL, 'r' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	long cores = 0;
	const char *resources = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "j:qvr:", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			if ((cores = parse_cores_arg(optarg)) < 0)
				return EXIT_USAGE;
			break;
		case 'r':
			resources = optarg;
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
		error_msg("usage: wfrun check [-j N] [-r RESOURCES.xml] WORKFLOW.yaml");
		return EXIT_USAGE;
	}
	if (!cores)
		cores = local_cores();
	struct cluster cl;
	struct workflow wf;
	struct plan p;
	memset(&cl, 0, sizeof(cl));
	memset(&wf, 0, sizeof(wf));
	memset(&p, 0, sizeof(p));
	int rc = resources ? load_cluster(resources, &cl) : 0;
	if (!rc)
		rc = load_plan(argv[optind],
			       cluster_max_cores(resources ? &cl : NULL, cores), &wf,
			       &p);
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
		if (resources) {
			printf("workers: %zu (%s)\n", cl.nworkers, resources);
			for (size_t i = 0; i < cl.nworkers; i++) {
				const struct worker_spec *w = &cl.workers[i];
				printf("  %s: %s", w->name, w->local ? "this machine"
								     : w->host);
				if (w->cores)
					printf(", %ld cores", w->cores);
				if (!w->local)
					printf(", %s workdir %s",
					       w->shared ? "shared" : "own", w->workdir);
				printf("\n");
			}
		}
	}
	resources_release(&cl);
	plan_release(&p);
	workflow_release(&wf);
	return rc;
}
