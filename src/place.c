#include "place.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expand.h"
#include "resources.h"

void
place_init(struct place *pl, struct plan *p, struct iopol *pol, size_t nw,
	   bool no_io, const struct place_ops *ops)
{
	memset(pl, 0, sizeof(*pl));
	pl->p = p;
	pl->pol = pol;
	pl->ops = *ops;
	pl->nt = p->dag.tasks.n;
	pl->t = xcalloc(pl->nt ? pl->nt : 1, sizeof(*pl->t));
	pl->nw = nw;
	pl->w = xcalloc(nw ? nw : 1, sizeof(*pl->w));
	size_t nn = p->wf->ntasks;
	pl->cores = xcalloc(nn ? nn : 1, sizeof(*pl->cores));
	pl->io = xcalloc(nn ? nn : 1, sizeof(*pl->io));
	pl->mem = xcalloc(nn ? nn : 1, sizeof(*pl->mem));
	pl->scaled = xcalloc(nn ? nn : 1, sizeof(*pl->scaled));
	for (size_t i = 0; i < nn; i++) {
		pl->mem[i] = p->wf->tasks[i].memory;
		pl->scaled[i] = p->wf->tasks[i].cores_scaled;
		/* --no-io: I/O tasks are 1-core compute tasks (the baseline) */
		pl->io[i] = p->wf->tasks[i].io && !no_io;
		pl->cores[i] = pl->io[i] ? 0 : p->wf->tasks[i].io
						       ? 1
						       : p->wf->tasks[i].cores;
	}
	sched_init(&pl->sched, nn, pl->cores, pl->io);
	for (size_t i = 0; i < nn; i++)
		pl->sched.q[i].memory = pl->mem[i];
	idset_init(&pl->io_run, pl->nt);
	pl->nio = xcalloc(nn ? nn : 1, sizeof(*pl->nio));
	pl->counts = xcalloc(nn ? nn : 1, sizeof(*pl->counts));
}

void
place_open(struct place *pl, struct iopol *pol, struct plan *p,
	   const struct place_conf *c, const struct place_ops *ops)
{
	size_t nt = p->wf->ntasks;
	uint32_t *ninst = xcalloc(nt ? nt : 1, sizeof(uint32_t));
	for (size_t i = 0; i < nt; i++)
		ninst[i] = p->pt[i].ninst;
	iopol_init(pol, p->wf, ninst, c->no_io, c->event, ops->arg);
	free(ninst);
	pol->relearn = c->relearn;
	pol->paper = c->paper;
	pol->no_preempt = c->no_preempt;
	iopol_add_cluster(pol, c->cluster, c->cores, c->io_executors,
			  c->disk_bw);
	place_init(pl, p, pol, c->cluster ? c->cluster->nworkers : 1,
		   c->no_io, ops);
}

void
place_release(struct place *pl)
{
	for (size_t i = 0; i < pl->nt; i++)
		free(pl->t[i].stop_aside);
	free(pl->t);
	free(pl->w);
	free(pl->cores);
	free(pl->io);
	free(pl->mem);
	free(pl->scaled);
	for (size_t i = 0; pl->counts && i < pl->sched.nq; i++)
		VEC_FREE(pl->counts[i]);
	sched_release(&pl->sched);
	idset_release(&pl->io_run);
	free(pl->counts);
	free(pl->nio);
	VEC_FREE(pl->pinned);
	VEC_FREE(pl->way);
	free(pl->ready);
	memset(pl, 0, sizeof(*pl));
}

void
place_grow(struct place *pl)
{
	const struct dag *g = &pl->p->dag;
	size_t nt = g->tasks.n;
	pl->t = xrealloc(pl->t, (nt ? nt : 1) * sizeof(*pl->t));
	memset(pl->t + pl->nt, 0, (nt - pl->nt) * sizeof(*pl->t));
	for (size_t t = pl->nt; t < nt; t++)
		iopol_again(pl->pol, g->tasks.v[t].tmpl);
	pl->nt = nt;
	struct idset run = pl->io_run;
	idset_init(&pl->io_run, nt);
	for (size_t i = 0; i < run.n; i++)
		idset_add(&pl->io_run, run.v[i]);
	idset_release(&run);
}

/* --- workers -------------------------------------------------------------- */

void
place_worker_set(struct place *pl, size_t wi, long cores, long io)
{
	struct place_worker *w = &pl->w[wi];
	w->cores = w->free = cores;
	w->io = w->io_free = io;
	w->usable = true;
}

void
place_worker_memory(struct place *pl, size_t wi, long long bytes)
{
	pl->w[wi].mem = pl->w[wi].mem_free = bytes > 0 ? bytes : 0;
}

size_t
place_worker_add(struct place *pl)
{
	pl->w = xrealloc(pl->w, (pl->nw + 1) * sizeof(*pl->w));
	memset(&pl->w[pl->nw], 0, sizeof(*pl->w));
	return pl->nw++;
}

void
place_worker_jobs(struct place *pl, size_t wi, long slots)
{
	place_worker_set(pl, wi, slots, slots);
	pl->w[wi].per_job = true;
}

void
place_worker_lost(struct place *pl, size_t wi)
{
	pl->w[wi].usable = false;
}

size_t
place_usable(const struct place *pl)
{
	size_t n = 0;
	for (size_t i = 0; i < pl->nw; i++)
		n += pl->w[i].usable;
	return n;
}

long
place_most_cores(const struct place *pl)
{
	long most = 0;
	for (size_t k = 0; k < pl->nw; k++)
		if (pl->w[k].usable && pl->w[k].per_job)
			return LONG_MAX; /* the cluster says */
		else if (pl->w[k].usable && pl->w[k].cores > most)
			most = pl->w[k].cores;
	return most;
}

void
place_scale(struct place *pl, uint32_t name, long n)
{
	pl->cores[name] = pl->sched.q[name].cores = n;
	pl->scaled[name] = true;
	plan_set_cores(pl->p, name, n);
}

int
place_fit(struct place *pl, uint32_t name, long most, bool scale_all,
	  char *buf, size_t len)
{
	const struct wf_task *t = &pl->p->wf->tasks[name];
	if (place_too_big(pl, name, buf, len))
		return -1;
	if (pl->cores[name] <= most)
		return 0;
	struct wf_task now = *t;
	now.cores = pl->cores[name];
	long n = plan_fit_cores(&now, most, scale_all);
	if (n < 0 && (t->cores_min || scale_all)) {
		snprintf(buf, len, "task '%s' needs at least %ld cores but no "
			 "reachable worker has more than %ld", t->name,
			 t->cores_min ? t->cores_min : 1, most);
		return -1;
	}
	if (n < 0) {
		snprintf(buf, len, "task '%s' asks for %ld cores but no "
			 "reachable worker has more than %ld", t->name,
			 pl->cores[name], most);
		return -1;
	}
	snprintf(buf, len, "task '%s' asks for %ld cores and is given %ld, "
		 "the most a worker has", t->name, pl->cores[name], n);
	place_scale(pl, name, n);
	return 1;
}

long long
place_most_memory(const struct place *pl)
{
	long long most = 0;
	for (size_t k = 0; k < pl->nw; k++) {
		const struct place_worker *w = &pl->w[k];
		if (w->usable && (w->per_job || !w->mem))
			return LLONG_MAX;
		if (w->usable && w->mem > most)
			most = w->mem;
	}
	return most;
}

const char *
place_size(long long bytes, char *buf, size_t len)
{
	static const char *unit[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = 0;
	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, u && v < 10 && v != (long long)v ? "%.1f %s"
							     : "%.0f %s",
		 v, unit[u]);
	return buf;
}

bool
place_too_big(const struct place *pl, uint32_t name, char *buf, size_t len)
{
	long long most = place_most_memory(pl);
	if (pl->mem[name] <= most || !place_usable(pl))
		return false;
	char a[32], b[32];
	snprintf(buf, len, "task '%s' asks for %s of memory but no worker has "
		 "more than %s", pl->p->wf->tasks[name].name,
		 place_size(pl->mem[name], a, sizeof(a)),
		 place_size(most, b, sizeof(b)));
	return true;
}

const char *
place_unfit(const struct place *pl, uint32_t name, char *buf, size_t len)
{
	const char *why = NULL;
	for (size_t k = 0; k < pl->nw; k++) {
		if (!pl->w[k].usable)
			continue;
		why = iopol_unfit(pl->pol, name, k, buf, len);
		if (!why)
			return NULL;
	}
	return why;
}

/* --- the queues ----------------------------------------------------------- */

/* Queue the ready tasks from first on, submitted now. */
static void
push_ready(struct place *pl, uint32_t first, double now)
{
	const struct dag *g = &pl->p->dag;
	for (uint32_t t = first; t < pl->nt; t++)
		if (g->tasks.v[t].state == TASK_READY) {
			pl->t[t].submit = now;
			sched_push(&pl->sched, g->tasks.v[t].tmpl, t);
			iopol_arrived(pl->pol, g->tasks.v[t].tmpl, now);
		}
}

void
place_queue_ready(struct place *pl, double now)
{
	push_ready(pl, 0, now);
	for (uint32_t i = 0; i < pl->sched.nq; i++)
		if (pl->sched.q[i].n)
			iopol_ready(pl->pol, i, (long)pl->sched.q[i].n);
}

void
place_queue_from(struct place *pl, uint32_t first, double now)
{
	const struct dag *g = &pl->p->dag;
	push_ready(pl, first, now);
	for (uint32_t t = first; t < pl->nt; t++) {
		uint32_t n = g->tasks.v[t].tmpl;
		if (t == first || n != g->tasks.v[t - 1].tmpl)
			iopol_ready(pl->pol, n, (long)pl->sched.q[n].n);
	}
}

/* t's successors wait no more for it: pl->ready holds those that
 * became ready. */
static void
release_successors(struct place *pl, uint32_t t)
{
	pl->nready = 0;
	dag_complete(&pl->p->dag, t, &pl->ready, &pl->nready, &pl->aready);
}

void
place_skip(struct place *pl, uint32_t t)
{
	iopol_up_to_date(pl->pol, pl->p->dag.tasks.v[t].tmpl);
	release_successors(pl, t);
}

void
place_complete(struct place *pl, uint32_t t, double now)
{
	struct dag *g = &pl->p->dag;
	release_successors(pl, t);
	for (size_t i = 0; i < pl->nready; i++) {
		pl->t[pl->ready[i]].submit = now;
		sched_push(&pl->sched, g->tasks.v[pl->ready[i]].tmpl,
			   pl->ready[i]);
		iopol_arrived(pl->pol, g->tasks.v[pl->ready[i]].tmpl, now);
	}
	for (size_t i = 0; i < pl->nready; i++) {
		uint32_t n = g->tasks.v[pl->ready[i]].tmpl;
		iopol_ready(pl->pol, n, (long)pl->sched.q[n].n);
	}
}

void
place_push(struct place *pl, uint32_t t, double now)
{
	struct dag_task *dt = &pl->p->dag.tasks.v[t];
	dt->state = TASK_READY;
	pl->t[t].submit = now;
	sched_push(&pl->sched, dt->tmpl, t);
}

void
place_retry(struct place *pl, uint32_t t, double now)
{
	uint32_t name = pl->p->dag.tasks.v[t].tmpl;
	pl->t[t].submit = now;
	if (pl->p->wf->tasks[name].on_failure == WF_RETRY)
		VEC_PUSH(pl->pinned, t);
	else
		sched_push(&pl->sched, name, t);
}

size_t
place_waiting(const struct place *pl)
{
	return pl->sched.nready + pl->pinned.n;
}

/* --- attempts ------------------------------------------------------------- */

/* The oldest start of group g's running I/O instances (now if none). */
static double
oldest_io(const struct place *pl, uint32_t g, double now)
{
	double oldest = now;
	for (size_t i = 0; i < pl->io_run.n; i++) {
		uint32_t t = pl->io_run.v[i];
		if (pl->pol->nm[pl->p->dag.tasks.v[t].tmpl].grp == g &&
		    pl->t[t].start < oldest)
			oldest = pl->t[t].start;
	}
	return oldest;
}

/* Group g's count history from the last change at or before oldest. */
static void
prune_counts(struct place *pl, uint32_t g, double oldest)
{
	size_t keep = 0, nh = pl->counts[g].n;
	while (keep + 1 < nh && pl->counts[g].v[keep + 1].t <= oldest)
		keep++;
	if (keep) {
		memmove(pl->counts[g].v, pl->counts[g].v + keep,
			(nh - keep) * sizeof(*pl->counts[g].v));
		pl->counts[g].n = nh - keep;
	}
}

/* One I/O instance of name more (d = 1) or fewer (-1) runs from now:
 * its group's count, and, for a name that learns its storage_bw, the
 * count's history (place.h), kept short: from the oldest running
 * instance's start, looked for when it has doubled. */
static void
count_io(struct place *pl, uint32_t name, long d, double now)
{
	uint32_t g = pl->pol->nm[name].grp;
	pl->nio[g] += d;
	if (!pl->pol->nm[g].has_learner)
		return;
	struct autobw_count c = { now, pl->nio[g] };
	if (!pl->nio[g])
		pl->counts[g].n = 0;
	VEC_PUSH(pl->counts[g], c);
	if (pl->counts[g].n >= 64 + 4 * (size_t)pl->nio[g] &&
	    (pl->counts[g].n & (pl->counts[g].n - 1)) == 0)
		prune_counts(pl, g, oldest_io(pl, g, now));
}

/* Start t (of name) on worker wi. */
static void
start(struct place *pl, uint32_t t, uint32_t name, size_t wi)
{
	struct place_worker *w = &pl->w[wi];
	struct place_task *pt = &pl->t[t];
	if (w->per_job) {
		w->free--;
		w->io_free--;
	} else if (pl->io[name]) {
		w->io_free--;
	} else {
		w->free -= pl->cores[name];
	}
	if (!w->per_job && w->mem)
		w->mem_free -= pl->mem[name];
	pt->grant = iopol_start(pl->pol, name, wi,
				(long)pl->sched.q[name].n);
	pt->where = (uint16_t)wi;
	pt->launches++;
	pt->timed_out = false;
	pt->preempt = false;
	pt->seq = pl->nlaunched++;
	pt->start = pl->now;
	pl->running++;
	if (pl->io[name]) {
		idset_add(&pl->io_run, t);
		count_io(pl, name, 1, pl->now);
	}
	pl->p->dag.tasks.v[t].state = TASK_RUNNING;
	pl->ops.launch(pl->ops.arg, t, name, wi);
}

void
place_end(struct place *pl, uint32_t t, double now)
{
	uint32_t name = pl->p->dag.tasks.v[t].tmpl;
	struct place_worker *w = &pl->w[pl->t[t].where];
	if (pl->io[name]) {
		idset_del(&pl->io_run, t);
		count_io(pl, name, -1, now);
	}
	if (w->per_job) {
		w->free++;
		w->io_free++;
	} else if (pl->io[name]) {
		w->io_free++;
	} else {
		w->free += pl->cores[name];
	}
	if (!w->per_job && w->mem)
		w->mem_free += pl->mem[name];
	pl->running--;
}

void
place_failed(struct place *pl, uint32_t t)
{
	struct place_task *pt = &pl->t[t];
	if (pt->failures < UINT16_MAX)
		pt->failures++;
	pt->failed_on = pt->where;
}

void
place_abandon(struct place *pl, uint32_t t)
{
	struct place_task *pt = &pl->t[t];
	iopol_abandon(pl->pol, pl->p->dag.tasks.v[t].tmpl, pt->where,
		      pt->grant);
}

void
place_requeue(struct place *pl, uint32_t t)
{
	struct dag_task *dt = &pl->p->dag.tasks.v[t];
	place_abandon(pl, t);
	pl->t[t].preempt = false;
	pl->t[t].launches++; /* what the attempt left pending is stale */
	dt->state = TASK_READY;
	sched_push(&pl->sched, dt->tmpl, t);
}

/* --- decisions ------------------------------------------------------------ */

/* The memory worker w has free for a task now (LLONG_MAX: not limited;
 * a job of its own asks the cluster for its memory). */
static long long
mem_free(const struct place_worker *w)
{
	return w->per_job || !w->mem ? LLONG_MAX : w->mem_free;
}

/* Has worker w room for an instance of name now? */
static bool
room(const struct place *pl, const struct place_worker *w, uint32_t name)
{
	if (pl->mem[name] > mem_free(w))
		return false;
	return w->per_job ? w->free > 0
	       : pl->io[name] ? w->io_free > 0 : w->free >= pl->cores[name];
}

/* Has worker k room for an instance of name, and may it start there? */
static bool
fits(struct place *pl, size_t k, uint32_t name)
{
	const struct place_worker *w = &pl->w[k];
	return w->usable && room(pl, w, name) &&
	       iopol_may_start(pl->pol, name, k);
}

/* Where on_failure: retry task t (of name) runs again now, or nw: the
 * first retry on the worker where it failed, later ones on another one
 * (as COMPSs does), or on any worker when no other can take it at all. */
static size_t
pinned_pick(struct place *pl, uint32_t t, uint32_t name)
{
	size_t last = pl->t[t].failed_on, pick = pl->nw;
	bool same = pl->t[t].failures == 1 && pl->w[last].usable;
	bool other = false;
	for (size_t k = 0; k < pl->nw; k++)
		if (k != last && pl->w[k].usable &&
		    (pl->io[name] || pl->w[k].per_job ||
		     pl->w[k].cores >= pl->cores[name]) &&
		    (!pl->w[k].mem || pl->w[k].mem >= pl->mem[name]))
			other = true;
	if (same || !other)
		pick = fits(pl, last, name) ? last : pl->nw;
	if (!same && !other && !pl->w[last].usable)
		for (size_t k = 0; k < pl->nw && pick == pl->nw; k++)
			if (fits(pl, k, name))
				pick = k;
	if (!same && other)
		for (size_t k = 0; k < pl->nw && pick == pl->nw; k++)
			if (k != last && fits(pl, k, name))
				pick = k;
	return pick;
}

static void
dispatch_pinned(struct place *pl)
{
	for (size_t i = 0; i < pl->pinned.n;) {
		uint32_t t = pl->pinned.v[i];
		uint32_t name = pl->p->dag.tasks.v[t].tmpl;
		size_t pick = pinned_pick(pl, t, name);
		if (pick == pl->nw) {
			i++;
			continue;
		}
		pl->pinned.v[i] = pl->pinned.v[--pl->pinned.n];
		start(pl, t, name, pick);
	}
}

/* Of the workers with room for task t, the one that holds the most bytes
 * of its inputs; best (the one with the most free cores) unless another
 * holds LOCALITY_MIN more: small files cost a round trip, not bandwidth,
 * and are not worth leaving cores idle for. */
#define LOCALITY_MIN (1 << 20)
static size_t
closest(struct place *pl, uint32_t t, uint32_t name, size_t best)
{
	void *arg = pl->ops.arg;
	long long most = pl->ops.local_bytes(arg, t, best) + LOCALITY_MIN - 1;
	for (size_t i = 0; i < pl->nw; i++) {
		const struct place_worker *w = &pl->w[i];
		if (i == best || i == pl->held || !w->usable ||
		    !room(pl, w, name) ||
		    !iopol_could_start(pl->pol, name, i))
			continue;
		long long b = pl->ops.local_bytes(arg, t, i);
		if (b > most) {
			most = b;
			best = i;
		}
	}
	return best;
}

/* For iopol_spread: the I/O tasks running on worker wi, or -1 if it
 * cannot take one now. */
static long
io_busy(size_t wi, void *arg)
{
	const struct place_worker *w = &((struct place *)arg)->w[wi];
	return w->usable && w->io_free > 0 ? w->io - w->io_free : -1;
}

static bool
io_ok(uint32_t name, void *arg)
{
	struct place *pl = arg;
	return iopol_may_start(pl->pol, name, pl->asking);
}

/* The usable worker not asked yet with the most free cores, or nw. */
static size_t
next_asked(const struct place *pl)
{
	size_t best = pl->nw;
	for (size_t i = 0; i < pl->nw; i++)
		if (pl->w[i].usable && !pl->w[i].tried &&
		    (best == pl->nw || pl->w[i].free > pl->w[best].free))
			best = i;
	return best;
}

/* The worker held for the earliest ready task whose cores are as many as
 * a worker has (place.scaled) when it fits no worker now, or nw: the
 * usable worker with the most cores (and memory) for it, most free
 * first; it starts no other compute task until that one starts, so
 * later smaller ones cannot keep it waiting for ever. */
static size_t
held_worker(struct place *pl)
{
	uint32_t first = UINT32_MAX, name = 0;
	for (uint32_t i = 0; i < pl->sched.nq; i++)
		if (pl->scaled[i] && pl->sched.q[i].n &&
		    pl->sched.q[i].heap[0] < first) {
			first = pl->sched.q[i].heap[0];
			name = i;
		}
	if (first == UINT32_MAX)
		return pl->nw;
	size_t best = pl->nw;
	for (size_t k = 0; k < pl->nw; k++) {
		const struct place_worker *w = &pl->w[k];
		if (!w->usable)
			continue;
		if (w->per_job || room(pl, w, name))
			return pl->nw; /* it can start now */
		if (w->cores < pl->cores[name] ||
		    (w->mem && w->mem < pl->mem[name]))
			continue;
		if (best == pl->nw || w->cores > pl->w[best].cores ||
		    (w->cores == pl->w[best].cores &&
		     w->free > pl->w[best].free))
			best = k;
	}
	return best;
}

/* Start one ready task: workers are asked from the one with the most
 * free cores down, so compute spreads out; each answers with the
 * earliest ready task that fits its free cores (or I/O executors) and
 * its free memory.
 * O(workers^2 + workers x names) per launch; workers are few. */
static bool
start_one(struct place *pl)
{
	for (size_t i = 0; i < pl->nw; i++)
		pl->w[i].tried = false;
	size_t best, held = pl->held = held_worker(pl);
	while ((best = next_asked(pl)) != pl->nw) {
		pl->w[best].tried = true;
		pl->asking = best;
		const struct place_worker *w = &pl->w[best];
		/* a job slot fits any task */
		long fr = w->per_job && w->free > 0 ? LONG_MAX
			  : best == held		   ? 0
							   : w->free;
		long iofr = w->per_job ? w->free : w->io_free;
		uint32_t name;
		uint32_t t = sched_pop_if(&pl->sched, fr, iofr, mem_free(w),
					  io_ok, pl, &name);
		if (t == UINT32_MAX)
			continue;
		if (pl->ops.local_bytes)
			best = closest(pl, t, name, best);
		else if (pl->io[name]) {
			size_t k = iopol_spread(pl->pol, name, best, io_busy, pl);
			best = room(pl, &pl->w[k], name) ? k : best;
		}
		start(pl, t, name, best);
		return true;
	}
	return false;
}

static void
dispatch_round(struct place *pl)
{
	if (pl->pinned.n && !pl->stop)
		dispatch_pinned(pl);
	while (!pl->stop && start_one(pl))
		;
}

/* Stop the I/O tasks that iopol_make_way says must make way (a climb's
 * first guess corrected: iopol.h). */
static void
make_way(struct place *pl)
{
	const struct dag *g = &pl->p->dag;
	uint32_t name;
	while ((name = iopol_take_tight(pl->pol)) != UINT32_MAX) {
		pl->way.n = 0;
		for (size_t i = 0; i < pl->io_run.n; i++) {
			uint32_t t = pl->io_run.v[i];
			struct place_task *pt = &pl->t[t];
			if (pl->pol->nm[g->tasks.v[t].tmpl].grp != name ||
			    (pt->grant.epoch && !iopol_draining(pl->pol, name)) ||
			    !(pt->grant.c > 0) || pt->preempt)
				continue;
			struct iopol_running x = {
				t, pt->where, pt->seq, &pt->grant,
				dag_out_only(g, t) && !pt->rerun, false,
			};
			VEC_PUSH(pl->way, x);
		}
		if (!iopol_make_way(pl->pol, name, pl->way.v, pl->way.n))
			continue;
		for (size_t i = 0; i < pl->way.n; i++) {
			if (!pl->way.v[i].stop)
				continue;
			pl->t[pl->way.v[i].task].preempt = true;
			pl->ops.stop(pl->ops.arg, pl->way.v[i].task);
		}
	}
}

/* Choose for the last tasks of a name with how long each running one
 * has run (iopol_take_batch). */
static void
last_batch(struct place *pl)
{
	const struct dag *g = &pl->p->dag;
	uint32_t name;
	while ((name = iopol_take_batch(pl->pol)) != UINT32_MAX) {
		long ready = 0;
		for (uint32_t i = 0; i < pl->sched.nq; i++)
			if (pl->pol->nm[i].grp == name)
				ready += (long)pl->sched.q[i].n;
		pl->way.n = 0;
		for (size_t i = 0; i < pl->io_run.n; i++) {
			uint32_t t = pl->io_run.v[i];
			struct place_task *pt = &pl->t[t];
			if (pl->pol->nm[g->tasks.v[t].tmpl].grp != name ||
			    pt->preempt)
				continue;
			struct iopol_running x = {
				t, pt->where, pt->start, &pt->grant,
				dag_out_only(g, t) && !pt->rerun, false,
			};
			VEC_PUSH(pl->way, x);
		}
		double oldest = pl->now;
		for (size_t i = 0; i < pl->way.n; i++)
			if (pl->way.v[i].start < oldest)
				oldest = pl->way.v[i].start;
		prune_counts(pl, name, oldest);
		iopol_batch(pl->pol, name, ready, pl->now, pl->way.v,
			    pl->way.n, pl->counts[name].v, pl->counts[name].n);
	}
}

void
place_dispatch(struct place *pl, double now)
{
	pl->now = now;
	if (!pl->stop) {
		last_batch(pl);
		make_way(pl);
	}
	for (;;) {
		dispatch_round(pl);
		if (pl->stop || !iopol_close_idle(pl->pol, !pl->running))
			break;
	}
}
