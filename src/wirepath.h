/*
 * wirepath: what the master accepts of the paths a worker's agent names.
 * A worker may be broken or compromised; nothing it says may make the
 * master read or write outside the run's places.  A path an agent reports
 * (a staged task's files, in DONE) must be relative, lexically normal (no
 * "", "." or ".." component, no "//", no trailing "/"), free of NUL and
 * newline, and at or under one of the outputs the master asked the task
 * for.  Pure: it never touches the file system.
 */
#ifndef WFRUN_WIREPATH_H
#define WFRUN_WIREPATH_H

#include <stddef.h>

#include "util.h"

/* 0 if p[0..n) is a normal relative path, or -1 with err saying why. */
int wirepath_check(const char *p, size_t n, struct errbuf *err);
/* True if p is out or under it ("." holds every path). */
int wirepath_under(const char *p, const char *out);
/*
 * The staged part of a DONE (the fields from f[14]: nout KINDs, then nfile
 * PATH SIZE pairs from f[kfile]), against the nouts outputs the SRUN
 * named: as many KINDs, each 'f', 'd' or '-', and every path checked and
 * under an output.  0, or -1 with err naming the first offence.
 */
int wirepath_check_done(char *const *f, size_t nout, size_t kfile,
			size_t nfile, char *const *outs, size_t nouts,
			struct errbuf *err);

#endif
