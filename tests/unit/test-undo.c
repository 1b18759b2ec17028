/* Unit tests of undo: the INOUT data a task updates are saved before it
 * runs and put back when it fails (what it left moved aside, never
 * deleted), dropped when it succeeds, and restored or dropped after a
 * killed run by what the journal says. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "tap.h"
#include "undo.h"

static struct fixture fx;

/* The text of a file ("(none)" when it cannot be read), static storage. */
static const char *
get(const char *path)
{
	static char buf[256];
	FILE *fp = fopen(path, "r");
	if (!fp)
		return "(none)";
	size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

static bool
exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

/* What the task "acc" does when it runs: update both INOUT data and
 * write its output. */
static void
acc_runs(void)
{
	put_file("acc.txt", "after\n");
	put_file("coll/a", "A2\n");
	put_file("coll/b", "new\n");
	put_file("out.txt", "partial\n");
}

static void
acc_before(void)
{
	undo_rmtree("coll");
	undo_rmtree(".wfrun");
	unlink("out.txt");
	put_file("acc.txt", "before\n");
	if (mkdir("coll", 0777) < 0)
		exit(99);
	put_file("coll/a", "A\n");
}

static void
test_save_and_fail(uint32_t acc, uint32_t plain)
{
	struct errbuf err;
	char *aside = NULL;
	ok(undo_has_inout(&fx.pl, acc), "a task with inout has INOUT data");
	ok(!undo_has_inout(&fx.pl, plain), "a task without inout has none");
	is_int(undo_save(&fx.pl, plain, NULL, &err), 0, "saving a task without INOUT");
	ok(!exists(".wfrun/saved"), "... saves nothing");

	acc_before();
	is_int(undo_save(&fx.pl, acc, NULL, &err), 1, "saved the INOUT data");
	ok(exists(".wfrun/saved/1/manifest"), "with its manifest");
	ok(!exists(".wfrun/saved/1.tmp"), "renamed into place");
	is_int(undo_save(&fx.pl, acc, NULL, &err), -1,
	       "a second save over an unrestored one is refused");
	ok(strstr(err.msg, "already holds the saved INOUT data") != NULL,
	   "... saying why: %s", err.msg);

	acc_runs();
	is_int(undo_fail(&fx.pl, acc, false, &aside, &err), 0, "failed: undone");
	is_str(get("acc.txt"), "before\n", "the INOUT file is put back");
	is_str(get("coll/a"), "A\n", "the INOUT collection is put back");
	ok(!exists("coll/b"), "without the file the task added to it");
	ok(!exists("out.txt"), "its output is gone from the workdir");
	is_str(aside, ".wfrun/failed/acc/1", "moved aside under failed/NAME/ID");
	is_str(get(".wfrun/failed/acc/1/out.txt"), "partial\n",
	       "the output it left is kept aside");
	is_str(get(".wfrun/failed/acc/1/acc.txt"), "after\n",
	       "so is the INOUT file as it left it");
	is_str(get(".wfrun/failed/acc/1/coll/b"), "new\n",
	       "and the collection as it left it");
	ok(!exists(".wfrun/saved/1"), "the saved copy is used up");
	free(aside);

	/* a second failure of the same task goes to a new directory */
	is_int(undo_save(&fx.pl, acc, NULL, &err), 1, "saved again");
	acc_runs();
	is_int(undo_fail(&fx.pl, acc, false, &aside, &err), 0, "failed again");
	is_str(aside, ".wfrun/failed/acc/1.2", "aside in a directory of its own");
	is_str(get(".wfrun/failed/acc/1/out.txt"), "partial\n",
	       "the first failure's files stay");
	free(aside);
}

static void
test_keep_and_discard(uint32_t acc)
{
	struct errbuf err;
	char *aside = NULL;
	acc_before();
	is_int(undo_save(&fx.pl, acc, NULL, &err), 1, "saved (on_failure: ignore)");
	acc_runs();
	is_int(undo_fail(&fx.pl, acc, true, &aside, &err), 0,
	       "failed, outputs kept");
	ok(aside == NULL, "nothing moved aside");
	is_str(get("acc.txt"), "after\n", "the INOUT file stays as it left it");
	is_str(get("out.txt"), "partial\n", "its output stays");
	ok(!exists(".wfrun/saved/1"), "the copy is dropped");

	acc_before();
	is_int(undo_save(&fx.pl, acc, NULL, &err), 1, "saved (success)");
	acc_runs();
	undo_discard(acc);
	ok(!exists(".wfrun/saved/1"), "a success drops the copy");
	is_str(get("acc.txt"), "after\n", "and keeps what the task wrote");
}

static size_t
recover(void)
{
	struct journal j;
	struct errbuf err;
	if (journal_open(&j, "j", false, &err) < 0)
		exit(99);
	size_t n = undo_recover(&j);
	journal_release(&j);
	return n;
}

static void
test_recover(uint32_t acc)
{
	struct errbuf err;
	/* killed while acc ran: no record, the copy is restored */
	acc_before();
	unlink("j");
	is_int(undo_save(&fx.pl, acc, NULL, &err), 1, "saved, then the master is killed");
	acc_runs();
	is_int(recover(), 1, "recovery restores one task's data");
	is_str(get("acc.txt"), "before\n", "the INOUT file is as before it ran");
	is_str(get("coll/a"), "A\n", "so is the collection");
	ok(!exists("coll/b"), "... without what it added");
	ok(!exists(".wfrun/saved/1"), "the copy is used up");

	/* killed after the record was written and marked: the copy goes */
	acc_before();
	is_int(undo_save(&fx.pl, acc, NULL, &err), 1, "saved again");
	acc_runs();
	fixture_record(&fx, acc);
	undo_succeeded(acc);
	put_file("acc.txt", "a later task changed it\n");
	is_int(recover(), 0, "a marked success is not restored");
	is_str(get("acc.txt"), "a later task changed it\n",
	       "even though the data changed since its record");
	ok(!exists(".wfrun/saved/1"), "its copy is dropped");

	/* recorded but not marked: dropped only while the data match */
	acc_before();
	unlink("j");
	is_int(undo_save(&fx.pl, acc, NULL, &err), 1, "saved a third time");
	acc_runs();
	fixture_record(&fx, acc);
	is_int(recover(), 0, "data as recorded: not restored");
	is_str(get("acc.txt"), "after\n", "the update stays");

	acc_before();
	unlink("j");
	is_int(undo_save(&fx.pl, acc, NULL, &err), 1, "saved a fourth time");
	acc_runs();
	fixture_record(&fx, acc);
	put_file("acc.txt", "torn\n");
	is_int(recover(), 1, "data unlike the record: restored");
	is_str(get("acc.txt"), "before\n", "back to before the task");

	/* a copy never renamed into place: its task never started */
	if (mkdir_p(".wfrun/saved/1.tmp", 0777) < 0)
		exit(99);
	put_file(".wfrun/saved/1.tmp/0", "half");
	put_file("acc.txt", "untouched\n");
	is_int(recover(), 0, "a half-made copy restores nothing");
	ok(!exists(".wfrun/saved/1.tmp"), "it is removed");
	is_str(get("acc.txt"), "untouched\n", "and the data stay as they are");
}

int
main(void)
{
	if (fixture_build(&fx, "tasks:\n"
		  "  - name: acc\n"
		  "    inout: {t: acc.txt, c: {dir: coll}}\n"
		  "    out: {o: out.txt}\n"
		  "    run: \"echo x >> {inout.t}\"\n"
		  "  - name: plain\n"
		  "    out: {o: p.txt}\n"
		  "    run: \"echo y > {out.o}\"\n", true, acc_before) < 0) {
		ok(0, "the plan builds");
		return done_testing();
	}
	/* (the INOUT data must exist when the plan is built) */
	uint32_t acc = fixture_task(&fx, "'acc'");
	uint32_t plain = fixture_task(&fx, "'plain'");
	test_save_and_fail(acc, plain);
	test_keep_and_discard(acc);
	test_recover(acc);
	fixture_release(&fx);
	return done_testing();
}
