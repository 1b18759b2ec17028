/*
 * wfrun probe: measure the write bandwidth under a directory and print it
 * as the resources-file line and the command-line option that take it.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "path.h"
#include "probe.h"
#include "util.h"
#include "wfrun.h"

static volatile sig_atomic_t probe_stop;

static void
on_signal(int sig)
{
	probe_stop = sig;
}

/* Stop between blocks on Ctrl-C; the file has no name, so there is
 * nothing to remove whatever happens. */
static void
catch_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* Probe o's directory (abs, its absolute path) and print the bandwidth;
 * the exit status. */
static int
measure(const struct probe_opts *o, const char *abs)
{
	struct errbuf err;
	struct probe_result r;
	verbose_msg("probe: writing %ld MB in %s with %d writer%s", o->size_mb,
		    abs, o->writers, o->writers == 1 ? "" : "s");
	if (probe_run(o, &r, &err) < 0) {
		error_msg("probe: %s", err.msg);
		return probe_stop ? EXIT_INTERRUPTED : EXIT_TASK_FAILED;
	}
	if (r.stopped) {
		error_msg("probe: interrupted; nothing was measured, nothing is "
			  "left in %s", abs);
		return EXIT_INTERRUPTED;
	}
	/* Whole MB/s: the probe is not more precise than that, and a
	 * bandwidth must be > 0. */
	long mbps = (long)r.mbps;
	if (mbps < 1)
		mbps = 1;
	printf("%s: %ld MB/s (%ld MB in %.2f s, %d writer%s, %s, fsync'd)\n", abs,
	       mbps, r.written_mb, r.secs, o->writers, o->writers == 1 ? "" : "s",
	       r.direct ? "O_DIRECT" : "buffered: no O_DIRECT here");
	printf("resources file: <disk bandwidth=\"%ld\"/>\n", mbps);
	printf("command line:   --disk-bw %ld\n", mbps);
	return EXIT_OK;
}

static int
parse_count(const char *opt, const char *s, long lo, long hi, long *out)
{
	if (parse_long(s, out) < 0 || *out < lo || *out > hi) {
		error_msg("%s wants a number from %ld to %ld, not '%s'", opt, lo,
			  hi, s);
		return -1;
	}
	return 0;
}

/* --size and --writers into *ctx, a struct probe_opts. */
static int
probe_opt(int c, const char *arg, void *ctx)
{
	struct probe_opts *o = ctx;
	long v;
	if (c == 's') {
		if (parse_count("--size", arg, 1, 1L << 30, &v) < 0)
			return -1;
		o->size_mb = v;
	} else {
		if (parse_count("-j/--writers", arg, 1, PROBE_MAX_WRITERS,
				&v) < 0)
			return -1;
		o->writers = (int)v;
	}
	return 0;
}

int
cmd_probe(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "writers", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct probe_opts o = { ".", PROBE_DEFAULT_MB, 1, &probe_stop };
	static const struct cli_spec spec = {
		"s:j:qv", opts, probe_opt, 0, 1,
		"usage: wfrun probe [--size MB] [-j WRITERS] [DIR]", false, NULL
	};
	int rc = cli_parse(argc, argv, &spec, &o);
	if (rc)
		return rc;
	if (optind < argc)
		o.dir = argv[optind];
	if (o.size_mb < o.writers) {
		error_msg("--size %ld is less than 1 MB per writer (-j %d); raise "
			  "--size or lower -j", o.size_mb, o.writers);
		return EXIT_USAGE;
	}

	catch_signals();
	struct errbuf err;
	if (probe_check_dir(&o, &err) < 0) {
		error_msg("probe: %s", err.msg);
		return EXIT_USAGE;
	}
	char *abs = path_absolute(o.dir);
	rc = measure(&o, abs);
	free(abs);
	return rc;
}
