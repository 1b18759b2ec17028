/* cli: the options and the loading every subcommand shares (cli.h). */
#include "cli.h"

#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "contain.h"
#include "path.h"
#include "place.h"
#include "resources.h"
#include "slurm.h"
#include "slurm_alloc.h"
#include "slurm_jobs.h"
#include "swenv.h"
#include "util.h"

/* --set and --vars, in the order given (pointers into argv). */
static VEC(const char *) cli_sets, cli_vars_files;

/* The operand of run and sim, one workflow file (struct cli_spec). */
static int
workflow_operand(int argc, int max, const char *lack, const char *usage)
{
	/* (run: the targets after the file) */
	if (optind < argc && argc - optind <= max && !lack)
		return EXIT_OK;
	if (lack)
		error_msg("%s", lack);
	else
		error_msg(optind == argc ? "no workflow file given"
					 : "give one workflow file, not %d",
			  argc - optind);
	fputs(usage, stderr);
	return EXIT_USAGE;
}

const char *cli_command = "run";

int
cli_parse(int argc, char **argv, const struct cli_spec *s, void *ctx)
{
	int c;
	optind = 1;
	cli_sets.n = cli_vars_files.n = 0;
	while ((c = getopt_long(argc, argv, s->shortopts, s->longopts,
				NULL)) != -1) {
		switch (c) {
		case CLI_SET:
			VEC_PUSH(cli_sets, optarg);
			break;
		case CLI_VARS:
			VEC_PUSH(cli_vars_files, optarg);
			break;
		case 'q':
			log_level = 0;
			break;
		case 'v':
			log_level = 2;
			break;
		case '?':
			fprintf(stderr, "Try 'wfrun %s --help'.\n", cli_command);
			return EXIT_USAGE;
		default:
			if (s->fn(c, optarg, ctx) < 0)
				return EXIT_USAGE;
		}
	}
	if (s->workflow)
		return workflow_operand(argc, s->max,
					s->lack ? s->lack(ctx) : NULL, s->usage);
	int n = argc - optind;
	if (n < s->min || n > s->max) {
		error_msg("%s", s->usage);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* --memory and --scale-cores: what load_plan_guarded checks against and
 * the runner gives the local worker. */
static long long opt_memory;
static bool opt_scale_cores;

static int
parse_memory_arg(const char *s)
{
	if ((opt_memory = parse_memory(s)) <= 0) {
		error_msg("--memory wants a size with a unit (512M, 16G), not "
			  "'%s'", s);
		return -1;
	}
	return 0;
}

long long
cli_memory(void)
{
	return opt_memory ? opt_memory : contain_memory();
}

bool
cli_scale_cores(void)
{
	return opt_scale_cores;
}

long
parse_cores_arg(const char *s)
{
	long v;
	if (parse_long(s, &v) < 0 || v < 1 || v > 1000000) {
		error_msg("-j/--cores wants a number of cores >= 1, not '%s'", s);
		return -1;
	}
	return v;
}

static double
parse_disk_bw(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !(v > 0) || v > 1e9) {
		error_msg("--disk-bw wants the disk's bandwidth in MB/s, a "
			  "number > 0, not '%s'", s);
		return -1;
	}
	return v;
}

static int
parse_learn(const char *s, bool *paper)
{
	if (strcmp(s, "climb") && strcmp(s, "paper")) {
		error_msg("--learn wants climb or paper, not '%s'", s);
		return -1;
	}
	*paper = !strcmp(s, "paper");
	return 0;
}

static long
parse_io_executors(const char *s)
{
	long v;
	if (parse_long(s, &v) < 0 || v < 1) {
		error_msg("--io-executors wants a number >= 1, not '%s'", s);
		return -1;
	}
	return v;
}

int
cli_container_engine(const char *engine)
{
	struct errbuf err;
	if (swenv_engine_known(engine, &err) < 0) {
		error_msg("--container-engine: %s", err.msg);
		return EXIT_USAGE;
	}
	return 0;
}

int
cli_shared_opt(int c, const char *arg, void *ctx)
{
	const struct cli_shared *s = ctx;
	switch (c) {
	case 'j':
		return (*s->cores = parse_cores_arg(arg)) < 0 ? -1 : 0;
	case 'r':
		*s->resources = arg;
		return 0;
	case CLI_IO_EXECUTORS:
		*s->io_executors = parse_io_executors(arg);
		return *s->io_executors < 0 ? -1 : 0;
	case CLI_DISK_BW:
		return (*s->disk_bw = parse_disk_bw(arg)) < 0 ? -1 : 0;
	case CLI_NO_IO:
		*s->no_io = true;
		return 0;
	case CLI_LEARN:
		return parse_learn(arg, s->learn_paper);
	case CLI_NO_PREEMPT:
		*s->no_preempt = true;
		return 0;
	case CLI_MEMORY:
		return parse_memory_arg(arg);
	case CLI_SCALE_CORES:
		opt_scale_cores = true;
		return 0;
	}
	return 1;
}

long
local_cores(void)
{
	cpu_set_t set;
	if (!sched_getaffinity(0, sizeof(set), &set)) {
		int n = CPU_COUNT(&set);
		if (n > 0)
			return n;
	}
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? n : 1;
}

int
report_diags(struct diags *d, const char *file)
{
	int rc = EXIT_OK;
	if (d->nerrors) {
		diags_print(d, stderr);
		fprintf(stderr, "wfrun: %zu error%s in %s; nothing was run\n",
			d->nerrors, d->nerrors == 1 ? "" : "s", file);
		rc = EXIT_USAGE;
	} else if (d->list.n && log_level >= 1) {
		diags_print(d, stderr);
	}
	diags_release(d);
	return rc;
}

int
load_plan(const char *file, long cores, struct workflow *wf, struct plan *p)
{
	return load_plan_guarded(file, cores, wf, p, NULL, NULL, 0);
}

/* Task i asks for more than the most cores a worker has: with cores:
 * {max, min} or --scale-cores, it is given most, with a warning, or is an
 * error when that is below its min.  Whether it was either. */
static bool
scale_cores(struct workflow *wf, struct plan *p, size_t i, long most,
	    struct diags *d)
{
	struct wf_task *t = &wf->tasks[i];
	if (!t->cores_min && !opt_scale_cores)
		return false;
	long n = plan_fit_cores(t, most, opt_scale_cores);
	if (n < 0) {
		diag_error(d, t->cores_loc, "task '%s' needs at least %ld cores "
			   "(cores: {min: %ld}) but only %ld %s available",
			   t->name, t->cores_min, t->cores_min, most,
			   most == 1 ? "is" : "are");
		return true;
	}
	diag_warning(d, t->cores_loc, "task '%s' asks for %ld cores and is "
		     "given %ld, the most a worker has", t->name, t->cores, n);
	t->cores = n;
	t->cores_scaled = true;
	plan_set_cores(p, (uint32_t)i, n);
	return true;
}

int
load_plan_guarded(const char *file, long cores, struct workflow *wf,
		  struct plan *p, const char *const *files,
		  const char *const *what, size_t n)
{
	struct diags d;
	struct wf_settings set = { cli_vars_files.v, cli_vars_files.n,
				   cli_sets.v, cli_sets.n };
	diags_init(&d, file);
	memset(p, 0, sizeof(*p));
	if (workflow_load_set(wf, file, &set, &d) == 0) {
		/* Templates are checked even when some keys were wrong, so
		 * one run reports both; expansion needs a clean file. */
		plan_build_guarded(p, wf, &d, d.nerrors == 0, files, what, n);
		for (size_t i = 0; i < wf->ntasks; i++) {
			const struct wf_task *t = &wf->tasks[i];
			if (t->cores > cores && scale_cores(wf, p, i, cores, &d))
				continue;
			if (t->cores > cores)
				diag_error(&d, t->cores_loc, "task '%s' asks for "
					   "%ld cores but only %ld %s available; "
					   "lower cores or raise -j", t->name,
					   t->cores, cores,
					   cores == 1 ? "is" : "are");
		}
	}
	return report_diags(&d, file);
}

/* A task on a worker that uses the master's workdir (shared, or this
 * machine) would not see what staged workers made, and the stage would
 * not see what it made. */
static void
check_workdirs(const struct cluster *c, struct diags *d)
{
	const struct worker_spec *staged = NULL, *here = NULL;
	for (size_t i = 0; i < c->nworkers; i++) {
		const struct worker_spec *w = &c->workers[i];
		if (!w->local && !w->shared)
			staged = staged ? staged : w;
		else
			here = here ? here : w;
	}
	if (staged && c->slurm) {
		struct wf_loc l = { staged->line, 1 };
		diag_error(d, l, "worker '%s' has a workdir of its own "
			   "(shared=\"false\") and the nodes of <slurm> use the "
			   "master's: one run cannot mix them yet", staged->name);
	}
	if (staged && here) {
		struct wf_loc l = { here->line, 1 };
		diag_error(d, l, "worker '%s' uses the master's workdir (%s) and "
			   "worker '%s' a workdir of its own (shared=\"false\"): "
			   "one run cannot mix them yet; use one kind in a "
			   "resources file", here->name,
			   here->local ? "localhost" : "shared=\"true\"",
			   staged->name);
	}
}

/* <slurm>'s partition: that it exists, and what its nodes have
 * (s->node_cpus, s->node_mem_mb); 0 or EXIT_USAGE with what Slurm said. */
static int
slurm_partition(const char *file, struct slurm_spec *s)
{
	struct slurm_partition pi;
	struct errbuf err;
	if (slurm_partition_get(s->partition, &pi, &err) < 0) {
		error_msg("%s:%u: <slurm>: %s", file, s->line, err.msg);
		return EXIT_USAGE;
	}
	s->node_cpus = pi.cpus;
	s->node_mem_mb = pi.mem_mb;
	if (!s->partition) { /* the default one, named in messages */
		s->partition = pi.name;
		pi.name = NULL;
	}
	if (s->memory) {
		long m = slurm_parse_mem(s->memory);
		if (m > 0)
			s->node_mem_mb = m;
	}
	slurm_partition_release(&pi);
	return EXIT_OK;
}

static long cluster_max_cores(const struct cluster *c, long local,
			      bool spec);

/* Every task of p fits a node of <slurm>'s partition (or a worker):
 * EXIT_OK, or EXIT_USAGE naming those that do not. */
static int
slurm_fits(const struct cluster *c, const struct plan *p, long local)
{
	const struct slurm_spec *s = c->slurm;
	long cores = s->cores_per_node ? s->cores_per_node : s->node_cpus;
	struct cluster w = *c;
	w.slurm = NULL;
	long most = w.nworkers ? cluster_max_cores(&w, local, false) : 0;
	int rc = EXIT_OK;
	for (size_t i = 0; i < p->wf->ntasks; i++) {
		const struct wf_task *t = &p->wf->tasks[i];
		if (!p->pt[i].ninst || t->cores <= most)
			continue;
		if (t->cores > cores) {
			error_msg("task '%s' asks for %ld cores but a node of "
				  "Slurm partition '%s' has %ld",
				  t->name, t->cores, s->partition, cores);
			rc = EXIT_USAGE;
		}
		if (s->node_mem_mb &&
			   t->memory > (long long)s->node_mem_mb << 20) {
			error_msg("task '%s' asks for %lld MB of memory but a "
				  "node of Slurm partition '%s' has %ld MB",
				  t->name, t->memory >> 20, s->partition,
				  s->node_mem_mb);
			rc = EXIT_USAGE;
		}
	}
	return rc;
}

/* Load a resources file, printing every error; 0 or EXIT_USAGE.  spec:
 * as a description only (sim: nothing connects). */
static int
load_cluster(const char *file, bool spec, struct cluster *c)
{
	struct diags d;
	diags_init(&d, file);
	resources_load(c, file, &d);
	if (c->slurm && c->slurm->jobs && spec) {
		struct wf_loc l = { c->slurm->line, 1 };
		diag_error(&d, l, "<slurm submit=\"jobs\">: wfrun sim cannot "
			   "model Slurm's queue; simulate with <worker>s");
	} else if (c->slurm && c->slurm->jobs) {
		/* one worker stands for the jobs (slurm_jobs.h) */
		slurm_jobs_add_worker(c);
	}
	if (!spec)
		check_workdirs(c, &d);
	if (spec && c->slurm && !c->slurm->jobs && !c->nworkers) {
		struct wf_loc l = { c->slurm->line, 1 };
		diag_error(&d, l, "<slurm>: wfrun sim does not simulate the "
			   "nodes Slurm would give: describe them as <worker>s");
	}
	int rc = report_diags(&d, file);
	if (!rc && c->slurm && !spec)
		rc = slurm_partition(file, c->slurm);
	return rc;
}

const char cli_slurm[] = "the Slurm allocation";

int
cli_slurm_file(const char *file, struct cluster *c)
{
	struct cluster f;
	struct diags d;
	memset(&f, 0, sizeof(f));
	diags_init(&d, file);
	resources_load(&f, file, &d);
	int rc = report_diags(&d, file);
	if (!rc && (!f.slurm || f.nworkers)) {
		error_msg("--slurm -r %s: the file must have a <slurm> element "
			  "(its lost-after is used) and no <worker>: the "
			  "workers are the allocation's nodes", file);
		rc = EXIT_USAGE;
	}
	for (size_t i = 0; !rc && i < c->nworkers; i++)
		c->workers[i].lost_after = f.slurm->lost_after;
	resources_release(&f);
	return rc;
}

/* The workers of the allocation this process runs in, or EXIT_USAGE. */
static int
slurm_cluster(struct cluster *c)
{
	struct errbuf err;
	if (slurm_cluster_from_env(c, &err) < 0) {
		error_msg("--slurm: %s", err.msg);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* The most cores one worker of c offers (cores when c is NULL); a remote
 * worker whose cores are not given counts as unlimited until it answers. */
static long
cluster_max_cores(const struct cluster *c, long local, bool spec)
{
	if (!c)
		return local;
	if (c->slurm && !spec)
		return 1L << 30; /* slurm_fits says */
	long most = 0;
	for (size_t i = 0; i < c->nworkers; i++) {
		const struct worker_spec *w = &c->workers[i];
		long n = w->cores ? w->cores : w->local ? local : 1L << 30;
		if (n > most)
			most = n;
	}
	return most;
}

/* The most memory one worker of c offers (NULL: this machine, local); a
 * worker without <memory> is not limited; Slurm's nodes: slurm_fits. */
static long long
cluster_max_memory(const struct cluster *c, long long local)
{
	if (!c)
		return local ? local : LLONG_MAX;
	if (c->slurm)
		return LLONG_MAX;
	long long most = 0;
	for (size_t i = 0; i < c->nworkers; i++) {
		const struct worker_spec *w = &c->workers[i];
		long long n = w->memory		   ? w->memory
			      : w->local && local ? local
						  : LLONG_MAX;
		if (n > most)
			most = n;
	}
	return most;
}

/* Every task of p fits the memory of a worker of c (NULL: this machine):
 * EXIT_OK, or EXIT_USAGE with an error at each task's memory key. */
static int
memory_fits(const char *file, const struct cluster *c, const struct plan *p)
{
	long long most = cluster_max_memory(c, cli_memory());
	struct diags d;
	diags_init(&d, file);
	for (size_t i = 0; i < p->wf->ntasks; i++) {
		const struct wf_task *t = &p->wf->tasks[i];
		if (!p->pt[i].ninst || t->memory <= most)
			continue;
		char a[32], b[32];
		diag_error(&d, t->memory_loc, "task '%s' asks for %s of memory "
			   "but %s %s; lower memory or %s", t->name,
			   place_size(t->memory, a, sizeof(a)),
			   c ? "no worker has more than" : "this machine has",
			   place_size(most, b, sizeof(b)),
			   c ? "give a worker more <memory>" : "raise --memory");
	}
	return report_diags(&d, file);
}

int
cli_load(const char *resources, bool spec, const char *file,
	 const char *trace, long cores, struct cluster *c,
	 struct workflow *wf, struct plan *p)
{
	memset(c, 0, sizeof(*c));
	memset(wf, 0, sizeof(*wf));
	memset(p, 0, sizeof(*p));
	int rc = resources == cli_slurm ? slurm_cluster(c)
		 : resources		 ? load_cluster(resources, spec, c)
					 : EXIT_OK;
	if (rc)
		return rc;
	const struct cluster *have = resources ? c : NULL;
	if (resources == cli_slurm)
		resources = NULL; /* no file of the user's to guard */
	/* The runner writes events.jsonl beside the trace. */
	char *dir = trace ? path_dirname(trace) : NULL;
	char *events = dir ? path_join(dir, "events.jsonl") : NULL;
	const char *files[3] = { 0 }, *what[3] = { 0 };
	size_t n = 0;
	if (resources) {
		files[n] = resources;
		what[n++] = "the resources file";
	}
	if (trace) {
		files[n] = trace;
		what[n++] = "the trace file of --trace";
		files[n] = events;
		what[n++] = "the events file beside the trace";
	}
	rc = load_plan_guarded(file, cluster_max_cores(have, cores, spec),
			       wf, p, files, what, n);
	if (!rc && have && c->slurm && !spec)
		rc = slurm_fits(c, p, cores);
	if (!rc && !spec)
		rc = memory_fits(file, have, p);
	/* nor may wfrun write its trace over a file it must keep */
	struct strbuf why = STRBUF_INIT;
	for (size_t i = n - (trace ? 2 : 0); !rc && i < n; i++)
		if (plan_claims(p, files[i], what[i], &why)) {
			error_msg("%s %s: %s; choose another path",
				  i == n - 2 ? "--trace" : "the events file",
				  files[i], why.buf);
			rc = EXIT_USAGE;
		}
	strbuf_release(&why);
	free(events);
	free(dir);
	return rc;
}

char *
agent_path(void)
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0)
		return xstrdup("wfrun-worker");
	buf[n] = '\0';
	char *dir = path_dirname(buf);
	char *p = xasprintf("%s/wfrun-worker", dir);
	free(dir);
	return p;
}
