/*
 * exec_ssh: the SSH transport of the agent client (agent_client.h).  One
 * thread per worker host owns that host's connection (ssh_conn.h: a
 * libssh2 session is never touched by two threads).  The thread connects
 * and logs in, makes sure the host has this version's wfrun-worker
 * (agent_upload.h), starts SFTP when the worker's workdir is its own
 * (xfer_sftp.h), and starts the agent on one exec channel; from then on
 * the session is non-blocking and the thread only moves protocol bytes
 * between the channel and two queues, and steps the transfers, waking on
 * the socket or on a wake-up eventfd from the loop; one call at a time
 * owns the session's sending (enum sender).  The agent's stderr is
 * printed, line by line, as the worker's.
 *
 * Closing a link only tells its thread: each thread waits for its agent's
 * goodbye and ends its connection itself (each wait bounded), in parallel
 * with the other workers', and ssh_global_exit joins them all, so the end
 * of a run waits for the slowest link, not for the sum of them.  The
 * worker's spec (borrowed) must outlive ssh_global_exit.
 *
 * It never reads the protocol: the client, in the loop thread, does.
 * Shared between the thread and the loop thread, under h->lock: outq
 * (bytes to send), inq (bytes received), stop, hurry, thread_state and
 * the error text; the transfer engine has a lock of its own.  The
 * connection and the channel belong to the SSH thread, everything else
 * to the loop thread.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent_client.h"
#include "agent_upload.h"
#include "expand.h"
#include "resources.h"
#include "ssh_conn.h"
#include "xfer_sftp.h"

/* Seconds to wait for the agent's BYE when shutting down. */
#define BYE_WAIT 10
/* ... and after a second Ctrl-C: enough to send what is queued. */
#define HURRY_WAIT 0.5

struct ssh_link {
	struct agent_link base;
	struct agent_client *client;
	const struct worker_spec *w;
	struct exec_ssh_opts o;
	struct loop *loop;
	pthread_t thread;
	bool thread_started;
	int wake_fd;    /* loop -> thread */
	int notify_fd;  /* thread -> loop */
	struct xfer_sftp *xs; /* NULL: no transfers (a shared workdir) */
	bool told_started;    /* the client knows the agent started */

	/* under lock */
	pthread_mutex_t lock;
	struct strbuf outq;
	struct strbuf inq;
	bool stop, hurry;
	bool started;   /* the agent has been started */
	enum exec_state thread_state;
	char thread_error[2048];

	/* SSH thread */
	struct ssh_conn conn;
	LIBSSH2_CHANNEL *ch;
	bool no_bye;    /* stopped, the agent never said goodbye */
	char agent_remote[1024];

	/* loop thread: the next link closed and not yet joined */
	struct ssh_link *next_closed;
};

/* The links closed, whose threads are ending their connections, each in
 * parallel with the others; ssh_global_exit joins them.  Loop thread. */
static struct ssh_link *closed_links;

/*
 * Who may send on the session.  libssh2 (1.10) keeps one outgoing packet
 * half-sent when a call that sends returns EAGAIN; the next call that
 * sends on the session, whoever makes it, must be that same call with the
 * same arguments: any other (an SFTP write while the agent's channel
 * write waits, or the reverse) gets LIBSSH2_ERROR_BAD_USE.  So when a call
 * leaves the session blocked outbound, it owns the session's sending, and
 * only it is made again until its packet has gone.
 */
enum sender {
	S_NONE,
	S_WRITE,        /* libssh2_channel_write or _send_eof */
	S_READ,         /* the agent channel's reads (window adjusts) */
	S_XFER,         /* the SFTP engine */
};

/* The SSH thread's relay between the channel and the queues. */
struct relay {
	struct strbuf pending;  /* taken from outq, not yet written */
	size_t sent;            /* of pending */
	size_t inflight;        /* a write's length that must be made again */
	enum sender owner;
	struct strbuf rerr;     /* the agent's stderr, a partial line */
	bool eof_sent, stop;
	bool more;              /* outq had more than pending could take */
	double stop_at, bye_wait;
	char buf[65536];
};

static void
poke(int fd)
{
	uint64_t one = 1;
	ssize_t r = write(fd, &one, sizeof(one));
	(void)r;
}

/* Called in the SSH thread: record the state and wake the loop. */
static void
set_state(struct ssh_link *h, enum exec_state st, const char *fmt, ...)
	PRINTF(3, 4);
static void
set_state(struct ssh_link *h, enum exec_state st, const char *fmt, ...)
{
	pthread_mutex_lock(&h->lock);
	h->thread_state = st;
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(h->thread_error, sizeof(h->thread_error), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&h->lock);
	poke(h->notify_fd);
}

/* ---- the SSH thread: setup, blocking with a timeout ---- */

/* Run "PREFIX 'path'" on the host; 0 if it exits 0. */
static int
run_on_path(struct ssh_link *h, const char *prefix, const char *path)
{
	struct strbuf cmd = STRBUF_INIT;
	int status = -1;
	strbuf_adds(&cmd, prefix);
	sq_quote(&cmd, path, strlen(path));
	int rr = ssh_conn_run(&h->conn, cmd.buf, NULL, &status);
	strbuf_release(&cmd);
	return rr < 0 || status ? -1 : 0;
}

static int
setup(struct ssh_link *h, char *err, size_t errlen)
{
	const struct worker_spec *w = h->w;
	if (ssh_conn_open(&h->conn, err, errlen) < 0)
		return -1;
	LIBSSH2_SESSION *s = h->conn.s;
	if (agent_upload_ensure(&h->conn, h->o.agent_path, h->agent_remote,
				sizeof(h->agent_remote), err, errlen) < 0)
		return -1;
	if (h->o.workdir && run_on_path(h, "test -d ", h->o.workdir) < 0) {
		snprintf(err, errlen, "the workflow's workdir %s is not on "
			 "%s: a shared workdir must be mounted at the same "
			 "path on every worker", h->o.workdir, w->host);
		return -1;
	}
	if (h->xs) {
		/* its own workdir, where the store and sandboxes live */
		if (run_on_path(h, "mkdir -p ", w->workdir) < 0) {
			snprintf(err, errlen, "cannot create the workdir %s "
				 "on %s", w->workdir, w->host);
			return -1;
		}
	}
	h->ch = libssh2_channel_open_session(s);
	if (!h->ch) {
		snprintf(err, errlen, "cannot open a channel on %s: %s",
			 w->host, ssh_conn_error(&h->conn));
		return -1;
	}
	struct strbuf cmd = STRBUF_INIT;
	strbuf_adds(&cmd, "exec ");
	sq_quote(&cmd, h->agent_remote, strlen(h->agent_remote));
	int r = libssh2_channel_exec(h->ch, cmd.buf);
	strbuf_release(&cmd);
	if (r) {
		snprintf(err, errlen, "cannot start the agent on %s: %s",
			 w->host, ssh_conn_error(&h->conn));
		return -1;
	}
	/* after the agent's channel: SFTP takes what else the server's
	 * MaxSessions allows */
	if (h->xs && xfer_sftp_start(h->xs, s, err, errlen) < 0)
		return -1;
	return 0;
}

/* ---- the SSH thread: the non-blocking relay ---- */

/* May who make a call that sends? */
static bool
may_send(const struct relay *rl, enum sender who)
{
	return rl->owner == S_NONE || rl->owner == who;
}

/* After a call of who: it owns the sending while its packet waits. */
static void
sent_by(struct ssh_link *h, struct relay *rl, enum sender who)
{
	bool waits = libssh2_session_block_directions(h->conn.s) &
		     LIBSSH2_SESSION_BLOCK_OUTBOUND;
	if (waits && rl->owner == S_NONE)
		rl->owner = who;
	else if (!waits && rl->owner == who)
		rl->owner = S_NONE;
}

/* A result that means "call again later", never a lost connection:
 * BAD_USE is another call's packet still waiting (see enum sender). */
static bool
again(long rc)
{
	return rc == LIBSSH2_ERROR_EAGAIN || rc == LIBSSH2_ERROR_BAD_USE;
}

/* Take what the loop queued (not while a write must be made again with
 * the same arguments), and notice a stop. */
static void
relay_take(struct ssh_link *h, struct relay *rl)
{
	pthread_mutex_lock(&h->lock);
	if (h->outq.len && !rl->inflight) {
		strbuf_add(&rl->pending, h->outq.buf, h->outq.len);
		strbuf_reset(&h->outq);
	}
	rl->more = h->outq.len > 0;
	if (h->stop && !rl->stop) {
		rl->stop = true;
		rl->stop_at = clock_mono();
		if (h->hurry)
			rl->bye_wait = HURRY_WAIT;
	}
	pthread_mutex_unlock(&h->lock);
}

/* Write what is pending to the channel, and its EOF once stopping: 1 it
 * moved on, 0 it waits, -1 the connection failed. */
static int
relay_write(struct ssh_link *h, struct relay *rl)
{
	int progress = 0;
	while (rl->sent < rl->pending.len && may_send(rl, S_WRITE)) {
		size_t len = rl->inflight ? rl->inflight
					  : rl->pending.len - rl->sent;
		ssize_t w = libssh2_channel_write(
			h->ch, rl->pending.buf + rl->sent, len);
		sent_by(h, rl, S_WRITE);
		if (again(w)) {
			rl->inflight = len;
			break;
		}
		if (w < 0)
			return -1;
		rl->inflight = 0;
		rl->sent += (size_t)w;
		progress = 1;
	}
	if (rl->sent == rl->pending.len) {
		strbuf_reset(&rl->pending);
		rl->sent = 0;
	}
	/* the EOF follows everything queued: the EXIT too, when it came
	 * during a write that had to be made again */
	if (rl->stop && !rl->pending.len && !rl->more && !rl->eof_sent &&
	    may_send(rl, S_WRITE)) {
		int r = libssh2_channel_send_eof(h->ch);
		sent_by(h, rl, S_WRITE);
		if (r == 0)
			rl->eof_sent = true;
		else if (!again(r))
			return -1;
	}
	return progress;
}

/* Read the agent's output into inq (waking the loop) and print its
 * stderr: 1 it moved on, 0 nothing to read, -1 the connection failed.
 * A read may send (the channel's window), so it waits its turn. */
static int
relay_read(struct ssh_link *h, struct relay *rl)
{
	int progress = 0;
	while (may_send(rl, S_READ)) {
		ssize_t n = libssh2_channel_read(h->ch, rl->buf,
						 sizeof(rl->buf));
		sent_by(h, rl, S_READ);
		if (again(n) || n == 0)
			break;
		if (n < 0)
			return -1;
		pthread_mutex_lock(&h->lock);
		strbuf_add(&h->inq, rl->buf, (size_t)n);
		pthread_mutex_unlock(&h->lock);
		poke(h->notify_fd);
		progress = 1;
	}
	while (may_send(rl, S_READ)) {
		ssize_t n = libssh2_channel_read_stderr(h->ch, rl->buf,
							sizeof(rl->buf));
		sent_by(h, rl, S_READ);
		if (n <= 0)
			break;
		agent_stderr(h->w->name, &rl->rerr, rl->buf, (size_t)n);
	}
	return progress;
}

/* One step of the transfers, when the session's sending is theirs. */
static int
relay_xfer(struct ssh_link *h, struct relay *rl)
{
	if (!h->xs || rl->stop || !may_send(rl, S_XFER))
		return 0;
	int r = xfer_sftp_step(h->xs);
	sent_by(h, rl, S_XFER);
	return r;
}

/* Sleep until the socket or the loop wants us.  (No SSH keepalive: its
 * packet, half-sent, could not be sent again by the same call; the
 * client's heartbeats keep the connection busy instead.) */
static int
relay_wait(struct ssh_link *h, struct relay *rl)
{
	LIBSSH2_SESSION *s = h->conn.s;
	int dir = libssh2_session_block_directions(s);
	struct pollfd p[2] = {
		{ h->conn.sock, POLLIN, 0 },
		{ h->wake_fd, POLLIN, 0 },
	};
	if ((dir & LIBSSH2_SESSION_BLOCK_OUTBOUND) ||
	    rl->sent < rl->pending.len)
		p[0].events |= POLLOUT;
	int timeout = rl->stop ? 200 : 1000;
	if (poll(p, 2, timeout) < 0 && errno != EINTR)
		return -1;
	if (p[1].revents & POLLIN) {
		uint64_t v;
		ssize_t r = read(h->wake_fd, &v, sizeof(v));
		(void)r;
	}
	return 0;
}

/* How the relay ended. */
enum relay_end {
	RELAY_CLOSED,      /* stopped, and the agent said goodbye or had
			      its time */
	RELAY_AGENT_GONE,  /* the channel ended by itself */
	RELAY_LOST,        /* the connection failed */
};

/* Relay until the agent's channel ends or, once stopped, until it has
 * said goodbye or had its time. */
static enum relay_end
relay(struct ssh_link *h, struct relay *rl)
{
	for (;;) {
		relay_take(h, rl);
		int pw = relay_write(h, rl);
		int pr = pw < 0 ? -1 : relay_read(h, rl);
		int px = pr < 0 ? 0 : relay_xfer(h, rl);
		if (pw < 0 || pr < 0 || px < 0)
			return RELAY_LOST;
		if (libssh2_channel_eof(h->ch))
			return rl->stop ? RELAY_CLOSED : RELAY_AGENT_GONE;
		if (rl->stop && clock_mono() - rl->stop_at > rl->bye_wait) {
			h->no_bye = true;
			return RELAY_CLOSED;
		}
		if (pw || pr || px)
			continue;
		if (relay_wait(h, rl) < 0)
			return RELAY_LOST;
	}
}

/* The thread ends its connection itself, so that every worker's goodbye
 * and close run at once, each bounded: the relay waited for the BYE at
 * most bye_wait; with the connection gone, dropped, hurried or silent,
 * nothing below waits for the link (SFTP's shutdown is blocking): with
 * the socket shut down each call fails at once; else each waits
 * SSH_CLOSE_WAIT s at most. */
static void
end_connection(struct ssh_link *h, bool cut)
{
	pthread_mutex_lock(&h->lock);
	cut |= h->hurry;
	pthread_mutex_unlock(&h->lock);
	if (cut && h->conn.sock >= 0)
		shutdown(h->conn.sock, SHUT_RDWR);
	ssh_conn_closing(&h->conn);
	if (h->ch)
		libssh2_channel_free(h->ch);
	h->ch = NULL;
	xfer_sftp_stop(h->xs);
	ssh_conn_release(&h->conn);
	verbose_msg("worker '%s': closed%s", h->w->name,
		    h->no_bye ? " (no goodbye from its agent)" : "");
}

static void *
ssh_thread(void *arg)
{
	struct ssh_link *h = arg;
	char err[2048];
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	if (setup(h, err, sizeof(err)) < 0) {
		xfer_sftp_lose_all(h->xs);
		set_state(h, EXEC_FAILED, "%s", err);
		end_connection(h, true);
		return NULL;
	}
	libssh2_session_set_blocking(h->conn.s, 0);
	pthread_mutex_lock(&h->lock);
	h->started = true;
	pthread_mutex_unlock(&h->lock);
	poke(h->notify_fd);
	struct relay *rl = xcalloc(1, sizeof(*rl));
	strbuf_init(&rl->pending);
	strbuf_init(&rl->rerr);
	/* a silent link must not hold the end of the run past lost-after */
	rl->bye_wait = BYE_WAIT;
	if (h->w->lost_after > 0 && h->w->lost_after / 2.0 < BYE_WAIT)
		rl->bye_wait = h->w->lost_after / 2.0;
	enum relay_end end = relay(h, rl);
	strbuf_release(&rl->pending);
	strbuf_release(&rl->rerr);
	free(rl);
	xfer_sftp_lose_all(h->xs);
	if (end == RELAY_CLOSED)
		set_state(h, EXEC_CLOSED, NULL);
	else if (end == RELAY_AGENT_GONE)
		set_state(h, EXEC_LOST, "the agent on %s exited or its "
			  "connection closed", h->w->host);
	else
		set_state(h, EXEC_LOST, "lost the connection to %s: %s",
			  h->w->host, ssh_conn_error(&h->conn));
	end_connection(h, h->no_bye || end != RELAY_CLOSED);
	return NULL;
}

/* ---- the loop thread ---- */

static void
ssh_send(struct agent_link *l, const char *buf, size_t n)
{
	struct ssh_link *h = (struct ssh_link *)l;
	pthread_mutex_lock(&h->lock);
	strbuf_add(&h->outq, buf, n);
	pthread_mutex_unlock(&h->lock);
	poke(h->wake_fd);
}

static int
ssh_transfer(struct agent_link *l, const struct xfer *x)
{
	struct ssh_link *h = (struct ssh_link *)l;
	if (!h->xs)
		return -1;
	xfer_sftp_queue(h->xs, x);
	poke(h->wake_fd);
	return 0;
}

static void
report_xfer(const struct xfer_result *r, void *arg)
{
	struct ssh_link *h = arg;
	agent_client_xfer_done(h->client, r);
}

static void
on_notify(int fd, short revents, void *arg)
{
	struct ssh_link *h = arg;
	uint64_t v;
	ssize_t rr = read(fd, &v, sizeof(v));
	(void)rr;
	struct strbuf in = STRBUF_INIT;
	pthread_mutex_lock(&h->lock);
	strbuf_add(&in, h->inq.buf, h->inq.len);
	strbuf_reset(&h->inq);
	enum exec_state st = h->thread_state;
	bool started = h->started;
	char errtext[2048];
	memcpy(errtext, h->thread_error, sizeof(errtext));
	pthread_mutex_unlock(&h->lock);
	if (started && !h->told_started) {
		h->told_started = true;
		agent_client_started(h->client);
	}
	if (in.len)
		agent_client_input(h->client, in.buf, in.len);
	strbuf_release(&in);
	bool gone = st == EXEC_FAILED || st == EXEC_LOST || st == EXEC_CLOSED;
	if (h->xs)
		xfer_sftp_report(h->xs, gone, report_xfer, h);
	if (gone) {
		/* the thread has ended: nothing more comes (and its conn,
		 * written before it set its state, is read safely) */
		loop_unwatch_fd(h->loop, h->notify_fd);
		agent_client_exec(h->client)->refused = h->conn.key_refused;
		agent_client_ended(h->client, st, errtext);
	}
}

/* Tell the thread to say goodbye and end its connection; it does so in
 * parallel with the other workers', and ssh_global_exit waits for it. */
static void
ssh_close(struct agent_link *l, bool hurry, const char *last, size_t n)
{
	struct ssh_link *h = (struct ssh_link *)l;
	verbose_msg("worker '%s': closing", h->w->name);
	if (h->thread_started) {
		pthread_mutex_lock(&h->lock);
		if (n)
			strbuf_add(&h->outq, last, n);
		h->stop = true;
		h->hurry |= hurry;
		pthread_mutex_unlock(&h->lock);
		poke(h->wake_fd);
	}
	loop_unwatch_fd(h->loop, h->notify_fd);
	h->next_closed = closed_links;
	closed_links = h;
}

/* After its thread has ended. */
static void
link_free(struct ssh_link *h)
{
	if (h->ch)
		libssh2_channel_free(h->ch);
	xfer_sftp_free(h->xs);
	ssh_conn_release(&h->conn);
	close(h->wake_fd);
	close(h->notify_fd);
	pthread_mutex_destroy(&h->lock);
	strbuf_release(&h->outq);
	strbuf_release(&h->inq);
	free(h);
}

/* Given up by the client: the thread stops at once (it waits no BYE),
 * and reports its end as usual, with the transfers it leaves lost. */
static void
ssh_drop(struct agent_link *l)
{
	struct ssh_link *h = (struct ssh_link *)l;
	pthread_mutex_lock(&h->lock);
	h->stop = true;
	h->hurry = true;
	pthread_mutex_unlock(&h->lock);
	poke(h->wake_fd);
}

static const struct agent_link_ops ssh_link_ops = {
	ssh_send, ssh_transfer, NULL, ssh_close, ssh_drop,
};

int
ssh_global_init(void)
{
	return libssh2_init(0);
}

void
ssh_global_exit(void)
{
	while (closed_links) {
		struct ssh_link *h = closed_links;
		closed_links = h->next_closed;
		if (h->thread_started)
			pthread_join(h->thread, NULL);
		link_free(h);
	}
	libssh2_exit();
}

struct exec *
exec_ssh_new(const struct worker_spec *w, const struct exec_ssh_opts *o,
	     struct loop *loop, exec_done_fn done, exec_state_fn on_state,
	     void *arg)
{
	struct agent_client *c = agent_client_new(w->name, w->host, w->workdir,
						  done, on_state, arg);
	struct ssh_link *h = xcalloc(1, sizeof(*h));
	h->base.ops = &ssh_link_ops;
	h->client = c;
	h->w = w;
	h->o = *o;
	h->loop = loop;
	ssh_conn_init(&h->conn, w, o->accept_new_host_keys);
	strbuf_init(&h->outq);
	strbuf_init(&h->inq);
	pthread_mutex_init(&h->lock, NULL);
	h->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	h->notify_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (h->wake_fd < 0 || h->notify_fd < 0)
		die("eventfd: %s", strerror(errno));
	if (o->sftp)
		h->xs = xfer_sftp_new(w->host, h->notify_fd, w->lost_after);
	agent_client_attach(c, &h->base);
	/* beats at least 4 in each silence limit; keepalive more often */
	struct agent_liveness lv = { w->timeout, w->lost_after / 4.0,
				     w->lost_after, 0 };
	if (w->keepalive && (!lv.beat || w->keepalive < lv.beat))
		lv.beat = w->keepalive;
	agent_client_liveness(c, loop, &lv);
	loop_watch_fd(loop, h->notify_fd, POLLIN, on_notify, h);
	if (pthread_create(&h->thread, NULL, ssh_thread, h))
		agent_client_failed(c, "cannot start a thread");
	else
		h->thread_started = true;
	return agent_client_exec(c);
}
