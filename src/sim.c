#include "sim.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "iopol.h"
#include "resources.h"
#include "place.h"
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
			   "'task NAME writes MB [jitter F]'");
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
	if (tm->named) {
		diag_error(d, l, "task '%s' is already modelled", ws->w[1]);
		return;
	}
	tm->named = true; /* (its errors are this line's: not also
			     "no line" below) */
	static const char *const kw[] = { "seconds", "jitter", "writes", NULL };
	double v[3] = { 0, 0, 0 };
	bool seen[3] = { false, false, false };
	if (!pairs(d, line, ws, 2, kw, v, seen))
		return;
	if (seen[2] && seen[0]) {
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
	} else if (!seen[0]) {
		diag_error(d, l, "task '%s': give its time with 'seconds S'",
			   ws->w[1]);
		return;
	}
	if (v[1] >= 1) {
		diag_error(d, l, "jitter is a fraction below 1, not %g", v[1]);
		return;
	}
	if (seen[2]) {
		tm->kind = SIM_WRITES;
		tm->mb = v[2];
		tm->jitter = v[1];
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
	struct errbuf err;
	FILE *f = fopen_bounded(path, READ_MAX_INPUT, &err);
	if (!f) {
		struct wf_loc l = { 0, 0 };
		diag_error(d, l, "cannot read the model: %s", err.msg);
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
	if (ferror(f)) {
		struct wf_loc l = { ln, 0 };
		int e = errno;
		diag_error(d, l, "cannot read the model: %s",
			   read_strerror(e, READ_MAX_INPUT));
	}
	fclose(f);
	for (size_t i = 0; i < wf->ntasks; i++)
		if (!m->task[i].named) {
			struct wf_loc l = { 0, 0 };
			const char *n = wf->tasks[i].name;
			bool io = wf->tasks[i].io;
			diag_error(d, l, "task '%s' has no line in the "
				   "model: add 'task %s seconds S'%s%s%s", n,
				   n, io ? " or 'task " : "", io ? n : "",
				   io ? " writes MB'" : "");
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

/* The decisions are the runner's (place.h); here only what they act on:
 * a virtual clock, tasks that take their model's time, and devices that
 * share their law's bandwidth among the tasks writing at once. */

struct sworker {
	const char *name;
	uint32_t dev;             /* iopol device */
	const struct sim_dev_model *law;
};

/* A task's virtual run. */
struct stask {
	double start;             /* when its attempt started */
	double rem;               /* MB its attempt has left to write */
	double mb;                /* MB it writes (every attempt), once
				     drawn; 0 before its first launch */
};

struct simr {
	struct plan *p;
	const struct sim_model *m;
	const struct sim_opts *o;
	struct sworker *w;
	size_t nw;
	struct place pl;
	struct iopol pol;
	double now;
	struct stask *st;         /* per task */
	struct theap ends;        /* compute (and seconds) tasks */
	uint32_t *act;            /* writing tasks */
	size_t nact, aact;
	long *kdev;               /* writing tasks per device */
	VEC(uint32_t) sampled;    /* writers whose learner reads their
				     bytes so far (iopol_sample) */
	double next_sample;
	size_t done, preempted;
	uint64_t rng;
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

/* A draw in [0, 1) that is instance t's own for the seed, whatever
 * order the instances run in (splitmix64 of the seed and t): a size
 * is the instance's, the same in a run under any constraint and in an
 * attempt that runs again. */
static double
instance_uniform(const struct simr *s, uint32_t t)
{
	uint64_t z = s->m->seed + 0x9E3779B97F4A7C15ULL * ((uint64_t)t + 1);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0;
}

static void
on_event(const struct iopol_event *e, void *arg)
{
	struct simr *s = arg;
	if (s->o->events)
		events_write(s->o->events, s->now, e->key, e);
}

/* place_ops.launch: task t (of tmpl) starts on worker wi now. */
static void
launch(void *arg, uint32_t t, uint32_t tmpl, size_t wi)
{
	struct simr *s = arg;
	s->st[t].start = s->now;
	const struct sim_task_model *tm = &s->m->task[tmpl];
	if (tm->kind == SIM_WRITES) {
		if (!(s->st[t].mb > 0))
			s->st[t].mb = tm->jitter > 0
				? tm->mb * (1 + tm->jitter *
						    (2 * instance_uniform(s, t) - 1))
				: tm->mb;
		s->st[t].rem = s->st[t].mb;
		ALLOC_GROW(s->act, s->nact + 1, s->aact);
		s->act[s->nact++] = t;
		s->kdev[s->w[wi].dev]++;
		if (s->pl.t[t].grant.sample) {
			if (!s->sampled.n)
				s->next_sample = s->now + AUTOBW_SAMPLE_S;
			VEC_PUSH(s->sampled, t);
		}
	} else {
		double d = tm->secs;
		if (tm->jitter > 0)
			d *= 1 + tm->jitter * (2 * uniform(s) - 1);
		theap_push(&s->ends, s->now + d, t, s->pl.t[t].launches);
	}
}

static void
trace_end(struct simr *s, uint32_t t, const char *status, int exit_code,
	  long long wb)
{
	if (!s->o->trace)
		return;
	uint32_t tmpl = s->p->dag.tasks.v[t].tmpl;
	const struct wf_task *wt = &s->p->wf->tasks[tmpl];
	const struct place_task *pt = &s->pl.t[t];
	struct strbuf tag = STRBUF_INIT;
	plan_tag(s->p, t, &tag);
	struct trace_row row = {
		t + 1, wt->name, tag.buf, s->w[pt->where].name,
		wt->io ? "io" : "compute", s->pl.cores[tmpl], pt->grant.c,
		pt->grant.epoch, status, exit_code, 1, pt->submit,
		s->st[t].start, s->now, 0, 0, -1, -1, wb, -1, -1, -1,
	};
	trace_write(s->o->trace, &row);
	strbuf_release(&tag);
}

/* A writer leaves act (the others keep their order) and its device. */
static void
stop_writing(struct simr *s, uint32_t t)
{
	for (size_t i = 0; i < s->nact; i++)
		if (s->act[i] == t) {
			memmove(s->act + i, s->act + i + 1,
				(s->nact - i - 1) * sizeof(*s->act));
			s->nact--;
			s->kdev[s->w[s->pl.t[t].where].dev]--;
			s->st[t].rem = 0;
			return;
		}
}

/* place_ops.stop: stop t to make way, as the runner does: back to the
 * queue, not a failure.  Its row says PREEMPTED, exit 137 (the runner's
 * SIGKILL). */
static void
stop_task(void *arg, uint32_t t)
{
	struct simr *s = arg;
	place_end(&s->pl, t, s->now);
	stop_writing(s, t);
	trace_end(s, t, "PREEMPTED", 137, -1);
	place_requeue(&s->pl, t); /* its end, if timed, is stale */
	s->preempted++;
}

static void
finish(struct simr *s, uint32_t t)
{
	uint32_t tmpl = s->p->dag.tasks.v[t].tmpl;
	const struct place_task *pt = &s->pl.t[t];
	place_end(&s->pl, t, s->now);
	s->done++;
	s->st[t].rem = 0; /* (no more samples of it: its slot may be
			     another's now) */
	/* what the task wrote, as the runner reads write_bytes */
	const struct sim_task_model *tm = &s->m->task[tmpl];
	long long wb = tm->kind == SIM_WRITES
			       ? (long long)(s->st[t].mb * 1024.0 * 1024.0)
			       : -1;
	iopol_finish(&s->pol, tmpl, pt->where, pt->grant, s->st[t].start,
		     s->now, wb);
	trace_end(s, t, "COMPLETED", 0, wb);
	place_complete(&s->pl, t, s->now);
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
		struct place_task *pt = &s->pl.t[t];
		double mb = s->st[t].mb - s->st[t].rem;
		if (pt->grant.sample && s->st[t].rem > 0 &&
		    iopol_sample(&s->pol, tmpl, pt->where, &pt->grant, s->now,
				 (long long)(mb * 1024.0 * 1024.0)))
			s->sampled.v[kept++] = t;
		else
			pt->grant.sample = false;
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
		const struct sworker *w = &s->w[s->pl.t[s->act[i]].where];
		long k = s->kdev[w->dev];
		double rate = sim_law(w->law, k) / (double)k;
		double end = s->now + s->st[s->act[i]].rem / rate;
		if (end < next)
			next = end;
	}
	double dt = next - s->now;
	for (size_t i = 0; i < s->nact; i++) {
		const struct sworker *w = &s->w[s->pl.t[s->act[i]].where];
		long k = s->kdev[w->dev];
		s->st[s->act[i]].rem -= sim_law(w->law, k) / (double)k * dt;
	}
	s->now = next;
	if (s->sampled.n && s->now >= s->next_sample)
		sample(s);
	/* writers first (their rates changed with k), then timed tasks */
	for (size_t i = 0; i < s->nact;) {
		uint32_t t = s->act[i];
		if (s->st[t].rem > 1e-9 * (1 + s->st[t].mb)) {
			i++;
			continue;
		}
		s->act[i] = s->act[--s->nact];
		s->kdev[s->w[s->pl.t[t].where].dev]--;
		finish(s, t);
	}
	while (s->ends.n && s->ends.v[0].when <= s->now) {
		struct theap_item e = theap_pop(&s->ends);
		if (e.aux == s->pl.t[e.id].launches)
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

/* The workers, each with its capacity (place) and its device's law. */
static int
setup_workers(struct simr *s)
{
	const struct cluster *c = s->o->cluster;
	bool writes = false;
	for (size_t i = 0; i < s->m->ntask; i++)
		writes |= s->m->task[i].kind == SIM_WRITES;
	for (size_t i = 0; i < s->nw; i++) {
		const struct worker_spec *ws = c ? &c->workers[i] : NULL;
		struct sworker *w = &s->w[i];
		w->name = ws ? ws->name : "local";
		long cores = ws ? ws->cores : s->o->cores;
		if (!cores && ws && ws->local)
			cores = s->o->cores;
		if (!cores) {
			error_msg("%s:%u: worker '%s': give its <cores> to "
				  "simulate it", c->file, ws->line, ws->name);
			return -1;
		}
		place_worker_set(&s->pl, i, cores, s->pol.w[i].io_executors);
		place_worker_memory(&s->pl, i,
				    ws && !ws->local ? ws->memory
				    : ws && ws->memory ? ws->memory
						       : s->o->memory);
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

/* Every task able to run on some worker; -1 with a message if not. */
static int
check_tasks(struct simr *s)
{
	const struct workflow *wf = s->p->wf;
	long most = place_most_cores(&s->pl);
	int rc = 0;
	for (size_t i = 0; i < wf->ntasks; i++) {
		if (!s->p->pt[i].ninst)
			continue;
		char why[512];
		switch (place_fit(&s->pl, (uint32_t)i, most, s->o->scale_cores,
				  why, sizeof(why))) {
		case 1:
			warning_msg("%s", why);
			break;
		case -1:
			error_msg("%s", why);
			rc = -1;
		}
		if (place_unfit(&s->pl, (uint32_t)i, why, sizeof(why))) {
			error_msg("task '%s' has a storage_bw, but %s",
				  wf->tasks[i].name, why);
			rc = -1;
		}
	}
	return rc;
}

/* The policy (from the registry, if any), the workers and the places. */
static int
set_up(struct simr *s)
{
	const struct sim_opts *o = s->o;
	struct plan *p = s->p;
	size_t total = p->dag.tasks.n;
	struct place_conf pc = {
		o->cluster, o->cores, o->io_executors, o->disk_bw, o->no_io,
		/* without a registry, start from nothing */
		!o->registry, o->learn_paper, o->no_preempt, on_event,
	};
	struct place_ops ops = { launch, stop_task, NULL, s };
	place_open(&s->pl, &s->pol, p, &pc, &ops);
	s->nw = s->pl.nw;
	s->w = xcalloc(s->nw, sizeof(*s->w));
	s->kdev = xcalloc(s->pol.ndev ? s->pol.ndev : 1, sizeof(long));
	s->st = xcalloc(total ? total : 1, sizeof(*s->st));
	if (o->registry && iopol_registry_load(&s->pol, o->registry) < 0) {
		error_msg("cannot read %s: %s", o->registry, strerror(errno));
		return -1;
	}
	if (setup_workers(s) < 0)
		return -1;
	return check_tasks(s);
}

/* Run to the end on the virtual clock; -1 if some task never started. */
static int
run(struct simr *s)
{
	place_queue_ready(&s->pl, s->now);
	for (;;) {
		place_dispatch(&s->pl, s->now);
		if (!s->pl.running)
			break;
		step(s);
	}
	size_t total = s->p->dag.tasks.n;
	if (s->done < total) {
		error_msg("%zu tasks could never start", total - s->done);
		return -1;
	}
	if (s->o->registry && iopol_registry_save(&s->pol, s->o->registry) < 0) {
		error_msg("cannot write %s: %s", s->o->registry, strerror(errno));
		return -1;
	}
	return 0;
}

static void
result(struct simr *s, struct sim_result *res)
{
	size_t nt = s->p->wf->ntasks;
	res->makespan = s->now;
	res->done = s->done;
	res->preempted = s->preempted;
	res->nworkers = s->nw;
	for (size_t i = 0; i < s->nw; i++) {
		res->cores += s->pl.w[i].cores;
		res->io_executors += s->pl.w[i].io;
	}
	res->chosen = xcalloc(nt ? nt : 1, sizeof(double));
	res->epochs = xcalloc(nt ? nt : 1, sizeof(int));
	res->kept = xcalloc(nt ? nt : 1, sizeof(bool));
	res->last_c = xcalloc(nt ? nt : 1, sizeof(double));
	res->last_n = xcalloc(nt ? nt : 1, sizeof(long));
	for (size_t i = 0; i < nt; i++) {
		/* tasks that learn as one report their shared learner */
		uint32_t g = s->pol.nm[i].grp;
		const struct iopol_name *nm = &s->pol.nm[g];
		res->chosen[i] = nm->bw.kind == WF_BW_STATIC ? nm->bw.value
				 : nm->has_learner	     ? autobw_constraint(&nm->a)
							     : 0;
		if (nm->has_learner && nm->stream_c > 0) {
			res->last_c[i] = res->chosen[i];
			res->last_n[i] = nm->last_n;
			res->chosen[i] = nm->stream_c;
		}
		res->epochs[i] = nm->epochs;
		res->kept[i] = nm->kept;
	}
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
	int rc = set_up(&s);
	if (!rc)
		rc = run(&s);
	result(&s, res);
	place_release(&s.pl);
	iopol_release(&s.pol);
	free(s.w);
	free(s.ends.v);
	free(s.act);
	free(s.kdev);
	free(s.st);
	VEC_FREE(s.sampled);
	return rc;
}

void
sim_result_release(struct sim_result *res)
{
	free(res->chosen);
	free(res->epochs);
	free(res->kept);
	free(res->last_c);
	free(res->last_n);
	memset(res, 0, sizeof(*res));
}
