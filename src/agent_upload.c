/*
 * agent_upload: the agent on an SSH worker host (see agent_upload.h).
 */
#include <errno.h>
#include <libssh2_sftp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "agent_upload.h"
#include "expand.h"
#include "proto.h"
#include "resources.h"

static int
upload(struct ssh_conn *c, const char *local, const char *remote, char *err,
       size_t errlen)
{
	FILE *fp = fopen(local, "rb");
	if (!fp) {
		snprintf(err, errlen, "cannot read the agent %s: %s", local,
			 strerror(errno));
		return -1;
	}
	LIBSSH2_SFTP *sftp = libssh2_sftp_init(c->s);
	if (!sftp) {
		snprintf(err, errlen, "cannot start SFTP on %s: %s", c->w->host,
			 ssh_conn_error(c));
		fclose(fp);
		return -1;
	}
	LIBSSH2_SFTP_HANDLE *fh = libssh2_sftp_open(
		sftp, remote,
		LIBSSH2_FXF_WRITE | LIBSSH2_FXF_CREAT | LIBSSH2_FXF_TRUNC,
		LIBSSH2_SFTP_S_IRWXU | LIBSSH2_SFTP_S_IRGRP |
			LIBSSH2_SFTP_S_IXGRP | LIBSSH2_SFTP_S_IROTH |
			LIBSSH2_SFTP_S_IXOTH);
	int rc = 0;
	if (!fh) {
		snprintf(err, errlen, "cannot create %s on %s: %s", remote,
			 c->w->host, ssh_conn_error(c));
		rc = -1;
	}
	char buf[65536];
	size_t n;
	while (!rc && (n = fread(buf, 1, sizeof(buf), fp)) > 0) {
		size_t off = 0;
		while (off < n) {
			/* sftp_write may take fewer bytes than offered */
			ssize_t w = libssh2_sftp_write(fh, buf + off, n - off);
			if (w < 0) {
				snprintf(err, errlen, "cannot write %s on %s: %s",
					 remote, c->w->host, ssh_conn_error(c));
				rc = -1;
				break;
			}
			off += (size_t)w;
		}
	}
	if (fh)
		libssh2_sftp_close(fh);
	libssh2_sftp_shutdown(sftp);
	fclose(fp);
	return rc;
}

int
agent_upload_ensure(struct ssh_conn *c, const char *local, char *remote,
		    size_t remotelen, char *err, size_t errlen)
{
	const struct worker_spec *w = c->w;
	struct strbuf cmd = STRBUF_INIT, out = STRBUF_INIT, q = STRBUF_INIT;
	struct utsname u;
	uname(&u);
	snprintf(remote, remotelen,
		 "%s/.wfrun/bin/wfrun-worker-%s-p%d", w->workdir, WFRUN_VERSION,
		 PROTO_VERSION);
	sq_quote(&q, remote, strlen(remote));
	char want[128];
	snprintf(want, sizeof(want), "wfrun-worker %s protocol %d\n",
		 WFRUN_VERSION, PROTO_VERSION);
	strbuf_addf(&cmd, "%s --version 2>/dev/null || uname -m", q.buf);
	int status = -1, rc = -1;
	if (ssh_conn_run(c, cmd.buf, &out, &status) < 0) {
		snprintf(err, errlen, "cannot run a command on %s: %s", w->host,
			 ssh_conn_error(c));
		goto done;
	}
	if (!strcmp(out.buf, want)) {
		rc = 0;
		goto done;
	}
	/* out is the remote architecture */
	if (out.len && out.buf[out.len - 1] == '\n')
		strbuf_setlen(&out, out.len - 1);
	if (strcmp(out.buf, u.machine)) {
		snprintf(err, errlen, "%s is a %s host and this wfrun-worker is "
			 "built for %s; install wfrun-worker %s there as %s",
			 w->host, out.len ? out.buf : "unknown", u.machine,
			 WFRUN_VERSION, remote);
		goto done;
	}
	strbuf_reset(&cmd);
	struct strbuf dir = STRBUF_INIT;
	strbuf_addf(&dir, "%s/.wfrun/bin", w->workdir);
	strbuf_adds(&cmd, "mkdir -p ");
	sq_quote(&cmd, dir.buf, dir.len);
	strbuf_release(&dir);
	if (ssh_conn_run(c, cmd.buf, NULL, &status) < 0 || status) {
		snprintf(err, errlen, "cannot create %s/.wfrun/bin on %s",
			 w->workdir, w->host);
		goto done;
	}
	char tmp[1100];
	/* Workers sharing a workdir upload side by side, then rename. */
	snprintf(tmp, sizeof(tmp), "%s.%ld.%s.tmp", remote,
		 (long)getpid(), w->name);
	if (upload(c, local, tmp, err, errlen) < 0)
		goto done;
	strbuf_reset(&cmd);
	strbuf_adds(&cmd, "chmod 755 ");
	sq_quote(&cmd, tmp, strlen(tmp));
	strbuf_adds(&cmd, " && mv -f ");
	sq_quote(&cmd, tmp, strlen(tmp));
	strbuf_addch(&cmd, ' ');
	sq_quote(&cmd, remote, strlen(remote));
	if (ssh_conn_run(c, cmd.buf, NULL, &status) < 0 || status) {
		snprintf(err, errlen, "cannot install the agent as %s on %s",
			 remote, w->host);
		goto done;
	}
	verbose_msg("worker '%s': uploaded the agent to %s", w->name,
		    remote);
	rc = 0;
done:
	strbuf_release(&cmd);
	strbuf_release(&out);
	strbuf_release(&q);
	return rc;
}
