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
jrec_release(struct jrec *r)
{
	free(r->key);
	free(r->cmd);
	for (size_t i = 0; i < r->nf; i++)
		free(r->f[i].path);
	free(r->f);
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
		    !strchr("fd-", g[0][1]) || !g[0][1])
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

/* Read the whole file; returns the offset just past the last good line. */
static off_t
read_records(struct journal *j, const char *buf, size_t n)
{
	size_t off = 0;
	bool header = false;
	while (off < n) {
		const char *nl = memchr(buf + off, '\n', n - off);
		if (!nl)
			break;
		size_t len = (size_t)(nl - (buf + off));
		const char *line = buf + off;
		uint64_t crc;
		if (len < 9 || line[8] != ' ' ||
		    parse_u64(line, 8, 16, &crc) < 0 ||
		    crc32_of(line + 9, len - 9) != (uint32_t)crc)
			break;
		if (!header) {
			if (len - 9 != strlen("H\twfrun-journal\t1") ||
			    memcmp(line + 9, "H\twfrun-journal\t1", len - 9))
				break;
			header = true;
		} else {
			struct jrec r;
			if (parse_record(line + 9, len - 9, &r) < 0)
				break;
			VEC_PUSH(j->recs, r);
			index_last(j);
		}
		off += len + 1;
	}
	j->torn = off < n;
	j->nread = j->recs.n;
	return (off_t)off;
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
	strbuf_adds(&p, "H\twfrun-journal\t1");
	add_line(sb, &p);
	strbuf_release(&p);
}

/* Rewrite the journal with only the latest record of each key. */
static int
compact(struct journal *j, const char *path, struct errbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	char *tmp = xasprintf("%s.new", path);
	header(&sb);
	for (size_t i = 0; i < j->recs.n; i++) {
		const struct jrec *r = &j->recs.v[i];
		uint64_t *last = hmap_get(&j->keys, r->key, strlen(r->key));
		if (last && *last == i)
			serialise(&sb, r->key, r->cmd, r->f, r->nf);
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
	strbuf_release(&sb);
	return rc;
}

int
journal_open(struct journal *j, const char *path, bool append,
	     struct errbuf *err)
{
	memset(j, 0, sizeof(*j));
	j->fd = -1;
	hmap_init(&j->keys);
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
	char chunk[65536];
	ssize_t n;
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			strbuf_release(&buf);
			return errprintf(err, "cannot read %s: %s", path,
					 strerror(errno));
		}
		strbuf_add(&buf, chunk, (size_t)n);
	}
	off_t good = read_records(j, buf.buf, buf.len);
	size_t total = buf.len;
	strbuf_release(&buf);
	if (!append) {
		close(fd);
		return 0;
	}
	if (j->torn)
		warning_msg("%s ends in a partial record (a crash while it was "
			    "written); it is read up to its last whole record",
			    path);
	if (good == 0 || (size_t)good != total) {
		if (ftruncate(fd, good) < 0) {
			close(fd);
			return errprintf(err, "cannot truncate %s: %s", path,
					 strerror(errno));
		}
	}
	if (lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		return errprintf(err, "cannot seek %s: %s", path, strerror(errno));
	}
	j->fd = fd;
	if (good == 0) {
		header(&j->pending);
		if (journal_flush(j, true, err) < 0)
			return -1;
	} else if (j->recs.n > 1000 && j->recs.n > 2 * j->keys.n) {
		if (compact(j, path, err) < 0)
			return -1;
		close(j->fd);
		j->fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (j->fd < 0)
			return errprintf(err, "cannot open %s: %s", path,
					 strerror(errno));
	}
	return 0;
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
	strbuf_release(&j->pending);
}

const struct jrec *
journal_find(const struct journal *j, const char *key)
{
	uint64_t *i = hmap_get(&j->keys, key, strlen(key));
	return i ? &j->recs.v[*i] : NULL;
}

void
journal_add(struct journal *j, const char *key, const char *cmd,
	    const struct jfile *f, size_t nf)
{
	serialise(&j->pending, key, cmd, f, nf);
}

int
journal_flush(struct journal *j, bool sync, struct errbuf *err)
{
	if (j->fd < 0)
		return 0;
	if (j->pending.len) {
		if (write_all(j->fd, j->pending.buf, j->pending.len) < 0)
			return errprintf(err, "cannot write %s: %s", JOURNAL_PATH,
					 strerror(errno));
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

static uint64_t
hash_file(const char *path, bool *ok)
{
	uint64_t h = FNV_OFFSET;
	*ok = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	char buf[65536];
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		h = fnv(h, buf, (size_t)n);
	close(fd);
	*ok = n == 0;
	return h;
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
	if (!d)
		return;
	struct strvec names = { 0 };
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		VEC_PUSH(names, xstrdup(e->d_name));
	}
	closedir(d);
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
	out->kind = 'f';
	out->size = (uint64_t)st.st_size;
	out->mtime_ns = mtime_ns(&st);
	if (want_hash)
		jident_hash(path, out);
}

void
jident_hash(const char *path, struct jident *id)
{
	if (id->kind != 'f' || id->size > JOURNAL_HASH_MAX)
		return;
	if (id->size == 0) {
		/* nothing to read */
		id->hash = FNV_OFFSET;
		id->hashed = true;
		return;
	}
	id->hash = hash_file(path, &id->hashed);
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
