#include "sim.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "iopol.h"
#include "resources.h"
#include "sched.h"
#include "trace.h"
#include "util.h"

/* --- the model file ------------------------------------------------------ */

struct words {
	char *w[16];
	unsigned col[16];
	int n;
};

static void
split(char *line, struct words *ws)
{
	ws->n = 0;
	char *s = line;
	while (*s && ws->n < 16) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '#')
			break;
		ws->col[ws->n] = (unsigned)(s - line) + 1;
		ws->w[ws->n++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = '\0';
	}
}

static bool
number(const char *s, double *v)
{
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	return end != s && !*end && !errno && isfinite(*v);
}

/* key VALUE pairs from word i on; false after reporting an error. */
static bool
pairs(struct diags *d, unsigned line, struct words *ws, int i,
      const char *const *keys, double *vals, bool *seen)
{
	for (; i < ws->n; i += 2) {
		struct wf_loc l = { line, ws->col[i] };
		int k;
		for (k = 0; keys[k]; k++)
			if (!strcmp(ws->w[i], keys[k]))
				break;
		if (!keys[k]) {
			struct strbuf all = STRBUF_INIT;
			for (int j = 0; keys[j]; j++)
				strbuf_addf(&all, "%s%s", j ? ", " : "", keys[j]);
			diag_error(d, l, "unknown word '%s' here; expected one "
				   "of: %s", ws->w[i], all.buf);
			strbuf_release(&all);
			return false;
		}
		if (i + 1 >= ws->n) {
			diag_error(d, l, "'%s' wants a number after it",
				   ws->w[i]);
			return false;
		}
		if (!number(ws->w[i + 1], &vals[k]) || vals[k] < 0) {
			struct wf_loc lv = { line, ws->col[i + 1] };
			diag_error(d, lv, "'%s' wants a number >= 0, not '%s'",
				   ws->w[i], ws->w[i + 1]);
			return false;
		}
		seen[k] = true;
	}
	return true;
}

static int
task_index(const struct workflow *wf, const char *name)
{
	for (size_t i = 0; i < wf->ntasks; i++)
		if (!strcmp(wf->tasks[i].name, name))
			return (int)i;
	return -1;
}

static void
model_task(struct sim_model *m, const struct workflow *wf, struct diags *d,
	   unsigned line, struct words *ws)
{
	struct wf_loc l = { line, ws->col[0] };
	if (ws->n < 4) {
		diag_error(d, l, "write 'task NAME seconds S [jitter F]' or "
			   "'task NAME writes MB'");
		return;
	}
	int t = task_index(wf, ws->w[1]);
	if (t < 0) {
		struct wf_loc ln = { line, ws->col[1] };
		diag_error(d, ln, "the workflow has no task named '%s'",
			   ws->w[1]);
		return;
	}
	struct sim_task_model *tm = &m->task[t];
	if (tm->kind != SIM_NONE) {
		diag_error(d, l, "task '%s' is already modelled", ws->w[1]);
		return;
	}
	static const char *const kw[] = { "seconds", "jitter", "writes", NULL };
	double v[3] = { 0, 0, 0 };
	bool seen[3] = { false, false, false };
	if (!pairs(d, line, ws, 2, kw, v, seen))
		return;
	if (seen[2] && (seen[0] || seen[1])) {
		diag_error(d, l, "task '%s': give either seconds or writes, "
			   "not both", ws->w[1]);
		return;
	}
	if (seen[2]) {
		if (!wf->tasks[t].io) {
			diag_error(d, l, "task '%s' is not an I/O task (io: "
				   "true): give its time with 'seconds'",
				   ws->w[1]);
			return;
		}
		tm->kind = SIM_WRITES;
		tm->mb = v[2];
		return;
	}
	if (!seen[0]) {
		diag_error(d, l, "task '%s': give its time with 'seconds S'",
			   ws->w[1]);
		return;
	}
	if (v[1] >= 1) {
		diag_error(d, l, "jitter is a fraction below 1, not %g", v[1]);
		return;
	}
	tm->kind = SIM_SECONDS;
	tm->secs = v[0];
	tm->jitter = v[1];
}

static void
model_device(struct sim_model *m, struct diags *d, unsigned line,
	     struct words *ws)
{
	struct wf_loc l = { line, ws->col[0] };
	if (ws->n < 4) {
		diag_error(d, l, "write 'device NAME|* bandwidth B [knee K] "
			   "[alpha A] [stream R]'");
		return;
	}
	static const char *const kw[] = { "bandwidth", "knee", "alpha",
					  "stream", NULL };
	double v[4] = { 0, 1e18, 0, 0 };
	bool seen[4] = { false, false, false, false };
	if (!pairs(d, line, ws, 2, kw, v, seen))
		return;
	if (!seen[0] || !(v[0] > 0)) {
		diag_error(d, l, "device '%s' needs 'bandwidth B' with B > 0",
			   ws->w[1]);
		return;
	}
	for (size_t i = 0; i < m->ndev; i++)
		if (!strcmp(m->dev[i].name, ws->w[1])) {
			diag_error(d, l, "device '%s' is already modelled",
				   ws->w[1]);
			return;
		}
	m->dev = xrealloc(m->dev, (m->ndev + 1) * sizeof(*m->dev));
	struct sim_dev_model *dm = &m->dev[m->ndev++];
	dm->name = xstrdup(ws->w[1]);
	dm->B = v[0];
	dm->knee = v[1];
	dm->alpha = v[2];
	dm->stream = v[3];
}

int
sim_model_load(struct sim_model *m, const char *path,
	       const struct workflow *wf, struct diags *d)
{
	memset(m, 0, sizeof(*m));
	m->ntask = wf->ntasks;
	m->task = xcalloc(wf->ntasks ? wf->ntasks : 1, sizeof(*m->task));
	m->seed = 1;
	FILE *f = fopen(path, "r");
	if (!f) {
		struct wf_loc l = { 0, 0 };
		diag_error(d, l, "cannot read the model: %s", strerror(errno));
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	unsigned ln = 0;
	while (getline(&line, &cap, f) > 0) {
		ln++;
		line[strcspn(line, "\r\n")] = '\0';
		struct words ws;
		split(line, &ws);
		if (!ws.n)
			continue;
		struct wf_loc l = { ln, ws.col[0] };
		if (!strcmp(ws.w[0], "task")) {
			model_task(m, wf, d, ln, &ws);
		} else if (!strcmp(ws.w[0], "device")) {
			model_device(m, d, ln, &ws);
		} else if (!strcmp(ws.w[0], "seed")) {
			long s;
			if (ws.n != 2 || parse_long(ws.w[1], &s) < 0 || s < 0)
				diag_error(d, l, "write 'seed N' with N >= 0");
			else
				m->seed = (uint64_t)s;
		} else {
			diag_error(d, l, "unknown statement '%s'; expected task, "
				   "device or seed", ws.w[0]);
		}
	}
	free(line);
	fclose(f);
	for (size_t i = 0; i < wf->ntasks; i++)
		if (m->task[i].kind == SIM_NONE) {
			struct wf_loc l = { 0, 0 };
			diag_error(d, l, "task '%s' has no line in the model: "
				   "add 'task %s seconds S'%s", wf->tasks[i].name,
				   wf->tasks[i].name,
				   wf->tasks[i].io ? " or 'task NAME writes MB'"
						   : "");
		}
	return 0;
}

void
sim_model_release(struct sim_model *m)
{
	for (size_t i = 0; i < m->ndev; i++)
		free(m->dev[i].name);
	free(m->dev);
	free(m->task);
	memset(m, 0, sizeof(*m));
}

double
sim_law(const struct sim_dev_model *dm, long k)
{
	if (k <= 0)
		return 0;
	double f = k <= dm->knee ? 1 : 1 / (1 + dm->alpha * (k - dm->knee));
	double agg = dm->B * f;
	if (dm->stream > 0 && k * dm->stream < agg)
		agg = k * dm->stream;
	return agg;
}

/* --- the run ------------------------------------------------------------- */

struct sworker {
	const char *name;
	long cores, free, io, io_free;
	bool tried;
	uint32_t dev;             /* iopol device */
	const struct sim_dev_model *law;
};

struct simr {
	struct plan *p;
	const struct sim_model *m;
	const struct sim_opts *o;
	struct sworker *w;
	size_t nw;
	size_t asking;            /* dispatch: the worker being asked */
	struct sched sched;
	struct iopol pol;
	long *cores;              /* per task name */
	bool *io;
	double now;
	struct theap ends;        /* compute (and seconds) tasks */
	uint32_t *act;            /* writing tasks */
	size_t nact, aact;
	long *kdev;               /* writing tasks per device */
	double *rem;              /* per task: MB left to write */
	double *start, *submit;
	uint16_t *where;
	struct iopol_grant *grant;
	uint32_t *launches;       /* per task: a heap entry of an earlier
				     launch (stopped since) is stale */
	struct idset io_run;      /* I/O tasks running */
	uint8_t *stopped;         /* per task: stopped, still in act */
	VEC(struct iopol_running) way;
	VEC(uint32_t) sampled;    /* writers whose learner reads their
				     bytes so far (iopol_sample) */
	double next_sample;
	size_t running, done, preempted;
	uint32_t *ready;
	size_t nready, aready;
	uint64_t rng;
	int *epochs;
};

static double
uniform(struct simr *s)
{
	/* xorshift64*: reproducible for a seed */
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return (double)((s->rng * 2685821657736338717ULL) >> 11) /
	       9007199254740992.0;
}

static void
on_event(const struct iopol_event *e, void *arg)
{
	struct simr *s = arg;
	if (!strcmp(e->ev, "epoch_end"))
		s->epochs[e->name]++;
	if (s->o->events)
		events_write(s->o->events, s->now, e->key, e);
}

static bool
io_ok(uint32_t name, void *arg)
{
	struct simr *s = arg;
	return iopol_may_start(&s->pol, name, s->asking);
}

static void
launch(struct simr *s, uint32_t t, uint32_t tmpl, size_t wi)
{
	struct sworker *w = &s->w[wi];
	if (s->io[tmpl])
		w->io_free--;
	else
		w->free -= s->cores[tmpl];
	s->grant[t] = iopol_start(&s->pol, tmpl, wi, (long)s->sched.q[tmpl].n);
	s->where[t] = (uint16_t)wi;
	s->start[t] = s->now;
	s->running++;
	s->launches[t]++;
	if (s->io[tmpl])
		idset_add(&s->io_run, t);
	const struct sim_task_model *tm = &s->m->task[tmpl];
	if (tm->kind == SIM_WRITES) {
		s->rem[t] = tm->mb;
		ALLOC_GROW(s->act, s->nact + 1, s->aact);
		s->act[s->nact++] = t;
		s->kdev[w->dev]++;
		if (s->grant[t].sample) {
			if (!s->sampled.n)
				s->next_sample = s->now + AUTOBW_SAMPLE_S;
			VEC_PUSH(s->sampled, t);
		}
	} else {
		double d = tm->secs;
		if (tm->jitter > 0)
			d *= 1 + tm->jitter * (2 * uniform(s) - 1);
		theap_push(&s->ends, s->now + d, t, s->launches[t]);
	}
}

/* For iopol_spread: the I/O tasks running on worker wi, or -1 if it
 * cannot take one now. */
static long
io_busy(size_t wi, void *arg)
{
	const struct sworker *w = &((struct simr *)arg)->w[wi];
	return w->io_free > 0 ? w->io - w->io_free : -1;
}

static void
trace_end(struct simr *s, uint32_t t, const char *status, int exit_code,
	  long long wb)
{
	if (!s->o->trace)
		return;
	uint32_t tmpl = s->p->dag.tasks.v[t].tmpl;
	const struct wf_task *wt = &s->p->wf->tasks[tmpl];
	struct strbuf tag = STRBUF_INIT;
	plan_tag(s->p, t, &tag);
	struct trace_row row = {
		t + 1, wt->name, tag.buf, s->w[s->where[t]].name,
		wt->io ? "io" : "compute", s->cores[tmpl], s->grant[t].c,
		s->grant[t].epoch, status, exit_code, 1, s->submit[t],
		s->start[t], s->now, 0, 0, -1, -1, wb, -1, -1, -1,
	};
	trace_write(s->o->trace, &row);
	strbuf_release(&tag);
}

/* A running I/O task leaves its executor and its device. */
static void
io_leaves(struct simr *s, uint32_t t)
{
	s->w[s->where[t]].io_free++;
	s->running--;
	idset_del(&s->io_run, t);
}

/* Stop what iopol_make_way says must make way, as the runner does: back
 * to the queue, not a failure.  Its row says PREEMPTED, exit 137 (the
 * runner's SIGKILL). */
static void
make_way(struct simr *s)
{
	const struct dag *g = &s->p->dag;
	uint32_t name;
	while ((name = iopol_take_tight(&s->pol)) != UINT32_MAX) {
		s->way.n = 0;
		for (size_t i = 0; i < s->io_run.n; i++) {
			uint32_t t = s->io_run.v[i];
			uint32_t tmpl = g->tasks.v[t].tmpl;
			if (s->pol.nm[tmpl].grp != name || s->grant[t].epoch ||
			    !(s->grant[t].c > 0))
				continue;
			struct iopol_running x = { t, s->where[t], s->start[t],
						   &s->grant[t],
						   dag_out_only(g, t), false };
			VEC_PUSH(s->way, x);
		}
		if (!iopol_make_way(&s->pol, name, s->way.v, s->way.n))
			continue;
		for (size_t i = 0; i < s->way.n; i++) {
			uint32_t t = s->way.v[i].task;
			if (!s->way.v[i].stop)
				continue;
			uint32_t tmpl = g->tasks.v[t].tmpl;
			io_leaves(s, t);
			s->launches[t]++; /* its end, if timed, is stale */
			if (s->m->task[tmpl].kind == SIM_WRITES) {
				s->stopped[t] = 1;
				s->kdev[s->w[s->where[t]].dev]--;
			}
			iopol_abandon(&s->pol, tmpl, s->where[t], s->grant[t]);
			trace_end(s, t, "PREEMPTED", 137, -1);
			sched_push(&s->sched, tmpl, t);
			s->preempted++;
		}
		/* the stopped writers leave act in one pass */
		size_t j = 0;
		for (size_t i = 0; i < s->nact; i++) {
			uint32_t t = s->act[i];
			if (s->stopped[t])
				s->stopped[t] = 0;
			else
				s->act[j++] = t;
		}
		s->nact = j;
	}
}

static void
dispatch(struct simr *s)
{
	make_way(s);
	for (;;) {
		for (;;) {
			bool launched = false;
			for (size_t i = 0; i < s->nw; i++)
				s->w[i].tried = false;
			for (;;) {
				size_t best = s->nw;
				for (size_t i = 0; i < s->nw; i++)
					if (!s->w[i].tried &&
					    (best == s->nw ||
					     s->w[i].free > s->w[best].free))
						best = i;
				if (best == s->nw)
					break;
				s->w[best].tried = true;
				uint32_t tmpl;
				s->asking = best;
				uint32_t t = sched_pop_if(&s->sched, s->w[best].free,
							  s->w[best].io_free,
							  io_ok, s, &tmpl);
				if (t != UINT32_MAX && s->io[tmpl])
					best = iopol_spread(&s->pol, tmpl, best,
							    io_busy, s);
				if (t != UINT32_MAX) {
					launch(s, t, tmpl, best);
					launched = true;
					break;
				}
			}
			if (!launched)
				break;
		}
		if (!iopol_close_idle(&s->pol, !s->running))
			break;
	}
}

static void
finish(struct simr *s, uint32_t t)
{
	struct dag *g = &s->p->dag;
	uint32_t tmpl = g->tasks.v[t].tmpl;
	struct sworker *w = &s->w[s->where[t]];
	if (s->io[tmpl]) {
		io_leaves(s, t);
	} else {
		w->free += s->cores[tmpl];
		s->running--;
	}
	s->done++;
	/* what the task wrote, as the runner reads write_bytes */
	const struct sim_task_model *tm = &s->m->task[tmpl];
	long long wb = tm->kind == SIM_WRITES
			       ? (long long)(tm->mb * 1024.0 * 1024.0)
			       : -1;
	iopol_finish(&s->pol, tmpl, s->where[t], s->grant[t], s->start[t],
		     s->now, wb);
	trace_end(s, t, "COMPLETED", 0, wb);
	s->nready = 0;
	dag_complete(g, t, &s->ready, &s->nready, &s->aready);
	for (size_t i = 0; i < s->nready; i++) {
		s->submit[s->ready[i]] = s->now;
		sched_push(&s->sched, g->tasks.v[s->ready[i]].tmpl, s->ready[i]);
	}
	for (size_t i = 0; i < s->nready; i++) {
		uint32_t n = g->tasks.v[s->ready[i]].tmpl;
		iopol_ready(&s->pol, n, (long)s->sched.q[n].n);
	}
}

/* As the runner does every AUTOBW_SAMPLE_S s: pass what each sampled
 * writer has written so far to its learner. */
static void
sample(struct simr *s)
{
	size_t kept = 0;
	for (size_t i = 0; i < s->sampled.n; i++) {
		uint32_t t = s->sampled.v[i];
		uint32_t tmpl = s->p->dag.tasks.v[t].tmpl;
		double mb = s->m->task[tmpl].mb - s->rem[t];
		if (s->grant[t].sample && s->rem[t] > 0 &&
		    iopol_sample(&s->pol, tmpl, s->where[t], &s->grant[t],
				 s->now, (long long)(mb * 1024.0 * 1024.0)))
			s->sampled.v[kept++] = t;
		else
			s->grant[t].sample = false;
	}
	s->sampled.n = kept;
	s->next_sample += AUTOBW_SAMPLE_S;
}

/* Advance the clock to the next end; finish what ends then. */
static void
step(struct simr *s)
{
	double next = s->ends.n ? s->ends.v[0].when : INFINITY;
	if (s->sampled.n && s->next_sample < next)
		next = s->next_sample;
	for (size_t i = 0; i < s->nact; i++) {
		const struct sworker *w = &s->w[s->where[s->act[i]]];
		long k = s->kdev[w->dev];
		double rate = sim_law(w->law, k) / (double)k;
		double end = s->now + s->rem[s->act[i]] / rate;
		if (end < next)
			next = end;
	}
	double dt = next - s->now;
	for (size_t i = 0; i < s->nact; i++) {
		const struct sworker *w = &s->w[s->where[s->act[i]]];
		long k = s->kdev[w->dev];
		s->rem[s->act[i]] -= sim_law(w->law, k) / (double)k * dt;
	}
	s->now = next;
	if (s->sampled.n && s->now >= s->next_sample)
		sample(s);
	/* writers first (their rates changed with k), then timed tasks */
	for (size_t i = 0; i < s->nact;) {
		uint32_t t = s->act[i];
		if (s->rem[t] > 1e-9 * (1 + s->m->task[s->p->dag.tasks.v[t].tmpl].mb)) {
			i++;
			continue;
		}
		s->act[i] = s->act[--s->nact];
		s->kdev[s->w[s->where[t]].dev]--;
		finish(s, t);
	}
	while (s->ends.n && s->ends.v[0].when <= s->now) {
		struct theap_item e = theap_pop(&s->ends);
		if (e.aux == s->launches[e.id])
			finish(s, e.id);
	}
}

/* The law of the device named dev. */
static const struct sim_dev_model *
law_of(const struct sim_model *m, const char *dev)
{
	const struct sim_dev_model *any = NULL;
	for (size_t i = 0; i < m->ndev; i++) {
		if (!strcmp(m->dev[i].name, dev))
			return &m->dev[i];
		if (!strcmp(m->dev[i].name, "*"))
			any = &m->dev[i];
	}
	return any;
}

static int
setup_workers(struct simr *s)
{
	const struct cluster *c = s->o->cluster;
	s->nw = c ? c->nworkers : 1;
	s->w = xcalloc(s->nw, sizeof(*s->w));
	iopol_add_cluster(&s->pol, c, s->o->cores, s->o->io_executors,
			  s->o->disk_bw);
	bool writes = false;
	for (size_t i = 0; i < s->m->ntask; i++)
		writes |= s->m->task[i].kind == SIM_WRITES;
	for (size_t i = 0; i < s->nw; i++) {
		const struct worker_spec *ws = c ? &c->workers[i] : NULL;
		struct sworker *w = &s->w[i];
		w->name = ws ? ws->name : "local";
		w->cores = ws ? ws->cores : s->o->cores;
		if (!w->cores && ws && ws->local)
			w->cores = s->o->cores;
		if (!w->cores) {
			error_msg("%s:%u: worker '%s': give its <cores> to "
				  "simulate it", c->file, ws->line, ws->name);
			return -1;
		}
		w->free = w->cores;
		w->io = w->io_free = s->pol.w[i].io_executors;
		w->dev = s->pol.w[i].dev;
		const char *dev = s->pol.dev[w->dev].name;
		w->law = law_of(s->m, dev);
		if (writes && !w->law) {
			error_msg("the model has no law for device %s: add "
				  "'device %s bandwidth B ...' or 'device * "
				  "bandwidth B ...'", dev, dev);
			return -1;
		}
	}
	return 0;
}

int
sim_run(struct plan *p, const struct sim_model *m, const struct sim_opts *o,
	struct sim_result *res)
{
	struct simr s;
	memset(&s, 0, sizeof(s));
	memset(res, 0, sizeof(*res));
	s.p = p;
	s.m = m;
	s.o = o;
	s.rng = m->seed * 0x9E3779B97F4A7C15ULL + 1;
	size_t nt = p->wf->ntasks, total = p->dag.tasks.n;
	uint32_t *ninst = xcalloc(nt ? nt : 1, sizeof(uint32_t));
	for (size_t i = 0; i < nt; i++)
		ninst[i] = p->pt[i].ninst;
	s.epochs = xcalloc(nt ? nt : 1, sizeof(int));
	iopol_init(&s.pol, p->wf, ninst, o->no_io, on_event, &s);
	free(ninst);
	int rc = 0;
	s.pol.relearn = !o->registry; /* without one, start from nothing */
	s.pol.paper = o->learn_paper;
	s.pol.no_preempt = o->no_preempt;
	if (o->registry && iopol_registry_load(&s.pol, o->registry) < 0) {
		error_msg("cannot read %s: %s", o->registry, strerror(errno));
		rc = -1;
	}
	if (!rc)
		rc = setup_workers(&s);
	s.cores = xcalloc(nt ? nt : 1, sizeof(long));
	s.io = xcalloc(nt ? nt : 1, sizeof(bool));
	long most = 0;
	for (size_t i = 0; i < s.nw; i++) {
		most = s.w[i].cores > most ? s.w[i].cores : most;
		res->cores += s.w[i].cores;
		res->io_executors += s.w[i].io;
	}
	for (size_t i = 0; i < nt; i++) {
		s.io[i] = p->wf->tasks[i].io && !o->no_io;
		s.cores[i] = s.io[i] ? 0 : p->wf->tasks[i].io ? 1
							      : p->wf->tasks[i].cores;
		if (rc || !p->pt[i].ninst)
			continue;
		if (s.cores[i] > most) {
			error_msg("task '%s' asks for %ld cores but no worker has "
				  "more than %ld", p->wf->tasks[i].name,
				  s.cores[i], most);
			rc = -1;
		}
		char why[512];
		size_t fit = 0;
		for (size_t k = 0; k < s.nw; k++)
			if (!iopol_unfit(&s.pol, (uint32_t)i, k, why, sizeof(why)))
				fit++;
		if (!fit && s.nw) {
			error_msg("task '%s' has a storage_bw, but %s",
				  p->wf->tasks[i].name, why);
			rc = -1;
		}
	}
	s.kdev = xcalloc(s.pol.ndev ? s.pol.ndev : 1, sizeof(long));
	s.rem = xcalloc(total ? total : 1, sizeof(double));
	s.start = xcalloc(total ? total : 1, sizeof(double));
	s.submit = xcalloc(total ? total : 1, sizeof(double));
	s.where = xcalloc(total ? total : 1, sizeof(uint16_t));
	s.grant = xcalloc(total ? total : 1, sizeof(*s.grant));
	s.launches = xcalloc(total ? total : 1, sizeof(*s.launches));
	s.stopped = xcalloc(total ? total : 1, sizeof(*s.stopped));
	idset_init(&s.io_run, total);
	sched_init(&s.sched, nt, s.cores, s.io);
	if (!rc) {
		for (uint32_t t = 0; t < total; t++)
			if (p->dag.tasks.v[t].state == TASK_READY)
				sched_push(&s.sched, p->dag.tasks.v[t].tmpl, t);
		for (uint32_t i = 0; i < nt; i++)
			if (s.sched.q[i].n)
				iopol_ready(&s.pol, i, (long)s.sched.q[i].n);
		for (;;) {
			dispatch(&s);
			if (!s.running)
				break;
			step(&s);
		}
		if (s.done < total) {
			error_msg("%zu tasks could never start", total - s.done);
			rc = -1;
		}
	}
	if (!rc && o->registry && iopol_registry_save(&s.pol, o->registry) < 0) {
		error_msg("cannot write %s: %s", o->registry, strerror(errno));
		rc = -1;
	}
	res->makespan = s.now;
	res->done = s.done;
	res->preempted = s.preempted;
	res->nworkers = s.nw;
	res->chosen = xcalloc(nt ? nt : 1, sizeof(double));
	res->epochs = xcalloc(nt ? nt : 1, sizeof(int));
	for (size_t i = 0; i < nt; i++) {
		/* tasks that learn as one report their shared learner */
		uint32_t g = s.pol.nm[i].grp;
		const struct iopol_name *nm = &s.pol.nm[g];
		res->chosen[i] = nm->bw.kind == WF_BW_STATIC ? nm->bw.value
				 : nm->has_learner	     ? autobw_constraint(&nm->a)
							     : 0;
		res->epochs[i] = s.epochs[g];
	}
	free(s.epochs);
	sched_release(&s.sched);
	iopol_release(&s.pol);
	free(s.w);
	free(s.cores);
	free(s.io);
	free(s.ends.v);
	free(s.act);
	free(s.kdev);
	free(s.rem);
	free(s.start);
	free(s.submit);
	free(s.where);
	free(s.grant);
	free(s.launches);
	free(s.stopped);
	idset_release(&s.io_run);
	VEC_FREE(s.way);
	VEC_FREE(s.sampled);
	free(s.ready);
	return rc;
}

void
sim_result_release(struct sim_result *res)
{
	free(res->chosen);
	free(res->epochs);
	memset(res, 0, sizeof(*res));
}
