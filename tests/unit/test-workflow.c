/* Unit tests of the workflow loader: values, errors and their positions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "tap.h"
#include "workflow.h"

static struct workflow wf;
static struct diags dg;

static int
load(const char *yaml)
{
	workflow_release(&wf);
	diags_release(&dg);
	const char *path = write_tmp(yaml);
	diags_init(&dg, path);
	if (workflow_load(&wf, path, &dg) < 0)
		return -1;
	return dg.nerrors ? -1 : 0;
}

static const char *
err(size_t i)
{
	return i < dg.list.n ? dg.list.v[i].msg : "";
}

/* List vars, outside values, file indices in locations. */
static void
vars_and_files(void)
{
	struct wf_loc l = wf_loc_at(7, 12, 3);
	is_int(l.line, 7, "a loc's line");
	is_int(WF_LOC_COL(l), 12, "its column");
	is_int(WF_LOC_FILE(l), 3, "its file");
	l = wf_loc_at(1, 5000000, 0);
	is_int(WF_LOC_COL(l), WF_MAX_COL, "a column too far is the last one");
	is_int(WF_LOC_FILE(l), 0, "and leaves the file alone");

	struct diags d;
	diags_init(&d, "main.yaml");
	is_int(diags_file(&d, "main.yaml"), 0, "the diags' own file is 0");
	is_int(diags_file(&d, "a.yaml"), 1, "another file is 1");
	is_int(diags_file(&d, "b.yaml"), 2, "the next 2");
	is_int(diags_file(&d, "a.yaml"), 1, "a file named again keeps its index");
	is_str(diags_file_name(&d, 2), "b.yaml", "index to name");
	is_str(diags_file_name(&d, 9), "main.yaml", "an unknown index: the main file");
	diags_release(&d);

	is_int(load("vars: {s: [a, \"b c\"], e: [], x: \"{y}\", y: 1}\n"
		    "tasks:\n  - {name: t, run: \"true\"}\n"), -1,
	       "a var naming one below it");
	const struct wf_kv *v = workflow_var(&wf, "s", 1);
	const struct wf_var_ext *x = v ? workflow_var_ext(&wf, v) : NULL;
	ok(x && x->items, "a list var");
	is_int(x ? x->nitems : 0, 2, "its items");
	is_int(x ? x->items_len : 0, 6, "each followed by a NUL");
	is_str(v ? v->val : "", "a b c", "its text: the items joined by spaces");
	v = workflow_var(&wf, "e", 1);
	x = v ? workflow_var_ext(&wf, v) : NULL;
	ok(x && x->items && !x->nitems, "an empty list is a list");

	const char *sets[] = { "s=p,q,r", "y=2" };
	struct wf_settings set = { NULL, 0, sets, 2 };
	workflow_release(&wf);
	diags_release(&dg);
	const char *path = write_tmp("vars: {s: [a], y: 1, z: \"{y}0\"}\n"
				     "tasks:\n  - {name: t, run: \"true\"}\n");
	diags_init(&dg, path);
	is_int(workflow_load_set(&wf, path, &set, &dg), 0, "loaded with --set");
	is_int(dg.nerrors, 0, "no error");
	v = workflow_var(&wf, "s", 1);
	x = v ? workflow_var_ext(&wf, v) : NULL;
	is_int(x ? x->nitems : 0, 3, "--set splits a list var's value at commas");
	is_int(x ? x->from : 0, WF_FROM_SET, "and says where it comes from");
	v = workflow_var(&wf, "z", 1);
	is_str(v ? v->val : "", "20", "a var below sees the new value");

	workflow_release(&wf);
	diags_release(&dg);
	diags_init(&dg, "m.yaml");
	const char *inc = "include: [a.yaml]\ntasks:\n  - {name: t, run: x}\n";
	workflow_load_mem(&wf, "/x/m.yaml", inc, strlen(inc), &dg);
	is_str(err(0), "include: a workflow loaded from memory reads no other "
	       "file", "a workflow in memory includes nothing");
}

/* A task whose foreach is f, as a workflow file. */
static int
load_foreach(const char *f)
{
	static char buf[512];
	snprintf(buf, sizeof(buf), "tasks:\n  - name: a\n    foreach: %s\n"
		 "    run: \"true\"\n", f);
	return load(buf);
}

/* A table foreach: its keys, and what is wrong with them. */
static void
test_table(void)
{
	is_int(load_foreach("{s: {table: s.csv, key: id, format: tsv, where: "
			    "{t: [x, y], u: z}}}"), 0,
	       "a table foreach with every key loads");
	const struct wf_iter *it = &wf.tasks[0].foreach.v[0];
	is_int(it->kind, WF_ITER_TABLE, "a table");
	is_str(it->table->path, "s.csv", "its path");
	is_str(it->table->key, "id", "its key column");
	is_int(it->table->format, WF_TABLE_TSV, "its format, as given");
	is_int(it->table->nwhere, 2, "two where columns");
	is_int(it->table->where[0].nvals, 2, "a list of values");
	is_str(it->table->where[1].vals[0], "z", "a single value");
	is_int(load_foreach("{s: {table: s.csv}}"), 0, "only table is needed");
	it = &wf.tasks[0].foreach.v[0];
	ok(!it->table->key && it->table->format == WF_TABLE_AUTO,
	   "no key column (the first), the format by the name");
	ok(load_foreach("{s: {table: s.csv, format: xml}}") < 0, "a bad format");
	is_str(err(0), "format must be tsv or csv, not 'xml'", "named");
	ok(load_foreach("{s: {table: s.csv, wher: {a: b}}}") < 0, "a typo");
	is_str(err(0), "unknown key 'wher' in a table foreach; did you mean "
	       "'where'?", "gets a suggestion");
	ok(load_foreach("{s: {table: \"\"}}") < 0, "an empty path");
	is_str(err(0), "a table's path is empty", "named");
	ok(load_foreach("{s: {table: s.csv, where: [a]}}") < 0, "where: a list");
	is_str(err(0), "where must be a mapping (key: value), not a list",
	       "named");
	ok(load_foreach("{s: {table: s.csv, where: {a: [[b]]}}}") < 0,
	   "a where value that is a list");
	is_str(err(0), "a where value must be a scalar, not a list", "named");
}

/* A repeat block: its tasks among the others, its keys first. */
static void
test_repeat(void)
{
	is_int(load("tasks:\n"
		    "  - {name: a, run: x}\n"
		    "  - repeat:\n"
		    "      until: \"test -e done{iter}\"\n"
		    "      max: 7\n"
		    "      tasks:\n"
		    "        - {name: b, foreach: {f: \"1..2\"}, run: x}\n"
		    "        - {name: c, run: x}\n"
		    "        - {name: d, run: x}\n"
		    "  - {name: e, run: x}\n"
		    "  - {name: f, run: x}\n"
		    "  - {name: g, run: x}\n"), 0, "a repeat block loads");
	is_int(wf.ntasks, 7, "its tasks are tasks of the workflow");
	is_str(wf.tasks[6].name, "g", "the tasks after it keep their room");
	is_int(wf.nrepeats, 1, "one block");
	const struct wf_repeat *r = &wf.repeats[0];
	ok(r->from == 1 && r->to == 4, "its tasks: b, c, d");
	is_int(r->max, 7, "its max");
	is_str(r->until, "test -e done{iter}", "its until, a template");
	ok(workflow_repeat_of(&wf, 0) == NULL && workflow_repeat_of(&wf, 4) ==
	   NULL, "a and e are not in it");
	ok(workflow_repeat_of(&wf, 3) == r, "d is");
	const struct wf_foreach *fe = &wf.tasks[1].foreach;
	ok(fe->n == 3 && !strcmp(fe->v[0].name, "iter") &&
	   !strcmp(fe->v[1].name, "prev") && !strcmp(fe->v[2].name, "f"),
	   "iter and prev come before the task's own keys");
	ok(load("tasks:\n  - repeat: {until: x, max: 2, tasks: "
		"[{name: b, foreach: {prev: [1]}, run: x}]}\n") < 0,
	   "a task's own key prev");
	is_str(err(0), "foreach key 'prev' of task 'b' is the repeat block's "
	       "own; rename it", "refused");
	ok(load("tasks:\n  - repeat: {until: x, tasks: [{name: b, run: x}]}\n"
		"    name: n\n") < 0, "no max, a key beside repeat");
	is_str(err(0), "a repeat block has no key 'name' beside repeat: put it "
	       "in a task of repeat: {tasks: [...]}", "the key beside");
	is_str(err(1), "repeat has no max: add max: N, the most iterations to "
	       "run", "no max");
}

int
main(void)
{
	diags_init(&dg, "");
	test_table();
	test_repeat();
	is_int(load("name: x\n"
		    "vars: {n: 3}\n"
		    "tasks:\n"
		    "  - name: a\n"
		    "    cores: 2\n"
		    "    memory: 4G\n"
		    "    timeout: 1h30m\n"
		    "    retries: 2\n"
		    "    on_failure: ignore\n"
		    "    env: {OMP_NUM_THREADS: \"2\"}\n"
		    "    run: \"true\"\n"
		    "  - name: b\n"
		    "    io: true\n"
		    "    storage_bw: \"auto(2,256,2)\"\n"
		    "    run: \"true\"\n"),
	       0, "a workflow with every key loads");
	is_int(wf.ntasks, 2, "two tasks");
	is_int(wf.tasks[0].cores, 2, "cores");
	is_int(wf.tasks[0].memory, 4LL << 30, "memory 4G");
	is_int((long)wf.tasks[0].timeout, 5400, "timeout 1h30m");
	is_int(wf.tasks[0].retries, 2, "retries");
	is_int(wf.tasks[0].on_failure, WF_IGNORE, "on_failure");
	is_int(wf.tasks[1].cores, 0, "I/O tasks take no cores");
	is_int(wf.tasks[1].storage_bw.kind, WF_BW_AUTO_BOUNDED, "bounded auto");
	is_int((long)wf.tasks[1].storage_bw.max, 256, "auto max");

	ok(load("tasks:\n  - name: a\n    run: [x\n") < 0, "YAML syntax error");
	ok(strstr(err(0), "YAML syntax error") != NULL, "named as such: %s", err(0));

	ok(load("tasks:\n  - name: a\n    foreeach: {i: \"1..2\"}\n    run: x\n") < 0,
	   "unknown key");
	is_str(err(0), "unknown key 'foreeach' in a task; did you mean 'foreach'?",
	       "with a suggestion");
	is_int(dg.list.v[0].loc.line, 3, "line of the key");
	is_int(dg.list.v[0].loc.col, 5, "column of the key");

	ok(load("tasks:\n  - name: a\n    cores: two\n    run: x\n"
		"  - name: a\n    run: \"\"\n") < 0, "several errors");
	is_int(dg.nerrors, 3, "all reported: cores, duplicate name, empty run");
	is_str(err(0), "cores must be an integer, not 'two'", "wrong type");

	ok(load("tasks:\n  - name: a\n    storage_bw: 100\n    run: x\n") < 0,
	   "storage_bw without io");
	is_str(err(0), "storage_bw applies to I/O tasks; add io: true to task 'a'",
	       "explained");

	ok(load("tasks:\n  - name: a\n    foreach: {i: [1, 2], i: [3]}\n    run: x\n") < 0,
	   "duplicate key");
	is_str(err(0), "duplicate key 'i' in foreach", "duplicate key named");

	ok(load("tasks:\n  - name: a\n    in: {x: f}\n    out: {x: g}\n    run: x\n") < 0,
	   "a parameter declared twice");
	is_str(err(0), "parameter 'x' is declared twice (in in and out); give each its own name",
	       "explained");

	ok(load("tasks: {a: 1}\n") < 0, "tasks must be a list");
	ok(load("") < 0, "an empty file");
	is_str(err(0), "the workflow is empty: it needs tasks:", "empty explained");

	is_int((long)parse_duration("90s"), 90, "90s");
	is_int((long)parse_duration("2h"), 7200, "2h");
	is_int((long)parse_duration("45"), 45, "plain seconds");
	ok(parse_duration("5x") < 0, "bad unit");
	is_int(parse_memory("512M"), 512LL << 20, "512M");
	is_int(parse_memory("1GiB"), 1LL << 30, "1GiB");
	ok(parse_memory("12") < 0, "a size needs a unit");
	workflow_release(&wf);
	diags_release(&dg);
	vars_and_files();
	return done_testing();
}
