/* wfrun sim: run a workflow's schedule on a virtual clock (src/sim.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "events.h"
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
		    t->storage_bw.kind == WF_BW_AUTO_BOUNDED) {
			printf(" -> %g MB/s", res->chosen[i]);
			if (res->last_c[i] > 0)
				printf(", %g MB/s for the last %ld tasks,",
				       res->last_c[i], res->last_n[i]);
			printf(" after %d epoch%s%s", res->epochs[i],
			       res->epochs[i] == 1 ? "" : "s",
			       res->kept[i] ? ", from the kept registry" : "");
		}
		putchar('\n');
	}
}

struct sim_args {
	struct sim_opts o;
	const char *model, *resources, *trace;
	struct cli_shared sh;   /* into o and resources */
};

/* The options of sim into *ctx, a struct sim_args. */
static int
sim_opt(int c, const char *arg, void *ctx)
{
	struct sim_args *a = ctx;
	if (c == 'm')
		a->model = arg;
	else if (c == 'T')
		a->trace = arg;
	else if (c == 'R')
		a->o.registry = arg;
	else
		return cli_shared_opt(c, arg, &a->sh);
	return 0;
}

/* What sim needs besides the workflow: the model (-m). */
static const char *
no_model(void *ctx)
{
	const struct sim_args *a = ctx;
	return a->model ? NULL : "sim needs a model: -m MODEL (see wfrun(1), "
				 "SIMULATION)";
}

static int
load_model(struct sim_model *m, const char *model, struct workflow *wf)
{
	struct diags d;
	diags_init(&d, model);
	sim_model_load(m, model, wf, &d);
	return report_diags(&d, model);
}

/* Open the trace and events.jsonl beside it. */
static int
open_outputs(const char *trace, struct trace *tr, FILE **ef)
{
	struct errbuf err;
	char *ev = events_beside(trace);
	int rc = EXIT_OK;
	if (trace_open(tr, trace, &err) < 0) {
		error_msg("%s", err.msg);
		rc = EXIT_USAGE;
	} else if (!(*ef = fopen(ev, "we"))) {
		error_msg("cannot write %s: %s", ev, strerror(errno));
		rc = EXIT_USAGE;
	}
	free(ev);
	return rc;
}

/* Close the trace and the events; rc, or EXIT_TASK_FAILED when rc was
 * EXIT_OK and either failed to write. */
static int
close_outputs(const char *trace, struct trace *tr, FILE *ef, int rc)
{
	struct errbuf err;
	if (trace_close(tr, &err) < 0 && !rc) {
		error_msg("%s", err.msg);
		rc = EXIT_TASK_FAILED;
	}
	if (ef && fclose(ef) && !rc) {
		error_msg("error writing the events beside %s", trace);
		rc = EXIT_TASK_FAILED;
	}
	return rc;
}

/* Tasks a run expands only once others have run are not simulated. */
static void
warn_pending(const struct plan *p)
{
	if (!plan_pending(p))
		return;
	char *v = plan_pending_why(p);
	char *vn = xvisible(p->wf->tasks[p->stage_from].name);
	warning_msg("task '%s' and those after it are %s: not simulated", vn,
		    v);
	free(vn);
	free(v);
}

/* Run the simulation and print what it found. */
static int
simulate(struct plan *p, const struct sim_model *m, const struct sim_opts *o)
{
	struct sim_result res;
	int rc = EXIT_OK;
	warn_pending(p);
	if (sim_run(p, m, o, &res) < 0)
		rc = EXIT_USAGE;
	else
		report(p, &res, o->no_io);
	sim_result_release(&res);
	return rc;
}

/* Load the workflow, the resources and the model, then simulate. */
static int
sim(struct sim_args *a, const char *file)
{
	struct cluster cl;
	struct workflow wf;
	struct plan p;
	struct sim_model m;
	struct trace tr;
	FILE *ef = NULL;
	memset(&m, 0, sizeof(m));
	memset(&tr, 0, sizeof(tr));
	if (!a->o.cores)
		a->o.cores = local_cores();
	a->o.memory = cli_memory();
	a->o.scale_cores = cli_scale_cores();
	int rc = cli_load(a->resources, true, file, NULL, a->o.cores, &cl, &wf,
			  &p);
	if (!rc)
		rc = load_model(&m, a->model, &wf);
	if (!rc && a->trace)
		rc = open_outputs(a->trace, &tr, &ef);
	a->o.cluster = a->resources ? &cl : NULL;
	a->o.trace = a->trace ? &tr : NULL;
	a->o.events = ef;
	if (!rc)
		rc = simulate(&p, &m, &a->o);
	if (a->trace)
		rc = close_outputs(a->trace, &tr, ef, rc);
	sim_model_release(&m);
	plan_release(&p);
	workflow_release(&wf);
	resources_release(&cl);
	return rc;
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
		CLI_VARS_OPTIONS,
		CLI_RESOURCE_OPTS,
		{ NULL, 0, NULL, 0 },
	};
	static const struct cli_spec spec = {
		"m:r:j:q", opts, sim_opt, 1, 1, "usage: wfrun sim -m MODEL "
		"[-r RESOURCES] [options] WORKFLOW.yaml\n", true, no_model
	};
	struct sim_args a = { .sh = CLI_SHARED(a.o, a.resources) };
	int rc = cli_parse(argc, argv, &spec, &a);
	return rc ? rc : sim(&a, argv[optind]);
}
