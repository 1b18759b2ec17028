/* Unit tests of sheet.c: TSV and CSV with a header row, quoting, a byte
 * order mark, CRLF, blank and comment lines, and each error with its
 * line. */
#include <stdlib.h>
#include <string.h>

#include "sheet.h"
#include "tap.h"

static struct arena mem;
static struct sheet sh;
static unsigned line;
static struct errbuf err;

static int
parse(const char *text, enum sheet_format fmt)
{
	line = 0;
	err.msg[0] = '\0';
	return sheet_parse(&sh, text, strlen(text), fmt, &mem, &line, &err);
}

/* Row r as "a|b|c". */
static const char *
row(size_t r)
{
	static char buf[256];
	buf[0] = '\0';
	for (size_t c = 0; c < sh.ncols; c++) {
		if (c)
			strcat(buf, "|");
		strcat(buf, sheet_cell(&sh, r, c));
	}
	return buf;
}

static void
test_tsv(void)
{
	is_int(parse("# made by hand\n\nsample\tfq\n\nS1\ta.fq\n# S2 left out\n"
		     "S3\t\n", SHEET_TSV), 0, "a TSV with comments, blank lines "
	       "and an empty field");
	is_int(sh.ncols, 2, "two columns");
	is_int(sh.header_line, 3, "the header is the first line of data");
	is_int(sh.nrows, 2, "two rows");
	is_str(row(0), "S1|a.fq", "row 1");
	is_str(row(1), "S3|", "row 2: the empty field");
	is_int(sh.lines[1], 7, "the line of row 2");
	is_int(sheet_column(&sh, "fq"), 1, "a column by name");
	is_int(sheet_column(&sh, "fastq"), -1, "no such column");
	is_int(parse("a\tb\nx \t\"y\"\n", SHEET_TSV), 0, "TSV takes quotes "
	       "and blanks as they are");
	is_str(row(0), "x |\"y\"", "TSV fields verbatim");
	is_int(parse("a\tb", SHEET_TSV), 0, "a header with no line end");
	is_int(sh.nrows, 0, "no rows");
}

static void
test_csv(void)
{
	is_int(parse("\xef\xbb\xbfid,note\r\nA,\"x, y\"\r\nB,\"say \"\"hi\"\"\"\r\n"
		     "C,\"two\nlines\"\r\nD,plain\"quote\r\n", SHEET_CSV), 0,
	       "a CSV with a BOM, CRLF and quoted fields");
	is_str(sh.cols[0], "id", "the BOM is not part of the first column");
	is_int(sh.nrows, 4, "four rows");
	is_str(row(0), "A|x, y", "a comma inside quotes");
	is_str(row(1), "B|say \"hi\"", "doubled quotes");
	is_str(row(2), "C|two\nlines", "a line break inside quotes");
	is_str(row(3), "D|plain\"quote", "a quote inside an unquoted field");
	is_int(sh.lines[3], 6, "a row after a quoted line break: its line");
	is_int(parse("a,b\n\"\",\n", SHEET_CSV), 0, "empty fields, quoted or "
	       "not");
	is_str(row(0), "|", "both empty");
	is_int(parse("a,b\r\n1,2", SHEET_CSV), 0, "no line end at the end");
	is_str(row(0), "1|2", "the last row");
}

static void
test_errors(void)
{
	is_int(parse("a\tb\n1\t2\n1\t2\t3\n", SHEET_TSV), -1, "a ragged row");
	is_int(line, 3, "at its line");
	ok(strstr(err.msg, "this row has 3 fields, the header (line 1) 2"),
	   "says how many fields: %s", err.msg);
	is_int(parse("a,b\r\n\r\n1\r\n", SHEET_CSV), -1, "a short row (CRLF)");
	is_int(line, 3, "at its line");
	is_int(parse("a\t\tc\n", SHEET_TSV), -1, "an empty header cell");
	is_int(line, 1, "at the header's line");
	ok(strstr(err.msg, "column 2 is empty"), "names it: %s", err.msg);
	is_int(parse("#c\na,b,a\n", SHEET_CSV), -1, "a column named twice");
	is_int(line, 2, "at the header's line");
	ok(strstr(err.msg, "column 'a' twice"), "names it: %s", err.msg);
	is_int(parse("a,b\n1,\"open\n2,3\n4,5\n", SHEET_CSV), -1,
	       "an unclosed quote");
	is_int(line, 2, "at the line it opens on");
	ok(strstr(err.msg, "never closes"), "says so: %s", err.msg);
	is_int(parse("a,b\n1,\"x\"y\n", SHEET_CSV), -1, "text after a "
	       "closing quote");
	is_int(line, 2, "at its line");
	is_int(parse("# only\n\n", SHEET_TSV), -1, "no header");
	static const char nul[] = "a\tb\n1\t2\n3\t\0\n";
	line = 0;
	is_int(sheet_parse(&sh, nul, sizeof(nul) - 1, SHEET_TSV, &mem, &line,
			   &err), -1, "a NUL byte");
	is_int(line, 3, "at its line");
}

/* 100,000 rows: linear, and each row where it belongs. */
static void
test_large(void)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_adds(&sb, "s,n\n");
	for (int i = 0; i < 100000; i++)
		strbuf_addf(&sb, "S%d,%d\n", i, i * 2);
	line = 0;
	is_int(sheet_parse(&sh, sb.buf, sb.len, SHEET_CSV, &mem, &line, &err), 0,
	       "100,000 rows");
	is_int(sh.nrows, 100000, "all of them");
	is_str(sheet_cell(&sh, 99999, 1), "199998", "the last row's field");
	is_int(sh.lines[99999], 100001, "the last row's line");
	strbuf_release(&sb);
}

/* Random text of the bytes that matter: parsed or refused, never a
 * crash, and a parsed sheet is whole (every cell there, lines rising). */
static void
test_random(void)
{
	static const char alpha[] = "a,\t\"\n\r# x";
	char buf[64];
	unsigned seed = 17;
	int whole = 1, parsed = 0;
	for (int i = 0; i < 20000; i++) {
		size_t n = (size_t)(rand_r(&seed) % sizeof(buf));
		for (size_t j = 0; j < n; j++)
			buf[j] = alpha[rand_r(&seed) % (sizeof(alpha) - 1)];
		for (int f = 0; f < 2; f++) {
			line = 0;
			if (sheet_parse(&sh, buf, n, f ? SHEET_CSV : SHEET_TSV,
					&mem, &line, &err) < 0) {
				whole &= line >= 1 && err.msg[0];
				continue;
			}
			parsed++;
			for (size_t c = 0; c < sh.nrows * sh.ncols; c++)
				whole &= sh.cells[c] != NULL;
			for (size_t r = 0; r < sh.nrows; r++)
				whole &= sh.lines[r] > (r ? sh.lines[r - 1]
						      : sh.header_line);
		}
	}
	ok(whole, "20,000 random texts: each parsed whole or refused at a "
	   "line (%d parsed)", parsed);
	ok(parsed > 1000, "many of them parse");
}

int
main(void)
{
	arena_init(&mem);
	test_tsv();
	test_csv();
	test_errors();
	test_large();
	test_random();
	arena_release(&mem);
	return done_testing();
}
