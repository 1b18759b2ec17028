/*
 * xfer_sftp: the file transfers of one SSH worker (struct xfer of exec.h)
 * over SFTP on that worker's session (up to four at once, each on an SFTP
 * session of its own), non-blocking, in steps the SSH thread interleaves
 * with the agent's traffic, the bytes in flight bounded so that the
 * agent's heartbeats never wait long behind them.
 *
 * Threads: the loop thread queues transfers and takes their results; the
 * SSH thread that owns the session starts SFTP and does the steps.  The
 * queue and the results are shared, under x->lock (the engine's own);
 * everything else (the SFTP handle, the current transfer, the directories
 * known to exist) belongs to the SSH thread.  A result is announced by
 * poking notify_fd (an eventfd the loop watches).  It never touches the
 * agent's channel, and never blocks the SSH thread except in
 * xfer_sftp_start.
 */
#ifndef WFRUN_XFER_SFTP_H
#define WFRUN_XFER_SFTP_H

#include <libssh2.h>
#include <stdbool.h>
#include <stddef.h>

#include "exec.h"

struct xfer_sftp;

/* Loop thread, before the SSH thread starts; host names the worker in
 * messages (borrowed, it outlives the engine); lost_after is the
 * worker's (0: none): the data in flight never holds a heartbeat more
 * than a quarter of it (xfer_sftp.c, struct pace). */
struct xfer_sftp *xfer_sftp_new(const char *host, int notify_fd,
				double lost_after);
/* SSH thread: start SFTP on the (blocking) session s: one SFTP session,
 * else -1 with err, and up to three more if the server allows. */
int xfer_sftp_start(struct xfer_sftp *x, LIBSSH2_SESSION *s, char *err,
		    size_t errlen);
/* Loop thread: queue a transfer (its strings are copied). */
void xfer_sftp_queue(struct xfer_sftp *x, const struct xfer *t);
/* Loop thread: hand each finished transfer's result to fn; once the SSH
 * thread is gone, the transfers it never took are reported lost. */
void xfer_sftp_report(struct xfer_sftp *x, bool thread_gone,
		      void (*fn)(const struct xfer_result *r, void *arg),
		      void *arg);
/* SSH thread, session non-blocking: one step of the current transfer
 * (taking the next queued one if none).  1 it moved on (or ended), 0 it
 * waits for the socket or has nothing to do, -1 the connection failed. */
int xfer_sftp_step(struct xfer_sftp *x);
/* SSH thread: the connection is gone; every transfer not done is lost. */
void xfer_sftp_lose_all(struct xfer_sftp *x);
/* SSH thread, before the session is freed: shut SFTP down (blocking,
 * within the session's timeout); the engine stays, for the loop thread
 * to report what is left. */
void xfer_sftp_stop(struct xfer_sftp *x);
/* After the SSH thread has ended: stop SFTP if still running, and free
 * the engine. */
void xfer_sftp_free(struct xfer_sftp *x);

#endif
