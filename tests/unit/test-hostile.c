/*
 * Unit tests of what hostile input meets: the load-from-memory variants
 * (used by the fuzz targets) agree with the file loaders, expansion stops
 * at its limits with an error instead of filling memory, vars cannot grow
 * without bound, the resources loader refuses a DOCTYPE, and inputs the
 * fuzzers found keep passing (the sanitizer build catches their leaks).
 */
#include <stdlib.h>
#include <string.h>

#include "expand.h"
#include "helpers.h"
#include "resources.h"
#include "tap.h"

static const char *
first_error(const struct diags *d)
{
	for (size_t i = 0; i < d->list.n; i++)
		if (!d->list.v[i].warning)
			return d->list.v[i].msg;
	return "";
}

/* Load yaml from memory as FILE (for the workdir) and plan it with lim. */
static int
plan_mem(const char *yaml, const struct plan_limits *lim, struct workflow *wf,
	 struct plan *p, struct diags *d)
{
	diags_init(d, "mem.yaml");
	memset(p, 0, sizeof(*p));
	if (workflow_load_mem(wf, "/nonexistent-wfrun-unit/mem.yaml", yaml,
			      strlen(yaml), d) < 0 || d->nerrors)
		return -1;
	return plan_build_limited(p, wf, d, true, lim);
}

static void
done(struct workflow *wf, struct plan *p, struct diags *d)
{
	plan_release(p);
	workflow_release(wf);
	diags_release(d);
}

int
main(void)
{
	struct workflow wf, wf2;
	struct plan p;
	struct diags d, d2;
	struct plan_limits lim = { 100, 1000, 50 };

	/* memory and file loaders agree, messages included */
	const char *bad = "tasks:\n  - name: a\n    cors: 2\n    run: x\n";
	const char *path = write_tmp(bad);
	diags_init(&d, path);
	diags_init(&d2, path);
	is_int(workflow_load(&wf, path, &d), 0, "file: loads");
	is_int(workflow_load_mem(&wf2, path, bad, strlen(bad), &d2), 0,
	       "memory: loads");
	is_int(d.nerrors, 1, "file: one error");
	is_int(d2.nerrors, 1, "memory: one error");
	is_str(first_error(&d2), first_error(&d), "the same message");
	is_str(wf2.workdir, wf.workdir, "the same workdir");
	workflow_release(&wf);
	workflow_release(&wf2);
	diags_release(&d);
	diags_release(&d2);
	diags_init(&d, "x");
	is_int(workflow_load_mem(&wf, "/x/y.yaml", "a: [", 4, &d), -1,
	       "memory: a syntax error is -1");
	workflow_release(&wf);
	diags_release(&d);

	/* expansion limits */
	is_int(plan_mem("tasks:\n  - name: big\n    foreach: {i: \"1..1000000000000\"}\n"
			"    run: \"true\"\n", &lim, &wf, &p, &d), -1,
	       "a huge range is refused");
	is_str(first_error(&d), "task 'big': the workflow expands to more than "
	       "100 task instances (wfrun's limit); narrow the foreach or split "
	       "the workflow", "it names the task and the limit");
	is_int(p.dag.tasks.n, 0, "before expanding anything");
	done(&wf, &p, &d);
	is_int(plan_mem("tasks:\n  - name: sq\n    foreach: {i: \"1..20\", j: \"1..20\"}\n"
			"    run: \"true\"\n", &lim, &wf, &p, &d), -1,
	       "a cross product past the limit is refused");
	is_int(p.dag.tasks.n, 100, "expansion stopped at the limit");
	is_int(d.nerrors, 1, "with one error");
	done(&wf, &p, &d);
	is_int(plan_mem("tasks:\n  - name: top\n    foreach: {i: \"0..9223372036854775807\"}\n"
			"    run: \"true\"\n", &lim, &wf, &p, &d), -1,
	       "a range up to LLONG_MAX stops at the limit");
	done(&wf, &p, &d);
	is_int(plan_mem("tasks:\n  - name: t\n    foreach: {i: \"9223372036854775806..9223372036854775807\"}\n"
			"    run: \"true\"\n", &lim, &wf, &p, &d), 0,
	       "a range ending at LLONG_MAX ends (no overflow)");
	is_int(p.dag.tasks.n, 2, "with its two instances");
	done(&wf, &p, &d);
	is_int(plan_mem("tasks:\n  - name: wide\n    out: {o: {list: \"f{i}\", "
			"foreach: {i: \"1..5000\"}}}\n    run: \"true\"\n",
			&lim, &wf, &p, &d), -1, "a huge list collection is refused");
	is_str(first_error(&d), "task 'wide': the workflow names more than 1000 "
	       "paths in parameters (wfrun's limit); use fewer or larger "
	       "collections, or split the workflow", "naming the access limit");
	done(&wf, &p, &d);

	/* an outer range around an empty inner one makes nothing, slowly */
	is_int(plan_mem("tasks:\n  - name: e\n    foreach: {i: \"1..100000000000\", "
			"j: \"2..1\"}\n    run: \"true\"\n", &lim, &wf, &p, &d),
	       -1, "an outer range over an empty one stops");
	is_str(first_error(&d), "foreach 'i' of task 'e': more than 50 of its "
	       "values make nothing, because the keys inside it are empty for "
	       "them (wfrun's limit); narrow the range", "saying why");
	done(&wf, &p, &d);
	is_int(plan_mem("tasks:\n  - name: tri\n    foreach: {i: \"1..60\", "
			"j: \"{i}..10\"}\n    run: \"true\"\n", &lim, &wf, &p, &d),
	       0, "a few empty inner ranges are fine");
	is_int(p.dag.tasks.n, 55, "triangle: 55 instances");
	done(&wf, &p, &d);

	/* vars that double at each level: the billion laughs of templates */
	struct strbuf y = STRBUF_INIT;
	strbuf_adds(&y, "vars:\n  v0: xxxxxxxxxxxxxxxx\n");
	for (int i = 1; i < 30; i++)
		strbuf_addf(&y, "  v%d: \"{v%d}{v%d}\"\n", i, i - 1, i - 1);
	strbuf_adds(&y, "tasks:\n  - name: a\n    run: \"echo {v29}\"\n");
	diags_init(&d, "mem.yaml");
	workflow_load_mem(&wf, "/x/mem.yaml", y.buf, y.len, &d);
	is_str(first_error(&d), "var 'v13' is longer than 65536 bytes once the "
	       "vars it names are put in", "doubling vars stop at 64 KiB");
	ok(d.nerrors >= 1, "and the file has errors");
	workflow_release(&wf);
	diags_release(&d);
	strbuf_release(&y);

	/* YAML aliases: what they repeat counts, not what is written (a
	 * file of 957,000 distinct tasks was refused as an alias bomb) */
	for (int i = 0; i < 1000; i++)
		strbuf_addf(&y, "%s  - {name: t%d, in: {i: a%d}, run: x}\n",
			    i ? "" : "tasks:\n", i, i);
	diags_init(&d, "mem.yaml");
	is_int(workflow_load_mem_limited(&wf, "/x/mem.yaml", y.buf, y.len, 1000,
					 &d), 0, "1,000 tasks read");
	is_int(d.nerrors, 0, "no error with aliases limited to 1,000 nodes");
	is_int(wf.ntasks, 1000, "all 1,000 tasks");
	workflow_release(&wf);
	diags_release(&d);
	strbuf_reset(&y);
	strbuf_adds(&y, "p: &p {");
	for (int i = 0; i < 100; i++)
		strbuf_addf(&y, "%sp%d: f", i ? ", " : "", i);
	strbuf_adds(&y, "}\ntasks:\n");
	for (int i = 0; i < 20; i++)
		strbuf_addf(&y, "  - {name: t%d, in: *p, run: x}\n", i);
	diags_init(&d, "mem.yaml");
	workflow_load_mem_limited(&wf, "/x/mem.yaml", y.buf, y.len, 1000, &d);
	size_t bombs = 0;
	for (size_t i = 0; i < d.list.n; i++)
		bombs += !strcmp(d.list.v[i].msg, "document too large (aliases "
				 "expand to more than 1000 nodes)");
	ok(bombs >= 1, "20 aliases of 100 parameters pass the limit");
	workflow_release(&wf);
	diags_release(&d);
	strbuf_reset(&y);

	/* parameters are numbered in 16 bits in the dag */
	strbuf_adds(&y, "tasks:\n  - name: many\n    in:\n");
	for (int i = 0; i < 65536; i++)
		strbuf_addf(&y, "      p%d: f\n", i);
	strbuf_adds(&y, "    run: \"true\"\n");
	diags_init(&d, "mem.yaml");
	workflow_load_mem(&wf, "/x/mem.yaml", y.buf, y.len, &d);
	is_int(d.nerrors, 1, "65536 parameters: one error");
	is_str(first_error(&d), "task 'many' has more than 65535 parameters; "
	       "group them in collections", "naming the limit");
	is_int(wf.tasks[0].nparams, 65535, "the first 65535 are kept");
	workflow_release(&wf);
	diags_release(&d);
	strbuf_release(&y);

	/* a foreach of 65 keys; 30000 vars resolved through the index */
	strbuf_adds(&y, "vars:\n  v0: x\n");
	for (int i = 1; i < 30000; i++)
		strbuf_addf(&y, "  v%d: \"{v%d}\"\n", i, i - 1);
	strbuf_adds(&y, "tasks:\n  - name: k\n    foreach: {");
	for (int i = 0; i < 65; i++)
		strbuf_addf(&y, "%sk%d: [a]", i ? ", " : "", i);
	strbuf_adds(&y, "}\n    run: \"echo {v29999}\"\n");
	diags_init(&d, "mem.yaml");
	workflow_load_mem(&wf, "/x/mem.yaml", y.buf, y.len, &d);
	is_int(d.nerrors, 1, "65 foreach keys: one error");
	is_str(first_error(&d), "foreach has more than 64 keys", "naming the limit");
	is_int(wf.nvars, 30000, "30000 vars");
	is_str(wf.vars[29999].val, "x", "the last one resolved through all");
	workflow_release(&wf);
	diags_release(&d);
	strbuf_release(&y);

	/* found by fuzz-workflow: nested list collections with more inner
	 * keys than outer ones leaked (caught by make check-san) */
	is_int(plan_mem("tasks:\n  - name: n\n    out: {r: {list: {list: "
			"\"{s}/{i}{j}\", foreach: {i: \"0..1\", j: [a]}}, "
			"foreach: {s: [a]}}}\n    run: \"true\"\n",
			&lim, &wf, &p, &d), 0, "nested lists build");
	is_int(p.dag.acc.n, 2, "2 elements");
	done(&wf, &p, &d);

	/* the resources loader refuses a DOCTYPE before reading it */
	const char *xxe = "<?xml version=\"1.0\"?>\n"
			  "<!DOCTYPE r [ <!ENTITY x SYSTEM \"file:///etc/passwd\"> ]>\n"
			  "<resources><worker name=\"w\" host=\"localhost\">"
			  "<cores>&x;</cores></worker></resources>\n";
	struct cluster c;
	diags_init(&d, "r.xml");
	is_int(resources_load_mem(&c, "/x/r.xml", xxe, strlen(xxe), &d), -1,
	       "a DOCTYPE is refused");
	is_int(d.nerrors, 1, "with one error");
	is_str(first_error(&d), "a resources file cannot have a DOCTYPE (DTDs "
	       "and entities are refused); remove it", "saying why");
	is_int(d.list.v[0].loc.line, 2, "at its line");
	resources_release(&c);
	diags_release(&d);
	const char *good = "<resources><worker name=\"w\" host=\"localhost\">"
			   "<cores>3</cores></worker></resources>";
	diags_init(&d, "r.xml");
	is_int(resources_load_mem(&c, "/x/r.xml", good, strlen(good), &d), 0,
	       "a good file from memory loads");
	is_int(c.nworkers, 1, "one worker");
	is_int(c.workers[0].cores, 3, "its cores");
	resources_release(&c);
	diags_release(&d);
	return done_testing();
}
