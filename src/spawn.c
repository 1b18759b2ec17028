#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The child's stack, in spawn_task's own frame: the calling thread is
 * suspended until the child has called execve or _exit. */
#define CHILD_STACK (64 * 1024)

/* What the child needs, and where it leaves the errno of a failed step
 * (the memory is shared until execve). */
struct child_args {
	const struct spawn_req *req;
	char *const *envp;
	volatile int err;
	volatile bool join_failed; /* err is the cgroup's, not execve's */
};

/* Taken once, at the first spawn: /dev/null for the tasks' stdin, and the
 * signals whose disposition the child must reset (the master's handled
 * ones, and those of spawn_signal_set() that are not SIG_DFL).  The
 * master installs no signal handler once tasks run: it takes its signals
 * through a signalfd (loop.c). */
static int devnull = -1;
static int resets[64];
static size_t nresets;
static bool handlers; /* some signal has a handler */

void
spawn_signal_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGQUIT);
	sigaddset(set, SIGPIPE);
}

void
spawn_attr_init(posix_spawnattr_t *at)
{
	sigset_t none, dfl;
	sigemptyset(&none);
	spawn_signal_set(&dfl);
	posix_spawnattr_init(at);
	posix_spawnattr_setsigmask(at, &none);
	posix_spawnattr_setsigdefault(at, &dfl);
	posix_spawnattr_setpgroup(at, 0);
	posix_spawnattr_setflags(at, POSIX_SPAWN_SETSIGMASK |
					     POSIX_SPAWN_SETSIGDEF |
					     POSIX_SPAWN_SETPGROUP);
}

static int
spawn_setup(void)
{
	if (devnull >= 0)
		return 0;
	sigset_t defs;
	spawn_signal_set(&defs);
	nresets = 0;
	for (int sig = 1; sig < NSIG && nresets < 64; sig++) {
		struct sigaction sa;
		if (sig == SIGKILL || sig == SIGSTOP ||
		    sigaction(sig, NULL, &sa) < 0 || sa.sa_handler == SIG_DFL)
			continue;
		if (sa.sa_handler != SIG_IGN)
			handlers = true;
		if (sa.sa_handler != SIG_IGN || sigismember(&defs, sig))
			resets[nresets++] = sig;
	}
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return devnull < 0 ? -1 : 0;
}

/* The child runs on a stack inside spawn_task's frame, which
 * AddressSanitizer takes for one local array of that frame: the child's
 * own frames are not instrumented (what it calls checks memory that is
 * all inside that array).  No effect on a build without ASan. */
#define CHILD_CODE __attribute__((no_sanitize_address))

/* fd, or a close-on-exec copy of it above 2, so that dup2 onto 0, 1 and
 * 2 cannot overwrite another of the three before it is copied (and never
 * gets fd == target, which would keep the close-on-exec flag). */
CHILD_CODE static int
high_fd(int fd)
{
	return fd > 2 ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

/* The child: only async-signal-safe calls, on its own stack, sharing
 * the master's memory until execve. */
CHILD_CODE static int
child(void *arg)
{
	struct child_args *a = arg;
	const struct spawn_req *req = a->req;
	struct sigaction dfl;
	sigset_t none;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&none);
	if ((req->cgroup_fd > 2 && write(req->cgroup_fd, "0", 1) < 0) ||
	    (req->mem_fd > 2 && write(req->mem_fd, "0", 1) < 0)) {
		a->join_failed = true;
		goto fail;
	}
	if (setpgid(0, 0) < 0)
		goto fail;
	for (size_t i = 0; i < nresets; i++)
		sigaction(resets[i], &dfl, NULL);
	int in = high_fd(devnull), out = high_fd(req->out_fd),
	    err = high_fd(req->err_fd);
	if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 ||
	    dup2(out, 1) < 0 || dup2(err, 2) < 0)
		goto fail;
	if (req->cwd && chdir(req->cwd) < 0)
		goto fail;
	sigprocmask(SIG_SETMASK, &none, NULL);
	execve(req->exe, req->argv, a->envp);
fail:
	a->err = errno ? errno : ENOEXEC;
	_exit(127);
}

pid_t
spawn_task(const struct spawn_req *req, struct errbuf *err)
{
	_Alignas(16) char stack[CHILD_STACK];
	struct child_args a = { req, req->envp ? req->envp : environ, 0, false };
	sigset_t all, old;
	int r;
	pid_t pid;

	if (spawn_setup() < 0) {
		errprintf(err, "cannot open /dev/null: %s", strerror(errno));
		return -1;
	}
	/* No handler may run in the child before it resets them. */
	sigfillset(&all);
	if (handlers)
		sigprocmask(SIG_BLOCK, &all, &old);
	pid = clone(child, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD,
		    &a);
	r = pid < 0 ? errno : a.err;
	if (handlers)
		sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid > 0 && r) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (r) {
		if (a.join_failed)
			errprintf(err, "cannot put the task in its cgroup: %s",
				  strerror(r));
		else if (r == ENOENT && req->cwd)
			errprintf(err, "cannot run %s: %s (or the directory %s "
				  "is missing)", req->exe, strerror(r), req->cwd);
		else
			errprintf(err, "cannot run %s: %s", req->exe, strerror(r));
		return -1;
	}
	return pid;
}

pid_t
spawn_command(char *const *argv, int fds[2], struct errbuf *err)
{
	int p[2][2] = { { -1, -1 }, { -1, -1 } };
	pid_t pid = -1;
	if (pipe2(p[0], O_CLOEXEC) < 0 || pipe2(p[1], O_CLOEXEC) < 0) {
		errprintf(err, "pipe: %s", strerror(errno));
		goto out;
	}
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	posix_spawn_file_actions_init(&fa);
	spawn_attr_init(&at);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, p[0][1], 1);
	posix_spawn_file_actions_adddup2(&fa, p[1][1], 2);
	int r = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (r) {
		errprintf(err, "cannot run %s: %s", argv[0], strerror(r));
		pid = -1;
		goto out;
	}
	spawn_own(pid);
	fds[0] = p[0][0];
	fds[1] = p[1][0];
	p[0][0] = p[1][0] = -1;
out:
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			if (p[i][j] >= 0)
				close(p[i][j]);
	return pid;
}

char **
spawn_env(char *const *add, size_t n)
{
	size_t ne = 0;
	while (environ[ne])
		ne++;
	char **envp = xcalloc(ne + n + 1, sizeof(char *));
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		envp[k++] = add[i];
	for (size_t i = 0; i < ne; i++) {
		size_t j;
		for (j = 0; j < n; j++) {
			size_t kl = strcspn(add[j], "=");
			if (!strncmp(environ[i], add[j], kl) &&
			    environ[i][kl] == '=')
				break;
		}
		if (j == n)
			envp[k++] = environ[i];
	}
	envp[k] = NULL;
	return envp;
}

/* The children registered by spawn_own: few (an agent per node, a Slurm
 * command or two), so a short array searched from the end. */
struct owned {
	pid_t pid;
	bool ended;
	int status;
};
static struct owned *owned;
static size_t nowned, owned_alloc;

static struct owned *
find_owned(pid_t pid)
{
	for (size_t i = nowned; i-- > 0;)
		if (owned[i].pid == pid)
			return &owned[i];
	return NULL;
}

static void
forget_owned(struct owned *o)
{
	*o = owned[--nowned];
	if (!nowned) {
		free(owned);
		owned = NULL;
		owned_alloc = 0;
	}
}

void
spawn_own(pid_t pid)
{
	ALLOC_GROW(owned, nowned + 1, owned_alloc);
	owned[nowned++] = (struct owned){ pid, false, 0 };
}

bool
spawn_owned(pid_t pid)
{
	return find_owned(pid) != NULL;
}

void
spawn_owned_ended(pid_t pid, int status)
{
	struct owned *o = find_owned(pid);
	if (o) {
		o->ended = true;
		o->status = status;
	}
}

pid_t
spawn_wait(pid_t pid, int *status, bool block)
{
	struct owned *o = find_owned(pid);
	if (o && o->ended) {
		*status = o->status;
		forget_owned(o);
		return pid;
	}
	pid_t r;
	while ((r = waitpid(pid, status, block ? 0 : WNOHANG)) < 0 &&
	       errno == EINTR)
		;
	if (r == pid && o)
		forget_owned(o);
	return r;
}
