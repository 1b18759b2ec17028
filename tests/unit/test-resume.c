/* Unit tests of resume: which tasks run again, and why, from the journal
 * of an earlier run and the files as they are now. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "expand.h"
#include "helpers.h"
#include "journal.h"
#include "path.h"
#include "resume.h"
#include "tap.h"

static struct workflow wf;
static struct plan pl;
static struct diags dg;
static struct resume rs;

static void
put(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	if (!fp || fputs(text, fp) < 0 || fclose(fp) != 0)
		exit(99);
}

/* Build the plan of yaml, in the current directory, or in a fresh one
 * made current (with its input seed.txt). */
static int
build(const char *yaml, bool fresh)
{
	const char *path;
	if (fresh) {
		path = write_tmp(yaml);
		char *dir = path_dirname(path);
		if (chdir(dir) < 0)
			exit(99);
		free(dir);
		put("seed.txt", "seed\n");
	} else {
		put("wf.yaml", yaml);
		path = "wf.yaml";
	}
	diags_init(&dg, path);
	if (workflow_load(&wf, path, &dg) < 0 || dg.nerrors)
		return -1;
	return plan_build(&pl, &wf, &dg, true);
}

static void
teardown(void)
{
	plan_release(&pl);
	workflow_release(&wf);
	diags_release(&dg);
}

static uint32_t
task(const char *label)
{
	struct strbuf sb = STRBUF_INIT;
	for (uint32_t t = 0; t < pl.dag.tasks.n; t++) {
		strbuf_reset(&sb);
		plan_label(&pl, t, &sb);
		if (!strcmp(sb.buf, label)) {
			strbuf_release(&sb);
			return t;
		}
	}
	strbuf_release(&sb);
	printf("# no task %s\n", label);
	exit(99);
}

/* "Run" every task: make its outputs (what its command would) and
 * record it in the journal, in order. */
static void
run_all(const char *const *outputs)
{
	struct journal j;
	struct errbuf err;
	struct resume r;
	struct strbuf sb = STRBUF_INIT;
	unlink("j");
	for (const char *const *o = outputs; *o; o++)
		put(*o, *o);
	if (journal_open(&j, "j", true, &err) < 0)
		exit(99);
	resume_plan(&r, &pl, NULL, NULL, true);
	for (uint32_t t = 0; t < pl.dag.tasks.n; t++)
		resume_record(&r, &pl, t, &j, &sb);
	if (journal_flush(&j, false, &err) < 0)
		exit(99);
	journal_release(&j);
	resume_release(&r);
	strbuf_release(&sb);
}

/* Plan the resumption from the journal on disk. */
static void
plan(const bool *forced, bool all)
{
	struct journal j;
	struct errbuf err;
	if (journal_open(&j, "j", false, &err) < 0)
		exit(99);
	resume_release(&rs);
	resume_plan(&rs, &pl, &j, forced, all);
	journal_release(&j);
}

/* Why task label runs, as resume_reason says it. */
static const char *
why(const char *label)
{
	static char buf[256];
	struct strbuf sb = STRBUF_INIT;
	resume_reason(&rs, &pl, task(label), &sb);
	snprintf(buf, sizeof(buf), "%s", sb.buf);
	strbuf_release(&sb);
	return buf;
}

/* Make path's mtime differ from what any record holds (same content). */
static void
touch_later(const char *path)
{
	struct timeval tv[2] = { { 2000000000, 0 }, { 2000000000, 0 } };
	if (utimes(path, tv) < 0)
		exit(99);
}

static const char *chain_outputs[] = { "a.txt", "b.txt", "c.txt", NULL };

static void
test_chain(void)
{
	/* a -> b -> c, and d apart */
	if (build("tasks:\n"
		  "  - name: a\n"
		  "    in: {s: seed.txt}\n"
		  "    out: {o: a.txt}\n"
		  "    run: \"cp {in.s} {out.o}\"\n"
		  "  - name: b\n"
		  "    in: {i: a.txt}\n"
		  "    out: {o: b.txt}\n"
		  "    run: \"cp {in.i} {out.o}\"\n"
		  "  - name: c\n"
		  "    in: {i: b.txt}\n"
		  "    out: {o: c.txt}\n"
		  "    run: \"cp {in.i} {out.o}\"\n", true) < 0) {
		ok(0, "the chain builds");
		return;
	}
	plan(NULL, false);
	is_int(rs.nskip, 0, "no journal: nothing is skipped");
	is_str(why("'a'"), "no record of it in the journal", "a: no record");

	run_all(chain_outputs);
	plan(NULL, false);
	is_int(rs.nskip, 3, "after a whole run every task is up to date");
	is_str(why("'b'"), "up to date", "b is up to date");
	ok(rs.unsafe == DAG_NONE, "no unsafe in-place update");

	bool forced[3] = { false, true, false };
	plan(forced, false);
	is_int(rs.why[task("'b'")], RESUME_FORCED, "a forced task runs");
	is_int(rs.why[task("'c'")], RESUME_PREDECESSOR, "so does what follows it");
	is_str(why("'c'"), "it depends on 'b', which runs", "... named");
	is_int(rs.why[task("'a'")], RESUME_SKIP, "what precedes it does not");
	is_int(rs.nskip, 1, "one skipped");

	plan(NULL, true);
	is_int(rs.nskip, 0, "all: nothing skipped");

	unlink("c.txt");
	plan(NULL, false);
	is_int(rs.why[task("'c'")], RESUME_MISSING, "a missing output reruns");
	is_str(why("'c'"), "its output 'o' (c.txt) is missing", "... named");
	is_int(rs.nskip, 2, "its predecessors do not");
	put("c.txt", "c.txt");

	/* same size and content, another mtime: the hash says unchanged */
	touch_later("b.txt");
	plan(NULL, false);
	is_int(rs.nskip, 3, "a touched output with its content is up to date");

	put("b.txt", "B.TXT");
	touch_later("b.txt");
	plan(NULL, false);
	is_int(rs.why[task("'b'")], RESUME_CHANGED_OUT, "a changed output reruns");
	is_str(why("'b'"), "its output 'o' (b.txt) changed since it was written",
	       "... named");
	is_int(rs.why[task("'c'")], RESUME_PREDECESSOR, "and its successor");
	is_int(rs.why[task("'a'")], RESUME_SKIP, "not its predecessor");
	put("b.txt", "b.txt");
	run_all(chain_outputs);

	put("seed.txt", "another seed\n");
	plan(NULL, false);
	is_int(rs.why[task("'a'")], RESUME_CHANGED_IN, "a changed input reruns");
	is_str(why("'a'"), "its input 's' (seed.txt) changed", "... named");
	is_int(rs.nskip, 0, "and everything after it");
	put("seed.txt", "seed\n");
	run_all(chain_outputs);
	teardown();

	/* the same tasks, b's command changed */
	if (build("tasks:\n"
		  "  - name: a\n"
		  "    in: {s: seed.txt}\n"
		  "    out: {o: a.txt}\n"
		  "    run: \"cp {in.s} {out.o}\"\n"
		  "  - name: b\n"
		  "    in: {i: a.txt}\n"
		  "    out: {o: b.txt}\n"
		  "    run: \"cat {in.i} > {out.o}\"\n"
		  "  - name: c\n"
		  "    in: {i: b.txt}\n"
		  "    out: {o: c.txt}\n"
		  "    run: \"cp {in.i} {out.o}\"\n", false) < 0) {
		ok(0, "the changed chain builds");
		return;
	}
	plan(NULL, false);
	is_int(rs.why[task("'b'")], RESUME_COMMAND, "a changed command reruns");
	is_str(why("'b'"), "its command changed", "... named");
	is_int(rs.nskip, 1, "with its successor, not its predecessor");
	teardown();
}

/* Record task label as the files are now, in the journal on disk. */
static void
record(const char *label)
{
	struct journal j;
	struct errbuf err;
	struct resume r;
	struct strbuf sb = STRBUF_INIT;
	if (journal_open(&j, "j", true, &err) < 0)
		exit(99);
	resume_plan(&r, &pl, NULL, NULL, true);
	resume_record(&r, &pl, task(label), &j, &sb);
	if (journal_flush(&j, false, &err) < 0)
		exit(99);
	journal_release(&j);
	resume_release(&r);
	strbuf_release(&sb);
}

static void
test_inout(void)
{
	/* make creates t.txt, two updates follow in place */
	if (build("tasks:\n"
		  "  - name: make\n"
		  "    out: {o: t.txt}\n"
		  "    run: \"echo 0 > {out.o}\"\n"
		  "  - name: up\n"
		  "    foreach: {i: \"1..2\"}\n"
		  "    inout: {t: t.txt}\n"
		  "    run: \"echo {i} >> {inout.t}\"\n", false) < 0) {
		ok(0, "the in-place chain builds");
		return;
	}
	unlink("j");
	put("t.txt", "0\n");
	record("'make'");
	put("t.txt", "0\n1\n");
	record("'up' (i=1)");
	put("t.txt", "0\n1\n2\n");
	record("'up' (i=2)");
	plan(NULL, false);
	is_int(rs.nskip, 3, "a whole run is up to date");

	bool forced[2] = { false, true };
	plan(forced, false);
	is_int(rs.why[task("'make'")], RESUME_REWRITTEN,
	       "an update in place that reruns needs its file made again");
	is_str(why("'make'"),
	       "'up' (i=1), which runs, updates its output in place",
	       "... named");
	ok(rs.unsafe == DAG_NONE, "the file is one a task creates: safe");
	teardown();

	/* an update in place of a file no task creates */
	if (build("tasks:\n"
		  "  - name: up\n"
		  "    in: {s: seed.txt}\n"
		  "    inout: {t: t.txt}\n"
		  "    run: \"cat {in.s} >> {inout.t}\"\n", false) < 0) {
		ok(0, "the lone update builds");
		return;
	}
	unlink("j");
	record("'up'");
	plan(NULL, false);
	ok(rs.nskip == 1 && rs.unsafe == DAG_NONE,
	   "up to date: no warning of an update made twice");
	put("seed.txt", "seed 2\n");
	plan(NULL, false);
	is_int(rs.why[task("'up'")], RESUME_CHANGED_IN, "its input changed");
	is_int(rs.unsafe, task("'up'"),
	       "rerunning an update of a file no task makes is unsafe");
	teardown();
}

int
main(void)
{
	test_chain();
	test_inout();
	resume_release(&rs);
	return done_testing();
}
