/* wfrun run: parse the run options, load the plan, run it or print it. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "exec.h"
#include "journal.h"
#include "path.h"
#include "resources.h"
#include "resume.h"
#include "runner.h"
#include "select.h"
#include "stage.h"
#include "undo.h"
#include "util.h"
#include "wfrun.h"

/* The originals a run would put back first (resume_originals), or why
 * it would refuse. */
static void
dry_run_originals(const struct plan *p, const struct resume *rs)
{
	struct strbuf lab = STRBUF_INIT;
	for (size_t k = 0; k < rs->norig; k++) {
		const struct resume_orig *o = &rs->orig[k];
		char *path = xvisible(p->dag.data.v[o->datum].path);
		strbuf_reset(&lab);
		plan_label(p, o->updater, &lab);
		char *vl = xvisible(lab.buf);
		if (undo_has_original(p->dag.data.v[o->datum].path))
			printf("# %s, updated in place by task %s in an earlier "
			       "run, is put back as it was first\n", path, vl);
		else
			printf("# the run would stop: %s, updated in place by task "
			       "%s in an earlier run, must be put back as it was, "
			       "but its original is not kept\n", path, vl);
		free(vl);
		free(path);
	}
	strbuf_release(&lab);
}

/* Whether the writers of what the next stage globs are up to date. */
static bool
stage_up_to_date(const struct plan *p, const struct resume *rs)
{
	for (size_t k = 0; k < p->stage_writers.n; k++)
		if (rs->why[p->stage_writers.v[k]] != RESUME_SKIP)
			return false;
	return true;
}

/* The stages a run would expand at once (wfrun-workflow(5), DYNAMIC):
 * while the writers of what the next stage globs are up to date, it is
 * on disk as the run would find it. */
static void
dry_run_stages(struct plan *p, struct resume *rs, const struct journal *j,
	       const bool *forced, bool all, const struct select_ask *ask)
{
	while (plan_pending(p) && stage_up_to_date(p, rs)) {
		uint32_t first = (uint32_t)p->dag.tasks.n;
		int bad = plan_next_stage(p, stderr);
		if (!bad)
			select_appended(p, ask, first);
		resume_extend(rs, p, j, forced, all, first);
		if (bad)
			return;
	}
}

/* The tasks whose instances a run finds later, by name (those ask
 * needs, and the target each is for). */
static void
dry_run_pending(const struct plan *p, const struct select_ask *ask)
{
	if (!plan_pending(p))
		return;
	char *v = plan_pending_why(p);
	for (size_t i = p->stage_from; i < p->wf->ntasks; i++) {
		const char *t;
		if (!select_pending(p, ask, (uint32_t)i, &t))
			continue;
		char *vn = xvisible(p->wf->tasks[i].name);
		char *vt = t ? xvisible(t) : NULL;
		printf("# '%s' pending: %s%s%s%s\n", vn, v,
		       vt ? " (for target '" : "", vt ? vt : "", vt ? "')" : "");
		free(vt);
		free(vn);
	}
	free(v);
}

/* Print what a run would do: the tasks that are not up to date, in
 * program order, with why when reason; of those the targets need, when
 * left (tasks left out) is not 0.  Paths are relative to the workdir, as
 * in a run: a workdir not made yet has no journal, so every task runs
 * whatever the current directory holds. */
static int
dry_run(struct plan *p, const bool *forced, bool all, bool reason,
	const struct select_ask *ask, size_t left)
{
	struct journal j;
	struct errbuf err;
	if (chdir(p->wf->workdir) < 0 && errno != ENOENT) {
		error_msg("cannot use the workdir %s: %s", p->wf->workdir,
			  strerror(errno));
		return EXIT_USAGE;
	}
	char *jpath = path_join(p->wf->workdir, JOURNAL_PATH);
	int rc = journal_open(&j, jpath, false, &err);
	free(jpath);
	if (rc < 0) {
		error_msg("%s", err.msg);
		return EXIT_USAGE;
	}
	struct resume rs;
	resume_plan_eager(&rs, p, &j, forced, all, ask);
	dry_run_stages(p, &rs, &j, forced, all, ask);
	left = 0; /* those of the stages expanded too */
	for (uint32_t t = 0; t < p->dag.tasks.n; t++)
		left += p->dag.tasks.v[t].state == TASK_LEFT_OUT;
	struct strbuf cmd = STRBUF_INIT, lab = STRBUF_INIT;
	char *vn = xvisible(p->wf->name), *vw = xvisible(p->wf->workdir);
	printf("# workflow '%s': %zu task%s, run in %s\n", vn, p->dag.tasks.n,
	       p->dag.tasks.n == 1 ? "" : "s", vw);
	free(vn);
	free(vw);
	/* on a terminal, control characters in names are shown, never
	 * acted on; into a file or pipe the commands stay as they run */
	bool tty = isatty(STDOUT_FILENO);
	if (left)
		printf("# %zu of them left out: not needed by what is asked "
		       "for\n", left);
	if (rs.nskip)
		printf("# %zu of them up to date: not run\n", rs.nskip);
	size_t pending = undo_pending(&j);
	if (pending)
		printf("# a killed run left what %zu task%s started from in "
		       ".wfrun/saved: a run puts it back first, and may then "
		       "find more up to date than this says\n", pending,
		       pending == 1 ? "" : "s");
	dry_run_originals(p, &rs);
	/* Program order is a valid order: every edge points forward. */
	for (uint32_t t = 0; t < p->dag.tasks.n; t++) {
		if (rs.why[t] == RESUME_SKIP || rs.why[t] == RESUME_LEFT_OUT)
			continue;
		strbuf_reset(&cmd);
		strbuf_reset(&lab);
		plan_label(p, t, &lab);
		plan_command(p, t, &cmd);
		if (reason) {
			strbuf_adds(&lab, ": ");
			resume_reason(&rs, p, t, &lab);
		}
		char *vl = xvisible(lab.buf);
		char *vc = tty ? xvisible(cmd.buf) : NULL;
		printf("# %s\n%s\n", vl, vc ? vc : cmd.buf);
		free(vl);
		free(vc);
	}
	dry_run_pending(p, ask);
	strbuf_release(&cmd);
	strbuf_release(&lab);
	resume_release(&rs);
	journal_release(&j);
	return EXIT_OK;
}

/* --force NAMES: the workflow tasks they name; -1 on an unknown name. */
static int
forced_tasks(const struct workflow *wf, const struct strvec *names,
	     bool *forced)
{
	for (size_t i = 0; i < names->n; i++) {
		size_t k;
		for (k = 0; k < wf->ntasks; k++)
			if (!strcmp(wf->tasks[k].name, names->v[i]))
				break;
		if (k < wf->ntasks) {
			forced[k] = true;
			continue;
		}
		const char **cands = xcalloc(wf->ntasks + 1, sizeof(char *));
		for (k = 0; k < wf->ntasks; k++)
			cands[k] = wf->tasks[k].name;
		const char *sug = closest_word(names->v[i], cands, wf->ntasks);
		error_msg("--force: %s has no task named '%s'%s%s%s", wf->file,
			  names->v[i], sug ? "; did you mean '" : "",
			  sug ? sug : "", sug ? "'?" : "");
		free(cands);
		return -1;
	}
	return 0;
}

struct run_args {
	struct runner_opts o;
	bool dry, reason;
	bool list;              /* --list: wfrun list */
	struct strvec force;    /* --force TASK, the names */
	struct select_ask ask;  /* the targets, --until */
	char *trace;            /* --trace, absolute */
	const char *resources;
	bool slurm;             /* --slurm: the allocation's nodes */
	const char *slurm_file; /* --slurm -r FILE: its <slurm> */
	struct cli_shared sh;   /* into o and resources */
};

static int
parse_fetch(const char *arg, int *fetch)
{
	if (!strcmp(arg, "all"))
		*fetch = FETCH_ALL;
	else if (!strcmp(arg, "final"))
		*fetch = FETCH_FINAL;
	else if (!strcmp(arg, "none"))
		*fetch = FETCH_NONE;
	else {
		error_msg("--fetch wants all, final or none, not '%s'", arg);
		return -1;
	}
	return 0;
}

/* The options of run into *ctx, a struct run_args. */
static int
run_opt(int c, const char *arg, void *ctx)
{
	struct run_args *a = ctx;
	switch (c) {
	case 'n':
		a->dry = true;
		break;
	case 'k':
		a->o.keep_going = true;
		break;
	case 'T':
		free(a->trace);
		a->trace = path_absolute(arg);
		break;
	case 'A':
		a->o.accept_new_host_keys = true;
		break;
	case 'f':
		return parse_fetch(arg, &a->o.fetch);
	case 'L':
		a->o.relearn = true;
		break;
	case 'F':
		VEC_PUSH(a->force, (char *)arg);
		break;
	case 'a':
		a->o.force_all = true;
		break;
	case 'R':
		a->reason = true;
		break;
	case 'K':
		a->o.keep_temp = true;
		break;
	case 'S':
		a->slurm = true;
		break;
	case 'U':
		a->ask.until = arg;
		break;
	case 'l':
		a->list = true;
		break;
	case 'E':
		a->o.container_engine = arg;
		break;
	default:
		return cli_shared_opt(c, arg, &a->sh);
	}
	return 0;
}

/* Run the plan on this machine, or on the workers of cl. */
static int
run_plan(struct plan *p, struct runner_opts *o, const struct cluster *cl)
{
	char *agent = agent_path();
	o->cluster = cl;
	o->agent_path = agent;
	if (cl && ssh_global_init())
		die("cannot initialise libssh2");
	int rc = runner_run(p, o);
	if (cl)
		ssh_global_exit();
	free(agent);
	return rc;
}

/* Load the workflow (and the resources), then run it or print it. */
static int
run(struct run_args *a, const char *file)
{
	if (!a->o.cores)
		a->o.cores = local_cores();
	a->o.memory = cli_memory();
	a->o.scale_cores = cli_scale_cores();
	a->o.trace_path = a->trace;
	struct cluster cl;
	struct workflow wf;
	struct plan p;
	int rc = cli_load(a->resources, false, file, a->trace, a->o.cores, &cl,
			  &wf, &p);
	if (!rc && a->slurm_file)
		rc = cli_slurm_file(a->slurm_file, &cl);
	bool *forced = xcalloc(wf.ntasks + 1, sizeof(bool));
	if (!rc && forced_tasks(&wf, &a->force, forced) < 0)
		rc = EXIT_USAGE;
	a->o.forced = forced;
	a->o.ask = &a->ask;
	size_t left = 0;
	struct errbuf err;
	if (!rc && select_tasks(&p, &a->ask, &left, &err) < 0) {
		error_msg("%s", err.msg);
		rc = EXIT_USAGE;
	}
	if (!rc)
		rc = a->dry ? dry_run(&p, forced, a->o.force_all, a->reason,
				      &a->ask, left)
			    : run_plan(&p, &a->o, a->resources ? &cl : NULL);
	free(forced);
	select_release(&a->ask);
	plan_release(&p);
	workflow_release(&wf);
	resources_release(&cl);
	return rc;
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
		{ "disk-bw", required_argument, NULL, 'D' },
		{ "relearn", no_argument, NULL, 'L' },
		{ "learn", required_argument, NULL, 'P' },
		{ "no-preempt", no_argument, NULL, 'W' },
		{ "fetch", required_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "force", required_argument, NULL, 'F' },
		{ "forceall", no_argument, NULL, 'a' },
		{ "reason", no_argument, NULL, 'R' },
		{ "keep-temp", no_argument, NULL, 'K' },
		{ "slurm", no_argument, NULL, 'S' },
		{ "until", required_argument, NULL, 'U' },
		{ "list", no_argument, NULL, 'l' },
		CLI_VARS_OPTIONS,
		CLI_RESOURCE_OPTS,
		{ "container-engine", required_argument, NULL, 'E' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cli_spec spec = {
		"j:nkqvr:", opts, run_opt, 1, INT_MAX,
		"usage: wfrun [run] [options] WORKFLOW.yaml [TARGET...]\n", true,
		NULL
	};
	struct run_args a = { .sh = CLI_SHARED(a.o, a.resources) };
	int rc = cli_parse(argc, argv, &spec, &a);
	if (a.slurm) {
		a.slurm_file = a.resources; /* its <slurm>, for lost-after */
		a.resources = cli_slurm;
	}
	if (!rc)
		rc = cli_container_engine(a.o.container_engine);
	if (!rc && a.list && argc - optind > 1) {
		error_msg("--list takes one workflow file, not targets");
		rc = EXIT_USAGE;
	} else if (!rc && a.list) {
		rc = list_workflow(argv[optind], false);
	} else if (!rc) {
		a.ask.targets = (const char *const *)argv + optind + 1;
		a.ask.n = (size_t)(argc - optind - 1);
		rc = run(&a, argv[optind]);
	}
	VEC_FREE(a.force);
	free(a.trace);
	return rc;
}
