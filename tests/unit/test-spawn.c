/* Unit tests of spawn: what a task process gets (its own process group,
 * stdin from /dev/null, its logs as stdout and stderr even from fds 0-2,
 * default signals, an empty mask, no other fd, cwd, environment) and how
 * a failure to start is reported. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec.h"
#include "spawn.h"
#include "tap.h"

static char text[4096];

/* The content of path, without its last newline (static storage). */
static const char *
slurp(const char *path)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
	if (fd >= 0)
		close(fd);
	n = n < 0 ? 0 : n;
	text[n] = '\0';
	if (n && text[n - 1] == '\n')
		text[n - 1] = '\0';
	return text;
}

static int
log_fd(const char *path)
{
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

/* Run sh -c script with stdout and stderr to out and err (paths);
 * returns the exit status, or -1 if it could not start (err filled). */
static int
run_sh(const char *script, const char *cwd, char *const *envp,
       struct errbuf *eb, pid_t *pidp)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };
	int out = log_fd("out"), err = log_fd("err");
	struct spawn_req req = { "/bin/sh", argv, envp, cwd, out, err, -1, -1 };
	pid_t pid = spawn_task(&req, eb);
	close(out);
	close(err);
	if (pidp)
		*pidp = pid;
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void
on_usr1(int sig)
{
	(void)sig;
}

/* The answers of exec_local's ask_written, by task (0 and 1). */
static double w_when[2];
static long long w_bytes[2];
static int w_n[2];

static void
on_written(struct exec *e, uint32_t task, double when, long long bytes,
	   void *arg)
{
	(void)e;
	(void)arg;
	if (task < 2) {
		w_when[task] = when;
		w_bytes[task] = bytes;
		w_n[task]++;
	}
}

static void
on_done(const struct exec_result *r, void *arg)
{
	(void)r;
	(void)arg;
}

static off_t
size_of(const char *path)
{
	struct stat st;
	return stat(path, &st) < 0 ? -1 : st.st_size;
}

int
main(void)
{
	char dir[] = "/tmp/test-spawn.XXXXXX";
	if (!mkdtemp(dir) || chdir(dir) < 0 || mkdir("sub", 0755) < 0)
		return 1;
	/* what the test was started with is not the spawn's doing */
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	/* what a master might have: a handler, an ignored signal, a mask */
	signal(SIGUSR1, on_usr1);
	signal(SIGPIPE, SIG_IGN);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);

	struct errbuf eb;
	pid_t pid;
	is_int(run_sh("echo $$ $(cut -d' ' -f5 /proc/$$/stat); echo e >&2",
		      NULL, NULL, &eb, &pid), 0, "ran");
	char want[64];
	snprintf(want, sizeof(want), "%d %d", (int)pid, (int)pid);
	is_str(slurp("out"), want, "stdout: its own process group");
	is_str(slurp("err"), "e", "stderr");

	/* (3 is ls's own directory) */
	run_sh("readlink /proc/$$/fd/0; exec ls /proc/self/fd", NULL, NULL, &eb,
	       NULL);
	is_str(slurp("out"), "/dev/null\n0\n1\n2\n3",
	       "stdin /dev/null, no other fd");

	run_sh("exec grep -E '^Sig(Blk|Ign)' /proc/self/status", NULL, NULL, &eb,
	       NULL);
	unsigned long long blk = 1, ign = 1;
	sscanf(slurp("out"), "SigBlk: %llx SigIgn: %llx", &blk, &ign);
	is_int(blk, 0, "empty signal mask");
	is_int(ign & (1ULL << (SIGPIPE - 1)), 0, "SIGPIPE back to default");

	char *env[] = { "FOO=bar baz", NULL };
	run_sh("echo \"$FOO\"; pwd", "sub", env, &eb, NULL);
	char cwd[600];
	snprintf(cwd, sizeof(cwd), "bar baz\n%s/sub", dir);
	is_str(slurp("out"), cwd, "environment and working directory");

	/* logs on fds 0 and 2 (a master started with them closed) */
	int save0 = fcntl(0, F_DUPFD_CLOEXEC, 3),
	    save2 = fcntl(2, F_DUPFD_CLOEXEC, 3);
	close(0);
	close(2);
	int lo = log_fd("low-out"), le = log_fd("low-err");
	char *argv[] = { "sh", "-c", "echo to-out; cat; exec ls /proc/self/fd >&2",
			 NULL };
	struct spawn_req req = { "/bin/sh", argv, NULL, NULL, lo, le, -1, -1 };
	pid = spawn_task(&req, &eb);
	int st = -1;
	waitpid(pid, &st, 0);
	close(lo);
	close(le);
	dup2(save0, 0);
	dup2(save2, 2);
	close(save0);
	close(save2);
	is_int(lo * 10 + le, 2, "logs were fds 0 and 2");
	ok(pid > 0 && WIFEXITED(st) && !WEXITSTATUS(st), "ran from low fds");
	is_str(slurp("low-out"), "to-out", "stdout from fd 0, stdin not it");
	is_str(slurp("low-err"), "0\n1\n2\n3", "stderr from fd 2, no copy left");

	char *nargv[] = { "x", NULL };
	struct spawn_req bad = { "/nonexistent/x", nargv, NULL, NULL, 1, 2, -1, -1 };
	is_int(spawn_task(&bad, &eb), -1, "a missing program");
	is_str(eb.msg, "cannot run /nonexistent/x: No such file or directory",
	       "its error");
	is_int(run_sh("true", "nope", NULL, &eb, NULL), -1, "a missing cwd");
	is_str(eb.msg, "cannot run /bin/sh: No such file or directory (or the "
		       "directory nope is missing)", "its error");
	is_int(waitpid(-1, NULL, WNOHANG), -1, "no child left behind");

	/* A child another module owns (an agent, a Slurm command), reaped
	 * by exec_local's reaper of every child first: its owner still
	 * learns how it ended. */
	struct exec *loc = exec_local_new(NULL, NULL, NULL);
	pid_t owned = fork();
	if (owned == 0)
		_exit(7);
	spawn_own(owned);
	int ost = -1;
	while (waitid(P_PID, (id_t)owned, &(siginfo_t){ 0 },
		      WEXITED | WNOWAIT) < 0)
		;
	loc->ops->on_sigchld(loc);
	is_int(spawn_wait(owned, &ost, false), owned,
	       "an owned child reaped by exec_local: its owner gets it");
	ok(WIFEXITED(ost) && WEXITSTATUS(ost) == 7, "with its status");
	is_int(spawn_owned(owned), 0, "and it is forgotten then");
	pid_t own2 = fork();
	if (own2 == 0)
		_exit(3);
	spawn_own(own2);
	is_int(spawn_wait(own2, &ost, true), own2, "waited for by its owner");
	ok(WIFEXITED(ost) && WEXITSTATUS(ost) == 3, "with its status");
	loc->ops->release(loc);

	/* What running jobs have written (a climb asks for each of its
	 * writers in turn, 50 times a second): each job's own bytes, down
	 * its process tree (a child still running, and the children each
	 * has waited for), not another job's. */
	loc = exec_local_new(on_done, NULL, NULL);
	loc->written = on_written;
	char *wa[] = { "sh", "-c",
		       "head -c 3000000 /dev/zero > w0; sleep 30", NULL };
	char *wb[] = { "sh", "-c",
		       "(head -c 1000000 /dev/zero > w1; sleep 30) & wait",
		       NULL };
	struct exec_job ja = { .task = 0, .exe = "/bin/sh", .argv = wa,
			       .out_path = "wo0", .err_path = "we0" };
	struct exec_job jb = { .task = 1, .exe = "/bin/sh", .argv = wb,
			       .out_path = "wo1", .err_path = "we1" };
	loc->ops->submit(loc, &ja);
	loc->ops->submit(loc, &jb);
	for (int i = 0; i < 500 && (size_of("w0") < 3000000 ||
				    size_of("w1") < 1000000); i++)
		usleep(10000);
	usleep(50000); /* (head has exited and been waited for) */
	loc->ops->ask_written(loc, 0);
	loc->ops->ask_written(loc, 1);
	ok(w_n[0] == 1 && w_n[1] == 1 && w_when[0] > 0 && w_when[1] > 0,
	   "written: both answered at once");
	ok(w_bytes[0] >= 3000000 && w_bytes[0] < 3500000 &&
		   w_bytes[1] >= 1000000 && w_bytes[1] < 1500000,
	   "written: each its own bytes, a running child's too (%lld, %lld)",
	   w_bytes[0], w_bytes[1]);
	double first = w_when[0];
	usleep(20000);
	loc->ops->ask_written(loc, 1);
	ok(w_n[1] == 2 && w_when[1] > first, "written: a later ask reads again");
	loc->ops->ask_written(loc, 7);
	ok(w_n[0] == 1 && w_n[1] == 2, "written: a job not running: no answer");
	loc->ops->signal_all(loc, SIGKILL);
	while (loc->running) {
		usleep(10000);
		loc->ops->on_sigchld(loc);
	}
	loc->ops->release(loc);

	if (system("rm -rf sub out err low-out low-err w0 w1 wo0 wo1 we0 we1") != 0)
		return 1;
	if (chdir("/") < 0 || rmdir(dir) < 0)
		return 1;
	return done_testing();
}
