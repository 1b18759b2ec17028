#include "proto.h"

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
}

void
proto_decoder_release(struct proto_decoder *d)
{
	strbuf_release(&d->in);
	strbuf_release(&d->cur);
	VEC_FREE(d->fields);
}

void
proto_feed(struct proto_decoder *d, const char *buf, size_t n)
{
	/* Drop what was decoded before growing, so the buffer stays small. */
	if (d->pos && d->pos == d->in.len) {
		strbuf_reset(&d->in);
		d->pos = 0;
	} else if (d->pos > 65536) {
		memmove(d->in.buf, d->in.buf + d->pos, d->in.len - d->pos);
		strbuf_setlen(&d->in, d->in.len - d->pos);
		d->pos = 0;
	}
	strbuf_add(&d->in, buf, n);
}

int
proto_next(struct proto_decoder *d, struct proto_msg *m, struct errbuf *err)
{
	const char *start = d->in.buf + d->pos;
	size_t avail = d->in.len - d->pos;
	const char *nl = memchr(start, '\n', avail);
	if (!nl) {
		if (avail > PROTO_MAX_LINE) {
			d->pos = d->in.len; /* drop it */
			return errprintf(err, "protocol line longer than %d bytes",
					 PROTO_MAX_LINE);
		}
		return 0;
	}
	size_t len = (size_t)(nl - start);
	d->pos += len + 1;
	if (len > PROTO_MAX_LINE)
		return errprintf(err, "protocol line longer than %d bytes",
				 PROTO_MAX_LINE);
	strbuf_reset(&d->cur);
	strbuf_grow(&d->cur, len + 1);
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
