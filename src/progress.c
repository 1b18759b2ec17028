#include "progress.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

void
progress_init(struct progress *p, FILE *fp, bool tty, size_t total,
	      struct loop *loop)
{
	memset(p, 0, sizeof(*p));
	p->fp = fp;
	p->tty = tty;
	p->loop = loop;
	p->total = total;
	p->t0 = p->last_line = clock_mono();
	p->last_draw = -1;
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");
	/* https://no-color.org: set and not empty means no colour */
	p->color = tty && !(nc && *nc) && !(term && !strcmp(term, "dumb"));
	p->off = log_level < 1;
}

static void
fmt_dur(char *buf, size_t n, double s)
{
	long t = (long)(s + 0.5);
	if (t < 60)
		snprintf(buf, n, "%lds", t);
	else if (t < 3600)
		snprintf(buf, n, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(buf, n, "%ldh%02ldm", t / 3600, t / 60 % 60);
}

void
progress_format(const struct progress *p, double now, bool color, char *buf,
		size_t n)
{
	char el[32], eta[48] = "";
	double elapsed = now - p->t0;
	size_t ended = p->done + p->failed;
	fmt_dur(el, sizeof(el), elapsed);
	/* the rate so far; nothing to say before the first end */
	if (ended && ended < p->total && elapsed > 0) {
		char d[32];
		fmt_dur(d, sizeof(d), elapsed / (double)ended *
				      (double)(p->total - ended));
		snprintf(eta, sizeof(eta), ", ETA %s", d);
	}
	snprintf(buf, n, "[%zu/%zu] running %zu (cpu %zu, io %zu), %sfailed "
		 "%zu%s, %s%s", p->done, p->total, p->run_cpu + p->run_io,
		 p->run_cpu, p->run_io, color && p->failed ? "\033[1;31m" : "",
		 p->failed, color && p->failed ? "\033[0m" : "", el, eta);
}

static void draw(struct progress *p, bool force);

static void
deferred(void *arg)
{
	draw(arg, true);
}

static void
draw(struct progress *p, bool force)
{
	if (p->off)
		return;
	double now = clock_mono();
	char line[256];
	if (p->tty) {
		if (!force && p->last_draw >= 0 &&
		    now - p->last_draw < 1.0 / PROGRESS_HZ) {
			/* too soon: draw once the interval is over */
			if (p->loop && !p->timer.armed)
				loop_timer_arm(p->loop, &p->timer,
					       p->last_draw + 1.0 / PROGRESS_HZ - now,
					       deferred, p);
			return;
		}
		if (p->loop && p->timer.armed)
			loop_timer_cancel(p->loop, &p->timer);
		p->last_draw = now;
		progress_format(p, now, p->color, line, sizeof(line));
		fprintf(p->fp, "\r\033[K%s", line);
		fflush(p->fp);
		p->shown = true;
		return;
	}
	size_t ended = p->done + p->failed;
	int tenth = p->total ? (int)(10 * ended / p->total) : 10;
	if (now - p->t0 < PROGRESS_QUIET || ended >= p->total)
		return;
	if (tenth > p->last_tenth ||
	    (now - p->last_line >= PROGRESS_LINE_EVERY && ended)) {
		p->last_tenth = tenth;
		p->last_line = now;
		progress_format(p, now, false, line, sizeof(line));
		fprintf(p->fp, "wfrun: %s\n", line);
		fflush(p->fp);
	}
}

void
progress_started(struct progress *p, bool io)
{
	if (io)
		p->run_io++;
	else
		p->run_cpu++;
	draw(p, false);
}

static void
not_running(struct progress *p, bool io)
{
	if (io && p->run_io)
		p->run_io--;
	else if (!io && p->run_cpu)
		p->run_cpu--;
}

void
progress_ended(struct progress *p, bool io, bool ok)
{
	not_running(p, io);
	if (ok)
		p->done++;
	else
		p->failed++;
	draw(p, false);
}

void
progress_lost(struct progress *p, bool io)
{
	not_running(p, io);
	draw(p, false);
}

void
progress_hide(struct progress *p)
{
	if (p->shown) {
		fputs("\r\033[K", p->fp);
		fflush(p->fp);
		p->shown = false;
		/* drawn again on the next event, not rate-limited away */
		p->last_draw = -1;
	}
}

void
progress_release(struct progress *p)
{
	progress_hide(p);
	if (p->loop && p->timer.armed)
		loop_timer_cancel(p->loop, &p->timer);
}
