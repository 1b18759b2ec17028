/*
 * history: the runs' records.  Every run (not -n) of a workdir keeps
 * .wfrun/runs/RUNID/ (RUNID: YYYYMMDD-HHMMSS-UUUUUU of its start, so the
 * names sort by start) holding run.json (id, start, end, argv, version,
 * workflow and resources with their SHA-256, exit, status, counts) and
 * the run's trace.tsv and events.jsonl: hard links to the files the
 * runner writes (copied at the end when a link cannot be made), so what a
 * SIGKILL leaves is in the record too, and run.json, written when the run
 * starts with end and exit null and status "running", says it did not
 * end.  .wfrun/run.json is the record of the run whose trace is
 * .wfrun/trace.tsv.  A run with nothing to do is recorded, and the latest
 * trace, events and run.json go back to those of the last run that ran
 * something.  It also
 * reads the records back for wfrun log and wfrun report RUNID, and prunes
 * them (HISTORY_KEEP by default, never the last run that ran something).
 */
#ifndef WFRUN_HISTORY_H
#define WFRUN_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

#define HISTORY_DIR ".wfrun/runs"
#define HISTORY_KEEP 50

struct history_counts {
	size_t run, up_to_date, failed, cancelled, not_run, left_out;
};

/* The record of the run in progress. */
struct history {
	char *id;           /* NULL: no record is kept */
	char *dir;          /* HISTORY_DIR/id */
	char *workflow, *wf_sha, *resources, *res_sha; /* absolute, NULL */
	char *tpath, *epath; /* the trace and events the runner writes */
	bool tlinked, elinked; /* linked into dir (else copied at the end) */
	double start;
	long pid;
};

/* The command line to record (copied: getopt and main reorder argv). */
void history_set_argv(int argc, char **argv);

/* Before the runner leaves the current directory: the workflow's and
 * the resources file's (NULL: none) absolute paths and hashes. */
void history_init(struct history *h, const char *workflow,
		  const char *resources);
/* In the workdir, its lock held, before the trace is opened: prune old
 * records, make this run's, and make tpath and the events beside it
 * (events.h) new files linked
 * into it.  -1 with err when the record cannot be made (the run goes
 * on without one). */
int history_begin(struct history *h, const char *tpath, struct errbuf *err);
/* The run has ended with exit status rc: its record says so; a run with
 * nothing to do gives the latest trace back to the last run that ran
 * something.  -1 with err. */
int history_end(struct history *h, int rc, const struct history_counts *c,
		struct errbuf *err);
/* Before history_end: the tasks this run did not run, as wfrun(1)
 * TRACE says of HISTORY_NOT_RUN (tsv: its header and rows), into the
 * record, and beside the latest trace when this run's is it.  -1 with
 * err. */
#define HISTORY_NOT_RUN "notrun.tsv"
int history_not_run(struct history *h, const struct strbuf *tsv,
		    struct errbuf *err);
void history_release(struct history *h);

/* A record as read back. */
struct history_rec {
	char id[256];
	double start, end;  /* end < 0: none */
	int exit;           /* -1: none */
	char status[32];    /* "killed" for a record of a run that is gone */
	struct history_counts c;
	long pid;
};

/* The records under the workdir wd (NULL: the current directory), oldest
 * first, into *recs (freed by the caller): how many, -1 with err. */
long history_list(const char *wd, struct history_rec **recs,
		  struct errbuf *err);
/* Remove all but the last keep records, and never the last run that ran
 * something; how many were removed, -1 with err. */
long history_prune(const char *wd, size_t keep, struct errbuf *err);
/* The directory of run id under wd, if it has a record; NULL otherwise. */
char *history_run_dir(const char *wd, const char *id);
/* SHA-256 of the file at path as 64 hex digits, NULL when unreadable. */
char *history_sha256_file(const char *path);

#endif
