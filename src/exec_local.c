/*
 * exec_local: the executor that runs jobs as child processes of this
 * process (the master, or the agent on an SSH worker).  It owns the
 * running jobs, their log files (below) and their reaping: waitid with
 * WNOWAIT to read a zombie's /proc/PID/io, then wait4 for its CPU time.
 * A job ends with its first process: what it left running is killed then
 * (its process group while the zombie keeps the group's number from
 * reuse, and its cgroup or escaped orphans through contain.h).
 */
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

#include "contain.h"
#include "exec.h"
#include "guard.h"
#include "spawn.h"

/*
 * A task's stdout or stderr log.  It starts as an unnamed file (O_TMPFILE
 * in its logs directory) and gets its name (linkat through /proc/self/fd)
 * when the job has run for LOG_NAME_AFTER seconds, or at its end if it
 * is not empty; an empty one loses its name at the end.  An empty log
 * whose job's process group is gone (nothing can still write to it) is
 * kept open for a later job: a silent task creates and removes no file.
 * Where O_TMPFILE does not work, logs are named files from the start.
 *
 * log_max: a log is opened O_APPEND (the task writes at its end, wherever
 * that is), so that it can be cut while the task runs.  Every LOG_CAP_EVERY
 * seconds while jobs run, a log longer than its job's log_max is cut back
 * to its first half (what came since stays after it); at the job's end the
 * log becomes that head, a line saying how many bytes were cut, and the
 * last bytes written, up to the other half.  Nothing of this is done per
 * job: one timer for all, and a job's end reads the log's size anyway.
 *
 * A new log has LOG_RESERVE bytes allocated past its end (FALLOC_FL_KEEP
 * _SIZE): a task that fills the disk can still say so in its stderr
 * ("No space left on device") instead of losing the message with the
 * space.  Spare logs keep theirs, so a silent task costs no call.
 */
struct llog {
	int fd;
	char *path;  /* owned */
	bool named;  /* has its name under .wfrun/logs */
	long long cut; /* bytes cut so far */
};

#define LOG_NAME_AFTER 1.0
#define LOG_RESERVE 16384
#define LOG_CAP_EVERY 1.0

/* A running job: its process group, its cgroup and its two logs. */
struct ljob {
	pid_t pid;
	int cg; /* contain_task_begin's handle, or -1 */
	uint32_t task;
	double start;
	long long log_max; /* 0: no cap */
	struct llog log[2]; /* stdout, stderr */
	long master_kb;     /* the master's peak RSS when it started it */
};

struct exec_local {
	struct exec base;
	struct ljob *jobs;
	size_t njobs, ajobs;
	struct loop *loop;       /* NULL: logs are named at the end only */
	struct loop_timer name_timer;
	struct loop_timer cap_timer;
	struct exec_local *next;
};

/* Every instance: a resources file may name localhost more than once,
 * and whichever instance reaps a child reports it through its owner's
 * callback (a child reaped by the other instance was lost: its run
 * waited for ever). */
static struct exec_local *all;

/* Empty unnamed logs of ended jobs, for later jobs (all instances). */
static VEC(int) spare;
/* O_TMPFILE or its linkat failed here: named logs from then on. */
static bool plain_logs;

static int
log_open(struct llog *l, const char *path)
{
	l->path = xstrdup(path);
	l->named = false;
	l->cut = 0;
	if (!plain_logs) {
		/* an earlier run's log: this one replaces or removes it */
		unlink(path);
		if (spare.n) {
			l->fd = spare.v[--spare.n];
			return 0;
		}
		const char *slash = strrchr(path, '/');
		char *dir = slash ? xstrndup(path, (size_t)(slash - path))
				  : xstrdup(".");
		l->fd = open(dir, O_TMPFILE | O_RDWR | O_APPEND | O_CLOEXEC,
			     0644);
		free(dir);
		if (l->fd >= 0)
			(void)!fallocate(l->fd, FALLOC_FL_KEEP_SIZE, 0,
					 LOG_RESERVE);
		if (l->fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR &&
				   errno != EINVAL))
			return l->fd;
		plain_logs = true;
	}
	l->named = true;
	l->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC,
		     0644);
	if (l->fd >= 0)
		(void)!fallocate(l->fd, FALLOC_FL_KEEP_SIZE, 0, LOG_RESERVE);
	return l->fd;
}

/* Move n bytes of fd from offset from to offset to, in chunks, in the
 * order that an overlap needs. */
static void
log_move(int fd, off_t from, off_t to, off_t n)
{
	char buf[65536];
	off_t done = 0;
	while (done < n) {
		off_t k = n - done < (off_t)sizeof(buf) ? n - done
							 : (off_t)sizeof(buf);
		off_t at = to <= from ? done : n - done - k;
		ssize_t r = pread(fd, buf, (size_t)k, from + at);
		if (r <= 0 || pwrite(fd, buf, (size_t)r, to + at) != r)
			return;
		done += r;
	}
}

/* Cut the log of size bytes if it is longer than max (above).  At the
 * end, the last bytes move after the line that says the cut: with
 * O_APPEND off for a moment, as pwrite would append. */
static void
log_cap(struct llog *l, long long max, off_t size, bool at_end)
{
	off_t head = (off_t)(max / 2), tail = (off_t)max - head;
	if (max <= 0 || (size <= (off_t)max && !l->cut))
		return;
	if (!at_end) {
		if (size > (off_t)max && ftruncate(l->fd, head) == 0)
			l->cut += (long long)(size - head);
		return;
	}
	off_t since = size > head ? size - head : 0;
	off_t keep = since < tail ? since : tail;
	l->cut += (long long)(since - keep);
	char line[160];
	int n = snprintf(line, sizeof(line), "\n[wfrun: log_max %lld: %lld "
			 "bytes cut here; the last %lld follow]\n", max, l->cut,
			 (long long)keep);
	int fl = fcntl(l->fd, F_GETFL);
	if (fl < 0 || fcntl(l->fd, F_SETFL, fl & ~O_APPEND) < 0)
		return;
	log_move(l->fd, size - keep, head + n, keep);
	if (pwrite(l->fd, line, (size_t)n, head) == n)
		(void)!ftruncate(l->fd, head + n + keep);
	fcntl(l->fd, F_SETFL, fl);
}

void
exec_log_cut(const char *path, long long max)
{
	if (max <= 0)
		return;
	struct llog l = { .fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC) };
	if (l.fd < 0)
		return;
	off_t size = lseek(l.fd, 0, SEEK_END);
	if (size > 0)
		log_cap(&l, max, size, true);
	close(l.fd);
}

/* Give an unnamed file its name; -1 with errno. */
static int
link_fd(int fd, const char *path)
{
	char proc[32];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (!linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW))
		return 0;
	if (errno == EEXIST)
		return -1;
	/* no /proc: this works with CAP_DAC_READ_SEARCH */
	int e = errno;
	if (!linkat(fd, "", AT_FDCWD, path, AT_EMPTY_PATH))
		return 0;
	errno = errno == EEXIST ? EEXIST : e;
	return -1;
}

/* Where the file cannot be linked: a copy of what it holds now. */
static void
log_copy(struct llog *l)
{
	int to = open(l->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (to < 0)
		return;
	char buf[65536];
	off_t off = 0;
	ssize_t n;
	while ((n = pread(l->fd, buf, sizeof(buf), off)) > 0 &&
	       write(to, buf, (size_t)n) == n)
		off += n;
	close(to);
}

/* Name the log; at the end of its job, by a copy if it cannot be linked
 * (and logs are named files from then on). */
static void
log_name(struct llog *l, bool at_end)
{
	if (l->named)
		return;
	bool ok = !link_fd(l->fd, l->path);
	if (!ok && errno == EEXIST) {
		unlink(l->path); /* made since the job started */
		ok = !link_fd(l->fd, l->path);
	}
	if (ok) {
		l->named = true;
	} else if (at_end) {
		plain_logs = true;
		log_copy(l);
	}
}

/* A log at the end of its job: cut to max, named if it is not empty,
 * nameless if it is; returns whether it is empty. */
static bool
log_end(struct llog *l, long long max)
{
	off_t size = lseek(l->fd, 0, SEEK_END);
	bool empty = size == 0;
	if (size > 0) {
		log_cap(l, max, size, true);
		/* the reserve goes back to the disk with the log */
		(void)!fallocate(l->fd, FALLOC_FL_PUNCH_HOLE |
				 FALLOC_FL_KEEP_SIZE, lseek(l->fd, 0, SEEK_END),
				 LOG_RESERVE);
	}
	if (!empty)
		log_name(l, true);
	else if (l->named)
		unlink(l->path);
	free(l->path);
	l->path = NULL;
	return empty;
}

/* Close the log, or keep it for a later job when reuse (it is empty and
 * nameless, and nothing else holds it). */
static void
log_drop(struct llog *l, bool reuse)
{
	if (reuse && !plain_logs)
		VEC_PUSH(spare, l->fd);
	else
		close(l->fd);
}

/* The end of a job's logs; out_empty and err_empty as the result says.
 * alone: nothing of the job can still hold them (a command it left in
 * the background, even outside its group): else they are not given to
 * a later job. */
static void
logs_end(struct ljob *j, bool alone, bool *out_empty, bool *err_empty)
{
	*out_empty = log_end(&j->log[0], j->log_max);
	*err_empty = log_end(&j->log[1], j->log_max);
	/* a log once named (then unlinked, being empty) can never be
	 * linked again: only a nameless one is kept for a later job */
	log_drop(&j->log[0], alone && *out_empty && !j->log[0].named);
	log_drop(&j->log[1], alone && *err_empty && !j->log[1].named);
}

/* Name the logs of the jobs that have run for LOG_NAME_AFTER seconds, so
 * that they can be followed; again when the next one will have. */
static void
name_due(void *arg)
{
	struct exec_local *x = arg;
	double now = clock_real(), next = 0;
	for (size_t i = 0; i < x->njobs; i++) {
		struct ljob *j = &x->jobs[i];
		if (j->log[0].named && j->log[1].named)
			continue;
		if (now - j->start >= LOG_NAME_AFTER) {
			log_name(&j->log[0], false);
			log_name(&j->log[1], false);
		} else if (!next || j->start < next) {
			next = j->start;
		}
	}
	if (next)
		loop_timer_arm(x->loop, &x->name_timer,
			       next + LOG_NAME_AFTER - now, name_due, x);
}

/* Cut the logs of running jobs that passed their log_max; again in
 * LOG_CAP_EVERY while any job with a cap runs. */
static void
cap_due(void *arg)
{
	struct exec_local *x = arg;
	bool again = false;
	for (size_t i = 0; i < x->njobs; i++) {
		struct ljob *j = &x->jobs[i];
		if (j->log_max <= 0)
			continue;
		again = true;
		for (int k = 0; k < 2; k++) {
			struct stat st;
			if (!fstat(j->log[k].fd, &st))
				log_cap(&j->log[k], j->log_max, st.st_size,
					false);
		}
	}
	if (again)
		loop_timer_arm(x->loop, &x->cap_timer, LOG_CAP_EVERY, cap_due,
			       x);
}

static int
local_submit(struct exec *e, const struct exec_job *job)
{
	struct exec_local *x = (struct exec_local *)e;
	struct exec_result r;
	memset(&r, 0, sizeof(r));
	r.task = job->task;
	r.read_bytes = r.write_bytes = -1;
	struct llog log[2];
	if (log_open(&log[0], job->out_path) < 0 ||
	    log_open(&log[1], job->err_path) < 0) {
		bool out = log[0].fd >= 0;
		snprintf(r.error, sizeof(r.error), "cannot create log %s: %s",
			 log[out].path, strerror(errno));
		free(log[0].path);
		if (out) {
			log_drop(&log[0], !log[0].named);
			free(log[1].path);
		}
		r.start = r.end = clock_real();
		e->done(&r, e->arg);
		return 0;
	}
	int cgroup_fd, mem_fd, cg = contain_task_begin(&cgroup_fd);
	contain_task_memory(cg, job->memory, &mem_fd);
	struct spawn_req req = { job->exe, job->argv, job->envp, job->cwd,
				 log[0].fd, log[1].fd, cgroup_fd, mem_fd };
	struct errbuf eb;
	double start = clock_real();
	pid_t pid = spawn_task(&req, &eb);
	/* (after: the peak counted into the task is the master's when the
	 * task exec'd, which spawn_task waits for; a peak only grows) */
	struct rusage self;
	if (getrusage(RUSAGE_SELF, &self) < 0)
		self.ru_maxrss = 0;
	if (pid < 0) {
		contain_task_end(cg, 0);
		/* Leave the reason in the task's stderr log too. */
		dprintf(log[1].fd, "wfrun: %s\n", eb.msg);
		log_drop(&log[0], log_end(&log[0], 0));
		log_drop(&log[1], log_end(&log[1], 0));
		snprintf(r.error, sizeof(r.error), "%s", eb.msg);
		r.start = r.end = start;
		e->done(&r, e->arg);
		return 0;
	}
	guard_add(pid);
	contain_task_started(pid);
	ALLOC_GROW(x->jobs, x->njobs + 1, x->ajobs);
	struct ljob *j = &x->jobs[x->njobs++];
	j->pid = pid;
	j->cg = cg;
	j->task = job->task;
	j->start = start;
	j->log_max = job->log_max;
	j->master_kb = self.ru_maxrss;
	j->log[0] = log[0];
	j->log[1] = log[1];
	e->running++;
	if (x->loop && !x->name_timer.armed &&
	    !(log[0].named && log[1].named))
		loop_timer_arm(x->loop, &x->name_timer, LOG_NAME_AFTER,
			       name_due, x);
	if (x->loop && !x->cap_timer.armed && job->log_max > 0)
		loop_timer_arm(x->loop, &x->cap_timer, LOG_CAP_EVERY, cap_due,
			       x);
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

/* Add to *sum (-1: nothing read yet) the write_bytes of pid and of its
 * live descendants, each of which counts the children it has waited
 * for, down the kernel's lists of each thread's children (depth levels
 * at most).  A process that ended on the way adds nothing. */
static void
tree_written(pid_t pid, long long *sum, int depth)
{
	long long rb = -1, wb = -1;
	read_io(pid, &rb, &wb);
	if (wb >= 0)
		*sum = (*sum < 0 ? 0 : *sum) + wb;
	char path[96];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = depth > 0 ? opendir(path) : NULL;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.20s/children",
			 (int)pid, de->d_name);
		FILE *f = fopen(path, "re");
		long child;
		while (f && fscanf(f, "%ld", &child) == 1)
			if (child > 0)
				tree_written((pid_t)child, sum, depth - 1);
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
}

/* Does this kernel list each thread's children (CONFIG_PROC_CHILDREN)? */
static bool
children_listed(void)
{
	static int known = -1;
	if (known < 0) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/task/%d/children",
			 (int)getpid(), (int)getpid());
		known = access(path, R_OK) == 0;
	}
	return known;
}

/* What a running job has written so far: its processes' write_bytes,
 * each of which counts the children it has waited for.  Asked only
 * while a climb reads its writers (iopol_sample), each of them 50 times
 * a second: down the job's own process tree (tree_written), not over
 * every process on the machine, a pass over /proc with getpgid for each
 * of 2,000 processes took 20 ms here, and the master's loop stood still
 * that long for every writer asked (bench/sample-cpu.sh).  A kernel that
 * lists no children: the members of its process group, from /proc. */
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
	long long sum = -1;
	if (children_listed()) {
		tree_written(pg, &sum, 64);
	} else {
		DIR *d = opendir("/proc");
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
	}
	if (e->written)
		e->written(e, task, when, sum, e->arg);
}

/* The instance running the job whose first process is pid, and its
 * index there; NULL if none. */
static struct exec_local *
job_of(pid_t pid, size_t *at)
{
	for (struct exec_local *o = all; o; o = o->next)
		for (size_t i = 0; i < o->njobs; i++)
			if (o->jobs[i].pid == pid) {
				*at = i;
				return o;
			}
	return NULL;
}

/* A task's cgroup counts what its children left running did, a
 * container's processes included (swenv.c): its figures when larger. */
static void
cgroup_usage(int cg, struct exec_result *r)
{
	double user, sys;
	long peak_kb;
	if (contain_task_usage(cg, &user, &sys, &peak_kb) < 0)
		return;
	if (user + sys > r->utime + r->stime) {
		r->utime = user;
		r->stime = sys;
	}
	if (peak_kb > r->maxrss_kb)
		r->maxrss_kb = peak_kb;
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
		if (spawn_owned(pid)) { /* another module's child */
			int st;
			if (waitpid(pid, &st, 0) == pid)
				spawn_owned_ended(pid, st);
			continue;
		}
		struct exec_result r;
		memset(&r, 0, sizeof(r));
		r.read_bytes = r.write_bytes = -1;
		read_io(pid, &r.read_bytes, &r.write_bytes);
		size_t i = 0;
		struct exec_local *o = job_of(pid, &i);
		if (o) {
			/* before the pid can be reused: the zombie keeps
			 * the group's number, so this kills only what the
			 * job left in its group */
			guard_remove(pid);
			kill(-pid, SIGKILL);
		}
		struct rusage ru;
		int status;
		if (wait4(pid, &status, 0, &ru) != pid)
			continue;
		r.end = clock_real();
		if (!o)
			continue; /* an orphan of a task (contain.h) */
		struct ljob j = o->jobs[i];
		o->jobs[i] = o->jobs[--o->njobs];
		o->base.running--;
		r.task = j.task;
		r.started = true;
		r.wstatus = status;
		r.start = j.start;
		r.utime = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
		r.stime = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
		/* The task's process began in the master's memory (spawn.h:
		 * vfork semantics), and the kernel counts that memory's
		 * peak into the child's when it execs: a peak no more than
		 * the master's is the master's, the task's is not known
		 * (unless its cgroup says it). */
		r.maxrss_kb = ru.ru_maxrss > j.master_kb ? ru.ru_maxrss : -1;
		cgroup_usage(j.cg, &r);
		if (contain_task_oom(j.cg) > 0) {
			snprintf(r.state, sizeof(r.state), "OUT_OF_MEMORY");
			snprintf(r.error, sizeof(r.error), "the kernel ended it "
				 "at its memory (its cgroup's memory limit)");
		}
		logs_end(&j, contain_task_end(j.cg, pid), &r.out_empty,
			 &r.err_empty);
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
	if (x->loop) {
		loop_timer_cancel(x->loop, &x->name_timer);
		loop_timer_cancel(x->loop, &x->cap_timer);
	}
	for (size_t i = 0; i < x->njobs; i++) {
		bool out_empty, err_empty;
		logs_end(&x->jobs[i], false, &out_empty, &err_empty);
	}
	free(x->jobs);
	free(x);
	if (!all) {
		for (size_t i = 0; i < spare.n; i++)
			close(spare.v[i]);
		VEC_FREE(spare);
	}
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
	NULL, /* no store: the files are here */
	NULL,
};

struct exec *
exec_local_new(exec_done_fn done, struct loop *loop, void *arg)
{
	struct exec_local *x = xcalloc(1, sizeof(*x));
	x->base.ops = &local_ops;
	x->base.done = done;
	x->base.arg = arg;
	x->base.state = EXEC_READY;
	x->loop = loop;
	x->next = all;
	all = x;
	return &x->base;
}
