/*
 * wfrun dag: the graph in Graphviz dot or Mermaid (which GitHub and GitLab
 * draw inside Markdown), per instance or per task name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "util.h"
#include "wfrun.h"

static void
dot_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		if (*s == '\n')
			fputs("\\n", stdout);
		else
			putchar(*s);
	}
	putchar('"');
}

/* Mermaid labels are in double quotes; a quote or # inside is written
 * as an entity code, a newline as <br>. */
static void
mermaid_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			fputs("#quot;", stdout);
		else if (*s == '#')
			fputs("#35;", stdout);
		else if (*s == '<')
			fputs("#lt;", stdout);
		else if (*s == '>')
			fputs("#gt;", stdout);
		else if (*s == '\n')
			fputs("<br>", stdout);
		else
			putchar(*s);
	}
	putchar('"');
}

static bool mermaid;

static void
node(char prefix, size_t id, const char *label)
{
	if (mermaid) {
		printf("  %c%zu[", prefix, id);
		mermaid_string(label);
		printf("]\n");
	} else {
		printf("  %c%zu [label=", prefix, id);
		dot_string(label);
		printf("];\n");
	}
}

static void
edge(char prefix, size_t a, size_t b)
{
	printf(mermaid ? "  %c%zu --> %c%zu\n" : "  %c%zu -> %c%zu;\n", prefix, a,
	       prefix, b);
}

static void
dag_instances(const struct plan *p)
{
	const struct dag *g = &p->dag;
	struct strbuf lab = STRBUF_INIT;
	for (uint32_t t = 0; t < g->tasks.n; t++) {
		strbuf_reset(&lab);
		strbuf_adds(&lab, p->wf->tasks[g->tasks.v[t].tmpl].name);
		if (p->wf->tasks[g->tasks.v[t].tmpl].foreach.n) {
			strbuf_addch(&lab, '\n');
			plan_tag(p, t, &lab);
		}
		node('t', t + 1, lab.buf);
	}
	for (uint32_t t = 0; t < g->tasks.n; t++)
		for (uint32_t i = g->succ_off[t]; i < g->succ_off[t + 1]; i++)
			edge('t', t + 1, g->succ[i] + 1);
	strbuf_release(&lab);
}

static void
dag_names(const struct plan *p)
{
	const struct dag *g = &p->dag;
	size_t n = p->wf->ntasks;
	struct strbuf lab = STRBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		strbuf_reset(&lab);
		strbuf_adds(&lab, p->wf->tasks[i].name);
		if (p->pt[i].ninst != 1)
			strbuf_addf(&lab, "\n%u tasks", p->pt[i].ninst);
		node('n', i + 1, lab.buf);
	}
	/* One edge per pair of names, marked in a bitmap of n*n bits. */
	unsigned char *seen = xcalloc((n * n + 7) / 8 + 1, 1);
	for (uint32_t t = 0; t < g->tasks.n; t++) {
		uint32_t a = g->tasks.v[t].tmpl;
		for (uint32_t i = g->succ_off[t]; i < g->succ_off[t + 1]; i++) {
			uint32_t b = g->tasks.v[g->succ[i]].tmpl;
			if (a == b)
				continue;
			size_t bit = (size_t)a * n + b;
			if (seen[bit / 8] & (1u << (bit % 8)))
				continue;
			seen[bit / 8] |= (unsigned char)(1u << (bit % 8));
			edge('n', a + 1, b + 1);
		}
	}
	free(seen);
	strbuf_release(&lab);
}

/* --names (into *ctx, a bool) and --format. */
static int
dag_opt(int c, const char *arg, void *ctx)
{
	if (c == 'N') {
		*(bool *)ctx = true;
		return 0;
	}
	if (!strcmp(arg, "mermaid") || !strcmp(arg, "dot")) {
		mermaid = arg[0] == 'm';
		return 0;
	}
	error_msg("--format wants dot or mermaid, not '%s'", arg);
	return -1;
}

int
cmd_dag(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "names", no_argument, NULL, 'N' },
		{ "format", required_argument, NULL, 'F' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		CLI_VARS_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	bool names = false;
	static const struct cli_spec spec = {
		"qv", opts, dag_opt, 1, 1, "usage: wfrun dag [--names] "
		"[--format dot|mermaid] WORKFLOW.yaml", false, NULL
	};
	int rc = cli_parse(argc, argv, &spec, &names);
	if (rc)
		return rc;
	struct workflow wf;
	struct plan p;
	/* The graph does not depend on the cores of this machine. */
	rc = load_plan(argv[optind], 1L << 30, &wf, &p);
	if (!rc) {
		if (mermaid) {
			/* YAML front matter: a dot string is valid YAML */
			printf("---\ntitle: ");
			dot_string(wf.name);
			printf("\n---\nflowchart TB\n");
		} else {
			printf("digraph ");
			dot_string(wf.name);
			printf(" {\n  rankdir=TB;\n  node [shape=box];\n");
		}
		if (names)
			dag_names(&p);
		else
			dag_instances(&p);
		if (!mermaid)
			printf("}\n");
	}
	plan_release(&p);
	workflow_release(&wf);
	return rc;
}
