/*
 * The agent client over its second transport: wfrun-worker as a child
 * process on pipes (exec_pipe_new), as `srun ... wfrun-worker` will run
 * it.  A small workflow's tasks run through it in dependency order, with
 * a trace written from the results; then a failing task, one that cannot
 * start, one signalled while it runs (with its written bytes asked), an
 * agent that never says HELLO, and an agent lost with a task running.
 */
#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent_client.h"
#include "dag.h"
#include "exec.h"
#include "expand.h"
#include "helpers.h"
#include "loop.h"
#include "tap.h"
#include "trace.h"
#include "workflow.h"

#define MAXT 16

static struct loop lp;
static struct exec *ex;
static struct plan pl;
static struct trace tr;
static struct exec_result res[MAXT];
static bool have[MAXT];
static size_t ndone, nstate;
static long long written = -2;
static bool timed_out;
static char worker[4096];
static bool in_workflow;        /* on_done follows the plan's dag */

static void
on_signal(int signo, void *arg)
{
	if (signo == SIGCHLD && ex)
		ex->ops->on_sigchld(ex);
}

static void
on_timeout(void *arg)
{
	timed_out = true;
}

static void
on_state(struct exec *e, void *arg)
{
	nstate++;
}

static void
on_written(struct exec *e, uint32_t task, double when, long long bytes,
	   void *arg)
{
	written = bytes;
}

/* Submit task t of the plan: its shell command, logs beside the trace. */
static void
submit_task(uint32_t t)
{
	struct strbuf cmd = STRBUF_INIT, out = STRBUF_INIT, err = STRBUF_INIT;
	plan_command(&pl, t, &cmd);
	strbuf_addf(&out, "%s/t%u.out", pl.wf->workdir, t);
	strbuf_addf(&err, "%s/t%u.err", pl.wf->workdir, t);
	char *argv[] = { "/bin/sh", "-c", cmd.buf, NULL };
	struct exec_job job = { .task = t, .argv = argv, .out_path = out.buf,
				.err_path = err.buf };
	ok(ex->ops->submit(ex, &job) == 0, "task %u submitted", t);
	strbuf_release(&cmd);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void
on_done(const struct exec_result *r, void *arg)
{
	if (r->task >= MAXT)
		return;
	res[r->task] = *r;
	have[r->task] = true;
	ndone++;
	if (!in_workflow || r->task >= pl.dag.tasks.n)
		return;
	bool good = r->started && WIFEXITED(r->wstatus) &&
		    !WEXITSTATUS(r->wstatus);
	struct strbuf name = STRBUF_INIT;
	plan_label(&pl, r->task, &name);
	struct trace_row row = {
		.task_id = r->task, .name = name.buf, .tag = "",
		.worker = "pipe", .kind = "compute", .cores = 1,
		.status = good ? "COMPLETED" : "FAILED",
		.exit_code = r->started && WIFEXITED(r->wstatus)
				     ? WEXITSTATUS(r->wstatus) : -1,
		.attempt = 1, .submit = r->start, .start = r->start,
		.complete = r->end, .cpu_user = r->utime, .cpu_sys = r->stime,
		.peak_rss_kb = r->maxrss_kb, .read_bytes = r->read_bytes,
		.write_bytes = r->write_bytes, .stage_in_s = -1,
		.stage_out_s = -1, .bytes_staged = -1,
	};
	trace_write(&tr, &row);
	strbuf_release(&name);
	if (!good)
		return;
	uint32_t *ready = NULL;
	size_t nready = 0, alloc = 0;
	dag_complete(&pl.dag, r->task, &ready, &nready, &alloc);
	for (size_t i = 0; i < nready; i++)
		submit_task(ready[i]);
	free(ready);
}

/* Run the loop until cond holds or 30 s have passed. */
#define RUN_UNTIL(cond)                                                      \
	do {                                                                 \
		struct loop_timer tm = { 0 };                                \
		timed_out = false;                                           \
		loop_timer_arm(&lp, &tm, 30, on_timeout, NULL);              \
		while (!(cond) && !timed_out)                                \
			loop_run_once(&lp);                                  \
		loop_timer_cancel(&lp, &tm);                                 \
	} while (0)

static struct exec *
start_live(char *const *argv, const char *workdir,
	   const struct agent_liveness *lv)
{
	nstate = 0;
	ex = exec_pipe_new(argv, "pipe", "localhost", workdir, lv, &lp,
			   on_done, on_state, NULL);
	ex->written = on_written;
	RUN_UNTIL(ex->state != EXEC_CONNECTING);
	return ex;
}

static struct exec *
start(char *const *argv, const char *workdir)
{
	return start_live(argv, workdir, NULL);
}

static void
stop(void)
{
	ex->ops->release(ex);
	exec_pipe_finish();
	ex = NULL;
}

static char *
slurp(const char *dir, const char *name)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *fp = fopen(path, "r");
	if (!fp)
		return xstrdup("(missing)");
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(fp);
	return strbuf_detach(&sb);
}

/* Field col (0-based) of line row (0: the header) of a TSV text. */
static char *
tsv_field(const char *text, int row, int col)
{
	const char *p = text;
	for (int i = 0; i < row && p; i++)
		p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
	for (int i = 0; i < col && p; i++) {
		const char *tab = strpbrk(p, "\t\n");
		p = tab && *tab == '\t' ? tab + 1 : NULL;
	}
	if (!p)
		return xstrdup("");
	return xstrndup(p, strcspn(p, "\t\n"));
}

static const char wf_text[] =
	"tasks:\n"
	"  - name: gen\n"
	"    foreach: {i: \"1..3\"}\n"
	"    out: {o: \"part{i}.txt\"}\n"
	"    run: \"sleep 0.{i}; echo part {i} > {out.o}\"\n"
	"  - name: join\n"
	"    in: {all: {list: \"part{i}.txt\", foreach: {i: \"1..3\"}}}\n"
	"    out: {o: all.txt}\n"
	"    run: \"cat {in.all} > {out.o}\"\n"
	"  - name: count\n"
	"    in: {a: all.txt}\n"
	"    out: {o: n.txt}\n"
	"    run: \"wc -l < {in.a} > {out.o}\"\n";

/* The workflow, through the agent, in dependency order. */
static void
test_workflow(void)
{
	struct workflow wf;
	struct diags dg;
	const char *path = write_tmp(wf_text);
	diags_init(&dg, path);
	if (workflow_load(&wf, path, &dg) < 0 ||
	    plan_build(&pl, &wf, &dg, true))
		BUG("the test's workflow does not build");
	const char *dir = wf.workdir;
	in_workflow = true;
	char *argv[] = { worker, NULL };
	start(argv, dir);
	is_int(ex->state, EXEC_READY, "the agent said HELLO");
	ok(ex->ncpus > 0, "it reported its CPUs (%ld)", ex->ncpus);
	is_int(nstate, 1, "on_state once");

	char tpath[4200];
	snprintf(tpath, sizeof(tpath), "%s/trace.tsv", dir);
	struct errbuf err;
	is_int(trace_open(&tr, tpath, &err), 0, "trace opened");
	size_t ntasks = pl.dag.tasks.n;
	is_int(ntasks, 5, "5 tasks");
	for (uint32_t t = 0; t < ntasks; t++)
		if (!pl.dag.tasks.v[t].waiting)
			submit_task(t);
	RUN_UNTIL(ndone == ntasks);
	ok(!timed_out, "every task answered");
	is_int(ex->running, 0, "nothing left running");
	is_int(trace_close(&tr, &err), 0, "trace closed");

	char *all = slurp(dir, "all.txt"), *n = slurp(dir, "n.txt");
	is_str(all, "part 1\npart 2\npart 3\n", "join ran after every gen");
	is_str(n, "3\n", "count ran after join");
	free(all);
	free(n);
	for (uint32_t t = 0; t < ntasks; t++) {
		ok(have[t] && res[t].started && !res[t].lost &&
			   WIFEXITED(res[t].wstatus) && !res[t].wstatus,
		   "task %u exited 0", t);
		ok(res[t].end >= res[t].start && res[t].start > 1e9,
		   "task %u: measured start and end", t);
	}
	/* gen 3 sleeps longest; join starts after it ends, count after join */
	ok(res[3].start >= res[2].end, "join started after the last gen ended");
	ok(res[4].start >= res[3].end, "count started after join ended");
	ok(res[2].end - res[2].start >= 0.25, "gen 3 took its 0.3 s");

	char *text = slurp(dir, "trace.tsv");
	char *h = tsv_field(text, 0, 8);
	is_str(h, "status", "trace: header");
	free(h);
	int rows = 0;
	for (const char *p = text; (p = strchr(p, '\n')); p++)
		rows++;
	is_int(rows, 6, "trace: header and one row per task");
	for (int r = 1; r <= 5; r++) {
		char *name = tsv_field(text, r, 1), *st = tsv_field(text, r, 8);
		char *ex_code = tsv_field(text, r, 9);
		char *w = tsv_field(text, r, 3);
		ok(!strcmp(st, "COMPLETED") && !strcmp(ex_code, "0") &&
			   !strcmp(w, "pipe"),
		   "trace row %d (%s): COMPLETED, exit 0, worker pipe", r,
		   name);
		free(name);
		free(st);
		free(ex_code);
		free(w);
	}
	char *last = tsv_field(text, 5, 1);
	is_str(last, "'count'", "trace: count's row is the last");
	free(last);
	free(text);
	stop();
	ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD,
	   "release reaped the agent");
	in_workflow = false;
	plan_release(&pl);
	workflow_release(&wf);
	diags_release(&dg);
}

static void
submit_argv(uint32_t t, char **argv, const char *dir)
{
	char out[4200], errp[4200];
	snprintf(out, sizeof(out), "%s/x%u.out", dir, t);
	snprintf(errp, sizeof(errp), "%s/x%u.err", dir, t);
	struct exec_job job = { .task = t, .argv = argv, .out_path = out,
				.err_path = errp };
	ex->ops->submit(ex, &job);
}

/* Failures of tasks, and a task signalled while it runs. */
static void
test_failures(const char *dir)
{
	char *argv[] = { worker, NULL };
	start(argv, dir);
	memset(have, 0, sizeof(have));
	ndone = 0;
	char *fail3[] = { "/bin/sh", "-c", "exit 3", NULL };
	char *nope[] = { "/nonexistent/wfrun-unit-prog", NULL };
	char *slow[] = { "/bin/sh", "-c",
			 "sleep 30", NULL };
	submit_argv(0, fail3, dir);
	submit_argv(1, nope, dir);
	submit_argv(2, slow, dir);
	RUN_UNTIL(ndone == 2);
	ok(have[0] && res[0].started && WIFEXITED(res[0].wstatus) &&
		   WEXITSTATUS(res[0].wstatus) == 3, "exit 3 comes back as 3");
	ok(have[1] && !res[1].started && res[1].error[0],
	   "a program that cannot start: not started, why: %s", res[1].error);
	is_int(ex->running, 1, "the slow one runs");
	usleep(300000);
	ex->ops->ask_written(ex, 2);
	RUN_UNTIL(written != -2);
	ok(written >= -1, "WRITTEN answered for the running task (%lld)",
	   written);
	ex->ops->signal_one(ex, 2, SIGTERM);
	RUN_UNTIL(ndone == 3);
	ok(have[2] && WIFSIGNALED(res[2].wstatus) &&
		   WTERMSIG(res[2].wstatus) == SIGTERM,
	   "KILL: the task ended by SIGTERM");
	stop();
}

/* Agents that end: before HELLO, and with a task running. */
static void
test_ends(const char *dir)
{
	char *mute[] = { "/bin/sh", "-c", "echo not an agent >&2; exit 7",
			 NULL };
	start(mute, dir);
	is_int(ex->state, EXEC_FAILED, "no HELLO: the worker failed");
	is_str(ex->error, "the agent on localhost exited with status 7",
	       "and says how the agent ended");
	stop();

	char *missing[] = { "/nonexistent/wfrun-worker", NULL };
	ex = exec_pipe_new(missing, "pipe", "localhost", dir, NULL, &lp,
			   on_done, on_state, NULL);
	is_int(ex->state, EXEC_FAILED, "an agent that cannot start: failed");
	ok(strstr(ex->error, "cannot start the agent") != NULL, "why: %s",
	   ex->error);
	stop();

	char *argv[] = { worker, NULL };
	start(argv, dir);
	memset(have, 0, sizeof(have));
	ndone = 0;
	/* the task's parent is the agent */
	char *slow[] = { "/bin/sh", "-c", "sleep 1", NULL };
	char *killer[] = { "/bin/sh", "-c", "kill -9 $PPID; sleep 1", NULL };
	submit_argv(5, slow, dir);
	submit_argv(6, killer, dir);
	RUN_UNTIL(ex->state != EXEC_READY);
	is_int(ex->state, EXEC_LOST, "the agent killed: the worker is lost");
	is_str(ex->error, "the agent on localhost was killed by signal 9",
	       "and says how");
	ok(have[5] && res[5].lost && have[6] && res[6].lost,
	   "its running tasks come back lost");
	is_int(ex->running, 0, "none is left running");
	stop();
}

/* Agents deaf to SIGTERM whose output outlives them (an srun that
 * cannot reach slurmctld): released together, in a hurry, both are
 * killed with their process groups and reaped; the wait for them was
 * a waitpid that blocked as long as they lived. */
static void
test_deaf(const char *dir)
{
	char *argv[] = { "/bin/sh", "-c",
			 "trap '' TERM; \"$0\"; exec sleep 614", worker, NULL };
	struct exec *a = start(argv, dir);
	struct exec *b = start(argv, dir);
	ok(a->state == EXEC_READY && b->state == EXEC_READY,
	   "two agents deaf to SIGTERM are ready");
	a->hurry = b->hurry = true;
	a->ops->release(a);
	b->ops->release(b);
	ex = NULL;
	ok(waitpid(-1, NULL, WNOHANG) == 0, "release does not wait for them");
	double t0 = clock_mono();
	exec_pipe_finish();
	printf("# exec_pipe_finish took %.2f s\n", clock_mono() - t0);
	ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD,
	   "exec_pipe_finish: both killed and reaped");
	FILE *ps = popen("pgrep -x -f 'sleep 614'", "r");
	char line[64];
	ok(ps && !fgets(line, sizeof(line), ps), "no sleep 614 left");
	if (ps)
		pclose(ps);
}

/* Liveness (issue 24, defects 7 and 9): a greeting deadline, an agent
 * that speaks no protocol, and one that stops with a task running. */
static void
test_liveness(const char *dir)
{
	struct agent_liveness lv = { 0.5, 0.2, 1, 0 };
	char *mute[] = { "/bin/sh", "-c", "exec sleep 30", NULL };
	double t0 = clock_mono();
	start_live(mute, dir, &lv);
	is_int(ex->state, EXEC_FAILED, "no HELLO in 0.5 s: the worker failed");
	ok(clock_mono() - t0 < 5, "at its deadline (%.1f s)", clock_mono() - t0);
	is_str(ex->error, "the agent on localhost did not greet within 0.5 s",
	       "and says why");
	stop();

	char *babble[] = { "/bin/sh", "-c",
			   "while :; do echo 'Welcome!'; done", NULL };
	start_live(babble, dir, &lv);
	is_int(ex->state, EXEC_FAILED, "a babbling agent failed");
	is_str(ex->error, "the agent on localhost said 'Welcome!' where it "
	       "should greet (HELLO)", "at its first line");
	stop();

	char *argv[] = { worker, NULL };
	start_live(argv, dir, &lv);
	is_int(ex->state, EXEC_READY, "a live agent is ready");
	memset(have, 0, sizeof(have));
	ndone = 0;
	char *nap[] = { "/bin/sh", "-c", "sleep 1.5; echo hi", NULL };
	submit_argv(7, nap, dir);
	RUN_UNTIL(ndone == 1);
	ok(have[7] && !res[7].lost && ex->state == EXEC_READY,
	   "heartbeats keep a quiet agent alive past its limit");
	/* the task's parent is the agent: it stops it */
	char *stopper[] = { "/bin/sh", "-c", "kill -STOP $PPID; sleep 30",
			    NULL };
	submit_argv(8, stopper, dir);
	t0 = clock_mono();
	RUN_UNTIL(ex->state != EXEC_READY);
	is_int(ex->state, EXEC_LOST, "a stopped agent: the worker is lost");
	ok(clock_mono() - t0 < 5, "within its limit (%.1f s)",
	   clock_mono() - t0);
	is_str(ex->error, "no word from the agent on localhost for 1 s",
	       "and says why");
	ok(have[8] && res[8].lost, "its task comes back lost");
	stop();

	/* no silence limit: a kill of every task not answered in time */
	struct agent_liveness lk = { 5, 0, 0, 0.5 };
	start_live(argv, dir, &lk);
	memset(have, 0, sizeof(have));
	submit_argv(9, stopper, dir);
	/* a while for the task to stop its agent */
	struct loop_timer pause = { 0 };
	timed_out = false;
	loop_timer_arm(&lp, &pause, 0.3, on_timeout, NULL);
	while (!timed_out)
		loop_run_once(&lp);
	ex->ops->signal_all(ex, SIGKILL);
	t0 = clock_mono();
	RUN_UNTIL(ex->state != EXEC_READY);
	is_str(ex->error, "the agent on localhost did not end a task within "
	       "0.5 s of being told to kill it", "KILLALL 9 unanswered: lost");
	ok(clock_mono() - t0 < 3 && have[9] && res[9].lost,
	   "at once, its task back (%.1f s)", clock_mono() - t0);
	stop();
}

int
main(int argc, char **argv)
{
	char *self = xstrdup(argv[0]);
	snprintf(worker, sizeof(worker), "%s/../wfrun-worker", dirname(self));
	free(self);
	if (access(worker, X_OK))
		BUG("no agent at %s (make all)", worker);
	if (loop_init(&lp, on_signal, NULL) < 0)
		BUG("loop_init: %s", strerror(errno));
	test_workflow();
	char dir[] = "/tmp/wfrun-unit-XXXXXX";
	if (!mkdtemp(dir))
		BUG("mkdtemp: %s", strerror(errno));
	test_failures(dir);
	test_ends(dir);
	test_liveness(dir);
	test_deaf(dir);
	char cmd[100];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", dir);
	loop_release(&lp);
	return done_testing();
}
