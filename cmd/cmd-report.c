/*
 * wfrun report [TRACE|RUNID] [-o FILE] [--format html|chrome] [--events
 * FILE]: what a run did, as one HTML page or as Chrome trace-event JSON.
 * RUNID (not a file here) names a run recorded in .wfrun/runs (history.h);
 * the default trace is the latest run's that ran something.  The run's
 * record, run.json beside the trace, gives the header when it is there.
 * The output is written to FILE.tmp and renamed, so a report that fails
 * half-way never leaves a truncated file in place of a good one.
 * wfrun report --compare A [B]: two runs compared (report_compare.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "events.h"
#include "history.h"
#include "path.h"
#include "report.h"
#include "report_compare.h"
#include "util.h"
#include "wfrun.h"

#define DEFAULT_TRACE ".wfrun/trace.tsv"

struct report_args {
	const char *out, *events;
	bool chrome;
	const char *compare, *format; /* --compare A, --format (for it) */
};

/* -o, --format and --events into *ctx, a struct report_args. */
static int
report_opt(int c, const char *arg, void *ctx)
{
	struct report_args *a = ctx;
	if (c == 'C')
		a->compare = arg;
	if (c == 'F')
		a->format = arg;
	if (c == 'C' || (c == 'F' && compare_format(arg, NULL) >= 0))
		return 0;
	if (c == 'F' && a->compare) {
		error_msg("--compare writes text, html or json, not '%s'", arg);
		return -1;
	}
	if (c == 'o') {
		a->out = arg;
	} else if (c == 'E') {
		a->events = arg;
	} else if (!strcmp(arg, "chrome")) {
		a->chrome = true;
	} else if (strcmp(arg, "html")) {
		error_msg("--format wants html or chrome, not '%s'", arg);
		return -1;
	}
	return 0;
}

/* Read the trace (named: given on the command line) and the events:
 * those named, or else events.jsonl beside the trace if it is there. */
static int
load(struct report *r, const char *trace, bool named, const char *events,
     const char *ev_default)
{
	struct errbuf err;
	if (report_load_trace(r, trace, &err) < 0) {
		error_msg("%s", err.msg);
		if (!named && access(trace, F_OK) < 0)
			fprintf(stderr, "wfrun: run it in a workflow's workdir, "
				"or name the trace: wfrun report "
				"WORKDIR/.wfrun/trace.tsv\n");
		return EXIT_USAGE;
	}
	if (!events && access(ev_default, F_OK) == 0)
		events = ev_default;
	if (events && report_load_events(r, events, &err) < 0) {
		error_msg("%s", err.msg);
		return EXIT_USAGE;
	}
	char *dir = path_dirname(trace), *run = xasprintf("%s/run.json", dir);
	if (access(run, F_OK) == 0 && report_load_run(r, run, &err) < 0)
		warning_msg("%s; the header says what the trace has", err.msg);
	free(run);
	run = xasprintf("%s/" HISTORY_NOT_RUN, dir);
	if (access(run, F_OK) == 0 && report_load_not_run(r, run, &err) < 0)
		warning_msg("%s; the tasks not run are not listed", err.msg);
	free(run);
	free(dir);
	report_finish(r);
	return EXIT_OK;
}

static int
write_report(const struct report *r, FILE *fp, bool chrome,
	     struct errbuf *err)
{
	return chrome ? report_write_chrome(r, fp, err)
		      : report_write_html(r, fp, err);
}

/* Write the report on stdout. */
static int
write_stdout(const struct report *r, bool chrome)
{
	struct errbuf err;
	int w = write_report(r, stdout, chrome, &err);
	if (fflush(stdout) || w < 0) {
		error_msg("cannot write the report: %s",
			  w < 0 ? err.msg : strerror(errno));
		return EXIT_TASK_FAILED;
	}
	return EXIT_OK;
}

/* Write the report to out.tmp, then rename it to out. */
static int
write_file(const struct report *r, const char *out, bool chrome)
{
	struct errbuf err;
	char *tmp = xasprintf("%s.tmp", out);
	int rc = EXIT_OK;
	FILE *fp = fopen(tmp, "we");
	if (!fp) {
		error_msg("cannot write %s: %s", tmp, strerror(errno));
		rc = EXIT_TASK_FAILED;
		goto out;
	}
	int w = write_report(r, fp, chrome, &err);
	int closed = fclose(fp);
	if (w < 0 || closed || rename(tmp, out) < 0) {
		error_msg("cannot write %s: %s", out,
			  w < 0 ? err.msg : strerror(errno));
		unlink(tmp);
		rc = EXIT_TASK_FAILED;
		goto out;
	}
	info_msg("%s: %zu tasks%s -> %s", chrome ? "chrome trace" : "report",
		 r->tasks.n,
		 r->events_path && r->curves.n ? " and learner events" : "",
		 out);
out:
	free(tmp);
	return rc;
}

/* --compare A [B]: B by default the latest run; text on stdout by
 * default (report_compare.h). */
static int
compare(const struct report_args *a, const char *b)
{
	int f = compare_format(a->format, a->out);
	if (f < 0) {
		error_msg("--compare writes text, html or json, not '%s'",
			  a->format);
		return EXIT_USAGE;
	}
	const char *out = a->out ? a->out
			  : f != COMPARE_HTML ? "-"
			  : access(".wfrun", F_OK) == 0 ? ".wfrun/compare.html"
			  : "compare.html";
	struct compare c;
	struct errbuf err;
	compare_init(&c);
	int rc = compare_load(&c, a->compare, b ? b : "latest", &err) < 0
		 ? EXIT_USAGE
		 : compare_write(&c, f, out, &err) < 0 ? EXIT_TASK_FAILED : 0;
	if (rc)
		error_msg("%s", err.msg);
	else if (strcmp(out, "-"))
		info_msg("comparison of %s and %s -> %s", c.s[0].label,
			 c.s[1].label, out);
	compare_release(&c);
	return rc;
}

int
cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'F' },
		{ "events", required_argument, NULL, 'E' },
		{ "compare", required_argument, NULL, 'C' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct report_args a = { NULL, NULL, false, NULL, NULL };
	static const struct cli_spec spec = {
		"o:qv", opts, report_opt, 0, 1, "usage: wfrun report [-o FILE] "
		"[--format html|chrome] [--events FILE] [TRACE | RUNID]\n"
		"       wfrun report --compare A [B] [--format text|html|json] "
		"[-o FILE]", false, NULL
	};
	int rc = cli_parse(argc, argv, &spec, &a);
	if (rc)
		return rc;
	if (a.compare)
		return compare(&a, optind < argc ? argv[optind] : NULL);
	int f = a.format ? compare_format(a.format, NULL) : -1;
	if (f == COMPARE_TEXT || f == COMPARE_JSON) {
		error_msg("--format %s is for --compare", a.format);
		return EXIT_USAGE;
	}
	bool named = optind < argc;
	const char *trace = named ? argv[optind] : DEFAULT_TRACE;
	char *run_dir = named && access(trace, F_OK) < 0
			? history_run_dir(NULL, trace) : NULL;
	char *run_trace = run_dir ? xasprintf("%s/trace.tsv", run_dir) : NULL;
	if (run_trace)
		trace = run_trace;
	char *dir = path_dirname(trace);
	char *ev_default = events_beside(trace);
	char *out_default = xasprintf("%s/%s", dir,
				      a.chrome ? "trace.json" : "report.html");
	const char *out = a.out ? a.out : out_default;
	struct report r;
	report_init(&r);
	rc = load(&r, trace, named, a.events, ev_default);
	if (!rc)
		rc = !strcmp(out, "-") ? write_stdout(&r, a.chrome)
				       : write_file(&r, out, a.chrome);
	report_release(&r);
	free(dir);
	free(run_dir);
	free(run_trace);
	free(ev_default);
	free(out_default);
	return rc;
}
