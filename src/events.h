/*
 * events: events.jsonl, the storage-bandwidth learner's decisions, one JSON
 * object per line (wfrun(1), FILES).  This module owns the file's format
 * both ways: the runner and the simulator write it (events_write) beside
 * the trace, and `wfrun report` reads it back (events_open/next/close).
 *
 * The lines written, t in Unix seconds (virtual ones in `wfrun sim`):
 *   {"t":..,"ev":"epoch_begin","name":N,"device":D,"epoch":E,"c":C,"k":K}
 *   {"t":..,"ev":"epoch_end","name":N,"device":D,"epoch":E,"c":C,"k":K,
 *    "tasks":T,"mean_s":M,"t_s":TI,"busy_s":B,"mbps":R,
 *    "registered":true|false}
 *   {"t":..,"ev":"rate","name":N,"device":D,"epoch":E,"c":C,"k":K,
 *    "mbps":R,"after_s":A,"err":ER,"fill":F}
 *   {"t":..,"ev":"ramp",...the same keys as "rate"}
 *   {"t":..,"ev":"preempt","name":N,"device":D,"epoch":E,"c":C,"k":K,
 *    "tasks":T}
 *   {"t":..,"ev":"constraint","name":N,"device":D,"c":C,"k":K,"n":M,
 *    "why":"learned"|"fallback"|"fill"|"scaling"|"registry"|
 *    "reevaluated"|"last"}
 *   {"t":..,"ev":"search","name":N,"device":D,"step":S,"best":KB,
 *    "best_rate":R,"lo":L,"hi":H,"epoch":0,"c":C,"k":K}
 * A climb's epoch_begin from its second epoch on carries the same step,
 * best, best_rate, lo and hi after "device" (why this k: autobw.h); its
 * search line, just before the constraint that ends its learning, says
 * why learning ended; a search held (step "held") is decided again once
 * two of its tasks have ended: an epoch_begin of step "resume", or a
 * search line of step "stopped" alone.  A ramp line is the rate of K writers (fewer than
 * epoch E's) read while E's writers ramped up, registered without
 * ending E (autobw_flight).
 * The reader takes any flat JSON object per line (nested values are
 * skipped, blank lines ignored), so files of older and newer wfruns read
 * the same; it reports the keys above and ignores every other one.
 */
#ifndef WFRUN_EVENTS_H
#define WFRUN_EVENTS_H

#include <stdio.h>

#include "iopol.h"
#include "util.h"

/* The events.jsonl beside the trace at trace_path (for the caller to
 * free). */
char *events_beside(const char *trace_path);

/* Write the line of an iopol event at t under the name of its task;
 * flushed, so the line is on disk at once. */
void events_write(FILE *f, double t, const char *name,
		  const struct iopol_event *e);

/*
 * One line read back.  A key that is absent, or whose value is not of its
 * kind, reads as NULL (strings), NAN (numbers) or -1 (registered).  The
 * strings live until the next events_next().
 */
struct event {
	const char *ev, *name, *device, *why;
	const char *step;       /* a climb's search step (iopol_event) */
	const char *open;       /* a resumed search's step (iopol_event) */
	double t, epoch, c, k, n, tasks, mean_s, t_s, busy_s, mbps, after_s,
	       err, fill, best, best_rate, lo, hi;
	int registered;         /* 1 true, 0 false, -1 absent */
};

#define EVENTS_MAXKEYS 24       /* keys of a line looked at, the first ones */

struct events_reader {
	FILE *fp;
	char *path;
	char *line;
	size_t cap;
	long lineno;            /* of the event events_next() returned */
	struct events_kv *kv;   /* EVENTS_MAXKEYS of them */
};

/* Open path to read; -1 with err filled. */
int events_open(struct events_reader *er, const char *path,
		struct errbuf *err);
/* The next event: 1 and *e filled, 0 at the end of the file, -1 with err
 * naming path:line:column and what is wrong. */
int events_next(struct events_reader *er, struct event *e,
		struct errbuf *err);
void events_close(struct events_reader *er);

#endif
