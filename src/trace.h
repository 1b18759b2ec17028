/*
 * trace: trace.tsv, one row per task attempt, written as tasks end.  The
 * columns are fixed (wfrun(1), TRACE, says what each holds); a column
 * whose value this run does not know is left empty, never invented.
 * Times are Unix epoch seconds with microseconds, durations are seconds.
 *
 * submit is when the task became ready (all its predecessors done), so
 * queue_s = start - submit is the time it waited for free cores (and,
 * for an I/O task, for its share of the storage bandwidth).
 *
 * Columns: task_id name tag worker kind cores storage_bw epoch status exit
 * attempt submit start complete queue_s realtime_s cpu_user_s cpu_sys_s
 * peak_rss_kb read_bytes write_bytes stage_in_s stage_out_s bytes_staged
 *
 * The last three are for workers whose workdir is not shared: the seconds
 * from placing the task until its inputs were on the worker, the seconds
 * the worker spent moving its outputs into its store, and the bytes sent
 * to the worker for this task (a file already there costs nothing).
 */
#ifndef WFRUN_TRACE_H
#define WFRUN_TRACE_H

#include <stdio.h>

#include "util.h"

struct trace_row {
	unsigned long task_id;
	const char *name, *tag, *worker, *kind;
	long cores;
	double storage_bw;  /* MB/s it held, 0: unconstrained (empty) */
	int epoch;          /* learning epoch, 0: none (empty) */
	const char *status;
	int exit_code;      /* -1: none */
	int attempt;
	double submit, start, complete;
	double cpu_user, cpu_sys; /* cpu_user < 0: unknown (both empty) */
	long peak_rss_kb;   /* -1: unknown */
	long long read_bytes, write_bytes; /* -1: unknown */
	double stage_in_s, stage_out_s;    /* -1: not staged */
	long long bytes_staged;            /* -1: not staged */
};

struct trace {
	FILE *fp;
	char *path;
};

/* Open (truncating) and write the header; -1 with err filled. */
int trace_open(struct trace *t, const char *path, struct errbuf *err);
void trace_write(struct trace *t, const struct trace_row *r);
/* Flush and close; -1 with err filled if anything failed to write. */
int trace_close(struct trace *t, struct errbuf *err);

#endif
