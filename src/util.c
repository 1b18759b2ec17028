#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int log_level = 1;
char strbuf_empty[1];

static NORETURN void
oom(size_t n)
{
	fprintf(stderr, "wfrun: out of memory allocating %zu bytes\n", n);
	abort();
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom(nmemb * size);
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return strbuf_detach(&sb);
}

void
bug_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "wfrun: BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void
die(const char *fmt, ...)
{
	va_list ap;
	fputs("wfrun: fatal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* strbuf */

void
strbuf_init(struct strbuf *sb)
{
	sb->buf = strbuf_empty;
	sb->len = sb->alloc = 0;
}

void
strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb);
}

void
strbuf_reset(struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
}

void
strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (len > (sb->alloc ? sb->alloc - 1 : 0))
		BUG("strbuf_setlen beyond allocation");
	sb->len = len;
	if (sb->alloc)
		sb->buf[len] = '\0';
}

void
strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;
	if (need <= sb->alloc)
		return;
	size_t na = sb->alloc ? sb->alloc * 2 : 64;
	while (na < need)
		na *= 2;
	if (!sb->alloc) {
		sb->buf = xmalloc(na);
		sb->buf[0] = '\0';
	} else {
		sb->buf = xrealloc(sb->buf, na);
	}
	sb->alloc = na;
}

void
strbuf_add(struct strbuf *sb, const void *data, size_t n)
{
	strbuf_grow(sb, n);
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void
strbuf_adds(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void
strbuf_addch(struct strbuf *sb, int c)
{
	strbuf_grow(sb, 1);
	sb->buf[sb->len++] = (char)c;
	sb->buf[sb->len] = '\0';
}

void
strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	/* One pass when the text fits the room there is, a second after
	 * growing when not.  (Measuring first with vsnprintf(NULL, 0, ...)
	 * took two passes always, and drew a false "null format string"
	 * from gcc -Wformat-truncation in the sanitizer build.) */
	va_list cp;
	strbuf_grow(sb, 64);
	size_t room = sb->alloc - sb->len;
	va_copy(cp, ap);
	int n = vsnprintf(sb->buf + sb->len, room, fmt, cp);
	va_end(cp);
	if (n < 0)
		BUG("vsnprintf failed");
	if ((size_t)n >= room) {
		strbuf_grow(sb, (size_t)n);
		if (vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap) != n)
			BUG("vsnprintf gave another length");
	}
	sb->len += (size_t)n;
}

void
strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void
strbuf_add_json(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		switch (ch) {
		case '"': strbuf_adds(sb, "\\\""); break;
		case '\\': strbuf_adds(sb, "\\\\"); break;
		case '\n': strbuf_adds(sb, "\\n"); break;
		case '\t': strbuf_adds(sb, "\\t"); break;
		case '\r': strbuf_adds(sb, "\\r"); break;
		default:
			if (ch < 0x20 || ch == 0x7f || ch == '<')
				strbuf_addf(sb, "\\u%04x", ch);
			else
				strbuf_addch(sb, ch);
		}
	}
	strbuf_addch(sb, '"');
}

char *
xvisible(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_visible(&sb, s, strlen(s));
	return strbuf_detach(&sb);
}

void
strbuf_add_visible(struct strbuf *sb, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 &&
		    (unsigned char)s[i + 1] <= 0x9f) {
			strbuf_addf(sb, "\\xc2\\x%02x", (unsigned char)s[++i]);
		} else if (ch == 0x1b) {
			strbuf_adds(sb, "\\e");
		} else if (ch == '\r') {
			strbuf_adds(sb, "\\r");
		} else if ((ch < 0x20 && ch != '\t' && ch != '\n') ||
			   ch == 0x7f) {
			strbuf_addf(sb, "\\x%02x", ch);
		} else {
			strbuf_addch(sb, (char)ch);
		}
	}
}

char *
strbuf_detach(struct strbuf *sb)
{
	char *r = sb->alloc ? sb->buf : xstrdup("");
	strbuf_init(sb);
	return r;
}

/* arena */

struct arena_block {
	struct arena_block *next;
	char data[];
};

void
arena_init(struct arena *a)
{
	memset(a, 0, sizeof(*a));
}

void
arena_release(struct arena *a)
{
	struct arena_block *b = a->head;
	while (b) {
		struct arena_block *n = b->next;
		free(b);
		b = n;
	}
	arena_init(a);
}

void *
arena_alloc(struct arena *a, size_t n)
{
	n = (n + 7) & ~(size_t)7;
	if (!a->head || a->used + n > a->cap) {
		size_t cap = n > 65536 ? n : 65536;
		struct arena_block *b = xmalloc(sizeof(*b) + cap);
		b->next = a->head;
		a->head = b;
		a->used = 0;
		a->cap = cap;
		a->total += cap;
	}
	void *p = a->head->data + a->used;
	a->used += n;
	return p;
}

char *
arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* hmap: FNV-1a, linear probing, load factor <= 1/2 */

uint32_t
hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 16777619u;
	}
	return h;
}

void
hmap_init(struct hmap *m)
{
	m->e = NULL;
	m->cap = m->n = 0;
}

void
hmap_release(struct hmap *m)
{
	free(m->e);
	hmap_init(m);
}

static struct hmap_entry *
hmap_find(const struct hmap *m, const char *key, size_t klen, uint32_t h)
{
	size_t mask = m->cap - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct hmap_entry *e = &m->e[i];
		if (!e->key)
			return e;
		if (e->hash == h && e->klen == klen && !memcmp(e->key, key, klen))
			return e;
	}
}

static void
hmap_rehash(struct hmap *m, size_t cap)
{
	struct hmap_entry *old = m->e;
	size_t ocap = m->cap;
	m->e = xcalloc(cap, sizeof(*m->e));
	m->cap = cap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].key)
			*hmap_find(m, old[i].key, old[i].klen, old[i].hash) = old[i];
	free(old);
}

uint64_t *
hmap_get(const struct hmap *m, const char *key, size_t klen)
{
	if (!m->n)
		return NULL;
	struct hmap_entry *e = hmap_find(m, key, klen, hash_bytes(key, klen));
	return e->key ? &e->val : NULL;
}

uint64_t *
hmap_put(struct hmap *m, const char *key, size_t klen, uint64_t val, int *found)
{
	if ((m->n + 1) * 2 > m->cap)
		hmap_rehash(m, m->cap ? m->cap * 2 : 64);
	uint32_t h = hash_bytes(key, klen);
	struct hmap_entry *e = hmap_find(m, key, klen, h);
	if (e->key) {
		if (found)
			*found = 1;
		return &e->val;
	}
	if (klen > UINT32_MAX)
		BUG("hmap key too long");
	e->key = key;
	e->klen = (uint32_t)klen;
	e->hash = h;
	e->val = val;
	m->n++;
	if (found)
		*found = 0;
	return &e->val;
}

/* messages */

/* Names and text in a message may come from a task (a file it made, a
 * line it wrote): shown, never sent to the terminal as controls. */
static void
vmsg(const char *prefix, const char *fmt, va_list ap)
{
	struct strbuf raw = STRBUF_INIT, out = STRBUF_INIT;
	strbuf_vaddf(&raw, fmt, ap);
	strbuf_adds(&out, prefix);
	strbuf_add_visible(&out, raw.buf, raw.len);
	strbuf_addch(&out, '\n');
	fwrite(out.buf, 1, out.len, stderr);
	strbuf_release(&raw);
	strbuf_release(&out);
}

void
error_msg(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("wfrun: error: ", fmt, ap);
	va_end(ap);
}

void
warning_msg(const char *fmt, ...)
{
	va_list ap;
	if (log_level < 1)
		return;
	va_start(ap, fmt);
	vmsg("wfrun: warning: ", fmt, ap);
	va_end(ap);
}

void
info_msg(const char *fmt, ...)
{
	va_list ap;
	if (log_level < 1)
		return;
	va_start(ap, fmt);
	vmsg("wfrun: ", fmt, ap);
	va_end(ap);
}

void
verbose_msg(const char *fmt, ...)
{
	va_list ap;
	if (log_level < 2)
		return;
	va_start(ap, fmt);
	vmsg("wfrun: ", fmt, ap);
	va_end(ap);
}

int
errprintf(struct errbuf *err, const char *fmt, ...)
{
	va_list ap;
	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static const char *
file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "a special file";
}

const char *
read_strerror(int e, size_t max)
{
	static char buf[64];
	if (e != EFBIG)
		return strerror(e);
	if (max % (1u << 20) == 0)
		snprintf(buf, sizeof(buf), "larger than the limit of %zu MiB",
			 max >> 20);
	else
		snprintf(buf, sizeof(buf), "larger than the limit of %zu bytes",
			 max);
	return buf;
}

static int
too_large(struct errbuf *err, size_t max)
{
	return errprintf(err, "%s", read_strerror(EFBIG, max));
}

/* An fd open for reading path, a regular file within max bytes or a pipe,
 * in blocking mode; or -1 with err and errno.  A device is never opened
 * (opening one can act: a tape rewinds, a modem hangs up). */
static int
open_bounded(const char *path, size_t max, struct errbuf *err)
{
	struct stat st, fst;
	int fd = -1;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
	    !S_ISFIFO(st.st_mode))
		goto kind;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 || fstat(fd, &fst) < 0) {
		int e = errno;
		errprintf(err, "%s", strerror(e));
		if (fd >= 0)
			close(fd);
		errno = e;
		return -1;
	}
	st = fst;
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
		goto kind;
	if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > max) {
		close(fd);
		errno = EFBIG;
		return too_large(err, max);
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
kind:
	if (fd >= 0)
		close(fd);
	errno = EINVAL;
	return errprintf(err, "%s, not a regular file or a pipe",
			 file_kind(st.st_mode));
}

int
read_bounded(const char *path, size_t max, struct strbuf *sb,
	     struct errbuf *err)
{
	int fd = open_bounded(path, max, err);
	if (fd < 0)
		return -1;
	struct stat st;
	int piped = fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
	size_t got = 0;
	char chunk[65536];
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			return errprintf(err, "%s", strerror(e));
		}
		if (!n)
			break;
		if ((size_t)n > max - got) {
			close(fd);
			return too_large(err, max);
		}
		got += (size_t)n;
		strbuf_add(sb, chunk, (size_t)n);
	}
	close(fd);
	return piped;
}

struct bounded_cookie {
	int fd;
	size_t left;
	bool over; /* a byte past the bound was read */
};

static ssize_t
bounded_read(void *cookie, char *buf, size_t size)
{
	struct bounded_cookie *c = cookie;
	ssize_t n;
	if (c->over) {
		errno = EFBIG;
		return -1;
	}
	/* one byte more than is left tells the bound from the end */
	if (size > c->left + 1)
		size = c->left + 1;
	do
		n = read(c->fd, buf, size);
	while (n < 0 && errno == EINTR);
	if (n > 0 && (size_t)n > c->left) {
		if (!c->left) {
			errno = EFBIG;
			return -1;
		}
		n = (ssize_t)c->left; /* the rest; the next read fails */
		c->over = true;
	}
	if (n > 0)
		c->left -= (size_t)n;
	return n;
}

static int
bounded_close(void *cookie)
{
	struct bounded_cookie *c = cookie;
	int r = close(c->fd);
	free(c);
	return r;
}

FILE *
fopen_bounded(const char *path, size_t max, struct errbuf *err)
{
	int fd = open_bounded(path, max, err);
	if (fd < 0)
		return NULL;
	struct bounded_cookie *c = xmalloc(sizeof(*c));
	c->fd = fd;
	c->left = max;
	c->over = false;
	cookie_io_functions_t io = { bounded_read, NULL, NULL, bounded_close };
	FILE *fp = fopencookie(c, "r", io);
	if (!fp) {
		int e = errno;
		close(fd);
		free(c);
		errno = e;
		errprintf(err, "%s", strerror(e));
	}
	return fp;
}

double
clock_real(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double
clock_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

size_t
edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return (size_t)-1;
	size_t row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
			size_t v = prev + cost;
			if (row[j] + 1 < v)
				v = row[j] + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			prev = cur;
		}
	}
	return row[lb];
}

const char *
closest_word(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	size_t bestd = (size_t)-1;
	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(word, cands[i]);
		if (d < bestd) {
			bestd = d;
			best = cands[i];
		}
	}
	size_t wl = strlen(word);
	size_t limit = wl <= 3 ? 1 : wl <= 6 ? 2 : 3;
	return bestd <= limit ? best : NULL;
}

int
parse_long(const char *s, long *out)
{
	char *end;
	if (!*s)
		return -1;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static bool
theap_less(const void *a, const void *b)
{
	return ((const struct theap_item *)a)->when <
	       ((const struct theap_item *)b)->when;
}

void
theap_push(struct theap *h, double when, uint32_t id, uint32_t aux)
{
	struct theap_item it = { when, id, aux };
	HEAP_PUSH(*h, it, theap_less);
}

struct theap_item
theap_pop(struct theap *h)
{
	struct theap_item top;
	HEAP_POP(*h, top, theap_less);
	return top;
}

void
idset_init(struct idset *s, size_t bound)
{
	s->v = xmalloc((bound ? bound : 1) * sizeof(*s->v));
	s->pos = xmalloc((bound ? bound : 1) * sizeof(*s->pos));
	s->n = 0;
}

void
idset_add(struct idset *s, uint32_t id)
{
	s->pos[id] = (uint32_t)s->n;
	s->v[s->n++] = id;
}

void
idset_del(struct idset *s, uint32_t id)
{
	uint32_t i = s->pos[id], last = s->v[--s->n];
	s->v[i] = last;
	s->pos[last] = i;
}

void
idset_release(struct idset *s)
{
	free(s->v);
	free(s->pos);
	memset(s, 0, sizeof(*s));
}

int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}
