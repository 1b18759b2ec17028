/*
 * exec: the executor interface between the runner and the places tasks
 * run.  A backend takes a job (an argv or a shell command, the environment,
 * the log files), starts it, and reports exactly one exec_result per job
 * through the done callback, from the loop thread.  exec_local runs jobs
 * as child processes of the master; the agent client (agent_client.h)
 * runs them through a worker agent, over SSH (exec_ssh.c) or a child
 * process's pipes (agent_pipe.c), behind the same table; slurm_jobs.h
 * as one Slurm batch job each.
 */
#ifndef WFRUN_EXEC_H
#define WFRUN_EXEC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "loop.h"
#include "util.h"

/*
 * A job of a worker whose workdir is not shared: the agent makes the
 * sandbox, hard-links (or copies, for what the task also writes) each
 * staged file into it at its relative path, runs the task there, and
 * after a success moves each output into outdir at the same relative
 * path and removes the sandbox.  Paths in links[].src, sandbox and outdir
 * are absolute on the worker; dst, mkdirs and outs are relative.
 */
struct exec_link {
	const char *src, *dst;
	bool copy;
};
struct exec_stage {
	const char *sandbox, *outdir;
	const struct exec_link *links;
	size_t nlinks;
	char *const *mkdirs;
	size_t nmkdirs;
	char *const *outs;
	size_t nouts;
};

struct exec_job {
	uint32_t task;
	const struct exec_stage *stage; /* NULL: run in cwd */
	const char *exe;     /* local path of the program (local backend) */
	char *const *argv;   /* argv[0] is the program as written: a remote
				agent looks it up on its own PATH */
	char *const *envp;   /* NULL: inherit (local backend) */
	char *const *env_add; /* NULL-ended NAME=VALUE the task adds (remote) */
	const char *cwd;
	const char *out_path, *err_path;
	double timeout;      /* seconds, 0: none; a remote agent kills the
				task then itself, should the master not */
	long long log_max;   /* bytes each log keeps, 0: no cap (the cut
				is said in the log: exec_local.c) */
	/* for a place that queues each job on its own (a Slurm job):
	 * its name, its instance's tag, and what it asks for */
	const char *name, *tag;
	long cores;
	long long memory;    /* bytes, 0: not given */
};

struct exec_result {
	uint32_t task;
	bool started;        /* false: the process could not be created */
	int wstatus;         /* as from wait4 */
	double start, end;   /* Unix epoch seconds, measured where it ran */
	double utime, stime; /* CPU seconds */
	long maxrss_kb;
	long long read_bytes, write_bytes; /* -1 when unknown */
	bool out_empty, err_empty; /* logs were empty (and have no name) */
	bool lost;           /* its worker was lost: run it again elsewhere */
	bool parked;         /* waits for lost data to be made again: the
				stage readies it (never started) */
	char error[2100];     /* why it could not start; or, with state,
				 why the place ended it ("Slurm ended job
				 12_3 with TIMEOUT (time limit 1 min)") */
	char state[24];       /* the place's end state when it, not the
				 command, decided the end (Slurm's TIMEOUT,
				 NODE_FAIL...; OUT_OF_MEMORY where the
				 kernel's OOM killer ended it at its
				 memory): the trace's status */
	char node[64];        /* where it ran, when its worker is many
				 places (a Slurm job's node); "": the
				 worker */
	/* staged jobs: which outs[] exist, the regular files under them
	 * (valid during the done callback only) and the time spent moving
	 * them into the store */
	const uint8_t *out_ok;
	size_t nout_ok;
	const struct exec_outfile *files;
	size_t nfiles;
	double stage_out_s;
};

struct exec_outfile {
	const char *path;    /* relative, as in outs[] */
	long long size;
	int64_t mtime_ns;    /* where it ran (lstat's); 0: not known */
};

/*
 * File transfers over the worker's own connection (SFTP).  PUT copies
 * local (relative to the master's cwd, or absolute) to remote (absolute,
 * parents created); GET copies remote to local through a temporary name
 * beside it, so local is never seen half written.
 */
enum xfer_op { XFER_PUT, XFER_GET };
struct xfer {
	uint64_t id;
	enum xfer_op op;
	const char *local, *remote;
};
struct xfer_result {
	uint64_t id;
	bool ok;
	bool lost;           /* the worker was lost before it finished */
	long long bytes;
	double secs;
	char error[1200];
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
	/* Stop one running job to run it again later (SIGKILL to its
	 * group): nothing of this attempt is kept where it ran (a staged
	 * job's sandbox goes with it). */
	void (*stop_one)(struct exec *e, uint32_t task);
	/* Called by the loop for SIGCHLD and other events of the backend. */
	void (*on_sigchld)(struct exec *e);
	void (*release)(struct exec *e);
	/* Queue a transfer (strings are copied); NULL for backends that
	 * move no files.  Its result comes through xfer_done; -1 (and no
	 * result) when the worker cannot take it: it is not ready. */
	int (*transfer)(struct exec *e, const struct xfer *x);
	/* Ask what one running job has written to storage so far (its
	 * whole process group).  The answer comes through the exec's
	 * written callback, at once (this machine) or later (a remote
	 * worker), and not at all if the job is not running there. */
	void (*ask_written)(struct exec *e, uint32_t task);
	/* A worker whose workdir is not shared keeps a store (stage.h).
	 * store_have asks whether dir there still holds exactly files
	 * (sizes and mtimes as a job's result gave them): the answer
	 * comes through store_done (with xfer_arg), later; -1 (and no
	 * answer) when the worker cannot be asked.  store_prune removes
	 * the stores (and sandboxes) of the runs named, under workdir
	 * there.  NULL for backends without a store. */
	int (*store_have)(struct exec *e, uint64_t id, const char *dir,
			  const struct exec_outfile *files, size_t n);
	void (*store_prune)(struct exec *e, const char *workdir,
			    char *const *runs, size_t n);
};

enum exec_state {
	EXEC_CONNECTING,  /* not yet able to take jobs */
	EXEC_READY,
	EXEC_FAILED,      /* could not be reached; error says why */
	EXEC_LOST,        /* was ready, then the connection ended */
	EXEC_CLOSED,      /* shut down on purpose */
};

/* Called in the loop thread when a backend changes state. */
typedef void (*exec_state_fn)(struct exec *e, void *arg);

struct exec {
	const struct exec_ops *ops;
	exec_done_fn done;
	exec_state_fn on_state;
	/* The answer to ask_written: bytes (-1: not known) read at when,
	 * on the clock of the job's start and end.  Called with arg. */
	void (*written)(struct exec *e, uint32_t task, double when,
			long long bytes, void *arg);
	void (*xfer_done)(struct exec *e, const struct xfer_result *r,
			  void *arg);
	void (*store_done)(struct exec *e, uint64_t id, bool ok,
			   const char *why, void *arg);
	void *xfer_arg;
	void *arg;
	size_t running;
	enum exec_state state;
	char error[2048];     /* why it failed or was lost */
	long ncpus;           /* CPUs the worker reported, 0 if unknown */
	bool refused;         /* EXEC_FAILED because the worker's host key
				 was refused (unknown, changed or revoked):
				 an error, whatever the others do */
	bool hurry;           /* set before release: do not wait long for
				 a slow worker's goodbye (its agent kills its
				 tasks when the connection ends) */
};

/* Jobs run as children of this process; with a loop, the logs of a job
 * that runs for a second are named then (see exec_local.c), else at its
 * end. */
struct exec *exec_local_new(exec_done_fn done, struct loop *loop, void *arg);

/* The log at path, written by a job run elsewhere that has ended (a
 * Slurm job's), cut to max bytes as a local job's is at its end, the cut
 * said in it (log_max); nothing when it is shorter or max is 0. */
void exec_log_cut(const char *path, long long max);

/*
 * The agent as a child process (agent_pipe.c): argv starts wfrun-worker,
 * here or through a launcher such as srun, speaking the protocol on its
 * stdin and stdout.  A job that names no cwd runs in workdir; it moves no
 * files (the workdir is shared).  name (the worker's) and where (its host,
 * in errors) are borrowed.  A child that cannot be started leaves the exec
 * EXEC_FAILED at once; else it is ready when the agent says HELLO
 * (on_state).  Its on_sigchld reaps the child.  lv: how its life is
 * watched (agent_client.h), NULL: not at all.  Its release does not wait
 * for the agent to end: exec_pipe_finish() does, for all those released,
 * together, each killed at the latest 15 s (1 s in a hurry) after.
 */
struct agent_liveness;
struct exec *exec_pipe_new(char *const *argv, const char *name,
			   const char *where, const char *workdir,
			   const struct agent_liveness *lv, struct loop *loop,
			   exec_done_fn done, exec_state_fn on_state,
			   void *arg);
void exec_pipe_finish(void);

struct worker_spec;
struct exec_ssh_opts {
	bool accept_new_host_keys;
	const char *agent_path;  /* the local wfrun-worker to upload */
	const char *workdir;     /* must exist there (shared), or NULL */
	bool sftp;               /* open SFTP for transfers (not shared) */
};
/* Start connecting to w in a thread of its own; the result arrives
 * through on_state in the loop thread.  Needs ssh_global_init() first. */
struct exec *exec_ssh_new(const struct worker_spec *w,
			  const struct exec_ssh_opts *o, struct loop *loop,
			  exec_done_fn done, exec_state_fn on_state, void *arg);
/* libssh2's global init; call once from the main thread before any
 * exec_ssh_new, and ssh_global_exit() after the last release. */
int ssh_global_init(void);
void ssh_global_exit(void);

#endif
