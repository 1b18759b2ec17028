/* Unit tests of report's layout, through report.h: the trace's columns
 * by name, lanes per worker and kind (a task of c cores in c lanes, the
 * earliest free first), the slots' drawing order, the learning curves
 * from events.jsonl, retries and preemptions, and run.json's header. */
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "path.h"
#include "report.h"
#include "tap.h"

/* Write text to a file called name in a fresh temporary directory; its
 * path (static storage). */
static const char *
beside(const char *name, const char *text)
{
	static char path[512];
	char *dir = path_dirname(write_tmp(text));
	char *from = xasprintf("%s/wf.yaml", dir);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (rename(from, path) < 0)
		exit(99);
	free(from);
	free(dir);
	return path;
}

static const struct report_task *
find(const struct report *r, const char *name)
{
	for (size_t i = 0; i < r->tasks.n; i++)
		if (!strcmp(r->tasks.v[i].name, name))
			return &r->tasks.v[i];
	printf("# no task %s\n", name);
	exit(99);
}

static const char *
worker_name(const struct report *r, const char *task)
{
	return r->workers.v[find(r, task)->worker].name;
}

/* The slots of worker w, kind io, as "NAME@LANE ..." in their order. */
static const char *
slots(const struct report *r, uint32_t w, bool io)
{
	static char buf[512];
	buf[0] = '\0';
	for (size_t i = 0; i < r->slots.n; i++) {
		const struct report_task *t = &r->tasks.v[r->slots.v[i].task];
		if (t->worker == w && t->io == io)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
				 "%s@%u ", t->name, r->slots.v[i].lane);
	}
	return buf;
}

/* Columns in an unusual order, one unknown, a worker left empty. */
static const char trace[] =
	"cores\tstatus\tcomplete\tname\tnew_col\tworker\tkind\tstart\texit\n"
	"1\tCOMPLETED\t10\tA\tx\tw1\tcompute\t0\t0\n"
	"1\tCOMPLETED\t5\tB\tx\tw1\tcompute\t0\t0\n"
	"1\tCOMPLETED\t8\tC\tx\tw1\tcompute\t5\t0\n"
	"2\tCOMPLETED\t12\tD\tx\tw1\tcompute\t10\t0\n"
	"1\tCOMPLETED\t13\tE\tx\tw1\tcompute\t11\t0\n"
	"4\tCOMPLETED\t3\tF\tx\tw1\tio\t1\t0\n"
	"1\tCOMPLETED\t4\tG\tx\tw1\tio\t2\t0\n"
	"1\tCOMPLETED\t5\tH\tx\tw1\tio\t3\t0\n"
	"1\tFAILED\t1\tI\tx\tw2\tcompute\t0.5\t3\n"
	"3\tCOMPLETED\t6\tJ\tx\t\tcompute\t7\t0\n";

static void
test_lanes(void)
{
	struct report r;
	struct errbuf err;
	report_init(&r);
	is_int(report_load_trace(&r, beside("trace.tsv", trace), &err), 0,
	       "the trace loads");
	report_finish(&r);
	is_int(r.tasks.n, 10, "ten tasks");
	ok(r.t0 == 0 && r.t1 == 13, "from the earliest start to the latest "
	   "complete (%g to %g)", r.t0, r.t1);
	is_int(r.nfailed, 1, "one failed");
	ok(find(&r, "I")->failed && find(&r, "I")->exit_code == 3,
	   "I failed with exit 3");
	is_str(worker_name(&r, "J"), "local", "an empty worker is local");
	ok(find(&r, "J")->complete == 7, "a complete before start is its start");
	is_int(find(&r, "F")->cores, 1, "an I/O task takes one lane whatever "
	       "its cores");

	uint32_t w1 = find(&r, "A")->worker;
	/* in start order, the shorter first at a tie: B [0,5) lane 0, A
	 * [0,10) lane 1, C [5,8) the lane B freed, D [10,12) of 2 cores
	 * the two earliest free lanes (0 at 8, then 1 at 10), E [11,13) a
	 * third lane */
	is_int(find(&r, "B")->lane, 0, "B, the shorter at a tie: lane 0");
	is_int(find(&r, "A")->lane, 1, "A, at the same time: lane 1");
	is_int(find(&r, "C")->lane, 0, "C takes the lane B freed");
	is_int(find(&r, "D")->lane, 0, "D's first lane is the earliest free");
	is_int(find(&r, "E")->lane, 2, "E, with none free, a new lane");
	is_int(r.workers.v[w1].cpu_lanes, 3, "w1: three compute lanes");
	is_str(slots(&r, w1, false), "B@0 C@0 D@0 A@1 D@1 E@2 ",
	       "slots by lane then start; D in two lanes");
	/* I/O apart: F [1,3) 0, G [2,4) 1, H [3,5) the lane F freed */
	is_int(r.workers.v[w1].io_lanes, 2, "w1: two I/O lanes");
	is_str(slots(&r, w1, true), "F@0 H@0 G@1 ", "I/O slots");
	uint32_t local = find(&r, "J")->worker;
	is_int(r.workers.v[local].cpu_lanes, 3, "J of 3 cores: three lanes");
	is_int(r.workers.v[local].io_lanes, 0, "and no I/O lane");
	is_int(r.slots.n, 13, "a slot per task and core (I/O: one)");
	/* slots are grouped by worker, compute before I/O */
	bool grouped = true;
	for (size_t i = 1; i < r.slots.n; i++) {
		const struct report_task *a = &r.tasks.v[r.slots.v[i - 1].task],
					 *b = &r.tasks.v[r.slots.v[i].task];
		if (a->worker > b->worker ||
		    (a->worker == b->worker && a->io && !b->io))
			grouped = false;
	}
	ok(grouped, "slots grouped by worker, compute then I/O");
	report_release(&r);
}

/* Loading text as a trace (or as events) fails, with msg in the error. */
static void
load_fails(const char *name, const char *text, bool as_events,
	   const char *msg, const char *what)
{
	struct report r;
	struct errbuf err;
	report_init(&r);
	const char *path = beside(name, text);
	int rc = as_events ? report_load_events(&r, path, &err)
			   : report_load_trace(&r, path, &err);
	is_int(rc, -1, "%s is refused", what);
	ok(rc < 0 && strstr(err.msg, msg) != NULL, "... saying so: %s",
	   rc < 0 ? err.msg : "");
	report_release(&r);
}

static void
test_errors(void)
{
	load_fails("t.tsv", "name\tstart\n", false, "no 'complete' column",
		   "a trace without complete");
	load_fails("t.tsv", "name\tstart\tcomplete\na\t1\t2\nb\tsoon\t3\n",
		   false, "t.tsv:3: start and complete must be times",
		   "a start that is no number");
	load_fails("e.jsonl", "{\"ev\":\"epoch_end\",\"name\":\"a\",\"c\":1}\n",
		   true, "e.jsonl:1: epoch_end without a numeric \"epoch\"",
		   "an epoch without its number");
}

static const char events[] =
	"{\"t\":1,\"ev\":\"epoch_begin\",\"name\":\"ckpt\",\"device\":\"d\","
	"\"epoch\":2,\"c\":4,\"k\":2}\n"
	"{\"t\":1,\"ev\":\"run_start\",\"name\":\"x\"}\n"
	"{\"t\":2,\"ev\":\"epoch_end\",\"name\":\"ckpt\",\"device\":\"d\","
	"\"epoch\":1,\"c\":2,\"k\":1,\"tasks\":5,\"t_s\":1.5,"
	"\"registered\":true}\n"
	"\n"
	"{\"t\":3,\"ev\":\"epoch_end\",\"name\":\"ckpt\",\"device\":\"d\","
	"\"epoch\":2,\"c\":4,\"k\":2,\"tasks\":6,\"mean_s\":2.5,"
	"\"registered\":false}\n"
	"{\"t\":4,\"ev\":\"constraint\",\"name\":\"ckpt\",\"device\":\"d\","
	"\"c\":2,\"k\":1,\"n\":9,\"why\":\"learned\"}\n";

static void
test_curves(void)
{
	struct report r;
	struct errbuf err;
	report_init(&r);
	is_int(report_load_trace(&r, beside("trace.tsv", trace), &err), 0,
	       "the trace loads again");
	is_int(report_load_events(&r, beside("events.jsonl", events), &err), 0,
	       "the events load");
	report_finish(&r);
	is_int(r.curves.n, 1, "one learning curve");
	if (r.curves.n != 1)
		goto out;
	const struct report_curve *c = &r.curves.v[0];
	ok(!strcmp(c->name, "ckpt") && !strcmp(c->device, "d") &&
	   !c->from_trace, "of ckpt on d, from the events");
	is_int(c->epochs.n, 2, "two epochs");
	if (c->epochs.n == 2) {
		is_int(c->epochs.v[0].epoch, 1, "sorted by epoch");
		ok(c->epochs.v[0].ended && c->epochs.v[0].registered &&
		   c->epochs.v[0].tasks == 5 && c->epochs.v[0].mean_s == 1.5,
		   "epoch 1: ended, registered, 5 tasks, t_s 1.5");
		ok(c->epochs.v[1].c == 4 && c->epochs.v[1].k == 2 &&
		   !c->epochs.v[1].registered && c->epochs.v[1].mean_s == 2.5,
		   "epoch 2: c 4, k 2, not registered, mean_s for t_s");
	}
	ok(c->chosen && c->c == 2 && c->k == 1 && c->n == 9 &&
	   !strcmp(c->why, "learned"), "the constraint chosen and why");
out:
	report_release(&r);
}

/* A ramp line: a row of its own after its epoch's, which keeps its own
 * rate; the HTML says what it is. */
static const char ramp_events[] =
	"{\"t\":1,\"ev\":\"epoch_begin\",\"name\":\"ckpt\",\"device\":\"d\","
	"\"step\":\"fill\",\"best\":1,\"best_rate\":12,\"lo\":0,\"hi\":0,"
	"\"epoch\":2,\"c\":12.5,\"k\":16}\n"
	"{\"t\":3,\"ev\":\"ramp\",\"name\":\"ckpt\",\"device\":\"d\","
	"\"epoch\":2,\"c\":25,\"k\":8,\"mbps\":96,\"after_s\":2.1,"
	"\"err\":0.02,\"fill\":16}\n"
	"{\"t\":4,\"ev\":\"rate\",\"name\":\"ckpt\",\"device\":\"d\","
	"\"epoch\":2,\"c\":12.5,\"k\":16,\"mbps\":27,\"after_s\":0.2,"
	"\"err\":0.1,\"fill\":16}\n"
	"{\"t\":4,\"ev\":\"epoch_end\",\"name\":\"ckpt\",\"device\":\"d\","
	"\"epoch\":2,\"c\":12.5,\"k\":16,\"tasks\":16,\"t_s\":37.9,"
	"\"mbps\":27,\"registered\":true}\n";

static void
test_ramp(void)
{
	struct report r;
	struct errbuf err;
	report_init(&r);
	is_int(report_load_trace(&r, beside("trace.tsv", trace), &err), 0,
	       "ramp: the trace loads");
	is_int(report_load_events(&r, beside("ramp.jsonl", ramp_events), &err),
	       0, "ramp: the events load");
	report_finish(&r);
	const struct report_curve *c = r.curves.n ? &r.curves.v[0] : NULL;
	ok(c && c->epochs.n == 2, "ramp: epoch 2 and its ramp row");
	if (!c || c->epochs.n != 2)
		goto out;
	const struct report_epoch *e = &c->epochs.v[0], *j = &c->epochs.v[1];
	ok(!e->ramp && e->k == 16 && e->rate_s == 0.2 && e->rate_err == 0.1 &&
	   e->mbps == 27 && e->tasks == 16,
	   "ramp: the epoch keeps its own k, rate and tasks");
	ok(j->ramp && j->epoch == 2 && j->k == 8 && j->c == 25 &&
	   j->mbps == 96 && j->rate_s == 2.1 && j->rate_err == 0.02 &&
	   j->registered && j->mean_s < 0,
	   "ramp: its row: 8 writers, 96 MB/s over 2.1 s, registered");
	char *html = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&html, &len);
	report_write_html(&r, fp, &err);
	fclose(fp);
	ok(html && strstr(html, "<td>2 (ramp)</td><td>25 MB/s</td><td>8</td>"
				"<td>–</td>") &&
	   strstr(html, "while its epoch's writers ramped up, over 2.10 s: "
			"96 MB/s, within 2.0 %") &&
	   strstr(html, ">2r</text>"),
	   "ramp: the HTML names its row, how it was measured, its axis "
	   "label");
	free(html);
out:
	report_release(&r);
}

/* run.json as history.c writes it: strings unescaped, the command line
 * joined and quoted, nulls unknown; attempts and preemption from the
 * trace. */
static void
test_run(void)
{
	struct report r;
	struct errbuf err;
	report_init(&r);
	const char *path = beside("run.json", "{\n"
		"  \"id\": \"20260101-000000-000001\",\n"
		"  \"start\": 1767225600.25,\n  \"end\": null,\n"
		"  \"argv\": [\"wfrun\", \"-j\", \"\", \"a b\", \"t\\\"q\\\\\\u0041\"],\n"
		"  \"version\": \"1.2\",\n  \"workflow\": \"/w/x.yaml\",\n"
		"  \"resources\": null,\n  \"exit\": null,\n"
		"  \"status\": \"running\",\n"
		"  \"counts\": {\"run\": 4, \"up_to_date\": 2, \"failed\": 1, "
		"\"cancelled\": 3, \"not_run\": 0, \"left_out\": 0}\n}\n");
	ok(report_load_run(&r, path, &err) == 0, "run.json loads");
	ok(r.run.have, "the report has a run record");
	is_str(r.run.id, "20260101-000000-000001", "its id");
	ok(r.run.start == 1767225600.25 && r.run.end < 0, "start; end null");
	is_str(r.run.argv, "wfrun -j '' 'a b' 't\"q\\A'", "argv joined, quoted");
	is_str(r.run.version, "1.2", "version");
	is_str(r.run.workflow, "/w/x.yaml", "workflow");
	ok(!r.run.resources && r.run.exit == -1, "null resources and exit");
	is_str(r.run.status, "running", "status");
	ok(r.run.run == 4 && r.run.up_to_date == 2 && r.run.failed == 1 &&
	   r.run.cancelled == 3 && r.run.not_run == 0, "the counts");
	ok(report_load_run(&r, "/nonexistent/run.json", &err) < 0 &&
	   strstr(err.msg, "/nonexistent/run.json"), "a missing one: %s",
	   err.msg);
	const char *t = beside("t.tsv", "name\tstatus\tattempt\tstart\t"
			       "complete\na\tPREEMPTED\t1\t0\t1\n"
			       "a\tCOMPLETED\t2\t1\t2\n");
	ok(report_load_trace(&r, t, &err) == 0, "a trace with a retry loads");
	ok(r.tasks.v[0].preempted && !r.tasks.v[0].failed &&
	   r.tasks.v[1].attempt == 2 && r.nfailed == 0,
	   "a preempted attempt is no failure; the retry is attempt 2");
	report_release(&r);
}

int
main(void)
{
	test_run();
	test_lanes();
	test_errors();
	test_curves();
	test_ramp();
	return done_testing();
}
