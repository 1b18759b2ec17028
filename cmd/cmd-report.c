/*
 * wfrun report [TRACE] [-o FILE] [--format html|chrome] [--events FILE]:
 * what a run did, as one HTML page or as Chrome trace-event JSON.
 * The output is written to FILE.tmp and renamed, so a report that fails
 * half-way never leaves a truncated file in place of a good one.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "path.h"
#include "report.h"
#include "util.h"
#include "wfrun.h"

#define DEFAULT_TRACE ".wfrun/trace.tsv"

int
cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'F' },
		{ "events", required_argument, NULL, 'E' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *events = NULL;
	bool chrome = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:qv", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'F':
			if (!strcmp(optarg, "chrome"))
				chrome = true;
			else if (strcmp(optarg, "html")) {
				error_msg("--format wants html or chrome, not '%s'",
					  optarg);
				return EXIT_USAGE;
			}
			break;
		case 'E':
			events = optarg;
			break;
		case 'q':
			log_level = 0;
			break;
		case 'v':
			log_level = 2;
			break;
		default:
			fputs("Try 'wfrun --help'.\n", stderr);
			return EXIT_USAGE;
		}
	}
	if (optind + 1 < argc) {
		error_msg("usage: wfrun report [-o FILE] [--format html|chrome] "
			  "[--events FILE] [TRACE]");
		return EXIT_USAGE;
	}
	const char *trace = optind < argc ? argv[optind] : DEFAULT_TRACE;
	char *dir = path_dirname(trace);
	char *ev_default = xasprintf("%s/events.jsonl", dir);
	char *out_default = xasprintf("%s/%s", dir,
				      chrome ? "trace.json" : "report.html");
	free(dir);
	if (!out)
		out = out_default;

	struct report r;
	struct errbuf err;
	int rc = 0;
	report_init(&r);
	if (report_load_trace(&r, trace, &err) < 0) {
		error_msg("%s", err.msg);
		if (optind == argc && access(trace, F_OK) < 0)
			fprintf(stderr, "wfrun: run it in a workflow's workdir, "
				"or name the trace: wfrun report "
				"WORKDIR/.wfrun/trace.tsv\n");
		rc = EXIT_USAGE;
		goto done;
	}
	/* events.jsonl beside the trace is optional; one named must exist */
	if (!events && access(ev_default, F_OK) == 0)
		events = ev_default;
	if (events && report_load_events(&r, events, &err) < 0) {
		error_msg("%s", err.msg);
		rc = EXIT_USAGE;
		goto done;
	}
	report_finish(&r);

	bool to_stdout = !strcmp(out, "-");
	char *tmp = to_stdout ? NULL : xasprintf("%s.tmp", out);
	FILE *fp = to_stdout ? stdout : fopen(tmp, "we");
	if (!fp) {
		error_msg("cannot write %s: %s", tmp, strerror(errno));
		free(tmp);
		rc = 1;
		goto done;
	}
	int w = chrome ? report_write_chrome(&r, fp, &err)
		       : report_write_html(&r, fp, &err);
	if (to_stdout) {
		if (fflush(stdout) || w < 0) {
			error_msg("cannot write the report: %s",
				  w < 0 ? err.msg : strerror(errno));
			rc = 1;
		}
	} else {
		int closed = fclose(fp);
		if (w < 0 || closed || rename(tmp, out) < 0) {
			error_msg("cannot write %s: %s", out,
				  w < 0 ? err.msg : strerror(errno));
			unlink(tmp);
			rc = 1;
		} else {
			info_msg("%s: %zu tasks%s -> %s",
				 chrome ? "chrome trace" : "report", r.tasks.n,
				 r.events_path ? " and learner events" : "", out);
		}
	}
	free(tmp);
done:
	report_release(&r);
	free(ev_default);
	free(out_default);
	return rc;
}
