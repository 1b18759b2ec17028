/* Unit tests of place: the decisions the runner and `wfrun sim` share —
 * most free cores first, backfilling, I/O admission under storage_bw and
 * its spread, make-way, pinned retries, locality, a lost worker's task
 * run again elsewhere, a per-job worker's slots.  The backend here only records what it is told. */
#include <limits.h>
#include <string.h>

#include "expand.h"
#include "helpers.h"
#include "place.h"
#include "tap.h"
#include "workflow.h"

static struct workflow wf;
static struct plan plan;
static struct diags dg;
static struct iopol pol;
static struct place pl;

/* What the backend was told, in order. */
static uint32_t launched[256], stopped[256];
static size_t wlaunched[256];
static size_t nlaunched, nstopped;
static long long local[2]; /* bytes of any task's inputs on worker 0, 1 */

static void
rec_launch(void *arg, uint32_t t, uint32_t name, size_t wi)
{
	launched[nlaunched] = t;
	wlaunched[nlaunched++] = wi;
}

static void
rec_stop(void *arg, uint32_t t)
{
	stopped[nstopped++] = t;
}

static long long
rec_local(void *arg, uint32_t t, size_t wi)
{
	return local[wi];
}

static void
no_event(const struct iopol_event *e, void *arg)
{
}

/* Load the workflow text; workers of cores[i] cores and 8 I/O executors,
 * each writing its own disk of bw MB/s (0: unknown). */
static void
setup(const char *yaml, size_t nw, const long *cores, double bw,
      bool staging)
{
	const char *path = write_tmp(yaml);
	memset(&wf, 0, sizeof(wf));
	diags_init(&dg, path);
	if (workflow_load(&wf, path, &dg) < 0 || dg.nerrors ||
	    plan_build(&plan, &wf, &dg, true) < 0) {
		diags_print(&dg, stderr);
		exit(99);
	}
	uint32_t ninst[8] = { 0 };
	for (size_t i = 0; i < wf.ntasks && i < 8; i++)
		ninst[i] = plan.pt[i].ninst;
	iopol_init(&pol, &wf, ninst, false, no_event, NULL);
	for (size_t i = 0; i < nw; i++) {
		char dev[16];
		snprintf(dev, sizeof(dev), "disk@w%zu", i);
		iopol_add_worker(&pol, dev, "disk", bw, cores[i], 8);
	}
	struct place_ops ops = { rec_launch, rec_stop,
				 staging ? rec_local : NULL, NULL };
	place_init(&pl, &plan, &pol, nw, false, &ops);
	for (size_t i = 0; i < nw; i++)
		place_worker_set(&pl, i, cores[i], 8);
	nlaunched = nstopped = 0;
	place_queue_ready(&pl, 0);
}

static void
teardown(void)
{
	place_release(&pl);
	iopol_release(&pol);
	plan_release(&plan);
	workflow_release(&wf);
	diags_release(&dg);
}

/* The workers of the launches so far, as digits. */
static const char *
where(void)
{
	static char s[257];
	for (size_t i = 0; i < nlaunched; i++)
		s[i] = (char)('0' + wlaunched[i]);
	s[nlaunched] = '\0';
	return s;
}

/* t ended well. */
static void
done(uint32_t t)
{
	place_end(&pl, t, 0);
	iopol_finish(&pol, plan.dag.tasks.v[t].tmpl, pl.t[t].where,
		     pl.t[t].grant, 0, 1, -1);
	place_complete(&pl, t, 1);
}

/* t failed and its back-off is over. */
static void
failed(uint32_t t)
{
	place_end(&pl, t, 0);
	iopol_finish(&pol, plan.dag.tasks.v[t].tmpl, pl.t[t].where,
		     pl.t[t].grant, 0, 1, -1);
	place_failed(&pl, t);
	pl.p->dag.tasks.v[t].state = TASK_READY;
	place_retry(&pl, t, 2);
}

static const char *const compute =
	"name: c\nworkdir: /tmp/wfrun-place-unused\ntasks:\n"
	"  - name: small\n    foreach: {i: \"1..3\"}\n"
	"    out: {o: \"s{i}\"}\n    run: \"true\"\n";

static const char *const backfill =
	"name: b\nworkdir: /tmp/wfrun-place-unused\ntasks:\n"
	"  - name: first\n    out: {o: f}\n    run: \"true\"\n"
	"  - name: big\n    cores: 4\n    out: {o: b}\n    run: \"true\"\n"
	"  - name: last\n    out: {o: l}\n    run: \"true\"\n";

static const char *const io =
	"name: i\nworkdir: /tmp/wfrun-place-unused\ntasks:\n"
	"  - name: ckpt\n    foreach: {i: \"1..10\"}\n    io: true\n"
	"    storage_bw: %s\n    out: {o: \"c{i}\"}\n    run: \"true\"\n";

static const char *const retry =
	"name: r\nworkdir: /tmp/wfrun-place-unused\ntasks:\n"
	"  - name: r\n    retries: 5\n    on_failure: retry\n"
	"    out: {o: r}\n    run: \"false\"\n";

static const char *const big_retry =
	"name: r\nworkdir: /tmp/wfrun-place-unused\ntasks:\n"
	"  - name: r\n    cores: 4\n    retries: 5\n    on_failure: retry\n"
	"    out: {o: r}\n    run: \"false\"\n";

static void
test_most_free_first(void)
{
	long cores[] = { 2, 4 };
	setup(compute, 2, cores, 0, false);
	place_dispatch(&pl, 0);
	is_str(where(), "110", "most free cores first: 4, 3, then the "
	       "first of the 2-2 tie");
	is_int((long)pl.w[1].free, 2, "each took a core of worker 1");
	is_int((long)pl.w[0].free, 1, "and one of worker 0");
	is_int((long)pl.running, 3, "three run");
	ok(plan.dag.tasks.v[launched[0]].state == TASK_RUNNING, "RUNNING");
	is_int((long)launched[0], 0, "in program order");
	is_int((long)pl.t[launched[2]].seq, 2, "the third launch");
	teardown();
}

static void
test_backfill(void)
{
	long cores[] = { 4 };
	setup(backfill, 1, cores, 0, false);
	place_dispatch(&pl, 0);
	is_int((long)nlaunched, 2, "first and last start; big waits");
	is_int((long)launched[1], 2, "last backfills before big");
	done(launched[0]);
	place_dispatch(&pl, 0);
	is_int((long)nlaunched, 2, "3 of 4 cores free: big still waits");
	done(launched[1]);
	place_dispatch(&pl, 0);
	is_int((long)nlaunched, 3, "4 free: big starts");
	is_int((long)pl.w[0].free, 0, "and takes them all");
	teardown();
}

static void
test_io_admission(void)
{
	char y[512];
	long cores[] = { 1, 1 };
	snprintf(y, sizeof(y), io, "50");
	setup(y, 2, cores, 100, false);
	place_dispatch(&pl, 0);
	is_int((long)nlaunched, 4, "storage_bw 50 of 100 MB/s: 2 per disk");
	is_str(where(), "0101", "spread: the worker running fewest first");
	is_int((long)pl.w[0].io_free, 6, "an I/O task takes an executor");
	is_int((long)pl.w[0].free, 1, "and no core");
	done(launched[1]);
	place_dispatch(&pl, 0);
	is_str(where(), "01011", "one ends on worker 1: one starts there");
	teardown();
	snprintf(y, sizeof(y), io, "25");
	setup(y, 2, cores, 100, false);
	place_dispatch(&pl, 0);
	is_int((long)nlaunched, 8, "storage_bw 25: 4 per disk");
	teardown();
}

static void
test_make_way(void)
{
	long cores[] = { 8, 8 };
	/* A climb learns on worker 0, one writer at first; worker 1 runs
	 * the name one per core meanwhile (c = 12.5, its 8 executors). */
	char big[512];
	snprintf(big, sizeof(big),
		 "name: i\nworkdir: /tmp/wfrun-place-unused\ntasks:\n"
		 "  - name: ckpt\n    foreach: {i: \"1..100\"}\n    io: true\n"
		 "    storage_bw: auto\n    out: {o: \"c{i}\"}\n"
		 "    run: \"true\"\n");
	setup(big, 2, cores, 100, false);
	place_dispatch(&pl, 0);
	size_t on[2] = { 0, 0 };
	uint32_t learner = UINT32_MAX;
	for (size_t i = 0; i < nlaunched; i++) {
		on[wlaunched[i]]++;
		if (wlaunched[i] == 0)
			learner = launched[i];
	}
	is_int((long)on[0], 1, "the climb's one writer on worker 0");
	is_int((long)on[1], 8, "the bet: 8 on worker 1");
	is_int((long)nstopped, 0, "nothing to stop yet");
	/* It wrote 30 MB in 1 s: 3 fill the disk, c = 33.3 from now on,
	 * k = 3, and 8 > 2 k run on worker 1: the 5 youngest make way. */
	place_end(&pl, learner, 0);
	iopol_finish(&pol, 0, 0, pl.t[learner].grant, 0, 1.0, 30 << 20);
	place_complete(&pl, learner, 1);
	size_t before = nlaunched;
	place_dispatch(&pl, 0);
	is_int((long)nstopped, 5, "5 stop");
	uint32_t minseq = UINT32_MAX;
	for (size_t i = 0; i < nstopped; i++) {
		ok(pl.t[stopped[i]].preempt, "marked preempt");
		ok(pl.t[stopped[i]].where == 1, "on worker 1");
		if (pl.t[stopped[i]].seq < minseq)
			minseq = pl.t[stopped[i]].seq;
	}
	size_t younger = 0;
	for (size_t i = 0; i < before; i++)
		if (wlaunched[i] == 1 && pl.t[launched[i]].seq >= minseq)
			younger++;
	is_int((long)younger, 5, "the youngest by launch order");
	/* they end, and go back to the queue */
	size_t waiting = place_waiting(&pl);
	for (size_t i = 0; i < 5; i++) {
		uint32_t t = stopped[i];
		uint32_t l = pl.t[t].launches;
		place_end(&pl, t, 0);
		place_requeue(&pl, t);
		ok(!pl.t[t].preempt && pl.t[t].launches == l + 1 &&
			   plan.dag.tasks.v[t].state == TASK_READY,
		   "requeued: ready, its attempt stale");
	}
	is_int((long)place_waiting(&pl), (long)waiting + 5, "queued again");
	teardown();
}

static void
test_pinned(void)
{
	long cores[] = { 2, 4 };
	setup(retry, 2, cores, 0, false);
	place_dispatch(&pl, 0);
	is_str(where(), "1", "first on the worker with the most free cores");
	failed(0);
	place_dispatch(&pl, 0);
	is_str(where(), "11", "first retry: the same worker");
	failed(0);
	place_dispatch(&pl, 0);
	is_str(where(), "110", "second retry: another worker");
	failed(0);
	place_dispatch(&pl, 0);
	is_str(where(), "1101", "third: another again");
	failed(0);
	/* later retries go elsewhere: while the only other is full, wait */
	pl.w[0].free = 0;
	place_dispatch(&pl, 0);
	is_str(where(), "1101", "the other worker is full: it waits");
	ok(pl.pinned.n == 1, "pinned");
	pl.w[0].free = 2;
	place_dispatch(&pl, 0);
	is_str(where(), "11010", "and starts there once it has room");
	failed(0);
	place_worker_lost(&pl, 1);
	place_dispatch(&pl, 0);
	is_str(where(), "110100", "no other usable worker: where it failed");
	teardown();

	setup(retry, 2, cores, 0, false);
	place_dispatch(&pl, 0);
	failed(0);
	place_worker_lost(&pl, 1);
	place_dispatch(&pl, 0);
	is_str(where(), "10", "its worker lost: the first retry elsewhere");
	teardown();

	/* 4 cores: only workers 1 and 2 can take it; it failed on 1, then
	 * both are lost: it waits (not on a lost worker's free cores) */
	long three[] = { 2, 4, 4 };
	setup(big_retry, 3, three, 0, false);
	place_dispatch(&pl, 0);
	is_str(where(), "1", "on worker 1");
	failed(0);
	place_worker_lost(&pl, 1);
	place_worker_lost(&pl, 2);
	place_dispatch(&pl, 0);
	is_str(where(), "1", "no usable worker can take it: it waits");
	teardown();
}

static void
test_locality(void)
{
	long cores[] = { 4, 2 };
	setup(compute, 2, cores, 0, true);
	local[0] = 0;
	local[1] = 2 << 20;
	place_dispatch(&pl, 0);
	is_str(where(), "110", "2 MiB of its inputs on worker 1: there "
	       "while it has room, then most free cores");
	teardown();
	setup(compute, 2, cores, 0, true);
	local[1] = 512 << 10;
	place_dispatch(&pl, 0);
	is_str(where(), "000", "half a MiB is not worth it: most free cores");
	teardown();
	setup(compute, 2, cores, 0, false);
	local[1] = 2 << 20;
	place_dispatch(&pl, 0);
	is_str(where(), "000", "no staging: no locality");
	teardown();
}

static void
test_lost_worker(void)
{
	long cores[] = { 1, 1 };
	setup(compute, 2, cores, 0, false);
	place_dispatch(&pl, 0);
	is_str(where(), "01", "one on each");
	uint32_t t = launched[1];
	place_worker_lost(&pl, 1);
	is_int((long)place_usable(&pl), 1, "one usable");
	place_end(&pl, t, 0);
	place_requeue(&pl, t);
	place_dispatch(&pl, 0);
	is_str(where(), "01", "nothing starts on the lost worker");
	done(launched[0]);
	place_dispatch(&pl, 0);
	is_str(where(), "010", "a core free on worker 0");
	is_int((long)launched[2], (long)t, "the lost task runs there, "
	       "before the third (program order)");
	teardown();
}

/* Workers that come during the run (Slurm nodes): none at first, then
 * one of 2 cores, then another; a node given back takes nothing more. */
static void
test_worker_add(void)
{
	setup(compute, 0, NULL, 0, false);
	place_dispatch(&pl, 0);
	is_int((long)nlaunched, 0, "no worker: nothing starts");
	is_int((long)place_waiting(&pl), 3, "three wait");
	iopol_add_worker(&pol, "disk@n1", "disk", 0, 2, 4);
	size_t a = place_worker_add(&pl);
	is_int((long)a, 0, "the first worker added");
	place_dispatch(&pl, 0);
	is_int((long)nlaunched, 0, "not usable until set");
	place_worker_set(&pl, a, 2, 4);
	place_dispatch(&pl, 0);
	is_str(where(), "00", "two start on it");
	iopol_add_worker(&pol, "disk@n2", "disk", 0, 2, 4);
	size_t b = place_worker_add(&pl);
	place_worker_set(&pl, b, 2, 4);
	place_dispatch(&pl, 0);
	is_str(where(), "001", "the third on the next one");
	done(launched[2]);
	place_worker_lost(&pl, b);
	is_int((long)place_usable(&pl), 1, "given back: one usable");
	is_int(place_most_cores(&pl), 2, "of 2 cores");
	teardown();
}

/* A per-job worker (Slurm jobs): each task takes a slot whatever its
 * cores, even more cores than the others have; a slot freed starts the
 * next. */
static void
test_per_job(void)
{
	static const char *const jobs =
		"name: j\nworkdir: /tmp/wfrun-place-unused\ntasks:\n"
		"  - name: wide\n    cores: 16\n    foreach: {i: \"1..3\"}\n"
		"    out: {o: \"w{i}\"}\n    run: \"true\"\n";
	long cores[] = { 2 };
	setup(jobs, 1, cores, 0, false);
	is_int(place_most_cores(&pl), 2, "2 cores: no 16-core task fits");
	place_dispatch(&pl, 0);
	is_int((long)nlaunched, 0, "nothing starts on 2 cores");
	teardown();
	setup(jobs, 1, cores, 0, false);
	place_worker_jobs(&pl, 0, 2);
	ok(place_most_cores(&pl) >= 16, "a per-job worker fits any task");
	place_dispatch(&pl, 0);
	is_int((long)nlaunched, 2, "two slots: two 16-core jobs");
	is_int(pl.w[0].free, 0, "a slot each, not 16 cores");
	done(launched[0]);
	place_dispatch(&pl, 0);
	is_int((long)nlaunched, 3, "a slot freed: the third starts");
	is_int(pl.w[0].free, 0, "both slots taken again");
	teardown();
}

static const char *const mem =
	"name: m\nworkdir: /tmp/wfrun-place-unused\ntasks:\n"
	"  - name: big\n    foreach: {i: \"1..2\"}\n    memory: 600M\n"
	"    out: {o: \"b{i}\"}\n    run: \"true\"\n"
	"  - name: small\n    memory: 300M\n    out: {o: s}\n"
	"    run: \"true\"\n";

/* Memory is a second dimension: a task waits for the memory it reserves,
 * a smaller one backfills, and a worker without memory is not limited. */
static void
test_memory(void)
{
	long cores[] = { 8, 8 };
	char buf[200];
	setup(mem, 1, cores, 0, false);
	place_worker_memory(&pl, 0, 1LL << 30);
	place_dispatch(&pl, 0);
	is_int((long)nlaunched, 2, "8 cores, 1 GiB: one big and the small");
	is_int((long)launched[1], 2, "the small backfills the 424 MiB left");
	is_int((long)(pl.w[0].mem_free >> 20), 124, "124 MiB left");
	done(launched[0]);
	place_dispatch(&pl, 0);
	is_int((long)nlaunched, 3, "the second big once the first ended");
	ok(!place_too_big(&pl, 0, buf, sizeof(buf)), "600 MiB fits 1 GiB");
	place_worker_memory(&pl, 0, 512LL << 20);
	ok(place_too_big(&pl, 0, buf, sizeof(buf)), "600 MiB > 512 MiB");
	is_str(buf, "task 'big' asks for 600 MiB of memory but no worker has "
	       "more than 512 MiB", "says why");
	teardown();
	setup(mem, 2, cores, 0, false);
	place_worker_memory(&pl, 0, 1LL << 30);
	place_dispatch(&pl, 0);
	is_int((long)nlaunched, 3, "a worker without memory takes any");
	is_str(where(), "010", "spread by free cores, memory permitting");
	is_int((long)(pl.w[0].mem_free >> 20), 124, "worker 0: 124 MiB left");
	ok(place_most_memory(&pl) == LLONG_MAX, "and is the most");
	ok(!strcmp(place_size(1536LL << 20, buf, sizeof(buf)), "1.5 GiB"),
	   "1.5 GiB");
	teardown();
}

static const char *const scaled =
	"name: s\nworkdir: /tmp/wfrun-place-unused\ntasks:\n"
	"  - name: first\n    out: {o: f}\n    run: \"true\"\n"
	"  - name: big\n    cores: {max: 8, min: 2}\n    out: {o: b}\n"
	"    run: \"echo {cores}\"\n"
	"  - name: later\n    foreach: {i: \"1..3\"}\n"
	"    out: {o: \"l{i}\"}\n    run: \"true\"\n";

/* A task scaled to the most cores a worker has is given them, and the
 * worker is held for it: later small tasks do not backfill past it. */
static void
test_scaled(void)
{
	long cores[] = { 4 };
	char buf[200];
	setup(scaled, 1, cores, 0, false);
	is_int(place_fit(&pl, 1, 4, false, buf, sizeof(buf)), 1,
	       "max 8 on 4 cores: scaled");
	is_str(buf, "task 'big' asks for 8 cores and is given 4, the most a "
	       "worker has", "with a warning");
	struct strbuf cmd = STRBUF_INIT;
	plan_command(&plan, 1, &cmd);
	is_str(cmd.buf, "echo 4", "{cores} is the number given");
	strbuf_release(&cmd);
	is_int(place_fit(&pl, 1, 1, false, buf, sizeof(buf)), -1,
	       "1 core is below its min");
	is_str(buf, "task 'big' needs at least 2 cores but no reachable "
	       "worker has more than 1", "says so");
	is_int(place_fit(&pl, 0, 1, false, buf, sizeof(buf)), 0,
	       "a 1-core task fits");
	place_dispatch(&pl, 0);
	is_int((long)nlaunched, 1, "first starts; the worker is held for big");
	done(launched[0]);
	place_dispatch(&pl, 0);
	is_int((long)nlaunched, 2, "then big, on all 4 cores");
	is_int((long)launched[1], 1, "big before the later ones");
	is_int(pl.w[0].free, 0, "all 4 taken");
	done(launched[1]);
	place_dispatch(&pl, 0);
	is_int((long)nlaunched, 5, "then the later ones");
	teardown();
	setup(scaled, 1, cores, 0, false);
	is_int(place_fit(&pl, 1, 8, false, buf, sizeof(buf)), 0,
	       "on 8 cores: as asked");
	place_worker_set(&pl, 0, 8, 8);
	place_dispatch(&pl, 0);
	is_int((long)nlaunched, 4, "not scaled: later ones backfill, none held");
	teardown();
}

int
main(void)
{
	test_most_free_first();
	test_backfill();
	test_io_admission();
	test_make_way();
	test_pinned();
	test_locality();
	test_lost_worker();
	test_worker_add();
	test_per_job();
	test_memory();
	test_scaled();
	return done_testing();
}
