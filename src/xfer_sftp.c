/*
 * xfer_sftp: SFTP transfers of one worker (see xfer_sftp.h).  A PUT and a
 * GET are two small state machines over a lane's current transfer: each
 * step does one non-blocking SFTP call per lane at most, so the SSH thread
 * goes on relaying the agent's messages while a large file moves.
 *
 * The heartbeats share the connection with the data: a PING (and the
 * agent's PONG) waits behind every byte queued before it on the link.  So
 * the bytes in flight (written and not yet acknowledged, or asked for
 * and not yet received) are bounded by what the link really moves in a
 * fraction of lost-after (struct pace), whatever its speed: a heartbeat
 * always gets through in about lost-after/4 however slow the link is.
 */
#include <errno.h>
#include <fcntl.h>
#include <libssh2_sftp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "path.h"
#include "xfer_sftp.h"

/* libssh2's largest SFTP write and read (one packet each). */
#define XFER_PKT 30000
/* Bytes per SFTP read or write call at most: a multiple of the packet
 * size, large enough that it keeps many packets in flight; also the most
 * bytes ever in flight. */
#define XFER_BUF (XFER_PKT * 64)
/* Bytes in flight before the first measure: small, as a slow link's first
 * seconds must not hold a heartbeat either. */
#define PACE_START (XFER_PKT * 2)

/*
 * The bytes the transfers may have in flight, from the rate the link
 * achieves (bytes acknowledged over time, measured every period while
 * data moves): rate * target, never below one packet, at most twice the
 * last bound (it grows like a window while the link keeps up) and at
 * most XFER_BUF.  target is lost-after/4 (5 s without lost-after): with
 * PINGs every lost-after/4, the agent is heard within about lost-after/2.
 */
struct pace {
	double target;   /* seconds the bytes in flight may take */
	double period;   /* seconds between two measures */
	size_t win;      /* bytes that may be in flight */
	double t0;       /* start of this measure; 0: no data moving */
	long long acked; /* bytes acknowledged since t0 */
};

/* PUT: X_START X_MKDIR X_OPEN X_DATA X_CLOSE; GET: X_START X_LSTAT, then
 * X_LINK (a symbolic link) or X_OPEN X_DATA X_CLOSE. */
enum { X_START, X_MKDIR, X_OPEN, X_DATA, X_CLOSE, X_LSTAT, X_LINK };

/* Transfers at once on one worker, each on an SFTP session (a channel,
 * and an sftp-server on the worker) of its own: libssh2 keeps the state
 * of a call in progress per SFTP session, so one session never has two
 * calls of a kind in progress; several keep several files on their way
 * (the final fetch of many small files is round trips, not bytes). */
#define XFER_LANES 4

/* A lane: one SFTP session and the transfer it is working on. */
struct xcur {
	LIBSSH2_SFTP *sftp;     /* NULL: not started */
	bool active;
	struct xfer x;          /* strings owned */
	int phase;
	int fd;
	LIBSSH2_SFTP_HANDLE *fh;
	char *buf;
	size_t blen, boff;
	long long bytes;        /* acknowledged (PUT) or received (GET) */
	long long given;        /* handed to libssh2 (PUT) or asked for
				 * (GET): given - bytes are in flight */
	long long size;         /* GET: the remote file's size, -1 unknown */
	double t0;
	size_t mkpos;           /* X_MKDIR: end of the prefix being made */
	unsigned long mode;
	struct strbuf tmp;      /* GET: the local temporary name */
};

struct xfer_sftp {
	const char *host;
	int notify_fd;
	unsigned id;    /* of the engine, in its GETs' temporary names */

	/* under lock */
	pthread_mutex_t lock;
	VEC(struct xfer) xq;              /* transfers to do, strings owned */
	size_t xhead;                     /* of xq: the next to take */
	VEC(struct xfer_result) xdone;    /* results for the loop */

	/* SSH thread */
	LIBSSH2_SESSION *s;
	struct xcur lane[XFER_LANES];
	int nlanes;                      /* started */
	struct xcur *l;                  /* the lane being stepped */
	int owner;                       /* the lane whose call left a packet
					  * half-sent (it alone may call until
					  * it has gone; see exec_ssh.c, enum
					  * sender), -1: none */
	int next;                        /* the lane stepped first */
	struct xcur *mkdirs;             /* the lane making directories:
					  * one at a time, as a lane that
					  * found its directory made by another
					  * while its own mkdir waited would
					  * leave that call half done, and
					  * libssh2 would answer its next one
					  * with the old one's result */
	struct pace pace;
	struct hmap dirs_made;           /* remote directories known to exist */
	struct arena dirs_arena;
};

static void
xfer_free(struct xfer *x)
{
	free((char *)x->local);
	free((char *)x->remote);
}

static void
poke(int fd)
{
	uint64_t one = 1;
	ssize_t r = write(fd, &one, sizeof(one));
	(void)r;
}

/* ---- the pace of the data (SSH thread) ---- */

static void
pace_init(struct pace *p, double lost_after)
{
	p->target = lost_after > 0 ? lost_after / 4 : 5;
	p->period = p->target / 2 < 0.5 ? p->target / 2 : 0.5;
	if (p->period < 0.1)
		p->period = 0.1;
	p->win = PACE_START;
	p->t0 = 0;
	p->acked = 0;
}

/* n more bytes acknowledged (n may be 0: time passed while data was in
 * flight); each period, the bound follows the rate measured. */
static void
pace_acked(struct pace *p, long long n)
{
	double now = clock_mono();
	if (!p->t0) {
		p->t0 = now;
		p->acked = 0;
	}
	p->acked += n;
	double dt = now - p->t0;
	if (dt < p->period)
		return;
	double want = (double)p->acked / dt * p->target;
	double most = 2.0 * (double)p->win;
	if (most > XFER_BUF)
		most = XFER_BUF;
	if (want > most)
		want = most;
	p->win = want < XFER_PKT ? XFER_PKT : (size_t)want;
	p->t0 = now;
	p->acked = 0;
}

/* Nothing in flight: the time until data moves again is not the link's. */
static void
pace_idle(struct pace *p)
{
	p->t0 = 0;
}

struct xfer_sftp *
xfer_sftp_new(const char *host, int notify_fd, double lost_after)
{
	static unsigned engines; /* loop thread */
	struct xfer_sftp *x = xcalloc(1, sizeof(*x));
	x->host = host;
	x->notify_fd = notify_fd;
	x->id = ++engines;
	pace_init(&x->pace, lost_after);
	pthread_mutex_init(&x->lock, NULL);
	for (int i = 0; i < XFER_LANES; i++) {
		strbuf_init(&x->lane[i].tmp);
		x->lane[i].fd = -1;
	}
	x->owner = -1;
	hmap_init(&x->dirs_made);
	arena_init(&x->dirs_arena);
	return x;
}

int
xfer_sftp_start(struct xfer_sftp *x, LIBSSH2_SESSION *s, char *err,
		size_t errlen)
{
	x->s = s;
	x->lane[0].sftp = libssh2_sftp_init(s);
	if (!x->lane[0].sftp) {
		char *msg = NULL;
		int len = 0;
		libssh2_session_last_error(s, &msg, &len, 0);
		snprintf(err, errlen, "cannot start SFTP on %s: %s", x->host,
			 msg && *msg ? msg : "unknown error");
		return -1;
	}
	/* the others if the server allows (its MaxSessions) */
	x->nlanes = 1;
	while (x->nlanes < XFER_LANES &&
	       (x->lane[x->nlanes].sftp = libssh2_sftp_init(s)))
		x->nlanes++;
	return 0;
}

void
xfer_sftp_stop(struct xfer_sftp *x)
{
	if (!x || !x->nlanes)
		return;
	libssh2_session_set_blocking(x->s, 1);
	for (int i = 0; i < x->nlanes; i++)
		libssh2_sftp_shutdown(x->lane[i].sftp);
	x->nlanes = 0;
}

void
xfer_sftp_free(struct xfer_sftp *x)
{
	if (!x)
		return;
	xfer_sftp_stop(x);
	pthread_mutex_destroy(&x->lock);
	for (size_t i = x->xhead; i < x->xq.n; i++)
		xfer_free(&x->xq.v[i]);
	VEC_FREE(x->xq);
	VEC_FREE(x->xdone);
	for (int i = 0; i < XFER_LANES; i++) {
		free(x->lane[i].buf);
		strbuf_release(&x->lane[i].tmp);
	}
	hmap_release(&x->dirs_made);
	arena_release(&x->dirs_arena);
	free(x);
}

/* ---- the loop thread ---- */

void
xfer_sftp_queue(struct xfer_sftp *x, const struct xfer *t)
{
	struct xfer c = *t;
	c.local = xstrdup(t->local);
	c.remote = xstrdup(t->remote);
	pthread_mutex_lock(&x->lock);
	VEC_PUSH(x->xq, c);
	pthread_mutex_unlock(&x->lock);
}

void
xfer_sftp_report(struct xfer_sftp *x, bool thread_gone,
		 void (*fn)(const struct xfer_result *r, void *arg), void *arg)
{
	pthread_mutex_lock(&x->lock);
	if (thread_gone) {
		for (size_t i = x->xhead; i < x->xq.n; i++) {
			struct xfer_result r;
			memset(&r, 0, sizeof(r));
			r.id = x->xq.v[i].id;
			r.lost = true;
			snprintf(r.error, sizeof(r.error), "%s was lost",
				 x->host);
			xfer_free(&x->xq.v[i]);
			VEC_PUSH(x->xdone, r);
		}
		x->xq.n = x->xhead = 0;
	}
	struct xfer_result *v = x->xdone.v;
	size_t n = x->xdone.n;
	x->xdone.v = NULL;
	x->xdone.n = x->xdone.alloc = 0;
	pthread_mutex_unlock(&x->lock);
	for (size_t i = 0; i < n; i++)
		fn(&v[i], arg);
	free(v);
}

/* ---- the SSH thread ---- */

/* Hand the current transfer's result to the loop. */
static void
xfer_finish(struct xfer_sftp *x, bool ok, bool lost, const char *fmt, ...)
	PRINTF(4, 5);
static void
xfer_finish(struct xfer_sftp *x, bool ok, bool lost, const char *fmt, ...)
{
	struct xcur *c = x->l;
	struct xfer_result r;
	memset(&r, 0, sizeof(r));
	r.id = c->x.id;
	r.ok = ok;
	r.lost = lost;
	r.bytes = c->bytes;
	r.secs = clock_mono() - c->t0;
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(r.error, sizeof(r.error), fmt, ap);
		va_end(ap);
	}
	if (c->fh) {
		/* after an error: best effort, never waits */
		libssh2_sftp_close(c->fh);
		c->fh = NULL;
	}
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	if (!ok && c->x.op == XFER_GET && c->tmp.len)
		unlink(c->tmp.buf);
	xfer_free(&c->x);
	c->active = false;
	if (x->mkdirs == c)
		x->mkdirs = NULL;
	pthread_mutex_lock(&x->lock);
	VEC_PUSH(x->xdone, r);
	pthread_mutex_unlock(&x->lock);
	poke(x->notify_fd);
}

static const char *
sftp_err(struct xfer_sftp *x)
{
	static const char *const names[] = {
		"ok", "end of file", "no such file", "permission denied",
		"failure", "bad message", "no connection", "connection lost",
		"operation unsupported",
	};
	unsigned long e = libssh2_sftp_last_error(x->l->sftp);
	return e < ARRAY_SIZE(names) ? names[e] : "SFTP error";
}

/* A result that means "call again": BAD_USE is a packet of another call
 * on the session still waiting (exec_ssh.c lets only that call send). */
static bool
waits(long rc)
{
	return rc == LIBSSH2_ERROR_EAGAIN || rc == LIBSSH2_ERROR_BAD_USE;
}

/* A libssh2 error that is about one file (the transfer fails) rather
 * than the connection (the worker is lost). */
static bool
file_error(long rc)
{
	return rc == LIBSSH2_ERROR_SFTP_PROTOCOL;
}

/*
 * An SFTP call of the current transfer failed with rc: -1 when the
 * connection did (the worker is lost), else the transfer fails, saying
 * "cannot VERB REMOTE on HOST: why", and 1.
 */
static int
sftp_failed(struct xfer_sftp *x, long rc, const char *verb)
{
	if (!file_error(rc))
		return -1;
	xfer_finish(x, false, false, "cannot %s %s on %s: %s", verb,
		    x->l->x.remote, x->host, sftp_err(x));
	return 1;
}

/* Take the next queued transfer, if any; true if one is current. */
static bool
xfer_next(struct xfer_sftp *x)
{
	struct xcur *c = x->l;
	if (c->active)
		return true;
	pthread_mutex_lock(&x->lock);
	if (x->xhead < x->xq.n) {
		c->x = x->xq.v[x->xhead++];
		if (x->xhead == x->xq.n)
			x->xq.n = x->xhead = 0;
		c->active = true;
		c->phase = X_START;
		c->mode = 0;
	}
	pthread_mutex_unlock(&x->lock);
	return c->active;
}

void
xfer_sftp_lose_all(struct xfer_sftp *x)
{
	if (!x)
		return;
	for (int i = 0; i < XFER_LANES; i++) {
		x->l = &x->lane[i];
		if (x->l->active)
			xfer_finish(x, false, true,
				    "the connection to %s was lost", x->host);
	}
	while (xfer_next(x))
		xfer_finish(x, false, true, "the connection to %s was lost",
			    x->host);
}

/* The first step of both: a PUT opens its local file. */
static int
xfer_begin(struct xfer_sftp *x)
{
	struct xcur *c = x->l;
	c->t0 = clock_mono();
	c->bytes = c->given = 0;
	c->size = -1;
	c->boff = c->blen = 0;
	c->fh = NULL;
	c->fd = -1;
	strbuf_reset(&c->tmp);
	if (!c->buf)
		c->buf = xmalloc(XFER_BUF);
	if (c->x.op == XFER_GET) {
		c->phase = X_LSTAT;
		return 1;
	}
	struct stat st;
	c->fd = open(c->x.local, O_RDONLY | O_CLOEXEC);
	if (c->fd < 0 || fstat(c->fd, &st)) {
		xfer_finish(x, false, false, "cannot read %s: %s", c->x.local,
			    strerror(errno));
		return 1;
	}
	c->mode = st.st_mode & 0777;
	c->phase = X_MKDIR;
	c->mkpos = 1;
	return 1;
}

/* PUT: make each missing parent of remote, from the top. */
static int
put_mkdir(struct xfer_sftp *x)
{
	struct xcur *c = x->l;
	const char *remote = c->x.remote;
	const char *slash = strchr(remote + c->mkpos, '/');
	if (!slash) {
		c->phase = X_OPEN;
		x->mkdirs = NULL;
		return 1;
	}
	if (x->mkdirs && x->mkdirs != c)
		return 0;
	x->mkdirs = c;
	size_t n = (size_t)(slash - remote);
	if (hmap_get(&x->dirs_made, remote, n)) {
		c->mkpos = n + 1;
		return 1;
	}
	int r = libssh2_sftp_mkdir_ex(x->l->sftp, remote, (unsigned)n, 0777);
	if (waits(r))
		return 0;
	if (r < 0 && !file_error(r))
		return -1;
	/* made, or already there (checked by the open) */
	hmap_put(&x->dirs_made, arena_strndup(&x->dirs_arena, remote, n), n, 1,
		 NULL);
	c->mkpos = n + 1;
	return 1;
}

/* Open the remote file, to write (PUT) or read (GET); then X_DATA.  The
 * result of a step. */
static int
open_remote(struct xfer_sftp *x, bool put)
{
	struct xcur *c = x->l;
	c->fh = libssh2_sftp_open(x->l->sftp, c->x.remote,
				  put ? LIBSSH2_FXF_WRITE | LIBSSH2_FXF_CREAT |
						LIBSSH2_FXF_TRUNC
				      : LIBSSH2_FXF_READ,
				  put ? (long)c->mode : 0);
	if (!c->fh) {
		int e = libssh2_session_last_errno(x->s);
		if (waits(e))
			return 0;
		return sftp_failed(x, e, put ? "create" : "read");
	}
	c->phase = X_DATA;
	return 1;
}

/* Close the remote file: 1 closed (or the transfer ended: !c->active), 0
 * wait, -1 lost. */
static int
close_remote(struct xfer_sftp *x)
{
	struct xcur *c = x->l;
	int r = libssh2_sftp_close(c->fh);
	if (waits(r))
		return 0;
	c->fh = NULL;
	return r < 0 ? sftp_failed(x, r, "close") : 1;
}

/* Bytes lane c has in flight. */
static long long
in_flight(const struct xcur *c)
{
	return c->active && c->phase == X_DATA && c->given > c->bytes
		       ? c->given - c->bytes
		       : 0;
}

/* The bytes the current lane may have in flight: the pace's bound less
 * the other lanes', or what it has (it must go on to be acknowledged);
 * 0: it has none and may have none, it waits. */
static long long
lane_room(struct xfer_sftp *x)
{
	long long room = (long long)x->pace.win;
	for (int i = 0; i < x->nlanes; i++)
		if (&x->lane[i] != x->l)
			room -= in_flight(&x->lane[i]);
	long long own = in_flight(x->l);
	return room > own ? room : own;
}

/* PUT: the next block of the local file to the remote one. */
static int
put_data(struct xfer_sftp *x)
{
	struct xcur *c = x->l;
	if (c->boff == c->blen) {
		ssize_t n = read(c->fd, c->buf, XFER_BUF);
		if (n < 0) {
			xfer_finish(x, false, false, "cannot read %s: %s",
				    c->x.local, strerror(errno));
			return 1;
		}
		if (n == 0) {
			c->phase = X_CLOSE;
			return 1;
		}
		c->blen = (size_t)n;
		c->boff = 0;
	}
	/* libssh2 sends what it is given but was not yet sent, and
	 * returns what the server acknowledged: given no more than the
	 * pace's bound, no more is ever in flight */
	long long room = lane_room(x);
	if (!room)
		return 0;
	size_t len = c->blen - c->boff;
	if ((long long)len > room)
		len = (size_t)room;
	if (c->bytes + (long long)len > c->given)
		c->given = c->bytes + (long long)len;
	ssize_t w = libssh2_sftp_write(c->fh, c->buf + c->boff, len);
	if (waits(w)) {
		pace_acked(&x->pace, 0);
		return 0;
	}
	if (w < 0)
		return sftp_failed(x, w, "write");
	c->boff += (size_t)w;
	c->bytes += w;
	pace_acked(&x->pace, w);
	return 1;
}

static int
put_step(struct xfer_sftp *x)
{
	struct xcur *c = x->l;
	switch (c->phase) {
	case X_MKDIR:
		return put_mkdir(x);
	case X_OPEN:
		return open_remote(x, true);
	case X_DATA:
		return put_data(x);
	default: {
		int r = close_remote(x);
		if (r == 1 && c->active)
			xfer_finish(x, true, false, NULL);
		return r;
	}
	}
}

/* GET: the local temporary name, LOCAL.ENGINE-LANE.wfrun-part: a file
 * lost with one worker may come again from another at the same time,
 * and the lost one's end must not remove the other's file. */
static void
get_tmp_name(struct xfer_sftp *x)
{
	struct xcur *c = x->l;
	strbuf_addf(&c->tmp, "%s.%u-%d.wfrun-part", c->x.local, x->id,
		    (int)(c - x->lane));
}

/* GET: open the remote file, then the local temporary one. */
static int
get_open(struct xfer_sftp *x)
{
	struct xcur *c = x->l;
	int r = open_remote(x, false);
	if (r <= 0 || !c->active)
		return r;
	char *dir = path_dirname(c->x.local);
	mkdir_p(dir, 0777);
	free(dir);
	get_tmp_name(x);
	c->fd = open(c->tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		     0666);
	if (c->fd < 0)
		xfer_finish(x, false, false, "cannot write %s: %s", c->tmp.buf,
			    strerror(errno));
	return 1;
}

/* GET: the temporary file (made when ok) takes the local name; the
 * transfer ends. */
static int
get_rename(struct xfer_sftp *x, bool ok)
{
	struct xcur *c = x->l;
	if (!ok || rename(c->tmp.buf, c->x.local)) {
		xfer_finish(x, false, false, "cannot write %s: %s", c->x.local,
			    strerror(errno));
		return 1;
	}
	strbuf_reset(&c->tmp);
	xfer_finish(x, true, false, NULL);
	return 1;
}

/* GET: a symbolic link a task made comes back as a link, never
 * followed, wherever it leads: X_LINK; anything else is read. */
static int
get_lstat(struct xfer_sftp *x)
{
	struct xcur *c = x->l;
	LIBSSH2_SFTP_ATTRIBUTES at;
	int r = libssh2_sftp_lstat(x->l->sftp, c->x.remote, &at);
	if (waits(r))
		return 0;
	if (r < 0)
		return sftp_failed(x, r, "read");
	c->phase = (at.flags & LIBSSH2_SFTP_ATTR_PERMISSIONS) &&
			   LIBSSH2_SFTP_S_ISLNK(at.permissions)
		   ? X_LINK
		   : X_OPEN;
	/* its size and mode: no fstat at the end (see get_close) */
	c->size = at.flags & LIBSSH2_SFTP_ATTR_SIZE ? (long long)at.filesize
						    : -1;
	if (at.flags & LIBSSH2_SFTP_ATTR_PERMISSIONS)
		c->mode = (at.permissions & 0777) | 0x10000;
	return 1;
}

/* GET: the link, made under the temporary name and renamed. */
static int
get_link(struct xfer_sftp *x)
{
	struct xcur *c = x->l;
	char to[4096];
	int n = libssh2_sftp_readlink(x->l->sftp, c->x.remote, to, sizeof(to) - 1);
	if (waits(n))
		return 0;
	if (n < 0)
		return sftp_failed(x, n, "read the link");
	to[n] = '\0';
	char *dir = path_dirname(c->x.local);
	mkdir_p(dir, 0777);
	free(dir);
	get_tmp_name(x);
	unlink(c->tmp.buf);
	return get_rename(x, !symlink(to, c->tmp.buf));
}

/* GET: the length to read (0: wait).  libssh2 asks for up to 4 times
 * that ahead: a quarter of the lane's room, and no more than the rest of
 * the file and a byte (the end is seen at once; an empty file costs one
 * small request, not the whole read-ahead). */
static size_t
get_ask(struct xfer_sftp *x)
{
	struct xcur *c = x->l;
	long long room = lane_room(x);
	size_t len = (size_t)(room / 4);
	if (c->size >= 0 && c->bytes <= c->size) {
		unsigned long long rest = (unsigned long long)(c->size - c->bytes);
		if (rest / 4 + 1 < len)
			len = (size_t)(rest / 4 + 1);
	}
	if (len > XFER_BUF)
		len = XFER_BUF;
	if (!len && room)
		len = 1;
	if (c->bytes + 4 * (long long)len > c->given)
		c->given = c->bytes + 4 * (long long)len;
	return len;
}

/* GET: the next block of the remote file to the local one. */
static int
get_data(struct xfer_sftp *x)
{
	struct xcur *c = x->l;
	size_t ask = get_ask(x);
	if (!ask)
		return 0;
	ssize_t n = libssh2_sftp_read(c->fh, c->buf, ask);
	if (waits(n)) {
		pace_acked(&x->pace, 0);
		return 0;
	}
	if (n < 0)
		return sftp_failed(x, n, "read");
	pace_acked(&x->pace, n);
	if (n == 0) {
		c->phase = X_CLOSE;
		return 1;
	}
	for (ssize_t off = 0; off < n;) {
		ssize_t w = write(c->fd, c->buf + off, (size_t)(n - off));
		if (w < 0) {
			xfer_finish(x, false, false, "cannot write %s: %s",
				    c->tmp.buf, strerror(errno));
			return 1;
		}
		off += w;
	}
	c->bytes += n;
	return 1;
}

/* GET: take the remote file's mode (its lstat's, else asked now), close
 * it, and put the local file in its place with that mode. */
static int
get_close(struct xfer_sftp *x)
{
	struct xcur *c = x->l;
	if (!c->mode) {
		/* 0x10000: asked (a close that waits does not ask again) */
		LIBSSH2_SFTP_ATTRIBUTES at;
		int r = libssh2_sftp_fstat(c->fh, &at);
		if (waits(r))
			return 0;
		c->mode = !r && (at.flags & LIBSSH2_SFTP_ATTR_PERMISSIONS)
				  ? (at.permissions & 0777) | 0x10000
				  : 0x10000;
	}
	int r = close_remote(x);
	if (r <= 0 || !c->active)
		return r;
	fchmod(c->fd, (mode_t)(c->mode & 0777));
	int cr = close(c->fd);
	c->fd = -1;
	return get_rename(x, !cr);
}

static int
get_step(struct xfer_sftp *x)
{
	switch (x->l->phase) {
	case X_LSTAT:
		return get_lstat(x);
	case X_LINK:
		return get_link(x);
	case X_OPEN:
		return get_open(x);
	case X_DATA:
		return get_data(x);
	default:
		return get_close(x);
	}
}

/* One step of lane x->l: its transfer, or the next queued one. */
static int
lane_step(struct xfer_sftp *x)
{
	if (!xfer_next(x))
		return 0;
	if (x->l->phase == X_START)
		return xfer_begin(x);
	return x->l->x.op == XFER_PUT ? put_step(x) : get_step(x);
}

int
xfer_sftp_step(struct xfer_sftp *x)
{
	int progress = 0;
	bool busy = false;
	for (int k = 0; k < x->nlanes; k++) {
		int i = x->owner >= 0 ? x->owner : (x->next + k) % x->nlanes;
		x->l = &x->lane[i];
		int r = lane_step(x);
		if (r < 0)
			return -1;
		progress |= r;
		busy |= x->l->active;
		if (libssh2_session_block_directions(x->s) &
		    LIBSSH2_SESSION_BLOCK_OUTBOUND) {
			x->owner = i;
			busy = true;
			break;
		}
		x->owner = -1;
	}
	if (x->nlanes)
		x->next = (x->next + 1) % x->nlanes;
	if (!busy)
		pace_idle(&x->pace);
	return progress;
}
