/*
 * exec: the executor interface between the runner and the places tasks
 * run.  A backend takes a job (an argv or a shell command, the environment,
 * the log files), starts it, and reports exactly one exec_result per job
 * through the done callback, from the loop thread.  exec_local runs jobs
 * as child processes of the master; the SSH backend (later) will run them
 * through a worker agent behind the same table.
 */
#ifndef WFRUN_EXEC_H
#define WFRUN_EXEC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "loop.h"
#include "util.h"

struct exec_job {
	uint32_t task;
	const char *exe;
	char *const *argv;
	char *const *envp;   /* NULL: inherit */
	const char *cwd;
	const char *out_path, *err_path;
};

struct exec_result {
	uint32_t task;
	bool started;        /* false: the process could not be created */
	int wstatus;         /* as from wait4 */
	double start, end;   /* Unix epoch seconds, measured where it ran */
	double utime, stime; /* CPU seconds */
	long maxrss_kb;
	long long read_bytes, write_bytes; /* -1 when unknown */
	bool out_empty, err_empty; /* logs were empty (and are removed) */
	char error[1100];     /* why it could not start */
};

typedef void (*exec_done_fn)(const struct exec_result *r, void *arg);

struct exec;
struct exec_ops {
	/* 0, or -1 if the job could not even be queued (err filled). */
	int (*submit)(struct exec *e, const struct exec_job *job);
	/* Send sig to every running job's process group. */
	void (*signal_all)(struct exec *e, int sig);
	/* Send sig to the process group of one running job, if it runs. */
	void (*signal_one)(struct exec *e, uint32_t task, int sig);
	/* Called by the loop for SIGCHLD and other events of the backend. */
	void (*on_sigchld)(struct exec *e);
	void (*release)(struct exec *e);
};

struct exec {
	const struct exec_ops *ops;
	exec_done_fn done;
	void *arg;
	size_t running;
};

struct exec *exec_local_new(exec_done_fn done, void *arg);

#endif
