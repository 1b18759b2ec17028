/*
 * wfrun log [WORKFLOW | -C DIR] [--json] [--keep N]: the runs recorded
 * in a workdir (history.h), one line each, oldest first; --keep N
 * removes all but the last N records (never the last run that ran
 * something).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "history.h"
#include "util.h"
#include "wfrun.h"

struct log_args {
	const char *dir;
	bool json;
	long keep;      /* -1: no pruning */
};

/* -C, --json and --keep into *ctx, a struct log_args. */
static int
log_opt(int c, const char *arg, void *ctx)
{
	struct log_args *a = ctx;
	char *end;
	if (c == 'C') {
		a->dir = arg;
	} else if (c == 'J') {
		a->json = true;
	} else {
		errno = 0;
		a->keep = strtol(arg, &end, 10);
		if (errno || end == arg || *end || a->keep < 1) {
			error_msg("--keep wants a number of runs >= 1, not '%s'",
				  arg);
			return -1;
		}
	}
	return 0;
}

/* The workdir of the workflow file: 0, or the exit status. */
static int
workdir_of(const char *file, char **wd)
{
	struct workflow wf;
	struct diags d;
	diags_init(&d, file);
	workflow_load(&wf, file, &d);
	int rc = report_diags(&d, file); /* and releases d */
	if (!rc)
		*wd = xstrdup(wf.workdir);
	workflow_release(&wf);
	return rc;
}

static void
print_json(const struct history_rec *r)
{
	printf("{\"id\": \"%s\", \"start\": %.3f, \"end\": ", r->id, r->start);
	if (r->end < 0)
		printf("null");
	else
		printf("%.3f", r->end);
	printf(", \"exit\": ");
	if (r->exit < 0)
		printf("null");
	else
		printf("%d", r->exit);
	printf(", \"status\": \"%s\", \"counts\": {\"run\": %zu, "
	       "\"up_to_date\": %zu, \"failed\": %zu, \"cancelled\": %zu, "
	       "\"not_run\": %zu, \"left_out\": %zu}}\n", r->status, r->c.run,
	       r->c.up_to_date, r->c.failed, r->c.cancelled, r->c.not_run,
	       r->c.left_out);
}

static void
print_line(const struct history_rec *r)
{
	char date[32], secs[32], status[64];
	time_t t = (time_t)r->start;
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
	if (r->end < 0)
		snprintf(secs, sizeof(secs), "-");
	else
		snprintf(secs, sizeof(secs), "%.1fs", r->end - r->start);
	if (r->exit < 0)
		snprintf(status, sizeof(status), "%s", r->status);
	else
		snprintf(status, sizeof(status), "%s (exit %d)", r->status,
			 r->exit);
	printf("%-22s  %s  %8s  %5zu  %10zu  %6zu  %s\n", r->id, date, secs,
	       r->c.run, r->c.up_to_date, r->c.failed, status);
}

int
cmd_log(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "keep", required_argument, NULL, 'K' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	struct log_args a = { ".", false, -1 };
	static const struct cli_spec spec = {
		"C:q", opts, log_opt, 0, 1, "usage: wfrun log [--json] "
		"[--keep N] [WORKFLOW | -C DIR]", false, NULL
	};
	int rc = cli_parse(argc, argv, &spec, &a);
	if (rc)
		return rc;
	char *wd = NULL;
	if (optind < argc && (rc = workdir_of(argv[optind], &wd)))
		return rc;
	struct errbuf err;
	struct history_rec *recs = NULL;
	long n = a.keep > 0 ? history_prune(wd ? wd : a.dir, (size_t)a.keep,
					    &err) : 0;
	if (n > 0)
		info_msg("%ld old run%s removed", n, n == 1 ? "" : "s");
	if (n >= 0)
		n = history_list(wd ? wd : a.dir, &recs, &err);
	if (n < 0) {
		error_msg("%s", err.msg);
		free(wd);
		return EXIT_USAGE;
	}
	if (!a.json && !n)
		info_msg("no run recorded in %s", wd ? wd : a.dir);
	if (!a.json && n)
		printf("%-22s  %-19s  %8s  %5s  %10s  %6s  %s\n", "RUN",
		       "STARTED", "TIME", "RUN", "UP-TO-DATE", "FAILED",
		       "STATUS");
	for (long i = 0; i < n; i++)
		(a.json ? print_json : print_line)(&recs[i]);
	free(recs);
	free(wd);
	return EXIT_OK;
}
