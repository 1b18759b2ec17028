#include "contain.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/* How long killed processes may take to end before contain gives up on
 * them (a process in uninterruptible sleep on a dead NFS server). */
#define DEATH_WAIT 30.0
/* The largest record read back (a run of 1e6 tasks in CONTAIN_GROUP). */
#define RECORD_MAX (64L << 20)

/* A task cgroup: busy while its task runs; dirty once killed with
 * processes in it, until it is seen empty. */
struct slot {
	int procs_fd, events_fd;
	bool busy, dirty;
	bool limited;   /* its memory.max is not "max" */
	long oom_base;  /* memory.events' oom_kill when its task began */
	int v1_fd;      /* its v1 memory cgroup's cgroup.procs, or -1 */
	long long user0, sys0; /* cpu.stat's user_usec, system_usec at
				  its task's begin */
};

static enum contain_mode mode;
static char *run_dir;     /* the run's cgroup */
static char *record;      /* path of the record */
static int record_fd = -1;
static VEC(struct slot) slots;
static bool mem_ctl;      /* task cgroups have the memory controller */
static char *v1_dir;      /* else the run's cgroup in a v1 memory
			     hierarchy (hybrid mode), or NULL */
static char *mirror;      /* hybrid mode: the run's cgroup2 path (from
			     the root), where a container engine's
			     cgroupfs driver makes the task's in each v1
			     hierarchy (swenv.c's --cgroup-parent) */

enum contain_mode
contain_mode(void)
{
	return mode;
}

const char *
contain_cgroup(void)
{
	return run_dir;
}

/* fd moved above 2 (spawn's child writes to it after its dup2s). */
static int
above2(int fd)
{
	if (fd < 0 || fd > 2)
		return fd;
	int h = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return h;
}

static int
open_in(const char *dir, const char *file, int flags)
{
	char path[PATH_MAX];
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >=
	    sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return above2(open(path, flags | O_CLOEXEC));
}

/* Whether the cgroup whose cgroup.events is open on fd holds a process. */
static bool
populated(int fd)
{
	char buf[256];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return true; /* cannot tell: not free */
	buf[n] = '\0';
	return !strstr(buf, "populated 0");
}

static double
mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Kill every process of the cgroup dir and its descendants, wait for
 * their end; 0, or -1 if some are still there after DEATH_WAIT. */
static int
cgroup_kill_wait(const char *dir)
{
	int k = open_in(dir, "cgroup.kill", O_WRONLY);
	if (k >= 0) {
		if (write(k, "1", 1) < 0) {
			/* nothing to do about it: the wait says */
		}
		close(k);
	}
	int ev = open_in(dir, "cgroup.events", O_RDONLY);
	if (ev < 0)
		return errno == ENOENT ? 0 : -1;
	double until = mono() + DEATH_WAIT;
	int r = 0;
	while (populated(ev)) {
		if (mono() > until) {
			r = -1;
			break;
		}
		/* cgroup.events signals a change of populated as POLLPRI */
		struct pollfd p = { ev, POLLPRI, 0 };
		poll(&p, 1, 100);
	}
	close(ev);
	return r;
}

/* fn(dir/name, name) for each entry of dir but . and .., until it
 * returns true (then so does each_entry). */
static bool
each_entry(const char *dir, bool (*fn)(const char *path, const char *name))
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool stop = false;
	while (d && !stop && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *path = xasprintf("%s/%s", dir, de->d_name);
		stop = fn(path, de->d_name);
		free(path);
	}
	if (d)
		closedir(d);
	return stop;
}

static bool remove_one(const char *path, const char *name);

/* Remove the cgroup dir and its descendants (all empty). */
static void
cgroup_remove(const char *dir)
{
	each_entry(dir, remove_one);
	rmdir(dir);
}

static bool
remove_one(const char *path, const char *name)
{
	struct stat st;
	(void)name;
	if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
		cgroup_remove(path);
	return false;
}

/* Whether dir is a cgroup2 directory that a record may name: wfrun's,
 * and the one recorded (its inode: a cgroup's id, never reused in a
 * boot, so a later run's cgroup of the same name is not taken for it). */
static bool
is_run_cgroup(const char *dir, unsigned long long ino)
{
	struct statfs sf;
	struct stat st;
	const char *base = strrchr(dir, '/');
	return base && !strncmp(base + 1, "wfrun-", 6) &&
	       statfs(dir, &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC &&
	       stat(dir, &st) == 0 && (unsigned long long)st.st_ino == ino;
}

/* /proc/PID/stat of process pid (a name under /proc) in buf, from the
 * space after the command (field 2); NULL if there is no such process. */
static const char *
proc_stat(const char *pid, char *buf, size_t size)
{
	char path[300];
	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return strrchr(buf, ')');
}

/* The start time of process pid (clock ticks after boot), 0 if none. */
static unsigned long long
proc_start(pid_t pid)
{
	char name[32], buf[1024];
	snprintf(name, sizeof(name), "%d", (int)pid);
	const char *p = proc_stat(name, buf, sizeof(buf));
	/* after the command: state is field 3, starttime field 22 */
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	return p ? strtoull(p + 1, NULL, 10) : 0;
}

bool
contain_group_alive(pid_t pgid)
{
	if (pgid <= 0 || kill(-pgid, 0) < 0)
		return false;
	/* kill() counts zombies: look for a member that is not one */
	DIR *d = opendir("/proc");
	struct dirent *de;
	bool live = false;
	while (d && !live && (de = readdir(d))) {
		char buf[1024], state;
		long pgrp;
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		const char *p = proc_stat(de->d_name, buf, sizeof(buf));
		if (p && sscanf(p + 1, " %c %*d %ld", &state, &pgrp) == 2 &&
		    pgrp == pgid && state != 'Z')
			live = true;
	}
	if (d)
		closedir(d);
	return live;
}

/* Kill process group pgid if it is the one whose leader started at
 * start (its leader gone, or still that process: a group's number is not
 * given to another process while a member lives), and wait for its end;
 * the number of groups killed, or -1 if it does not die. */
static int
group_kill_wait(pid_t pgid, unsigned long long start)
{
	if (pgid <= 1 || kill(-pgid, 0) < 0)
		return 0;
	unsigned long long now = proc_start(pgid);
	if (now && now != start)
		return 0; /* pgid was reused */
	kill(-pgid, SIGKILL);
	double until = mono() + DEATH_WAIT;
	while (contain_group_alive(pgid)) {
		if (mono() > until)
			return -1;
		struct timespec nap = { 0, 5000000 };
		nanosleep(&nap, NULL);
	}
	return 1;
}

static void
boot_id(char out[64])
{
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, out, 63);
	if (fd >= 0)
		close(fd);
	n = n < 0 ? 0 : n;
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
}

/* One line of an earlier run's record; -1 with err if what it names does
 * not die.  *killed counts what was still alive. */
static int
sweep_line(char *line, int *killed, struct errbuf *err)
{
	if (!strncmp(line, "cgroup ", 7)) {
		char *dir;
		unsigned long long ino = strtoull(line + 7, &dir, 10);
		if (*dir++ != ' ' || !is_run_cgroup(dir, ino))
			return 0;
		int ev = open_in(dir, "cgroup.events", O_RDONLY);
		if (ev >= 0) {
			*killed += populated(ev);
			close(ev);
		}
		if (cgroup_kill_wait(dir) < 0)
			return errprintf(err, "the processes of an earlier run in "
					 "%s do not end", dir);
		cgroup_remove(dir);
	} else if (!strncmp(line, "pgid ", 5)) {
		char *end;
		long pgid = strtol(line + 5, &end, 10);
		unsigned long long start = strtoull(end, NULL, 10);
		int r = group_kill_wait((pid_t)pgid, start);
		if (r < 0)
			return errprintf(err, "the processes of an earlier run in "
					 "process group %ld do not end", pgid);
		*killed += r;
	}
	return 0;
}

/* What an earlier run's record names, killed: 0, or -1 with err. */
static int
sweep_record(const char *path, struct errbuf *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > RECORD_MAX) {
		close(fd);
		return 0; /* not one of ours */
	}
	char *text = xmalloc((size_t)st.st_size + 1);
	ssize_t n = pread(fd, text, (size_t)st.st_size, 0);
	close(fd);
	text[n < 0 ? 0 : n] = '\0';
	char boot[64], *line = text, *next;
	boot_id(boot);
	int killed = 0, r = 0;
	/* the first line is the boot: after a reboot, nothing is left */
	if (strncmp(line, "boot ", 5) ||
	    strncmp(line + 5, boot, strlen(boot)) || !*boot) {
		free(text);
		return 0;
	}
	for (; line && r == 0; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		r = sweep_line(line, &killed, err);
	}
	free(text);
	if (killed)
		warning_msg("killed %d task%s of an earlier run that %s still "
			    "running (its wfrun was killed)", killed,
			    killed == 1 ? "" : "s", killed == 1 ? "was" : "were");
	return r;
}

/* The cgroup2 directory of this process, or NULL. */
static char *
own_cgroup(void)
{
	char *cg = NULL, *dir = NULL, line[4096];
	FILE *f = fopen("/proc/self/cgroup", "re");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::/", 4)) {
			line[strcspn(line, "\n")] = '\0';
			cg = xstrdup(line + 3);
		}
	if (f)
		fclose(f);
	f = cg ? fopen("/proc/self/mountinfo", "re") : NULL;
	while (f && !dir && fgets(line, sizeof(line), f)) {
		/* id parent dev root mountpoint opts ... - fstype src sopts */
		char root[1024], mnt[1024];
		const char *sep = strstr(line, " - cgroup2 ");
		if (!sep || sscanf(line, "%*s %*s %*s %1023s %1023s", root,
				   mnt) != 2)
			continue;
		size_t rl = strcmp(root, "/") ? strlen(root) : 0;
		if (!strncmp(cg, root, rl) && (!cg[rl] || cg[rl] == '/'))
			dir = xasprintf("%s%s", mnt, cg + rl);
	}
	if (f)
		fclose(f);
	free(cg);
	return dir;
}

/* The number in file path (a cgroup limit, "max": none), or 0. */
static long long
limit_in(const char *path)
{
	char buf[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n > 0 && buf[0] >= '0' && buf[0] <= '9' ? atoll(buf) : 0;
}

/* The v1 memory controller's limit of this process's cgroup, or 0. */
static long long
limit_v1(void)
{
	char line[4096];
	long long lim = 0;
	FILE *f = fopen("/proc/self/cgroup", "re");
	while (f && fgets(line, sizeof(line), f)) {
		char *m = strstr(line, ":memory:/");
		if (!m)
			continue;
		line[strcspn(line, "\n")] = '\0';
		char *path = xasprintf("/sys/fs/cgroup/memory%s/"
				       "memory.limit_in_bytes", m + 8);
		lim = limit_in(path);
		free(path);
		if (!lim)
			lim = limit_in("/sys/fs/cgroup/memory/"
				       "memory.limit_in_bytes");
	}
	if (f)
		fclose(f);
	return lim;
}

long long
contain_memory(void)
{
	long long total = 0, lim;
	char line[256];
	FILE *f = fopen("/proc/meminfo", "re");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "MemTotal:", 9))
			total = atoll(line + 9) * 1024;
	if (f)
		fclose(f);
	char *own = own_cgroup();
	if (own) {
		char *path = xasprintf("%s/memory.max", own);
		lim = limit_in(path);
		if (lim > 0 && (!total || lim < total))
			total = lim;
		free(path);
		free(own);
	}
	lim = limit_v1();
	if (lim > 0 && (!total || lim < total))
		total = lim;
	return total;
}

/* Remove the empty run cgroups under own of wfrun processes that are
 * gone (killed with their guardian in a workdir never run again); one
 * with processes is left to the next run of its workdir. */
static bool
remove_stale(const char *dir, const char *name)
{
	char *end;
	if (strncmp(name, "wfrun-", 6))
		return false;
	long pid = strtol(name + 6, &end, 10);
	if (pid <= 0 || (*end && *end != '-') || kill((pid_t)pid, 0) == 0 ||
	    errno != ESRCH)
		return false;
	int ev = open_in(dir, "cgroup.events", O_RDONLY);
	if (ev >= 0 && !populated(ev))
		cgroup_remove(dir);
	if (ev >= 0)
		close(ev);
	return false;
}

/* Write text to dir/file; 0 or -1. */
static int
write_in(const char *dir, const char *file, const char *text)
{
	int fd = open_in(dir, file, O_WRONLY);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* Give the children of the run's cgroup dir the memory controller, where
 * the parent delegates it (cgroup v2; a v1 memory hierarchy is not
 * used); whether it did. */
static bool
enable_memory(const char *dir)
{
	char buf[512];
	int fd = open_in(dir, "cgroup.controllers", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	for (char *w = strtok(buf, " \n"); w; w = strtok(NULL, " \n"))
		if (!strcmp(w, "memory"))
			return write_in(dir, "cgroup.subtree_control",
					"+memory") == 0;
	return false;
}

/* each_entry: a v1 memory cgroup of a wfrun that is gone, removed. */
static bool
remove_stale_v1(const char *dir, const char *name)
{
	char *end;
	if (strncmp(name, "wfrun-", 6))
		return false;
	long pid = strtol(name + 6, &end, 10);
	if (pid > 0 && !*end && kill((pid_t)pid, 0) < 0 && errno == ESRCH)
		cgroup_remove(dir);
	return false;
}

/* The run's cgroup in the v1 memory hierarchy, under this process's
 * there (hybrid mode: memory is not on the unified hierarchy), or NULL
 * when there is none or it cannot be written. */
static char *
make_v1_dir(void)
{
	char line[4096], *dir = NULL;
	FILE *f = fopen("/proc/self/cgroup", "re");
	while (f && !dir && fgets(line, sizeof(line), f)) {
		char *m = strstr(line, ":memory:/");
		if (!m)
			continue;
		line[strcspn(line, "\n")] = '\0';
		dir = xasprintf("/sys/fs/cgroup/memory%s%swfrun-%d", m + 8,
				m[9] ? "/" : "", (int)getpid());
	}
	if (f)
		fclose(f);
	if (dir) { /* those of runs that are gone (rmdir leaves a busy one) */
		char *parent = xstrndup(dir, (size_t)(strrchr(dir, '/') - dir));
		each_entry(parent, remove_stale_v1);
		free(parent);
	}
	if (dir && mkdir(dir, 0755) < 0 && errno != EEXIST) {
		free(dir);
		dir = NULL;
	}
	return dir;
}

/* Where the v1 hierarchies are mounted, one directory per controller. */
#define V1_ROOT "/sys/fs/cgroup"

/* In hybrid mode (cgroup2 at V1_ROOT/unified), run_dir's path from the
 * cgroup2 root: what a task's /proc/self/cgroup shows; else NULL. */
static char *
mirror_path(void)
{
	const char *u = V1_ROOT "/unified/";
	if (strncmp(run_dir, u, strlen(u)))
		return NULL;
	char *own = NULL, line[4096];
	FILE *f = fopen("/proc/self/cgroup", "re");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::/", 4)) {
			line[strcspn(line, "\n")] = '\0';
			free(own);
			own = xstrdup(line + 3);
		}
	if (f)
		fclose(f);
	if (!own)
		return NULL;
	size_t l = strlen(own);
	if (l && own[l - 1] == '/')
		own[l - 1] = '\0';
	char *m = xasprintf("%s%s", own, strrchr(run_dir, '/'));
	free(own);
	return m;
}

static bool mirror_sweep; /* each_mirror's: earlier runs' or this one's */

/* each_entry over V1_ROOT: in that hierarchy, the mirror of the run's
 * cgroup that an engine made, removed (all empty at the run's end); with
 * mirror_sweep, the mirrors of earlier runs whose wfrun is gone (left
 * when a process of theirs outlived them), removed where empty. */
static bool
each_mirror(const char *path, const char *name)
{
	if (!strcmp(name, "unified"))
		return false;
	char *d = xasprintf("%s%s", path, mirror);
	if (mirror_sweep) {
		*strrchr(d, '/') = '\0';
		each_entry(d, remove_stale_v1);
	} else {
		cgroup_remove(d);
	}
	free(d);
	return false;
}

/* Remove this run's mirrors (sweep: earlier runs'), in every hierarchy. */
static void
mirrors_remove(bool sweep)
{
	mirror_sweep = sweep;
	each_entry(V1_ROOT, each_mirror);
}

/* The numbers after "user_usec " and "system_usec " in the cpu.stat of
 * task cgroup handle; false when it cannot be read. */
static bool
cpu_stat(int handle, long long *user, long long *sys)
{
	char *d = xasprintf("%s/t%d", run_dir, handle);
	char buf[1024];
	int fd = open_in(d, "cpu.stat", O_RDONLY);
	free(d);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	const char *u = strstr(buf, "user_usec "), *s = strstr(buf,
							    "system_usec ");
	if (!u || !s)
		return false;
	*user = strtoll(u + 10, NULL, 10);
	*sys = strtoll(s + 12, NULL, 10);
	return true;
}

/* The v1 memory cgroup an engine made for task cgroup handle's
 * containers (its mirror), or NULL. */
static char *
mirror_memory(int handle)
{
	return mirror ? xasprintf(V1_ROOT "/memory%s/t%d", mirror, handle)
		      : NULL;
}

/* The task of handle begins: its CPU time so far, and its containers'
 * memory peak reset. */
static void
usage_base(int handle)
{
	struct slot *s = &slots.v[handle];
	if (!cpu_stat(handle, &s->user0, &s->sys0))
		s->user0 = s->sys0 = 0;
	char *m = mirror_memory(handle);
	int fd = m ? open_in(m, "memory.max_usage_in_bytes", O_WRONLY) : -1;
	if (fd >= 0) {
		if (write(fd, "0", 1) < 0) {
			/* then the peak of an earlier task may show */
		}
		close(fd);
	}
	free(m);
}

int
contain_task_usage(int handle, double *user, double *sys, long *peak_kb)
{
	if (mode != CONTAIN_CGROUP || handle < 0 || (size_t)handle >= slots.n)
		return -1;
	struct slot *s = &slots.v[handle];
	long long u, y;
	if (!cpu_stat(handle, &u, &y))
		return -1;
	*user = (double)(u - s->user0) / 1e6;
	*sys = (double)(y - s->sys0) / 1e6;
	*peak_kb = -1;
	char *m = mirror_memory(handle);
	char *p = m ? xasprintf("%s/memory.max_usage_in_bytes", m) : NULL;
	long long peak = p ? (long long)limit_in(p) : 0;
	if (peak > 0)
		*peak_kb = (long)(peak / 1024);
	free(p);
	free(m);
	return 0;
}

/* Make the run's cgroup under this process's; 0, or -1 (no cgroup). */
static int
make_run_cgroup(void)
{
	char *own = own_cgroup();
	if (!own)
		return -1;
	size_t l = strlen(own);
	if (l && own[l - 1] == '/')
		own[l - 1] = '\0';
	each_entry(own, remove_stale);
	for (int i = 0; i < 100 && !run_dir; i++) {
		char *d = i ? xasprintf("%s/wfrun-%d-%d", own, (int)getpid(), i)
			    : xasprintf("%s/wfrun-%d", own, (int)getpid());
		if (mkdir(d, 0755) == 0) {
			run_dir = d;
			break;
		}
		free(d);
		if (errno != EEXIST)
			break;
	}
	free(own);
	if (!run_dir)
		return -1;
	int k = open_in(run_dir, "cgroup.kill", O_WRONLY);
	if (k < 0) { /* before Linux 5.14 */
		rmdir(run_dir);
		free(run_dir);
		run_dir = NULL;
		return -1;
	}
	close(k);
	mirror = mirror_path();
	if (mirror)
		mirrors_remove(true);
	mem_ctl = enable_memory(run_dir);
	if (!mem_ctl)
		v1_dir = make_v1_dir();
	return 0;
}

static int
write_record(struct errbuf *err)
{
	record_fd = open(record, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND |
			 O_CLOEXEC, 0644);
	if (record_fd < 0)
		return errprintf(err, "cannot write %s: %s", record,
				 strerror(errno));
	char boot[64];
	boot_id(boot);
	dprintf(record_fd, "boot %s\n", boot);
	struct stat st;
	if (run_dir && stat(run_dir, &st) == 0)
		dprintf(record_fd, "cgroup %llu %s\n",
			(unsigned long long)st.st_ino, run_dir);
	return 0;
}

int
contain_open(const char *record_path, struct errbuf *err)
{
	if (record_path && sweep_record(record_path, err) < 0)
		return -1;
	const char *no = getenv("WFRUN_NO_CGROUP");
	if ((!no || !*no) && make_run_cgroup() == 0) {
		mode = CONTAIN_CGROUP;
	} else {
		mode = CONTAIN_GROUP;
		prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	}
	if (record_path) {
		record = xstrdup(record_path);
		if (write_record(err) < 0) {
			contain_close();
			return -1;
		}
	}
	return 0;
}

int
contain_task_begin(int *procs_fd)
{
	*procs_fd = -1;
	if (mode != CONTAIN_CGROUP)
		return -1;
	size_t i;
	for (i = 0; i < slots.n; i++) {
		struct slot *s = &slots.v[i];
		if (s->busy || (s->dirty && populated(s->events_fd)))
			continue;
		s->dirty = false;
		break;
	}
	if (i == slots.n) {
		char *d = xasprintf("%s/t%zu", run_dir, i);
		struct slot s = { -1, -1, false, false, false, 0, -1, 0, 0 };
		if ((mkdir(d, 0755) == 0 || errno == EEXIST) &&
		    (s.procs_fd = open_in(d, "cgroup.procs", O_WRONLY)) >= 0 &&
		    (s.events_fd = open_in(d, "cgroup.events", O_RDONLY)) < 0) {
			close(s.procs_fd);
			s.procs_fd = -1;
		}
		free(d);
		if (s.procs_fd < 0)
			return -1;
		VEC_PUSH(slots, s);
	}
	slots.v[i].busy = true;
	usage_base((int)i);
	*procs_fd = slots.v[i].procs_fd;
	return (int)i;
}

/* The count after "oom_kill " in file of task cgroup handle's directory
 * (memory.events; v1: memory.oom_control), or 0. */
static long
oom_kills(int handle)
{
	char *d = xasprintf("%s/t%d", mem_ctl ? run_dir : v1_dir, handle);
	char buf[1024];
	int fd = open_in(d, mem_ctl ? "memory.events" : "memory.oom_control",
			 O_RDONLY);
	free(d);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	const char *k = strstr(buf, "oom_kill ");
	return k ? atol(k + 9) : 0;
}

/* Task cgroup handle's v1 memory cgroup limited to v (bytes, or -1),
 * its cgroup.procs opened once; whether the limit holds. */
static bool
limit_v1_task(struct slot *s, int handle, const char *v)
{
	char *d = xasprintf("%s/t%d", v1_dir, handle);
	if (s->v1_fd < 0 && (mkdir(d, 0755) == 0 || errno == EEXIST))
		s->v1_fd = open_in(d, "cgroup.procs", O_WRONLY);
	/* memsw (memory and swap) first when lowering: it must stay at or
	 * above the limit; without swap accounting only the limit is there */
	bool ok = s->v1_fd >= 0 &&
		  (write_in(d, "memory.limit_in_bytes", v) == 0 ||
		   (write_in(d, "memory.memsw.limit_in_bytes", v) == 0 &&
		    write_in(d, "memory.limit_in_bytes", v) == 0));
	write_in(d, "memory.memsw.limit_in_bytes", v);
	free(d);
	return ok;
}

bool
contain_task_memory(int handle, long long bytes, int *v1_fd)
{
	*v1_fd = -1;
	if ((!mem_ctl && !v1_dir) || handle < 0 || (size_t)handle >= slots.n)
		return false;
	struct slot *s = &slots.v[handle];
	if (!bytes && !s->limited)
		return false;
	char v[32] = "max";
	bool ok;
	if (mem_ctl) {
		char *d = xasprintf("%s/t%d", run_dir, handle);
		if (bytes)
			snprintf(v, sizeof(v), "%lld", bytes);
		ok = write_in(d, "memory.max", v) == 0;
		/* over memory.max a task would swap, not end */
		write_in(d, "memory.swap.max", bytes ? "0" : "max");
		free(d);
	} else {
		snprintf(v, sizeof(v), "%lld", bytes ? bytes : -1LL);
		ok = limit_v1_task(s, handle, v);
		if (ok && bytes)
			*v1_fd = s->v1_fd;
	}
	s->limited = ok && bytes;
	s->oom_base = oom_kills(handle);
	return s->limited;
}

long
contain_task_oom(int handle)
{
	if ((!mem_ctl && !v1_dir) || handle < 0 ||
	    (size_t)handle >= slots.n || !slots.v[handle].limited)
		return 0;
	return oom_kills(handle) - slots.v[handle].oom_base;
}

void
contain_task_started(pid_t pgid)
{
	if (mode != CONTAIN_GROUP || record_fd < 0)
		return;
	dprintf(record_fd, "pgid %d %llu\n", (int)pgid, proc_start(pgid));
}

/* CONTAIN_GROUP: kill the children of this process that are in another
 * session (a task's orphans that left its group with setsid). */
static void
sweep_orphans(void)
{
	pid_t sid = getsid(0);
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[300], buf[4096];
		snprintf(path, sizeof(path), "/proc/self/task/%s/children",
			 de->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		buf[n < 0 ? 0 : n] = '\0';
		for (char *p = buf, *end; *p; p = end) {
			long pid = strtol(p, &end, 10);
			if (end == p)
				break;
			pid_t s = getsid((pid_t)pid);
			if (pid > 1 && s >= 0 && s != sid) {
				kill(-(pid_t)pid, SIGKILL);
				kill((pid_t)pid, SIGKILL);
			}
		}
	}
	if (d)
		closedir(d);
}

bool
contain_task_end(int handle, pid_t pgid)
{
	if (mode == CONTAIN_GROUP)
		sweep_orphans();
	if (handle < 0 || (size_t)handle >= slots.n)
		/* in CONTAIN_GROUP, an orphan may hold what the task held */
		return mode == CONTAIN_OFF && pgid > 0 && kill(-pgid, 0) < 0 &&
		       errno == ESRCH;
	struct slot *s = &slots.v[handle];
	s->busy = false;
	if (!populated(s->events_fd))
		return true;
	char *d = xasprintf("%s/t%d", run_dir, handle);
	int k = open_in(d, "cgroup.kill", O_WRONLY);
	free(d);
	if (k >= 0) {
		if (write(k, "1", 1) < 0) {
			/* dirty: not used again before it is seen empty */
		}
		close(k);
	}
	s->dirty = true;
	return false;
}

void
contain_kill_all(void)
{
	bool all_dead = true;
	if (mode == CONTAIN_GROUP)
		sweep_orphans();
	if (run_dir) {
		all_dead = cgroup_kill_wait(run_dir) == 0;
		for (size_t i = 0; i < slots.n; i++) {
			close(slots.v[i].procs_fd);
			close(slots.v[i].events_fd);
			if (slots.v[i].v1_fd >= 0)
				close(slots.v[i].v1_fd);
		}
		if (v1_dir && all_dead)
			cgroup_remove(v1_dir);
		if (mirror && all_dead)
			mirrors_remove(false);
		VEC_FREE(slots);
		if (all_dead)
			cgroup_remove(run_dir);
	}
	if (record_fd >= 0) {
		close(record_fd);
		record_fd = -1;
	}
	/* in CONTAIN_GROUP the guardian has killed the groups */
	if (record && all_dead)
		unlink(record);
}

void
contain_close(void)
{
	if (mode == CONTAIN_OFF)
		return;
	contain_kill_all();
	free(run_dir);
	run_dir = NULL;
	free(v1_dir);
	v1_dir = NULL;
	free(mirror);
	mirror = NULL;
	free(record);
	record = NULL;
	mem_ctl = false;
	mode = CONTAIN_OFF;
}
