/*
 * loop: the one poll() loop of the master.  It owns a signalfd for the
 * signals in spawn_signal_set() (blocked in every thread), a set of fd
 * watchers and one-shot timers on the monotonic clock.  Nothing sleeps to
 * notice an event: poll() wakes on a finished child (SIGCHLD), a signal,
 * a readable fd, or the next timer.
 */
#ifndef WFRUN_LOOP_H
#define WFRUN_LOOP_H

#include <stdbool.h>
#include <stddef.h>

typedef void (*loop_fd_fn)(int fd, short revents, void *arg);
typedef void (*loop_signal_fn)(int signo, void *arg);
typedef void (*loop_timer_fn)(void *arg);

struct loop_watch {
	int fd;
	short events;
	loop_fd_fn fn;
	void *arg;
};

struct loop_timer {
	double when; /* clock_mono() */
	loop_timer_fn fn;
	void *arg;
	bool armed;
};

struct loop {
	int sigfd;
	loop_signal_fn on_signal;
	void *signal_arg;
	struct loop_watch *w;
	size_t nw, aw;
	struct loop_timer **timers;
	size_t nt, at;
};

/* Block the signals and open the signalfd; -1 on error (errno). */
int loop_init(struct loop *l, loop_signal_fn on_signal, void *arg);
void loop_release(struct loop *l);
void loop_watch_fd(struct loop *l, int fd, short events, loop_fd_fn fn,
		   void *arg);
void loop_unwatch_fd(struct loop *l, int fd);
/* Arm (or re-arm) t to fire once at clock_mono() + secs. */
void loop_timer_arm(struct loop *l, struct loop_timer *t, double secs,
		    loop_timer_fn fn, void *arg);
void loop_timer_cancel(struct loop *l, struct loop_timer *t);
/* Wait for events and dispatch them; returns after one poll() round. */
void loop_run_once(struct loop *l);

#endif
