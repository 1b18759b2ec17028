/*
 * ssh_conn: connecting to a worker host and logging in (see ssh_conn.h).
 * Everything here blocks, in the thread that owns the connection, but
 * for the close, which is bounded by a deadline.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "expand.h"
#include "resources.h"
#include "knownhosts.h"
#include "ssh_conn.h"

/* Handshakes in progress at once to one host:port: OpenSSH's MaxStartups
 * (10:30:100 by default) drops connections past 10 unauthenticated ones. */
#define HANDSHAKES_PER_HOST 8
/* Tries again of a connection sshd dropped before its banner. */
#define HANDSHAKE_RETRIES 3

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

/* ---- connecting, host keys, login: blocking, with a timeout ---- */

static int
tcp_connect(const struct worker_spec *w, char *err, size_t errlen)
{
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

/* The host's key, as check_host_key sees it. */
struct hostkey {
	const char *key;
	size_t len;
	int type;          /* LIBSSH2_HOSTKEY_TYPE_* */
	int mask;          /* for libssh2_knownhost_* */
	char fp[80];       /* its fingerprint */
	char spec[300];    /* host, or [host]:port, as known_hosts names it */
};

/* --accept-new-host-keys: append the key to known_hosts. */
static int
add_host_key(struct ssh_conn *c, LIBSSH2_KNOWNHOSTS *kh,
	     const struct hostkey *k, char *err, size_t errlen)
{
	const struct worker_spec *w = c->w;
	char line[4096];
	size_t ll = 0;
	struct libssh2_knownhost *added = NULL;
	if (libssh2_knownhost_addc(kh, k->spec, NULL, k->key, k->len, NULL, 0,
				   k->mask, &added) ||
	    libssh2_knownhost_writeline(kh, added, line, sizeof(line), &ll,
					LIBSSH2_KNOWNHOST_FILE_OPENSSH)) {
		snprintf(err, errlen, "cannot record the host key of %s: %s",
			 k->spec, sess_err(c->s));
		return -1;
	}
	int rc = 0;
	/* Append: rewriting the file would drop its comments. */
	FILE *fp = fopen(w->known_hosts, "ae");
	if (!fp || fwrite(line, 1, ll, fp) != ll) {
		snprintf(err, errlen, "cannot add the host key of %s to %s: %s",
			 k->spec, w->known_hosts, strerror(errno));
		rc = -1;
	}
	if (fp && fclose(fp) && !rc) {
		snprintf(err, errlen, "cannot write %s: %s", w->known_hosts,
			 strerror(errno));
		rc = -1;
	}
	if (!rc)
		fprintf(stderr, "wfrun: worker '%s': added the %s host key "
			"of %s (%s) to %s\n", w->name, keytype_name(k->type),
			k->spec, k->fp, w->known_hosts);
	return rc;
}

/* The text of the known_hosts file (empty if there is none): 0, or -1
 * with err. */
static int
read_known_hosts(const char *path, struct strbuf *text, char *err,
		 size_t errlen)
{
	struct errbuf why;
	FILE *fp = fopen_bounded(path, READ_MAX_INPUT, &why);
	if (!fp)
		return errno == ENOENT ? 0 : (snprintf(err, errlen, "cannot "
			"read %s: %s", path, why.msg), -1);
	char buf[8192];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		strbuf_add(text, buf, n);
	int bad = ferror(fp);
	fclose(fp);
	if (bad) {
		snprintf(err, errlen, "cannot read %s", path);
		return -1;
	}
	return 0;
}

/* The host key, judged as ssh -o StrictHostKeyChecking=yes judges it
 * (knownhosts.h); an unknown one added with --accept-new-host-keys. */
static int
check_host_key(struct ssh_conn *c, char *err, size_t errlen)
{
	const struct worker_spec *w = c->w;
	struct hostkey k;
	k.key = libssh2_session_hostkey(c->s, &k.len, &k.type);
	if (!k.key) {
		snprintf(err, errlen, "no host key from %s", w->host);
		return -1;
	}
	fingerprint(c->s, k.fp, sizeof(k.fp));
	struct strbuf text = STRBUF_INIT;
	if (read_known_hosts(w->known_hosts, &text, err, errlen) < 0) {
		strbuf_release(&text);
		return -1;
	}
	size_t line;
	enum knownhosts_verdict v = knownhosts_check(
		text.buf, text.len, w->host, w->port,
		(const unsigned char *)k.key, k.len, &line);
	strbuf_release(&text);
	k.mask = LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW |
		 knownhost_keytype(k.type);
	if (w->port == 22)
		snprintf(k.spec, sizeof(k.spec), "%s", w->host);
	else
		snprintf(k.spec, sizeof(k.spec), "[%s]:%d", w->host, w->port);
	c->key_refused = v != KH_OK;
	if (v == KH_OK)
		return 0;
	if (v == KH_CHANGED)
		snprintf(err, errlen, "the %s host key of %s (%s) does NOT match "
			 "the one in %s (line %zu): the host was reinstalled or "
			 "someone is in the middle; refusing to connect (remove "
			 "the old key with: ssh-keygen -R '%s' -f %s, once you "
			 "know why it changed)", keytype_name(k.type), k.spec,
			 k.fp, w->known_hosts, line, k.spec, w->known_hosts);
	else if (v == KH_REVOKED)
		snprintf(err, errlen, "the %s host key of %s (%s) is REVOKED in "
			 "%s (line %zu); refusing to connect",
			 keytype_name(k.type), k.spec, k.fp, w->known_hosts,
			 line);
	if (v != KH_NEW)
		return -1;
	if (!c->accept_new_host_keys) {
		snprintf(err, errlen, "the host key of %s is not in %s (%s key "
			 "%s); check it, then add it with ssh-keyscan or rerun "
			 "with --accept-new-host-keys", k.spec, w->known_hosts,
			 keytype_name(k.type), k.fp);
		return -1;
	}
	LIBSSH2_KNOWNHOSTS *kh = libssh2_knownhost_init(c->s);
	if (!kh) {
		snprintf(err, errlen, "cannot record host keys: %s",
			 sess_err(c->s));
		return -1;
	}
	int rc = add_host_key(c, kh, &k, err, errlen);
	libssh2_knownhost_free(kh);
	c->key_refused = rc < 0;
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
authenticate(struct ssh_conn *c, char *err, size_t errlen)
{
	const struct worker_spec *w = c->w;
	const char *user = login_user(w);
	struct strbuf tried = STRBUF_INIT;
	int ok = -1;
	if (w->identity) {
		if (!libssh2_userauth_publickey_fromfile(c->s, user, NULL,
							 w->identity, NULL))
			ok = 0;
		else
			strbuf_addf(&tried, "key %s (%s)", w->identity,
				    sess_err(c->s));
	} else {
		LIBSSH2_AGENT *ag = getenv("SSH_AUTH_SOCK")
					    ? libssh2_agent_init(c->s)
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
				if (!libssh2_userauth_publickey_fromfile(c->s, user,
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

int
ssh_conn_run(struct ssh_conn *conn, const char *cmd, struct strbuf *out,
	     int *status)
{
	LIBSSH2_CHANNEL *c = libssh2_channel_open_session(conn->s);
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

/* Connect, check the host key, authenticate. */
static int
login(struct ssh_conn *c, char *err, size_t errlen)
{
	const struct worker_spec *w = c->w;
	c->sock = tcp_connect(w, err, errlen);
	if (c->sock < 0)
		return -1;
	c->s = libssh2_session_init();
	if (!c->s) {
		snprintf(err, errlen, "cannot create an SSH session");
		return -1;
	}
	libssh2_session_set_blocking(c->s, 1);
	libssh2_session_set_timeout(c->s, w->timeout * 1000L);
	/* OpenSSH's own preference: the key a user's known_hosts holds. */
	libssh2_session_method_pref(c->s, LIBSSH2_METHOD_HOSTKEY,
				    "ssh-ed25519,ecdsa-sha2-nistp256,"
				    "ecdsa-sha2-nistp384,ecdsa-sha2-nistp521,"
				    "ssh-rsa");
	if (libssh2_session_handshake(c->s, c->sock)) {
		snprintf(err, errlen, "SSH handshake with %s port %d failed: %s",
			 w->host, w->port, sess_err(c->s));
		return -1;
	}
	if (check_host_key(c, err, errlen) < 0)
		return -1;
	if (authenticate(c, err, errlen) < 0)
		return -1;
	return 0;
}

/* sshd closed the connection before its banner: MaxStartups dropped it
 * (it may still count logins that have just finished). */
static bool
dropped_early(const struct ssh_conn *c)
{
	return c->s && strstr(sess_err(c->s), "banner");
}

void
ssh_conn_init(struct ssh_conn *c, const struct worker_spec *w,
	      bool accept_new_host_keys)
{
	c->w = w;
	c->accept_new_host_keys = accept_new_host_keys;
	c->sock = -1;
	c->s = NULL;
}

int
ssh_conn_open(struct ssh_conn *c, char *err, size_t errlen)
{
	const struct worker_spec *w = c->w;
	int r;
	/* A dropped connection is tried again, a few times, after a growing
	 * pause (this thread does nothing else before it is connected). */
	for (int attempt = 0;; attempt++) {
		hs_acquire(w);
		r = login(c, err, errlen);
		hs_release(w);
		if (r == 0 || attempt == HANDSHAKE_RETRIES || !dropped_early(c))
			break;
		libssh2_session_free(c->s);
		c->s = NULL;
		close(c->sock);
		c->sock = -1;
		struct timespec d = { 0, (long)(200000000L << attempt) };
		while (d.tv_nsec >= 1000000000L) {
			d.tv_sec++;
			d.tv_nsec -= 1000000000L;
		}
		nanosleep(&d, NULL);
	}
	return r;
}

const char *
ssh_conn_error(struct ssh_conn *c)
{
	return c->s ? sess_err(c->s) : "?";
}

void
ssh_conn_closing(struct ssh_conn *c)
{
	if (c->s)
		libssh2_session_set_timeout(c->s, (long)(SSH_CLOSE_WAIT * 1000));
}

/* Wait until the socket is ready the way the session last wanted it, or
 * the deadline: -1 once it has passed. */
static int
wait_socket(struct ssh_conn *c, double deadline)
{
	double left = deadline - clock_mono();
	if (left <= 0)
		return -1;
	int dir = libssh2_session_block_directions(c->s);
	struct pollfd p = { c->sock, 0, 0 };
	if (dir & LIBSSH2_SESSION_BLOCK_INBOUND)
		p.events |= POLLIN;
	if (dir & LIBSSH2_SESSION_BLOCK_OUTBOUND)
		p.events |= POLLOUT;
	if (!p.events)
		p.events = POLLIN | POLLOUT;
	if (poll(&p, 1, (int)(left * 1000) + 1) < 0 && errno != EINTR)
		return -1;
	return 0;
}

void
ssh_conn_release(struct ssh_conn *c)
{
	if (c->s) {
		/* Non-blocking, with a deadline: a link gone dark must not
		 * hold the end of the run (a blocking disconnect waited for
		 * the whole session timeout, and the free as long again).
		 * Past the deadline the socket is shut down, so that what is
		 * left fails at once. */
		double deadline = clock_mono() + SSH_CLOSE_WAIT;
		bool cut = c->sock < 0;
		int r;
		libssh2_session_set_blocking(c->s, 0);
		while ((r = libssh2_session_disconnect(c->s, "wfrun done")) ==
			       LIBSSH2_ERROR_EAGAIN &&
		       wait_socket(c, deadline) == 0)
			;
		for (int tries = 0; tries < 100; tries++) {
			if (r == LIBSSH2_ERROR_EAGAIN && !cut) {
				shutdown(c->sock, SHUT_RDWR);
				cut = true;
			}
			r = libssh2_session_free(c->s);
			if (r != LIBSSH2_ERROR_EAGAIN)
				break;
			if (!cut && wait_socket(c, deadline) == 0)
				tries = 0; /* only tries after the cut count */
		}
		/* (a session that would not free even with its socket shut
		 * down is left to the exit: nothing else is lost) */
		c->s = NULL;
	}
	if (c->sock >= 0)
		close(c->sock);
	c->sock = -1;
}
