/*
 * agent_pipe: the child-process transport of the agent client
 * (agent_client.h).  argv starts wfrun-worker — here, or on another node
 * through a launcher such as `srun ... wfrun-worker` — with its stdin and
 * stdout as the protocol's stream and its stderr printed, line by line,
 * as the worker's.  The child gets a process group of its own (a Ctrl-C
 * at the terminal reaches the master, which decides), default signal
 * dispositions and an empty signal mask.
 *
 * Everything runs in the loop thread, without a thread of its own: the
 * pipes are non-blocking and watched by the loop; what the agent's stdin
 * cannot take yet waits in pending, with a POLLOUT watch.  The agent has
 * ended when its stdout has ended and it is reaped (on_sigchld, which the
 * owner of the loop calls on SIGCHLD), or a second after its stdout
 * ended.  It moves no files: a worker reached this way shares the
 * master's workdir.
 *
 * Closing does not wait: the link is told EXIT, its stdin ends, and it
 * joins the links closing, whose output the loop still reads.
 * exec_pipe_finish ends them all together, each within its deadline: its
 * output read to the end, then SIGTERM, then SIGKILL to its process group
 * (an srun that cannot reach slurmctld may never end on SIGTERM).  Its
 * pidfd tells when it has ended, without a poll of waitpid.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent_client.h"
#include "spawn.h"

extern char **environ;

/* Seconds to wait for the agent to end when closing ... */
#define BYE_WAIT 10
/* ... and after a second Ctrl-C. */
#define HURRY_WAIT 0.5
/* Then seconds from SIGTERM to SIGKILL. */
#define TERM_WAIT 5

struct pipe_link {
	struct agent_link base;
	struct agent_client *client;
	char *name;
	const char *where;
	struct loop *loop;
	pid_t pid;              /* 0: reaped (or never started) */
	int pidfd;              /* readable once it has ended; -1: none */
	int status;             /* its wait status, once reaped */
	int in_fd, out_fd, err_fd; /* the agent's stdin, stdout, stderr */
	struct strbuf pending;  /* for its stdin, not yet written */
	struct strbuf rerr;     /* its stderr, a partial line */
	bool eof;               /* its stdout ended */
	bool ended;             /* the client was told */
	struct loop_timer reap_timer; /* EOF seen, not reaped yet */
	/* closed by the client (its client is gone), in the list closing */
	bool closed, hurry;
	double until;           /* its deadline: SIGTERM, then SIGKILL */
	bool termed;            /* SIGTERM sent */
	struct pipe_link *next_closing;
};

/* Closed, not yet ended: exec_pipe_finish ends them. */
static struct pipe_link *closing;

/* Read what a pipe holds: >0 bytes, 0 at its end (or on an error), -1
 * when there is nothing now. */
static ssize_t
read_pipe(int fd, char *buf, size_t n)
{
	ssize_t r = read(fd, buf, n);
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return -1;
	return r < 0 ? 0 : r;
}

static void
close_fd(struct pipe_link *p, int *fd)
{
	if (*fd < 0)
		return;
	loop_unwatch_fd(p->loop, *fd);
	close(*fd);
	*fd = -1;
}

static void
reap(struct pipe_link *p, bool block)
{
	if (p->pid > 0 && spawn_wait(p->pid, &p->status, block) == p->pid)
		p->pid = 0;
}

/* Tell the client how the agent ended. */
static void
tell_ended(struct pipe_link *p)
{
	if (p->ended)
		return;
	p->ended = true;
	loop_timer_cancel(p->loop, &p->reap_timer);
	char why[256];
	if (p->pid)
		snprintf(why, sizeof(why), "the agent on %s closed its output",
			 p->where);
	else if (WIFSIGNALED(p->status))
		snprintf(why, sizeof(why), "the agent on %s was killed by "
			 "signal %d", p->where, WTERMSIG(p->status));
	else
		snprintf(why, sizeof(why), "the agent on %s exited with "
			 "status %d", p->where, WEXITSTATUS(p->status));
	agent_client_ended(p->client, EXEC_LOST, why);
}

static void
on_reap_timer(void *arg)
{
	tell_ended(arg);
}

/* EOF on its stdout: the stream has ended.  The agent has ended when it
 * is also reaped (so the error can say how), or a second later. */
static void
stream_ended(struct pipe_link *p)
{
	close_fd(p, &p->out_fd);
	close_fd(p, &p->in_fd);
	p->eof = true;
	reap(p, false);
	if (!p->pid)
		tell_ended(p);
	else if (!p->ended)
		loop_timer_arm(p->loop, &p->reap_timer, 1.0, on_reap_timer, p);
}

/* Write what is pending; watch for room when some is left. */
static void
flush_pending(struct pipe_link *p)
{
	size_t off = 0;
	while (p->in_fd >= 0 && off < p->pending.len) {
		ssize_t w = write(p->in_fd, p->pending.buf + off,
				  p->pending.len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			break;
		if (w < 0) {
			/* EPIPE: the agent is gone; its stdout says so */
			strbuf_reset(&p->pending);
			close_fd(p, &p->in_fd);
			return;
		}
		off += (size_t)w;
	}
	memmove(p->pending.buf, p->pending.buf + off, p->pending.len - off);
	strbuf_setlen(&p->pending, p->pending.len - off);
}

static void on_stdin(int fd, short revents, void *arg);

static void
watch_stdin(struct pipe_link *p)
{
	if (p->in_fd < 0)
		return;
	if (p->pending.len)
		loop_watch_fd(p->loop, p->in_fd, POLLOUT, on_stdin, p);
	else
		loop_unwatch_fd(p->loop, p->in_fd);
}

static void
on_stdin(int fd, short revents, void *arg)
{
	struct pipe_link *p = arg;
	flush_pending(p);
	if (p->closed && !p->pending.len)
		close_fd(p, &p->in_fd);
	watch_stdin(p);
}

/* Its stdout (the protocol) or its stderr (printed) is readable. */
static void
on_output(int fd, short revents, void *arg)
{
	struct pipe_link *p = arg;
	char buf[65536];
	ssize_t n = read_pipe(fd, buf, sizeof(buf));
	bool out = fd == p->out_fd;
	if (n > 0 && out && !p->closed)
		agent_client_input(p->client, buf, (size_t)n);
	else if (n > 0 && !out)
		agent_stderr(p->name, &p->rerr, buf, (size_t)n);
	else if (!n && out && !p->closed)
		stream_ended(p);
	else if (!n)
		close_fd(p, out ? &p->out_fd : &p->err_fd);
}

static void
pipe_send(struct agent_link *l, const char *buf, size_t n)
{
	struct pipe_link *p = (struct pipe_link *)l;
	if (p->in_fd < 0)
		return;
	strbuf_add(&p->pending, buf, n);
	flush_pending(p);
	watch_stdin(p);
}

static void
pipe_on_sigchld(struct agent_link *l)
{
	struct pipe_link *p = (struct pipe_link *)l;
	reap(p, false);
	if (!p->pid && p->eof)
		tell_ended(p);
}

/* Closed by the client: EXIT (last) is pending for its stdin, which then
 * ends; the loop reads its output until exec_pipe_finish. */
static void
pipe_close(struct agent_link *l, bool hurry, const char *last, size_t n)
{
	struct pipe_link *p = (struct pipe_link *)l;
	if (p->in_fd >= 0 && n)
		strbuf_add(&p->pending, last, n);
	loop_timer_cancel(p->loop, &p->reap_timer);
	p->closed = true;
	p->client = NULL;
	p->hurry = hurry;
	p->until = clock_mono() + (hurry ? HURRY_WAIT : BYE_WAIT);
	flush_pending(p);
	if (!p->pending.len)
		close_fd(p, &p->in_fd);
	watch_stdin(p);
	p->next_closing = closing;
	closing = p;
}

static void
link_free(struct pipe_link *p)
{
	close_fd(p, &p->in_fd);
	close_fd(p, &p->out_fd);
	close_fd(p, &p->err_fd);
	if (p->pidfd >= 0)
		close(p->pidfd);
	if (p->rerr.len)
		agent_stderr(p->name, &p->rerr, "\n", 1);
	strbuf_release(&p->pending);
	strbuf_release(&p->rerr);
	free(p->name);
	free(p);
}

/* One step of a closing link at now: true when it has ended (reaped). */
static bool
closing_step(struct pipe_link *p, double now)
{
	reap(p, false);
	if (!p->pid)
		return true;
	bool open = p->in_fd >= 0 || p->out_fd >= 0 || p->err_fd >= 0;
	if (!p->termed && (now >= p->until || !open)) {
		/* like its stdin's end: it stops its tasks, then exits */
		close_fd(p, &p->in_fd);
		close_fd(p, &p->out_fd);
		close_fd(p, &p->err_fd);
		kill(p->pid, SIGTERM);
		p->termed = true;
		p->until = now + (p->hurry ? HURRY_WAIT : TERM_WAIT);
	} else if (p->termed && now >= p->until) {
		warning_msg("worker '%s': its agent did not end within %g s "
			    "of SIGTERM: killed", p->name,
			    p->hurry ? HURRY_WAIT : TERM_WAIT);
		kill(-p->pid, SIGKILL);
		kill(p->pid, SIGKILL);
		reap(p, true);
		return true;
	}
	return false;
}

/* Read and write what the closing links' pipes can, and wait for their
 * ends, until the first deadline. */
static void
closing_poll(size_t n)
{
	struct pollfd *f = xcalloc(4 * n, sizeof(*f));
	double first = HUGE_VAL;
	size_t i = 0;
	for (struct pipe_link *p = closing; p; p = p->next_closing, i += 4) {
		f[i] = (struct pollfd){ p->pending.len ? p->in_fd : -1,
					POLLOUT, 0 };
		f[i + 1] = (struct pollfd){ p->out_fd, POLLIN, 0 };
		f[i + 2] = (struct pollfd){ p->err_fd, POLLIN, 0 };
		f[i + 3] = (struct pollfd){ p->pidfd, POLLIN, 0 };
		first = fmin(first, p->until);
	}
	double left = first - clock_mono();
	int ms = left > 0 ? (int)(left * 1000) + 1 : 0;
	if (poll(f, 4 * n, ms) > 0) {
		i = 0;
		for (struct pipe_link *p = closing; p;
		     p = p->next_closing, i += 4) {
			if (f[i].revents)
				on_stdin(p->in_fd, f[i].revents, p);
			if (f[i + 1].revents)
				on_output(f[i + 1].fd, f[i + 1].revents, p);
			if (f[i + 2].revents)
				on_output(f[i + 2].fd, f[i + 2].revents, p);
		}
	}
	free(f);
}

void
exec_pipe_finish(void)
{
	for (;;) {
		size_t n = 0;
		double now = clock_mono();
		for (struct pipe_link **pp = &closing; *pp;) {
			struct pipe_link *p = *pp;
			if (closing_step(p, now)) {
				*pp = p->next_closing;
				link_free(p);
			} else {
				pp = &p->next_closing;
				n++;
			}
		}
		if (!n)
			return;
		closing_poll(n);
	}
}

/* Given up by the client: its stdin ends and it is told to stop its
 * tasks and exit (continued, should it be stopped); its end is reported
 * as usual, to a client that no longer listens. */
static void
pipe_drop(struct agent_link *l)
{
	struct pipe_link *p = (struct pipe_link *)l;
	close_fd(p, &p->in_fd);
	if (p->pid > 0) {
		kill(p->pid, SIGTERM);
		kill(p->pid, SIGCONT);
	}
}

static const struct agent_link_ops pipe_link_ops = {
	pipe_send, NULL, pipe_on_sigchld, pipe_close, pipe_drop,
};

/* Start argv with its stdin, stdout and stderr on pipes; -1 with err. */
static int
start_child(struct pipe_link *p, char *const *argv, char *err, size_t errlen)
{
	int fds[3][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 } };
	for (int i = 0; i < 3; i++)
		if (pipe2(fds[i], O_CLOEXEC) < 0) {
			snprintf(err, errlen, "pipe: %s", strerror(errno));
			goto fail;
		}
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	posix_spawn_file_actions_init(&fa);
	spawn_attr_init(&at);
	posix_spawn_file_actions_adddup2(&fa, fds[0][0], 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1][1], 1);
	posix_spawn_file_actions_adddup2(&fa, fds[2][1], 2);
	int r = posix_spawnp(&p->pid, argv[0], &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (r) {
		p->pid = 0;
		snprintf(err, errlen, "cannot start the agent %s: %s", argv[0],
			 strerror(r));
		goto fail;
	}
	spawn_own(p->pid);
	/* (none before Linux 5.3: its end is then known by its pipes) */
	p->pidfd = (int)syscall(SYS_pidfd_open, p->pid, 0);
	close(fds[0][0]);
	close(fds[1][1]);
	close(fds[2][1]);
	p->in_fd = fds[0][1];
	p->out_fd = fds[1][0];
	p->err_fd = fds[2][0];
	for (int i = 0; i < 3; i++) {
		int fd = i == 0 ? p->in_fd : i == 1 ? p->out_fd : p->err_fd;
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	}
	return 0;
fail:
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 2; j++)
			if (fds[i][j] >= 0)
				close(fds[i][j]);
	return -1;
}

struct exec *
exec_pipe_new(char *const *argv, const char *name, const char *where,
	      const char *workdir, const struct agent_liveness *lv,
	      struct loop *loop, exec_done_fn done, exec_state_fn on_state,
	      void *arg)
{
	struct agent_client *c = agent_client_new(name, where, workdir, done,
						  on_state, arg);
	struct pipe_link *p = xcalloc(1, sizeof(*p));
	p->base.ops = &pipe_link_ops;
	p->client = c;
	p->name = xstrdup(name);
	p->where = where;
	p->loop = loop;
	p->in_fd = p->out_fd = p->err_fd = p->pidfd = -1;
	strbuf_init(&p->pending);
	strbuf_init(&p->rerr);
	agent_client_attach(c, &p->base);
	if (lv)
		agent_client_liveness(c, loop, lv);
	char err[1200];
	if (start_child(p, argv, err, sizeof(err)) < 0) {
		agent_client_failed(c, err);
		p->ended = true;
		return agent_client_exec(c);
	}
	loop_watch_fd(loop, p->out_fd, POLLIN, on_output, p);
	loop_watch_fd(loop, p->err_fd, POLLIN, on_output, p);
	agent_client_started(c);
	return agent_client_exec(c);
}
