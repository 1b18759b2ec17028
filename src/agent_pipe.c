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
 * ended; it is reaped at the latest when the link closes.  It moves no
 * files: a worker reached this way shares the master's workdir.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent_client.h"
#include "spawn.h"

extern char **environ;

/* Seconds to wait for the agent to end when closing ... */
#define BYE_WAIT 10
/* ... and after a second Ctrl-C. */
#define HURRY_WAIT 0.5

struct pipe_link {
	struct agent_link base;
	struct agent_client *client;
	const char *name, *where;
	struct loop *loop;
	pid_t pid;              /* 0: reaped (or never started) */
	int status;             /* its wait status, once reaped */
	int in_fd, out_fd, err_fd; /* the agent's stdin, stdout, stderr */
	struct strbuf pending;  /* for its stdin, not yet written */
	struct strbuf rerr;     /* its stderr, a partial line */
	bool eof;               /* its stdout ended */
	bool ended;             /* the client was told */
	struct loop_timer reap_timer; /* EOF seen, not reaped yet */
};

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
	if (p->pid > 0 &&
	    waitpid(p->pid, &p->status, block ? 0 : WNOHANG) == p->pid)
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
	if (n > 0 && out)
		agent_client_input(p->client, buf, (size_t)n);
	else if (n > 0)
		agent_stderr(p->name, &p->rerr, buf, (size_t)n);
	else if (!n && out)
		stream_ended(p);
	else if (!n)
		close_fd(p, &p->err_fd);
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

/* Closing: write what is pending and end its stdin, then read its
 * output (the stderr printed) until both end or until deadline. */
static void
drain_until(struct pipe_link *p, double deadline)
{
	while (clock_mono() < deadline &&
	       (p->out_fd >= 0 || p->in_fd >= 0 || p->err_fd >= 0)) {
		if (p->in_fd >= 0 && !p->pending.len)
			close_fd(p, &p->in_fd);
		struct pollfd f[3] = {
			{ p->in_fd, POLLOUT, 0 },
			{ p->out_fd, POLLIN, 0 },
			{ p->err_fd, POLLIN, 0 },
		};
		int ms = (int)((deadline - clock_mono()) * 1000) + 1;
		if (poll(f, 3, ms) < 0 && errno != EINTR)
			break;
		if (f[0].revents)
			flush_pending(p);
		if (f[1].revents) {
			char buf[65536];
			if (!read_pipe(p->out_fd, buf, sizeof(buf)))
				close_fd(p, &p->out_fd);
		}
		if (f[2].revents)
			on_output(p->err_fd, f[2].revents, p);
	}
}

static void
pipe_close(struct agent_link *l, bool hurry)
{
	struct pipe_link *p = (struct pipe_link *)l;
	loop_timer_cancel(p->loop, &p->reap_timer);
	drain_until(p, clock_mono() + (hurry ? HURRY_WAIT : BYE_WAIT));
	close_fd(p, &p->in_fd);
	close_fd(p, &p->out_fd);
	close_fd(p, &p->err_fd);
	reap(p, false);
	if (p->pid > 0) {
		/* like its stdin's end: it stops its tasks, then exits */
		kill(p->pid, SIGTERM);
		if (!hurry)
			reap(p, true);
	}
	if (p->rerr.len)
		agent_stderr(p->name, &p->rerr, "\n", 1);
	strbuf_release(&p->pending);
	strbuf_release(&p->rerr);
	free(p);
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
	posix_spawnattr_init(&at);
	posix_spawn_file_actions_adddup2(&fa, fds[0][0], 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1][1], 1);
	posix_spawn_file_actions_adddup2(&fa, fds[2][1], 2);
	spawn_helper_attr(&at);
	int r = posix_spawnp(&p->pid, argv[0], &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (r) {
		p->pid = 0;
		snprintf(err, errlen, "cannot start the agent %s: %s", argv[0],
			 strerror(r));
		goto fail;
	}
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
	p->name = name;
	p->where = where;
	p->loop = loop;
	p->in_fd = p->out_fd = p->err_fd = -1;
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
