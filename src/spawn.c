#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

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

pid_t
spawn_task(const struct spawn_req *req, struct errbuf *err)
{
	posix_spawnattr_t attr;
	posix_spawn_file_actions_t fa;
	sigset_t none, defs;
	pid_t pid = -1;
	int r;

	posix_spawnattr_init(&attr);
	posix_spawn_file_actions_init(&fa);
	sigemptyset(&none);
	spawn_signal_set(&defs);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP |
						POSIX_SPAWN_SETSIGMASK |
						POSIX_SPAWN_SETSIGDEF |
						POSIX_SPAWN_USEVFORK);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &defs);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, req->out_fd, 1);
	posix_spawn_file_actions_adddup2(&fa, req->err_fd, 2);
	if (req->cwd)
		posix_spawn_file_actions_addchdir_np(&fa, req->cwd);
	r = posix_spawn(&pid, req->exe, &fa, &attr, req->argv,
			req->envp ? req->envp : environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (r) {
		if (r == ENOENT && req->cwd)
			errprintf(err, "cannot run %s: %s (or the directory %s "
				  "is missing)", req->exe, strerror(r), req->cwd);
		else
			errprintf(err, "cannot run %s: %s", req->exe, strerror(r));
		return -1;
	}
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
