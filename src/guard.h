/*
 * guard: what keeps one run of a workdir safe from another and from its own
 * crash.
 *
 * The lock is flock() on <workdir>/.wfrun/lock, which holds the PID of its
 * holder.  The kernel drops a flock with the last descriptor of its open
 * file, so a crash cannot leave it stale.
 *
 * The guardian is a small process forked before any thread exists.  The
 * master tells it, through a pipe, each process group it starts and reaps;
 * when that pipe reaches EOF while groups are still listed (the master was
 * killed, even by SIGKILL), the guardian kills them, and everything in the
 * run's cgroup (contain.h), waits for their end and exits.  It inherits
 * the lock descriptor, so a new run of the same workdir waits until the
 * orphans of a crashed master are dead instead of racing them.  Local
 * tasks only: a remote worker's agent kills its tasks itself when its
 * connection ends.
 *
 * Chosen over PR_SET_PDEATHSIG because that reaches only the direct child
 * (the shell of `sh -c`), not the rest of the task's process group.
 */
#ifndef WFRUN_GUARD_H
#define WFRUN_GUARD_H

#include <sys/types.h>

#include "util.h"

/*
 * Take the lock of the workdir the process is in (.wfrun/ must exist);
 * workdir is its name for messages.
 * Returns the descriptor (close-on-exec), or -1 with err naming the PID
 * that holds it.  When the holder's PID is gone (its guardian is still
 * killing its orphans), waits for the lock instead of refusing.
 */
int guard_lock(const char *workdir, struct errbuf *err);

/* Fork the guardian; 0, or -1 with err.  Call before starting threads. */
int guard_start(struct errbuf *err);
/* Tell the guardian a local task's process group started / ended. */
void guard_add(pid_t pgid);
void guard_remove(pid_t pgid);
/* Close the pipe after a clean end: the guardian exits quietly. */
void guard_stop(void);

#endif
