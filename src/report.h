/*
 * report: reads what a run left (trace.tsv and, when it is there,
 * events.jsonl) and writes it as one self-contained HTML page or as Chrome
 * trace-event JSON.  It never touches a running workflow: it only reads
 * files, so it works on a trace copied from anywhere.
 *
 * trace.tsv columns are found by their header name; the columns it needs
 * are name, start and complete, every other one (worker, kind, status,
 * tag, exit, cpu_user_s, cpu_sys_s, peak_rss_kb, read_bytes, write_bytes,
 * storage_bw, epoch, ...) is used when present, and unknown ones are
 * ignored, so traces from older and newer wfruns read the same.
 *
 * run.json (history.h), read when it is beside the trace, gives the
 * page's header: workflow, run id, dates, command line, exit status and
 * the counts of tasks up to date, cancelled and not run.
 *
 * events.jsonl (read through events.h): the report uses the learner's
 * events (see the top of report.c) and ignores every other "ev".
 *
 * Lanes: the tasks of each worker are laid out greedily, compute and I/O
 * apart: in start order, a task takes the lanes that became free earliest
 * (as many as its cores; an I/O task one), or new lanes when not enough
 * are free yet.  A worker's compute lanes are thus at most its cores and
 * its I/O lanes at most its I/O executors.
 */
#ifndef WFRUN_REPORT_H
#define WFRUN_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "util.h"

struct report_task {
	const char *name, *tag, *status; /* in the report's arena */
	uint32_t nameidx, worker;        /* indices into names / workers */
	bool io, failed;
	int exit_code;                   /* -1: none */
	double start, complete;
	double cpu;                      /* user + system s; < 0 unknown */
	long rss_kb;                     /* -1: unknown */
	long long rbytes, wbytes;        /* -1: unknown */
	double storage_bw;               /* < 0: unknown */
	long epoch;                      /* -1: none */
	long cores;                      /* lanes it takes (compute) */
	uint32_t lane;                   /* its first lane in (worker, io) */
	bool preempted;                  /* status PREEMPTED: requeued */
	long attempt;                    /* 1 unless retried */
	double queue_s;                  /* < 0: unknown */
	double stage_s;                  /* stage in + out s; < 0: none */
	long long staged;                /* bytes staged; -1: none */
};

/* A task in one lane: a task of c cores is in c lanes. */
struct report_slot {
	uint32_t task, lane;
};

struct report_epoch {
	long epoch;
	double c, mean_s;
	long k, tasks;
	bool ended, registered;
	const char *step;       /* why this k (a climb's search), or NULL */
	const char *open;       /* step resume: the step it resumed by */
	long best, lo, hi;      /* the best k so far and its bracket */
	double rate_s;          /* its rate was taken while its tasks wrote,
				   over that many seconds ("rate"); 0: at
				   its tasks' ends */
	double rate_err;        /* how far off that rate may be, relative
				   (< 0: not said) */
	double mbps;            /* the MB/s it measured, 0: not known */
	bool ramp;              /* not an epoch: k of the epoch's writers,
				   read while they ramped up to its k and
				   registered ("ramp"; c, k, mbps, rate_s
				   and rate_err its own) */
};

/* The learning of one auto constraint: a task name on a device. */
struct report_curve {
	const char *name, *device;
	VEC(struct report_epoch) epochs;
	bool chosen;            /* a constraint event was seen */
	double c;               /* the last constraint chosen */
	long k, n;
	const char *why;
	const char *ended_by;   /* the search step that ended learning */
	bool held;              /* it was held (step held) until two tasks
				   ended, then went on or stopped */
	bool from_trace;        /* rebuilt from trace.tsv, no events.jsonl */
};

struct report_worker {
	const char *name;
	uint32_t cpu_lanes, io_lanes;
};

/* run.json beside the trace (history.h), when it is there. */
struct report_run {
	bool have;
	const char *id, *version, *workflow, *wf_sha, *resources, *status;
	const char *argv;       /* the command line, words joined by spaces */
	double start, end;      /* end < 0: none */
	long exit;              /* -1: none */
	long run, up_to_date, failed, cancelled, not_run; /* -1: unknown */
};

/* A task the run did not run (history.h, HISTORY_NOT_RUN). */
struct report_notrun {
	const char *state, *name, *tag; /* state: "cancelled", "not run" or
					   "not expanded" */
};

struct report {
	struct arena arena;
	struct report_run run;
	VEC(struct report_notrun) notrun; /* in the run's order */
	VEC(struct report_task) tasks;
	VEC(struct report_slot) slots;   /* by worker, kind, lane, start */
	struct hmap name_map, worker_map;
	VEC(const char *) names;
	VEC(struct report_worker) workers;
	VEC(struct report_curve) curves;
	double t0, t1;          /* earliest start, latest complete */
	size_t nfailed;
	const char *trace_path, *events_path;  /* events_path NULL: none */
};

void report_init(struct report *r);
void report_release(struct report *r);

/* Read trace.tsv; -1 with err naming path:line and what is wrong. */
int report_load_trace(struct report *r, const char *path, struct errbuf *err);
/* Read events.jsonl; -1 with err naming path:line. */
int report_load_events(struct report *r, const char *path,
		       struct errbuf *err);
/* Read run.json (the run's record, history.h); -1 with err naming path
 * when it cannot be read. */
int report_load_run(struct report *r, const char *path, struct errbuf *err);
/* Read the tasks not run (notrun.tsv beside run.json); -1 with err
 * naming path:line. */
int report_load_not_run(struct report *r, const char *path,
			struct errbuf *err);
/* After loading: assign lanes, and rebuild learning curves from the
 * trace's epoch column when no events were read. */
void report_finish(struct report *r);

/* Write the report; -1 with err when the stream fails. */
int report_write_html(const struct report *r, FILE *fp, struct errbuf *err);
int report_write_chrome(const struct report *r, FILE *fp, struct errbuf *err);

#endif
