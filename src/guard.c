#include "guard.h"
#include "contain.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LOCK_PATH ".wfrun/lock"

static int guard_fd = -1;   /* write end of the pipe to the guardian */
static pid_t guard_pid = -1;

int
guard_lock(const char *workdir, struct errbuf *err)
{
	int fd = open(LOCK_PATH, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return errprintf(err, "cannot open the lock %s: %s", LOCK_PATH,
				 strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK) {
			errprintf(err, "cannot lock %s: %s", LOCK_PATH,
				  strerror(errno));
			close(fd);
			return -1;
		}
		char buf[32];
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
		long pid = 0;
		if (n > 0) {
			buf[n] = '\0';
			pid = strtol(buf, NULL, 10);
		}
		if (pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM)) {
			errprintf(err, "another wfrun (PID %ld) is running in %s; "
				  "wait for it to end or stop it (the lock is %s/%s)",
				  pid, workdir, workdir, LOCK_PATH);
			close(fd);
			return -1;
		}
		/* Its master is gone: its guardian is killing the orphans
		 * and holds the lock until they are dead. */
		verbose_msg("waiting for the tasks of a crashed run (PID %ld) to "
			    "be killed", pid);
		while (flock(fd, LOCK_EX) < 0) {
			if (errno != EINTR) {
				errprintf(err, "cannot lock %s: %s", LOCK_PATH,
					  strerror(errno));
				close(fd);
				return -1;
			}
		}
	}
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, (size_t)n, 0) != n) {
		errprintf(err, "cannot write %s: %s", LOCK_PATH, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* The guardian's whole life: keep the set of live groups until EOF.  It
 * reads what has come in one go, then naps GUARD_NAP_NS, so that the
 * master's two writes per task seldom have a sleeping reader to wake. */
#define GUARD_NAP_NS 5000000L

NORETURN static void
guardian(int rfd)
{
	pid_t *set = NULL;
	size_t n = 0, alloc = 0;
	int32_t buf[1024];
	size_t have = 0; /* bytes in buf */
	for (;;) {
		ssize_t r = read(rfd, (char *)buf + have, sizeof(buf) - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		have += (size_t)r;
		size_t k;
		for (k = 0; (k + 1) * sizeof(int32_t) <= have; k++) {
			int32_t v = buf[k];
			if (v > 0) {
				ALLOC_GROW(set, n + 1, alloc);
				set[n++] = v;
				continue;
			}
			for (size_t i = 0; i < n; i++)
				if (set[i] == -v) {
					set[i] = set[--n];
					break;
				}
		}
		have -= k * sizeof(int32_t);
		memmove(buf, buf + k, have);
		struct timespec nap = { 0, GUARD_NAP_NS };
		nanosleep(&nap, NULL);
	}
	for (size_t i = 0; i < n; i++)
		kill(-set[i], SIGKILL);
	/* the lock is held until they are gone (bounded: a process in
	 * uninterruptible sleep may take its time) */
	for (int tries = 0; n && tries < 6000; tries++) {
		size_t alive = 0;
		for (size_t i = 0; i < n; i++)
			alive += contain_group_alive(set[i]);
		if (!alive)
			break;
		struct timespec nap = { 0, 5000000 };
		nanosleep(&nap, NULL);
	}
	/* and what the groups did not hold: the run's cgroup */
	contain_kill_all();
	_exit(0);
}

int
guard_start(struct errbuf *err)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return errprintf(err, "cannot create a pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return errprintf(err, "cannot fork: %s", strerror(errno));
	}
	if (pid == 0) {
		/* Ctrl-C reaches the whole foreground group: the master
		 * handles it, the guardian waits for the master. */
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(p[1]);
		int dn = open("/dev/null", O_RDWR);
		if (dn >= 0) {
			/* not holding the master's output open */
			dup2(dn, 0);
			dup2(dn, 1);
			dup2(dn, 2);
			if (dn > 2)
				close(dn);
		}
		/* Other descriptors (the lock among them) are kept: the
		 * lock is the point, the rest are close-on-exec files that
		 * cost nothing while the master lives. */
		guardian(p[0]);
	}
	close(p[0]);
	guard_fd = p[1];
	guard_pid = pid;
	return 0;
}

static void
send(int32_t v)
{
	if (guard_fd < 0)
		return;
	while (write(guard_fd, &v, sizeof(v)) < 0 && errno == EINTR)
		;
}

void
guard_add(pid_t pgid)
{
	send((int32_t)pgid);
}

void
guard_remove(pid_t pgid)
{
	send(-(int32_t)pgid);
}

void
guard_stop(void)
{
	if (guard_fd < 0)
		return;
	close(guard_fd);
	guard_fd = -1;
	while (waitpid(guard_pid, NULL, 0) < 0 && errno == EINTR)
		;
	guard_pid = -1;
}
