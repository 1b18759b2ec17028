#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec.h"
#include "loop.h"
#include "path.h"
#include "sched.h"
#include "spawn.h"
#include "trace.h"

/* Seconds between SIGTERM and SIGKILL when a run is interrupted. */
#define KILL_GRACE 5.0
/* Lines of a failed task's stderr shown on the terminal. */
#define TAIL_LINES 10

struct runner {
	struct plan *p;
	const struct runner_opts *o;
	struct loop loop;
	struct exec *ex;
	struct sched sched;
	struct trace trace;
	struct loop_timer kill_timer;
	struct loop_timer tick;  /* redraws the progress line on a terminal */
	long free_cores;
	long *cores;            /* per task name */
	bool *logdir_made;      /* per task name */
	double *submit;         /* per task */
	size_t total, done, failed;
	bool stop;
	int interrupted;
	double t0;
	uint32_t *ready;
	size_t nready, aready;
	struct strbuf cmd, words, path;
	struct strvec argv;
	char *sh_argv[4];       /* sh -c COMMAND */
	/* progress */
	bool tty;
	bool line_shown;
	double last_draw;
	int last_decile;
};

static void
progress_clear(struct runner *r)
{
	if (r->line_shown) {
		fputs("\r\033[K", stderr);
		r->line_shown = false;
	}
}

static void
progress(struct runner *r, bool force)
{
	if (log_level < 1)
		return;
	double now = clock_mono();
	if (r->tty) {
		if (!force && now - r->last_draw < 0.1)
			return;
		r->last_draw = now;
		fprintf(stderr, "\r\033[K[%zu/%zu] running %zu, failed %zu, %.0fs",
			r->done, r->total, r->ex->running, r->failed, now - r->t0);
		r->line_shown = true;
		return;
	}
	/* Plain lines, one per tenth of the run, once it lasts a while. */
	int decile = r->total ? (int)(10 * (r->done + r->failed) / r->total) : 10;
	if (decile > r->last_decile && decile < 10 && now - r->t0 > 2.0) {
		r->last_decile = decile;
		info_msg("%zu/%zu tasks done, %zu running, %zu failed (%.0fs)",
			 r->done, r->total, r->ex->running, r->failed,
			 now - r->t0);
	}
}

static void
tick(void *arg)
{
	struct runner *r = arg;
	progress(r, true);
	loop_timer_arm(&r->loop, &r->tick, 1.0, tick, r);
}

static void
log_path(struct runner *r, uint32_t t, const char *ext, struct strbuf *out)
{
	uint32_t tmpl = r->p->dag.tasks.v[t].tmpl;
	const char *name = r->p->wf->tasks[tmpl].name;
	strbuf_reset(out);
	strbuf_addf(out, ".wfrun/logs/%s", name);
	if (!r->logdir_made[tmpl]) {
		if (mkdir_p(out->buf, 0777) < 0)
			die("cannot create %s/%s: %s", r->p->wf->workdir, out->buf,
			    strerror(errno));
		r->logdir_made[tmpl] = true;
	}
	strbuf_addf(out, "/%u.%s", t + 1, ext);
}

/* Create the directories a task writes into; -1 with a message. */
static int
make_output_dirs(struct runner *r, uint32_t t)
{
	struct dag *g = &r->p->dag;
	const struct dag_task *dt = &g->tasks.v[t];
	for (uint32_t i = 0; i < dt->nacc; i++) {
		const struct dag_access *a = &g->acc.v[dt->acc + i];
		if (!(a->mode & DAG_WRITE))
			continue;
		uint32_t x = a->datum;
		uint32_t dir = a->is_dir ? x : g->data.v[x].parent;
		const char *path = NULL;
		char *tmp = NULL;
		if (dir != DAG_NONE) {
			if (g->data.v[dir].flags & DATUM_DIR_MADE)
				continue;
			path = g->data.v[dir].path;
		} else if (strchr(g->data.v[x].path, '/')) {
			path = tmp = path_dirname(g->data.v[x].path);
		} else {
			continue;
		}
		if (mkdir_p(path, 0777) < 0) {
			progress_clear(r);
			error_msg("cannot create the output directory %s of task "
				  "'%s': %s", path,
				  r->p->wf->tasks[dt->tmpl].name, strerror(errno));
			free(tmp);
			return -1;
		}
		free(tmp);
		if (dir != DAG_NONE)
			g->data.v[dir].flags |= DATUM_DIR_MADE;
	}
	return 0;
}

static void
launch(struct runner *r, uint32_t t, uint32_t tmpl)
{
	struct plan *p = r->p;
	const struct wf_task *wt = &p->wf->tasks[tmpl];
	struct exec_job job;
	memset(&job, 0, sizeof(job));
	job.task = t;
	r->free_cores -= r->cores[tmpl];
	p->dag.tasks.v[t].state = TASK_RUNNING;

	char **sh_argv = r->sh_argv;
	if (plan_argv(p, t, &r->words, &r->argv)) {
		job.exe = r->argv.v[0];
		job.argv = r->argv.v;
	} else {
		strbuf_reset(&r->cmd);
		plan_command(p, t, &r->cmd);
		sh_argv[2] = r->cmd.buf;
		job.exe = "/bin/sh";
		job.argv = sh_argv;
	}
	char **envp = NULL;
	struct strbuf *envs = NULL;
	if (wt->nenv) {
		char **add = xcalloc(wt->nenv, sizeof(char *));
		envs = xcalloc(wt->nenv, sizeof(*envs));
		for (size_t i = 0; i < wt->nenv; i++) {
			strbuf_init(&envs[i]);
			plan_env(p, t, i, &envs[i]);
			add[i] = envs[i].buf;
		}
		envp = spawn_env(add, wt->nenv);
		free(add);
		job.envp = envp;
	}
	struct strbuf outp = STRBUF_INIT;
	log_path(r, t, "out", &outp);
	log_path(r, t, "err", &r->path);
	job.out_path = outp.buf;
	job.err_path = r->path.buf;
	if (log_level >= 2) {
		struct strbuf lab = STRBUF_INIT;
		plan_label(p, t, &lab);
		if (job.argv == sh_argv)
			strbuf_addf(&lab, ": %s", r->cmd.buf);
		else {
			strbuf_reset(&r->cmd);
			plan_command(p, t, &r->cmd);
			strbuf_addf(&lab, ": %s", r->cmd.buf);
		}
		progress_clear(r);
		verbose_msg("start %s", lab.buf);
		strbuf_release(&lab);
	}
	if (make_output_dirs(r, t) < 0) {
		struct exec_result res;
		memset(&res, 0, sizeof(res));
		res.task = t;
		res.start = res.end = clock_real();
		res.read_bytes = res.write_bytes = -1;
		snprintf(res.error, sizeof(res.error),
			 "cannot create its output directories");
		r->ex->done(&res, r->ex->arg);
	} else {
		r->ex->ops->submit(r->ex, &job);
	}
	strbuf_release(&outp);
	if (envs) {
		for (size_t i = 0; i < wt->nenv; i++)
			strbuf_release(&envs[i]);
		free(envs);
	}
	free(envp);
}

/* Print the last lines of a failed task's stderr log. */
static void
show_tail(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	struct stat st;
	char buf[4096];
	off_t off = 0;
	if (!fstat(fd, &st) && st.st_size > (off_t)sizeof(buf) - 1)
		off = st.st_size - (off_t)sizeof(buf) + 1;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, off);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (buf[n - 1] == '\n')
		buf[--n] = '\0';
	char *start = buf + n;
	int lines = 0;
	while (start > buf && lines < TAIL_LINES) {
		start--;
		if (*start == '\n' && ++lines == TAIL_LINES) {
			start++;
			break;
		}
	}
	if (off > 0 || start > buf)
		fprintf(stderr, "  | ...\n");
	for (char *l = start; l && *l;) {
		char *nl = strchr(l, '\n');
		fprintf(stderr, "  | %.*s\n", nl ? (int)(nl - l) : (int)strlen(l),
			l);
		l = nl ? nl + 1 : NULL;
	}
}

/* The first OUT datum the task should have made and did not, or NONE. */
static uint32_t
missing_output(struct runner *r, uint32_t t)
{
	struct dag *g = &r->p->dag;
	const struct dag_task *dt = &g->tasks.v[t];
	for (uint32_t i = 0; i < dt->nacc; i++) {
		const struct dag_access *a = &g->acc.v[dt->acc + i];
		if (a->mode != DAG_WRITE)
			continue;
		struct stat st;
		if (stat(g->data.v[a->datum].path, &st) < 0)
			return i;
	}
	return DAG_NONE;
}

static void
on_done(const struct exec_result *res, void *arg)
{
	struct runner *r = arg;
	struct plan *p = r->p;
	struct dag *g = &p->dag;
	uint32_t t = res->task;
	uint32_t tmpl = g->tasks.v[t].tmpl;
	const struct wf_task *wt = &p->wf->tasks[tmpl];
	r->free_cores += r->cores[tmpl];

	struct strbuf why = STRBUF_INIT;
	int exit_code = -1;
	if (!res->started) {
		strbuf_addf(&why, "could not start: %s", res->error);
	} else if (WIFEXITED(res->wstatus)) {
		exit_code = WEXITSTATUS(res->wstatus);
		if (exit_code)
			strbuf_addf(&why, "failed with exit status %d", exit_code);
	} else if (WIFSIGNALED(res->wstatus)) {
		exit_code = 128 + WTERMSIG(res->wstatus);
		strbuf_addf(&why, "was killed by signal %d (%s)",
			    WTERMSIG(res->wstatus),
			    strsignal(WTERMSIG(res->wstatus)));
	}
	if (!why.len) {
		uint32_t miss = missing_output(r, t);
		if (miss != DAG_NONE) {
			const struct dag_access *a = &g->acc.v[g->tasks.v[t].acc +
							       miss];
			strbuf_addf(&why, "exited 0 but did not create its output "
				    "'%s' (%s)", wt->params[a->param].name,
				    g->data.v[a->datum].path);
		}
	}
	bool ok = !why.len;
	const char *status = ok ? "COMPLETED" : r->interrupted ? "ABORTED"
							       : "FAILED";

	struct strbuf tag = STRBUF_INIT;
	plan_tag(p, t, &tag);
	struct trace_row row = {
		t + 1, wt->name, tag.buf, "local", wt->io ? "io" : "compute",
		r->cores[tmpl], status, exit_code, 1, r->submit[t],
		res->start, res->end, res->utime, res->stime,
		res->started ? res->maxrss_kb : -1, res->read_bytes,
		res->write_bytes,
	};
	trace_write(&r->trace, &row);
	strbuf_release(&tag);

	if (ok) {
		r->done++;
		r->nready = 0;
		dag_complete(g, t, &r->ready, &r->nready, &r->aready);
		double now = clock_real();
		for (size_t i = 0; i < r->nready; i++) {
			r->submit[r->ready[i]] = now;
			sched_push(&r->sched, g->tasks.v[r->ready[i]].tmpl,
				   r->ready[i]);
		}
		if (log_level >= 2) {
			struct strbuf lab = STRBUF_INIT;
			plan_label(p, t, &lab);
			progress_clear(r);
			verbose_msg("done %s in %.2fs", lab.buf,
				    res->end - res->start);
			strbuf_release(&lab);
		}
	} else {
		r->failed++;
		g->tasks.v[t].state = TASK_FAILED;
		if (!r->interrupted) {
			struct strbuf lab = STRBUF_INIT;
			plan_label(p, t, &lab);
			progress_clear(r);
			log_path(r, t, "err", &r->path);
			if (res->started && !res->err_empty) {
				error_msg("task %s %s (stderr: %s/%s)", lab.buf,
					  why.buf, p->wf->workdir, r->path.buf);
				show_tail(r->path.buf);
			} else {
				error_msg("task %s %s", lab.buf, why.buf);
			}
			strbuf_release(&lab);
			if (!r->o->keep_going && !r->stop) {
				r->stop = true;
				if (r->ex->running)
					info_msg("not starting new tasks; waiting "
						 "for %zu running task%s (use -k to "
						 "keep going)", r->ex->running,
						 r->ex->running == 1 ? "" : "s");
			}
		}
	}
	strbuf_release(&why);
}

static void
kill_timer_fired(void *arg)
{
	struct runner *r = arg;
	r->ex->ops->signal_all(r->ex, SIGKILL);
}

static void
on_signal(int signo, void *arg)
{
	struct runner *r = arg;
	if (signo == SIGCHLD) {
		r->ex->ops->on_sigchld(r->ex);
		return;
	}
	r->interrupted++;
	r->stop = true;
	progress_clear(r);
	if (r->interrupted == 1) {
		info_msg("interrupted (%s): stopping %zu running task%s",
			 strsignal(signo), r->ex->running,
			 r->ex->running == 1 ? "" : "s");
		r->ex->ops->signal_all(r->ex, SIGTERM);
		loop_timer_arm(&r->loop, &r->kill_timer, KILL_GRACE,
			       kill_timer_fired, r);
	} else {
		r->ex->ops->signal_all(r->ex, SIGKILL);
	}
}

static void
dispatch(struct runner *r)
{
	while (!r->stop) {
		uint32_t tmpl;
		uint32_t t = sched_pop(&r->sched, r->free_cores, &tmpl);
		if (t == UINT32_MAX)
			break;
		launch(r, t, tmpl);
	}
}

int
runner_run(struct plan *p, const struct runner_opts *o)
{
	struct runner r;
	struct errbuf err;
	memset(&r, 0, sizeof(r));
	r.p = p;
	r.o = o;
	r.total = p->dag.tasks.n;
	r.free_cores = o->cores;
	r.t0 = clock_mono();
	r.tty = isatty(2) && log_level >= 1;
	r.last_decile = 0;
	strbuf_init(&r.cmd);
	strbuf_init(&r.words);
	strbuf_init(&r.path);
	r.sh_argv[0] = "sh";
	r.sh_argv[1] = "-c";

	if (mkdir_p(p->wf->workdir, 0777) < 0 || chdir(p->wf->workdir) < 0) {
		error_msg("cannot use the workdir %s: %s", p->wf->workdir,
			  strerror(errno));
		return 2;
	}
	char *tpath = o->trace_path ? xstrdup(o->trace_path)
				    : xstrdup(".wfrun/trace.tsv");
	if (trace_open(&r.trace, tpath, &err) < 0) {
		error_msg("%s", err.msg);
		free(tpath);
		return 2;
	}
	if (loop_init(&r.loop, on_signal, &r) < 0)
		die("cannot set up signal handling: %s", strerror(errno));
	r.ex = exec_local_new(on_done, &r);

	size_t nt = p->wf->ntasks;
	r.cores = xcalloc(nt ? nt : 1, sizeof(long));
	r.logdir_made = xcalloc(nt ? nt : 1, sizeof(bool));
	r.submit = xcalloc(r.total ? r.total : 1, sizeof(double));
	for (size_t i = 0; i < nt; i++)
		/* I/O tasks run as 1-core tasks until I/O scheduling exists. */
		r.cores[i] = p->wf->tasks[i].io ? 1 : p->wf->tasks[i].cores;
	sched_init(&r.sched, nt, r.cores);
	double now = clock_real();
	for (uint32_t t = 0; t < r.total; t++)
		if (p->dag.tasks.v[t].state == TASK_READY) {
			r.submit[t] = now;
			sched_push(&r.sched, p->dag.tasks.v[t].tmpl, t);
		}

	verbose_msg("running %zu tasks of '%s' with %ld cores in %s", r.total,
		    p->wf->name, o->cores, p->wf->workdir);
	if (r.tty)
		loop_timer_arm(&r.loop, &r.tick, 1.0, tick, &r);
	for (;;) {
		dispatch(&r);
		if (!r.ex->running)
			break;
		progress(&r, false);
		loop_run_once(&r.loop);
	}
	progress_clear(&r);
	loop_timer_cancel(&r.loop, &r.kill_timer);
	loop_timer_cancel(&r.loop, &r.tick);

	int rc = r.interrupted ? 130 : r.failed ? 1 : 0;
	if (trace_close(&r.trace, &err) < 0) {
		error_msg("%s", err.msg);
		if (!rc)
			rc = 1;
	}
	size_t not_run = r.total - r.done - r.failed;
	double secs = clock_mono() - r.t0;
	if (r.interrupted)
		info_msg("interrupted after %.1fs: %zu done, %zu stopped, %zu not "
			 "run (trace: %s%s%s)", secs, r.done, r.failed, not_run,
			 o->trace_path ? "" : p->wf->workdir,
			 o->trace_path ? "" : "/", tpath);
	else if (r.failed)
		info_msg("%zu task%s failed, %zu done, %zu not run, in %.1fs "
			 "(trace: %s%s%s)", r.failed, r.failed == 1 ? "" : "s",
			 r.done, not_run, secs,
			 o->trace_path ? "" : p->wf->workdir,
			 o->trace_path ? "" : "/", tpath);
	else
		info_msg("%zu task%s done in %.1fs", r.done,
			 r.done == 1 ? "" : "s", secs);

	r.ex->ops->release(r.ex);
	loop_release(&r.loop);
	sched_release(&r.sched);
	free(r.cores);
	free(r.logdir_made);
	free(r.submit);
	free(r.ready);
	free(tpath);
	VEC_FREE(r.argv);
	strbuf_release(&r.cmd);
	strbuf_release(&r.words);
	strbuf_release(&r.path);
	return rc;
}
