#include "runner.h"
#include "select.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent_client.h"
#include "contain.h"
#include "events.h"
#include "exec.h"
#include "exitcode.h"
#include "failure.h"
#include "guard.h"
#include "history.h"
#include "iopol.h"
#include "journal.h"
#include "logname.h"
#include "loop.h"
#include "path.h"
#include "place.h"
#include "probe.h"
#include "progress.h"
#include "resources.h"
#include "resume.h"
#include "slurm.h"
#include "slurm_alloc.h"
#include "slurm_jobs.h"
#include "spawn.h"
#include "stage.h"
#include "temp.h"
#include "swenv.h"
#include "swenv_remote.h"
#include "trace.h"
#include "undo.h"

/* Seconds between SIGTERM and SIGKILL when a run is interrupted. */
#define KILL_GRACE 5.0
/* Lines of a failed task's stderr shown on the terminal. */
#define TAIL_LINES 10

/* A place tasks run: this machine, an SSH worker or a Slurm node (its
 * capacity is the place's). */
struct rworker {
	const char *name;
	struct exec *ex;       /* NULL: given back */
	const struct worker_spec *spec; /* NULL: this machine alone, or a
					   node wfrun asked Slurm for */
	struct slurm_node *node; /* a node wfrun asked Slurm for */
	const char *cwd;       /* where its tasks run; NULL: ours */
	bool reported;         /* its failure was reported */
	bool remote;           /* reached through an agent (shared or not) */
};

struct runner {
	struct plan *p;
	const struct runner_opts *o;
	struct loop loop;
	struct rworker *w;
	size_t nw;
	struct place pl;        /* tasks' run state, workers' capacity, and
				   what starts where */
	struct iopol pol;       /* storage-bandwidth constraints */
	FILE *events;           /* events.jsonl */
	struct stage *stage;    /* workers whose workdir is not shared */
	struct slurm_alloc alloc; /* nodes asked of Slurm (<slurm>) */
	bool allocating;        /* alloc is set up */
	struct loop_timer idle_timer; /* the next node idle long enough */
	struct trace trace;
	struct loop_timer kill_timer;
	/* timeouts: a min-heap of deadlines of running tasks, one timer
	 * armed to the earliest */
	struct theap dl;        /* (when, task, launch) */
	struct loop_timer dl_timer;
	bool *logdir_made;      /* per task name */
	bool *mem_warned;       /* per task name: said it passed its memory */
	bool *saved;            /* per instance: undo_save set data aside */
	size_t total, done, failed;
	/* failure policies, resume (failure.c, undo.c, journal.c) */
	struct retryq retryq;   /* waiting out a back-off */
	uint32_t *due;
	size_t ndue, adue;
	struct journal journal;
	VEC(uint32_t) discard;  /* succeeded: drop saved copies once the
				   journal is on disk */
	VEC(uint32_t) recorded; /* succeeded: mark saved copies once the
				   journal record is written (undo.h) */
	struct resume resume;
	struct temp temp;       /* temp outputs: removed once read */
	size_t skipped, cancelled, ignored, preempted;
	size_t left_out;        /* not needed by the targets (select.h) */
	bool journal_failed;
	bool unrecorded;        /* a task's record could not be made */
	bool refused;           /* a worker's host key was refused */
	bool hurry;             /* second interrupt: do not wait for remote
				   workers */
	struct strbuf scratch;
	struct loop_timer sync_timer;
	VEC(uint32_t) sampled;  /* a climb's one writer, timed while it runs
				   (iopol_sample) */
	struct loop_timer sample_timer;
	double last_sync;       /* clock_mono() of the last fdatasync */
	int interrupted;
	double t0;
	int lock_fd;            /* the workdir's lock, -1: not taken */
	bool looping;           /* the loop, places and policy are set up */
	char *tpath, *epath;    /* the trace, the events file */
	struct history hist;    /* this run's record */
	struct strbuf cmd, words, path;
	struct strvec argv;
	char *sh_argv[4];       /* sh -c COMMAND */
	struct strbuf swcmd, swname; /* a task's command in its software
					environment (swenv.h) */
	struct progress prog;
	size_t writers_done;    /* of the next stage's writers, the first
				   not seen done (expand_ready) */
	bool expand_failed;     /* a stage could not be expanded: */
	uint32_t bad_from;      /* its first task (a name) */
	pid_t until_pid;        /* a repeat block's until command, running
				   (until_wait) */
	VEC(pid_t) removing;    /* containers of killed tasks being removed
				   (removals_reap) */
	struct swenv_remote swr; /* images and modules of remote workers */
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
	bool own = logname_own(r->p, t); /* else each instance's, a log: */
	if (!own || !r->logdir_made[tmpl]) {
		logname_dir(r->p, t, ext, out);
		if (mkdir_p(out->buf, 0777) < 0)
			die("cannot create %s/%s: %s", r->p->wf->workdir, out->buf,
			    strerror(errno));
		r->logdir_made[tmpl] = own;
	}
	logname_path(r->p, t, ext, out);
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
			/* A directory collection the task writes may have
			 * been moved aside by a failed attempt (undo_fail):
			 * made again each time.  The parent of a file is
			 * made once. */
			if (!a->is_dir && (g->data.v[dir].flags & DATUM_DIR_MADE))
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
		if ((!strcmp(e->why, "learned") || !strcmp(e->why, "rounds")) &&
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
		    !r->pl.t[t].grant.sample)
			continue;
		r->sampled.v[kept++] = t;
		struct exec *ex = r->w[r->pl.t[t].where].ex;
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
	if (r->p->dag.tasks.v[t].state != TASK_RUNNING || !r->pl.t[t].grant.sample ||
	    r->w[r->pl.t[t].where].ex != e)
		return; /* (an answer that came after its end) */
	if (!iopol_sample(&r->pol, r->p->dag.tasks.v[t].tmpl, r->pl.t[t].where,
			  &r->pl.t[t].grant, when, bytes))
		r->pl.t[t].grant.sample = false;
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
		    r->pl.t[d.id].launches != d.aux)
			continue; /* it ended in time (or runs again, requeued) */
		r->pl.t[d.id].timed_out = 1;
		struct rworker *w = &r->w[r->pl.t[d.id].where];
		if (!stage_abort(r->stage, d.id, "timed out while its inputs "
				 "were being staged"))
			w->ex->ops->signal_one(w->ex, d.id, SIGKILL);
	}
	dl_arm(r);
}

/* A climb's one writer (its grant says sample): ask what it has written
 * every AUTOBW_SAMPLE_S seconds while it runs. */
static void
sample_start(struct runner *r, uint32_t t, struct exec *ex)
{
	if (!r->pl.t[t].grant.sample || !ex->ops->ask_written)
		return;
	for (size_t si = 0; si < r->sampled.n; si++)
		if (r->sampled.v[si] == t)
			return; /* (a task sampled again after a quick relaunch) */
	VEC_PUSH(r->sampled, t);
	if (!r->sample_timer.armed)
		loop_timer_arm(&r->loop, &r->sample_timer, AUTOBW_SAMPLE_S,
			       sample_fired, r);
}

/* The container engine of worker wi: --container-engine, else its own
 * (the resources file), else NULL: the first found there. */
static const char *
worker_engine(struct runner *r, size_t wi)
{
	if (r->o->container_engine)
		return r->o->container_engine;
	const struct worker_spec *ws = r->w[wi].spec;
	return ws ? ws->container_engine : NULL;
}

/* sh -c SCRIPT: the command of task t in its modules and container. */
static void
job_swenv(struct runner *r, uint32_t t, size_t wi, struct exec_job *job)
{
	const struct wf_task *wt = &r->p->wf->tasks[r->p->dag.tasks.v[t].tmpl];
	strbuf_reset(&r->cmd);
	plan_command(r->p, t, &r->cmd);
	swenv_name(wt->name, t, &r->swname);
	struct swenv_job sj = { wt->container, wt->modules, wt->network,
				worker_engine(r, wi), r->swname.buf,
				job->env_add };
	swenv_wrap(&sj, r->cmd.buf, &r->swcmd);
	r->sh_argv[2] = r->swcmd.buf;
	job->exe = "/bin/sh";
	job->argv = r->sh_argv;
}

/* The job's program: its argv when it has one, else sh -c COMMAND. */
static void
job_command(struct runner *r, uint32_t t, size_t wi, struct exec_job *job)
{
	if (swenv_used(&r->p->wf->tasks[r->p->dag.tasks.v[t].tmpl])) {
		job_swenv(r, t, wi, job);
	} else if (plan_argv(r->p, t, &r->words, &r->argv)) {
		job->exe = plan_exe(r->p, t);
		job->argv = r->argv.v;
	} else {
		strbuf_reset(&r->cmd);
		plan_command(r->p, t, &r->cmd);
		r->sh_argv[2] = r->cmd.buf;
		job->exe = "/bin/sh";
		job->argv = r->sh_argv;
	}
}

/* The job's environment: ours and the task's additions (envs, nenv of
 * them, to release with job_env_release). */
static struct strbuf *
job_env(struct runner *r, uint32_t t, size_t nenv, struct exec_job *job)
{
	if (!nenv)
		return NULL;
	char **add = xcalloc(nenv + 1, sizeof(char *));
	struct strbuf *envs = xcalloc(nenv, sizeof(*envs));
	for (size_t i = 0; i < nenv; i++) {
		strbuf_init(&envs[i]);
		plan_env(r->p, t, i, &envs[i]);
		add[i] = envs[i].buf;
	}
	job->envp = spawn_env(add, nenv);
	/* the additions alone, NULL-ended, for remote agents */
	job->env_add = add;
	return envs;
}

static void
job_env_release(struct exec_job *job, struct strbuf *envs, size_t nenv)
{
	free((char **)job->env_add);
	for (size_t i = 0; envs && i < nenv; i++)
		strbuf_release(&envs[i]);
	free(envs);
	free((char **)job->envp);
}

static void
say_start(struct runner *r, uint32_t t, const struct exec_job *job)
{
	struct strbuf lab = STRBUF_INIT;
	plan_label(r->p, t, &lab);
	if (job->argv != r->sh_argv) {
		strbuf_reset(&r->cmd);
		plan_command(r->p, t, &r->cmd);
	}
	strbuf_addf(&lab, ": %s", r->cmd.buf);
	progress_clear(r);
	verbose_msg("start %s", lab.buf);
	strbuf_release(&lab);
}

/* An attempt that could not start ends at once, failed for why. */
static void
not_started(struct exec *ex, uint32_t t, const char *why)
{
	struct exec_result res;
	memset(&res, 0, sizeof(res));
	res.task = t;
	res.start = res.end = clock_real();
	res.read_bytes = res.write_bytes = -1;
	snprintf(res.error, sizeof(res.error), "%s", why);
	ex->done(&res, ex->arg);
}

/* Hand the job to worker wi.  On a worker whose workdir is not shared,
 * the stage sends the task once its inputs are there (each datum version
 * in its own file: nothing to save); here, output directories and saved
 * INOUT data first. */
static void
send_job(struct runner *r, uint32_t t, size_t wi, struct exec_job *job)
{
	struct exec *ex = r->w[wi].ex;
	struct errbuf serr;
	int saved;
	const char *no = swenv_remote_why(&r->swr, wi,
					  r->p->dag.tasks.v[t].tmpl);
	if (no)
		not_started(ex, t, no);
	else if (stage_is_staged(r->stage, wi))
		stage_launch(r->stage, t, wi, job);
	else if (make_output_dirs(r, t) < 0)
		not_started(ex, t, "cannot create its output directories");
	else if (undo_keep_originals(r->p, t, r->resume.first, &serr) < 0 ||
		 (saved = undo_save(r->p, t, &r->journal, &serr)) < 0)
		not_started(ex, t, serr.msg);
	else {
		r->saved[t] = r->saved[t] || saved;
		ex->ops->submit(ex, job);
	}
}

/* Its deadline, when it has a timeout and still runs. */
static void
arm_timeout(struct runner *r, uint32_t t, double timeout)
{
	if (!(timeout > 0) || r->p->dag.tasks.v[t].state != TASK_RUNNING)
		return;
	bool first = !r->dl.n || clock_mono() + timeout < r->dl.v[0].when;
	theap_push(&r->dl, clock_mono() + timeout, t, r->pl.t[t].launches);
	if (first)
		dl_arm(r);
}

/* place_ops.launch: run task t (of task tmpl) on worker wi. */
static void
launch(void *arg, uint32_t t, uint32_t tmpl, size_t wi)
{
	struct runner *r = arg;
	const struct wf_task *wt = &r->p->wf->tasks[tmpl];
	struct rworker *w = &r->w[wi];
	struct exec_job job;
	memset(&job, 0, sizeof(job));
	job.task = t;
	job.cwd = w->cwd;
	sample_start(r, t, w->ex);
	progress_started(&r->prog, r->pl.io[tmpl]);
	struct strbuf *envs = job_env(r, t, wt->nenv, &job);
	job_command(r, t, wi, &job);
	struct strbuf outp = STRBUF_INIT;
	log_path(r, t, "out", &outp);
	log_path(r, t, "err", &r->path);
	job.out_path = outp.buf;
	job.err_path = r->path.buf;
	job.timeout = wt->timeout > 0 ? wt->timeout : 0;
	job.log_max = wt->log_max > 0 ? wt->log_max : 0;
	struct strbuf tag = STRBUF_INIT;
	plan_tag(r->p, t, &tag);
	job.name = wt->name;
	job.tag = tag.buf;
	job.cores = r->p->pt[tmpl].cores;
	job.memory = wt->memory;
	if (log_level >= 2)
		say_start(r, t, &job);
	send_job(r, t, wi, &job);
	arm_timeout(r, t, wt->timeout);
	job_env_release(&job, envs, wt->nenv);
	strbuf_release(&outp);
	strbuf_release(&tag);
}

/* Print the last lines of a failed task's stderr log, its controls made
 * visible (the task's ESC]0; or ESC[2J must not reach the terminal). */
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
	struct strbuf sb = STRBUF_INIT;
	if (off > 0 || start > buf)
		strbuf_adds(&sb, "  | ...\n");
	for (char *l = start; l && *l;) {
		char *nl = strchr(l, '\n');
		strbuf_adds(&sb, "  | ");
		strbuf_add_visible(&sb, l, nl ? (size_t)(nl - l) : strlen(l));
		strbuf_addch(&sb, '\n');
		l = nl ? nl + 1 : NULL;
	}
	fwrite(sb.buf, 1, sb.len, stderr);
	strbuf_release(&sb);
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

/* Back-offs over: on_failure: retry tasks wait for the right worker,
 * the others go back to the queue (place_retry). */
static void
retry_due(void *arg)
{
	struct runner *r = arg;
	retryq_take_due(&r->retryq, &r->loop, retry_due, r, &r->due, &r->ndue,
			&r->adue);
	double now = clock_real();
	for (size_t i = 0; i < r->ndue; i++)
		place_retry(&r->pl, r->due[i], now);
}

/* Will a failed attempt of t (of task wt) be retried? */
static bool
will_retry(const struct runner *r, uint32_t t, const struct wf_task *wt)
{
	return !r->interrupted && !r->pl.stop &&
	       r->pl.t[t].failures < failure_retries(wt);
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
	free(r->pl.t[t].stop_aside);
	r->pl.t[t].stop_aside = aside;
}

/* t's attempt ended, done or failed (which moved its own outputs aside):
 * what a stopped attempt before it left goes. */
static void
drop_stopped(struct runner *r, uint32_t t)
{
	if (!r->pl.t[t].stop_aside)
		return;
	char *d = r->pl.t[t].stop_aside;
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
	r->pl.t[t].stop_aside = NULL;
}

/* What the runner knows of an ended attempt. */
struct attempt {
	bool staged;           /* on a worker whose workdir is not shared */
	double in_s, out_s;    /* seconds staging in and out, -1: none */
	long long sbytes;      /* bytes staged, -1: none */
	uint32_t smiss;        /* staged: the output it did not make */
	int exit_code;         /* -1: none */
	struct strbuf why;     /* why it failed; empty: it succeeded */
};

/* Stop starting tasks after a failure (on_failure: fail). */
static void
stop_after_failure(struct runner *r)
{
	if (r->pl.stop)
		return;
	r->pl.stop = true;
	if (r->pl.running)
		info_msg("not starting new tasks; waiting for %zu running task%s "
			 "(use -k to keep going)", r->pl.running,
			 r->pl.running == 1 ? "" : "s");
}

/* A final failure of t (policy pol; miss: the output it did not make):
 * cancel what depends on it, or stop. */
static void
fail_final(struct runner *r, uint32_t t, enum wf_on_failure pol,
	   uint32_t miss)
{
	struct dag *g = &r->p->dag;
	const struct wf_task *wt = &r->p->wf->tasks[g->tasks.v[t].tmpl];
	r->failed++;
	g->tasks.v[t].state = TASK_FAILED;
	if (pol == WF_FAIL) {
		stop_after_failure(r);
		return;
	}
	size_t n = failure_cancel_downstream(g, t);
	r->cancelled += n;
	if (pol == WF_IGNORE) {
		const struct dag_access *a = &g->acc.v[g->tasks.v[t].acc + miss];
		info_msg("on_failure is ignore, but it did not create its output "
			 "'%s' (%s): the %zu task%s that depend%s on it %s "
			 "cancelled", wt->params[a->param].name,
			 g->data.v[a->datum].path, n, n == 1 ? "" : "s",
			 n == 1 ? "s" : "", n == 1 ? "is" : "are");
	} else if (n) {
		info_msg("cancelled the %zu task%s that depend%s on it; the "
			 "others go on", n, n == 1 ? "" : "s", n == 1 ? "s" : "");
	}
}

/* "task LABEL WHY (stderr: ...)" into msg; whether its stderr's tail is
 * to be shown here (it is in r->path). */
static bool
failure_message(struct runner *r, uint32_t t, const struct exec_result *res,
		const struct attempt *at, struct strbuf *msg)
{
	strbuf_adds(msg, "task ");
	plan_label(r->p, t, msg);
	strbuf_addf(msg, " %s", at->why.buf);
	log_path(r, t, "err", &r->path);
	struct statvfs fs;
	if (res->started && res->err_empty && !at->staged &&
	    !statvfs(".wfrun", &fs) && fs.f_bavail == 0)
		strbuf_adds(msg, " (the file system of its logs is full: what "
			    "it wrote to stderr may be lost)");
	if (!res->started || res->err_empty)
		return false;
	size_t wi = r->pl.t[t].where;
	if (at->staged) {
		strbuf_addf(msg, " (stderr on worker '%s': %s/%s)", r->w[wi].name,
			    r->o->cluster->workers[wi].workdir, r->path.buf);
		return false;
	}
	strbuf_addf(msg, " (stderr: %s/%s)", r->p->wf->workdir, r->path.buf);
	return true;
}

/* Say that t failed, and what comes of it: a retry, an ignored
 * failure, or none; then the tail of its stderr. */
static void
say_failure(struct runner *r, uint32_t t, const struct exec_result *res,
	    const struct attempt *at, bool retry, bool keep)
{
	const struct wf_task *wt = &r->p->wf->tasks[r->p->dag.tasks.v[t].tmpl];
	unsigned n = r->pl.t[t].failures;
	struct strbuf msg = STRBUF_INIT;
	progress_clear(r);
	bool tail = failure_message(r, t, res, at, &msg);
	if (retry)
		warning_msg("%s; retry %u of %ld in %gs%s", msg.buf, n,
			    failure_retries(wt), failure_backoff(n),
			    r->nw < 2 || wt->on_failure != WF_RETRY ? ""
			    : n == 1 ? " on the same worker"
				     : " on another worker");
	else if (keep)
		warning_msg("%s; ignored (on_failure: ignore): its outputs exist, "
			    "so what depends on it runs", msg.buf);
	else
		error_msg("%s", msg.buf);
	if (tail)
		show_tail(r->path.buf);
	strbuf_release(&msg);
}

/* A failed attempt of t: put its data back, then retry it, ignore the
 * failure, cancel what depends on it or stop, as its policy says. */
static void
on_failed(struct runner *r, uint32_t t, const struct exec_result *res,
	  const struct attempt *at)
{
	struct plan *p = r->p;
	struct dag *g = &p->dag;
	const struct wf_task *wt = &p->wf->tasks[g->tasks.v[t].tmpl];
	bool retry = will_retry(r, t, wt);
	place_failed(&r->pl, t);
	enum wf_on_failure pol = failure_final(wt, r->o->keep_going);
	/* A staged task's outputs are on its worker (the stage knows which
	 * it made); nothing of it is in the workdir to put back or aside. */
	uint32_t miss = at->staged ? at->smiss : missing_output(r, t);
	bool keep = !retry && !r->interrupted && pol == WF_IGNORE &&
		    miss == DAG_NONE;
	char *aside = NULL;
	struct errbuf uerr;
	if (!at->staged && undo_fail(p, t, keep, &aside, &uerr) < 0) {
		progress_clear(r);
		error_msg("task %u: %s", t + 1, uerr.msg);
	}
	if (retry)
		progress_lost(&r->prog, r->pl.io[g->tasks.v[t].tmpl]);
	else
		progress_ended(&r->prog, r->pl.io[g->tasks.v[t].tmpl], false);
	if (r->interrupted) {
		r->failed++;
		g->tasks.v[t].state = TASK_FAILED;
	} else {
		say_failure(r, t, res, at, retry, keep);
		if (retry) {
			g->tasks.v[t].state = TASK_READY;
			retryq_push(&r->retryq, &r->loop, t,
				    failure_backoff(r->pl.t[t].failures),
				    retry_due, r);
		} else if (keep) {
			r->ignored++;
			place_complete(&r->pl, t, clock_real());
		} else {
			fail_final(r, t, pol, miss);
		}
		if (aside)
			info_msg("what it wrote was moved aside to %s/%s",
				 p->wf->workdir, aside);
	}
	free(aside);
}

/* Write the trace row of task t's attempt that ended with res (wfrun(1),
 * TRACE); at NULL: an attempt lost with its worker, which knows only
 * where it was, since when and until when. */
static void
trace_attempt(struct runner *r, uint32_t t, const char *status,
	      const struct exec_result *res, const struct attempt *at)
{
	const struct plan *p = r->p;
	uint32_t tmpl = p->dag.tasks.v[t].tmpl;
	const struct wf_task *wt = &p->wf->tasks[tmpl];
	const struct place_task *pt = &r->pl.t[t];
	struct strbuf tag = STRBUF_INIT, where = STRBUF_INIT;
	plan_tag(p, t, &tag);
	bool lost = res->lost;
	/* a worker that is many places (Slurm jobs): where it ran too */
	strbuf_adds(&where, r->w[pt->where].name);
	if (res->node[0])
		strbuf_addf(&where, ":%s", res->node);
	if (res->state[0])
		status = res->state;
	struct trace_row row = {
		t + 1, wt->name, tag.buf, where.buf,
		wt->io ? "io" : "compute", r->pl.cores[tmpl], pt->grant.c,
		pt->grant.epoch, status, at ? at->exit_code : -1,
		pt->failures + 1, pt->submit,
		lost && res->start <= 0 ? res->end : res->start,
		res->end, lost ? -1 : res->utime, res->stime,
		res->started ? res->maxrss_kb : -1, res->read_bytes,
		res->write_bytes, at ? at->in_s : -1, at ? at->out_s : -1,
		at ? at->sbytes : -1,
	};
	trace_write(&r->trace, &row);
	strbuf_release(&tag);
	strbuf_release(&where);
}

/* Its worker is gone: the task runs again elsewhere, from its saved
 * INOUT data. */
static void
on_lost(struct runner *r, uint32_t t, const struct exec_result *res)
{
	progress_lost(&r->prog, r->pl.io[r->p->dag.tasks.v[t].tmpl]);
	if (res->state[0]) {
		/* the place ended it (Slurm's NODE_FAIL...): not its failure */
		struct strbuf lab = STRBUF_INIT;
		plan_label(r->p, t, &lab);
		progress_clear(r);
		warning_msg("task %s: %s", lab.buf, res->error);
		strbuf_release(&lab);
	}
	trace_attempt(r, t, "LOST", res, NULL);
	char *aside = NULL;
	struct errbuf uerr;
	/* a staged task touched nothing here: the workdir's files at its
	 * paths are an earlier run's, not to be moved aside */
	if (!stage_is_staged(r->stage, r->pl.t[t].where) &&
	    undo_fail(r->p, t, false, &aside, &uerr) < 0)
		error_msg("task %u: %s", t + 1, uerr.msg);
	free(aside);
	place_requeue(&r->pl, t);
}

/* An attempt of t that went over its memory: if the kernel ended it
 * there, why says so instead; if it failed otherwise with a peak RSS
 * past it, why says so too; if it succeeded, a warning says so, once per
 * task name. */
static void
over_memory(struct runner *r, uint32_t t, const struct exec_result *res,
	    struct strbuf *why)
{
	uint32_t tmpl = r->p->dag.tasks.v[t].tmpl;
	long long mem = r->pl.mem[tmpl];
	long long peak = res->started && res->maxrss_kb > 0
				 ? res->maxrss_kb * 1024LL : -1;
	bool oom = !strcmp(res->state, "OUT_OF_MEMORY");
	if (!mem || (!oom && peak <= mem) || r->pl.t[t].timed_out)
		return;
	char a[32], b[32];
	if (!why->len) {
		if (r->mem_warned[tmpl])
			return;
		r->mem_warned[tmpl] = true;
		struct strbuf lab = STRBUF_INIT;
		plan_label(r->p, t, &lab);
		progress_clear(r);
		warning_msg("task %s used more memory than it reserves: peak %s "
			    "of %s (raise its memory; said once per task)",
			    lab.buf, place_size(peak, a, sizeof(a)),
			    place_size(mem, b, sizeof(b)));
		strbuf_release(&lab);
		return;
	}
	if (oom) /* ended for it: that is the why */
		strbuf_reset(why);
	else
		strbuf_adds(why, " and");
	if (peak > 0)
		strbuf_addf(why, "%swas over its memory: peak %s of %s",
			    oom ? "" : " ", place_size(peak, a, sizeof(a)),
			    place_size(mem, b, sizeof(b)));
	else
		strbuf_addf(why, "%swas over its memory of %s", oom ? "" : " ",
			    place_size(mem, b, sizeof(b)));
	if (oom && res->error[0])
		strbuf_addf(why, " (%s)", res->error);
}

/* What ended, and why it failed (empty when it did not). */
static void
attempt_read(struct runner *r, uint32_t t, const struct exec_result *res,
	     struct attempt *at)
{
	const struct dag *g = &r->p->dag;
	const struct wf_task *wt = &r->p->wf->tasks[g->tasks.v[t].tmpl];
	size_t wi = r->pl.t[t].where;
	at->staged = stage_is_staged(r->stage, wi);
	at->in_s = at->out_s = -1;
	at->sbytes = -1;
	at->smiss = DAG_NONE;
	at->exit_code = -1;
	if (at->staged)
		at->smiss = stage_done(r->stage, t, wi, res,
				       res->started && WIFEXITED(res->wstatus) &&
					       !WEXITSTATUS(res->wstatus),
				       &at->in_s, &at->out_s, &at->sbytes);
	struct strbuf *why = &at->why;
	if (!res->started) {
		strbuf_addf(why, "could not start: %s", res->error);
	} else if (res->state[0]) {
		/* its place ended it (Slurm's TIMEOUT...) */
		strbuf_addf(why, "failed: %s", res->error);
	} else if (WIFEXITED(res->wstatus)) {
		at->exit_code = WEXITSTATUS(res->wstatus);
		if (at->exit_code)
			strbuf_addf(why, "failed with exit status %d",
				    at->exit_code);
	} else if (WIFSIGNALED(res->wstatus)) {
		at->exit_code = 128 + WTERMSIG(res->wstatus);
		if (r->pl.t[t].timed_out)
			strbuf_addf(why, "timed out after %gs and was killed",
				    wt->timeout);
		else
			strbuf_addf(why, "was killed by signal %d (%s)",
				    WTERMSIG(res->wstatus),
				    strsignal(WTERMSIG(res->wstatus)));
	}
	over_memory(r, t, res, why);
	if (why->len)
		return;
	uint32_t miss = at->staged ? at->smiss : missing_output(r, t);
	if (miss != DAG_NONE) {
		const struct dag_access *a = &g->acc.v[g->tasks.v[t].acc + miss];
		strbuf_addf(why, "exited 0 but did not create its output '%s' "
			    "(%s)", wt->params[a->param].name,
			    g->data.v[a->datum].path);
	}
}

/* Stopped to make way: it runs again, not a failure (it writes only OUT
 * files: dag_out_only). */
static void
on_preempted(struct runner *r, uint32_t t, const struct exec_result *res,
	     const struct attempt *at)
{
	if (!at->staged)
		stopped_aside(r, t);
	trace_attempt(r, t, "PREEMPTED", res, at);
	progress_lost(&r->prog, r->pl.io[r->p->dag.tasks.v[t].tmpl]);
	place_requeue(&r->pl, t);
	r->preempted++;
}

/* Made again for lost data: its successors were released and it was
 * counted the first time. */
static void
on_rerun_done(struct runner *r, uint32_t t, const struct attempt *at)
{
	r->pl.t[t].rerun = false;
	r->p->dag.tasks.v[t].state = TASK_DONE;
	progress_lost(&r->prog, r->pl.io[r->p->dag.tasks.v[t].tmpl]);
	if (!at->why.len)
		return;
	struct strbuf lab = STRBUF_INIT;
	plan_label(r->p, t, &lab);
	progress_clear(r);
	error_msg("task %s, run again to make lost data, %s", lab.buf,
		  at->why.buf);
	strbuf_release(&lab);
}

/* Journal task t (resume_record); false when its record cannot be
 * made: then no task starts after it (one that did, and was journaled,
 * would be run again by a later run, which runs t again), and the run
 * fails. */
static bool
record(struct runner *r, uint32_t t, const bool *got,
       const struct jstore *store)
{
	struct errbuf err;
	if ((store ? resume_record_stored(&r->resume, r->p, t, store,
					  &r->journal, &r->scratch, &err)
		   : resume_record(&r->resume, r->p, t, got, &r->journal,
				   &r->scratch, &err)) == 0)
		return true;
	struct strbuf lab = STRBUF_INIT;
	plan_label(r->p, t, &lab);
	progress_clear(r);
	error_msg("task %s ran, but %s; a later run runs it again", lab.buf,
		  err.msg);
	strbuf_release(&lab);
	r->unrecorded = true;
	stop_after_failure(r);
	return false;
}

/* The end of a run whose stages appended tasks (DYNAMIC), which the
 * temp files were counted without (removal was deferred to the end):
 * counted again over every task, a task that did not end done still
 * needing what it reads, and those no such task reads go. */
static void
finish_temps_grown(struct runner *r)
{
	const struct dag *g = &r->p->dag;
	size_t nt = g->tasks.n;
	bool *run = xmalloc((nt ? nt : 1) * sizeof(bool));
	for (size_t t = 0; t < nt; t++)
		run[t] = g->tasks.v[t].state != TASK_DONE &&
			 g->tasks.v[t].state != TASK_LEFT_OUT;
	temp_release(&r->temp);
	temp_init(&r->temp, r->p, run, !r->o->keep_temp, false);
	free(run);
	temp_finish(&r->temp, r->p, &r->journal);
}

/* Task t succeeded: the temp files it was the last to read go, before
 * anything after it starts (a task that writes them again waits for
 * it).  t == UINT32_MAX: the end of the run (temp_finish). */
static void
remove_temps(struct runner *r, uint32_t t)
{
	if (log_level >= 2)
		progress_clear(r);
	if (t == UINT32_MAX && r->temp.ntasks < r->p->dag.tasks.n)
		finish_temps_grown(r);
	else if (t == UINT32_MAX)
		temp_finish(&r->temp, r->p, &r->journal);
	else
		temp_task_done(&r->temp, r->p, t, &r->journal);
}

static void
on_succeeded(struct runner *r, uint32_t t, const struct exec_result *res,
	     const struct attempt *at)
{
	struct plan *p = r->p;
	r->done++;
	progress_ended(&r->prog, r->pl.io[p->dag.tasks.v[t].tmpl], true);
	/* The journal knows files in the workdir; a staged task's outputs
	 * are on its worker until the fetch, which records it again
	 * (commit_staged): until then, its record says where they are. */
	struct jstore js;
	bool rec = at->staged ? !stage_store(r->stage, t, &js) ||
					record(r, t, NULL, &js)
			      : record(r, t, NULL, NULL);
	if (at->staged)
		free(js.f);
	if (!at->staged && rec && r->saved[t]) {
		/* its INOUT copies (undo_save): marked once its record is
		 * written, dropped once it is on disk */
		VEC_PUSH(r->recorded, t);
		VEC_PUSH(r->discard, t);
	}
	remove_temps(r, t);
	place_complete(&r->pl, t, clock_real());
	if (log_level >= 2) {
		struct strbuf lab = STRBUF_INIT;
		plan_label(p, t, &lab);
		progress_clear(r);
		verbose_msg("done %s in %.2fs", lab.buf, res->end - res->start);
		strbuf_release(&lab);
	}
}

/* An attempt of task t ended: done, failed, lost with its worker, parked
 * (an input is being made again: the stage readies it) or stopped to
 * make way. */
static void
on_done(const struct exec_result *res, void *arg)
{
	struct runner *r = arg;
	uint32_t t = res->task;
	uint32_t tmpl = r->p->dag.tasks.v[t].tmpl;
	const struct wf_task *wt = &r->p->wf->tasks[tmpl];
	struct place_task *pt = &r->pl.t[t];
	place_end(&r->pl, t, clock_real());
	if (res->lost) {
		on_lost(r, t, res);
		return;
	}
	if (res->parked) {
		place_abandon(&r->pl, t);
		progress_lost(&r->prog, r->pl.io[tmpl]);
		r->p->dag.tasks.v[t].state = TASK_WAITING;
		return;
	}
	if (wt->container && res->started && !WIFEXITED(res->wstatus) &&
	    !r->w[pt->where].remote) {
		swenv_name(wt->name, t, &r->swname); /* killed: its container */
		pid_t rm = swenv_remove_start(worker_engine(r, pt->where),
					      r->swname.buf);
		if (rm > 0)
			VEC_PUSH(r->removing, rm);
	}
	struct attempt at = { .why = STRBUF_INIT };
	attempt_read(r, t, res, &at);
	bool ok = !at.why.len, stopped = pt->preempt;
	pt->preempt = false;
	if (stopped && !ok && !r->interrupted) {
		on_preempted(r, t, res, &at);
	} else {
		drop_stopped(r, t);
		/* A retried instance is one left to start again, before its
		 * epoch (if it ends now) asks how many are left. */
		if (!ok && !pt->rerun && will_retry(r, t, wt))
			iopol_again(&r->pol, tmpl);
		iopol_finish(&r->pol, tmpl, pt->where, pt->grant,
			     res->started ? res->start : 0,
			     res->started ? res->end : 0,
			     res->started ? res->write_bytes : -1);
		trace_attempt(r, t, ok ? "COMPLETED" : r->interrupted ? "ABORTED"
								       : "FAILED",
			      res, &at);
		if (pt->rerun)
			on_rerun_done(r, t, &at);
		else if (ok)
			on_succeeded(r, t, res, &at);
		else
			on_failed(r, t, res, &at);
	}
	strbuf_release(&at.why);
}

static void
signal_all(struct runner *r, int sig)
{
	if (r->until_pid > 0) /* its own process group (spawn_task) */
		kill(-r->until_pid, sig);
	for (size_t i = 0; i < r->nw; i++)
		if (r->w[i].ex && r->w[i].ex->state == EXEC_READY)
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
		/* first: a local worker reaps every child it sees */
		if (r->allocating)
			slurm_alloc_on_sigchld(&r->alloc);
		for (size_t i = 0; i < r->nw; i++)
			if (r->w[i].ex)
				r->w[i].ex->ops->on_sigchld(r->w[i].ex);
		return;
	}
	r->interrupted++;
	r->pl.stop = true;
	progress_clear(r);
	if (r->interrupted == 1) {
		stage_cancel(r->stage);
		info_msg("interrupted (%s): stopping %zu running task%s",
			 strsignal(signo), r->pl.running,
			 r->pl.running == 1 ? "" : "s");
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

/* Stage hooks (lineage): run finished task t again; ready a parked one. */
static bool
rerun_task(uint32_t t, void *arg)
{
	struct runner *r = arg;
	if (r->p->dag.tasks.v[t].state != TASK_DONE || r->pl.stop)
		return false;
	r->pl.t[t].rerun = true;
	place_push(&r->pl, t, clock_real());
	return true;
}

static void
unpark_task(uint32_t t, void *arg)
{
	struct runner *r = arg;
	place_push(&r->pl, t, clock_real());
}

/* place_ops.local_bytes: what of t's inputs worker wi holds. */
static long long
local_bytes(void *arg, uint32_t t, size_t wi)
{
	return stage_local_bytes(((struct runner *)arg)->stage, t, wi);
}

/* place_ops.stop: stop running task t to make way.  It ends in on_done,
 * PREEMPTED, and goes back to the queue. */
static void
stop_task(void *arg, uint32_t t)
{
	struct runner *r = arg;
	struct rworker *w = &r->w[r->pl.t[t].where];
	if (!stage_abort(r->stage, t, "stopped to make way"))
		w->ex->ops->stop_one(w->ex, t);
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
			const struct worker_spec *ws = w->spec;
			long cores = ws && ws->cores ? ws->cores
				     : w->node	       ? w->node->cores
				     : e->ncpus > 0    ? e->ncpus
						       : 1;
			long io = ws && ws->io_executors
					  ? ws->io_executors
					  : iopol_default_io(cores);
			place_worker_set(&r->pl, i, cores, io);
			place_worker_memory(&r->pl, i, ws ? ws->memory : 0);
			r->pol.w[i].io_executors = io;
			r->pol.w[i].cores = cores;
			verbose_msg("worker '%s' ready with %ld core%s", w->name,
				    cores, cores == 1 ? "" : "s");
		} else if (e->state == EXEC_FAILED || e->state == EXEC_LOST) {
			place_worker_lost(&r->pl, i);
			stage_worker_lost(r->stage, i);
			if (w->node) /* its job goes: another may be asked */
				slurm_alloc_give_back(&r->alloc, w->node);
			if (!w->reported) {
				w->reported = true;
				progress_clear(r);
				if (e->refused) {
					r->refused = true;
					error_msg("worker '%s' refused: %s", w->name,
						  e->error);
				} else if (e->state == EXEC_FAILED)
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

/* --- nodes asked of Slurm (<slurm>, slurm_alloc.h) ------------------------ */

/* alloc's up: node n was granted; its agent starts there as a step of
 * its job, and it is a worker as those of --slurm are from then on. */
static void
node_up(void *arg, struct slurm_node *n)
{
	struct runner *r = arg;
	const struct slurm_spec *sp = r->o->cluster->slurm;
	long io = iopol_default_io(n->cores);
	char *dev = xasprintf("disk@%s", n->node);
	iopol_add_worker(&r->pol, dev, "disk", 0, n->cores, io);
	free(dev);
	size_t wi = place_worker_add(&r->pl);
	r->w = xrealloc(r->w, (wi + 1) * sizeof(*r->w));
	memset(&r->w[wi], 0, sizeof(*r->w));
	r->nw = wi + 1;
	struct rworker *w = &r->w[wi];
	w->name = n->node;
	w->node = n;
	w->cwd = r->p->wf->workdir;
	w->remote = true;
	n->wi = wi;
	n->idle_since = 0;
	progress_clear(r);
	info_msg("Slurm job %s: node %s, %ld core%s", n->job, n->node,
		 n->cores, n->cores == 1 ? "" : "s");
	char **argv = slurm_agent_argv(n->node, n->cores, r->o->agent_path,
				       n->job);
	struct agent_liveness lv = { 60, sp->lost_after / 4.0, sp->lost_after,
				     0 };
	w->ex = exec_pipe_new(argv, n->node, n->node, r->p->wf->workdir, &lv,
			      &r->loop, on_done, on_state, r);
	slurm_argv_free(argv);
	w->ex->written = on_written;
	if (w->ex->state == EXEC_FAILED)
		on_state(w->ex, r);
}

/* alloc's error: what Slurm said.  No more nodes are asked for. */
static void
slurm_error(void *arg, const char *msg)
{
	struct runner *r = arg;
	progress_clear(r);
	error_msg("Slurm: %s", msg);
}

/* Node worker wi has been idle long enough: its agent ends, then its
 * job. */
static void
give_back(struct runner *r, size_t wi)
{
	struct rworker *w = &r->w[wi];
	progress_clear(r);
	info_msg("node %s given back (Slurm job %s): idle for %ds", w->name,
		 w->node->job, r->o->cluster->slurm->idle);
	place_worker_lost(&r->pl, wi);
	w->reported = true;
	w->ex->ops->release(w->ex); /* idle: its agent ends at once */
	w->ex = NULL;
	slurm_alloc_give_back(&r->alloc, w->node);
}

static void
idle_fired(void *arg)
{
	(void)arg; /* the loop wakes: run_loop looks again (slurm_tick) */
}

/* After a dispatch: ask for the nodes the waiting tasks need (the free
 * cores of nodes still starting count as coming), and give back those
 * idle longer than <slurm idle>. */
static void
slurm_tick(struct runner *r)
{
	if (!r->allocating || r->pl.stop)
		return;
	const struct place *pl = &r->pl;
	long want = 0;
	for (uint32_t i = 0; i < pl->sched.nq; i++)
		want += (long)pl->sched.q[i].n * (pl->cores[i] ? pl->cores[i] : 1);
	for (size_t i = 0; i < pl->pinned.n; i++)
		want += pl->cores[r->p->dag.tasks.v[pl->pinned.v[i]].tmpl];
	double now = clock_mono(), next = 0;
	int idle = r->o->cluster->slurm->idle;
	for (size_t i = 0; i < r->nw; i++) {
		struct rworker *w = &r->w[i];
		if (!w->node || !w->ex)
			continue;
		if (w->ex->state == EXEC_CONNECTING)
			want -= w->node->cores;
		const struct place_worker *pw = &pl->w[i];
		if (!pw->usable || pw->free < pw->cores || pw->io_free < pw->io) {
			w->node->idle_since = 0;
			continue;
		}
		if (!w->node->idle_since)
			w->node->idle_since = now;
		double due = w->node->idle_since + idle;
		if (due <= now)
			give_back(r, i);
		else if (!next || due < next)
			next = due;
	}
	if (next)
		loop_timer_arm(&r->loop, &r->idle_timer, next - now, idle_fired,
			       r);
	if (want > 0)
		slurm_alloc_want(&r->alloc, want);
}

/* Whether nodes are still coming for the waiting tasks. */
static bool
slurm_coming(const struct runner *r)
{
	if (!r->allocating || r->pl.stop)
		return false;
	for (size_t i = 0; i < r->nw; i++)
		if (r->w[i].node && r->w[i].ex &&
		    r->w[i].ex->state == EXEC_CONNECTING)
			return true;
	return !r->alloc.refused && slurm_alloc_coming(&r->alloc);
}

/* Cancel the Slurm jobs a killed run left (SLURM_RECORD, either
 * <slurm> mode), whatever this run's resources: they would write what
 * this run makes. */
static void
clean_slurm(struct runner *r)
{
	struct errbuf err;
	if (slurm_alloc_clean(SLURM_RECORD, &err) < 0)
		warning_msg("cannot cancel the Slurm jobs an earlier run left "
			    "(%s/%s): %s", r->p->wf->workdir, SLURM_RECORD,
			    err.msg);
}

/* <slurm>: be ready to ask for nodes. */
static void
open_slurm(struct runner *r)
{
	const struct slurm_spec *sp = r->o->cluster->slurm;
	char *name = xasprintf("wfrun-%s", r->p->wf->name);
	struct slurm_alloc_ops ops = { node_up, slurm_error, r };
	slurm_alloc_init(&r->alloc, sp, name, SLURM_RECORD,
			 sp->cores_per_node ? sp->cores_per_node : sp->node_cpus,
			 &r->loop, &ops);
	free(name);
	r->allocating = true;
}

/* Set up worker i of the cluster: this machine's executor, or an SSH
 * one (with a workdir of its own: staging; or the master's). */
static size_t
add_worker(struct runner *r, size_t i, const struct worker_spec *ws)
{
	const struct runner_opts *o = r->o;
	struct exec_ssh_opts so = { o->accept_new_host_keys, o->agent_path,
				    r->p->wf->workdir, false };
	/* a workdir of its own: no path of ours there, staging */
	struct exec_ssh_opts own = { o->accept_new_host_keys, o->agent_path,
				     NULL, true };
	struct rworker *w = &r->w[i];
	w->name = ws->name;
	w->spec = ws;
	if (ws->slurm_jobs) {
		/* each task one Slurm job: a job slot, not cores */
		w->cwd = r->p->wf->workdir;
		w->remote = true;
		w->ex = slurm_jobs_new(r->o->cluster->slurm, r->p->wf->workdir,
				       &r->loop, on_done, r);
		if (w->ex->state == EXEC_READY)
			place_worker_jobs(&r->pl, i, r->o->cluster->slurm->max_jobs);
		else
			warning_msg("worker '%s' skipped: %s", w->name,
				    w->ex->error);
		return 0;
	}
	if (ws->local) {
		w->ex = exec_local_new(on_done, &r->loop, r);
		long cores = ws->cores ? ws->cores : o->cores;
		long io = ws->io_executors ? ws->io_executors
			  : o->io_executors ? o->io_executors
					    : iopol_default_io(cores);
		place_worker_set(&r->pl, i, cores, io);
		place_worker_memory(&r->pl, i,
				    ws->memory ? ws->memory : o->memory);
		return 0;
	}
	if (!ws->shared) {
		if (!r->stage) {
			struct stage_hooks hk = { rerun_task, unpark_task, r };
			r->stage = stage_new(r->p, r->nw);
			stage_set_hooks(r->stage, &hk);
			r->pl.ops.local_bytes = local_bytes;
		}
		w->remote = true;
		w->ex = exec_ssh_new(ws, &own, &r->loop, on_done, on_state, r);
		stage_add_worker(r->stage, i, w->ex, ws->name, ws->workdir);
		return 1;
	}
	/* A shared workdir has the master's path there. */
	w->cwd = r->p->wf->workdir;
	w->remote = true;
	if (ws->srun) {
		/* a node of the allocation: its agent is a job step */
		char **argv = slurm_agent_argv(ws->host, ws->cores,
					       o->agent_path, NULL);
		struct agent_liveness lv = { ws->timeout, ws->lost_after / 4.0,
					     ws->lost_after, 0 };
		w->ex = exec_pipe_new(argv, ws->name, ws->host,
				      r->p->wf->workdir, &lv, &r->loop,
				      on_done, on_state, r);
		slurm_argv_free(argv);
		return 1;
	}
	w->ex = exec_ssh_new(ws, &so, &r->loop, on_done, on_state, r);
	return 1;
}

/* Set up the workers; connect the remote ones and wait until each is
 * ready or failed.  Returns how many are usable. */
static size_t
start_workers(struct runner *r)
{
	const struct runner_opts *o = r->o;
	const struct cluster *c = o->cluster;
	if (!c) {
		r->w[0].name = "local";
		r->w[0].ex = exec_local_new(on_done, &r->loop, r);
		r->w[0].ex->written = on_written;
		place_worker_set(&r->pl, 0, o->cores,
				 o->io_executors ? o->io_executors
						 : iopol_default_io(o->cores));
		place_worker_memory(&r->pl, 0, o->memory);
		return 1;
	}
	size_t pending = 0;
	for (size_t i = 0; i < r->nw; i++)
		pending += add_worker(r, i, &c->workers[i]);
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
	return place_usable(&r->pl);
}

/* Where the bandwidth wfrun measured of this machine's disk is kept. */
#define DISK_BW_FILE ".wfrun/disk_bw"
/* MB written to measure it: enough for a steady figure, under a second
 * on most disks. */
#define DISK_BW_PROBE_MB 64

/*
 * Without a bandwidth given (<disk> or --disk-bw), this machine's disk is
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
		FILE *f = fopen_bounded(DISK_BW_FILE, 4096, NULL);
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
	const char *why = place_unfit(&r->pl, name, buf, sizeof(buf));
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
		if (!r->w[i].remote && r->w[i].ex && r->w[i].ex->running)
			return true;
	return false;
}

static void sync_fired(void *arg);

/* Write the records of this round; unless write_only, at most every
 * JOURNAL_SYNC_EVERY seconds (or when force) make them durable, then
 * drop the saved INOUT copies of the tasks they record (never before). */
static void
journal_round(struct runner *r, bool force, bool write_only)
{
	struct errbuf err;
	double now = clock_mono();
	bool sync = !write_only &&
		    (force || now - r->last_sync >= JOURNAL_SYNC_EVERY);
	int rc = journal_flush(&r->journal, sync, &err);
	if (rc < 0 && !r->journal_failed) {
		progress_clear(r);
		warning_msg("%s; until it works, a later run cannot know "
			    "which tasks finished here", err.msg);
		r->journal_failed = true;
	}
	/* Records in the file (only an fdatasync may have failed): their
	 * tasks' copies are marked, so that a run after a kill drops them
	 * rather than roll back the data of tasks on record. */
	if (r->journal.pending.len == 0) {
		for (size_t i = 0; i < r->recorded.n; i++)
			undo_succeeded(r->recorded.v[i]);
		r->recorded.n = 0;
	}
	if (rc < 0)
		return;
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
sync_journal(struct runner *r, bool force)
{
	journal_round(r, force, false);
}

static void
sync_fired(void *arg)
{
	sync_journal(arg, true);
}

/* The workflow inputs that tasks which run again need as they were
 * before an earlier run updated them in place (resume_originals): each
 * original is put back, the latest update's first (as undo_recover),
 * once the records of those updates are void on disk.  When one is not
 * kept, nothing is changed: -1 with a message. */
static int
put_back_originals(struct runner *r)
{
	const struct resume *rs = &r->resume;
	const struct dag *g = &r->p->dag;
	struct strbuf u = STRBUF_INIT, rd = STRBUF_INIT;
	int rc = 0;
	for (size_t k = 0; k < rs->norig && !rc; k++) {
		const struct resume_orig *o = &rs->orig[k];
		const char *path = g->data.v[o->datum].path;
		if (undo_has_original(path))
			continue;
		plan_label(r->p, o->updater, &u);
		if (o->reader != DAG_NONE) {
			strbuf_adds(&rd, "task ");
			plan_label(r->p, o->reader, &rd);
			strbuf_adds(&rd, " read it before, and runs again");
		} else {
			strbuf_adds(&rd, "that task runs again");
		}
		error_msg("%s is a workflow input that task %s updates in place "
			  "and an earlier run updated; %s, so it must be put back "
			  "as it was, but its original is not kept in .wfrun/orig "
			  "(removed, or an older wfrun ran here): put back %s as "
			  "it was before task %s ran and remove .wfrun/journal, so "
			  "that every task runs again from it", path, u.buf, rd.buf,
			  path, u.buf);
		rc = -1;
	}
	strbuf_release(&u);
	strbuf_release(&rd);
	if (rc || !rs->norig)
		return rc;
	struct errbuf err;
	resume_drop_records(rs, r->p, &r->journal);
	if (journal_flush(&r->journal, true, &err) < 0) {
		error_msg("%s", err.msg);
		return -1;
	}
	for (size_t k = rs->norig; k-- > 0;) {
		const char *path = g->data.v[rs->orig[k].datum].path;
		char *aside = NULL;
		int put = undo_put_original(path, &aside, &err);
		if (put < 0)
			error_msg("%s", err.msg);
		if (put > 0)
			info_msg("put back the original of %s, which tasks that "
				 "run again need%s%s", path, aside ?
				 "; what it held is in " : "", aside ? aside : "");
		free(aside);
		if (put < 0)
			return -1;
	}
	return 0;
}

/* Workdir, lock, guardian, journal, leftovers of a killed run, what is
 * up to date, then the trace: all before the trace is truncated.
 * EXIT_OK, or EXIT_USAGE with a message. */
static int
open_workdir(struct runner *r)
{
	const struct plan *p = r->p;
	struct errbuf err;
	if (mkdir_p(p->wf->workdir, 0777) < 0 || chdir(p->wf->workdir) < 0) {
		error_msg("cannot use the workdir %s: %s", p->wf->workdir,
			  strerror(errno));
		return EXIT_USAGE;
	}
	if (mkdir_p(".wfrun", 0777) < 0) {
		error_msg("cannot create %s/.wfrun: %s", p->wf->workdir,
			  strerror(errno));
		return EXIT_USAGE;
	}
	if ((r->lock_fd = guard_lock(p->wf->workdir, &err)) < 0 ||
	    contain_open(CONTAIN_RECORD, &err) < 0 ||
	    guard_start(&err) < 0 ||
	    journal_open(&r->journal, JOURNAL_PATH, true, &err) < 0) {
		error_msg("%s", err.msg);
		return EXIT_USAGE;
	}
	undo_recover(&r->journal);
	undo_drop_originals(&r->journal);
	/* what an earlier run fetched or relayed and did not place is not
	 * data (its tasks were not journaled: they run again) */
	undo_rmtree(".wfrun/relay");
	resume_plan_eager(&r->resume, r->p, &r->journal, r->o->forced,
			  r->o->force_all, r->o->ask);
	r->total = r->p->dag.tasks.n; /* every stage, when up to date */
	if (put_back_originals(r) < 0)
		return EXIT_USAGE;
	if (history_begin(&r->hist, r->tpath, &err) < 0)
		warning_msg("%s; this run is not recorded", err.msg);
	if (trace_open(&r->trace, r->tpath, &err) < 0) {
		error_msg("%s", err.msg);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* The loop, the progress display, the policy, the places and the event
 * file. */
static void
set_up(struct runner *r)
{
	const struct runner_opts *o = r->o;
	struct plan *p = r->p;
	size_t nt = p->wf->ntasks;
	if (loop_init(&r->loop, on_signal, r) < 0)
		die("cannot set up signal handling: %s", strerror(errno));
	r->looping = true;
	progress_init(&r->prog, stderr, isatty(2), r->total, &r->loop);
	r->logdir_made = xcalloc(nt ? nt : 1, sizeof(bool));
	r->mem_warned = xcalloc(nt ? nt : 1, sizeof(bool));
	r->saved = xcalloc(p->dag.tasks.n ? p->dag.tasks.n : 1, sizeof(bool));
	struct place_conf pc = {
		o->cluster, o->cores, o->io_executors, o->disk_bw, o->no_io,
		o->relearn, o->learn_paper, o->no_preempt, on_event,
	};
	struct place_ops ops = { launch, stop_task, NULL, r };
	place_open(&r->pl, &r->pol, p, &pc, &ops);
	if (iopol_registry_load(&r->pol, REGISTRY) < 0)
		warning_msg("cannot read %s/%s: %s; storage_bw: auto learns "
			    "again", p->wf->workdir, REGISTRY, strerror(errno));
	r->nw = r->pl.nw;
	r->w = xcalloc(r->nw, sizeof(*r->w));
	r->epath = events_path(r->tpath);
	r->events = fopen(r->epath, "w");
	if (!r->events)
		warning_msg("cannot write %s: %s", r->epath, strerror(errno));
}

/* The images of the tasks on this machine's worker, pulled before any
 * task starts (swenv.h): EXIT_OK, or EXIT_USAGE said. */
static int
local_images(struct runner *r)
{
	for (size_t i = 0; i < r->nw; i++)
		if (!r->w[i].remote && r->w[i].ex &&
		    (!r->w[i].spec || r->w[i].spec->local))
			return swenv_prepare(r->p->wf, worker_engine(r, i),
					     SWENV_PULL, r->events)
				       ? EXIT_USAGE : EXIT_OK;
	return EXIT_OK;
}

/* Every task up to date (or left out) and no stage to come: no image or
 * module to ask about. */
static bool
nothing_to_run(const struct runner *r)
{
	if (plan_pending(r->p))
		return false;
	for (size_t t = 0; t < r->p->dag.tasks.n; t++)
		if (r->resume.why[t] && r->resume.why[t] != RESUME_LEFT_OUT)
			return false;
	return true;
}

/* The images of the tasks on each remote worker, pulled before any task
 * starts (swenv_remote.h): a task whose image failed there fails there,
 * the others run. */
static int
remote_images(struct runner *r)
{
	struct swenv_worker *sw = xcalloc(r->nw + 1, sizeof(*sw));
	for (size_t i = 0; i < r->nw; i++)
		if (r->w[i].remote && r->w[i].ex) {
			sw[i].name = r->w[i].name;
			sw[i].ex = r->w[i].ex;
			sw[i].engine = worker_engine(r, i);
			sw[i].cores = 1;
			sw[i].own = !r->w[i].cwd; /* staged: its own workdir */
		}
	swenv_remote_init(&r->swr, r->p->wf, r->p->wf->workdir, sw, r->nw,
			  SWENV_PULL, r->events);
	free(sw);
	swenv_remote_ask(&r->swr, &r->loop, &r->interrupted);
	return r->interrupted ? EXIT_INTERRUPTED : EXIT_OK;
}

/* Workers up, and every task able to run on one: EXIT_OK, or the exit
 * status with a message. */
static int
start(struct runner *r)
{
	struct plan *p = r->p;
	const struct slurm_spec *sp = r->o->cluster ? r->o->cluster->slurm
						    : NULL;
	clean_slurm(r);
	if (sp && sp->jobs)
		sp = NULL; /* one worker, made with the others, runs the jobs */
	if (sp)
		open_slurm(r);
	if (!start_workers(r) && !sp) {
		error_msg("no worker can be reached; nothing was run");
		return r->interrupted ? EXIT_INTERRUPTED : EXIT_UNREACHABLE;
	}
	if (r->interrupted)
		return EXIT_INTERRUPTED;
	measure_local_disk(r);
	long most = place_most_cores(&r->pl);
	if (sp && r->alloc.node_cores > most)
		most = r->alloc.node_cores; /* what a node brings */
	for (size_t i = 0; i < p->wf->ntasks; i++) {
		if (!p->pt[i].ninst)
			continue;
		char why[512];
		int fit = place_fit(&r->pl, (uint32_t)i, most,
				    r->o->scale_cores, why, sizeof(why));
		if (fit > 0)
			warning_msg("%s", why);
		if (fit < 0) {
			error_msg("%s; nothing was run", why);
			return EXIT_USAGE;
		}
		if (place_usable(&r->pl) && unfit_everywhere(r, i))
			return EXIT_USAGE;
	}
	return EXIT_OK;
}

/*
 * Tasks up to date whose outputs the journal says are in a worker's store
 * (they ended there, and were not brought back): each worker is asked
 * whether it still holds them.  Those it does are taken from there
 * (stage_adopt); the others run again, with what that entails (resume.c).
 * Then the stores no record refers to any more go.
 */
static int
check_stores(struct runner *r)
{
	size_t nt = r->total;
	const struct jrec **rec = xcalloc(nt ? nt : 1, sizeof(*rec));
	bool *gone = xcalloc(nt ? nt : 1, sizeof(bool)), any = false;
	for (uint32_t t = 0; t < nt; t++) {
		if (r->resume.why[t] != RESUME_SKIP)
			continue;
		strbuf_reset(&r->scratch);
		plan_label(r->p, t, &r->scratch);
		rec[t] = journal_find(&r->journal, r->scratch.buf);
		if (rec[t] && rec[t]->store && r->stage)
			stage_store_ask(r->stage, t, rec[t]->store);
	}
	while (stage_asking(r->stage) && !r->interrupted)
		loop_run_once(&r->loop);
	for (uint32_t t = 0; t < nt; t++)
		if (rec[t] && rec[t]->store &&
		    !stage_store_held(r->stage, t))
			any = gone[t] = true;
	int rc = 0;
	if (any) {
		resume_plan_again(&r->resume, r->p, &r->journal, r->o->forced,
				  r->o->force_all, gone);
		/* a task that runs again now may need an original back */
		rc = put_back_originals(r);
	}
	for (uint32_t t = 0; t < nt; t++)
		if (r->resume.why[t] == RESUME_SKIP && rec[t] && rec[t]->store)
			stage_adopt(r->stage, t, rec[t]->store);
	if (r->stage && stage_prune(r->stage, &r->journal, STAGE_STORES) < 0)
		warning_msg("cannot write %s/%s: %s; the stores of this run on "
			    "the workers will not be removed", r->p->wf->workdir,
			    STAGE_STORES, strerror(errno));
	free(rec);
	free(gone);
	return rc;
}

/* The temp outputs and their readers that run; none go with
 * --keep-temp, and where the workdir is not shared only at the end,
 * after the fetch (fetch_outputs). */
static void
start_temps(struct runner *r)
{
	bool *run = xmalloc((r->total ? r->total : 1) * sizeof(bool));
	for (uint32_t t = 0; t < r->total; t++)
		run[t] = r->resume.why[t] != RESUME_SKIP &&
			 r->resume.why[t] != RESUME_LEFT_OUT;
	/* a stage still to expand may read any temp file: none goes before
	 * the end then */
	temp_init(&r->temp, r->p, run, !r->o->keep_temp,
		  r->stage != NULL || plan_pending(r->p));
	free(run);
}

/* Up to date (resume.c): done without running; their predecessors are
 * all skipped too, so program order works.  Then the others queue. */
static void
queue_tasks(struct runner *r)
{
	start_temps(r);
	for (uint32_t t = 0; t < r->total; t++)
		if (r->resume.why[t] == RESUME_SKIP) {
			place_skip(&r->pl, t);
			r->skipped++;
		} else if (r->resume.why[t] == RESUME_LEFT_OUT) {
			r->left_out++;
		}
	r->prog.done += r->skipped; /* the progress counts them done */
	r->prog.total -= r->left_out; /* and never these */
	if (r->skipped)
		info_msg("%zu of %zu tasks are up to date (see the journal %s/%s; "
			 "--forceall reruns them)", r->skipped,
			 r->total - r->left_out,
			 r->p->wf->workdir, JOURNAL_PATH);
	place_queue_ready(&r->pl, clock_real());
}

/* The tasks that neither ran to an end nor were up to date, nor were
 * cancelled because one they depend on failed (the summary says those
 * apart). */
static size_t
not_run(const struct runner *r)
{
	return r->total - r->left_out - r->done - r->failed - r->skipped -
	       r->ignored - r->cancelled;
}

/* Run until nothing runs or can start; whether every worker was lost
 * with tasks left. */
static void expand_ready(struct runner *r);

static bool
run_loop(struct runner *r)
{
	for (;;) {
		expand_ready(r);
		/* the records of the tasks that ended, in the file before
		 * any task that may read their outputs starts: a run killed
		 * as soon as such a task has begun leaves them (journal.bats:
		 * on a loaded machine, a writer's record was lost that way,
		 * and the next run ran the writer again) */
		if (r->journal.pending.len)
			journal_round(r, false, true);
		place_dispatch(&r->pl, clock_real());
		slurm_tick(r);
		/* made durable after the launches: an fdatasync then leaves
		 * no slot idle */
		sync_journal(r, false);
		if (!r->pl.running && !r->until_pid &&
		    (r->pl.stop || !r->retryq.n) &&
		    !(place_waiting(&r->pl) && slurm_coming(r))) {
			if (!place_usable(&r->pl) && place_waiting(&r->pl) &&
			    !r->pl.stop) {
				progress_clear(r);
				error_msg("%s; %zu tasks could not run",
					  r->allocating ? "no node to run on"
							: "every worker was lost",
					  not_run(r));
				return true;
			}
			return false;
		}
		if (r->hurry && !local_running(r))
			return false; /* remote tasks die with their connection */
		loop_run_once(&r->loop);
	}
}

/*
 * Each task that succeeded on a worker whose workdir is not shared, in
 * program order: what was fetched of it takes its place in the workdir
 * and it is journaled as a local task is, what it left on the workers
 * recorded absent.  Its INOUT data are saved first (undo.c) and dropped
 * once its record is on disk, so a master killed between the two puts
 * them back and the next run applies the update once.
 */
static void
commit_staged(struct runner *r)
{
	const struct dag *g = &r->p->dag;
	bool *got = NULL;
	size_t ngot = 0;
	for (uint32_t t = 0; t < g->tasks.n; t++) {
		if (!stage_ran(r->stage, t))
			continue;
		uint32_t nacc = g->tasks.v[t].nacc;
		if (nacc + 1 > ngot) {
			ngot = nacc + 1;
			got = xrealloc(got, ngot * sizeof(bool));
		}
		/* only an update that comes back replaces anything */
		bool inout = undo_has_inout(r->p, t) &&
			     stage_brings_update(r->stage, t);
		struct errbuf err;
		if (inout && (undo_keep_originals(r->p, t, r->resume.first,
						  &err) < 0 ||
			      undo_save(r->p, t, NULL, &err) < 0)) {
			error_msg("task %u: %s", t + 1, err.msg);
			continue;
		}
		if (!stage_place(r->stage, t, got)) {
			/* not all of it came back: a later run makes it
			 * again (its update in place was not brought) */
			if (inout)
				undo_discard(t);
			continue;
		}
		if (!record(r, t, got, NULL))
			continue; /* its copies stay: a later run puts them back */
		if (inout) {
			VEC_PUSH(r->recorded, t);
			VEC_PUSH(r->discard, t);
		}
		sync_journal(r, false);
	}
	free(got);
	sync_journal(r, true);
}

/* The outputs on workers whose workdir is not shared come back to the
 * master's workdir (a lost output's producer may run again), and their
 * tasks are journaled; whether that failed. */
static bool
fetch_outputs(struct runner *r)
{
	stage_fetch_start(r->stage, r->o->fetch);
	while (stage_busy(r->stage) && !r->interrupted) {
		place_dispatch(&r->pl, clock_real());
		if (!r->pl.running && !place_usable(&r->pl))
			stage_abandon(r->stage);
		if (stage_busy(r->stage))
			loop_run_once(&r->loop);
	}
	if (!r->interrupted)
		commit_staged(r);
	return stage_finish(r->stage);
}

/* The containers of killed tasks are removed in the background, all at
 * once (an interrupt kills many): the removals that ended are reaped
 * as the loop goes, and the run waits for the rest before it ends, so
 * that no container outlives it. */
static void
removals_reap(struct runner *r, bool block)
{
	size_t k = 0;
	for (size_t i = 0; i < r->removing.n; i++) {
		int st;
		if (!spawn_wait(r->removing.v[i], &st, block))
			r->removing.v[k++] = r->removing.v[i];
	}
	r->removing.n = k;
}

/* Run the queued tasks: the exit status. */
static int
run_tasks(struct runner *r)
{
	size_t n = r->total - r->skipped - r->left_out;
	verbose_msg("running %zu task%s of '%s' in %s", n, n == 1 ? "" : "s",
		    r->p->wf->name, r->p->wf->workdir);
	bool lost_all = run_loop(r);
	removals_reap(r, true);
	if (!r->interrupted && !r->stage)
		remove_temps(r, UINT32_MAX);
	sync_journal(r, true);
	/* waiting for a retry when the run stopped: failed */
	for (size_t i = 0; i < r->retryq.n; i++)
		r->p->dag.tasks.v[r->retryq.v[i].task].state = TASK_FAILED;
	for (size_t i = 0; i < r->pl.pinned.n; i++)
		r->p->dag.tasks.v[r->pl.pinned.v[i]].state = TASK_FAILED;
	r->failed += r->retryq.n + r->pl.pinned.n;
	progress_clear(r);
	int rc = r->interrupted ? EXIT_INTERRUPTED
		 : lost_all	? EXIT_UNREACHABLE
		 : r->failed || r->unrecorded ? EXIT_TASK_FAILED
					      : EXIT_OK;
	if (r->stage && !r->interrupted && fetch_outputs(r) && rc == EXIT_OK)
		rc = EXIT_TASK_FAILED;
	if (r->stage && !r->interrupted) {
		remove_temps(r, UINT32_MAX); /* what came back of them */
		sync_journal(r, true);
	}
	/* a host key refused is not a worker merely down: it is said */
	if (r->refused && (rc == EXIT_OK || rc == EXIT_TASK_FAILED))
		rc = EXIT_UNREACHABLE;
	return rc;
}

/* ---- staged expansion (wfrun-workflow(5), DYNAMIC) ---- */

/* Say that the tasks of names from..to were expanded (events.jsonl,
 * and with -v). */
static void
say_expanded(struct runner *r, uint32_t from, uint32_t to)
{
	const struct plan *p = r->p;
	for (uint32_t i = from; i < to; i++) {
		const char *name = p->wf->tasks[i].name;
		verbose_msg("expanded %s: %u instance%s", name, p->pt[i].ninst,
			    p->pt[i].ninst == 1 ? "" : "s");
		if (!r->events)
			continue;
		struct strbuf b = STRBUF_INIT;
		strbuf_addf(&b, "{\"t\":%.6f,\"ev\":\"expanded\",\"name\":",
			    clock_real());
		strbuf_add_json(&b, name);
		strbuf_addf(&b, ",\"tasks\":%u}\n", p->pt[i].ninst);
		fputs(b.buf, r->events);
		fflush(r->events);
		strbuf_release(&b);
	}
}

/* After a stage of repeat block ri (wfrun-workflow(5), REPEAT): its next
 * iteration, or how it ended, in events.jsonl (and with -v). */
static void
say_iteration(struct runner *r, int ri)
{
	const struct plan *p = r->p;
	const struct plan_repeat *pr = &p->reps[ri];
	const char *name = p->wf->tasks[p->wf->repeats[ri].from].name;
	const char *end = pr->end == REPEAT_CONVERGED ? "converged"
			  : pr->end == REPEAT_MAX    ? "max"
						     : NULL;
	if (!end)
		verbose_msg("iteration %u of the repeat block of %s", pr->iters,
			    name);
	if (!r->events)
		return;
	struct strbuf b = STRBUF_INIT;
	strbuf_addf(&b, "{\"t\":%.6f,\"ev\":\"%s\",\"name\":", clock_real(),
		    end ? "repeated" : "iteration");
	strbuf_add_json(&b, name);
	strbuf_addf(&b, ",\"iter\":%u", pr->iters);
	if (end)
		strbuf_addf(&b, ",\"end\":\"%s\"", end);
	strbuf_adds(&b, "}\n");
	fputs(b.buf, r->events);
	fflush(r->events);
	strbuf_release(&b);
}

/* The writers of what the next stage globs are done: expand it from
 * the disk, decide which of its tasks are up to date and queue those
 * that may start.  -1 when it cannot be expanded (said). */
static int
expand_stage(struct runner *r)
{
	struct plan *p = r->p;
	uint32_t first = (uint32_t)p->dag.tasks.n, from = p->stage_from;
	progress_clear(r);
	if (r->stage) {
		error_msg("task '%s': %s needs workers that share the "
			  "workdir", p->wf->tasks[from].name,
			  p->rep_at >= 0 ? "a repeat block"
					 : "a foreach over what an earlier "
					   "task writes");
		return -1;
	}
	int ri = p->rep_at;
	bool bad = plan_next_stage(p, stderr) < 0;
	if (!bad && ri >= 0)
		say_iteration(r, ri);
	if (!bad)
		say_expanded(r, from, plan_pending(p) ? p->stage_from
						      : (uint32_t)p->wf->ntasks);
	/* what was appended has its state even when it cannot run */
	size_t nt = p->dag.tasks.n;
	r->total = nt;
	r->prog.total = nt;
	r->saved = xrealloc(r->saved, (nt ? nt : 1) * sizeof(bool));
	memset(r->saved + first, 0, (nt - first) * sizeof(bool));
	place_grow(&r->pl);
	size_t left = bad ? 0 : select_appended(p, r->o->ask, first);
	r->left_out += left;
	r->prog.total -= left;
	resume_extend(&r->resume, p, &r->journal, r->o->forced,
		      r->o->force_all, first);
	if (bad) {
		for (uint32_t t = first; t < nt; t++) {
			p->dag.tasks.v[t].waiting++; /* never ready: not run */
			p->dag.tasks.v[t].state = TASK_WAITING;
		}
		return -1;
	}
	size_t skipped = 0;
	for (uint32_t t = first; t < nt; t++)
		if (r->resume.why[t] == RESUME_SKIP) {
			place_skip(&r->pl, t);
			skipped++;
		}
	r->skipped += skipped;
	r->prog.done += skipped;
	place_queue_from(&r->pl, first, clock_real());
	return 0;
}

/*
 * A repeat block's until command runs beside the tasks, a child of the
 * loop, and its end wakes the loop (SIGCHLD): the loop never waits for
 * it (a long convergence check must not hold up the tasks that end
 * meanwhile).  until_wait starts it once the iteration's writers are
 * done: true while it runs; until_reap hands its status to the plan
 * when it has ended, and then the stage expands.
 */
static void
until_reap(struct runner *r)
{
	int st;
	if (r->until_pid <= 0)
		return;
	pid_t w = spawn_wait(r->until_pid, &st, false);
	if (w == 0)
		return;
	r->until_pid = 0;
	plan_until_status(r->p, w < 0		 ? -1
				: WIFSIGNALED(st) ? 128 + WTERMSIG(st)
						  : WEXITSTATUS(st));
}

static bool
until_wait(struct runner *r)
{
	if (r->until_pid > 0)
		return true;
	struct strbuf cmd = STRBUF_INIT;
	if (plan_until_command(r->p, &cmd) <= 0) {
		strbuf_release(&cmd);
		return false;
	}
	char *argv[] = { "sh", "-c", cmd.buf, NULL };
	struct spawn_req req = { "/bin/sh", argv, NULL, NULL, 2, 2, -1, -1 };
	struct errbuf err;
	progress_clear(r);
	pid_t pid = spawn_task(&req, &err);
	strbuf_release(&cmd);
	if (pid < 0) {
		plan_until_status(r->p, -1);
		return false;
	}
	spawn_own(pid);
	r->until_pid = pid;
	return true;
}

/* Before each dispatch: expand each stage whose writers are all done
 * (each writer looked at once per stage), unless the run stops. */
static void
expand_ready(struct runner *r)
{
	struct plan *p = r->p;
	until_reap(r);
	if (r->removing.n)
		removals_reap(r, false);
	while (plan_pending(p) && !r->pl.stop && !r->interrupted &&
	       !r->expand_failed) {
		const struct dag *g = &p->dag;
		while (r->writers_done < p->stage_writers.n &&
		       g->tasks.v[p->stage_writers.v[r->writers_done]].state ==
			       TASK_DONE)
			r->writers_done++;
		if (r->writers_done < p->stage_writers.n || until_wait(r))
			return;
		r->writers_done = 0;
		/* a repeat block's until failing: its iterations ran */
		r->bad_from = p->rep_at >= 0 ? p->wf->repeats[p->rep_at].to
					     : p->stage_from;
		if (expand_stage(r) < 0) {
			r->expand_failed = true;
			r->pl.stop = r->pl.stop || !r->o->keep_going;
		}
	}
}

/* The tasks never expanded (a task before them failed, or the run
 * stopped), by name: not run. */
static void
say_pending(struct runner *r)
{
	const struct plan *p = r->p;
	if (!plan_pending(p) && !r->expand_failed)
		return;
	size_t from = r->expand_failed ? r->bad_from : p->stage_from;
	if (from >= p->wf->ntasks)
		return;
	struct strbuf b = STRBUF_INIT;
	const char *t;
	for (size_t i = from; i < p->wf->ntasks; i++)
		if (r->expand_failed ||
		    select_pending(p, r->o->ask, (uint32_t)i, &t))
			strbuf_addf(&b, "%s%s", b.len ? ", " : "",
				    p->wf->tasks[i].name);
	if (!b.len) /* none of them asked for */
		return;
	char *v = xvisible(b.buf);
	char *why = r->expand_failed ? xstrdup("see the errors above")
				     : plan_pending_why(p);
	info_msg("not expanded, so not run: %s (%s)", v, why);
	free(why);
	free(v);
	strbuf_release(&b);
}

/* Before the last line: what storage_bw: auto chose, per learner. */
static void
auto_outcomes(struct runner *r)
{
	char buf[256];
	for (uint32_t i = 0; r->looping && i < r->pol.nn; i++) {
		const struct iopol_name *nm = &r->pol.nm[i];
		if (!iopol_outcome(&r->pol, i, buf, sizeof(buf)))
			continue;
		bool saved = nm->a.phase == AUTOBW_LEARNED && nm->epochs;
		info_msg("storage_bw of '%s': %s%s%s%s", nm->key, buf,
			 saved ? "; kept in " : "",
			 saved ? r->p->wf->workdir : "",
			 saved ? "/" REGISTRY : "");
	}
}

/* The last line: what ran, in how long, and where the trace is. */
static void
summary(struct runner *r, int rc)
{
	size_t nrun = not_run(r);
	auto_outcomes(r);
	struct strbuf extra = STRBUF_INIT;
	if (r->left_out)
		strbuf_addf(&extra, ", %zu left out (not asked for)", r->left_out);
	if (r->skipped)
		strbuf_addf(&extra, ", %zu up to date", r->skipped);
	if (r->ignored)
		strbuf_addf(&extra, ", %zu failure%s ignored", r->ignored,
			    r->ignored == 1 ? "" : "s");
	if (r->cancelled)
		strbuf_addf(&extra, ", %zu cancelled", r->cancelled);
	if (r->preempted)
		strbuf_addf(&extra, ", %zu I/O attempt%s stopped to make way",
			    r->preempted, r->preempted == 1 ? "" : "s");
	double secs = clock_mono() - r->t0;
	const char *tdir = r->o->trace_path ? "" : r->p->wf->workdir;
	const char *tsep = r->o->trace_path ? "" : "/";
	if (rc == EXIT_USAGE ||
	    (rc == EXIT_UNREACHABLE && !r->done && !r->failed))
		; /* said above */
	else if (r->interrupted)
		info_msg("interrupted after %.1fs: %zu done, %zu stopped, %zu not "
			 "run%s (trace: %s%s%s)", secs, r->done, r->failed, nrun,
			 extra.buf, tdir, tsep, r->tpath);
	else if (r->failed || rc == EXIT_UNREACHABLE)
		info_msg("%zu task%s failed, %zu done, %zu not run%s, in %.1fs "
			 "(trace: %s%s%s)", r->failed, r->failed == 1 ? "" : "s",
			 r->done, nrun, extra.buf, secs, tdir, tsep, r->tpath);
	else
		info_msg("%zu task%s done in %.1fs%s", r->done,
			 r->done == 1 ? "" : "s", secs, extra.buf);
	strbuf_release(&extra);
}

/* Timers off, the trace closed and the summary said: the exit status. */
static int
wind_down(struct runner *r, int rc)
{
	struct errbuf err;
	loop_timer_cancel(&r->loop, &r->kill_timer);
	progress_release(&r->prog);
	loop_timer_cancel(&r->loop, &r->dl_timer);
	loop_timer_cancel(&r->loop, &r->sync_timer);
	loop_timer_cancel(&r->loop, &r->sample_timer);
	loop_timer_cancel(&r->loop, &r->idle_timer);
	if (trace_close(&r->trace, &err) < 0) {
		error_msg("%s", err.msg);
		if (rc == EXIT_OK)
			rc = EXIT_TASK_FAILED;
	}
	summary(r, rc);
	return rc;
}

/* Everything runner_run set up, as far as it got. */
static void
runner_release(struct runner *r)
{
	for (size_t i = 0; i < r->nw; i++)
		if (r->w[i].ex) {
			r->w[i].ex->hurry = r->hurry;
			r->w[i].ex->ops->release(r->w[i].ex);
		}
	exec_pipe_finish();
	/* the agents have ended: every job of the run goes */
	if (r->allocating)
		slurm_alloc_release(&r->alloc, r->hurry);
	stage_free(r->stage);
	swenv_remote_release(&r->swr);
	free(r->w);
	if (r->looping)
		retryq_release(&r->retryq, &r->loop);
	VEC_FREE(r->discard);
	VEC_FREE(r->recorded);
	free(r->due);
	resume_release(&r->resume);
	journal_release(&r->journal);
	strbuf_release(&r->scratch);
	guard_stop();
	contain_close();
	if (r->lock_fd >= 0)
		close(r->lock_fd);
	VEC_FREE(r->sampled);
	VEC_FREE(r->removing);
	free(r->dl.v);
	if (r->looping) {
		loop_release(&r->loop);
		place_release(&r->pl);
		if (iopol_registry_save(&r->pol, REGISTRY) < 0)
			warning_msg("cannot save %s/%s: %s", r->p->wf->workdir,
				    REGISTRY, strerror(errno));
		iopol_release(&r->pol);
	}
	if (r->events && fclose(r->events))
		warning_msg("error writing %s: %s", r->epath, strerror(errno));
	free(r->epath);
	free(r->logdir_made);
	free(r->mem_warned);
	free(r->saved);
	free(r->tpath);
	VEC_FREE(r->argv);
	strbuf_release(&r->cmd);
	strbuf_release(&r->swcmd);
	strbuf_release(&r->swname);
	strbuf_release(&r->words);
	strbuf_release(&r->path);
	temp_release(&r->temp);
	history_release(&r->hist);
}

/* The tasks the run did not run, for the report (wfrun(1), TRACE):
 * cancelled ones (downstream of a failure), the others left when it
 * stopped, and the tasks of stages never expanded, by name. */
static void
record_not_run(struct runner *r)
{
	const struct plan *p = r->p;
	const struct dag *g = &p->dag;
	struct strbuf b = STRBUF_INIT, tag = STRBUF_INIT;
	strbuf_adds(&b, "state\tname\ttag\n");
	for (uint32_t t = 0; r->looping && t < g->tasks.n; t++) {
		uint8_t st = g->tasks.v[t].state;
		const char *what = st == TASK_CANCELLED ? "cancelled"
				   : st == TASK_WAITING || st == TASK_READY
					   ? "not run"
					   : NULL;
		if (!what)
			continue;
		strbuf_reset(&tag);
		plan_tag(p, t, &tag);
		strbuf_addf(&b, "%s\t%s\t%s\n", what,
			    p->wf->tasks[g->tasks.v[t].tmpl].name, tag.buf);
	}
	size_t from = r->expand_failed ? r->bad_from : p->stage_from;
	const char *target;
	for (size_t i = from; r->looping && i < p->wf->ntasks; i++)
		if (r->expand_failed ||
		    select_pending(p, r->o->ask, (uint32_t)i, &target))
			strbuf_addf(&b, "not expanded\t%s\t\n",
				    p->wf->tasks[i].name);
	struct errbuf err;
	if (history_not_run(&r->hist, &b, &err) < 0)
		warning_msg("%s", err.msg);
	strbuf_release(&tag);
	strbuf_release(&b);
}

/* The run's record says how it ended (history.h). */
static void
record_end(struct runner *r, int rc)
{
	struct errbuf err;
	record_not_run(r);
	struct history_counts c = {
		r->done + r->ignored, r->skipped, r->failed, r->cancelled,
		r->looping ? not_run(r) : 0, r->left_out,
	};
	if (history_end(&r->hist, rc, &c, &err) < 0)
		warning_msg("%s", err.msg);
}

int
runner_run(struct plan *p, const struct runner_opts *o)
{
	struct runner r;
	memset(&r, 0, sizeof(r));
	r.p = p;
	r.o = o;
	r.total = p->dag.tasks.n;
	r.t0 = clock_mono();
	r.lock_fd = -1;
	r.journal.fd = -1;
	strbuf_init(&r.cmd);
	strbuf_init(&r.swcmd);
	strbuf_init(&r.swname);
	strbuf_init(&r.words);
	strbuf_init(&r.path);
	strbuf_init(&r.scratch);
	r.sh_argv[0] = "sh";
	r.sh_argv[1] = "-c";
	r.tpath = xstrdup(o->trace_path ? o->trace_path : ".wfrun/trace.tsv");
	history_init(&r.hist, p->wf->file, o->cluster ? o->cluster->file : NULL);
	int rc = open_workdir(&r);
	if (rc == EXIT_OK) {
		set_up(&r);
		rc = start(&r);
		if (rc == EXIT_OK && check_stores(&r) < 0)
			rc = EXIT_USAGE;
		bool idle = nothing_to_run(&r);
		if (rc == EXIT_OK && !idle)
			rc = local_images(&r);
		if (rc == EXIT_OK && !idle)
			rc = remote_images(&r);
		if (rc == EXIT_OK) {
			queue_tasks(&r);
			rc = run_tasks(&r);
			if (rc == EXIT_OK && r.expand_failed)
				rc = EXIT_TASK_FAILED;
		}
		rc = wind_down(&r, rc);
		say_pending(&r);
	}
	record_end(&r, rc);
	runner_release(&r);
	return rc;
}
