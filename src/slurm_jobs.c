/*
 * slurm_jobs: one Slurm batch job per task instance (slurm_jobs.h).
 *
 * A job's life: submit() keeps the instance (its script text, logs and
 * resources) until the end of the loop round; then every instance of
 * that round with the same name and resources goes in one job array:
 * a directory .wfrun/slurm/PID.SEQ holds INDEX.sh (its command, as the
 * runner renders it, each word quoted for sh), INDEX.out and INDEX.err
 * (symbolic links to the task's log files, which sbatch --output and
 * --error name, so Slurm's own messages land there too), and later
 * INDEX.st, written by the job's wrapper script when the command ends:
 * "EXIT START END NODE" (EXIT as the shell says it: 128+N for a command
 * killed by signal N, reported as that signal).  One squeue (-r -t all, every array of the run)
 * per poll interval says each job's state; a job in an end state, or
 * gone from the queue, is finished: its status file says how, or Slurm's
 * end state (TIMEOUT, OUT_OF_MEMORY, CANCELLED...) does.  A job gone with
 * no status file and no end state seen is asked for once with scontrol.
 *
 * Children (sbatch, squeue, scontrol, scancel) run in their own process
 * group with their output on pipes watched by the loop; one ends when both
 * pipes are closed and it is reaped (by us, or by exec_local, which reaps
 * any child: then its output alone tells).
 */
#include "slurm_jobs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "expand.h"
#include "path.h"
#include "resources.h"
#include "slurm_alloc.h"
#include "spawn.h"

extern char **environ;

/* Where the jobs' files are, under the workdir. */
#define SJ_DIR ".wfrun/slurm"
/* Polls a job may be COMPLETED with its status file not yet seen (a
 * shared file system's attribute cache) before it counts as failed. */
#define SJ_MISSING_MAX 3
/* Seconds release() waits in all for the commands under way and its
 * scancel (each its own 10 s, one after another, made a Ctrl-C wait 46
 * s for 4 commands hung with slurmctld's host), the hurry's after a
 * second Ctrl-C, and at least for its scancel. */
#define SJ_WAIT 10.0
#define SJ_WAIT_HURRY 2.0

/* The wrapper every job runs: its instance's script, then its status. */
static const char wrapper[] =
	"#!/bin/sh\n"
	"# wfrun: one task instance as a Slurm job (wfrun-resources(5))\n"
	"s=\"$1/${SLURM_ARRAY_TASK_ID:-0}\"\n"
	"b=$(date +%s.%N)\n"
	"# the task's stderr, not this shell's words on a signal (\"Killed\")\n"
	"exec 3>&2 2>/dev/null\n"
	"/bin/sh -c 'exec 2>&3 3>&- /bin/sh \"$0\"' \"$s.sh\" </dev/null\n"
	"rc=$?\n"
	"exec 2>&3 3>&-\n"
	"e=$(date +%s.%N)\n"
	"echo \"$rc $b $e ${SLURMD_NODENAME:-}\" >\"$s.tmp\" && "
	"mv -f \"$s.tmp\" \"$s.st\"\n"
	"exit $rc\n";

enum sj_phase { SJ_NEW, SJ_SUBMITTING, SJ_QUEUED, SJ_ASKING, SJ_ENDED };

struct sj_batch;

/* One task instance. */
struct sj_job {
	uint32_t task;
	enum sj_phase phase;
	struct sj_batch *b;
	unsigned idx;
	char *script;        /* INDEX.sh's text */
	char *out, *err;     /* its logs, absolute */
	char *name;          /* the array's name: the task's */
	char *label;         /* a lone job's name: the task's and its tag */
	long cores;
	long long mem_mb;    /* 0: not given */
	long long log_max;   /* 0: no cap */
	char *time;          /* sbatch --time, NULL: none */
	bool running;        /* seen running: it started */
	bool cancelled;      /* wfrun cancelled it (timeout, stop, end) */
	int missing;         /* polls ended without its status file */
	double submitted, seen_start;
	char state[24], reason[64], node[64];
};

/* One job array: one sbatch. */
struct sj_batch {
	char *dir;           /* absolute */
	char *id;            /* the array's job id, NULL until sbatch says */
	struct sj_job **jobs;
	size_t n, left;      /* jobs, and those not ended */
	size_t asking;       /* scontrol children about its jobs */
	bool polled;         /* in the squeue that runs */
};

struct slurm_jobs;
struct sj_proc;
typedef void (*sj_end_fn)(struct slurm_jobs *x, struct sj_proc *p);

/* A child: sbatch, squeue, scontrol or scancel. */
struct sj_proc {
	struct slurm_jobs *x;
	pid_t pid;
	int fd[2];           /* its stdout and stderr, -1 once closed */
	struct strbuf buf[2];
	int status;          /* its wait status, -1: not known */
	bool reaped;
	sj_end_fn end;
	void *ctx;
};

struct slurm_jobs {
	struct exec base;
	const struct slurm_spec *s;
	char *workdir;
	char *wrapper;       /* the wrapper script's path */
	char *record;        /* SLURM_RECORD, absolute: the arrays' ids */
	struct loop *loop;
	VEC(struct sj_job *) pend;      /* handed over this round */
	VEC(struct sj_batch *) batches; /* submitting or in the queue */
	VEC(struct sj_proc *) procs;
	struct loop_timer flush_timer, poll_timer;
	bool polling;        /* an squeue runs */
	double poll_start;   /* clock_mono() of the last squeue */
	unsigned seq;
	bool warned;         /* an squeue failure was said */
	bool releasing;      /* in release(): no more callbacks */
	struct strvec unsure; /* arrays given up before Slurm said their
				 jobs ended: scancel'ed again at the end */
};

/* --- children ------------------------------------------------------------- */

static void proc_finish_all(struct slurm_jobs *x);

static void
proc_read(int fd, short revents, void *arg)
{
	struct sj_proc *p = arg;
	(void)revents;
	int k = fd == p->fd[0] ? 0 : 1;
	char buf[8192];
	ssize_t n = read(fd, buf, sizeof(buf));
	if (n > 0) {
		strbuf_add(&p->buf[k], buf, (size_t)n);
		return;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (p->x->loop)
		loop_unwatch_fd(p->x->loop, fd);
	close(fd);
	p->fd[k] = -1;
	proc_finish_all(p->x);
}

/* Reap p if it has ended; another reaper (exec_local) may have. */
static void
proc_reap(struct sj_proc *p, bool block)
{
	if (p->reaped)
		return;
	int st;
	pid_t r = spawn_wait(p->pid, &st, block);
	if (r == p->pid) {
		p->reaped = true;
		p->status = st;
	} else if (r < 0) { /* not a child: cannot be */
		p->reaped = true;
		p->status = -1;
	}
}

static void
proc_free(struct sj_proc *p)
{
	for (int k = 0; k < 2; k++) {
		if (p->fd[k] >= 0) {
			if (p->x->loop)
				loop_unwatch_fd(p->x->loop, p->fd[k]);
			close(p->fd[k]);
		}
		strbuf_release(&p->buf[k]);
	}
	free(p);
}

/* Call the end of each child whose pipes are closed and that is reaped. */
static void
proc_finish_all(struct slurm_jobs *x)
{
	if (x->releasing)
		return; /* release() waits for them itself */
	for (size_t i = 0; i < x->procs.n;) {
		struct sj_proc *p = x->procs.v[i];
		bool open = p->fd[0] >= 0 || p->fd[1] >= 0;
		if (!open)
			proc_reap(p, false);
		if (open || !p->reaped) {
			i++;
			continue;
		}
		x->procs.v[i] = x->procs.v[--x->procs.n];
		p->end(x, p);
		proc_free(p);
		i = 0; /* end may have started others */
	}
}

/* Start argv with its output on pipes; NULL with err on failure. */
static struct sj_proc *
proc_start(struct slurm_jobs *x, char *const *argv, sj_end_fn end, void *ctx,
	   struct errbuf *err)
{
	/* its own group: the terminal's Ctrl-C must not stop a scancel */
	int fds[2];
	pid_t pid = spawn_command(argv, fds, err);
	if (pid < 0)
		return NULL;
	struct sj_proc *p = xcalloc(1, sizeof(*p));
	p->x = x;
	p->pid = pid;
	p->end = end;
	p->ctx = ctx;
	p->status = -1;
	for (int k = 0; k < 2; k++) {
		strbuf_init(&p->buf[k]);
		p->fd[k] = fds[k];
		fcntl(p->fd[k], F_SETFL, fcntl(p->fd[k], F_GETFL) | O_NONBLOCK);
		if (x->loop)
			loop_watch_fd(x->loop, p->fd[k], POLLIN, proc_read, p);
	}
	VEC_PUSH(x->procs, p);
	return p;
}

/* Wait (until the clock_mono() time until at most) for p's output and
 * end, outside the loop; killed past that. */
static void
proc_wait(struct sj_proc *p, double until)
{
	while (p->fd[0] >= 0 || p->fd[1] >= 0) {
		struct pollfd pf[2];
		int n = 0;
		for (int k = 0; k < 2; k++)
			if (p->fd[k] >= 0)
				pf[n++] = (struct pollfd){ p->fd[k], POLLIN, 0 };
		int ms = (int)((until - clock_mono()) * 1000);
		if (ms <= 0 || poll(pf, (nfds_t)n, ms) <= 0)
			break;
		for (int k = 0; k < n; k++)
			if (pf[k].revents)
				proc_read(pf[k].fd, pf[k].revents, p);
	}
	proc_reap(p, false);
	if (!p->reaped) {
		kill(-p->pid, SIGKILL);
		proc_reap(p, true);
	}
}

/* What a child said went wrong: the last line of its stderr, or its
 * status. */
static void
proc_why(const struct sj_proc *p, char *buf, size_t len)
{
	const struct strbuf *e = &p->buf[1];
	size_t end = e->len;
	while (end && (e->buf[end - 1] == '\n' || e->buf[end - 1] == ' '))
		end--;
	size_t start = end;
	while (start && e->buf[start - 1] != '\n')
		start--;
	if (end > start) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_add_visible(&sb, e->buf + start, end - start);
		snprintf(buf, len, "%s", sb.buf);
		strbuf_release(&sb);
	} else if (p->status >= 0 && WIFEXITED(p->status)) {
		snprintf(buf, len, "exit status %d", WEXITSTATUS(p->status));
	} else if (p->status >= 0 && WIFSIGNALED(p->status)) {
		snprintf(buf, len, "killed by signal %d", WTERMSIG(p->status));
	} else {
		snprintf(buf, len, "no answer");
	}
}

static bool
proc_ok(const struct sj_proc *p)
{
	return p->status < 0 || (WIFEXITED(p->status) &&
				 !WEXITSTATUS(p->status));
}

/* scancel the job ids of ids->v[1..] (new strings; v[0] is for
 * "scancel"), in the loop; ids is freed. */
static void scancel_ended(struct slurm_jobs *x, struct sj_proc *p);

static void
scancel(struct slurm_jobs *x, struct strvec *ids)
{
	size_t n = ids->n;
	VEC_PUSH(*ids, NULL);
	ids->v[0] = "scancel";
	struct errbuf err;
	if (n > 1 && !proc_start(x, ids->v, scancel_ended, NULL, &err))
		warning_msg("slurm: %s", err.msg);
	for (size_t i = 1; i < n; i++)
		free(ids->v[i]);
	VEC_FREE(*ids);
}

/* A result of task's job, known of it so far: nothing. */
static void
result_init(struct exec_result *r, uint32_t task)
{
	memset(r, 0, sizeof(*r));
	r->task = task;
	r->read_bytes = r->write_bytes = -1;
	r->utime = -1;
	r->maxrss_kb = -1;
	r->start = r->end = clock_real();
}

/* --- the jobs' files ------------------------------------------------------ */

static void
job_free(struct sj_job *j)
{
	free(j->script);
	free(j->out);
	free(j->err);
	free(j->name);
	free(j->label);
	free(j->time);
	free(j);
}

static char *
batch_file(const struct sj_batch *b, unsigned idx, const char *ext)
{
	return xasprintf("%s/%u.%s", b->dir, idx, ext);
}

/* Its files and directory go; the batch is freed. */
static void
batch_drop(struct slurm_jobs *x, struct sj_batch *b)
{
	static const char *const ext[] = { "sh", "out", "err", "st", "tmp" };
	for (size_t i = 0; i < b->n; i++) {
		for (size_t k = 0; k < ARRAY_SIZE(ext); k++) {
			char *f = batch_file(b, (unsigned)i, ext[k]);
			unlink(f);
			free(f);
		}
		job_free(b->jobs[i]);
	}
	rmdir(b->dir);
	for (size_t i = 0; i < x->batches.n; i++)
		if (x->batches.v[i] == b)
			x->batches.v[i] = x->batches.v[--x->batches.n];
	free(b->jobs);
	free(b->dir);
	free(b->id);
	free(b);
}

/* The status file of j: whether it is there (r filled from it). */
static bool
read_status(const struct sj_job *j, struct exec_result *r)
{
	char *f = batch_file(j->b, j->idx, "st");
	FILE *fp = fopen_bounded(f, 4096, NULL);
	free(f);
	if (!fp)
		return false;
	int rc;
	double b, e;
	char node[64] = "";
	int n = fscanf(fp, "%d %lf %lf %63s", &rc, &b, &e, node);
	fclose(fp);
	if (n < 3)
		return false;
	r->started = true;
	/* the shell's 128+N: killed by signal N, as it is the only way a
	 * shell can say it (an exit status of 129 to 192 reads the same) */
	if (rc > 128 && rc - 128 < NSIG)
		r->wstatus = rc - 128;
	else
		r->wstatus = (rc & 0xff) << 8;
	r->start = b;
	r->end = e;
	if (node[0])
		snprintf(r->node, sizeof(r->node), "%s", node);
	return true;
}

/* A log at its job's end: whether it is empty (then it is removed). */
static bool
log_done(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return true;
	if (st.st_size)
		return false;
	unlink(path);
	return true;
}

/* --- ends ----------------------------------------------------------------- */

static bool
is_state(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

static const char *const end_states[] = {
	"BOOT_FAIL", "CANCELLED", "COMPLETED", "DEADLINE", "FAILED",
	"NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "TIMEOUT", "REVOKED",
	"SPECIAL_EXIT", NULL,
};
/* Not the task's failure: it runs again, no retry used. */
static const char *const lost_states[] = {
	"NODE_FAIL", "PREEMPTED", "BOOT_FAIL", NULL,
};

/* "Slurm ended job ID with STATE (detail)" into r->error. */
static void
say_ended(const struct sj_job *j, struct exec_result *r)
{
	char detail[128] = "";
	if (!strcmp(j->state, "TIMEOUT"))
		snprintf(detail, sizeof(detail), " (time limit %s%s)",
			 j->time ? j->time : "of the partition",
			 j->time && !strchr(j->time, ':') &&
					 !strchr(j->time, '-')
				 ? " min" : "");
	else if (!strcmp(j->state, "OUT_OF_MEMORY") && j->mem_mb)
		snprintf(detail, sizeof(detail), " (--mem %lldM)", j->mem_mb);
	else if (j->reason[0] && strcmp(j->reason, "None"))
		snprintf(detail, sizeof(detail), " (%s)", j->reason);
	snprintf(r->error, sizeof(r->error), "Slurm ended job %s_%u with %s%s%s",
		 j->b->id, j->idx, j->state, detail,
		 is_state(j->state, lost_states) ? "; it runs again" : "");
	snprintf(r->state, sizeof(r->state), "%s", j->state);
}

/* j has ended (its state, if any, is Slurm's last word): its result. */
static void
job_end(struct slurm_jobs *x, struct sj_job *j)
{
	struct exec_result r;
	result_init(&r, j->task);
	snprintf(r.node, sizeof(r.node), "%s", j->node);
	bool have = read_status(j, &r);
	bool slurm_says = !strcmp(j->state, "TIMEOUT") ||
			  !strcmp(j->state, "OUT_OF_MEMORY") ||
			  is_state(j->state, lost_states);
	if (!have || slurm_says) {
		r.started = j->running || have;
		r.start = j->seen_start ? j->seen_start : j->submitted;
		r.end = clock_real();
		if (j->cancelled) {
			r.wstatus = SIGKILL; /* killed, as wfrun asked */
			if (!r.started)
				snprintf(r.error, sizeof(r.error), "cancelled "
					 "before Slurm started job %s_%u",
					 j->b->id ? j->b->id : "-", j->idx);
		} else if (j->state[0]) {
			say_ended(j, &r);
			r.lost = is_state(j->state, lost_states);
		} else {
			snprintf(r.error, sizeof(r.error), "job %s_%u left "
				 "Slurm's queue without a status file (%s)",
				 j->b->id, j->idx, "Slurm no longer knows it");
			snprintf(r.state, sizeof(r.state), "VANISHED");
		}
	}
	/* cut only now: Slurm writes the logs where the job runs */
	exec_log_cut(j->out, j->log_max);
	exec_log_cut(j->err, j->log_max);
	r.out_empty = log_done(j->out);
	r.err_empty = log_done(j->err);
	j->phase = SJ_ENDED;
	j->b->left--;
	x->base.running--;
	x->base.done(&r, x->base.arg);
}

/* Drop the batches whose jobs have all ended. */
static void
sweep(struct slurm_jobs *x)
{
	for (size_t i = 0; i < x->batches.n;) {
		struct sj_batch *b = x->batches.v[i];
		if (b->id && !b->left && !b->asking)
			batch_drop(x, b); /* the last one takes its place */
		else
			i++;
	}
}

/* --- scontrol: a job gone from the queue with no status file --------------- */

/* The value of KEY= in scontrol's one-line output, into buf. */
static void
scontrol_field(const char *s, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);
	for (const char *p = s; (p = strstr(p, key)); p += kl)
		if ((p == s || p[-1] == ' ' || p[-1] == '\n') && p[kl] == '=') {
			p += kl + 1;
			size_t n = strcspn(p, " \n");
			snprintf(buf, len, "%.*s", (int)n, p);
			return;
		}
}

static void
scontrol_ended(struct slurm_jobs *x, struct sj_proc *p)
{
	struct sj_job *j = p->ctx;
	j->b->asking--;
	if (j->phase == SJ_ENDED)
		return; /* given up meanwhile */
	char state[24] = "";
	scontrol_field(p->buf[0].buf ? p->buf[0].buf : "", "JobState", state,
		       sizeof(state));
	if (is_state(state, end_states)) {
		snprintf(j->state, sizeof(j->state), "%s", state);
		scontrol_field(p->buf[0].buf, "Reason", j->reason,
			       sizeof(j->reason));
		scontrol_field(p->buf[0].buf, "NodeList", j->node,
			       sizeof(j->node));
	} else if (state[0]) {
		j->phase = SJ_QUEUED; /* still there after all */
		return;
	}
	job_end(x, j);
	sweep(x);
}

static void
ask_scontrol(struct slurm_jobs *x, struct sj_job *j)
{
	char id[64];
	snprintf(id, sizeof(id), "%s_%u", j->b->id, j->idx);
	char *argv[] = { "scontrol", "-o", "show", "job", id, NULL };
	struct errbuf err;
	j->phase = SJ_ASKING;
	if (proc_start(x, argv, scontrol_ended, j, &err))
		j->b->asking++;
	else
		job_end(x, j);
}

/* --- squeue --------------------------------------------------------------- */

static void poll_due(void *arg);

static bool
queued_any(const struct slurm_jobs *x)
{
	for (size_t i = 0; i < x->batches.n; i++)
		if (x->batches.v[i]->id && x->batches.v[i]->left)
			return true;
	return false;
}

/* The next squeue, poll seconds after the last one started. */
static void
poll_arm(struct slurm_jobs *x, double soon)
{
	if (x->polling || !queued_any(x))
		return;
	double wait = x->poll_start + x->s->poll - clock_mono();
	if (soon >= 0 && soon < wait)
		wait = soon;
	if (!x->poll_timer.armed || wait < x->poll_timer.when - clock_mono())
		loop_timer_arm(x->loop, &x->poll_timer, wait > 0 ? wait : 0,
			       poll_due, x);
}

/* One line of squeue: "ARRAY_INDEX|STATE|NODES|REASON". */
static void
squeue_line(struct slurm_jobs *x, char *line)
{
	char *f[4] = { line, NULL, NULL, NULL };
	for (int k = 1; k < 4; k++) {
		char *bar = f[k - 1] ? strchr(f[k - 1], '|') : NULL;
		if (bar)
			*bar = '\0';
		f[k] = bar ? bar + 1 : NULL;
	}
	char *us = strchr(f[0], '_');
	if (!f[3] || !us)
		return;
	*us = '\0';
	char *endp;
	unsigned long idx = strtoul(us + 1, &endp, 10);
	if (*endp)
		return;
	for (size_t i = 0; i < x->batches.n; i++) {
		struct sj_batch *b = x->batches.v[i];
		if (!b->polled || strcmp(b->id, f[0]) || idx >= b->n)
			continue;
		struct sj_job *j = b->jobs[idx];
		if (j->phase != SJ_QUEUED)
			return;
		snprintf(j->state, sizeof(j->state), "%s", f[1]);
		snprintf(j->reason, sizeof(j->reason), "%s", f[3]);
		if (f[2][0])
			snprintf(j->node, sizeof(j->node), "%s", f[2]);
		if (strcmp(f[1], "PENDING") && !j->running) {
			j->running = true;
			j->seen_start = clock_real();
		}
		j->missing = -1; /* seen */
		return;
	}
}

/* After squeue: each polled job in an end state, or gone, ends. */
static void
squeue_settle(struct slurm_jobs *x)
{
	for (size_t i = 0; i < x->batches.n; i++) {
		struct sj_batch *b = x->batches.v[i];
		if (!b->polled)
			continue;
		b->polled = false;
		for (size_t k = 0; k < b->n; k++) {
			struct sj_job *j = b->jobs[k];
			if (j->phase != SJ_QUEUED)
				continue;
			bool seen = j->missing < 0;
			j->missing = seen ? 0 : j->missing;
			struct exec_result r;
			bool have = read_status(j, &r);
			if (seen && !is_state(j->state, end_states))
				continue;
			if (seen && !have && !strcmp(j->state, "COMPLETED") &&
			    ++j->missing < SJ_MISSING_MAX)
				continue;
			if (!seen && !have)
				ask_scontrol(x, j);
			else
				job_end(x, j);
		}
	}
	sweep(x);
}

static void
squeue_ended(struct slurm_jobs *x, struct sj_proc *p)
{
	x->polling = false;
	bool gone = strstr(p->buf[1].buf ? p->buf[1].buf : "",
			   "Invalid job id") != NULL;
	if (!proc_ok(p) && !gone) {
		char why[256];
		proc_why(p, why, sizeof(why));
		if (!x->warned)
			warning_msg("slurm: squeue: %s; asking again in %ds", why,
				    x->s->poll);
		x->warned = true;
		for (size_t i = 0; i < x->batches.n; i++)
			x->batches.v[i]->polled = false;
	} else {
		x->warned = false;
		for (char *l = p->buf[0].buf, *nl; !gone && l && *l; l = nl) {
			nl = strchr(l, '\n');
			if (nl)
				*nl++ = '\0';
			squeue_line(x, l);
		}
		squeue_settle(x);
	}
	poll_arm(x, -1);
}

static void
poll_due(void *arg)
{
	struct slurm_jobs *x = arg;
	if (x->polling)
		return;
	struct strbuf ids = STRBUF_INIT;
	for (size_t i = 0; i < x->batches.n; i++) {
		struct sj_batch *b = x->batches.v[i];
		if (!b->id || !b->left)
			continue;
		b->polled = true;
		strbuf_addf(&ids, "%s%s", ids.len ? "," : "", b->id);
	}
	if (!ids.len) {
		strbuf_release(&ids);
		return;
	}
	char *argv[] = { "squeue", "-h", "-r", "-t", "all", "-o",
			 "%i|%T|%N|%r", "-j", ids.buf, NULL };
	struct errbuf err;
	x->poll_start = clock_mono();
	if (proc_start(x, argv, squeue_ended, NULL, &err)) {
		x->polling = true;
	} else {
		warning_msg("slurm: %s", err.msg);
		for (size_t i = 0; i < x->batches.n; i++)
			x->batches.v[i]->polled = false;
		poll_arm(x, -1);
	}
	strbuf_release(&ids);
}

static void
scancel_ended(struct slurm_jobs *x, struct sj_proc *p)
{
	if (!proc_ok(p)) {
		char why[256];
		proc_why(p, why, sizeof(why));
		warning_msg("slurm: scancel: %s", why);
	}
	poll_arm(x, 0.2); /* see them end soon */
}

/* --- sbatch --------------------------------------------------------------- */

static void
sbatch_ended(struct slurm_jobs *x, struct sj_proc *p)
{
	struct sj_batch *b = p->ctx;
	const char *o = p->buf[0].buf ? p->buf[0].buf : "";
	size_t n = strspn(o, "0123456789");
	if (n && proc_ok(p)) {
		b->id = xstrndup(o, n);
		/* first: should wfrun be killed now, the next run cancels it */
		slurm_record_job(x->record, b->id);
		struct strvec cancel = { 0 };
		VEC_PUSH(cancel, NULL);
		for (size_t i = 0; i < b->n; i++) {
			if (b->jobs[i]->phase != SJ_ENDED)
				b->jobs[i]->phase = SJ_QUEUED;
			if (b->jobs[i]->cancelled)
				VEC_PUSH(cancel, xasprintf("%s_%zu", b->id, i));
		}
		scancel(x, &cancel);
		sweep(x);
		poll_arm(x, -1);
		return;
	}
	char why[1024];
	proc_why(p, why, sizeof(why));
	for (size_t i = 0; i < b->n; i++) {
		struct sj_job *j = b->jobs[i];
		if (j->phase == SJ_ENDED)
			continue; /* given up meanwhile */
		struct exec_result r;
		result_init(&r, j->task);
		snprintf(r.error, sizeof(r.error), "sbatch refused it: %s", why);
		j->phase = SJ_ENDED;
		b->left--;
		x->base.running--;
		log_done(j->out);
		log_done(j->err);
		x->base.done(&r, x->base.arg);
	}
	batch_drop(x, b);
}

/* argv of the sbatch of batch b (new strings). */
static void
sbatch_argv(struct slurm_jobs *x, const struct sj_batch *b, struct strvec *v)
{
	const struct slurm_spec *s = x->s;
	const struct sj_job *j = b->jobs[0];
	VEC_PUSH(*v, xstrdup("sbatch"));
	VEC_PUSH(*v, xstrdup("--parsable"));
	VEC_PUSH(*v, xasprintf("--job-name=%s", j->name));
	VEC_PUSH(*v, xasprintf("--array=0-%zu%%%ld", b->n - 1, s->max_jobs));
	VEC_PUSH(*v, xasprintf("--cpus-per-task=%ld", j->cores));
	if (j->mem_mb)
		VEC_PUSH(*v, xasprintf("--mem=%lldM", j->mem_mb));
	if (j->time)
		VEC_PUSH(*v, xasprintf("--time=%s", j->time));
	if (s->partition)
		VEC_PUSH(*v, xasprintf("--partition=%s", s->partition));
	if (s->account)
		VEC_PUSH(*v, xasprintf("--account=%s", s->account));
	if (s->qos)
		VEC_PUSH(*v, xasprintf("--qos=%s", s->qos));
	/* a node that fails ends the job NODE_FAIL and wfrun runs the task
	 * again, from its saved inout data: Slurm's requeue would run it
	 * on what the first attempt left (an <option> may still ask it) */
	VEC_PUSH(*v, xstrdup("--no-requeue"));
	for (size_t i = 0; i < s->options.n; i++)
		VEC_PUSH(*v, xstrdup(s->options.v[i]));
	VEC_PUSH(*v, xasprintf("--output=%s/%%a.out", b->dir));
	VEC_PUSH(*v, xasprintf("--error=%s/%%a.err", b->dir));
	VEC_PUSH(*v, xasprintf("--chdir=%s", x->workdir));
	VEC_PUSH(*v, xstrdup(x->wrapper));
	VEC_PUSH(*v, xstrdup(b->dir));
	VEC_PUSH(*v, NULL);
}

/* Write b's files; -1 with err. */
static int
batch_write(struct sj_batch *b, struct errbuf *err)
{
	if (mkdir_p(b->dir, 0777) < 0)
		return errprintf(err, "cannot create %s: %s", b->dir,
				 strerror(errno));
	for (size_t i = 0; i < b->n; i++) {
		const struct sj_job *j = b->jobs[i];
		char *sh = batch_file(b, (unsigned)i, "sh");
		char *lo = batch_file(b, (unsigned)i, "out");
		char *le = batch_file(b, (unsigned)i, "err");
		FILE *f = fopen(sh, "w");
		bool ok = f && fputs(j->script, f) >= 0;
		ok = f && !fclose(f) && ok;
		/* the logs of an earlier attempt go: Slurm makes them */
		unlink(j->out);
		unlink(j->err);
		ok = ok && !symlink(j->out, lo) && !symlink(j->err, le);
		int e = errno;
		free(sh);
		free(lo);
		free(le);
		if (!ok)
			return errprintf(err, "cannot write the job files in %s: "
					 "%s", b->dir, strerror(e));
	}
	return 0;
}

/* Submit b as one array; its jobs end at once if it cannot be. */
static void
batch_submit(struct slurm_jobs *x, struct sj_batch *b)
{
	struct errbuf err;
	struct strvec argv = { 0 };
	VEC_PUSH(x->batches, b);
	for (size_t i = 0; i < b->n; i++)
		b->jobs[i]->phase = SJ_SUBMITTING;
	if (batch_write(b, &err) == 0) {
		sbatch_argv(x, b, &argv);
		if (proc_start(x, argv.v, sbatch_ended, b, &err))
			err.msg[0] = '\0';
		for (size_t i = 0; i < argv.n; i++)
			free(argv.v[i]);
		VEC_FREE(argv);
		if (!err.msg[0])
			return;
	}
	/* as if sbatch had said it */
	struct sj_proc p = { .x = x, .status = 1 << 8, .ctx = b };
	strbuf_init(&p.buf[0]);
	strbuf_init(&p.buf[1]);
	strbuf_adds(&p.buf[1], err.msg);
	sbatch_ended(x, &p);
	strbuf_release(&p.buf[1]);
}

static bool
same_kind(const struct sj_job *a, const struct sj_job *b)
{
	return !strcmp(a->name, b->name) && a->cores == b->cores &&
	       a->mem_mb == b->mem_mb &&
	       !strcmp(a->time ? a->time : "", b->time ? b->time : "");
}

/* End of the loop round: the instances handed over go, one array per
 * name and resources. */
static void
flush_due(void *arg)
{
	struct slurm_jobs *x = arg;
	while (x->pend.n) {
		struct sj_batch *b = xcalloc(1, sizeof(*b));
		b->dir = xasprintf("%s/" SJ_DIR "/%d.%u", x->workdir,
				   (int)getpid(), ++x->seq);
		struct sj_job *first = x->pend.v[0];
		size_t kept = 0;
		for (size_t i = 0; i < x->pend.n; i++) {
			struct sj_job *j = x->pend.v[i];
			if (!same_kind(first, j)) {
				x->pend.v[kept++] = j;
				continue;
			}
			b->jobs = xrealloc(b->jobs, (b->n + 1) * sizeof(*b->jobs));
			j->b = b;
			j->idx = (unsigned)b->n;
			j->submitted = clock_real();
			b->jobs[b->n++] = j;
		}
		x->pend.n = kept;
		b->left = b->n;
		if (b->n == 1) {
			/* one instance: its tag in the name */
			struct sj_job *j = b->jobs[0];
			char *nm = j->name;
			j->name = j->label;
			j->label = nm;
		}
		batch_submit(x, b);
	}
}

/* --- the exec ------------------------------------------------------------- */

/* A job name Slurm shows as it is: [A-Za-z0-9._=-], others '_'. */
static char *
job_name(const char *name, const char *tag)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_adds(&sb, name ? name : "task");
	if (tag && *tag) {
		strbuf_addch(&sb, '.');
		strbuf_adds(&sb, tag);
	}
	for (size_t i = 0; i < sb.len; i++) {
		char c = sb.buf[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-' || c == '='))
			sb.buf[i] = '_';
	}
	if (sb.len > 120)
		strbuf_setlen(&sb, 120);
	return strbuf_detach(&sb);
}

/* The instance's script: into its cwd, its variables, its command. */
static char *
job_script(const struct exec_job *job)
{
	struct strbuf sb = STRBUF_INIT;
	if (job->cwd) {
		strbuf_adds(&sb, "cd ");
		sq_quote(&sb, job->cwd, strlen(job->cwd));
		strbuf_adds(&sb, " || exit 127\n");
	}
	for (size_t i = 0; job->env_add && job->env_add[i]; i++) {
		strbuf_adds(&sb, "export ");
		sq_quote(&sb, job->env_add[i], strlen(job->env_add[i]));
		strbuf_addch(&sb, '\n');
	}
	strbuf_adds(&sb, "exec");
	for (size_t i = 0; job->argv[i]; i++) {
		strbuf_addch(&sb, ' ');
		sq_quote(&sb, job->argv[i], strlen(job->argv[i]));
	}
	strbuf_addch(&sb, '\n');
	return strbuf_detach(&sb);
}

static char *
abs_path(const struct slurm_jobs *x, const char *p)
{
	return p[0] == '/' ? xstrdup(p) : xasprintf("%s/%s", x->workdir, p);
}

static int
sj_submit(struct exec *e, const struct exec_job *job)
{
	struct slurm_jobs *x = (struct slurm_jobs *)e;
	struct sj_job *j = xcalloc(1, sizeof(*j));
	j->task = job->task;
	j->script = job_script(job);
	j->out = abs_path(x, job->out_path);
	j->err = abs_path(x, job->err_path);
	j->name = job_name(job->name, NULL);
	j->label = job_name(job->name, job->tag);
	j->cores = job->cores > 0 ? job->cores : 1;
	j->mem_mb = job->memory > 0 ? (job->memory + (1 << 20) - 1) >> 20 : 0;
	j->log_max = job->log_max;
	if (job->timeout > 0)
		j->time = xasprintf("%ld", (long)ceil(job->timeout / 60));
	else if (x->s->time)
		j->time = xstrdup(x->s->time);
	VEC_PUSH(x->pend, j);
	e->running++;
	if (!x->flush_timer.armed)
		loop_timer_arm(x->loop, &x->flush_timer, 0, flush_due, x);
	return 0;
}

/* Cancel the jobs of task (every task when all), as wfrun's own doing. */
static void
cancel(struct slurm_jobs *x, uint32_t task, bool all)
{
	struct strvec ids = { 0 };
	VEC_PUSH(ids, NULL);
	for (size_t i = 0; i < x->batches.n; i++) {
		struct sj_batch *b = x->batches.v[i];
		for (size_t k = 0; k < b->n; k++) {
			struct sj_job *j = b->jobs[k];
			if (j->phase == SJ_ENDED || (!all && j->task != task))
				continue;
			/* wfrun's timeout of a job still waiting in the
			 * queue is Slurm's: --time counts from its start */
			if (!all && !j->running)
				continue;
			j->cancelled = true;
			if (b->id && j->phase != SJ_SUBMITTING)
				VEC_PUSH(ids, xasprintf("%s_%zu", b->id, k));
		}
	}
	scancel(x, &ids);
}

/*
 * The second signal of an interrupt (SIGKILL, KILL_GRACE after the
 * first, or a second Ctrl-C): jobs cancelled whose end Slurm has not
 * confirmed end now, killed, so that the run can end when Slurm does
 * not answer; their arrays are cancelled again at the end.
 */
static void
give_up(struct slurm_jobs *x)
{
	for (size_t i = 0; i < x->batches.n; i++) {
		struct sj_batch *b = x->batches.v[i];
		bool any = false;
		for (size_t k = 0; k < b->n; k++) {
			struct sj_job *j = b->jobs[k];
			if (j->phase == SJ_ENDED || !j->cancelled)
				continue;
			struct exec_result r;
			result_init(&r, j->task);
			r.started = j->running;
			r.wstatus = SIGKILL;
			r.start = j->seen_start ? j->seen_start : j->submitted;
			snprintf(r.error, sizeof(r.error), "cancelled; Slurm did "
				 "not say when job %s_%u ended",
				 b->id ? b->id : "-", j->idx);
			j->phase = SJ_ENDED;
			b->left--;
			x->base.running--;
			any = true;
			x->base.done(&r, x->base.arg);
		}
		if (any && b->id)
			VEC_PUSH(x->unsure, xstrdup(b->id));
	}
}

static void
sj_signal_all(struct exec *e, int sig)
{
	struct slurm_jobs *x = (struct slurm_jobs *)e;
	/* not handed to Slurm yet: they end here */
	loop_timer_cancel(x->loop, &x->flush_timer);
	while (x->pend.n) {
		struct sj_job *j = x->pend.v[--x->pend.n];
		struct exec_result r;
		result_init(&r, j->task);
		snprintf(r.error, sizeof(r.error), "stopped before it was "
			 "submitted");
		e->running--;
		job_free(j);
		e->done(&r, e->arg);
	}
	cancel(x, 0, true);
	if (sig == SIGKILL)
		give_up(x);
}

static void
sj_signal_one(struct exec *e, uint32_t task, int sig)
{
	(void)sig;
	cancel((struct slurm_jobs *)e, task, false);
}

static void
sj_stop_one(struct exec *e, uint32_t task)
{
	cancel((struct slurm_jobs *)e, task, false);
}

static void
sj_on_sigchld(struct exec *e)
{
	struct slurm_jobs *x = (struct slurm_jobs *)e;
	for (size_t i = 0; i < x->procs.n; i++)
		proc_reap(x->procs.v[i], false);
	proc_finish_all(x);
}

/* At the end: nothing of the run stays in Slurm's queue.  Blocks for
 * sbatch (whose job ids must be cancelled) and scancel, boundedly. */
static void
sj_release(struct exec *e)
{
	struct slurm_jobs *x = (struct slurm_jobs *)e;
	double wait = e->hurry ? SJ_WAIT_HURRY : SJ_WAIT;
	double until = clock_mono() + wait;
	x->releasing = true;
	struct strvec ids = { 0 };
	VEC_PUSH(ids, xstrdup("scancel"));
	for (size_t i = 0; i < x->procs.n; i++) {
		struct sj_proc *p = x->procs.v[i];
		proc_wait(p, until);
		const char *o = p->buf[0].buf ? p->buf[0].buf : "";
		size_t n = strspn(o, "0123456789");
		if (p->end == sbatch_ended && n) {
			VEC_PUSH(ids, xstrndup(o, n));
			slurm_record_job(x->record, ids.v[ids.n - 1]);
		}
		proc_free(p);
	}
	x->procs.n = 0;
	for (size_t i = 0; i < x->batches.n; i++)
		if (x->batches.v[i]->id && x->batches.v[i]->left)
			VEC_PUSH(ids, xstrdup(x->batches.v[i]->id));
	for (size_t i = 0; i < x->unsure.n; i++)
		VEC_PUSH(ids, x->unsure.v[i]);
	VEC_FREE(x->unsure);
	bool cancelled = true;
	if (ids.n > 1) {
		VEC_PUSH(ids, NULL);
		struct errbuf err;
		struct loop *l = x->loop;
		x->loop = NULL; /* waited for here, not watched */
		struct sj_proc *p = proc_start(x, ids.v, scancel_ended, NULL, &err);
		cancelled = false;
		if (p) {
			proc_wait(p, fmax(until, clock_mono() + SJ_WAIT_HURRY));
			cancelled = proc_ok(p);
			proc_free(p);
		}
		x->loop = l;
		ids.n--;
	}
	/* else the next run in the workdir cancels them */
	if (cancelled)
		unlink(x->record);
	for (size_t i = 0; i < ids.n; i++)
		free(ids.v[i]);
	VEC_FREE(ids);
	loop_timer_cancel(x->loop, &x->flush_timer);
	loop_timer_cancel(x->loop, &x->poll_timer);
	while (x->batches.n)
		batch_drop(x, x->batches.v[0]);
	for (size_t i = 0; i < x->pend.n; i++)
		job_free(x->pend.v[i]);
	VEC_FREE(x->pend);
	VEC_FREE(x->batches);
	VEC_FREE(x->procs);
	char *dir = xasprintf("%s/" SJ_DIR, x->workdir);
	unlink(x->wrapper);
	rmdir(dir);
	free(dir);
	free(x->wrapper);
	free(x->record);
	free(x->workdir);
	free(x);
}

static const struct exec_ops sj_ops = {
	sj_submit, sj_signal_all, sj_signal_one, sj_stop_one, sj_on_sigchld,
	sj_release, NULL, NULL, NULL, NULL,
};

/* The arrays' directories a killed run left in dir (their jobs were
 * cancelled before this run began: runner.c, slurm_alloc_clean). */
static void
clear_old(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.' || !strchr(e->d_name, '.'))
			continue;
		int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY |
				O_NOFOLLOW | O_CLOEXEC);
		DIR *sub = fd < 0 ? NULL : fdopendir(fd);
		struct dirent *f;
		while (sub && (f = readdir(sub)))
			if (f->d_name[0] != '.')
				unlinkat(fd, f->d_name, 0);
		if (sub) {
			closedir(sub);
			unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
		} else if (fd >= 0) {
			close(fd);
		}
	}
	if (d)
		closedir(d);
}

struct exec *
slurm_jobs_new(const struct slurm_spec *s, const char *workdir,
	       struct loop *loop, exec_done_fn done, void *arg)
{
	struct slurm_jobs *x = xcalloc(1, sizeof(*x));
	x->base.ops = &sj_ops;
	x->base.done = done;
	x->base.arg = arg;
	x->base.state = EXEC_READY;
	x->s = s;
	x->workdir = xstrdup(workdir);
	x->loop = loop;
	x->wrapper = xasprintf("%s/" SJ_DIR "/job.sh", workdir);
	x->record = xasprintf("%s/" SLURM_RECORD, workdir);
	char *dir = xasprintf("%s/" SJ_DIR, workdir);
	clear_old(dir);
	FILE *f = mkdir_p(dir, 0777) < 0 ? NULL : fopen(x->wrapper, "w");
	bool ok = f && fputs(wrapper, f) >= 0;
	if (f && fclose(f))
		ok = false;
	if (!ok) {
		x->base.state = EXEC_FAILED;
		snprintf(x->base.error, sizeof(x->base.error), "cannot write "
			 "%s: %s", x->wrapper, strerror(errno));
	}
	free(dir);
	return &x->base;
}

void
slurm_jobs_add_worker(struct cluster *c)
{
	c->workers = xrealloc(c->workers, (c->nworkers + 1) *
						  sizeof(*c->workers));
	struct worker_spec *w = &c->workers[c->nworkers++];
	memset(w, 0, sizeof(*w));
	w->name = xstrdup("slurm");
	w->host = xstrdup("slurm");
	w->shared = true;
	w->slurm_jobs = true;
	w->io_executors = c->slurm->max_jobs;
	w->line = c->slurm->line;
}
