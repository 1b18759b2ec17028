/* wfrun run: parse the run options, load the plan, run it or print it. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "path.h"
#include "resources.h"
#include "runner.h"
#include "stage.h"
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
		{ "resources", required_argument, NULL, 'r' },
		{ "accept-new-host-keys", no_argument, NULL, 'A' },
		{ "io-executors", required_argument, NULL, 'I' },
		{ "no-io", no_argument, NULL, 'B' },
		{ "fetch", required_argument, NULL, 'F' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct runner_opts o;
	memset(&o, 0, sizeof(o));
	bool dry = false;
	char *trace = NULL;
	const char *resources = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "j:nkqvr:", opts, NULL)) != -1) {
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
		case 'r':
			resources = optarg;
			break;
		case 'A':
			o.accept_new_host_keys = true;
			break;
		case 'I': {
			long v;
			if (parse_long(optarg, &v) < 0 || v < 1) {
				error_msg("--io-executors wants a number >= 1, not "
					  "'%s'", optarg);
				free(trace);
				return EXIT_USAGE;
			}
			o.io_executors = v;
			break;
		}
		case 'B':
			o.no_io = true;
			break;
		case 'F':
			if (!strcmp(optarg, "all"))
				o.fetch = FETCH_ALL;
			else if (!strcmp(optarg, "final"))
				o.fetch = FETCH_FINAL;
			else if (!strcmp(optarg, "none"))
				o.fetch = FETCH_NONE;
			else {
				error_msg("--fetch wants all, final or none, not "
					  "'%s'", optarg);
				free(trace);
				return EXIT_USAGE;
			}
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
	struct cluster cl;
	memset(&cl, 0, sizeof(cl));
	struct workflow wf;
	struct plan p;
	memset(&wf, 0, sizeof(wf));
	memset(&p, 0, sizeof(p));
	int rc = resources ? load_cluster(resources, &cl) : 0;
	if (!rc)
		rc = load_plan(argv[optind], cluster_max_cores(resources ? &cl : NULL,
							       o.cores),
			       &wf, &p);
	if (!rc) {
		if (dry) {
			dry_run(&p);
		} else {
			char *agent = agent_path();
			o.cluster = resources ? &cl : NULL;
			o.agent_path = agent;
			if (resources && ssh_global_init())
				die("cannot initialise libssh2");
			rc = runner_run(&p, &o);
			if (resources)
				ssh_global_exit();
			free(agent);
		}
	}
	plan_release(&p);
	workflow_release(&wf);
	resources_release(&cl);
	free(trace);
	return rc;
}
