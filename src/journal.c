#include "journal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static uint32_t crc_table[256];

static void
crc_init(void)
{
	if (crc_table[1])
		return;
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320U ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

static uint32_t
crc32_of(const char *p, size_t n)
{
	uint32_t c = 0xffffffffU;
	for (size_t i = 0; i < n; i++)
		c = crc_table[(c ^ (unsigned char)p[i]) & 0xff] ^ (c >> 8);
	return c ^ 0xffffffffU;
}

static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * FNV_PRIME;
	return h;
}

static void
esc(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '\\': strbuf_adds(sb, "\\\\"); break;
		case '\t': strbuf_adds(sb, "\\t"); break;
		case '\n': strbuf_adds(sb, "\\n"); break;
		case '\r': strbuf_adds(sb, "\\r"); break;
		default: strbuf_addch(sb, *s);
		}
	}
}

/* Unescape s[0..n) in place of a new string; NULL on a bad escape. */
static char *
unesc(const char *s, size_t n)
{
	char *out = xmalloc(n + 1), *o = out;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\\') {
			*o++ = s[i];
			continue;
		}
		if (++i == n) {
			free(out);
			return NULL;
		}
		switch (s[i]) {
		case '\\': *o++ = '\\'; break;
		case 't': *o++ = '\t'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		default: free(out); return NULL;
		}
	}
	*o = '\0';
	return out;
}

static void
jstore_free(struct jstore *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nf; i++)
		free(s->f[i].path);
	char *head[] = { s->worker, s->run, s->dir, (char *)s->f, (char *)s };
	for (size_t i = 0; i < sizeof(head) / sizeof(*head); i++)
		free(head[i]);
}

static void
jrec_release(struct jrec *r)
{
	free(r->key);
	free(r->cmd);
	for (size_t i = 0; i < r->nf; i++)
		free(r->f[i].path);
	free(r->f);
	jstore_free(r->store);
	r->store = NULL;
}

/* Append one serialised line (CRC included) for payload to sb. */
static void
add_line(struct strbuf *sb, const struct strbuf *payload)
{
	strbuf_addf(sb, "%08" PRIx32 " ", crc32_of(payload->buf, payload->len));
	strbuf_add(sb, payload->buf, payload->len);
	strbuf_addch(sb, '\n');
}

static void
serialise(struct strbuf *sb, const char *key, const char *cmd,
	  const struct jfile *f, size_t nf)
{
	struct strbuf p = STRBUF_INIT;
	strbuf_adds(&p, "T\t");
	esc(&p, key);
	strbuf_addch(&p, '\t');
	esc(&p, cmd);
	for (size_t i = 0; i < nf; i++) {
		strbuf_addf(&p, "\t%c%c\t", f[i].mode, f[i].id.kind);
		esc(&p, f[i].path);
		strbuf_addf(&p, "\t%" PRIu64 "\t%" PRId64 "\t", f[i].id.size,
			    f[i].id.mtime_ns);
		if (f[i].id.hashed)
			strbuf_addf(&p, "%016" PRIx64, f[i].id.hash);
		else
			strbuf_addch(&p, '-');
	}
	add_line(sb, &p);
	strbuf_release(&p);
}

static void
serialise_store(struct strbuf *sb, const char *key, const struct jstore *s)
{
	struct strbuf p = STRBUF_INIT;
	strbuf_adds(&p, "S\t");
	esc(&p, key);
	const char *head[] = { s->worker, s->run, s->dir };
	for (size_t i = 0; i < 3; i++) {
		strbuf_addch(&p, '\t');
		esc(&p, head[i]);
	}
	for (size_t i = 0; i < s->nf; i++) {
		strbuf_addch(&p, '\t');
		esc(&p, s->f[i].path);
		strbuf_addf(&p, "\t%lld\t%" PRId64, s->f[i].size,
			    s->f[i].mtime_ns);
	}
	add_line(sb, &p);
	strbuf_release(&p);
}

/* Split s[0..n) at tabs; returns the count (at most max). */
static size_t
split(const char *s, size_t n, const char **f, size_t *fl, size_t max)
{
	size_t k = 0;
	const char *start = s, *end = s + n;
	for (const char *q = s;; q++) {
		if (q == end || *q == '\t') {
			if (k == max)
				return max + 1;
			f[k] = start;
			fl[k++] = (size_t)(q - start);
			if (q == end)
				break;
			start = q + 1;
		}
	}
	return k;
}

static int
parse_u64(const char *s, size_t n, int base, uint64_t *out)
{
	char buf[32];
	if (!n || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	char *e;
	errno = 0;
	*out = strtoull(buf, &e, base);
	return errno || *e ? -1 : 0;
}

/* Parse one payload (no CRC, no newline); 0, or -1 if malformed. */
static int
parse_record(const char *s, size_t n, struct jrec *r)
{
	enum { MAXF = 4 + 5 * 65536 };
	size_t cap = 3 + 5 * 64;
	const char **f = xmalloc(cap * sizeof(*f));
	size_t *fl = xmalloc(cap * sizeof(*fl));
	size_t k;
	while ((k = split(s, n, f, fl, cap)) > cap && cap < MAXF) {
		cap *= 4;
		f = xrealloc(f, cap * sizeof(*f));
		fl = xrealloc(fl, cap * sizeof(*fl));
	}
	memset(r, 0, sizeof(*r));
	int rc = -1;
	if (k > cap || k < 3 || (k - 3) % 5 || fl[0] != 1 || f[0][0] != 'T')
		goto out;
	if (!(r->key = unesc(f[1], fl[1])) || !(r->cmd = unesc(f[2], fl[2])))
		goto out;
	r->nf = (k - 3) / 5;
	r->f = xcalloc(r->nf ? r->nf : 1, sizeof(*r->f));
	for (size_t i = 0; i < r->nf; i++) {
		const char **g = f + 3 + 5 * i;
		size_t *gl = fl + 3 + 5 * i;
		struct jfile *x = &r->f[i];
		uint64_t mt;
		if (gl[0] != 2 || (g[0][0] != 'r' && g[0][0] != 'w') ||
		    !strchr("fd-t", g[0][1]) || !g[0][1])
			goto out;
		x->mode = g[0][0];
		x->id.kind = g[0][1];
		if (!(x->path = unesc(g[1], gl[1])) ||
		    parse_u64(g[2], gl[2], 10, &x->id.size) < 0)
			goto out;
		bool neg = gl[3] && g[3][0] == '-';
		if (parse_u64(g[3] + neg, gl[3] - neg, 10, &mt) < 0)
			goto out;
		x->id.mtime_ns = neg ? -(int64_t)mt : (int64_t)mt;
		if (gl[4] == 1 && g[4][0] == '-') {
			x->id.hashed = false;
		} else if (parse_u64(g[4], gl[4], 16, &x->id.hash) < 0) {
			goto out;
		} else {
			x->id.hashed = true;
		}
	}
	rc = 0;
out:
	free(f);
	free(fl);
	if (rc)
		jrec_release(r);
	return rc;
}

static int
parse_i64(const char *s, size_t n, int64_t *out)
{
	uint64_t v;
	bool neg = n && s[0] == '-';
	if (parse_u64(s + neg, n - neg, 10, &v) < 0 || v > INT64_MAX)
		return -1;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* An S payload: the store of record prev, on the line right before it
 * (SIZE_MAX: none), when of the same key; 0 (ignored when it follows no
 * such record), or -1 if malformed. */
static int
parse_store(struct journal *j, const char *s, size_t n, size_t prev)
{
	size_t cap = 5 + 3 * 64, k;
	const char **f = xmalloc(cap * sizeof(*f));
	size_t *fl = xmalloc(cap * sizeof(*fl));
	while ((k = split(s, n, f, fl, cap)) > cap) {
		cap *= 4;
		f = xrealloc(f, cap * sizeof(*f));
		fl = xrealloc(fl, cap * sizeof(*fl));
	}
	struct jstore *st = xcalloc(1, sizeof(*st));
	char *key = NULL;
	int rc = -1;
	if (k < 5 || (k - 5) % 3 || !(key = unesc(f[1], fl[1])) ||
	    !(st->worker = unesc(f[2], fl[2])) || !(st->run = unesc(f[3], fl[3])) ||
	    !(st->dir = unesc(f[4], fl[4])))
		goto out;
	st->f = xcalloc((k - 5) / 3 + 1, sizeof(*st->f));
	for (size_t i = 5; i < k; i += 3, st->nf++) {
		struct jsfile *x = &st->f[st->nf];
		int64_t size;
		if (!(x->path = unesc(f[i], fl[i])) ||
		    parse_i64(f[i + 1], fl[i + 1], &size) < 0 || size < -1 ||
		    parse_i64(f[i + 2], fl[i + 2], &x->mtime_ns) < 0) {
			st->nf++;
			goto out;
		}
		x->size = size;
	}
	rc = 0;
	struct jrec *last = prev < j->recs.n ? &j->recs.v[prev] : NULL;
	if (last && !last->store && !strcmp(last->key, key)) {
		last->store = st;
		st = NULL;
	}
out:
	free(key);
	free(f);
	free(fl);
	jstore_free(st);
	return rc;
}

/* An X payload: the temp file PATH that the latest record of KEY says
 * it wrote was removed (kind 't' from now on); 0 (ignored when no such
 * record or entry), or -1 if malformed. */
static int
parse_temp_gone(struct journal *j, const char *s, size_t n)
{
	const char *f[4];
	size_t fl[4];
	if (split(s, n, f, fl, 4) != 3)
		return -1;
	char *key = unesc(f[1], fl[1]), *path = unesc(f[2], fl[2]);
	int rc = key && path ? 0 : -1;
	uint64_t *at = key ? hmap_get(&j->keys, key, strlen(key)) : NULL;
	struct jrec *r = at ? &j->recs.v[*at] : NULL;
	for (size_t i = 0; r && path && i < r->nf; i++)
		if (r->f[i].mode == 'w' && r->f[i].id.kind == 'f' &&
		    !strcmp(r->f[i].path, path))
			r->f[i].id.kind = 't';
	free(key);
	free(path);
	return rc;
}

static void
index_last(struct journal *j)
{
	struct jrec *r = &j->recs.v[j->recs.n - 1];
	int found;
	uint64_t *slot = hmap_put(&j->keys, r->key, strlen(r->key),
				  j->recs.n - 1, &found);
	if (found)
		*slot = j->recs.n - 1;
}

static const char HEADER[] = "H\twfrun-journal\t1";
#define HEADER_MAGIC "H\twfrun-journal\t"

/* A whole line that does not check out: count it, and remember the key
 * it seems to record (when what should be "T\tKEY\t" reads as one). */
static void
lose_line(struct journal *j, const char *line, size_t len)
{
	j->nlost++;
	if (len < 11 || line[8] != ' ' || line[9] != 'T' || line[10] != '\t')
		return;
	const char *k = line + 11, *tab = memchr(k, '\t', len - 11);
	char *key = tab ? unesc(k, (size_t)(tab - k)) : NULL;
	if (!key)
		return;
	int found;
	hmap_put(&j->lost_keys, key, strlen(key), 0, &found);
	if (found)
		free(key);
	else
		VEC_PUSH(j->lost_key_v, key);
}

/* The first line when it is a header of another version (whether or
 * not its checksum matches: a newer format may checksum otherwise):
 * that version, else NULL. */
static char *
other_version(const char *line, size_t len)
{
	size_t m = strlen(HEADER_MAGIC);
	if (len < 9 + m || memcmp(line + 9, HEADER_MAGIC, m))
		return NULL;
	if (len == 9 + strlen(HEADER) && !memcmp(line + 9, HEADER, len - 9))
		return NULL;
	size_t vl = len - 9 - m < 20 ? len - 9 - m : 20;
	char *v = xstrndup(line + 9 + m, vl);
	for (char *c = v; *c; c++)
		if ((unsigned char)*c < ' ' || (unsigned char)*c > '~')
			*c = '?';
	return v;
}

/*
 * Read every line of buf: a line whose checksum matches is a record (or
 * the header); one that does not is lost alone, and reading goes on at
 * the next line.  A last line without its newline is a torn tail.
 * Sets j->end (just past the last whole line), torn, nlost; 0, or -1
 * with err when the file is of another version or no journal at all.
 */
static int
read_records(struct journal *j, const char *path, const char *buf, size_t n,
	     struct errbuf *err)
{
	size_t off = 0, good = 0, after = SIZE_MAX;
	enum { GOOD, BAD_LINE, BAD_HEADER } first = GOOD;
	for (size_t no = 0; off < n; no++) {
		/* the T record on the line before, for an S line */
		size_t prev = after;
		after = SIZE_MAX;
		const char *line = buf + off, *nl = memchr(line, '\n', n - off);
		if (!nl)
			break;
		size_t len = (size_t)(nl - line);
		off += len + 1;
		char *v = no ? NULL : other_version(line, len);
		if (v) {
			errprintf(err, "%s is a journal of format version %s, which "
				  "this wfrun (format 1) cannot read: a newer wfrun "
				  "wrote it, or it is damaged; use that wfrun, or "
				  "move the file away to start with no record of "
				  "earlier runs", path, v);
			free(v);
			return -1;
		}
		uint64_t crc;
		if (len < 9 || line[8] != ' ' ||
		    parse_u64(line, 8, 16, &crc) < 0 ||
		    crc32_of(line + 9, len - 9) != (uint32_t)crc) {
			if (no)
				lose_line(j, line, len);
			else
				first = len >= 9 + strlen(HEADER_MAGIC) &&
						!memcmp(line + 9, HEADER_MAGIC,
							strlen(HEADER_MAGIC))
					? BAD_HEADER : BAD_LINE;
			continue;
		}
		if (len - 9 == strlen(HEADER) && !memcmp(line + 9, HEADER, len - 9)) {
			good++;
			if (no)
				j->nlost++; /* a header in the middle is no record */
			continue;
		}
		if (len > 10 && line[9] == 'X' && line[10] == '\t') {
			if (parse_temp_gone(j, line + 9, len - 9) < 0)
				lose_line(j, line, len);
			else
				good++;
			continue;
		}
		if (len > 10 && line[9] == 'S' && line[10] == '\t') {
			if (parse_store(j, line + 9, len - 9, prev) < 0)
				lose_line(j, line, len);
			else
				good++;
			continue;
		}
		struct jrec r;
		if (parse_record(line + 9, len - 9, &r) < 0) {
			lose_line(j, line, len);
			continue;
		}
		good++;
		if (!no)
			first = BAD_LINE;
		VEC_PUSH(j->recs, r);
		index_last(j);
		after = j->recs.n - 1;
	}
	j->end = (off_t)off;
	j->torn = off < n;
	j->nread = j->recs.n;
	/* a damaged header, or none before records: it is put back */
	j->bad_header = first == BAD_HEADER || (first == BAD_LINE && good);
	if (!good && j->end > 0 && !j->bad_header)
		return errprintf(err, "%s is not a wfrun journal (no line of it "
				 "checks out): move it away to start with no "
				 "record of earlier runs", path);
	return 0;
}

static int
write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void
header(struct strbuf *sb)
{
	struct strbuf p = STRBUF_INIT;
	strbuf_adds(&p, HEADER);
	add_line(sb, &p);
	strbuf_release(&p);
}

/* Rewrite the journal with only the latest record of each key, and open
 * it for appending. */
static int
compact(struct journal *j, const char *path, struct errbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	char *tmp = xasprintf("%s.new", path);
	header(&sb);
	for (size_t i = 0; i < j->recs.n; i++) {
		const struct jrec *r = &j->recs.v[i];
		uint64_t *last = hmap_get(&j->keys, r->key, strlen(r->key));
		if (last && *last == i) {
			serialise(&sb, r->key, r->cmd, r->f, r->nf);
			if (r->store)
				serialise_store(&sb, r->key, r->store);
		}
	}
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int rc = 0;
	if (fd < 0 || write_all(fd, sb.buf, sb.len) < 0 || fdatasync(fd) < 0 ||
	    rename(tmp, path) < 0)
		rc = errprintf(err, "cannot rewrite %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	if (rc)
		unlink(tmp);
	free(tmp);
	if (!rc) {
		int afd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (afd < 0) {
			rc = errprintf(err, "cannot open %s: %s", path,
				       strerror(errno));
		} else {
			close(j->fd);
			j->fd = afd;
			j->end = (off_t)sb.len;
		}
	}
	strbuf_release(&sb);
	return rc;
}

/* The whole of fd into buf; 0, or -1 with err. */
static int
slurp(int fd, const char *path, struct strbuf *buf, struct errbuf *err)
{
	char chunk[65536];
	ssize_t n;
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errprintf(err, "cannot read %s: %s", path,
					 strerror(errno));
		}
		strbuf_add(buf, chunk, (size_t)n);
	}
	return 0;
}

/* For appending to j->fd, a journal read: cut off its torn tail, write
 * the header of a new one, rewrite one with many replaced records or
 * with damaged lines.  0, or -1 with err. */
static int
open_append(struct journal *j, const char *path, off_t total,
	    struct errbuf *err)
{
	if (j->torn)
		warning_msg("%s ends in a partial record (a crash while it was "
			    "written); it is read up to its last whole record",
			    path);
	if (j->end < total && ftruncate(j->fd, j->end) < 0)
		return errprintf(err, "cannot truncate %s: %s", path,
				 strerror(errno));
	if (lseek(j->fd, j->end, SEEK_SET) < 0)
		return errprintf(err, "cannot seek %s: %s", path, strerror(errno));
	if (j->end == 0) {
		header(&j->pending);
		return journal_flush(j, true, err);
	}
	if (j->nlost)
		warning_msg("%s: %zu damaged line%s skipped: a task whose record "
			    "is lost runs again; the journal is rewritten "
			    "without %s", path, j->nlost,
			    j->nlost == 1 ? "" : "s",
			    j->nlost == 1 ? "it" : "them");
	if (j->bad_header)
		warning_msg("%s: its header is damaged; it is rewritten", path);
	if (j->nlost || j->bad_header) {
		struct errbuf cerr;
		if (compact(j, path, &cerr) < 0)
			warning_msg("%s; the damaged lines stay, and are "
				    "skipped again", cerr.msg);
		return 0;
	}
	if (j->recs.n > 1000 && j->recs.n > 2 * j->keys.n)
		return compact(j, path, err);
	return 0;
}

int
journal_open(struct journal *j, const char *path, bool append,
	     struct errbuf *err)
{
	memset(j, 0, sizeof(*j));
	j->fd = -1;
	hmap_init(&j->keys);
	hmap_init(&j->lost_keys);
	strbuf_init(&j->pending);
	crc_init();
	int fd = open(path, (append ? O_RDWR | O_CREAT : O_RDONLY) | O_CLOEXEC,
		      0644);
	if (fd < 0) {
		if (errno == ENOENT && !append)
			return 0;
		return errprintf(err, "cannot open %s: %s", path, strerror(errno));
	}
	struct strbuf buf = STRBUF_INIT;
	int rc = slurp(fd, path, &buf, err);
	if (!rc)
		rc = read_records(j, path, buf.buf, buf.len, err);
	off_t total = (off_t)buf.len;
	strbuf_release(&buf);
	if (rc || !append) {
		close(fd);
		return rc;
	}
	j->fd = fd;
	return open_append(j, path, total, err);
}

void
journal_release(struct journal *j)
{
	if (j->fd >= 0)
		close(j->fd);
	for (size_t i = 0; i < j->recs.n; i++)
		jrec_release(&j->recs.v[i]);
	VEC_FREE(j->recs);
	hmap_release(&j->keys);
	hmap_release(&j->lost_keys);
	for (size_t i = 0; i < j->lost_key_v.n; i++)
		free(j->lost_key_v.v[i]);
	VEC_FREE(j->lost_key_v);
	strbuf_release(&j->pending);
}

const struct jrec *
journal_find(const struct journal *j, const char *key)
{
	uint64_t *i = hmap_get(&j->keys, key, strlen(key));
	return i ? &j->recs.v[*i] : NULL;
}

bool
journal_lost(const struct journal *j, const char *key)
{
	return hmap_get(&j->lost_keys, key, strlen(key)) != NULL;
}

void
journal_add(struct journal *j, const char *key, const char *cmd,
	    const struct jfile *f, size_t nf)
{
	serialise(&j->pending, key, cmd, f, nf);
}

void
journal_add_store(struct journal *j, const char *key, const struct jstore *s)
{
	serialise_store(&j->pending, key, s);
}

void
journal_add_temp_gone(struct journal *j, const char *key, const char *path)
{
	struct strbuf p = STRBUF_INIT;
	strbuf_adds(&p, "X\t");
	esc(&p, key);
	strbuf_addch(&p, '\t');
	esc(&p, path);
	add_line(&j->pending, &p);
	strbuf_release(&p);
}

/* Put the file back as it was before a write that failed part way (so
 * that no partial record stays for the next one to be appended to);
 * when that fails too, the next write starts on a new line. */
static void
undo_write(struct journal *j)
{
	int e = errno;
	if (ftruncate(j->fd, j->end) < 0 || lseek(j->fd, j->end, SEEK_SET) < 0)
		j->cut = true;
	errno = e;
}

int
journal_flush(struct journal *j, bool sync, struct errbuf *err)
{
	if (j->fd < 0)
		return 0;
	if (j->pending.len) {
		if (j->cut && write_all(j->fd, "\n", 1) < 0)
			return errprintf(err, "cannot write %s: %s", JOURNAL_PATH,
					 strerror(errno));
		if (j->cut) {
			j->cut = false;
			j->end = lseek(j->fd, 0, SEEK_CUR);
		}
		if (write_all(j->fd, j->pending.buf, j->pending.len) < 0) {
			undo_write(j);
			return errprintf(err, "cannot write %s: %s", JOURNAL_PATH,
					 strerror(errno));
		}
		j->end += (off_t)j->pending.len;
		strbuf_reset(&j->pending);
		j->unsynced = true;
	}
	if (sync && j->unsynced) {
		if (fdatasync(j->fd) < 0)
			return errprintf(err, "cannot write %s: %s", JOURNAL_PATH,
					 strerror(errno));
		j->unsynced = false;
	}
	return 0;
}

static int64_t
mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* The identity of what is neither a regular file nor a directory (a
 * device, a FIFO, a socket): its type and device number, never its
 * content, size or mtime, which reading or writing it changes. */
static void
special_ident(const struct stat *st, struct jident *id)
{
	uint64_t v[2] = { (uint64_t)(st->st_mode & S_IFMT), (uint64_t)st->st_rdev };
	memset(id, 0, sizeof(*id));
	id->kind = 'f';
	id->hash = fnv(fnv(FNV_OFFSET, "special", 7), v, sizeof(v));
	id->hashed = true;
}

/* Hash the regular file at path into id (its size and mtime as fstat
 * gives them, so that they go with the hash).  Never blocks: opened
 * without waiting for a FIFO's writer or taking a terminal, refused
 * unless regular, read no further than its size. */
static void
hash_file(const char *path, struct jident *id)
{
	id->hashed = false;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		special_ident(&st, id);
		return;
	}
	id->size = (uint64_t)st.st_size;
	id->mtime_ns = mtime_ns(&st);
	if (id->size > JOURNAL_HASH_MAX) {
		close(fd);
		return;
	}
	uint64_t h = FNV_OFFSET, left = id->size;
	char buf[65536];
	ssize_t n;
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		/* a file that grew while read is not hashed */
		if (n <= 0 || (uint64_t)n > left)
			break;
		h = fnv(h, buf, (size_t)n);
		left -= (uint64_t)n;
	}
	close(fd);
	if (n == 0 && left == 0) {
		id->hash = h;
		id->hashed = true;
	}
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Fold the names, sizes and mtimes under dir (sorted) into id. */
static void
walk_dir(struct strbuf *path, struct jident *id)
{
	DIR *d = opendir(path->buf);
	if (!d) {
		/* gone meanwhile is absent; unreadable is unknown */
		if (errno != ENOENT && errno != ENOTDIR && !id->unreadable)
			id->unreadable = errno;
		return;
	}
	struct strvec names = { 0 };
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		VEC_PUSH(names, xstrdup(e->d_name));
	}
	closedir(d);
	if (names.n) /* (qsort of NULL: undefined, even for 0) */
		qsort(names.v, names.n, sizeof(char *), cmp_str);
	size_t base = path->len;
	for (size_t i = 0; i < names.n; i++) {
		strbuf_setlen(path, base);
		strbuf_addf(path, "/%s", names.v[i]);
		struct stat st;
		if (lstat(path->buf, &st) == 0) {
			id->hash = fnv(id->hash, names.v[i], strlen(names.v[i]) + 1);
			uint64_t v[2] = { (uint64_t)st.st_size,
					  (uint64_t)mtime_ns(&st) };
			id->hash = fnv(id->hash, v, sizeof(v));
			if (mtime_ns(&st) > id->mtime_ns)
				id->mtime_ns = mtime_ns(&st);
			if (S_ISDIR(st.st_mode)) {
				id->hash = fnv(id->hash, "/", 1);
				walk_dir(path, id);
				id->hash = fnv(id->hash, "..", 2);
			} else {
				id->size += (uint64_t)st.st_size;
			}
		}
		free(names.v[i]);
	}
	strbuf_setlen(path, base);
	free(names.v);
}

void
jident_get(const char *path, bool is_dir, bool want_hash, struct jident *out)
{
	struct stat st;
	memset(out, 0, sizeof(*out));
	if (stat(path, &st) < 0) {
		out->kind = '-';
		return;
	}
	if (is_dir || S_ISDIR(st.st_mode)) {
		out->kind = 'd';
		out->mtime_ns = mtime_ns(&st);
		out->hash = FNV_OFFSET;
		struct strbuf p = STRBUF_INIT;
		strbuf_adds(&p, path);
		walk_dir(&p, out);
		strbuf_release(&p);
		out->hashed = true;
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		special_ident(&st, out);
		return;
	}
	out->kind = 'f';
	out->size = (uint64_t)st.st_size;
	out->mtime_ns = mtime_ns(&st);
	if (want_hash)
		jident_hash(path, out);
}

void
jident_hash(const char *path, struct jident *id)
{
	if (id->kind != 'f' || id->hashed || id->size > JOURNAL_HASH_MAX)
		return;
	if (id->size == 0) {
		/* nothing to read */
		id->hash = FNV_OFFSET;
		id->hashed = true;
		return;
	}
	hash_file(path, id);
}

const struct jfile *
jrec_entry(const struct jrec *r, size_t i, char mode, const char *path)
{
	if (i < r->nf && r->f[i].mode == mode && !strcmp(r->f[i].path, path))
		return &r->f[i];
	for (size_t k = 0; k < r->nf; k++)
		if (r->f[k].mode == mode && !strcmp(r->f[k].path, path))
			return &r->f[k];
	return NULL;
}

bool
jident_same(const struct jident *a, const struct jident *b)
{
	if (a->kind == '-' || b->kind == '-' || a->unreadable || b->unreadable)
		return true;
	/* (a temp file removed since, 't': the file it was) */
	char ka = a->kind == 't' ? 'f' : a->kind, kb = b->kind == 't' ? 'f' : b->kind;
	if (ka != kb || a->size != b->size)
		return false;
	if (ka == 'd')
		return a->hash == b->hash;
	return a->mtime_ns == b->mtime_ns ||
	       (a->hashed && b->hashed && a->hash == b->hash);
}

bool
jident_matches(const char *path, bool is_dir, const struct jident *rec)
{
	struct jident now;
	jident_get(path, is_dir, false, &now);
	if (now.kind != rec->kind)
		return false;
	if (now.kind == '-')
		return true;
	if (now.kind == 'd')
		return now.hash == rec->hash && now.size == rec->size;
	if (now.size != rec->size)
		return false;
	if (now.mtime_ns == rec->mtime_ns)
		return true;
	if (!rec->hashed)
		return false;
	jident_get(path, false, true, &now);
	return now.hashed && now.hash == rec->hash;
}
