/*
 * contain: every process a task starts ends with it, whatever becomes of
 * the task or of wfrun.
 *
 * Where the kernel offers it (cgroup2 with cgroup.kill, Linux 5.14, and a
 * cgroup this process may make children in), contain_open makes a cgroup
 * for the run under this process's own, and each task runs in a child
 * cgroup of it that the task's first process joins before execve:
 * whatever the task forks, in whatever process group or session, is in
 * it, and one write to its cgroup.kill ends them all.  A task's cgroup
 * is kept for a later task once it is empty (a mkdir and rmdir per task
 * would cost more than the rest of a task's start).  Where the run's
 * cgroup has the memory controller, a task's cgroup gets its memory as
 * memory.max (and no swap), and an OOM kill in it is counted.
 *
 * Elsewhere (or with WFRUN_NO_CGROUP set), this process becomes a child
 * subreaper: what is left of a task when its first process ends is its
 * process group, killed by the executor, and the orphans that left the
 * group with setsid, which are then this process's children in another
 * session, killed at the end of each task and of the run.
 *
 * The record (a file in .wfrun/ for the master, none for an agent) names
 * the run's cgroup with its inode, or the tasks' process groups with the
 * start time of their first process (what was recorded, not a later
 * cgroup or group of the same name), so that a run that finds an earlier run's tasks
 * still alive (its master and guardian killed together) kills them and
 * waits for their end before it touches their data.
 *
 * A task's CPU time is also read from its cgroup, and, in hybrid mode,
 * the peak memory of the v1 memory cgroup a container engine made for
 * its containers under the same path (swenv.c), which goes with the
 * run's cgroup.
 *
 * Owns the run cgroup, the task cgroups and the record; never signals a
 * process it did not start but through a record of this workdir.  Loop
 * thread only; the guardian, a fork of the master, calls contain_kill_all.
 */
#ifndef WFRUN_CONTAIN_H
#define WFRUN_CONTAIN_H

#include <stdbool.h>
#include <sys/types.h>

#include "util.h"

/* The master's record, relative to the workdir. */
#define CONTAIN_RECORD ".wfrun/contain"

enum contain_mode {
	CONTAIN_OFF,    /* contain_open not called */
	CONTAIN_CGROUP, /* a cgroup per task */
	CONTAIN_GROUP,  /* process groups and a subreaper */
};

/*
 * Kill what the record at record_path (NULL: none) names that is still
 * alive and wait for its end, then choose the mode and start a new record
 * there.  Call once, before the guardian is forked and before any task.
 * 0, or -1 with err (an earlier run's processes that do not die, or a
 * record that cannot be written).
 */
int contain_open(const char *record_path, struct errbuf *err);

enum contain_mode contain_mode(void);

/* The run's cgroup (a directory), or NULL when not CONTAIN_CGROUP. */
const char *contain_cgroup(void);

/*
 * A cgroup for a task about to start: returns its handle (>= 0) and in
 * *procs_fd a descriptor (> 2, close-on-exec) the task's first process
 * writes "0" to, or -1 (no cgroup: *procs_fd is -1).
 */
int contain_task_begin(int *procs_fd);

/*
 * The task of handle (contain_task_begin's) may use bytes of memory (0:
 * not limited): its cgroup's memory.max, and no swap; where the memory
 * controller is a cgroup v1 hierarchy (hybrid mode), a v1 memory cgroup
 * of the task's with memory.limit_in_bytes, whose cgroup.procs *v1_fd
 * (> 2, else -1) the task's first process joins too.  Returns whether
 * the kernel enforces it.
 */
bool contain_task_memory(int handle, long long bytes, int *v1_fd);

/* How many of the task's processes the kernel's OOM killer ended since
 * contain_task_memory (memory.events' oom_kill, or v1's
 * memory.oom_control); call before
 * contain_task_end. */
long contain_task_oom(int handle);

/*
 * What the task of handle used in its cgroup since contain_task_begin,
 * its containers' included: CPU seconds (cgroup2 cpu.stat), and in
 * *peak_kb the peak memory (page cache included) of the cgroup a
 * container engine made for it in the v1 memory hierarchy (hybrid mode,
 * swenv.c's --cgroup-parent), or -1.  0, or -1 (no task cgroup).  Call
 * before contain_task_end.
 */
int contain_task_usage(int handle, double *user, double *sys,
		       long *peak_kb);

/* The task whose first process is pgid started (recorded when the mode
 * is CONTAIN_GROUP). */
void contain_task_started(pid_t pgid);

/*
 * The task's first process has ended (its process group, already
 * killed, was pgid): kill what is left of it.  Returns whether nothing
 * of the task can be alive any more (the fds it held are free).
 */
bool contain_task_end(int handle, pid_t pgid);

/* The memory this machine gives this process's tasks (bytes): MemTotal,
 * or the limit of this process's cgroup (v2 memory.max, v1
 * memory.limit_in_bytes) when lower; 0 if not known. */
long long contain_memory(void);

/* Whether process group pgid has a member that is not a zombie. */
bool contain_group_alive(pid_t pgid);

/* Kill every process of every task of the run and wait (bounded) for
 * their end; the cgroups and the record are removed. */
void contain_kill_all(void);

/* At the run's end: contain_kill_all, and forget the mode. */
void contain_close(void);

#endif
