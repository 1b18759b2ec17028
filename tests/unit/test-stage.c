/* Unit tests of stage's bookkeeping: where each datum version lives, the
 * locality score (input bytes a worker holds), what a task is linked to
 * and which transfers it takes — against fake workers that record the
 * transfers and jobs asked of them (no SFTP, no agent). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec.h"
#include "fixture.h"
#include "stage.h"
#include "tap.h"

static struct fixture fx;

/* A fake worker: what was asked of it. */
struct fake {
	struct exec ex;
	VEC(struct xfer) xfers;      /* strings copied */
	VEC(uint32_t) jobs;          /* tasks submitted */
	char links[8][256];          /* the last job's "dst<-src" */
	size_t nlinks;
	uint64_t asked;              /* the last HAVE: its id, dir, files */
	char asked_dir[256];
	size_t asked_n;
};

static int
fake_transfer(struct exec *e, const struct xfer *x)
{
	struct fake *f = (struct fake *)e;
	struct xfer c = { x->id, x->op, xstrdup(x->local), xstrdup(x->remote) };
	VEC_PUSH(f->xfers, c);
	return 0;
}

static int
fake_submit(struct exec *e, const struct exec_job *job)
{
	struct fake *f = (struct fake *)e;
	VEC_PUSH(f->jobs, job->task);
	f->nlinks = 0;
	for (size_t i = 0; i < job->stage->nlinks && i < 8; i++)
		snprintf(f->links[f->nlinks++], sizeof(f->links[0]), "%s<-%s%s",
			 job->stage->links[i].dst, job->stage->links[i].src,
			 job->stage->links[i].copy ? " (copy)" : "");
	return 0;
}

static int
fake_store_have(struct exec *e, uint64_t id, const char *dir,
		const struct exec_outfile *files, size_t n)
{
	struct fake *f = (struct fake *)e;
	(void)files;
	f->asked = id;
	snprintf(f->asked_dir, sizeof(f->asked_dir), "%s", dir);
	f->asked_n = n;
	return 0;
}

static const struct exec_ops fake_ops = { .submit = fake_submit,
					  .transfer = fake_transfer,
					  .store_have = fake_store_have };

static void
fake_release(struct fake *f)
{
	for (size_t i = 0; i < f->xfers.n; i++) {
		free((char *)f->xfers.v[i].local);
		free((char *)f->xfers.v[i].remote);
	}
	VEC_FREE(f->xfers);
	VEC_FREE(f->jobs);
}

/* Transfer i of worker f ends well, having moved bytes. */
static void
finish(struct fake *f, size_t i, long long bytes)
{
	struct xfer_result r;
	memset(&r, 0, sizeof(r));
	r.id = f->xfers.v[i].id;
	r.ok = true;
	r.bytes = bytes;
	f->ex.xfer_done(&f->ex, &r, f->ex.xfer_arg);
}

static uint32_t
task(const char *label)
{
	return fixture_task(&fx, label);
}

/* Task t ran on worker wi and left these files (path, size), every
 * output present. */
static uint32_t
ran(struct stage *st, uint32_t t, size_t wi, const struct exec_outfile *files,
    size_t nfiles)
{
	static const uint8_t all_ok[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	struct exec_result res = { .task = t, .started = true,
				   .out_ok = all_ok, .nout_ok = 8,
				   .files = files, .nfiles = nfiles };
	double in_s, out_s;
	long long bytes;
	return stage_done(st, t, wi, &res, true, &in_s, &out_s, &bytes);
}

static void
launch(struct stage *st, uint32_t t, size_t wi)
{
	char *argv[] = { "true", NULL };
	struct exec_job job;
	memset(&job, 0, sizeof(job));
	job.task = t;
	job.argv = argv;
	job.out_path = ".wfrun/log/out";
	job.err_path = ".wfrun/log/err";
	stage_launch(st, t, wi, &job);
}

/* The inputs on the master: seed.txt of 10 bytes, t.txt of 1. */
static void
inputs(void)
{
	put_file("seed.txt", "0123456789");
	put_file("t.txt", "t");
}

static int
build(void)
{
	return fixture_build(&fx,
		"tasks:\n"
		"  - name: gen\n"
		"    in: {s: seed.txt}\n"
		"    out: {o: a.txt}\n"
		"    run: \"cp {in.s} {out.o}\"\n"
		"  - name: coll\n"
		"    out: {d: {dir: d}}\n"
		"    run: \"mkdir -p {out.d}\"\n"
		"  - name: patch\n"
		"    in: {x: d/x}\n"
		"    out: {y: d/y}\n"
		"    run: \"cp {in.x} {out.y}\"\n"
		"  - name: use\n"
		"    in: {a: a.txt, d: {dir: d}, s: seed.txt}\n"
		"    inout: {t: t.txt}\n"
		"    run: \"cat {in.a} >> {inout.t}\"\n", true, inputs);
}

static void
test_versions(struct stage *st, struct fake *w)
{
	uint32_t gen = task("'gen'"), coll = task("'coll'");
	uint32_t patch = task("'patch'"), use = task("'use'");
	ok(!stage_is_staged(st, 0), "worker 0 shares the workdir");
	ok(stage_is_staged(st, 1) && stage_is_staged(st, 2),
	   "workers 1 and 2 are staged");
	is_int(stage_local_bytes(st, gen, 0), 0, "no score on a shared worker");
	is_int(stage_local_bytes(st, gen, 1), 0, "an input only the master has");

	/* gen on worker 1: seed.txt is sent there once */
	launch(st, gen, 1);
	is_int(w[1].xfers.n, 1, "one transfer for gen's input");
	ok(w[1].xfers.n && w[1].xfers.v[0].op == XFER_PUT &&
	   !strcmp(w[1].xfers.v[0].local, "seed.txt"),
	   "a PUT of seed.txt from the master");
	ok(w[1].xfers.n &&
	   strstr(w[1].xfers.v[0].remote, "/w1/.wfrun/data/") &&
	   !strcmp(strstr(w[1].xfers.v[0].remote, "/in/"), "/in/seed.txt"),
	   "to the worker's store of version 0: %s",
	   w[1].xfers.n ? w[1].xfers.v[0].remote : "");
	is_int(w[1].jobs.n, 0, "the task waits for its input");
	is_int(stage_local_bytes(st, gen, 1), 10,
	   "an input on its way counts as held");
	finish(&w[1], 0, 10);
	is_int(w[1].jobs.n, 1, "submitted once its input is there");
	ok(w[1].nlinks == 1 && !strncmp(w[1].links[0], "seed.txt<-/w1/", 14),
	   "seed.txt linked into its sandbox: %s", w[1].links[0]);

	/* its output, version gen+1 of a.txt, lives on worker 1 */
	struct exec_outfile a_out[] = { { "a.txt", 1000, 0 } };
	is_int(ran(st, gen, 1, a_out, 1), DAG_NONE, "gen made all its outputs");
	/* (an empty directory is reported with size -1: made, never sent) */
	struct exec_outfile d_out[] = { { "d/x", 100, 0 }, { "d/y", 200, 0 },
					{ "d/z", 0, 0 }, { "d/e", -1, 0 } };
	is_int(ran(st, coll, 2, d_out, 4), DAG_NONE, "coll ran on worker 2");
	struct exec_outfile y_out[] = { { "d/y", 3000, 0 } };
	is_int(ran(st, patch, 1, y_out, 1), DAG_NONE, "patch ran on worker 1");

	/* use reads a.txt (gen's, on 1), d (coll's on 2, but d/y is
	 * patch's newer version, on 1) and seed.txt (on 1 since gen) */
	is_int(stage_local_bytes(st, use, 1), 1000 + 3000 + 10,
	       "worker 1: a.txt, the newer d/y and seed.txt");
	is_int(stage_local_bytes(st, use, 2), 100,
	       "worker 2: d/x only (its d/y is older; d/z and d/e empty)");
	is_int(stage_local_bytes(st, use, 0), 0, "worker 0: none");

	/* use on worker 1: what only worker 2 holds is relayed through
	 * the master, t.txt (an input it updates) comes from the master,
	 * seed.txt (there since gen) is not sent again */
	size_t x1 = w[1].xfers.n;
	launch(st, use, 1);
	is_int(w[2].xfers.n, 2, "worker 2 sends d/x and d/z to the master");
	ok(w[2].xfers.n == 2 && w[2].xfers.v[0].op == XFER_GET &&
	   !strncmp(w[2].xfers.v[0].local, ".wfrun/relay/", 13),
	   "into the relay: %s", w[2].xfers.n ? w[2].xfers.v[0].local : "");
	is_int(w[1].xfers.n - x1, 1, "one PUT at once: t.txt from the master");
	ok(!strcmp(w[1].xfers.v[x1].local, "t.txt"), "t.txt");
	finish(&w[2], 0, 100);
	finish(&w[2], 1, 0);
	is_int(w[1].xfers.n - x1, 3, "then the two relayed files");
	ok(!strncmp(w[1].xfers.v[x1 + 1].local, ".wfrun/relay/", 13),
	   "from the relay");
	for (size_t i = x1; i < w[1].xfers.n; i++) {
		is_int(w[1].jobs.n, 1, "use waits for transfer %zu", i - x1 + 1);
		finish(&w[1], i, 1);
	}
	is_int(w[1].jobs.n, 2, "use is submitted on worker 1");
	is_int(w[1].nlinks, 6, "six files linked into its sandbox");
	char got[1024] = "";
	for (size_t i = 0; i < w[1].nlinks; i++) {
		char *l = w[1].links[i];
		/* "dst<-/w1/.wfrun/data/RUN/VER/dst": keep dst, VER, copy */
		char *ver = strstr(l, "/.wfrun/data/");
		ver = ver ? strchr(ver + 13, '/') : NULL;
		size_t dl = (size_t)(strstr(l, "<-") - l);
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%.*s:%.*s%s ",
			 (int)dl, l, ver ? (int)strcspn(ver + 1, "/") : 0,
			 ver ? ver + 1 : "", strstr(l, "(copy)") ? "(copy)" : "");
	}
	char want[256];
	snprintf(want, sizeof(want),
		 "a.txt:t%u d/x:t%u d/y:t%u d/z:t%u seed.txt:in t.txt:in(copy) ",
		 gen + 1, coll + 1, patch + 1, coll + 1);
	is_str(got, want, "each file of the version it reads, t.txt copied");
	is_int(stage_local_bytes(st, use, 1), 1000 + 100 + 3000 + 10 + 1,
	       "worker 1 now holds every input of use");

	/* worker 2 is lost: what it held is gone */
	w[2].ex.state = EXEC_LOST;
	stage_worker_lost(st, 2);
	is_int(stage_local_bytes(st, use, 2), 0, "a lost worker holds nothing");
	is_int(stage_local_bytes(st, use, 1), 4111, "the others keep theirs");
}

static void
test_missing_output(struct stage *st)
{
	uint32_t gen = task("'gen'");
	static const uint8_t none_ok[1] = { 0 };
	struct exec_result res;
	memset(&res, 0, sizeof(res));
	res.started = true;
	res.out_ok = none_ok;
	res.nout_ok = 1;
	double in_s, out_s;
	long long bytes;
	uint32_t m = stage_done(st, gen, 1, &res, true, &in_s, &out_s, &bytes);
	const struct dag_task *dt = &fx.pl.dag.tasks.v[gen];
	ok(m != DAG_NONE && m < dt->nacc &&
	   !strcmp(fx.pl.dag.data.v[fx.pl.dag.acc.v[dt->acc + m].datum].path, "a.txt"),
	   "an exit 0 without its output names that output");
	is_int(stage_done(st, gen, 1, &res, false, &in_s, &out_s, &bytes),
	       DAG_NONE, "a failed task's missing output is not reported");
}

/* A task's outputs recorded in its worker's store (stage_store) are
 * asked about by a later run's stage, and once held, taken from there. */
static void
test_stores(struct stage *st, struct fake *w)
{
	uint32_t gen = task("'gen'"), use = task("'use'");
	struct exec_outfile a_out[] = { { "a.txt", 1000, 11 } };
	is_int(ran(st, gen, 1, a_out, 1), DAG_NONE, "gen ran on worker 1");
	struct jstore js;
	ok(stage_store(st, gen, &js), "its store record");
	ok(!strcmp(js.worker, "w1") && js.nf == 1 &&
		   !strcmp(js.f[0].path, "a.txt") && js.f[0].size == 1000 &&
		   js.f[0].mtime_ns == 11,
	   "its worker, file, size and mtime");
	char dir[256];
	snprintf(dir, sizeof(dir), "%s", js.dir);
	ok(!strncmp(dir, "/w1/.wfrun/data/", 16) &&
		   !strcmp(dir + strlen(dir) - 3, "/t1") &&
		   strstr(dir, js.run),
	   "the task's directory of this run's store: %s", dir);
	struct jsfile jf = { "a.txt", 1000, 11 };
	struct jstore rec = { "w1", "R", dir, &jf, 1 };
	free(js.f);

	/* the next run */
	struct stage *st2 = stage_new(&fx.pl, 3);
	for (int i = 1; i < 3; i++)
		stage_add_worker(st2, (size_t)i, &w[i].ex, i == 1 ? "w1" : "w2",
				 i == 1 ? "/w1" : "/w2");
	stage_store_ask(st2, gen, &rec);
	ok(stage_asking(st2) && w[1].asked == gen && w[1].asked_n == 1 &&
		   !strcmp(w[1].asked_dir, dir),
	   "worker 1 asked about gen's store");
	w[1].ex.store_done(&w[1].ex, gen, true, "", w[1].ex.xfer_arg);
	ok(!stage_asking(st2) && stage_store_held(st2, gen), "it holds it");
	struct jstore away = { "w9", "R", dir, &jf, 1 };
	stage_store_ask(st2, use, &away);
	ok(!stage_asking(st2) && !stage_store_held(st2, use),
	   "a worker not in the run holds nothing");
	stage_adopt(st2, gen, &rec);
	is_int(stage_local_bytes(st2, use, 1), 1000,
	       "gen's output counts as on worker 1");
	size_t jobs = w[1].jobs.n, x0 = w[1].xfers.n;
	launch(st2, use, 1);
	is_int(w[1].xfers.n - x0, 2, "seed.txt and t.txt sent, a.txt not");
	for (size_t i = x0; i < w[1].xfers.n; i++)
		finish(&w[1], i, 1);
	is_int(w[1].jobs.n, jobs + 1, "use submitted on worker 1");
	char want[300];
	snprintf(want, sizeof(want), "a.txt<-%s/a.txt", dir);
	int linked = 0;
	for (size_t i = 0; i < w[1].nlinks; i++)
		linked |= !strcmp(w[1].links[i], want);
	ok(linked, "a.txt linked from the earlier run's store");
	stage_store_ask(st2, use, &rec);
	ok(stage_asking(st2), "asked again");
	stage_worker_lost(st2, 1);
	ok(!stage_asking(st2) && !stage_store_held(st2, use),
	   "a worker lost before it answers holds nothing");
	stage_free(st2);
}

int
main(void)
{
	if (build() < 0) {
		ok(0, "the plan builds");
		return done_testing();
	}
	struct fake w[3];
	memset(w, 0, sizeof(w));
	struct stage *st = stage_new(&fx.pl, 3);
	for (int i = 1; i < 3; i++) {
		w[i].ex.ops = &fake_ops;
		w[i].ex.state = EXEC_READY;
		stage_add_worker(st, (size_t)i, &w[i].ex, i == 1 ? "w1" : "w2",
				 i == 1 ? "/w1" : "/w2");
	}
	test_versions(st, w);
	test_missing_output(st);
	stage_free(st);
	st = stage_new(&fx.pl, 3);
	for (int i = 1; i < 3; i++)
		stage_add_worker(st, (size_t)i, &w[i].ex, i == 1 ? "w1" : "w2",
				 i == 1 ? "/w1" : "/w2");
	test_stores(st, w);
	stage_free(st);
	for (int i = 1; i < 3; i++)
		fake_release(&w[i]);
	fixture_release(&fx);
	return done_testing();
}
