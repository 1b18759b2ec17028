/* Unit tests of contain: a task's cgroup holds what it starts, even in a
 * session of its own, and ends it when its first process ends; an empty
 * task cgroup is used again; the run's cgroup goes at the end; a record
 * of an earlier run kills the process group it names only if that group
 * is still the one recorded (its leader's start time), and only in the
 * boot it was written in; an empty run cgroup of a wfrun that is gone is
 * removed.  The cgroup tests are skipped where this
 * process may not make a cgroup (then the mode must be CONTAIN_GROUP). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "contain.h"
#include "spawn.h"
#include "tap.h"

/* Whether process pid runs (a zombie has ended). */
static bool
alive(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z';
}

/* Poll (up to 5 s) until pid has ended; whether it has. */
static bool
ends(pid_t pid)
{
	for (int i = 0; i < 500 && alive(pid); i++) {
		struct timespec nap = { 0, 10000000 };
		nanosleep(&nap, NULL);
	}
	return !alive(pid);
}

/* The pid a task wrote into path (waits for it, up to 5 s). */
static pid_t
pid_in(const char *path)
{
	for (int i = 0; i < 500; i++) {
		FILE *f = fopen(path, "r");
		long pid = 0;
		if (f && fscanf(f, "%ld", &pid) == 1 && pid > 0) {
			fclose(f);
			return (pid_t)pid;
		}
		if (f)
			fclose(f);
		struct timespec nap = { 0, 10000000 };
		nanosleep(&nap, NULL);
	}
	return -1;
}

/* Start sh -c script in a task cgroup limited to mem bytes (0: none);
 * its handle in *cg. */
static pid_t
start_mem(const char *script, long long mem, int *cg)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };
	int fd, mfd;
	*cg = contain_task_begin(&fd);
	contain_task_memory(*cg, mem, &mfd);
	struct spawn_req req = { "/bin/sh", argv, NULL, NULL, 1, 2, fd, mfd };
	struct errbuf eb;
	return spawn_task(&req, &eb);
}

static pid_t
start(const char *script, int *cg)
{
	return start_mem(script, 0, cg);
}

/* Whether the run's cgroup gives its tasks the memory controller. */
static bool
memory_delegated(const char *run)
{
	char path[4200], buf[256] = "";
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", run);
	FILE *f = fopen(path, "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	return strstr(buf, "memory") != NULL;
}

/* memory.max per task where the kernel offers it (v2, or a v1 memory
 * hierarchy beside it), an OOM kill counted. */
static void
memory_tests(const char *run)
{
	int cg, fd, mfd;
	cg = contain_task_begin(&fd);
	bool on = contain_task_memory(cg, 20 << 20, &mfd);
	contain_task_end(cg, 0);
	if (!memory_delegated(run) && access("/sys/fs/cgroup/memory", W_OK)) {
		ok(!on, "no memory controller here: memory is not enforced");
		return;
	}
	ok(on, "the memory limit is set");
	pid_t pid = start_mem("dd if=/dev/zero of=/dev/null bs=100M count=1",
			      20 << 20, &cg);
	int st;
	waitpid(pid, &st, 0);
	ok((WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) ||
	   (WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGKILL),
	   "the kernel ended the task at its memory");
	ok(contain_task_oom(cg) > 0, "the kernel's OOM kill is counted");
	contain_task_end(cg, pid);
	pid = start("exit 0", &cg);
	ok(!contain_task_memory(cg, 0, &mfd), "the next task is not limited");
	waitpid(pid, &st, 0);
	is_int(contain_task_oom(cg), 0, "and has no OOM kill");
	contain_task_end(cg, pid);
}

static void
cgroup_tests(void)
{
	char *run = xstrdup(contain_cgroup());
	struct stat st;
	ok(stat(run, &st) == 0 && S_ISDIR(st.st_mode), "the run's cgroup %s",
	   run);
	int cg;
	pid_t pid = start("setsid sh -c 'echo $$ >esc.pid; exec sleep 60' & "
			  "while [ ! -s esc.pid ]; do sleep 0.01; done", &cg);
	ok(cg >= 0 && pid > 0, "a task in a cgroup");
	pid_t esc = pid_in("esc.pid");
	waitpid(pid, NULL, 0);
	ok(esc > 0 && alive(esc), "its setsid'd process outlives its shell");
	ok(!contain_task_end(cg, pid), "the task's end: something was left");
	ok(ends(esc), "and it has been killed");
	unlink("esc.pid");

	/* the killed cgroup, once empty, is the next task's */
	int cg2;
	pid = start("exit 0", &cg2);
	waitpid(pid, NULL, 0);
	is_int(cg2, cg, "an empty task cgroup is used again");
	ok(contain_task_end(cg2, pid), "a task that left nothing");

	memory_tests(run);

	/* one still running at the end of the run */
	pid = start("echo $$ >bg.pid; exec sleep 60", &cg);
	pid_t bg = pid_in("bg.pid");
	ok(cg != cg2 || cg >= 0, "a second task");
	contain_close();
	waitpid(pid, NULL, 0);
	ok(bg > 0 && !alive(bg), "contain_close killed it");
	ok(stat(run, &st) < 0 && errno == ENOENT, "and removed the run's cgroup");
	unlink("bg.pid");
	free(run);
}

/* The empty cgroup of a wfrun that is gone is removed at the next
 * contain_open under the same cgroup; a live one's is not. */
static void
stale_tests(void)
{
	char *parent = xstrdup(contain_cgroup());
	*strrchr(parent, '/') = '\0';
	contain_close();
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	char *gone = xasprintf("%s/wfrun-%d", parent, (int)dead);
	char *gone_t = xasprintf("%s/t0", gone);
	char *live = xasprintf("%s/wfrun-%d-9", parent, (int)getppid());
	ok(mkdir(gone, 0755) == 0 && mkdir(gone_t, 0755) == 0 &&
	   mkdir(live, 0755) == 0, "two run cgroups made");
	struct errbuf eb;
	contain_open(NULL, &eb);
	ok(access(gone, F_OK) < 0, "a dead wfrun's is removed");
	ok(access(live, F_OK) == 0, "a live one's is kept");
	rmdir(live);
	contain_close();
	free(gone);
	free(gone_t);
	free(live);
	free(parent);
}

/* A child in a process group of its own, sleeping. */
static pid_t
sleeper(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		execl("/bin/sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	return pid;
}

static unsigned long long
start_time(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	for (int i = 2; p && i < 22; i++)
		p = strchr(p + 1, ' ');
	return p ? strtoull(p + 1, NULL, 10) : 0;
}

static void
record(const char *boot, pid_t pgid, unsigned long long start)
{
	FILE *f = fopen("rec", "w");
	fprintf(f, "boot %s\npgid %d %llu\n", boot, (int)pgid, start);
	fclose(f);
}

/* This boot's id, as a record holds it. */
static void
boot_id(char boot[64])
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	if (!f || !fgets(boot, 64, f))
		boot[0] = '\0';
	boot[strcspn(boot, "\n")] = '\0';
	if (f)
		fclose(f);
}

static void
record_tests(void)
{
	char boot[64];
	FILE *f;
	boot_id(boot);
	struct errbuf eb;
	setenv("WFRUN_NO_CGROUP", "1", 1);

	pid_t p = sleeper();
	record(boot, p, start_time(p) + 1);
	is_int(contain_open("rec", &eb), 0, "a record whose group was reused");
	ok(alive(p), "leaves the new group alone");
	contain_close();
	record("another-boot", p, start_time(p));
	contain_open("rec", &eb);
	ok(alive(p), "a record of another boot is ignored");
	contain_close();
	record(boot, p, start_time(p));
	is_int(contain_open("rec", &eb), 0, "a record of a live group");
	int st = 0;
	waitpid(p, &st, 0);
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "kills it");
	is_int(contain_mode(), CONTAIN_GROUP, "WFRUN_NO_CGROUP: no cgroup");
	f = fopen("rec", "r");
	char line[128] = "";
	ok(f && fgets(line, sizeof(line), f) && !strncmp(line, "boot ", 5),
	   "the new record");
	if (f)
		fclose(f);
	contain_close();
	ok(access("rec", F_OK) < 0, "removed at the end");
	unsetenv("WFRUN_NO_CGROUP");
}

/* A record names a run cgroup by path and inode: a cgroup made since
 * under the same name is not the recorded one. */
static void
cgroup_record_tests(const char *parent)
{
	char boot[64];
	FILE *f;
	boot_id(boot);
	char *cg = xasprintf("%s/wfrun-%d-8", parent, (int)getppid());
	char *procs = xasprintf("%s/cgroup.procs", cg);
	struct stat st;
	ok(mkdir(cg, 0755) == 0 && stat(cg, &st) == 0, "an earlier run's cgroup");
	pid_t p = sleeper();
	f = fopen(procs, "w");
	ok(f && fprintf(f, "%d\n", (int)p) > 0 && fclose(f) == 0, "a task in it");
	struct errbuf eb;
	for (int right = 0; right < 2; right++) {
		f = fopen("rec", "w");
		fprintf(f, "boot %s\ncgroup %llu %s\n", boot,
			(unsigned long long)st.st_ino + !right, cg);
		fclose(f);
		contain_open("rec", &eb);
		contain_close();
		ok(right ? !alive(p) : alive(p), "%s inode: %s", right ?
		   "its" : "another", right ? "killed, removed" : "left alone");
	}
	waitpid(p, NULL, 0);
	ok(access(cg, F_OK) < 0, "the recorded cgroup is gone");
	rmdir(cg);
	free(cg);
	free(procs);
}

int
main(void)
{
	char dir[] = "/tmp/test-contain.XXXXXX";
	if (!mkdtemp(dir) || chdir(dir) < 0)
		return 1;
	struct errbuf eb;
	long long mem = contain_memory();
	long long total = (long long)sysconf(_SC_PHYS_PAGES) *
			  sysconf(_SC_PAGESIZE);
	ok(mem > 0 && mem <= total, "this machine's memory: %lld of %lld",
	   mem, total);
	is_int(contain_open(NULL, &eb), 0, "open");
	if (contain_mode() == CONTAIN_CGROUP) {
		char *parent = xstrdup(contain_cgroup());
		*strrchr(parent, '/') = '\0';
		cgroup_tests();
		contain_open(NULL, &eb);
		stale_tests();
		cgroup_record_tests(parent);
		free(parent);
	} else {
		is_int(contain_mode(), CONTAIN_GROUP, "no cgroup: groups");
		printf("# no cgroup may be made here: cgroup tests skipped\n");
		contain_close();
	}
	record_tests();
	if (chdir("/") < 0 || rmdir(dir) < 0)
		return 1;
	return done_testing();
}
