/*
 * libFuzzer target: the whole path a workflow file takes through wfrun
 * check -- YAML load, template compilation, foreach expansion, the DAG
 * (edges, then a drain in a valid order), and rendering every command,
 * argv, environment and label as the runner would.
 *
 * It keeps off the file system: the workdir is forced to a directory that
 * does not exist, and expansion is skipped (templates are still compiled)
 * when a glob or a directory collection could name an absolute path,
 * which would make wfrun read the real disk; a table foreach, read when
 * templates are compiled, is pointed at a file of that directory.  Expansion limits are small
 * so that a legitimate but huge foreach is reported, not run.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dag.h"
#include "expand.h"
#include "util.h"
#include "workflow.h"

#define FAKE_DIR "/nonexistent-wfrun-fuzz"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static FILE *devnull;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	devnull = fopen("/dev/null", "w");
	setenv("PATH", "/bin", 1);
	log_level = 0;
	return 0;
}

static bool
may_be_absolute(const char *s)
{
	return s && (s[0] == '/' || strchr(s, '{'));
}

static bool
foreach_reads_disk(const struct wf_foreach *fe)
{
	for (size_t i = 0; i < fe->n; i++)
		if (fe->v[i].kind == WF_ITER_GLOB && may_be_absolute(fe->v[i].glob))
			return true;
	return false;
}

static bool
data_reads_disk(const struct wf_data *d)
{
	if (d->kind == WF_DIR && may_be_absolute(d->path))
		return true;
	if (d->kind == WF_LIST)
		return d->list && (foreach_reads_disk(&d->list->each) ||
				   data_reads_disk(&d->list->elem));
	return false;
}

static bool
reads_disk(const struct workflow *wf)
{
	for (size_t i = 0; i < wf->ntasks; i++) {
		const struct wf_task *t = &wf->tasks[i];
		if (foreach_reads_disk(&t->foreach))
			return true;
		for (size_t j = 0; j < t->nparams; j++)
			if (data_reads_disk(&t->params[j].data))
				return true;
	}
	return false;
}

/* Point the tables of fe, and of the list collections of d, at a file of
 * the fake workdir: "../etc/passwd" would reach the real one. */
static void
no_tables(struct wf_foreach *fe, struct wf_data *d)
{
	for (size_t i = 0; fe && i < fe->n; i++)
		if (fe->v[i].kind == WF_ITER_TABLE) {
			free(fe->v[i].table->path);
			fe->v[i].table->path = xstrdup("table.tsv");
		}
	if (d && d->kind == WF_LIST && d->list)
		no_tables(&d->list->each, &d->list->elem);
}

/* Every task must complete exactly once when the DAG is drained. */
static void
drain(struct dag *g)
{
	size_t n = g->tasks.n, nready = 0, alloc = 0, done = 0;
	uint32_t *ready = NULL;
	for (uint32_t t = 0; t < n; t++)
		if (!g->tasks.v[t].waiting) {
			ALLOC_GROW(ready, nready + 1, alloc);
			ready[nready++] = t;
		}
	while (nready) {
		uint32_t t = ready[--nready];
		if (g->tasks.v[t].state == TASK_DONE)
			abort();
		dag_complete(g, t, &ready, &nready, &alloc);
		done++;
	}
	free(ready);
	if (done != n)
		abort(); /* a cycle, or a task that never became ready */
}

static void
render(const struct plan *p)
{
	struct strbuf sb = STRBUF_INIT, buf = STRBUF_INIT;
	struct strvec argv = { 0 };
	size_t n = p->dag.tasks.n < 200 ? p->dag.tasks.n : 200;
	for (uint32_t t = 0; t < n; t++) {
		const struct wf_task *wt = &p->wf->tasks[p->dag.tasks.v[t].tmpl];
		strbuf_reset(&sb);
		plan_command(p, t, &sb);
		plan_label(p, t, &sb);
		for (size_t i = 0; i < wt->nenv; i++)
			plan_env(p, t, i, &sb);
		plan_argv(p, t, &buf, &argv);
		(void)plan_exe(p, t);
	}
	VEC_FREE(argv);
	strbuf_release(&buf);
	strbuf_release(&sb);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diags d;
	struct workflow wf;
	diags_init(&d, FAKE_DIR "/fuzz.yaml");
	if (workflow_load_mem(&wf, FAKE_DIR "/fuzz.yaml", (const char *)data,
			      size, &d) == 0) {
		/* NULL stays NULL: a file that stopped early has none. */
		if (wf.workdir) {
			free(wf.workdir);
			wf.workdir = xstrdup(FAKE_DIR);
		}
		for (size_t i = 0; i < wf.ntasks; i++) {
			no_tables(&wf.tasks[i].foreach, NULL);
			for (size_t j = 0; j < wf.tasks[i].nparams; j++)
				no_tables(NULL, &wf.tasks[i].params[j].data);
		}
		struct plan_limits lim = { 5000, 50000, 5000 };
		struct plan p;
		bool expand = !d.nerrors && !reads_disk(&wf);
		if (plan_build_limited(&p, &wf, &d, expand, &lim) == 0 &&
		    expand) {
			render(&p);
			drain(&p.dag);
		}
		plan_release(&p);
	}
	diags_print(&d, devnull);
	diags_release(&d);
	workflow_release(&wf);
	return 0;
}
