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

#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
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
	int mem_fd;           /* > 2: a v1 memory cgroup.procs it joins
				 too (contain_task_memory); <= 2: none */
};

/* The signals the master blocks and takes through signalfd; the child
 * gets them back with default dispositions. */
void spawn_signal_set(sigset_t *set);

/* posix_spawnattr_init at, set as a helper process (an agent under
 * srun, a Slurm command) is started: its own process group, default
 * dispositions for spawn_signal_set's signals, an empty signal mask. */
void spawn_attr_init(posix_spawnattr_t *at);

/* Start argv (looked up on PATH) as a helper child (spawn_attr_init),
 * stdin /dev/null, its stdout and stderr on pipes whose read ends land
 * in fds[0] and fds[1] (close-on-exec, blocking), registered with
 * spawn_own.  The pid, or -1 with err ("cannot run X: why"). */
pid_t spawn_command(char *const *argv, int fds[2], struct errbuf *err);

/*
 * The environment of this process with add[0..n) ("NAME=VALUE") added or
 * replacing variables of the same name.  The array is malloc'd, the
 * strings are borrowed: free only the array.
 */
char **spawn_env(char *const *add, size_t n);

/* Returns the pid (also the process group id), or -1 with err filled. */
pid_t spawn_task(const struct spawn_req *req, struct errbuf *err);

/*
 * Children of the master that a module other than exec_local starts and
 * waits for (an agent behind a pipe, Slurm's commands).  exec_local reaps
 * every child that ends, since orphans of tasks come to the master (a
 * child subreaper, contain.h); a child registered here with spawn_own is
 * reaped there too, and its status kept for its owner, who asks with
 * spawn_wait instead of waitpid.
 */
void spawn_own(pid_t pid);
/* exec_local: true when pid is registered (it then reaps it and hands
 * the status over with spawn_owned_ended). */
bool spawn_owned(pid_t pid);
void spawn_owned_ended(pid_t pid, int status);
/* pid (registered) when it has ended, with *status, and then forgets it;
 * 0 while it runs (block: wait for it); -1 when it is not a child. */
pid_t spawn_wait(pid_t pid, int *status, bool block);

#endif
