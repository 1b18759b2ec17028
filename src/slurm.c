#include "slurm.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "resources.h"

/* More hosts than this in one list is a mistake, not a cluster. */
#define MAX_HOSTS 100000

/* One bracket's ranges, "1-3,07,9-10": each number with its width (a
 * leading zero pads all numbers of the range to it). */
struct range {
	unsigned long lo, hi;
	int width;
};
struct ranges {
	struct range *v;
	size_t n, alloc;
};

static int
parse_ranges(const char *s, size_t len, struct ranges *out,
	     struct errbuf *err)
{
	const char *p = s, *end = s + len;
	while (p < end) {
		struct range r = { 0, 0, 0 };
		const char *q = p;
		if (!isdigit((unsigned char)*p))
			return errprintf(err, "a range wants digits");
		errno = 0;
		char *e;
		r.lo = strtoul(p, &e, 10);
		r.width = *p == '0' && e - p > 1 ? (int)(e - q) : 0;
		r.hi = r.lo;
		p = e;
		if (p < end && *p == '-') {
			p++;
			if (p >= end || !isdigit((unsigned char)*p))
				return errprintf(err, "a range wants digits "
						 "after '-'");
			r.hi = strtoul(p, &e, 10);
			p = e;
		}
		if (errno || r.hi < r.lo || r.hi - r.lo >= MAX_HOSTS)
			return errprintf(err, "a range must go up, by "
					 "fewer than %d", MAX_HOSTS);
		VEC_PUSH(*out, r);
		if (p < end && *p != ',')
			return errprintf(err, "unexpected '%c' in a range",
					 *p);
		if (p < end)
			p++;
	}
	return 0;
}

/* Expand one host expression (no top-level comma), its brackets one
 * after the other, into out. */
static int
expand_one(const char *prefix, const char *s, size_t len, struct strvec *out,
	   struct errbuf *err)
{
	const char *open = memchr(s, '[', len);
	if (!open) {
		if (out->n >= MAX_HOSTS)
			return errprintf(err, "more than %d hosts", MAX_HOSTS);
		VEC_PUSH(*out, xasprintf("%s%.*s", prefix, (int)len, s));
		return 0;
	}
	const char *close = memchr(open, ']', len - (size_t)(open - s));
	if (!close)
		return errprintf(err, "'%.*s': '[' without ']'", (int)len, s);
	struct ranges rs = { 0 };
	if (parse_ranges(open + 1, (size_t)(close - open - 1), &rs, err) < 0) {
		char why[sizeof(err->msg)];
		memcpy(why, err->msg, sizeof(why));
		VEC_FREE(rs);
		return errprintf(err, "'%.*s': %.900s", (int)len, s, why);
	}
	int rc = 0;
	for (size_t i = 0; !rc && i < rs.n; i++)
		for (unsigned long k = rs.v[i].lo; !rc && k <= rs.v[i].hi;
		     k++) {
			char *pre = xasprintf("%s%.*s%0*lu", prefix,
					      (int)(open - s), s,
					      rs.v[i].width, k);
			rc = expand_one(pre, close + 1,
					len - (size_t)(close + 1 - s), out, err);
			free(pre);
		}
	VEC_FREE(rs);
	return rc;
}

int
slurm_hostlist(const char *s, struct strvec *out, struct errbuf *err)
{
	size_t start = out->n;
	const char *p = s;
	int depth = 0;
	if (!*s)
		return errprintf(err, "an empty host list");
	for (const char *q = s;; q++) {
		if (*q == '[')
			depth++;
		else if (*q == ']')
			depth--;
		if (depth < 0 || depth > 1) {
			errprintf(err, "'%s': brackets do not pair", s);
			goto fail;
		}
		if ((*q == ',' && !depth) || !*q) {
			if (q == p) {
				errprintf(err, "'%s': an empty name", s);
				goto fail;
			}
			if (!*q && depth) {
				errprintf(err, "'%s': '[' without ']'", s);
				goto fail;
			}
			if (expand_one("", p, (size_t)(q - p), out, err) < 0)
				goto fail;
			p = q + 1;
		}
		if (!*q)
			break;
	}
	return 0;
fail:
	while (out->n > start)
		free(out->v[--out->n]);
	return -1;
}

int
slurm_cpus(const char *s, size_t n, long *out, struct errbuf *err)
{
	size_t k = 0;
	const char *p = s;
	while (*p) {
		char *e;
		errno = 0;
		long c = strtol(p, &e, 10);
		if (e == p || errno || c <= 0)
			return errprintf(err, "'%s': CPU counts must be "
					 "positive numbers", s);
		unsigned long times = 1;
		p = e;
		if (*p == '(') {
			if (p[1] != 'x')
				return errprintf(err, "'%s': '(' wants 'xN)'", s);
			times = strtoul(p + 2, &e, 10);
			if (e == p + 2 || *e != ')' || !times)
				return errprintf(err, "'%s': '(' wants 'xN)'", s);
			p = e + 1;
		}
		for (unsigned long i = 0; i < times; i++) {
			if (k >= n)
				return errprintf(err, "'%s' counts more than "
						 "the %zu nodes", s, n);
			out[k++] = c;
		}
		if (*p == ',')
			p++;
		else if (*p)
			return errprintf(err, "'%s': unexpected '%c'", s, *p);
	}
	if (k != n)
		return errprintf(err, "'%s' counts %zu nodes, not %zu", s, k, n);
	return 0;
}

static const char *
env_of(const char *a, const char *b)
{
	const char *v = getenv(a);
	return v && *v ? v : b ? getenv(b) : NULL;
}

int
slurm_cluster_from_env(struct cluster *c, struct errbuf *err)
{
	const char *job = env_of("SLURM_JOB_ID", "SLURM_JOBID");
	const char *nodes = env_of("SLURM_JOB_NODELIST", "SLURM_NODELIST");
	const char *cpus = env_of("SLURM_JOB_CPUS_PER_NODE", NULL);
	if (!job || !nodes || !*nodes)
		return errprintf(err, "not inside a Slurm allocation "
				 "(SLURM_JOB_ID and SLURM_JOB_NODELIST are "
				 "not set): run wfrun --slurm in salloc or "
				 "in an sbatch script");
	if (!cpus || !*cpus)
		return errprintf(err, "SLURM_JOB_CPUS_PER_NODE is not set in "
				 "Slurm allocation %s", job);
	struct strvec hosts = { 0 };
	char why[sizeof(err->msg)];
	if (slurm_hostlist(nodes, &hosts, err) < 0) {
		memcpy(why, err->msg, sizeof(why));
		errprintf(err, "SLURM_JOB_NODELIST: %s", why);
		VEC_FREE(hosts);
		return -1;
	}
	long *ncpu = xcalloc(hosts.n, sizeof(long));
	if (slurm_cpus(cpus, hosts.n, ncpu, err) < 0) {
		memcpy(why, err->msg, sizeof(why));
		errprintf(err, "SLURM_JOB_CPUS_PER_NODE: %s", why);
		for (size_t i = 0; i < hosts.n; i++)
			free(hosts.v[i]);
		VEC_FREE(hosts);
		free(ncpu);
		return -1;
	}
	c->file = xasprintf("the Slurm allocation %s", job);
	c->workers = xcalloc(hosts.n, sizeof(*c->workers));
	for (size_t i = 0; i < hosts.n; i++) {
		struct worker_spec *w = &c->workers[c->nworkers++];
		w->name = hosts.v[i];
		w->host = xstrdup(hosts.v[i]);
		w->cores = ncpu[i];
		w->shared = true;
		w->srun = true;
		w->timeout = 60; /* a step may wait for its node a while */
		w->lost_after = 20;
	}
	free(ncpu);
	VEC_FREE(hosts);
	return 0;
}

char **
slurm_agent_argv(const char *node, long cores, const char *agent,
		 const char *job)
{
	char **argv = xcalloc(16, sizeof(char *));
	size_t n = 0;
	argv[n++] = xstrdup("srun");
	if (job)
		argv[n++] = xasprintf("--jobid=%s", job);
	argv[n++] = xstrdup("--nodes=1");
	argv[n++] = xstrdup("--ntasks=1");
	argv[n++] = xasprintf("--nodelist=%s", node);
	argv[n++] = xasprintf("--cpus-per-task=%ld", cores);
	/* the tasks the agent starts share its step's resources */
	argv[n++] = xstrdup("--mem=0");
	argv[n++] = xstrdup("--overlap");
	argv[n++] = xstrdup("--kill-on-bad-exit=1");
	argv[n++] = xstrdup("--quiet");
	argv[n++] = xstrdup("--job-name=wfrun-worker");
	argv[n++] = xstrdup(agent);
	return argv;
}

void
slurm_argv_free(char **argv)
{
	if (!argv)
		return;
	for (char **a = argv; *a; a++)
		free(*a);
	free(argv);
}
