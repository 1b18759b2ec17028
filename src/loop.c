#include "loop.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "spawn.h"
#include "util.h"

int
loop_init(struct loop *l, loop_signal_fn on_signal, void *arg)
{
	sigset_t set;
	memset(l, 0, sizeof(*l));
	spawn_signal_set(&set);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -1;
	l->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (l->sigfd < 0)
		return -1;
	l->on_signal = on_signal;
	l->signal_arg = arg;
	return 0;
}

void
loop_release(struct loop *l)
{
	if (l->sigfd >= 0)
		close(l->sigfd);
	free(l->w);
	free(l->timers);
	memset(l, 0, sizeof(*l));
	l->sigfd = -1;
}

void
loop_watch_fd(struct loop *l, int fd, short events, loop_fd_fn fn, void *arg)
{
	for (size_t i = 0; i < l->nw; i++)
		if (l->w[i].fd == fd) {
			l->w[i].events = events;
			l->w[i].fn = fn;
			l->w[i].arg = arg;
			return;
		}
	ALLOC_GROW(l->w, l->nw + 1, l->aw);
	struct loop_watch w = { fd, events, fn, arg };
	l->w[l->nw++] = w;
}

void
loop_unwatch_fd(struct loop *l, int fd)
{
	for (size_t i = 0; i < l->nw; i++)
		if (l->w[i].fd == fd) {
			l->w[i] = l->w[--l->nw];
			return;
		}
}

void
loop_timer_arm(struct loop *l, struct loop_timer *t, double secs,
	       loop_timer_fn fn, void *arg)
{
	t->when = clock_mono() + secs;
	t->fn = fn;
	t->arg = arg;
	if (t->armed)
		return;
	t->armed = true;
	ALLOC_GROW(l->timers, l->nt + 1, l->at);
	l->timers[l->nt++] = t;
}

void
loop_timer_cancel(struct loop *l, struct loop_timer *t)
{
	if (!t->armed)
		return;
	t->armed = false;
	for (size_t i = 0; i < l->nt; i++)
		if (l->timers[i] == t) {
			l->timers[i] = l->timers[--l->nt];
			return;
		}
}

void
loop_run_once(struct loop *l)
{
	struct pollfd stackfds[16];
	size_t n = l->nw + 1;
	struct pollfd *fds = n <= 16 ? stackfds : xmalloc(n * sizeof(*fds));
	fds[0].fd = l->sigfd;
	fds[0].events = POLLIN;
	for (size_t i = 0; i < l->nw; i++) {
		fds[i + 1].fd = l->w[i].fd;
		fds[i + 1].events = l->w[i].events;
	}
	int timeout = -1;
	if (l->nt) {
		double next = INFINITY, now = clock_mono();
		for (size_t i = 0; i < l->nt; i++)
			if (l->timers[i]->when < next)
				next = l->timers[i]->when;
		double ms = ceil((next - now) * 1000.0);
		timeout = ms < 0 ? 0 : ms > 1e9 ? 1000000000 : (int)ms;
	}
	int r = poll(fds, n, timeout);
	if (r < 0 && errno != EINTR)
		die("poll: %s", strerror(errno));
	if (r > 0 && (fds[0].revents & POLLIN)) {
		struct signalfd_siginfo si;
		int got_chld = 0;
		while (read(l->sigfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGCHLD) {
				got_chld = 1;
				continue;
			}
			if (si.ssi_signo == SIGPIPE)
				continue;
			l->on_signal((int)si.ssi_signo, l->signal_arg);
		}
		/* Coalesced: one pass reaps every finished child. */
		if (got_chld)
			l->on_signal(SIGCHLD, l->signal_arg);
	}
	if (r > 0) {
		/* Callbacks may change the watch list: dispatch from a copy. */
		for (size_t i = 1; i < n; i++) {
			if (!fds[i].revents)
				continue;
			for (size_t j = 0; j < l->nw; j++)
				if (l->w[j].fd == fds[i].fd) {
					l->w[j].fn(fds[i].fd, fds[i].revents,
						   l->w[j].arg);
					break;
				}
		}
	}
	if (fds != stackfds)
		free(fds);
	if (l->nt) {
		double now = clock_mono();
		for (size_t i = 0; i < l->nt;) {
			struct loop_timer *t = l->timers[i];
			if (t->when <= now) {
				l->timers[i] = l->timers[--l->nt];
				t->armed = false;
				t->fn(t->arg);
				i = 0; /* the list may have changed */
				continue;
			}
			i++;
		}
	}
}
