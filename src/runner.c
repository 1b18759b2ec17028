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
#include "progress.h"
#include "resources.h"
#include "sched.h"
#include "spawn.h"
#include "trace.h"

/* Seconds between SIGTERM and SIGKILL when a run is interrupted. */
#define KILL_GRACE 5.0
/* Lines of a failed task's stderr shown on the terminal. */
#define TAIL_LINES 10

/* A place tasks run: this machine or an SSH worker. */
struct rworker {
	const char *name;
	struct exec *ex;
	const char *cwd;       /* where its tasks run; NULL: ours */
	long cores, free;
	long io, io_free;      /* I/O executors */
	bool usable;           /* connected and not lost */
	bool tried;            /* dispatch: asked in this round */
	bool reported;         /* its failure was reported */
};

struct deadline {
	double when;  /* clock_mono() */
	uint32_t task;
	uint8_t launch; /* which launch of the task it is for */
};

struct runner {
	struct plan *p;
	const struct runner_opts *o;
	struct loop loop;
	struct rworker *w;
	size_t nw;
	size_t running;         /* over all workers */
	uint16_t *where;        /* per task: its worker while it runs */
	struct sched sched;
	struct trace trace;
	struct loop_timer kill_timer;
	/* timeouts: a min-heap of deadlines of running tasks, one timer
	 * armed to the earliest */
	struct deadline *dl;
	size_t ndl, adl;
	struct loop_timer dl_timer;
	uint8_t *timed_out;     /* per task */
	uint8_t *launches;      /* per task, counted modulo 256 */
	long *cores;            /* per task name: cores each instance takes */
	bool *io;               /* per task name: takes an I/O executor */
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
	struct progress prog;
};

static void
progress_clear(struct runner *r)
{
	progress_hide(&r->prog);
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
dl_push(struct runner *r, double when, uint32_t task, uint8_t launch)
{
	ALLOC_GROW(r->dl, r->ndl + 1, r->adl);
	size_t i = r->ndl++;
	while (i > 0 && r->dl[(i - 1) / 2].when > when) {
		r->dl[i] = r->dl[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	r->dl[i].when = when;
	r->dl[i].task = task;
	r->dl[i].launch = launch;
}

static struct deadline
dl_pop(struct runner *r)
{
	struct deadline top = r->dl[0], last = r->dl[--r->ndl];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= r->ndl)
			break;
		if (c + 1 < r->ndl && r->dl[c + 1].when < r->dl[c].when)
			c++;
		if (last.when <= r->dl[c].when)
			break;
		r->dl[i] = r->dl[c];
		i = c;
	}
	if (r->ndl)
		r->dl[i] = last;
	return top;
}

static void dl_fired(void *arg);

static void
dl_arm(struct runner *r)
{
	if (r->ndl)
		loop_timer_arm(&r->loop, &r->dl_timer,
			       r->dl[0].when - clock_mono(), dl_fired, r);
	else
		loop_timer_cancel(&r->loop, &r->dl_timer);
}

/* Kill the process group of every running task past its timeout; the
 * kill then ends the task as a failure (see on_done). */
static void
dl_fired(void *arg)
{
	struct runner *r = arg;
	double now = clock_mono();
	while (r->ndl && r->dl[0].when <= now) {
		struct deadline d = dl_pop(r);
		if (r->p->dag.tasks.v[d.task].state != TASK_RUNNING ||
		    r->launches[d.task] != d.launch)
			continue; /* it ended in time (or runs again, requeued) */
		r->timed_out[d.task] = 1;
		struct rworker *w = &r->w[r->where[d.task]];
		w->ex->ops->signal_one(w->ex, d.task, SIGKILL);
	}
	dl_arm(r);
}

static void
launch(struct runner *r, uint32_t t, uint32_t tmpl, size_t wi)
{
	struct plan *p = r->p;
	const struct wf_task *wt = &p->wf->tasks[tmpl];
	struct rworker *w = &r->w[wi];
	struct exec_job job;
	memset(&job, 0, sizeof(job));
	job.task = t;
	job.cwd = w->cwd;
	if (r->io[tmpl])
		w->io_free--;
	else
		w->free -= r->cores[tmpl];
	r->where[t] = (uint16_t)wi;
	r->launches[t]++;
	r->running++;
	progress_started(&r->prog, r->io[tmpl]);
	p->dag.tasks.v[t].state = TASK_RUNNING;

	char **sh_argv = r->sh_argv;
	if (plan_argv(p, t, &r->words, &r->argv)) {
		job.exe = plan_exe(p, t);
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
		job.envp = envp;
		/* the additions alone, NULL-ended, for remote agents */
		add = xrealloc(add, (wt->nenv + 1) * sizeof(char *));
		add[wt->nenv] = NULL;
		job.env_add = add;
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
		w->ex->done(&res, w->ex->arg);
	} else {
		w->ex->ops->submit(w->ex, &job);
		if (wt->timeout > 0 &&
		    p->dag.tasks.v[t].state == TASK_RUNNING) {
			bool first = !r->ndl || clock_mono() + wt->timeout <
							r->dl[0].when;
			dl_push(r, clock_mono() + wt->timeout, t, r->launches[t]);
			if (first)
				dl_arm(r);
		}
	}
	free((char **)job.env_add);
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
	struct rworker *w = &r->w[r->where[t]];
	if (r->io[tmpl])
		w->io_free++;
	else
		w->free += r->cores[tmpl];
	r->running--;
	if (res->lost) {
		progress_lost(&r->prog, r->io[tmpl]);
		/* Its worker is gone: the task runs again elsewhere. */
		g->tasks.v[t].state = TASK_READY;
		sched_push(&r->sched, tmpl, t);
		return;
	}

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
		if (r->timed_out[t])
			strbuf_addf(&why, "timed out after %gs and was killed",
				    wt->timeout);
		else
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
		t + 1, wt->name, tag.buf, w->name, wt->io ? "io" : "compute",
		r->cores[tmpl], status, exit_code, 1, r->submit[t],
		res->start, res->end, res->utime, res->stime,
		res->started ? res->maxrss_kb : -1, res->read_bytes,
		res->write_bytes,
	};
	trace_write(&r->trace, &row);
	strbuf_release(&tag);

	progress_ended(&r->prog, r->io[tmpl], ok);
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
				if (r->running)
					info_msg("not starting new tasks; waiting "
						 "for %zu running task%s (use -k to "
						 "keep going)", r->running,
						 r->running == 1 ? "" : "s");
			}
		}
	}
	strbuf_release(&why);
}

static void
signal_all(struct runner *r, int sig)
{
	for (size_t i = 0; i < r->nw; i++)
		if (r->w[i].ex->state == EXEC_READY)
			r->w[i].ex->ops->signal_all(r->w[i].ex, sig);
}

static void
kill_timer_fired(void *arg)
{
	signal_all(arg, SIGKILL);
}

static void
on_signal(int signo, void *arg)
{
	struct runner *r = arg;
	if (signo == SIGCHLD) {
		for (size_t i = 0; i < r->nw; i++)
			r->w[i].ex->ops->on_sigchld(r->w[i].ex);
		return;
	}
	r->interrupted++;
	r->stop = true;
	progress_clear(r);
	if (r->interrupted == 1) {
		info_msg("interrupted (%s): stopping %zu running task%s",
			 strsignal(signo), r->running,
			 r->running == 1 ? "" : "s");
		signal_all(r, SIGTERM);
		loop_timer_arm(&r->loop, &r->kill_timer, KILL_GRACE,
			       kill_timer_fired, r);
	} else {
		signal_all(r, SIGKILL);
	}
}

/*
 * Start ready tasks while any fits.  Workers are asked from the one with
 * the most free cores down, so compute spreads out; each answers with the
 * earliest ready task that fits its free cores or I/O executors.
 * O(workers^2 + workers x names) per launch; workers are few.
 */
static void
dispatch(struct runner *r)
{
	while (!r->stop) {
		bool launched = false;
		for (size_t i = 0; i < r->nw; i++)
			r->w[i].tried = false;
		for (;;) {
			size_t best = r->nw;
			for (size_t i = 0; i < r->nw; i++)
				if (r->w[i].usable && !r->w[i].tried &&
				    (best == r->nw || r->w[i].free > r->w[best].free))
					best = i;
			if (best == r->nw)
				break;
			r->w[best].tried = true;
			uint32_t tmpl;
			uint32_t t = sched_pop(&r->sched, r->w[best].free,
					       r->w[best].io_free, &tmpl);
			if (t != UINT32_MAX) {
				launch(r, t, tmpl, best);
				launched = true;
				break;
			}
		}
		if (!launched)
			break;
	}
}

/* I/O executors of a worker that does not say: two per core. */
static long
default_io(long cores)
{
	return cores > 0 ? 2 * cores : 2;
}

static void
on_state(struct exec *e, void *arg)
{
	struct runner *r = arg;
	for (size_t i = 0; i < r->nw; i++) {
		struct rworker *w = &r->w[i];
		if (w->ex != e)
			continue;
		if (e->state == EXEC_READY) {
			if (!w->cores)
				w->cores = e->ncpus > 0 ? e->ncpus : 1;
			w->free = w->cores;
			if (!w->io)
				w->io = default_io(w->cores);
			w->io_free = w->io;
			w->usable = true;
			verbose_msg("worker '%s' ready with %ld core%s", w->name,
				    w->cores, w->cores == 1 ? "" : "s");
		} else if (e->state == EXEC_FAILED || e->state == EXEC_LOST) {
			w->usable = false;
			if (!w->reported) {
				w->reported = true;
				progress_clear(r);
				if (e->state == EXEC_FAILED)
					warning_msg("worker '%s' skipped: %s", w->name,
						    e->error);
				else
					warning_msg("worker '%s' lost: %s; its "
						    "running tasks go back to the "
						    "queue", w->name, e->error);
			}
		}
	}
}

/* Set up the workers; connect the remote ones and wait until each is
 * ready or failed.  Returns how many are usable. */
static size_t
start_workers(struct runner *r)
{
	const struct runner_opts *o = r->o;
	const struct cluster *c = o->cluster;
	r->nw = c ? c->nworkers : 1;
	r->w = xcalloc(r->nw, sizeof(*r->w));
	if (!c) {
		r->w[0].name = "local";
		r->w[0].ex = exec_local_new(on_done, r);
		r->w[0].cores = r->w[0].free = o->cores;
		r->w[0].io = r->w[0].io_free =
			o->io_executors ? o->io_executors : default_io(o->cores);
		r->w[0].usable = true;
		return 1;
	}
	struct exec_ssh_opts so = { o->accept_new_host_keys, o->agent_path,
				    r->p->wf->workdir };
	size_t pending = 0;
	for (size_t i = 0; i < r->nw; i++) {
		const struct worker_spec *ws = &c->workers[i];
		struct rworker *w = &r->w[i];
		w->name = ws->name;
		w->cores = ws->cores;
		w->io = ws->io_executors;
		if (ws->local) {
			w->ex = exec_local_new(on_done, r);
			if (!w->cores)
				w->cores = o->cores;
			w->free = w->cores;
			if (!w->io)
				w->io = o->io_executors ? o->io_executors
							: default_io(w->cores);
			w->io_free = w->io;
			w->usable = true;
		} else {
			/* A shared workdir has the master's path there. */
			w->cwd = r->p->wf->workdir;
			w->ex = exec_ssh_new(ws, &so, &r->loop, on_done, on_state,
					     r);
			pending++;
		}
	}
	if (pending)
		verbose_msg("connecting to %zu worker%s", pending,
			    pending == 1 ? "" : "s");
	while (!r->interrupted) {
		size_t waiting = 0;
		for (size_t i = 0; i < r->nw; i++)
			waiting += r->w[i].ex->state == EXEC_CONNECTING;
		if (!waiting)
			break;
		loop_run_once(&r->loop);
	}
	size_t usable = 0;
	for (size_t i = 0; i < r->nw; i++)
		usable += r->w[i].usable;
	return usable;
}

static size_t
usable_workers(const struct runner *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nw; i++)
		n += r->w[i].usable;
	return n;
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
	r.t0 = clock_mono();
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
	progress_init(&r.prog, stderr, isatty(2), r.total, &r.loop);

	size_t nt = p->wf->ntasks;
	r.cores = xcalloc(nt ? nt : 1, sizeof(long));
	r.io = xcalloc(nt ? nt : 1, sizeof(bool));
	r.logdir_made = xcalloc(nt ? nt : 1, sizeof(bool));
	r.submit = xcalloc(r.total ? r.total : 1, sizeof(double));
	r.where = xcalloc(r.total ? r.total : 1, sizeof(uint16_t));
	r.timed_out = xcalloc(r.total ? r.total : 1, 1);
	r.launches = xcalloc(r.total ? r.total : 1, 1);
	for (size_t i = 0; i < nt; i++) {
		/* --no-io: I/O tasks are 1-core compute tasks (the baseline) */
		r.io[i] = p->wf->tasks[i].io && !o->no_io;
		r.cores[i] = r.io[i] ? 0 : p->wf->tasks[i].io ? 1
							    : p->wf->tasks[i].cores;
	}
	sched_init(&r.sched, nt, r.cores, r.io);

	int rc = 0;
	bool lost_all = false;
	if (!start_workers(&r)) {
		error_msg("no worker can be reached; nothing was run");
		rc = r.interrupted ? 130 : 3;
	}
	for (size_t i = 0; !rc && i < nt; i++) {
		long most = 0;
		for (size_t k = 0; k < r.nw; k++)
			if (r.w[k].usable && r.w[k].cores > most)
				most = r.w[k].cores;
		if (r.cores[i] > most && p->pt[i].ninst) {
			error_msg("task '%s' asks for %ld cores but no reachable "
				  "worker has more than %ld; nothing was run",
				  p->wf->tasks[i].name, r.cores[i], most);
			rc = 2;
		}
	}
	if (!rc) {
		double now = clock_real();
		for (uint32_t t = 0; t < r.total; t++)
			if (p->dag.tasks.v[t].state == TASK_READY) {
				r.submit[t] = now;
				sched_push(&r.sched, p->dag.tasks.v[t].tmpl, t);
			}
		verbose_msg("running %zu tasks of '%s' in %s", r.total,
			    p->wf->name, p->wf->workdir);
		for (;;) {
			dispatch(&r);
			if (!r.running) {
				if (!usable_workers(&r) && r.sched.nready &&
				    !r.stop) {
					progress_clear(&r);
					error_msg("every worker was lost; %zu tasks "
						  "could not run",
						  r.total - r.done - r.failed);
					lost_all = true;
				}
				break;
			}
			loop_run_once(&r.loop);
		}
		progress_release(&r.prog);
		rc = r.interrupted ? 130 : lost_all ? 3 : r.failed ? 1 : 0;
	}
	loop_timer_cancel(&r.loop, &r.kill_timer);
	progress_release(&r.prog);
	loop_timer_cancel(&r.loop, &r.dl_timer);

	if (trace_close(&r.trace, &err) < 0) {
		error_msg("%s", err.msg);
		if (!rc)
			rc = 1;
	}
	size_t not_run = r.total - r.done - r.failed;
	double secs = clock_mono() - r.t0;
	const char *tdir = o->trace_path ? "" : p->wf->workdir;
	const char *tsep = o->trace_path ? "" : "/";
	if (rc == 2 || (rc == 3 && !r.done && !r.failed))
		; /* said above */
	else if (r.interrupted)
		info_msg("interrupted after %.1fs: %zu done, %zu stopped, %zu not "
			 "run (trace: %s%s%s)", secs, r.done, r.failed, not_run,
			 tdir, tsep, tpath);
	else if (r.failed || lost_all)
		info_msg("%zu task%s failed, %zu done, %zu not run, in %.1fs "
			 "(trace: %s%s%s)", r.failed, r.failed == 1 ? "" : "s",
			 r.done, not_run, secs, tdir, tsep, tpath);
	else
		info_msg("%zu task%s done in %.1fs", r.done,
			 r.done == 1 ? "" : "s", secs);

	for (size_t i = 0; i < r.nw; i++)
		if (r.w[i].ex)
			r.w[i].ex->ops->release(r.w[i].ex);
	free(r.w);
	free(r.where);
	free(r.timed_out);
	free(r.launches);
	free(r.dl);
	loop_release(&r.loop);
	sched_release(&r.sched);
	free(r.cores);
	free(r.io);
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
