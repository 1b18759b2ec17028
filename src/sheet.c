#include "sheet.h"

#include <stdlib.h>
#include <string.h>

/* A sheet being parsed: a cursor over the buffer and the records so far. */
struct parse {
	const char *p, *end;
	enum sheet_format fmt;
	unsigned line;        /* of p */
	struct arena *mem;
	struct strbuf field;  /* a quoted field, unescaped */
	VEC(const char *) cells;
	VEC(unsigned) lines;
	unsigned *bad_line;
	struct errbuf *err;
};

static char
sep_of(enum sheet_format fmt)
{
	return fmt == SHEET_CSV ? ',' : '\t';
}

/* At the end of a line: "\n", "\r\n" or the end of the buffer. */
static bool
at_eol(const struct parse *ps, const char *q)
{
	return q == ps->end || *q == '\n' ||
	       (*q == '\r' && (q + 1 == ps->end || q[1] == '\n'));
}

/* Past the end of the line at q (which at_eol). */
static const char *
skip_eol(struct parse *ps, const char *q)
{
	if (q < ps->end && *q == '\r')
		q++;
	if (q < ps->end && *q == '\n') {
		q++;
		ps->line++;
	}
	return q;
}

/* Skip the line at p if it is blank or a comment; true if skipped. */
static bool
skip_line(struct parse *ps)
{
	const char *q = ps->p;
	if (q < ps->end && *q == '#') {
		while (q < ps->end && *q != '\n')
			q++;
		ps->p = skip_eol(ps, q);
		return true;
	}
	while (q < ps->end && (*q == ' ' || *q == '\t'))
		q++;
	if (!at_eol(ps, q))
		return false;
	ps->p = skip_eol(ps, q);
	return true;
}

static int
fail(struct parse *ps, unsigned line, const char *fmt, const char *a)
{
	*ps->bad_line = line;
	return errprintf(ps->err, fmt, a);
}

/* A quoted CSV field at p (on its opening quote) into *out. */
static int
quoted_field(struct parse *ps, const char **out)
{
	unsigned open = ps->line;
	const char *q = ps->p + 1;
	strbuf_reset(&ps->field);
	for (;;) {
		const char *e = memchr(q, '"', (size_t)(ps->end - q));
		const char *stop = e ? e : ps->end;
		for (const char *r = q; r < stop; r++)
			ps->line += *r == '\n';
		strbuf_add(&ps->field, q, (size_t)(stop - q));
		if (!e)
			return fail(ps, open, "a quoted field opens here and never "
				    "closes%s; end it with \", and write \"\" for a "
				    "quote inside it", "");
		if (e + 1 < ps->end && e[1] == '"') {
			strbuf_addch(&ps->field, '"');
			q = e + 2;
			continue;
		}
		q = e + 1;
		break;
	}
	if (q < ps->end && *q != ',' && !at_eol(ps, q))
		return fail(ps, ps->line, "text after a quoted field's closing "
			    "quote%s; quote the whole field, and write \"\" for a "
			    "quote inside it", "");
	ps->p = q;
	*out = arena_strndup(ps->mem, ps->field.buf, ps->field.len);
	return 0;
}

/* One field at p into *out; p is left on its separator or line end. */
static int
one_field(struct parse *ps, const char **out)
{
	if (ps->fmt == SHEET_CSV && ps->p < ps->end && *ps->p == '"')
		return quoted_field(ps, out);
	char sep = sep_of(ps->fmt);
	const char *q = ps->p;
	while (q < ps->end && *q != sep && !at_eol(ps, q))
		q++;
	*out = arena_strndup(ps->mem, ps->p, (size_t)(q - ps->p));
	ps->p = q;
	return 0;
}

/* The record at p (not blank): its fields pushed on cells; *n of them. */
static int
record(struct parse *ps, size_t *n)
{
	*n = 0;
	for (;;) {
		const char *f = NULL;
		if (one_field(ps, &f) < 0)
			return -1;
		VEC_PUSH(ps->cells, f);
		++*n;
		if (ps->p < ps->end && *ps->p == sep_of(ps->fmt)) {
			ps->p++;
			continue;
		}
		ps->p = skip_eol(ps, ps->p);
		return 0;
	}
}

/* The header's cells (the first record, cells[0..n)) into s. */
static int
header(struct parse *ps, struct sheet *s, size_t n, unsigned line)
{
	struct hmap seen;
	int r = 0;
	hmap_init(&seen);
	for (size_t i = 0; i < n && !r; i++) {
		const char *c = ps->cells.v[i];
		int dup = 0;
		if (!*c) {
			*ps->bad_line = line;
			r = errprintf(ps->err, "the header's column %zu is empty; "
				      "name every column (the first line that is "
				      "not blank or a # comment is the header)",
				      i + 1);
			break;
		}
		hmap_put(&seen, c, strlen(c), 0, &dup);
		if (dup)
			r = fail(ps, line, "the header names column '%s' twice; "
				 "give the columns distinct names", c);
	}
	hmap_release(&seen);
	if (r)
		return -1;
	s->cols = arena_alloc(ps->mem, n * sizeof(*s->cols));
	memcpy(s->cols, ps->cells.v, n * sizeof(*s->cols));
	s->ncols = n;
	s->header_line = line;
	ps->cells.n = 0;
	return 0;
}

static int
parse_all(struct parse *ps, struct sheet *s)
{
	const char *nul = memchr(ps->p, '\0', (size_t)(ps->end - ps->p));
	if (nul) {
		unsigned line = 1;
		for (const char *q = ps->p; q < nul; q++)
			line += *q == '\n';
		return fail(ps, line, "this line holds a NUL byte%s; a sheet is "
			    "text", "");
	}
	while (ps->p < ps->end) {
		if (skip_line(ps))
			continue;
		unsigned line = ps->line;
		size_t n;
		if (record(ps, &n) < 0)
			return -1;
		if (!s->cols) {
			if (header(ps, s, n, line) < 0)
				return -1;
			continue;
		}
		if (n != s->ncols) {
			*ps->bad_line = line;
			return errprintf(ps->err, "this row has %zu field%s, the "
					 "header (line %u) %zu; give every row one "
					 "field per column (an empty field is two "
					 "separators side by side)", n,
					 n == 1 ? "" : "s", s->header_line,
					 s->ncols);
		}
		VEC_PUSH(ps->lines, line);
	}
	if (!s->cols)
		return fail(ps, ps->line, "no header%s: the sheet holds only "
			    "blank and # comment lines", "");
	return 0;
}

int
sheet_parse(struct sheet *s, const char *buf, size_t len,
	    enum sheet_format fmt, struct arena *mem, unsigned *line,
	    struct errbuf *err)
{
	struct parse ps = { buf, buf + len, fmt, 1, mem, STRBUF_INIT,
			    { 0 }, { 0 }, line, err };
	memset(s, 0, sizeof(*s));
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		ps.p += 3;
	int r = parse_all(&ps, s);
	if (!r) {
		s->nrows = ps.lines.n;
		size_t nc = ps.cells.n * sizeof(*s->cells);
		s->cells = arena_alloc(mem, nc ? nc : 1);
		if (nc)
			memcpy(s->cells, ps.cells.v, nc);
		size_t nl = ps.lines.n * sizeof(*s->lines);
		s->lines = arena_alloc(mem, nl ? nl : 1);
		if (nl)
			memcpy(s->lines, ps.lines.v, nl);
	}
	strbuf_release(&ps.field);
	VEC_FREE(ps.cells);
	VEC_FREE(ps.lines);
	return r;
}

long
sheet_column(const struct sheet *s, const char *name)
{
	for (size_t i = 0; i < s->ncols; i++)
		if (!strcmp(s->cols[i], name))
			return (long)i;
	return -1;
}
