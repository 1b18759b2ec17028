/*
 * wirepath: the master's checks of the paths an agent names (see
 * wirepath.h).
 */
#include <string.h>

#include "wirepath.h"

int
wirepath_check(const char *p, size_t n, struct errbuf *err)
{
	if (!n)
		return errprintf(err, "an empty path");
	if (memchr(p, '\0', n) || memchr(p, '\n', n))
		return errprintf(err, "a path holding a NUL or a newline");
	if (p[0] == '/')
		return errprintf(err, "an absolute path '%.200s'", p);
	for (size_t i = 0; i <= n;) {
		const char *s = p + i;
		const char *e = memchr(s, '/', n - i);
		size_t len = e ? (size_t)(e - s) : n - i;
		if (!len)
			return errprintf(err, "a path with an empty component "
					 "'%.200s'", p);
		if ((len == 1 && s[0] == '.') ||
		    (len == 2 && s[0] == '.' && s[1] == '.'))
			return errprintf(err, "a path with a '%.*s' component "
					 "'%.200s'", (int)len, s, p);
		i += len + 1;
	}
	return 0;
}

int
wirepath_under(const char *p, const char *out)
{
	if (!strcmp(out, "."))
		return 1;
	size_t n = strlen(out);
	return !strncmp(p, out, n) && (p[n] == '\0' || p[n] == '/');
}

int
wirepath_check_done(char *const *f, size_t nout, size_t kfile,
		    size_t nfile, char *const *outs, size_t nouts,
		    struct errbuf *err)
{
	if (nout != nouts)
		return errprintf(err, "a DONE naming %zu outputs of a task "
				 "that has %zu", nout, nouts);
	for (size_t i = 0; i < nout; i++) {
		const char *k = f[14 + i];
		if (strcmp(k, "f") && strcmp(k, "d") && strcmp(k, "-"))
			return errprintf(err, "a DONE with output kind '%.20s'",
					 k);
	}
	for (size_t i = 0; i < nfile; i++) {
		const char *p = f[kfile + 2 * i];
		struct errbuf why;
		if (wirepath_check(p, strlen(p), &why) < 0)
			return errprintf(err, "a DONE naming %s", why.msg);
		size_t o = 0;
		while (o < nouts && !wirepath_under(p, outs[o]))
			o++;
		if (o == nouts)
			return errprintf(err, "a DONE naming '%.200s', under "
					 "none of the task's outputs", p);
	}
	return 0;
}
