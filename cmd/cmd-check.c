/* wfrun check: validate, then summarise the graph on stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "resources.h"
#include "exec.h"
#include "swenv.h"
#include "swenv_remote.h"
#include "util.h"
#include "wfrun.h"

/* Inputs listed by name before the rest are only counted. */
#define MAX_INPUTS_SHOWN 20

/* Vars listed before the rest are only counted (-v lists them all). */
#define MAX_VARS_SHOWN 20

/* Where var i's value comes from: "FILE:LINE:COL", "--vars FILE:LINE:COL"
 * or "--set". */
static void
var_origin(const struct workflow *wf, size_t i, struct strbuf *sb)
{
	const struct wf_var_ext *x = &wf->var_ext[i];
	struct wf_loc l = x->from_loc;
	unsigned f = WF_LOC_FILE(l);
	if (x->from == WF_FROM_SET) {
		strbuf_adds(sb, "--set");
		return;
	}
	if (x->from == WF_FROM_VARS)
		strbuf_adds(sb, "--vars ");
	strbuf_addf(sb, "%s:%u:%u", f < wf->files.n && wf->files.v[f]
		    ? wf->files.v[f] : wf->file, l.line, WF_LOC_COL(l));
}

/* The vars' values used, and where each comes from. */
static void
vars_summary(const struct workflow *wf)
{
	struct strbuf sb = STRBUF_INIT;
	size_t shown = log_level >= 2 ? wf->nvars : MAX_VARS_SHOWN;
	printf("vars: %zu\n", wf->nvars);
	for (size_t i = 0; i < wf->nvars && i < shown; i++) {
		const struct wf_var_ext *x = &wf->var_ext[i];
		strbuf_reset(&sb);
		strbuf_addf(&sb, "  %s = ", wf->vars[i].key);
		if (!x->items)
			strbuf_add_visible(&sb, wf->vars[i].val,
					   strlen(wf->vars[i].val));
		for (uint32_t j = 0; x->items && j <= x->items_len;) {
			if (j == x->items_len) {
				strbuf_adds(&sb, j ? "]" : "[]");
				break;
			}
			size_t n = strlen(x->items + j);
			strbuf_adds(&sb, j ? ", " : "[");
			strbuf_add_visible(&sb, x->items + j, n);
			j += (uint32_t)n + 1;
		}
		strbuf_adds(&sb, "  (");
		var_origin(wf, i, &sb);
		printf("%s)\n", sb.buf);
	}
	if (wf->nvars > shown)
		printf("  ... and %zu more (-v lists them)\n", wf->nvars - shown);
	strbuf_release(&sb);
}

/* The graph's summary on stdout. */
/* A task's instances, or why they are not known yet (pending). */
static void
count_line(const struct plan *p, size_t i, size_t width)
{
	const char *name = p->wf->tasks[i].name;
	if (!plan_pending(p) || i < p->stage_from) {
		printf("  %-*s %u\n", (int)width, name, p->pt[i].ninst);
		return;
	}
	char *v = plan_pending_why(p);
	printf("  %-*s pending: %s\n", (int)width, name, v);
	free(v);
}

static void
summary(const char *file, const struct workflow *wf, const struct plan *p)
{
	const struct dag *g = &p->dag;
	size_t width = 4;
	for (size_t i = 0; i < wf->ntasks; i++)
		if (strlen(wf->tasks[i].name) > width)
			width = strlen(wf->tasks[i].name);
	char *vf = xvisible(file), *vn = xvisible(wf->name),
	     *vw = xvisible(wf->workdir);
	printf("%s: ok\n", vf);
	printf("workflow '%s', workdir %s\n", vn, vw);
	free(vf);
	free(vn);
	free(vw);
	if (wf->nvars)
		vars_summary(wf);
	printf("task instances: %zu\n", g->tasks.n);
	for (size_t i = 0; i < wf->ntasks; i++)
		count_line(p, i, width);
	printf("edges: %zu\n", g->nedges);
	size_t ninputs = g->inputs.n;
	printf("inputs that must exist: %zu\n", ninputs);
	for (size_t i = 0; i < ninputs && i < MAX_INPUTS_SHOWN; i++) {
		char *v = xvisible(g->data.v[g->inputs.v[i].datum].path);
		printf("  %s\n", v);
		free(v);
	}
	if (ninputs > MAX_INPUTS_SHOWN)
		printf("  ... and %zu more\n", ninputs - MAX_INPUTS_SHOWN);
}

/* The workers of the resources file on stdout. */
static void
workers(const char *resources, const struct cluster *cl)
{
	printf("workers: %zu (%s)\n", cl->nworkers, resources);
	for (size_t i = 0; i < cl->nworkers; i++) {
		const struct worker_spec *w = &cl->workers[i];
		printf("  %s: %s", w->name,
		       w->local ? "this machine"
		       : w->slurm_jobs ? "one Slurm job per task" : w->host);
		if (w->cores)
			printf(", %ld cores", w->cores);
		if (!w->local)
			printf(", %s workdir %s", w->shared ? "shared" : "own",
			       w->workdir ? w->workdir : "(the master's)");
		printf("\n");
	}
	const struct slurm_spec *s = cl->slurm;
	if (s)
		printf("slurm: partition %s, up to %ld node%s of %ld cores "
		       "and %ld MB (asked for as tasks wait)\n",
		       s->partition, s->max_nodes,
		       s->max_nodes == 1 ? "" : "s",
		       s->cores_per_node ? s->cores_per_node : s->node_cpus,
		       s->node_mem_mb);
}

struct check_args {
	struct cli_shared sh;
	const char *engine;     /* --container-engine */
};

static int
check_opt(int c, const char *arg, void *ctx)
{
	struct check_args *a = ctx;
	if (c == 'E') {
		a->engine = arg;
		return 0;
	}
	return cli_shared_opt(c, arg, &a->sh);
}

/* The same asked of the remote workers that use them (swenv_remote.h). */
static int
check_remote(const struct workflow *wf, const struct cluster *cl,
	     const char *engine)
{
	bool used = false, remote = false;
	for (size_t i = 0; i < wf->ntasks; i++)
		used = used || swenv_used(&wf->tasks[i]);
	for (size_t i = 0; i < cl->nworkers; i++)
		remote = remote || !cl->workers[i].local;
	if (!used || !remote)
		return 0;
	if (ssh_global_init()) {
		error_msg("cannot initialise libssh2");
		return 1;
	}
	char *agent = agent_path();
	int nerr = swenv_remote_check(wf, cl, engine, agent);
	free(agent);
	ssh_global_exit();
	return nerr;
}

/* The images and modules of the tasks, asked of this machine when a task
 * may run here (no resources file, or a worker on localhost). */
static int
check_swenv(const struct workflow *wf, const struct cluster *cl,
	    const char *resources, const char *engine)
{
	const char *e = engine;
	bool here = !resources;
	for (size_t i = 0; cl && resources && i < cl->nworkers; i++)
		if (cl->workers[i].local) {
			here = true;
			if (!e)
				e = cl->workers[i].container_engine;
		}
	int nerr = here ? swenv_prepare(wf, e, SWENV_MODULES, NULL) : 0;
	if (resources)
		nerr += check_remote(wf, cl, engine);
	return nerr ? EXIT_USAGE : 0;
}

int
cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cores", required_argument, NULL, 'j' },
		{ "resources", required_argument, NULL, 'r' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		CLI_VARS_OPTIONS,
		CLI_RESOURCE_OPTS,
		{ "container-engine", required_argument, NULL, 'E' },
		{ NULL, 0, NULL, 0 },
	};
	long cores = 0;
	const char *resources = NULL;
	struct check_args a = { { .cores = &cores, .resources = &resources },
				NULL };
	static const struct cli_spec spec = {
		"j:qvr:", opts, check_opt, 1, 1, "usage: wfrun check "
		"[-j N] [-r RESOURCES.xml] [--container-engine ENGINE] "
		"WORKFLOW.yaml", false, NULL
	};
	int rc = cli_parse(argc, argv, &spec, &a);
	if (!rc)
		rc = cli_container_engine(a.engine);
	if (rc)
		return rc;
	if (!cores)
		cores = local_cores();
	struct cluster cl;
	struct workflow wf;
	struct plan p;
	rc = cli_load(resources, false, argv[optind], NULL, cores, &cl, &wf,
		      &p);
	if (!rc)
		rc = check_swenv(&wf, &cl, resources, a.engine);
	if (!rc && log_level >= 1) {
		summary(argv[optind], &wf, &p);
		if (resources)
			workers(resources, &cl);
	}
	resources_release(&cl);
	plan_release(&p);
	workflow_release(&wf);
	return rc;
}
