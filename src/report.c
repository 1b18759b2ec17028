/*
 * report: trace.tsv + events.jsonl -> HTML or Chrome trace JSON.
 *
 * Of the events (read by events.h), the report takes epoch_begin,
 * epoch_end and constraint: the learning curve of each auto constraint.
 * Any other "ev", and any other key, is ignored.
 *
 * The HTML page is one file: inline CSS, SVG and script, nothing
 * fetched, so it opens offline and from a mail attachment.  This file
 * reads the trace and events and writes the page's per-name table,
 * throughput and learning curves; report_page.c and report_charts.c the
 * header, timeline, failures, distributions and resource use.
 */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "report_page.h"

/* Timeline geometry, in pixels. */
#define PLOT_W 1100.0
#define LABEL_W 150.0
#define CHART_H 180.0
/* Throughput bins over the run. */
#define NBINS 200

void
report_init(struct report *r)
{
	memset(r, 0, sizeof(*r));
	arena_init(&r->arena);
	hmap_init(&r->name_map);
	hmap_init(&r->worker_map);
}

void
report_release(struct report *r)
{
	for (size_t i = 0; i < r->curves.n; i++)
		VEC_FREE(r->curves.v[i].epochs);
	VEC_FREE(r->curves);
	VEC_FREE(r->tasks);
	VEC_FREE(r->notrun);
	VEC_FREE(r->slots);
	VEC_FREE(r->names);
	VEC_FREE(r->workers);
	hmap_release(&r->name_map);
	hmap_release(&r->worker_map);
	arena_release(&r->arena);
}

static const char *
intern(struct report *r, const char *s, size_t n)
{
	return arena_strndup(&r->arena, s, n);
}

static int num_field(const char *s, double *v);

/* The index of name s (interned the first time it is seen). */
static uint32_t
name_index(struct report *r, const char *s)
{
	size_t n = strlen(s);
	uint64_t *v = hmap_get(&r->name_map, s, n);
	if (v)
		return (uint32_t)*v;
	s = intern(r, s, n);
	int found;
	v = hmap_put(&r->name_map, s, n, r->names.n, &found);
	VEC_PUSH(r->names, s);
	return (uint32_t)*v;
}

static uint32_t
worker_index(struct report *r, const char *s)
{
	size_t n = strlen(s);
	uint64_t *v = hmap_get(&r->worker_map, s, n);
	if (v)
		return (uint32_t)*v;
	s = intern(r, s, n);
	int found;
	v = hmap_put(&r->worker_map, s, n, r->workers.n, &found);
	struct report_worker w = { s, 0, 0 };
	VEC_PUSH(r->workers, w);
	return (uint32_t)*v;
}

/* Statuses are few: the usual ones are not copied per task. */
static const char *
status_string(struct report *r, const char *s)
{
	static const char *const known[] = { "COMPLETED", "FAILED", "ABORTED" };
	if (!*s)
		return known[0];
	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (!strcmp(s, known[i]))
			return known[i];
	return intern(r, s, strlen(s));
}

/* A count from a number field, or -1 when empty, junk or out of range. */
static long long
count_field(const char *s)
{
	double d;
	if (num_field(s, &d) || d < 0 || d > 9e18)
		return -1;
	return (long long)d;
}

/* ---- trace.tsv ---- */

enum col {
	C_NAME, C_TAG, C_WORKER, C_KIND, C_STATUS, C_EXIT, C_START, C_COMPLETE,
	C_CPU_USER, C_CPU_SYS, C_RSS, C_READ, C_WRITE, C_BW, C_EPOCH, C_CORES,
	C_ATTEMPT, C_QUEUE, C_STAGE_IN, C_STAGE_OUT, C_STAGED, NCOLS
};
static const char *const col_names[NCOLS] = {
	"name", "tag", "worker", "kind", "status", "exit", "start", "complete",
	"cpu_user_s", "cpu_sys_s", "peak_rss_kb", "read_bytes", "write_bytes",
	"storage_bw", "epoch", "cores", "attempt", "queue_s", "stage_in_s",
	"stage_out_s", "bytes_staged",
};

/* Split line at tabs in place; returns the number of fields. */
static size_t
split_tabs(char *line, char **f, size_t max)
{
	size_t n = 0;
	char *p = line;
	for (;;) {
		if (n < max)
			f[n] = p;
		n++;
		char *t = strchr(p, '\t');
		if (!t)
			break;
		*t = '\0';
		p = t + 1;
	}
	return n;
}

/* A number field: 0 and *v set, 1 when empty, -1 when not a number. */
static int
num_field(const char *s, double *v)
{
	if (!*s)
		return 1;
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	if (*end || errno || !isfinite(*v))
		return -1;
	return 0;
}

/* Where each column the report knows is in the trace, by its header. */
struct trace_cols {
	int idx[NCOLS];         /* -1: not there */
	size_t ncols;
	char **f, **row;        /* the header's fields, a row's */
};

/* The header line: column names, in any order; -1 with err when a
 * column the report needs is missing. */
static int
read_header(struct trace_cols *tc, char *line, const char *path,
	    struct errbuf *err)
{
	size_t n = 1;
	for (const char *q = line; *q; q++)
		n += *q == '\t';
	tc->f = xcalloc(n, sizeof(char *));
	tc->row = xcalloc(n, sizeof(char *));
	tc->ncols = split_tabs(line, tc->f, n);
	for (size_t i = 0; i < tc->ncols; i++)
		for (size_t k = 0; k < NCOLS; k++)
			if (!strcmp(tc->f[i], col_names[k]) && tc->idx[k] < 0)
				tc->idx[k] = (int)i;
	const enum col need[] = { C_NAME, C_START, C_COMPLETE };
	for (size_t k = 0; k < ARRAY_SIZE(need); k++)
		if (tc->idx[need[k]] < 0)
			return errprintf(err, "%s:1: no '%s' column in the "
					 "header; is this a wfrun trace.tsv?",
					 path, col_names[need[k]]);
	return 0;
}

/* The fields of a row by column ("" for a column not there). */
static void
row_fields(struct trace_cols *tc, char *line, char **v)
{
	static char empty[] = "";
	size_t n = split_tabs(line, tc->row, tc->ncols);
	for (size_t k = 0; k < NCOLS; k++)
		v[k] = tc->idx[k] >= 0 && (size_t)tc->idx[k] < n
			       ? tc->row[tc->idx[k]] : empty;
}

/* The task of a row whose start and complete are in t, added. */
static void
add_task(struct report *r, char *const *v, struct report_task *t)
{
	double d;
	if (t->complete < t->start)
		t->complete = t->start;
	t->nameidx = name_index(r, v[C_NAME]);
	t->name = r->names.v[t->nameidx];
	t->tag = *v[C_TAG] ? intern(r, v[C_TAG], strlen(v[C_TAG])) : "";
	t->worker = worker_index(r, *v[C_WORKER] ? v[C_WORKER] : "local");
	t->io = !strcmp(v[C_KIND], "io");
	t->status = status_string(r, v[C_STATUS]);
	t->preempted = !strcmp(t->status, "PREEMPTED");
	t->failed = strcmp(t->status, "COMPLETED") != 0 && !t->preempted;
	t->queue_s = num_field(v[C_QUEUE], &d) || d < 0 ? -1 : d;
	double si, so;
	int ki = num_field(v[C_STAGE_IN], &si), ko = num_field(v[C_STAGE_OUT], &so);
	t->stage_s = ki && ko ? -1 : (ki ? 0 : si) + (ko ? 0 : so);
	t->staged = count_field(v[C_STAGED]);
	long long e = count_field(v[C_EXIT]);
	t->exit_code = e > 255 ? 255 : (int)e;
	e = count_field(v[C_ATTEMPT]);
	t->attempt = e < 1 || e > 1000000 ? 1 : (long)e;
	double u, s;
	int ku = num_field(v[C_CPU_USER], &u), ks = num_field(v[C_CPU_SYS], &s);
	t->cpu = ku || ks ? -1 : u + s;
	t->rss_kb = (long)count_field(v[C_RSS]);
	t->rbytes = count_field(v[C_READ]);
	t->wbytes = count_field(v[C_WRITE]);
	t->storage_bw = num_field(v[C_BW], &d) || d < 0 ? -1 : d;
	e = count_field(v[C_EPOCH]);
	t->epoch = e < 1 || e > 1000000 ? -1 : (long)e;
	/* a lane per core, within reason for a drawing */
	e = count_field(v[C_CORES]);
	t->cores = t->io || e < 1 ? 1 : e > 1024 ? 1024 : (long)e;
	if (!r->tasks.n || t->start < r->t0)
		r->t0 = t->start;
	if (!r->tasks.n || t->complete > r->t1)
		r->t1 = t->complete;
	r->nfailed += t->failed;
	VEC_PUSH(r->tasks, *t);
}

int
report_load_trace(struct report *r, const char *path, struct errbuf *err)
{
	struct errbuf why;
	FILE *fp = fopen_bounded(path, READ_MAX_RECORD, &why);
	if (!fp)
		return errprintf(err, "cannot read the trace %s: %s", path, why.msg);
	r->trace_path = intern(r, path, strlen(path));
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	long lineno = 0;
	struct trace_cols tc = { .f = NULL };
	int rc = 0;
	for (size_t i = 0; i < NCOLS; i++)
		tc.idx[i] = -1;
	while ((len = getline(&line, &cap, fp)) >= 0) {
		lineno++;
		/* wfrun writes whole rows; a last line without its newline is
		 * a row being written (or cut by a crash) */
		bool whole = len && line[len - 1] == '\n';
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (lineno == 1) {
			if ((rc = read_header(&tc, line, path, err)) < 0)
				goto out;
			continue;
		}
		if (!len)
			continue;
		char *v[NCOLS];
		row_fields(&tc, line, v);
		struct report_task t;
		memset(&t, 0, sizeof(t));
		if (num_field(v[C_START], &t.start) ||
		    num_field(v[C_COMPLETE], &t.complete)) {
			if (!whole) {
				warning_msg("%s:%ld: ignoring an incomplete last "
					    "line", path, lineno);
				break;
			}
			rc = errprintf(err, "%s:%ld: start and complete must be "
				       "times in seconds, not '%s' and '%s'",
				       path, lineno, v[C_START], v[C_COMPLETE]);
			goto out;
		}
		add_task(r, v, &t);
	}
	if (ferror(fp))
		rc = errprintf(err, "cannot read the trace %s: %s", path,
			       read_strerror(errno, READ_MAX_RECORD));
	else if (lineno == 0)
		rc = errprintf(err, "%s: empty file; a wfrun trace.tsv starts "
			       "with a header line", path);
out:
	free(tc.f);
	free(tc.row);
	free(line);
	fclose(fp);
	return rc;
}

/* A number as a long, when it is one within reason; else dflt. */
static long
jlong(double v, long dflt)
{
	if (!(v >= -1e15 && v <= 1e15))
		return dflt;
	return (long)v;
}

static struct report_curve *
curve_for(struct report *r, const char *name, const char *device)
{
	for (size_t i = 0; i < r->curves.n; i++)
		if (!strcmp(r->curves.v[i].name, name) &&
		    !strcmp(r->curves.v[i].device, device))
			return &r->curves.v[i];
	struct report_curve c;
	memset(&c, 0, sizeof(c));
	c.name = intern(r, name, strlen(name));
	c.device = intern(r, device, strlen(device));
	VEC_PUSH(r->curves, c);
	return &r->curves.v[r->curves.n - 1];
}

static struct report_epoch *
epoch_for(struct report_curve *c, long epoch)
{
	for (size_t i = c->epochs.n; i-- > 0;)
		if (c->epochs.v[i].epoch == epoch && !c->epochs.v[i].ramp)
			return &c->epochs.v[i];
	struct report_epoch e;
	memset(&e, 0, sizeof(e));
	e.epoch = epoch;
	e.mean_s = -1;
	VEC_PUSH(c->epochs, e);
	return &c->epochs.v[c->epochs.n - 1];
}

/* An epoch_begin or epoch_end event into its curve. */
static int
take_epoch(struct report *r, const struct event *ev, const char *path,
	   long line, struct errbuf *err)
{
	if (isnan(ev->epoch) || isnan(ev->c))
		return errprintf(err, "%s:%ld: %s without a numeric \"epoch\" "
				 "and \"c\"", path, line, ev->ev);
	struct report_curve *cv = curve_for(r, ev->name,
					    ev->device ? ev->device : "");
	struct report_epoch *e = epoch_for(cv, jlong(ev->epoch, 0));
	e->c = ev->c;
	if (!isnan(ev->k))
		e->k = jlong(ev->k, 0);
	if (ev->step && !strcmp(ev->ev, "epoch_begin")) {
		e->step = intern(r, ev->step, strlen(ev->step));
		e->open = ev->open ? intern(r, ev->open, strlen(ev->open))
				   : NULL;
		e->best = jlong(ev->best, 0);
		e->lo = jlong(ev->lo, 0);
		e->hi = jlong(ev->hi, 0);
	}
	if (!strcmp(ev->ev, "epoch_end")) {
		e->ended = true;
		e->tasks = jlong(ev->tasks, 0);
		/* mean_s: before wfrun recorded t_i */
		double m = !isnan(ev->t_s) ? ev->t_s : ev->mean_s;
		e->mean_s = !isnan(m) ? m : -1;
		e->registered = ev->registered > 0;
		e->mbps = !isnan(ev->mbps) ? ev->mbps : 0;
	}
	return 0;
}

/* A constraint event: the constraint chosen for its curve. */
static int
take_constraint(struct report *r, const struct event *ev,
		const char *path, long line, struct errbuf *err)
{
	if (isnan(ev->c))
		return errprintf(err, "%s:%ld: constraint without a numeric "
				 "\"c\"", path, line);
	struct report_curve *cv = curve_for(r, ev->name,
					    ev->device ? ev->device : "");
	cv->chosen = true;
	cv->c = ev->c;
	cv->k = jlong(ev->k, 0);
	cv->n = jlong(ev->n, 0);
	cv->why = ev->why ? intern(r, ev->why, strlen(ev->why)) : "";
	return 0;
}

/* One event; the learner's ones, every other "ev" ignored. */
static int
take_event(struct report *r, const struct event *ev, const char *path,
	   long line, struct errbuf *err)
{
	if (!ev->ev || !ev->name)
		return 0;
	if (!strcmp(ev->ev, "epoch_begin") || !strcmp(ev->ev, "epoch_end"))
		return take_epoch(r, ev, path, line, err);
	if (!strcmp(ev->ev, "constraint"))
		return take_constraint(r, ev, path, line, err);
	if (!strcmp(ev->ev, "rate") && !isnan(ev->epoch) && !isnan(ev->after_s)) {
		struct report_curve *cv = curve_for(r, ev->name,
						    ev->device ? ev->device
							       : "");
		struct report_epoch *e = epoch_for(cv, jlong(ev->epoch, 0));
		e->rate_s = ev->after_s > 0 ? ev->after_s : 1e-9;
		e->rate_err = !isnan(ev->err) ? ev->err : -1;
		return 0;
	}
	if (!strcmp(ev->ev, "ramp") && !isnan(ev->epoch) && !isnan(ev->c) &&
	    !isnan(ev->k)) {
		/* a row of its own, after its epoch's */
		struct report_curve *cv = curve_for(r, ev->name,
						    ev->device ? ev->device
							       : "");
		struct report_epoch e;
		memset(&e, 0, sizeof(e));
		e.epoch = jlong(ev->epoch, 0);
		e.ramp = e.ended = e.registered = true;
		e.c = ev->c;
		e.k = jlong(ev->k, 0);
		e.mean_s = -1;
		e.rate_s = !isnan(ev->after_s) && ev->after_s > 0 ? ev->after_s
								: 1e-9;
		e.rate_err = !isnan(ev->err) ? ev->err : -1;
		e.mbps = !isnan(ev->mbps) ? ev->mbps : 0;
		VEC_PUSH(cv->epochs, e);
		return 0;
	}
	if (!strcmp(ev->ev, "search") && ev->step) {
		struct report_curve *cv = curve_for(r, ev->name,
						    ev->device ? ev->device
							       : "");
		cv->ended_by = intern(r, ev->step, strlen(ev->step));
		cv->held |= !strcmp(ev->step, "held");
	}
	return 0;
}

int
report_load_events(struct report *r, const char *path, struct errbuf *err)
{
	struct events_reader er;
	if (events_open(&er, path, err) < 0)
		return -1;
	r->events_path = intern(r, path, strlen(path));
	struct event ev;
	int rc;
	while ((rc = events_next(&er, &ev, err)) > 0)
		if ((rc = take_event(r, &ev, path, er.lineno, err)) < 0)
			break;
	events_close(&er);
	return rc < 0 ? -1 : 0;
}

/* ---- lanes ---- */

static const struct report_task *sort_tasks;

static int
cmp_lane_order(const void *a, const void *b)
{
	const struct report_task *x = &sort_tasks[*(const uint32_t *)a],
				 *y = &sort_tasks[*(const uint32_t *)b];
	if (x->worker != y->worker)
		return x->worker < y->worker ? -1 : 1;
	if (x->io != y->io)
		return x->io ? 1 : -1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->complete != y->complete)
		return x->complete < y->complete ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* A min-heap of lanes by the time they become free, then by index. */
struct lane_heap {
	struct lane { double free; uint32_t idx; } *v;
	size_t n, alloc;
};

static bool
lane_less(const void *pa, const void *pb)
{
	const struct lane *a = pa, *b = pb;
	return a->free < b->free || (a->free == b->free && a->idx < b->idx);
}

/* Rebuild curves from the trace's storage_bw and epoch columns. */
static void
curves_from_trace(struct report *r)
{
	for (size_t i = 0; i < r->tasks.n; i++) {
		const struct report_task *t = &r->tasks.v[i];
		if (!t->io || t->epoch < 1 || t->storage_bw < 0)
			continue;
		struct report_curve *c = curve_for(r, t->name, "");
		c->from_trace = true;
		struct report_epoch *e = epoch_for(c, t->epoch);
		if (!e->ended) {
			e->ended = true;
			e->registered = true;
			e->c = t->storage_bw;
			e->mean_s = 0;
		}
		e->mean_s = (e->mean_s * (double)e->tasks +
			     (t->complete - t->start)) / (double)(e->tasks + 1);
		e->tasks++;
	}
	/* the constraint of the last task of the name is the one chosen */
	for (size_t k = 0; k < r->curves.n; k++) {
		struct report_curve *c = &r->curves.v[k];
		double last = -1;
		for (size_t i = 0; i < r->tasks.n; i++) {
			const struct report_task *t = &r->tasks.v[i];
			if (t->io && t->storage_bw >= 0 &&
			    !strcmp(t->name, c->name) && t->start >= last) {
				last = t->start;
				c->chosen = true;
				c->c = t->storage_bw;
				c->why = "last constraint in trace.tsv";
			}
		}
	}
}

static int
cmp_epoch(const void *a, const void *b)
{
	const struct report_epoch *p = a, *q = b;
	if (p->epoch != q->epoch)
		return (p->epoch > q->epoch) - (p->epoch < q->epoch);
	/* an epoch's ramp rows after it, by their k */
	if (p->ramp != q->ramp)
		return p->ramp ? 1 : -1;
	return (p->k > q->k) - (p->k < q->k);
}

static int
cmp_slot_draw(const void *a, const void *b)
{
	const struct report_slot *sa = a, *sb = b;
	const struct report_task *x = &sort_tasks[sa->task],
				 *y = &sort_tasks[sb->task];
	if (x->worker != y->worker)
		return x->worker < y->worker ? -1 : 1;
	if (x->io != y->io)
		return x->io ? 1 : -1;
	if (sa->lane != sb->lane)
		return sa->lane < sb->lane ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return sa->task < sb->task ? -1 : sa->task > sb->task;
}

void
report_finish(struct report *r)
{
	size_t n = r->tasks.n;
	uint32_t *ord = xcalloc(n ? n : 1, sizeof(uint32_t));
	for (size_t i = 0; i < n; i++)
		ord[i] = (uint32_t)i;
	sort_tasks = r->tasks.v;
	qsort(ord, n, sizeof(uint32_t), cmp_lane_order);
	struct lane_heap h = { NULL, 0, 0 };
	struct lane taken[1024];
	for (size_t i = 0; i < n;) {
		struct report_task *first = &r->tasks.v[ord[i]];
		uint32_t w = first->worker;
		bool io = first->io;
		uint32_t nlanes = 0;
		h.n = 0;
		for (; i < n && r->tasks.v[ord[i]].worker == w &&
		       r->tasks.v[ord[i]].io == io; i++) {
			struct report_task *t = &r->tasks.v[ord[i]];
			for (long k = 0; k < t->cores; k++) {
				struct lane l;
				if (h.n && h.v[0].free <= t->start)
					HEAP_POP(h, l, lane_less);
				else
					l.idx = nlanes++;
				if (!k)
					t->lane = l.idx;
				struct report_slot s = { ord[i], l.idx };
				VEC_PUSH(r->slots, s);
				l.free = t->complete;
				taken[k] = l;
			}
			for (long k = 0; k < t->cores; k++)
				HEAP_PUSH(h, taken[k], lane_less);
		}
		if (io)
			r->workers.v[w].io_lanes = nlanes;
		else
			r->workers.v[w].cpu_lanes = nlanes;
	}
	free(h.v);
	free(ord);
	sort_tasks = r->tasks.v;
	if (r->slots.n)
		qsort(r->slots.v, r->slots.n, sizeof(struct report_slot),
		      cmp_slot_draw);
	if (!r->curves.n)
		curves_from_trace(r);
	for (size_t k = 0; k < r->curves.n; k++)
		if (r->curves.v[k].epochs.n)
			qsort(r->curves.v[k].epochs.v, r->curves.v[k].epochs.n,
			      sizeof(struct report_epoch), cmp_epoch);
}

/* ---- HTML ---- */

void
report_esc(FILE *fp, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '&': fputs("&amp;", fp); break;
		case '"': fputs("&quot;", fp); break;
		case '\'': fputs("&#39;", fp); break;
		default: fputc(*s, fp);
		}
	}
}

void
report_fmt_secs(char *buf, size_t n, double s)
{
	if (s < 0)
		snprintf(buf, n, "–");
	else if (s < 10)
		snprintf(buf, n, "%.3f s", s);
	else if (s < 3600)
		snprintf(buf, n, "%.1f s", s);
	else
		snprintf(buf, n, "%.0fh%02.0fm", floor(s / 3600),
			 floor(fmod(s, 3600) / 60));
}

void
report_fmt_bytes(char *buf, size_t n, double b)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	size_t u = 0;
	if (b < 0) {
		snprintf(buf, n, "–");
		return;
	}
	while (b >= 1024 && u + 1 < ARRAY_SIZE(unit)) {
		b /= 1024;
		u++;
	}
	snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
}

/* A round step (1, 2 or 5 times a power of ten) near span/n. */
double
report_nice_step(double span, int n)
{
	if (span <= 0)
		return 1;
	double raw = span / n, p = pow(10, floor(log10(raw)));
	double m = raw / p;
	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}"
	"h1{font-size:20px}h2{font-size:17px;margin-top:28px}"
	"table{border-collapse:collapse;font-variant-numeric:tabular-nums}"
	"th,td{border-bottom:1px solid #ddd;padding:3px 8px;text-align:right}"
	"th:first-child,td:first-child{text-align:left}"
	"th{background:#f4f4f4}"
	".summary td{text-align:left;overflow-wrap:anywhere}"
	"#failures td{text-align:left;vertical-align:top}"
	"#failures pre{margin:0;max-height:20em;overflow:auto;"
	"white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px}"
	".axis{font-size:10px;fill:#555}.grid{stroke:#eee}"
	".legend .sw{display:inline-block;width:12px;height:12px;"
	"margin:0 4px 0 12px;vertical-align:middle}"
	".legend .entry{white-space:nowrap}"
	".legend .sw.io{background-image:repeating-linear-gradient(45deg,"
	"transparent 0 3px,#fff 3px 5px)}"
	".legend .sw.pale{background:#ccc;opacity:.5}"
	"#tl-box{width:100%}canvas{display:block}"
	"#tl-tip{position:fixed;background:#fff;border:1px solid #888;"
	"padding:4px 6px;font:12px/1.3 monospace;white-space:pre-wrap;"
	"max-width:60ch;pointer-events:none;box-shadow:0 1px 4px #0003}"
	"svg{display:block;margin:8px 0}svg:not(.curve){width:100%;height:auto}"
	".note{color:#666;font-size:12px}";

/* The time axis ticks of the timeline and the throughput chart. */
static void
time_axis(FILE *fp, const struct report *r, double x0, double y0, double h,
	  double scale)
{
	double span = r->t1 - r->t0, step = report_nice_step(span, 10);
	for (double s = 0; s <= span + 1e-9; s += step) {
		double x = x0 + s * scale;
		fprintf(fp, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"/>", x, y0, x, y0 + h);
		fprintf(fp, "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"middle\">%gs</text>\n", x, y0 + h + 12, s);
	}
}

struct name_stats {
	size_t failed, nio, ncpu;
	double cpu, wall, rb, wb;
	long rss;
	bool rknown, wknown;
};

/* Task t counted in the stats of its name. */
static void
name_add(struct name_stats *s, const struct report_task *t)
{
	s->failed += t->failed;
	s->nio += t->io;
	if (t->cpu >= 0) {
		s->cpu += t->cpu;
		s->wall += t->complete - t->start;
		s->ncpu++;
	}
	if (t->rss_kb > s->rss)
		s->rss = t->rss_kb;
	if (t->rbytes >= 0) {
		s->rb += (double)t->rbytes;
		s->rknown = true;
	}
	if (t->wbytes >= 0) {
		s->wb += (double)t->wbytes;
		s->wknown = true;
	}
}

/* The row of a name: its stats s and the times v[0..n) of its tasks. */
static void
name_row(FILE *fp, const char *name, const struct name_stats *s, double *v,
	 size_t n)
{
	qsort(v, n, sizeof(double), cmp_double);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	char a[32], b[32], c[32], d[32], e[32], f[32], g[32];
	report_fmt_secs(a, sizeof(a), sum / (double)n);
	report_fmt_secs(b, sizeof(b), med);
	report_fmt_secs(c, sizeof(c), v[n - 1]);
	report_fmt_secs(d, sizeof(d), s->ncpu ? s->cpu / (double)s->ncpu : -1);
	report_fmt_bytes(e, sizeof(e), s->rss >= 0 ? (double)s->rss * 1024 : -1);
	report_fmt_bytes(f, sizeof(f), s->rknown ? s->rb : -1);
	report_fmt_bytes(g, sizeof(g), s->wknown ? s->wb : -1);
	fputs("<tr><td>", fp);
	report_esc(fp, name);
	fprintf(fp, "</td><td>%s</td><td>%zu</td><td>%zu</td><td>%s</td>"
		"<td>%s</td><td>%s</td><td>%s</td>",
		s->nio == n ? "io" : s->nio ? "mixed" : "compute", n,
		s->failed, a, b, c, d);
	if (s->ncpu && s->wall > 0)
		fprintf(fp, "<td>%.0f%%</td>", 100 * s->cpu / s->wall);
	else
		fputs("<td>–</td>", fp);
	fprintf(fp, "<td>%s</td><td>%s</td><td>%s</td></tr>\n", e, f, g);
}

static void
html_table(FILE *fp, const struct report *r)
{
	size_t nn = r->names.n;
	/* one pass to count, one to place each task's time by name and sum
	 * the rest: linear in tasks (plus the sorts for the medians) */
	size_t *count = xcalloc(nn + 1, sizeof(size_t));
	for (size_t i = 0; i < r->tasks.n; i++)
		count[r->tasks.v[i].nameidx + 1]++;
	for (size_t k = 0; k < nn; k++)
		count[k + 1] += count[k];
	double *times = xcalloc(r->tasks.n ? r->tasks.n : 1, sizeof(double));
	size_t *fill = xcalloc(nn ? nn : 1, sizeof(size_t));
	struct name_stats *st = xcalloc(nn ? nn : 1, sizeof(*st));
	for (size_t k = 0; k < nn; k++)
		st[k].rss = -1;
	for (size_t i = 0; i < r->tasks.n; i++) {
		const struct report_task *t = &r->tasks.v[i];
		times[count[t->nameidx] + fill[t->nameidx]++] =
			t->complete - t->start;
		name_add(&st[t->nameidx], t);
	}
	fputs("<h2>Tasks by name</h2>\n<table id=\"names\"><tr><th>name</th>"
	      "<th>kind</th><th>count</th><th>failed</th><th>mean</th>"
	      "<th>median</th><th>max</th><th>CPU (mean)</th>"
	      "<th>CPU use</th><th>RSS (max)</th><th>read</th>"
	      "<th>written</th></tr>\n", fp);
	for (size_t k = 0; k < nn; k++)
		name_row(fp, r->names.v[k], &st[k], times + count[k],
			 count[k + 1] - count[k]);
	fputs("</table>\n", fp);
	free(st);
	free(fill);
	free(times);
	free(count);
}

static void
polyline(FILE *fp, const double *v, size_t n, double x0, double w, double y0,
	 double h, double max, const char *color)
{
	fprintf(fp, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
		"points=\"", color);
	for (size_t i = 0; i < n; i++)
		fprintf(fp, "%.1f,%.1f ", x0 + w * ((double)i + 0.5) / (double)n,
			y0 + h - (max > 0 ? h * v[i] / max : 0));
	fputs("\"/>\n", fp);
}

/* The bytes each task read and wrote, spread evenly over its time, in
 * NBINS bins of bw seconds: all tasks' and I/O tasks'.  Whether any task
 * has byte counts. */
static bool
bin_bytes(const struct report *r, double bw, double *io, double *all)
{
	memset(io, 0, NBINS * sizeof(*io));
	memset(all, 0, NBINS * sizeof(*all));
	bool any = false;
	for (size_t i = 0; i < r->tasks.n; i++) {
		const struct report_task *t = &r->tasks.v[i];
		double bytes = (t->rbytes > 0 ? (double)t->rbytes : 0) +
			       (t->wbytes > 0 ? (double)t->wbytes : 0);
		if (bytes <= 0)
			continue;
		any = true;
		double a = (t->start - r->t0) / bw, b = (t->complete - r->t0) / bw;
		size_t ia = (size_t)fmin(floor(a), NBINS - 1),
		       ib = (size_t)fmin(floor(b), NBINS - 1);
		/* spread the bytes evenly over the task's time */
		for (size_t k = ia; k <= ib; k++) {
			double lo = fmax(a, (double)k), hi = fmin(b, (double)k + 1);
			double share = b > a ? bytes * fmax(0, hi - lo) / (b - a)
					     : bytes;
			all[k] += share;
			if (t->io)
				io[k] += share;
		}
	}
	return any;
}

static void
html_throughput(FILE *fp, const struct report *r)
{
	double span = r->t1 - r->t0;
	double io[NBINS], all[NBINS];
	double bw = span / NBINS;
	bool any = span > 0 && bin_bytes(r, bw, io, all);
	fputs("<h2>I/O throughput</h2>\n", fp);
	if (span <= 0) {
		fputs("<p class=\"note\">The run took no measurable time.</p>\n",
		      fp);
		return;
	}
	if (!any) {
		fputs("<p class=\"note\">The trace has no byte counts.</p>\n", fp);
		return;
	}
	double max = 0;
	for (size_t k = 0; k < NBINS; k++) {
		io[k] /= bw * 1e6;
		all[k] /= bw * 1e6;
		max = fmax(max, all[k]);
	}
	double step = report_nice_step(max, 4);
	double top = ceil(max / step) * step;
	double y0 = 8;
	fprintf(fp, "<p class=\"legend\"><span class=\"sw\" style=\"background:#f28e2b\">"
		"</span>I/O tasks<span class=\"sw\" style=\"background:#59a14f\"></span>all "
		"tasks &nbsp;<span class=\"note\">MB/s read + written, each "
		"task's bytes spread over its run time; bins of %.3g s</span>"
		"</p>\n", bw);
	fprintf(fp, "<svg id=\"throughput\" viewBox=\"0 0 %.0f %.0f\">\n",
		LABEL_W + PLOT_W + 20, CHART_H + 30);
	for (double v = 0; v <= top + 1e-9 && top > 0; v += step) {
		double y = y0 + CHART_H - CHART_H * v / top;
		fprintf(fp, "<line class=\"grid\" x1=\"%.0f\" y1=\"%.1f\" "
			"x2=\"%.0f\" y2=\"%.1f\"/><text class=\"axis\" x=\"%.0f\" "
			"y=\"%.1f\" text-anchor=\"end\">%g MB/s</text>\n",
			LABEL_W, y, LABEL_W + PLOT_W, y, LABEL_W - 4, y + 3, v);
	}
	time_axis(fp, r, LABEL_W, y0, CHART_H, PLOT_W / span);
	polyline(fp, all, NBINS, LABEL_W, PLOT_W, y0, CHART_H, top, "#59a14f");
	polyline(fp, io, NBINS, LABEL_W, PLOT_W, y0, CHART_H, top, "#f28e2b");
	fputs("</svg>\n", fp);
}

/* One learning curve: constraint (left axis) and mean task time (right
 * axis) per epoch, the final choice as a dashed line. */
/* The heading of a curve: its name, the final choice, where from. */
static void
curve_heading(FILE *fp, const struct report_curve *c)
{
	fputs("<h3>", fp);
	report_esc(fp, c->name);
	if (*c->device) {
		fputs(" on ", fp);
		report_esc(fp, c->device);
	}
	fputs("</h3>\n", fp);
	if (c->chosen) {
		fprintf(fp, "<p>Final choice: <b class=\"choice\">%g MB/s</b>",
			c->c);
		if (c->k)
			fprintf(fp, " (%ld at once", c->k);
		if (c->k && c->n)
			fprintf(fp, ", for %ld ready task%s", c->n,
				c->n == 1 ? "" : "s");
		if (c->k)
			fputc(')', fp);
		if (c->why && *c->why) {
			fputs(", ", fp);
			report_esc(fp, c->why);
		}
		fputs(".</p>\n", fp);
	}
	if (c->from_trace)
		fputs("<p class=\"note\">Rebuilt from trace.tsv (storage_bw and "
		      "epoch columns); no events.jsonl beside it, so whether "
		      "each epoch was registered is not known.</p>\n", fp);
}

/* Where a curve is drawn: the plot's box and the top of its axes. */
struct curve_geom {
	double W, H, x0, y0;
	double cstep, ctop, tstep, ttop;
	double dx;              /* the width of an epoch */
};

static void
curve_geom(const struct report_curve *c, struct curve_geom *g)
{
	size_t n = c->epochs.n;
	double cmax = c->chosen ? c->c : 0, tmax = 0;
	for (size_t i = 0; i < n; i++) {
		cmax = fmax(cmax, c->epochs.v[i].c);
		tmax = fmax(tmax, c->epochs.v[i].mean_s);
	}
	g->W = 520;
	g->H = 200;
	g->x0 = 70;
	g->y0 = 10;
	g->cstep = report_nice_step(cmax, 4);
	g->ctop = ceil(cmax / g->cstep) * g->cstep;
	g->tstep = report_nice_step(tmax, 4);
	g->ttop = ceil(tmax / g->tstep) * g->tstep;
	if (g->ctop <= 0)
		g->ctop = 1;
	if (g->ttop <= 0)
		g->ttop = 1;
	g->dx = g->W / (double)n;
}

/* The grid and the axes: MB/s on the left, seconds on the right. */
static void
curve_axes(FILE *fp, const struct report_curve *c, const struct curve_geom *g)
{
	size_t n = c->epochs.n;
	for (double v = 0; v <= g->ctop + 1e-9; v += g->cstep) {
		double y = g->y0 + g->H - g->H * v / g->ctop;
		fprintf(fp, "<line class=\"grid\" x1=\"%.0f\" y1=\"%.1f\" "
			"x2=\"%.0f\" y2=\"%.1f\"/><text class=\"axis\" x=\"%.0f\" "
			"y=\"%.1f\" text-anchor=\"end\" fill=\"#4e79a7\">%g</text>"
			"\n", g->x0, y, g->x0 + g->W, y, g->x0 - 4, y + 3, v);
	}
	for (double v = 0; v <= g->ttop + 1e-9; v += g->tstep) {
		double y = g->y0 + g->H - g->H * v / g->ttop;
		fprintf(fp, "<text class=\"axis\" x=\"%.0f\" y=\"%.1f\">%gs"
			"</text>\n", g->x0 + g->W + 4, y + 3, v);
	}
	fprintf(fp, "<text class=\"axis\" x=\"%.0f\" y=\"%.0f\" "
		"text-anchor=\"middle\">epoch</text>"
		"<text class=\"axis\" x=\"4\" y=\"%.0f\">MB/s</text>\n",
		g->x0 + g->W / 2, g->y0 + g->H + 30, g->y0 + 8);
	for (size_t i = 0; i < n; i++)
		fprintf(fp, "<text class=\"axis\" x=\"%.1f\" y=\"%.0f\" "
			"text-anchor=\"middle\">%ld%s</text>",
			g->x0 + g->dx * ((double)i + 0.5), g->y0 + g->H + 14,
			c->epochs.v[i].epoch, c->epochs.v[i].ramp ? "r" : "");
}

/* The points and lines of the constraint and of the epochs' times. */
static void
curve_points(FILE *fp, const struct report_curve *c,
	     const struct curve_geom *g)
{
	size_t n = c->epochs.n;
	/* constraint: squares; mean time: circles, hollow if unregistered */
	struct strbuf cp = STRBUF_INIT, tp = STRBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		const struct report_epoch *e = &c->epochs.v[i];
		double x = g->x0 + g->dx * ((double)i + 0.5);
		double yc = g->y0 + g->H - g->H * e->c / g->ctop;
		strbuf_addf(&cp, "%.1f,%.1f ", x, yc);
		fprintf(fp, "<rect fill=\"#4e79a7\" x=\"%.1f\" y=\"%.1f\" "
			"width=\"7\" height=\"7\"><title>epoch %ld%s: c = %g "
			"MB/s, k = %ld</title></rect>\n", x - 3.5, yc - 3.5,
			e->epoch, e->ramp ? ", its writers ramping up" : "",
			e->c, e->k);
		if (e->mean_s < 0)
			continue;
		double yt = g->y0 + g->H - g->H * e->mean_s / g->ttop;
		strbuf_addf(&tp, "%.1f,%.1f ", x, yt);
		fprintf(fp, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
			"fill=\"%s\" stroke=\"#e15759\" stroke-width=\"2\">"
			"<title>epoch %ld: mean %.3g s over %ld task%s%s</title>"
			"</circle>\n", e->registered ? "epoch registered" :
			"epoch unregistered", x, yt, e->registered ? "#e15759" :
			"#fff", e->epoch, e->mean_s, e->tasks,
			e->tasks == 1 ? "" : "s", e->registered ? "" :
			", not registered");
	}
	fprintf(fp, "<polyline fill=\"none\" stroke=\"#4e79a7\" "
		"stroke-width=\"1.5\" points=\"%s\"/>\n", cp.buf);
	fprintf(fp, "<polyline fill=\"none\" stroke=\"#e15759\" "
		"stroke-width=\"1.5\" points=\"%s\"/>\n", tp.buf);
	if (c->chosen) {
		double y = g->y0 + g->H - g->H * c->c / g->ctop;
		fprintf(fp, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" "
			"stroke=\"#4e79a7\" stroke-dasharray=\"5,4\"/>"
			"<text class=\"axis\" x=\"%.0f\" y=\"%.1f\">chosen %g"
			"</text>\n", g->x0, y, g->x0 + g->W, y, g->x0 + 4, y - 3,
			c->c);
	}
	strbuf_release(&cp);
	strbuf_release(&tp);
}

/* The legend and the table of the epochs. */
/* A climb's search step: its name, the best k so far and the bracket
 * (wfrun-storage-bw(7)); nothing for an epoch without one. */
static void
curve_step(FILE *fp, const char *step, const char *open, long best,
	   long lo, long hi)
{
	if (!step)
		return;
	report_esc(fp, step);
	if (open) {
		fputs(" (", fp);
		report_esc(fp, open);
		fputc(')', fp);
	}
	if (best > 0)
		fprintf(fp, ": best k so far %ld", best);
	if (hi > 0)
		fprintf(fp, ", between %ld and %ld", lo, hi);
}

/* How epoch e was measured: its rate taken while its tasks wrote
 * (wfrun-storage-bw(7): the one writer's, or in flight), or at their
 * ends, and the MB/s. */
static void
epoch_measured(char *buf, size_t n, const struct report_epoch *e,
	       bool from_trace)
{
	char mb[32] = "";
	if (e->mbps > 0)
		snprintf(mb, sizeof(mb), ": %.3g MB/s", e->mbps);
	if (from_trace || !e->ended)
		snprintf(buf, n, "?");
	else if (e->ramp && e->rate_err >= 0)
		snprintf(buf, n, "while its epoch's writers ramped up, over "
			 "%.2f s%s, within %.1f %%", e->rate_s, mb,
			 100 * e->rate_err);
	else if (e->rate_s > 0 && e->rate_err >= 0)
		snprintf(buf, n, "while writing, over %.2f s%s, within %.1f %%",
			 e->rate_s, mb, 100 * e->rate_err);
	else if (e->rate_s > 0)
		snprintf(buf, n, "while writing, over %.2f s%s", e->rate_s, mb);
	else
		snprintf(buf, n, "at its tasks' ends%s", mb);
}

static void
curve_table(FILE *fp, const struct report_curve *c)
{
	size_t n = c->epochs.n;
	fputs("</svg>\n<p class=\"legend\"><span class=\"sw\" style=\"background:#4e79a7\">"
	      "</span>constraint (MB/s, left)<span class=\"sw\" style=\"background:#e15759\">"
	      "</span>epoch time t_i (s, right; hollow: epoch not registered)"
	      "</p>\n<table class=\"epochs\"><tr><th>epoch</th><th>constraint"
	      "</th><th>k</th><th>tasks</th><th>time t_i</th>"
	      "<th>measured</th><th>registered</th><th>why this k</th></tr>\n",
	      fp);
	for (size_t i = 0; i < n; i++) {
		const struct report_epoch *e = &c->epochs.v[i];
		char t[32], m[96];
		report_fmt_secs(t, sizeof(t), e->mean_s);
		epoch_measured(m, sizeof(m), e, c->from_trace);
		char tasks[24] = "–";
		if (!e->ramp)
			snprintf(tasks, sizeof(tasks), "%ld", e->tasks);
		fprintf(fp, "<tr><td>%ld%s</td><td>%g MB/s</td><td>%ld</td>"
			"<td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>",
			e->epoch, e->ramp ? " (ramp)" : "", e->c, e->k, tasks,
			t, m,
			!e->ended ? "(did not end)" :
			c->from_trace ? "?" : e->registered ? "yes" : "no");
		if (e->ramp)
			fputs("its epoch's writers ramping up: they did not "
			      "slow one another", fp);
		curve_step(fp, e->step, e->open, e->best, e->lo, e->hi);
		fputs("</td></tr>\n", fp);
	}
	fputs("</table>\n", fp);
	if (c->ended_by) {
		fputs("<p class=\"note\">Learning ended: ", fp);
		report_esc(fp, c->ended_by);
		if (c->held && strcmp(c->ended_by, "held"))
			fputs(", after a hold until two of its tasks had "
			      "ended", fp);
		fputs(" (wfrun-storage-bw(7) says what each step means).</p>\n",
		      fp);
	}
}

static void
html_curve(FILE *fp, const struct report_curve *c, size_t idx)
{
	curve_heading(fp, c);
	if (!c->epochs.n)
		return;
	struct curve_geom g;
	curve_geom(c, &g);
	fprintf(fp, "<svg class=\"curve\" id=\"curve%zu\" width=\"%.0f\" "
		"height=\"%.0f\">\n", idx, g.x0 + g.W + 70, g.y0 + g.H + 36);
	curve_axes(fp, c, &g);
	curve_points(fp, c, &g);
	curve_table(fp, c);
}

int
report_write_html(const struct report *r, FILE *fp, struct errbuf *err)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head>"
	      "<meta charset=\"utf-8\">"
	      "<meta name=\"viewport\" content=\"width=device-width\">"
	      "<title>wfrun report: ", fp);
	report_esc(fp, r->run.workflow ? r->run.workflow : r->trace_path);
	fprintf(fp, "</title>\n<style>%s</style></head><body>\n"
		"<h1>wfrun report</h1>\n", css);
	report_page_header(fp, r);
	if (!r->tasks.n)
		fputs("<p>The trace has no tasks.</p>\n", fp);
	if (r->tasks.n)
		report_page_timeline(fp, r);
	report_page_failures(fp, r);
	if (r->tasks.n) {
		html_table(fp, r);
		report_page_dists(fp, r);
		report_page_usage(fp, r);
		html_throughput(fp, r);
	}
	if (r->curves.n)
		fputs("<h2>Storage-bandwidth learning</h2>\n", fp);
	for (size_t k = 0; k < r->curves.n; k++)
		html_curve(fp, &r->curves.v[k], k);
	fputs("</body></html>\n", fp);
	if (ferror(fp))
		return errprintf(err, "write error: %s", strerror(errno));
	return 0;
}

/* ---- Chrome trace events (chrome://tracing, Perfetto) ---- */

int
report_write_chrome(const struct report *r, FILE *fp, struct errbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n", fp);
	bool first = true;
	for (size_t w = 0; w < r->workers.n; w++) {
		const struct report_worker *rw = &r->workers.v[w];
		strbuf_reset(&sb);
		strbuf_add_json(&sb, rw->name);
		fprintf(fp, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%zu,"
			"\"args\":{\"name\":%s}}", first ? "" : ",\n", w + 1,
			sb.buf);
		first = false;
		for (uint32_t l = 0; l < rw->cpu_lanes + rw->io_lanes; l++)
			fprintf(fp, ",\n{\"ph\":\"M\",\"name\":\"thread_name\","
				"\"pid\":%zu,\"tid\":%u,\"args\":{\"name\":\"%s %u\"}}",
				w + 1, l, l < rw->cpu_lanes ? "cpu" : "io",
				l < rw->cpu_lanes ? l : l - rw->cpu_lanes);
	}
	for (size_t i = 0; i < r->tasks.n; i++) {
		const struct report_task *t = &r->tasks.v[i];
		const struct report_worker *rw = &r->workers.v[t->worker];
		strbuf_reset(&sb);
		strbuf_add_json(&sb, t->name);
		fprintf(fp, "%s{\"ph\":\"X\",\"name\":%s,\"cat\":\"%s\","
			"\"ts\":%.3f,\"dur\":%.3f,\"pid\":%u,\"tid\":%u,\"args\":{",
			first ? "" : ",\n", sb.buf, t->io ? "io" : "compute",
			(t->start - r->t0) * 1e6, (t->complete - t->start) * 1e6,
			t->worker + 1, t->io ? rw->cpu_lanes + t->lane : t->lane);
		first = false;
		strbuf_reset(&sb);
		strbuf_add_json(&sb, t->tag);
		fprintf(fp, "\"tag\":%s", sb.buf);
		strbuf_reset(&sb);
		strbuf_add_json(&sb, t->status);
		fprintf(fp, ",\"status\":%s", sb.buf);
		if (t->exit_code >= 0)
			fprintf(fp, ",\"exit\":%d", t->exit_code);
		if (t->cpu >= 0)
			fprintf(fp, ",\"cpu_s\":%.6f", t->cpu);
		if (t->rss_kb >= 0)
			fprintf(fp, ",\"peak_rss_kb\":%ld", t->rss_kb);
		if (t->rbytes >= 0)
			fprintf(fp, ",\"read_bytes\":%lld", t->rbytes);
		if (t->wbytes >= 0)
			fprintf(fp, ",\"write_bytes\":%lld", t->wbytes);
		if (t->storage_bw >= 0)
			fprintf(fp, ",\"storage_bw\":%g", t->storage_bw);
		if (t->epoch >= 1)
			fprintf(fp, ",\"epoch\":%ld", t->epoch);
		fputs("}}", fp);
	}
	fputs("\n]}\n", fp);
	strbuf_release(&sb);
	if (ferror(fp))
		return errprintf(err, "write error: %s", strerror(errno));
	return 0;
}
