/* wfrun list: the tasks of a workflow, what each reads and writes, on
 * stdout; --names: their names only (for shell completion). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "util.h"
#include "wfrun.h"

/* A datum template as the workflow writes it, on one line. */
static void
data_text(const struct wf_data *d, struct strbuf *out)
{
	switch (d->kind) {
	case WF_FILE:
		strbuf_adds(out, d->path);
		break;
	case WF_DIR:
		strbuf_addf(out, "{dir: %s", d->path);
		if (d->depth > 1)
			strbuf_addf(out, ", depth: %ld", d->depth);
		strbuf_addch(out, '}');
		break;
	case WF_LIST:
		strbuf_adds(out, "{list: ");
		data_text(&d->list->elem, out);
		strbuf_adds(out, ", foreach ");
		for (size_t i = 0; i < d->list->each.n; i++)
			strbuf_addf(out, "%s%s", i ? ", " : "",
				    d->list->each.v[i].name);
		strbuf_addch(out, '}');
		break;
	}
}

/* One task's block: its name, instances and foreach keys, then a line
 * per parameter: in, out or inout, its name and its path template. */
static void
task_block(const struct wf_task *t, unsigned ninst, struct strbuf *line)
{
	size_t width = 0;
	for (size_t i = 0; i < t->nparams; i++)
		if (strlen(t->params[i].name) > width)
			width = strlen(t->params[i].name);
	strbuf_reset(line);
	strbuf_addf(line, "%s: %u instance%s", t->name, ninst,
		    ninst == 1 ? "" : "s");
	for (size_t i = 0; i < t->foreach.n; i++)
		strbuf_addf(line, "%s%s", i ? ", " : " (foreach ",
			    t->foreach.v[i].name);
	if (t->foreach.n)
		strbuf_addch(line, ')');
	char *v = xvisible(line->buf);
	printf("%s\n", v);
	free(v);
	for (size_t i = 0; i < t->nparams; i++) {
		const struct wf_param *pa = &t->params[i];
		strbuf_reset(line);
		strbuf_addf(line, "  %-5s %-*s  ", wf_access_name(pa->access),
			    (int)width, pa->name);
		data_text(&pa->data, line);
		v = xvisible(line->buf);
		printf("%s\n", v);
		free(v);
	}
}

int
list_workflow(const char *file, bool names)
{
	struct workflow wf;
	struct plan p;
	if (names) {
		/* what could be read, even of a file with errors */
		struct diags d;
		diags_init(&d, file);
		int got = workflow_load(&wf, file, &d);
		for (size_t i = 0; !got && i < wf.ntasks; i++) {
			char *v = xvisible(wf.tasks[i].name);
			printf("%s\n", v);
			free(v);
		}
		workflow_release(&wf);
		return report_diags(&d, file);
	}
	/* no limit on cores: that is the run's to check */
	int rc = load_plan(file, LONG_MAX, &wf, &p);
	if (!rc) {
		char *vn = xvisible(wf.name), *vw = xvisible(wf.workdir);
		printf("# workflow '%s': %zu task%s, %zu instance%s, run in %s\n",
		       vn, wf.ntasks, wf.ntasks == 1 ? "" : "s", p.dag.tasks.n,
		       p.dag.tasks.n == 1 ? "" : "s", vw);
		free(vn);
		free(vw);
		struct strbuf line = STRBUF_INIT;
		for (size_t i = 0; i < wf.ntasks; i++) {
			printf("\n");
			task_block(&wf.tasks[i], p.pt[i].ninst, &line);
		}
		strbuf_release(&line);
	}
	plan_release(&p);
	workflow_release(&wf);
	return rc;
}

static int
list_opt(int c, const char *arg, void *ctx)
{
	(void)arg;
	if (c == 'N')
		*(bool *)ctx = true;
	return 0;
}

int
cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "names", no_argument, NULL, 'N' },
		CLI_VARS_OPTIONS,
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cli_spec spec = {
		"qv", opts, list_opt, 1, 1,
		"usage: wfrun list [--names] WORKFLOW.yaml", false, NULL
	};
	bool names = false;
	int rc = cli_parse(argc, argv, &spec, &names);
	return rc ? rc : list_workflow(argv[optind], names);
}
