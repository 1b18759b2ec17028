/*
 * wfrun-worker: the worker agent.  The master starts it over one SSH exec
 * channel and talks to it with the protocol of src/proto.h on stdin and
 * stdout; it runs many tasks at once (each in its own process group, with
 * its timing, CPU time, max RSS and bytes measured here, where it ran) so a
 * host needs one SSH session however many tasks it runs.  It uses libc
 * only (it is linked statically so the master can upload it to any Linux
 * host of the same architecture).  When its stdin ends — the master is
 * gone — it kills its tasks and exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "exec.h"
#include "loop.h"
#include "path.h"
#include "proto.h"
#include "spawn.h"
#include "util.h"

#define KILL_GRACE 5.0

struct agent {
	struct loop loop;
	struct exec *ex;
	struct proto_decoder dec;
	struct strbuf out;
	struct loop_timer kill_timer;
	bool exiting;
	bool input_open;
};

static void
send_line(struct strbuf *line)
{
	proto_end(line);
	const char *p = line->buf;
	size_t n = line->len;
	while (n) {
		ssize_t w = write(1, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				/* stdout is the channel: wait for room */
				fd_set fs;
				FD_ZERO(&fs);
				FD_SET(1, &fs);
				select(2, NULL, &fs, NULL, NULL);
				continue;
			}
			/* The master is gone; the tasks die with stdin's end. */
			return;
		}
		p += w;
		n -= (size_t)w;
	}
	strbuf_reset(line);
}

static void
on_done(const struct exec_result *r, void *arg)
{
	struct agent *a = arg;
	struct strbuf *l = &a->out;
	strbuf_reset(l);
	if (!r->started) {
		proto_field(l, "FAILED", 1);
		proto_fieldf(l, "%u", r->task);
		proto_field(l, r->error, 0);
	} else {
		proto_field(l, "DONE", 1);
		proto_fieldf(l, "%u", r->task);
		proto_fieldf(l, "%d", r->wstatus);
		proto_fieldf(l, "%.6f", r->start);
		proto_fieldf(l, "%.6f", r->end);
		proto_fieldf(l, "%.6f", r->utime);
		proto_fieldf(l, "%.6f", r->stime);
		proto_fieldf(l, "%ld", r->maxrss_kb);
		proto_fieldf(l, "%lld", r->read_bytes);
		proto_fieldf(l, "%lld", r->write_bytes);
		proto_fieldf(l, "%d", r->out_empty);
		proto_fieldf(l, "%d", r->err_empty);
	}
	send_line(l);
}

static void
kill_now(void *arg)
{
	struct agent *a = arg;
	a->ex->ops->signal_all(a->ex, SIGKILL);
}

static void
begin_exit(struct agent *a)
{
	if (a->exiting)
		return;
	a->exiting = true;
	if (a->ex->running) {
		a->ex->ops->signal_all(a->ex, SIGTERM);
		loop_timer_arm(&a->loop, &a->kill_timer, KILL_GRACE, kill_now, a);
	}
}

static void
run_task(struct agent *a, struct proto_msg *m)
{
	/* RUN id cwd out err nenv ENV... exe ARGV... */
	long id, nenv;
	if (m->n < 8 || parse_long(m->f[1], &id) < 0 ||
	    parse_long(m->f[5], &nenv) < 0 || nenv < 0 ||
	    (size_t)nenv + 7 > m->n) {
		fprintf(stderr, "wfrun-worker: malformed RUN message\n");
		return;
	}
	struct exec_job job;
	memset(&job, 0, sizeof(job));
	job.task = (uint32_t)id;
	job.cwd = *m->f[2] ? m->f[2] : NULL;
	job.out_path = m->f[3];
	job.err_path = m->f[4];
	char **envp = nenv ? spawn_env(m->f + 6, (size_t)nenv) : NULL;
	job.envp = envp;
	const char *exe = m->f[6 + nenv];
	char *found = NULL;
	if (!strchr(exe, '/'))
		exe = found = path_search(exe);
	size_t argc = m->n - 7 - (size_t)nenv;
	char **argv = xcalloc(argc + 1, sizeof(char *));
	for (size_t i = 0; i < argc; i++)
		argv[i] = m->f[7 + nenv + i];
	job.argv = argv;
	if (!exe) {
		struct exec_result r;
		memset(&r, 0, sizeof(r));
		r.task = job.task;
		snprintf(r.error, sizeof(r.error), "%s: command not found",
			 m->f[6 + nenv]);
		on_done(&r, a);
	} else {
		job.exe = exe;
		a->ex->ops->submit(a->ex, &job);
	}
	free(found);
	free(argv);
	free(envp);
}

static void
handle(struct agent *a, struct proto_msg *m)
{
	const char *t = m->f[0];
	long v;
	if (!strcmp(t, "RUN")) {
		if (!a->exiting)
			run_task(a, m);
	} else if (!strcmp(t, "KILLALL") && m->n == 2 &&
		   !parse_long(m->f[1], &v)) {
		a->ex->ops->signal_all(a->ex, (int)v);
	} else if (!strcmp(t, "KILL") && m->n == 3) {
		long id;
		if (!parse_long(m->f[1], &id) && !parse_long(m->f[2], &v))
			a->ex->ops->signal_one(a->ex, (uint32_t)id, (int)v);
	} else if (!strcmp(t, "EXIT")) {
		begin_exit(a);
	} else {
		fprintf(stderr, "wfrun-worker: ignoring message '%s'\n", t);
	}
}

static void
on_stdin(int fd, short revents, void *arg)
{
	struct agent *a = arg;
	char buf[65536];
	ssize_t n = read(fd, buf, sizeof(buf));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		loop_unwatch_fd(&a->loop, fd);
		a->input_open = false;
		begin_exit(a);
		return;
	}
	proto_feed(&a->dec, buf, (size_t)n);
	struct proto_msg m;
	struct errbuf err;
	int r;
	while ((r = proto_next(&a->dec, &m, &err)) != 0) {
		if (r < 0)
			fprintf(stderr, "wfrun-worker: %s\n", err.msg);
		else if (m.n && *m.f[0])
			handle(a, &m);
	}
}

static void
on_signal(int signo, void *arg)
{
	struct agent *a = arg;
	if (signo == SIGCHLD) {
		a->ex->ops->on_sigchld(a->ex);
		return;
	}
	/* SIGHUP when sshd closes the session, SIGTERM, SIGINT */
	begin_exit(a);
}

int
main(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))) {
		printf("wfrun-worker %s protocol %d\n", WFRUN_VERSION,
		       PROTO_VERSION);
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "usage: wfrun-worker [--version]\n"
				"Started by wfrun over SSH; speaks the protocol "
				"of wfrun's src/proto.h on stdin/stdout.\n");
		return 2;
	}
	struct agent a;
	memset(&a, 0, sizeof(a));
	strbuf_init(&a.out);
	proto_decoder_init(&a.dec);
	if (loop_init(&a.loop, on_signal, &a) < 0) {
		fprintf(stderr, "wfrun-worker: signalfd: %s\n", strerror(errno));
		return 1;
	}
	a.ex = exec_local_new(on_done, &a);
	fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
	loop_watch_fd(&a.loop, 0, POLLIN, on_stdin, &a);
	a.input_open = true;

	struct utsname u;
	uname(&u);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	proto_field(&a.out, "HELLO", 1);
	proto_fieldf(&a.out, "%d", PROTO_VERSION);
	proto_field(&a.out, u.machine, 0);
	proto_fieldf(&a.out, "%ld", ncpu > 0 ? ncpu : 1);
	proto_fieldf(&a.out, "%ld", (long)getpid());
	send_line(&a.out);

	while (!a.exiting || a.ex->running)
		loop_run_once(&a.loop);

	strbuf_reset(&a.out);
	proto_field(&a.out, "BYE", 1);
	send_line(&a.out);
	a.ex->ops->release(a.ex);
	loop_release(&a.loop);
	proto_decoder_release(&a.dec);
	strbuf_release(&a.out);
	return 0;
}
