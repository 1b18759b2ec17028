/*
 * ssh_conn: one SSH connection to a worker host, blocking: TCP connect
 * (with TCP_NODELAY), the handshake (at most a few at once per host:port,
 * tried again when sshd drops it before its banner), the host key checked
 * against known_hosts, login with a key, and running a command to its end.
 *
 * A connection and its LIBSSH2_SESSION belong to the one thread that
 * opened it (a libssh2 session is never touched by two threads); only the
 * handshake slots are shared between threads, under their own lock.  It
 * never opens the agent's channel nor SFTP: the transport (exec_ssh.c)
 * and the transfer engine (xfer_sftp.c) do.  Only the SSH files include
 * this header, and libssh2.h.
 */
#ifndef WFRUN_SSH_CONN_H
#define WFRUN_SSH_CONN_H

#include <libssh2.h>
#include <stdbool.h>
#include <stddef.h>

#include "util.h"

struct worker_spec;

struct ssh_conn {
	const struct worker_spec *w;
	bool accept_new_host_keys; /* add an unknown host key to known_hosts */
	int sock;                  /* -1 when not connected */
	LIBSSH2_SESSION *s;        /* NULL when not connected */
	bool key_refused;          /* its host key was refused (not new and
				    * accepted, nor known): an error */
};

void ssh_conn_init(struct ssh_conn *c, const struct worker_spec *w,
		   bool accept_new_host_keys);
/* Connect, check the host key, log in (blocking, with the worker's
 * timeout); -1 with err filled. */
int ssh_conn_open(struct ssh_conn *c, char *err, size_t errlen);
/* Seconds that closing a connection may take, at most: the disconnect
 * and the free together (ssh_conn_release), and each blocking call made
 * after ssh_conn_closing. */
#define SSH_CLOSE_WAIT 2.0
/* The connection is being closed: from now on each blocking call on the
 * session waits at most SSH_CLOSE_WAIT s (not the login timeout). */
void ssh_conn_closing(struct ssh_conn *c);
/* Disconnect and free the session, in at most SSH_CLOSE_WAIT s whatever
 * the link does (non-blocking; past that the socket is shut down). */
void ssh_conn_release(struct ssh_conn *c);
/* The session's last error, never NULL. */
const char *ssh_conn_error(struct ssh_conn *c);
/* Run cmd on the host (blocking); its stdout into out (may be NULL), its
 * exit status in *status; -1 if it could not be run or read. */
int ssh_conn_run(struct ssh_conn *c, const char *cmd, struct strbuf *out,
		 int *status);

#endif
