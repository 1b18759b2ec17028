/*
 * report_page: the header, timeline, failures, distributions and
 * resource-use sections of the HTML report (report_page.h).
 *
 * The timeline is a canvas that a small inline script draws, at the
 * width of the page, from the tasks written once as compact JSON (eight
 * numbers a task), so 100,000 tasks are one element, not 100,000.  One
 * colour per task name (the legend lists them); I/O tasks are striped and
 * in their own lanes below each worker's compute lanes; a failed attempt
 * has a band of REPORT_FAIL_COLOUR, a preempted one is pale; a bar wide
 * enough holds its name.  Hovering a bar shows the task, and for a failed
 * one its exit status and the tail of its stderr log (when the log is
 * still in the workdir: the latest attempt's, logname.h), also listed in
 * the failures table.  The distributions and resource charts are SVGs
 * with a viewBox, scaled to the page's width.
 */
#include "report_page.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "logname.h"

/* Lines of a failed task's stderr shown, and bytes read to find them. */
#define TAIL_LINES 20
#define TAIL_BYTES 8192
#define NO_LOG "(no stderr log left: it was empty, removed, or a later " \
	"attempt replaced it)"

static const char *const palette[] = {
	"#4e79a7", "#f28e2b", "#59a14f", "#76b7b2", "#edc948", "#b07aa1",
	"#ff9da7", "#9c755f", "#bab0ac",
};

/* The colour of task name k as #rrggbb into buf: the palette, then hues
 * a golden angle apart. */
void
report_name_colour(char *buf, size_t n, size_t k)
{
	if (k < ARRAY_SIZE(palette)) {
		snprintf(buf, n, "%s", palette[k]);
		return;
	}
	double h = fmod((double)k * 137.508, 360) / 60, c = 0.45;
	double x = c * (1 - fabs(fmod(h, 2) - 1)), m = 0.3;
	double rgb[6][3] = { { c, x, 0 }, { x, c, 0 }, { 0, c, x },
			     { 0, x, c }, { x, 0, c }, { c, 0, x } };
	const double *v = rgb[(int)h % 6];
	snprintf(buf, n, "#%02x%02x%02x", (int)((v[0] + m) * 255),
		 (int)((v[1] + m) * 255), (int)((v[2] + m) * 255));
}

/* s as a JSON string safe inside <script>: <, > and & as \u escapes. */
static void
json_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c < 0x20 || c == '<' || c == '>' || c == '&')
			fprintf(fp, "\\u%04x", c);
		else
			fputc(c, fp);
	}
	fputc('"', fp);
}

static void
fmt_date(char *buf, size_t n, double t)
{
	time_t s = (time_t)t;
	struct tm tm;
	if (t < 0 || !gmtime_r(&s, &tm))
		snprintf(buf, n, "–");
	else
		strftime(buf, n, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

static void
row_str(FILE *fp, const char *key, const char *id, const char *v)
{
	fprintf(fp, "<tr><td>%s</td><td id=\"%s\">", key, id);
	report_esc(fp, v && *v ? v : "–");
	fputs("</td></tr>\n", fp);
}

/* A count of run.json's, or "?" when unknown. */
static void
row_count(FILE *fp, const char *key, const char *id, long v)
{
	if (v < 0)
		fprintf(fp, "<tr><td>%s</td><td id=\"%s\">?</td></tr>\n", key, id);
	else
		fprintf(fp, "<tr><td>%s</td><td id=\"%s\">%ld</td></tr>\n", key,
			id, v);
}

/* The run's record: what run.json says. */
static void
header_run(FILE *fp, const struct report *r)
{
	const struct report_run *u = &r->run;
	char a[64], b[64], d[32];
	row_str(fp, "workflow", "workflow", u->workflow);
	if (u->wf_sha)
		fprintf(fp, "<tr><td>workflow SHA-256</td><td>%.16s…</td></tr>\n",
			u->wf_sha);
	if (u->resources)
		row_str(fp, "resources", "resources", u->resources);
	row_str(fp, "run", "runid", u->id);
	fmt_date(a, sizeof(a), u->start);
	fmt_date(b, sizeof(b), u->end);
	report_fmt_secs(d, sizeof(d), u->end >= 0 && u->start >= 0
				      ? u->end - u->start : -1);
	fprintf(fp, "<tr><td>started</td><td>%s</td></tr>\n<tr><td>ended</td>"
		"<td>%s</td></tr>\n<tr><td>duration</td><td id=\"duration\">%s"
		"</td></tr>\n", a, u->end >= 0 ? b : "did not end", d);
	row_str(fp, "command line", "argv", u->argv);
	row_str(fp, "wfrun version", "version", u->version);
	fputs("<tr><td>exit status</td><td id=\"exit\">", fp);
	if (u->exit >= 0)
		fprintf(fp, "%ld ", u->exit);
	report_esc(fp, u->status ? u->status : "");
	if (u->end < 0)
		fputs(" (no end recorded: the run was killed, or is still "
		      "going)", fp);
	fputs("</td></tr>\n", fp);
}

/* The counts of tasks: run.json's when there, else the trace's. */
static void
header_counts(FILE *fp, const struct report *r, size_t nio)
{
	const struct report_run *u = &r->run;
	size_t attempts = r->tasks.n, retried = 0, preempted = 0;
	for (size_t i = 0; i < r->tasks.n; i++) {
		retried += r->tasks.v[i].attempt > 1;
		preempted += r->tasks.v[i].preempted;
	}
	fprintf(fp, "<tr><td>attempts in the trace</td><td id=\"ntasks\">%zu "
		"(%zu compute, %zu I/O; %zu retries, %zu preempted)</td></tr>\n",
		attempts, attempts - nio, nio, retried, preempted);
	row_count(fp, "tasks run", "nrun", u->have ? u->run : -1);
	row_count(fp, "skipped (up to date)", "nuptodate",
		  u->have ? u->up_to_date : -1);
	fprintf(fp, "<tr><td>failed</td><td id=\"nfailed\">%ld</td></tr>\n",
		u->have && u->failed >= 0 ? u->failed : (long)r->nfailed);
	row_count(fp, "cancelled", "ncancelled", u->have ? u->cancelled : -1);
	row_count(fp, "not run", "nnotrun", u->have ? u->not_run : -1);
}

void
report_page_header(FILE *fp, const struct report *r)
{
	double cpu = 0;
	size_t nio = 0;
	for (size_t i = 0; i < r->tasks.n; i++) {
		if (r->tasks.v[i].cpu > 0)
			cpu += r->tasks.v[i].cpu;
		nio += r->tasks.v[i].io;
	}
	fputs("<table class=\"summary\">\n", fp);
	if (r->run.have)
		header_run(fp, r);
	row_str(fp, "trace", "trace", r->trace_path);
	row_str(fp, "events", "events", r->events_path ? r->events_path : "none");
	if (!r->run.have)
		fputs("<tr><td>run record</td><td>none (no run.json beside the "
		      "trace): counts from the trace only</td></tr>\n", fp);
	header_counts(fp, r, nio);
	char sp[32], cp[32];
	report_fmt_secs(sp, sizeof(sp), r->t1 - r->t0);
	report_fmt_secs(cp, sizeof(cp), cpu);
	fprintf(fp, "<tr><td>span of the tasks</td><td>%s</td></tr>\n<tr><td>"
		"CPU time</td><td>%s</td></tr>\n<tr><td>workers</td><td "
		"id=\"workers\">", sp, cp);
	for (size_t w = 0; w < r->workers.n; w++) {
		if (w)
			fputs(", ", fp);
		report_esc(fp, r->workers.v[w].name);
		fprintf(fp, " (%u cores, %u I/O executors used at once)",
			r->workers.v[w].cpu_lanes, r->workers.v[w].io_lanes);
	}
	fputs("</td></tr></table>\n", fp);
}

/* ---- the timeline ---- */

static const char timeline_js[] =
#include "report_timeline.js.h"
	;

/* The legend: a swatch per task name (striped for I/O), the markers. */
static void
timeline_legend(FILE *fp, const struct report *r, const bool *io)
{
	fputs("<p class=\"legend\" id=\"legend\">", fp);
	for (size_t k = 0; k < r->names.n; k++) {
		char c[16];
		report_name_colour(c, sizeof(c), k);
		fprintf(fp, "<span class=\"entry\"><span class=\"sw%s\" "
			"style=\"background-color:%s\"></span>", io[k] ? " io" : "",
			c);
		report_esc(fp, r->names.v[k]);
		fprintf(fp, "%s</span> ", io[k] ? " (I/O)" : "");
	}
	fputs("<span class=\"entry\"><span class=\"sw\" style=\"background-color:"
	      REPORT_FAIL_COLOUR "\"></span>failed attempt</span> <span "
	      "class=\"entry\"><span class=\"sw pale\"></span>preempted</span> "
	      "<span class=\"note\">one lane per core (compute) and per I/O "
	      "executor (I/O, striped) of each worker; “#2”: a retry; hover a "
	      "bar for the task</span></p>\n", fp);
}

/* The tasks as JSON: T holds 8 numbers a task (name, worker, io, first
 * lane, start and duration in s from t0, status 0 ok / 1 failed / 2
 * preempted, attempt), X the further lanes of multi-core tasks. */
static void
timeline_data(FILE *fp, const struct report *r)
{
	fprintf(fp, "<script type=\"application/json\" id=\"tl-data\">"
		"{\"span\":%.6f,\"fail\":\"" REPORT_FAIL_COLOUR "\",\"names\":[",
		r->t1 - r->t0);
	for (size_t k = 0; k < r->names.n; k++) {
		char c[16];
		report_name_colour(c, sizeof(c), k);
		fputs(k ? ",[" : "[", fp);
		json_str(fp, r->names.v[k]);
		fprintf(fp, ",\"%s\"]", c);
	}
	fputs("],\"workers\":[", fp);
	for (size_t w = 0; w < r->workers.n; w++) {
		fputs(w ? ",[" : "[", fp);
		json_str(fp, r->workers.v[w].name);
		fprintf(fp, ",%u,%u]", r->workers.v[w].cpu_lanes,
			r->workers.v[w].io_lanes);
	}
	fputs("],\n\"T\":[", fp);
	for (size_t i = 0; i < r->tasks.n; i++) {
		const struct report_task *t = &r->tasks.v[i];
		fprintf(fp, "%s%u,%u,%d,%u,%.3f,%.3f,%d,%ld", i ? ",\n" : "",
			t->nameidx, t->worker, t->io, t->lane, t->start - r->t0,
			t->complete - t->start, t->failed ? 1 : t->preempted ? 2 : 0,
			t->attempt);
	}
	fputs("],\n\"G\":[", fp);
	for (size_t i = 0; i < r->tasks.n; i++) {
		if (i)
			fputc(',', fp);
		json_str(fp, r->tasks.v[i].tag);
	}
	fputs("],\n\"X\":[", fp);
	bool first = true;
	for (size_t s = 0; s < r->slots.n; s++) {
		const struct report_slot *sl = &r->slots.v[s];
		if (sl->lane == r->tasks.v[sl->task].lane)
			continue;
		fprintf(fp, "%s%u,%u", first ? "" : ",", sl->task, sl->lane);
		first = false;
	}
	fputs("]", fp);
}

/* Where task t's stderr log is under the workdir of the trace: the part
 * of the trace's path before ".wfrun/" (logname.h). */
static void
log_path(const struct report *r, const struct report_task *t,
	 struct strbuf *out)
{
	const char *tp = r->trace_path, *w = NULL;
	for (const char *p = strstr(tp, ".wfrun/"); p; p = strstr(p + 1, ".wfrun/"))
		if (p == tp || p[-1] == '/')
			w = p;
	strbuf_reset(out);
	if (w)
		strbuf_add(out, tp, (size_t)(w - tp));
	strbuf_addf(out, "%s/%s", LOGNAME_DIR, t->name);
	if (!*t->tag) {
		strbuf_adds(out, ".err");
		return;
	}
	/* the tag is K=V,K2=V2: the instance's file name */
	char *tag = xstrdup(t->tag);
	const char *keys[64], *vals[64];
	size_t n = 0;
	for (char *kv = strtok(tag, ","); kv && n < 64; kv = strtok(NULL, ",")) {
		char *eq = strchr(kv, '=');
		if (eq)
			*eq = '\0';
		keys[n] = kv;
		vals[n++] = eq ? eq + 1 : "";
	}
	strbuf_addch(out, '/');
	logname_instance(out, keys, vals, n);
	strbuf_adds(out, ".err");
	free(tag);
}

/* The last TAIL_LINES lines of task t's stderr log into out; false when
 * the log is not there. */
static bool
log_tail(const struct report *r, const struct report_task *t,
	 struct strbuf *out)
{
	struct strbuf p = STRBUF_INIT;
	log_path(r, t, &p);
	FILE *fp = fopen(p.buf, "re");
	strbuf_release(&p);
	strbuf_reset(out);
	if (!fp)
		return false;
	char buf[TAIL_BYTES + 1];
	if (fseek(fp, -TAIL_BYTES, SEEK_END) < 0)
		rewind(fp);
	size_t n = fread(buf, 1, TAIL_BYTES, fp);
	fclose(fp);
	while (n && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	size_t start = n, lines = 0;
	while (start > 0 && lines < TAIL_LINES)
		if (buf[--start] == '\n' && ++lines == TAIL_LINES)
			start++;
	strbuf_adds(out, buf + start);
	return true;
}

/* "F": the failed attempts' exit status and stderr tail by task. */
static void
timeline_failures(FILE *fp, const struct report *r)
{
	struct strbuf tail = STRBUF_INIT;
	fputs(",\n\"F\":{", fp);
	bool first = true;
	for (size_t i = 0; i < r->tasks.n; i++) {
		const struct report_task *t = &r->tasks.v[i];
		if (!t->failed)
			continue;
		bool got = log_tail(r, t, &tail);
		fprintf(fp, "%s\"%zu\":[%d,", first ? "" : ",\n", i, t->exit_code);
		json_str(fp, got ? tail.buf : NO_LOG);
		fputc(']', fp);
		first = false;
	}
	fputs("}}</script>\n", fp);
	strbuf_release(&tail);
}

void
report_page_timeline(FILE *fp, const struct report *r)
{
	bool *io = xcalloc(r->names.n + 1, sizeof(bool));
	for (size_t i = 0; i < r->tasks.n; i++)
		io[r->tasks.v[i].nameidx] |= r->tasks.v[i].io;
	fputs("<h2>Timeline</h2>\n", fp);
	timeline_legend(fp, r, io);
	free(io);
	fputs("<div id=\"tl-box\"><canvas id=\"tl\"></canvas></div>\n"
	      "<div id=\"tl-tip\" hidden></div>\n", fp);
	timeline_data(fp, r);
	timeline_failures(fp, r);
	fprintf(fp, "<script>%s</script>\n", timeline_js);
}

/* ---- failures ---- */

/* The first rows of the tasks not run that the page lists; the rest are
 * counted (a failure early in a 100,000-task run cancels most of it). */
#define NOTRUN_SHOWN 1000

/* The tasks that never started: cancelled (an input failed), not run
 * (the run stopped first), not expanded (a stage never came); listed
 * from the run's notrun.tsv, else counted from run.json. */
static void
write_not_run(const struct report *r, FILE *fp)
{
	const struct report_run *u = &r->run;
	if (!r->notrun.n) {
		if (u->have && (u->cancelled > 0 || u->not_run > 0))
			fprintf(fp, "<p id=\"notrun\">Cancelled (an input "
				"failed): %ld; not run (the run stopped "
				"first): %ld.</p>\n", u->cancelled, u->not_run);
		return;
	}
	fprintf(fp, "<h2>Not run</h2>\n<p id=\"notrun\">%zu task%s never "
		"started: <i>cancelled</i>, an input failed; <i>not run</i>, "
		"the run stopped first; <i>not expanded</i>, what an earlier "
		"task was to write never came.  <code>wfrun -n</code> lists "
		"what is still to do.</p>\n<table id=\"notrun-table\">"
		"<tr><th>state</th><th>task</th><th>instance</th></tr>\n",
		r->notrun.n, r->notrun.n == 1 ? "" : "s");
	for (size_t i = 0; i < r->notrun.n && i < NOTRUN_SHOWN; i++) {
		const struct report_notrun *n = &r->notrun.v[i];
		fputs("<tr class=\"notrun\"><td>", fp);
		report_esc(fp, n->state);
		fputs("</td><td>", fp);
		report_esc(fp, n->name);
		fputs("</td><td>", fp);
		report_esc(fp, n->tag);
		fputs("</td></tr>\n", fp);
	}
	if (r->notrun.n > NOTRUN_SHOWN)
		fprintf(fp, "<tr><td colspan=\"3\">and %zu more</td></tr>\n",
			r->notrun.n - NOTRUN_SHOWN);
	fputs("</table>\n", fp);
}

void
report_page_failures(FILE *fp, const struct report *r)
{
	struct strbuf tail = STRBUF_INIT;
	fputs("<h2>Failures</h2>\n", fp);
	if (r->nfailed) {
		fputs("<table id=\"failures\"><tr><th>task</th><th>attempt</th>"
		      "<th>worker</th><th>status</th><th>exit</th>"
		      "<th>stderr (last lines)</th></tr>\n", fp);
	} else {
		fputs("<p id=\"nofailures\">No attempt failed.</p>\n", fp);
	}
	for (size_t i = 0; i < r->tasks.n; i++) {
		const struct report_task *t = &r->tasks.v[i];
		if (!t->failed)
			continue;
		fputs("<tr class=\"failure\"><td>", fp);
		report_esc(fp, t->name);
		if (*t->tag) {
			fputc(' ', fp);
			report_esc(fp, t->tag);
		}
		fprintf(fp, "</td><td>%ld</td><td>", t->attempt);
		report_esc(fp, r->workers.v[t->worker].name);
		fputs("</td><td>", fp);
		report_esc(fp, t->status);
		fputs("</td><td>", fp);
		if (t->exit_code >= 0)
			fprintf(fp, "%d", t->exit_code);
		fputs("</td><td><pre>", fp);
		report_esc(fp, log_tail(r, t, &tail) ? tail.buf : NO_LOG);
		fputs("</pre></td></tr>\n", fp);
	}
	if (r->nfailed)
		fputs("</table>\n", fp);
	write_not_run(r, fp);
	strbuf_release(&tail);
}
