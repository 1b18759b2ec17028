#include "iopol.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "resources.h"
#include "util.h"

#define NONE UINT32_MAX
/* Constraints add up in floating point: allow for the last bit. */
#define EPS 1e-9

void
iopol_init(struct iopol *p, const struct workflow *wf, const uint32_t *ninst,
	   bool no_io, iopol_event_fn event, void *arg)
{
	memset(p, 0, sizeof(*p));
	p->wf = wf;
	p->nn = wf->ntasks;
	p->nm = xcalloc(p->nn ? p->nn : 1, sizeof(*p->nm));
	for (size_t i = 0; i < p->nn; i++) {
		const struct wf_task *t = &wf->tasks[i];
		struct iopol_name *nm = &p->nm[i];
		nm->io = t->io && !no_io;
		nm->bw = t->storage_bw;
		if (!nm->io)
			nm->bw.kind = WF_BW_NONE;
		nm->learn_dev = NONE;
		nm->key = t->learn_as ? t->learn_as : t->name;
		/* tasks that learn as one share the first one's learner (the
		 * workflow checked that their storage_bw is the same) */
		nm->grp = (uint32_t)i;
		bool learns = nm->bw.kind == WF_BW_AUTO ||
			      nm->bw.kind == WF_BW_AUTO_BOUNDED;
		for (size_t j = 0; j < i && t->learn_as && learns; j++)
			if (!strcmp(p->nm[j].key, nm->key) &&
			    p->nm[j].bw.kind == nm->bw.kind) {
				nm->grp = p->nm[j].grp;
				break;
			}
		p->nm[nm->grp].left += ninst[i];
	}
	p->event = event;
	p->arg = arg;
}

void
iopol_release(struct iopol *p)
{
	for (size_t i = 0; i < p->nn; i++) {
		if (p->nm[i].has_learner)
			autobw_release(&p->nm[i].a);
		free(p->nm[i].arr);
	}
	for (size_t i = 0; i < p->ndev; i++)
		free(p->dev[i].name);
	for (size_t i = 0; i < p->nsaved; i++) {
		free(p->saved[i].key);
		free(p->saved[i].reg);
	}
	free(p->saved);
	free(p->nm);
	free(p->dev);
	free(p->w);
	memset(p, 0, sizeof(*p));
}

void
iopol_add_worker(struct iopol *p, const char *dev, const char *kind, double B,
		 long cores, long io_executors)
{
	uint32_t d;
	for (d = 0; d < p->ndev; d++)
		if (!strcmp(p->dev[d].name, dev))
			break;
	if (d == p->ndev) {
		p->dev = xrealloc(p->dev, (p->ndev + 1) * sizeof(*p->dev));
		p->dev[d].name = xstrdup(dev);
		p->dev[d].kind = kind;
		p->dev[d].B = B;
		p->dev[d].used = 0;
		p->dev[d].learner = NONE;
		p->ndev++;
	}
	p->w = xrealloc(p->w, (p->nw + 1) * sizeof(*p->w));
	p->w[p->nw].dev = d;
	p->w[p->nw].io_executors = io_executors > 0 ? io_executors : 1;
	p->w[p->nw].cores = cores > 0 ? cores : 1;
	p->nw++;
}

long
iopol_default_io(long cores)
{
	return cores > 0 ? 2 * cores : 2;
}

void
iopol_add_cluster(struct iopol *p, const struct cluster *c, long local_cores,
		  long local_io, double local_disk_bw)
{
	size_t nw = c ? c->nworkers : 1;
	struct strbuf dev = STRBUF_INIT;
	for (size_t i = 0; i < nw; i++) {
		const struct worker_spec *ws = c ? &c->workers[i] : NULL;
		bool here = !ws || ws->local;
		long io = ws && ws->io_executors ? ws->io_executors
			  : here		  ? local_io
						  : 0;
		long cores = ws && ws->cores ? ws->cores : local_cores;
		if (!io)
			io = iopol_default_io(cores);
		const struct storage_spec *st = NULL;
		for (size_t k = 0; ws && ws->storage && k < c->nstorages; k++)
			if (!strcmp(c->storages[k].name, ws->storage))
				st = &c->storages[k];
		if (st) {
			iopol_add_worker(p, st->name, st->name, st->bandwidth,
					 cores, io);
			continue;
		}
		strbuf_reset(&dev);
		strbuf_addf(&dev, "disk@%s", ws ? ws->name : "local");
		double B = ws && ws->disk_bw > 0 ? ws->disk_bw
			   : here		 ? local_disk_bw
						 : 0;
		iopol_add_worker(p, dev.buf, "disk", B, cores, io);
	}
	strbuf_release(&dev);
}

static bool
constrained(const struct iopol_name *nm)
{
	return nm->bw.kind != WF_BW_NONE;
}

const char *
iopol_unfit(const struct iopol *p, uint32_t name, size_t wi, char *buf,
	    size_t len)
{
	name = p->nm[name].grp;
	const struct iopol_name *nm = &p->nm[name];
	const struct iopol_device *D = &p->dev[p->w[wi].dev];
	if (!constrained(nm))
		return NULL;
	if (D->B <= 0) {
		snprintf(buf, len, "the bandwidth of %s is not known", D->name);
		return buf;
	}
	if (nm->bw.kind == WF_BW_STATIC && nm->bw.value > D->B + EPS) {
		snprintf(buf, len, "storage_bw %g MB/s is more than the %g MB/s "
			 "of %s", nm->bw.value, D->B, D->name);
		return buf;
	}
	if (nm->bw.kind == WF_BW_AUTO_BOUNDED && nm->bw.min > D->B + EPS) {
		snprintf(buf, len, "auto's minimum %g MB/s is more than the %g "
			 "MB/s of %s", nm->bw.min, D->B, D->name);
		return buf;
	}
	return NULL;
}

/* The constraint a new learner would start with on worker wi. */
static double
first_c(const struct iopol *p, const struct iopol_name *nm, size_t wi)
{
	double B = p->dev[p->w[wi].dev].B;
	double c = nm->bw.kind == WF_BW_AUTO_BOUNDED
			   ? nm->bw.min
			   : B / (double)p->w[wi].io_executors;
	return c > B ? B : c;
}

/* Room for c more MB/s on D.  A learned constraint larger than a smaller
 * device still lets one task run there at a time. */
static bool
room(const struct iopol_device *D, double c)
{
	return autobw_fits(D->B, D->used, c) || D->used <= EPS;
}

/* Does worker wi take part in the learning of nm?  Every worker that
 * writes the learning device does: one learning per device, its epochs'
 * writers spread over the workers that share it, k counted across them
 * (issue 23: with 3 workers on one storage, the others' tasks wrote
 * beside the learning worker's epochs, which measured them as their
 * own, and chose 10 writers where 7 were best, 73 % slower in wfrun
 * sim). */
static bool
learns_on(const struct iopol *p, const struct iopol_name *nm, size_t wi)
{
	return wi == nm->learn_worker || p->w[wi].dev == nm->learn_dev;
}

/* The workers on device d: their I/O executors and cores, added. */
static void
dev_capacity(const struct iopol *p, uint32_t d, long *io, long *cores)
{
	*io = *cores = 0;
	for (size_t wi = 0; wi < p->nw; wi++)
		if (p->w[wi].dev == d) {
			*io += p->w[wi].io_executors;
			*cores += p->w[wi].cores;
		}
}

static bool
may_start(struct iopol *p, uint32_t name, size_t wi, bool mark)
{
	name = p->nm[name].grp;
	const struct iopol_name *nm = &p->nm[name];
	if (!nm->io)
		return true;
	struct iopol_device *D = &p->dev[p->w[wi].dev];
	if (D->learner != NONE && D->learner != name) {
		/* another name learns on this device */
		if (mark)
			D->waiting = true;
		return false;
	}
	if (!constrained(nm))
		return true;
	if (D->B <= 0)
		return false;
	switch (nm->bw.kind) {
	case WF_BW_STATIC:
		return autobw_fits(D->B, D->used, nm->bw.value);
	default:
		break;
	}
	if (!nm->has_learner)
		return D->learner == NONE && room(D, first_c(p, nm, wi));
	if (nm->a.phase == AUTOBW_LEARNING) {
		if (learns_on(p, nm, wi))
			return autobw_can_start(&nm->a) && room(D, nm->a.c);
		double c = nm->a.climb ? autobw_elsewhere(&nm->a) : 0;
		if (c > 0)
			return room(D, c); /* a climb: see autobw.h */
		return false; /* the name learns on one device only */
	}
	return room(D, nm->a.chosen);
}

bool
iopol_may_start(struct iopol *p, uint32_t name, size_t wi)
{
	return may_start(p, name, wi, true);
}

bool
iopol_could_start(struct iopol *p, uint32_t name, size_t wi)
{
	return may_start(p, name, wi, false);
}

size_t
iopol_spread(struct iopol *p, uint32_t name, size_t best,
	     long (*busy)(size_t wi, void *arg), void *arg)
{
	long least = busy(best, arg);
	for (size_t i = 0; i < p->nw; i++) {
		long b = i == best ? -1 : busy(i, arg);
		if (b < 0 || b >= least || !iopol_could_start(p, name, i))
			continue;
		least = b;
		best = i;
	}
	return best;
}

static void
emit(struct iopol *p, struct iopol_event *e)
{
	if (!strcmp(e->ev, "epoch_end"))
		p->nm[e->name].epochs++;
	if (p->event)
		p->event(e, p->arg);
}

static long
k_of(const struct iopol *p, const struct iopol_name *nm, double c)
{
	double B = nm->learn_dev != NONE ? p->dev[nm->learn_dev].B : 0;
	return autobw_writers(B, c);
}

/* A climb's step: why its epoch's k, or why it stopped (iopol_event). */
static void
search_step(const struct autobw *a, struct iopol_event *e)
{
	if (!a->climb || !a->step)
		return;
	e->step = a->step;
	if (a->open_step && !strcmp(a->step, "resume"))
		e->open = a->open_step;
	e->best = a->kbest;
	e->lo = a->lo;
	e->hi = a->hi;
	e->best_rate = a->best_rate;
}

/* Why a climb's learning ended (or was held): a search event of its
 * own, with the constraint it chose (scripts read constraint lines
 * whole). */
static void
emit_search(struct iopol *p, uint32_t name)
{
	struct iopol_name *nm = &p->nm[name];
	struct iopol_event e = { .ev = "search", .name = name,
				 .key = nm->key,
				 .device = p->dev[nm->learn_dev].name,
				 .c = nm->a.chosen,
				 .k = k_of(p, nm, nm->a.chosen) };
	search_step(&nm->a, &e);
	if (e.step)
		emit(p, &e);
}

static void
emit_constraint(struct iopol *p, uint32_t name, long n, const char *why)
{
	struct iopol_name *nm = &p->nm[name];
	struct iopol_event e = { .ev = "constraint", .name = name,
				 .key = nm->key,
				 .device = p->dev[nm->learn_dev].name,
				 .c = nm->a.chosen,
				 .k = k_of(p, nm, nm->a.chosen), .n = n,
				 .why = why };
	nm->reported = nm->a.chosen;
	if (nm->a.climb && nm->a.phase == AUTOBW_LEARNED &&
	    strcmp(why, "reevaluated") && strcmp(why, "registry") &&
	    strcmp(why, "last"))
		emit_search(p, name);
	emit(p, &e);
}

/* A climb's constraint for the other devices may have changed: mark the
 * name when it rose (iopol_take_tight). */
static void
note_others(struct iopol *p, uint32_t name)
{
	struct iopol_name *nm = &p->nm[name];
	if (!nm->a.climb)
		return;
	double c = nm->a.phase == AUTOBW_LEARNING ? autobw_elsewhere(&nm->a)
						  : nm->a.chosen;
	if (nm->others_c > 0 && c > nm->others_c + EPS && !nm->tight) {
		nm->tight = true;
		p->ntight++;
	}
	nm->others_c = c;
}

static void
emit_epoch_begin(struct iopol *p, uint32_t name)
{
	struct iopol_name *nm = &p->nm[name];
	struct iopol_event e = { .ev = "epoch_begin", .name = name,
				 .key = nm->key,
				 .device = p->dev[nm->learn_dev].name,
				 .epoch = nm->a.epoch, .c = nm->a.c,
				 .k = nm->a.k };
	search_step(&nm->a, &e);
	emit(p, &e);
	note_others(p, name);
}

static void
spec(const struct wf_bw *bw, char *buf, size_t len)
{
	if (bw->kind == WF_BW_AUTO_BOUNDED)
		snprintf(buf, len, "auto(%g,%g,%g)", bw->min, bw->max,
			 bw->delta);
	else
		snprintf(buf, len, "auto");
}

static char *
registry_key(const struct iopol *p, uint32_t name, uint32_t dev)
{
	char sp[128];
	struct strbuf k = STRBUF_INIT;
	spec(&p->nm[name].bw, sp, sizeof(sp));
	strbuf_addf(&k, "%s\t%s\t%.6g\t%s", p->nm[name].key,
		    p->dev[dev].kind, p->dev[dev].B, sp);
	return strbuf_detach(&k);
}

static const struct iopol_saved *
saved_find(const struct iopol *p, const char *key)
{
	for (size_t i = 0; i < p->nsaved; i++)
		if (!strcmp(p->saved[i].key, key))
			return &p->saved[i];
	return NULL;
}

static bool scaling(const struct iopol *p, struct iopol_name *nm, size_t wi);

/* D: the devices with a known bandwidth, at least 1. */
static long
known_devs(const struct iopol *p)
{
	long ndev = 0;
	for (size_t d = 0; d < p->ndev; d++)
		ndev += p->dev[d].B > 0;
	return ndev > 1 ? ndev : 1;
}

/* Beyond the paper: an epoch of k tasks on one device is worth running
 * only if at least 2 D k of the name's tasks are left: the epoch then
 * takes at most half of the learning node's share of the work left, and
 * the other half is left to use what it learns. */
static bool
worth(const struct iopol *p, const struct iopol_name *nm, long k)
{
	return 2 * k * known_devs(p) <= nm->left;
}

/* Is an epoch of k for the learning name worth running?  A climb's epoch
 * of k >= 2 writers is measured in flight (autobw_flight): it costs a
 * window of a few tenths of a second and, on a step down, the youngest
 * writers' first bytes, not the 2 k tasks it measures at most; it is
 * run while one wave of k is left on each device (D k tasks), or on one
 * device when it steps down below the writers running, when
 * the one writer's bytes were known (a fill point; otherwise no bytes
 * are, and it streams its 2 k tasks).  Not
 * running it is a bet: with 32 tasks and a fill point of 16, the climb
 * stopped after one writer and ran 16 at once on a device whose best
 * was 9, 3 times slower than the best static in wfrun sim.  The fill
 * point's own epoch runs whenever two of the tasks left can: not
 * running it is that very bet, unmeasured (16 tasks, a fill point of
 * 16: 15 left, and 16 writers ran on a device whose best was 4, 4.7
 * times as long as the best static and twice the baseline in wfrun
 * sim), where its writers ramping up say where the device congests
 * (autobw_flight).  The paper's epochs cost all their tasks. */
static bool
worth_step(const struct iopol *p, const struct iopol_name *nm, long k,
	   bool *played)
{
	const struct autobw *a = &nm->a;
	if (!a->climb || k < 2 || a->fill < 1) /* (no bytes: no flight) */
		return worth(p, nm, a->climb && k > 1 ? 2 * k : k);
	if (k >= a->fill && a->nreg <= 1) /* (or fill_epoch's pile) */
		return nm->left >= 2; /* (the one writer's alone, or none) */
	if (known_devs(p) == 1 && !autobw_epoch_pays(a, k, nm->left)) {
		*played = true;
		return false;
	}
	/* A step down below the writers running, on one device, needs no
	 * wave left: the youngest beyond k make way (or, with
	 * --no-preempt, k are read when so many are left writing), and
	 * the play-out above counted them as run again.  (16 HMMER-like
	 * checkpoints of 16 to 256 MB: the fill point's epoch started all
	 * 16, which slowed, and with none left learning stopped at 8,
	 * which kept pace; the 255 MB one waited for one of 8 places, 42 %
	 * over the best static in wfrun sim.  Stepped down, 11 kept pace
	 * too: 0.7 %.) */
	if (known_devs(p) == 1 && k < a->flying)
		return true;
	return k * known_devs(p) <= nm->left;
}

static bool
worth_k(const struct iopol *p, const struct iopol_name *nm, long k)
{
	bool played = false;
	return worth_step(p, nm, k, &played);
}

static bool
worth_epoch(const struct iopol *p, const struct iopol_name *nm)
{
	return worth_k(p, nm, nm->a.k);
}

static bool compared(const struct autobw *a);
static void regrant(struct iopol *p, size_t wi, struct iopol_grant *g,
		    double c);

/* Of a name's left tasks, ready wait and the others are still to become
 * ready, running run: are those to come no more than those there?  Then
 * its last tasks are chosen for as if all were there (their writes
 * outlast the compute before them, and they pile up): 32 checkpoints of
 * 8 s each, 8 ready every 2 s, 15 writers chosen by the rate of a
 * stream of them, 120 MB/s against 16's 111, and the last 2 wrote alone
 * for 8 s; played out, 16 end them in 2 waves (+16 % over the best
 * static, 16, in a second run in wfrun sim, and 0 so). */
static bool
piled(long left, long ready, long running)
{
	return left - ready <= ready + running;
}

/* The name's last tasks are all there or piled up (piled), ready of them
 * waiting (ready < 0: not known here, iopol_batch is told), and few (at
 * most four waves of the most writers registered: each task's end plays
 * them all out again for each count, so their number is kept small): its
 * choice is made for them with their progress (iopol_take_batch).  True
 * when that is to be. */
static bool
want_batch(struct iopol *p, struct iopol_name *nm, long ready)
{
	if (!nm->a.climb || nm->a.phase != AUTOBW_LEARNED ||
	    nm->a.still_scaling || !compared(&nm->a) || nm->left < 1 ||
	    (ready >= 0 && !piled(nm->left, ready, nm->running)) ||
	    nm->left + nm->running > 4 * autobw_most_tried(&nm->a) ||
	    known_devs(p) != 1 ||
	    !(autobw_task_mb(&nm->a) > 0) || autobw_unlike(&nm->a))
		return false; /* (the task size not known, or the sizes too
				 unlike for the mean's: rechosen as before) */
	if (!nm->batch && !nm->regrant)
		p->nbatch++;
	nm->batch = true;
	return true;
}

uint32_t
iopol_take_batch(struct iopol *p)
{
	if (!p->nbatch)
		return NONE;
	for (uint32_t i = 0; i < p->nn; i++) {
		struct iopol_name *nm = &p->nm[i];
		if (nm->batch || nm->regrant) {
			nm->due_batch = nm->batch;
			nm->due_regrant = nm->regrant;
			nm->batch = nm->regrant = false;
			p->nbatch--;
			return i;
		}
	}
	p->nbatch = 0;
	return NONE;
}

static int by_dev_start(const void *a, const void *b, void *arg);

/* Would the drain stop x for a count below those running (make_way_dev:
 * it may stop and run again, and has written less than half a task)? */
static bool
drain_may_stop(const struct iopol_name *nm, const struct iopol_running *x)
{
	return x->can_stop && autobw_slot_young(&nm->a, x->g->slot - 1);
}

/* When the name's learning has just ended and its drain is to run
 * (make_way_dev, after the batch), the order in which it would stop its
 * running r[0..n) for a count below n: the youngest that may stop first,
 * -1 for the others; NULL when it will stop none.  Sorts r as
 * make_way_dev does.  (A second run tried a wave of 8 above the 6
 * kept, and the last 16 checkpoints' play-out, with the 8 running on,
 * chose 8 over 6; 6 drains 2 of them and writes the rest at 167 MB/s
 * to 8's 143: +4.5 % over the best static, 6, in wfrun sim, now +1.1.) */
static long *
drain_ranks(struct iopol *p, const struct iopol_name *nm,
	    struct iopol_running *r, size_t n)
{
	if (!nm->drain || p->no_preempt || !n)
		return NULL;
	qsort_r(r, n, sizeof(*r), by_dev_start, p);
	long *rank = xmalloc(n * sizeof(long)), next = 0;
	for (size_t i = n; i-- > 0;)
		rank[i] = drain_may_stop(nm, &r[i]) ? next++ : -1;
	return rank;
}

void
iopol_batch(struct iopol *p, uint32_t name, long ready, double now,
	    struct iopol_running *r, size_t n, const struct autobw_count *h,
	    size_t nh)
{
	struct iopol_name *nm = &p->nm[name];
	bool batch = nm->due_batch, more = nm->due_regrant;
	nm->due_batch = nm->due_regrant = false;
	if (batch && nm->left >= 1 && piled(nm->left, ready, (long)n)) {
		double *v = xmalloc((n ? n : 1) * sizeof(double)), c = 0;
		long *stop = drain_ranks(p, nm, r, n);
		for (size_t i = 0; i < n; i++)
			v[i] = r[i].start;
		if (autobw_batch_left(&nm->a, v, (long)n, h, nh, now, v))
			c = autobw_choose_batch(&nm->a, v, stop, (long)n,
						nm->left, nm->a.chosen);
		free(stop);
		free(v);
		if (c > 0 && c != nm->a.chosen) {
			if (!(nm->stream_c > 0)) {
				nm->stream_c = nm->a.chosen;
				nm->last_n = (long)n + nm->left;
			}
			nm->a.chosen = c;
			emit_constraint(p, name, (long)n + nm->left, "last");
		}
		more = more || c > 0;
	}
	/* more places (chosen here, or as they became ready): the running
	 * hold the new share, so that the ready start now, not as the
	 * running end */
	if (more)
		for (size_t i = 0; i < n; i++)
			if (r[i].g->c > nm->a.chosen)
				regrant(p, r[i].wi, r[i].g, nm->a.chosen);
}

/* Tell nm's learner its n tasks not yet ended, if they all write one
 * device (autobw's pile; 0: not known). */
static void
tell_pile(const struct iopol *p, struct iopol_name *nm, long n)
{
	nm->a.pile = known_devs(p) == 1 ? n : 0;
}

/* An auto name with a registry from an earlier run for one of the
 * devices starts learned: no learning node; or, when that registry's
 * search was left open (autobw_open), it learns on that device again
 * from where the search stopped. */
static void
try_preload(struct iopol *p, uint32_t name, long ready)
{
	struct iopol_name *nm = &p->nm[name];
	if (p->relearn || nm->has_learner || !p->nsaved)
		return;
	for (size_t wi = 0; wi < p->nw; wi++) {
		uint32_t d = p->w[wi].dev;
		if (p->dev[d].B <= 0)
			continue;
		char *key = registry_key(p, name, d);
		const struct iopol_saved *s = saved_find(p, key);
		free(key);
		if (!s || !s->nreg)
			continue;
		/* (the device's executors, as its learner had them: a k
		 * counted across the workers that share it) */
		long io, cores;
		dev_capacity(p, d, &io, &cores);
		autobw_init(&nm->a, p->dev[d].B, io,
			    nm->bw.kind == WF_BW_AUTO_BOUNDED, nm->bw.min,
			    nm->bw.max, nm->bw.delta);
		/* for every task of the name still to run, not the few
		 * ready now: the first checkpoint ready alone chose one
		 * writer, which held the whole device while the next ones
		 * became ready (a second run 5 % slower than the best
		 * static in wfrun sim: bench/learn-sim.sh) */
		long n = (nm->left > ready ? nm->left : ready) + nm->running;
		/* (a climb's registry is chosen from as the climb does) */
		nm->a.climb = !p->paper && nm->bw.kind == WF_BW_AUTO;
		nm->a.cores = cores;
		autobw_preload(&nm->a, s->reg, s->nreg, n);
		/* (resumed partway, the tasks left do not become ready as
		 * the registry's run saw them: not played out so) */
		if (nm->resumed)
			nm->a.opening = false;
		nm->has_learner = true;
		nm->kept = true;
		nm->learn_dev = d;
		nm->learn_worker = SIZE_MAX;
		if (nm->bw.kind == WF_BW_AUTO && autobw_scaling(&nm->a)) {
			nm->a.still_scaling = true;
			scaling(p, nm, wi);
		}
		tell_pile(p, nm, n); /* (kept_pace_next) */
		long k = nm->a.climb ? autobw_open(&nm->a) : 0;
		if (k > 0 && !worth_k(p, nm, k))
			k = autobw_open_above(&nm->a); /* (the search's step
							   cannot be repaid) */
		if (k > 0 && p->dev[d].learner == NONE && worth_k(p, nm, k)) {
			/* its search was left open: go on with it (unless
			 * another name learns on the device) */
			autobw_resume(&nm->a, k, cores);
			nm->a.opening = false;
			nm->learn_worker = wi;
			p->dev[d].learner = name;
			emit_epoch_begin(p, name);
			return;
		}
		/* (as at learning's end: the tasks not yet ended, in
		 * rounds or, of unlike sizes, played out, when they pile
		 * up; and, as there, not for a still-scaling choice,
		 * which is past the registry) */
		if (nm->a.climb && !nm->a.still_scaling &&
		    !autobw_bound(&nm->a, nm->a.chosen))
			nm->a.chosen = autobw_choose_pile(&nm->a, nm->a.chosen);
		nm->a.opening = false; /* (from now on some have started) */
		emit_constraint(p, name, n, "registry");
		want_batch(p, nm, ready);
		return;
	}
}

/* With nothing registered (learning was not worth it), one task per core
 * of the learning worker, as the baseline would run them, within the
 * bounds of auto(min,max,delta) or [B / executors, B]. */
static double
fallback(const struct iopol *p, const struct iopol_name *nm, size_t wi)
{
	const struct iopol_worker *w = &p->w[wi];
	double B = p->dev[w->dev].B;
	double c = B / (double)w->cores;
	double lo = nm->bw.kind == WF_BW_AUTO_BOUNDED ? nm->bw.min
						       : B / (double)w->io_executors;
	double hi = nm->bw.kind == WF_BW_AUTO_BOUNDED ? nm->bw.max : B;
	if (hi > B)
		hi = B;
	return c < lo ? lo : c > hi ? hi : c;
}

/* A climb that stopped while the most writers it tried were the best
 * (autobw_stop's still_scaling, or such a registry kept by an earlier
 * run): at least one task per core of worker wi, as the baseline.  True
 * if that is more writers than the best tried. */
static bool
scaling(const struct iopol *p, struct iopol_name *nm, size_t wi)
{
	double fb = fallback(p, nm, wi), c;
	autobw_best(&nm->a, &c);
	nm->a.chosen = fb < c ? fb : c;
	return fb < c;
}

/* Did learning find anything to choose from?  The paper's way registers
 * its first epoch alone when nothing else ran; a climb that ran only its
 * first epoch (one writer) compared nothing: its fallback is used and
 * nothing is kept for the next run, which would otherwise hold every
 * device to one writer on no evidence (measured in wfrun sim: 22 times
 * slower). */
static bool
compared(const struct autobw *a)
{
	return a->climb ? a->nreg >= 2 : a->nreg >= 1;
}

/* More of the learning device's writers run than the name's k now:
 * the youngest make way (iopol_make_way, drained as on a step down). */
static void
make_way_for(struct iopol *p, struct iopol_name *nm)
{
	nm->drain = true;
	if (!nm->tight)
		p->ntight++;
	nm->tight = true;
}

/* Learning is over: free the device and say what was chosen. */
static void
learned(struct iopol *p, uint32_t name, long ready)
{
	struct iopol_name *nm = &p->nm[name];
	p->dev[nm->learn_dev].learner = NONE;
	long n = (ready > 0 ? ready : nm->left) + nm->running;
	const char *why = "learned";
	if (!compared(&nm->a) && nm->a.fill > 0) {
		/* a climb that measured one writer only: as many as fill B */
		nm->a.chosen = nm->a.B / (double)nm->a.fill;
		why = "fill";
	} else if (!compared(&nm->a)) {
		nm->a.chosen = fallback(p, nm, nm->learn_worker);
		why = "fallback";
	} else if (nm->a.still_scaling) {
		if (scaling(p, nm, nm->learn_worker))
			why = "scaling";
	} else if (n > 0) {
		nm->a.chosen = autobw_choose(&nm->a, n);
		double c = nm->a.chosen;
		if (autobw_bound(&nm->a, c))
			why = "bound"; /* (a count no epoch ran) */
		else if ((nm->a.chosen = autobw_choose_pile(&nm->a, c)) != c)
			why = "rounds";
	}
	emit_constraint(p, name, n, why);
	if (!strcmp(why, "learned") || !strcmp(why, "rounds"))
		want_batch(p, nm, -1);
	note_others(p, name);
	struct iopol_device *D = &p->dev[nm->learn_dev];
	long k = D->B > 0 ? autobw_writers(D->B, nm->a.chosen) : 0;
	/* (the choice is fewer than write now; with none to start after
	 * them, the youngest stop only if running them again pays; with
	 * some, of unlike sizes, only if k write CLIMB_GAIN more) */
	if (nm->a.climb && D->B > 0 && nm->a.flying > k &&
	    (nm->left > 0 ? autobw_drain_gains(&nm->a, nm->a.flying, k)
			  : autobw_drain_pays(&nm->a, nm->a.flying, k)))
		make_way_for(p, nm);
}

struct iopol_grant
iopol_start(struct iopol *p, uint32_t name, size_t wi, long ready)
{
	name = p->nm[name].grp;
	struct iopol_grant g = { 0, 0, false, 0 };
	struct iopol_name *nm = &p->nm[name];
	struct iopol_device *D = &p->dev[p->w[wi].dev];
	if (constrained(nm) && nm->bw.kind != WF_BW_STATIC &&
	    !nm->has_learner) {
		long io, cores;
		dev_capacity(p, p->w[wi].dev, &io, &cores);
		autobw_init(&nm->a, D->B, io,
			    nm->bw.kind == WF_BW_AUTO_BOUNDED, nm->bw.min,
			    nm->bw.max, nm->bw.delta);
		nm->has_learner = true;
		nm->learn_worker = wi;
		nm->learn_dev = p->w[wi].dev;
		D->learner = name;
		if (!p->paper && nm->bw.kind == WF_BW_AUTO &&
		    worth(p, nm, 4)) {
			/* wfrun's way: climb from one writer (autobw.h), if
			 * its k = 2 epoch (4 tasks) can be repaid */
			autobw_release(&nm->a);
			autobw_init_climb(&nm->a, D->B, io, cores);
		}
		if (worth_epoch(p, nm)) {
			emit_epoch_begin(p, name);
		} else {
			autobw_stop(&nm->a);
			learned(p, name, ready);
		}
	}
	if (nm->left > 0)
		nm->left--;
	nm->running++;
	if (!constrained(nm))
		return g;
	if (nm->bw.kind == WF_BW_STATIC) {
		g.c = nm->bw.value;
		D->used += g.c;
		return g;
	}
	if (nm->a.phase == AUTOBW_LEARNING && !learns_on(p, nm, wi)) {
		g.c = autobw_elsewhere(&nm->a); /* a climb, elsewhere */
		D->used += g.c;
		return g;
	}
	g.c = autobw_constraint(&nm->a);
	g.epoch = autobw_epoch(&nm->a);
	D->used += g.c;
	if (autobw_flies(&nm->a)) {
		/* every writer of the learning device, read while it runs */
		g.slot = 1 + autobw_slot_open(&nm->a);
		g.sample = true;
	}
	if (g.epoch) {
		autobw_started(&nm->a);
		g.sample |= autobw_wants_rate(&nm->a);
		if (nm->left == 0)
			autobw_no_more_ready(&nm->a); /* no more will come */
	}
	return g;
}


/* An epoch's end was said: what comes next.  A step the play-out
 * refused while fewer than two of the name's tasks had ended (a first
 * run: nothing says how their sizes spread, and it plays them as of one
 * size) is held: learning ends for now, and is decided again once two
 * have ended (iopol_finish: held_ends).  (16 HMMER-like checkpoints of
 * 16 to 256 MB, knee 7, fall 0.8, 20 MB/s a writer: the fill point's 8
 * wrote 111 MB/s, the step down to 7 was played out as two rounds of
 * one size and refused, and 8 ran on: 25.9 % over the best static, 7,
 * in wfrun sim.) */
static void
next_epoch(struct iopol *p, uint32_t name)
{
	struct iopol_name *nm = &p->nm[name];
	struct autobw *a = &nm->a;
	bool played = false;
	const char *step = a->step;
	if (a->phase == AUTOBW_LEARNING && !worth_step(p, nm, a->k, &played))
		autobw_stop(a); /* too few tasks left to repay an epoch */
	if (a->phase == AUTOBW_LEARNING) {
		emit_epoch_begin(p, name);
		return;
	}
	if (played && a->task_n < 2 && !nm->kept && nm->left + nm->running > 2)
		autobw_hold(a, step);
	learned(p, name, 0);
}

/* A held step (next_epoch), once two of the name's tasks have ended:
 * of unlike sizes, played out again with them, and learning goes on
 * with it if it now pays; else learning ends where it was. */
static void
held_ends(struct iopol *p, uint32_t name)
{
	struct iopol_name *nm = &p->nm[name];
	struct autobw *a = &nm->a;
	if (a->task_n < 2 && nm->left + nm->running > 0)
		return;
	struct iopol_device *D = &p->dev[nm->learn_dev];
	if (autobw_task_spread(a) >= 0.01 && D->learner == NONE &&
	    nm->left + nm->running > 0 && worth_k(p, nm, a->k)) {
		autobw_reopen(a);
		D->learner = name;
		emit_epoch_begin(p, name);
		if (a->flying > a->k)
			make_way_for(p, nm); /* a step down */
		return;
	}
	autobw_unhold(a);
	emit_search(p, name);
}

/* A rate taken in flight, registered as entry r: ev "rate" (the
 * epoch's) or "ramp" (fewer writers of it), after_s seconds of
 * windows. */
static void
emit_rate(struct iopol *p, uint32_t name, const char *ev, int epoch,
	  const struct autobw_entry *r, double after_s)
{
	struct iopol_name *nm = &p->nm[name];
	struct iopol_event e = { .ev = ev, .name = name, .key = nm->key,
				 .device = p->dev[nm->learn_dev].name,
				 .epoch = epoch, .c = r->c, .k = r->k,
				 .mbps = r->mbps, .after_s = after_s,
				 .err = r->err, .fill = nm->a.fill };
	emit(p, &e);
}

/* Say how an epoch ended (its values from before it ended), then what
 * comes next: another epoch, or the choice. */
static void
epoch_ended(struct iopol *p, uint32_t name, int epoch, double c, long k,
	    long joined, size_t nreg_before)
{
	struct iopol_name *nm = &p->nm[name];
	struct autobw *a = &nm->a;
	if (a->windows && a->nreg > nreg_before)
		emit_rate(p, name, "rate", epoch, &a->reg[a->nreg - 1],
			  a->flight_s); /* (its windows' rate, at its end) */
	a->windows = false;
	struct iopol_event e = { .ev = "epoch_end", .name = name,
				 .key = nm->key,
				 .device = p->dev[nm->learn_dev].name,
				 .epoch = epoch, .c = c, .k = k,
				 .tasks = joined, .mean_s = a->last_mean,
				 .t_s = a->last_t, .busy_s = a->busy,
				 .mbps = a->last_mbps,
				 .registered = a->nreg > nreg_before };
	emit(p, &e);
	next_epoch(p, name);
}

/* A running task's grant now holds c of its device. */
static void
regrant(struct iopol *p, size_t wi, struct iopol_grant *g, double c)
{
	if (!(g->c > 0) || !(c > 0) || g->c == c)
		return;
	struct iopol_device *D = &p->dev[p->w[wi].dev];
	D->used += c - g->c;
	g->c = c;
	if (D->used < EPS)
		D->used = 0;
}

/* The one writer's rate was taken (autobw_sample), after_s into its
 * window: say so, and begin the fill point's epoch. */
static void
one_rate_taken(struct iopol *p, uint32_t name, int epoch, double c,
	       double after_s)
{
	struct iopol_name *nm = &p->nm[name];
	struct iopol_event e = { .ev = "rate", .name = name, .key = nm->key,
				 .device = p->dev[nm->learn_dev].name,
				 .epoch = epoch, .c = c, .k = 1,
				 .mbps = nm->a.early, .after_s = after_s,
				 .err = nm->a.early_err,
				 .fill = nm->a.fill };
	emit(p, &e);
	next_epoch(p, name);
}

/* Since the sample that read nreg entries, autobw_flight registered
 * what its epoch's writers ramping up measured (k >= 2, not slowed) or
 * the carried one writer's epoch (k = 1: flight_taken registers it with
 * the epoch it joined), up to entry end: say so. */
static void
flight_registered(struct iopol *p, uint32_t name, int epoch, size_t nreg,
		  size_t end)
{
	struct iopol_name *nm = &p->nm[name];
	const struct autobw *a = &nm->a;
	const char *dev = p->dev[nm->learn_dev].name;
	for (size_t i = nreg; i < end; i++) {
		const struct autobw_entry *r = &a->reg[i];
		if (r->k > 1) {
			emit_rate(p, name, "ramp", epoch, r, r->w);
			continue;
		}
		struct iopol_event e = { .ev = "epoch_end", .name = name,
					 .key = nm->key, .device = dev,
					 .epoch = epoch - 1, .c = r->c, .k = 1,
					 .tasks = 1, .t_s = r->t, .mbps = r->mbps,
					 .registered = true };
		emit(p, &e);
	}
}

/* k writers' rate was taken in flight (autobw_flight), ending epoch
 * `epoch` (joined tasks; nreg entries before): say so, with the carried
 * one writer's epoch if it was registered too.  (Its c and k are those
 * registered: fewer than the epoch's when its ramp slowed.) */
static void
flight_taken(struct iopol *p, uint32_t name, int epoch, long joined,
	     size_t nreg)
{
	struct iopol_name *nm = &p->nm[name];
	const struct autobw *a = &nm->a;
	double c = a->reg[a->nreg - 1].c;
	long k = a->reg[a->nreg - 1].k;
	flight_registered(p, name, epoch, nreg, a->nreg - 1);
	emit_rate(p, name, "rate", epoch, &a->reg[a->nreg - 1], a->flight_s);
	epoch_ended(p, name, epoch, c, k, joined, a->nreg - 1);
	if (a->phase == AUTOBW_LEARNING && a->flying > a->k)
		make_way_for(p, nm); /* a step down */
}

bool
iopol_sample(struct iopol *p, uint32_t name, size_t wi,
	     struct iopol_grant *g, double now, long long bytes)
{
	name = p->nm[name].grp;
	struct iopol_name *nm = &p->nm[name];
	struct autobw *a = &nm->a;
	if (!g->sample || !nm->has_learner)
		return false;
	if (a->phase != AUTOBW_LEARNING) {
		regrant(p, wi, g, a->chosen); /* learned: its choice */
		if (!a->held || !g->slot)
			return false;
		if (bytes >= 0) /* (held: read on) */
			autobw_flight(a, g->slot - 1, now,
				      (double)bytes / (1024.0 * 1024.0));
		return true;
	}
	if (learns_on(p, nm, wi))
		regrant(p, wi, g, a->c);
	if (bytes < 0)
		return true; /* not known this time */
	tell_pile(p, nm, nm->left + nm->running); /* (fill_epoch) */
	double mb = (double)bytes / (1024.0 * 1024.0);
	int epoch = a->epoch;
	double c = a->c;
	long joined = autobw_joined(a);
	size_t nreg = a->nreg;
	if (g->epoch == epoch && autobw_wants_rate(a)) {
		if (autobw_sample(a, now, mb)) {
			/* the writer now holds one of the fill point's
			 * places */
			regrant(p, wi, g, a->c);
			one_rate_taken(p, name, epoch, c, now - a->s_t0);
		}
		return g->slot || autobw_wants_rate(a);
	}
	if (g->slot && autobw_flight(a, g->slot - 1, now, mb))
		flight_taken(p, name, epoch, joined, nreg);
	else if (a->nreg > nreg)
		flight_registered(p, name, epoch, nreg, a->nreg);
	return g->slot != 0;
}

/* The carried task of a climb (autobw_sample) ended, from start to end,
 * having written mb MB (< 0: not known): say its own epoch's end, and
 * the end of the epoch it joined if that ended it. */
static void
carry_ended(struct iopol *p, uint32_t name, double start, double end,
	    double mb)
{
	struct iopol_name *nm = &p->nm[name];
	struct autobw *a = &nm->a;
	int carry = a->carry, epoch = a->epoch;
	double c = a->c;
	long k = a->k, joined = autobw_joined(a);
	size_t nreg = a->nreg;
	bool ended = autobw_carry_done(a, start, end, mb);
	const struct autobw_entry *r = &a->reg[nreg];
	struct iopol_event e = { .ev = "epoch_end", .name = name,
				 .key = nm->key,
				 .device = p->dev[nm->learn_dev].name,
				 .epoch = carry, .c = r->c, .k = 1, .tasks = 1,
				 .mean_s = r->t, .t_s = r->t, .busy_s = r->t,
				 .mbps = r->mbps, .registered = true };
	emit(p, &e);
	if (ended)
		epoch_ended(p, name, epoch, c, k, joined, nreg + 1);
}

/* A task's share of its device is free again. */
static void
give_back(struct iopol *p, size_t wi, struct iopol_grant g)
{
	struct iopol_device *D = &p->dev[p->w[wi].dev];
	D->used -= g.c;
	if (D->used < EPS)
		D->used = 0;
}

static void finish_task(struct iopol *p, uint32_t name, size_t wi,
			struct iopol_grant g, double start, double end,
			long long bytes);

void
iopol_finish(struct iopol *p, uint32_t name, size_t wi, struct iopol_grant g,
	     double start, double end, long long bytes)
{
	name = p->nm[name].grp;
	finish_task(p, name, wi, g, start, end, bytes);
	if (p->nm[name].has_learner && p->nm[name].a.held)
		held_ends(p, name);
}

static void
finish_task(struct iopol *p, uint32_t name, size_t wi, struct iopol_grant g,
	    double start, double end, long long bytes)
{
	struct iopol_name *nm = &p->nm[name];
	give_back(p, wi, g);
	if (nm->running > 0)
		nm->running--;
	if (g.slot && nm->has_learner)
		autobw_slot_close(&nm->a, g.slot - 1);
	double mb = bytes >= 0 ? (double)bytes / (1024.0 * 1024.0) : -1;
	if (!g.epoch && nm->has_learner)
		autobw_ended(&nm->a, mb); /* (the mean task: autobw_task_mb) */
	/* (a place freed: the last tasks' choice again, nearer their tail;
	 * an epoch's task too, ending after its learning did) */
	if (nm->has_learner)
		want_batch(p, nm, -1);
	if (!g.epoch || !nm->has_learner)
		return;
	struct autobw *a = &nm->a;
	tell_pile(p, nm, nm->left + nm->running);
	if (a->carry && g.epoch == a->carry) {
		carry_ended(p, name, start, end, mb);
		return;
	}
	double c = a->c;
	long k = a->k, joined = autobw_joined(a);
	int epoch = a->epoch;
	size_t nreg = a->nreg;
	if (autobw_finished(a, g.epoch, start, end, mb))
		epoch_ended(p, name, epoch, c, k, joined, nreg);
}

size_t
iopol_close_idle(struct iopol *p, bool force)
{
	size_t closed = 0;
	for (uint32_t i = 0; i < p->nn; i++) {
		struct iopol_name *nm = &p->nm[i];
		struct autobw *a = &nm->a;
		if (!nm->has_learner || a->phase != AUTOBW_LEARNING ||
		    a->finished < a->joined)
			continue; /* not learning, or its tasks still run */
		if (!force && !p->dev[nm->learn_dev].waiting)
			continue;
		double c = a->c;
		long joined = autobw_joined(a);
		int epoch = a->epoch;
		size_t nreg = a->nreg;
		if (joined > 0) {
			/* (what autobw_no_more_ready makes of k) */
			long k = joined < a->k ? joined : a->k;
			autobw_no_more_ready(a);
			epoch_ended(p, i, epoch, c, k, joined, nreg);
		} else {
			autobw_stop(a);
			learned(p, i, 0);
		}
		closed++;
	}
	for (size_t d = 0; d < p->ndev; d++)
		p->dev[d].waiting = false;
	return closed;
}

void
iopol_again(struct iopol *p, uint32_t name)
{
	p->nm[p->nm[name].grp].left++;
}

void
iopol_abandon(struct iopol *p, uint32_t name, size_t wi, struct iopol_grant g)
{
	name = p->nm[name].grp;
	struct iopol_name *nm = &p->nm[name];
	give_back(p, wi, g);
	nm->left++;
	if (nm->running > 0)
		nm->running--;
	if (g.slot && nm->has_learner)
		autobw_slot_close(&nm->a, g.slot - 1);
	if (g.epoch && nm->has_learner)
		autobw_abandon(&nm->a, g.epoch);
}

void
iopol_arrived(struct iopol *p, uint32_t name, double now)
{
	struct iopol_name *nm = &p->nm[p->nm[name].grp];
	if ((nm->bw.kind != WF_BW_AUTO && nm->bw.kind != WF_BW_AUTO_BOUNDED) ||
	    nm->narr >= IOPOL_ARRIVALS)
		return;
	if (!nm->arr)
		nm->arr = xmalloc(IOPOL_ARRIVALS * sizeof(double));
	nm->arr[nm->narr++] = now;
}

void
iopol_up_to_date(struct iopol *p, uint32_t name)
{
	p->nm[p->nm[name].grp].resumed = true;
}

void
iopol_ready(struct iopol *p, uint32_t name, long ready)
{
	name = p->nm[name].grp;
	struct iopol_name *nm = &p->nm[name];
	if (nm->bw.kind != WF_BW_AUTO && nm->bw.kind != WF_BW_AUTO_BOUNDED)
		return;
	if (!nm->has_learner) {
		try_preload(p, name, ready);
		return;
	}
	if (nm->a.phase == AUTOBW_LEARNING && nm->a.climb) {
		/* the last tasks all there: the epoch that will be the last
		 * whatever it measures is taken as soon as its rate is known
		 * at all (autobw_last_tasks), for their choice */
		long most = autobw_most_tried(&nm->a);
		if (most < nm->a.k)
			most = nm->a.k;
		autobw_last_tasks(&nm->a, nm->left == ready &&
						  nm->left + nm->running <= 4 * most &&
						  known_devs(p) == 1);
		return;
	}
	if (nm->a.phase != AUTOBW_LEARNED || !compared(&nm->a) || ready <= 0 ||
	    nm->a.still_scaling)
		return; /* (a still-scaling choice is past the registry; a
			   fill or fallback choice was not made from it) */
	/* the running ones count: a task that becomes ready while others
	 * of its name run joins their wave (wfrun-workflow(5)) */
	long n = ready + nm->running;
	if (want_batch(p, nm, ready))
		return; /* (chosen with their progress: iopol_batch) */
	double was = nm->a.chosen;
	nm->a.chosen = nm->a.climb ? autobw_rechoose(&nm->a, n, nm->a.chosen)
				   : autobw_choose(&nm->a, n);
	if (nm->a.chosen != nm->reported)
		emit_constraint(p, name, n, "reevaluated");
	/* more places: the running take the new share, so that the ready
	 * start now (with 6 chosen and then 8, the one that ran under 6
	 * held its share, and 7 wrote until it ended) */
	if (nm->a.chosen < was && nm->running > 0) {
		if (!nm->batch && !nm->regrant)
			p->nbatch++;
		nm->regrant = true;
	}
}

bool
iopol_outcome(const struct iopol *p, uint32_t name, char *buf, size_t len)
{
	const struct iopol_name *nm = &p->nm[name];
	if (nm->grp != name || !nm->has_learner || nm->learn_dev == NONE ||
	    (nm->bw.kind != WF_BW_AUTO && nm->bw.kind != WF_BW_AUTO_BOUNDED))
		return false;
	const struct iopol_device *D = &p->dev[nm->learn_dev];
	const char *s = nm->epochs == 1 ? "" : "s";
	if (nm->a.phase == AUTOBW_LEARNING) {
		snprintf(buf, len, "auto was still learning on %s (epoch %d); "
			 "nothing was kept", D->name, nm->a.epoch);
		return true;
	}
	double c = nm->stream_c > 0 ? nm->stream_c : nm->a.chosen;
	long k = autobw_writers(D->B, c);
	int n = snprintf(buf, len, "auto chose %g MB/s (%ld writer%s on %s of "
			 "%g MB/s)", c, k, k == 1 ? "" : "s", D->name, D->B);
	if (n >= 0 && (size_t)n < len && nm->stream_c > 0) {
		k = autobw_writers(D->B, nm->a.chosen);
		n += snprintf(buf + n, len - (size_t)n, ", and %g MB/s (%ld "
			      "writer%s) for its last %ld tasks,", nm->a.chosen,
			      k, k == 1 ? "" : "s", nm->last_n);
	}
	if (n < 0 || (size_t)n >= len)
		return true;
	if (nm->kept && nm->epochs)
		snprintf(buf + n, len - (size_t)n, " from the kept registry "
			 "and %d epoch%s more", nm->epochs, s);
	else if (nm->kept)
		snprintf(buf + n, len - (size_t)n, " from the kept registry");
	else
		snprintf(buf + n, len - (size_t)n, " after %d epoch%s",
			 nm->epochs, s);
	return true;
}

/* --- correcting the bet (iopol.h) -------------------------------------- */

uint32_t
iopol_take_tight(struct iopol *p)
{
	if (!p->ntight)
		return NONE;
	for (uint32_t i = 0; i < p->nn; i++)
		if (p->nm[i].tight) {
			p->nm[i].tight = false;
			p->ntight--;
			return i;
		}
	p->ntight = 0;
	return NONE;
}

static int
by_dev_start(const void *a, const void *b, void *arg)
{
	const struct iopol *p = arg;
	const struct iopol_running *x = a, *y = b;
	uint32_t dx = p->w[x->wi].dev, dy = p->w[y->wi].dev;
	if (dx != dy)
		return dx < dy ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->task < y->task ? -1 : x->task > y->task;
}

/* The constraint a new task of the name gets on device d now. */
static double
now_c(const struct iopol *p, const struct iopol_name *nm, uint32_t d)
{
	if (nm->a.phase == AUTOBW_LEARNED)
		return nm->a.chosen;
	return d == nm->learn_dev ? nm->a.c : autobw_elsewhere(&nm->a);
}

/* One device's tasks r[0..n), oldest first: see iopol_make_way. */
static size_t
make_way_dev(struct iopol *p, uint32_t name, struct iopol_running *r,
	     size_t n)
{
	struct iopol_name *nm = &p->nm[name];
	uint32_t d = p->w[r[0].wi].dev;
	struct iopol_device *D = &p->dev[d];
	double c = now_c(p, nm, d);
	if (!(c > 0) || D->B <= 0)
		return 0;
	long k = autobw_writers(D->B, c);
	if (k < 1)
		k = 1;
	size_t stays = n, stopped = 0;
	/* (the writers read in flight, also just after learning ended) */
	bool drain = nm->drain && d == nm->learn_dev;
	bool over = !p->no_preempt && n > (drain ? 1 : 2) * (size_t)k;
	for (size_t i = n; over && i-- > 0 && stays > (size_t)k;)
		if (drain ? drain_may_stop(nm, &r[i])
			  : r[i].can_stop && r[i].g->c * 2 <= c + EPS) {
			r[i].stop = true;
			stays--;
			stopped++;
		}
	/* (when fewer can stop, those that could are stopped all the same:
	 * the device gets nearer k) */
	for (size_t i = 0; i < n; i++)
		if (!r[i].stop && r[i].g->c < c) {
			D->used += c - r[i].g->c;
			r[i].g->c = c;
		}
	if (stopped) {
		struct iopol_event e = { .ev = "preempt", .name = name,
					 .key = nm->key, .device = D->name,
					 .epoch = nm->a.phase == AUTOBW_LEARNING
							  ? nm->a.epoch
							  : 0,
					 .c = c, .k = (long)stays,
					 .tasks = (long)stopped };
		emit(p, &e);
	}
	return stopped;
}

size_t
iopol_make_way(struct iopol *p, uint32_t name, struct iopol_running *r,
	       size_t n)
{
	name = p->nm[name].grp;
	if (!n || !p->nm[name].has_learner) {
		p->nm[name].drain = false;
		return 0;
	}
	qsort_r(r, n, sizeof(*r), by_dev_start, p);
	size_t stopped = 0;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && p->w[r[j].wi].dev == p->w[r[i].wi].dev;)
			j++;
		stopped += make_way_dev(p, name, r + i, j - i);
	}
	p->nm[name].drain = false;
	return stopped;
}

bool
iopol_draining(const struct iopol *p, uint32_t name)
{
	return p->nm[p->nm[name].grp].drain;
}

/* --- registries kept across runs --------------------------------------- */

static void
saved_put(struct iopol *p, char *key, const struct autobw_entry *reg,
	  size_t n)
{
	struct iopol_saved *s = NULL;
	for (size_t i = 0; i < p->nsaved; i++)
		if (!strcmp(p->saved[i].key, key)) {
			s = &p->saved[i];
			free(key);
			free(s->reg);
			break;
		}
	if (!s) {
		p->saved = xrealloc(p->saved,
				    (p->nsaved + 1) * sizeof(*p->saved));
		s = &p->saved[p->nsaved++];
		s->key = key;
	}
	s->reg = xmalloc((n ? n : 1) * sizeof(*reg));
	memcpy(s->reg, reg, n * sizeof(*reg));
	s->nreg = n;
}

int
iopol_registry_load(struct iopol *p, const char *path)
{
	FILE *f = fopen_bounded(path, READ_MAX_INPUT, NULL);
	if (!f)
		return errno == ENOENT ? 0 : -1;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (!len || line[0] == '#')
			continue;
		char *tab = line;
		for (int i = 0; i < 4 && tab; i++)
			tab = strchr(tab + (i > 0), '\t');
		if (!tab)
			continue; /* not four key fields and a list */
		*tab = '\0';
		struct autobw_entry *reg = NULL;
		size_t n = 0;
		bool bad = false;
		for (char *e = strtok(tab + 1, ","); e; e = strtok(NULL, ",")) {
			struct autobw_entry x = { 0 };
			int flown = 0;
			/* (err, flown, q, spread, period and wave_s may
			 * be missing: a file kept before they were is read
			 * as measured at the epochs' ends, of tasks of a
			 * size not known, or alike, ready as not known) */
			int got = sscanf(e,
					 "%lf:%ld:%lf:%lf:%lf:%lf:%d:%lf:%lf:"
					 "%lf:%lf",
					 &x.c, &x.k, &x.t, &x.mbps, &x.pace,
					 &x.err, &flown, &x.q, &x.spread,
					 &x.period, &x.wave_s);
			x.flown = flown == 1;
			if (got < 3 || !(x.c > 0) || x.k < 1 || !(x.t >= 0) ||
			    !(x.mbps >= 0) || !(x.pace >= 0) ||
			    !(x.err >= 0) || (flown != 0 && flown != 1) ||
			    !(x.q >= 0) || !(x.spread >= 0) ||
			    !(x.period >= 0) || !(x.wave_s >= 0)) {
				bad = true;
				break;
			}
			reg = xrealloc(reg, (n + 1) * sizeof(*reg));
			reg[n++] = x;
		}
		if (!bad && n)
			saved_put(p, xstrdup(line), reg, n);
		free(reg);
	}
	free(line);
	bool err = ferror(f);
	fclose(f);
	return err ? -1 : 0;
}

int
iopol_registry_save(struct iopol *p, const char *path)
{
	bool any = false;
	for (uint32_t i = 0; i < p->nn; i++) {
		struct iopol_name *nm = &p->nm[i];
		if (!nm->has_learner || nm->a.phase != AUTOBW_LEARNED ||
		    !compared(&nm->a) || nm->learn_worker == SIZE_MAX)
			continue; /* nothing new learned */
		/* (with this run's mean task, for the next run's last
		 * tasks: autobw_batch_left, and how unlike they were) */
		double q = nm->a.task_n ? nm->a.task_mb / (double)nm->a.task_n
					: 0,
		       sp = autobw_task_spread(&nm->a);
		for (size_t j = 0; q > 0 && j < nm->a.nreg; j++) {
			nm->a.reg[j].q = q;
			nm->a.reg[j].spread = sp;
		}
		/* (and how they became ready: a kept registry's, unless
		 * more than a wave did in this run, and it started from
		 * nothing: resumed partway, its tasks left were ready at
		 * once or as the ones before them ended, not as a whole
		 * run's are) */
		if (!nm->resumed)
			autobw_arrivals(&nm->a, nm->arr, nm->narr);
		for (size_t j = 0; j < nm->a.nreg; j++) {
			nm->a.reg[j].period = nm->a.period;
			nm->a.reg[j].wave_s = nm->a.wave_s;
		}
		saved_put(p, registry_key(p, i, nm->learn_dev), nm->a.reg,
			  nm->a.nreg);
		any = true;
	}
	if (!any)
		return 0;
	struct strbuf tmp = STRBUF_INIT;
	strbuf_addf(&tmp, "%s.tmp", path);
	FILE *f = fopen(tmp.buf, "w");
	if (!f) {
		strbuf_release(&tmp);
		return -1;
	}
	fprintf(f, "# wfrun storage_bw registries: name, device, MB/s, spec, "
		   "constraint:concurrency:epoch seconds:MB/s written:"
		   "MB/s a writer:relative error of its rate:"
		   "1 if measured in flight:the mean MB of a task:"
		   "how unlike their sizes were:"
		   "seconds between waves of the tasks becoming ready:"
		   "seconds a wave spread over\n");
	for (size_t i = 0; i < p->nsaved; i++) {
		fprintf(f, "%s\t", p->saved[i].key);
		for (size_t j = 0; j < p->saved[i].nreg; j++) {
			const struct autobw_entry *e = &p->saved[i].reg[j];
			fprintf(f,
				"%s%.9g:%ld:%.9g:%.9g:%.9g:%.6g:%d:%.9g:%.4g:"
				"%.6g:%.6g",
				j ? "," : "", e->c, e->k, e->t, e->mbps,
				e->pace, e->err, e->flown, e->q, e->spread,
				e->period, e->wave_s);
		}
		fputc('\n', f);
	}
	int rc = 0;
	if (fflush(f) || fsync(fileno(f)) < 0)
		rc = -1;
	if (fclose(f) || rc < 0 || rename(tmp.buf, path) < 0) {
		int e = errno;
		unlink(tmp.buf);
		errno = e;
		rc = -1;
	}
	strbuf_release(&tmp);
	return rc;
}
