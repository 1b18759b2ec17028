/*
 * report_charts: the distributions per task name (a box plot a name per
 * measure: whiskers from the least to the greatest, the box from the
 * first to the third quartile, the median across, the count beside) and
 * the resource use over time (cores and I/O executors busy, and for each
 * task name with a storage_bw constraint its throughput and concurrency
 * against the constraint) of the HTML report (report_page.h).  Each
 * chart is an SVG with a viewBox, scaled to the page's width.
 */
#include "report_page.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define VB_W 1000.0     /* the charts' viewBox width */
#define BOX_X 180.0     /* where the plot starts, after the names */
#define BOX_W 740.0
#define BOX_ROW 20.0
#define USE_H 140.0
#define UBINS 300

struct measure {
	const char *title, *id;
	double (*get)(const struct report_task *t);  /* < 0: unknown */
	void (*fmt)(char *buf, size_t n, double v);
};

static double
get_wall(const struct report_task *t)
{
	return t->complete - t->start;
}

static double
get_cpu(const struct report_task *t)
{
	double w = t->complete - t->start;
	return t->cpu >= 0 && w > 0 ? 100 * t->cpu / w : -1;
}

static double
get_rss(const struct report_task *t)
{
	return t->rss_kb >= 0 ? (double)t->rss_kb * 1024 : -1;
}

static double
get_read(const struct report_task *t)
{
	return (double)t->rbytes;
}

static double
get_write(const struct report_task *t)
{
	return (double)t->wbytes;
}

static double
get_queue(const struct report_task *t)
{
	return t->queue_s;
}

static double
get_stage(const struct report_task *t)
{
	return t->stage_s;
}

static double
get_staged(const struct report_task *t)
{
	return (double)t->staged;
}

static void
fmt_pct(char *buf, size_t n, double v)
{
	snprintf(buf, n, "%.0f%%", v);
}

static const struct measure measures[] = {
	{ "Wall time", "wall", get_wall, report_fmt_secs },
	{ "CPU use (CPU time / wall time)", "cpu", get_cpu, fmt_pct },
	{ "Peak RSS", "rss", get_rss, report_fmt_bytes },
	{ "Bytes read", "read", get_read, report_fmt_bytes },
	{ "Bytes written", "written", get_write, report_fmt_bytes },
	{ "Queue time (ready to started)", "queue", get_queue, report_fmt_secs },
	{ "Transfer time (staging in and out)", "transfer", get_stage,
	  report_fmt_secs },
	{ "Bytes staged", "staged", get_staged, report_fmt_bytes },
};

struct box {
	size_t n;
	double q[5];    /* min, first quartile, median, third, max */
};

static int
cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double
quantile(const double *v, size_t n, double p)
{
	double at = p * (double)(n - 1);
	size_t i = (size_t)floor(at);
	return i + 1 < n ? v[i] + (v[i + 1] - v[i]) * (at - (double)i) : v[i];
}

/* The boxes of measure m, a name each (tasks of name k: ord[off[k] ..
 * off[k + 1])); the greatest value into *max.  How many names have one. */
static size_t
boxes(const struct report *r, const struct measure *m, const uint32_t *ord,
      const size_t *off, struct box *bx, double *max)
{
	size_t have = 0;
	double *v = xcalloc(r->tasks.n + 1, sizeof(double));
	*max = 0;
	for (size_t k = 0; k < r->names.n; k++) {
		size_t n = 0;
		for (size_t i = off[k]; i < off[k + 1]; i++) {
			double x = m->get(&r->tasks.v[ord[i]]);
			if (x >= 0)
				v[n++] = x;
		}
		bx[k].n = n;
		if (!n)
			continue;
		have++;
		qsort(v, n, sizeof(double), cmp_dbl);
		for (int q = 0; q < 5; q++)
			bx[k].q[q] = quantile(v, n, q / 4.0);
		*max = fmax(*max, v[n - 1]);
	}
	free(v);
	return have;
}

/* One box plot row of name k at y. */
static void
box_row(FILE *fp, const struct report *r, const struct measure *m,
	const struct box *b, size_t k, double y, double max)
{
	char s[5][32], c[16];
	for (int q = 0; q < 5; q++)
		m->fmt(s[q], sizeof(s[q]), b->q[q]);
	double x[5];
	for (int q = 0; q < 5; q++)
		x[q] = BOX_X + (max > 0 ? BOX_W * b->q[q] / max : 0);
	report_name_colour(c, sizeof(c), k);
	fprintf(fp, "<g class=\"box\"><title>");
	report_esc(fp, r->names.v[k]);
	fprintf(fp, ": %zu tasks; least %s, quartiles %s, %s, %s; greatest %s"
		"</title><text class=\"axis\" x=\"%.0f\" y=\"%.1f\" "
		"text-anchor=\"end\">", b->n, s[0], s[1], s[2], s[3], s[4],
		BOX_X - 6, y + 13);
	report_esc(fp, r->names.v[k]);
	fprintf(fp, "</text><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
		"y2=\"%.1f\" stroke=\"#555\"/><rect x=\"%.1f\" y=\"%.1f\" "
		"width=\"%.1f\" height=\"12\" fill=\"%s\" fill-opacity=\".6\" "
		"stroke=\"#555\"/>"
		"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"#000\" stroke-width=\"2\"/><text class=\"axis\" "
		"x=\"%.0f\" y=\"%.1f\">%s (%zu)</text></g>\n", x[0], x[4], y + 9,
		y + 9, x[1], y + 3, fmax(1, x[3] - x[1]), c, x[2], x[2], y + 2,
		y + 16, BOX_X + BOX_W + 6, y + 13, s[2], b->n);
}

/* The step of the axis of measure m up to max: round in the unit its
 * values are shown in (KiB, MiB... for bytes). */
static double
axis_step(const struct measure *m, double max)
{
	double unit = 1;
	if (m->fmt == report_fmt_bytes)
		while (max / unit >= 1024 && unit < 1099511627776.0)
			unit *= 1024;
	return report_nice_step(max / unit, 5) * unit;
}

/* The box plots of measure m, or nothing when no task has it. */
static void
dist_chart(FILE *fp, const struct report *r, const struct measure *m,
	   const uint32_t *ord, const size_t *off)
{
	struct box *bx = xcalloc(r->names.n + 1, sizeof(*bx));
	double max;
	size_t have = boxes(r, m, ord, off, bx, &max);
	if (!have) {
		free(bx);
		return;
	}
	double h = (double)have * BOX_ROW + 24;
	fprintf(fp, "<h3>%s</h3>\n<svg class=\"dist\" id=\"dist-%s\" "
		"viewBox=\"0 0 %.0f %.0f\">\n", m->title, m->id, VB_W, h);
	double step = axis_step(m, max);
	for (double v = 0; max > 0 && v <= max + 1e-9; v += step) {
		char s[32];
		m->fmt(s, sizeof(s), v);
		double x = BOX_X + BOX_W * v / max;
		fprintf(fp, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" "
			"y2=\"%.0f\"/><text class=\"axis\" x=\"%.1f\" y=\"%.0f\" "
			"text-anchor=\"middle\">%s</text>\n", x, x, h - 20, x,
			h - 6, s);
	}
	double y = 0;
	for (size_t k = 0; k < r->names.n; k++)
		if (bx[k].n) {
			box_row(fp, r, m, &bx[k], k, y, max);
			y += BOX_ROW;
		}
	fputs("</svg>\n", fp);
	free(bx);
}

void
report_page_dists(FILE *fp, const struct report *r)
{
	size_t nn = r->names.n;
	size_t *off = xcalloc(nn + 2, sizeof(size_t));
	uint32_t *ord = xcalloc(r->tasks.n + 1, sizeof(uint32_t));
	for (size_t i = 0; i < r->tasks.n; i++)
		off[r->tasks.v[i].nameidx + 2]++;
	for (size_t k = 0; k < nn; k++)
		off[k + 2] += off[k + 1];
	for (size_t i = 0; i < r->tasks.n; i++)
		ord[off[r->tasks.v[i].nameidx + 1]++] = (uint32_t)i;
	fputs("<h2>Distributions by task name</h2>\n<p class=\"note\">Every "
	      "attempt of each name: whiskers from the least to the greatest, "
	      "the box from the first to the third quartile, the median as a "
	      "bar and its value at the right (with the count).  Measures no "
	      "task has are left out.</p>\n", fp);
	for (size_t k = 0; k < ARRAY_SIZE(measures); k++)
		dist_chart(fp, r, &measures[k], ord, off);
	free(ord);
	free(off);
}

/* ---- resource use over time ---- */

/* A line of a use chart: UBINS values, drawn against the left axis or,
 * right, the right one. */
struct series {
	double v[UBINS];
	const char *colour, *label;
	bool dashed, right;
};

/* x spread over the bins a task from a to b (s from t0) overlaps, in
 * proportion to the overlap (each bin's share: x * overlap / (b - a)
 * when per_task, else x * overlap / bin width, an average level). */
static void
spread(double *v, double a, double b, double bw, double x, bool per_task)
{
	size_t ia = (size_t)fmin(fmax(0, floor(a / bw)), UBINS - 1),
	       ib = (size_t)fmin(fmax(0, floor(b / bw)), UBINS - 1);
	for (size_t k = ia; k <= ib; k++) {
		double lo = fmax(a, (double)k * bw), hi = fmin(b, (double)(k + 1) * bw);
		double o = fmax(0, hi - lo);
		v[k] += per_task ? (b > a ? x * o / (b - a) : x) : x * o / bw;
	}
}

static void
series_line(FILE *fp, const struct series *s, double h, double top)
{
	fprintf(fp, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s "
		"points=\"", s->colour, s->dashed ? " stroke-dasharray=\"5,4\"" : "");
	for (size_t k = 0; k < UBINS; k++)
		fprintf(fp, "%.1f,%.1f ", BOX_X + BOX_W * ((double)k + 0.5) / UBINS,
			8 + h - (top > 0 ? h * fmin(s->v[k], top) / top : 0));
	fputs("\"/>\n", fp);
}

/* A chart of n series over the run: left axis in unit (MB/s or count),
 * the right axis (if a series uses it) a count. */
static void
use_chart(FILE *fp, const char *id, const struct series *s, size_t n,
	  const char *unit, double span)
{
	double top[2] = { 0, 0 };
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < UBINS; k++)
			top[s[i].right] = fmax(top[s[i].right], s[i].v[k]);
	fputs("<p class=\"legend\">", fp);
	for (size_t i = 0; i < n; i++)
		fprintf(fp, "<span class=\"sw\" style=\"background:%s\"></span>%s%s",
			s[i].colour, s[i].label, s[i].right ? " (right axis)" : "");
	fprintf(fp, "</p>\n<svg class=\"use\" id=\"%s\" viewBox=\"0 0 %.0f "
		"%.0f\">\n", id, VB_W, USE_H + 30);
	for (int a = 0; a < 2; a++) {
		double step = report_nice_step(top[a], 4);
		top[a] = top[a] > 0 ? ceil(top[a] / step) * step : 1;
		for (double v = 0; a == 0 || top[1] > 1 ? v <= top[a] + 1e-9 : 0;
		     v += step)
			fprintf(fp, "<line class=\"grid\" x1=\"%.0f\" x2=\"%.0f\" "
				"y1=\"%.1f\" y2=\"%.1f\"/><text class=\"axis\" "
				"x=\"%.0f\" y=\"%.1f\" text-anchor=\"%s\">%g%s</text>\n",
				BOX_X, BOX_X + BOX_W, 8 + USE_H - USE_H * v / top[a],
				8 + USE_H - USE_H * v / top[a], a ? BOX_X + BOX_W + 4
				: BOX_X - 4, 11 + USE_H - USE_H * v / top[a],
				a ? "start" : "end", v, a ? "" : unit);
	}
	double ts = report_nice_step(span, 8);
	for (double t = 0; span > 0 && t <= span + 1e-9; t += ts)
		fprintf(fp, "<text class=\"axis\" x=\"%.1f\" y=\"%.0f\" "
			"text-anchor=\"middle\">%gs</text>\n",
			BOX_X + BOX_W * t / span, USE_H + 24, t);
	for (size_t i = 0; i < n; i++)
		series_line(fp, &s[i], USE_H, top[s[i].right]);
	fputs("</svg>\n", fp);
}

/* Cores and I/O executors busy, against the most used at once. */
static void
use_slots(FILE *fp, const struct report *r, double span)
{
	struct series s[4] = {
		{ .colour = "#4e79a7", .label = "cores busy" },
		{ .colour = "#f28e2b", .label = "I/O executors busy" },
		{ .colour = "#4e79a7", .label = "cores used at most",
		  .dashed = true },
		{ .colour = "#f28e2b", .label = "I/O executors used at most",
		  .dashed = true },
	};
	double bw = span / UBINS, cores = 0, ios = 0;
	for (size_t w = 0; w < r->workers.n; w++) {
		cores += r->workers.v[w].cpu_lanes;
		ios += r->workers.v[w].io_lanes;
	}
	for (size_t k = 0; k < UBINS; k++) {
		s[2].v[k] = cores;
		s[3].v[k] = ios;
	}
	for (size_t i = 0; i < r->tasks.n; i++) {
		const struct report_task *t = &r->tasks.v[i];
		spread(s[t->io].v, t->start - r->t0, t->complete - r->t0, bw,
		       t->io ? 1 : (double)t->cores, false);
	}
	fputs("<h3>Cores and I/O executors busy (all workers)</h3>\n", fp);
	use_chart(fp, "use-slots", s, 4, "", span);
}

/* For task name k, whose tasks have a storage_bw constraint, on the
 * device of worker w (an I/O task writes its worker's device; w ==
 * SIZE_MAX: every worker): its throughput and its tasks at once against
 * the constraint. */
static void
use_device(FILE *fp, const struct report *r, size_t k, size_t w,
	   double span)
{
	struct series s[3] = {
		{ .colour = "#59a14f", .label = "throughput (MB/s read + written)" },
		{ .colour = "#000", .label = "storage_bw constraint (MB/s)",
		  .dashed = true },
		{ .colour = "#9c755f", .label = "tasks at once", .right = true },
	};
	double bw = span / UBINS;
	for (size_t i = 0; i < r->tasks.n; i++) {
		const struct report_task *t = &r->tasks.v[i];
		if (t->nameidx != k || t->storage_bw < 0 ||
		    (w != SIZE_MAX && t->worker != w))
			continue;
		double a = t->start - r->t0, b = t->complete - r->t0;
		double bytes = (double)(t->rbytes > 0 ? t->rbytes : 0) +
			       (double)(t->wbytes > 0 ? t->wbytes : 0);
		spread(s[0].v, a, b, bw, bytes / 1e6 / bw, true);
		spread(s[2].v, a, b, bw, 1, false);
		size_t ia = (size_t)fmin(a / bw, UBINS - 1),
		       ib = (size_t)fmin(b / bw, UBINS - 1);
		for (size_t j = ia; j <= ib; j++)
			s[1].v[j] = fmax(s[1].v[j], t->storage_bw);
	}
	fputs("<h3>", fp);
	report_esc(fp, r->names.v[k]);
	if (w != SIZE_MAX) {
		fputs(" on the device of ", fp);
		report_esc(fp, r->workers.v[w].name);
	}
	fputs(": throughput and concurrency against its storage_bw</h3>\n", fp);
	char id[48];
	if (w == SIZE_MAX)
		snprintf(id, sizeof(id), "use-bw%zu", k);
	else
		snprintf(id, sizeof(id), "use-bw%zu-w%zu", k, w);
	use_chart(fp, id, s, 3, " MB/s", span);
}

/* Each task name with a storage_bw constraint: one chart, or, when its
 * tasks ran on several workers (several devices), one per worker. */
static void
use_devices(FILE *fp, const struct report *r, double span)
{
	size_t nw = r->workers.n ? r->workers.n : 1;
	/* per name: the first worker seen + 1, or SIZE_MAX for several */
	size_t *on = xcalloc(r->names.n + 1, sizeof(size_t));
	bool *pair = xcalloc((r->names.n + 1) * nw, sizeof(bool));
	for (size_t i = 0; i < r->tasks.n; i++) {
		const struct report_task *t = &r->tasks.v[i];
		if (t->storage_bw < 0)
			continue;
		pair[t->nameidx * nw + t->worker] = true;
		if (!on[t->nameidx])
			on[t->nameidx] = t->worker + 1;
		else if (on[t->nameidx] != t->worker + 1)
			on[t->nameidx] = SIZE_MAX;
	}
	for (size_t k = 0; k < r->names.n; k++) {
		if (on[k] && on[k] != SIZE_MAX)
			use_device(fp, r, k, SIZE_MAX, span);
		for (size_t w = 0; on[k] == SIZE_MAX && w < r->workers.n; w++)
			if (pair[k * nw + w])
				use_device(fp, r, k, w, span);
	}
	free(pair);
	free(on);
}

void
report_page_usage(FILE *fp, const struct report *r)
{
	double span = r->t1 - r->t0;
	fputs("<h2>Resource use over time</h2>\n", fp);
	if (span <= 0) {
		fputs("<p class=\"note\">The run took no measurable time.</p>\n",
		      fp);
		return;
	}
	use_slots(fp, r, span);
	use_devices(fp, r, span);
}
