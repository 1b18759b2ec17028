/*
 * progress: the live progress of a run on standard error.  The runner
 * tells it when a task starts and ends (a few hook lines); it decides
 * when to draw.  It owns no clock of its own and never polls: it draws on
 * those events, at most PROGRESS_HZ times a second, and when an event
 * falls inside that interval it arms one one-shot timer on the run's loop
 * so the last state is still drawn.
 *
 * On a terminal: one line, "[done/total] running R (cpu C, io I), failed
 * F, elapsed, ETA", redrawn in place with \r and erased before any other
 * message (progress_hide) and at the end; the failed count in red unless
 * NO_COLOR is set (or TERM is dumb).  Not on a terminal: plain lines, one
 * each time another tenth of the tasks has ended, or a minute has passed
 * since the last line, once the run has lasted PROGRESS_QUIET seconds (a
 * short run prints none).  Nothing at all at log_level 0 (-q).
 */
#ifndef WFRUN_PROGRESS_H
#define WFRUN_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "loop.h"

#define PROGRESS_HZ 4
#define PROGRESS_QUIET 2.0
#define PROGRESS_LINE_EVERY 60.0

struct progress {
	FILE *fp;
	struct loop *loop;       /* for the deferred redraw; may be NULL */
	struct loop_timer timer;
	bool tty, color, shown, off;
	size_t total, done, failed, run_cpu, run_io;
	double t0, last_draw, last_line;
	int last_tenth;
};

/* fp is where to draw (stderr); tty whether it is a terminal. */
void progress_init(struct progress *p, FILE *fp, bool tty, size_t total,
		   struct loop *loop);
void progress_started(struct progress *p, bool io);
/* A task ended: ok, failed (!ok), or lost (it will run again). */
void progress_ended(struct progress *p, bool io, bool ok);
void progress_lost(struct progress *p, bool io);
/* Erase the line (before another message; it comes back on the next
 * event). */
void progress_hide(struct progress *p);
/* Erase the line for good and cancel the timer. */
void progress_release(struct progress *p);
/* The line as it would be drawn, without colour or \r (for tests). */
void progress_format(const struct progress *p, double now, bool color,
		     char *buf, size_t n);

#endif
