/*
 * probe: measure the write bandwidth of the storage under a directory, the
 * B of a worker's <disk bandwidth="B"/> (wfrun-resources(5)).  It writes fresh
 * data sequentially, in 1 MiB blocks, with O_DIRECT where the filesystem
 * takes it, and the clock stops only after fsync() has returned, so the
 * page cache cannot make a slow device look fast.
 *
 * It never leaves its file behind: the file is created unnamed
 * (O_TMPFILE), or, where the filesystem cannot do that, unlinked the
 * moment it is created with the terminating signals blocked in between.
 * So neither an error, nor Ctrl-C, nor SIGKILL leaves anything in the
 * directory.  It writes nothing else, and reads nothing.
 *
 * MB means 2^20 bytes here, as in congestdev and the resources file.
 */
#ifndef WFRUN_PROBE_H
#define WFRUN_PROBE_H

#include <signal.h>
#include <stdbool.h>

#include "util.h"

#define PROBE_DEFAULT_MB 256
#define PROBE_MAX_WRITERS 256

struct probe_opts {
	const char *dir;
	long size_mb;     /* total written, split evenly among the writers */
	int writers;      /* concurrent sequential writers, each its own file */
	/* Set (from a signal handler) to stop early; may be NULL. */
	volatile sig_atomic_t *stop;
};

struct probe_result {
	long written_mb;  /* what was really written: writers * per-writer MB */
	double secs;      /* from the first write to the last fsync's return */
	double mbps;      /* written_mb / secs */
	bool direct;      /* every writer used O_DIRECT */
	bool stopped;     /* *stop was seen: the figures are not valid */
};

/*
 * Check that o->dir is a writable directory with room for the probe.
 * Returns 0, or -1 with a message in err that names the directory and
 * what to do.
 */
int probe_check_dir(const struct probe_opts *o, struct errbuf *err);

/*
 * Run the probe (it calls probe_check_dir() first).  Returns 0 with r
 * filled (r->stopped when *o->stop was set), or -1 with err filled.
 */
int probe_run(const struct probe_opts *o, struct probe_result *r,
	      struct errbuf *err);

#endif
