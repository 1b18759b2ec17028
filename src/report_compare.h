/*
 * report_compare: wfrun report --compare A B, what changed from run A to
 * run B.  It owns naming a run (a trace path, a run's directory, a run id
 * of .wfrun/runs or a unique prefix of one, "latest", "previous"), summing
 * the two traces per task name and per instance, and writing the
 * comparison as a text table, a self-contained HTML page or JSON.
 *
 * The traces are read with report_load_trace (report.h).  A row of
 * trace.tsv is one attempt of a task that ran (up-to-date tasks have no
 * row); an instance is a task name with its params (the trace's tag), and
 * its attempts are summed: wall and CPU time, bytes read and written
 * added, peak RSS the largest.  Per task name: how many instances, total
 * and median wall and CPU time, median and largest peak RSS, total bytes
 * read and written, each in A, in B, and B - A (absolute and in % of A);
 * and which names, and which instances of a name in both, ran in one run
 * only.
 */
#ifndef WFRUN_REPORT_COMPARE_H
#define WFRUN_REPORT_COMPARE_H

#include <stdio.h>

#include "report.h"
#include "util.h"

enum compare_format { COMPARE_TEXT, COMPARE_HTML, COMPARE_JSON };

enum compare_metric {
	CM_INSTANCES, CM_WALL, CM_WALL_MEDIAN, CM_CPU, CM_CPU_MEDIAN,
	CM_RSS_MEDIAN, CM_RSS_MAX, CM_READ, CM_WRITE, CM_N
};

/* One instance of a run: its attempts summed. */
struct compare_inst {
	uint32_t name;          /* index into compare.names */
	const char *tag;        /* its params; "" for a task without */
	double wall, cpu;       /* s; cpu < 0: unknown */
	double rss_kb, rbytes, wbytes; /* < 0: unknown */
	unsigned attempts;
};

/* A task name: its metrics in A (0) and B (1), NAN where unknown or the
 * name did not run, and the tags of its instances in one run only. */
struct compare_name {
	const char *name;
	double m[2][CM_N];
	VEC(const char *) only[2];
};

struct compare_side {
	char *label;            /* the run id, or the trace's path */
	char *trace;
	struct report r;
	VEC(struct compare_inst) inst;
	struct hmap inst_map;   /* "name\ttag" -> index into inst */
};

struct compare {
	struct compare_side s[2];
	VEC(struct compare_name) names; /* A's in order of start, then B's */
	struct hmap name_map;
	struct arena arena;
};

void compare_init(struct compare *c);
void compare_release(struct compare *c);

/* What spec names, in the workdir wd (NULL: the current directory): a
 * file (a trace), a directory holding trace.tsv (a run's record), or a
 * run of wd's history: "latest" and "previous" (the last and the one
 * before among the runs that ran something), a run id, or a unique
 * prefix of one.  *trace and *label are allocated.  -1 with err naming
 * the nearest ids of an unknown one, or, for a run with nothing to do,
 * the run whose trace it kept. */
int compare_resolve(const char *wd, const char *spec, char **trace,
		    char **label, struct errbuf *err);

/* Read the traces of A and B and compare them; -1 with err. */
int compare_load(struct compare *c, const char *a, const char *b,
		 struct errbuf *err);

/* The format named by s (NULL: from out's extension, ".html" or ".json",
 * else text); -1 for an unknown name. */
int compare_format(const char *s, const char *out);

/* Write the comparison as f to out ("-": stdout); a file is written to
 * out.tmp and renamed.  -1 with err. */
int compare_write(const struct compare *c, enum compare_format f,
		  const char *out, struct errbuf *err);

#endif
