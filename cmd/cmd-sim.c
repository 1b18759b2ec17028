/* wfrun sim: run a workflow's schedule on a virtual clock (src/sim.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "resources.h"
#include "sim.h"
#include "trace.h"
#include "util.h"
#include "wfrun.h"

static const char *
bw_text(const struct wf_bw *bw, char *buf, size_t len)
{
	switch (bw->kind) {
	case WF_BW_STATIC:
		snprintf(buf, len, "%g", bw->value);
		break;
	case WF_BW_AUTO:
		snprintf(buf, len, "auto");
		break;
	case WF_BW_AUTO_BOUNDED:
		snprintf(buf, len, "auto(%g,%g,%g)", bw->min, bw->max,
			 bw->delta);
		break;
	default:
		snprintf(buf, len, "none");
	}
	return buf;
}

static void
report(const struct plan *p, const struct sim_result *res, bool no_io)
{
	printf("makespan %.3f s: %zu tasks on %zu worker%s (%ld cores, %ld I/O "
	       "executors)%s\n", res->makespan, res->done, res->nworkers,
	       res->nworkers == 1 ? "" : "s", res->cores, res->io_executors,
	       no_io ? ", I/O tasks as compute (--no-io)" : "");
	if (res->preempted)
		printf("  %zu I/O attempt%s stopped to make way, and run again "
		       "(wfrun(1), --no-preempt)\n", res->preempted,
		       res->preempted == 1 ? "" : "s");
	for (size_t i = 0; i < p->wf->ntasks; i++) {
		const struct wf_task *t = &p->wf->tasks[i];
		if (!t->io || no_io)
			continue;
		char buf[128];
		printf("  %s: storage_bw %s", t->name,
		       bw_text(&t->storage_bw, buf, sizeof(buf)));
		if (t->storage_bw.kind == WF_BW_AUTO ||
		    t->storage_bw.kind == WF_BW_AUTO_BOUNDED)
			printf(" -> %g MB/s after %d epoch%s", res->chosen[i],
			       res->epochs[i], res->epochs[i] == 1 ? "" : "s");
		putchar('\n');
	}
}

int
cmd_sim(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "model", required_argument, NULL, 'm' },
		{ "resources", required_argument, NULL, 'r' },
		{ "cores", required_argument, NULL, 'j' },
		{ "io-executors", required_argument, NULL, 'I' },
		{ "disk-bw", required_argument, NULL, 'D' },
		{ "no-io", no_argument, NULL, 'B' },
		{ "trace", required_argument, NULL, 'T' },
		{ "registry", required_argument, NULL, 'R' },
		{ "learn", required_argument, NULL, 'P' },
		{ "no-preempt", no_argument, NULL, 'W' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	struct sim_opts o;
	memset(&o, 0, sizeof(o));
	const char *model = NULL, *resources = NULL, *trace = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "m:r:j:q", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			model = optarg;
			break;
		case 'r':
			resources = optarg;
			break;
		case 'j':
			if ((o.cores = parse_cores_arg(optarg)) < 0)
				return EXIT_USAGE;
			break;
		case 'I':
			if ((o.io_executors = parse_io_executors(optarg)) < 0) {
				return EXIT_USAGE;
			}
			break;
		case 'D':
			if ((o.disk_bw = parse_disk_bw(optarg)) < 0)
				return EXIT_USAGE;
			break;
		case 'B':
			o.no_io = true;
			break;
		case 'T':
			trace = optarg;
			break;
		case 'R':
			o.registry = optarg;
			break;
		case 'W':
			o.no_preempt = true;
			break;
		case 'P':
			if (parse_learn(optarg, &o.learn_paper) < 0)
				return EXIT_USAGE;
			break;
		case 'q':
			log_level = 0;
			break;
		default:
			fputs("Try 'wfrun --help'.\n", stderr);
			return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc || !model) {
		error_msg(!model ? "sim needs a model: -m MODEL (see wfrun(1), "
				   "SIMULATION)"
			  : optind == argc ? "no workflow file given"
					   : "give one workflow file, not %d",
			  argc - optind);
		fputs("usage: wfrun sim -m MODEL [-r RESOURCES] [options] "
		      "WORKFLOW.yaml\n", stderr);
		return EXIT_USAGE;
	}
	if (!o.cores)
		o.cores = local_cores();
	struct cluster cl;
	struct workflow wf;
	struct plan p;
	struct sim_model m;
	memset(&cl, 0, sizeof(cl));
	memset(&wf, 0, sizeof(wf));
	memset(&p, 0, sizeof(p));
	memset(&m, 0, sizeof(m));
	int rc = resources ? load_cluster_spec(resources, &cl) : 0;
	if (!rc)
		rc = load_plan(argv[optind],
			       cluster_max_cores(resources ? &cl : NULL, o.cores),
			       &wf, &p);
	if (!rc) {
		struct diags d;
		diags_init(&d, model);
		sim_model_load(&m, model, &wf, &d);
		rc = report_diags(&d, model);
	}
	struct trace tr;
	struct errbuf err;
	FILE *ef = NULL;
	memset(&tr, 0, sizeof(tr));
	if (!rc && trace) {
		char *dir = path_dirname(trace);
		char *ev = xasprintf("%s/events.jsonl", dir);
		if (trace_open(&tr, trace, &err) < 0) {
			error_msg("%s", err.msg);
			rc = EXIT_USAGE;
		} else if (!(ef = fopen(ev, "we"))) {
			error_msg("cannot write %s: %s", ev, strerror(errno));
			rc = EXIT_USAGE;
		}
		free(dir);
		free(ev);
	}
	if (!rc) {
		struct sim_result res;
		o.cluster = resources ? &cl : NULL;
		o.trace = trace ? &tr : NULL;
		o.events = ef;
		if (sim_run(&p, &m, &o, &res) < 0)
			rc = EXIT_USAGE;
		else
			report(&p, &res, o.no_io);
		sim_result_release(&res);
	}
	if (trace && trace_close(&tr, &err) < 0 && !rc) {
		error_msg("%s", err.msg);
		rc = EXIT_TASK_FAILED;
	}
	if (ef && fclose(ef) && !rc) {
		error_msg("error writing the events beside %s", trace);
		rc = EXIT_TASK_FAILED;
	}
	sim_model_release(&m);
	plan_release(&p);
	workflow_release(&wf);
	resources_release(&cl);
	return rc;
}
