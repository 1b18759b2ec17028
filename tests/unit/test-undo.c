/* Unit tests of undo: the INOUT data a task updates are saved before it
 * runs and put back when it fails (what it left moved aside, never
 * deleted), dropped when it succeeds, and restored or dropped after a
 * killed run by what the journal says. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "expand.h"
#include "helpers.h"
#include "journal.h"
#include "path.h"
#include "resume.h"
#include "tap.h"
#include "undo.h"

static struct workflow wf;
static struct plan pl;
static struct diags dg;

static void acc_before(void);

/* Build the plan of yaml in a fresh directory, made the current one,
 * where the INOUT data exist. */
static int
build(const char *yaml)
{
	const char *path = write_tmp(yaml);
	char *dir = path_dirname(path);
	if (chdir(dir) < 0)
		exit(99);
	free(dir);
	acc_before();
	diags_init(&dg, path);
	if (workflow_load(&wf, path, &dg) < 0 || dg.nerrors)
		return -1;
	return plan_build(&pl, &wf, &dg, true);
}

static void
put(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	if (!fp || fputs(text, fp) < 0 || fclose(fp) != 0)
		exit(99);
}

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

/* The task named name (its first instance). */
static uint32_t
task(const char *name)
{
	for (uint32_t t = 0; t < pl.dag.tasks.n; t++)
		if (!strcmp(wf.tasks[pl.dag.tasks.v[t].tmpl].name, name))
			return t;
	return DAG_NONE;
}

/* What the task "acc" does when it runs: update both INOUT data and
 * write its output. */
static void
acc_runs(void)
{
	put("acc.txt", "after\n");
	put("coll/a", "A2\n");
	put("coll/b", "new\n");
	put("out.txt", "partial\n");
}

static void
acc_before(void)
{
	undo_rmtree("coll");
	undo_rmtree(".wfrun");
	unlink("out.txt");
	put("acc.txt", "before\n");
	if (mkdir("coll", 0777) < 0)
		exit(99);
	put("coll/a", "A\n");
}

static void
test_save_and_fail(uint32_t acc, uint32_t plain)
{
	struct errbuf err;
	char *aside = NULL;
	ok(undo_has_inout(&pl, acc), "a task with inout has INOUT data");
	ok(!undo_has_inout(&pl, plain), "a task without inout has none");
	is_int(undo_save(&pl, plain, &err), 0, "saving a task without INOUT");
	ok(!exists(".wfrun/saved"), "... saves nothing");

	acc_before();
	is_int(undo_save(&pl, acc, &err), 0, "saved the INOUT data");
	ok(exists(".wfrun/saved/1/manifest"), "with its manifest");
	ok(!exists(".wfrun/saved/1.tmp"), "renamed into place");
	is_int(undo_save(&pl, acc, &err), -1,
	       "a second save over an unrestored one is refused");
	ok(strstr(err.msg, "already holds the saved INOUT data") != NULL,
	   "... saying why: %s", err.msg);

	acc_runs();
	is_int(undo_fail(&pl, acc, false, &aside, &err), 0, "failed: undone");
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
	is_int(undo_save(&pl, acc, &err), 0, "saved again");
	acc_runs();
	is_int(undo_fail(&pl, acc, false, &aside, &err), 0, "failed again");
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
	is_int(undo_save(&pl, acc, &err), 0, "saved (on_failure: ignore)");
	acc_runs();
	is_int(undo_fail(&pl, acc, true, &aside, &err), 0,
	       "failed, outputs kept");
	ok(aside == NULL, "nothing moved aside");
	is_str(get("acc.txt"), "after\n", "the INOUT file stays as it left it");
	is_str(get("out.txt"), "partial\n", "its output stays");
	ok(!exists(".wfrun/saved/1"), "the copy is dropped");

	acc_before();
	is_int(undo_save(&pl, acc, &err), 0, "saved (success)");
	acc_runs();
	undo_discard(acc);
	ok(!exists(".wfrun/saved/1"), "a success drops the copy");
	is_str(get("acc.txt"), "after\n", "and keeps what the task wrote");
}

/* Write the journal j with the record of task t as the data are now. */
static void
record(uint32_t t)
{
	struct journal j;
	struct errbuf err;
	struct resume rs;
	struct strbuf sb = STRBUF_INIT;
	if (journal_open(&j, "j", true, &err) < 0)
		exit(99);
	/* resume_record needs only the per-datum identities */
	memset(&rs, 0, sizeof(rs));
	rs.ids = xcalloc(pl.dag.data.n, sizeof(*rs.ids));
	resume_record(&rs, &pl, t, &j, &sb);
	if (journal_flush(&j, false, &err) < 0)
		exit(99);
	journal_release(&j);
	free(rs.ids);
	strbuf_release(&sb);
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
	is_int(undo_save(&pl, acc, &err), 0, "saved, then the master is killed");
	acc_runs();
	is_int(recover(), 1, "recovery restores one task's data");
	is_str(get("acc.txt"), "before\n", "the INOUT file is as before it ran");
	is_str(get("coll/a"), "A\n", "so is the collection");
	ok(!exists("coll/b"), "... without what it added");
	ok(!exists(".wfrun/saved/1"), "the copy is used up");

	/* killed after the record was written and marked: the copy goes */
	acc_before();
	is_int(undo_save(&pl, acc, &err), 0, "saved again");
	acc_runs();
	record(acc);
	undo_succeeded(acc);
	put("acc.txt", "a later task changed it\n");
	is_int(recover(), 0, "a marked success is not restored");
	is_str(get("acc.txt"), "a later task changed it\n",
	       "even though the data changed since its record");
	ok(!exists(".wfrun/saved/1"), "its copy is dropped");

	/* recorded but not marked: dropped only while the data match */
	acc_before();
	unlink("j");
	is_int(undo_save(&pl, acc, &err), 0, "saved a third time");
	acc_runs();
	record(acc);
	is_int(recover(), 0, "data as recorded: not restored");
	is_str(get("acc.txt"), "after\n", "the update stays");

	acc_before();
	unlink("j");
	is_int(undo_save(&pl, acc, &err), 0, "saved a fourth time");
	acc_runs();
	record(acc);
	put("acc.txt", "torn\n");
	is_int(recover(), 1, "data unlike the record: restored");
	is_str(get("acc.txt"), "before\n", "back to before the task");

	/* a copy never renamed into place: its task never started */
	if (mkdir_p(".wfrun/saved/1.tmp", 0777) < 0)
		exit(99);
	put(".wfrun/saved/1.tmp/0", "half");
	put("acc.txt", "untouched\n");
	is_int(recover(), 0, "a half-made copy restores nothing");
	ok(!exists(".wfrun/saved/1.tmp"), "it is removed");
	is_str(get("acc.txt"), "untouched\n", "and the data stay as they are");
}

int
main(void)
{
	if (build("tasks:\n"
		  "  - name: acc\n"
		  "    inout: {t: acc.txt, c: {dir: coll}}\n"
		  "    out: {o: out.txt}\n"
		  "    run: \"echo x >> {inout.t}\"\n"
		  "  - name: plain\n"
		  "    out: {o: p.txt}\n"
		  "    run: \"echo y > {out.o}\"\n") < 0) {
		ok(0, "the plan builds: %s", dg.nerrors ? "errors" : "");
		return done_testing();
	}
	uint32_t acc = task("acc"), plain = task("plain");
	ok(acc != DAG_NONE && plain != DAG_NONE, "both tasks are in the plan");
	test_save_and_fail(acc, plain);
	test_keep_and_discard(acc);
	test_recover(acc);
	plan_release(&pl);
	workflow_release(&wf);
	diags_release(&dg);
	return done_testing();
}
