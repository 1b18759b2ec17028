/* Unit tests of iopol: storage-bandwidth reservations per device, the
 * active learning node, early stop, re-evaluation and kept registries. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iopol.h"
#include "tap.h"

static char evlog[8192];

static void
on_event(const struct iopol_event *e, void *arg)
{
	size_t n = strlen(evlog);
	if (!strcmp(e->ev, "epoch_end"))
		snprintf(evlog + n, sizeof(evlog) - n, "end%d(%g,%ld,%ld,%s) ",
			 e->epoch, e->c, e->k, e->tasks,
			 e->registered ? "reg" : "no");
	else if (!strcmp(e->ev, "epoch_begin"))
		snprintf(evlog + n, sizeof(evlog) - n, "begin%d(%g,%ld) ",
			 e->epoch, e->c, e->k);
	else if (!strcmp(e->ev, "rate"))
		snprintf(evlog + n, sizeof(evlog) - n, "rate%d(%g,%ld) ",
			 e->epoch, e->mbps, e->fill);
	else if (!strcmp(e->ev, "preempt"))
		snprintf(evlog + n, sizeof(evlog) - n, "preempt@%s(%g,%ld,%ld) ",
			 e->device, e->c, e->k, e->tasks);
	else
		snprintf(evlog + n, sizeof(evlog) - n, "%s(%g,%s) ", e->ev,
			 e->c, e->why);
}

/* Cores of each worker setup adds. */
static long cores = 2;

static struct wf_task tasks[3];
static struct workflow wf = { .tasks = tasks, .ntasks = 3 };

/* The workflow's tasks: ckpt under bw, copy (I/O, unconstrained) and
 * work (compute). */
static void
set_tasks(struct wf_bw bw)
{
	memset(tasks, 0, sizeof(tasks));
	tasks[0].name = "ckpt";
	tasks[0].io = true;
	tasks[0].storage_bw = bw;
	tasks[1].name = "copy";
	tasks[1].io = true;
	tasks[2].name = "work";
	tasks[2].cores = 1;
}

static void
setup(struct iopol *p, struct wf_bw bw, uint32_t n)
{
	set_tasks(bw);
	uint32_t ninst[3] = { n, 10, 10 };
	evlog[0] = '\0';
	iopol_init(p, &wf, ninst, false, on_event, NULL);
	p->paper = true; /* the paper's way, unless a test says climb */
	iopol_add_worker(p, "disk@w1", "disk", 100, cores, 8);
	iopol_add_worker(p, "disk@w2", "disk", 100, cores, 8);
}

/* Start every task of name 0 that may start on worker 0; return how many. */
static long
fill(struct iopol *p, struct iopol_grant *g, long ready)
{
	long n = 0;
	while (iopol_may_start(p, 0, 0))
		g[n] = iopol_start(p, 0, 0, ready - n), n++;
	return n;
}

/* Write line into a new temporary file named from the template reg. */
static bool
reg_file(char *reg, const char *line)
{
	int fd = mkstemp(reg);
	bool ok = fd >= 0 && write(fd, line, strlen(line)) ==
				    (ssize_t)strlen(line);
	if (fd >= 0)
		close(fd);
	return ok;
}

/* Set up n tasks of an auto name that climbs (the default) and start
 * its first epoch; return how many started (1). */
static long
climb(struct iopol *p, struct iopol_grant *g, uint32_t n)
{
	setup(p, (struct wf_bw){ WF_BW_AUTO, 0, 0, 0, 0 }, n);
	p->paper = false;
	return fill(p, g, n);
}

/* n tasks of an auto name that climbs, on one worker of cores (a 200
 * MB/s disk, 16 I/O executors), from the kept registry line written to
 * reg (a mkstemp template); true when it was written and read.  (ncores:
 * the worker's.) */
static bool
kept(struct iopol *p, char *reg, const char *line, uint32_t n, long ncores)
{
	if (!reg_file(reg, line))
		return false;
	set_tasks((struct wf_bw){ WF_BW_AUTO, 0, 0, 0, 0 });
	uint32_t ninst[3] = { n, 0, 0 };
	evlog[0] = '\0';
	iopol_init(p, &wf, ninst, false, on_event, NULL);
	iopol_add_worker(p, "disk@w1", "disk", 200, ncores, 16);
	return iopol_registry_load(p, reg) == 0;
}

/* A wave of name 0 on worker 0: start what may start, then finish them
 * all, each run from `from` for secs and writing bytes (-1: not known).
 * Returns how many ran. */
static long
wave(struct iopol *p, struct iopol_grant *g, double from, double secs,
     long long bytes)
{
	long n = fill(p, g, 100);
	for (long i = 0; i < n; i++)
		iopol_finish(p, 0, 0, g[i], from, from + secs, bytes);
	return n;
}

int
main(void)
{
	struct iopol p;
	struct iopol_grant g[64];
	char buf[256];

	/* Static: floor(100 / 30) = 3 share a device. */
	setup(&p, (struct wf_bw){ WF_BW_STATIC, 30, 0, 0, 0 }, 100);
	is_int(fill(&p, g, 100), 3, "static 30 of 100 MB/s: 3 at once");
	ok(iopol_may_start(&p, 0, 1), "the other worker's disk is its own");
	ok(iopol_may_start(&p, 1, 0), "unconstrained I/O is not limited");
	ok(iopol_may_start(&p, 2, 0), "compute is not limited");
	iopol_finish(&p, 0, 0, g[0], 0, 1.0, -1);
	ok(iopol_may_start(&p, 0, 0), "a finished task frees its share");
	ok(!iopol_unfit(&p, 0, 0, buf, sizeof(buf)), "30 fits in 100");
	iopol_release(&p);

	setup(&p, (struct wf_bw){ WF_BW_STATIC, 150, 0, 0, 0 }, 100);
	ok(iopol_unfit(&p, 0, 0, buf, sizeof(buf)) &&
		   strstr(buf, "more than the 100 MB/s of disk@w1"),
	   "a constraint above B is unfit: %s", buf);
	iopol_release(&p);

	/* Unbounded auto on B = 100 with 8 executors: c = 12.5, k = 8. */
	setup(&p, (struct wf_bw){ WF_BW_AUTO, 0, 0, 0, 0 }, 200);
	is_int(fill(&p, g, 200), 8, "first epoch: every executor (k = 8)");
	ok(!iopol_may_start(&p, 1, 0),
	   "no other I/O task on the learning node's device");
	ok(iopol_may_start(&p, 1, 1), "other devices take other I/O tasks");
	ok(iopol_may_start(&p, 2, 0), "compute still goes to the learning node");
	ok(!iopol_may_start(&p, 0, 1), "the learning name runs only there");
	for (int i = 0; i < 8; i++)
		iopol_finish(&p, 0, 0, g[i], 0, 8.0, -1);
	is_int(fill(&p, g, 192), 4, "second epoch: c = 25, k = 4");
	is_int((long)g[0].c, 25, "granted 25 MB/s");
	is_int(g[0].epoch, 2, "in epoch 2");
	for (int i = 0; i < 4; i++)
		iopol_finish(&p, 0, 0, g[i], 0, 3.0, -1); /* 3 <= 8/2: go on */
	is_int(fill(&p, g, 188), 2, "third epoch: c = 50, k = 2");
	for (int i = 0; i < 2; i++)
		iopol_finish(&p, 0, 0, g[i], 0, 2.5, -1); /* 2.5 > 1.5: stop */
	is_str(evlog,
	       "begin1(12.5,8) end1(12.5,8,8,reg) begin2(25,4) end2(25,4,4,reg) "
	       "begin3(50,2) end3(50,2,2,no) constraint(25,learned) ",
	       "epochs, the broken rule, the choice (25: 4 per 3 s)");
	ok(iopol_may_start(&p, 1, 0), "learning over: the device is free");
	is_int(fill(&p, g, 186), 4, "then 4 at once on worker 1's disk");
	ok(iopol_may_start(&p, 0, 1), "and on every device");
	is_int(g[0].epoch, 0, "no epoch after learning");

	/* Re-evaluation: with 1 ready task, 50 MB/s alone is not in the
	 * registry; 25 (k = 4, 3 s) beats 12.5 (k = 8, 8 s). */
	evlog[0] = '\0';
	iopol_ready(&p, 0, 1);
	is_str(evlog, "", "n = 1: still 25, nothing said");

	/* The registry is kept, and a second run starts learned. */
	char path[] = "/tmp/wfrun-iopol-XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	ok(iopol_registry_save(&p, path) == 0, "registry saved");
	iopol_release(&p);
	setup(&p, (struct wf_bw){ WF_BW_AUTO, 0, 0, 0, 0 }, 200);
	ok(iopol_registry_load(&p, path) == 0, "registry loaded");
	iopol_ready(&p, 0, 50);
	is_str(evlog, "constraint(25,registry) ", "chosen from the registry");
	is_int(fill(&p, g, 50), 4, "4 at once, no learning");
	ok(iopol_may_start(&p, 1, 0), "no learning node");
	iopol_release(&p);

	/* --relearn: the registry is ignored. */
	setup(&p, (struct wf_bw){ WF_BW_AUTO, 0, 0, 0, 0 }, 200);
	ok(iopol_registry_load(&p, path) == 0, "registry loaded again");
	p.relearn = true;
	iopol_ready(&p, 0, 50);
	is_int(fill(&p, g, 50), 8, "relearn: the first epoch again");
	iopol_release(&p);

	/* Another spec, or another bandwidth, is another registry. */
	setup(&p, (struct wf_bw){ WF_BW_AUTO_BOUNDED, 0, 10, 40, 2 }, 200);
	ok(iopol_registry_load(&p, path) == 0, "loaded");
	iopol_ready(&p, 0, 50);
	is_str(evlog, "", "auto(10,40,2) does not take auto's registry");
	is_int(fill(&p, g, 50), 10, "bounded starts at min: floor(100/10)");
	iopol_release(&p);
	unlink(path);

	/* Not worth learning: 14 tasks, 2 devices, and the first epoch would
	 * take 8 > 14 / (2 x 2) of them: one task per core (2) instead. */
	setup(&p, (struct wf_bw){ WF_BW_AUTO, 0, 0, 0, 0 }, 14);
	is_int(fill(&p, g, 14), 2, "fallback: B / cores = 50, 2 at once");
	is_str(evlog, "constraint(50,fallback) ", "said as a fallback");
	ok(iopol_may_start(&p, 1, 0), "no learning node");
	ok(iopol_may_start(&p, 0, 1), "every device runs it");
	iopol_release(&p);

	/* Just enough: 32 = 2 x 2 devices x 8. */
	setup(&p, (struct wf_bw){ WF_BW_AUTO, 0, 0, 0, 0 }, 32);
	is_int(fill(&p, g, 32), 8, "32 tasks: the first epoch runs");
	iopol_release(&p);
	setup(&p, (struct wf_bw){ WF_BW_AUTO, 0, 0, 0, 0 }, 31);
	is_int(fill(&p, g, 31), 2, "31: not");
	iopol_release(&p);

	/* wfrun's way (--learn climb, the default): climb from k = 1, even
	 * when the paper's first epoch could be repaid. */
	is_int(climb(&p, g, 32), 1, "climb: k = 1");
	is_str(evlog, "begin1(100,1) ", "the climb's first epoch: c = B");
	iopol_release(&p);

	/* The climb (autobw.h): 2 devices x 2 cores, 8 executors, B = 100.
	 * Its epochs stream 2 k tasks through k places; it runs when its
	 * k = 2 epoch (4 tasks) can be repaid: 2 x 2 x 4 = 16 tasks.  The
	 * tasks' bytes are not known here: no fill point. */
	is_int(climb(&p, g, 48), 1, "48 tasks: climb, k = 1");
	struct iopol_grant o = iopol_start(&p, 0, 1, 47);
	struct iopol_grant o2 = iopol_start(&p, 0, 1, 46);
	ok(o.c == 50 && o.epoch == 0 && o2.c == 50,
	   "nothing known: the other device runs one per core (c = B / 2)");
	ok(!iopol_may_start(&p, 0, 1), "and no more");
	iopol_finish(&p, 0, 1, o, 0, 1.0, -1);
	iopol_finish(&p, 0, 1, o2, 0, 1.0, -1);
	iopol_finish(&p, 0, 0, g[0], 0, 1.0, -1);
	is_str(evlog, "begin1(100,1) end1(100,1,1,reg) begin2(50,2) ",
	       "one writer's epoch is one task");
	is_int(fill(&p, g, 47), 2, "then k = 2");
	ok(iopol_may_start(&p, 0, 1), "the other device runs at the best so far");
	o = iopol_start(&p, 0, 1, 38);
	ok(o.c == 100 && o.epoch == 0, "k = 1 there (c = 100), in no epoch");
	ok(!iopol_may_start(&p, 0, 1), "one at a time there");
	iopol_finish(&p, 0, 1, o, 0, 1.0, -1);
	/* a second writer doubles the throughput: 2 tasks a second */
	for (int i = 0; i < 2; i++)
		iopol_finish(&p, 0, 0, g[i], 0, 1.0, -1);
	ok(!iopol_may_start(&p, 1, 0), "a stream: the epoch goes on");
	is_int(wave(&p, g, 1, 1.0, -1), 2, "its second wave");
	ok(strstr(evlog, "end2(50,2,4,reg) ") != NULL,
	   "epoch 2 registered: k = 2, 4 tasks");
	/* 39 left: the jump to k = 4 (8 tasks) needs 32: it runs */
	is_int(fill(&p, g, 39), 4, "scaling: jump to k = 4");
	o = iopol_start(&p, 0, 1, 35);
	ok(o.c == 25, "the other device bets on the climb: c = 25");
	iopol_finish(&p, 0, 1, o, 0, 1.0, -1);
	for (int i = 0; i < 4; i++)
		iopol_finish(&p, 0, 0, g[i], 0, 1.0, -1); /* 4 a second */
	is_int(wave(&p, g, 1, 1.0, -1), 4, "its second wave");
	/* 30 left: 2 x 2 x 16 > 30: no epoch at k = 8 while k = 4, the
	 * most tried, was still the best: at least one per core (k = 2
	 * here), and here the climb's own k = 4 is more */
	ok(strstr(evlog, "constraint(25,learned) ") != NULL,
	   "stopped while scaling: the best tried, 25");
	iopol_release(&p);

	/* With the bytes known, one writer's rate says how many fill B:
	 * 10 MB a second, B = 100: 10; but 8 executors: k = 8, and the
	 * other device bets on it. */
	is_int(climb(&p, g, 100), 1, "climb, k = 1");
	iopol_finish(&p, 0, 0, g[0], 0, 1.0, 10 << 20);
	wave(&p, g, 1, 1.0, 10 << 20);
	is_int(fill(&p, g, 98), 8, "fill point: 10, at most 8 executors");
	ok(iopol_may_start(&p, 0, 1), "the other device runs it");
	o = iopol_start(&p, 0, 1, 90);
	ok(o.c == 12.5, "at the fill point's constraint, 12.5");
	iopol_finish(&p, 0, 1, o, 0, 1.0, 10 << 20);
	iopol_release(&p);

	/* Beyond the fill point an epoch must be repaid twice over: 4 D n
	 * tasks left for its n.  One writer writes 25 MB/s: 4 fill B; the
	 * fill point's epoch (8 tasks, 20 MB each in 1 s: the time a task
	 * spends before it writes) wrote below B, so 2 k = 8 (16 tasks) is
	 * next, which needs 2 x 2 x 16 = 64 tasks left, and 128 beyond the
	 * fill point.  16 cores: one per core would be more writers. */
	cores = 16;
	for (int run = 0; run < 2; run++) {
		uint32_t n = run ? 137 : 136; /* 128 / 127 left after 9 */
		is_int(climb(&p, g, n), 1, "climb, k = 1");
		iopol_finish(&p, 0, 0, g[0], 0, 1.0, 25 << 20);
		for (int w = 0; w < 2; w++)
			is_int(wave(&p, g, 1 + w, 1.0, 20 << 20), 4,
			       "the fill point's epoch: 4 at once");
		ok(strstr(evlog, "end2(25,4,8,reg) ") != NULL,
		   "the fill point's epoch registered");
		if (run) {
			/* (its writers slowed one another: 20 of one
			 * writer's 25 MB/s; the device congests there,
			 * and more cannot gain: autobw.h) */
			ok(strstr(evlog, "begin3") == NULL,
			   "128 left, but 4 slowed: no epoch beyond the fill point");
		} else {
			ok(strstr(evlog, "begin3") == NULL,
			   "127 left: no epoch beyond the fill point");
			ok(strstr(evlog, "constraint(25,learned) ") != NULL,
			   "the fill point chosen, not one per core (scaling)");
			char kept[64];
			snprintf(kept, sizeof(kept), "%s.kept", path);
			ok(iopol_registry_save(&p, kept) == 0, "kept");
			iopol_release(&p);
			setup(&p, (struct wf_bw){ WF_BW_AUTO, 0, 0, 0, 0 }, n);
			ok(iopol_registry_load(&p, kept) == 0, "read back");
			iopol_ready(&p, 0, 50);
			is_str(evlog, "constraint(25,registry) ",
			       "the next run: the fill point, not one per core");
			unlink(kept);
		}
		iopol_release(&p);
	}
	cores = 2;

	/* The fill point's epoch runs whenever two tasks left can: not
	 * running it is the same bet, unmeasured.  16 tasks: one writer
	 * writes 12 MB/s, 8 fill B; 15 left, fewer than a wave of 8 on
	 * each of the 2 devices. */
	is_int(climb(&p, g, 16), 1, "climb, k = 1");
	iopol_finish(&p, 0, 0, g[0], 0, 1.0, 12 << 20);
	ok(strstr(evlog, "begin2(12.5,8) ") != NULL,
	   "15 left: the fill point's epoch runs (%s)", evlog);
	iopol_release(&p);
	/* A climb stopped after its first epoch compared nothing: it runs
	 * at the fill point if it knows one, is not re-evaluated from its
	 * one entry, and keeps no registry.  One task left when its one
	 * writer ends (the others ran elsewhere). */
	is_int(climb(&p, g, 16), 1, "climb, k = 1");
	p.nm[0].left = 1;
	iopol_finish(&p, 0, 0, g[0], 0, 1.0, 12 << 20);
	wave(&p, g, 1, 1.0, 12 << 20);
	ok(strstr(evlog, "constraint(12.5,fill) ") != NULL,
	   "stopped: the fill point, 8 writers (c = 12.5)");
	evlog[0] = '\0';
	iopol_ready(&p, 0, 1);
	is_str(evlog, "", "not re-evaluated from one entry");
	char rpath[64];
	snprintf(rpath, sizeof(rpath), "%s.fill", path); /* not there */
	ok(iopol_registry_save(&p, rpath) == 0 && access(rpath, F_OK) != 0,
	   "and nothing is kept for the next run");
	iopol_release(&p);
	/* ... and without the bytes, one per core, as the baseline */
	is_int(climb(&p, g, 16), 1, "climb, k = 1");
	iopol_finish(&p, 0, 0, g[0], 0, 1.0, -1);
	wave(&p, g, 1, 1.0, -1);
	ok(strstr(evlog, "constraint(50,fallback) ") != NULL,
	   "stopped, bytes unknown: one per core (c = 50)");
	iopol_release(&p);

	/* A device that one writer fills: 2 writers add nothing, k = 1. */
	is_int(climb(&p, g, 30), 1, "climb, k = 1");
	iopol_finish(&p, 0, 0, g[0], 0, 1.0, -1);
	is_int(wave(&p, g, 0, 2.0, -1), 2, "k = 2");
	wave(&p, g, 2, 2.0, -1); /* same throughput */
	ok(strstr(evlog, "constraint(100,learned) ") != NULL,
	   "a second writer added nothing: c = B");
	iopol_release(&p);

	/* Bounded: the fallback stays within [min, max]. */
	setup(&p, (struct wf_bw){ WF_BW_AUTO_BOUNDED, 0, 5, 20, 2 }, 10);
	is_int(fill(&p, g, 10), 5, "auto(5,20,2) falls back to 20: 5 at once");
	iopol_release(&p);

	/* Re-evaluation: auto(10,50,5) learns 10 (k=10, 4 s), 50 (k=2, 1 s). */
	setup(&p, (struct wf_bw){ WF_BW_AUTO_BOUNDED, 0, 10, 50, 5 }, 100);
	is_int(fill(&p, g, 100), 10, "epoch at 10: 10 at once");
	for (int i = 0; i < 10; i++)
		iopol_finish(&p, 0, 0, g[i], 0, 4.0, -1);
	is_int(fill(&p, g, 90), 2, "epoch at 50: 2 at once");
	for (int i = 0; i < 2; i++)
		iopol_finish(&p, 0, 0, g[i], 0, 1.0, -1);
	evlog[0] = '\0';
	iopol_ready(&p, 0, 2);
	is_str(evlog, "constraint(50,reevaluated) ",
	       "2 ready: one wave at k=2 (1 s) beats k=10 (4 s)");
	iopol_ready(&p, 0, 100);
	is_str(evlog, "constraint(50,reevaluated) constraint(10,reevaluated) ",
	       "100 ready: 10 waves of 4 s beat 50 of 1 s");
	iopol_ready(&p, 0, 90);
	is_str(evlog, "constraint(50,reevaluated) constraint(10,reevaluated) ",
	       "no change, nothing said");
	iopol_release(&p);

	/* A retried task is left to start again: the early stop counts it. */
	setup(&p, (struct wf_bw){ WF_BW_STATIC, 30, 0, 0, 0 }, 5);
	g[0] = iopol_start(&p, 0, 0, 5);
	is_int(p.nm[0].left, 4, "4 left once one started");
	iopol_finish(&p, 0, 0, g[0], 0, 1.0, -1);
	iopol_again(&p, 0);
	is_int(p.nm[0].left, 5, "5 again when it is to be retried");
	iopol_release(&p);

	/* A lost task's place in the epoch is taken again. */
	setup(&p, (struct wf_bw){ WF_BW_AUTO, 0, 0, 0, 0 }, 100);
	is_int(fill(&p, g, 100), 8, "epoch 1 full");
	iopol_abandon(&p, 0, 0, g[7]);
	ok(iopol_may_start(&p, 0, 0), "one place free again");
	ok(!iopol_may_start(&p, 0, 1), "nor elsewhere while it has room");
	iopol_release(&p);

	/* Correcting the bet.  8 cores: until the climb's first epoch ends,
	 * worker 1 runs the name one per core (c = 12.5).  One writer at 30
	 * MB/s: 3 fill B, c = 33.3 from then on, k = 3; 8 run there, more
	 * than 2 k: the youngest that can stop are marked until 3 stay, and
	 * those hold c = 33.3 from then on. */
	cores = 8;
	is_int(climb(&p, g, 100), 1, "climb, k = 1");
	struct iopol_grant b[8];
	long nb = 0;
	while (iopol_may_start(&p, 0, 1))
		b[nb] = iopol_start(&p, 0, 1, 99 - nb), nb++;
	is_int(nb, 8, "the bet: 8 on the other device");
	is_int((long)iopol_take_tight(&p), (long)UINT32_MAX, "nothing to do");
	iopol_finish(&p, 0, 0, g[0], 0, 1.0, 30 << 20);
	is_int((long)p.ntight, 1, "the fill point raised the bet's c");
	is_int((long)iopol_take_tight(&p), 0, "for name 0");
	is_int((long)iopol_take_tight(&p), (long)UINT32_MAX, "once");
	struct iopol_running run[8];
	for (int i = 0; i < 8; i++) {
		int j = (i * 3) % 8; /* not in the order they started */
		run[i] = (struct iopol_running){ (uint32_t)j, 1, (double)j,
						 &b[j], j != 7, false };
	}
	evlog[0] = '\0';
	is_int((long)iopol_make_way(&p, 0, run, 8), 5, "5 to stop");
	char stops[9] = "";
	for (int i = 0; i < 8; i++)
		stops[run[i].task] = run[i].stop ? 'x' : '.';
	is_str(stops, "..xxxxx.", "the youngest that can stop (7 cannot)");
	is_str(evlog, "preempt@disk@w2(33.3333,3,5) ", "a preempt event");
	ok(fabs(b[0].c - 100.0 / 3) < 1e-9 && b[7].c == b[0].c &&
		   b[2].c == 12.5,
	   "those that stay hold 33.3, the stopped keep theirs");
	ok(!iopol_may_start(&p, 0, 1), "162.5 of 100 MB/s held: none starts");
	for (int j = 2; j < 7; j++)
		iopol_abandon(&p, 0, 1, b[j]);
	ok(!iopol_may_start(&p, 0, 1), "3 at 33.3 hold B");
	iopol_finish(&p, 0, 1, b[0], 0, 2.0, 25 << 20);
	ok(iopol_may_start(&p, 0, 1), "one ends: one starts");
	iopol_release(&p);
	/* --no-preempt: nothing stops, the grants rise all the same; and
	 * 2 k or fewer running never stop */
	for (int pass = 0; pass < 2; pass++) {
		is_int(climb(&p, g, 100), 1, "climb, k = 1");
		p.no_preempt = pass == 0;
		for (nb = 0; nb < (pass ? 4 : 8); nb++)
			b[nb] = iopol_start(&p, 0, 1, 99 - nb);
		iopol_finish(&p, 0, 0, g[0], 0, 1.0, 50 << 20); /* k = 2 */
		is_int((long)iopol_take_tight(&p), 0, "tight");
		for (int j = 0; j < nb; j++)
			run[j] = (struct iopol_running){ (uint32_t)j, 1, j,
							 &b[j], true, false };
		is_int((long)iopol_make_way(&p, 0, run, (size_t)nb), 0,
		       pass ? "4 = 2 k: none stops" : "--no-preempt: none");
		ok(b[0].c == 50, "the grants rise to 50");
		iopol_release(&p);
	}
	cores = 2;

	/* Unknown bandwidth: constrained tasks cannot run there. */
	memset(tasks, 0, sizeof(tasks));
	setup(&p, (struct wf_bw){ WF_BW_STATIC, 10, 0, 0, 0 }, 10);
	iopol_add_worker(&p, "disk@w3", "disk", 0, 2, 8);
	ok(iopol_unfit(&p, 0, 2, buf, sizeof(buf)) &&
		   strstr(buf, "bandwidth of disk@w3 is not known"),
	   "no B: unfit (%s)", buf);
	ok(!iopol_may_start(&p, 0, 2), "and never starts there");
	iopol_release(&p);

	/* The early rate: the one writer's grant says sample; its rate,
	 * 25 MB/s, is taken from its bytes so far; the fill point's epoch
	 * (4) begins with it as its first task (3 join, its grant lowered
	 * to 25), the other device bets on 4 at once; its end registers
	 * epoch 1. */
	is_int(climb(&p, g, 100), 1, "climb, k = 1");
	ok(g[0].sample, "its one writer is sampled");
	long long mib = 1 << 20;
	ok(iopol_sample(&p, 0, 0, &g[0], 0.02, -1), "bytes not known: go on");
	ok(iopol_sample(&p, 0, 0, &g[0], 0.04, 0), "nothing written yet: go on");
	int s_at = 3;
	while (iopol_sample(&p, 0, 0, &g[0], 0.02 * s_at,
			    mib / 2 * (s_at - 2)) &&
	       !(p.nm[0].a.early > 0))
		s_at++;
	ok(s_at >= 13 && s_at <= 18, "taken 0.2 to 0.3 s after it began writing");
	is_str(evlog, "begin1(100,1) rate1(25,4) begin2(25,4) ",
	       "the rate, then the fill point's epoch");
	ok(g[0].c == 25 && p.dev[0].used == 25, "its grant is 25 now");
	ok(iopol_sample(&p, 0, 0, &g[0], 0.5, 12 * mib),
	   "sampled on: the fill point's epoch is measured in flight");
	is_int(fill(&p, g + 1, 99), 3, "3 join it: 4 at once");
	ok(g[1].sample && g[1].slot, "they are sampled too, each in a slot");
	o = iopol_start(&p, 0, 1, 90);
	ok(o.c == 25, "the other device bets on the fill point");
	iopol_finish(&p, 0, 1, o, 0, 1.0, 25 * mib);
	evlog[0] = '\0';
	iopol_finish(&p, 0, 0, g[0], 0, 1.3, 32 * mib);
	is_str(evlog, "end1(100,1,1,reg) ", "epoch 1 ends, registered");
	ok(p.nm[0].a.nreg == 1 && fabs(p.nm[0].a.reg[0].t - 1.3) < 1e-9,
	   "with its time");
	ok(p.dev[0].used == 75, "its share given back");
	iopol_release(&p);

	/* A learning climb is told when every task of its name still to
	 * start is ready and they are few (autobw_last_tasks): one device,
	 * at most four waves of the most writers tried or of the epoch's
	 * k.  12 checkpoints; the one writer at 25 MB/s of 100: the fill
	 * point 4. */
	{
		set_tasks((struct wf_bw){ WF_BW_AUTO, 0, 0, 0, 0 });
		uint32_t ninst[3] = { 12, 0, 0 };
		evlog[0] = '\0';
		iopol_init(&p, &wf, ninst, false, on_event, NULL);
		iopol_add_worker(&p, "disk@w1", "disk", 100, cores, 8);
		iopol_ready(&p, 0, 1);
		is_int(fill(&p, g, 1), 1, "last tasks: the one writer starts");
		iopol_ready(&p, 0, 11);
		ok(p.nm[0].a.phase == AUTOBW_LEARNING && !p.nm[0].a.last_tasks,
		   "last tasks: the 11 left ready, 1 writer tried: too many");
		for (s_at = 1; iopol_sample(&p, 0, 0, &g[0], 0.02 * s_at,
					     mib / 2 * s_at) &&
			       !(p.nm[0].a.early > 0);)
			s_at++;
		is_int(p.nm[0].a.k, 4, "last tasks: then the fill point, 4");
		iopol_ready(&p, 0, 10);
		ok(!p.nm[0].a.last_tasks,
		   "last tasks: 10 of the 11 left ready: not yet");
		iopol_ready(&p, 0, 11);
		ok(p.nm[0].a.last_tasks,
		   "last tasks: all 11 ready, 12 within four waves of 4: told");
		iopol_release(&p);
		is_int(climb(&p, g, 16), 1, "last tasks, two devices: 1");
		for (s_at = 1; iopol_sample(&p, 0, 0, &g[0], 0.02 * s_at,
					     mib / 2 * s_at) &&
			       !(p.nm[0].a.early > 0);)
			s_at++;
		iopol_ready(&p, 0, 15);
		ok(p.nm[0].a.k == 4 && !p.nm[0].a.last_tasks,
		   "last tasks: not with two devices");
		iopol_release(&p);
	}

	/* The carried writer is the last to end: its end ends epoch 2 too */
	is_int(climb(&p, g, 100), 1, "climb, k = 1");
	for (s_at = 1; iopol_sample(&p, 0, 0, &g[0], 0.02 * s_at,
				     mib / 2 * s_at) &&
		       !(p.nm[0].a.early > 0);)
		s_at++;
	for (int w = 0; w < 3; w++) /* 7 tasks of epoch 2 beside it */
		is_int(wave(&p, g + 1, 1 + w, 1.0, 25 * mib), w < 2 ? 3 : 1,
		       "a wave of epoch 2 beside the carried");
	ok(strstr(evlog, "end2") == NULL, "epoch 2 waits for the carried");
	ok(!iopol_close_idle(&p, true), "nor is it closed as idle");
	evlog[0] = '\0';
	iopol_finish(&p, 0, 0, g[0], 0, 3.5, 80 * mib);
	ok(!strncmp(evlog, "end1(100,1,1,reg) end2(25,4,8,reg) ", 35),
	   "epoch 1's end, then epoch 2's");
	iopol_release(&p);

	/* A climb's registry (1 writer: 1 s a task; 2: 1.68 s for two),
	 * checkpoints ready one at a time: the choice is made for the 50
	 * tasks of the name, not the one ready (1 writer would hold the
	 * device while the next became ready), and kept at each (1 and 2
	 * writers are the same for one task). */
	{
		char reg[] = "/tmp/wfrun-iopol-reg-XXXXXX";
		const char *line = "ckpt\tdisk\t100\tauto\t100:1:1:100,50:2:1.68:119\n";
		ok(reg_file(reg, line), "a climb's registry written");
		setup(&p, (struct wf_bw){ WF_BW_AUTO, 0, 0, 0, 0 }, 50);
		p.paper = false;
		ok(iopol_registry_load(&p, reg) == 0, "and read");
		for (int i = 0; i < 8; i++)
			iopol_ready(&p, 0, 1 + i % 2);
		is_str(evlog, "constraint(50,registry) ",
		       "2 writers for the 50 tasks, kept");
		iopol_release(&p);
		unlink(reg);
	}

	/* The name's last tasks all there, or piled up (no more to come
	 * than there, ready or running), on one device: a climb's choice
	 * for them waits for how long each running one has run
	 * (iopol_take_batch, iopol_batch).  The registry: each writer
	 * capped at 8 MB/s, 12 writing 96 (11 and 13 less), 16 writing 83;
	 * tasks of 64 MB.  19 tasks: 12 end them in 2 rounds, as any count
	 * registered does (no round fewer for the registry's choice,
	 * autobw_choose_pile). */
	{
		char reg[] = "/tmp/wfrun-iopol-reg-XXXXXX";
		const char *line = "ckpt\tdisk\t200\tauto\t"
				   "200:1:8:8:8:0.1:0:64,25:8:8:64:8:0.02:1:64,"
				   "18.1818182:11:7.33:88:8:0.02:1:64,"
				   "16.6666667:12:8:96:8:0.02:1:64,"
				   "15.3846154:13:8.74:95.2:7.32:0.02:1:64,"
				   "12.5:16:12.29:83.33:5.208:0.1:1:64\n";
		ok(kept(&p, reg, line, 19, 8),
		   "a registry with the mean task written and read");
		iopol_ready(&p, 0, 6);
		is_str(evlog, "constraint(16.6667,registry) ",
		       "6 of 19 ready: 12 writers (96 MB/s)");
		ok(iopol_take_batch(&p) == UINT32_MAX,
		   "13 still to come, more than the 6 there: no batch");
		struct iopol_grant gb[19];
		long n = 0;
		for (; n < 6 && iopol_may_start(&p, 0, 0); n++)
			gb[n] = iopol_start(&p, 0, 0, 6 - n);
		is_int(n, 6, "6 start");
		/* 6 more become ready: 7 to come, fewer than there (piled) */
		iopol_ready(&p, 0, 6);
		is_str(evlog, "constraint(16.6667,registry) ",
		       "12 of 19 there: not chosen for yet");
		is_int((long)iopol_take_batch(&p), 0, "their batch is due");
		ok(iopol_take_batch(&p) == UINT32_MAX, "once");
		struct iopol_running r[8];
		for (int i = 0; i < 6; i++)
			r[i] = (struct iopol_running){ (uint32_t)i, 0, 0,
							&gb[i], true, false };
		iopol_batch(&p, 0, 6, 3.0, r, 6, NULL, 0);
		is_str(evlog,
		       "constraint(16.6667,registry) "
		       "constraint(15.3846,last) ",
		       "6 at 3/8 of theirs, 13 to write: 13 places");
		ok(fabs(gb[0].c - 15.3846) < 1e-3 && gb[5].c == gb[0].c,
		   "the running hold the new share (%g)", gb[0].c);
		for (; n < 12 && iopol_may_start(&p, 0, 0); n++)
			gb[n] = iopol_start(&p, 0, 0, 12 - n);
		is_int(n, 12, "the 6 ready start at once");
		iopol_ready(&p, 0, 7);
		for (; n < 19 && iopol_may_start(&p, 0, 0); n++)
			gb[n] = iopol_start(&p, 0, 0, 19 - n);
		is_int(n, 13, "of the last 7, one more starts: 13 places");
		char out[256] = "";
		ok(iopol_outcome(&p, 0, out, sizeof(out)), "an outcome");
		is_str(out,
		       "auto chose 16.6667 MB/s (12 writers on disk@w1 of 200 "
		       "MB/s), and 15.3846 MB/s (13 writers) for its last 19 "
		       "tasks, from the kept registry",
		       "the closing line says both choices");
		iopol_release(&p);
		unlink(reg);
	}

	/* The registry's choice for 16 of those tasks: 12 would leave 4
	 * to a second round at 32 MB/s, 16 (registered) end them in one
	 * (autobw_choose_pile), chosen as the registry is read. */
	{
		char reg[] = "/tmp/wfrun-iopol-reg-XXXXXX";
		const char *line = "ckpt\tdisk\t200\tauto\t"
				   "200:1:8:8:8:0.1:0:64,25:8:8:64:8:0.02:1:64,"
				   "16.6666667:12:8:96:8:0.02:1:64,"
				   "12.5:16:12.29:83.33:5.208:0.1:1:64\n";
		ok(kept(&p, reg, line, 16, 8),
		   "a registry of 1, 8, 12 and 16 written and read");
		iopol_ready(&p, 0, 6);
		is_str(evlog, "constraint(12.5,registry) ",
		       "16 tasks: 16 writers, one round");
		iopol_release(&p);
		unlink(reg);
		/* more than four waves of the most registered (2 writers):
		 * a stream still, rechosen as before */
		char reg2[] = "/tmp/wfrun-iopol-reg-XXXXXX";
		ok(kept(&p, reg2, "ckpt\tdisk\t200\tauto\t200:1:1:64:64:0:0:64,"
				  "100:2:1.2:107:53:0:0:64\n", 16, 8),
		   "a registry of 1 and 2 writers written and read");
		iopol_ready(&p, 0, 16);
		ok(iopol_take_batch(&p) == UINT32_MAX,
		   "16 ready, 2 writers the most: no last tasks' choice");
		iopol_release(&p);
		unlink(reg2);
	}

	/* How the tasks became ready, kept in the registry (autobw_arrivals):
	 * knee 5, 30 MB/s a writer, 6 the best (180 MB/s), 7 and 8 below;
	 * 12 checkpoints, 8 then 4 at 2.11 s: 6 end them soonest, nothing
	 * is tried.  Read from a file kept before it said so (all ready at
	 * once, or a wave alone): the wave of 8 is tried.  A period that
	 * is not a number of seconds: the line is not read. */
	for (int known = 0; known < 3; known++) {
		char reg[] = "/tmp/wfrun-iopol-reg-XXXXXX";
		const char *how = known == 2   ? ":-2.11:0.29"
				  : known ? ":2.11:0.29"
					  : "";
		char line[512];
		snprintf(line, sizeof(line),
			 "ckpt\tdisk\t200\tauto\t200:1:0.68:30:30:0.1:0:64:0%s,"
			 "28.5714286:7:0.78:181.8:25.97:0.05:1:64:0%s,"
			 "33.3333333:6:1.5:180:30:0.025:1:64:0%s\n",
			 how, how, how);
		ok(kept(&p, reg, line, 12, 8), "a registry %s written and read",
		   known == 2 ? "of a bad period" : known ? "with" : "without");
		iopol_ready(&p, 0, 8);
		is_str(evlog,
		       known == 2   ? ""
		       : known == 1 ? "constraint(33.3333,registry) "
				    : "begin1(25,8) ",
		       known == 2   ? "a bad period: no registry"
		       : known == 1 ? "8, then 4 at 2.11 s: 6, nothing tried"
				    : "ready not known: the wave of 8 tried");
		if (known == 1)
			ok(p.saved[0].reg[2].period == 2.11 &&
				   p.saved[0].reg[2].wave_s == 0.29,
			   "the period and spread read");
		iopol_release(&p);
		unlink(reg);
	}

	/* The same registry (8, then 4 at 2.11 s), its run resumed partway
	 * (a task of the name up to date, the 12 others ready at once):
	 * they do not become ready as the registry's run saw them, so they
	 * are not played out so (the wave of 8 is tried, as without a
	 * period), and the period kept is not replaced by this run's (0:
	 * all at once). */
	{
		char reg[] = "/tmp/wfrun-iopol-reg-XXXXXX";
		ok(kept(&p, reg,
			"ckpt\tdisk\t200\tauto\t"
			"200:1:0.68:30:30:0.1:0:64:0:2.11:0.29,"
			"28.5714286:7:0.78:181.8:25.97:0.05:1:64:0:2.11:0.29,"
			"33.3333333:6:1.5:180:30:0.025:1:64:0:2.11:0.29\n",
			12, 8),
		   "a registry with a period written and read");
		iopol_up_to_date(&p, 0);
		for (int i = 0; i < 12; i++)
			iopol_arrived(&p, 0, 0);
		iopol_ready(&p, 0, 12);
		is_str(evlog, "begin1(25,8) ",
		       "resumed: the wave of 8 tried, as ready all at once");
		/* (8 at 22.5 MB/s each, then the last 4 at 45) */
		is_int(wave(&p, g, 0, 64 / 22.5, 64 << 20), 8, "8 at once");
		wave(&p, g, 64 / 22.5, 64 / 45.0, 64 << 20);
		ok(strstr(evlog, "end1(25,8,12,reg) ") &&
			   strstr(evlog, "constraint(33.3333,learned) "),
		   "8 measured, 6 still chosen (%s)", evlog);
		ok(iopol_registry_save(&p, reg) == 0, "the registry saved");
		iopol_release(&p);
		FILE *f = fopen(reg, "r");
		char line[1024] = "";
		while (f && fgets(line, sizeof(line), f) && line[0] == '#')
			;
		if (f)
			fclose(f);
		int kept_p = 0;
		for (const char *q = line; (q = strstr(q, ":0:2.11:0.29")); q++)
			kept_p++;
		ok(strstr(line, ",25:8:") && kept_p == 4,
		   "8 registered, the period kept in all 4 entries (%s)", line);
		unlink(reg);
	}

	/* A reevaluated choice of more places: the running take the new
	 * share at once.  1 writer at 25 MB/s and 8 at 125 (knee 6,
	 * fall 0.3): for the 8 checkpoints of 2 cores the family's bound,
	 * 6, is chosen; the first runs under 6; with it and one ready,
	 * 8.  The first kept 33.3 of the 200 MB/s, and only 7 fit. */
	{
		char reg[] = "/tmp/wfrun-iopol-reg-XXXXXX";
		ok(kept(&p, reg, "ckpt\tdisk\t200\tauto\t"
				 "200:1:1.71:25:25:0.142857:0:64,"
				 "25:8:2.738:125:15.625:0.1:1:64\n", 8, 2),
		   "a registry of 1 and 8 writers written and read");
		iopol_ready(&p, 0, 1);
		is_str(evlog, "constraint(33.3333,registry) ",
		       "8 to write: the bound, 6 writers");
		struct iopol_grant g1 = iopol_start(&p, 0, 0, 0);
		ok(fabs(g1.c - 200.0 / 6) < 1e-3, "the first holds 33.3 (%g)",
		   g1.c);
		ok(iopol_take_batch(&p) == UINT32_MAX, "nothing due");
		iopol_ready(&p, 0, 1);
		is_str(evlog,
		       "constraint(33.3333,registry) constraint(25,reevaluated) ",
		       "one running, one ready: 8 places");
		is_int((long)iopol_take_batch(&p), 0, "the running's share is due");
		ok(iopol_take_batch(&p) == UINT32_MAX, "once");
		struct iopol_running r1 = { 0, 0, 0, &g1, true, false };
		iopol_batch(&p, 0, 1, 0.1, &r1, 1, NULL, 0);
		ok(fabs(g1.c - 25) < 1e-9, "the running holds 25 now (%g)", g1.c);
		long n = 0;
		for (; n < 7 && iopol_may_start(&p, 0, 0); n++)
			iopol_start(&p, 0, 0, 7 - n);
		is_int(n, 7, "7 more may start beside it: 8 write");
		iopol_release(&p);
		unlink(reg);
	}

	/* A climb's registry keeps each epoch's pace (MB/s a writer), on
	 * a disk of 100 MB/s: 8 writers measured at their ends (72.5 MB/s
	 * over the epoch, gaps between tasks included, 12.25 each while
	 * writing) against 7 measured in flight (83.5 MB/s, 11.95 each).
	 * With the paces the next run ranks them as the first did: 8 (98
	 * MB/s against 83.5); from a line without them (as earlier
	 * versions wrote), by the epochs' MB/s: 7. */
	for (int paced = 1; paced >= 0; paced--) {
		char reg[] = "/tmp/wfrun-iopol-reg-XXXXXX";
		const char *line =
			paced ? "ckpt\tdisk\t100\tauto\t100:1:5.12:12.5:12.5,"
				"12.5:8:5.22:72.5:12.25,"
				"14.2857:7:5.36:83.5:11.95\n"
			      : "ckpt\tdisk\t100\tauto\t100:1:5.12:12.5,"
				"12.5:8:5.22:72.5,14.2857:7:5.36:83.5\n";
		ok(reg_file(reg, line), "a registry %s paces written",
		   paced ? "with" : "without");
		setup(&p, (struct wf_bw){ WF_BW_AUTO, 0, 0, 0, 0 }, 32);
		p.paper = false;
		ok(iopol_registry_load(&p, reg) == 0, "and read");
		iopol_ready(&p, 0, 32);
		is_str(evlog,
		       paced ? "constraint(12.5,registry) "
			     : "constraint(14.2857,registry) ",
		       paced ? "with paces: 8 writers, as the first run chose"
			     : "without: 7, by the epochs' MB/s");
		iopol_release(&p);
		unlink(reg);
	}

	/* A kept registry whose search was left open (issue 23): 1 writer
	 * at 12.5 MB/s (fill point 8), 8 at 60 MB/s (slowed), 5 at 62;
	 * the best 5, bracketed by 4 and 8, 6 and 7 never tried.  The next
	 * run goes on with it: its first epoch is 6 (step resume), and
	 * when 6 writes less than 5 (the bracket is closed) it chooses 5
	 * and keeps both runs' epochs, each with its error and whether it
	 * was flown. */
	{
		char reg[] = "/tmp/wfrun-iopol-reg-XXXXXX";
		const char *line = "ckpt\tdisk\t100\tauto\t"
				   "100:1:5.12:12.5:12.5:0.03:0,"
				   "12.5:8:8.53:60:7.5:0.02:1,"
				   "20:5:5.16:62:12.4:0.02:1\n";
		ok(reg_file(reg, line), "an open search's registry written");
		setup(&p, (struct wf_bw){ WF_BW_AUTO, 0, 0, 0, 0 }, 32);
		p.paper = false;
		ok(iopol_registry_load(&p, reg) == 0, "and read");
		ok(p.saved[0].reg[1].flown && p.saved[0].reg[1].err == 0.02,
		   "each entry's error and flown read back");
		iopol_ready(&p, 0, 32);
		is_str(evlog, "begin1(16.6667,6) ",
		       "the next run resumes the search: 6 writers");
		ok(p.nm[0].a.step && !strcmp(p.nm[0].a.step, "resume"),
		   "its step says resume");
		struct iopol_grant ob = iopol_start(&p, 0, 1, 31);
		ok(fabs(ob.c - 100.0 / 6) < 1e-9,
		   "the other device bets on 6 too (more than the best, "
		   "not past the fill point)");
		iopol_finish(&p, 0, 1, ob, 0, 1, 64 * mib);
		/* 12 tasks of 64 MB, 6 at a time, at 55 MB/s in all */
		double tt = 64.0 * 6 / 55;
		evlog[0] = '\0';
		for (int w = 0; w < 2; w++) {
			struct iopol_grant gw[6];
			is_int(fill(&p, gw, 31 - 6 * w), 6, "6 at once");
			for (int j = 0; j < 6; j++)
				iopol_finish(&p, 0, 0, gw[j], w * tt,
					     (w + 1) * tt, 64 * mib);
		}
		ok(strstr(evlog, "end1(16.6667,6,12,reg) ") &&
			   strstr(evlog, "constraint(20,learned) "),
		   "6 writes less than 5: bracketed, 5 chosen (%s)", evlog);
		char out[] = "/tmp/wfrun-iopol-reg2-XXXXXX";
		int ofd = mkstemp(out);
		close(ofd);
		ok(iopol_registry_save(&p, out) == 0, "kept");
		char buf2[1024] = "";
		FILE *f = fopen(out, "r");
		while (f && fgets(buf2, sizeof(buf2), f) && buf2[0] == '#')
			;
		if (f)
			fclose(f);
		ok(strstr(buf2, ",20:5:5.16:62:12.4:0.02:1:64:0:0:0,16.666") &&
			   strstr(buf2, "12.5:8:8.53:60:7.5:0.02:1:64:0:0:0"),
		   "both runs' epochs kept, with the mean task's 64 MB (%s)",
		   buf2);
		iopol_release(&p);
		/* kept again: the search is closed, the next run only
		 * chooses */
		setup(&p, (struct wf_bw){ WF_BW_AUTO, 0, 0, 0, 0 }, 32);
		p.paper = false;
		ok(iopol_registry_load(&p, out) == 0, "read back");
		iopol_ready(&p, 0, 32);
		is_str(evlog, "constraint(20,registry) ",
		       "a closed bracket: 5 chosen, no epoch");
		iopol_release(&p);
		/* too few tasks left to repay the epoch: chosen from */
		setup(&p, (struct wf_bw){ WF_BW_AUTO, 0, 0, 0, 0 }, 8);
		p.paper = false;
		ok(iopol_registry_load(&p, reg) == 0, "the open one again");
		iopol_ready(&p, 0, 8);
		is_str(evlog, "constraint(20,registry) ",
		       "8 tasks, 2 devices: no epoch of 6 (12 tasks)");
		iopol_release(&p);
		/* another name learning on that device keeps it: the
		 * search is not resumed there, the registry chosen from */
		set_tasks((struct wf_bw){ WF_BW_AUTO, 0, 0, 0, 0 });
		tasks[1].storage_bw = tasks[0].storage_bw;
		uint32_t ninst2[3] = { 32, 100, 10 };
		evlog[0] = '\0';
		iopol_init(&p, &wf, ninst2, false, on_event, NULL);
		iopol_add_worker(&p, "disk@w1", "disk", 100, cores, 8);
		iopol_add_worker(&p, "disk@w2", "disk", 100, cores, 8);
		ok(iopol_registry_load(&p, reg) == 0, "the open one, beside "
		   "another auto name");
		struct iopol_grant gc = iopol_start(&p, 1, 0, 100);
		ok(p.dev[0].learner == 1, "copy learns on disk@w1");
		evlog[0] = '\0';
		iopol_ready(&p, 0, 32);
		ok(p.dev[0].learner == 1 && strstr(evlog, "registry") &&
			   !strstr(evlog, "begin"),
		   "ckpt does not take disk@w1 from it (%s)", evlog);
		iopol_finish(&p, 1, 0, gc, 0, 1, 1 << 20);
		iopol_release(&p);
		unlink(out);
		unlink(reg);
	}

	/* How unlike a run's task sizes were is kept beside their mean
	 * (a ninth field), read back, and a bad one refuses the line. */
	{
		char reg[] = "/tmp/wfrun-iopol-reg-XXXXXX";
		ok(reg_file(reg, "ckpt\tdisk\t100\tauto\t"
				 "100:1:5.12:12.5:12.5:0.03:0:136:0.61,"
				 "12.5:8:8.53:100:12.5:0.02:1:136:0.61\n"
				 "copy\tdisk\t100\tauto\t"
				 "100:1:5.12:12.5:12.5:0.03:0:136:-1\n"),
		   "a registry with spreads written");
		setup(&p, (struct wf_bw){ WF_BW_AUTO, 0, 0, 0, 0 }, 32);
		int rc = iopol_registry_load(&p, reg);
		ok(rc == 0 && p.nsaved == 1 && p.saved[0].reg[1].spread == 0.61,
		   "read back: 0.61; the line with -1 refused (%zu)",
		   p.nsaved);
		iopol_release(&p);
		unlink(reg);
	}

	return done_testing();
}
