/* Unit tests of util.c's string buffer: formatted appends across the
 * room a buffer has left (one pass when the text fits, two when not);
 * text for a terminal; bounded reads. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "util.h"

/* Append len 'x's with "%s" to a buffer holding prefix, check it. */
static bool
append_ok(size_t prefix, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	char *p = xmalloc(prefix + 1), *x = xmalloc(len + 1);
	memset(p, 'p', prefix);
	p[prefix] = '\0';
	memset(x, 'x', len);
	x[len] = '\0';
	strbuf_adds(&sb, p);
	strbuf_addf(&sb, "%s", x);
	bool good = sb.len == prefix + len && strlen(sb.buf) == sb.len &&
		    strncmp(sb.buf, p, prefix) == 0 &&
		    strcmp(sb.buf + prefix, x) == 0;
	strbuf_release(&sb);
	free(p);
	free(x);
	return good;
}

int
main(void)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%d-%s", 42, "abc");
	is_str(sb.buf, "42-abc", "a short append to an empty buffer");
	strbuf_addf(&sb, "%s", "");
	is_str(sb.buf, "42-abc", "an empty append leaves the text");
	ok(sb.len == 6, "and its length (%zu)", sb.len);
	strbuf_release(&sb);

	/* every length up to past twice the first allocation, after
	 * prefixes that leave every room from none to a whole block */
	size_t bad = 0, tried = 0;
	for (size_t prefix = 0; prefix <= 130; prefix++)
		for (size_t len = 0; len <= 300; len++, tried++)
			if (!append_ok(prefix, len))
				bad++;
	ok(bad == 0, "%zu of %zu appends across the room left went wrong",
	   bad, tried);

	/* many appends in a row match one text built at once */
	char want[20000];
	size_t w = 0;
	for (int i = 0; i < 2000 && w < sizeof(want) - 16; i++) {
		strbuf_addf(&sb, "%d,", i * 7);
		w += (size_t)snprintf(want + w, sizeof(want) - w, "%d,", i * 7);
	}
	ok(sb.len == w && strcmp(sb.buf, want) == 0,
	   "2000 appends in a row (%zu bytes) match the text built at once",
	   w);
	strbuf_release(&sb);

	char *big = xmalloc(100001);
	memset(big, 'b', 100000);
	big[100000] = '\0';
	char *s = xasprintf("<%s>", big);
	ok(strlen(s) == 100002 && s[0] == '<' && s[100001] == '>' &&
	   strspn(s + 1, "b") == 100000, "xasprintf of 100002 bytes");
	free(s);
	free(big);

	/* text for a terminal: controls shown, UTF-8 and tab/newline kept */
	const char raw[] = "\033]0;t\007\033[2J\r\tok\n\x7f\xc2\x9b\xc3\xa9";
	strbuf_add_visible(&sb, raw, sizeof(raw) - 1);
	is_str(sb.buf, "\\e]0;t\\x07\\e[2J\\r\tok\n\\x7f\\xc2\\x9b\xc3\xa9",
	       "strbuf_add_visible shows ESC, BEL, CR, DEL and C1 CSI");
	strbuf_release(&sb);

	/* bounded reads from a pipe: within the bound, and past it */
	int pfd[2];
	char big_in[100];
	memset(big_in, 'p', sizeof(big_in));
	if (pipe(pfd) == 0 && write(pfd[1], big_in, sizeof(big_in)) == 100) {
		close(pfd[1]);
		char dev[64];
		snprintf(dev, sizeof(dev), "/dev/fd/%d", pfd[0]);
		struct errbuf err;
		is_int(read_bounded(dev, 10, &sb, &err), -1,
		       "a pipe past the bound is refused");
		is_str(err.msg, "larger than the limit of 10 bytes",
		       "... saying the limit");
		strbuf_release(&sb);
		close(pfd[0]);
	}
	if (pipe(pfd) == 0 && write(pfd[1], big_in, sizeof(big_in)) == 100) {
		close(pfd[1]);
		char dev[64];
		snprintf(dev, sizeof(dev), "/dev/fd/%d", pfd[0]);
		struct errbuf err;
		FILE *fp = fopen_bounded(dev, 60, &err);
		char line[200];
		size_t n = fp ? fread(line, 1, sizeof(line), fp) : 0;
		ok(fp && n == 60 && ferror(fp) && errno == EFBIG,
		   "a stream gives the bound's bytes (%zu), then fails EFBIG", n);
		if (fp)
			fclose(fp);
		close(pfd[0]);
	}
	struct errbuf err;
	is_int(read_bounded("/dev/zero", 1 << 20, &sb, &err), -1,
	       "a device is refused");
	is_str(err.msg, "a character device, not a regular file or a pipe",
	       "... saying what it is");
	return done_testing();
}
