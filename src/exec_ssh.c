/*
 * exec_ssh: the SSH backend.  One thread per worker host owns that host's
 * LIBSSH2_SESSION (a session is never touched by two threads).  The thread
 * connects, checks the host key against known_hosts, logs in with a key,
 * makes sure the host has this version's wfrun-worker (uploading it over
 * SFTP when not), and starts it on one exec channel; from then on the
 * session is non-blocking and the thread only moves protocol bytes between
 * the channel and two queues, waking on the socket, on a wake-up eventfd
 * from the loop, or on the keepalive timer.
 *
 * Shared between the thread and the loop thread, under h->lock: outq (lines
 * to send), inq (bytes received), stop, thread_state and the error text.
 * Everything else of struct ssh_host belongs to the loop thread, except the
 * session fields, which belong to the SSH thread.  This is the only file
 * that includes libssh2.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <libssh2.h>
#include <libssh2_sftp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "exec.h"
#include "expand.h"
#include "path.h"
#include "proto.h"
#include "resources.h"

/* Seconds to wait for the agent's BYE when shutting down. */
#define BYE_WAIT 10
/* ... and after a second Ctrl-C: enough to send what is queued. */
#define HURRY_WAIT 0.5

/* Bytes per SFTP read or write call: a multiple of libssh2's packet
 * size (30000), large enough that it keeps many packets in flight. */
#define XFER_BUF (30000 * 64)
/* Handshakes in progress at once to one host:port: OpenSSH's MaxStartups
 * (10:30:100 by default) drops connections past 10 unauthenticated ones. */
#define HANDSHAKES_PER_HOST 8
/* Tries again of a connection sshd dropped before its banner. */
#define HANDSHAKE_RETRIES 3

struct rjob {
	uint32_t task;
	double sent;            /* when RUN was queued (Unix seconds) */
};

/* The transfer the SSH thread is working on. */
enum { X_START, X_MKDIR, X_OPEN, X_DATA, X_CLOSE };
struct xcur {
	bool active;
	struct xfer x;          /* strings owned */
	int phase;
	int fd;
	LIBSSH2_SFTP_HANDLE *fh;
	char *buf;
	size_t blen, boff;
	bool eof;
	long long bytes;
	double t0;
	size_t mkpos;           /* X_MKDIR: end of the prefix being made */
	unsigned long mode;
	struct strbuf tmp;      /* GET: the local temporary name */
};

struct ssh_host {
	struct exec base;
	const struct worker_spec *w;
	struct exec_ssh_opts o;
	struct loop *loop;
	pthread_t thread;
	bool thread_started;
	int wake_fd;    /* loop -> thread */
	int notify_fd;  /* thread -> loop */

	/* under lock */
	pthread_mutex_t lock;
	struct strbuf outq;
	struct strbuf inq;
	bool stop;
	enum exec_state thread_state;
	char thread_error[2048];
	VEC(struct xfer) xq;              /* transfers to do, strings owned */
	VEC(struct xfer_result) xdone;    /* results for the loop */

	/* loop thread */
	struct proto_decoder dec;
	VEC(struct rjob) jobs;
	struct strbuf line;

	/* SSH thread */
	int sock;
	LIBSSH2_SESSION *s;
	LIBSSH2_CHANNEL *ch;
	char agent_remote[1024];
	LIBSSH2_SFTP *sftp;
	struct xcur cur;
	struct hmap dirs_made;           /* remote directories known to exist */
	struct arena dirs_arena;
};

/* Handshakes in progress per host:port, over every worker. */
static pthread_mutex_t hs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hs_cond = PTHREAD_COND_INITIALIZER;
static struct hs_slot {
	char key[300];
	int n;
} *hs_slots;
static size_t hs_nslots, hs_aslots;

static struct hs_slot *
hs_find(const char *key)
{
	for (size_t i = 0; i < hs_nslots; i++)
		if (!strcmp(hs_slots[i].key, key))
			return &hs_slots[i];
	ALLOC_GROW(hs_slots, hs_nslots + 1, hs_aslots);
	struct hs_slot *s = &hs_slots[hs_nslots++];
	snprintf(s->key, sizeof(s->key), "%s", key);
	s->n = 0;
	return s;
}

static void
hs_key(const struct worker_spec *w, char *key, size_t n)
{
	snprintf(key, n, "%s:%d", w->host, w->port);
}

/* Wait until this host has a free handshake slot, and take it. */
static void
hs_acquire(const struct worker_spec *w)
{
	char key[300];
	hs_key(w, key, sizeof(key));
	pthread_mutex_lock(&hs_lock);
	while (hs_find(key)->n >= HANDSHAKES_PER_HOST)
		pthread_cond_wait(&hs_cond, &hs_lock);
	hs_find(key)->n++;
	pthread_mutex_unlock(&hs_lock);
}

static void
hs_release(const struct worker_spec *w)
{
	char key[300];
	hs_key(w, key, sizeof(key));
	pthread_mutex_lock(&hs_lock);
	hs_find(key)->n--;
	pthread_cond_broadcast(&hs_cond);
	pthread_mutex_unlock(&hs_lock);
}

static const char *
sess_err(LIBSSH2_SESSION *s)
{
	char *msg = NULL;
	int len = 0;
	libssh2_session_last_error(s, &msg, &len, 0);
	return msg && *msg ? msg : "unknown error";
}

static void
poke(int fd)
{
	uint64_t one = 1;
	ssize_t r = write(fd, &one, sizeof(one));
	(void)r;
}

/* Called in the SSH thread: record the state and wake the loop. */
static void
set_state(struct ssh_host *h, enum exec_state st, const char *fmt, ...)
	PRINTF(3, 4);
static void
set_state(struct ssh_host *h, enum exec_state st, const char *fmt, ...)
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

static int
tcp_connect(struct ssh_host *h, char *err, size_t errlen)
{
	const struct worker_spec *w = h->w;
	struct addrinfo hints, *res = NULL, *ai;
	char port[16];
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	snprintf(port, sizeof(port), "%d", w->port);
	int r = getaddrinfo(w->host, port, &hints, &res);
	if (r) {
		snprintf(err, errlen, "cannot resolve %s: %s", w->host,
			 gai_strerror(r));
		return -1;
	}
	int fd = -1;
	int last = 0;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC |
						   SOCK_NONBLOCK,
			    ai->ai_protocol);
		if (fd < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 &&
		    errno != EINPROGRESS) {
			last = errno;
			close(fd);
			fd = -1;
			continue;
		}
		struct pollfd p = { fd, POLLOUT, 0 };
		int pr = poll(&p, 1, w->timeout * 1000);
		int soerr = 0;
		socklen_t sl = sizeof(soerr);
		if (pr == 1)
			getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
		if (pr != 1 || soerr) {
			last = pr == 0 ? ETIMEDOUT : soerr ? soerr : errno;
			close(fd);
			fd = -1;
			continue;
		}
		break;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		snprintf(err, errlen, "cannot connect to %s port %d: %s", w->host,
			 w->port, strerror(last ? last : ECONNREFUSED));
		return -1;
	}
	/* Nagle plus delayed ACKs would add tens of ms to every message. */
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

static int
knownhost_keytype(int t)
{
	switch (t) {
	case LIBSSH2_HOSTKEY_TYPE_RSA:
		return LIBSSH2_KNOWNHOST_KEY_SSHRSA;
	case LIBSSH2_HOSTKEY_TYPE_DSS:
		return LIBSSH2_KNOWNHOST_KEY_SSHDSS;
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_256:
		return LIBSSH2_KNOWNHOST_KEY_ECDSA_256;
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_384:
		return LIBSSH2_KNOWNHOST_KEY_ECDSA_384;
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_521:
		return LIBSSH2_KNOWNHOST_KEY_ECDSA_521;
	case LIBSSH2_HOSTKEY_TYPE_ED25519:
		return LIBSSH2_KNOWNHOST_KEY_ED25519;
	default:
		return LIBSSH2_KNOWNHOST_KEY_UNKNOWN;
	}
}

static const char *
keytype_name(int t)
{
	switch (t) {
	case LIBSSH2_HOSTKEY_TYPE_RSA:
		return "ssh-rsa";
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_256:
		return "ecdsa-sha2-nistp256";
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_384:
		return "ecdsa-sha2-nistp384";
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_521:
		return "ecdsa-sha2-nistp521";
	case LIBSSH2_HOSTKEY_TYPE_ED25519:
		return "ssh-ed25519";
	default:
		return "unknown";
	}
}

/* "SHA256:..." as OpenSSH prints it (base64 without padding). */
static void
fingerprint(LIBSSH2_SESSION *s, char *out, size_t n)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *h = (const unsigned char *)libssh2_hostkey_hash(
		s, LIBSSH2_HOSTKEY_HASH_SHA256);
	size_t o = 0;
	if (!h) {
		snprintf(out, n, "(no fingerprint)");
		return;
	}
	o += (size_t)snprintf(out, n, "SHA256:");
	for (int i = 0; i < 32 && o + 5 < n; i += 3) {
		unsigned v = (unsigned)h[i] << 16;
		if (i + 1 < 32)
			v |= (unsigned)h[i + 1] << 8;
		if (i + 2 < 32)
			v |= h[i + 2];
		out[o++] = b64[(v >> 18) & 63];
		out[o++] = b64[(v >> 12) & 63];
		if (i + 1 < 32)
			out[o++] = b64[(v >> 6) & 63];
		if (i + 2 < 32)
			out[o++] = b64[v & 63];
	}
	out[o] = '\0';
}

static int
check_host_key(struct ssh_host *h, char *err, size_t errlen)
{
	const struct worker_spec *w = h->w;
	size_t len;
	int type;
	const char *key = libssh2_session_hostkey(h->s, &len, &type);
	if (!key) {
		snprintf(err, errlen, "no host key from %s", w->host);
		return -1;
	}
	char fp[80];
	fingerprint(h->s, fp, sizeof(fp));
	LIBSSH2_KNOWNHOSTS *kh = libssh2_knownhost_init(h->s);
	if (!kh) {
		snprintf(err, errlen, "cannot check host keys: %s",
			 sess_err(h->s));
		return -1;
	}
	struct stat st;
	bool have_file = !stat(w->known_hosts, &st);
	if (have_file && libssh2_knownhost_readfile(kh, w->known_hosts,
						    LIBSSH2_KNOWNHOST_FILE_OPENSSH) < 0) {
		snprintf(err, errlen, "cannot read %s: %s", w->known_hosts,
			 sess_err(h->s));
		libssh2_knownhost_free(kh);
		return -1;
	}
	int mask = LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW |
		   knownhost_keytype(type);
	struct libssh2_knownhost *found = NULL;
	int r = libssh2_knownhost_checkp(kh, w->host, w->port, key, len, mask,
					 &found);
	if (r == LIBSSH2_KNOWNHOST_CHECK_MISMATCH && w->port != 22 && found &&
	    found->name && found->name[0] != '[') {
		/* libssh2 applies a plain "host" entry to every port; OpenSSH
		 * applies it to port 22 only, so this key is unknown, not
		 * changed. */
		r = LIBSSH2_KNOWNHOST_CHECK_NOTFOUND;
	}
	int rc = 0;
	char hostspec[300];
	if (w->port == 22)
		snprintf(hostspec, sizeof(hostspec), "%s", w->host);
	else
		snprintf(hostspec, sizeof(hostspec), "[%s]:%d", w->host, w->port);
	if (r == LIBSSH2_KNOWNHOST_CHECK_MATCH) {
		rc = 0;
	} else if (r == LIBSSH2_KNOWNHOST_CHECK_MISMATCH) {
		snprintf(err, errlen, "the %s host key of %s (%s) does NOT match "
			 "the one in %s: the host was reinstalled or someone is "
			 "in the middle; refusing to connect (remove the old key "
			 "with: ssh-keygen -R '%s' -f %s, once you know why it "
			 "changed)", keytype_name(type), hostspec, fp,
			 w->known_hosts, hostspec, w->known_hosts);
		rc = -1;
	} else if (r == LIBSSH2_KNOWNHOST_CHECK_NOTFOUND &&
		   h->o.accept_new_host_keys) {
		char line[4096];
		size_t ll = 0;
		struct libssh2_knownhost *added = NULL;
		if (libssh2_knownhost_addc(kh, hostspec, NULL, key, len, NULL, 0,
					   mask, &added) ||
		    libssh2_knownhost_writeline(kh, added, line, sizeof(line), &ll,
						LIBSSH2_KNOWNHOST_FILE_OPENSSH)) {
			snprintf(err, errlen, "cannot record the host key of %s: %s",
				 hostspec, sess_err(h->s));
			rc = -1;
		} else {
			/* Append: rewriting the file would drop its comments. */
			FILE *fp2 = fopen(w->known_hosts, "ae");
			if (!fp2 || fwrite(line, 1, ll, fp2) != ll) {
				snprintf(err, errlen, "cannot add the host key of %s "
					 "to %s: %s", hostspec, w->known_hosts,
					 strerror(errno));
				rc = -1;
			}
			if (fp2 && fclose(fp2) && !rc) {
				snprintf(err, errlen, "cannot write %s: %s",
					 w->known_hosts, strerror(errno));
				rc = -1;
			}
			if (!rc)
				fprintf(stderr, "wfrun: worker '%s': added the %s host "
					"key of %s (%s) to %s\n", w->name,
					keytype_name(type), hostspec, fp,
					w->known_hosts);
		}
	} else if (r == LIBSSH2_KNOWNHOST_CHECK_NOTFOUND) {
		snprintf(err, errlen, "the host key of %s is not in %s (%s key "
			 "%s); check it, then add it with ssh-keyscan or rerun "
			 "with --accept-new-host-keys", hostspec, w->known_hosts,
			 keytype_name(type), fp);
		rc = -1;
	} else {
		snprintf(err, errlen, "cannot check the host key of %s: %s",
			 hostspec, sess_err(h->s));
		rc = -1;
	}
	libssh2_knownhost_free(kh);
	return rc;
}

static const char *
login_user(const struct worker_spec *w)
{
	if (w->user)
		return w->user;
	const char *u = getenv("USER");
	if (u && *u)
		return u;
	struct passwd *pw = getpwuid(getuid());
	return pw ? pw->pw_name : "root";
}

static int
authenticate(struct ssh_host *h, char *err, size_t errlen)
{
	const struct worker_spec *w = h->w;
	const char *user = login_user(w);
	struct strbuf tried = STRBUF_INIT;
	int ok = -1;
	if (w->identity) {
		if (!libssh2_userauth_publickey_fromfile(h->s, user, NULL,
							 w->identity, NULL))
			ok = 0;
		else
			strbuf_addf(&tried, "key %s (%s)", w->identity,
				    sess_err(h->s));
	} else {
		LIBSSH2_AGENT *ag = getenv("SSH_AUTH_SOCK")
					    ? libssh2_agent_init(h->s)
					    : NULL;
		if (ag && !libssh2_agent_connect(ag) &&
		    !libssh2_agent_list_identities(ag)) {
			struct libssh2_agent_publickey *id = NULL, *prev = NULL;
			while (libssh2_agent_get_identity(ag, &id, prev) == 0) {
				if (!libssh2_agent_userauth(ag, user, id)) {
					ok = 0;
					break;
				}
				prev = id;
			}
			if (ok)
				strbuf_adds(&tried, "the keys of ssh-agent, ");
			libssh2_agent_disconnect(ag);
		}
		if (ag)
			libssh2_agent_free(ag);
		static const char *const defaults[] = { "~/.ssh/id_ed25519",
							"~/.ssh/id_ecdsa",
							"~/.ssh/id_rsa" };
		for (size_t i = 0; ok && i < ARRAY_SIZE(defaults); i++) {
			char *k = expand_tilde(defaults[i]);
			struct stat st;
			if (!stat(k, &st)) {
				if (!libssh2_userauth_publickey_fromfile(h->s, user,
									 NULL, k,
									 NULL))
					ok = 0;
				else
					strbuf_addf(&tried, "key %s, ", k);
			}
			free(k);
		}
		if (ok && !tried.len)
			strbuf_adds(&tried, "no key (none in ~/.ssh, no ssh-agent)");
		else if (ok)
			strbuf_setlen(&tried, tried.len - 2);
	}
	if (ok)
		snprintf(err, errlen, "login as %s on %s failed; tried %s; give the "
			 "key with <ssh identity=\"...\"/>", user, w->host,
			 tried.buf);
	strbuf_release(&tried);
	return ok;
}

/* Run cmd on the host (blocking); its stdout into out; exit status. */
static int
remote_run(struct ssh_host *h, const char *cmd, struct strbuf *out,
	   int *status)
{
	LIBSSH2_CHANNEL *c = libssh2_channel_open_session(h->s);
	if (!c)
		return -1;
	if (libssh2_channel_exec(c, cmd)) {
		libssh2_channel_free(c);
		return -1;
	}
	char buf[4096];
	ssize_t n;
	for (;;) {
		n = libssh2_channel_read(c, buf, sizeof(buf));
		if (n > 0) {
			if (out)
				strbuf_add(out, buf, (size_t)n);
			continue;
		}
		/* drain stderr so a chatty command cannot block */
		while (libssh2_channel_read_stderr(c, buf, sizeof(buf)) > 0)
			;
		if (n == 0 && libssh2_channel_eof(c))
			break;
		if (n < 0)
			break;
	}
	libssh2_channel_close(c);
	libssh2_channel_wait_closed(c);
	*status = libssh2_channel_get_exit_status(c);
	libssh2_channel_free(c);
	return n < 0 ? -1 : 0;
}

static int
upload(struct ssh_host *h, const char *local, const char *remote,
       char *err, size_t errlen)
{
	FILE *fp = fopen(local, "rb");
	if (!fp) {
		snprintf(err, errlen, "cannot read the agent %s: %s", local,
			 strerror(errno));
		return -1;
	}
	LIBSSH2_SFTP *sftp = libssh2_sftp_init(h->s);
	if (!sftp) {
		snprintf(err, errlen, "cannot start SFTP on %s: %s", h->w->host,
			 sess_err(h->s));
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
			 h->w->host, sess_err(h->s));
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
					 remote, h->w->host, sess_err(h->s));
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

/* Make sure the host runs this version's agent; upload it if not. */
static int
ensure_agent(struct ssh_host *h, char *err, size_t errlen)
{
	const struct worker_spec *w = h->w;
	struct strbuf cmd = STRBUF_INIT, out = STRBUF_INIT, q = STRBUF_INIT;
	struct utsname u;
	uname(&u);
	snprintf(h->agent_remote, sizeof(h->agent_remote),
		 "%s/.wfrun/bin/wfrun-worker-%s-p%d", w->workdir, WFRUN_VERSION,
		 PROTO_VERSION);
	sq_quote(&q, h->agent_remote, strlen(h->agent_remote));
	char want[128];
	snprintf(want, sizeof(want), "wfrun-worker %s protocol %d\n",
		 WFRUN_VERSION, PROTO_VERSION);
	strbuf_addf(&cmd, "%s --version 2>/dev/null || uname -m", q.buf);
	int status = -1, rc = -1;
	if (remote_run(h, cmd.buf, &out, &status) < 0) {
		snprintf(err, errlen, "cannot run a command on %s: %s", w->host,
			 sess_err(h->s));
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
			 WFRUN_VERSION, h->agent_remote);
		goto done;
	}
	strbuf_reset(&cmd);
	struct strbuf dir = STRBUF_INIT;
	strbuf_addf(&dir, "%s/.wfrun/bin", w->workdir);
	strbuf_adds(&cmd, "mkdir -p ");
	sq_quote(&cmd, dir.buf, dir.len);
	strbuf_release(&dir);
	if (remote_run(h, cmd.buf, NULL, &status) < 0 || status) {
		snprintf(err, errlen, "cannot create %s/.wfrun/bin on %s",
			 w->workdir, w->host);
		goto done;
	}
	char tmp[1100];
	/* Workers sharing a workdir upload side by side, then rename. */
	snprintf(tmp, sizeof(tmp), "%s.%ld.%s.tmp", h->agent_remote,
		 (long)getpid(), w->name);
	if (upload(h, h->o.agent_path, tmp, err, errlen) < 0)
		goto done;
	strbuf_reset(&cmd);
	strbuf_adds(&cmd, "chmod 755 ");
	sq_quote(&cmd, tmp, strlen(tmp));
	strbuf_adds(&cmd, " && mv -f ");
	sq_quote(&cmd, tmp, strlen(tmp));
	strbuf_addch(&cmd, ' ');
	sq_quote(&cmd, h->agent_remote, strlen(h->agent_remote));
	if (remote_run(h, cmd.buf, NULL, &status) < 0 || status) {
		snprintf(err, errlen, "cannot install the agent as %s on %s",
			 h->agent_remote, w->host);
		goto done;
	}
	verbose_msg("worker '%s': uploaded the agent to %s", w->name,
		    h->agent_remote);
	rc = 0;
done:
	strbuf_release(&cmd);
	strbuf_release(&out);
	strbuf_release(&q);
	return rc;
}

static int login(struct ssh_host *h, char *err, size_t errlen);
static int setup_rest(struct ssh_host *h, char *err, size_t errlen);

/* sshd closed the connection before its banner: MaxStartups dropped it
 * (it may still count logins that have just finished). */
static bool
dropped_early(const struct ssh_host *h)
{
	return h->s && strstr(sess_err(h->s), "banner");
}

static int
setup(struct ssh_host *h, char *err, size_t errlen)
{
	const struct worker_spec *w = h->w;
	int r;
	/* A dropped connection is tried again, a few times, after a growing
	 * pause (this thread does nothing else before it is connected). */
	for (int attempt = 0;; attempt++) {
		hs_acquire(w);
		r = login(h, err, errlen);
		hs_release(w);
		if (r == 0 || attempt == HANDSHAKE_RETRIES || !dropped_early(h))
			break;
		libssh2_session_free(h->s);
		h->s = NULL;
		close(h->sock);
		h->sock = -1;
		struct timespec d = { 0, (long)(200000000L << attempt) };
		while (d.tv_nsec >= 1000000000L) {
			d.tv_sec++;
			d.tv_nsec -= 1000000000L;
		}
		nanosleep(&d, NULL);
	}
	if (r < 0)
		return -1;
	return setup_rest(h, err, errlen);
}

/* Connect, check the host key, authenticate. */
static int
login(struct ssh_host *h, char *err, size_t errlen)
{
	const struct worker_spec *w = h->w;
	h->sock = tcp_connect(h, err, errlen);
	if (h->sock < 0)
		return -1;
	h->s = libssh2_session_init();
	if (!h->s) {
		snprintf(err, errlen, "cannot create an SSH session");
		return -1;
	}
	libssh2_session_set_blocking(h->s, 1);
	libssh2_session_set_timeout(h->s, w->timeout * 1000L);
	/* OpenSSH's own preference: the key a user's known_hosts holds. */
	libssh2_session_method_pref(h->s, LIBSSH2_METHOD_HOSTKEY,
				    "ssh-ed25519,ecdsa-sha2-nistp256,"
				    "ecdsa-sha2-nistp384,ecdsa-sha2-nistp521,"
				    "ssh-rsa");
	if (libssh2_session_handshake(h->s, h->sock)) {
		snprintf(err, errlen, "SSH handshake with %s port %d failed: %s",
			 w->host, w->port, sess_err(h->s));
		return -1;
	}
	if (check_host_key(h, err, errlen) < 0)
		return -1;
	if (authenticate(h, err, errlen) < 0)
		return -1;
	return 0;
}

static int
setup_rest(struct ssh_host *h, char *err, size_t errlen)
{
	const struct worker_spec *w = h->w;
	if (w->keepalive)
		libssh2_keepalive_config(h->s, 1, (unsigned)w->keepalive);
	if (ensure_agent(h, err, errlen) < 0)
		return -1;
	if (h->o.workdir) {
		struct strbuf cmd = STRBUF_INIT;
		int status = -1;
		strbuf_adds(&cmd, "test -d ");
		sq_quote(&cmd, h->o.workdir, strlen(h->o.workdir));
		int rr = remote_run(h, cmd.buf, NULL, &status);
		strbuf_release(&cmd);
		if (rr < 0 || status) {
			snprintf(err, errlen, "the workflow's workdir %s is not on "
				 "%s: a shared workdir must be mounted at the same "
				 "path on every worker", h->o.workdir, w->host);
			return -1;
		}
	}
	if (h->o.sftp) {
		/* its own workdir, where the store and sandboxes live */
		struct strbuf cmd = STRBUF_INIT;
		int status = -1;
		strbuf_adds(&cmd, "mkdir -p ");
		sq_quote(&cmd, w->workdir, strlen(w->workdir));
		int rr = remote_run(h, cmd.buf, NULL, &status);
		strbuf_release(&cmd);
		if (rr < 0 || status) {
			snprintf(err, errlen, "cannot create the workdir %s on %s",
				 w->workdir, w->host);
			return -1;
		}
		h->sftp = libssh2_sftp_init(h->s);
		if (!h->sftp) {
			snprintf(err, errlen, "cannot start SFTP on %s: %s",
				 w->host, sess_err(h->s));
			return -1;
		}
	}
	h->ch = libssh2_channel_open_session(h->s);
	if (!h->ch) {
		snprintf(err, errlen, "cannot open a channel on %s: %s", w->host,
			 sess_err(h->s));
		return -1;
	}
	struct strbuf cmd = STRBUF_INIT;
	strbuf_adds(&cmd, "exec ");
	sq_quote(&cmd, h->agent_remote, strlen(h->agent_remote));
	int r = libssh2_channel_exec(h->ch, cmd.buf);
	strbuf_release(&cmd);
	if (r) {
		snprintf(err, errlen, "cannot start the agent on %s: %s", w->host,
			 sess_err(h->s));
		return -1;
	}
	return 0;
}

/* ---- the SSH thread: file transfers over SFTP, non-blocking ---- */

static void
xfer_free(struct xfer *x)
{
	free((char *)x->local);
	free((char *)x->remote);
}

/* Hand the current transfer's result to the loop. */
static void
xfer_finish(struct ssh_host *h, bool ok, bool lost, const char *fmt, ...)
	PRINTF(4, 5);
static void
xfer_finish(struct ssh_host *h, bool ok, bool lost, const char *fmt, ...)
{
	struct xcur *c = &h->cur;
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
	pthread_mutex_lock(&h->lock);
	VEC_PUSH(h->xdone, r);
	pthread_mutex_unlock(&h->lock);
	poke(h->notify_fd);
}

static const char *
sftp_err(struct ssh_host *h)
{
	static const char *const names[] = {
		"ok", "end of file", "no such file", "permission denied",
		"failure", "bad message", "no connection", "connection lost",
		"operation unsupported",
	};
	unsigned long e = libssh2_sftp_last_error(h->sftp);
	return e < ARRAY_SIZE(names) ? names[e] : "SFTP error";
}

/* A libssh2 error that is about one file (the transfer fails) rather
 * than the connection (the worker is lost). */
static bool
file_error(struct ssh_host *h, long rc)
{
	(void)h;
	return rc == LIBSSH2_ERROR_SFTP_PROTOCOL;
}

/*
 * One step of the current transfer: 1 it moved on (or ended), 0 it waits
 * for the socket, -1 the connection failed.
 */
static int
xfer_step(struct ssh_host *h)
{
	struct xcur *c = &h->cur;
	const char *remote = c->x.remote;
	switch (c->phase) {
	case X_START: {
		c->t0 = clock_mono();
		c->bytes = 0;
		c->boff = c->blen = 0;
		c->eof = false;
		c->fh = NULL;
		c->fd = -1;
		strbuf_reset(&c->tmp);
		if (!c->buf)
			c->buf = xmalloc(XFER_BUF);
		if (c->x.op == XFER_PUT) {
			struct stat st;
			c->fd = open(c->x.local, O_RDONLY | O_CLOEXEC);
			if (c->fd < 0 || fstat(c->fd, &st)) {
				xfer_finish(h, false, false, "cannot read %s: %s",
					    c->x.local, strerror(errno));
				return 1;
			}
			c->mode = st.st_mode & 0777;
			c->phase = X_MKDIR;
			c->mkpos = 1;
		} else {
			c->phase = X_OPEN;
		}
		return 1;
	}
	case X_MKDIR: {
		/* each missing parent of remote, from the top */
		const char *slash = strchr(remote + c->mkpos, '/');
		if (!slash) {
			c->phase = X_OPEN;
			return 1;
		}
		size_t n = (size_t)(slash - remote);
		if (hmap_get(&h->dirs_made, remote, n)) {
			c->mkpos = n + 1;
			return 1;
		}
		int r = libssh2_sftp_mkdir_ex(h->sftp, remote, (unsigned)n, 0777);
		if (r == LIBSSH2_ERROR_EAGAIN)
			return 0;
		if (r < 0 && !file_error(h, r))
			return -1;
		/* made, or already there (checked by the open) */
		hmap_put(&h->dirs_made, arena_strndup(&h->dirs_arena, remote, n),
			 n, 1, NULL);
		c->mkpos = n + 1;
		return 1;
	}
	case X_OPEN: {
		bool put = c->x.op == XFER_PUT;
		c->fh = libssh2_sftp_open(h->sftp, remote,
					  put ? LIBSSH2_FXF_WRITE |
							LIBSSH2_FXF_CREAT |
							LIBSSH2_FXF_TRUNC
					      : LIBSSH2_FXF_READ,
					  put ? (long)c->mode : 0);
		if (!c->fh) {
			int e = libssh2_session_last_errno(h->s);
			if (e == LIBSSH2_ERROR_EAGAIN)
				return 0;
			if (!file_error(h, e))
				return -1;
			xfer_finish(h, false, false, "cannot %s %s on %s: %s",
				    put ? "create" : "read", remote, h->w->host,
				    sftp_err(h));
			return 1;
		}
		if (!put) {
			char *dir = path_dirname(c->x.local);
			mkdir_p(dir, 0777);
			free(dir);
			strbuf_addf(&c->tmp, "%s.wfrun-part", c->x.local);
			c->fd = open(c->tmp.buf, O_WRONLY | O_CREAT | O_TRUNC |
							 O_CLOEXEC, 0666);
			if (c->fd < 0) {
				xfer_finish(h, false, false, "cannot write %s: %s",
					    c->tmp.buf, strerror(errno));
				return 1;
			}
		}
		c->phase = X_DATA;
		return 1;
	}
	case X_DATA:
		if (c->x.op == XFER_PUT) {
			if (c->boff == c->blen) {
				ssize_t n = read(c->fd, c->buf, XFER_BUF);
				if (n < 0) {
					xfer_finish(h, false, false, "cannot read "
						    "%s: %s", c->x.local,
						    strerror(errno));
					return 1;
				}
				if (n == 0) {
					c->phase = X_CLOSE;
					return 1;
				}
				c->blen = (size_t)n;
				c->boff = 0;
			}
			ssize_t w = libssh2_sftp_write(c->fh, c->buf + c->boff,
						       c->blen - c->boff);
			if (w == LIBSSH2_ERROR_EAGAIN)
				return 0;
			if (w < 0) {
				if (!file_error(h, w))
					return -1;
				xfer_finish(h, false, false, "cannot write %s on "
					    "%s: %s", remote, h->w->host,
					    sftp_err(h));
				return 1;
			}
			c->boff += (size_t)w;
			c->bytes += w;
			return 1;
		} else {
			ssize_t n = libssh2_sftp_read(c->fh, c->buf, XFER_BUF);
			if (n == LIBSSH2_ERROR_EAGAIN)
				return 0;
			if (n < 0) {
				if (!file_error(h, n))
					return -1;
				xfer_finish(h, false, false, "cannot read %s on "
					    "%s: %s", remote, h->w->host,
					    sftp_err(h));
				return 1;
			}
			if (n == 0) {
				c->phase = X_CLOSE;
				return 1;
			}
			for (ssize_t off = 0; off < n;) {
				ssize_t w = write(c->fd, c->buf + off,
						  (size_t)(n - off));
				if (w < 0) {
					xfer_finish(h, false, false, "cannot write "
						    "%s: %s", c->tmp.buf,
						    strerror(errno));
					return 1;
				}
				off += w;
			}
			c->bytes += n;
			return 1;
		}
	case X_CLOSE: {
		LIBSSH2_SFTP_ATTRIBUTES at;
		if (c->x.op == XFER_GET && !c->mode) {
			int r = libssh2_sftp_fstat(c->fh, &at);
			if (r == LIBSSH2_ERROR_EAGAIN)
				return 0;
			c->mode = !r && (at.flags & LIBSSH2_SFTP_ATTR_PERMISSIONS)
					  ? (at.permissions & 0777) | 0x10000
					  : 0x10000;
		}
		int r = libssh2_sftp_close(c->fh);
		if (r == LIBSSH2_ERROR_EAGAIN)
			return 0;
		c->fh = NULL;
		if (r < 0 && !file_error(h, r))
			return -1;
		if (r < 0) {
			xfer_finish(h, false, false, "cannot close %s on %s: %s",
				    remote, h->w->host, sftp_err(h));
			return 1;
		}
		if (c->x.op == XFER_GET) {
			fchmod(c->fd, (mode_t)(c->mode & 0777));
			int cr = close(c->fd);
			c->fd = -1;
			if (cr || rename(c->tmp.buf, c->x.local)) {
				xfer_finish(h, false, false, "cannot write %s: %s",
					    c->x.local, strerror(errno));
				return 1;
			}
			strbuf_reset(&c->tmp);
		}
		xfer_finish(h, true, false, NULL);
		return 1;
	}
	}
	return 1;
}

/* Take the next queued transfer, if any; true if one is current. */
static bool
xfer_next(struct ssh_host *h)
{
	struct xcur *c = &h->cur;
	if (c->active)
		return true;
	pthread_mutex_lock(&h->lock);
	if (h->xq.n) {
		c->x = h->xq.v[0];
		memmove(h->xq.v, h->xq.v + 1, (h->xq.n - 1) * sizeof(*h->xq.v));
		h->xq.n--;
		c->active = true;
		c->phase = X_START;
		c->mode = 0;
	}
	pthread_mutex_unlock(&h->lock);
	return c->active;
}

/* The connection is gone: every transfer not done is lost. */
static void
xfer_lose_all(struct ssh_host *h)
{
	if (h->cur.active)
		xfer_finish(h, false, true, "the connection to %s was lost",
			    h->w->host);
	while (xfer_next(h))
		xfer_finish(h, false, true, "the connection to %s was lost",
			    h->w->host);
}

/* ---- the SSH thread: the non-blocking relay ---- */

static void
print_remote_stderr(struct ssh_host *h, struct strbuf *err, const char *buf,
		    size_t n)
{
	strbuf_add(err, buf, n);
	char *nl;
	while ((nl = memchr(err->buf, '\n', err->len))) {
		fprintf(stderr, "wfrun: worker '%s': %.*s\n", h->w->name,
			(int)(nl - err->buf), err->buf);
		size_t rest = err->len - (size_t)(nl + 1 - err->buf);
		memmove(err->buf, nl + 1, rest);
		strbuf_setlen(err, rest);
	}
}

static void *
ssh_thread(void *arg)
{
	struct ssh_host *h = arg;
	char err[2048];
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	if (setup(h, err, sizeof(err)) < 0) {
		xfer_lose_all(h);
		set_state(h, EXEC_FAILED, "%s", err);
		return NULL;
	}
	libssh2_session_set_blocking(h->s, 0);
	struct strbuf pending = STRBUF_INIT, rerr = STRBUF_INIT;
	size_t sent = 0;
	bool eof_sent = false, stop = false;
	double stop_at = 0, bye_wait = BYE_WAIT;
	char buf[65536];
	for (;;) {
		pthread_mutex_lock(&h->lock);
		if (h->outq.len) {
			strbuf_add(&pending, h->outq.buf, h->outq.len);
			strbuf_reset(&h->outq);
		}
		if (h->stop && !stop) {
			stop = true;
			stop_at = clock_mono();
			if (h->base.hurry)
				bye_wait = HURRY_WAIT;
		}
		pthread_mutex_unlock(&h->lock);

		bool progress = false;
		while (sent < pending.len) {
			ssize_t w = libssh2_channel_write(h->ch, pending.buf + sent,
							  pending.len - sent);
			if (w == LIBSSH2_ERROR_EAGAIN)
				break;
			if (w < 0)
				goto lost;
			sent += (size_t)w;
			progress = true;
		}
		if (sent == pending.len) {
			strbuf_reset(&pending);
			sent = 0;
		}
		if (stop && !pending.len && !eof_sent) {
			int r = libssh2_channel_send_eof(h->ch);
			if (r == 0)
				eof_sent = true;
			else if (r != LIBSSH2_ERROR_EAGAIN)
				goto lost;
		}
		for (;;) {
			ssize_t n = libssh2_channel_read(h->ch, buf, sizeof(buf));
			if (n == LIBSSH2_ERROR_EAGAIN || n == 0)
				break;
			if (n < 0)
				goto lost;
			pthread_mutex_lock(&h->lock);
			strbuf_add(&h->inq, buf, (size_t)n);
			pthread_mutex_unlock(&h->lock);
			poke(h->notify_fd);
			progress = true;
		}
		for (;;) {
			ssize_t n = libssh2_channel_read_stderr(h->ch, buf,
								sizeof(buf));
			if (n <= 0)
				break;
			print_remote_stderr(h, &rerr, buf, (size_t)n);
		}
		if (!stop && h->sftp && xfer_next(h)) {
			int r = xfer_step(h);
			if (r < 0)
				goto lost;
			if (r > 0)
				progress = true;
		}
		if (libssh2_channel_eof(h->ch)) {
			if (stop)
				break;
			strbuf_release(&pending);
			strbuf_release(&rerr);
			xfer_lose_all(h);
			set_state(h, EXEC_LOST, "the agent on %s exited or its "
				  "connection closed", h->w->host);
			return NULL;
		}
		if (stop && clock_mono() - stop_at > bye_wait)
			break;
		if (progress)
			continue;
		int next = 0;
		if (h->w->keepalive)
			libssh2_keepalive_send(h->s, &next);
		int dir = libssh2_session_block_directions(h->s);
		struct pollfd p[2] = {
			{ h->sock, POLLIN, 0 },
			{ h->wake_fd, POLLIN, 0 },
		};
		if ((dir & LIBSSH2_SESSION_BLOCK_OUTBOUND) || sent < pending.len)
			p[0].events |= POLLOUT;
		int timeout = next > 0 ? next * 1000 : 1000;
		if (stop)
			timeout = 200;
		if (poll(p, 2, timeout) < 0 && errno != EINTR)
			goto lost;
		if (p[1].revents & POLLIN) {
			uint64_t v;
			ssize_t r = read(h->wake_fd, &v, sizeof(v));
			(void)r;
		}
	}
	strbuf_release(&pending);
	strbuf_release(&rerr);
	xfer_lose_all(h);
	set_state(h, EXEC_CLOSED, NULL);
	return NULL;
lost:
	strbuf_release(&pending);
	strbuf_release(&rerr);
	xfer_lose_all(h);
	set_state(h, EXEC_LOST, "lost the connection to %s: %s", h->w->host,
		  h->s ? sess_err(h->s) : "?");
	return NULL;
}

/* ---- the loop thread ---- */

static void
enqueue(struct ssh_host *h, struct strbuf *line)
{
	proto_end(line);
	pthread_mutex_lock(&h->lock);
	strbuf_add(&h->outq, line->buf, line->len);
	pthread_mutex_unlock(&h->lock);
	strbuf_reset(line);
	poke(h->wake_fd);
}

/* A path of the job as the worker names it: relative ones are under the
 * job's cwd (a shared workdir has the same path everywhere). */
static const char *
remote_path(const struct exec_job *job, const char *p, struct strbuf *tmp)
{
	if (p[0] == '/' || !job->cwd)
		return p;
	strbuf_reset(tmp);
	strbuf_addf(tmp, "%s/%s", job->cwd, p);
	return tmp->buf;
}

static int
ssh_submit(struct exec *e, const struct exec_job *job)
{
	struct ssh_host *h = (struct ssh_host *)e;
	struct strbuf *l = &h->line, tmp = STRBUF_INIT;
	strbuf_reset(l);
	const struct exec_stage *st = job->stage;
	if (st) {
		proto_field(l, "SRUN", 1);
		proto_fieldf(l, "%u", job->task);
		proto_field(l, st->sandbox, 0);
		proto_field(l, st->outdir, 0);
		proto_fieldf(l, "%zu", st->nlinks);
		for (size_t i = 0; i < st->nlinks; i++) {
			proto_field(l, st->links[i].src, 0);
			proto_field(l, st->links[i].dst, 0);
			proto_field(l, st->links[i].copy ? "1" : "0", 0);
		}
		proto_fieldf(l, "%zu", st->nmkdirs);
		for (size_t i = 0; i < st->nmkdirs; i++)
			proto_field(l, st->mkdirs[i], 0);
		proto_fieldf(l, "%zu", st->nouts);
		for (size_t i = 0; i < st->nouts; i++)
			proto_field(l, st->outs[i], 0);
	} else {
		proto_field(l, "RUN", 1);
		proto_fieldf(l, "%u", job->task);
		proto_field(l, job->cwd ? job->cwd : h->w->workdir, 0);
	}
	proto_field(l, remote_path(job, job->out_path, &tmp), 0);
	proto_field(l, remote_path(job, job->err_path, &tmp), 0);
	size_t nenv = 0;
	/* Only the task's own additions travel: the agent's environment is
	 * the worker's. */
	for (char *const *v = job->env_add; v && *v; v++)
		nenv++;
	proto_fieldf(l, "%zu", nenv);
	for (size_t i = 0; i < nenv; i++)
		proto_field(l, job->env_add[i], 0);
	proto_field(l, job->argv[0], 0);
	for (char *const *a = job->argv; *a; a++)
		proto_field(l, *a, 0);
	enqueue(h, l);
	strbuf_release(&tmp);
	struct rjob j = { job->task, clock_real() };
	VEC_PUSH(h->jobs, j);
	e->running++;
	return 0;
}

static void
ssh_signal_all(struct exec *e, int sig)
{
	struct ssh_host *h = (struct ssh_host *)e;
	if (e->state != EXEC_READY)
		return;
	strbuf_reset(&h->line);
	proto_field(&h->line, "KILLALL", 1);
	proto_fieldf(&h->line, "%d", sig);
	enqueue(h, &h->line);
}

static void
ssh_signal_one(struct exec *e, uint32_t task, int sig)
{
	struct ssh_host *h = (struct ssh_host *)e;
	if (e->state != EXEC_READY)
		return;
	strbuf_reset(&h->line);
	proto_field(&h->line, "KILL", 1);
	proto_fieldf(&h->line, "%u", task);
	proto_fieldf(&h->line, "%d", sig);
	enqueue(h, &h->line);
}

/* Send "TYPE task" to the agent, if it is ready. */
static void
send_task_msg(struct exec *e, const char *type, uint32_t task)
{
	struct ssh_host *h = (struct ssh_host *)e;
	if (e->state != EXEC_READY)
		return;
	strbuf_reset(&h->line);
	proto_field(&h->line, type, 1);
	proto_fieldf(&h->line, "%u", task);
	enqueue(h, &h->line);
}

static void
ssh_stop_one(struct exec *e, uint32_t task)
{
	send_task_msg(e, "STOP", task);
}

static void
ssh_ask_written(struct exec *e, uint32_t task)
{
	send_task_msg(e, "WRITTEN", task);
}

static bool
take_job(struct ssh_host *h, uint32_t task)
{
	for (size_t i = 0; i < h->jobs.n; i++)
		if (h->jobs.v[i].task == task) {
			h->jobs.v[i] = h->jobs.v[--h->jobs.n];
			h->base.running--;
			return true;
		}
	return false;
}

static void
handle_msg(struct ssh_host *h, struct proto_msg *m)
{
	struct exec *e = &h->base;
	const char *t = m->f[0];
	struct exec_result r;
	memset(&r, 0, sizeof(r));
	r.read_bytes = r.write_bytes = -1;
	long id;
	if (!strcmp(t, "HELLO") && m->n >= 5) {
		long ver, ncpu;
		if (parse_long(m->f[1], &ver) < 0 || ver != PROTO_VERSION) {
			snprintf(e->error, sizeof(e->error), "the agent on %s "
				 "speaks protocol %s, not %d", h->w->host, m->f[1],
				 PROTO_VERSION);
			e->state = EXEC_FAILED;
		} else {
			e->ncpus = parse_long(m->f[3], &ncpu) ? 0 : ncpu;
			e->state = EXEC_READY;
		}
		e->on_state(e, e->arg);
	} else if (!strcmp(t, "DONE") && m->n >= 2 &&
		   !parse_long(m->f[1], &id)) {
		r.task = (uint32_t)id;
		if (!take_job(h, r.task))
			return;
		struct proto_done d;
		struct errbuf err;
		uint8_t *ok = NULL;
		struct exec_outfile *files = NULL;
		if (proto_parse_done(m, &d, &err) < 0) {
			/* what became of the task is not known: it failed */
			snprintf(r.error, sizeof(r.error), "the agent on %s "
				 "sent a DONE that cannot be read: %s",
				 h->w->host, err.msg);
			e->done(&r, e->arg);
			return;
		}
		r.started = true;
		r.wstatus = d.wstatus;
		r.start = d.start;
		r.end = d.end;
		r.utime = d.utime;
		r.stime = d.stime;
		r.maxrss_kb = d.maxrss_kb;
		r.read_bytes = d.read_bytes;
		r.write_bytes = d.write_bytes;
		r.out_empty = d.out_empty;
		r.err_empty = d.err_empty;
		if (d.staged) {
			r.stage_out_s = d.stage_out_s;
			ok = xcalloc(d.nout + 1, 1);
			for (size_t i = 0; i < d.nout; i++)
				ok[i] = m->f[14 + i][0] != '-';
			r.out_ok = ok;
			r.nout_ok = d.nout;
			files = xcalloc(d.nfile + 1, sizeof(*files));
			for (size_t i = 0; i < d.nfile; i++) {
				files[i].path = m->f[d.kfile + 2 * i];
				/* checked by proto_parse_done */
				files[i].size = strtoll(m->f[d.kfile + 2 * i + 1],
							NULL, 10);
			}
			r.files = files;
			r.nfiles = d.nfile;
		}
		e->done(&r, e->arg);
		free(ok);
		free(files);
	} else if (!strcmp(t, "FAILED") && m->n >= 3 &&
		   !parse_long(m->f[1], &id)) {
		r.task = (uint32_t)id;
		if (!take_job(h, r.task))
			return;
		r.start = r.end = clock_real();
		snprintf(r.error, sizeof(r.error), "%s", m->f[2]);
		e->done(&r, e->arg);
	} else if (!strcmp(t, "WRITTEN") && m->n == 4 &&
		   !parse_long(m->f[1], &id)) {
		char *end;
		double when = strtod(m->f[2], &end);
		long bytes;
		if (*end || !*m->f[2] || parse_long(m->f[3], &bytes) < 0)
			return; /* (a sample the learner can do without) */
		for (size_t i = 0; i < h->jobs.n; i++)
			if (h->jobs.v[i].task == (uint32_t)id && e->written)
				e->written(e, (uint32_t)id, when, bytes, e->arg);
	} else if (!strcmp(t, "BYE")) {
		/* the channel's end follows */
	} else {
		warning_msg("worker '%s': unexpected message '%s'", h->w->name, t);
	}
}

static int
ssh_transfer(struct exec *e, const struct xfer *x)
{
	struct ssh_host *h = (struct ssh_host *)e;
	if (e->state != EXEC_READY || !h->o.sftp)
		return -1;
	struct xfer c = *x;
	c.local = xstrdup(x->local);
	c.remote = xstrdup(x->remote);
	pthread_mutex_lock(&h->lock);
	VEC_PUSH(h->xq, c);
	pthread_mutex_unlock(&h->lock);
	poke(h->wake_fd);
	return 0;
}

/* Report finished transfers (and, once the thread is gone, the ones it
 * never took) to the owner. */
static void
report_xfers(struct ssh_host *h, bool thread_gone)
{
	pthread_mutex_lock(&h->lock);
	if (thread_gone) {
		for (size_t i = 0; i < h->xq.n; i++) {
			struct xfer_result r;
			memset(&r, 0, sizeof(r));
			r.id = h->xq.v[i].id;
			r.lost = true;
			snprintf(r.error, sizeof(r.error), "%s was lost",
				 h->w->host);
			xfer_free(&h->xq.v[i]);
			VEC_PUSH(h->xdone, r);
		}
		h->xq.n = 0;
	}
	struct xfer_result *v = h->xdone.v;
	size_t n = h->xdone.n;
	h->xdone.v = NULL;
	h->xdone.n = h->xdone.alloc = 0;
	pthread_mutex_unlock(&h->lock);
	for (size_t i = 0; i < n; i++)
		if (h->base.xfer_done)
			h->base.xfer_done(&h->base, &v[i], h->base.xfer_arg);
	free(v);
}

/* Every running job of a lost worker goes back to the runner. */
static void
lose_jobs(struct ssh_host *h)
{
	while (h->jobs.n) {
		struct exec_result r;
		memset(&r, 0, sizeof(r));
		r.task = h->jobs.v[h->jobs.n - 1].task;
		r.lost = true;
		r.read_bytes = r.write_bytes = -1;
		/* its own start was lost with the worker: when it was sent */
		r.start = h->jobs.v[h->jobs.n - 1].sent;
		r.end = clock_real();
		snprintf(r.error, sizeof(r.error), "%s", h->base.error);
		h->jobs.n--;
		h->base.running--;
		h->base.done(&r, h->base.arg);
	}
}

static void
on_notify(int fd, short revents, void *arg)
{
	struct ssh_host *h = arg;
	uint64_t v;
	ssize_t rr = read(fd, &v, sizeof(v));
	(void)rr;
	struct strbuf in = STRBUF_INIT;
	pthread_mutex_lock(&h->lock);
	strbuf_add(&in, h->inq.buf, h->inq.len);
	strbuf_reset(&h->inq);
	enum exec_state st = h->thread_state;
	char errtext[2048];
	memcpy(errtext, h->thread_error, sizeof(errtext));
	pthread_mutex_unlock(&h->lock);
	if (in.len) {
		proto_feed(&h->dec, in.buf, in.len);
		struct proto_msg m;
		struct errbuf err;
		int r;
		while ((r = proto_next(&h->dec, &m, &err)) != 0) {
			if (r < 0)
				warning_msg("worker '%s': %s", h->w->name, err.msg);
			else if (m.n && *m.f[0])
				handle_msg(h, &m);
		}
	}
	strbuf_release(&in);
	struct exec *e = &h->base;
	bool gone = st == EXEC_FAILED || st == EXEC_LOST || st == EXEC_CLOSED;
	report_xfers(h, gone);
	if (gone && e->state != st && e->state != EXEC_FAILED) {
		if (st == EXEC_LOST && e->state != EXEC_READY)
			st = EXEC_FAILED;
		e->state = st;
		snprintf(e->error, sizeof(e->error), "%s", errtext);
		loop_unwatch_fd(h->loop, h->notify_fd);
		lose_jobs(h);
		e->on_state(e, e->arg);
	}
}

static void
ssh_release(struct exec *e)
{
	struct ssh_host *h = (struct ssh_host *)e;
	if (h->thread_started) {
		if (e->state == EXEC_READY) {
			strbuf_reset(&h->line);
			proto_field(&h->line, "EXIT", 1);
			enqueue(h, &h->line);
		}
		pthread_mutex_lock(&h->lock);
		h->stop = true;
		pthread_mutex_unlock(&h->lock);
		poke(h->wake_fd);
		pthread_join(h->thread, NULL);
	}
	loop_unwatch_fd(h->loop, h->notify_fd);
	if (h->ch)
		libssh2_channel_free(h->ch);
	if (h->sftp) {
		libssh2_session_set_blocking(h->s, 1);
		libssh2_sftp_shutdown(h->sftp);
	}
	if (h->s) {
		libssh2_session_set_blocking(h->s, 1);
		libssh2_session_disconnect(h->s, "wfrun done");
		libssh2_session_free(h->s);
	}
	if (h->sock >= 0)
		close(h->sock);
	close(h->wake_fd);
	close(h->notify_fd);
	pthread_mutex_destroy(&h->lock);
	strbuf_release(&h->outq);
	strbuf_release(&h->inq);
	strbuf_release(&h->line);
	proto_decoder_release(&h->dec);
	VEC_FREE(h->jobs);
	for (size_t i = 0; i < h->xq.n; i++)
		xfer_free(&h->xq.v[i]);
	VEC_FREE(h->xq);
	VEC_FREE(h->xdone);
	free(h->cur.buf);
	strbuf_release(&h->cur.tmp);
	hmap_release(&h->dirs_made);
	arena_release(&h->dirs_arena);
	free(h);
}

static void
ssh_on_sigchld(struct exec *e)
{
	(void)e; /* remote tasks are not our children */
}

static const struct exec_ops ssh_ops = {
	ssh_submit,     ssh_signal_all, ssh_signal_one, ssh_stop_one,
	ssh_on_sigchld, ssh_release,    ssh_transfer,
	ssh_ask_written,
};

int
ssh_global_init(void)
{
	return libssh2_init(0);
}

void
ssh_global_exit(void)
{
	libssh2_exit();
}

struct exec *
exec_ssh_new(const struct worker_spec *w, const struct exec_ssh_opts *o,
	     struct loop *loop, exec_done_fn done, exec_state_fn on_state,
	     void *arg)
{
	struct ssh_host *h = xcalloc(1, sizeof(*h));
	h->base.ops = &ssh_ops;
	h->base.done = done;
	h->base.on_state = on_state;
	h->base.arg = arg;
	h->base.state = EXEC_CONNECTING;
	h->w = w;
	h->o = *o;
	h->loop = loop;
	h->sock = -1;
	strbuf_init(&h->outq);
	strbuf_init(&h->inq);
	strbuf_init(&h->line);
	strbuf_init(&h->cur.tmp);
	h->cur.fd = -1;
	hmap_init(&h->dirs_made);
	arena_init(&h->dirs_arena);
	proto_decoder_init(&h->dec);
	pthread_mutex_init(&h->lock, NULL);
	h->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	h->notify_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (h->wake_fd < 0 || h->notify_fd < 0)
		die("eventfd: %s", strerror(errno));
	loop_watch_fd(loop, h->notify_fd, POLLIN, on_notify, h);
	if (pthread_create(&h->thread, NULL, ssh_thread, h)) {
		snprintf(h->base.error, sizeof(h->base.error),
			 "cannot start a thread");
		h->base.state = EXEC_FAILED;
	} else {
		h->thread_started = true;
	}
	return &h->base;
}
