/* Unit tests of temp.c: which readers a temp output waits for (its
 * version only, through a directory collection too), when it goes, and
 * the journal's word for it. */
#include <sys/stat.h>

#include "fixture.h"
#include "tap.h"
#include "temp.h"

static struct fixture fx;

static const char YAML[] =
	"tasks:\n"
	"  - name: p\n"
	"    out: {a: {temp: a}, b: {temp: b}, c: {temp: c}, x: {temp: t/x}}\n"
	"    run: \"true\"\n"
	"  - name: r1\n"
	"    in: {a: a, b: b}\n"
	"    out: {o: o1}\n"
	"    run: \"true\"\n"
	"  - name: r2\n"
	"    in: {a: a}\n"
	"    out: {o: o2}\n"
	"    run: \"true\"\n"
	"  - name: u\n"
	"    inout: {b: b}\n"
	"    run: \"true\"\n"
	"  - name: w\n"
	"    out: {c: c}\n"
	"    run: \"true\"\n"
	"  - name: g\n"
	"    in: {d: {dir: t}}\n"
	"    out: {o: o3}\n"
	"    run: \"true\"\n";

static bool
exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static uint32_t
task(const char *label)
{
	return fixture_task(&fx, label);
}

/* The files p writes. */
static void
make_files(void)
{
	put_file("a", "a\n");
	put_file("b", "b\n");
	put_file("c", "c\n");
	mkdir("t", 0777);
	put_file("t/x", "x\n");
}

/* Every task runs (run NULL) or those of run; p's files made. */
static void
start(struct temp *tp, const bool *run, bool deferred)
{
	bool all[8] = { true, true, true, true, true, true, true, true };
	make_files();
	temp_init(tp, &fx.pl, run ? run : all, true, deferred);
}

int
main(void)
{
	if (fixture_build(&fx, YAML, true, NULL) < 0) {
		diags_print(&fx.dg, stdout);
		return 1;
	}
	struct journal j;
	struct errbuf err;
	struct temp tp;
	make_files();
	fixture_record(&fx, task("'p'"));
	ok(journal_open(&j, "j", true, &err) == 0, "journal");
	start(&tp, NULL, false);
	is_int((long)tp.outs.n, 4, "four temp outputs");
	is_int((long)temp_task_done(&tp, &fx.pl, task("'r1'"), &j), 0,
	       "r1 done: a and b still read by r2 and u");
	ok(exists("a") && exists("b"), "both there");
	is_int((long)temp_task_done(&tp, &fx.pl, task("'r2'"), &j), 1,
	       "r2 done: a goes");
	ok(!exists("a"), "a removed");
	is_int((long)temp_task_done(&tp, &fx.pl, task("'u'"), &j), 0,
	       "u done: b, which it updated in place, stays");
	ok(exists("b"), "b there");
	is_int((long)temp_task_done(&tp, &fx.pl, task("'g'"), &j), 1,
	       "g, which reads the directory t, done: t/x goes");
	ok(!exists("t/x"), "t/x removed");
	fx.pl.dag.tasks.v[task("'p'")].state = TASK_DONE;
	is_int((long)temp_finish(&tp, &fx.pl, &j), 0,
	       "the end: c, which w writes again, stays");
	ok(exists("c"), "c there");
	journal_release(&j);
	ok(journal_open(&j, "j", false, &err) == 0, "read back");
	const struct jrec *r = journal_find(&j, "'p'");
	int kinds = 0;
	for (size_t i = 0; r && i < r->nf; i++)
		kinds += r->f[i].id.kind == 't';
	is_int(kinds, 2, "p's record: a and t/x removed, as kind t");
	journal_release(&j);
	temp_release(&tp);

	/* r2 up to date: r1 is a's last reader; nothing read by a run
	 * task goes at the end; deferred: only at the end */
	ok(journal_open(&j, "j", true, &err) == 0, "journal again");
	bool run[6] = { true, true, false, true, false, false };
	start(&tp, run, false);
	is_int((long)temp_task_done(&tp, &fx.pl, task("'r1'"), &j), 1,
	       "r2 up to date: r1 done, a goes");
	is_int((long)temp_finish(&tp, &fx.pl, &j), 1,
	       "the end: t/x, whose reader is up to date, goes");
	ok(exists("b") && exists("c"), "b (u runs, not done) and c stay");
	temp_release(&tp);
	start(&tp, NULL, true);
	is_int((long)temp_task_done(&tp, &fx.pl, task("'r1'"), &j) +
		       temp_task_done(&tp, &fx.pl, task("'r2'"), &j),
	       0, "deferred: nothing goes while tasks end");
	ok(exists("a"), "a there");
	is_int((long)temp_finish(&tp, &fx.pl, &j), 1,
	       "at the end, a (read by all its readers) goes");
	ok(!exists("a") && exists("t/x"), "a gone; t/x (g not done) stays");
	temp_release(&tp);
	journal_release(&j);
	fixture_release(&fx);
	return done_testing();
}
