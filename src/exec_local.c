#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec.h"
#include "guard.h"
#include "spawn.h"

/* A running job: its process group and the log fds kept open so their
 * size is known at the end without a path lookup. */
struct ljob {
	pid_t pid;
	uint32_t task;
	int out_fd, err_fd;
	double start;
	const char *out_path, *err_path; /* owned copies */
};

struct exec_local {
	struct exec base;
	struct ljob *jobs;
	size_t njobs, ajobs;
	struct exec_local *next;
};

/* Every instance: a resources file may name localhost more than once,
 * and whichever instance reaps a child reports it through its owner's
 * callback (a child reaped by the other instance was lost: its run
 * waited for ever). */
static struct exec_local *all;

static int
open_log(const char *path)
{
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

static void
finish_log(int fd, const char *path, bool *empty)
{
	struct stat st;
	*empty = !fstat(fd, &st) && st.st_size == 0;
	close(fd);
	if (*empty)
		unlink(path);
}

static int
local_submit(struct exec *e, const struct exec_job *job)
{
	struct exec_local *x = (struct exec_local *)e;
	struct exec_result r;
	memset(&r, 0, sizeof(r));
	r.task = job->task;
	r.read_bytes = r.write_bytes = -1;
	int out = open_log(job->out_path);
	int err = out >= 0 ? open_log(job->err_path) : -1;
	if (out < 0 || err < 0) {
		snprintf(r.error, sizeof(r.error), "cannot create log %s: %s",
			 out < 0 ? job->out_path : job->err_path,
			 strerror(errno));
		if (out >= 0)
			close(out);
		r.start = r.end = clock_real();
		e->done(&r, e->arg);
		return 0;
	}
	struct spawn_req req = { job->exe, job->argv, job->envp, job->cwd, out,
				 err };
	struct errbuf eb;
	double start = clock_real();
	pid_t pid = spawn_task(&req, &eb);
	if (pid < 0) {
		/* Leave the reason in the task's stderr log too. */
		dprintf(err, "wfrun: %s\n", eb.msg);
		close(out);
		close(err);
		unlink(job->out_path);
		snprintf(r.error, sizeof(r.error), "%s", eb.msg);
		r.start = r.end = start;
		e->done(&r, e->arg);
		return 0;
	}
	guard_add(pid);
	ALLOC_GROW(x->jobs, x->njobs + 1, x->ajobs);
	struct ljob *j = &x->jobs[x->njobs++];
	j->pid = pid;
	j->task = job->task;
	j->out_fd = out;
	j->err_fd = err;
	j->start = start;
	j->out_path = xstrdup(job->out_path);
	j->err_path = xstrdup(job->err_path);
	e->running++;
	return 0;
}

/* Bytes the process (and the children it waited for) read and wrote to
 * storage, from a zombie's /proc/PID/io. */
static void
read_io(pid_t pid, long long *rb, long long *wb)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/io", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	char *p = strstr(buf, "\nread_bytes: ");
	char *q = strstr(buf, "\nwrite_bytes: ");
	if (p)
		*rb = strtoll(p + 13, NULL, 10);
	if (q)
		*wb = strtoll(q + 14, NULL, 10);
}

/* What a running job's process group has written so far: the members'
 * write_bytes, each of which counts the children it has waited for.
 * One pass over /proc: asked only while a climb times its one writer
 * (iopol_sample), 50 times a second. */
static void
local_ask_written(struct exec *e, uint32_t task)
{
	struct exec_local *x = (struct exec_local *)e;
	pid_t pg = 0;
	for (size_t i = 0; i < x->njobs && !pg; i++)
		if (x->jobs[i].task == task)
			pg = x->jobs[i].pid;
	if (!pg)
		return; /* not running here */
	double when = clock_real();
	DIR *d = opendir("/proc");
	long long sum = -1;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || getpgid((pid_t)pid) != pg)
			continue;
		long long rb = -1, wb = -1;
		read_io((pid_t)pid, &rb, &wb);
		if (wb >= 0)
			sum = (sum < 0 ? 0 : sum) + wb;
	}
	if (d)
		closedir(d);
	if (e->written)
		e->written(e, task, when, sum, e->arg);
}

static void
local_on_sigchld(struct exec *e)
{
	(void)e; /* any instance reaps every task's child */
	for (;;) {
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 ||
		    si.si_pid == 0)
			return;
		pid_t pid = si.si_pid;
		struct exec_result r;
		memset(&r, 0, sizeof(r));
		r.read_bytes = r.write_bytes = -1;
		read_io(pid, &r.read_bytes, &r.write_bytes);
		/* before the pid can be reused */
		guard_remove(pid);
		struct rusage ru;
		int status;
		if (wait4(pid, &status, 0, &ru) != pid)
			continue;
		r.end = clock_real();
		struct exec_local *o;
		size_t i = 0;
		for (o = all; o; o = o->next) {
			for (i = 0; i < o->njobs && o->jobs[i].pid != pid;)
				i++;
			if (i < o->njobs)
				break;
		}
		if (!o)
			continue; /* not a task's (cannot happen) */
		struct ljob j = o->jobs[i];
		o->jobs[i] = o->jobs[--o->njobs];
		o->base.running--;
		r.task = j.task;
		r.started = true;
		r.wstatus = status;
		r.start = j.start;
		r.utime = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
		r.stime = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
		r.maxrss_kb = ru.ru_maxrss;
		finish_log(j.out_fd, j.out_path, &r.out_empty);
		finish_log(j.err_fd, j.err_path, &r.err_empty);
		free((char *)j.out_path);
		free((char *)j.err_path);
		o->base.done(&r, o->base.arg);
	}
}

static void
local_signal_all(struct exec *e, int sig)
{
	struct exec_local *x = (struct exec_local *)e;
	for (size_t i = 0; i < x->njobs; i++)
		kill(-x->jobs[i].pid, sig);
}

static void
local_signal_one(struct exec *e, uint32_t task, int sig)
{
	struct exec_local *x = (struct exec_local *)e;
	for (size_t i = 0; i < x->njobs; i++)
		if (x->jobs[i].task == task)
			kill(-x->jobs[i].pid, sig);
}

static void
local_stop_one(struct exec *e, uint32_t task)
{
	local_signal_one(e, task, SIGKILL); /* (its files are the runner's) */
}

static void
local_release(struct exec *e)
{
	struct exec_local *x = (struct exec_local *)e;
	struct exec_local **pp = &all;
	while (*pp != x)
		pp = &(*pp)->next;
	*pp = x->next;
	for (size_t i = 0; i < x->njobs; i++) {
		close(x->jobs[i].out_fd);
		close(x->jobs[i].err_fd);
		free((char *)x->jobs[i].out_path);
		free((char *)x->jobs[i].err_path);
	}
	free(x->jobs);
	free(x);
}

static const struct exec_ops local_ops = {
	local_submit,
	local_signal_all,
	local_signal_one,
	local_stop_one,
	local_on_sigchld,
	local_release,
	NULL, /* no transfers: the files are here */
	local_ask_written,
};

struct exec *
exec_local_new(exec_done_fn done, void *arg)
{
	struct exec_local *x = xcalloc(1, sizeof(*x));
	x->base.ops = &local_ops;
	x->base.done = done;
	x->base.arg = arg;
	x->base.state = EXEC_READY;
	x->next = all;
	all = x;
	return &x->base;
}
