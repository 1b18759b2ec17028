/*
 * spawn: start one task process.  It uses posix_spawn (vfork semantics in
 * glibc), so the cost does not grow with the master's memory, and does in
 * the child only what posix_spawn's attributes and file actions do: a new
 * process group, default signal dispositions, an empty signal mask, stdin
 * from /dev/null, stdout and stderr onto the given fds, and a chdir.  An
 * exec failure is reported by posix_spawn itself (glibc's CLONE_VFORK
 * path), not by a child that exits 127.
 */
#ifndef WFRUN_SPAWN_H
#define WFRUN_SPAWN_H

#include <sys/types.h>

#include "util.h"

struct spawn_req {
	const char *exe;      /* path of the program (no PATH search) */
	char *const *argv;    /* argv[0] is passed as is */
	char *const *envp;    /* NULL: the master's environment */
	const char *cwd;      /* NULL: the master's */
	int out_fd, err_fd;   /* become the task's fds 1 and 2 */
};

/* The signals the master blocks and takes through signalfd; the child
 * gets them back with default dispositions. */
void spawn_signal_set(sigset_t *set);

/*
 * The environment of this process with add[0..n) ("NAME=VALUE") added or
 * replacing variables of the same name.  The array is malloc'd, the
 * strings are borrowed: free only the array.
 */
char **spawn_env(char *const *add, size_t n);

/* Returns the pid (also the process group id), or -1 with err filled. */
pid_t spawn_task(const struct spawn_req *req, struct errbuf *err);

#endif
