#include "proto.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void
proto_field(struct strbuf *line, const char *s, int first)
{
	if (!first)
		strbuf_addch(line, '\t');
	for (; *s; s++) {
		switch (*s) {
		case '\\':
			strbuf_adds(line, "\\\\");
			break;
		case '\t':
			strbuf_adds(line, "\\t");
			break;
		case '\n':
			strbuf_adds(line, "\\n");
			break;
		case '\r':
			strbuf_adds(line, "\\r");
			break;
		default:
			strbuf_addch(line, *s);
		}
	}
}

void
proto_fieldf(struct strbuf *line, const char *fmt, ...)
{
	struct strbuf tmp = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&tmp, fmt, ap);
	va_end(ap);
	proto_field(line, tmp.buf, line->len == 0);
	strbuf_release(&tmp);
}

void
proto_end(struct strbuf *line)
{
	strbuf_addch(line, '\n');
}

void
proto_decoder_init(struct proto_decoder *d)
{
	memset(d, 0, sizeof(*d));
	strbuf_init(&d->in);
	strbuf_init(&d->cur);
	d->max = PROTO_MAX_LINE;
}

void
proto_decoder_release(struct proto_decoder *d)
{
	strbuf_release(&d->in);
	strbuf_release(&d->cur);
	VEC_FREE(d->fields);
}

/* A buffer that once held a line larger than this is freed when done
 * with, so that a worker which sent one DONE of 100,000 files does not
 * keep its tens of MB (three times over) for the rest of the run. */
#define PROTO_KEEP ((size_t)1 << 20)

static void
shrink(struct strbuf *sb)
{
	if (sb->alloc > PROTO_KEEP)
		strbuf_release(sb);
	else
		strbuf_reset(sb);
}

void
proto_feed(struct proto_decoder *d, const char *buf, size_t n)
{
	/* Drop what was decoded before growing, so the buffer stays small. */
	if (d->pos && d->pos == d->in.len) {
		shrink(&d->in);
		d->pos = 0;
	} else if (d->pos > 65536) {
		memmove(d->in.buf, d->in.buf + d->pos, d->in.len - d->pos);
		strbuf_setlen(&d->in, d->in.len - d->pos);
		d->pos = 0;
	}
	strbuf_add(&d->in, buf, n);
}

/* Find the next LF from pos, scanning each byte once however the line
 * arrives (a long line comes in many pieces).  NULL when there is none
 * yet. */
static const char *
find_lf(struct proto_decoder *d)
{
	const char *start = d->in.buf + d->pos;
	size_t avail = d->in.len - d->pos;
	const char *nl = memchr(start + d->scanned, '\n', avail - d->scanned);
	d->scanned = nl ? 0 : avail;
	return nl;
}

int
proto_next(struct proto_decoder *d, struct proto_msg *m, struct errbuf *err)
{
	const char *start = d->in.buf + d->pos;
	size_t avail = d->in.len - d->pos;
	const char *nl = find_lf(d);
	if (!nl) {
		if (avail <= d->max)
			return 0;
		/* drop what is buffered, and the rest of it when it comes */
		d->pos = d->in.len;
		d->scanned = 0;
		if (d->skip)
			return 0;
		d->skip = true;
		return errprintf(err, "protocol line longer than %zu bytes",
				 d->max);
	}
	size_t len = (size_t)(nl - start);
	d->pos += len + 1;
	if (d->skip) {
		d->skip = false; /* the end of the line dropped */
		return proto_next(d, m, err);
	}
	if (len > d->max)
		return errprintf(err, "protocol line longer than %zu bytes",
				 d->max);
	shrink(&d->cur);
	strbuf_grow(&d->cur, len + 1);
	if (d->fields.alloc * sizeof(char *) > PROTO_KEEP / 2)
		VEC_FREE(d->fields);
	d->fields.n = 0;
	char *o = d->cur.buf;
	VEC_PUSH(d->fields, o);
	for (size_t i = 0; i < len; i++) {
		char c = start[i];
		if (c == '\t') {
			*o++ = '\0';
			VEC_PUSH(d->fields, o);
			continue;
		}
		if (c == '\\') {
			if (++i == len)
				return errprintf(err, "protocol line ends in '\\'");
			switch (start[i]) {
			case '\\':
				c = '\\';
				break;
			case 't':
				c = '\t';
				break;
			case 'n':
				c = '\n';
				break;
			case 'r':
				c = '\r';
				break;
			default:
				return errprintf(err, "unknown escape '\\%c' in a "
						 "protocol line", start[i]);
			}
		} else if (c == '\0') {
			return errprintf(err, "NUL byte in a protocol line");
		}
		*o++ = c;
	}
	*o = '\0';
	d->cur.len = (size_t)(o - d->cur.buf);
	m->f = d->fields.v;
	m->n = d->fields.n;
	return 1;
}

/* The DONE fields after the type, for messages. */
static const char *const done_field[] = {
	"id", "wstatus", "start", "end", "utime", "stime", "maxrss_kb",
	"read_bytes", "write_bytes", "out_empty", "err_empty", "stage_out_s",
	"nout",
};

static int
done_ll(const struct proto_msg *m, size_t i, long long lo, long long hi,
	long long *v, const char *what, struct errbuf *err)
{
	char *end;
	if (i >= m->n) {
		errprintf(err, "DONE has no %s (field %zu)", what, i);
		return -1;
	}
	errno = 0;
	*v = strtoll(m->f[i], &end, 10);
	if (!*m->f[i] || *end || errno || *v < lo || *v > hi) {
		errprintf(err, "DONE's %s (field %zu) is '%.40s', not an "
			  "integer from %lld to %lld", what, i, m->f[i], lo, hi);
		return -1;
	}
	return 0;
}

static int
done_double(const struct proto_msg *m, size_t i, double *v,
	    struct errbuf *err)
{
	char *end;
	const char *what = done_field[i - 1];
	if (i >= m->n) {
		errprintf(err, "DONE has no %s (field %zu)", what, i);
		return -1;
	}
	*v = strtod(m->f[i], &end);
	if (!*m->f[i] || *end || !isfinite(*v) || *v < 0) {
		errprintf(err, "DONE's %s (field %zu) is '%.40s', not a "
			  "number of seconds", what, i, m->f[i]);
		return -1;
	}
	return 0;
}

int
proto_parse_done(const struct proto_msg *m, struct proto_done *d,
		 struct errbuf *err)
{
	long long v[7];
	static const size_t ints[] = { 1, 2, 7, 8, 9, 10, 11 };
	static const long long lo[] = { 0, 0, 0, -1, -1, 0, 0 };
	static const long long hi[] = { 0xffffffffLL, 0xffff, 0x7fffffffffffLL,
					LLONG_MAX, LLONG_MAX, 1, 1 };
	static const size_t secs[] = { 3, 4, 5, 6 };
	double t[4];
	memset(d, 0, sizeof(*d));
	for (size_t i = 0; i < sizeof(ints) / sizeof(*ints); i++)
		if (done_ll(m, ints[i], lo[i], hi[i], &v[i],
			    done_field[ints[i] - 1], err) < 0)
			return -1;
	for (size_t i = 0; i < 4; i++)
		if (done_double(m, secs[i], &t[i], err) < 0)
			return -1;
	d->id = (long)v[0];
	d->wstatus = (int)v[1];
	d->start = t[0];
	d->end = t[1];
	d->utime = t[2];
	d->stime = t[3];
	d->maxrss_kb = (long)v[2];
	d->read_bytes = v[3];
	d->write_bytes = v[4];
	d->out_empty = (int)v[5];
	d->err_empty = (int)v[6];
	if (m->n <= 12)
		return 0;
	/* the staged part: stage_out_s nout KIND... nfile (PATH SIZE)... */
	long long nout, nfile, size;
	if (done_double(m, 12, &d->stage_out_s, err) < 0 ||
	    done_ll(m, 13, 0, LLONG_MAX, &nout, "nout", err) < 0)
		return -1;
	if (nout > (long long)m->n) {
		errprintf(err, "DONE names %lld outputs in %zu fields", nout,
			  m->n);
		return -1;
	}
	size_t k = 14 + (size_t)nout;
	if (done_ll(m, k, 0, LLONG_MAX, &nfile, "nfile", err) < 0)
		return -1;
	if (nfile > (long long)(m->n - k - 1) / 2) {
		errprintf(err, "DONE names %lld files in %zu fields", nfile,
			  m->n - k - 1);
		return -1;
	}
	for (size_t i = 0; i < (size_t)nfile; i++)
		if (done_ll(m, k + 2 + 2 * i, -1, LLONG_MAX, &size,
			    "file size", err) < 0)
			return -1;
	d->staged = 1;
	d->nout = (size_t)nout;
	d->nfile = (size_t)nfile;
	d->kfile = k + 1;
	/* version 7: each file's mtime after the pairs (an older agent's
	 * DONE has none: no store record is made of it) */
	size_t km = d->kfile + 2 * d->nfile;
	if (m->n < km + d->nfile || !d->nfile)
		return 0;
	for (size_t i = 0; i < d->nfile; i++)
		if (done_ll(m, km + i, LLONG_MIN, LLONG_MAX, &size,
			    "file mtime", err) < 0)
			return -1;
	d->kmtime = km;
	return 0;
}
