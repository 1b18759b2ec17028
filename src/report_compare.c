#include "report_compare.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "history.h"

/* history.c's status of a run with nothing to do (its run.json). */
#define NOTHING_TO_DO "nothing to do"

enum unit { U_COUNT, U_SEC, U_KB, U_BYTES };

static const struct {
	const char *key, *title;
	enum unit unit;
} metrics[CM_N] = {
	[CM_INSTANCES] = { "instances", "instances run", U_COUNT },
	[CM_WALL] = { "wall_s", "wall time, total", U_SEC },
	[CM_WALL_MEDIAN] = { "wall_median_s", "wall time, median", U_SEC },
	[CM_CPU] = { "cpu_s", "CPU time, total", U_SEC },
	[CM_CPU_MEDIAN] = { "cpu_median_s", "CPU time, median", U_SEC },
	[CM_RSS_MEDIAN] = { "peak_rss_median_kb", "peak RSS, median", U_KB },
	[CM_RSS_MAX] = { "peak_rss_max_kb", "peak RSS, max", U_KB },
	[CM_READ] = { "read_bytes", "bytes read", U_BYTES },
	[CM_WRITE] = { "write_bytes", "bytes written", U_BYTES },
};

void
compare_init(struct compare *c)
{
	memset(c, 0, sizeof(*c));
	for (int k = 0; k < 2; k++) {
		report_init(&c->s[k].r);
		hmap_init(&c->s[k].inst_map);
	}
	hmap_init(&c->name_map);
	arena_init(&c->arena);
}

void
compare_release(struct compare *c)
{
	for (int k = 0; k < 2; k++) {
		struct compare_side *s = &c->s[k];
		free(s->label);
		free(s->trace);
		report_release(&s->r);
		VEC_FREE(s->inst);
		hmap_release(&s->inst_map);
	}
	for (size_t i = 0; i < c->names.n; i++) {
		VEC_FREE(c->names.v[i].only[0]);
		VEC_FREE(c->names.v[i].only[1]);
	}
	VEC_FREE(c->names);
	hmap_release(&c->name_map);
	arena_release(&c->arena);
}

/* ---- naming a run ---- */

/* err: spec is neither a file nor a run; the three nearest ids (the
 * latest first among equally near ones). */
static int
no_such_run(const char *spec, const struct history_rec *recs, long n,
	    struct errbuf *err)
{
	if (n <= 0)
		return errprintf(err, "'%s' is neither a trace file nor a run: "
				 "no runs are recorded in %s (run it in a "
				 "workflow's workdir)", spec, HISTORY_DIR);
	struct strbuf b = STRBUF_INIT;
	bool *used = xcalloc((size_t)n, sizeof(*used));
	for (long k = 0; k < 3 && k < n; k++) {
		long best = -1;
		size_t bd = 0;
		for (long i = n - 1; i >= 0; i--) {
			size_t d = used[i] ? 0 : edit_distance(spec, recs[i].id);
			if (!used[i] && (best < 0 || d < bd)) {
				best = i;
				bd = d;
			}
		}
		used[best] = true;
		strbuf_addf(&b, "%s%s", k ? ", " : "", recs[best].id);
	}
	errprintf(err, "no run '%s' in %s, and no file of that name; the "
		  "nearest run ids: %s (wfrun log lists them)", spec,
		  HISTORY_DIR, b.buf);
	free(used);
	strbuf_release(&b);
	return -1;
}

/* The index in recs of the run spec names, or -1 with err. */
static long
pick_run(const char *spec, const struct history_rec *recs, long n,
	 struct errbuf *err)
{
	bool latest = !strcmp(spec, "latest");
	if (latest || !strcmp(spec, "previous")) {
		long skip = latest ? 0 : 1;
		for (long i = n - 1; i >= 0; i--)
			if (strcmp(recs[i].status, NOTHING_TO_DO) && skip-- == 0)
				return i;
		return errprintf(err, "there is no %s run that ran something "
				 "in %s (wfrun log lists the runs)", spec,
				 HISTORY_DIR);
	}
	size_t len = strlen(spec);
	long found = -1, matches = 0;
	struct strbuf b = STRBUF_INIT;
	for (long i = 0; i < n; i++) {
		if (!strcmp(recs[i].id, spec))
			return i;
		if (len && !strncmp(recs[i].id, spec, len)) {
			found = i;
			if (matches++ < 4)
				strbuf_addf(&b, "%s%s", matches > 1 ? ", " : "",
					    recs[i].id);
		}
	}
	if (matches > 1)
		errprintf(err, "run id prefix '%s' is ambiguous: %s%s", spec,
			  b.buf, matches > 4 ? ", ..." : "");
	strbuf_release(&b);
	if (matches == 1)
		return found;
	return matches ? -1 : no_such_run(spec, recs, n, err);
}

/* err: run i had nothing to do; the run whose trace it kept. */
static int
nothing_run(const struct history_rec *recs, long i, struct errbuf *err)
{
	long k = i;
	while (--k >= 0 && !strcmp(recs[k].status, NOTHING_TO_DO))
		;
	if (k < 0)
		return errprintf(err, "run %s had nothing to do: it has no "
				 "trace, and no run before it ran something",
				 recs[i].id);
	return errprintf(err, "run %s had nothing to do: it has no trace; "
			 "the trace it kept as the latest is run %s's (try "
			 "wfrun report --compare %s ...)", recs[i].id,
			 recs[k].id, recs[k].id);
}

int
compare_resolve(const char *wd, const char *spec, char **trace, char **label,
		struct errbuf *err)
{
	struct stat st;
	if (stat(spec, &st) == 0) {
		*trace = S_ISDIR(st.st_mode) ? xasprintf("%s/trace.tsv", spec)
					     : xstrdup(spec);
		*label = xstrdup(spec);
		return 0;
	}
	struct history_rec *recs;
	long n = history_list(wd, &recs, err);
	if (n < 0)
		return -1;
	long i = pick_run(spec, recs, n, err);
	int rc = 0;
	if (i >= 0 && !strcmp(recs[i].status, NOTHING_TO_DO))
		rc = nothing_run(recs, i, err);
	else if (i < 0)
		rc = -1;
	if (!rc) {
		*trace = xasprintf("%s%s%s/%s/trace.tsv", wd ? wd : "", wd ? "/" : "",
				   HISTORY_DIR, recs[i].id);
		*label = xstrdup(recs[i].id);
	}
	free(recs);
	return rc;
}

/* ---- summing ---- */

/* The index of task name name (from a side's report, which outlives c's
 * maps), added the first time it is seen. */
static uint32_t
name_of(struct compare *c, const char *name)
{
	int found;
	uint64_t *v = hmap_put(&c->name_map, name, strlen(name), c->names.n,
			       &found);
	if (found)
		return (uint32_t)*v;
	struct compare_name cn = { .name = name };
	for (int m = 0; m < CM_N; m++)
		cn.m[0][m] = cn.m[1][m] = m == CM_INSTANCES ? 0 : NAN;
	VEC_PUSH(c->names, cn);
	return (uint32_t)*v;
}

/* acc += v, where < 0 is unknown (and unknown + v is v). */
static void
add_known(double *acc, double v)
{
	if (v >= 0)
		*acc = *acc < 0 ? v : *acc + v;
}

static void
key_of(struct strbuf *key, const char *name, const char *tag)
{
	strbuf_reset(key);
	strbuf_addf(key, "%s\t%s", name, tag);
}

/* Side k's trace read and its attempts summed into instances. */
static int
load_side(struct compare *c, int k, struct errbuf *err)
{
	struct compare_side *s = &c->s[k];
	if (report_load_trace(&s->r, s->trace, err) < 0)
		return -1;
	struct strbuf key = STRBUF_INIT;
	for (size_t i = 0; i < s->r.tasks.n; i++) {
		const struct report_task *t = &s->r.tasks.v[i];
		key_of(&key, t->name, t->tag);
		uint64_t *v = hmap_get(&s->inst_map, key.buf, key.len);
		if (!v) {
			struct compare_inst in = {
				name_of(c, t->name), t->tag, 0, -1, -1, -1, -1, 0
			};
			int found;
			const char *kk = arena_strndup(&c->arena, key.buf,
						       key.len);
			v = hmap_put(&s->inst_map, kk, key.len, s->inst.n,
				     &found);
			VEC_PUSH(s->inst, in);
		}
		struct compare_inst *in = &s->inst.v[*v];
		in->wall += t->complete - t->start;
		add_known(&in->cpu, t->cpu);
		if (t->rss_kb > in->rss_kb)
			in->rss_kb = (double)t->rss_kb;
		add_known(&in->rbytes, (double)t->rbytes);
		add_known(&in->wbytes, (double)t->wbytes);
		in->attempts++;
	}
	strbuf_release(&key);
	return 0;
}

/* The total, median and largest of the known (>= 0) of n values: into
 * out[0..3), NAN when none is known.  v is reordered. */
static void
stats(double *v, size_t n, double out[3])
{
	size_t k = 0;
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i] >= 0) {
			sum += v[i];
			v[k++] = v[i];
		}
	if (!k) {
		out[0] = out[1] = out[2] = NAN;
		return;
	}
	qsort(v, k, sizeof(*v), cmp_double);
	out[0] = sum;
	out[1] = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
	out[2] = v[k - 1];
}

/* The metrics of name nm in side k, from its instances' values (one
 * column per quantity in vals, n rows). */
static void
name_metrics(struct compare_name *nm, int k, double *vals[5], size_t n)
{
	double st[3];
	double *m = nm->m[k];
	m[CM_INSTANCES] = (double)n;
	stats(vals[0], n, st);
	m[CM_WALL] = st[0];
	m[CM_WALL_MEDIAN] = st[1];
	stats(vals[1], n, st);
	m[CM_CPU] = st[0];
	m[CM_CPU_MEDIAN] = st[1];
	stats(vals[2], n, st);
	m[CM_RSS_MEDIAN] = st[1];
	m[CM_RSS_MAX] = st[2];
	stats(vals[3], n, st);
	m[CM_READ] = st[0];
	stats(vals[4], n, st);
	m[CM_WRITE] = st[0];
}

/* Side k's instances grouped by name into each name's metrics. */
static void
sum_side(struct compare *c, int k)
{
	const struct compare_side *s = &c->s[k];
	size_t nn = c->names.n, ni = s->inst.n;
	size_t *start = xcalloc(nn + 1, sizeof(*start));
	for (size_t i = 0; i < ni; i++)
		start[s->inst.v[i].name + 1]++;
	for (size_t j = 0; j < nn; j++)
		start[j + 1] += start[j];
	double *buf = xcalloc(5 * (ni ? ni : 1), sizeof(*buf));
	size_t *fill = xcalloc(nn, sizeof(*fill));
	for (size_t i = 0; i < ni; i++) {
		const struct compare_inst *in = &s->inst.v[i];
		size_t at = start[in->name] + fill[in->name]++;
		buf[at] = in->wall;
		buf[ni + at] = in->cpu;
		buf[2 * ni + at] = in->rss_kb;
		buf[3 * ni + at] = in->rbytes;
		buf[4 * ni + at] = in->wbytes;
	}
	for (size_t j = 0; j < nn; j++) {
		size_t n = start[j + 1] - start[j];
		if (!n)
			continue;
		double *vals[5];
		for (int q = 0; q < 5; q++)
			vals[q] = buf + (size_t)q * ni + start[j];
		name_metrics(&c->names.v[j], k, vals, n);
	}
	free(start);
	free(buf);
	free(fill);
}

/* The instances of side k whose name ran in both runs but that did not
 * run in the other. */
static void
only_in(struct compare *c, int k)
{
	const struct compare_side *s = &c->s[k], *o = &c->s[!k];
	struct strbuf key = STRBUF_INIT;
	for (size_t i = 0; i < s->inst.n; i++) {
		const struct compare_inst *in = &s->inst.v[i];
		struct compare_name *nm = &c->names.v[in->name];
		if (!nm->m[!k][CM_INSTANCES])
			continue;
		key_of(&key, nm->name, in->tag);
		if (!hmap_get(&o->inst_map, key.buf, key.len))
			VEC_PUSH(nm->only[k], in->tag);
	}
	strbuf_release(&key);
}

static int
cmp_tag(const void *a, const void *b)
{
	return strverscmp(*(const char *const *)a, *(const char *const *)b);
}

int
compare_load(struct compare *c, const char *a, const char *b,
	     struct errbuf *err)
{
	const char *spec[2] = { a, b };
	for (int k = 0; k < 2; k++)
		if (compare_resolve(NULL, spec[k], &c->s[k].trace,
				    &c->s[k].label, err) < 0 ||
		    load_side(c, k, err) < 0)
			return -1;
	for (int k = 0; k < 2; k++)
		sum_side(c, k);
	for (int k = 0; k < 2; k++)
		only_in(c, k);
	for (size_t i = 0; i < c->names.n; i++)
		for (int k = 0; k < 2; k++) {
			struct compare_name *nm = &c->names.v[i];
			if (nm->only[k].n)
				qsort(nm->only[k].v, nm->only[k].n,
				      sizeof(*nm->only[k].v), cmp_tag);
		}
	return 0;
}

/* ---- values ---- */

/* B - A and how much that is of A in %: NAN when not known (% of 0:
 * 0 when B is 0 too). */
static double
change(const double m[2], bool pct)
{
	if (isnan(m[0]) || isnan(m[1]))
		return NAN;
	double d = m[1] - m[0];
	if (!pct)
		return d;
	return m[0] ? d / m[0] * 100 : d ? NAN : 0;
}

/* v in unit u for a person, "-" when not known; signed: with its sign. */
static void
add_value(struct strbuf *b, double v, enum unit u, bool sign)
{
	if (isnan(v)) {
		strbuf_addch(b, '-');
		return;
	}
	const char *sg = !sign ? "" : v < 0 ? "-" : "+";
	double a = sign ? fabs(v) : v;
	if (u == U_KB)
		a *= 1024;
	if (u == U_COUNT)
		strbuf_addf(b, "%s%.0f", sg, a);
	else if (u == U_SEC)
		strbuf_addf(b, "%s%.3f s", sg, a);
	else if (a < 1024)
		strbuf_addf(b, "%s%.0f B", sg, a);
	else if (a < 1024 * 1024)
		strbuf_addf(b, "%s%.1f KiB", sg, a / 1024);
	else if (a < 1024.0 * 1024 * 1024)
		strbuf_addf(b, "%s%.1f MiB", sg, a / (1024 * 1024));
	else
		strbuf_addf(b, "%s%.2f GiB", sg, a / (1024.0 * 1024 * 1024));
}

static void
add_pct(struct strbuf *b, double p)
{
	if (isnan(p))
		strbuf_addch(b, '-');
	else
		strbuf_addf(b, "%+.1f%%", p);
}

/* The run's duration: first start to last end. */
static double
duration(const struct compare_side *s)
{
	return s->r.tasks.n ? s->r.t1 - s->r.t0 : 0;
}

/* Does name i run in side k only? */
static bool
only_side(const struct compare_name *nm, int k)
{
	return nm->m[k][CM_INSTANCES] > 0 && !nm->m[!k][CM_INSTANCES];
}

/* ---- text ---- */

/* s for a terminal, padded with spaces to w columns (right: on the
 * left). */
static void
add_cell(struct strbuf *b, const char *s, size_t w, bool right)
{
	struct strbuf v = STRBUF_INIT;
	strbuf_add_visible(&v, s, strlen(s));
	size_t pad = v.len < w ? w - v.len : 0;
	if (!right)
		strbuf_add(b, v.buf, v.len);
	for (size_t i = 0; i < pad; i++)
		strbuf_addch(b, ' ');
	if (right)
		strbuf_add(b, v.buf, v.len);
	strbuf_release(&v);
}

/* The five cells of a row: A, B, change, %. */
static void
text_cells(struct strbuf *b, const double m[2], enum unit u)
{
	struct strbuf v = STRBUF_INIT;
	for (int q = 0; q < 4; q++) {
		strbuf_reset(&v);
		if (q < 2)
			add_value(&v, m[q], u, false);
		else if (q == 2)
			add_value(&v, change(m, false), u, true);
		else
			add_pct(&v, change(m, true));
		add_cell(b, v.buf, q == 3 ? 10 : 13, true);
	}
	strbuf_release(&v);
}

static void
text_runs(const struct compare *c, struct strbuf *b)
{
	double d[2];
	for (int k = 0; k < 2; k++) {
		const struct compare_side *s = &c->s[k];
		d[k] = duration(s);
		strbuf_addf(b, "%c: ", "AB"[k]);
		strbuf_add_visible(b, s->label, strlen(s->label));
		strbuf_addf(b, ": %zu instances run, %zu attempts (%zu "
			    "failed), ", s->inst.n, s->r.tasks.n, s->r.nfailed);
		add_value(b, d[k], U_SEC, false);
		strbuf_addch(b, '\n');
	}
	strbuf_adds(b, "B against A: ");
	add_value(b, change(d, false), U_SEC, true);
	strbuf_adds(b, " (");
	add_pct(b, change(d, true));
	strbuf_adds(b, ")\n\n");
}

/* The names, and the instances of names in both, that ran in one run. */
static void
text_only(const struct compare *c, struct strbuf *b)
{
	for (int k = 0; k < 2; k++) {
		strbuf_addf(b, "Task names only in %c:", "AB"[k]);
		size_t n = 0;
		for (size_t i = 0; i < c->names.n; i++)
			if (only_side(&c->names.v[i], k)) {
				strbuf_adds(b, n++ ? ", " : " ");
				add_cell(b, c->names.v[i].name, 0, false);
			}
		strbuf_adds(b, n ? "\n" : " none\n");
	}
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < c->names.n; i++) {
			const struct compare_name *nm = &c->names.v[i];
			if (!nm->only[k].n)
				continue;
			strbuf_addf(b, "Instances only in %c: ", "AB"[k]);
			add_cell(b, nm->name, 0, false);
			for (size_t j = 0; j < nm->only[k].n && j < 10; j++) {
				strbuf_adds(b, j ? ", " : " (");
				add_cell(b, *nm->only[k].v[j] ? nm->only[k].v[j]
					 : "no params", 0, false);
			}
			if (nm->only[k].n > 10)
				strbuf_addf(b, " and %zu more",
					    nm->only[k].n - 10);
			strbuf_adds(b, ")\n");
		}
}

static int
write_text(const struct compare *c, struct strbuf *b)
{
	size_t w = 12;
	for (int m = 0; m < CM_N; m++)
		if (strlen(metrics[m].title) + 2 > w)
			w = strlen(metrics[m].title) + 2;
	for (size_t i = 0; i < c->names.n; i++)
		if (strlen(c->names.v[i].name) + 4 > w)
			w = strlen(c->names.v[i].name) + 4;
	text_runs(c, b);
	text_only(c, b);
	for (int m = 0; m < CM_N; m++) {
		strbuf_addch(b, '\n');
		add_cell(b, metrics[m].title, w, false);
		strbuf_adds(b, "            A            B       change"
			       "         %\n");
		for (size_t i = 0; i < c->names.n; i++) {
			const struct compare_name *nm = &c->names.v[i];
			double v[2] = { nm->m[0][m], nm->m[1][m] };
			strbuf_adds(b, "  ");
			add_cell(b, nm->name, w - 2, false);
			text_cells(b, v, metrics[m].unit);
			strbuf_addch(b, '\n');
		}
	}
	return 0;
}

/* ---- JSON ---- */

static void
json_num(struct strbuf *b, double v)
{
	if (isnan(v))
		strbuf_adds(b, "null");
	else if (v == floor(v) && fabs(v) < 1e15)
		strbuf_addf(b, "%.0f", v);
	else
		strbuf_addf(b, "%.6g", v);
}

/* {"a": .., "b": .., "change": .., "pct": ..} */
static void
json_metric(struct strbuf *b, const double m[2])
{
	const char *keys[4] = { "a", "b", "change", "pct" };
	double v[4] = { m[0], m[1], change(m, false), change(m, true) };
	for (int q = 0; q < 4; q++) {
		strbuf_addf(b, "%s\"%s\": ", q ? ", " : "{", keys[q]);
		json_num(b, v[q]);
	}
	strbuf_addch(b, '}');
}

static void
json_strings(struct strbuf *b, const char *const *v, size_t n)
{
	strbuf_addch(b, '[');
	for (size_t i = 0; i < n; i++) {
		strbuf_adds(b, i ? ", " : "");
		strbuf_add_json(b, v[i]);
	}
	strbuf_addch(b, ']');
}

static void
json_side(struct strbuf *b, const struct compare_side *s)
{
	strbuf_adds(b, "{\"label\": ");
	strbuf_add_json(b, s->label);
	strbuf_adds(b, ", \"trace\": ");
	strbuf_add_json(b, s->trace);
	strbuf_addf(b, ", \"instances\": %zu, \"attempts\": %zu, "
		    "\"failed\": %zu, \"duration_s\": ", s->inst.n,
		    s->r.tasks.n, s->r.nfailed);
	json_num(b, duration(s));
	strbuf_addch(b, '}');
}

static void
json_name(struct strbuf *b, const struct compare_name *nm)
{
	strbuf_adds(b, "    {\"name\": ");
	strbuf_add_json(b, nm->name);
	strbuf_addf(b, ", \"in\": \"%s\"", only_side(nm, 0) ? "a"
		    : only_side(nm, 1) ? "b" : "both");
	for (int m = 0; m < CM_N; m++) {
		double v[2] = { nm->m[0][m], nm->m[1][m] };
		strbuf_addf(b, ",\n      \"%s\": ", metrics[m].key);
		json_metric(b, v);
	}
	for (int k = 0; k < 2; k++) {
		strbuf_addf(b, ",\n      \"instances_only_in_%c\": ", "ab"[k]);
		json_strings(b, nm->only[k].v, nm->only[k].n);
	}
	strbuf_adds(b, "}");
}

static int
write_json(const struct compare *c, struct strbuf *b)
{
	strbuf_adds(b, "{\n  \"a\": ");
	json_side(b, &c->s[0]);
	strbuf_adds(b, ",\n  \"b\": ");
	json_side(b, &c->s[1]);
	double d[2] = { duration(&c->s[0]), duration(&c->s[1]) };
	strbuf_adds(b, ",\n  \"duration_s\": ");
	json_metric(b, d);
	for (int k = 0; k < 2; k++) {
		strbuf_addf(b, ",\n  \"only_in_%c\": [", "ab"[k]);
		size_t n = 0;
		for (size_t i = 0; i < c->names.n; i++)
			if (only_side(&c->names.v[i], k)) {
				strbuf_adds(b, n++ ? ", " : "");
				strbuf_add_json(b, c->names.v[i].name);
			}
		strbuf_addch(b, ']');
	}
	strbuf_adds(b, ",\n  \"names\": [\n");
	for (size_t i = 0; i < c->names.n; i++) {
		json_name(b, &c->names.v[i]);
		strbuf_adds(b, i + 1 < c->names.n ? ",\n" : "\n");
	}
	strbuf_adds(b, "  ]\n}\n");
	return 0;
}

/* ---- HTML ---- */

static void
add_html(struct strbuf *b, const char *s)
{
	for (; *s; s++) {
		const char *e = *s == '<' ? "&lt;" : *s == '>' ? "&gt;"
				: *s == '&' ? "&amp;" : *s == '"' ? "&quot;"
				: *s == '\'' ? "&#39;" : NULL;
		if (e)
			strbuf_adds(b, e);
		else
			strbuf_addch(b, *s);
	}
}

static const char html_head[] =
	"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	"<meta name=\"viewport\" content=\"width=device-width\">\n"
	"<title>wfrun report --compare</title>\n<style>\n"
	"body{font:14px system-ui,sans-serif;margin:1.5em;max-width:72em}\n"
	"table{border-collapse:collapse;margin:.5em 0 1.5em}\n"
	"th,td{padding:.2em .7em;border-bottom:1px solid #ddd;"
	"text-align:right}\n"
	"th:first-child,td:first-child{text-align:left}\n"
	".up{color:#b3261e}.down{color:#1b6e3a}\n"
	".chart{display:grid;grid-template-columns:max-content 1fr "
	"max-content;gap:.3em .8em;align-items:center;margin-bottom:1.5em}\n"
	".axis{position:relative;height:1em;background:linear-gradient("
	"#999,#999) center/1px 100% no-repeat}\n"
	".bar{position:absolute;top:0;bottom:0}\n"
	".bar.up{background:#e0786f}.bar.down{background:#6fbf8c}\n"
	"</style></head><body>\n<h1>wfrun report --compare</h1>\n";

static void
html_runs(const struct compare *c, struct strbuf *b)
{
	strbuf_adds(b, "<table><tr><th></th><th>run</th><th>instances run"
		       "</th><th>attempts</th><th>failed</th><th>duration"
		       "</th></tr>\n");
	double d[2];
	for (int k = 0; k < 2; k++) {
		const struct compare_side *s = &c->s[k];
		d[k] = duration(s);
		strbuf_addf(b, "<tr><td>%c</td><td>", "AB"[k]);
		add_html(b, s->label);
		strbuf_addf(b, "</td><td>%zu</td><td>%zu</td><td>%zu</td><td>",
			    s->inst.n, s->r.tasks.n, s->r.nfailed);
		add_value(b, d[k], U_SEC, false);
		strbuf_adds(b, "</td></tr>\n");
	}
	double ch = change(d, false);
	strbuf_addf(b, "<tr><td>change</td><td colspan=\"4\"></td>"
		    "<td class=\"%s\">", ch > 0 ? "up" : "down");
	add_value(b, ch, U_SEC, true);
	strbuf_adds(b, " (");
	add_pct(b, change(d, true));
	strbuf_adds(b, ")</td></tr></table>\n");
}

/* A bar per task name: its total wall time's change in %. */
static void
html_chart(const struct compare *c, struct strbuf *b)
{
	double top = 1;
	for (size_t i = 0; i < c->names.n; i++) {
		const struct compare_name *nm = &c->names.v[i];
		double v[2] = { nm->m[0][CM_WALL], nm->m[1][CM_WALL] };
		double p = fabs(change(v, true));
		if (!isnan(p) && p > top)
			top = p;
	}
	strbuf_adds(b, "<h2>Wall time per task name, B against A</h2>\n"
		       "<div class=\"chart\">\n");
	for (size_t i = 0; i < c->names.n; i++) {
		const struct compare_name *nm = &c->names.v[i];
		double v[2] = { nm->m[0][CM_WALL], nm->m[1][CM_WALL] };
		double p = change(v, true), w = isnan(p) ? 0 : fabs(p) / top * 50;
		strbuf_adds(b, "<div>");
		add_html(b, nm->name);
		strbuf_addf(b, "</div><div class=\"axis\"><div class=\"bar %s\" "
			    "style=\"left:%.2f%%;width:%.2f%%\"></div></div>"
			    "<div>", p > 0 ? "up" : "down",
			    p > 0 ? 50 : 50 - w, w);
		if (only_side(nm, 0) || only_side(nm, 1))
			strbuf_addf(b, "only in %c", only_side(nm, 0) ? 'A' : 'B');
		else
			add_pct(b, p);
		strbuf_adds(b, "</div>\n");
	}
	strbuf_adds(b, "</div>\n");
}

static void
html_only(const struct compare *c, struct strbuf *b)
{
	strbuf_adds(b, "<h2>Ran in one run only</h2>\n<ul>\n");
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < c->names.n; i++) {
			const struct compare_name *nm = &c->names.v[i];
			if (!only_side(nm, k) && !nm->only[k].n)
				continue;
			strbuf_addf(b, "<li>only in %c: <b>", "AB"[k]);
			add_html(b, nm->name);
			strbuf_adds(b, "</b>");
			for (size_t j = 0; j < nm->only[k].n; j++) {
				strbuf_adds(b, j ? ", " : " (");
				add_html(b, nm->only[k].v[j]);
			}
			strbuf_adds(b, nm->only[k].n ? ")</li>\n" : "</li>\n");
		}
	strbuf_adds(b, "</ul>\n");
}

static void
html_table(const struct compare *c, struct strbuf *b, int m)
{
	strbuf_addf(b, "<h3>%s</h3>\n<table><tr><th>task</th><th>A</th>"
		    "<th>B</th><th>change</th><th>%%</th></tr>\n",
		    metrics[m].title);
	for (size_t i = 0; i < c->names.n; i++) {
		const struct compare_name *nm = &c->names.v[i];
		double v[2] = { nm->m[0][m], nm->m[1][m] };
		double d = change(v, false);
		strbuf_adds(b, "<tr><td>");
		add_html(b, nm->name);
		for (int q = 0; q < 2; q++) {
			strbuf_adds(b, "</td><td>");
			add_value(b, v[q], metrics[m].unit, false);
		}
		strbuf_addf(b, "</td><td class=\"%s\">", d > 0 ? "up"
			    : d < 0 ? "down" : "");
		add_value(b, d, metrics[m].unit, true);
		strbuf_adds(b, "</td><td>");
		add_pct(b, change(v, true));
		strbuf_adds(b, "</td></tr>\n");
	}
	strbuf_adds(b, "</table>\n");
}

static int
write_html(const struct compare *c, struct strbuf *b)
{
	strbuf_adds(b, html_head);
	html_runs(c, b);
	html_chart(c, b);
	html_only(c, b);
	strbuf_adds(b, "<h2>Per task name</h2>\n");
	for (int m = 0; m < CM_N; m++)
		html_table(c, b, m);
	strbuf_adds(b, "</body></html>\n");
	return 0;
}

/* ---- output ---- */

static bool
ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), e = strlen(end);
	return n >= e && !strcmp(s + n - e, end);
}

int
compare_format(const char *s, const char *out)
{
	if (!s)
		return out && ends_with(out, ".html") ? COMPARE_HTML
		       : out && ends_with(out, ".json") ? COMPARE_JSON
		       : COMPARE_TEXT;
	return !strcmp(s, "text") ? COMPARE_TEXT
	       : !strcmp(s, "html") ? COMPARE_HTML
	       : !strcmp(s, "json") ? COMPARE_JSON : -1;
}

int
compare_write(const struct compare *c, enum compare_format f,
	      const char *out, struct errbuf *err)
{
	struct strbuf b = STRBUF_INIT;
	if (f == COMPARE_HTML)
		write_html(c, &b);
	else if (f == COMPARE_JSON)
		write_json(c, &b);
	else
		write_text(c, &b);
	bool std = !strcmp(out, "-");
	char *tmp = std ? NULL : xasprintf("%s.tmp", out);
	FILE *fp = std ? stdout : fopen(tmp, "we");
	int rc = 0;
	if (!fp) {
		rc = errprintf(err, "cannot write %s: %s", tmp, strerror(errno));
	} else {
		bool bad = fwrite(b.buf, 1, b.len, fp) != b.len;
		bad |= std ? fflush(fp) != 0 : fclose(fp) != 0;
		if (bad || (!std && rename(tmp, out) < 0))
			rc = errprintf(err, "cannot write %s: %s",
				       std ? "the comparison" : out,
				       strerror(errno));
		if (rc && !std)
			unlink(tmp);
	}
	free(tmp);
	strbuf_release(&b);
	return rc;
}
