#include "expand.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "path.h"
#include "sheet.h"

/* Errors about missing inputs reported per task before summarising. */
#define MAX_MISSING_PER_TASK 10

/* ---- shell quoting ---- */

static bool
safe_char(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '-' || c == '.' || c == '/' ||
	       c == ',' || c == ':' || c == '@' || c == '%' || c == '+';
}

void
sq_quote(struct strbuf *out, const char *s, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (!safe_char((unsigned char)s[i]))
			break;
	if (n && i == n) {
		strbuf_add(out, s, n);
		return;
	}
	strbuf_addch(out, '\'');
	for (i = 0; i < n; i++) {
		if (s[i] == '\'')
			strbuf_adds(out, "'\\''");
		else
			strbuf_addch(out, s[i]);
	}
	strbuf_addch(out, '\'');
}

/* ---- integer expressions ---- */

struct expr {
	const char *p;
	struct errbuf *err;
	int depth;
};

static int expr_sum(struct expr *e, long long *v);

static void
expr_ws(struct expr *e)
{
	while (isspace((unsigned char)*e->p))
		e->p++;
}

static int
expr_atom(struct expr *e, long long *v)
{
	expr_ws(e);
	if (++e->depth > 64)
		return errprintf(e->err, "expression nests too deeply");
	int r;
	if (*e->p == '(') {
		e->p++;
		if (expr_sum(e, v) < 0)
			return -1;
		expr_ws(e);
		if (*e->p != ')')
			return errprintf(e->err, "missing ')'");
		e->p++;
		r = 0;
	} else if (*e->p == '-' || *e->p == '+') {
		int neg = *e->p == '-';
		e->p++;
		if (expr_atom(e, v) < 0)
			return -1;
		if (neg && __builtin_sub_overflow(0LL, *v, v))
			return errprintf(e->err, "overflow");
		r = 0;
	} else if (isdigit((unsigned char)*e->p)) {
		char *end;
		errno = 0;
		*v = strtoll(e->p, &end, 10);
		if (errno)
			return errprintf(e->err, "number out of range");
		e->p = end;
		r = 0;
	} else if (!*e->p) {
		return errprintf(e->err, "missing a number at the end");
	} else {
		return errprintf(e->err, "unexpected '%c'", *e->p);
	}
	e->depth--;
	return r;
}

static int
expr_prod(struct expr *e, long long *v)
{
	if (expr_atom(e, v) < 0)
		return -1;
	for (;;) {
		expr_ws(e);
		char op = *e->p;
		if (op != '*' && op != '/' && op != '%')
			return 0;
		e->p++;
		long long w;
		if (expr_atom(e, &w) < 0)
			return -1;
		if (op == '*') {
			if (__builtin_mul_overflow(*v, w, v))
				return errprintf(e->err, "overflow");
		} else {
			if (!w)
				return errprintf(e->err, "division by zero");
			/* LLONG_MIN / -1 (and % -1) traps on x86 */
			if (w == -1 && *v == LLONG_MIN)
				return errprintf(e->err, "overflow");
			*v = op == '/' ? *v / w : *v % w;
		}
	}
}

static int
expr_sum(struct expr *e, long long *v)
{
	if (expr_prod(e, v) < 0)
		return -1;
	for (;;) {
		expr_ws(e);
		char op = *e->p;
		if (op != '+' && op != '-')
			return 0;
		e->p++;
		long long w;
		if (expr_prod(e, &w) < 0)
			return -1;
		if (op == '+' ? __builtin_add_overflow(*v, w, v)
			      : __builtin_sub_overflow(*v, w, v))
			return errprintf(e->err, "overflow");
	}
}

int
eval_int(const char *s, long long *out, struct errbuf *err)
{
	struct expr e = { s, err, 0 };
	if (expr_sum(&e, out) < 0)
		return -1;
	expr_ws(&e);
	if (*e.p)
		return errprintf(err, "unexpected '%c'", *e.p);
	return 0;
}

/* ---- templates ---- */

/*
 * A foreach key whose values are rows: a table's (a sample sheet), or the
 * captures of a glob.  A value is the row's key, an arena string right
 * after a struct rowhead pointing at the row's fields: a value slot holds
 * one string as every key's does, {key} renders it as it is, and
 * {key.col} (SEG_FIELD) finds its field from it.  In the dag's arena.
 */
struct prows {
	const char *const *cols;  /* column names */
	size_t ncols;
	const char *what;         /* "the table samples.tsv has no column",
				     for messages */
	const char **keys;        /* TABLE: the values, one per row taken */
	size_t nrows;
	struct tmpl *pieces;      /* GLOB: the pattern around its captures */
	uint16_t *capcol;         /* GLOB: each capture's column */
	size_t npieces;           /* GLOB: captures + 1 */
	long own;                 /* GLOB: the column of the key's own name;
				     -1: the value is the path */
};
struct rowhead {
	const char *const *fields;
};

/* Names visible to a template: vars, then foreach keys by slot. */
struct scope {
	const struct workflow *wf;
	const char **names; /* foreach keys, slot order */
	size_t n;
	const struct wf_task *task; /* params visible when set */
	struct arena *mem;          /* where compiled templates live */
	const struct prows *const *rows; /* per slot: its rows, or NULL */
};

enum tmpl_where { IN_PATH, IN_RUN, IN_ENV, IN_EXPR };

static const char *
where_name(enum tmpl_where w)
{
	switch (w) {
	case IN_PATH:
		return "a path";
	case IN_RUN:
		return "run";
	case IN_ENV:
		return "env";
	case IN_EXPR:
		return "a foreach value";
	}
	return "?";
}

static bool
name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.';
}

static void
suggest(struct strbuf *sb, const struct scope *sc, const char *name,
	enum tmpl_where where)
{
	VEC(const char *) cands = { 0 };
	VEC(char *) owned = { 0 };
	for (size_t i = 0; i < sc->wf->nvars; i++)
		VEC_PUSH(cands, sc->wf->vars[i].key);
	for (size_t i = 0; i < sc->n; i++)
		VEC_PUSH(cands, sc->names[i]);
	for (size_t i = 0; sc->rows && i < sc->n; i++)
		for (size_t j = 0; sc->rows[i] && j < sc->rows[i]->ncols; j++) {
			char *c = xasprintf("%s.%s", sc->names[i],
					    sc->rows[i]->cols[j]);
			VEC_PUSH(owned, c);
			VEC_PUSH(cands, c);
		}
	if (sc->task && (where == IN_RUN || where == IN_ENV)) {
		for (size_t i = 0; i < sc->task->nparams; i++) {
			const struct wf_param *p = &sc->task->params[i];
			char *c = xasprintf("%s.%s", wf_access_name(p->access),
					    p->name);
			VEC_PUSH(owned, c);
			VEC_PUSH(cands, c);
		}
	}
	const char *best = closest_word(name, cands.v, cands.n);
	if (best)
		strbuf_addf(sb, "; did you mean {%s}?", best);
	for (size_t i = 0; i < owned.n; i++)
		free(owned.v[i]);
	VEC_FREE(owned);
	VEC_FREE(cands);
}

/* What a template is compiled in, for its messages. */
struct tmpl_ctx {
	const struct scope *sc;
	enum tmpl_where where;
	struct diags *d;
	struct wf_loc loc;
	const char *owner;
};

/* An error at the template: "WHERE of OWNER: " and fmt, then a "did you
 * mean" for like when it is not NULL. */
static void PRINTF(3, 4)
tmpl_error(const struct tmpl_ctx *c, const char *like, const char *fmt, ...)
{
	struct strbuf m = STRBUF_INIT;
	va_list ap;
	strbuf_addf(&m, "%s of %s: ", where_name(c->where), c->owner);
	va_start(ap, fmt);
	strbuf_vaddf(&m, fmt, ap);
	va_end(ap);
	if (like)
		suggest(&m, c->sc, like, c->where);
	diag_error(c->d, c->loc, "%s", m.buf);
	strbuf_release(&m);
}

/* The access named by name[0..len): in, out or inout; false if none. */
static bool
access_named(const char *name, size_t len, enum wf_access *acc)
{
	if (len == 2 && !strncmp(name, "in", 2))
		*acc = WF_IN;
	else if (len == 3 && !strncmp(name, "out", 3))
		*acc = WF_OUT;
	else if (len == 5 && !strncmp(name, "inout", 5))
		*acc = WF_INOUT;
	else
		return false;
	return true;
}

/* A dotted placeholder {acc.param} (dot points into name) into *s. */
static bool
param_seg(const struct tmpl_ctx *c, const char *name, const char *dot,
	  struct seg *s)
{
	enum wf_access acc;
	if (!access_named(name, (size_t)(dot - name), &acc)) {
		tmpl_error(c, name, "unknown placeholder {%s}", name);
		return false;
	}
	const struct wf_task *t = c->sc->task;
	if (c->where != IN_RUN && c->where != IN_ENV) {
		tmpl_error(c, NULL, "{%s}: parameters cannot be used in %s, "
			   "only vars and foreach keys", name,
			   where_name(c->where));
		return false;
	}
	if (!t) { /* a repeat block's until */
		tmpl_error(c, NULL, "{%s}: parameters cannot be used here, "
			   "only vars, {iter} and {prev}", name);
		return false;
	}
	const char *pn = dot + 1;
	size_t i;
	for (i = 0; i < t->nparams; i++)
		if (!strcmp(t->params[i].name, pn))
			break;
	if (i == t->nparams) {
		tmpl_error(c, name, "{%s}: the task has no %s parameter '%s'",
			   name, wf_access_name(acc), pn);
		return false;
	}
	if (t->params[i].access != acc) {
		const char *real = wf_access_name(t->params[i].access);
		tmpl_error(c, NULL, "{%s}: '%s' is an %s parameter; write "
			   "{%s.%s}", name, pn, real, real, pn);
		return false;
	}
	s->kind = SEG_PARAM;
	s->idx = (uint16_t)i;
	return true;
}

/* {name} of a list var v into *s: in run each item is a word (quoted
 * each), in env they are joined by spaces; a path or a foreach value
 * holds one value, so there it is an error. */
static bool
list_seg(const struct tmpl_ctx *c, const struct wf_kv *v, struct seg *s)
{
	const struct wf_var_ext *x = workflow_var_ext(c->sc->wf, v);
	if (c->where == IN_RUN) {
		s->kind = SEG_LIST;
		s->s = x->items;
		s->len = x->items_len;
		return true;
	}
	if (c->where == IN_ENV) {
		s->kind = SEG_VAR;
		s->s = v->val;
		s->len = (uint32_t)strlen(v->val);
		return true;
	}
	tmpl_error(c, NULL, "{%s} is a list var, and %s holds one value: "
		   "iterate it with foreach: {KEY: {var: %s}} and write {KEY}",
		   v->key, where_name(c->where), v->key);
	return false;
}

/* {cores} in a run or env (where no var or foreach key has that name):
 * the cores the task is given. */
static bool
cores_seg(const struct tmpl_ctx *c, const char *name, struct seg *s)
{
	if (strcmp(name, "cores") || !c->sc->task ||
	    (c->where != IN_RUN && c->where != IN_ENV))
		return false;
	s->kind = SEG_CORES;
	return true;
}

/* A placeholder {name}, a foreach key (the innermost of that name) or a
 * var, into *s. */
static bool
name_seg(const struct tmpl_ctx *c, const char *name, struct seg *s)
{
	const struct scope *sc = c->sc;
	for (size_t i = sc->n; i > 0; i--)
		if (!strcmp(sc->names[i - 1], name)) {
			s->kind = SEG_BIND;
			s->idx = (uint16_t)(i - 1);
			return true;
		}
	const struct wf_kv *v = workflow_var(sc->wf, name, strlen(name));
	if (!v && cores_seg(c, name, s))
		return true;
	if (!v) {
		tmpl_error(c, name, "unknown placeholder {%s}: no var or foreach "
			   "key has that name", name);
		return false;
	}
	if (workflow_var_ext(sc->wf, v)->items)
		return list_seg(c, v, s);
	s->kind = SEG_VAR;
	s->s = v->val;
	s->len = (uint32_t)strlen(v->val);
	return true;
}

/*
 * A dotted placeholder {key.col} of a foreach key whose values are rows
 * (dot points into name): 1 when key is one (*s set), -1 after an error
 * (no such column), 0 when no such key is in scope.
 */
static int
field_seg(const struct tmpl_ctx *c, const char *name, const char *dot,
	  struct seg *s)
{
	const struct scope *sc = c->sc;
	size_t kl = (size_t)(dot - name);
	const struct prows *r = NULL;
	size_t i;
	for (i = sc->n; i > 0 && !r; i--)
		if (strlen(sc->names[i - 1]) == kl &&
		    !memcmp(sc->names[i - 1], name, kl)) {
			r = sc->rows ? sc->rows[i - 1] : NULL;
			if (!r)
				return 0;
		}
	if (!r)
		return 0;
	for (size_t j = 0; j < r->ncols; j++)
		if (!strcmp(r->cols[j], dot + 1)) {
			s->kind = SEG_FIELD;
			s->idx = (uint16_t)i;
			s->len = (uint32_t)j;
			return 1;
		}
	const char *like = closest_word(dot + 1, r->cols, r->ncols);
	struct strbuf m = STRBUF_INIT;
	if (like)
		strbuf_addf(&m, "; did you mean {%.*s.%s}?", (int)kl, name, like);
	tmpl_error(c, NULL, "{%s}: %s '%s'%s", name, r->what, dot + 1, m.buf);
	strbuf_release(&m);
	return -1;
}

/* The placeholder whose name is p[0..q) into *s; false after an error. */
static bool
placeholder_seg(const struct tmpl_ctx *c, const char *p, const char *q,
		struct seg *s)
{
	char *name = xstrndup(p, (size_t)(q - p));
	const char *dot = strchr(name, '.');
	int f = dot ? field_seg(c, name, dot, s) : 0;
	bool ok = f ? f > 0 : dot ? param_seg(c, name, dot, s)
				  : name_seg(c, name, s);
	free(name);
	return ok;
}

/* The segments of a template being compiled. */
struct segs {
	struct seg *v;
	size_t n, alloc;
};

/* The literal text lit[0..end), if any, as a segment. */
static void
add_lit(struct segs *segs, const char *lit, const char *end)
{
	if (end > lit) {
		struct seg s = { lit, (uint32_t)(end - lit), 0, SEG_LIT };
		VEC_PUSH(*segs, s);
	}
}

/*
 * The end of the placeholder that p (at a '{') starts: its '}'; NULL (after
 * an error) when p starts none.  '}' alone closes none either.
 */
static const char *
placeholder_end(const struct tmpl_ctx *c, const char *text, const char *p)
{
	if (*p == '}') {
		tmpl_error(c, NULL, "'}' at offset %zu closes no placeholder; "
			   "write '}}' for a literal brace", (size_t)(p - text));
		return NULL;
	}
	const char *q = p + 1;
	while (name_char(*q))
		q++;
	if (*q != '}' || q == p + 1) {
		tmpl_error(c, NULL, "'{' at offset %zu starts no placeholder "
			   "(want {name}, {in.x}, {out.x} or {inout.x}); write "
			   "'{{' for a literal brace", (size_t)(p - text));
		return NULL;
	}
	return q;
}

/*
 * Compile text into t.  Segments point into text, which must live as long
 * as the template.  Errors are reported at loc and make it return -1.
 * Literal runs are flushed at each placeholder or escaped brace.
 */
static int
tmpl_compile(struct tmpl *t, const char *text, const struct scope *sc,
	     enum tmpl_where where, struct diags *d, struct wf_loc loc,
	     const char *owner)
{
	const struct tmpl_ctx c = { sc, where, d, loc, owner };
	struct segs segs = { NULL, 0, 0 };
	const char *p = text, *lit = text;
	int bad = 0;
	while (*p) {
		if ((p[0] == '{' || p[0] == '}') && p[1] == p[0]) {
			add_lit(&segs, lit, p + 1);
			p += 2;
			lit = p;
			continue;
		}
		if (*p != '{' && *p != '}') {
			p++;
			continue;
		}
		const char *q = placeholder_end(&c, text, p);
		struct seg s = { NULL, 0, 0, SEG_LIT };
		if (!q) {
			bad = 1;
			p++;
			continue;
		}
		add_lit(&segs, lit, p);
		if (placeholder_seg(&c, p + 1, q, &s))
			VEC_PUSH(segs, s);
		else
			bad = 1;
		p = q + 1;
		lit = p;
	}
	add_lit(&segs, lit, p);
	/* Kept as long as the plan, one per path and command of every
	 * task: in the plan's arena, with no spare capacity. */
	t->v = NULL;
	if (segs.n) {
		t->v = arena_alloc(sc->mem, segs.n * sizeof(*segs.v));
		memcpy(t->v, segs.v, segs.n * sizeof(*segs.v));
	}
	free(segs.v);
	t->n = segs.n;
	return bad ? -1 : 0;
}

/* The segments stay in the plan's arena until the plan is released. */
static void
tmpl_release(struct tmpl *t)
{
	t->v = NULL;
	t->n = 0;
}

/* Field col of the row whose key value v is (struct prows). */
static const char *
row_field(const char *v, size_t col)
{
	const struct rowhead *h = (const struct rowhead *)(const void *)v - 1;
	return h->fields[col];
}

/* Render with raw values (paths, env, expressions); no PARAM segments. */
static void
render_raw(struct strbuf *out, const struct tmpl *t, const char *const *vals)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct seg *s = &t->v[i];
		switch (s->kind) {
		case SEG_LIT:
		case SEG_VAR:
			strbuf_add(out, s->s, s->len);
			break;
		case SEG_BIND:
			strbuf_adds(out, vals[s->idx]);
			break;
		case SEG_LIST:
			for (uint32_t j = 0; j < s->len; j++)
				strbuf_addch(out, s->s[j] ? s->s[j] : ' ');
			if (s->len)
				strbuf_setlen(out, out->len - 1);
			break;
		case SEG_FIELD:
			strbuf_adds(out, row_field(vals[s->idx], s->len));
			break;
		case SEG_PARAM:
		case SEG_CORES:
			BUG("parameter in a raw template");
		}
	}
}

/* render_raw() that stops once out holds more than WF_MAX_VALUE bytes
 * (returns -1): a value built from many long ones never fills memory. */
static int
render_capped(struct strbuf *out, const struct tmpl *t, const char *const *vals)
{
	for (size_t i = 0; i < t->n; i++) {
		struct tmpl one = { t->v + i, 1 };
		render_raw(out, &one, vals);
		if (out->len > WF_MAX_VALUE)
			return -1;
	}
	return 0;
}

/* ---- compile a whole task ---- */

struct builder {
	struct plan *p;
	struct diags *d;
	struct strbuf sb;
	VEC(const char *) names; /* scope stack of foreach key names */
	VEC(const char *) vals;  /* current values, parallel to names */
	VEC(const struct prows *) rows; /* parallel to names: set by
					   push_name() */
	VEC(struct sheet_cache) sheets; /* each table read, once */
	struct plan_limits lim;
	bool over;               /* a limit was reached: expansion stops */
	size_t empty;            /* foreach values that made nothing */
	struct strbuf msg;       /* scratch for messages */
	size_t inputs_from;      /* check_inputs: the dag's inputs from */
	bool eager;              /* plan_build_eager */
};

/* The list var of foreach key it ({var: NAME}): -1 after saying that
 * there is none. */
static int
foreach_var_check(struct builder *b, const struct wf_iter *it,
		  const char *owner)
{
	const struct workflow *wf = b->p->wf;
	const struct wf_kv *v = workflow_var(wf, it->var, strlen(it->var));
	if (v && workflow_var_ext(wf, v)->items)
		return 0;
	if (v) {
		diag_error(b->d, it->loc, "foreach '%s' of %s: var '%s' is not a "
			   "list; give it a list ([a, b]) or iterate a list "
			   "here", it->name, owner, it->var);
		return -1;
	}
	const char **names = xcalloc(wf->nvars + 1, sizeof(*names));
	size_t n = 0;
	for (size_t i = 0; i < wf->nvars; i++)
		if (wf->var_ext[i].items)
			names[n++] = wf->vars[i].key;
	const char *sug = closest_word(it->var, names, n);
	diag_error(b->d, it->loc, "foreach '%s' of %s: no list var '%s'%s%s%s",
		   it->name, owner, it->var, sug ? "; did you mean '" : "",
		   sug ? sug : "", sug ? "'?" : "");
	free(names);
	return -1;
}

/* ---- foreach keys whose values are rows: tables, glob captures ---- */

/* A table read once per plan, however many keys name it. */
struct sheet_cache {
	char *path;   /* absolute, normalised */
	char *shown;  /* as messages name it */
	struct sheet sh;
	bool bad;     /* could not be read or parsed: reported */
};

static void
sheets_release(struct builder *b)
{
	for (size_t i = 0; i < b->sheets.n; i++) {
		free(b->sheets.v[i].path);
		free(b->sheets.v[i].shown);
	}
	VEC_FREE(b->sheets);
}

/* Push a foreach key's name on the scope, with its rows (or NULL). */
static void
push_name(struct builder *b, const char *name, const struct prows *rows)
{
	b->rows.n = b->names.n;
	VEC_PUSH(b->rows, rows);
	VEC_PUSH(b->names, name);
}

/* The rows of foreach key it, or NULL when its values are no rows. */
static const struct prows *
plan_rows(const struct plan *p, const struct wf_iter *it)
{
	uint64_t *v = hmap_get(&p->rows, (const char *)&it, sizeof(it));
	return v ? (const struct prows *)(uintptr_t)*v : NULL;
}

static void
set_rows(struct plan *p, const struct wf_iter *it, const struct prows *r)
{
	const struct wf_iter **key = arena_alloc(&p->dag.arena, sizeof(*key));
	int dup;
	*key = it;
	hmap_put(&p->rows, (const char *)key, sizeof(*key),
		 (uint64_t)(uintptr_t)r, &dup);
}

/* A value v[0..n) whose row's fields are fields. */
static const char *
row_value(struct arena *mem, const char *const *fields, const char *v,
	  size_t n)
{
	struct rowhead *h = arena_alloc(mem, sizeof(*h) + n + 1);
	char *s = (char *)(h + 1);
	h->fields = fields;
	memcpy(s, v, n);
	s[n] = '\0';
	return s;
}

/* full as the user knows it: relative to the current directory when it
 * is inside it. */
static char *
shown_path(const char *full)
{
	char *cwd = path_absolute(".");
	size_t n = strlen(cwd);
	char *r;
	if (n > 1 && !strncmp(full, cwd, n) && full[n] == '/')
		r = xstrdup(full + n + 1);
	else
		r = xstrdup(full);
	free(cwd);
	return r;
}

/* text of key it's table (what: "a table's path") with its vars put in,
 * into b->sb; -1 after an error at loc.  Foreach keys are refused: the
 * table is read once. */
static int
render_vars(struct builder *b, const struct wf_iter *it, const char *text,
	    struct wf_loc loc, const struct scope *sc, const char *owner,
	    const char *what)
{
	struct tmpl t;
	enum tmpl_where in = text == it->table->path ? IN_PATH : IN_EXPR;
	if (tmpl_compile(&t, text, sc, in, b->d, loc, owner) < 0)
		return -1;
	for (size_t i = 0; i < t.n; i++)
		if (t.v[i].kind != SEG_LIT && t.v[i].kind != SEG_VAR) {
			diag_error(b->d, loc, "foreach '%s' of %s: %s may use "
				   "vars, not foreach keys: the table is read "
				   "once, when the workflow is loaded", it->name,
				   owner, what);
			return -1;
		}
	strbuf_reset(&b->sb);
	render_raw(&b->sb, &t, NULL);
	return 0;
}

/* The path of key it's table, rendered (vars only) and absolute; NULL
 * after an error. */
static char *
table_path(struct builder *b, const struct wf_iter *it,
	   const struct scope *sc, const char *owner)
{
	if (render_vars(b, it, it->table->path, it->table->loc, sc, owner,
			"a table's path") < 0 || !b->p->wf->workdir)
		return NULL;
	char *j = path_join(b->p->wf->workdir, b->sb.buf);
	char *full = path_normalize(j);
	free(j);
	return full;
}

/* Is name[-n..] the end of path, after a dot? */
static bool
has_ext(const char *path, const char *ext)
{
	size_t pl = strlen(path), el = strlen(ext);
	return pl > el && !strcmp(path + pl - el, ext);
}

static void add_guard(struct builder *b, const char *file, const char *what,
		      bool tree);

/* Read and parse the table at full for key it (once per plan); NULL
 * after an error (reported once).  No task may write it: its rows were
 * taken before any ran. */
static const struct sheet_cache *
load_sheet(struct builder *b, const struct wf_iter *it, const char *owner,
	   char *full)
{
	for (size_t i = 0; i < b->sheets.n; i++)
		if (!strcmp(b->sheets.v[i].path, full)) {
			free(full);
			return b->sheets.v[i].bad ? NULL : &b->sheets.v[i];
		}
	struct sheet_cache sc = { full, shown_path(full), { 0 }, true };
	add_guard(b, full, "a table that a foreach reads", false);
	enum wf_table_format f = it->table->format;
	if (f == WF_TABLE_AUTO)
		f = has_ext(full, ".csv") ? WF_TABLE_CSV
		    : has_ext(full, ".tsv") || has_ext(full, ".tab") ? WF_TABLE_TSV
		    : WF_TABLE_AUTO;
	struct strbuf text = STRBUF_INIT;
	struct errbuf err;
	unsigned line = 0;
	if (f == WF_TABLE_AUTO)
		diag_error(b->d, it->table->loc, "foreach '%s' of %s: is %s a "
			   "TSV or a CSV table? Its name ends in neither .tsv, "
			   ".tab nor .csv; add format: tsv or format: csv",
			   it->name, owner, sc.shown);
	else if (read_bounded(full, READ_MAX_INPUT, &text, &err) < 0)
		diag_error(b->d, it->table->loc, "foreach '%s' of %s: cannot read "
			   "the table %s: %s (a table is read when the workflow "
			   "is loaded, before any task runs)", it->name, owner,
			   sc.shown, err.msg);
	else if (sheet_parse(&sc.sh, text.buf, text.len,
			     f == WF_TABLE_CSV ? SHEET_CSV : SHEET_TSV,
			     &b->p->dag.arena, &line, &err) < 0)
		diag_error_in(b->d, sc.shown, (struct wf_loc){ line, 0 },
			      "%s (the table of foreach '%s' of %s)", err.msg,
			      it->name, owner);
	else
		sc.bad = false;
	strbuf_release(&text);
	VEC_PUSH(b->sheets, sc);
	return sc.bad ? NULL : &b->sheets.v[b->sheets.n - 1];
}

/* The column named col of table t (role says who names it: "key"), or -1
 * after an error at loc naming the columns there are. */
static long
table_col(struct builder *b, const struct wf_iter *it, const char *owner,
	  const struct sheet_cache *t, const char *role, const char *col,
	  struct wf_loc loc)
{
	long c = sheet_column(&t->sh, col);
	if (c >= 0)
		return c;
	strbuf_reset(&b->msg);
	for (size_t i = 0; i < t->sh.ncols && i < 12; i++)
		strbuf_addf(&b->msg, "%s%s", i ? ", " : "", t->sh.cols[i]);
	if (t->sh.ncols > 12)
		strbuf_adds(&b->msg, ", ...");
	const char *like = closest_word(col, t->sh.cols, t->sh.ncols);
	diag_error(b->d, loc, "foreach '%s' of %s: %s column '%s': the table "
		   "%s has no such column (its header, line %u: %s)%s%s%s",
		   it->name, owner, role, col, t->shown, t->sh.header_line,
		   b->msg.buf, like ? "; did you mean '" : "", like ? like : "",
		   like ? "'?" : "");
	return -1;
}

/* A where of a table: its column, its values with their vars put in. */
struct where_at {
	long col;
	const char **vals;
	size_t n;
};

/* The wheres of key it's table t into w[]; -1 after an error. */
static int
table_wheres(struct builder *b, const struct wf_iter *it,
	     const struct scope *sc, const char *owner,
	     const struct sheet_cache *t, struct where_at *w)
{
	int err = 0;
	for (size_t i = 0; i < it->table->nwhere; i++) {
		const struct wf_where *wh = &it->table->where[i];
		w[i].col = table_col(b, it, owner, t, "where", wh->col, wh->loc);
		err |= w[i].col < 0;
		w[i].vals = arena_alloc(&b->p->dag.arena,
					(wh->nvals ? wh->nvals : 1) *
					sizeof(*w[i].vals));
		for (size_t j = 0; j < wh->nvals; j++) {
			if (render_vars(b, it, wh->vals[j], wh->loc, sc, owner,
					"a where value") < 0) {
				err = 1;
				continue;
			}
			w[i].vals[w[i].n++] = arena_strndup(&b->p->dag.arena,
							    b->sb.buf, b->sb.len);
		}
	}
	return err ? -1 : 0;
}

/* Does row r pass every where (nw of them)? */
static bool
row_kept(const struct sheet *sh, size_t r, const struct where_at *w,
	 size_t nw)
{
	for (size_t i = 0; i < nw; i++) {
		const char *v = sheet_cell(sh, r, (size_t)w[i].col);
		size_t j;
		for (j = 0; j < w[i].n; j++)
			if (!strcmp(v, w[i].vals[j]))
				break;
		if (j == w[i].n)
			return false;
	}
	return true;
}

/* The rows of t that key it takes, their keys checked: 0 or -1. */
static int
table_rows(struct builder *b, const struct wf_iter *it, const char *owner,
	   const struct sheet_cache *t, long key, const struct where_at *w,
	   struct prows *r)
{
	const struct sheet *sh = &t->sh;
	struct hmap seen;
	int bad = 0;
	hmap_init(&seen);
	r->keys = arena_alloc(&b->p->dag.arena,
			      (sh->nrows ? sh->nrows : 1) * sizeof(*r->keys));
	for (size_t i = 0; i < sh->nrows && !bad; i++) {
		if (!row_kept(sh, i, w, it->table->nwhere))
			continue;
		const char *k = sheet_cell(sh, i, (size_t)key);
		int dup = 0;
		uint64_t *first = hmap_put(&seen, k, strlen(k), sh->lines[i], &dup);
		struct wf_loc at = { sh->lines[i], 0 };
		if (!*k || dup) {
			strbuf_reset(&b->msg);
			if (*k) {
				char *vis = xvisible(k);
				strbuf_addf(&b->msg, "key '%s' (column '%s') is that "
					    "of line %u too", vis, sh->cols[key],
					    (unsigned)*first);
				free(vis);
			} else {
				strbuf_addf(&b->msg, "this row's key (column '%s') "
					    "is empty", sh->cols[key]);
			}
			diag_error_in(b->d, t->shown, at, "%s: foreach '%s' of %s "
				      "takes one row per key; give each row a key "
				      "of its own, drop a row, or name another "
				      "column with key:", b->msg.buf, it->name,
				      owner);
			bad = 1;
			continue;
		}
		r->keys[r->nrows++] = row_value(&b->p->dag.arena,
						sh->cells + i * sh->ncols, k,
						strlen(k));
	}
	hmap_release(&seen);
	return bad ? -1 : 0;
}

/* Read key it's table and take its rows; NULL after an error. */
static const struct prows *
compile_table(struct builder *b, const struct wf_iter *it,
	      const struct scope *sc, const char *owner, int *bad)
{
	const struct wf_table *wt = it->table;
	char *full = table_path(b, it, sc, owner);
	const struct sheet_cache *t = full ? load_sheet(b, it, owner, full)
					   : NULL;
	if (!t) {
		*bad = 1;
		return NULL;
	}
	long key = wt->key ? table_col(b, it, owner, t, "key", wt->key,
				       wt->key_loc)
			   : 0;
	struct where_at *w = xcalloc(wt->nwhere ? wt->nwhere : 1, sizeof(*w));
	int err = table_wheres(b, it, sc, owner, t, w) < 0 || key < 0;
	struct prows *r = arena_alloc(&b->p->dag.arena, sizeof(*r));
	memset(r, 0, sizeof(*r));
	r->cols = t->sh.cols;
	r->ncols = t->sh.ncols;
	strbuf_reset(&b->msg);
	strbuf_addf(&b->msg, "the table %s has no column", t->shown);
	r->what = arena_strndup(&b->p->dag.arena, b->msg.buf, b->msg.len);
	if (!err)
		err = table_rows(b, it, owner, t, key, w, r);
	free(w);
	if (err) {
		*bad = 1;
		return NULL;
	}
	set_rows(b->p, it, r);
	return r;
}

/* Is {name} (n bytes) in the glob pattern of key it a capture: the key's
 * own name, or a name that is no var and no foreach key in scope? */
static bool
is_capture(const struct scope *sc, const struct wf_iter *it,
	   const char *name, size_t n)
{
	if (memchr(name, '.', n))
		return false;
	if (strlen(it->name) == n && !memcmp(it->name, name, n))
		return true;
	for (size_t i = 0; i < sc->n; i++)
		if (strlen(sc->names[i]) == n && !memcmp(sc->names[i], name, n))
			return false;
	return !workflow_var(sc->wf, name, n);
}

/* Captures one glob pattern may hold. */
#define MAX_CAPTURES 16

/* The captures of glob pattern text: where each starts (at its '{') and
 * its name's length, into at[] and len[]; how many (MAX_CAPTURES + 1
 * when there are more). */
static size_t
find_captures(const struct scope *sc, const struct wf_iter *it,
	      const char *text, const char **at, size_t *len)
{
	size_t n = 0;
	for (const char *p = text; *p && n <= MAX_CAPTURES; p++) {
		if ((p[0] == '{' || p[0] == '}') && p[1] == p[0]) {
			p++;
			continue;
		}
		if (*p != '{')
			continue;
		const char *q = p + 1;
		while (name_char(*q))
			q++;
		if (*q == '}' && q > p + 1 &&
		    is_capture(sc, it, p + 1, (size_t)(q - p - 1))) {
			if (n < MAX_CAPTURES) {
				at[n] = p;
				len[n] = (size_t)(q - p - 1);
			}
			n++;
		}
	}
	return n;
}

/* The column of capture name[0..n) in r, added when new. */
static uint16_t
capture_col(struct prows *r, const char **cols, const char *name, size_t n)
{
	for (size_t j = 1; j < r->ncols; j++)
		if (strlen(cols[j]) == n && !memcmp(cols[j], name, n))
			return (uint16_t)j;
	cols[r->ncols] = xstrndup(name, n);
	return (uint16_t)r->ncols++;
}

/*
 * A glob pattern with captures ({name} that is no var and no outer key):
 * its pieces compiled, its columns ("path", then each name) into *out.
 * Returns false when the pattern has no capture (it is compiled as
 * before), true when it has (*out NULL after an error).
 */
static bool
glob_captures(struct builder *b, const struct wf_iter *it,
	      const struct scope *sc, const char *owner,
	      const struct prows **out, int *bad)
{
	const char *at[MAX_CAPTURES];
	size_t len[MAX_CAPTURES];
	size_t n = find_captures(sc, it, it->glob, at, len);
	*out = NULL;
	if (!n)
		return false;
	if (n > MAX_CAPTURES) {
		diag_error(b->d, it->loc, "foreach '%s' of %s: the glob pattern "
			   "has more than %d captures", it->name, owner,
			   MAX_CAPTURES);
		*bad = 1;
		return true;
	}
	struct arena *mem = &b->p->dag.arena;
	struct prows *r = arena_alloc(mem, sizeof(*r));
	const char *cols[MAX_CAPTURES + 1] = { "path" };
	memset(r, 0, sizeof(*r));
	r->ncols = 1;
	r->own = -1;
	r->npieces = n + 1;
	r->pieces = arena_alloc(mem, r->npieces * sizeof(*r->pieces));
	r->capcol = arena_alloc(mem, n * sizeof(*r->capcol));
	const char *from = it->glob;
	int err = 0;
	for (size_t i = 0; i <= n; i++) {
		const char *to = i < n ? at[i] : from + strlen(from);
		char *piece = arena_strndup(mem, from, (size_t)(to - from));
		err |= tmpl_compile(&r->pieces[i], piece, sc, IN_PATH, b->d,
				    it->loc, owner) < 0;
		if (i == n)
			break;
		if (len[i] == 4 && !memcmp(at[i] + 1, "path", 4)) {
			diag_error(b->d, it->loc, "foreach '%s' of %s: a glob "
				   "cannot capture {path}: {%s.path} is the whole "
				   "path; choose another name", it->name, owner,
				   it->name);
			err = 1;
		}
		r->capcol[i] = capture_col(r, cols, at[i] + 1, len[i]);
		from = at[i] + len[i] + 2;
	}
	const char **keep = arena_alloc(mem, r->ncols * sizeof(*keep));
	for (size_t j = 0; j < r->ncols; j++) {
		keep[j] = arena_strndup(mem, cols[j], strlen(cols[j]));
		if (j && !strcmp(cols[j], it->name))
			r->own = (long)j;
		if (j)
			free((char *)cols[j]);
	}
	r->cols = keep;
	strbuf_reset(&b->msg);
	strbuf_addf(&b->msg, "the glob '%s' captures no", it->glob);
	r->what = arena_strndup(mem, b->msg.buf, b->msg.len);
	if (err)
		*bad = 1;
	else
		set_rows(b->p, it, r);
	*out = err ? NULL : r;
	return true;
}

static void
compile_foreach(struct builder *b, const struct wf_foreach *fe,
		struct tmpl **lo, struct tmpl **hi, struct tmpl ***items,
		struct tmpl **glob, const char *owner, int *bad)
{
	*lo = *hi = *glob = NULL;
	*items = NULL;
	if (!fe->n)
		return; /* most tasks: nothing to allocate */
	*lo = xcalloc(fe->n ? fe->n : 1, sizeof(struct tmpl));
	*hi = xcalloc(fe->n ? fe->n : 1, sizeof(struct tmpl));
	*glob = xcalloc(fe->n ? fe->n : 1, sizeof(struct tmpl));
	*items = xcalloc(fe->n ? fe->n : 1, sizeof(struct tmpl *));
	for (size_t k = 0; k < fe->n; k++) {
		const struct wf_iter *it = &fe->v[k];
		struct scope sc = { b->p->wf, b->names.v, b->names.n, NULL,
				    &b->p->dag.arena, b->rows.v };
		const struct prows *rows = NULL;
		for (size_t j = 0; j < b->names.n; j++)
			if (!strcmp(b->names.v[j], it->name)) {
				diag_error(b->d, it->loc, "foreach key '%s' of %s is "
					   "already a foreach key around it; rename "
					   "it", it->name, owner);
				*bad = 1;
			}
		switch (it->kind) {
		case WF_ITER_RANGE:
			*bad |= tmpl_compile(&(*lo)[k], it->lo, &sc, IN_EXPR, b->d,
					     it->loc, owner) < 0;
			*bad |= tmpl_compile(&(*hi)[k], it->hi, &sc, IN_EXPR, b->d,
					     it->loc, owner) < 0;
			break;
		case WF_ITER_LIST:
			(*items)[k] = xcalloc(it->nitems ? it->nitems : 1,
					      sizeof(struct tmpl));
			for (size_t j = 0; j < it->nitems; j++)
				*bad |= tmpl_compile(&(*items)[k][j], it->items[j],
						     &sc, IN_EXPR, b->d,
						     it->item_locs[j], owner) < 0;
			break;
		case WF_ITER_GLOB:
			if (!glob_captures(b, it, &sc, owner, &rows, bad))
				*bad |= tmpl_compile(&(*glob)[k], it->glob, &sc,
						     IN_PATH, b->d, it->loc,
						     owner) < 0;
			break;
		case WF_ITER_TABLE:
			rows = compile_table(b, it, &sc, owner, bad);
			break;
		case WF_ITER_VAR:
			*bad |= foreach_var_check(b, it, owner) < 0;
			break;
		case WF_ITER_LINES:
			*bad |= tmpl_compile(&(*glob)[k], it->glob, &sc, IN_PATH,
					     b->d, it->loc, owner) < 0;
			break;
		}
		push_name(b, it->name, rows);
	}
}

static void
compile_data(struct builder *b, const struct wf_data *wd,
	     struct pdata *pd, const char *owner, int *bad)
{
	pd->kind = wd->kind;
	pd->depth = (uint32_t)wd->depth;
	if (wd->kind == WF_LIST) {
		size_t mark = b->names.n;
		struct plist *l = pd->list = xcalloc(1, sizeof(*pd->list));
		l->each = &wd->list->each;
		compile_foreach(b, &wd->list->each, &l->each_lo, &l->each_hi,
				&l->each_items, &l->each_glob, owner, bad);
		l->elem = xcalloc(1, sizeof(*l->elem));
		compile_data(b, &wd->list->elem, l->elem, owner, bad);
		b->names.n = mark;
		return;
	}
	if (!wd->path) {
		*bad = 1;
		return;
	}
	struct scope sc = { b->p->wf, b->names.v, b->names.n, NULL,
			    &b->p->dag.arena, b->rows.v };
	*bad |= tmpl_compile(&pd->path, wd->path, &sc, IN_PATH, b->d, wd->loc,
			     owner) < 0;
}

/* Each list collection releases the templates of its own foreach keys
 * (l->each), at every level of nesting. */
static void
pdata_release(struct pdata *pd)
{
	struct plist *l = pd->list;
	tmpl_release(&pd->path);
	if (!l)
		return;
	const struct wf_foreach *fe = l->each;
	if (l->elem) {
		pdata_release(l->elem);
		free(l->elem);
	}
	if (fe && l->each_lo) {
		for (size_t k = 0; k < fe->n; k++) {
			tmpl_release(&l->each_lo[k]);
			tmpl_release(&l->each_hi[k]);
			tmpl_release(&l->each_glob[k]);
			if (l->each_items[k]) {
				for (size_t j = 0; j < fe->v[k].nitems; j++)
					tmpl_release(&l->each_items[k][j]);
				free(l->each_items[k]);
			}
		}
	}
	free(l->each_lo);
	free(l->each_hi);
	free(l->each_glob);
	free(l->each_items);
	free(l);
	pd->list = NULL;
}

/* Shell words that must run through /bin/sh even when alone. */
static bool
shell_word(const char *w, size_t n)
{
	static const char *const words[] = {
		"!", ".", ":", "[", "alias", "bg", "break", "case", "cd",
		"command", "continue", "do", "done", "elif", "else", "esac",
		"eval", "exec", "exit", "export", "false", "fc", "fg", "fi",
		"for", "getopts", "hash", "if", "jobs", "kill", "local", "read",
		"readonly", "return", "set", "shift", "source", "test", "then",
		"times", "trap", "true", "type", "ulimit", "umask", "unalias",
		"unset", "until", "wait", "while",
	};
	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (strlen(words[i]) == n && !memcmp(words[i], w, n))
			return true;
	return false;
}

/* The program word w[0..n) as run finds it: a path as it is, else
 * searched on PATH once per plan (many tasks run one program); NULL when
 * not found. */
static const char *
find_exe(struct plan *p, const char *w, size_t n)
{
	uint64_t *slot = hmap_get(&p->exes, w, n);
	if (slot)
		return (const char *)(uintptr_t)*slot;
	const char *exe = NULL;
	if (memchr(w, '/', n)) {
		exe = arena_strndup(&p->dag.arena, w, n);
	} else {
		char *prog = xstrndup(w, n);
		char *found = path_search(prog);
		if (found)
			exe = arena_strndup(&p->dag.arena, found, strlen(found));
		free(found);
		free(prog);
	}
	int dup;
	hmap_put(&p->exes, arena_strndup(&p->dag.arena, w, n), n,
		 (uint64_t)(uintptr_t)exe, &dup);
	return exe;
}

/*
 * Decide whether run can be exec'd without a shell, as make does: literal
 * text of plain word characters and blanks only, a literal first word that
 * is no shell builtin or keyword and is found on PATH.
 */
static void
classify_run(struct plan *p, struct ptask *pt)
{
	const struct tmpl *t = &pt->run;
	pt->simple = false;
	for (size_t i = 0; i < t->n; i++) {
		if (t->v[i].kind != SEG_LIT)
			continue;
		for (size_t j = 0; j < t->v[i].len; j++) {
			unsigned char c = (unsigned char)t->v[i].s[j];
			if (!safe_char(c) && c != ' ' && c != '\t')
				return;
		}
	}
	if (!t->n || t->v[0].kind != SEG_LIT)
		return;
	const char *w = t->v[0].s, *end = w + t->v[0].len;
	while (w < end && (*w == ' ' || *w == '\t'))
		w++;
	const char *we = w;
	while (we < end && *we != ' ' && *we != '\t')
		we++;
	if (we == w || (we == end && t->n > 1))
		return; /* the first word holds a placeholder */
	if (shell_word(w, (size_t)(we - w)))
		return;
	for (size_t i = 0; i < pt->wt->nenv; i++)
		if (!strcmp(pt->wt->env[i].key, "PATH"))
			return;
	pt->exe = find_exe(p, w, (size_t)(we - w));
	pt->simple = pt->exe != NULL; /* else the shell says "not found" */
}

/* log: its two path templates, in the task's scope. */
static int
compile_log(struct builder *b, struct ptask *pt, const struct wf_task *wt,
	    const struct scope *sc, const char *owner)
{
	if (!wt->log)
		return 0;
	pt->log = xcalloc(2, sizeof(*pt->log));
	int bad = tmpl_compile(&pt->log[0], wt->log->out, sc, IN_PATH, b->d,
			       wt->log->loc, owner) < 0;
	bad |= tmpl_compile(&pt->log[1], wt->log->err, sc, IN_PATH, b->d,
			    wt->log->loc, owner) < 0;
	return bad ? -1 : 0;
}

static int
compile_task(struct builder *b, struct ptask *pt, const struct wf_task *wt)
{
	int bad = 0;
	char *owner = xasprintf("task '%s'", wt->name ? wt->name : "?");
	pt->wt = wt;
	pt->cores = wt->cores;
	b->names.n = 0;
	if (wt->foreach.n) {
		struct pforeach *f = pt->fe = xcalloc(1, sizeof(*pt->fe));
		compile_foreach(b, &wt->foreach, &f->lo, &f->hi, &f->items,
				&f->glob, owner, &bad);
	}
	size_t task_scope = b->names.n;
	pt->params = xcalloc(wt->nparams ? wt->nparams : 1, sizeof(*pt->params));
	for (size_t i = 0; i < wt->nparams; i++) {
		b->names.n = task_scope;
		compile_data(b, &wt->params[i].data, &pt->params[i], owner,
			     &bad);
	}
	b->names.n = task_scope;
	struct scope sc = { b->p->wf, b->names.v, b->names.n, wt,
			    &b->p->dag.arena, b->rows.v };
	if (wt->run) {
		bad |= tmpl_compile(&pt->run, wt->run, &sc, IN_RUN, b->d,
				    wt->run_loc, owner) < 0;
		if (!bad)
			classify_run(b->p, pt);
	}
	pt->env = wt->nenv ? xcalloc(wt->nenv, sizeof(*pt->env)) : NULL;
	for (size_t i = 0; i < wt->nenv; i++)
		bad |= tmpl_compile(&pt->env[i], wt->env[i].val, &sc, IN_ENV,
				    b->d, wt->env[i].loc, owner) < 0;
	bad |= compile_log(b, pt, wt, &sc, owner) < 0;
	free(owner);
	return bad ? -1 : 0;
}

/* ---- expansion ---- */

typedef void (*combo_fn)(struct builder *b, void *arg);

static const char *
intern_value(struct builder *b, const char *s, size_t n)
{
	return arena_strndup(&b->p->dag.arena, s, n);
}

static int
glob_values(struct builder *b, const struct wf_iter *it, const char *pattern,
	    const char *owner, struct strvec *out)
{
	const char *wd = b->p->wf->workdir;
	struct strbuf full = STRBUF_INIT;
	if (pattern[0] != '/') {
		for (const char *s = wd; *s; s++) {
			if (strchr("*?[]\\", *s))
				strbuf_addch(&full, '\\');
			strbuf_addch(&full, *s);
		}
		strbuf_addch(&full, '/');
	}
	strbuf_adds(&full, pattern);
	glob_t g;
	int r = glob(full.buf, 0, NULL, &g);
	strbuf_release(&full);
	if (r == GLOB_NOMATCH) {
		diag_error(b->d, it->loc, "foreach '%s' of %s: glob '%s' matches "
			   "no file under %s", it->name, owner, pattern, wd);
		return -1;
	}
	if (r) {
		diag_error(b->d, it->loc, "foreach '%s' of %s: glob '%s' failed: "
			   "%s", it->name, owner, pattern,
			   r == GLOB_NOSPACE ? "out of memory" : strerror(errno));
		return -1;
	}
	size_t skip = pattern[0] == '/' ? 0 : strlen(wd) + 1;
	if (!strcmp(wd, "/") && pattern[0] != '/')
		skip = 1;
	/* a glob's values are paths: never options (add_dot_slash) */
	for (size_t i = 0; i < g.gl_pathc; i++)
		VEC_PUSH(*out, g.gl_pathv[i][skip] == '-'
			 ? xasprintf("./%s", g.gl_pathv[i] + skip)
			 : xstrdup(g.gl_pathv[i] + skip));
	globfree(&g);
	return 0;
}

struct data_arg {
	const struct pdata *pd;
	uint32_t task;
	int mode;
	unsigned param;
	const char *owner;
	size_t nelem; /* elements of this list collection so far */
};

struct inst_arg {
	struct ptask *pt;
	uint32_t tmpl;
	const char *owner;
};

static void add_instance(struct builder *b, void *arg);
static void list_elem(struct builder *b, void *arg);

/* Stop expansion at a limit, reporting it once. */
static void
over_tasks(struct builder *b, struct wf_loc loc, const char *owner)
{
	if (!b->over)
		diag_error(b->d, loc, "%s: the workflow expands to more than %zu "
			   "task instances (wfrun's limit); narrow the foreach or "
			   "split the workflow", owner, b->lim.max_tasks);
	b->over = true;
}

static void
over_accesses(struct builder *b, struct wf_loc loc, const char *owner)
{
	if (!b->over)
		diag_error(b->d, loc, "%s: the workflow names more than %zu paths "
			   "in parameters (wfrun's limit); use fewer or larger "
			   "collections, or split the workflow", owner,
			   b->lim.max_accesses);
	b->over = true;
}

/* Instances and paths made so far: a step that leaves it unchanged made
 * nothing. */
static size_t
made(const struct builder *b)
{
	return b->p->dag.tasks.n + b->p->dag.acc.n;
}

/*
 * Values that make instances or paths are bounded by the limits above.
 * This bounds the others: an outer range of billions around an empty
 * inner one makes nothing, but would take hours to go through.  Called
 * after each value of a key that is not the innermost, with what was
 * made before it.
 */
static int
empty_step(struct builder *b, size_t before, const struct wf_iter *it,
	   const char *owner)
{
	if (made(b) != before || ++b->empty <= b->lim.max_empty)
		return 0;
	if (!b->over)
		diag_error(b->d, it->loc, "foreach '%s' of %s: more than %zu of its "
			   "values make nothing, because the keys inside it are "
			   "empty for them (wfrun's limit); narrow the range",
			   it->name, owner, b->lim.max_empty);
	b->over = true;
	return -1;
}

/* A walk over the combinations of a foreach (each_combo). */
struct combo {
	const struct wf_foreach *fe;
	struct tmpl *lo, *hi, **items, *glob;
	const char *owner;
	combo_fn fn;
	void *arg;
};

static int combo_at(struct builder *b, const struct combo *c, size_t k);

/* Bind key k to v (in the dag's arena) and walk the keys after it. */
static int
combo_bound(struct builder *b, const struct combo *c, size_t k,
	    const char *v)
{
	size_t before = made(b);
	VEC_PUSH(b->vals, v);
	int r = combo_at(b, c, k + 1);
	b->vals.n--;
	if (!r && k + 1 < c->fe->n)
		r = empty_step(b, before, &c->fe->v[k], c->owner);
	return r;
}

/* Bind key k to v[0..len) and walk the keys after it. */
static int
combo_value(struct builder *b, const struct combo *c, size_t k,
	    const char *v, size_t len)
{
	return combo_bound(b, c, k, intern_value(b, v, len));
}

/* A bound of range key k, rendered from t and evaluated into *v. */
static int
range_bound(struct builder *b, const struct combo *c, size_t k,
	    const struct tmpl *t, long long *v)
{
	const struct wf_iter *it = &c->fe->v[k];
	struct errbuf err;
	strbuf_reset(&b->sb);
	if (render_capped(&b->sb, t, b->vals.v) < 0) {
		diag_error(b->d, it->loc, "foreach '%s' of %s: range bound "
			   "longer than %d bytes", it->name, c->owner,
			   WF_MAX_VALUE);
		return -1;
	}
	if (eval_int(b->sb.buf, v, &err) < 0) {
		diag_error(b->d, it->loc, "foreach '%s' of %s: range bound '%s' "
			   "is not an integer expression (%s)", it->name,
			   c->owner, b->sb.buf, err.msg);
		return -1;
	}
	return 0;
}

/*
 * At the innermost key each value makes exactly one instance (or one
 * element path): a range of cnt values that alone passes a limit stops
 * before it is walked, "1..10000000000" must not first fill memory.
 */
static int
range_fits(struct builder *b, const struct combo *c, size_t k,
	   unsigned long long cnt)
{
	if (k + 1 != c->fe->n)
		return 0;
	if (c->fn == add_instance) {
		const struct inst_arg *ia = c->arg;
		if (cnt > b->lim.max_tasks - b->p->dag.tasks.n) {
			over_tasks(b, ia->pt->wt->loc, c->owner);
			return -1;
		}
	} else if (c->fn == list_elem) {
		const struct data_arg *da = c->arg;
		const struct wf_task *wt =
			b->p->pt[b->p->dag.tasks.v[da->task].tmpl].wt;
		if (da->pd->list->elem->kind != WF_LIST &&
		    cnt > b->lim.max_accesses - b->p->dag.acc.n) {
			over_accesses(b, wt->params[da->param].loc, c->owner);
			return -1;
		}
	}
	return 0;
}

static int
combo_range(struct builder *b, const struct combo *c, size_t k)
{
	long long a, z;
	if (range_bound(b, c, k, &c->lo[k], &a) < 0 ||
	    range_bound(b, c, k, &c->hi[k], &z) < 0)
		return -1;
	unsigned long long cnt = z < a ? 0 : (unsigned long long)z -
					      (unsigned long long)a + 1;
	if (z >= a && !cnt)
		cnt = ULLONG_MAX;
	if (range_fits(b, c, k, cnt) < 0)
		return -1;
	char num[32];
	for (long long v = a; v <= z; v++) {
		int n = snprintf(num, sizeof(num), "%lld", v);
		int r = combo_value(b, c, k, num, (size_t)n);
		if (r < 0 || v == LLONG_MAX)
			return r;
	}
	return 0;
}

static int
combo_list(struct builder *b, const struct combo *c, size_t k)
{
	const struct wf_iter *it = &c->fe->v[k];
	for (size_t j = 0; j < it->nitems; j++) {
		strbuf_reset(&b->sb);
		if (render_capped(&b->sb, &c->items[k][j], b->vals.v) < 0) {
			diag_error(b->d, it->item_locs[j], "foreach '%s' of %s: "
				   "a value longer than %d bytes", it->name,
				   c->owner, WF_MAX_VALUE);
			return -1;
		}
		if (combo_value(b, c, k, b->sb.buf, b->sb.len) < 0)
			return -1;
	}
	return 0;
}

static int
combo_table(struct builder *b, const struct combo *c, size_t k)
{
	const struct prows *r = plan_rows(b->p, &c->fe->v[k]);
	if (!r)
		BUG("a table foreach without its rows");
	if (range_fits(b, c, k, r->nrows) < 0)
		return -1;
	for (size_t i = 0; i < r->nrows; i++)
		if (combo_bound(b, c, k, r->keys[i]) < 0)
			return -1;
	return 0;
}

/* The end of the bracket expression at s[i] (its ']'), or 0 when the '['
 * opens none (glob(3) then takes it as itself). */
static size_t
bracket_end(const char *s, size_t i, size_t n)
{
	size_t j = i + 1;
	if (j < n && (s[j] == '!' || s[j] == '^'))
		j++;
	if (j < n && s[j] == ']')
		j++;
	while (j < n && s[j] != ']')
		j++;
	return j < n ? j : 0;
}

/* Glob pattern s[0..n) as a POSIX extended regex (a wildcard never
 * crosses a '/'), appended to re. */
static void
glob_to_re(struct strbuf *re, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		size_t e;
		if (ch == '*') {
			strbuf_adds(re, "[^/]*");
		} else if (ch == '?') {
			strbuf_adds(re, "[^/]");
		} else if (ch == '[' && (e = bracket_end(s, i, n))) {
			strbuf_addch(re, '[');
			if (s[i + 1] == '!' || s[i + 1] == '^') {
				strbuf_addch(re, '^');
				i++;
			}
			strbuf_add(re, s + i + 1, e - i);
			i = e;
		} else {
			if (ch == '\\' && i + 1 < n)
				ch = s[++i];
			if (strchr(".^$+(){}|[]*?\\", ch))
				strbuf_addch(re, '\\');
			strbuf_addch(re, ch);
		}
	}
}

/* The glob pattern (captures as '*') and the regex of key k with
 * captures r, rendered with the values bound; -1 after an error. */
static int
capture_pattern(struct builder *b, const struct combo *c, size_t k,
		const struct prows *r, struct strbuf *pat, regex_t *re)
{
	const struct wf_iter *it = &c->fe->v[k];
	struct strbuf rs = STRBUF_INIT;
	strbuf_addch(&rs, '^');
	for (size_t i = 0; i < r->npieces; i++) {
		size_t at = pat->len;
		if (render_capped(pat, &r->pieces[i], b->vals.v) < 0) {
			diag_error(b->d, it->loc, "foreach '%s' of %s: glob pattern "
				   "longer than %d bytes", it->name, c->owner,
				   WF_MAX_VALUE);
			strbuf_release(&rs);
			return -1;
		}
		glob_to_re(&rs, pat->buf + at, pat->len - at);
		if (i + 1 < r->npieces) {
			strbuf_addch(pat, '*');
			strbuf_adds(&rs, "([^/]+)");
		}
	}
	strbuf_addch(&rs, '$');
	int e = regcomp(re, rs.buf, REG_EXTENDED);
	strbuf_release(&rs);
	if (e)
		diag_error(b->d, it->loc, "foreach '%s' of %s: glob pattern '%s' "
			   "cannot be matched", it->name, c->owner, pat->buf);
	return e ? -1 : 0;
}

/* The fields of path (its captures m) as r's row, or NULL when a name
 * that appears twice captured two texts. */
static const char **
capture_row(struct builder *b, const struct prows *r, const char *path,
	    const char *s, const regmatch_t *m)
{
	struct arena *mem = &b->p->dag.arena;
	const char **f = arena_alloc(mem, r->ncols * sizeof(*f));
	memset(f, 0, r->ncols * sizeof(*f));
	f[0] = arena_strndup(mem, path, strlen(path));
	for (size_t i = 0; i + 1 < r->npieces; i++) {
		const char *v = s + m[i + 1].rm_so;
		size_t n = (size_t)(m[i + 1].rm_eo - m[i + 1].rm_so);
		const char **slot = &f[r->capcol[i]];
		if (*slot && (strlen(*slot) != n || memcmp(*slot, v, n)))
			return NULL;
		if (!*slot)
			*slot = arena_strndup(mem, v, n);
	}
	return f;
}

/*
 * The values of glob key k with captures r: one per distinct tuple of
 * captured texts, in the order of the first path giving it (paths sorted
 * as glob(3) sorts them); the value is the key's own capture, else the
 * path.
 */
static int
combo_captures(struct builder *b, const struct combo *c, size_t k,
	       const struct prows *r)
{
	const struct wf_iter *it = &c->fe->v[k];
	struct strbuf pat = STRBUF_INIT, tuple = STRBUF_INIT;
	struct strvec found = { 0 }, vals = { 0 };
	regex_t re;
	regmatch_t m[MAX_CAPTURES + 1];
	if (capture_pattern(b, c, k, r, &pat, &re) < 0) {
		strbuf_release(&pat);
		return -1;
	}
	int res = glob_values(b, it, pat.buf, c->owner, &found);
	struct hmap seen;
	hmap_init(&seen);
	for (size_t j = 0; !res && j < found.n; j++) {
		const char *s = found.v[j];
		if (!strncmp(s, "./", 2) && strncmp(pat.buf, "./", 2))
			s += 2;
		const char **f = regexec(&re, s, r->npieces, m, 0) ? NULL
			: capture_row(b, r, found.v[j], s, m);
		if (!f)
			continue;
		strbuf_reset(&tuple);
		for (size_t i = 1; i < r->ncols; i++)
			strbuf_add(&tuple, f[i], strlen(f[i]) + 1);
		int dup = 0;
		char *key = xstrndup(tuple.buf, tuple.len);
		hmap_put(&seen, key, tuple.len, 0, &dup);
		VEC_PUSH(vals, key);
		if (dup)
			continue;
		const char *v = r->own >= 0 ? f[r->own] : f[0];
		res = combo_bound(b, c, k, row_value(&b->p->dag.arena, f, v,
						     strlen(v)));
	}
	if (!res && !seen.n)
		diag_error(b->d, it->loc, "foreach '%s' of %s: glob '%s' matches "
			   "files, but none with every capture non-empty and a "
			   "name that appears twice capturing one text", it->name,
			   c->owner, it->glob);
	res = res || !seen.n ? -1 : 0;
	hmap_release(&seen);
	regfree(&re);
	for (size_t j = 0; j < found.n; j++)
		free(found.v[j]);
	for (size_t j = 0; j < vals.n; j++)
		free(vals.v[j]);
	VEC_FREE(found);
	VEC_FREE(vals);
	strbuf_release(&pat);
	strbuf_release(&tuple);
	return res;
}

static int
combo_glob(struct builder *b, const struct combo *c, size_t k)
{
	const struct wf_iter *it = &c->fe->v[k];
	struct strvec found = { 0 };
	const struct prows *rows = plan_rows(b->p, it);
	if (rows)
		return combo_captures(b, c, k, rows);
	strbuf_reset(&b->sb);
	if (render_capped(&b->sb, &c->glob[k], b->vals.v) < 0) {
		diag_error(b->d, it->loc, "foreach '%s' of %s: glob pattern "
			   "longer than %d bytes", it->name, c->owner,
			   WF_MAX_VALUE);
		return -1;
	}
	char *pat = xstrdup(b->sb.buf);
	int r = glob_values(b, it, pat, c->owner, &found);
	free(pat);
	for (size_t j = 0; !r && j < found.n; j++)
		r = combo_value(b, c, k, found.v[j], strlen(found.v[j]));
	for (size_t j = 0; j < found.n; j++)
		free(found.v[j]);
	VEC_FREE(found);
	return r;
}

/* The items of a list var, as they are (checked by foreach_var_check). */
static int
combo_var(struct builder *b, const struct combo *c, size_t k)
{
	const struct wf_iter *it = &c->fe->v[k];
	const struct workflow *wf = b->p->wf;
	const struct wf_var_ext *x =
		workflow_var_ext(wf, workflow_var(wf, it->var, strlen(it->var)));
	for (uint32_t j = 0; j < x->items_len;) {
		size_t n = strlen(x->items + j);
		if (combo_value(b, c, k, x->items + j, n) < 0)
			return -1;
		j += (uint32_t)n + 1;
	}
	return 0;
}

/* {lines: file}: each line of the file that is not empty is a value. */
static int
combo_lines(struct builder *b, const struct combo *c, size_t k)
{
	const struct wf_iter *it = &c->fe->v[k];
	strbuf_reset(&b->sb);
	if (render_capped(&b->sb, &c->glob[k], b->vals.v) < 0) {
		diag_error(b->d, it->loc, "foreach '%s' of %s: file name longer "
			   "than %d bytes", it->name, c->owner, WF_MAX_VALUE);
		return -1;
	}
	char *path = b->sb.buf[0] == '/' ? xstrdup(b->sb.buf)
					 : path_join(b->p->wf->workdir, b->sb.buf);
	struct strbuf text = STRBUF_INIT;
	struct errbuf err;
	int r = read_bounded(path, READ_MAX_INPUT, &text, &err) < 0 ? -1 : 0;
	if (r < 0)
		diag_error(b->d, it->loc, "foreach '%s' of %s: cannot read the "
			   "lines of '%s': %s", it->name, c->owner, b->sb.buf,
			   err.msg);
	for (char *s = text.buf, *e; !r && s < text.buf + text.len; s = e + 1) {
		e = memchr(s, '\n', (size_t)(text.buf + text.len - s));
		if (!e)
			e = text.buf + text.len;
		size_t n = (size_t)(e - s);
		if (n && s[n - 1] == '\r')
			n--;
		if (n > WF_MAX_VALUE) {
			diag_error(b->d, it->loc, "foreach '%s' of %s: a line of %s "
				   "longer than %d bytes", it->name, c->owner,
				   path, WF_MAX_VALUE);
			r = -1;
		} else if (n) {
			r = combo_value(b, c, k, s, n);
		}
	}
	strbuf_release(&text);
	free(path);
	return r;
}

/* Call c->fn for every combination of the keys c->fe->v[k..n). */
static int
combo_at(struct builder *b, const struct combo *c, size_t k)
{
	if (k == c->fe->n) {
		c->fn(b, c->arg);
		return b->over ? -1 : 0;
	}
	switch (c->fe->v[k].kind) {
	case WF_ITER_RANGE:
		return combo_range(b, c, k);
	case WF_ITER_LIST:
		return combo_list(b, c, k);
	case WF_ITER_GLOB:
		return combo_glob(b, c, k);
	case WF_ITER_VAR:
		return combo_var(b, c, k);
	case WF_ITER_TABLE:
		return combo_table(b, c, k);
	case WF_ITER_LINES:
		return combo_lines(b, c, k);
	}
	return 0;
}

/*
 * Call fn for every combination of the keys fe->v[k..n), pushing each
 * value onto b->vals.  Returns -1 after reporting an error.
 */
static int
each_combo(struct builder *b, const struct wf_foreach *fe, size_t k,
	   struct tmpl *lo, struct tmpl *hi, struct tmpl **items,
	   struct tmpl *glob, const char *owner, combo_fn fn, void *arg)
{
	const struct combo c = { fe, lo, hi, items, glob, owner, fn, arg };
	return combo_at(b, &c, k);
}

/* s[0..n) in a message: control bytes as C escapes, so a name holding a
 * newline cannot fake a second line of diagnostics. */
static void
add_escaped(struct strbuf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\n')
			strbuf_adds(out, "\\n");
		else if (c == '\t')
			strbuf_adds(out, "\\t");
		else if (c == '\\')
			strbuf_adds(out, "\\\\");
		else if (c < 0x20 || c == 0x7f)
			strbuf_addf(out, "\\x%02x", c);
		else
			strbuf_addch(out, (char)c);
	}
}

/* Why a collection element's name is not a safe path, or NULL. */
static const char *
unsafe_element(const char *s, size_t n, const char *norm)
{
	if (!n)
		return "it is empty";
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return "it contains a control character (a newline, a "
			       "tab, ...)";
	size_t e = n;
	while (e > 1 && s[e - 1] == '/')
		e--;
	size_t b = e;
	while (b > 0 && s[b - 1] != '/')
		b--;
	if ((e - b == 1 && s[b] == '.') ||
	    (e - b == 2 && s[b] == '.' && s[b + 1] == '.'))
		return "its last component is '.' or '..', so it names a "
		       "directory above the element, not an element";
	if (!strcmp(norm, ".") || !strcmp(norm, "/"))
		return "it names the workdir or the root itself";
	return NULL;
}

/* Does a normalised datum name (relative to the workdir, or absolute
 * when outside it) lie outside the workdir? */
static bool
escapes_workdir(const char *name, size_t n)
{
	if (name[0] == '/')
		return true;
	return name[0] == '.' && name[1] == '.' && (n == 2 || name[2] == '/');
}

struct scan_ctx {
	uint32_t task;
	unsigned param;
	const char *owner;
	bool reported;
};

/* Datum x is a symbolic link: each directory above it holds one. */
static void
mark_link(struct dag *g, uint32_t x)
{
	g->data.v[x].flags |= DATUM_LINK;
	for (uint32_t z = g->data.v[x].parent;
	     z != DAG_NONE && !(g->data.v[z].flags & DATUM_HOLDS_LINK);
	     z = g->data.v[z].parent)
		g->data.v[z].flags |= DATUM_HOLDS_LINK;
}

/* Read directory dir (a datum) from disk into the dag, to depth levels.
 * Names that are not safe paths are reported (once per scan) against the
 * parameter that reads the collection. */
static void
scan_dir(struct builder *b, uint32_t dir, unsigned depth, struct scan_ctx *sc)
{
	struct dag *g = &b->p->dag;
	if (g->data.v[dir].flags & DATUM_SCANNED)
		return;
	g->data.v[dir].flags |= DATUM_SCANNED;
	if (b->p->workdir_fd < 0 && g->data.v[dir].path[0] != '/')
		return;
	int fd = openat(b->p->workdir_fd, g->data.v[dir].path,
			O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	DIR *dp = fdopendir(fd);
	if (!dp) {
		close(fd);
		return;
	}
	struct dirent *de;
	struct strbuf path = STRBUF_INIT;
	VEC(uint32_t) subdirs = { 0 };
	while ((de = readdir(dp))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		strbuf_reset(&path);
		strbuf_add(&path, g->data.v[dir].path, g->data.v[dir].len);
		strbuf_addch(&path, '/');
		strbuf_adds(&path, de->d_name);
		const char *why = unsafe_element(path.buf, path.len, path.buf);
		if (why) {
			if (!sc->reported) {
				const struct wf_task *wt =
					&b->p->wf->tasks[g->tasks.v[sc->task].tmpl];
				strbuf_reset(&b->msg);
				add_escaped(&b->msg, de->d_name, strlen(de->d_name));
				diag_error(b->d, wt->params[sc->param].loc,
					   "%s: parameter '%s': the collection %s "
					   "holds '%s', which is not a safe path: %s; "
					   "rename it", sc->owner,
					   wt->params[sc->param].name,
					   g->data.v[dir].path, b->msg.buf, why);
			}
			sc->reported = true;
			b->p->pt[g->tasks.v[sc->task].tmpl].failed = true;
			continue;
		}
		uint32_t x = dag_intern(g, path.buf, path.len);
		g->data.v[x].flags |= DATUM_ON_DISK;
		if (de->d_type == DT_LNK)
			mark_link(g, x);
		if (depth > 1 && de->d_type == DT_DIR)
			VEC_PUSH(subdirs, x);
	}
	closedir(dp);
	strbuf_release(&path);
	for (size_t i = 0; i < subdirs.n; i++)
		scan_dir(b, subdirs.v[i], depth - 1, sc);
	VEC_FREE(subdirs);
}


static void expand_data(struct builder *b, const struct pdata *pd,
			uint32_t task, int mode, unsigned param,
			const char *owner, size_t elem);

static void
list_elem(struct builder *b, void *arg)
{
	struct data_arg *a = arg;
	expand_data(b, a->pd->list->elem, a->task, a->mode, a->param, a->owner,
		    ++a->nelem);
}

/* Report a path problem of one parameter once per task. */
static bool
first_report(struct builder *b, uint32_t task, unsigned param)
{
	struct ptask *pt = &b->p->pt[b->p->dag.tasks.v[task].tmpl];
	pt->failed = true;
	if (!pt->reported)
		pt->reported = xcalloc(pt->wt->nparams, sizeof(bool));
	if (pt->reported[param])
		return false;
	pt->reported[param] = true;
	return true;
}

/* One file, one datum: an absolute path norm[0..*n) inside the workdir is
 * named relative to it, as every relative path is. */
static const char *
in_workdir(const char *wd, const char *norm, size_t *n)
{
	size_t wl = strlen(wd);
	if (norm[0] == '/' && *n > wl && !strncmp(norm, wd, wl) &&
	    (norm[wl] == '/' || wl == 1)) {
		const char *name = norm + (wl == 1 ? 1 : wl + 1);
		*n -= (size_t)(name - norm);
		return name;
	}
	if (norm[0] == '/' && *n == wl && !strcmp(norm, wd)) {
		*n = 1;
		return ".";
	}
	return norm;
}

/* A relative name[0..*n) that leaves the workdir and comes back into it
 * ("../wd/x"): the name inside it ("x", malloc'd), so that both spellings
 * are one datum; else NULL. */
static char *
back_in(const struct builder *b, const char *name, size_t *n)
{
	if (!(name[0] == '.' && name[1] == '.' && (*n == 2 || name[2] == '/')))
		return NULL;
	char *rel = xstrndup(name, *n);
	char *j = path_join(b->p->wf->workdir, rel);
	char *abs = path_normalize(j);
	size_t m = strlen(abs);
	const char *in = in_workdir(b->p->wf->workdir, abs, &m);
	char *r = in[0] == '/' ? NULL : xstrndup(in, m);
	if (r)
		*n = m;
	free(abs);
	free(j);
	free(rel);
	return r;
}

/*
 * Whether the path name[0..n) (rendered in b->sb) of parameter param may
 * not be used: element elem (from 1; 0: not a list's) of a list that is
 * not a safe path, or a write outside the workdir that the task does not
 * allow.  Reported the first time.
 */
static bool
path_refused(struct builder *b, uint32_t task, unsigned param, int mode,
	     size_t elem, const char *name, size_t n)
{
	const struct wf_task *wt = b->p->pt[b->p->dag.tasks.v[task].tmpl].wt;
	const struct wf_param *prm = &wt->params[param];
	const char *why = elem ? unsafe_element(b->sb.buf, b->sb.len, name)
			       : NULL;
	bool outside = !why && (mode & DAG_WRITE) && !wt->allow_outside &&
		       escapes_workdir(name, n);
	if (!why && !outside)
		return false;
	if (!first_report(b, task, param))
		return true;
	struct strbuf label = STRBUF_INIT;
	plan_label(b->p, task, &label);
	if (why) {
		strbuf_reset(&b->msg);
		add_escaped(&b->msg, b->sb.buf, b->sb.len);
		diag_error(b->d, prm->loc, "task %s: list collection '%s.%s': "
			   "element %zu '%s' is not a safe path: %s", label.buf,
			   wf_access_name(prm->access), prm->name, elem,
			   b->msg.buf, why);
	} else {
		diag_error(b->d, prm->loc, "task %s: %s parameter '%s' writes "
			   "'%s', outside the workdir %s; add allow_outside: true "
			   "to the task if it is meant to", label.buf,
			   wf_access_name(prm->access), prm->name, name,
			   b->p->wf->workdir);
	}
	strbuf_release(&label);
	return true;
}

/* Expand one datum of a parameter; elem is its 1-based index in the list
 * collection it belongs to, 0 when it is not an element. */
static void
expand_data(struct builder *b, const struct pdata *pd, uint32_t task, int mode,
	    unsigned param, const char *owner, size_t elem)
{
	struct dag *g = &b->p->dag;
	const struct wf_task *wt = b->p->pt[g->tasks.v[task].tmpl].wt;
	const struct wf_param *prm = &wt->params[param];
	if (pd->kind == WF_LIST) {
		struct data_arg a = { pd, task, mode, param, owner, 0 };
		const struct plist *l = pd->list;
		if (each_combo(b, l->each, 0, l->each_lo, l->each_hi,
			       l->each_items, l->each_glob, owner, list_elem,
			       &a) < 0)
			b->p->pt[g->tasks.v[task].tmpl].failed = true;
		return;
	}
	if (g->acc.n >= b->lim.max_accesses) {
		over_accesses(b, prm->loc, owner);
		return;
	}
	strbuf_reset(&b->sb);
	if (render_capped(&b->sb, &pd->path, b->vals.v) < 0) {
		if (first_report(b, task, param))
			diag_error(b->d, pd->path.n ? prm->data.loc : prm->loc,
				   "%s: parameter '%s': a path longer than %d "
				   "bytes", owner, prm->name, WF_MAX_VALUE);
		return;
	}
	char *norm = xmalloc(b->sb.len + 2);
	size_t n = path_normalize_buf(b->sb.buf, b->sb.len, norm);
	const char *name = in_workdir(b->p->wf->workdir, norm, &n);
	char *back = back_in(b, name, &n);
	if (back)
		name = back;
	if (path_refused(b, task, param, mode, elem, name, n)) {
		free(back);
		free(norm);
		return;
	}
	uint32_t x = dag_intern(g, name, n);
	free(back);
	free(norm);
	bool is_dir = pd->kind == WF_DIR;
	if (is_dir && (mode & DAG_READ)) {
		struct scan_ctx sc = { task, param, owner, false };
		scan_dir(b, x, pd->depth, &sc);
	}
	dag_add_access(g, task, x, mode, is_dir, pd->depth, param);
}


/* ---- data never aliased ---- */

/* "out parameter 'o'" of access k of task t, into out. */
static void
param_name(const struct plan *p, uint32_t t, const struct dag_access *a,
	   struct strbuf *out)
{
	const struct wf_param *prm =
		&p->wf->tasks[p->dag.tasks.v[t].tmpl].params[a->param];
	strbuf_addf(out, "%s parameter '%s'", wf_access_name(prm->access),
		    prm->name);
}

/* Report one aliasing problem of access a of task t: "task L: P <why>". */
static void PRINTF(4, 5)
alias_error(struct builder *b, uint32_t t, const struct dag_access *a,
	    const char *fmt, ...)
{
	if (!first_report(b, t, a->param))
		return;
	struct strbuf why = STRBUF_INIT, label = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&why, fmt, ap);
	va_end(ap);
	plan_label(b->p, t, &label);
	strbuf_reset(&b->msg);
	param_name(b->p, t, a, &b->msg);
	const struct wf_param *prm =
		&b->p->wf->tasks[b->p->dag.tasks.v[t].tmpl].params[a->param];
	diag_error(b->d, prm->loc, "task %s: %s %s", label.buf, b->msg.buf,
		   why.buf);
	strbuf_release(&why);
	strbuf_release(&label);
}

/* Does the written datum name[0..n) hold the workdir (or is it)? */
static bool
holds_workdir(const struct builder *b, const char *name, size_t n)
{
	if (name[0] == '/') {
		const char *wd = b->p->wf->workdir;
		return !strncmp(wd, name, n) &&
		       (wd[n] == '/' || wd[n] == '\0' || n == 1);
	}
	for (size_t i = 0; i < n; i += 3)
		if (strncmp(name + i, "..", 2) || (i + 2 < n && name[i + 2] != '/'))
			return n == 1 && name[0] == '.';
	return true;
}

/* Which of wfrun's own files the written datum name[0..n) is, holds or
 * (for a tree) lies in; NULL when none. */
static const struct plan_file *
guarded(const struct plan *p, const char *name, size_t n)
{
	for (size_t i = 0; i < p->guard.n; i++) {
		const struct plan_file *f = &p->guard.v[i];
		size_t fl = strlen(f->path);
		size_t m = n < fl ? n : fl;
		if (strncmp(f->path, name, m))
			continue;
		if (n == fl || (n < fl && f->path[n] == '/') ||
		    (f->tree && n > fl && name[fl] == '/'))
			return f;
	}
	return NULL;
}

/* A directory collection that task t writes (and is the first to):
 * what is on disk there must be a directory the restore can put back. */
static void
check_dir_written(struct builder *b, uint32_t t, const struct dag_access *a)
{
	const struct dag *g = &b->p->dag;
	const struct dag_datum *x = &g->data.v[a->datum];
	struct stat st;
	uint32_t y = DAG_NONE;
	if (a->mode & DAG_READ)
		for (y = x->first_child; y != DAG_NONE;
		     y = dag_next_descendant(g, a->datum, y))
			if ((g->data.v[y].flags & DATUM_ON_DISK) &&
			    !fstatat(b->p->workdir_fd, g->data.v[y].path, &st,
				     AT_SYMLINK_NOFOLLOW) &&
			    S_ISREG(st.st_mode) && st.st_nlink > 1)
				break;
	if (y != DAG_NONE)
		alias_error(b, t, a, "writes the directory collection '%s', "
			    "which holds '%s', a file with other hard links: "
			    "restoring it after a failure would leave the "
			    "change under its other names", x->path,
			    g->data.v[y].path);
	else if (x->flags & DATUM_HOLDS_LINK)
		alias_error(b, t, a, "writes the directory collection '%s', "
			    "which holds symbolic links: restoring it after a "
			    "failure would miss what they point to", x->path);
	else if ((b->p->workdir_fd >= 0 || x->path[0] == '/') &&
		 !fstatat(b->p->workdir_fd, x->path, &st, AT_SYMLINK_NOFOLLOW)) {
		if (S_ISLNK(st.st_mode))
			alias_error(b, t, a, "writes the directory collection "
				    "'%s', which is a symbolic link: restoring "
				    "it after a failure would miss what it "
				    "points to; name the directory itself",
				    x->path);
		else if (!S_ISDIR(st.st_mode))
			alias_error(b, t, a, "is a directory collection, but "
				    "'%s' is an existing file, not a directory; "
				    "move it away or choose another path",
				    x->path);
	}
}

/* What task t writes: not wfrun's own, not the workdir, not a link the
 * restore would miss. */
static void
check_written(struct builder *b, uint32_t t, const struct dag_access *a)
{
	const struct dag_datum *x = &b->p->dag.data.v[a->datum];
	const struct plan_file *f;
	if (holds_workdir(b, x->path, x->len))
		alias_error(b, t, a, "writes '%s', which is the workdir %s%s; "
			    "write to paths inside it", x->path,
			    x->len == 1 && x->path[0] == '.' ? "" : "or holds ",
			    b->p->wf->workdir);
	else if ((f = guarded(b->p, x->path, x->len)) &&
		 strlen(f->path) == x->len)
		alias_error(b, t, a, "writes '%s', which is %s; choose another "
			    "path", x->path, f->what);
	else if (f)
		alias_error(b, t, a, "writes '%s', which %s %s (%s); choose "
			    "another path", x->path,
			    x->len < strlen(f->path) ? "holds" : "is inside",
			    f->what, f->path);
	else if (a->is_dir &&
		 dag_latest_writer(&b->p->dag, a->datum) == DAG_NONE)
		check_dir_written(b, t, a);
}

/* The check that no path task t writes is also read as something else by
 * it, is wfrun's own, is the workdir or a link the restore would miss.
 * Once per instance, before its edges: linear in its accesses. */
static void
check_alias(struct builder *b, uint32_t t)
{
	struct dag *g = &b->p->dag;
	const struct dag_task *dt = &g->tasks.v[t];
	const struct dag_access *a = dag_task_acc(g, dt);
	uint32_t i, j;
	if (dag_alias(g, t, &i, &j)) {
		struct strbuf other = STRBUF_INIT;
		const struct dag_datum *xi = &g->data.v[a[i].datum];
		const struct dag_datum *xj = &g->data.v[a[j].datum];
		if (a[i].param == a[j].param)
			alias_error(b, t, &a[j], "names '%s' twice, and writes "
				    "it", xj->path);
		else if (a[i].datum == a[j].datum) {
			param_name(b->p, t, &a[i], &other);
			alias_error(b, t, &a[j], "and its %s both name '%s', "
				    "which the task writes: a failure would lose "
				    "what was there; use one inout parameter, "
				    "or two paths", other.buf, xj->path);
		} else {
			param_name(b->p, t, &a[i], &other);
			alias_error(b, t, &a[j], "names '%s', inside '%s', the "
				    "directory collection of its %s, and one "
				    "of them is written; give them paths apart",
				    xj->path, xi->path, other.buf);
		}
		strbuf_release(&other);
	}
	for (uint32_t k = 0; k < dt->nacc; k++)
		if (a[k].mode & DAG_WRITE)
			check_written(b, t, &a[k]);
}

/* Is the datum name[0..n), or a directory collection above it, data of
 * the plan? */
static bool
is_data(const struct plan *p, const char *name, size_t n)
{
	if (dag_lookup(&p->dag, name, n) != DAG_NONE)
		return true;
	for (long l = path_parent_len(name, n); l > 0;
	     l = path_parent_len(name, (size_t)l)) {
		uint32_t x = dag_lookup(&p->dag, name, (size_t)l);
		if (x != DAG_NONE && (p->dag.data.v[x].flags & DATUM_COLLECTION))
			return true;
	}
	return false;
}

bool
plan_claims(const struct plan *p, const char *path, const char *self,
	    struct strbuf *why)
{
	char *abs = path_absolute(path);
	char *norm = path_normalize(abs);
	size_t n = strlen(norm);
	const char *name = in_workdir(p->wf->workdir, norm, &n);
	bool own = !strcmp(name, ".wfrun/trace.tsv") ||
		   !strcmp(name, ".wfrun/events.jsonl");
	for (size_t i = 0; i < p->guard.n && !own && !why->len; i++) {
		const struct plan_file *f = &p->guard.v[i];
		size_t fl = strlen(f->path);
		if (f->what == self)
			continue;
		if (!strcmp(name, f->path))
			strbuf_addf(why, "it is %s", f->what);
		else if (f->tree && n > fl && !strncmp(name, f->path, fl) &&
			 name[fl] == '/')
			strbuf_addf(why, "it is inside %s (%s)", f->what, f->path);
	}
	if (!why->len && !strcmp(name, "."))
		strbuf_addf(why, "it is the workdir");
	else if (!why->len && is_data(p, name, n))
		strbuf_addf(why, "it is data of the workflow (a task reads or "
			    "writes it)");
	free(norm);
	free(abs);
	return why->len > 0;
}

static void
add_instance(struct builder *b, void *arg)
{
	struct inst_arg *a = arg;
	struct dag *g = &b->p->dag;
	if (g->tasks.n >= b->lim.max_tasks) {
		over_tasks(b, a->pt->wt->loc, a->owner);
		return;
	}
	uint32_t t = dag_add_task(g, a->tmpl);
	size_t nkeys = a->pt->wt->foreach.n;
	for (size_t i = 0; i < nkeys; i++)
		dag_add_bind(g, b->vals.v[i]);
	const struct wf_task *wt = a->pt->wt;
	for (size_t i = 0; i < wt->nparams; i++) {
		int mode = wt->params[i].access == WF_IN	   ? DAG_READ
			   : wt->params[i].access == WF_OUT ? DAG_WRITE
							    : DAG_READ | DAG_WRITE;
		expand_data(b, &a->pt->params[i], t, mode, (unsigned)i, a->owner,
			    0);
	}
	check_alias(b, t);
	dag_seal_task(g, t);
	a->pt->ninst++;
}

/* Report inputs that neither exist nor are written by an earlier task. */
static void
check_inputs(struct builder *b)
{
	struct plan *p = b->p;
	struct dag *g = &p->dag;
	size_t *per_task = xcalloc(p->wf->ntasks ? p->wf->ntasks : 1,
				   sizeof(size_t));
	struct strbuf label = STRBUF_INIT;
	for (size_t i = b->inputs_from; i < g->inputs.n; i++) {
		const struct dag_input *in = &g->inputs.v[i];
		const struct dag_datum *x = &g->data.v[in->datum];
		if (x->flags & DATUM_ON_DISK)
			continue;
		struct stat st;
		int r;
		if (p->workdir_fd >= 0 || x->path[0] == '/') {
			r = fstatat(p->workdir_fd, x->path, &st, 0);
		} else {
			/* The run makes the workdir, but an input out of it
			 * ("../data/x") may exist already: resolve lexically. */
			char *j = path_join(p->wf->workdir, x->path);
			char *full = path_normalize(j);
			r = stat(full, &st);
			free(full);
			free(j);
		}
		if (!r)
			continue;
		uint32_t tmpl = g->tasks.v[in->task].tmpl;
		const struct wf_param *prm = &p->wf->tasks[tmpl].params[in->param];
		p->ninputs_missing++;
		if (per_task[tmpl]++ >= MAX_MISSING_PER_TASK)
			continue;
		strbuf_reset(&label);
		plan_label(p, in->task, &label);
		diag_error(b->d, prm->loc, "task %s: input '%s' (%s) does not "
			   "exist and no earlier task writes it", label.buf,
			   prm->name, x->path);
	}
	for (size_t i = 0; i < p->wf->ntasks; i++)
		if (per_task[i] > MAX_MISSING_PER_TASK)
			diag_error(b->d, p->wf->tasks[i].loc, "task '%s': %zu more "
				   "missing inputs not shown",
				   p->wf->tasks[i].name,
				   per_task[i] - MAX_MISSING_PER_TASK);
	strbuf_release(&label);
	free(per_task);
}

static void check_logs(struct builder *b);
static void expand_tasks(struct builder *b, size_t from, bool resumed);

static int build(struct plan *p, const struct workflow *wf,
		 struct diags *d, bool expand, const struct plan_limits *lim,
		 const char *const *files, const char *const *what,
		 size_t nfiles, const struct plan *like);

int
plan_build(struct plan *p, const struct workflow *wf, struct diags *d,
	   bool expand)
{
	struct plan_limits lim = { PLAN_MAX_TASKS, PLAN_MAX_ACCESSES,
				   PLAN_MAX_EMPTY };
	return plan_build_limited(p, wf, d, expand, &lim);
}

/* Guard file (relative to the current directory, or absolute). */
static void
add_guard(struct builder *b, const char *file, const char *what, bool tree)
{
	char *abs = path_absolute(file);
	char *norm = path_normalize(abs);
	size_t n = strlen(norm);
	const char *name = in_workdir(b->p->wf->workdir, norm, &n);
	struct plan_file f = { xstrndup(name, n), what, tree };
	VEC_PUSH(b->p->guard, f);
	free(norm);
	free(abs);
}

int
plan_build_limited(struct plan *p, const struct workflow *wf, struct diags *d,
		   bool expand, const struct plan_limits *lim)
{
	return build(p, wf, d, expand, lim, NULL, NULL, 0, NULL);
}

int
plan_build_guarded(struct plan *p, const struct workflow *wf,
		   struct diags *d, bool expand, const char *const *files,
		   const char *const *what, size_t n)
{
	struct plan_limits lim = { PLAN_MAX_TASKS, PLAN_MAX_ACCESSES,
				   PLAN_MAX_EMPTY };
	return build(p, wf, d, expand, &lim, files, what, n, NULL);
}

static void eager_setup(struct builder *b, const struct plan *like);
static int repeat_compile(struct builder *b);

static int
build(struct plan *p, const struct workflow *wf, struct diags *d,
      bool expand, const struct plan_limits *lim, const char *const *files,
      const char *const *what, size_t nfiles, const struct plan *like)
{
	memset(p, 0, sizeof(*p));
	p->wf = wf;
	dag_init(&p->dag);
	hmap_init(&p->exes);
	hmap_init(&p->rows);
	/* A file that stopped early (empty, not a mapping) has no workdir. */
	p->workdir_fd = wf->workdir ? open(wf->workdir, O_RDONLY | O_DIRECTORY |
					   O_CLOEXEC)
				    : -1;
	p->pt = xcalloc(wf->ntasks ? wf->ntasks : 1, sizeof(*p->pt));
	struct builder b;
	memset(&b, 0, sizeof(b));
	b.p = p;
	b.d = d;
	b.lim = *lim;
	strbuf_init(&b.sb);
	strbuf_init(&b.msg);
	if (wf->workdir) {
		struct plan_file own = { xstrdup(".wfrun"), "wfrun's own state",
					 true };
		VEC_PUSH(p->guard, own);
		if (wf->file)
			add_guard(&b, wf->file, "the workflow file", false);
		for (size_t i = 0; i < nfiles; i++)
			add_guard(&b, files[i], what[i], false);
	}
	if (like)
		eager_setup(&b, like);
	int bad = 0;
	for (size_t i = 0; i < wf->ntasks; i++) {
		if (compile_task(&b, &p->pt[i], &wf->tasks[i]) < 0)
			p->pt[i].failed = true;
		if (!wf->tasks[i].name || !wf->tasks[i].run)
			p->pt[i].failed = true;
		bad |= p->pt[i].failed;
	}
	p->lim = *lim;
	p->stage_from = (uint32_t)wf->ntasks;
	p->rep_at = -1;
	bad |= repeat_compile(&b);
	if (!bad && !d->nerrors && expand) {
		expand_tasks(&b, 0, false);
		if (!d->nerrors)
			check_inputs(&b);
		if (!d->nerrors)
			check_logs(&b);
	}
	p->dag.open = plan_pending(p);
	dag_finalize(&p->dag);
	strbuf_release(&b.sb);
	strbuf_release(&b.msg);
	VEC_FREE(b.names);
	VEC_FREE(b.vals);
	VEC_FREE(b.rows);
	sheets_release(&b);
	return d->nerrors ? -1 : 0;
}

void
plan_release(struct plan *p)
{
	if (!p->wf)
		return;
	for (size_t i = 0; i < p->wf->ntasks; i++) {
		struct ptask *pt = &p->pt[i];
		const struct wf_task *wt = &p->wf->tasks[i];
		tmpl_release(&pt->run);
		if (pt->env)
			for (size_t j = 0; j < wt->nenv; j++)
				tmpl_release(&pt->env[j]);
		free(pt->env);
		free(pt->log);
		if (pt->params)
			for (size_t j = 0; j < wt->nparams; j++)
				pdata_release(&pt->params[j]);
		free(pt->params);
		struct pforeach *f = pt->fe;
		for (size_t k = 0; f && k < wt->foreach.n; k++)
			free(f->items[k]); /* segments: in the arena */
		if (f) {
			free(f->lo);
			free(f->hi);
			free(f->glob);
			free(f->items);
			free(f);
		}
		free(pt->reported);
	}
	free(p->pt);
	for (size_t i = 0; i < p->guard.n; i++)
		free(p->guard.v[i].path);
	VEC_FREE(p->guard);
	hmap_release(&p->exes);
	hmap_release(&p->rows);
	VEC_FREE(p->stage_writers);
	VEC_FREE(p->eager_writers);
	free(p->reps);
	dag_release(&p->dag);
	if (p->workdir_fd >= 0)
		close(p->workdir_fd);
	memset(p, 0, sizeof(*p));
}

/* ---- staged expansion: a foreach over what an earlier task writes ---- */

/* A template of literal text and vars only: rendered before any instance. */
static bool
tmpl_static(const struct tmpl *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].kind == SEG_BIND || t->v[i].kind == SEG_PARAM)
			return false;
	return true;
}

/* Does path (a datum's name) match the glob pat, or hold paths it may
 * match (pat cut to as many components as path has)? */
static bool
glob_reaches(const char *pat, const char *path)
{
	size_t comps = 1, k = 0;
	for (const char *s = path; *s; s++)
		comps += *s == '/';
	const char *e = pat;
	for (; *e; e++)
		if (*e == '/' && ++k == comps)
			break;
	char *pre = xstrndup(pat, (size_t)(e - pat));
	bool m = !fnmatch(pre, path, FNM_PATHNAME | FNM_PERIOD);
	free(pre);
	return m;
}

/* Is datum y a file (not a collection) there now?  A glob sees it
 * already, whatever a task does to it. */
static bool
file_there(const struct plan *p, uint32_t y)
{
	const struct dag_datum *x = &p->dag.data.v[y];
	struct stat st;
	if (x->flags & DATUM_COLLECTION)
		return false;
	if (p->workdir_fd < 0 && x->path[0] != '/')
		return false;
	return !fstatat(p->workdir_fd, x->path, &st, 0) && S_ISREG(st.st_mode);
}

/* The tasks from base on that write what the glob pat (normalised,
 * named as data are) may match and is not there now, or a directory
 * above it, onto *out: the last writer of each such datum (an earlier
 * one is its predecessor).  *dl: the length of pat's directory before
 * its first wildcard. */
static void
glob_writers(const struct plan *p, const char *pat, uint32_t base, size_t *dl,
	     struct plan_writers *out)
{
	const struct dag *g = &p->dag;
	size_t n = strcspn(pat, "*?[");
	while (n > 0 && pat[n - 1] != '/')
		n--;
	*dl = n ? n - 1 : 0;
	uint32_t x = DAG_NONE;
	for (size_t l = *dl; l > 0 && x == DAG_NONE; l--)
		if (l == *dl || pat[l] == '/')
			x = dag_lookup(g, pat, l);
	for (uint32_t z = x; z != DAG_NONE; z = g->data.v[z].parent)
		if (g->data.v[z].writer != DAG_NONE &&
		    g->data.v[z].writer >= base)
			VEC_PUSH(*out, g->data.v[z].writer);
	if (x != DAG_NONE && g->data.v[x].len != *dl)
		return; /* the directory itself is not known */
	/* in the workdir's top directory, any datum may match */
	uint32_t y = x == DAG_NONE ? 0 : g->data.v[x].first_child;
	for (; y != DAG_NONE && y < g->data.n;
	     y = x == DAG_NONE ? y + 1 : dag_next_descendant(g, x, y)) {
		uint32_t w = g->data.v[y].writer;
		if (w != DAG_NONE && w >= base &&
		    glob_reaches(pat, g->data.v[y].path) && !file_there(p, y))
			VEC_PUSH(*out, w);
	}
}

/* {lines: file}: the task from base on that writes the file (or a
 * directory holding it) last, onto *out: its lines are its. */
static void
file_writer(const struct dag *g, const char *name, size_t n, uint32_t base,
	    struct plan_writers *out)
{
	uint32_t x = DAG_NONE;
	for (size_t l = n; l > 0 && x == DAG_NONE; l--)
		if (l == n || name[l] == '/')
			x = dag_lookup(g, name, l);
	uint32_t w = x == DAG_NONE ? DAG_NONE : dag_latest_writer(g, x);
	if (w != DAG_NONE && w >= base)
		VEC_PUSH(*out, w);
}

/* The glob of a pattern with captures, each capture a '*', into b->sb;
 * -1 when a piece uses a foreach key (then it is not looked at). */
static int
capture_glob(struct builder *b, const struct prows *rows)
{
	strbuf_reset(&b->sb);
	for (size_t i = 0; i < rows->npieces; i++) {
		if (!tmpl_static(&rows->pieces[i]))
			return -1;
		if (i)
			strbuf_addch(&b->sb, '*');
		struct strbuf piece = STRBUF_INIT;
		int r = render_capped(&piece, &rows->pieces[i], NULL);
		strbuf_add(&b->sb, piece.buf, piece.len);
		strbuf_release(&piece);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* The writers of what the glob keys of fe (compiled as glob[]) may
 * match, or of the files its lines keys read, from base on, onto
 * p->stage_writers; *dir: what the first found writes. */
static void
keys_writers(struct builder *b, const struct wf_foreach *fe,
	     const struct tmpl *glob, uint32_t base, const char **dir)
{
	struct plan *p = b->p;
	for (size_t k = 0; glob && k < fe->n; k++) {
		bool lines = fe->v[k].kind == WF_ITER_LINES;
		const struct prows *rows = plan_rows(p, &fe->v[k]);
		if (fe->v[k].kind == WF_ITER_GLOB && rows && rows->pieces) {
			if (capture_glob(b, rows) < 0)
				continue;
		} else if ((fe->v[k].kind != WF_ITER_GLOB && !lines) ||
			   !tmpl_static(&glob[k])) {
			continue;
		} else {
			strbuf_reset(&b->sb);
			if (render_capped(&b->sb, &glob[k], NULL) < 0)
				continue;
		}
		char *norm = xmalloc(b->sb.len + 2);
		size_t n = path_normalize_buf(b->sb.buf, b->sb.len, norm);
		const char *name = in_workdir(p->wf->workdir, norm, &n);
		char *pat = xstrndup(name, n);
		size_t dl = 0, had = p->stage_writers.n;
		if (lines)
			file_writer(&p->dag, pat, n, base, &p->stage_writers);
		else
			glob_writers(p, pat, base, &dl, &p->stage_writers);
		if (p->stage_writers.n > had && !*dir)
			*dir = arena_strndup(&p->dag.arena, pat, dl ? dl : n);
		free(pat);
		free(norm);
	}
}

/* The same for the globs of a list collection (and the lists it nests). */
static void
list_writers(struct builder *b, const struct pdata *pd, uint32_t base,
	     const char **dir)
{
	for (; pd && pd->kind == WF_LIST; pd = pd->list->elem)
		keys_writers(b, pd->list->each, pd->list->each_glob, base, dir);
}

/* Must task i wait for tasks from base on to write what it globs?  Then
 * the plan says which (stage_writers) and why (stage_writer, stage_dir). */
static bool
deferred(struct builder *b, size_t i, uint32_t base)
{
	struct plan *p = b->p;
	const struct ptask *pt = &p->pt[i];
	const char *dir = NULL;
	p->stage_writers.n = 0;
	if (pt->fe)
		keys_writers(b, &pt->wt->foreach, pt->fe->glob, base, &dir);
	for (size_t k = 0; k < pt->wt->nparams; k++)
		list_writers(b, &pt->params[k], base, &dir);
	if (!p->stage_writers.n)
		return false;
	if (b->eager) {
		for (size_t k = 0; k < p->stage_writers.n; k++)
			VEC_PUSH(p->eager_writers, p->stage_writers.v[k]);
		p->stage_writers.n = 0;
		return false;
	}
	p->stage_writer = p->stage_writers.v[0];
	p->stage_dir = dir;
	return true;
}

/* Expand template i into the dag; lo and hi (NULL: its own) are the
 * bounds of its range keys. */
static void
expand_template(struct builder *b, size_t i, struct tmpl *lo,
		struct tmpl *hi)
{
	const struct workflow *wf = b->p->wf;
	struct ptask *pt = &b->p->pt[i];
	char *owner = xasprintf("task '%s'", wf->tasks[i].name);
	struct inst_arg a = { pt, (uint32_t)i, owner };
	b->vals.n = 0;
	const struct pforeach none = { 0 };
	const struct pforeach *f = pt->fe ? pt->fe : &none;
	if (each_combo(b, &wf->tasks[i].foreach, 0, lo ? lo : f->lo,
		       hi ? hi : f->hi, f->items, f->glob, owner, add_instance,
		       &a) < 0)
		pt->failed = true;
	else if (!pt->ninst)
		diag_warning(b->d, wf->tasks[i].loc, "task '%s' has no "
			     "instances: its foreach is empty",
			     wf->tasks[i].name);
	free(owner);
}

static bool repeat_start(struct builder *b, const struct wf_repeat *r);

/* Expand the tasks from template from on, in program order, into the
 * dag, up to the first one deferred (a resumed stage's first task is
 * not: what it globs is on disk now). */
static void
expand_tasks(struct builder *b, size_t from, bool resumed)
{
	struct plan *p = b->p;
	const struct workflow *wf = p->wf;
	uint32_t base = (uint32_t)p->dag.tasks.n;
	p->stage_from = (uint32_t)wf->ntasks;
	for (size_t i = from; i < wf->ntasks && !b->over; i++) {
		if (!(resumed && i == from) && deferred(b, i, base)) {
			p->stage_from = (uint32_t)i;
			return;
		}
		const struct wf_repeat *r = workflow_repeat_of(wf, i);
		if (r) {
			if (repeat_start(b, r))
				return;
			i = r->to - 1;
			continue;
		}
		expand_template(b, i, NULL, NULL);
	}
}

static void repeat_next(struct builder *b);

int
plan_expand_stage(struct plan *p, struct diags *d)
{
	if (!plan_pending(p))
		BUG("no stage to expand");
	struct builder b;
	memset(&b, 0, sizeof(b));
	b.p = p;
	b.d = d;
	b.lim = p->lim;
	strbuf_init(&b.sb);
	strbuf_init(&b.msg);
	b.inputs_from = p->dag.inputs.n;
	uint32_t first = (uint32_t)p->dag.tasks.n;
	size_t errs = d->nerrors;
	if (p->workdir_fd < 0) /* made by the run since */
		p->workdir_fd = open(p->wf->workdir, O_RDONLY | O_DIRECTORY |
				     O_CLOEXEC);
	if (p->rep_at >= 0)
		repeat_next(&b);
	else
		expand_tasks(&b, p->stage_from, true);
	if (d->nerrors == errs)
		check_inputs(&b);
	dag_extend(&p->dag, first);
	if (!plan_pending(p))
		dag_close(&p->dag);
	strbuf_release(&b.sb);
	strbuf_release(&b.msg);
	VEC_FREE(b.vals);
	return d->nerrors > errs ? -1 : 0;
}

int
plan_next_stage(struct plan *p, FILE *fp)
{
	struct diags d;
	diags_init(&d, p->wf->file);
	int bad = plan_expand_stage(p, &d);
	diags_print(&d, fp);
	diags_release(&d);
	return bad;
}

/* Take like's guarded files (named as data are: the current directory
 * may not be the one like was built in), and expand eagerly. */
static void
eager_setup(struct builder *b, const struct plan *like)
{
	struct plan *p = b->p;
	for (size_t i = 0; i < p->guard.n; i++)
		free(p->guard.v[i].path);
	p->guard.n = 0;
	for (size_t i = 0; i < like->guard.n; i++) {
		struct plan_file f = like->guard.v[i];
		f.path = xstrdup(f.path);
		VEC_PUSH(p->guard, f);
	}
	b->eager = true;
}

int
plan_build_eager(struct plan *q, const struct plan *p, struct diags *d)
{
	return build(q, p->wf, d, true, &p->lim, NULL, NULL, 0, p);
}

static char *repeat_why(const struct plan *p);

char *
plan_pending_why(const struct plan *p)
{
	if (p->rep_at >= 0)
		return repeat_why(p);
	struct strbuf out = STRBUF_INIT;
	strbuf_adds(&out, "expanded after ");
	plan_label(p, p->stage_writer, &out);
	strbuf_addf(&out, " writes %s", p->stage_dir);
	char *v = xvisible(out.buf);
	strbuf_release(&out);
	return v;
}

/* ---- repeat blocks (wfrun-workflow(5), REPEAT) ---- */

/* Compile each block's until command, with iter and prev in scope. */
static int
repeat_compile(struct builder *b)
{
	struct plan *p = b->p;
	const struct workflow *wf = p->wf;
	static const char *keys[] = { "iter", "prev" };
	int bad = 0;
	p->reps = xcalloc(wf->nrepeats ? wf->nrepeats : 1, sizeof(*p->reps));
	for (size_t i = 0; i < wf->nrepeats; i++) {
		const struct wf_repeat *r = &wf->repeats[i];
		struct scope sc = { wf, keys, 2, NULL, &p->dag.arena, NULL };
		if (r->until)
			bad |= tmpl_compile(&p->reps[i].until, r->until, &sc,
					    IN_RUN, b->d, r->until_loc,
					    "the repeat block's until") < 0;
	}
	return bad;
}

/* "the repeat block of 'a', 'b'" onto out. */
static void
repeat_name(const struct plan *p, const struct wf_repeat *r,
	    struct strbuf *out)
{
	strbuf_adds(out, "the repeat block of ");
	for (size_t i = r->from; i < r->to; i++)
		strbuf_addf(out, "%s'%s'", i > r->from ? ", " : "",
			    p->wf->tasks[i].name);
}

/* Expand iteration k of block ri: its instances become the stage
 * writers (and, eager, eager writers). */
static void
repeat_expand(struct builder *b, size_t ri, uint32_t k)
{
	struct plan *p = b->p;
	const struct wf_repeat *r = &p->wf->repeats[ri];
	char num[2][24];
	snprintf(num[0], sizeof(num[0]), "%u", k);
	snprintf(num[1], sizeof(num[1]), "%u", k - 1);
	struct scope sc = { p->wf, NULL, 0, NULL, &p->dag.arena, NULL };
	uint32_t first = (uint32_t)p->dag.tasks.n;
	for (size_t i = r->from; i < r->to && !b->over; i++) {
		const struct pforeach *f = p->pt[i].fe;
		size_t n = p->wf->tasks[i].foreach.n;
		struct tmpl *lo = xmalloc(n * sizeof(*lo));
		struct tmpl *hi = xmalloc(n * sizeof(*hi));
		memcpy(lo, f->lo, n * sizeof(*lo));
		memcpy(hi, f->hi, n * sizeof(*hi));
		for (size_t j = 0; j < 2; j++) {
			const char *t = arena_strndup(&p->dag.arena, num[j],
						      strlen(num[j]));
			tmpl_compile(&lo[j], t, &sc, IN_EXPR, b->d, r->loc,
				     "a repeat block");
			hi[j] = lo[j];
		}
		expand_template(b, i, lo, hi);
		free(lo);
		free(hi);
	}
	p->reps[ri].iters = k;
	p->stage_writers.n = 0;
	for (uint32_t t = first; t < p->dag.tasks.n; t++) {
		VEC_PUSH(p->stage_writers, t);
		if (b->eager)
			VEC_PUSH(p->eager_writers, t);
	}
}

/* Run block ri's until command for iteration k in the workdir: its exit
 * status (128 + N when killed by signal N), -1 when it could not start.
 * Its output goes to stderr, or nowhere when quiet. */
static int
until_render(const struct plan *p, size_t ri, uint32_t k, struct strbuf *cmd)
{
	char num[2][24];
	snprintf(num[0], sizeof(num[0]), "%u", k);
	snprintf(num[1], sizeof(num[1]), "%u", k - 1);
	const char *vals[2] = { num[0], num[1] };
	return render_capped(cmd, &p->reps[ri].until, vals);
}

int
plan_until_command(const struct plan *p, struct strbuf *cmd)
{
	if (!plan_pending(p) || p->rep_at < 0 || p->until_known)
		return 0;
	size_t ri = (size_t)p->rep_at;
	return until_render(p, ri, p->reps[ri].iters, cmd) < 0 ? 0 : 1;
}

void
plan_until_status(struct plan *p, int status)
{
	p->until_known = true;
	p->until_st = status;
}

static int
until_status(struct plan *p, size_t ri, uint32_t k, bool quiet)
{
	if (p->until_known) { /* plan_until_status */
		p->until_known = false;
		return p->until_st;
	}
	struct strbuf cmd = STRBUF_INIT;
	if (until_render(p, ri, k, &cmd) < 0) {
		strbuf_release(&cmd);
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (p->workdir_fd >= 0 && fchdir(p->workdir_fd) < 0)
			_exit(126);
		int nul = open("/dev/null", O_RDWR);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(quiet ? nul : 2, 1);
			if (quiet)
				dup2(nul, 2);
		}
		execl("/bin/sh", "sh", "-c", cmd.buf, (char *)NULL);
		_exit(127);
	}
	strbuf_release(&cmd);
	int status = 0;
	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* After iteration k of block ri: true to run it again.  Says how the
 * block ended (quietly when eager) or why its until failed (an error). */
static bool
repeat_again(struct builder *b, size_t ri, uint32_t k)
{
	struct plan *p = b->p;
	const struct wf_repeat *r = &p->wf->repeats[ri];
	int st = until_status(p, ri, k, b->eager);
	if (st == 1 && (long)k < r->max)
		return true;
	struct strbuf name = STRBUF_INIT;
	repeat_name(p, r, &name);
	if (st == 0) {
		p->reps[ri].end = REPEAT_CONVERGED;
		if (!b->eager)
			info_msg("%s converged after %u iteration%s", name.buf,
				 k, k == 1 ? "" : "s");
	} else if (st == 1) {
		p->reps[ri].end = REPEAT_MAX;
		diag_warning(b->d, r->loc, "%s did not converge in %ld "
			     "iterations (its max): going on with what the "
			     "last one wrote", name.buf, r->max);
	} else {
		char why[40] = "could not run";
		if (st >= 0)
			snprintf(why, sizeof(why), "exited with %d", st);
		diag_error(b->d, r->until_loc, "%s: its until command %s after "
			   "iteration %u (0 says converged, 1 go on)", name.buf,
			   why, k);
	}
	strbuf_release(&name);
	return false;
}

/* Eager: did the iteration just expanded (the stage writers) leave all
 * its outputs on the disk?  Only then can its until command say
 * anything of it: before it ever ran, that command would only fail, and
 * cost its time at every start (the run asks it again when the
 * iteration has run). */
static bool
iteration_on_disk(const struct plan *p)
{
	const struct dag *g = &p->dag;
	struct stat st;
	for (size_t i = 0; i < p->stage_writers.n; i++) {
		const struct dag_task *t = &g->tasks.v[p->stage_writers.v[i]];
		for (uint32_t k = 0; k < t->nacc; k++) {
			const struct dag_access *a = &g->acc.v[t->acc + k];
			if ((a->mode & DAG_WRITE) &&
			    fstatat(p->workdir_fd, g->data.v[a->datum].path,
				    &st, 0) < 0)
				return false;
		}
	}
	return true;
}

/* Start block r at its first task: iteration 1, then (staged) wait for
 * it, true; or (eager) every iteration the disk says ran, false. */
static bool
repeat_start(struct builder *b, const struct wf_repeat *r)
{
	struct plan *p = b->p;
	size_t ri = (size_t)(r - p->wf->repeats);
	uint32_t k = 1;
	repeat_expand(b, ri, k);
	if (!b->eager) {
		p->stage_from = (uint32_t)r->from;
		p->rep_at = (int)ri;
		p->stage_writer = p->stage_writers.n ? p->stage_writers.v[0] : 0;
		return true;
	}
	size_t errs = b->d->nerrors;
	while (!b->over && iteration_on_disk(p) && repeat_again(b, ri, k))
		repeat_expand(b, ri, ++k);
	if (b->d->nerrors > errs)
		b->over = true;
	p->stage_writers.n = 0;
	return false;
}

/* The pending stage is block rep_at's last iteration done: run the next
 * one, or go past the block. */
static void
repeat_next(struct builder *b)
{
	struct plan *p = b->p;
	size_t ri = (size_t)p->rep_at;
	const struct wf_repeat *r = &p->wf->repeats[ri];
	uint32_t k = p->reps[ri].iters;
	size_t errs = b->d->nerrors;
	if (repeat_again(b, ri, k)) {
		repeat_expand(b, ri, k + 1);
		return;
	}
	if (b->d->nerrors > errs)
		return; /* still pending: nothing after it runs */
	p->rep_at = -1;
	p->stage_writers.n = 0;
	expand_tasks(b, r->to, false);
}

static char *
repeat_why(const struct plan *p)
{
	const struct wf_repeat *r = &p->wf->repeats[p->rep_at];
	struct strbuf out = STRBUF_INIT;
	strbuf_addf(&out, "repeated until `%s` exits 0, at most %ld times "
		    "(iteration %u expanded)", r->until ? r->until : "", r->max,
		    p->reps[p->rep_at].iters);
	char *v = xvisible(out.buf);
	strbuf_release(&out);
	return v;
}

/* ---- rendering instances ---- */

/* A relative path that starts with '-' is rendered as ./-x, as GNU tools
 * advise, so that no command reads a path as an option. */
static void
add_dot_slash(struct strbuf *out, const char *path)
{
	if (path[0] == '-')
		strbuf_adds(out, "./");
}

static const char *const *
task_vals(const struct plan *p, uint32_t t)
{
	/* NULL + 0 is undefined: a workflow without foreach has no binds. */
	return p->dag.binds.v ? p->dag.binds.v + p->dag.tasks.v[t].bind : NULL;
}

long
plan_fit_cores(const struct wf_task *t, long most, bool scale_all)
{
	if (t->cores <= most)
		return t->cores;
	if (!t->cores_min && !scale_all)
		return -1;
	return most >= (t->cores_min ? t->cores_min : 1) ? most : -1;
}

void
plan_set_cores(struct plan *p, uint32_t name, long n)
{
	if (p->pt)
		p->pt[name].cores = n;
}

/* {cores} of task dt: at least 1 (an I/O task takes none, runs as 1). */
static void
add_cores(struct strbuf *out, const struct plan *p, const struct dag_task *dt)
{
	long n = p->pt[dt->tmpl].cores;
	strbuf_addf(out, "%ld", n > 0 ? n : 1);
}

static void render_command(const struct plan *p, uint32_t t,
			   struct strbuf *out, bool key);

void
plan_command(const struct plan *p, uint32_t t, struct strbuf *out)
{
	render_command(p, t, out, false);
}

void
plan_command_key(const struct plan *p, uint32_t t, struct strbuf *out)
{
	render_command(p, t, out, true);
}

/* What the journal keeps of a task's software environment beside its
 * command (nothing when it has none, so older records still match): a
 * new image or module list makes the task run again. */
static void
add_env_key(struct strbuf *out, const struct wf_task *wt)
{
	if (wt->container)
		strbuf_addf(out, "\n#container %s%s", wt->container,
			    wt->network ? " network" : "");
	if (wt->modules) {
		strbuf_adds(out, "\n#modules ");
		for (const char *m = wt->modules; *m; m++)
			strbuf_addch(out, *m == '\n' ? ' ' : *m);
	}
}

/* plan_command; key: {cores} as written (plan_command_key), and the
 * software environment (add_env_key). */
static void
render_command(const struct plan *p, uint32_t t, struct strbuf *out, bool key)
{
	const struct dag_task *dt = &p->dag.tasks.v[t];
	const struct tmpl *tm = &p->pt[dt->tmpl].run;
	const char *const *vals = task_vals(p, t);
	for (size_t i = 0; i < tm->n; i++) {
		const struct seg *s = &tm->v[i];
		switch (s->kind) {
		case SEG_LIT:
			strbuf_add(out, s->s, s->len);
			break;
		case SEG_VAR:
			sq_quote(out, s->s, s->len);
			break;
		case SEG_BIND:
			sq_quote(out, vals[s->idx], strlen(vals[s->idx]));
			break;
		case SEG_LIST:
			for (uint32_t j = 0; j < s->len; j += (uint32_t)
					strlen(s->s + j) + 1) {
				if (j)
					strbuf_addch(out, ' ');
				sq_quote(out, s->s + j, strlen(s->s + j));
			}
			break;
		case SEG_FIELD: {
			const char *f = row_field(vals[s->idx], s->len);
			sq_quote(out, f, strlen(f));
			break;
		}
		case SEG_CORES:
			if (key)
				strbuf_adds(out, "{cores}");
			else
				add_cores(out, p, dt);
			break;
		case SEG_PARAM: {
			bool first = true;
			const struct dag_access *a = dag_task_acc(&p->dag, dt);
			for (uint32_t j = 0; j < dt->nacc; j++) {
				if (a[j].param != s->idx)
					continue;
				const struct dag_datum *x =
					&p->dag.data.v[a[j].datum];
				if (!first)
					strbuf_addch(out, ' ');
				first = false;
				add_dot_slash(out, x->path);
				sq_quote(out, x->path, x->len);
			}
			break;
		}
		}
	}
	if (key)
		add_env_key(out, p->pt[dt->tmpl].wt);
}

/*
 * A command being split into words (plan_argv).  Words are NUL-separated
 * in buf, which may move while it grows: argv holds their offsets until
 * the end, then pointers.  Nothing is allocated once buf and argv have
 * grown to a command's size.
 */
struct words {
	struct strbuf *buf;
	struct strvec *argv;
	bool in;                /* inside a word */
};

static void
word_start(struct words *w)
{
	if (!w->in) {
		VEC_PUSH(*w->argv, (char *)(uintptr_t)w->buf->len);
		w->in = true;
	}
}

static void
word_end(struct words *w)
{
	if (w->in) {
		strbuf_addch(w->buf, '\0');
		w->in = false;
	}
}

/* Literal text: blanks end words. */
static void
words_lit(struct words *w, const char *s, size_t len)
{
	for (size_t j = 0; j < len; j++) {
		char c = s[j];
		if (c == ' ' || c == '\t') {
			word_end(w);
		} else {
			word_start(w);
			strbuf_addch(w->buf, c);
		}
	}
}

/* The paths of parameter param of task dt, one word each. */
static void
words_param(struct words *w, const struct plan *p, const struct dag_task *dt,
	    uint32_t param)
{
	bool first = true;
	const struct dag_access *a = dag_task_acc(&p->dag, dt);
	for (uint32_t j = 0; j < dt->nacc; j++) {
		if (a[j].param != param)
			continue;
		const struct dag_datum *x = &p->dag.data.v[a[j].datum];
		if (!first)
			word_end(w);
		first = false;
		word_start(w);
		add_dot_slash(w->buf, x->path);
		strbuf_add(w->buf, x->path, x->len);
	}
}

/* The items of a list var, one word each. */
static void
words_list(struct words *w, const struct seg *s)
{
	for (uint32_t j = 0; j < s->len; j += (uint32_t)strlen(s->s + j) + 1) {
		if (j)
			word_end(w);
		word_start(w);
		strbuf_adds(w->buf, s->s + j);
	}
}

bool
plan_argv(const struct plan *p, uint32_t t, struct strbuf *buf,
	  struct strvec *argv)
{
	const struct dag_task *dt = &p->dag.tasks.v[t];
	const struct ptask *pt = &p->pt[dt->tmpl];
	if (!pt->simple)
		return false;
	const struct tmpl *tm = &pt->run;
	const char *const *vals = task_vals(p, t);
	struct words w = { buf, argv, false };
	strbuf_reset(buf);
	argv->n = 0;
	for (size_t i = 0; i < tm->n; i++) {
		const struct seg *s = &tm->v[i];
		switch (s->kind) {
		case SEG_LIT:
			words_lit(&w, s->s, s->len);
			break;
		case SEG_VAR:
			word_start(&w);
			strbuf_add(buf, s->s, s->len);
			break;
		case SEG_BIND:
			word_start(&w);
			strbuf_adds(buf, vals[s->idx]);
			break;
		case SEG_LIST:
			words_list(&w, s);
			break;
		case SEG_FIELD:
			word_start(&w);
			strbuf_adds(buf, row_field(vals[s->idx], s->len));
			break;
		case SEG_CORES:
			word_start(&w);
			add_cores(buf, p, dt);
			break;
		case SEG_PARAM:
			words_param(&w, p, dt, s->idx);
			break;
		}
	}
	word_end(&w);
	for (size_t i = 0; i < argv->n; i++)
		argv->v[i] = buf->buf + (uintptr_t)argv->v[i];
	VEC_PUSH(*argv, NULL);
	argv->n--;
	return argv->n > 0;
}

const char *
plan_exe(const struct plan *p, uint32_t t)
{
	const struct ptask *pt = &p->pt[p->dag.tasks.v[t].tmpl];
	return pt->simple ? pt->exe : NULL;
}

void
plan_env(const struct plan *p, uint32_t t, size_t i, struct strbuf *out)
{
	const struct dag_task *dt = &p->dag.tasks.v[t];
	const struct ptask *pt = &p->pt[dt->tmpl];
	const struct tmpl *tm = &pt->env[i];
	const char *const *vals = task_vals(p, t);
	strbuf_adds(out, pt->wt->env[i].key);
	strbuf_addch(out, '=');
	for (size_t k = 0; k < tm->n; k++) {
		const struct seg *s = &tm->v[k];
		if (s->kind == SEG_CORES) {
			add_cores(out, p, dt);
			continue;
		}
		if (s->kind != SEG_PARAM) {
			struct tmpl one = { (struct seg *)s, 1 };
			render_raw(out, &one, vals);
			continue;
		}
		bool first = true;
		const struct dag_access *a = dag_task_acc(&p->dag, dt);
		for (uint32_t j = 0; j < dt->nacc; j++) {
			if (a[j].param != s->idx)
				continue;
			if (!first)
				strbuf_addch(out, ' ');
			first = false;
			add_dot_slash(out, p->dag.data.v[a[j].datum].path);
			strbuf_adds(out, p->dag.data.v[a[j].datum].path);
		}
	}
}

/* A glob key's other captures after its own ("sample=S1,sample.lane=L2"):
 * instances that differ only there have labels of their own (the
 * journal knows a task by its label). */
static void
tag_captures(const struct plan *p, const struct wf_iter *it, const char *v,
	     struct strbuf *out)
{
	const struct prows *r = it->kind == WF_ITER_GLOB ? plan_rows(p, it)
							 : NULL;
	if (!r || r->own < 0)
		return;
	for (size_t j = 1; j < r->ncols; j++)
		if ((long)j != r->own)
			strbuf_addf(out, ",%s.%s=%s", it->name, r->cols[j],
				    row_field(v, j));
}

void
plan_tag(const struct plan *p, uint32_t t, struct strbuf *out)
{
	const struct dag_task *dt = &p->dag.tasks.v[t];
	const struct wf_foreach *fe = &p->wf->tasks[dt->tmpl].foreach;
	const char *const *vals = task_vals(p, t);
	for (size_t i = 0; i < fe->n; i++) {
		if (i)
			strbuf_addch(out, ',');
		strbuf_addf(out, "%s=%s", fe->v[i].name, vals[i]);
		tag_captures(p, &fe->v[i], vals[i], out);
	}
}

void
plan_label(const struct plan *p, uint32_t t, struct strbuf *out)
{
	const struct dag_task *dt = &p->dag.tasks.v[t];
	strbuf_addf(out, "'%s'", p->wf->tasks[dt->tmpl].name);
	if (p->wf->tasks[dt->tmpl].foreach.n) {
		strbuf_adds(out, " (");
		plan_tag(p, t, out);
		strbuf_addch(out, ')');
	}
}

bool
plan_log(const struct plan *p, uint32_t t, bool err, struct strbuf *out)
{
	const struct ptask *pt = &p->pt[p->dag.tasks.v[t].tmpl];
	if (!pt->log)
		return false;
	strbuf_reset(out);
	render_raw(out, &pt->log[err], task_vals(p, t));
	char *norm = path_normalize(out->buf);
	size_t n = strlen(norm);
	const char *name = in_workdir(p->wf->workdir, norm, &n);
	strbuf_reset(out);
	strbuf_add(out, name, n);
	free(norm);
	return true;
}

/* Why log path name may not be one: outside the workdir, the workdir,
 * wfrun's own, or data of the workflow; NULL when it may. */
static const char *
log_refused(const struct plan *p, const char *name)
{
	size_t n = strlen(name);
	const struct plan_file *f;
	if (name[0] == '/' || (name[0] == '.' && name[1] == '.' &&
			       (!name[2] || name[2] == '/')))
		return "outside the workdir; a log goes inside it";
	if (!strcmp(name, "."))
		return "the workdir";
	if ((f = guarded(p, name, n)))
		return f->what;
	if (is_data(p, name, n))
		return "data of the workflow (a task reads or writes it)";
	return NULL;
}

/*
 * Every log that a log: key names: inside the workdir, none of wfrun's
 * own files, no data of the workflow (no task may write it: they are
 * the user's files, made by wfrun alone), and no two alike.  One error
 * per task at most, at its log: line.
 */
static void
check_logs(struct builder *b)
{
	struct plan *p = b->p;
	struct dag *g = &p->dag;
	struct hmap seen;
	hmap_init(&seen);
	struct strbuf path = STRBUF_INIT, lab = STRBUF_INIT;
	bool *said = xcalloc(p->wf->ntasks ? p->wf->ntasks : 1, sizeof(bool));
	for (uint32_t t = 0; t < g->tasks.n; t++) {
		uint32_t tmpl = g->tasks.v[t].tmpl;
		for (int e = 0; e < 2 && !said[tmpl] && plan_log(p, t, e, &path);
		     e++) {
			const char *why = log_refused(p, path.buf);
			int found;
			const char *key = arena_strndup(&g->arena, path.buf,
							path.len);
			uint64_t *v = why ? NULL
					  : hmap_put(&seen, key, path.len,
						     (uint64_t)t, &found);
			if (!why && !found)
				continue;
			strbuf_reset(&lab);
			plan_label(p, t, &lab);
			if (!why && *v == t) {
				strbuf_adds(&lab, ": its out and err logs are "
					    "one file, '");
				strbuf_adds(&lab, path.buf);
				strbuf_addch(&lab, '\'');
				diag_error(b->d, p->wf->tasks[tmpl].log->loc,
					   "task %s", lab.buf);
			} else if (!why) {
				strbuf_adds(&lab, ": its log '");
				strbuf_adds(&lab, path.buf);
				strbuf_adds(&lab, "' is also the log of ");
				plan_label(p, (uint32_t)*v, &lab);
				diag_error(b->d, p->wf->tasks[tmpl].log->loc,
					   "task %s", lab.buf);
			} else {
				diag_error(b->d, p->wf->tasks[tmpl].log->loc,
					   "task %s: its log '%s' is %s", lab.buf,
					   path.buf, why);
			}
			said[tmpl] = true;
		}
	}
	free(said);
	strbuf_release(&path);
	strbuf_release(&lab);
	hmap_release(&seen);
}
