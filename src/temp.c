#include "temp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool
access_temp(const struct plan *p, uint32_t t, const struct dag_access *a)
{
	const struct wf_task *wt = &p->wf->tasks[p->dag.tasks.v[t].tmpl];
	return a->mode == DAG_WRITE && !a->is_dir &&
	       wf_data_temp(&wt->params[a->param].data);
}

/* Whether datum z is x or a directory above it. */
static bool
holds(const struct dag *g, uint32_t z, uint32_t x)
{
	for (; x != DAG_NONE; x = g->data.v[x].parent)
		if (x == z)
			return true;
	return false;
}

/* The outs whose current version (cur) access a touches: x itself, or
 * (a directory collection) those under it.  Calls fn for each. */
static void
each_touched(struct temp *tp, const struct dag *g, const uint32_t *cur,
	     const struct dag_access *a, void (*fn)(struct temp *, uint32_t,
						    const struct dag_access *,
						    void *),
	     void *arg)
{
	if (!a->is_dir) {
		if (cur[a->datum] != DAG_NONE)
			fn(tp, cur[a->datum], a, arg);
		return;
	}
	for (uint32_t o = 0; o < tp->outs.n; o++)
		if (cur[tp->outs.v[o].datum] == o &&
		    holds(g, a->datum, tp->outs.v[o].datum))
			fn(tp, o, a, arg);
}

struct scan {
	VEC(uint32_t) reads;  /* of the task being scanned */
	uint32_t *cur;
	bool run;
};

static void
touch_read(struct temp *tp, uint32_t o, const struct dag_access *a, void *arg)
{
	struct scan *s = arg;
	(void)a;
	for (size_t i = 0; i < s->reads.n; i++)
		if (s->reads.v[i] == o)
			return;
	VEC_PUSH(s->reads, o);
	if (s->run)
		tp->outs.v[o].left++;
}

static void
touch_write(struct temp *tp, uint32_t o, const struct dag_access *a,
	    void *arg)
{
	struct scan *s = arg;
	struct temp_out *x = &tp->outs.v[o];
	x->superseded = true;
	if (a->mode & DAG_READ)
		x->updated = true;
	s->cur[x->datum] = DAG_NONE;
}

void
temp_init(struct temp *tp, const struct plan *p, const bool *run,
	  bool active, bool deferred)
{
	const struct dag *g = &p->dag;
	size_t nt = g->tasks.n, nd = g->data.n;
	memset(tp, 0, sizeof(*tp));
	tp->active = active;
	tp->deferred = deferred;
	tp->ntasks = (uint32_t)nt;
	tp->roff = xcalloc(nt + 1, sizeof(uint32_t));
	struct scan s = { .cur = xmalloc((nd ? nd : 1) * sizeof(uint32_t)) };
	for (size_t x = 0; x < nd; x++)
		s.cur[x] = DAG_NONE;
	VEC(uint32_t) reads = { 0 };
	/* in program order: reads of the current versions, then writes */
	for (uint32_t t = 0; t < nt; t++) {
		const struct dag_task *dt = &g->tasks.v[t];
		s.reads.n = 0;
		s.run = run[t];
		for (uint32_t i = 0; i < dt->nacc; i++) {
			const struct dag_access *a = &g->acc.v[dt->acc + i];
			if (a->mode & DAG_READ)
				each_touched(tp, g, s.cur, a, touch_read, &s);
		}
		for (size_t i = 0; i < s.reads.n; i++)
			VEC_PUSH(reads, s.reads.v[i]);
		tp->roff[t + 1] = (uint32_t)reads.n;
		for (uint32_t i = 0; i < dt->nacc; i++) {
			const struct dag_access *a = &g->acc.v[dt->acc + i];
			if (!(a->mode & DAG_WRITE))
				continue;
			each_touched(tp, g, s.cur, a, touch_write, &s);
			if (!access_temp(p, t, a))
				continue;
			struct temp_out o = { t, a->datum, 0, false, false, false };
			s.cur[a->datum] = (uint32_t)tp->outs.n;
			VEC_PUSH(tp->outs, o);
		}
	}
	tp->reads = reads.v;
	VEC_FREE(s.reads);
	free(s.cur);
}

void
temp_release(struct temp *tp)
{
	VEC_FREE(tp->outs);
	free(tp->roff);
	free(tp->reads);
	memset(tp, 0, sizeof(*tp));
}

/* Say in j that out o's file goes, then remove it (so that a master
 * killed in between leaves a file the journal knows, not a missing one
 * it does not); whether it was removed.  When the journal cannot be
 * written (the runner says so), the file stays. */
static bool
remove_out(struct temp *tp, const struct plan *p, uint32_t o,
	   struct journal *j)
{
	struct temp_out *x = &tp->outs.v[o];
	const char *path = p->dag.data.v[x->datum].path;
	struct strbuf key = STRBUF_INIT;
	struct errbuf err;
	plan_label(p, x->task, &key);
	journal_add_temp_gone(j, key.buf, path);
	strbuf_release(&key);
	x->removed = true;
	if (journal_flush(j, false, &err) < 0)
		return false;
	if (unlink(path) < 0) {
		if (errno != ENOENT)
			warning_msg("cannot remove the temp file %s: %s", path,
				    strerror(errno));
		return false;
	}
	verbose_msg("removed the temp file %s", path);
	return true;
}

size_t
temp_task_done(struct temp *tp, const struct plan *p, uint32_t t,
	       struct journal *j)
{
	size_t n = 0;
	if (!tp->active || t >= tp->ntasks)
		return 0;
	for (uint32_t k = tp->roff[t]; k < tp->roff[t + 1]; k++) {
		struct temp_out *x = &tp->outs.v[tp->reads[k]];
		if (!x->left || --x->left || x->updated || x->removed ||
		    tp->deferred)
			continue;
		n += remove_out(tp, p, tp->reads[k], j);
	}
	return n;
}

size_t
temp_finish(struct temp *tp, const struct plan *p, struct journal *j)
{
	size_t n = 0;
	if (!tp->active)
		return 0;
	for (uint32_t o = 0; o < tp->outs.n; o++) {
		struct temp_out *x = &tp->outs.v[o];
		if (x->left || x->superseded || x->removed ||
		    p->dag.tasks.v[x->task].state != TASK_DONE)
			continue;
		n += remove_out(tp, p, o, j);
	}
	return n;
}
