/*
 * agent_client: the master's side of the agent protocol (proto.h), as an
 * executor (exec.h), over any byte stream to a wfrun-worker.  It sends
 * RUN/SRUN, KILL, STOP, WRITTEN, PING and EXIT; it reads HELLO (the agent
 * is ready), DONE and FAILED (one exec_result per job), WRITTEN, PONG and
 * BYE; it keeps the jobs sent and not answered, and gives them back to
 * the runner as lost when the stream ends or when it gives the agent up
 * (struct agent_liveness: its own timers, on the loop).  It believes
 * nothing the agent says that was not asked: a DONE naming a path that is
 * not a normal relative one under the task's outputs (wirepath.h), or not
 * matching what was sent, drops the worker as lost, with the reason, its
 * jobs given back.  It never opens a connection, starts a
 * process or moves a file itself: a transport (struct agent_link) does.
 *
 * Transports: exec_ssh.c (an SSH exec channel, with SFTP transfers) and
 * agent_pipe.c (a child process's pipes: `wfrun-worker` here, or under
 * `srun`).  Everything here runs in the loop thread: a transport whose
 * bytes arrive in another thread hands them over in the loop thread.
 */
#ifndef WFRUN_AGENT_CLIENT_H
#define WFRUN_AGENT_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

#include "exec.h"

struct agent_client;
struct agent_link;
struct loop;

/*
 * How the client knows its agent lives (issue 24's liveness), all on the
 * loop's timers.  greet: seconds from the agent's start to its HELLO,
 * else it failed.  Once ready, the client sends PING every beat seconds;
 * the agent answers PONG, and takes lost as its own limit: no byte from
 * the agent for lost seconds and it is lost (its jobs given back, its
 * connection dropped, anything it says later ignored).  0: no limit.
 * kill: seconds it has to end a task it was told to SIGKILL, else it is
 * lost too (0: 5 s, or lost if shorter).
 */
struct agent_liveness {
	double greet, beat, lost, kill;
};

/* What a transport does for its client; every call in the loop thread. */
struct agent_link_ops {
	/* Queue bytes for the agent's input; never blocks. */
	void (*send)(struct agent_link *l, const char *buf, size_t n);
	/* Queue a file transfer (exec_ops.transfer); NULL when the
	 * transport moves no files.  -1: it cannot take it. */
	int (*transfer)(struct agent_link *l, const struct xfer *x);
	/* exec_ops.on_sigchld, for a transport with a child; may be NULL. */
	void (*on_sigchld)(struct agent_link *l);
	/* Queue last (n bytes, the EXIT; none when n is 0) and end the
	 * agent's input after it and what is queued, give the agent a while
	 * to say BYE (less if hurry), then free everything of the link: now
	 * or in the transport's own finish (ssh_global_exit,
	 * exec_pipe_finish), which waits for all closed links together.
	 * last and the close are one step, so that a transport's thread
	 * never sees the agent's answer to EXIT before it knows the link is
	 * closing.  It calls nothing of the client from here on. */
	void (*close)(struct agent_link *l, bool hurry, const char *last,
		      size_t n);
	/* The client has given the agent up: end the connection now, without
	 * waiting for the link; the transport may still report its end. */
	void (*drop)(struct agent_link *l);
};

struct agent_link {
	const struct agent_link_ops *ops;
};

/*
 * A client in state EXEC_CONNECTING.  name is the worker's name (for
 * warnings), where its host (for errors), workdir the cwd of a job that
 * names none; all borrowed, they outlive it.  Give it its transport
 * with agent_client_attach before the loop runs again; the client's exec
 * is agent_client_exec(c).
 */
struct agent_client *agent_client_new(const char *name, const char *where,
				      const char *workdir, exec_done_fn done,
				      exec_state_fn on_state, void *arg);
void agent_client_attach(struct agent_client *c, struct agent_link *l);
/* Watch the agent's life on loop's timers (before it starts). */
void agent_client_liveness(struct agent_client *c, struct loop *loop,
			   const struct agent_liveness *lv);
struct exec *agent_client_exec(struct agent_client *c);
/* The transport could not even start: the client is EXEC_FAILED, with
 * this error, and on_state is not called (nothing waits yet). */
void agent_client_failed(struct agent_client *c, const char *error);

/* What a transport reports, in the loop thread. */
/* The agent has been started: its greeting deadline runs. */
void agent_client_started(struct agent_client *c);
/* Bytes from the agent's output. */
void agent_client_input(struct agent_client *c, const char *buf, size_t n);
/* A transfer ended. */
void agent_client_xfer_done(struct agent_client *c,
			    const struct xfer_result *r);
/* The stream ended: st is EXEC_FAILED (never connected), EXEC_LOST or
 * EXEC_CLOSED, error says why.  Jobs not answered are given back lost. */
void agent_client_ended(struct agent_client *c, enum exec_state st,
			const char *error);

/* Print bytes of the agent's stderr as the worker's ("wfrun: worker
 * 'NAME': line"), a whole line at a time; partial keeps an unfinished
 * line between calls.  It touches nothing else: any thread may call it. */
void agent_stderr(const char *name, struct strbuf *partial, const char *buf,
		  size_t n);

#endif
