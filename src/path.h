/*
 * path: lexical path handling.  Every path that names a datum goes through
 * path_normalize() so "a//b", "./a/b" and "a/c/../b" are one datum.  Nothing
 * here touches the file system except path_absolute() (getcwd) and
 * mkdir_p().
 */
#ifndef WFRUN_PATH_H
#define WFRUN_PATH_H

#include <stddef.h>

/* Lexically normalise: collapse "//" and ".", resolve ".." where it can,
 * drop a trailing "/".  "" and "." become ".".  Returns a new string. */
char *path_normalize(const char *p);
/* Normalise p[0..n) into out (at least n+2 bytes); returns the length. */
size_t path_normalize_buf(const char *p, size_t n, char *out);
char *path_dirname(const char *p);
char *path_join(const char *dir, const char *p);
/* Absolute, normalised form of p against the current directory. */
char *path_absolute(const char *p);
/* mkdir -p; 0 or -1 with errno. */
int mkdir_p(const char *path, unsigned mode);
/* The executable file prog names on $PATH (a relative PATH entry taken
 * from the current directory, made absolute); NULL if none. */
char *path_search(const char *prog);
/* Length of the parent of a normalised path p[0..n), or -1 for none. */
long path_parent_len(const char *p, size_t n);

#endif
