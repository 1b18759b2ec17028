/*
 * spawn: start one task process.  It clones with vfork semantics
 * (CLONE_VM | CLONE_VFORK, the way posix_spawn does, but on a stack in
 * the caller's frame: no mmap and munmap per task), so the cost does not
 * grow with the master's memory.  The child does only async-signal-safe
 * calls: a new process group, default dispositions for the signals the
 * master handles or takes through its signalfd, stdin from /dev/null,
 * stdout and stderr onto the given fds, a chdir, an empty signal mask,
 * execve; first, when asked, it joins the task's cgroup (contain.h), so
 * that everything the task starts is in it.  The errno of a failed step comes back through the shared
 * memory, so an exec failure is reported by spawn_task itself, not by a
 * child that exits 127.  Called from one thread (the loop's).
 */
#ifndef WFRUN_SPAWN_H
#define WFRUN_SPAWN_H

#include <spawn.h>
#include <sys/types.h>

#include "util.h"

struct spawn_req {
	const char *exe;      /* path of the program (no PATH search) */
	char *const *argv;    /* argv[0] is passed as is */
	char *const *envp;    /* NULL: the master's environment */
	const char *cwd;      /* NULL: the master's */
	int out_fd, err_fd;   /* become the task's fds 1 and 2 */
	int cgroup_fd;        /* > 2: a cgroup.procs the child joins first
				 (contain_task_begin); <= 2: none */
};

/* The signals the master blocks and takes through signalfd; the child
 * gets them back with default dispositions. */
void spawn_signal_set(sigset_t *set);
/* Set attributes (initialised) for a helper child that is not a task
 * (an agent, sbatch, squeue): the signals of spawn_signal_set unblocked
 * and at their defaults, in a process group of its own, so that a Ctrl-C
 * at the terminal reaches only wfrun, which decides. */
void spawn_helper_attr(posix_spawnattr_t *at);

/*
 * The environment of this process with add[0..n) ("NAME=VALUE") added or
 * replacing variables of the same name.  The array is malloc'd, the
 * strings are borrowed: free only the array.
 */
char **spawn_env(char *const *add, size_t n);

/* Returns the pid (also the process group id), or -1 with err filled. */
pid_t spawn_task(const struct spawn_req *req, struct errbuf *err);

#endif
