/* wfrun run: parse the run options, load the plan, run it or print it. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "journal.h"
#include "path.h"
#include "resources.h"
#include "resume.h"
#include "runner.h"
#include "stage.h"
#include "util.h"
#include "wfrun.h"

/* Print what a run would do: the tasks that are not up to date, in
 * program order, with why when reason. */
static int
dry_run(struct plan *p, const bool *forced, bool all, bool reason)
{
	struct journal j;
	struct errbuf err;
	char *jpath = path_join(p->wf->workdir, JOURNAL_PATH);
	int rc = journal_open(&j, jpath, false, &err);
	free(jpath);
	if (rc < 0) {
		error_msg("%s", err.msg);
		return EXIT_USAGE;
	}
	struct resume rs;
	resume_plan(&rs, p, &j, forced, all);
	struct strbuf cmd = STRBUF_INIT, lab = STRBUF_INIT;
	printf("# workflow '%s': %zu task%s, run in %s\n", p->wf->name,
	       p->dag.tasks.n, p->dag.tasks.n == 1 ? "" : "s", p->wf->workdir);
	if (rs.nskip)
		printf("# %zu of them up to date: not run\n", rs.nskip);
	/* Program order is a valid order: every edge points forward. */
	for (uint32_t t = 0; t < p->dag.tasks.n; t++) {
		if (rs.why[t] == RESUME_SKIP)
			continue;
		strbuf_reset(&cmd);
		strbuf_reset(&lab);
		plan_label(p, t, &lab);
		plan_command(p, t, &cmd);
		if (reason) {
			strbuf_adds(&lab, ": ");
			resume_reason(&rs, p, t, &lab);
		}
		printf("# %s\n%s\n", lab.buf, cmd.buf);
	}
	strbuf_release(&cmd);
	strbuf_release(&lab);
	resume_release(&rs);
	journal_release(&j);
	return 0;
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
		{ NULL, 0, NULL, 0 },
	};
	struct runner_opts o;
	memset(&o, 0, sizeof(o));
	bool dry = false, reason = false;
	struct strvec force = { 0 };
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
		case 'I':
			if ((o.io_executors = parse_io_executors(optarg)) < 0) {
				free(trace);
				return EXIT_USAGE;
			}
			break;
		case 'B':
			o.no_io = true;
			break;
		case 'D':
			if ((o.disk_bw = parse_disk_bw(optarg)) < 0) {
				free(trace);
				return EXIT_USAGE;
			}
			break;
		case 'f':
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
		case 'L':
			o.relearn = true;
			break;
		case 'W':
			o.no_preempt = true;
			break;
		case 'P':
			if (parse_learn(optarg, &o.learn_paper) < 0) {
				free(trace);
				return EXIT_USAGE;
			}
			break;
		case 'F':
			VEC_PUSH(force, optarg);
			break;
		case 'a':
			o.force_all = true;
			break;
		case 'R':
			reason = true;
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
	bool *forced = xcalloc(wf.ntasks + 1, sizeof(bool));
	if (!rc && forced_tasks(&wf, &force, forced) < 0)
		rc = EXIT_USAGE;
	o.forced = forced;
	if (!rc) {
		if (dry) {
			rc = dry_run(&p, forced, o.force_all, reason);
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
	free(forced);
	VEC_FREE(force);
	plan_release(&p);
	workflow_release(&wf);
	resources_release(&cl);
	free(trace);
	return rc;
}
