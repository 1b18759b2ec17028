#include "path.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

size_t
path_normalize_buf(const char *p, size_t n, char *out)
{
	size_t o = 0;
	int absolute = n > 0 && p[0] == '/';
	size_t floor = 0; /* out[0..floor) cannot be removed by ".." */
	size_t i = 0;
	if (absolute) {
		out[o++] = '/';
		floor = 1;
	}
	while (i < n) {
		while (i < n && p[i] == '/')
			i++;
		size_t s = i;
		while (i < n && p[i] != '/')
			i++;
		size_t len = i - s;
		if (len == 0 || (len == 1 && p[s] == '.'))
			continue;
		if (len == 2 && p[s] == '.' && p[s + 1] == '.') {
			if (o > floor) {
				/* drop the last component */
				while (o > floor && out[o - 1] != '/')
					o--;
				if (o > floor)
					o--; /* the separator */
				continue;
			}
			if (absolute)
				continue; /* "/.." is "/" */
			/* a leading ".." of a relative path stays */
			if (o > 0)
				out[o++] = '/';
			out[o++] = '.';
			out[o++] = '.';
			floor = o;
			continue;
		}
		if (o > 0 && out[o - 1] != '/')
			out[o++] = '/';
		memcpy(out + o, p + s, len);
		o += len;
	}
	if (o == 0)
		out[o++] = '.';
	out[o] = '\0';
	return o;
}

char *
path_normalize(const char *p)
{
	size_t n = strlen(p);
	char *out = xmalloc(n + 2);
	path_normalize_buf(p, n, out);
	return out;
}

char *
path_dirname(const char *p)
{
	const char *s = strrchr(p, '/');
	if (!s)
		return xstrdup(".");
	if (s == p)
		return xstrdup("/");
	return xstrndup(p, (size_t)(s - p));
}

char *
path_join(const char *dir, const char *p)
{
	if (p[0] == '/' || !*dir)
		return xstrdup(p);
	return xasprintf("%s/%s", dir, p);
}

char *
path_absolute(const char *p)
{
	if (p[0] == '/')
		return path_normalize(p);
	char *cwd = getcwd(NULL, 0);
	if (!cwd)
		die("cannot read the current directory: %s", strerror(errno));
	char *j = path_join(cwd, p);
	char *r = path_normalize(j);
	free(cwd);
	free(j);
	return r;
}

int
mkdir_p(const char *path, unsigned mode)
{
	struct stat st;
	if (!stat(path, &st))
		return S_ISDIR(st.st_mode) ? 0 : (errno = ENOTDIR, -1);
	char *tmp = xstrdup(path);
	for (char *s = tmp + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(tmp, mode) < 0 && errno != EEXIST) {
			int e = errno;
			free(tmp);
			errno = e;
			return -1;
		}
		*s = '/';
	}
	int r = mkdir(tmp, mode);
	int e = errno;
	free(tmp);
	if (r < 0 && e != EEXIST) {
		errno = e;
		return -1;
	}
	return 0;
}

long
path_parent_len(const char *p, size_t n)
{
	if (n == 1 && (p[0] == '/' || p[0] == '.'))
		return -1;
	size_t i = n;
	while (i > 0 && p[i - 1] != '/')
		i--;
	if (i == 0)
		return -1; /* "a": the parent is the workdir itself */
	if (i == 1)
		return 1; /* "/a": parent "/" */
	/* ".." components are not data parents */
	if (n - i == 2 && p[i] == '.' && p[i + 1] == '.')
		return -1;
	return (long)(i - 1);
}

char *
path_search(const char *prog)
{
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *e = strchr(path, ':');
		size_t n = e ? (size_t)(e - path) : strlen(path);
		if (n) {
			char *cand = xasprintf("%.*s/%s", (int)n, path, prog);
			struct stat st;
			if (!access(cand, X_OK) && !stat(cand, &st) &&
			    S_ISREG(st.st_mode)) {
				if (cand[0] != '/') {
					char *abs = path_absolute(cand);
					free(cand);
					cand = abs;
				}
				return cand;
			}
			free(cand);
		}
		path += n;
		if (*path == ':')
			path++;
	}
	return NULL;
}
