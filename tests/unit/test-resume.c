/* Unit tests of resume: which tasks run again, and why, from the journal
 * of an earlier run and the files as they are now. */
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "fixture.h"
#include "tap.h"

static struct fixture fx;
static struct resume rs;

/* The input of every workflow here. */
static void
seed(void)
{
	put_file("seed.txt", "seed\n");
}

static uint32_t
task(const char *label)
{
	return fixture_task(&fx, label);
}

/* "Run" every task: make its outputs (what its command would) and
 * record it in the journal, in order. */
static void
run_all(const char *const *outputs)
{
	unlink("j");
	for (const char *const *o = outputs; *o; o++)
		put_file(*o, *o);
	for (uint32_t t = 0; t < fx.pl.dag.tasks.n; t++)
		fixture_record(&fx, t);
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
	resume_plan(&rs, &fx.pl, &j, forced, all);
	journal_release(&j);
}

/* Whether task t has an access that rs.first marks. */
static bool
first_update(uint32_t t)
{
	const struct dag_task *dt = &fx.pl.dag.tasks.v[t];
	for (uint32_t i = 0; i < dt->nacc; i++)
		if (rs.first[dt->acc + i])
			return true;
	return false;
}

/* Why task label runs, as resume_reason says it. */
static const char *
why(const char *label)
{
	static char buf[256];
	struct strbuf sb = STRBUF_INIT;
	resume_reason(&rs, &fx.pl, task(label), &sb);
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

/* a -> b -> c, b's command given */
static int
build_chain(const char *b_cmd, bool fresh)
{
	char yaml[512];
	snprintf(yaml, sizeof(yaml),
		 "tasks:\n"
		 "  - name: a\n"
		 "    in: {s: seed.txt}\n"
		 "    out: {o: a.txt}\n"
		 "    run: \"cp {in.s} {out.o}\"\n"
		 "  - name: b\n"
		 "    in: {i: a.txt}\n"
		 "    out: {o: b.txt}\n"
		 "    run: \"%s\"\n"
		 "  - name: c\n"
		 "    in: {i: b.txt}\n"
		 "    out: {o: c.txt}\n"
		 "    run: \"cp {in.i} {out.o}\"\n", b_cmd);
	return fixture_build(&fx, yaml, fresh, fresh ? seed : NULL);
}

static void
test_chain(void)
{
	if (build_chain("cp {in.i} {out.o}", true) < 0) {
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
	is_int(rs.norig, 0, "no original to put back");

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
	put_file("c.txt", "c.txt");

	/* same size and content, another mtime: the hash says unchanged */
	touch_later("b.txt");
	plan(NULL, false);
	is_int(rs.nskip, 3, "a touched output with its content is up to date");

	put_file("b.txt", "B.TXT");
	touch_later("b.txt");
	plan(NULL, false);
	is_int(rs.why[task("'b'")], RESUME_CHANGED_OUT, "a changed output reruns");
	is_str(why("'b'"), "its output 'o' (b.txt) changed since it was written",
	       "... named");
	is_int(rs.why[task("'c'")], RESUME_PREDECESSOR, "and its successor");
	is_int(rs.why[task("'a'")], RESUME_SKIP, "not its predecessor");
	put_file("b.txt", "b.txt");
	run_all(chain_outputs);

	put_file("seed.txt", "another seed\n");
	plan(NULL, false);
	is_int(rs.why[task("'a'")], RESUME_CHANGED_IN, "a changed input reruns");
	is_str(why("'a'"), "its input 's' (seed.txt) changed", "... named");
	is_int(rs.nskip, 0, "and everything after it");
	put_file("seed.txt", "seed\n");
	run_all(chain_outputs);
	fixture_release(&fx);

	/* the same tasks, b's command changed */
	if (build_chain("cat {in.i} > {out.o}", false) < 0) {
		ok(0, "the changed chain builds");
		return;
	}
	plan(NULL, false);
	is_int(rs.why[task("'b'")], RESUME_COMMAND, "a changed command reruns");
	is_str(why("'b'"), "its command changed", "... named");
	is_int(rs.nskip, 1, "with its successor, not its predecessor");
	fixture_release(&fx);
}

static void
record(const char *label)
{
	fixture_record(&fx, task(label));
}

static void
test_inout(void)
{
	/* make creates t.txt, two updates follow in place */
	if (fixture_build(&fx, "tasks:\n"
		  "  - name: make\n"
		  "    out: {o: t.txt}\n"
		  "    run: \"echo 0 > {out.o}\"\n"
		  "  - name: up\n"
		  "    foreach: {i: \"1..2\"}\n"
		  "    inout: {t: t.txt}\n"
		  "    run: \"echo {i} >> {inout.t}\"\n", false, NULL) < 0) {
		ok(0, "the in-place chain builds");
		return;
	}
	unlink("j");
	put_file("t.txt", "0\n");
	record("'make'");
	put_file("t.txt", "0\n1\n");
	record("'up' (i=1)");
	put_file("t.txt", "0\n1\n2\n");
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
	ok(rs.norig == 0 && !first_update(task("'up' (i=1)")),
	   "the file is one a task creates: no original kept");
	fixture_release(&fx);

	/* an update in place of a file no task creates */
	if (fixture_build(&fx, "tasks: [{name: up, in: {s: seed.txt}, "
			  "inout: {t: t.txt}, run: \"cat {in.s} >> {inout.t}\"}]\n",
			  false, NULL) < 0) {
		ok(0, "the lone update builds");
		return;
	}
	unlink("j");
	record("'up'");
	plan(NULL, false);
	ok(rs.nskip == 1 && rs.norig == 0,
	   "up to date: no original to put back");
	uint32_t up = task("'up'");
	ok(first_update(up), "its update of a file no task makes is a first one");
	put_file("seed.txt", "seed 2\n");
	plan(NULL, false);
	is_int(rs.why[up], RESUME_CHANGED_IN, "its input changed");
	ok(rs.norig == 1 && rs.orig[0].updater == up &&
	   rs.orig[0].reader == DAG_NONE &&
	   !strcmp(fx.pl.dag.data.v[rs.orig[0].datum].path, "t.txt"),
	   "rerunning an update of a file no task makes puts back t.txt");
	ok(rs.ndrop == 1 && rs.drop[0] == up, "... and drops its record");
	/* its record made void: it runs again even with its input as it
	 * was, and the original is still put back (it ran before) */
	put_file("seed.txt", "seed\n");
	struct journal j;
	struct errbuf err;
	if (journal_open(&j, "j", true, &err) < 0)
		exit(99);
	resume_drop_records(&rs, &fx.pl, &j);
	if (journal_flush(&j, false, &err) < 0)
		exit(99);
	journal_release(&j);
	plan(NULL, false);
	is_int(rs.why[up], RESUME_DROPPED, "a void record: it runs again");
	is_str(why("'up'"), "its record was dropped when the original of a "
	       "workflow input it updates was put back", "... and says why");
	is_int(rs.norig, 1, "... from the original");
	fixture_release(&fx);
}

/* A chain run on workers whose workdir is not shared, --fetch final:
 * a.txt and b.txt stayed there (recorded absent), c.txt came back. */
static void
test_left(void)
{
	if (build_chain("cp {in.i} {out.o}", false) < 0) {
		ok(0, "the chain builds");
		return;
	}
	bool none[4] = { false, false, false, false };
	unlink("j");
	unlink("a.txt");
	unlink("b.txt");
	put_file("c.txt", "c");
	fixture_record_got(&fx, task("'a'"), none);
	fixture_record_got(&fx, task("'b'"), none);
	record("'c'");
	plan(NULL, false);
	is_int(rs.nskip, 3, "what stayed on a worker, absent here: up to date");
	unlink("c.txt");
	plan(NULL, false);
	is_int(rs.why[task("'c'")], RESUME_MISSING, "c's output is missing");
	is_int(rs.why[task("'b'")], RESUME_LEFT,
	       "b, which left what c reads on a worker, runs with it");
	is_str(why("'b'"), "'c', which runs, reads what it left on a worker",
	       "... named");
	is_int(rs.why[task("'a'")], RESUME_LEFT, "and a, for b, in turn");
	put_file("c.txt", "c");
	put_file("b.txt", "b");
	plan(NULL, false);
	is_int(rs.why[task("'b'")], RESUME_CHANGED_OUT,
	       "a file where b recorded none: b runs");
	unlink("b.txt");
	fixture_release(&fx);
}

int
main(void)
{
	test_chain();
	test_inout();
	test_left();
	resume_release(&rs);
	return done_testing();
}
