#include "resume.h"
#include "select.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Entry f of record r is in a worker's store, not in the workdir: the
 * stage asks the worker (its record is kept until brought back). */
static bool
in_store(const struct jrec *r, const struct jfile *f)
{
	return r->store && f->mode == 'w' && f->id.kind == '-';
}

/* Entry f is a temp file that was removed once read (journal.h, X
 * lines) and is still absent: its writer is up to date unless a reader
 * runs again (left_for).  With kept, also one that is there as its
 * writer left it (a master killed between the X line and the removal):
 * then it is up to date as any output. */
static bool
temp_removed(const struct jfile *f, const char *path, bool kept)
{
	if (f->id.kind != 't')
		return false;
	struct jident now, was = f->id;
	jident_get(path, false, false, &now);
	was.kind = 'f';
	return now.kind == '-' ||
	       (kept && jident_matches(path, false, &was));
}

/* Whether a whole-collection write of an ancestor of x happens at or
 * after task t (it rewrites x). */
static bool
ancestor_written(const struct dag *g, const int64_t *wown, uint32_t x,
		 int64_t t)
{
	for (uint32_t z = g->data.v[x].parent; z != DAG_NONE;
	     z = g->data.v[z].parent)
		if (wown[z] >= t)
			return true;
	return false;
}

/* Who wrote what, from the accesses of every task in program order:
 * per datum, wsub, the last task that writes it or something under it,
 * and wown, the last that writes it itself (-1: none); per access, prevw,
 * the last task before it that wrote x or a directory collection holding
 * x (d/a updated in place needs d as its writer left it as much as d
 * itself does), and preva, that task's access of x when it wrote x
 * itself and nothing under x was written since (no directory holding x,
 * no file in it), else DAG_NONE. */
struct writers {
	int64_t *wsub, *wown;
	uint32_t *prevw, *preva;
};

/* Why t must run by itself (its record, command and files); SKIP when
 * nothing of its own says it must.  *detail: the access concerned. */
static uint8_t
own_reason(const struct plan *p, const struct journal *j, uint32_t t,
	   const struct writers *w, struct strbuf *key, struct strbuf *cmd,
	   uint32_t *detail, bool *recorded)
{
	const struct dag *g = &p->dag;
	const struct dag_task *dt = &g->tasks.v[t];
	strbuf_reset(key);
	plan_label(p, t, key);
	const struct jrec *r = j ? journal_find(j, key->buf) : NULL;
	/* (a damaged record of it: it ran before all the same) */
	*recorded = r != NULL || (j && journal_lost(j, key->buf));
	if (!r)
		return RESUME_NO_RECORD;
	if (!*r->cmd)
		return RESUME_DROPPED; /* resume_drop_records */
	strbuf_reset(cmd);
	plan_command_key(p, t, cmd);
	if (strcmp(cmd->buf, r->cmd))
		return RESUME_COMMAND;
	for (uint32_t i = 0; i < dt->nacc; i++) {
		const struct dag_access *a = &g->acc.v[dt->acc + i];
		uint32_t x = a->datum;
		if (!(a->mode & DAG_WRITE) || w->wsub[x] != (int64_t)t ||
		    ancestor_written(g, w->wown, x, (int64_t)t + 1))
			continue;
		const char *path = g->data.v[x].path;
		const struct jfile *f = jrec_entry(r, i, 'w', path);
		if (f && (in_store(r, f) || temp_removed(f, path, true)))
			continue;
		if (!f || !jident_matches(path, a->is_dir, &f->id)) {
			struct jident now;
			jident_get(path, a->is_dir, false, &now);
			*detail = i;
			return now.kind == '-' ? RESUME_MISSING : RESUME_CHANGED_OUT;
		}
	}
	for (uint32_t i = 0; i < dt->nacc; i++) {
		const struct dag_access *a = &g->acc.v[dt->acc + i];
		uint32_t x = a->datum;
		/* data a task writes are its writer's to check */
		if (a->mode != DAG_READ || w->wsub[x] >= 0 ||
		    ancestor_written(g, w->wown, x, 0))
			continue;
		const char *path = g->data.v[x].path;
		const struct jfile *f = jrec_entry(r, i, 'r', path);
		if (!f || !jident_matches(path, a->is_dir, &f->id)) {
			*detail = i;
			return RESUME_CHANGED_IN;
		}
	}
	/* Data an earlier task wrote: read as that task's record says it
	 * left them (or, inside a directory collection it wrote, as they
	 * are now).  (A run killed after the writer's record and before the
	 * reader ran left the reader's record of the file's older version:
	 * the writer was up to date, so the reader was too, and its output
	 * stayed made from the old file.) */
	for (uint32_t i = 0; i < dt->nacc; i++) {
		const struct dag_access *a = &g->acc.v[dt->acc + i];
		uint32_t x = a->datum, pw = w->prevw[dt->acc + i],
			 wa = w->preva[dt->acc + i];
		if (a->mode != DAG_READ || pw == DAG_NONE)
			continue;
		const char *path = g->data.v[x].path;
		const struct jfile *f = jrec_entry(r, i, 'r', path);
		if (!f || f->id.kind == '-')
			continue;
		*detail = i; /* (read only when it says why) */
		if (wa == DAG_NONE) {
			/* written as part of a directory collection (a chunk
			 * a split made): its writer's record names the
			 * directory, so the file as it is now, when no task
			 * at or after this one writes it (gone: the writer's
			 * directory changed, and it runs) */
			if (w->wsub[x] < (int64_t)t &&
			    !ancestor_written(g, w->wown, x, (int64_t)t + 1) &&
			    !jident_matches(path, a->is_dir, &f->id))
				return RESUME_CHANGED_IN;
			continue;
		}
		/* (cmd is free now: the writer's label) */
		strbuf_reset(cmd);
		plan_label(p, pw, cmd);
		const struct jrec *rw = journal_find(j, cmd->buf);
		const struct jfile *fw =
			rw ? jrec_entry(rw, wa - g->tasks.v[pw].acc, 'w', path)
			   : NULL;
		if (fw && !jident_same(&f->id, &fw->id))
			return RESUME_CHANGED_IN;
	}
	return RESUME_SKIP;
}

/* Whether the datum of access a is as w's record says w left it (then
 * a later task that updates it in place can run again from there: a
 * failed or killed update was put back by undo.c).  When w wrote a
 * directory collection holding the datum, that directory is checked. */
static bool
left_as_recorded(const struct plan *p, const struct journal *j, uint32_t w,
		 const struct dag_access *a, struct strbuf *key)
{
	strbuf_reset(key);
	plan_label(p, w, key);
	const struct jrec *r = j ? journal_find(j, key->buf) : NULL;
	if (!r)
		return false;
	bool is_dir = a->is_dir;
	for (uint32_t z = a->datum; z != DAG_NONE;
	     z = p->dag.data.v[z].parent, is_dir = true) {
		const char *path = p->dag.data.v[z].path;
		const struct jfile *f = jrec_entry(r, SIZE_MAX, 'w', path);
		if (f)
			return in_store(r, f) ||
			       jident_matches(path, is_dir, &f->id);
	}
	return false;
}

/* left_as_recorded, asked once per datum and writer: left[x] is w + 1
 * once x was found as w left it (a datum many tasks read is looked at
 * once). */
static bool
as_left(const struct plan *p, const struct journal *j, uint32_t w,
	const struct dag_access *a, uint32_t *left, struct strbuf *key)
{
	if (left[a->datum] == w + 1)
		return true;
	if (!left_as_recorded(p, j, w, a, key))
		return false;
	left[a->datum] = w + 1;
	return true;
}

/* One path is the other or under it. */
static bool
related(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b), n = na < nb ? na : nb;
	if (!strcmp(a, ".") || !strcmp(b, "."))
		return true;
	return !strncmp(a, b, n) &&
	       (a[n] == '\0' || a[n] == '/' || b[n] == '\0' || b[n] == '/');
}

/* Whether task t reads path, or a path under it or above it. */
static bool
reads_related(const struct dag *g, uint32_t t, const char *path)
{
	const struct dag_task *dt = &g->tasks.v[t];
	for (uint32_t i = 0; i < dt->nacc; i++) {
		const struct dag_access *a = &g->acc.v[dt->acc + i];
		if ((a->mode & DAG_READ) && related(g->data.v[a->datum].path, path))
			return true;
	}
	return false;
}

/* Whether w's record says it left on a worker (recorded absent) data
 * that task t reads, or (temp) that a temp output of w that t reads was
 * removed and is still absent: t cannot run unless w makes them again. */
static bool
left_for(const struct plan *p, const struct journal *j, uint32_t w,
	 uint32_t t, struct strbuf *key, bool temp)
{
	const struct dag *g = &p->dag;
	strbuf_reset(key);
	plan_label(p, w, key);
	const struct jrec *r = j ? journal_find(j, key->buf) : NULL;
	if (r && r->store && !temp)
		return false; /* taken from the store, or w runs (gone) */
	for (size_t k = 0; r && k < r->nf; k++)
		if (r->f[k].mode == 'w' &&
		    (temp ? temp_removed(&r->f[k], r->f[k].path, false)
			  : r->f[k].id.kind == '-') &&
		    reads_related(g, t, r->f[k].path))
			return true;
	return false;
}

/* Predecessor lists (CSR) from the dag's successor lists. */
static void
preds(const struct dag *g, uint32_t **off, uint32_t **pred)
{
	size_t nt = g->tasks.n;
	uint32_t *o = xcalloc(nt + 2, sizeof(uint32_t));
	uint32_t *v = xmalloc((g->succ_off[nt] ? g->succ_off[nt] : 1) *
			      sizeof(uint32_t));
	for (uint32_t k = 0; k < g->succ_off[nt]; k++)
		o[g->succ[k] + 2]++;
	for (size_t t = 0; t < nt; t++)
		o[t + 2] += o[t + 1];
	for (uint32_t t = 0; t < nt; t++)
		for (uint32_t k = g->succ_off[t]; k < g->succ_off[t + 1]; k++)
			v[o[g->succ[k] + 1]++] = t;
	*off = o;
	*pred = v;
}

static void
writers_make(const struct dag *g, struct writers *w)
{
	size_t nd = g->data.n ? g->data.n : 1, na = g->acc.n ? g->acc.n : 1;
	w->wsub = xmalloc(nd * sizeof(int64_t));
	w->wown = xmalloc(nd * sizeof(int64_t));
	w->prevw = xmalloc(na * sizeof(uint32_t));
	w->preva = xmalloc(na * sizeof(uint32_t));
	uint32_t *wacc = xmalloc(nd * sizeof(uint32_t)); /* wown's access */
	for (size_t x = 0; x < g->data.n; x++) {
		w->wsub[x] = w->wown[x] = -1;
		wacc[x] = DAG_NONE;
	}
	for (size_t t = 0; t < g->tasks.n; t++) {
		const struct dag_task *dt = &g->tasks.v[t];
		for (uint32_t i = 0; i < dt->nacc; i++) {
			const struct dag_access *a = &g->acc.v[dt->acc + i];
			uint32_t x = a->datum;
			int64_t pw = -1;
			for (uint32_t z = x; z != DAG_NONE; z = g->data.v[z].parent)
				if (w->wown[z] > pw)
					pw = w->wown[z];
			w->prevw[dt->acc + i] = pw < 0 ? DAG_NONE : (uint32_t)pw;
			w->preva[dt->acc + i] = pw >= 0 && pw == w->wown[x] &&
							       w->wsub[x] == pw
							? wacc[x]
							: DAG_NONE;
			if (!(a->mode & DAG_WRITE))
				continue;
			wacc[x] = dt->acc + i;
			w->wown[x] = (int64_t)t;
			for (uint32_t z = x; z != DAG_NONE; z = g->data.v[z].parent)
				w->wsub[z] = (int64_t)t;
		}
	}
	free(wacc);
}

static void
writers_free(struct writers *w)
{
	free(w->wsub);
	free(w->wown);
	free(w->prevw);
	free(w->preva);
}

/*
 * The set of tasks that run is closed under three rules: what depends on a
 * task that runs runs too; and a task that runs and reads x or updates
 * it in place (INOUT) needs x as its previous writer left it, so unless x
 * is still in that state (a later task overwrote or updated it, and runs
 * after it, or is left out: select.h), that writer runs too (back to the
 * task that created x);
 * and a task that runs reads what its predecessors left, so one whose
 * record says it left that on a worker (not in the workdir) runs too.
 * One worklist, each task added once: O(tasks + edges + accesses).
 */
static void
plan_tasks(struct resume *rs, const struct plan *p, const struct journal *j,
	   const bool *forced, bool all, const bool *gone)
{
	const struct dag *g = &p->dag;
	size_t nt = g->tasks.n, nd = g->data.n;
	rs->why = xcalloc(nt ? nt : 1, 1);
	rs->detail = xcalloc(nt ? nt : 1, sizeof(uint32_t));
	rs->nskip = 0;
	rs->ids = xcalloc(nd ? nd : 1, sizeof(*rs->ids));
	rs->nids = nd;
	struct writers wr;
	writers_make(g, &wr);
	bool *recorded = xcalloc(nt ? nt : 1, sizeof(bool));
	uint32_t *left = xcalloc(nd ? nd : 1, sizeof(uint32_t));
	VEC(uint32_t) work = { 0 };
	struct strbuf key = STRBUF_INIT, cmd = STRBUF_INIT;
	for (uint32_t t = 0; t < nt; t++) {
		uint32_t detail = 0;
		uint8_t why;
		if (g->tasks.v[t].state == TASK_LEFT_OUT)
			why = RESUME_LEFT_OUT; /* (no successor of it needed) */
		else if (all || (forced && forced[g->tasks.v[t].tmpl]))
			why = RESUME_FORCED;
		else if (gone && gone[t])
			why = RESUME_STORE_GONE;
		else
			why = own_reason(p, j, t, &wr, &key, &cmd, &detail,
					 &recorded[t]);
		rs->why[t] = why;
		rs->detail[t] = detail;
		if (why && why != RESUME_LEFT_OUT)
			VEC_PUSH(work, t);
	}
	uint32_t *poff, *pred;
	preds(g, &poff, &pred);
	while (work.n) {
		uint32_t t = work.v[--work.n];
		for (uint32_t k = poff[t]; k < poff[t + 1]; k++) {
			uint32_t w = pred[k];
			if (!rs->why[w] && recorded[w] &&
			    left_for(p, j, w, t, &key, false)) {
				rs->why[w] = RESUME_LEFT;
				rs->detail[w] = t;
				VEC_PUSH(work, w);
			} else if (!rs->why[w] && recorded[w] &&
				   left_for(p, j, w, t, &key, true)) {
				rs->why[w] = RESUME_TEMP;
				rs->detail[w] = t;
				VEC_PUSH(work, w);
			}
		}
		for (uint32_t k = g->succ_off[t]; k < g->succ_off[t + 1]; k++) {
			uint32_t s = g->succ[k];
			if (!rs->why[s]) {
				rs->why[s] = RESUME_PREDECESSOR;
				rs->detail[s] = t;
				VEC_PUSH(work, s);
			}
		}
		const struct dag_task *dt = &g->tasks.v[t];
		for (uint32_t i = 0; i < dt->nacc; i++) {
			const struct dag_access *a = &g->acc.v[dt->acc + i];
			uint32_t w = wr.prevw[dt->acc + i];
			/* (w == DAG_NONE: it reads or updates a workflow input;
			 * an update's original is put back: resume_originals) */
			if (!(a->mode & DAG_READ) || w == DAG_NONE || rs->why[w] ||
			    as_left(p, j, w, a, left, &key))
				continue;
			rs->why[w] = a->mode & DAG_WRITE ? RESUME_REWRITTEN
							 : RESUME_REREAD;
			rs->detail[w] = t;
			VEC_PUSH(work, w);
		}
	}
	for (uint32_t t = 0; t < nt; t++)
		rs->nskip += !rs->why[t];
	resume_originals(rs, p, j);
	VEC_FREE(work);
	free(poff);
	free(pred);
	strbuf_release(&key);
	strbuf_release(&cmd);
	writers_free(&wr);
	free(recorded);
	free(left);
}

void
resume_release(struct resume *rs)
{
	free(rs->why);
	free(rs->detail);
	free(rs->ids);
	free(rs->first);
	free(rs->orig);
	free(rs->drop);
	rs->ids = NULL;
	rs->first = NULL;
	rs->orig = NULL;
	rs->drop = NULL;
	rs->why = NULL;
	rs->detail = NULL;
}

void
resume_plan(struct resume *rs, const struct plan *p, const struct journal *j,
	    const bool *forced, bool all)
{
	plan_tasks(rs, p, j, forced, all, NULL);
}

/* Whether q decides each of its eager writers up to date (rs, as
 * resume_plan decides q, is kept then). */
static bool
eager_holds(struct resume *rs, const struct plan *q, const struct journal *j,
	    const bool *forced, bool all)
{
	resume_plan(rs, q, j, forced, all);
	for (size_t k = 0; k < q->eager_writers.n; k++)
		if (rs->why[q->eager_writers.v[k]] != RESUME_SKIP) {
			resume_release(rs);
			return false;
		}
	return true;
}

void
resume_plan_eager(struct resume *rs, struct plan *p, const struct journal *j,
		  const bool *forced, bool all, const struct select_ask *ask)
{
	if (plan_pending(p) && j) {
		struct plan q;
		struct diags d;
		diags_init(&d, p->wf->file);
		bool built = !plan_build_eager(&q, p, &d) && !plan_pending(&q);
		diags_release(&d);
		if (built) {
			/* the same instances first, in the same order */
			size_t n = p->dag.tasks.n;
			for (size_t t = 0; t < n && t < q.dag.tasks.n; t++)
				if (p->dag.tasks.v[t].state == TASK_LEFT_OUT)
					q.dag.tasks.v[t].state = TASK_LEFT_OUT;
			select_appended(&q, ask, (uint32_t)n);
		}
		if (built && eager_holds(rs, &q, j, forced, all)) {
			plan_release(p);
			*p = q;
			return;
		}
		plan_release(&q);
	}
	resume_plan(rs, p, j, forced, all);
}

void
resume_plan_again(struct resume *rs, const struct plan *p,
		  const struct journal *j, const bool *forced, bool all,
		  const bool *gone)
{
	resume_release(rs);
	plan_tasks(rs, p, j, forced, all, gone);
}

void
resume_extend(struct resume *rs, const struct plan *p,
	      const struct journal *j, const bool *forced, bool all,
	      uint32_t first)
{
	const struct dag *g = &p->dag;
	size_t nt = g->tasks.n, nd = g->data.n;
	size_t old_acc = first < nt ? g->tasks.v[first].acc : g->acc.n;
	rs->why = xrealloc(rs->why, nt ? nt : 1);
	rs->detail = xrealloc(rs->detail, (nt ? nt : 1) * sizeof(uint32_t));
	rs->ids = xrealloc(rs->ids, (nd ? nd : 1) * sizeof(*rs->ids));
	memset(rs->ids + rs->nids, 0, (nd - rs->nids) * sizeof(*rs->ids));
	rs->nids = nd;
	rs->first = xrealloc(rs->first, g->acc.n ? g->acc.n : 1);
	memset(rs->first + old_acc, 0, g->acc.n - old_acc);
	struct writers wr;
	writers_make(g, &wr);
	struct strbuf key = STRBUF_INIT, cmd = STRBUF_INIT;
	bool recorded;
	for (uint32_t t = first; t < nt; t++) {
		uint32_t detail = 0;
		uint8_t why;
		if (g->tasks.v[t].state == TASK_LEFT_OUT)
			why = RESUME_LEFT_OUT; /* select_appended */
		else if (all || (forced && forced[g->tasks.v[t].tmpl]))
			why = RESUME_FORCED;
		else
			why = own_reason(p, j, t, &wr, &key, &cmd, &detail,
					 &recorded);
		rs->why[t] = why;
		rs->detail[t] = detail;
	}
	/* what depends on a task that ran (before, in this run) runs: edges
	 * point forward, so one pass in program order closes the set */
	for (uint32_t t = 0; t < nt; t++) {
		if (!rs->why[t])
			continue;
		for (uint32_t k = g->succ_off[t]; k < g->succ_off[t + 1]; k++) {
			uint32_t s = g->succ[k];
			if (s >= first && !rs->why[s]) {
				rs->why[s] = RESUME_PREDECESSOR;
				rs->detail[s] = t;
			}
		}
	}
	for (uint32_t t = first; t < nt; t++)
		rs->nskip += !rs->why[t];
	strbuf_release(&key);
	strbuf_release(&cmd);
	writers_free(&wr);
}

void
resume_reason(const struct resume *rs, const struct plan *p, uint32_t t,
	      struct strbuf *out)
{
	const struct dag *g = &p->dag;
	const struct dag_task *dt = &g->tasks.v[t];
	uint32_t d = rs->detail[t];
	/* detail is an access for the file reasons, a task for the others */
	const struct dag_access *a = NULL;
	const char *pname = NULL;
	uint8_t why = rs->why[t];
	if (why == RESUME_MISSING || why == RESUME_CHANGED_OUT ||
	    why == RESUME_CHANGED_IN) {
		a = &g->acc.v[dt->acc + d];
		pname = p->wf->tasks[dt->tmpl].params[a->param].name;
	}
	switch ((enum resume_why)rs->why[t]) {
	case RESUME_SKIP:
		strbuf_adds(out, "up to date");
		break;
	case RESUME_NO_RECORD:
		strbuf_adds(out, "no record of it in the journal");
		break;
	case RESUME_FORCED:
		strbuf_adds(out, "forced");
		break;
	case RESUME_COMMAND:
		strbuf_adds(out, "its command changed");
		break;
	case RESUME_MISSING:
		strbuf_addf(out, "its output '%s' (%s) is missing", pname,
			    g->data.v[a->datum].path);
		break;
	case RESUME_CHANGED_OUT:
		strbuf_addf(out, "its output '%s' (%s) changed since it was "
			    "written", pname, g->data.v[a->datum].path);
		break;
	case RESUME_CHANGED_IN:
		strbuf_addf(out, "its input '%s' (%s) changed", pname,
			    g->data.v[a->datum].path);
		break;
	case RESUME_PREDECESSOR:
		strbuf_adds(out, "it depends on ");
		plan_label(p, d, out);
		strbuf_adds(out, ", which runs");
		break;
	case RESUME_REWRITTEN:
		plan_label(p, d, out);
		strbuf_adds(out, ", which runs, updates its output in place");
		break;
	case RESUME_LEFT:
		plan_label(p, d, out);
		strbuf_adds(out, ", which runs, reads what it left on a worker");
		break;
	case RESUME_TEMP:
		plan_label(p, d, out);
		strbuf_adds(out, ", which runs, reads a temp output of it that "
			    "was removed");
		break;
	case RESUME_REREAD:
		plan_label(p, d, out);
		strbuf_adds(out, ", which runs, reads what it wrote, which is no "
			    "longer as it left it");
		break;
	case RESUME_STORE_GONE:
		strbuf_adds(out, "what it made is no longer in its worker's "
			    "store");
		break;
	case RESUME_DROPPED:
		strbuf_adds(out, "its record was dropped when the original of "
			    "a workflow input it updates was put back");
		break;
	case RESUME_LEFT_OUT:
		strbuf_adds(out, "not needed by the targets");
		break;
	}
}

int
resume_record(struct resume *rs, const struct plan *p, uint32_t t,
	      const bool *got, struct journal *j, struct strbuf *scratch,
	      struct errbuf *err)
{
	const struct dag *g = &p->dag;
	const struct dag_task *dt = &g->tasks.v[t];
	struct jfile *f = xcalloc(dt->nacc ? dt->nacc : 1, sizeof(*f));
	for (uint32_t i = 0; i < dt->nacc; i++) {
		const struct dag_access *a = &g->acc.v[dt->acc + i];
		f[i].mode = a->mode & DAG_WRITE ? 'w' : 'r';
		f[i].path = (char *)g->data.v[a->datum].path;
		struct jident *last = &rs->ids[a->datum];
		if (got && (a->mode & DAG_WRITE) && !got[i]) {
			/* left on a worker: absent here, as recorded */
			f[i].id.kind = '-';
			continue;
		}
		jident_get(f[i].path, a->is_dir, false, &f[i].id);
		if (f[i].id.unreadable) {
			errprintf(err, "cannot read '%s' (or a folder in it) to "
				  "record it: %s", f[i].path,
				  strerror(f[i].id.unreadable));
			free(f);
			return -1;
		}
		if (f[i].id.kind == 'f' && last->kind == 'f' && last->hashed &&
		    last->size == f[i].id.size &&
		    last->mtime_ns == f[i].id.mtime_ns) {
			f[i].id = *last;
			continue;
		}
		jident_hash(f[i].path, &f[i].id);
		*last = f[i].id;
	}
	strbuf_reset(scratch);
	plan_label(p, t, scratch);
	size_t klen = scratch->len;
	plan_command_key(p, t, scratch);
	/* key and command share the buffer: split them */
	char *key = xstrndup(scratch->buf, klen);
	journal_add(j, key, scratch->buf + klen, f, dt->nacc);
	free(key);
	free(f);
	return 0;
}

int
resume_record_stored(struct resume *rs, const struct plan *p, uint32_t t,
		     const struct jstore *store, struct journal *j,
		     struct strbuf *scratch, struct errbuf *err)
{
	uint32_t nacc = p->dag.tasks.v[t].nacc;
	bool *got = xcalloc(nacc ? nacc : 1, sizeof(bool));
	int rc = resume_record(rs, p, t, got, j, scratch, err);
	free(got);
	if (rc < 0)
		return -1;
	strbuf_reset(scratch);
	plan_label(p, t, scratch);
	journal_add_store(j, scratch->buf, store);
	return 0;
}

/* Whether task t ran before: a record of it, or a damaged one.  applied:
 * only a run whose writes reached the workdir (not one whose outputs
 * stayed in a worker's store, never brought back). */
static bool
ran_before(const struct plan *p, const struct journal *j, uint32_t t,
	   bool applied, struct strbuf *key)
{
	if (!j)
		return false;
	strbuf_reset(key);
	plan_label(p, t, key);
	const struct jrec *r = journal_find(j, key->buf);
	if (r)
		return !(applied && r->store);
	return journal_lost(j, key->buf);
}

/* Set first[] (per access): the updates in place of data that no
 * earlier task wrote, nor a directory holding them.  Their count. */
static size_t
first_updates(const struct dag *g, uint8_t *first)
{
	bool *written = xcalloc(g->data.n ? g->data.n : 1, sizeof(bool));
	size_t n = 0;
	for (uint32_t t = 0; t < g->tasks.n; t++) {
		const struct dag_task *dt = &g->tasks.v[t];
		for (uint32_t i = 0; i < dt->nacc; i++) {
			const struct dag_access *a = &g->acc.v[dt->acc + i];
			bool w = false;
			for (uint32_t z = a->datum; z != DAG_NONE && !w;
			     z = g->data.v[z].parent)
				w = written[z];
			if (a->mode == (DAG_READ | DAG_WRITE) && !w) {
				first[dt->acc + i] = 1;
				n++;
			}
			if (a->mode & DAG_WRITE)
				written[a->datum] = true;
		}
	}
	free(written);
	return n;
}

/* A task before u that reads the datum x (or what holds it, or what it
 * holds) and runs again, or DAG_NONE: the reader a message names. */
static uint32_t
rerun_reader(const struct resume *rs, const struct plan *p, uint32_t u,
	     uint32_t x, const uint32_t *poff, const uint32_t *pred)
{
	const struct dag *g = &p->dag;
	for (uint32_t k = poff[u]; k < poff[u + 1]; k++) {
		uint32_t w = pred[k];
		const struct dag_task *dt = &g->tasks.v[w];
		bool runs = rs->why[w] && rs->why[w] != RESUME_LEFT_OUT;
		for (uint32_t i = 0; runs && i < dt->nacc; i++) {
			const struct dag_access *a = &g->acc.v[dt->acc + i];
			if (a->mode == DAG_READ &&
			    related(g->data.v[a->datum].path, g->data.v[x].path))
				return w;
		}
	}
	return DAG_NONE;
}

/* Per datum, the latest task that ran before and wrote it (own) or
 * something at or under it (sub), in the workdir; -1 when none. */
static void
recorded_writers(const struct plan *p, const struct journal *j,
		 int64_t *own, int64_t *sub)
{
	const struct dag *g = &p->dag;
	struct strbuf key = STRBUF_INIT;
	for (size_t x = 0; x < g->data.n; x++)
		own[x] = sub[x] = -1;
	for (uint32_t t = 0; t < g->tasks.n; t++) {
		const struct dag_task *dt = &g->tasks.v[t];
		bool asked = false, ran = false;
		for (uint32_t i = 0; i < dt->nacc; i++) {
			const struct dag_access *a = &g->acc.v[dt->acc + i];
			if (!(a->mode & DAG_WRITE))
				continue;
			if (!asked) {
				ran = ran_before(p, j, t, true, &key);
				asked = true;
			}
			if (!ran)
				break;
			own[a->datum] = t;
			for (uint32_t z = a->datum; z != DAG_NONE;
			     z = g->data.v[z].parent)
				sub[z] = t;
		}
	}
	strbuf_release(&key);
}

/* The tasks that ran before and write a datum of rs->orig (or what
 * holds it, or what it holds) at or after its first update: rs->drop.
 * at[x]: the earliest such update of datum x; below[x]: of data under
 * x; -1 when none. */
static void
void_writers(struct resume *rs, const struct plan *p, const struct journal *j)
{
	const struct dag *g = &p->dag;
	size_t nd = g->data.n;
	int64_t *at = xmalloc((nd ? nd : 1) * sizeof(int64_t));
	int64_t *below = xmalloc((nd ? nd : 1) * sizeof(int64_t));
	for (size_t x = 0; x < nd; x++)
		at[x] = below[x] = -1;
	for (size_t k = rs->norig; k-- > 0;) {
		uint32_t x = rs->orig[k].datum;
		at[x] = rs->orig[k].updater;
		for (uint32_t z = g->data.v[x].parent; z != DAG_NONE;
		     z = g->data.v[z].parent)
			below[z] = rs->orig[k].updater;
	}
	struct strbuf key = STRBUF_INIT;
	VEC(uint32_t) drop = { 0 };
	for (uint32_t t = 0; t < g->tasks.n; t++) {
		const struct dag_task *dt = &g->tasks.v[t];
		bool hit = false;
		for (uint32_t i = 0; i < dt->nacc && !hit; i++) {
			const struct dag_access *a = &g->acc.v[dt->acc + i];
			if (!(a->mode & DAG_WRITE))
				continue;
			hit = below[a->datum] >= 0 && t >= below[a->datum];
			for (uint32_t z = a->datum; z != DAG_NONE && !hit;
			     z = g->data.v[z].parent)
				hit = at[z] >= 0 && t >= at[z];
		}
		if (hit && ran_before(p, j, t, false, &key))
			VEC_PUSH(drop, t);
	}
	rs->drop = drop.v;
	rs->ndrop = drop.n;
	strbuf_release(&key);
	free(at);
	free(below);
}

void
resume_originals(struct resume *rs, const struct plan *p,
		 const struct journal *j)
{
	const struct dag *g = &p->dag;
	rs->first = xcalloc(g->acc.n ? g->acc.n : 1, 1);
	rs->orig = NULL;
	rs->drop = NULL;
	rs->norig = rs->ndrop = 0;
	if (!first_updates(g, rs->first) || !j)
		return;
	size_t nd = g->data.n;
	int64_t *own = xmalloc((nd ? nd : 1) * sizeof(int64_t));
	int64_t *sub = xmalloc((nd ? nd : 1) * sizeof(int64_t));
	uint32_t *poff = NULL, *pred = NULL;
	VEC(struct resume_orig) orig = { 0 };
	bool known = false;
	for (uint32_t u = 0; u < g->tasks.n; u++) {
		const struct dag_task *dt = &g->tasks.v[u];
		for (uint32_t i = 0; rs->why[u] && i < dt->nacc; i++) {
			if (!rs->first[dt->acc + i])
				continue;
			if (!known) {
				recorded_writers(p, j, own, sub);
				preds(g, &poff, &pred);
				known = true;
			}
			uint32_t x = g->acc.v[dt->acc + i].datum;
			/* an update of an earlier run may be in it */
			bool held = sub[x] >= (int64_t)u;
			for (uint32_t z = g->data.v[x].parent; z != DAG_NONE;
			     z = g->data.v[z].parent)
				held = held || own[z] >= (int64_t)u;
			if (!held)
				continue;
			struct resume_orig o = {
				x, u, rerun_reader(rs, p, u, x, poff, pred)
			};
			/* an update left out matters only to a reader that runs */
			if (rs->why[u] == RESUME_LEFT_OUT && o.reader == DAG_NONE)
				continue;
			VEC_PUSH(orig, o);
		}
	}
	rs->orig = orig.v;
	rs->norig = orig.n;
	if (orig.n)
		void_writers(rs, p, j);
	free(own);
	free(sub);
	free(poff);
	free(pred);
}

void
resume_drop_records(const struct resume *rs, const struct plan *p,
		    struct journal *j)
{
	struct strbuf key = STRBUF_INIT;
	for (size_t k = 0; k < rs->ndrop; k++) {
		strbuf_reset(&key);
		plan_label(p, rs->drop[k], &key);
		journal_add(j, key.buf, "", NULL, 0);
	}
	strbuf_release(&key);
}
