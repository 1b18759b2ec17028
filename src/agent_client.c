/*
 * agent_client: the agent protocol's master side over a transport (see
 * agent_client.h).  Loop thread only: it holds no lock and no thread.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_client.h"
#include "loop.h"
#include "proto.h"
#include "wirepath.h"

struct rjob {
	uint32_t task;
	double sent;            /* when RUN was queued (Unix seconds) */
	bool staged;            /* SRUN: its DONE lists files */
	struct strvec outs;     /* the outputs it was asked for (copies) */
	double killed;          /* when SIGKILL was sent (clock_mono), or 0 */
};

/* Seconds an agent has to end a task it was told to SIGKILL (at most its
 * silence limit): past them it does not do its work, and is lost, so a
 * task's timeout holds though its agent is stopped or stuck. */
#define KILL_ANSWER 5.0
/* A liveness check this late (seconds) means the loop itself was held. */
#define LATE_SLACK 0.5

struct agent_client {
	struct exec base;
	const char *name, *where, *workdir;
	struct agent_link *link;        /* NULL: it never started */
	struct proto_decoder dec;
	VEC(struct rjob) jobs;          /* sent, not yet answered */
	struct strbuf line;
	struct loop *loop;              /* NULL: no liveness */
	struct agent_liveness lv;
	struct loop_timer live;         /* greeting deadline, then beats */
	double last_rx, last_tx;        /* clock_mono() */
	double live_due;                /* when the liveness check is due */
	bool warned;                    /* of a message type unknown here */
};

static void drop_agent(struct agent_client *c, enum exec_state st,
		       const char *fmt, ...) PRINTF(3, 4);

static void
enqueue(struct agent_client *c, struct strbuf *line)
{
	proto_end(line);
	if (c->link)
		c->link->ops->send(c->link, line->buf, line->len);
	c->last_tx = clock_mono();
	/* an SRUN of 100,000 links is tens of MB: not kept for the run */
	if (line->alloc > (1 << 20))
		strbuf_release(line);
	else
		strbuf_reset(line);
}

/* A path of the job as the worker names it: relative ones are under the
 * job's cwd (a shared workdir has the same path everywhere). */
static const char *
remote_path(const struct exec_job *job, const char *p, struct strbuf *tmp)
{
	if (p[0] == '/' || !job->cwd)
		return p;
	strbuf_reset(tmp);
	strbuf_addf(tmp, "%s/%s", job->cwd, p);
	return tmp->buf;
}

static int
client_submit(struct exec *e, const struct exec_job *job)
{
	struct agent_client *c = (struct agent_client *)e;
	struct strbuf *l = &c->line, tmp = STRBUF_INIT;
	strbuf_reset(l);
	if (job->log_max > 0) {
		proto_field(l, "LOGMAX", 1);
		proto_fieldf(l, "%u", job->task);
		proto_fieldf(l, "%lld", job->log_max);
		enqueue(c, l);
	}
	const struct exec_stage *st = job->stage;
	if (st) {
		proto_field(l, "SRUN", 1);
		proto_fieldf(l, "%u", job->task);
		proto_field(l, st->sandbox, 0);
		proto_field(l, st->outdir, 0);
		proto_fieldf(l, "%zu", st->nlinks);
		for (size_t i = 0; i < st->nlinks; i++) {
			proto_field(l, st->links[i].src, 0);
			proto_field(l, st->links[i].dst, 0);
			proto_field(l, st->links[i].copy ? "1" : "0", 0);
		}
		proto_fieldf(l, "%zu", st->nmkdirs);
		for (size_t i = 0; i < st->nmkdirs; i++)
			proto_field(l, st->mkdirs[i], 0);
		proto_fieldf(l, "%zu", st->nouts);
		for (size_t i = 0; i < st->nouts; i++)
			proto_field(l, st->outs[i], 0);
	} else {
		proto_field(l, "RUN", 1);
		proto_fieldf(l, "%u", job->task);
		proto_field(l, job->cwd ? job->cwd : c->workdir, 0);
	}
	proto_field(l, remote_path(job, job->out_path, &tmp), 0);
	proto_field(l, remote_path(job, job->err_path, &tmp), 0);
	size_t nenv = 0;
	/* Only the task's own additions travel: the agent's environment is
	 * the worker's. */
	for (char *const *v = job->env_add; v && *v; v++)
		nenv++;
	proto_fieldf(l, "%zu", nenv);
	for (size_t i = 0; i < nenv; i++)
		proto_field(l, job->env_add[i], 0);
	proto_field(l, job->argv[0], 0);
	for (char *const *a = job->argv; *a; a++)
		proto_field(l, *a, 0);
	enqueue(c, l);
	if (job->timeout > 0) {
		/* the agent's own deadline, a second after the master's */
		proto_field(l, "DEADLINE", 1);
		proto_fieldf(l, "%u", job->task);
		proto_fieldf(l, "%g", job->timeout + 1);
		enqueue(c, l);
	}
	strbuf_release(&tmp);
	struct rjob j = { job->task, clock_real(), st != NULL, { 0 }, 0 };
	for (size_t i = 0; st && i < st->nouts; i++)
		VEC_PUSH(j.outs, xstrdup(st->outs[i]));
	VEC_PUSH(c->jobs, j);
	e->running++;
	return 0;
}

/* The line of a message of this type to the agent, or NULL when it is
 * not ready to take one. */
static struct strbuf *
start_msg(struct exec *e, const char *type)
{
	struct agent_client *c = (struct agent_client *)e;
	if (e->state != EXEC_READY)
		return NULL;
	strbuf_reset(&c->line);
	proto_field(&c->line, type, 1);
	return &c->line;
}

static void live_arm(struct agent_client *c);

/* The master's side of a kill: the agent must answer in time.  task
 * UINT32_MAX: every job (KILLALL). */
static void
note_kill(struct agent_client *c, uint32_t task)
{
	for (size_t i = 0; i < c->jobs.n; i++)
		if ((task == UINT32_MAX || c->jobs.v[i].task == task) &&
		    !c->jobs.v[i].killed)
			c->jobs.v[i].killed = clock_mono();
	live_arm(c);
}

static void
client_signal_all(struct exec *e, int sig)
{
	struct strbuf *l = start_msg(e, "KILLALL");
	if (!l)
		return;
	proto_fieldf(l, "%d", sig);
	enqueue((struct agent_client *)e, l);
	if (sig == SIGKILL)
		note_kill((struct agent_client *)e, UINT32_MAX);
}

static void
client_signal_one(struct exec *e, uint32_t task, int sig)
{
	struct strbuf *l = start_msg(e, "KILL");
	if (!l)
		return;
	proto_fieldf(l, "%u", task);
	proto_fieldf(l, "%d", sig);
	enqueue((struct agent_client *)e, l);
	if (sig == SIGKILL)
		note_kill((struct agent_client *)e, task);
}

/* Send "TYPE task" to the agent, if it is ready. */
static void
send_task_msg(struct exec *e, const char *type, uint32_t task)
{
	struct strbuf *l = start_msg(e, type);
	if (!l)
		return;
	proto_fieldf(l, "%u", task);
	enqueue((struct agent_client *)e, l);
}

static void
client_stop_one(struct exec *e, uint32_t task)
{
	send_task_msg(e, "STOP", task);
	if (e->state == EXEC_READY)
		note_kill((struct agent_client *)e, task);
}

static void
client_ask_written(struct exec *e, uint32_t task)
{
	send_task_msg(e, "WRITTEN", task);
}

static void
rjob_release(struct rjob *j)
{
	for (size_t i = 0; i < j->outs.n; i++)
		free(j->outs.v[i]);
	VEC_FREE(j->outs);
}

static struct rjob *
find_job(struct agent_client *c, uint32_t task)
{
	for (size_t i = 0; i < c->jobs.n; i++)
		if (c->jobs.v[i].task == task)
			return &c->jobs.v[i];
	return NULL;
}

static bool
take_job(struct agent_client *c, uint32_t task)
{
	struct rjob *j = find_job(c, task);
	if (!j)
		return false;
	rjob_release(j);
	*j = c->jobs.v[--c->jobs.n];
	c->base.running--;
	return true;
}

/* The agent broke the protocol: nothing more it says is believed.  The
 * worker is lost (its jobs go back to the runner, to run elsewhere). */
static void
drop(struct agent_client *c, const char *why)
{
	drop_agent(c, c->base.state == EXEC_READY ? EXEC_LOST : EXEC_FAILED,
		   "the agent on %s broke the protocol: %s", c->where, why);
}

/* A DONE that may be believed: numbers that read, and for a staged job
 * only paths under the outputs it was asked for.  -1: err says why. */
static int
check_done(struct agent_client *c, struct proto_msg *m, uint32_t task,
	   struct errbuf *err)
{
	struct rjob *j = find_job(c, task);
	struct proto_done d;
	if (!j || proto_parse_done(m, &d, err) < 0)
		return 0; /* ignored, or the task fails (on_done) */
	if (d.staged != j->staged)
		return errprintf(err, "a %s DONE for a %s task",
				 d.staged ? "staged" : "plain",
				 j->staged ? "staged" : "plain");
	if (!d.staged)
		return 0;
	return wirepath_check_done(m->f, d.nout, d.kfile, d.nfile,
				   j->outs.v, j->outs.n, err);
}

static void ping(struct agent_client *c);

static void
on_hello(struct agent_client *c, struct proto_msg *m)
{
	struct exec *e = &c->base;
	long ver, ncpu;
	if (parse_long(m->f[1], &ver) < 0 || ver != PROTO_VERSION) {
		snprintf(e->error, sizeof(e->error), "the agent on %s speaks "
			 "protocol %s, not %d", c->where, m->f[1],
			 PROTO_VERSION);
		e->state = EXEC_FAILED;
	} else {
		e->ncpus = parse_long(m->f[3], &ncpu) ? 0 : ncpu;
		e->state = EXEC_READY;
		if (c->loop && (c->lv.beat || c->lv.lost)) {
			ping(c); /* first: the agent knows the limit at once */
			live_arm(c);
		}
	}
	e->on_state(e, e->arg);
}

/* A DONE of a job that was sent: its result to the runner. */
static void
on_done(struct agent_client *c, struct proto_msg *m, struct exec_result *r)
{
	struct exec *e = &c->base;
	struct proto_done d;
	struct errbuf err;
	if (proto_parse_done(m, &d, &err) < 0) {
		/* what became of the task is not known: it failed */
		snprintf(r->error, sizeof(r->error), "the agent on %s sent a "
			 "DONE that cannot be read: %s", c->where, err.msg);
		e->done(r, e->arg);
		return;
	}
	r->started = true;
	r->wstatus = d.wstatus;
	r->start = d.start;
	r->end = d.end;
	r->utime = d.utime;
	r->stime = d.stime;
	r->maxrss_kb = d.maxrss_kb > 0 ? d.maxrss_kb : -1; /* 0: not known */
	r->read_bytes = d.read_bytes;
	r->write_bytes = d.write_bytes;
	r->out_empty = d.out_empty;
	r->err_empty = d.err_empty;
	uint8_t *ok = NULL;
	struct exec_outfile *files = NULL;
	if (d.staged) {
		r->stage_out_s = d.stage_out_s;
		ok = xcalloc(d.nout + 1, 1);
		for (size_t i = 0; i < d.nout; i++)
			ok[i] = m->f[14 + i][0] != '-';
		r->out_ok = ok;
		r->nout_ok = d.nout;
		files = xcalloc(d.nfile + 1, sizeof(*files));
		for (size_t i = 0; i < d.nfile; i++) {
			files[i].path = m->f[d.kfile + 2 * i];
			/* checked by proto_parse_done */
			files[i].size = strtoll(m->f[d.kfile + 2 * i + 1], NULL,
						10);
			if (d.kmtime)
				files[i].mtime_ns = strtoll(m->f[d.kmtime + i],
							    NULL, 10);
		}
		r->files = files;
		r->nfiles = d.nfile;
	}
	e->done(r, e->arg);
	free(ok);
	free(files);
}

static void
on_written(struct agent_client *c, struct proto_msg *m, long id)
{
	struct exec *e = &c->base;
	char *end;
	double when = strtod(m->f[2], &end);
	long bytes;
	if (*end || !*m->f[2] || parse_long(m->f[3], &bytes) < 0)
		return; /* (a sample the learner can do without) */
	for (size_t i = 0; i < c->jobs.n; i++)
		if (c->jobs.v[i].task == (uint32_t)id && e->written)
			e->written(e, (uint32_t)id, when, bytes, e->arg);
}

static void
handle_msg(struct agent_client *c, struct proto_msg *m)
{
	struct exec *e = &c->base;
	const char *t = m->f[0];
	struct exec_result r;
	memset(&r, 0, sizeof(r));
	r.read_bytes = r.write_bytes = -1;
	long id;
	if (e->state == EXEC_CONNECTING && (strcmp(t, "HELLO") || m->n < 5)) {
		drop_agent(c, EXEC_FAILED, "the agent on %s said '%.60s' where "
			   "it should greet (HELLO)", c->where, t);
	} else if (!strcmp(t, "HELLO") && m->n >= 5) {
		/* a second one would fail a worker with jobs out, never
		 * giving them back */
		if (e->state != EXEC_CONNECTING)
			drop(c, "a second HELLO");
		else
			on_hello(c, m);
	} else if (!strcmp(t, "DONE") && m->n >= 2 &&
		   !parse_long(m->f[1], &id)) {
		r.task = (uint32_t)id;
		struct errbuf err;
		if (check_done(c, m, r.task, &err) < 0)
			drop(c, err.msg);
		else if (take_job(c, r.task))
			on_done(c, m, &r);
	} else if (!strcmp(t, "FAILED") && m->n >= 3 &&
		   !parse_long(m->f[1], &id)) {
		r.task = (uint32_t)id;
		if (!take_job(c, r.task))
			return;
		r.start = r.end = clock_real();
		snprintf(r.error, sizeof(r.error), "%s", m->f[2]);
		e->done(&r, e->arg);
	} else if (!strcmp(t, "WRITTEN") && m->n == 4 &&
		   !parse_long(m->f[1], &id)) {
		on_written(c, m, id);
	} else if (!strcmp(t, "HAS") && m->n >= 3 &&
		   !parse_long(m->f[1], &id)) {
		if (e->store_done)
			e->store_done(e, (uint64_t)id, !strcmp(m->f[2], "1"),
				      m->n > 3 ? m->f[3] : "no reason given",
				      e->xfer_arg);
	} else if (!strcmp(t, "BYE") || !strcmp(t, "PONG")) {
		/* BYE: the stream's end follows; PONG: it lives */
	} else if (!c->warned) {
		/* a newer agent may say more; once is enough */
		warning_msg("worker '%s': unexpected message '%.60s'", c->name,
			    t);
		c->warned = true;
	}
}

static int
client_transfer(struct exec *e, const struct xfer *x)
{
	struct agent_client *c = (struct agent_client *)e;
	if (e->state != EXEC_READY || !c->link->ops->transfer)
		return -1;
	return c->link->ops->transfer(c->link, x);
}

/* HAVE id dir n (PATH SIZE MTIME_NS)... */
static int
client_store_have(struct exec *e, uint64_t id, const char *dir,
		  const struct exec_outfile *files, size_t n)
{
	struct strbuf *l = start_msg(e, "HAVE");
	if (!l)
		return -1;
	proto_fieldf(l, "%" PRIu64, id);
	proto_field(l, dir, 0);
	proto_fieldf(l, "%zu", n);
	for (size_t i = 0; i < n; i++) {
		proto_field(l, files[i].path, 0);
		proto_fieldf(l, "%lld", files[i].size);
		proto_fieldf(l, "%" PRId64, files[i].mtime_ns);
	}
	enqueue((struct agent_client *)e, l);
	return 0;
}

/* PRUNE workdir RUN... */
static void
client_store_prune(struct exec *e, const char *workdir, char *const *runs,
		   size_t n)
{
	struct strbuf *l = start_msg(e, "PRUNE");
	if (!l || !n)
		return;
	proto_field(l, workdir, 0);
	for (size_t i = 0; i < n; i++)
		proto_field(l, runs[i], 0);
	enqueue((struct agent_client *)e, l);
}

void
agent_client_xfer_done(struct agent_client *c, const struct xfer_result *r)
{
	if (c->base.xfer_done)
		c->base.xfer_done(&c->base, r, c->base.xfer_arg);
}

/* Every running job of a lost worker goes back to the runner. */
static void
lose_jobs(struct agent_client *c)
{
	while (c->jobs.n) {
		rjob_release(&c->jobs.v[c->jobs.n - 1]);
		struct exec_result r;
		memset(&r, 0, sizeof(r));
		r.task = c->jobs.v[c->jobs.n - 1].task;
		r.lost = true;
		r.read_bytes = r.write_bytes = -1;
		/* its own start was lost with the worker: when it was sent */
		r.start = c->jobs.v[c->jobs.n - 1].sent;
		r.end = clock_real();
		snprintf(r.error, sizeof(r.error), "%s", c->base.error);
		c->jobs.n--;
		c->base.running--;
		c->base.done(&r, c->base.arg);
	}
}

/* Still connecting or ready: not given up. */
static bool
alive(const struct agent_client *c)
{
	return c->base.state == EXEC_CONNECTING || c->base.state == EXEC_READY;
}

static void
loop_timer_cancel_if(struct agent_client *c)
{
	if (c->loop)
		loop_timer_cancel(c->loop, &c->live);
}

/* Give the agent up: its jobs back to the runner, its connection
 * dropped without waiting for the link. */
static void
drop_agent(struct agent_client *c, enum exec_state st, const char *fmt, ...)
{
	char why[sizeof(c->base.error)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	agent_client_ended(c, st, why);
	if (c->link && c->link->ops->drop)
		c->link->ops->drop(c->link);
}

static void live_fired(void *arg);

/* A heartbeat, which tells the agent the silence limit. */
static void
ping(struct agent_client *c)
{
	strbuf_reset(&c->line);
	proto_field(&c->line, "PING", 1);
	proto_fieldf(&c->line, "%g", c->lv.lost);
	enqueue(c, &c->line);
}

/* The oldest SIGKILL not answered, or 0. */
static double
oldest_kill(const struct agent_client *c)
{
	double t = 0;
	for (size_t i = 0; i < c->jobs.n; i++)
		if (c->jobs.v[i].killed && (!t || c->jobs.v[i].killed < t))
			t = c->jobs.v[i].killed;
	return t;
}

static double
kill_answer(const struct agent_client *c)
{
	if (c->lv.kill > 0)
		return c->lv.kill;
	return c->lv.lost && c->lv.lost < KILL_ANSWER ? c->lv.lost
						       : KILL_ANSWER;
}

/* The next liveness check: the next beat due, the silence limit, or a
 * kill's answer due. */
static void
live_arm(struct agent_client *c)
{
	if (!c->loop)
		return;
	double now = clock_mono(), next = 1e9;
	if (c->lv.beat)
		next = c->last_tx + c->lv.beat - now;
	if (c->lv.lost && c->last_rx + c->lv.lost - now < next)
		next = c->last_rx + c->lv.lost - now;
	double killed = oldest_kill(c);
	if (killed && killed + kill_answer(c) - now < next)
		next = killed + kill_answer(c) - now;
	if (next < 0.01)
		next = 0.01;
	c->live_due = now + next;
	loop_timer_arm(c->loop, &c->live, next, live_fired, c);
}

static void
live_fired(void *arg)
{
	struct agent_client *c = arg;
	double now = clock_mono();
	if (c->base.state == EXEC_CONNECTING) {
		drop_agent(c, EXEC_FAILED, "the agent on %s did not greet "
			   "within %g s", c->where, c->lv.greet);
		return;
	}
	if (c->base.state != EXEC_READY)
		return;
	/* Checked late: the master's loop was held (recording a DONE of
	 * 100,000 files takes seconds), it neither read nor sent PINGs;
	 * that time is not the agent's silence. */
	if (now - c->live_due > LATE_SLACK) {
		c->last_rx += now - c->live_due;
		if (c->last_rx > now)
			c->last_rx = now;
	}
	if (c->lv.lost && now - c->last_rx >= c->lv.lost) {
		drop_agent(c, EXEC_LOST, "no word from the agent on %s for "
			   "%g s", c->where, c->lv.lost);
		return;
	}
	double killed = oldest_kill(c);
	if (killed && now - killed >= kill_answer(c) - 0.001) {
		drop_agent(c, EXEC_LOST, "the agent on %s did not end a task "
			   "within %g s of being told to kill it", c->where,
			   kill_answer(c));
		return;
	}
	if (c->lv.beat && now - c->last_tx >= c->lv.beat - 0.01)
		ping(c);
	live_arm(c);
}

void
agent_client_liveness(struct agent_client *c, struct loop *loop,
		      const struct agent_liveness *lv)
{
	c->loop = loop;
	c->lv = *lv;
}

void
agent_client_started(struct agent_client *c)
{
	c->last_rx = c->last_tx = clock_mono();
	if (c->loop && c->lv.greet > 0 && c->base.state == EXEC_CONNECTING)
		loop_timer_arm(c->loop, &c->live, c->lv.greet, live_fired, c);
}

void
agent_client_input(struct agent_client *c, const char *buf, size_t n)
{
	if (!alive(c))
		return; /* given up: what it says now is ignored */
	c->last_rx = clock_mono();
	proto_feed(&c->dec, buf, n);
	struct proto_msg m;
	struct errbuf err;
	int r;
	while (alive(c) && (r = proto_next(&c->dec, &m, &err)) != 0) {
		if (r < 0)
			drop(c, err.msg);
		else if (m.n && *m.f[0])
			handle_msg(c, &m);
	}
}

void
agent_client_ended(struct agent_client *c, enum exec_state st,
		   const char *error)
{
	struct exec *e = &c->base;
	if (!alive(c))
		return;
	loop_timer_cancel_if(c);
	/* lost before it was ever ready: it could not be reached */
	if (st == EXEC_LOST && e->state != EXEC_READY)
		st = EXEC_FAILED;
	e->state = st;
	snprintf(e->error, sizeof(e->error), "%s", error);
	lose_jobs(c);
	e->on_state(e, e->arg);
}

void
agent_client_failed(struct agent_client *c, const char *error)
{
	c->base.state = EXEC_FAILED;
	snprintf(c->base.error, sizeof(c->base.error), "%s", error);
}

static void
client_release(struct exec *e)
{
	struct agent_client *c = (struct agent_client *)e;
	if (c->link) {
		struct strbuf *l = start_msg(e, "EXIT");
		if (l)
			proto_end(l);
		c->link->ops->close(c->link, e->hurry, l ? l->buf : NULL,
				    l ? l->len : 0);
	}
	loop_timer_cancel_if(c);
	strbuf_release(&c->line);
	proto_decoder_release(&c->dec);
	for (size_t i = 0; i < c->jobs.n; i++)
		rjob_release(&c->jobs.v[i]);
	VEC_FREE(c->jobs);
	free(c);
}

static void
client_on_sigchld(struct exec *e)
{
	struct agent_client *c = (struct agent_client *)e;
	if (c->link && c->link->ops->on_sigchld)
		c->link->ops->on_sigchld(c->link);
}

static const struct exec_ops client_ops = {
	client_submit,     client_signal_all, client_signal_one,
	client_stop_one,   client_on_sigchld, client_release,
	client_transfer,   client_ask_written, client_store_have,
	client_store_prune,
};

struct agent_client *
agent_client_new(const char *name, const char *where, const char *workdir,
		 exec_done_fn done, exec_state_fn on_state, void *arg)
{
	struct agent_client *c = xcalloc(1, sizeof(*c));
	c->base.ops = &client_ops;
	c->base.done = done;
	c->base.on_state = on_state;
	c->base.arg = arg;
	c->base.state = EXEC_CONNECTING;
	c->name = name;
	c->where = where;
	c->workdir = workdir;
	strbuf_init(&c->line);
	proto_decoder_init(&c->dec);
	return c;
}

void
agent_client_attach(struct agent_client *c, struct agent_link *l)
{
	c->link = l;
}

struct exec *
agent_client_exec(struct agent_client *c)
{
	return &c->base;
}

void
agent_stderr(const char *name, struct strbuf *partial, const char *buf,
	     size_t n)
{
	strbuf_add(partial, buf, n);
	char *nl;
	while ((nl = memchr(partial->buf, '\n', partial->len))) {
		struct strbuf line = STRBUF_INIT;
		strbuf_add_visible(&line, partial->buf,
				   (size_t)(nl - partial->buf));
		fprintf(stderr, "wfrun: worker '%s': %s\n", name, line.buf);
		strbuf_release(&line);
		size_t rest = partial->len - (size_t)(nl + 1 - partial->buf);
		memmove(partial->buf, nl + 1, rest);
		strbuf_setlen(partial, rest);
	}
}
