/* select: the part of a plan a run is asked for (select.h). */
#include "select.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "path.h"

/* The workflow task named name[0..len), or -1. */
static long
find_task(const struct workflow *wf, const char *name, size_t len)
{
	for (size_t k = 0; k < wf->ntasks; k++)
		if (strlen(wf->tasks[k].name) == len &&
		    !memcmp(wf->tasks[k].name, name, len))
			return (long)k;
	return -1;
}

void
select_path_from(const char *workdir, const char *cwd, const char *path,
		 struct strbuf *out)
{
	char *abs = path[0] == '/' ? xstrdup(path) : path_join(workdir, path);
	char *norm = path_normalize(abs);
	/* the longest common run of whole components */
	size_t i = 0, common = 0;
	while (cwd[i] && norm[i] == cwd[i]) {
		i++;
		if (cwd[i] == '/' || (!cwd[i] && (!norm[i] || norm[i] == '/')))
			common = i;
	}
	if (!strcmp(cwd, "/"))
		common = 0;
	for (const char *c = cwd + common; *c; c++)
		if (*c == '/' && c[1])
			strbuf_adds(out, out->len ? "/.." : "..");
	const char *rest = norm + common;
	while (*rest == '/')
		rest++;
	if (*rest) {
		if (out->len)
			strbuf_addch(out, '/');
		strbuf_adds(out, rest);
	}
	if (!out->len)
		strbuf_addch(out, '.');
	free(norm);
	free(abs);
}

/* abs (normalised) relative to dir when at or under it, else NULL. */
static char *
under(const char *abs, const char *dir)
{
	size_t n = strlen(dir);
	if (!strcmp(abs, dir))
		return xstrdup(".");
	if (!strcmp(dir, "/"))
		return xstrdup(abs + 1);
	if (!strncmp(abs, dir, n) && abs[n] == '/')
		return xstrdup(abs + n + 1);
	return NULL;
}

/* The real path of p (absolute, normalised): that of its deepest
 * existing ancestor, and the rest as it is; NULL when it is p. */
static char *
real_path(const char *p)
{
	char *head = xstrdup(p), *real = NULL;
	size_t n = strlen(p);
	while (!(real = realpath(head, NULL)) && n > 1) {
		long l = path_parent_len(p, n);
		n = l > 0 ? (size_t)l : 1;
		head[n] = '\0';
	}
	free(head);
	if (!real)
		return NULL;
	char *r = n < strlen(p) ? path_join(real, p + n + (p[n] == '/'))
				: xstrdup(real);
	free(real);
	if (!strcmp(r, p)) {
		free(r);
		return NULL;
	}
	return r;
}

/* A target path (relative to the current directory cwd, or absolute) as
 * a datum is named: relative to the workdir, or absolute outside it.
 * The current directory is a physical path: when the workdir or the
 * target is named through a symbolic link, their real paths are
 * compared too. */
static char *
datum_form(const char *workdir, const char *cwd, const char *target)
{
	char *j = target[0] == '/' ? xstrdup(target) : path_join(cwd, target);
	char *abs = path_normalize(j);
	free(j);
	char *r = under(abs, workdir);
	char *rw = r ? NULL : real_path(workdir);
	char *ra = r ? NULL : real_path(abs);
	if (!r && (rw || ra))
		r = under(ra ? ra : abs, rw ? rw : workdir);
	free(rw);
	free(ra);
	if (!r)
		return abs;
	free(abs);
	return r;
}

/* The index of foreach key name[0..len) of wt, or wt->foreach.n. */
static size_t
key_index(const struct wf_task *wt, const char *name, size_t len)
{
	size_t i;
	for (i = 0; i < wt->foreach.n; i++)
		if (strlen(wt->foreach.v[i].name) == len &&
		    !memcmp(wt->foreach.v[i].name, name, len))
			break;
	return i;
}

/* Whether instance t has every KEY=VALUE of sel (comma-separated); -1
 * with err when a key is not one of its task's foreach keys. */
static int
instance_has(const struct plan *p, uint32_t t, const char *sel, size_t len,
	     struct errbuf *err)
{
	const struct dag_task *dt = &p->dag.tasks.v[t];
	const struct wf_task *wt = &p->wf->tasks[dt->tmpl];
	/* (no binds at all when no task has a foreach: NULL + 0 is
	 * undefined) */
	const char *const *vals = wt->foreach.n ? p->dag.binds.v + dt->bind
						: NULL;
	const char *s = sel, *end = sel + len;
	while (s < end) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		const char *e = comma ? comma : end;
		const char *eq = memchr(s, '=', (size_t)(e - s));
		size_t i = eq ? key_index(wt, s, (size_t)(eq - s))
			      : wt->foreach.n;
		if (i == wt->foreach.n) {
			errprintf(err, "target '%s[%.*s]': task '%s' has no foreach "
				  "key '%.*s' (write %s[KEY=VALUE,...])", wt->name,
				  (int)len, sel, wt->name,
				  (int)(eq ? eq - s : e - s), s, wt->name);
			return -1;
		}
		if (strlen(vals[i]) != (size_t)(e - eq - 1) ||
		    memcmp(vals[i], eq + 1, (size_t)(e - eq - 1)))
			return 0;
		s = comma ? comma + 1 : end;
	}
	return 1;
}

/*
 * Pending templates (wfrun-workflow(5), DYNAMIC), before they are
 * expanded, by their paths as patterns: the literal parts of a path
 * template, each placeholder (and a glob's wildcard) one WILD that
 * stands for any string, '/' included.
 */
#define WILD '\1'
/* tries of placeholder splits when capturing keys from one path */
#define CAP_STEPS 100000
#define CAP_HOLES 16

/* What a needed pending template reads (or what it globs), as a
 * pattern. */
struct sel_pat {
	uint32_t tmpl;
	bool dir;  /* read whole, as a directory */
	char *pat;
};
/* A pending task named as a target, with its KEY=VALUE,... (or NULL). */
struct sel_name {
	uint32_t tmpl;
	char *sel;
	size_t len;
};
struct select_state {
	uint32_t from;           /* the first pending template at the start */
	uint8_t *need;           /* per template */
	const char **needfor;    /* per template: the first target */
	VEC(struct sel_pat) pats;
	VEC(char *) paths;       /* path targets, in datum form */
	VEC(struct sel_name) names;
	bool all;                /* a target is the workdir */
};

/* The value of each foreach key of a template, where one is known:
 * state 0 not seen, 1 val, 2 any. */
struct sel_bind {
	const struct wf_task *wt;
	uint8_t state[WF_MAX_KEYS];
	char *val[WF_MAX_KEYS];
};

static void
bind_init(struct sel_bind *b, const struct wf_task *wt)
{
	memset(b, 0, sizeof(*b));
	b->wt = wt;
}

static void
bind_release(struct sel_bind *b)
{
	for (size_t i = 0; i < b->wt->foreach.n && i < WF_MAX_KEYS; i++)
		free(b->val[i]);
}

/* The known value of placeholder name[0..len), or NULL. */
static const char *
bound(const struct sel_bind *b, const char *name, size_t len)
{
	for (size_t i = 0; b && i < b->wt->foreach.n && i < WF_MAX_KEYS; i++)
		if (b->state[i] == 1 && strlen(b->wt->foreach.v[i].name) == len &&
		    !memcmp(b->wt->foreach.v[i].name, name, len))
			return b->val[i];
	return NULL;
}

/* The pattern for placeholder name[0..len) of template wt (each: the
 * keys of the list it is in, or NULL): a key's known value, a plain
 * glob's pattern, a var's value, or NULL (WILD). */
static char *pat_of(const struct workflow *wf, const struct wf_task *wt,
		    const struct wf_foreach *each, const char *t, bool glob,
		    const struct sel_bind *b, bool globs);

static char *
hole_pat(const struct workflow *wf, const struct wf_task *wt,
	 const struct wf_foreach *each, const char *name, size_t len,
	 const struct sel_bind *b, bool globs)
{
	const struct wf_foreach *sc[2] = { each, wt ? &wt->foreach : NULL };
	for (size_t s = 0; s < 2; s++)
		for (size_t i = 0; sc[s] && i < sc[s]->n; i++) {
			const struct wf_iter *it = &sc[s]->v[i];
			if (strlen(it->name) != len ||
			    memcmp(it->name, name, len))
				continue;
			const char *v = s ? bound(b, name, len) : NULL;
			if (v)
				return xstrdup(v);
			if (globs && it->kind == WF_ITER_GLOB &&
			    !strchr(it->glob, '{'))
				return pat_of(wf, NULL, NULL, it->glob, true, NULL,
					      false);
			return NULL;
		}
	const struct wf_kv *kv = workflow_var(wf, name, len);
	if (kv && !workflow_var_ext(wf, kv)->items && !strchr(kv->val, '{'))
		return xstrdup(kv->val);
	return NULL;
}

/* Path template t (a glob's when glob) of template wt as a pattern,
 * the keys b knows put in; a key from a glob (without captures) as its
 * glob's pattern when globs, else as one WILD. */
static char *
pat_of(const struct workflow *wf, const struct wf_task *wt,
       const struct wf_foreach *each, const char *t, bool glob,
       const struct sel_bind *b, bool globs)
{
	struct strbuf s = STRBUF_INIT;
	while (t[0] == '.' && t[1] == '/')
		t += 2;
	while (*t) {
		char *val = NULL;
		if ((t[0] == '{' || t[0] == '}') && t[1] == t[0]) {
			strbuf_addch(&s, t[0]);
			t += 2;
			continue;
		}
		const char *e = t[0] == '{' ? strchr(t, '}') : NULL;
		if (e) {
			val = hole_pat(wf, wt, each, t + 1, (size_t)(e - t - 1), b,
				       globs);
			t = e + 1;
		} else if (glob && (*t == '*' || *t == '?' || *t == '[')) {
			const char *c = *t == '[' ? strchr(t + 1, ']') : NULL;
			t = c ? c + 1 : t + 1;
		} else {
			strbuf_addch(&s, *t++);
			continue;
		}
		for (const char *v = val ? val : "\1"; *v; v++)
			if (*v != WILD || !s.len || s.buf[s.len - 1] != WILD)
				strbuf_addch(&s, *v);
		free(val);
	}
	return strbuf_detach(&s);
}

/* Whether some path matches both patterns: one row of the table of
 * suffixes at a time. */
static bool
pat_meet(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	uint8_t *next = xmalloc(lb + 1), *cur = xmalloc(lb + 1);
	next[lb] = 1;
	for (size_t j = lb; j-- > 0;)
		next[j] = b[j] == WILD && next[j + 1];
	for (size_t i = la; i-- > 0;) {
		cur[lb] = a[i] == WILD && next[lb];
		for (size_t j = lb; j-- > 0;) {
			if (a[i] == WILD)
				cur[j] = next[j] || cur[j + 1];
			else if (b[j] == WILD)
				cur[j] = cur[j + 1] || next[j];
			else
				cur[j] = a[i] == b[j] && next[j + 1];
		}
		uint8_t *x = next;
		next = cur;
		cur = x;
	}
	bool r = next[0];
	free(next);
	free(cur);
	return r;
}

/* Whether a path of pattern a (a directory's, when adir) and one of b
 * may be the same, or one below the other directory. */
static bool
pat_related(const char *a, bool adir, const char *b, bool bdir)
{
	/* the literal parts before the first WILD must agree (most paths
	 * differ there: no table to fill) */
	size_t i = 0;
	while (a[i] && b[i] && a[i] != WILD && b[i] != WILD && a[i] == b[i])
		i++;
	if (a[i] && b[i] && a[i] != WILD && b[i] != WILD)
		return false;
	if (pat_meet(a, b))
		return true;
	bool r = false;
	char below[2] = { '/', WILD };
	struct strbuf s = STRBUF_INIT;
	if (adir) {
		strbuf_adds(&s, a);
		strbuf_add(&s, below, 2);
		r = pat_meet(s.buf, b);
	}
	if (!r && bdir) {
		strbuf_reset(&s);
		strbuf_adds(&s, b);
		strbuf_add(&s, below, 2);
		r = pat_meet(a, s.buf);
	}
	strbuf_release(&s);
	return r;
}

/* Capturing the keys of a path template from a pattern: the
 * placeholders of one way to match it, and how many tries so far. */
struct sel_cap {
	const struct workflow *wf;
	struct sel_bind *b;
	const char *hole[CAP_HOLES], *at[CAP_HOLES];
	size_t hlen[CAP_HOLES], alen[CAP_HOLES];
	size_t steps, matches;
};

/* Whether v[0..l) (no WILD in it) may be a value of key it: a range's
 * an integer, a plain glob's a path it matches. */
static bool
key_may_be(const struct workflow *wf, const struct wf_iter *it,
	   const char *v, size_t l)
{
	if (memchr(v, WILD, l))
		return true;
	if (it->kind == WF_ITER_RANGE) {
		size_t i = l && v[0] == '-';
		bool digits = i < l;
		for (; i < l; i++)
			digits = digits && v[i] >= '0' && v[i] <= '9';
		return digits;
	}
	if (it->kind != WF_ITER_GLOB || strchr(it->glob, '{'))
		return true;
	char *g = pat_of(wf, NULL, NULL, it->glob, true, NULL, false);
	char *x = xstrndup(v, l);
	bool r = pat_meet(g, x);
	free(x);
	free(g);
	return r;
}

/* One way to match: each key takes what its placeholders took, when
 * that is the same every way and holds no WILD.  A way that gives a key
 * a value it cannot have is none. */
static void
cap_done(struct sel_cap *c, size_t nh)
{
	const struct wf_task *wt = c->b->wt;
	for (size_t h = 0; h < nh; h++) {
		size_t i = key_index(wt, c->hole[h], c->hlen[h]);
		if (i < wt->foreach.n &&
		    !key_may_be(c->wf, &wt->foreach.v[i], c->at[h], c->alen[h]))
			return;
	}
	c->matches++;
	for (size_t i = 0; i < wt->foreach.n && i < WF_MAX_KEYS; i++) {
		const char *name = wt->foreach.v[i].name;
		bool seen = false;
		for (size_t h = 0; h < nh; h++) {
			if (strlen(name) != c->hlen[h] ||
			    memcmp(name, c->hole[h], c->hlen[h]))
				continue;
			seen = true;
			const char *v = c->at[h];
			size_t l = c->alen[h];
			uint8_t *st = &c->b->state[i];
			if (memchr(v, WILD, l))
				*st = 2;
			else if (!*st) {
				c->b->val[i] = xstrndup(v, l);
				*st = 1;
			} else if (*st == 1 && (strlen(c->b->val[i]) != l ||
						memcmp(c->b->val[i], v, l)))
				*st = 2;
		}
		if (!seen)
			c->b->state[i] = 2;
	}
}

/* Every way template t matches pattern p, each WILD of p taken whole
 * by one placeholder. */
static void
cap_walk(struct sel_cap *c, const char *t, const char *p, size_t nh)
{
	if (++c->steps > CAP_STEPS)
		return;
	while (*t && !(t[0] == '{' && t[1] != '{')) {
		char ch = *t;
		t += (ch == '{' || ch == '}') && t[1] == ch ? 2 : 1;
		if (*p++ != ch)
			return;
	}
	if (!*t) {
		if (!*p)
			cap_done(c, nh);
		return;
	}
	const char *e = strchr(t, '}');
	if (!e || nh == CAP_HOLES) {
		c->steps = CAP_STEPS + 1;
		return;
	}
	c->hole[nh] = t + 1;
	c->hlen[nh] = (size_t)(e - t - 1);
	c->at[nh] = p;
	for (size_t l = 0;; l++) {
		c->alen[nh] = l;
		cap_walk(c, e + 1, p + l, nh + 1);
		if (!p[l] || c->steps > CAP_STEPS)
			break;
	}
}

/* Learn b's keys from template t matching pattern q (every key any
 * value when it cannot tell). */
static void
capture(const struct workflow *wf, struct sel_bind *b, const char *t,
	const char *q)
{
	struct sel_cap c = { .wf = wf, .b = b };
	while (t[0] == '.' && t[1] == '/')
		t += 2;
	cap_walk(&c, t, q, 0);
	if (!c.matches || c.steps > CAP_STEPS)
		memset(b->state, 2, sizeof(b->state));
}

/* Path templates of a template: what it writes, or what it reads and
 * globs. */
struct sel_tp {
	const char *t;
	bool glob, dir;
	const struct wf_foreach *each; /* the keys of its list, or NULL */
	bool iter;                     /* what a foreach reads */
};
struct sel_tps {
	struct sel_tp *v;
	size_t n, alloc;
};

static void
each_tps(const struct wf_foreach *fe, struct sel_tps *v)
{
	for (size_t i = 0; i < fe->n; i++) {
		const struct wf_iter *it = &fe->v[i];
		struct sel_tp tp = { NULL, it->kind == WF_ITER_GLOB, false,
				     NULL, true };
		if (it->kind == WF_ITER_GLOB || it->kind == WF_ITER_LINES)
			tp.t = it->glob;
		else if (it->kind == WF_ITER_TABLE)
			tp.t = it->table->path;
		if (tp.t)
			VEC_PUSH(*v, tp);
	}
}

static void
task_tps(const struct wf_task *wt, bool writes, struct sel_tps *v)
{
	if (!writes)
		each_tps(&wt->foreach, v);
	for (size_t i = 0; i < wt->nparams; i++) {
		enum wf_access a = wt->params[i].access;
		if (a == (writes ? WF_IN : WF_OUT))
			continue;
		const struct wf_data *d = &wt->params[i].data;
		const struct wf_foreach *each = NULL;
		while (d->kind == WF_LIST) {
			if (!writes)
				each_tps(&d->list->each, v);
			each = &d->list->each;
			d = &d->list->elem;
		}
		struct sel_tp tp = { d->path, false, d->kind == WF_DIR, each,
				     false };
		VEC_PUSH(*v, tp);
	}
}

/* Whether target x may be a directory that pattern w shows: some part
 * of w before a literal '/' may be x (a target vcf holds vcf/{s}.vcf.gz;
 * vcf/S1.vcf.gz does not hold vcf/{s}.vcf.gz.csi, though the value of
 * {s} may hold a '/'). */
static bool
shows_dir(const char *w, const char *x)
{
	bool r = false;
	for (const char *c = strchr(w, '/'); c && !r; c = strchr(c + 1, '/')) {
		char *head = xstrndup(w, (size_t)(c - w));
		r = pat_meet(head, x);
		free(head);
	}
	return r;
}

/* Whether template k may write what pattern q names (a directory's,
 * when qdir; a target's path when target); b (initialised) learns its
 * keys from cap, q with each key it leaves open one WILD: the keys
 * carried are those the two paths line up placeholder by placeholder. */
static bool
tmpl_writes(const struct workflow *wf, uint32_t k, const char *q,
	    const char *cap, bool qdir, bool target, struct sel_bind *b)
{
	struct sel_tps out = { 0 };
	bool any = false;
	task_tps(&wf->tasks[k], true, &out);
	for (size_t i = 0; i < out.n; i++) {
		char *w = pat_of(wf, &wf->tasks[k], out.v[i].each, out.v[i].t,
				 false, NULL, true);
		if (pat_meet(q, w)) {
			capture(wf, b, out.v[i].t, cap);
			any = true;
		} else if (target ? shows_dir(w, q) ||
					    pat_related(q, false, w, out.v[i].dir)
				  : pat_related(q, qdir, w, out.v[i].dir)) {
			memset(b->state, 2, sizeof(b->state));
			any = true;
		}
		free(w);
	}
	free(out.v);
	return any;
}

static bool
has_pat(const struct select_state *st, uint32_t k, const char *pat, bool dir)
{
	for (size_t i = 0; i < st->pats.n; i++)
		if (st->pats.v[i].tmpl == k && st->pats.v[i].dir == dir &&
		    !strcmp(st->pats.v[i].pat, pat))
			return true;
	return false;
}

/* Pending template k is needed for target, its keys as b knows them:
 * so is what it reads, and the earlier pending templates that may
 * write that. */
static void
need_tmpl(struct select_state *st, const struct workflow *wf, uint32_t k,
	  const struct sel_bind *b, const char *target)
{
	st->need[k] = 1;
	if (!st->needfor[k])
		st->needfor[k] = target;
	struct sel_tps in = { 0 };
	task_tps(&wf->tasks[k], false, &in);
	for (size_t i = 0; i < in.n; i++) {
		char *pat = pat_of(wf, &wf->tasks[k], in.v[i].each, in.v[i].t,
				   in.v[i].glob, b, true);
		if (has_pat(st, k, pat, in.v[i].dir)) {
			free(pat);
			continue;
		}
		struct sel_pat sp = { k, in.v[i].dir, pat };
		VEC_PUSH(st->pats, sp);
		char *cap = NULL;
		for (uint32_t u = st->from; u < k; u++) {
			struct sel_bind ub;
			bind_init(&ub, &wf->tasks[u]);
			if (!cap)
				cap = pat_of(wf, &wf->tasks[k], in.v[i].each,
					     in.v[i].t, in.v[i].glob, b, false);
			if (tmpl_writes(wf, u, pat, cap, in.v[i].dir, false,
					&ub))
				need_tmpl(st, wf, u, &ub, target);
			bind_release(&ub);
		}
		free(cap);
	}
	free(in.v);
}

static struct select_state *
state_new(const struct plan *p)
{
	struct select_state *st = xcalloc(1, sizeof(*st));
	size_t n = p->wf->ntasks;
	st->from = p->stage_from;
	st->need = xcalloc(n + 1, 1);
	st->needfor = xcalloc(n + 1, sizeof(*st->needfor));
	return st;
}

void
select_release(struct select_ask *ask)
{
	struct select_state *st = ask->st;
	if (!st)
		return;
	for (size_t i = 0; i < st->pats.n; i++)
		free(st->pats.v[i].pat);
	for (size_t i = 0; i < st->paths.n; i++)
		free(st->paths.v[i]);
	for (size_t i = 0; i < st->names.n; i++)
		free(st->names.v[i].sel);
	VEC_FREE(st->pats);
	VEC_FREE(st->paths);
	VEC_FREE(st->names);
	free(st->need);
	free(st->needfor);
	free(st);
	ask->st = NULL;
}

/* Target path x (datum form): the pending templates that may write it
 * are needed.  Whether any may. */
static bool
want_pending(const struct plan *p, struct select_state *st, const char *x,
	     const char *target)
{
	bool any = false;
	for (uint32_t k = st->from; k < p->wf->ntasks; k++) {
		struct sel_bind b;
		bind_init(&b, &p->wf->tasks[k]);
		bool all = !strcmp(x, ".");
		if (all || tmpl_writes(p->wf, k, x, x, true, true, &b)) {
			if (all)
				memset(b.state, 2, sizeof(b.state));
			need_tmpl(st, p->wf, k, &b, target);
			any = true;
		}
		bind_release(&b);
	}
	if (any) {
		VEC_PUSH(st->paths, xstrdup(x));
		st->all |= !strcmp(x, ".");
	}
	return any;
}

/* Pending template k named as a target, with KEY=VALUE,... sel[0..len)
 * (len 0: none): it is needed, its keys as sel gives them.  -1 with err
 * when a key is not one of its foreach keys. */
static int
want_pending_task(const struct plan *p, struct select_state *st, uint32_t k,
		  const char *target, const char *sel, size_t len,
		  struct errbuf *err)
{
	const struct wf_task *wt = &p->wf->tasks[k];
	struct sel_bind b;
	bind_init(&b, wt);
	memset(b.state, 2, sizeof(b.state));
	for (const char *s = sel, *end = sel + len; s < end;) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		const char *e = comma ? comma : end;
		const char *eq = memchr(s, '=', (size_t)(e - s));
		size_t i = eq ? key_index(wt, s, (size_t)(eq - s))
			      : wt->foreach.n;
		if (i == wt->foreach.n || i >= WF_MAX_KEYS) {
			errprintf(err, "target '%s': task '%s' has no foreach "
				  "key '%.*s' (write %s[KEY=VALUE,...])", target,
				  wt->name, (int)(eq ? eq - s : e - s), s,
				  wt->name);
			bind_release(&b);
			return -1;
		}
		free(b.val[i]);
		b.val[i] = xstrndup(eq + 1, (size_t)(e - eq - 1));
		b.state[i] = 1;
		s = comma ? comma + 1 : end;
	}
	need_tmpl(st, p->wf, k, &b, target);
	bind_release(&b);
	struct sel_name nm = { k, len ? xstrndup(sel, len) : NULL, len };
	VEC_PUSH(st->names, nm);
	return 1;
}

/* The stages up to the last needed pending template: what each globs
 * is needed, and so are the pending templates that may write it. */
static void
need_stages(const struct plan *p, struct select_state *st)
{
	const struct workflow *wf = p->wf;
	uint32_t last = st->from;
	for (uint32_t k = st->from; k < wf->ntasks; k++)
		if (st->need[k])
			last = k;
	for (uint32_t k = st->from; k < last; k++) {
		struct sel_tps in = { 0 };
		task_tps(&wf->tasks[k], false, &in);
		for (size_t i = 0; i < in.n; i++) {
			if (!in.v[i].iter)
				continue;
			char *pat = pat_of(wf, &wf->tasks[k], NULL, in.v[i].t,
					   in.v[i].glob, NULL, true);
			struct sel_pat sp = { k, false, pat };
			if (has_pat(st, k, pat, false)) {
				free(pat);
				continue;
			}
			VEC_PUSH(st->pats, sp);
			for (uint32_t u = st->from; u < k; u++) {
				struct sel_bind ub;
				bind_init(&ub, &wf->tasks[u]);
				if (tmpl_writes(wf, u, pat, pat, false, false,
						&ub))
					need_tmpl(st, wf, u, &ub,
						  st->needfor[last]);
				bind_release(&ub);
			}
		}
		free(in.v);
	}
}

/* The static tasks that write what the needed pending templates read,
 * what the stages up to the last of them glob, and the writers of what
 * the first of them globs: wanted. */
static void
want_static(const struct plan *p, struct select_state *st, uint8_t *want)
{
	const struct dag *g = &p->dag;
	bool any = false;
	for (uint32_t k = st->from; k < p->wf->ntasks; k++)
		any |= st->need[k];
	if (!any)
		return;
	need_stages(p, st);
	/* the writers of what the next stage globs (a repeat block's last
	 * iteration, which its until reads) */
	for (size_t i = 0; i < p->stage_writers.n; i++)
		want[p->stage_writers.v[i]] = 1;
	for (uint32_t d = 0; d < g->data.n; d++) {
		const struct dag_datum *x = &g->data.v[d];
		if (x->writer == DAG_NONE)
			continue;
		for (size_t i = 0; i < st->pats.n && !want[x->writer]; i++)
			want[x->writer] = pat_related(
				st->pats.v[i].pat, st->pats.v[i].dir, x->path,
				x->flags & DATUM_COLLECTION);
	}
}

/* Target NAME or NAME[KEY=VALUE,...]: want its instances (st: those of
 * a pending task).  0 when it names no task (then it may be a path), 1
 * when it did, -1 with err. */
static int
want_task(const struct plan *p, struct select_state *st, const char *target,
	  uint8_t *want, struct errbuf *err)
{
	size_t n = strlen(target);
	const char *br = strchr(target, '[');
	bool inst = br && n > 1 && target[n - 1] == ']';
	long k = find_task(p->wf, target, inst ? (size_t)(br - target) : n);
	if (k < 0)
		return 0;
	size_t sl = inst ? n - 2 - (size_t)(br - target) : 0;
	if (plan_pending(p) && (uint32_t)k >= p->stage_from)
		return want_pending_task(p, st, (uint32_t)k, target,
					 inst ? br + 1 : NULL, sl, err);
	size_t found = 0;
	for (uint32_t t = 0; t < p->dag.tasks.n; t++) {
		if (p->dag.tasks.v[t].tmpl != (uint32_t)k)
			continue;
		int has = inst ? instance_has(p, t, br + 1,
					      (size_t)(target + n - 1 - br - 1),
					      err)
			       : 1;
		if (has < 0)
			return -1;
		found += (size_t)has;
		want[t] |= (uint8_t)has;
	}
	if (inst && !found) {
		errprintf(err, "target '%s': no instance of task '%s' has %.*s",
			  target, p->wf->tasks[k].name,
			  (int)(target + n - 1 - br - 1), br + 1);
		return -1;
	}
	return 1;
}

static void
mark(uint8_t *want, uint32_t base, uint32_t t)
{
	if (t != DAG_NONE && t >= base)
		want[t - base] = 1;
}

/* Target path x (a datum form): want the last writer of it (itself, or
 * a directory written whole above it) and of every known path below it,
 * of those from task base on (want[t - base]).  Whether any task writes
 * it. */
static bool
want_path(const struct dag *g, const char *x, uint8_t *want, uint32_t base)
{
	bool any = false;
	if (!strcmp(x, ".")) {
		for (uint32_t d = 0; d < g->data.n; d++)
			if (g->data.v[d].writer != DAG_NONE &&
			    g->data.v[d].path[0] != '/') {
				mark(want, base, g->data.v[d].writer);
				any = true;
			}
		return any;
	}
	/* the nearest known path at or above x */
	size_t len = strlen(x);
	uint32_t d = dag_lookup(g, x, len);
	for (long l = (long)len; d == DAG_NONE && l > 0;) {
		l = path_parent_len(x, (size_t)l);
		if (l > 0)
			d = dag_lookup(g, x, (size_t)l);
	}
	if (d == DAG_NONE)
		return false;
	uint32_t w = dag_latest_writer(g, d);
	if (g->data.v[d].len != len) {
		/* x lies below d, known: a directory written whole at or
		 * above d makes it */
		for (uint32_t z = d; z != DAG_NONE; z = g->data.v[z].parent)
			if (g->data.v[z].writer != DAG_NONE &&
			    (g->data.v[z].flags & DATUM_COLLECTION)) {
				mark(want, base, w);
				return true;
			}
		return false;
	}
	if (w != DAG_NONE) {
		mark(want, base, w);
		any = true;
	}
	for (uint32_t y = g->data.v[d].first_child; y != DAG_NONE;
	     y = dag_next_descendant(g, d, y))
		if (g->data.v[y].writer != DAG_NONE) {
			mark(want, base, g->data.v[y].writer);
			any = true;
		}
	return any;
}

/* The closest task name or written path to target (d: its datum form),
 * said in err after what. */
static void
suggest(const struct plan *p, const char *target, const char *d,
	const char *cwd, const char *what, struct errbuf *err)
{
	const struct dag *g = &p->dag;
	struct strbuf sug = STRBUF_INIT;
	const char *note = "";
	/* a path relative to the workdir, not the current directory */
	char *asis = path_normalize(target);
	uint32_t x = dag_lookup(g, asis, strlen(asis));
	if (target[0] != '/' && x != DAG_NONE &&
	    dag_latest_writer(g, x) != DAG_NONE) {
		select_path_from(p->wf->workdir, cwd, asis, &sug);
		note = " (a target path is relative to the current directory, "
		       "not the workdir)";
	} else {
		size_t n = 0, dl = strlen(d);
		const char **c = xmalloc((p->wf->ntasks + g->data.n + 1) *
					 sizeof(*c));
		for (size_t k = 0; k < p->wf->ntasks; k++)
			c[n++] = p->wf->tasks[k].name;
		const char *best = closest_word(target, c, n);
		/* paths of about the target's length, by their datum form */
		n = 0;
		for (uint32_t k = 0; !best && k < g->data.n; k++) {
			size_t l = g->data.v[k].len;
			if (g->data.v[k].writer != DAG_NONE &&
			    l + 3 >= dl && l <= dl + 3)
				c[n++] = g->data.v[k].path;
		}
		const char *bp = best ? NULL : closest_word(d, c, n);
		if (best)
			strbuf_adds(&sug, best);
		else if (bp)
			select_path_from(p->wf->workdir, cwd, bp, &sug);
		free(c);
	}
	errprintf(err, "%s%s%s%s%s", what, sug.len ? "; did you mean '" : "",
		  sug.buf, sug.len ? "'?" : "", note);
	free(asis);
	strbuf_release(&sug);
}

/* Target (a task name or a path): mark what it names in want; -1 with
 * err when it names nothing. */
static int
want_target(const struct plan *p, struct select_state *st, const char *target,
	    const char *cwd, uint8_t *want, struct errbuf *err)
{
	const struct dag *g = &p->dag;
	int r = want_task(p, st, target, want, err);
	if (r)
		return r < 0 ? -1 : 0;
	if (!*target) {
		errprintf(err, "an empty target names nothing");
		return -1;
	}
	char *d = datum_form(p->wf->workdir, cwd, target);
	if (d[0] == '/') {
		/* outside the workdir: named as ../x, or absolute */
		struct strbuf up = STRBUF_INIT;
		select_path_from("/", p->wf->workdir, d, &up);
		if (dag_lookup(g, up.buf, up.len) != DAG_NONE) {
			free(d);
			d = strbuf_detach(&up);
		}
		strbuf_release(&up);
	}
	bool made = want_path(g, d, want, 0);
	if ((st && want_pending(p, st, d, target)) || made) {
		free(d);
		return 0;
	}
	struct strbuf what = STRBUF_INIT;
	uint32_t x = dag_lookup(g, d, strlen(d));
	char *abs = d[0] == '/' ? xstrdup(d) : path_join(p->wf->workdir, d);
	char *na = path_normalize(abs);
	strbuf_addf(&what, "target '%s' names nothing in %s: no task has that "
		    "name, and none writes %s", target, p->wf->file, na);
	free(na);
	free(abs);
	if (x != DAG_NONE && (g->data.v[x].flags & DATUM_INPUT))
		strbuf_adds(&what, " (a workflow input, which no task makes)");
	else if (plan_pending(p))
		strbuf_addf(&what, ", nor may the tasks from '%s' on, expanded "
			    "during the run (wfrun-workflow(5), DYNAMIC)",
			    p->wf->tasks[p->stage_from].name);
	suggest(p, target, d, cwd, what.buf, err);
	strbuf_release(&what);
	free(d);
	return -1;
}

/* want[] closed under predecessors: a task is needed when a task that
 * needs it is.  Edges point forward, so one backward sweep does it. */
static void
close_backward(const struct dag *g, uint8_t *want)
{
	for (uint32_t t = (uint32_t)g->tasks.n; t-- > 0;)
		for (uint32_t k = g->succ_off[t];
		     !want[t] && k < g->succ_off[t + 1]; k++)
			want[t] = want[g->succ[k]];
}

/* --until NAME: its workflow task, or -1 with err. */
static long
until_task(const struct plan *p, const char *name, struct errbuf *err)
{
	long k = find_task(p->wf, name, strlen(name));
	if (k >= 0)
		return k;
	const char **c = xmalloc((p->wf->ntasks + 1) * sizeof(*c));
	for (size_t i = 0; i < p->wf->ntasks; i++)
		c[i] = p->wf->tasks[i].name;
	const char *sug = closest_word(name, c, p->wf->ntasks);
	errprintf(err, "--until: %s has no task named '%s'%s%s%s", p->wf->file,
		  name, sug ? "; did you mean '" : "", sug ? sug : "",
		  sug ? "'?" : "");
	free(c);
	return -1;
}

int
select_tasks(struct plan *p, struct select_ask *ask, size_t *left,
	     struct errbuf *err)
{
	struct dag *g = &p->dag;
	size_t nt = g->tasks.n;
	*left = 0;
	if (!ask->n && !ask->until)
		return 0;
	char *cwd = getcwd(NULL, 0);
	if (!cwd) {
		errprintf(err, "cannot read the current directory: %s",
			  strerror(errno));
		return -1;
	}
	long until = -1;
	if (ask->until && (until = until_task(p, ask->until, err)) < 0) {
		free(cwd);
		return -1;
	}
	uint8_t *want = xcalloc(nt ? nt : 1, 1);
	int rc = 0;
	if (ask->n && plan_pending(p))
		ask->st = state_new(p);
	for (size_t i = 0; i < ask->n && !rc; i++)
		rc = want_target(p, ask->st, ask->targets[i], cwd, want, err);
	free(cwd);
	if (!rc) {
		if (ask->st)
			want_static(p, ask->st, want);
		if (ask->n)
			close_backward(g, want);
		for (uint32_t t = 0; t < nt; t++) {
			if (until >= 0 && g->tasks.v[t].tmpl > (uint32_t)until)
				want[t] = 0;
			else if (!ask->n)
				want[t] = 1;
			if (!want[t]) {
				g->tasks.v[t].state = TASK_LEFT_OUT;
				(*left)++;
			}
		}
	}
	free(want);
	return rc;
}

/* Of the tasks first.. just appended, those st says the targets need:
 * keep[t - first]. */
static void
appended_wanted(const struct plan *p, const struct select_state *st,
		uint32_t first, uint8_t *keep)
{
	const struct dag *g = &p->dag;
	uint32_t nt = (uint32_t)g->tasks.n;
	if (st->all) {
		memset(keep, 1, nt - first);
		return;
	}
	for (size_t i = 0; i < st->paths.n; i++)
		want_path(g, st->paths.v[i], keep, first);
	struct errbuf err;
	for (size_t i = 0; i < st->names.n; i++)
		for (uint32_t t = first; t < nt; t++)
			if (g->tasks.v[t].tmpl == st->names.v[i].tmpl &&
			    (!st->names.v[i].sel ||
			     instance_has(p, t, st->names.v[i].sel,
					  st->names.v[i].len, &err) == 1))
				keep[t - first] = 1;
	/* a needed template still pending: what it reads and globs */
	bool later = false;
	for (uint32_t k = p->stage_from; plan_pending(p) && k < p->wf->ntasks;
	     k++)
		later |= st->need[k];
	for (size_t i = 0; later && i < p->stage_writers.n; i++)
		mark(keep, first, p->stage_writers.v[i]);
	for (uint32_t t = nt; t-- > first;) {
		uint8_t *k = &keep[t - first];
		for (uint32_t e = g->succ_off[t]; !*k && e < g->succ_off[t + 1];
		     e++)
			*k = keep[g->succ[e] - first];
		const struct dag_access *a = dag_task_acc(g, &g->tasks.v[t]);
		for (uint32_t j = 0; later && !*k && j < g->tasks.v[t].nacc; j++)
			for (size_t i = 0; (a[j].mode & DAG_WRITE) && !*k &&
					   i < st->pats.n; i++)
				*k = st->pats.v[i].tmpl >= p->stage_from &&
				     pat_related(st->pats.v[i].pat,
						 st->pats.v[i].dir,
						 g->data.v[a[j].datum].path,
						 a[j].is_dir);
	}
}

size_t
select_appended(struct plan *p, const struct select_ask *ask, uint32_t first)
{
	struct dag *g = &p->dag;
	size_t left = 0, n = g->tasks.n - first;
	if (!ask || (!ask->n && !ask->until))
		return 0;
	long until = -1;
	if (ask->until)
		until = find_task(p->wf, ask->until, strlen(ask->until));
	uint8_t *keep = xcalloc(n ? n : 1, 1);
	if (!ask->n)
		memset(keep, 1, n);
	else if (ask->st)
		appended_wanted(p, ask->st, first, keep);
	for (uint32_t t = first; t < g->tasks.n; t++)
		if (!keep[t - first] ||
		    (until >= 0 && g->tasks.v[t].tmpl > (uint32_t)until)) {
			g->tasks.v[t].state = TASK_LEFT_OUT;
			left++;
		}
	free(keep);
	return left;
}

bool
select_pending(const struct plan *p, const struct select_ask *ask,
	       uint32_t k, const char **target)
{
	*target = NULL;
	if (!ask)
		return true;
	if (ask->until) {
		long u = find_task(p->wf, ask->until, strlen(ask->until));
		if (u >= 0 && k > (uint32_t)u)
			return false;
	}
	if (ask->n && ask->st)
		*target = ask->st->needfor[k];
	return !ask->n || (ask->st && ask->st->need[k]);
}
