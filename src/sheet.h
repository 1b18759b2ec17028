/*
 * sheet: a table of text with a header row, as sample sheets are written
 * (TSV, or CSV with RFC 4180 quoting), parsed from a buffer: pure.  It owns
 * nothing: the header, the cells and the line numbers go in the arena the
 * caller gives (one allocation per cell's text, no malloc per field), so a
 * sheet lives as long as that arena.  It never opens a file; expand.c reads
 * the sheet (bounded) and decides what its rows mean.
 *
 * Rules (wfrun-workflow(5), FOREACH): a UTF-8 byte order mark at the start
 * is skipped; a line ending may be CRLF; a line that is empty (or holds
 * only spaces and tabs) or starts with '#' is skipped, before the header
 * too; the first other line is the header, whose cells must be non-empty
 * and distinct; every later line is a row with exactly one field per
 * column.  TSV fields are separated by tabs and taken as they are (no
 * quoting).  A CSV field may be quoted: "a, b" and "say ""hi""" hold a
 * comma, doubled quotes and line breaks; a quote inside an unquoted field
 * is kept as it is.
 */
#ifndef WFRUN_SHEET_H
#define WFRUN_SHEET_H

#include <stddef.h>

#include "util.h"

enum sheet_format { SHEET_TSV, SHEET_CSV };

struct sheet {
	const char **cols;     /* the header's cells: ncols */
	size_t ncols;
	unsigned header_line;  /* 1-based */
	const char **cells;    /* row-major: nrows * ncols */
	unsigned *lines;       /* the line each row starts on */
	size_t nrows;
};

/*
 * Parse buf[0..len) into s, in mem.  Returns 0, or -1 with *line the
 * 1-based line at fault and err what is wrong there and what to do.
 */
int sheet_parse(struct sheet *s, const char *buf, size_t len,
		enum sheet_format fmt, struct arena *mem, unsigned *line,
		struct errbuf *err);
/* The index of column name, or -1. */
long sheet_column(const struct sheet *s, const char *name);
/* Row r's field of column c. */
static inline const char *
sheet_cell(const struct sheet *s, size_t r, size_t c)
{
	return s->cells[r * s->ncols + c];
}

#endif
