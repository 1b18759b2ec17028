#include "workflow.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "path.h"

/* diags */

void
diags_init(struct diags *d, const char *file)
{
	memset(d, 0, sizeof(*d));
	d->file = file;
}

void
diags_release(struct diags *d)
{
	for (size_t i = 0; i < d->list.n; i++) {
		free(d->list.v[i].msg);
		free(d->list.v[i].file);
	}
	VEC_FREE(d->list);
	d->nerrors = 0;
	for (size_t i = 0; i < d->files.n; i++)
		free(d->files.v[i]);
	VEC_FREE(d->files);
}

unsigned
diags_file(struct diags *d, const char *name)
{
	if (d->file && !strcmp(d->file, name))
		return 0;
	for (size_t i = 0; i < d->files.n; i++)
		if (!strcmp(d->files.v[i], name))
			return (unsigned)i + 1;
	if (d->files.n >= WF_MAX_FILES)
		return 0; /* said by the includer */
	VEC_PUSH(d->files, xstrdup(name));
	return (unsigned)d->files.n;
}

const char *
diags_file_name(const struct diags *d, unsigned i)
{
	return i && i <= d->files.n ? d->files.v[i - 1] : d->file;
}

static void
diag_vadd(struct diags *d, struct wf_loc loc, bool warning, const char *fmt,
	  va_list ap)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_vaddf(&sb, fmt, ap);
	struct diag g = { strbuf_detach(&sb), loc, warning, NULL };
	VEC_PUSH(d->list, g);
	if (!warning)
		d->nerrors++;
}

void
diag_error(struct diags *d, struct wf_loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vadd(d, loc, false, fmt, ap);
	va_end(ap);
}

void
diag_warning(struct diags *d, struct wf_loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vadd(d, loc, true, fmt, ap);
	va_end(ap);
}

void
diag_error_in(struct diags *d, const char *file, struct wf_loc loc,
	      const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vadd(d, loc, false, fmt, ap);
	va_end(ap);
	d->list.v[d->list.n - 1].file = xstrdup(file);
}

static int
diag_cmp(const void *a, const void *b)
{
	const struct diag *x = a, *y = b;
	if (x->file || y->file) {
		int c = strcmp(x->file ? x->file : "", y->file ? y->file : "");
		if (c)
			return !x->file ? -1 : !y->file ? 1 : c;
	}
	if (WF_LOC_FILE(x->loc) != WF_LOC_FILE(y->loc))
		return WF_LOC_FILE(x->loc) < WF_LOC_FILE(y->loc) ? -1 : 1;
	if (x->loc.line != y->loc.line)
		return x->loc.line < y->loc.line ? -1 : 1;
	if (x->loc.col != y->loc.col)
		return x->loc.col < y->loc.col ? -1 : 1;
	return 0;
}

/* Position, then the order of reporting: qsort() is not stable. */
static int
diag_cmp_seq(const void *a, const void *b)
{
	const struct diag *x = *(const struct diag *const *)a;
	const struct diag *y = *(const struct diag *const *)b;
	int c = diag_cmp(x, y);
	return c ? c : x < y ? -1 : x > y;
}

void
diags_print(struct diags *d, FILE *fp)
{
	/* Sorted through pointers into the list, whose addresses give the
	 * order of reporting; n log n, for files with very many errors. */
	struct diag **order = xcalloc(d->list.n ? d->list.n : 1,
				      sizeof(*order));
	for (size_t i = 0; i < d->list.n; i++)
		order[i] = &d->list.v[i];
	qsort(order, d->list.n, sizeof(*order), diag_cmp_seq);
	struct diag *sorted = xcalloc(d->list.n ? d->list.n : 1,
				      sizeof(*sorted));
	for (size_t i = 0; i < d->list.n; i++)
		sorted[i] = *order[i];
	if (d->list.n)
		memcpy(d->list.v, sorted, d->list.n * sizeof(*sorted));
	free(sorted);
	free(order);
	for (size_t i = 0; i < d->list.n; i++) {
		struct diag *g = &d->list.v[i];
		const char *kind = g->warning ? "warning" : "error";
		const char *file = g->file ? g->file
					   : diags_file_name(d, WF_LOC_FILE(g->loc));
		if (g->file && g->loc.line && !WF_LOC_COL(g->loc))
			fprintf(fp, "%s:%u: %s: %s\n", file, g->loc.line, kind,
				g->msg);
		else if (g->loc.line)
			fprintf(fp, "%s:%u:%u: %s: %s\n", file, g->loc.line,
				WF_LOC_COL(g->loc), kind, g->msg);
		else
			fprintf(fp, "%s: %s: %s\n", file, kind, g->msg);
	}
}

/*
 * The document as a compact tree.  libyaml's own (yaml_parser_load) costs
 * about 2 KB per task of a file of distinct tasks: a 96-byte node, a
 * 16-slot stack per mapping, a malloc per scalar.  This one is built from
 * libyaml's events, holds a node in 20 bytes, the children of every
 * collection in one array and every scalar in one buffer, and is freed
 * before the plan is built.  Anchors and aliases resolve as libyaml's
 * loader resolves them (an alias is its anchor's node, shared), with its
 * errors.
 */
struct ynode {
	uint32_t line, col;  /* 0-based, as libyaml's marks */
	uint32_t off;        /* scalar: its text in tree.text; collection:
				its first child in tree.kids */
	uint32_t n;          /* scalar: length; collection: children (a
				mapping's: key, value, key, value...) */
	uint8_t type;        /* YAML_SCALAR_NODE, _SEQUENCE_, _MAPPING_ */
	uint8_t plain;       /* a plain scalar */
	uint16_t file;       /* its file's index (wf_loc.file) */
};

struct ytree {
	VEC(struct ynode) nodes;
	VEC(uint32_t) kids;
	VEC(char) text;
	struct ynode *root;  /* NULL: the stream holds no document */
};
static int ytree_load(struct ytree *tree, struct ytree *scratch, bool *second,
		      const char *buf, size_t len, struct diags *d);
static void ytree_release(struct ytree *t);

/* A string of a task (its name, run, parameter names and paths) in the
 * workflow's arena: a malloc each cost 32 bytes for 8, six times a task. */
static char *
wf_strdup(struct workflow *wf, const char *s)
{
	return arena_strndup(&wf->strings, s, strlen(s));
}

/* parsing helpers */

struct ctx {
	struct ytree doc;
	struct diags *d;
	struct workflow *wf;
	size_t visits; /* guards against alias bombs */
	size_t max_visits;
	size_t max_alias;
	bool piped;    /* read from a pipe: its directory is no place */
	struct wf_load *ls; /* shared by every file of one load */
	const char *path;   /* this file's name, as diags say it */
	struct ynode *tasks; /* an included file's tasks: */
};


static struct wf_loc
loc_of(const struct ynode *n)
{
	return wf_loc_at(n->line + 1, (unsigned long)n->col + 1, n->file);
}

/* Child i of collection n. */
static struct ynode *
node_at(struct ctx *c, const struct ynode *n, size_t i)
{
	if (++c->visits > c->max_visits)
		return NULL;
	return &c->doc.nodes.v[c->doc.kids.v[n->off + i]];
}

static const char *
ytext(const struct ctx *c, const struct ynode *n)
{
	return c->doc.text.v + n->off;
}

static const char *
type_name(const struct ynode *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return "a scalar";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "nothing";
	}
}

static bool
is_null(const struct ctx *c, const struct ynode *n)
{
	if (n->type != YAML_SCALAR_NODE || !n->plain)
		return false;
	const char *s = ytext(c, n);
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	       !strcmp(s, "NULL");
}

/* The scalar text of n, or NULL with an error naming what was expected. */
static const char *
scalar(struct ctx *c, struct ynode *n, const char *what)
{
	if (n->type != YAML_SCALAR_NODE) {
		diag_error(c->d, loc_of(n), "%s must be a scalar, not %s", what,
			   type_name(n));
		return NULL;
	}
	const char *s = ytext(c, n);
	if (strlen(s) != n->n) {
		diag_error(c->d, loc_of(n), "%s contains a NUL character", what);
		return NULL;
	}
	return s;
}

static bool
is_mapping(struct ctx *c, struct ynode *n, const char *what)
{
	if (n->type == YAML_MAPPING_NODE)
		return true;
	diag_error(c->d, loc_of(n), "%s must be a mapping (key: value), not %s",
		   what, type_name(n));
	return false;
}

static bool
is_identifier(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

static int
parse_int_node(struct ctx *c, struct ynode *n, const char *what, long min,
	       long *out)
{
	const char *s = scalar(c, n, what);
	long v;
	if (!s)
		return -1;
	if (parse_long(s, &v) < 0) {
		diag_error(c->d, loc_of(n), "%s must be an integer, not '%s'", what,
			   s);
		return -1;
	}
	if (v < min) {
		diag_error(c->d, loc_of(n), "%s must be at least %ld, not %ld", what,
			   min, v);
		return -1;
	}
	*out = v;
	return 0;
}

static int
parse_bool_node(struct ctx *c, struct ynode *n, const char *what, bool *out)
{
	const char *s = scalar(c, n, what);
	if (!s)
		return -1;
	if (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "True")) {
		*out = true;
		return 0;
	}
	if (!strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "False")) {
		*out = false;
		return 0;
	}
	diag_error(c->d, loc_of(n), "%s must be true or false, not '%s'", what, s);
	return -1;
}

/*
 * Walk a mapping's pairs, reporting duplicate keys and keys not in allowed
 * (with a suggestion).  Calls fn for each accepted pair.
 */
typedef void (*pair_fn)(struct ctx *c, const char *key, struct ynode *k,
			struct ynode *v, void *arg);

static void
each_pair(struct ctx *c, struct ynode *map, const char *what,
	  const char *const *allowed, size_t nallowed, pair_fn fn, void *arg)
{
	/* Duplicate keys: a map for large mappings, a look along a short
	 * list for the others (no allocation per mapping of every task). */
	struct hmap seen;
	const char *few[16];
	size_t nfew = 0;
	bool many = map->n / 2 > ARRAY_SIZE(few);
	hmap_init(&seen);
	for (size_t pi = 0; pi < map->n; pi += 2) {
		struct ynode *k = node_at(c, map, pi);
		struct ynode *v = node_at(c, map, pi + 1);
		if (!k || !v) {
			diag_error(c->d, loc_of(map),
				   "document too large (aliases expand to more "
				   "than %zu nodes)", c->max_alias);
			break;
		}
		const char *key = scalar(c, k, "a key");
		if (!key)
			continue;
		int found = 0;
		if (many)
			hmap_put(&seen, key, strlen(key), 0, &found);
		for (size_t j = 0; !many && j < nfew && !found; j++)
			found = !strcmp(few[j], key);
		if (found) {
			diag_error(c->d, loc_of(k), "duplicate key '%s' in %s", key,
				   what);
			continue;
		}
		if (!many)
			few[nfew++] = key;
		if (allowed) {
			size_t i;
			for (i = 0; i < nallowed; i++)
				if (!strcmp(key, allowed[i]))
					break;
			if (i == nallowed) {
				const char *sug = closest_word(key, allowed, nallowed);
				if (sug)
					diag_error(c->d, loc_of(k),
						   "unknown key '%s' in %s; did you "
						   "mean '%s'?", key, what, sug);
				else
					diag_error(c->d, loc_of(k),
						   "unknown key '%s' in %s", key,
						   what);
				continue;
			}
		}
		fn(c, key, k, v, arg);
	}
	hmap_release(&seen);
}

/* foreach */

static int parse_range(const char *s, char **lo, char **hi);

/* Whether key may name a foreach key; an error at k when not. */
static bool
foreach_key_ok(struct ctx *c, const char *key, struct ynode *k)
{
	if (!is_identifier(key)) {
		diag_error(c->d, loc_of(k),
			   "foreach key '%s' is not a name (letters, digits and "
			   "_, not starting with a digit)", key);
		return false;
	}
	if (!strcmp(key, "in") || !strcmp(key, "out") || !strcmp(key, "inout")) {
		diag_error(c->d, loc_of(k), "'%s' cannot be a foreach key: it is "
			   "reserved for parameters", key);
		return false;
	}
	if (workflow_var(c->wf, key, strlen(key))) {
		diag_error(c->d, loc_of(k), "foreach key '%s' hides the var of the "
			   "same name; rename one of them", key);
		return false;
	}
	return true;
}

/* A range "A..B" into it; -1 after an error. */
static int
iter_range(struct ctx *c, const char *key, struct ynode *v, struct wf_iter *it)
{
	const char *s = scalar(c, v, "a foreach range");
	if (!s)
		return -1;
	it->kind = WF_ITER_RANGE;
	if (parse_range(s, &it->lo, &it->hi) < 0) {
		diag_error(c->d, loc_of(v),
			   "foreach '%s': '%s' is not a range \"A..B\"; give "
			   "a list ([a, b]), {glob: pattern} or {var: NAME} "
			   "for other values", key, s);
		return -1;
	}
	return 0;
}

/* A list of values into it. */
static void
iter_list(struct ctx *c, struct ynode *v, struct wf_iter *it)
{
	it->kind = WF_ITER_LIST;
	size_t n = v->n;
	it->items = xcalloc(n, sizeof(char *));
	it->item_locs = xcalloc(n, sizeof(struct wf_loc));
	for (size_t i = 0; i < n; i++) {
		struct ynode *e = node_at(c, v, i);
		if (!e)
			break;
		const char *s = scalar(c, e, "a foreach value");
		if (!s)
			continue;
		it->item_locs[it->nitems] = loc_of(e);
		it->items[it->nitems++] = xstrdup(s);
	}
}

/* {glob: pattern} or {lines: file} into it; -1 after an error. */
static int
iter_glob(struct ctx *c, const char *key, struct ynode *v, struct wf_iter *it)
{
	struct ynode *gk = NULL, *gv = NULL;
	if (v->n == 2) {
		gk = node_at(c, v, 0);
		gv = node_at(c, v, 1);
	}
	const char *gs = gk && gk->type == YAML_SCALAR_NODE ? ytext(c, gk)
							    : NULL;
	bool lines = gs && !strcmp(gs, "lines");
	if (!gs || (strcmp(gs, "glob") && !lines)) {
		diag_error(c->d, loc_of(v), "foreach '%s' must be a range "
			   "\"A..B\", a list, {glob: pattern}, {lines: file}, "
			   "{table: file} or {var: NAME}",
			   key);
		return -1;
	}
	const char *s = scalar(c, gv, lines ? "a file" : "a glob pattern");
	if (!s)
		return -1;
	if (!*s) {
		diag_error(c->d, loc_of(gv), "empty %s", lines ? "file name"
							       : "glob pattern");
		return -1;
	}
	it->kind = lines ? WF_ITER_LINES : WF_ITER_GLOB;
	it->glob = xstrdup(s);
	return 0;
}

/* {var: NAME} (v, a mapping) into it: the items of list var NAME,
 * looked up once every file is read; 1 when v is no such mapping, -1
 * after an error. */
static int
iter_var(struct ctx *c, struct ynode *v, struct wf_iter *it)
{
	struct ynode *k = v->n == 2 ? node_at(c, v, 0) : NULL;
	if (!k || k->type != YAML_SCALAR_NODE || strcmp(ytext(c, k), "var"))
		return 1;
	struct ynode *n = node_at(c, v, 1);
	const char *s = n ? scalar(c, n, "the var of a foreach") : NULL;
	if (!s)
		return -1;
	if (!is_identifier(s)) {
		diag_error(c->d, loc_of(n), "foreach {var: %s}: '%s' is not a "
			   "var's name", s, s);
		return -1;
	}
	it->kind = WF_ITER_VAR;
	it->var = xstrdup(s);
	return 0;
}

/* where: {COL: V, ...} or {COL: [V, ...], ...} into the table t. */
static void
where_pair(struct ctx *c, const char *key, struct ynode *k, struct ynode *v,
	   void *arg)
{
	struct wf_table *t = arg;
	struct wf_where w = { NULL, NULL, 0, loc_of(k) };
	bool list = v->type == YAML_SEQUENCE_NODE;
	size_t n = list ? v->n : 1;
	w.vals = xcalloc(n ? n : 1, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		struct ynode *e = list ? node_at(c, v, i) : v;
		if (!e)
			break;
		const char *s = scalar(c, e, "a where value");
		if (s)
			w.vals[w.nvals++] = xstrdup(s);
	}
	w.col = xstrdup(key);
	t->where = xrealloc(t->where, (t->nwhere + 1) * sizeof(w));
	t->where[t->nwhere++] = w;
}

/* A non-empty scalar of a table foreach, or NULL after an error. */
static const char *
table_scalar(struct ctx *c, struct ynode *v, const char *what)
{
	const char *s = scalar(c, v, what);
	if (s && !*s) {
		diag_error(c->d, loc_of(v), "%s is empty", what);
		return NULL;
	}
	return s;
}

static void
table_pair(struct ctx *c, const char *key, struct ynode *k, struct ynode *v,
	   void *arg)
{
	struct wf_table *t = arg;
	const char *s = NULL;
	if (!strcmp(key, "where")) {
		if (is_mapping(c, v, "where"))
			each_pair(c, v, "where", NULL, 0, where_pair, t);
	} else if (!strcmp(key, "table")) {
		if ((s = table_scalar(c, v, "a table's path"))) {
			t->path = xstrdup(s);
			t->loc = loc_of(v);
		}
	} else if (!strcmp(key, "key")) {
		if ((s = table_scalar(c, v, "a table's key column"))) {
			t->key = xstrdup(s);
			t->key_loc = loc_of(v);
		}
	} else if ((s = table_scalar(c, v, "a table's format"))) {
		t->format_loc = loc_of(v);
		if (!strcmp(s, "tsv"))
			t->format = WF_TABLE_TSV;
		else if (!strcmp(s, "csv"))
			t->format = WF_TABLE_CSV;
		else
			diag_error(c->d, loc_of(v), "format must be tsv or csv, "
				   "not '%s'", s);
	}
}

static void
table_release(struct wf_table *t)
{
	if (!t)
		return;
	free(t->path);
	free(t->key);
	for (size_t i = 0; i < t->nwhere; i++) {
		for (size_t j = 0; j < t->where[i].nvals; j++)
			free(t->where[i].vals[j]);
		free(t->where[i].vals);
		free(t->where[i].col);
	}
	free(t->where);
	free(t);
}

/* Whether the mapping v has the key "table": then it is a table foreach. */
static bool
is_table(struct ctx *c, struct ynode *v)
{
	for (size_t i = 0; v->type == YAML_MAPPING_NODE && i < v->n; i += 2) {
		struct ynode *k = node_at(c, v, i);
		if (k && k->type == YAML_SCALAR_NODE &&
		    !strcmp(ytext(c, k), "table"))
			return true;
	}
	return false;
}

/* {table: P, format: F, key: K, where: {...}} into it; -1 after an
 * error. */
static int
iter_table(struct ctx *c, struct ynode *v, struct wf_iter *it)
{
	static const char *const keys[] = { "table", "format", "key", "where" };
	size_t before = c->d->nerrors;
	it->kind = WF_ITER_TABLE;
	it->table = xcalloc(1, sizeof(*it->table));
	each_pair(c, v, "a table foreach", keys, ARRAY_SIZE(keys), table_pair,
		  it->table);
	if (c->d->nerrors == before && it->table->path)
		return 0;
	table_release(it->table);
	it->table = NULL;
	return -1;
}

static void
iter_release(struct wf_iter *it)
{
	free(it->lo);
	free(it->hi);
	for (size_t i = 0; i < it->nitems; i++)
		free(it->items[i]);
	free(it->items);
	free(it->item_locs);
	free(it->glob);
	free(it->var);
	table_release(it->table);
}

static void
foreach_pair(struct ctx *c, const char *key, struct ynode *k, struct ynode *v,
	     void *arg)
{
	struct wf_foreach *fe = arg;
	struct wf_iter it = { 0 };
	int r;
	it.loc = loc_of(k);
	if (!foreach_key_ok(c, key, k))
		return;
	if (v->type == YAML_SCALAR_NODE) {
		if (iter_range(c, key, v, &it) < 0)
			return;
	} else if (v->type == YAML_SEQUENCE_NODE) {
		iter_list(c, v, &it);
	} else if (is_table(c, v)) {
		if (iter_table(c, v, &it) < 0)
			return;
	} else if ((r = iter_var(c, v, &it)) < 0) {
		return;
	} else if (r && iter_glob(c, key, v, &it) < 0) {
		return;
	}
	/* each_pair() refused duplicate keys. */
	if (fe->n == WF_MAX_KEYS) {
		diag_error(c->d, loc_of(k), "foreach has more than %d keys",
			   WF_MAX_KEYS);
		iter_release(&it);
		return;
	}
	it.name = xstrdup(key);
	fe->v = xrealloc(fe->v, (fe->n + 1) * sizeof(it));
	fe->v[fe->n++] = it;
}

static void
parse_foreach(struct ctx *c, struct ynode *v, struct wf_foreach *fe)
{
	if (is_null(c, v))
		return;
	if (!is_mapping(c, v, "foreach"))
		return;
	each_pair(c, v, "foreach", NULL, 0, foreach_pair, fe);
}

/* Split "A..B" at the "..": both sides non-empty after trimming. */
static int
parse_range(const char *s, char **lo, char **hi)
{
	const char *dots = strstr(s, "..");
	if (!dots)
		return -1;
	const char *a = s, *ae = dots, *b = dots + 2, *be = s + strlen(s);
	while (a < ae && isspace((unsigned char)*a))
		a++;
	while (ae > a && isspace((unsigned char)ae[-1]))
		ae--;
	while (b < be && isspace((unsigned char)*b))
		b++;
	while (be > b && isspace((unsigned char)be[-1]))
		be--;
	if (a == ae || b == be || strstr(b, ".."))
		return -1;
	*lo = xstrndup(a, (size_t)(ae - a));
	*hi = xstrndup(b, (size_t)(be - b));
	return 0;
}

/* data */

static void parse_data(struct ctx *c, struct ynode *v, struct wf_data *data,
		       const char *pname, int nesting);

struct coll_arg {
	struct wf_data *data;
	const char *pname;
	int nesting;
	struct ynode *depth, *dir, *list, *each, *temp;
};

static void
coll_pair(struct ctx *c, const char *key, struct ynode *k, struct ynode *v,
	  void *arg)
{
	(void)c;
	(void)k;
	struct coll_arg *a = arg;
	if (!strcmp(key, "dir"))
		a->dir = v;
	else if (!strcmp(key, "depth"))
		a->depth = v;
	else if (!strcmp(key, "list"))
		a->list = v;
	else if (!strcmp(key, "foreach"))
		a->each = v;
	else if (!strcmp(key, "temp"))
		a->temp = v;
}

/* {dir: D, depth: N} into a->data. */
static void
coll_dir(struct ctx *c, const struct coll_arg *a)
{
	struct wf_data *data = a->data;
	const char *s = scalar(c, a->dir, "a collection dir");
	if (a->each)
		diag_error(c->d, loc_of(a->each), "parameter '%s': foreach "
			   "belongs to list collections, not dir", a->pname);
	if (!s)
		return;
	if (!*s) {
		diag_error(c->d, loc_of(a->dir), "parameter '%s' has an empty dir",
			   a->pname);
		return;
	}
	data->kind = WF_DIR;
	data->path = wf_strdup(c->wf, s);
	data->depth = 1;
	if (a->depth)
		parse_int_node(c, a->depth, "depth", 1, &data->depth);
}

/* {list: P, foreach: {...}} (at v) into a->data. */
static void
coll_list(struct ctx *c, struct ynode *v, const struct coll_arg *a)
{
	struct wf_data *data = a->data;
	if (a->depth)
		diag_error(c->d, loc_of(a->depth), "parameter '%s': depth belongs "
			   "to dir collections; put it on the list's element",
			   a->pname);
	if (!a->each) {
		diag_error(c->d, loc_of(v), "parameter '%s': a list collection "
			   "needs foreach: {key: values}", a->pname);
		return;
	}
	data->kind = WF_LIST;
	data->list = xcalloc(1, sizeof(*data->list));
	parse_data(c, a->list, &data->list->elem, a->pname, a->nesting + 1);
	parse_foreach(c, a->each, &data->list->each);
}

/* {temp: P} (at v): the file P, removed once every task that reads it
 * has finished; only a file can be temp (a collection's element too). */
static void
coll_temp(struct ctx *c, struct ynode *v, const struct coll_arg *a)
{
	if (a->dir || a->list || a->depth || a->each) {
		diag_error(c->d, loc_of(v), "parameter '%s': temp stands alone: "
			   "{temp: PATH}", a->pname);
		return;
	}
	if (a->temp->type != YAML_SCALAR_NODE) {
		diag_error(c->d, loc_of(a->temp), "parameter '%s': only a file can "
			   "be temp ({temp: PATH}), not %s", a->pname,
			   type_name(a->temp));
		return;
	}
	parse_data(c, a->temp, a->data, a->pname, a->nesting);
	a->data->temp = a->data->kind == WF_FILE && a->data->path;
}

static void
parse_data(struct ctx *c, struct ynode *v, struct wf_data *data,
	   const char *pname, int nesting)
{
	static const char *const keys[] = { "dir", "depth", "list", "foreach",
					    "temp" };
	data->loc = loc_of(v);
	if (nesting > 16) {
		diag_error(c->d, loc_of(v), "parameter '%s': collections nest more "
			   "than 16 levels", pname);
		return;
	}
	if (v->type == YAML_SCALAR_NODE) {
		const char *s = scalar(c, v, "a path");
		if (!s)
			return;
		if (!*s) {
			diag_error(c->d, loc_of(v), "parameter '%s' has an empty "
				   "path", pname);
			return;
		}
		data->kind = WF_FILE;
		data->path = wf_strdup(c->wf, s);
		return;
	}
	if (v->type != YAML_MAPPING_NODE) {
		diag_error(c->d, loc_of(v), "parameter '%s' must be a path, "
			   "{dir: D, depth: N} or {list: P, foreach: {...}}, not %s",
			   pname, type_name(v));
		return;
	}
	struct coll_arg a = { data, pname, nesting, NULL, NULL, NULL, NULL, NULL };
	each_pair(c, v, "a collection", keys, ARRAY_SIZE(keys), coll_pair, &a);
	if (a.temp) {
		coll_temp(c, v, &a);
		return;
	}
	if (a.dir && a.list) {
		diag_error(c->d, loc_of(v), "parameter '%s': a collection has "
			   "either dir or list, not both", pname);
		return;
	}
	if (a.dir)
		coll_dir(c, &a);
	else if (a.list)
		coll_list(c, v, &a);
	else
		diag_error(c->d, loc_of(v), "parameter '%s': a collection needs "
			   "dir: or list:", pname);
}

/* The parameters of one task, across in, out and inout: names are
 * looked up in a map once there are many, so a task with many
 * parameters loads in linear time (and one with few allocates none). */
#define FEW_PARAMS 16
struct task_params {
	struct hmap names;   /* name -> index in t->params, once many */
	size_t alloc;        /* of t->params */
};

/* The index of t's parameter key, or -1. */
static long
param_index(struct task_params *tp, const struct wf_task *t, const char *key)
{
	if (t->nparams < FEW_PARAMS) {
		for (size_t i = 0; i < t->nparams; i++)
			if (!strcmp(t->params[i].name, key))
				return (long)i;
		return -1;
	}
	int found;
	for (size_t i = tp->names.n; i < t->nparams; i++)
		hmap_put(&tp->names, t->params[i].name,
			 strlen(t->params[i].name), i, &found);
	uint64_t *v = hmap_get(&tp->names, key, strlen(key));
	return v ? (long)*v : -1;
}

bool
wf_data_temp(const struct wf_data *d)
{
	while (d->kind == WF_LIST && d->list)
		d = &d->list->elem;
	return d->kind == WF_FILE && d->temp;
}

/* Only what a task makes can be temp: an out parameter. */
static void
check_temp(struct ctx *c, const struct wf_param *p, struct ynode *v)
{
	if (p->access != WF_OUT && wf_data_temp(&p->data))
		diag_error(c->d, loc_of(v), "parameter '%s': only an out "
			   "parameter can be temp (an %s one is not wfrun's "
			   "to remove)", p->name, wf_access_name(p->access));
}

struct params_arg {
	struct wf_task *t;
	enum wf_access access;
	struct task_params *tp;
};

static void
param_pair(struct ctx *c, const char *key, struct ynode *k, struct ynode *v,
	   void *arg)
{
	struct params_arg *pa = arg;
	struct wf_task *t = pa->t;
	if (!is_identifier(key)) {
		diag_error(c->d, loc_of(k), "parameter name '%s' is not a name "
			   "(letters, digits and _)", key);
		return;
	}
	long seen = param_index(pa->tp, t, key);
	if (seen >= 0) {
		diag_error(c->d, loc_of(k), "parameter '%s' is declared twice (in "
			   "%s and %s); give each its own name", key,
			   wf_access_name(t->params[seen].access),
			   wf_access_name(pa->access));
		return;
	}
	if (t->nparams == WF_MAX_PARAMS) {
		diag_error(c->d, loc_of(k), "task '%s' has more than %d parameters; "
			   "group them in collections", t->name ? t->name : "?",
			   WF_MAX_PARAMS);
		return;
	}
	ALLOC_GROW(t->params, t->nparams + 1, pa->tp->alloc);
	struct wf_param *p = &t->params[t->nparams++];
	memset(p, 0, sizeof(*p));
	p->name = wf_strdup(c->wf, key);
	p->access = pa->access;
	p->loc = loc_of(k);
	parse_data(c, v, &p->data, key, 0);
	check_temp(c, p, v);
}

static void
parse_params(struct ctx *c, struct ynode *v, struct wf_task *t,
	     enum wf_access access, struct task_params *tp)
{
	if (is_null(c, v))
		return;
	if (!is_mapping(c, v, wf_access_name(access)))
		return;
	struct params_arg pa = { t, access, tp };
	each_pair(c, v, wf_access_name(access), NULL, 0, param_pair, &pa);
}

static void
kv_pair(struct ctx *c, const char *key, struct ynode *k, struct ynode *v,
	void *arg)
{
	VEC(struct wf_kv) *vec = arg;
	const char *s = scalar(c, v, "a value");
	if (!s)
		return;
	struct wf_kv kv = { xstrdup(key), xstrdup(s), loc_of(k) };
	VEC_PUSH(*vec, kv);
}

static int
parse_bw(struct ctx *c, struct ynode *v, struct wf_bw *bw)
{
	const char *s = scalar(c, v, "storage_bw");
	if (!s)
		return -1;
	char *end;
	if (!strcmp(s, "auto")) {
		bw->kind = WF_BW_AUTO;
		return 0;
	}
	if (!strncmp(s, "auto(", 5)) {
		double a[3];
		const char *p = s + 5;
		int i;
		for (i = 0; i < 3; i++) {
			errno = 0;
			a[i] = strtod(p, &end);
			if (end == p || errno || !isfinite(a[i]))
				break;
			while (isspace((unsigned char)*end))
				end++;
			if (*end != (i == 2 ? ')' : ','))
				break;
			p = end + 1;
		}
		if (i < 3 || *p) {
			diag_error(c->d, loc_of(v), "storage_bw '%s' is not "
				   "auto(min,max,delta), e.g. \"auto(2,256,2)\"", s);
			return -1;
		}
		if (a[0] <= 0 || a[1] < a[0] || a[2] <= 1) {
			diag_error(c->d, loc_of(v), "storage_bw '%s': need 0 < min "
				   "<= max and delta > 1", s);
			return -1;
		}
		bw->kind = WF_BW_AUTO_BOUNDED;
		bw->min = a[0];
		bw->max = a[1];
		bw->delta = a[2];
		return 0;
	}
	errno = 0;
	double x = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(x) || x <= 0) {
		diag_error(c->d, loc_of(v), "storage_bw must be a bandwidth in MB/s "
			   "(a number > 0), auto, or \"auto(min,max,delta)\"; not "
			   "'%s'", s);
		return -1;
	}
	bw->kind = WF_BW_STATIC;
	bw->value = x;
	return 0;
}

static bool
same_bw(const struct wf_bw *a, const struct wf_bw *b)
{
	return a->kind == b->kind && a->value == b->value && a->min == b->min &&
	       a->max == b->max && a->delta == b->delta;
}

/* Tasks that learn as one must ask for the same storage_bw. */
static void
check_learn_as(struct ctx *c, const struct workflow *wf)
{
	for (size_t i = 0; i < wf->ntasks; i++) {
		const struct wf_task *t = &wf->tasks[i];
		if (!t->learn_as || !t->name ||
		    (t->storage_bw.kind != WF_BW_AUTO &&
		     t->storage_bw.kind != WF_BW_AUTO_BOUNDED))
			continue; /* said in parse_task */
		for (size_t j = 0; j < i; j++) {
			const struct wf_task *u = &wf->tasks[j];
			const char *key = u->learn_as ? u->learn_as : u->name;
			if (!key || strcmp(key, t->learn_as) ||
			    (u->storage_bw.kind != WF_BW_AUTO &&
			     u->storage_bw.kind != WF_BW_AUTO_BOUNDED))
				continue;
			if (!same_bw(&t->storage_bw, &u->storage_bw))
				diag_error(c->d, t->learn_as_loc, "task '%s' learns "
					   "as '%s' with task '%s' (line %u), so "
					   "give both the same storage_bw", t->name,
					   t->learn_as, u->name, u->loc.line);
			break;
		}
	}
}

static bool
is_task_name(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (s++; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

static const char *const task_keys[] = {
	"name", "foreach", "in", "out", "inout", "cores", "memory", "io",
	"storage_bw", "learn_as", "retries", "on_failure", "timeout", "env",
	"run", "allow_outside", "log_max", "log", "container", "modules",
	"network",
};

struct task_arg {
	struct wf_task *t;
	struct ynode *io, *cores, *bw, *run;
	struct task_params tp;
};

static void
task_memory(struct ctx *c, struct ynode *v, struct wf_task *t)
{
	const char *s = scalar(c, v, "memory");
	t->memory_loc = loc_of(v);
	if (s && (t->memory = parse_memory(s)) <= 0) {
		diag_error(c->d, loc_of(v), "memory must be a size with a unit, "
			   "e.g. 512M or 4G; not '%s'", s);
		t->memory = 0;
	}
}

/* log_max: a size (at least 1K), or none; *out untouched on an error. */
static void
parse_log_max(struct ctx *c, struct ynode *v, long long *out)
{
	const char *s = scalar(c, v, "log_max");
	if (!s)
		return;
	long long n = strcmp(s, "none") ? parse_memory(s) : -1;
	if (n == -1 && !strcmp(s, "none"))
		*out = -1;
	else if (n < 1024)
		diag_error(c->d, loc_of(v), "log_max must be a size of at least "
			   "1K with a unit, e.g. 64M, or none; not '%s'", s);
	else
		*out = n;
}

static void
task_learn_as(struct ctx *c, struct ynode *v, struct wf_task *t)
{
	const char *s = scalar(c, v, "learn_as");
	t->learn_as_loc = loc_of(v);
	if (s && !is_task_name(s))
		diag_error(c->d, loc_of(v), "learn_as '%s' must be a task name: "
			   "a letter or '_', then letters, digits, '_' and '-'",
			   s);
	else if (s)
		t->learn_as = xstrdup(s);
}

static void
task_on_failure(struct ctx *c, struct ynode *v, struct wf_task *t)
{
	static const char *const pol[] = { "fail", "retry", "ignore",
					   "cancel_successors" };
	const char *s = scalar(c, v, "on_failure");
	size_t i;
	if (!s)
		return;
	for (i = 0; i < ARRAY_SIZE(pol); i++)
		if (!strcmp(s, pol[i]))
			break;
	if (i == ARRAY_SIZE(pol)) {
		const char *sug = closest_word(s, pol, ARRAY_SIZE(pol));
		diag_error(c->d, loc_of(v), "on_failure must be fail, retry, "
			   "ignore or cancel_successors, not '%s'%s%s%s", s,
			   sug ? "; did you mean '" : "", sug ? sug : "",
			   sug ? "'?" : "");
		return;
	}
	t->on_failure = (enum wf_on_failure)i;
	t->on_failure_set = true;
}

static void
task_timeout(struct ctx *c, struct ynode *v, struct wf_task *t)
{
	const char *s = scalar(c, v, "timeout");
	if (s && (t->timeout = parse_duration(s)) <= 0) {
		diag_error(c->d, loc_of(v), "timeout must be a duration such as "
			   "90s, 30m, 2h or 1h30m; not '%s'", s);
		t->timeout = 0;
	}
}

static void
task_env(struct ctx *c, struct ynode *v, struct wf_task *t)
{
	VEC(struct wf_kv) env = { 0 };
	if (is_null(c, v))
		return;
	if (!is_mapping(c, v, "env"))
		return;
	each_pair(c, v, "env", NULL, 0, kv_pair, &env);
	for (size_t i = 0; i < env.n; i++)
		if (!is_identifier(env.v[i].key))
			diag_error(c->d, env.v[i].loc, "env name '%s' is not a "
				   "valid variable name", env.v[i].key);
	t->env = env.v;
	t->nenv = env.n;
}

static void
task_run(struct ctx *c, struct ynode *v, struct wf_task *t)
{
	const char *s = scalar(c, v, "run");
	t->run_loc = loc_of(v);
	if (!s)
		return;
	const char *p = s;
	while (isspace((unsigned char)*p))
		p++;
	if (!*p) {
		diag_error(c->d, loc_of(v), "task '%s' has an empty run command",
			   t->name ? t->name : "?");
		return;
	}
	t->run = wf_strdup(c->wf, s);
}

/* An image or module name: one word, not an option. */
static bool
swenv_word_ok(const char *s)
{
	if (!*s || *s == '-')
		return false;
	for (; *s; s++)
		if (isspace((unsigned char)*s) || iscntrl((unsigned char)*s))
			return false;
	return true;
}

/* container: IMAGE, or none ("" until the defaults are applied). */
static void
parse_container(struct ctx *c, struct ynode *v, char **out)
{
	const char *s = scalar(c, v, "container");
	if (!s)
		return;
	if (!strcmp(s, "none"))
		*out = wf_strdup(c->wf, "");
	else if (!swenv_word_ok(s))
		diag_error(c->d, loc_of(v), "container must be an image name "
			   "(one word, e.g. debian:12) or none, not '%s'", s);
	else
		*out = wf_strdup(c->wf, s);
}

/* modules: a list of module names (or one), kept one per line. */
static void
parse_modules(struct ctx *c, struct ynode *v, char **out)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = v->type == YAML_SEQUENCE_NODE ? v->n : 1;
	if (v->type == YAML_MAPPING_NODE || is_null(c, v)) {
		diag_error(c->d, loc_of(v), "modules must be a list of module "
			   "names, e.g. [samtools/1.17, bwa], not %s",
			   is_null(c, v) ? "nothing" : type_name(v));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct ynode *m = v->type == YAML_SEQUENCE_NODE ? node_at(c, v, i)
								 : v;
		const char *s = m ? scalar(c, m, "a module name") : NULL;
		if (s && !swenv_word_ok(s))
			diag_error(c->d, loc_of(m), "module name '%s' must be one "
				   "word, not starting with '-'", s);
		else if (s)
			strbuf_addf(&sb, "%s%s", sb.len ? "\n" : "", s);
	}
	*out = wf_strdup(c->wf, sb.len ? sb.buf : "");
	strbuf_release(&sb);
}

/* The workflow's container: and modules: for tasks that say neither;
 * none and [] become NULL. */
static void
swenv_defaults(struct workflow *wf)
{
	if (wf->container && !*wf->container)
		wf->container = NULL;
	if (wf->modules && !*wf->modules)
		wf->modules = NULL;
	for (size_t i = 0; i < wf->ntasks; i++) {
		struct wf_task *t = &wf->tasks[i];
		if (!t->container)
			t->container = wf->container;
		else if (!*t->container)
			t->container = NULL;
		if (!t->modules)
			t->modules = wf->modules;
		else if (!*t->modules)
			t->modules = NULL;
	}
}

static void
log_pair(struct ctx *c, const char *key, struct ynode *k, struct ynode *v,
	 void *arg)
{
	(void)k;
	struct wf_log *l = arg;
	const char *s = scalar(c, v, "a log path");
	if (s && !*s)
		diag_error(c->d, loc_of(v), "log %s is an empty path", key);
	else if (s)
		*(strcmp(key, "out") ? &l->err : &l->out) = wf_strdup(c->wf, s);
}

/* log: PREFIX (PREFIX.out and PREFIX.err) or {out: PATH, err: PATH}. */
static void
task_log(struct ctx *c, struct ynode *v, struct wf_task *t)
{
	static const char *const keys[] = { "out", "err" };
	struct wf_log *l = t->log = xcalloc(1, sizeof(*t->log));
	l->loc = loc_of(v);
	const char *s = NULL;
	if (v->type == YAML_MAPPING_NODE) {
		size_t before = c->d->nerrors;
		each_pair(c, v, "log", keys, ARRAY_SIZE(keys), log_pair, l);
		if ((!l->out || !l->err) && c->d->nerrors == before)
			diag_error(c->d, loc_of(v), "log: {out: PATH, err: PATH} "
				   "needs both");
	} else {
		s = scalar(c, v, "log (a path prefix, or {out: PATH, err: "
			   "PATH})");
	}
	if (s && !*s) {
		diag_error(c->d, loc_of(v), "log is an empty path");
	} else if (s) {
		char *o = xasprintf("%s.out", s), *e = xasprintf("%s.err", s);
		l->out = wf_strdup(c->wf, o);
		l->err = wf_strdup(c->wf, e);
		free(o);
		free(e);
	}
	if (!l->out || !l->err) {
		free(l);
		t->log = NULL;
	}
}

static void
cores_pair(struct ctx *c, const char *key, struct ynode *k, struct ynode *v,
	   void *arg)
{
	struct wf_task *t = arg;
	(void)k;
	if (!strcmp(key, "max"))
		parse_int_node(c, v, "cores' max", 1, &t->cores);
	else
		parse_int_node(c, v, "cores' min", 1, &t->cores_min);
}

/* cores: N, or {max: N, min: M}: as many as a worker has up to N, at
 * least M (default 1). */
static void
task_cores(struct ctx *c, struct ynode *v, struct wf_task *t)
{
	static const char *const keys[] = { "max", "min" };
	t->cores_loc = loc_of(v);
	if (v->type != YAML_MAPPING_NODE) {
		parse_int_node(c, v, "cores", 1, &t->cores);
		return;
	}
	t->cores = 0;
	t->cores_min = 1;
	each_pair(c, v, "cores", keys, ARRAY_SIZE(keys), cores_pair, t);
	if (!t->cores)
		diag_error(c->d, loc_of(v), "cores as a mapping needs max, the "
			   "most cores the task can use: {max: 8, min: 2}");
	else if (t->cores_min > t->cores)
		diag_error(c->d, loc_of(v), "cores' min (%ld) is more than its "
			   "max (%ld)", t->cores_min, t->cores);
	if (!t->cores)
		t->cores = 1;
}

static void
task_pair(struct ctx *c, const char *key, struct ynode *k, struct ynode *v,
	  void *arg)
{
	struct task_arg *ta = arg;
	struct wf_task *t = ta->t;
	(void)k;
	if (!strcmp(key, "name")) {
		/* handled first, by parse_task */
	} else if (!strcmp(key, "foreach")) {
		parse_foreach(c, v, &t->foreach);
	} else if (!strcmp(key, "in")) {
		parse_params(c, v, t, WF_IN, &ta->tp);
	} else if (!strcmp(key, "out")) {
		parse_params(c, v, t, WF_OUT, &ta->tp);
	} else if (!strcmp(key, "inout")) {
		parse_params(c, v, t, WF_INOUT, &ta->tp);
	} else if (!strcmp(key, "cores")) {
		ta->cores = v;
		task_cores(c, v, t);
	} else if (!strcmp(key, "memory")) {
		task_memory(c, v, t);
	} else if (!strcmp(key, "io")) {
		ta->io = v;
		parse_bool_node(c, v, "io", &t->io);
	} else if (!strcmp(key, "storage_bw")) {
		ta->bw = v;
		parse_bw(c, v, &t->storage_bw);
	} else if (!strcmp(key, "learn_as")) {
		task_learn_as(c, v, t);
	} else if (!strcmp(key, "retries")) {
		parse_int_node(c, v, "retries", 0, &t->retries);
	} else if (!strcmp(key, "on_failure")) {
		task_on_failure(c, v, t);
	} else if (!strcmp(key, "timeout")) {
		task_timeout(c, v, t);
	} else if (!strcmp(key, "env")) {
		task_env(c, v, t);
	} else if (!strcmp(key, "allow_outside")) {
		parse_bool_node(c, v, "allow_outside", &t->allow_outside);
	} else if (!strcmp(key, "log_max")) {
		parse_log_max(c, v, &t->log_max);
	} else if (!strcmp(key, "log")) {
		task_log(c, v, t);
	} else if (!strcmp(key, "container")) {
		parse_container(c, v, &t->container);
	} else if (!strcmp(key, "modules")) {
		parse_modules(c, v, &t->modules);
	} else if (!strcmp(key, "network")) {
		parse_bool_node(c, v, "network", &t->network);
	} else if (!strcmp(key, "run")) {
		ta->run = v;
		task_run(c, v, t);
	}
}

static void
parse_task(struct ctx *c, struct ynode *n, struct wf_task *t, size_t index)
{
	t->loc = loc_of(n);
	t->cores = 1;
	if (!is_mapping(c, n, "a task"))
		return;
	/* The name first, so that every later message can use it. */
	size_t p;
	for (p = 0; p < n->n; p += 2) {
		struct ynode *k = node_at(c, n, p), *v = node_at(c, n, p + 1);
		if (!k || !v || k->type != YAML_SCALAR_NODE ||
		    strcmp(ytext(c, k), "name"))
			continue;
		const char *s = scalar(c, v, "a task name");
		if (s && !*s) {
			diag_error(c->d, loc_of(v), "empty task name");
		} else if (s) {
			if (!is_task_name(s))
				diag_error(c->d, loc_of(v), "task name '%s' must "
					   "start with a letter or '_' and use "
					   "letters, digits, '_' and '-'", s);
			else
				t->name = wf_strdup(c->wf, s);
		}
		break;
	}
	if (!t->name && p == n->n) {
		diag_error(c->d, loc_of(n), "task %zu has no name: add name: ...",
			   index + 1);
	}
	struct task_arg ta;
	memset(&ta, 0, sizeof(ta));
	ta.t = t;
	hmap_init(&ta.tp.names);
	each_pair(c, n, "a task", task_keys, ARRAY_SIZE(task_keys), task_pair,
		  &ta);
	hmap_release(&ta.tp.names);
	/* No spare capacity kept: a file may hold a million tasks. */
	if (t->nparams < ta.tp.alloc)
		t->params = xrealloc(t->params, t->nparams * sizeof(*t->params));
	/* A run key that was there but wrong has its own error. */
	if (!ta.run)
		diag_error(c->d, loc_of(n), "task '%s' has no run command: "
			   "add run: ...", t->name ? t->name : "?");
	if (t->io && ta.cores) {
		diag_error(c->d, t->cores_loc, "task '%s' is an I/O task (io: true), "
			   "which takes no cores; remove cores", t->name ? t->name
								: "?");
	}
	if (t->io)
		t->cores = 0;
	if (ta.bw && !t->io)
		diag_error(c->d, loc_of(ta.bw), "storage_bw applies to I/O tasks; "
			   "add io: true to task '%s'", t->name ? t->name : "?");
	if (t->learn_as && t->storage_bw.kind != WF_BW_AUTO &&
	    t->storage_bw.kind != WF_BW_AUTO_BOUNDED)
		diag_error(c->d, t->learn_as_loc, "learn_as applies to storage_bw: "
			   "auto or \"auto(min,max,delta)\", which task '%s' does "
			   "not have", t->name ? t->name : "?");
}

static bool var_is_list(struct ctx *c, const struct wf_kv *ref,
			const char *key, struct wf_loc loc);

/*
 * A var's value is literal text in which {name} is the value of a var
 * defined above it and {{ and }} are braces.  NULL after an error.
 */
static char *
resolve_var(struct ctx *c, const char *key, const char *s, struct wf_loc loc)
{
	struct strbuf sb = STRBUF_INIT;
	while (*s) {
		if ((s[0] == '{' && s[1] == '{') || (s[0] == '}' && s[1] == '}')) {
			strbuf_addch(&sb, s[0]);
			s += 2;
			continue;
		}
		if (*s == '}') {
			diag_error(c->d, loc, "var '%s': '}' closes no placeholder; "
				   "write '}}' for a literal brace", key);
			strbuf_release(&sb);
			return NULL;
		}
		if (*s != '{') {
			strbuf_addch(&sb, *s++);
			continue;
		}
		const char *e = strchr(s, '}');
		const struct wf_kv *ref =
			e ? workflow_var(c->wf, s + 1, (size_t)(e - s - 1)) : NULL;
		if (!ref) {
			if (e && (size_t)(e - s - 1) == strlen(key) &&
			    !strncmp(s + 1, key, strlen(key)))
				diag_error(c->d, loc, "var '%s' refers to itself", key);
			else
				diag_error(c->d, loc, "var '%s': '%.*s' names no var "
					   "defined above it; write '{{' for a literal "
					   "brace", key, e ? (int)(e - s + 1) : 1, s);
			strbuf_release(&sb);
			return NULL;
		}
		if (var_is_list(c, ref, key, loc)) {
			strbuf_release(&sb);
			return NULL;
		}
		strbuf_adds(&sb, ref->val);
		s = e + 1;
		if (sb.len > WF_MAX_VALUE) {
			diag_error(c->d, loc, "var '%s' is longer than %d bytes "
				   "once the vars it names are put in", key,
				   WF_MAX_VALUE);
			strbuf_release(&sb);
			return NULL;
		}
	}
	if (sb.len > WF_MAX_VALUE) {
		diag_error(c->d, loc, "var '%s' is longer than %d bytes", key,
			   WF_MAX_VALUE);
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

/* ---- vars: lists, overrides (--vars FILE, --set), one namespace ---- */

/* A value for a var: a text, or a list (items each followed by a NUL,
 * and the text they make joined by spaces). */
struct varval {
	char *text;
	char *items;          /* NULL: a scalar */
	uint32_t items_len, nitems;
};

static void
varval_release(struct varval *v)
{
	free(v->text);
	free(v->items);
	memset(v, 0, sizeof(*v));
}

/* One value from outside the file (struct wf_settings). */
struct ovr {
	char *name;
	struct varval val;
	bool list;            /* --vars: given as a YAML list */
	uint8_t from;         /* enum wf_var_from */
	struct wf_loc loc;    /* --vars: the key; --set: line 0 of "--set N" */
	bool used;
};

/* What every file of one load shares. */
struct wf_load {
	VEC(struct ovr) ovr;
	struct hmap ovr_index;      /* name -> index in ovr */
	struct hmap task_names;     /* task name -> index in wf->tasks */
	VEC(struct ctx *) included; /* their files, in program order */
	VEC(struct incl_at) chain;  /* files being read, outermost first */
	VEC(struct incl_at) done;   /* files read */
	bool broken;                /* a file's YAML did not load: that is
				       all that is said */
	bool in_memory;             /* workflow_load_mem: no file is read
				       (the fuzz targets) */
};

/* The index of file name, in the diags and in wf->files. */
static unsigned
file_index(struct ctx *c, const char *name)
{
	unsigned i = diags_file(c->d, name);
	struct workflow *wf = c->wf;
	while (wf->files.n <= i)
		VEC_PUSH(wf->files, NULL);
	if (!wf->files.v[i])
		wf->files.v[i] = xstrdup(name);
	return i;
}

/* "FILE:LINE:COL" of loc, for messages. */
static void
add_loc(struct ctx *c, struct strbuf *sb, struct wf_loc loc)
{
	strbuf_addf(sb, "%s:%u:%u", diags_file_name(c->d, WF_LOC_FILE(loc)),
		    loc.line, WF_LOC_COL(loc));
}

static const struct wf_var_ext *
var_ext_of(const struct workflow *wf, const struct wf_kv *v)
{
	return &wf->var_ext[v - wf->vars];
}

const struct wf_var_ext *
workflow_var_ext(const struct workflow *wf, const struct wf_kv *v)
{
	return var_ext_of(wf, v);
}

/* A var's value names ref, a list var: said at loc. */
static bool
var_is_list(struct ctx *c, const struct wf_kv *ref, const char *key,
	    struct wf_loc loc)
{
	if (!var_ext_of(c->wf, ref)->items)
		return false;
	diag_error(c->d, loc, "var '%s': {%s} is a list; a var's value holds "
		   "one text (a foreach takes a list: {var: %s})", key,
		   ref->key, ref->key);
	return true;
}

/* Append item s[0..n) to the items of a list being built in sb. */
static void
list_add(struct strbuf *sb, uint32_t *nitems, const char *s, size_t n)
{
	strbuf_add(sb, s, n);
	strbuf_addch(sb, '\0');
	(*nitems)++;
}

/* The list built in sb (taken) into *v: its items, and its text (the
 * items joined by spaces). */
static void
list_finish(struct strbuf *sb, uint32_t nitems, struct varval *v)
{
	memset(v, 0, sizeof(*v));
	v->items_len = (uint32_t)sb->len;
	v->nitems = nitems;
	v->text = xmalloc(sb->len + 1);
	for (size_t i = 0; i < sb->len; i++)
		v->text[i] = sb->buf[i] ? sb->buf[i] : ' ';
	v->text[sb->len ? sb->len - 1 : 0] = '\0';
	v->items = strbuf_detach(sb);
}

/* A list var's items from sequence n: each a text in which {name} is a
 * var above it (resolve).  -1 after an error. */
static int
var_list_value(struct ctx *c, const char *key, struct ynode *n, bool resolve,
	       struct varval *out)
{
	struct strbuf sb = STRBUF_INIT;
	uint32_t nitems = 0;
	for (size_t i = 0; i < n->n; i++) {
		struct ynode *e = node_at(c, n, i);
		const char *s = e ? scalar(c, e, "an item of a list var") : NULL;
		char *r = !s ? NULL : resolve ? resolve_var(c, key, s, loc_of(e))
					      : xstrdup(s);
		if (!r) {
			strbuf_release(&sb);
			return -1;
		}
		list_add(&sb, &nitems, r, strlen(r));
		free(r);
	}
	list_finish(&sb, nitems, out);
	return 0;
}

/* A var's value from node v (a text or a list): 0, or -1 after an error. */
static int
var_value(struct ctx *c, const char *key, struct ynode *v, bool resolve,
	  struct varval *out)
{
	memset(out, 0, sizeof(*out));
	if (v->type == YAML_SEQUENCE_NODE)
		return var_list_value(c, key, v, resolve, out);
	const char *s = scalar(c, v, "a var value (a text or a list of texts)");
	if (!s)
		return -1;
	out->text = resolve ? resolve_var(c, key, s, loc_of(v)) : xstrdup(s);
	return out->text ? 0 : -1;
}

static struct ovr *
ovr_find(struct ctx *c, const char *name)
{
	uint64_t *i = hmap_get(&c->ls->ovr_index, name, strlen(name));
	return i ? &c->ls->ovr.v[*i] : NULL;
}

/* Set name's outside value (a later one replaces an earlier one). */
static void
ovr_put(struct ctx *c, const char *name, struct varval *val, bool list,
	uint8_t from, struct wf_loc loc)
{
	struct ovr *o = ovr_find(c, name);
	if (!o) {
		struct ovr n = { xstrdup(name), { 0 }, false, 0, loc, false };
		VEC_PUSH(c->ls->ovr, n);
		o = &c->ls->ovr.v[c->ls->ovr.n - 1];
		int found;
		hmap_put(&c->ls->ovr_index, o->name, strlen(o->name),
			 c->ls->ovr.n - 1, &found);
	}
	varval_release(&o->val);
	o->val = *val;
	o->list = list;
	o->from = from;
	o->loc = loc;
}

/* --set's value for a var that is a list: the items between commas. */
static void
split_commas(const char *s, struct varval *out)
{
	struct strbuf sb = STRBUF_INIT;
	uint32_t nitems = 0;
	bool more = *s; /* "" is the empty list, "a," is [a, ""] */
	while (more) {
		const char *e = strchr(s, ',');
		list_add(&sb, &nitems, s, e ? (size_t)(e - s) : strlen(s));
		more = e != NULL;
		s = e ? e + 1 : s;
	}
	list_finish(&sb, nitems, out);
}

/* Replace *val (the file's value of var key) by its outside value, if
 * any; ext says where the value used comes from.  -1 after an error
 * (*val is then the file's). */
static int
var_override(struct ctx *c, const char *key, struct varval *val,
	     struct wf_var_ext *ext)
{
	struct ovr *o = ovr_find(c, key);
	if (!o)
		return 0;
	o->used = true;
	bool list = val->items != NULL;
	struct varval nv;
	if (o->from == WF_FROM_SET && list) {
		split_commas(o->val.text, &nv);
	} else if (o->from == WF_FROM_SET || o->list == list) {
		nv = o->val;
		nv.text = xstrdup(o->val.text);
		nv.items = NULL;
		if (o->val.items) {
			nv.items = xmalloc(o->val.items_len + 1);
			memcpy(nv.items, o->val.items, o->val.items_len + 1);
		}
	} else {
		struct strbuf sb = STRBUF_INIT;
		add_loc(c, &sb, ext->from_loc);
		diag_error(c->d, o->loc, "var '%s' is %s in %s: give %s", key,
			   list ? "a list" : "a text", sb.buf,
			   list ? "a list ([a, b])" : "one value, not a list");
		strbuf_release(&sb);
		return -1;
	}
	varval_release(val);
	*val = nv;
	ext->from = o->from;
	ext->from_loc = o->loc;
	return 0;
}

/* Add var key with val (taken). */
static void
var_add(struct ctx *c, const char *key, struct wf_loc loc, struct varval *val,
	const struct wf_var_ext *ext)
{
	struct workflow *wf = c->wf;
	size_t had = wf->vars_alloc;
	ALLOC_GROW(wf->vars, wf->nvars + 1, wf->vars_alloc);
	if (wf->vars_alloc != had)
		wf->var_ext = xrealloc(wf->var_ext,
				       wf->vars_alloc * sizeof(*wf->var_ext));
	struct wf_kv *kv = &wf->vars[wf->nvars];
	struct wf_var_ext *x = &wf->var_ext[wf->nvars++];
	kv->key = xstrdup(key);
	int found;
	hmap_put(&wf->var_index, kv->key, strlen(kv->key), wf->nvars - 1, &found);
	kv->val = val->text;
	kv->loc = loc;
	*x = *ext;
	x->items = val->items;
	x->items_len = val->items_len;
	x->nitems = val->nitems;
	memset(val, 0, sizeof(*val));
}

/* A var defined again (in another file of the workflow): the same value
 * is no conflict, another one is an error naming both places. */
static void
var_again(struct ctx *c, const struct wf_kv *old, const struct varval *val,
	  struct wf_loc loc)
{
	const struct wf_var_ext *x = var_ext_of(c->wf, old);
	if (x->from != WF_FROM_FILE)
		return; /* both get the outside value */
	bool same = (x->items != NULL) == (val->items != NULL) &&
		    !strcmp(old->val, val->text) &&
		    (!x->items || (x->items_len == val->items_len &&
				   !memcmp(x->items, val->items, x->items_len)));
	if (same)
		return;
	struct strbuf sb = STRBUF_INIT;
	add_loc(c, &sb, old->loc);
	diag_error(c->d, loc, "var '%s' is defined again with another value "
		   "(first at %s); the files of a workflow share their vars",
		   old->key, sb.buf);
	strbuf_release(&sb);
}

static void
var_pair(struct ctx *c, const char *key, struct ynode *k, struct ynode *v,
	 void *arg)
{
	(void)arg;
	if (!is_identifier(key)) {
		diag_error(c->d, loc_of(k), "var name '%s' is not a name (letters, "
			   "digits and _, not starting with a digit)", key);
		return;
	}
	if (!strcmp(key, "in") || !strcmp(key, "out") || !strcmp(key, "inout")) {
		diag_error(c->d, loc_of(k), "'%s' cannot be a var name: it is "
			   "reserved for parameters", key);
		return;
	}
	struct ovr *o = ovr_find(c, key);
	if (o)
		o->used = true;
	struct varval val;
	if (var_value(c, key, v, true, &val) < 0)
		return;
	const struct wf_kv *old = workflow_var(c->wf, key, strlen(key));
	struct wf_var_ext ext = { NULL, 0, 0, loc_of(k), WF_FROM_FILE };
	if (old) {
		var_again(c, old, &val, loc_of(k));
	} else {
		var_override(c, key, &val, &ext);
		var_add(c, key, loc_of(k), &val, &ext);
	}
	varval_release(&val);
}

/* The vars of --vars FILE (a YAML mapping of names to texts or lists)
 * into the outside values. */
static void
vars_file_pair(struct ctx *c, const char *key, struct ynode *k,
	       struct ynode *v, void *arg)
{
	(void)arg;
	struct varval val;
	if (!is_identifier(key)) {
		diag_error(c->d, loc_of(k), "var name '%s' is not a name (letters, "
			   "digits and _, not starting with a digit)", key);
		return;
	}
	if (var_value(c, key, v, false, &val) == 0)
		ovr_put(c, key, &val, val.items != NULL, WF_FROM_VARS, loc_of(k));
}

/* --set NAME=VALUE into the outside values. */
static void
set_one(struct ctx *c, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *name = eq ? xstrndup(arg, (size_t)(eq - arg)) : NULL;
	if (!name || !is_identifier(name)) {
		struct wf_loc l = wf_loc_at(0, 0, file_index(c, "--set"));
		diag_error(c->d, l, "'%s' is not NAME=VALUE with NAME a var's "
			   "name", arg);
		free(name);
		return;
	}
	char *what = xasprintf("--set %s", name);
	struct wf_loc l = wf_loc_at(0, 0, file_index(c, what));
	struct varval val = { xstrdup(eq + 1), NULL, 0, 0 };
	ovr_put(c, name, &val, false, WF_FROM_SET, l);
	free(what);
	free(name);
}

static int load_tree(struct ctx *c, const char *path, struct wf_loc at,
		     struct ytree *tree);

/* Every outside value, before the first var is read. */
static void
overrides_load(struct ctx *c, const struct wf_settings *set)
{
	for (size_t i = 0; set && i < set->nvars_files; i++) {
		struct ctx f = *c;
		memset(&f.doc, 0, sizeof(f.doc));
		f.path = set->vars_files[i];
		struct wf_loc l0 = wf_loc_at(0, 0, file_index(c, f.path));
		if (load_tree(&f, f.path, l0, &f.doc) == 0 && f.doc.root &&
		    !is_null(&f, f.doc.root) &&
		    is_mapping(&f, f.doc.root, "a --vars file"))
			each_pair(&f, f.doc.root, "a --vars file", NULL, 0,
				  vars_file_pair, NULL);
		ytree_release(&f.doc);
	}
	for (size_t i = 0; set && i < set->nset; i++)
		set_one(c, set->set[i]);
}

/* Outside values for vars the workflow does not define: errors, with a
 * suggestion (a misspelt --set must not run the default). */
static void
overrides_unused(struct ctx *c)
{
	struct workflow *wf = c->wf;
	const char **names = xcalloc(wf->nvars + 1, sizeof(*names));
	for (size_t i = 0; i < wf->nvars; i++)
		names[i] = wf->vars[i].key;
	for (size_t i = 0; i < c->ls->ovr.n; i++) {
		const struct ovr *o = &c->ls->ovr.v[i];
		if (o->used)
			continue;
		const char *sug = closest_word(o->name, names, wf->nvars);
		diag_error(c->d, o->loc, "%s defines no var '%s'%s%s%s", wf->file,
			   o->name, sug ? "; did you mean '" : "",
			   sug ? sug : "", sug ? "'?" : "");
	}
	free(names);
}

static void
overrides_release(struct wf_load *ls)
{
	for (size_t i = 0; i < ls->ovr.n; i++) {
		free(ls->ovr.v[i].name);
		varval_release(&ls->ovr.v[i].val);
	}
	VEC_FREE(ls->ovr);
	hmap_release(&ls->ovr_index);
}

struct top_arg {
	struct ynode *name, *workdir, *vars, *tasks, *log_max, *include;
	struct ynode *container, *modules;
};

static void
top_pair(struct ctx *c, const char *key, struct ynode *k, struct ynode *v,
	 void *arg)
{
	(void)c;
	(void)k;
	struct top_arg *a = arg;
	if (!strcmp(key, "name"))
		a->name = v;
	else if (!strcmp(key, "workdir"))
		a->workdir = v;
	else if (!strcmp(key, "vars"))
		a->vars = v;
	else if (!strcmp(key, "tasks"))
		a->tasks = v;
	else if (!strcmp(key, "log_max"))
		a->log_max = v;
	else if (!strcmp(key, "include"))
		a->include = v;
	else if (!strcmp(key, "container"))
		a->container = v;
	else if (!strcmp(key, "modules"))
		a->modules = v;
}

/* name:, or else the file's name without its extension. */
static void
doc_name(struct ctx *c, struct ynode *name, const char *path)
{
	struct workflow *wf = c->wf;
	if (name) {
		const char *s = scalar(c, name, "name");
		if (s)
			wf->name = xstrdup(s);
	}
	if (!wf->name) {
		const char *b = strrchr(path, '/');
		b = b ? b + 1 : path;
		const char *dot = strrchr(b, '.');
		wf->name = dot && dot != b ? xstrndup(b, (size_t)(dot - b))
					   : xstrdup(b);
	}
}

/* workdir:, relative to the file's directory, or else that directory; a
 * workflow read from a pipe (`<(gen)`, /dev/fd/63) has the current
 * directory for its own. */
static void
doc_workdir(struct ctx *c, struct ynode *workdir, const char *path)
{
	struct workflow *wf = c->wf;
	char *dir = c->piped ? xstrdup(".") : path_dirname(path);
	char *base = path_absolute(dir);
	free(dir);
	if (workdir) {
		const char *s = scalar(c, workdir, "workdir");
		if (s && !*s)
			diag_error(c->d, loc_of(workdir), "workdir is empty; "
				   "omit it to use the workflow file's directory");
		else if (s) {
			char *j = path_join(base, s);
			wf->workdir = path_normalize(j);
			free(j);
		}
	}
	if (!wf->workdir)
		wf->workdir = xstrdup(base);
	free(base);
}

static void doc_tasks(struct ctx *c, struct ynode *root, struct ynode *tasks);

/* ---- include: other files' vars and tasks ---- */

/* A file being read or read, known by its inode (a name may differ). */
struct incl_at {
	dev_t dev;
	ino_t ino;
	char *name;
};

static void includes_load(struct ctx *c, struct ynode *v);

/* A tree's nodes and errors belong to file index f. */
static void
tree_in_file(struct ctx *c, struct ytree *tree, struct diags *tmp, unsigned f)
{
	for (size_t i = 0; i < tree->nodes.n; i++)
		tree->nodes.v[i].file = (uint16_t)f;
	for (size_t i = 0; i < tmp->list.n; i++) {
		struct diag *g = &tmp->list.v[i];
		struct wf_loc l = wf_loc_at(g->loc.line, WF_LOC_COL(g->loc), f);
		if (g->warning)
			diag_warning(c->d, l, "%s", g->msg);
		else
			diag_error(c->d, l, "%s", g->msg);
	}
	diags_release(tmp);
}

/* Read the YAML file path into tree, its places in that file; a file
 * that cannot be read is said at at.  0, or -1 after an error. */
static int
load_tree(struct ctx *c, const char *path, struct wf_loc at,
	  struct ytree *tree)
{
	struct strbuf sb = STRBUF_INIT;
	struct errbuf err;
	unsigned f = file_index(c, path);
	if (read_bounded(path, READ_MAX_WORKFLOW, &sb, &err) < 0) {
		diag_error(c->d, at, "cannot read %s: %s", path, err.msg);
		strbuf_release(&sb);
		return -1;
	}
	struct diags tmp;
	struct ytree extra;
	bool second = false;
	diags_init(&tmp, path);
	memset(&extra, 0, sizeof(extra));
	int r = ytree_load(tree, &extra, &second, sb.buf, sb.len, &tmp);
	strbuf_release(&sb);
	if (r < 0)
		c->ls->broken = true;
	if (!r && second && extra.root)
		diag_error(&tmp, loc_of(extra.root), "a second YAML document "
			   "('---') follows; a file of a workflow holds one");
	tree_in_file(c, tree, &tmp, f);
	ytree_release(&extra);
	c->visits = 0;
	c->max_visits = c->max_alias + 2 * tree->kids.n;
	return r;
}

/* rel, relative to the directory of the file of c. */
static char *
include_path(const struct ctx *c, const char *rel)
{
	if (rel[0] == '/')
		return path_normalize(rel);
	char *dir = c->piped ? xstrdup(".") : path_dirname(c->path);
	char *j = path_join(dir, rel);
	char *n = path_normalize(j);
	free(j);
	free(dir);
	return n;
}

/* Whether the file st names is in v: its index, or -1. */
static long
incl_find(const struct incl_at *v, size_t n, const struct stat *st)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].dev == st->st_dev && v[i].ino == st->st_ino)
			return (long)i;
	return -1;
}

/* An include cycle: the chain from the file at index from of the files
 * being read, through name again. */
static void
include_cycle(struct ctx *c, struct wf_loc at, size_t from, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	const struct wf_load *ls = c->ls;
	for (size_t i = from; i < ls->chain.n; i++)
		strbuf_addf(&sb, "%s -> ", ls->chain.v[i].name);
	strbuf_adds(&sb, name);
	diag_error(c->d, at, "include cycle: %s", sb.buf);
	strbuf_release(&sb);
}

/* The top of an included file (in f): include, vars and tasks only. */
static void
include_doc(struct ctx *f)
{
	static const char *const keys[] = { "name", "workdir", "vars",
					    "tasks", "log_max", "include" };
	struct ynode *root = f->doc.root;
	if (!root || is_null(f, root) ||
	    !is_mapping(f, root, "an included file"))
		return;
	struct top_arg a = { 0 };
	each_pair(f, root, "an included file", keys, ARRAY_SIZE(keys),
		  top_pair, &a);
	struct ynode *main_only[] = { a.name, a.workdir, a.log_max };
	for (size_t i = 0; i < ARRAY_SIZE(main_only); i++)
		if (main_only[i])
			diag_error(f->d, loc_of(main_only[i]), "%s belongs to the "
				   "workflow file given to wfrun (%s), not to a "
				   "file it includes", keys[i == 2 ? 4 : i],
				   f->wf->file);
	includes_load(f, a.include);
	if (a.vars && !is_null(f, a.vars) && is_mapping(f, a.vars, "vars"))
		each_pair(f, a.vars, "vars", NULL, 0, var_pair, NULL);
	f->tasks = a.tasks;
}

/* Include the file rel (named at at) of the file of c: its includes and
 * vars now, its tasks kept in program order; a file already included is
 * not included again. */
static void
include_one(struct ctx *c, const char *rel, struct wf_loc at)
{
	struct wf_load *ls = c->ls;
	if (ls->in_memory) {
		diag_error(c->d, at, "include: a workflow loaded from memory "
			   "reads no other file");
		return;
	}
	char *path = include_path(c, rel);
	struct stat st;
	if (stat(path, &st) < 0) {
		diag_error(c->d, at, "cannot include %s: %s", path,
			   strerror(errno));
		free(path);
		return;
	}
	long cyc = incl_find(ls->chain.v, ls->chain.n, &st);
	if (cyc >= 0 || incl_find(ls->done.v, ls->done.n, &st) >= 0 ||
	    ls->done.n >= WF_MAX_FILES - 1) {
		if (cyc >= 0)
			include_cycle(c, at, (size_t)cyc, path);
		else if (ls->done.n >= WF_MAX_FILES - 1)
			diag_error(c->d, at, "a workflow includes at most %d "
				   "files", WF_MAX_FILES - 1);
		free(path);
		return;
	}
	struct incl_at me = { st.st_dev, st.st_ino, path };
	VEC_PUSH(ls->chain, me);
	struct ctx *f = xmalloc(sizeof(*f));
	*f = *c;
	memset(&f->doc, 0, sizeof(f->doc));
	f->path = path;
	f->piped = false;
	f->tasks = NULL;
	if (load_tree(f, path, at, &f->doc) == 0)
		include_doc(f);
	VEC_PUSH(ls->included, f);
	ls->chain.n--;
	VEC_PUSH(ls->done, me);
}

/* include: (v, or NULL) of the file of c. */
static void
includes_load(struct ctx *c, struct ynode *v)
{
	if (!v || is_null(c, v))
		return;
	if (v->type != YAML_SEQUENCE_NODE) {
		diag_error(c->d, loc_of(v), "include must be a list of files "
			   "([parts/a.yaml, ...]), not %s", type_name(v));
		return;
	}
	for (size_t i = 0; i < v->n; i++) {
		struct ynode *e = node_at(c, v, i);
		const char *s = e ? scalar(c, e, "an included file") : NULL;
		if (s && !*s)
			diag_error(c->d, loc_of(e), "include: an empty file name");
		else if (s)
			include_one(c, s, loc_of(e));
	}
}

/* The tasks of the included files, in the order they were included
 * (each after the files it includes), before those of the workflow's. */
static void
includes_tasks(struct ctx *c)
{
	struct wf_load *ls = c->ls;
	for (size_t i = 0; i < ls->included.n; i++) {
		struct ctx *f = ls->included.v[i];
		if (f->tasks)
			doc_tasks(f, f->doc.root, f->tasks);
	}
}

/* The main file (the first of the chain) and the load's shared state. */
static void
load_begin(struct ctx *c, struct wf_load *ls, const char *path,
	   const struct wf_settings *set)
{
	memset(ls, 0, sizeof(*ls));
	hmap_init(&ls->ovr_index);
	hmap_init(&ls->task_names);
	c->ls = ls;
	c->path = path;
	VEC_PUSH(c->wf->files, xstrdup(path));
	struct stat st;
	if (!c->piped && stat(path, &st) == 0) {
		struct incl_at me = { st.st_dev, st.st_ino, xstrdup(path) };
		VEC_PUSH(ls->chain, me);
	}
	overrides_load(c, set);
}

static void
load_end(struct wf_load *ls)
{
	for (size_t i = 0; i < ls->included.n; i++) {
		ytree_release(&ls->included.v[i]->doc);
		free(ls->included.v[i]);
	}
	VEC_FREE(ls->included);
	for (size_t i = 0; i < ls->chain.n; i++)
		free(ls->chain.v[i].name);
	for (size_t i = 0; i < ls->done.n; i++)
		free(ls->done.v[i].name);
	VEC_FREE(ls->chain);
	VEC_FREE(ls->done);
	hmap_release(&ls->task_names);
	overrides_release(ls);
}

/* Task t has the name of task first: said with first's place. */
static void
task_again(struct ctx *c, const struct wf_task *t, const struct wf_task *first)
{
	struct strbuf at = STRBUF_INIT;
	if (WF_LOC_FILE(first->loc) == WF_LOC_FILE(t->loc))
		strbuf_addf(&at, "line %u", first->loc.line);
	else
		add_loc(c, &at, first->loc);
	diag_error(c->d, t->loc, "duplicate task name '%s' (first at %s); task "
		   "names must be unique", t->name, at.buf);
	strbuf_release(&at);
}

/* Parse task node tn as the next task (the array has room). */
static struct wf_task *
add_task(struct ctx *c, struct ynode *tn)
{
	struct workflow *wf = c->wf;
	struct hmap *names = &c->ls->task_names;
	struct wf_task *t = &wf->tasks[wf->ntasks];
	parse_task(c, tn, t, wf->ntasks);
	wf->ntasks++;
	if (t->name) {
		int found;
		uint64_t *slot = hmap_put(names, t->name, strlen(t->name),
					  wf->ntasks - 1, &found);
		if (found)
			task_again(c, t, &wf->tasks[*slot]);
	}
	return t;
}

/* ---- repeat blocks (wfrun-workflow(5), REPEAT) ---- */

/* Is task list item n a repeat block (a mapping with the key repeat)? */
static bool
is_repeat(struct ctx *c, struct ynode *n)
{
	if (n->type != YAML_MAPPING_NODE)
		return false;
	for (size_t p = 0; p < n->n; p += 2) {
		struct ynode *k = node_at(c, n, p);
		if (k && k->type == YAML_SCALAR_NODE &&
		    !strcmp(ytext(c, k), "repeat"))
			return true;
	}
	return false;
}

struct repeat_arg {
	struct wf_repeat *r;
	struct ynode *tasks, *max;
};

static void
repeat_pair(struct ctx *c, const char *key, struct ynode *k, struct ynode *v,
	    void *arg)
{
	struct repeat_arg *ra = arg;
	(void)k;
	if (!strcmp(key, "until")) {
		const char *s = scalar(c, v, "until");
		if (s && !*s)
			diag_error(c->d, loc_of(v), "until is empty: give a "
				   "command that exits 0 once converged");
		else if (s)
			ra->r->until = wf_strdup(c->wf, s);
		ra->r->until_loc = loc_of(v);
	} else if (!strcmp(key, "max")) {
		ra->max = v;
		parse_int_node(c, v, "max", 1, &ra->r->max);
	} else if (!strcmp(key, "tasks")) {
		ra->tasks = v;
	}
}

/* The implicit foreach keys iter and prev, first, of task t of a
 * repeat block (their values are set as each iteration is expanded). */
static void
repeat_keys(struct ctx *c, struct wf_task *t)
{
	static const char *const keys[] = { "iter", "prev" };
	struct wf_foreach *fe = &t->foreach;
	for (size_t k = 0; k < fe->n; k++)
		for (size_t j = 0; j < ARRAY_SIZE(keys); j++)
			if (!strcmp(fe->v[k].name, keys[j]))
				diag_error(c->d, fe->v[k].loc, "foreach key '%s' "
					   "of task '%s' is the repeat block's "
					   "own; rename it", keys[j],
					   t->name ? t->name : "?");
	fe->v = xrealloc(fe->v, (fe->n + 2) * sizeof(*fe->v));
	memmove(fe->v + 2, fe->v, fe->n * sizeof(*fe->v));
	for (size_t j = 0; j < ARRAY_SIZE(keys); j++) {
		struct wf_iter it = { 0 };
		it.name = xstrdup(keys[j]);
		it.kind = WF_ITER_RANGE;
		it.lo = xstrdup(j ? "0" : "1");
		it.hi = xstrdup(j ? "0" : "1");
		it.loc = t->loc;
		fe->v[j] = it;
	}
	fe->n += 2;
}

/* - repeat: {until: CMD, max: N, tasks: [...]}: its tasks are appended
 * as any others, the block remembers which; rest: the task list's items
 * after it, which keep their room. */
static void
parse_repeat(struct ctx *c, struct ynode *n, size_t rest)
{
	static const char *const keys[] = { "until", "max", "tasks" };
	struct workflow *wf = c->wf;
	struct ynode *v = NULL;
	for (size_t p = 0; p + 1 < n->n; p += 2) {
		struct ynode *k = node_at(c, n, p);
		const char *key = k ? scalar(c, k, "a key") : NULL;
		if (key && !strcmp(key, "repeat"))
			v = node_at(c, n, p + 1);
		else if (key)
			diag_error(c->d, loc_of(k), "a repeat block has no key "
				   "'%s' beside repeat: put it in a task of "
				   "repeat: {tasks: [...]}", key);
	}
	if (!v || !is_mapping(c, v, "repeat"))
		return;
	struct wf_repeat r = { 0 };
	r.loc = loc_of(n);
	struct repeat_arg ra = { &r, NULL, NULL };
	each_pair(c, v, "repeat", keys, ARRAY_SIZE(keys), repeat_pair, &ra);
	if (!ra.max)
		diag_error(c->d, r.loc, "repeat has no max: add max: N, the "
			   "most iterations to run");
	if (!r.until && !r.until_loc.line)
		diag_error(c->d, r.loc, "repeat has no until: add until: CMD, "
			   "a command that exits 0 once converged");
	if (!ra.tasks || ra.tasks->type != YAML_SEQUENCE_NODE || !ra.tasks->n) {
		diag_error(c->d, ra.tasks ? loc_of(ra.tasks) : r.loc,
			   "repeat needs tasks: a list of tasks");
		return;
	}
	size_t room = ra.tasks->n + rest + 1;
	wf->tasks = xrealloc(wf->tasks, (wf->ntasks + room) *
					 sizeof(*wf->tasks));
	memset(wf->tasks + wf->ntasks, 0, room * sizeof(*wf->tasks));
	r.from = wf->ntasks;
	for (size_t i = 0; i < ra.tasks->n; i++) {
		struct ynode *tn = node_at(c, ra.tasks, i);
		if (!tn)
			break;
		if (tn->type == YAML_MAPPING_NODE && is_repeat(c, tn))
			diag_error(c->d, loc_of(tn), "a repeat block cannot hold "
				   "another");
		else
			repeat_keys(c, add_task(c, tn));
	}
	r.to = wf->ntasks;
	wf->repeats = xrealloc(wf->repeats, (wf->nrepeats + 1) *
					     sizeof(*wf->repeats));
	wf->repeats[wf->nrepeats++] = r;
}

const struct wf_repeat *
workflow_repeat_of(const struct workflow *wf, size_t i)
{
	for (size_t r = 0; r < wf->nrepeats; r++)
		if (i >= wf->repeats[r].from && i < wf->repeats[r].to)
			return &wf->repeats[r];
	return NULL;
}

/* tasks:, a list of tasks with unique names. */
static void
doc_tasks(struct ctx *c, struct ynode *root, struct ynode *tasks)
{
	struct workflow *wf = c->wf;
	if (!tasks) {
		diag_error(c->d, loc_of(root), "the workflow has no tasks: add "
			   "tasks: with a list of tasks");
		return;
	}
	if (tasks->type != YAML_SEQUENCE_NODE) {
		diag_error(c->d, loc_of(tasks), "tasks must be a list (each item "
			   "starting with '- name: ...'), not %s",
			   type_name(tasks));
		return;
	}
	size_t n = tasks->n;
	if (!n)
		diag_error(c->d, loc_of(tasks), "tasks is empty");
	/* after the tasks of the files included before */
	wf->tasks = xrealloc(wf->tasks, (wf->ntasks + n + !n) *
					 sizeof(*wf->tasks));
	memset(wf->tasks + wf->ntasks, 0, n * sizeof(*wf->tasks));
	for (size_t i = 0; i < n; i++) {
		struct ynode *tn = node_at(c, tasks, i);
		if (!tn) {
			diag_error(c->d, loc_of(tasks), "document too large");
			break;
		}
		if (is_repeat(c, tn))
			parse_repeat(c, tn, n - i - 1);
		else
			add_task(c, tn);
	}
}

static void
load_doc(struct ctx *c, const char *path)
{
	static const char *const top_keys[] = { "name", "workdir", "vars",
						"tasks", "log_max", "include",
						"container", "modules" };
	struct ynode *root = c->doc.root;
	struct wf_loc l1 = { 1, 1 };
	if (!root || is_null(c, root)) {
		diag_error(c->d, l1, "the workflow is empty: it needs tasks:");
		return;
	}
	if (!is_mapping(c, root, "the workflow"))
		return;
	struct top_arg a = { 0 };
	each_pair(c, root, "the workflow", top_keys, ARRAY_SIZE(top_keys),
		  top_pair, &a);
	doc_name(c, a.name, path);
	doc_workdir(c, a.workdir, path);
	includes_load(c, a.include);
	if (c->ls->broken)
		return; /* as for the workflow's own YAML */
	if (a.vars && !is_null(c, a.vars) && is_mapping(c, a.vars, "vars"))
		each_pair(c, a.vars, "vars", NULL, 0, var_pair, NULL);
	c->wf->log_max = WF_LOG_MAX_DEFAULT;
	if (a.log_max)
		parse_log_max(c, a.log_max, &c->wf->log_max);
	if (a.container)
		parse_container(c, a.container, &c->wf->container);
	if (a.modules)
		parse_modules(c, a.modules, &c->wf->modules);
	includes_tasks(c);
	if (a.tasks || !c->wf->ntasks)
		doc_tasks(c, root, a.tasks);
	swenv_defaults(c->wf);
	check_learn_as(c, c->wf);
	overrides_unused(c);
	for (size_t i = 0; i < c->wf->ntasks; i++)
		if (!c->wf->tasks[i].log_max)
			c->wf->tasks[i].log_max = c->wf->log_max;
}

/* The position of byte off of buf, for errors libyaml's reader reports
 * as an offset (bad UTF-8, control characters). */
static struct wf_loc
loc_of_offset(const char *buf, size_t len, size_t off)
{
	struct wf_loc l = { 1, 1 };
	for (size_t i = 0; i < off && i < len; i++) {
		if (buf[i] == '\n') {
			l.line++;
			l.col = 1;
		} else if (((unsigned char)buf[i] & 0xc0) != 0x80 &&
			   WF_LOC_COL(l) < WF_MAX_COL) {
			l.col++; /* columns count characters, as libyaml's */
		}
	}
	return l;
}

/*
 * The tree of the first document, from one pass over libyaml's events,
 * which fail as its loader fails: first a YAML error, then (as they come)
 * an alias with no anchor or an anchor given twice.  The pass goes on to
 * the end of the stream, for nesting deeper than WF_MAX_DEPTH anywhere
 * (that one error is all that is said, before libyaml spends time
 * quadratic in the depth: 100,000 levels took 22 s) and for a second
 * document that loads.
 */
struct ybuild {
	struct ytree *t;        /* being built; NULL: events only counted */
	VEC(uint32_t) open;     /* collections open, then the first of their
				   children in pending, in pairs */
	VEC(uint32_t) pending;  /* children of the open collections */
	uint32_t root;
	struct hmap anchors;    /* anchor -> node, in this document */
	struct arena names;     /* the anchors' names */
	int depth;
	int docs;               /* documents begun */
	bool failed;            /* this document does not load */
	bool deep;
	/* the first document's error, as libyaml's loader says it */
	const char *problem, *context;
	yaml_mark_t problem_mark, context_mark;
};

static struct wf_loc
loc_of_mark(yaml_mark_t m)
{
	return wf_loc_at((unsigned)m.line + 1, (unsigned long)m.column + 1, 0);
}

static void
ybuild_doc(struct ybuild *b, struct ytree *t)
{
	b->t = t;
	b->open.n = b->pending.n = 0;
	b->root = UINT32_MAX;
	b->failed = false;
	hmap_release(&b->anchors);
	hmap_init(&b->anchors);
	arena_release(&b->names);
	arena_init(&b->names);
}

static void
ybuild_fail(struct ybuild *b, const char *context, yaml_mark_t cmark,
	    const char *problem, yaml_mark_t pmark)
{
	b->failed = true;
	if (b->docs != 1 || b->problem)
		return;
	b->context = context;
	b->context_mark = cmark;
	b->problem = problem;
	b->problem_mark = pmark;
}

/* A node now a child of the innermost open collection, or the root. */
static void
ybuild_child(struct ybuild *b, uint32_t idx)
{
	if (b->open.n)
		VEC_PUSH(b->pending, idx);
	else
		b->root = idx;
}

static void
ybuild_anchor(struct ybuild *b, const yaml_char_t *anchor, uint32_t idx)
{
	if (!anchor)
		return;
	const char *name = (const char *)anchor;
	size_t len = strlen(name);
	uint64_t *first = hmap_get(&b->anchors, name, len);
	if (first) {
		const struct ynode *f = &b->t->nodes.v[*first];
		const struct ynode *n = &b->t->nodes.v[idx];
		yaml_mark_t fm = { 0, f->line, f->col }, nm = { 0, n->line, n->col };
		ybuild_fail(b, "found duplicate anchor; first occurrence", fm,
			    "second occurrence", nm);
		return;
	}
	int found;
	hmap_put(&b->anchors, arena_strndup(&b->names, name, len), len, idx,
		 &found);
}

/* Room for need elements of size at v: the tree's arrays grow by an
 * eighth (a large realloc moves pages, not bytes), not double, for the
 * peak of a file of a million tasks. */
static void *
ygrow(void *v, size_t *alloc, size_t need, size_t size)
{
	if (need <= *alloc)
		return v;
	size_t na = *alloc + *alloc / 8 + 4096;
	if (na < need)
		na = need;
	*alloc = na;
	return xrealloc(v, na * size);
}

static uint32_t
ybuild_node(struct ybuild *b, const yaml_event_t *ev, uint8_t type)
{
	struct ytree *t = b->t;
	struct ynode n = { (uint32_t)ev->start_mark.line,
			   (uint32_t)ev->start_mark.column, 0, 0, type, 0, 0 };
	if (type == YAML_SCALAR_NODE) {
		size_t len = ev->data.scalar.length;
		n.off = (uint32_t)t->text.n;
		n.n = (uint32_t)len;
		n.plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		t->text.v = ygrow(t->text.v, &t->text.alloc, t->text.n + len + 1,
				  1);
		memcpy(t->text.v + t->text.n, ev->data.scalar.value, len);
		t->text.v[t->text.n + len] = '\0';
		t->text.n += len + 1;
	}
	t->nodes.v = ygrow(t->nodes.v, &t->nodes.alloc, t->nodes.n + 1,
			   sizeof(n));
	t->nodes.v[t->nodes.n++] = n;
	return (uint32_t)(t->nodes.n - 1);
}

/* The end of the innermost open collection: its children move from
 * pending to the tree's kids, in one run. */
static void
ybuild_close(struct ybuild *b)
{
	uint32_t at = b->open.v[--b->open.n];
	uint32_t idx = b->open.v[--b->open.n];
	struct ynode *n = &b->t->nodes.v[idx];
	struct ytree *t = b->t;
	n->off = (uint32_t)t->kids.n;
	n->n = (uint32_t)(b->pending.n - at);
	t->kids.v = ygrow(t->kids.v, &t->kids.alloc, t->kids.n + n->n,
			  sizeof(*t->kids.v));
	if (n->n)
		memcpy(t->kids.v + t->kids.n, b->pending.v + at,
		       n->n * sizeof(uint32_t));
	t->kids.n += n->n;
	b->pending.n = at;
	ybuild_child(b, idx);
}

/* One node event of a document being loaded. */
static void
ybuild_event(struct ybuild *b, const yaml_event_t *ev)
{
	uint32_t idx;
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		idx = ybuild_node(b, ev, YAML_SCALAR_NODE);
		ybuild_anchor(b, ev->data.scalar.anchor, idx);
		ybuild_child(b, idx);
		break;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		idx = ybuild_node(b, ev, ev->type == YAML_SEQUENCE_START_EVENT
						 ? YAML_SEQUENCE_NODE
						 : YAML_MAPPING_NODE);
		ybuild_anchor(b, ev->type == YAML_SEQUENCE_START_EVENT
					 ? ev->data.sequence_start.anchor
					 : ev->data.mapping_start.anchor, idx);
		VEC_PUSH(b->open, idx);
		VEC_PUSH(b->open, (uint32_t)b->pending.n);
		break;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		ybuild_close(b);
		break;
	case YAML_ALIAS_EVENT: {
		const char *name = (const char *)ev->data.alias.anchor;
		uint64_t *to = hmap_get(&b->anchors, name, strlen(name));
		if (to)
			ybuild_child(b, (uint32_t)*to);
		else
			ybuild_fail(b, NULL, ev->start_mark,
				    "found undefined alias", ev->start_mark);
		break;
	}
	default:
		break;
	}
}

/* Depth first: nesting too deep is the one error said.  Then the
 * document the event belongs to: the first is kept in tree, the second
 * (in scratch) only shows whether it loads. */
static void
ybuild_step(struct ybuild *b, const yaml_event_t *ev, struct ytree *tree,
	    struct ytree *scratch, bool *second)
{
	if (ev->type == YAML_SEQUENCE_START_EVENT ||
	    ev->type == YAML_MAPPING_START_EVENT)
		b->depth++;
	else if (ev->type == YAML_SEQUENCE_END_EVENT ||
		 ev->type == YAML_MAPPING_END_EVENT)
		b->depth--;
	if (b->depth > WF_MAX_DEPTH) {
		b->deep = true;
		return;
	}
	if (ev->type == YAML_DOCUMENT_START_EVENT) {
		b->docs++;
		ybuild_doc(b, b->docs == 1 ? tree
			      : b->docs == 2 && !b->problem ? scratch : NULL);
	} else if (ev->type == YAML_DOCUMENT_END_EVENT && b->t) {
		if (b->docs == 1 && !b->failed && b->root != UINT32_MAX)
			tree->root = &tree->nodes.v[b->root];
		if (b->docs == 2 && !b->failed && b->root != UINT32_MAX) {
			*second = true;
			scratch->root = &scratch->nodes.v[b->root];
		}
		b->t = NULL;
	} else if (b->t && !b->failed) {
		ybuild_event(b, ev);
	}
}

static void
ytree_release(struct ytree *t)
{
	VEC_FREE(t->nodes);
	VEC_FREE(t->kids);
	VEC_FREE(t->text);
	t->root = NULL;
}

/* libyaml's parser error at its position in buf. */
static void
yaml_error(const yaml_parser_t *parser, const char *buf, size_t len,
	   struct diags *d)
{
	struct wf_loc l = loc_of_mark(parser->problem_mark);
	const char *problem = parser->problem ? parser->problem : "error";
	if (parser->error == YAML_READER_ERROR) {
		l = loc_of_offset(buf, len, parser->problem_offset);
		bool utf8 = strstr(problem, "UTF-8") != NULL;
		if (parser->problem_value >= 0)
			diag_error(d, l, "YAML syntax error: %s (byte 0x%02x)%s",
				   problem, (unsigned)parser->problem_value & 0xff,
				   utf8 ? "; a workflow file must be UTF-8" : "");
		else
			diag_error(d, l, "YAML syntax error: %s", problem);
	} else if (parser->context) {
		diag_error(d, l, "YAML syntax error: %s %s (line %zu)", problem,
			   parser->context, (size_t)parser->context_mark.line + 1);
	} else {
		diag_error(d, l, "YAML syntax error: %s", problem);
	}
}

/*
 * Parse buf into tree: 0, or -1 after reporting why not.  *second is set
 * when a second document follows that loads (its root in scratch).
 */
static int
ytree_load(struct ytree *tree, struct ytree *scratch, bool *second,
	   const char *buf, size_t len, struct diags *d)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	struct ybuild b;
	memset(&b, 0, sizeof(b));
	hmap_init(&b.anchors);
	arena_init(&b.names);
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	bool end = false, bad = false;
	while (!b.deep && !end) {
		if (!yaml_parser_parse(&parser, &ev)) {
			/* the first document's loader fails here unless it
			 * failed before, or was done */
			bad = b.docs <= 1 && !tree->root;
			if (bad && !b.problem)
				yaml_error(&parser, buf, len, d);
			break;
		}
		ybuild_step(&b, &ev, tree, scratch, second);
		end = ev.type == YAML_STREAM_END_EVENT;
		if (b.deep)
			diag_error(d, loc_of_mark(ev.start_mark), "the YAML nests "
				   "more than %d levels deep here; a workflow "
				   "needs far fewer", WF_MAX_DEPTH);
		yaml_event_delete(&ev);
	}
	if (b.problem && !b.deep) {
		struct wf_loc l = loc_of_mark(b.problem_mark);
		if (b.context)
			diag_error(d, l, "YAML syntax error: %s %s (line %zu)",
				   b.problem, b.context,
				   (size_t)b.context_mark.line + 1);
		else
			diag_error(d, l, "YAML syntax error: %s", b.problem);
	}
	yaml_parser_delete(&parser);
	hmap_release(&b.anchors);
	arena_release(&b.names);
	VEC_FREE(b.open);
	VEC_FREE(b.pending);
	return b.deep || b.problem || bad ? -1 : 0;
}

/* file, when not NULL, holds buf and is released once the tree is
 * built: the file and the workflow need not both be in memory. */
static int
load_mem(struct workflow *wf, const char *path, const char *buf, size_t len,
	 struct strbuf *file, bool piped, size_t max_alias,
	 const struct wf_settings *set, struct diags *d)
{
	memset(wf, 0, sizeof(*wf));
	wf->file = xstrdup(path);
	hmap_init(&wf->var_index);
	arena_init(&wf->strings);
	struct ctx c;
	struct ytree extra;
	bool second = false;
	memset(&c, 0, sizeof(c));
	memset(&extra, 0, sizeof(extra));
	c.d = d;
	c.wf = wf;
	c.piped = piped;
	int r = ytree_load(&c.doc, &extra, &second, buf, len, d);
	if (file)
		strbuf_release(file);
	/* Without aliases, reading visits each node of a collection at most
	 * twice (a task's keys: once for its name); aliases may add
	 * max_alias visits to that. */
	c.max_alias = max_alias;
	c.max_visits = max_alias + 2 * c.doc.kids.n;
	if (!r) {
		struct wf_load ls;
		load_begin(&c, &ls, path, set);
		ls.in_memory = !file;
		load_doc(&c, path);
		load_end(&ls);
		/* A second document is almost always a mistake. */
		if (second)
			diag_error(d, loc_of(extra.root), "a second YAML document "
				   "('---') follows; a workflow file holds one");
	}
	ytree_release(&c.doc);
	ytree_release(&extra);
	return r;
}

int
workflow_load_mem(struct workflow *wf, const char *path, const char *buf,
		  size_t len, struct diags *d)
{
	return load_mem(wf, path, buf, len, NULL, false, WF_MAX_ALIAS_NODES,
			NULL, d);
}

int
workflow_load_mem_limited(struct workflow *wf, const char *path,
			  const char *buf, size_t len, size_t max_alias,
			  struct diags *d)
{
	return load_mem(wf, path, buf, len, NULL, false, max_alias, NULL, d);
}

/* The file is read whole first: the reader's errors are offsets, which
 * only the bytes turn into a line and column.  A pipe (`<(gen)`) is read
 * too; a device is not, and nothing beyond READ_MAX_WORKFLOW. */
int
workflow_load(struct workflow *wf, const char *path, struct diags *d)
{
	return workflow_load_set(wf, path, NULL, d);
}

int
workflow_load_set(struct workflow *wf, const char *path,
		  const struct wf_settings *set, struct diags *d)
{
	struct wf_loc l0 = { 0, 0 };
	struct strbuf sb = STRBUF_INIT;
	struct errbuf err;
	int kind = read_bounded(path, READ_MAX_WORKFLOW, &sb, &err);
	if (kind < 0) {
		memset(wf, 0, sizeof(*wf));
		wf->file = xstrdup(path);
		diag_error(d, l0, "cannot read: %s", err.msg);
		strbuf_release(&sb);
		return -1;
	}
	int r = load_mem(wf, path, sb.buf, sb.len, &sb, kind == 1,
			 WF_MAX_ALIAS_NODES, set, d);
	return r;
}

static void
foreach_release(struct wf_foreach *fe)
{
	for (size_t i = 0; i < fe->n; i++) {
		struct wf_iter *it = &fe->v[i];
		free(it->name);
		free(it->lo);
		free(it->hi);
		for (size_t j = 0; j < it->nitems; j++)
			free(it->items[j]);
		free(it->items);
		free(it->item_locs);
		free(it->glob);
		free(it->var);
		table_release(it->table);
	}
	free(fe->v);
	fe->v = NULL;
	fe->n = 0;
}

static void
data_release(struct wf_data *d)
{
	if (d->list) {
		data_release(&d->list->elem);
		foreach_release(&d->list->each);
		free(d->list);
	}
}

void
workflow_release(struct workflow *wf)
{
	for (size_t i = 0; i < wf->ntasks; i++) {
		struct wf_task *t = &wf->tasks[i];
		free(t->learn_as);
		foreach_release(&t->foreach);
		for (size_t j = 0; j < t->nparams; j++) {
			data_release(&t->params[j].data);
		}
		free(t->params);
		free(t->log);
		for (size_t j = 0; j < t->nenv; j++) {
			free(t->env[j].key);
			free(t->env[j].val);
		}
		free(t->env);
	}
	free(wf->tasks);
	free(wf->repeats);
	for (size_t i = 0; i < wf->nvars; i++) {
		free(wf->vars[i].key);
		free(wf->vars[i].val);
		free(wf->var_ext[i].items);
	}
	free(wf->vars);
	free(wf->var_ext);
	for (size_t i = 0; i < wf->files.n; i++)
		free(wf->files.v[i]);
	VEC_FREE(wf->files);
	hmap_release(&wf->var_index);
	free(wf->file);
	free(wf->name);
	free(wf->workdir);
	arena_release(&wf->strings);
	memset(wf, 0, sizeof(*wf));
}

const struct wf_kv *
workflow_var(const struct workflow *wf, const char *name, size_t len)
{
	if (!wf->nvars)
		return NULL; /* var_index may never have been set up */
	uint64_t *i = hmap_get(&wf->var_index, name, len);
	return i ? &wf->vars[*i] : NULL;
}

const char *
wf_access_name(enum wf_access a)
{
	switch (a) {
	case WF_IN:
		return "in";
	case WF_OUT:
		return "out";
	case WF_INOUT:
		return "inout";
	}
	BUG("bad access %d", (int)a);
}

double
parse_duration(const char *s)
{
	double total = 0;
	bool any = false;
	while (*s) {
		char *end;
		errno = 0;
		double v = strtod(s, &end);
		if (end == s || errno || v < 0 || !isfinite(v))
			return -1;
		s = end;
		double mul;
		switch (*s) {
		case 'h':
			mul = 3600;
			s++;
			break;
		case 'm':
			mul = 60;
			s++;
			break;
		case 's':
			mul = 1;
			s++;
			break;
		case 'd':
			mul = 86400;
			s++;
			break;
		case '\0':
			if (any)
				return -1;
			mul = 1;
			break;
		default:
			return -1;
		}
		total += v * mul;
		any = true;
	}
	return any ? total : -1;
}

long long
parse_memory(const char *s)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || v <= 0 || !isfinite(v))
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	double mul;
	switch (toupper((unsigned char)*end)) {
	case 'B':
		mul = 1;
		break;
	case 'K':
		mul = 1024.0;
		break;
	case 'M':
		mul = 1024.0 * 1024;
		break;
	case 'G':
		mul = 1024.0 * 1024 * 1024;
		break;
	case 'T':
		mul = 1024.0 * 1024 * 1024 * 1024;
		break;
	default:
		return -1;
	}
	end++;
	if (mul > 1 && (*end == 'B' || *end == 'b'))
		end++;
	else if (mul > 1 && *end == 'i' && (end[1] == 'B' || end[1] == 'b'))
		end += 2;
	if (*end)
		return -1;
	double b = v * mul;
	if (b > 9e18)
		return -1;
	return (long long)b;
}
