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
#include "failure.h"
#include "guard.h"
#include "iopol.h"
#include "journal.h"
#include "loop.h"
#include "path.h"
#include "probe.h"
#include "progress.h"
#include "resources.h"
#include "resume.h"
#include "sched.h"
#include "spawn.h"
#include "stage.h"
#include "trace.h"
#include "undo.h"

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
	bool remote;
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
	struct iopol pol;       /* storage-bandwidth constraints */
	struct iopol_grant *grant; /* per task while it runs */
	size_t dispatch_w;      /* dispatch: the worker being asked */
	FILE *events;           /* events.jsonl */
	struct stage *stage;    /* workers whose workdir is not shared */
	struct trace trace;
	struct loop_timer kill_timer;
	/* timeouts: a min-heap of deadlines of running tasks, one timer
	 * armed to the earliest */
	struct theap dl;        /* (when, task, launch) */
	struct loop_timer dl_timer;
	uint8_t *timed_out;     /* per task */
	uint8_t *launches;      /* per task, counted modulo 256 */
	uint8_t *rerun;         /* per task: done, and running again to make
				   data lost with a worker (lineage) */
	uint8_t *preempt;       /* per task: stopped to make way (iopol.h) */
	char **stop_aside;      /* per task (made at the first stop): where
				   a stopped attempt's outputs were moved,
				   until its next attempt ends */
	uint32_t *seq;          /* per task: launches before its last one */
	uint32_t nlaunched;
	struct idset io_run;    /* I/O tasks running */
	VEC(struct iopol_running) way;
	long *cores;            /* per task name: cores each instance takes */
	bool *io;               /* per task name: takes an I/O executor */
	bool *logdir_made;      /* per task name */
	double *submit;         /* per task */
	size_t total, done, failed;
	/* failure policies, resume (failure.c, undo.c, journal.c) */
	uint16_t *failures;     /* per task: failed attempts so far */
	uint16_t *failed_on;    /* per task: worker of its last failure */
	struct retryq retryq;   /* waiting out a back-off */
	VEC(uint32_t) pinned;   /* on_failure: retry, back-off over */
	uint32_t *due;
	size_t ndue, adue;
	struct journal journal;
	VEC(uint32_t) discard;  /* succeeded: drop saved copies once the
				   journal is on disk */
	VEC(uint32_t) recorded; /* succeeded: mark saved copies once the
				   journal record is written (undo.h) */
	struct resume resume;
	size_t skipped, cancelled, ignored, preempted;
	bool journal_failed;
	bool hurry;             /* second interrupt: do not wait for remote
				   workers */
	struct strbuf scratch;
	struct loop_timer sync_timer;
	VEC(uint32_t) sampled;  /* a climb's one writer, timed while it runs
				   (iopol_sample) */
	struct loop_timer sample_timer;
	double last_sync;       /* clock_mono() of the last fdatasync */
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

static void dl_fired(void *arg);

static void
dl_arm(struct runner *r)
{
	if (r->dl.n)
		loop_timer_arm(&r->loop, &r->dl_timer,
			       r->dl.v[0].when - clock_mono(), dl_fired, r);
	else
		loop_timer_cancel(&r->loop, &r->dl_timer);
}

/* Where the registries of storage_bw: auto are kept, in the workdir. */
#define REGISTRY ".wfrun/storage_bw.tsv"

/* events.jsonl beside the trace. */
static char *
events_path(const char *trace_path)
{
	char *dir = path_dirname(trace_path);
	struct strbuf b = STRBUF_INIT;
	strbuf_addf(&b, "%s/events.jsonl", dir);
	free(dir);
	return strbuf_detach(&b);
}

/* A scheduler decision, one JSON object per line (wfrun(1), FILES). */
static void
on_event(const struct iopol_event *e, void *arg)
{
	struct runner *r = arg;
	const char *name = e->key;
	if (!strcmp(e->ev, "constraint")) {
		verbose_msg("storage_bw of '%s': %g MB/s (%s, %ld ready)", name,
			    e->c, e->why, e->n);
		if (!strcmp(e->why, "learned") &&
		    iopol_registry_save(&r->pol, REGISTRY) < 0)
			warning_msg("cannot save %s/%s: %s", r->p->wf->workdir,
				    REGISTRY, strerror(errno));
	}
	if (r->events)
		events_write(r->events, clock_real(), name, e);
}

/* Ask what each sampled task has written so far, every AUTOBW_SAMPLE_S
 * seconds while any is sampled; the answers go to its learner
 * (on_written). */
static void
sample_fired(void *arg)
{
	struct runner *r = arg;
	size_t kept = 0;
	for (size_t i = 0; i < r->sampled.n; i++) {
		uint32_t t = r->sampled.v[i];
		if (r->p->dag.tasks.v[t].state != TASK_RUNNING ||
		    !r->grant[t].sample)
			continue;
		r->sampled.v[kept++] = t;
		struct exec *ex = r->w[r->where[t]].ex;
		ex->ops->ask_written(ex, t);
	}
	r->sampled.n = kept;
	if (kept)
		loop_timer_arm(&r->loop, &r->sample_timer, AUTOBW_SAMPLE_S,
			       sample_fired, r);
}

/* What a sampled task has written so far, read at when on the clock of
 * its start and end (where it runs). */
static void
on_written(struct exec *e, uint32_t t, double when, long long bytes,
	   void *arg)
{
	struct runner *r = arg;
	if (r->p->dag.tasks.v[t].state != TASK_RUNNING || !r->grant[t].sample ||
	    r->w[r->where[t]].ex != e)
		return; /* (an answer that came after its end) */
	if (!iopol_sample(&r->pol, r->p->dag.tasks.v[t].tmpl, r->where[t],
			  &r->grant[t], when, bytes))
		r->grant[t].sample = false;
}

/* Kill the process group of every running task past its timeout; the
 * kill then ends the task as a failure (see on_done). */
static void
dl_fired(void *arg)
{
	struct runner *r = arg;
	double now = clock_mono();
	while (r->dl.n && r->dl.v[0].when <= now) {
		struct theap_item d = theap_pop(&r->dl);
		if (r->p->dag.tasks.v[d.id].state != TASK_RUNNING ||
		    r->launches[d.id] != d.aux)
			continue; /* it ended in time (or runs again, requeued) */
		r->timed_out[d.id] = 1;
		struct rworker *w = &r->w[r->where[d.id]];
		if (!stage_abort(r->stage, d.id, "timed out while its inputs "
				 "were being staged"))
			w->ex->ops->signal_one(w->ex, d.id, SIGKILL);
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
	r->grant[t] = iopol_start(&r->pol, tmpl, wi,
				  (long)r->sched.q[tmpl].n);
	size_t si = 0;
	while (r->grant[t].sample && si < r->sampled.n &&
	       r->sampled.v[si] != t)
		si++; /* (a task sampled again after a quick relaunch) */
	if (r->grant[t].sample && w->ex->ops->ask_written &&
	    si == r->sampled.n) {
		VEC_PUSH(r->sampled, t);
		if (!r->sample_timer.armed)
			loop_timer_arm(&r->loop, &r->sample_timer,
				       AUTOBW_SAMPLE_S, sample_fired, r);
	}
	r->where[t] = (uint16_t)wi;
	r->launches[t]++;
	r->timed_out[t] = 0;
	r->preempt[t] = 0;
	r->seq[t] = r->nlaunched++;
	r->running++;
	if (r->io[tmpl])
		idset_add(&r->io_run, t);
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
	/* On a worker whose workdir is not shared, the stage sends the
	 * task once its inputs are there (each datum version in its own file:
	 * nothing to save); here, output directories and saved INOUT data
	 * first. */
	bool staged = stage_is_staged(r->stage, wi);
	const char *prep_err = NULL;
	struct errbuf serr;
	if (staged)
		stage_launch(r->stage, t, wi, &job);
	else if (make_output_dirs(r, t) < 0)
		prep_err = "cannot create its output directories";
	else if (undo_save(p, t, &serr) < 0)
		prep_err = serr.msg;
	if (staged) {
		/* sent by the stage */
	} else if (prep_err) {
		struct exec_result res;
		memset(&res, 0, sizeof(res));
		res.task = t;
		res.start = res.end = clock_real();
		res.read_bytes = res.write_bytes = -1;
		snprintf(res.error, sizeof(res.error), "%s", prep_err);
		w->ex->done(&res, w->ex->arg);
	} else {
		w->ex->ops->submit(w->ex, &job);
	}
	if (wt->timeout > 0 && p->dag.tasks.v[t].state == TASK_RUNNING) {
		bool first = !r->dl.n || clock_mono() + wt->timeout <
						r->dl.v[0].when;
		theap_push(&r->dl, clock_mono() + wt->timeout, t, r->launches[t]);
		if (first)
			dl_arm(r);
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

/* t is done (or failed with on_failure: ignore): release successors. */
static void
release_successors(struct runner *r, uint32_t t)
{
	struct dag *g = &r->p->dag;
	r->nready = 0;
	dag_complete(g, t, &r->ready, &r->nready, &r->aready);
	double now = clock_real();
	for (size_t i = 0; i < r->nready; i++) {
		r->submit[r->ready[i]] = now;
		sched_push(&r->sched, g->tasks.v[r->ready[i]].tmpl, r->ready[i]);
	}
	for (size_t i = 0; i < r->nready; i++) {
		uint32_t n = g->tasks.v[r->ready[i]].tmpl;
		iopol_ready(&r->pol, n, (long)r->sched.q[n].n);
	}
}

/* Back-offs over: on_failure: retry tasks wait for the right worker
 * (dispatch_pinned), the others go back to the queue. */
static void
retry_due(void *arg)
{
	struct runner *r = arg;
	retryq_take_due(&r->retryq, &r->loop, retry_due, r, &r->due, &r->ndue,
			&r->adue);
	double now = clock_real();
	for (size_t i = 0; i < r->ndue; i++) {
		uint32_t t = r->due[i];
		uint32_t tmpl = r->p->dag.tasks.v[t].tmpl;
		r->submit[t] = now;
		if (r->p->wf->tasks[tmpl].on_failure == WF_RETRY)
			VEC_PUSH(r->pinned, t);
		else
			sched_push(&r->sched, tmpl, t);
	}
}

/* Will a failed attempt of t (of task wt) be retried? */
static bool
will_retry(const struct runner *r, uint32_t t, const struct wf_task *wt)
{
	return !r->interrupted && !r->stop &&
	       r->failures[t] < failure_retries(wt);
}

/* A stopped attempt's outputs look complete to no one: they are moved
 * aside as a failed attempt's are (undo.h), until the task's next
 * attempt ends (drop_stopped). */
static void
stopped_aside(struct runner *r, uint32_t t)
{
	char *aside = NULL;
	struct errbuf uerr;
	if (undo_fail(r->p, t, false, &aside, &uerr) < 0) {
		progress_clear(r);
		error_msg("task %u: %s", t + 1, uerr.msg);
	}
	if (!aside)
		return;
	if (!r->stop_aside)
		r->stop_aside = xcalloc(r->total, sizeof(*r->stop_aside));
	free(r->stop_aside[t]);
	r->stop_aside[t] = aside;
}

/* t's attempt ended, done or failed (which moved its own outputs aside):
 * what a stopped attempt before it left goes. */
static void
drop_stopped(struct runner *r, uint32_t t)
{
	if (!r->stop_aside || !r->stop_aside[t])
		return;
	char *d = r->stop_aside[t];
	undo_rmtree(d);
	/* .wfrun/failed/NAME and .wfrun/failed, if that left them empty */
	for (int up = 0; up < 2; up++) {
		char *slash = strrchr(d, '/');
		if (!slash)
			break;
		*slash = '\0';
		if (rmdir(d) < 0)
			break;
	}
	free(d);
	r->stop_aside[t] = NULL;
}

/* A failed attempt of t: put its data back, then retry it, ignore the
 * failure, cancel what depends on it or stop, as its policy says. */
static void
on_failed(struct runner *r, uint32_t t, const struct exec_result *res,
	  const char *why, bool staged, uint32_t smiss)
{
	struct plan *p = r->p;
	struct dag *g = &p->dag;
	const struct wf_task *wt = &p->wf->tasks[g->tasks.v[t].tmpl];
	long nret = failure_retries(wt);
	bool retry = will_retry(r, t, wt);
	if (r->failures[t] < UINT16_MAX)
		r->failures[t]++;
	r->failed_on[t] = r->where[t];
	enum wf_on_failure pol = failure_final(wt, r->o->keep_going);
	/* A staged task's outputs are on its worker (the stage knows which
	 * it made); nothing of it is in the workdir to put back or aside. */
	uint32_t miss = staged ? smiss : missing_output(r, t);
	bool keep = !retry && !r->interrupted && pol == WF_IGNORE &&
		    miss == DAG_NONE;
	char *aside = NULL;
	struct errbuf uerr;
	if (!staged && undo_fail(p, t, keep, &aside, &uerr) < 0) {
		progress_clear(r);
		error_msg("task %u: %s", t + 1, uerr.msg);
	}
	bool io = r->io[g->tasks.v[t].tmpl];
	if (retry)
		progress_lost(&r->prog, io); /* it runs again */
	else
		progress_ended(&r->prog, io, false);
	if (r->interrupted) {
		r->failed++;
		g->tasks.v[t].state = TASK_FAILED;
		free(aside);
		return;
	}
	struct strbuf msg = STRBUF_INIT;
	strbuf_adds(&msg, "task ");
	plan_label(p, t, &msg);
	strbuf_addf(&msg, " %s", why);
	progress_clear(r);
	log_path(r, t, "err", &r->path);
	bool tail = res->started && !res->err_empty;
	if (tail && staged) {
		strbuf_addf(&msg, " (stderr on worker '%s': %s/%s)",
			    r->w[r->where[t]].name,
			    r->o->cluster->workers[r->where[t]].workdir,
			    r->path.buf);
		tail = false;
	} else if (tail) {
		strbuf_addf(&msg, " (stderr: %s/%s)", p->wf->workdir, r->path.buf);
	}
	if (retry) {
		double d = failure_backoff(r->failures[t]);
		warning_msg("%s; retry %u of %ld in %gs%s", msg.buf,
			    (unsigned)r->failures[t], nret, d,
			    r->nw < 2 || wt->on_failure != WF_RETRY ? ""
			    : r->failures[t] == 1 ? " on the same worker"
						  : " on another worker");
		if (tail)
			show_tail(r->path.buf);
		g->tasks.v[t].state = TASK_READY;
		retryq_push(&r->retryq, &r->loop, t, d, retry_due, r);
	} else if (keep) {
		warning_msg("%s; ignored (on_failure: ignore): its outputs exist, "
			    "so what depends on it runs", msg.buf);
		if (tail)
			show_tail(r->path.buf);
		r->ignored++;
		release_successors(r, t);
	} else {
		error_msg("%s", msg.buf);
		if (tail)
			show_tail(r->path.buf);
		r->failed++;
		g->tasks.v[t].state = TASK_FAILED;
		if (pol == WF_FAIL) {
			if (!r->stop) {
				r->stop = true;
				if (r->running)
					info_msg("not starting new tasks; waiting "
						 "for %zu running task%s (use -k to "
						 "keep going)", r->running,
						 r->running == 1 ? "" : "s");
			}
		} else {
			size_t n = failure_cancel_downstream(g, t);
			r->cancelled += n;
			if (pol == WF_IGNORE) {
				const struct dag_access *a =
					&g->acc.v[g->tasks.v[t].acc + miss];
				info_msg("on_failure is ignore, but it did not create "
					 "its output '%s' (%s): the %zu task%s that "
					 "depend on it are cancelled",
					 wt->params[a->param].name,
					 g->data.v[a->datum].path, n,
					 n == 1 ? "" : "s");
			} else if (n) {
				info_msg("cancelled the %zu task%s that depend on it; "
					 "the others go on", n, n == 1 ? "" : "s");
			}
		}
	}
	if (aside)
		info_msg("what it wrote was moved aside to %s/%s",
			 p->wf->workdir, aside);
	free(aside);
	strbuf_release(&msg);
}

/* Write the trace row of task t's attempt that ended with res (wfrun(1),
 * TRACE).  An attempt lost with its worker knows only where it was, since
 * when and until when. */
static void
trace_attempt(struct runner *r, uint32_t t, const char *status, int exit_code,
	      const struct exec_result *res, double in_s, double out_s,
	      long long sbytes)
{
	const struct plan *p = r->p;
	uint32_t tmpl = p->dag.tasks.v[t].tmpl;
	const struct wf_task *wt = &p->wf->tasks[tmpl];
	struct strbuf tag = STRBUF_INIT;
	plan_tag(p, t, &tag);
	bool lost = res->lost;
	struct trace_row row = {
		t + 1, wt->name, tag.buf, r->w[r->where[t]].name,
		wt->io ? "io" : "compute", r->cores[tmpl], r->grant[t].c,
		r->grant[t].epoch, status, exit_code, r->failures[t] + 1,
		r->submit[t], lost && res->start <= 0 ? res->end : res->start,
		res->end, lost ? -1 : res->utime, res->stime,
		res->started ? res->maxrss_kb : -1, res->read_bytes,
		res->write_bytes, in_s, out_s, sbytes,
	};
	trace_write(&r->trace, &row);
	strbuf_release(&tag);
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
	if (r->io[tmpl]) {
		w->io_free++;
		idset_del(&r->io_run, t);
	} else {
		w->free += r->cores[tmpl];
	}
	r->running--;
	if (res->lost) {
		progress_lost(&r->prog, r->io[tmpl]);
		iopol_abandon(&r->pol, tmpl, r->where[t], r->grant[t]);
		trace_attempt(r, t, "LOST", -1, res, -1, -1, -1);
		/* Its worker is gone: the task runs again elsewhere, from
		 * its saved INOUT data. */
		char *aside = NULL;
		struct errbuf uerr;
		if (undo_fail(p, t, false, &aside, &uerr) < 0)
			error_msg("task %u: %s", t + 1, uerr.msg);
		free(aside);
		g->tasks.v[t].state = TASK_READY;
		sched_push(&r->sched, tmpl, t);
		return;
	}
	if (res->parked) {
		/* an input is being made again: the stage readies it */
		iopol_abandon(&r->pol, tmpl, r->where[t], r->grant[t]);
		progress_lost(&r->prog, r->io[tmpl]);
		g->tasks.v[t].state = TASK_WAITING;
		return;
	}
	size_t wi = r->where[t];
	bool staged = stage_is_staged(r->stage, wi);
	double in_s = -1, out_s = -1;
	long long sbytes = -1;
	uint32_t smiss = DAG_NONE;
	if (staged)
		smiss = stage_done(r->stage, t, wi, res,
				   res->started && WIFEXITED(res->wstatus) &&
					   !WEXITSTATUS(res->wstatus),
				   &in_s, &out_s, &sbytes);
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
		uint32_t miss = staged ? smiss : missing_output(r, t);
		if (miss != DAG_NONE) {
			const struct dag_access *a = &g->acc.v[g->tasks.v[t].acc +
							       miss];
			strbuf_addf(&why, "exited 0 but did not create its output "
				    "'%s' (%s)", wt->params[a->param].name,
				    g->data.v[a->datum].path);
		}
	}
	bool ok = !why.len;
	if (r->preempt[t]) {
		r->preempt[t] = 0;
		if (!ok && !r->interrupted) {
			/* stopped to make way: it runs again, not a failure
			 * (it writes only OUT files: dag_out_only) */
			iopol_abandon(&r->pol, tmpl, wi, r->grant[t]);
			if (!staged)
				stopped_aside(r, t);
			trace_attempt(r, t, "PREEMPTED", exit_code, res, in_s,
				      out_s, sbytes);
			progress_lost(&r->prog, r->io[tmpl]);
			g->tasks.v[t].state = TASK_READY;
			sched_push(&r->sched, tmpl, t);
			r->preempted++;
			strbuf_release(&why);
			return;
		}
	}
	const char *status = ok ? "COMPLETED" : r->interrupted ? "ABORTED"
							       : "FAILED";
	drop_stopped(r, t);
	/* A retried instance is one left to start again, before its epoch
	 * (if it ends now) asks how many are left. */
	if (!ok && !r->rerun[t] && will_retry(r, t, wt))
		iopol_again(&r->pol, tmpl);
	iopol_finish(&r->pol, tmpl, r->where[t], r->grant[t],
		     res->started ? res->start : 0, res->started ? res->end : 0,
		     res->started ? res->write_bytes : -1);

	trace_attempt(r, t, status, exit_code, res, in_s, out_s, sbytes);

	if (r->rerun[t]) {
		/* made again for lost data: its successors were released and
		 * it was counted the first time */
		r->rerun[t] = 0;
		g->tasks.v[t].state = TASK_DONE;
		progress_lost(&r->prog, r->io[tmpl]);
		if (!ok) {
			struct strbuf lab = STRBUF_INIT;
			plan_label(p, t, &lab);
			progress_clear(r);
			error_msg("task %s, run again to make lost data, %s", lab.buf,
				  why.buf);
			strbuf_release(&lab);
		}
	} else if (ok) {
		r->done++;
		progress_ended(&r->prog, r->io[tmpl], true);
		/* The journal knows files in the workdir; a staged task's
		 * outputs are on its worker (and maybe never fetched), so it
		 * is not recorded and a later run makes them again. */
		if (!staged)
			resume_record(&r->resume, p, t, &r->journal,
				      &r->scratch);
		if (!staged && undo_has_inout(p, t)) {
			/* its INOUT copies (undo_save): marked once its
			 * record is written, dropped once it is on disk */
			VEC_PUSH(r->recorded, t);
			VEC_PUSH(r->discard, t);
		}
		release_successors(r, t);
		if (log_level >= 2) {
			struct strbuf lab = STRBUF_INIT;
			plan_label(p, t, &lab);
			progress_clear(r);
			verbose_msg("done %s in %.2fs", lab.buf,
				    res->end - res->start);
			strbuf_release(&lab);
		}
	} else {
		on_failed(r, t, res, why.buf, staged, smiss);
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
		stage_cancel(r->stage);
		info_msg("interrupted (%s): stopping %zu running task%s",
			 strsignal(signo), r->running,
			 r->running == 1 ? "" : "s");
		signal_all(r, SIGTERM);
		loop_timer_arm(&r->loop, &r->kill_timer, KILL_GRACE,
			       kill_timer_fired, r);
	} else {
		/* Do not wait for slow workers: their agents kill their
		 * tasks when the connection ends. */
		signal_all(r, SIGKILL);
		r->hurry = true;
	}
}

static bool
fits(struct runner *r, size_t k, uint32_t tmpl)
{
	const struct rworker *w = &r->w[k];
	return w->usable &&
	       (r->io[tmpl] ? w->io_free > 0 : w->free >= r->cores[tmpl]) &&
	       iopol_may_start(&r->pol, tmpl, k);
}

/*
 * Launch the on_failure: retry tasks whose back-off is over: the first
 * retry on the worker where the task failed, later ones on another one
 * (as COMPSs does), or on any worker when no other can take it at all.
 */
static void
dispatch_pinned(struct runner *r)
{
	for (size_t i = 0; i < r->pinned.n;) {
		uint32_t t = r->pinned.v[i];
		uint32_t tmpl = r->p->dag.tasks.v[t].tmpl;
		size_t last = r->failed_on[t], pick = r->nw;
		bool same = r->failures[t] == 1 && r->w[last].usable;
		bool other = false;
		for (size_t k = 0; k < r->nw; k++)
			if (k != last && r->w[k].usable &&
			    (r->io[tmpl] || r->w[k].cores >= r->cores[tmpl]))
				other = true;
		if (same || !other)
			pick = fits(r, last, tmpl) ? last : r->nw;
		if (!same && !other && !r->w[last].usable)
			for (size_t k = 0; k < r->nw && pick == r->nw; k++)
				if (fits(r, k, tmpl))
					pick = k;
		if (!same && other)
			for (size_t k = 0; k < r->nw && pick == r->nw; k++)
				if (k != last && fits(r, k, tmpl))
					pick = k;
		if (pick == r->nw) {
			i++;
			continue;
		}
		r->pinned.v[i] = r->pinned.v[--r->pinned.n];
		launch(r, t, tmpl, pick);
	}
}

/* Stage hooks (lineage): run finished task t again; ready a parked one. */
static bool
rerun_task(uint32_t t, void *arg)
{
	struct runner *r = arg;
	struct dag_task *dt = &r->p->dag.tasks.v[t];
	if (dt->state != TASK_DONE || r->stop)
		return false;
	r->rerun[t] = 1;
	dt->state = TASK_READY;
	r->submit[t] = clock_real();
	sched_push(&r->sched, dt->tmpl, t);
	return true;
}

static void
unpark_task(uint32_t t, void *arg)
{
	struct runner *r = arg;
	struct dag_task *dt = &r->p->dag.tasks.v[t];
	dt->state = TASK_READY;
	r->submit[t] = clock_real();
	sched_push(&r->sched, dt->tmpl, t);
}

/* Of the workers with room for task t, the one that holds the most bytes
 * of its inputs; best (the one with the most free cores) unless another
 * holds LOCALITY_MIN more: small files cost a round trip, not bandwidth,
 * and are not worth leaving cores idle for. */
#define LOCALITY_MIN (1 << 20)
static size_t
closest(struct runner *r, uint32_t t, uint32_t tmpl, size_t best)
{
	long long most = stage_local_bytes(r->stage, t, best) + LOCALITY_MIN - 1;
	for (size_t i = 0; i < r->nw; i++) {
		struct rworker *w = &r->w[i];
		if (i == best || !w->usable ||
		    (r->io[tmpl] ? w->io_free < 1 : w->free < r->cores[tmpl]) ||
		    !iopol_could_start(&r->pol, tmpl, i))
			continue;
		long long b = stage_local_bytes(r->stage, t, i);
		if (b > most) {
			most = b;
			best = i;
		}
	}
	return best;
}

/* For iopol_spread: the I/O tasks running on worker wi, or -1 if it
 * cannot take one now. */
static long
io_busy(size_t wi, void *arg)
{
	const struct rworker *w = &((struct runner *)arg)->w[wi];
	return w->usable && w->io_free > 0 ? w->io - w->io_free : -1;
}

/*
 * Start ready tasks while any fits.  Workers are asked from the one with
 * the most free cores down, so compute spreads out; each answers with the
 * earliest ready task that fits its free cores or I/O executors.
 * O(workers^2 + workers x names) per launch; workers are few.
 */
static bool
io_ok(uint32_t name, void *arg)
{
	struct runner *r = arg;
	return iopol_may_start(&r->pol, name, r->dispatch_w);
}

static void dispatch_round(struct runner *r);

/* Stop the I/O tasks that iopol_make_way says must make way (a climb's
 * first guess corrected: iopol.h).  Each ends in on_done, PREEMPTED, and
 * goes back to the queue. */
static void
make_way(struct runner *r)
{
	const struct dag *g = &r->p->dag;
	uint32_t name;
	while ((name = iopol_take_tight(&r->pol)) != UINT32_MAX) {
		r->way.n = 0;
		for (size_t i = 0; i < r->io_run.n; i++) {
			uint32_t t = r->io_run.v[i];
			uint32_t tmpl = g->tasks.v[t].tmpl;
			if (r->pol.nm[tmpl].grp != name || r->grant[t].epoch ||
			    !(r->grant[t].c > 0) || r->preempt[t])
				continue;
			struct iopol_running x = {
				t, r->where[t], r->seq[t], &r->grant[t],
				dag_out_only(g, t) && !r->rerun[t], false,
			};
			VEC_PUSH(r->way, x);
		}
		if (!iopol_make_way(&r->pol, name, r->way.v, r->way.n))
			continue;
		for (size_t i = 0; i < r->way.n; i++) {
			uint32_t t = r->way.v[i].task;
			if (!r->way.v[i].stop)
				continue;
			struct rworker *w = &r->w[r->where[t]];
			r->preempt[t] = 1;
			if (!stage_abort(r->stage, t, "stopped to make way"))
				w->ex->ops->stop_one(w->ex, t);
		}
	}
}

/* Start what can start; then close learning epochs that hold the others
 * up (iopol_close_idle) and start what that lets through. */
static void
dispatch(struct runner *r)
{
	if (!r->stop)
		make_way(r);
	for (;;) {
		dispatch_round(r);
		if (r->stop || !iopol_close_idle(&r->pol, !r->running))
			break;
	}
}

static void
dispatch_round(struct runner *r)
{
	if (r->pinned.n && !r->stop)
		dispatch_pinned(r);
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
			r->dispatch_w = best;
			uint32_t t = sched_pop_if(&r->sched, r->w[best].free,
						  r->w[best].io_free, io_ok, r,
						  &tmpl);
			if (t != UINT32_MAX && r->stage)
				best = closest(r, t, tmpl, best);
			else if (t != UINT32_MAX && r->io[tmpl])
				best = iopol_spread(&r->pol, tmpl, best,
						    io_busy, r);
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
				w->io = iopol_default_io(w->cores);
			w->io_free = w->io;
			r->pol.w[i].io_executors = w->io;
			r->pol.w[i].cores = w->cores;
			w->usable = true;
			verbose_msg("worker '%s' ready with %ld core%s", w->name,
				    w->cores, w->cores == 1 ? "" : "s");
		} else if (e->state == EXEC_FAILED || e->state == EXEC_LOST) {
			w->usable = false;
			stage_worker_lost(r->stage, i);
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
	iopol_add_cluster(&r->pol, c, r->o->cores, r->o->io_executors,
			  r->o->disk_bw);
	if (!c) {
		r->w[0].name = "local";
		r->w[0].ex = exec_local_new(on_done, &r->loop, r);
		r->w[0].ex->written = on_written;
		r->w[0].cores = r->w[0].free = o->cores;
		r->w[0].io = r->w[0].io_free =
			o->io_executors ? o->io_executors : iopol_default_io(o->cores);
		r->w[0].usable = true;
		return 1;
	}
	struct exec_ssh_opts so = { o->accept_new_host_keys, o->agent_path,
				    r->p->wf->workdir, false };
	/* a workdir of its own: no path of ours there, staging */
	struct exec_ssh_opts own = { o->accept_new_host_keys, o->agent_path,
				     NULL, true };
	size_t pending = 0;
	for (size_t i = 0; i < r->nw; i++) {
		const struct worker_spec *ws = &c->workers[i];
		struct rworker *w = &r->w[i];
		w->name = ws->name;
		w->cores = ws->cores;
		w->io = ws->io_executors;
		if (ws->local) {
			w->ex = exec_local_new(on_done, &r->loop, r);
			if (!w->cores)
				w->cores = o->cores;
			w->free = w->cores;
			if (!w->io)
				w->io = o->io_executors ? o->io_executors
							: iopol_default_io(w->cores);
			w->io_free = w->io;
			w->usable = true;
		} else if (!ws->shared) {
			if (!r->stage) {
				struct stage_hooks hk = { rerun_task, unpark_task,
							  r };
				r->stage = stage_new(r->p, r->nw);
				stage_set_hooks(r->stage, &hk);
			}
			w->ex = exec_ssh_new(ws, &own, &r->loop, on_done, on_state,
					     r);
			stage_add_worker(r->stage, i, w->ex, ws->name, ws->workdir);
			pending++;
		} else {
			/* A shared workdir has the master's path there. */
			w->cwd = r->p->wf->workdir;
			w->remote = true;
			w->ex = exec_ssh_new(ws, &so, &r->loop, on_done, on_state,
					     r);
			pending++;
		}
	}
	for (size_t i = 0; i < r->nw; i++)
		r->w[i].ex->written = on_written;
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

/* Where the bandwidth wfrun measured of this machine's disk is kept. */
#define DISK_BW_FILE ".wfrun/disk_bw"
/* MB written to measure it: enough for a steady figure, under a second
 * on most disks. */
#define DISK_BW_PROBE_MB 64

/*
 * DESIGN.md §3: without a given bandwidth, this machine's disk is
 * measured (as `wfrun probe` does) the first time a task with a
 * storage_bw could run on it, and the figure is kept in the workdir for
 * later runs.  Only when such a task exists: other runs write nothing.
 */
static void
measure_local_disk(struct runner *r)
{
	const struct cluster *c = r->o->cluster;
	bool needed = false;
	for (size_t i = 0; i < r->p->wf->ntasks && !needed; i++)
		needed = r->p->pt[i].ninst && r->pol.nm[i].io &&
			 r->pol.nm[i].bw.kind != WF_BW_NONE;
	for (size_t k = 0; needed && k < r->nw; k++) {
		struct iopol_device *D = &r->pol.dev[r->pol.w[k].dev];
		if ((c && !c->workers[k].local) || D->B > 0)
			continue;
		double B = 0;
		FILE *f = fopen(DISK_BW_FILE, "r");
		if (f) {
			if (fscanf(f, "%lf", &B) != 1 || !(B > 0))
				B = 0;
			fclose(f);
		}
		if (B > 0) {
			D->B = B;
			continue;
		}
		struct probe_opts po = { ".", DISK_BW_PROBE_MB, 1, NULL };
		struct probe_result pr;
		struct errbuf err;
		if (probe_run(&po, &pr, &err) < 0) {
			warning_msg("cannot measure this machine's disk for "
				    "storage_bw: %s", err.msg);
			return; /* the tasks are then refused with the reason */
		}
		D->B = pr.mbps >= 1 ? (double)(long)pr.mbps : 1;
		f = fopen(DISK_BW_FILE ".tmp", "w");
		if (f) {
			fprintf(f, "%g\n", D->B);
			if (fclose(f) || rename(DISK_BW_FILE ".tmp", DISK_BW_FILE))
				unlink(DISK_BW_FILE ".tmp");
		}
		info_msg("this machine's disk writes %g MB/s (measured for "
			 "storage_bw, kept in %s/%s; --disk-bw sets it)", D->B,
			 r->p->wf->workdir, DISK_BW_FILE);
	}
}

/* A constrained I/O task that no usable worker can run: say why, once. */
static bool
unfit_everywhere(struct runner *r, uint32_t name)
{
	char buf[512];
	const char *why = NULL;
	for (size_t k = 0; k < r->nw; k++) {
		if (!r->w[k].usable)
			continue;
		const char *w = iopol_unfit(&r->pol, name, k, buf, sizeof(buf));
		if (!w)
			return false;
		why = w;
	}
	if (!why)
		return false;
	error_msg("task '%s' has a storage_bw, but %s (give a disk's "
		  "bandwidth with --disk-bw MBPS, or <disk bandwidth=\"MBPS\"/> "
		  "in the resources file; 'wfrun probe' measures it); nothing "
		  "was run", r->p->wf->tasks[name].name, why);
	return true;
}

/* Whether a task still runs on this machine (not through an agent). */
static bool
local_running(const struct runner *r)
{
	for (size_t i = 0; i < r->nw; i++)
		if (!r->w[i].remote && r->w[i].ex->running)
			return true;
	return false;
}

static void sync_fired(void *arg);

/* Write the records of this round; at most every JOURNAL_SYNC_EVERY
 * seconds (or when force) make them durable, then drop the saved INOUT
 * copies of the tasks they record (never before). */
static void
sync_journal(struct runner *r, bool force)
{
	struct errbuf err;
	double now = clock_mono();
	bool sync = force || now - r->last_sync >= JOURNAL_SYNC_EVERY;
	if (journal_flush(&r->journal, sync, &err) < 0) {
		if (!r->journal_failed) {
			progress_clear(r);
			warning_msg("%s; until it works, a later run cannot know "
				    "which tasks finished here", err.msg);
			r->journal_failed = true;
		}
		return;
	}
	for (size_t i = 0; i < r->recorded.n; i++)
		undo_succeeded(r->recorded.v[i]);
	r->recorded.n = 0;
	if (!sync) {
		if ((r->journal.unsynced || r->discard.n) && !r->sync_timer.armed)
			loop_timer_arm(&r->loop, &r->sync_timer,
				       r->last_sync + JOURNAL_SYNC_EVERY - now,
				       sync_fired, r);
		return;
	}
	r->last_sync = now;
	loop_timer_cancel(&r->loop, &r->sync_timer);
	for (size_t i = 0; i < r->discard.n; i++)
		undo_discard(r->discard.v[i]);
	r->discard.n = 0;
}

static void
sync_fired(void *arg)
{
	sync_journal(arg, true);
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
	/* Lock, guardian, journal, leftovers of a killed run, then what
	 * is up to date: all before the trace is truncated. */
	int lock_fd = -1;
	if (mkdir_p(".wfrun", 0777) < 0) {
		error_msg("cannot create %s/.wfrun: %s", p->wf->workdir,
			  strerror(errno));
		return 2;
	}
	if ((lock_fd = guard_lock(p->wf->workdir, &err)) < 0) {
		error_msg("%s", err.msg);
		return 2;
	}
	if (guard_start(&err) < 0 ||
	    journal_open(&r.journal, JOURNAL_PATH, true, &err) < 0) {
		error_msg("%s", err.msg);
		journal_release(&r.journal);
		guard_stop();
		close(lock_fd);
		return 2;
	}
	undo_recover(&r.journal);
	resume_plan(&r.resume, p, &r.journal, o->forced, o->force_all);
	if (r.resume.unsafe != DAG_NONE) {
		struct strbuf lab = STRBUF_INIT;
		plan_label(p, r.resume.unsafe, &lab);
		warning_msg("task %s ran before and runs again: it updates (INOUT) "
			    "a file that no task creates, which may now hold its "
			    "update twice; put back the original and use "
			    "--forceall if it does", lab.buf);
		strbuf_release(&lab);
	}
	strbuf_init(&r.scratch);
	char *tpath = o->trace_path ? xstrdup(o->trace_path)
				    : xstrdup(".wfrun/trace.tsv");
	if (trace_open(&r.trace, tpath, &err) < 0) {
		error_msg("%s", err.msg);
		free(tpath);
		resume_release(&r.resume);
		journal_release(&r.journal);
		guard_stop();
		close(lock_fd);
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
	r.preempt = xcalloc(r.total ? r.total : 1, 1);
	r.seq = xcalloc(r.total ? r.total : 1, sizeof(*r.seq));
	idset_init(&r.io_run, r.total);
	r.failures = xcalloc(r.total ? r.total : 1, sizeof(uint16_t));
	r.failed_on = xcalloc(r.total ? r.total : 1, sizeof(uint16_t));
	r.rerun = xcalloc(r.total ? r.total : 1, 1);
	for (size_t i = 0; i < nt; i++) {
		/* --no-io: I/O tasks are 1-core compute tasks (the baseline) */
		r.io[i] = p->wf->tasks[i].io && !o->no_io;
		r.cores[i] = r.io[i] ? 0 : p->wf->tasks[i].io ? 1
							    : p->wf->tasks[i].cores;
	}
	sched_init(&r.sched, nt, r.cores, r.io);
	uint32_t *ninst = xcalloc(nt ? nt : 1, sizeof(uint32_t));
	for (size_t i = 0; i < nt; i++)
		ninst[i] = p->pt[i].ninst;
	iopol_init(&r.pol, p->wf, ninst, o->no_io, on_event, &r);
	free(ninst);
	r.pol.relearn = o->relearn;
	r.pol.paper = o->learn_paper;
	r.pol.no_preempt = o->no_preempt;
	if (iopol_registry_load(&r.pol, REGISTRY) < 0)
		warning_msg("cannot read %s/%s: %s; storage_bw: auto learns "
			    "again", p->wf->workdir, REGISTRY, strerror(errno));
	r.grant = xcalloc(r.total ? r.total : 1, sizeof(*r.grant));
	char *epath = events_path(tpath);
	r.events = fopen(epath, "w");
	if (!r.events)
		warning_msg("cannot write %s: %s", epath, strerror(errno));

	int rc = 0;
	bool lost_all = false;
	if (!start_workers(&r)) {
		error_msg("no worker can be reached; nothing was run");
		rc = r.interrupted ? 130 : 3;
	}
	if (!rc)
		measure_local_disk(&r);
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
		if (!rc && p->pt[i].ninst && unfit_everywhere(&r, i))
			rc = 2;
	}
	if (!rc) {
		/* Up to date (resume.c): done without running; their
		 * predecessors are all skipped too, so program order works. */
		for (uint32_t t = 0; t < r.total; t++)
			if (r.resume.why[t] == RESUME_SKIP) {
				r.nready = 0;
				dag_complete(&p->dag, t, &r.ready, &r.nready,
					     &r.aready);
				r.skipped++;
			}
		r.prog.done += r.skipped; /* the progress counts them done */
		if (r.skipped)
			info_msg("%zu of %zu tasks are up to date (see the journal "
				 "%s/%s; --forceall reruns them)", r.skipped,
				 r.total, p->wf->workdir, JOURNAL_PATH);
		double now = clock_real();
		for (uint32_t t = 0; t < r.total; t++)
			if (p->dag.tasks.v[t].state == TASK_READY) {
				r.submit[t] = now;
				sched_push(&r.sched, p->dag.tasks.v[t].tmpl, t);
			}
		for (uint32_t i = 0; i < nt; i++)
			if (r.sched.q[i].n)
				iopol_ready(&r.pol, i, (long)r.sched.q[i].n);
		verbose_msg("running %zu tasks of '%s' in %s", r.total,
			    p->wf->name, p->wf->workdir);
		for (;;) {
			dispatch(&r);
			/* the records of the tasks that ended, after the
			 * launches: an fdatasync then leaves no slot idle */
			sync_journal(&r, false);
			if (!r.running && (r.stop || !r.retryq.n)) {
				if (!usable_workers(&r) &&
				    (r.sched.nready || r.pinned.n) && !r.stop) {
					progress_clear(&r);
					error_msg("every worker was lost; %zu tasks "
						  "could not run",
						  r.total - r.done - r.failed);
					lost_all = true;
				}
				break;
			}
			if (r.hurry && !local_running(&r))
				break; /* remote tasks die with their connection */
			loop_run_once(&r.loop);
		}
		sync_journal(&r, true);
		/* waiting for a retry when the run stopped: failed */
		for (size_t i = 0; i < r.retryq.n; i++)
			p->dag.tasks.v[r.retryq.v[i].task].state = TASK_FAILED;
		for (size_t i = 0; i < r.pinned.n; i++)
			p->dag.tasks.v[r.pinned.v[i]].state = TASK_FAILED;
		r.failed += r.retryq.n + r.pinned.n;
		progress_clear(&r);
		rc = r.interrupted ? 130 : lost_all ? 3 : r.failed ? 1 : 0;
		if (r.stage && !r.interrupted) {
			/* the outputs come back to the master's workdir */
			stage_fetch_start(r.stage, o->fetch);
			/* (a lost output's producer may run again) */
			while (stage_busy(r.stage) && !r.interrupted) {
				dispatch(&r);
				if (!r.running && !usable_workers(&r))
					stage_abandon(r.stage);
				if (stage_busy(r.stage))
					loop_run_once(&r.loop);
			}
			if (stage_finish(r.stage) && !rc)
				rc = 1;
		}
	}
	loop_timer_cancel(&r.loop, &r.kill_timer);
	progress_release(&r.prog);
	loop_timer_cancel(&r.loop, &r.dl_timer);
	loop_timer_cancel(&r.loop, &r.sync_timer);
	loop_timer_cancel(&r.loop, &r.sample_timer);

	if (trace_close(&r.trace, &err) < 0) {
		error_msg("%s", err.msg);
		if (!rc)
			rc = 1;
	}
	size_t not_run = r.total - r.done - r.failed - r.skipped - r.ignored;
	struct strbuf extra = STRBUF_INIT;
	if (r.skipped)
		strbuf_addf(&extra, ", %zu up to date", r.skipped);
	if (r.ignored)
		strbuf_addf(&extra, ", %zu failure%s ignored", r.ignored,
			    r.ignored == 1 ? "" : "s");
	if (r.cancelled)
		strbuf_addf(&extra, ", %zu cancelled", r.cancelled);
	if (r.preempted)
		strbuf_addf(&extra, ", %zu I/O attempt%s stopped to make way",
			    r.preempted, r.preempted == 1 ? "" : "s");
	double secs = clock_mono() - r.t0;
	const char *tdir = o->trace_path ? "" : p->wf->workdir;
	const char *tsep = o->trace_path ? "" : "/";
	if (rc == 2 || (rc == 3 && !r.done && !r.failed))
		; /* said above */
	else if (r.interrupted)
		info_msg("interrupted after %.1fs: %zu done, %zu stopped, %zu not "
			 "run%s (trace: %s%s%s)", secs, r.done, r.failed, not_run,
			 extra.buf, tdir, tsep, tpath);
	else if (r.failed || lost_all)
		info_msg("%zu task%s failed, %zu done, %zu not run%s, in %.1fs "
			 "(trace: %s%s%s)", r.failed, r.failed == 1 ? "" : "s",
			 r.done, not_run, extra.buf, secs, tdir, tsep, tpath);
	else
		info_msg("%zu task%s done in %.1fs%s", r.done,
			 r.done == 1 ? "" : "s", secs, extra.buf);
	strbuf_release(&extra);

	for (size_t i = 0; i < r.nw; i++)
		if (r.w[i].ex) {
			r.w[i].ex->hurry = r.hurry;
			r.w[i].ex->ops->release(r.w[i].ex);
		}
	stage_free(r.stage);
	free(r.w);
	retryq_release(&r.retryq, &r.loop);
	VEC_FREE(r.pinned);
	VEC_FREE(r.discard);
	VEC_FREE(r.recorded);
	free(r.due);
	free(r.failures);
	free(r.failed_on);
	resume_release(&r.resume);
	journal_release(&r.journal);
	strbuf_release(&r.scratch);
	guard_stop();
	close(lock_fd);
	free(r.where);
	free(r.timed_out);
	free(r.launches);
	free(r.preempt);
	if (r.stop_aside)
		for (size_t i = 0; i < r.total; i++)
			free(r.stop_aside[i]);
	free(r.stop_aside);
	free(r.seq);
	idset_release(&r.io_run);
	VEC_FREE(r.way);
	VEC_FREE(r.sampled);
	free(r.rerun);
	free(r.dl.v);
	loop_release(&r.loop);
	sched_release(&r.sched);
	if (iopol_registry_save(&r.pol, REGISTRY) < 0)
		warning_msg("cannot save %s/%s: %s", p->wf->workdir, REGISTRY,
			    strerror(errno));
	iopol_release(&r.pol);
	free(r.grant);
	if (r.events && fclose(r.events))
		warning_msg("error writing %s: %s", epath, strerror(errno));
	free(epath);
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
