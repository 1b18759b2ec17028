/*
 * agent_upload: make sure an SSH worker host has this version's
 * wfrun-worker, as <workdir>/.wfrun/bin/wfrun-worker-VERSION-pPROTO,
 * uploading the master's own (static) agent over SFTP when it has not.
 * Blocking, in the thread that owns the connection; it never starts the
 * agent (the SSH transport does).
 */
#ifndef WFRUN_AGENT_UPLOAD_H
#define WFRUN_AGENT_UPLOAD_H

#include <stddef.h>

#include "ssh_conn.h"

/* local is the agent to upload; its path on the host goes into remote.
 * -1 with err filled. */
int agent_upload_ensure(struct ssh_conn *c, const char *local, char *remote,
			size_t remotelen, char *err, size_t errlen);

#endif
