/*
 * Shared by the unit tests of the modules that work on a plan in its
 * workdir (undo, resume, stage): build the plan of a YAML text in a fresh
 * temporary directory made the current one, write files there, find a
 * task by its label, and record a task in the journal as the runner does.
 */
#ifndef WFRUN_TEST_FIXTURE_H
#define WFRUN_TEST_FIXTURE_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "expand.h"
#include "helpers.h"
#include "journal.h"
#include "path.h"
#include "resume.h"

struct fixture {
	struct workflow wf;
	struct plan pl;
	struct diags dg;
};

/* Write text to path (relative to the current directory). */
static inline void
put_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	if (!fp || fputs(text, fp) < 0 || fclose(fp) != 0) {
		perror(path);
		exit(99);
	}
}

/*
 * Build the plan of yaml: in a fresh directory made the current one
 * (fresh), or in the current one.  before(), when given, first makes the
 * files the plan needs there.  0, or -1 with fx->dg holding the errors;
 * fixture_release() either way.
 */
static inline int
fixture_build(struct fixture *fx, const char *yaml, bool fresh,
	      void (*before)(void))
{
	const char *path = "wf.yaml";
	if (fresh) {
		path = write_tmp(yaml);
		char *dir = path_dirname(path);
		if (chdir(dir) < 0) {
			perror(dir);
			exit(99);
		}
		free(dir);
	} else {
		put_file(path, yaml);
	}
	if (before)
		before();
	diags_init(&fx->dg, path);
	if (workflow_load(&fx->wf, path, &fx->dg) < 0 || fx->dg.nerrors)
		return -1;
	return plan_build(&fx->pl, &fx->wf, &fx->dg, true);
}

static inline void
fixture_release(struct fixture *fx)
{
	plan_release(&fx->pl);
	workflow_release(&fx->wf);
	diags_release(&fx->dg);
	memset(fx, 0, sizeof(*fx));
}

/* The task labelled label ("'name'" or "'name' (i=1)"); exits if none. */
static inline uint32_t
fixture_task(const struct fixture *fx, const char *label)
{
	struct strbuf sb = STRBUF_INIT;
	for (uint32_t t = 0; t < fx->pl.dag.tasks.n; t++) {
		strbuf_reset(&sb);
		plan_label(&fx->pl, t, &sb);
		if (!strcmp(sb.buf, label)) {
			strbuf_release(&sb);
			return t;
		}
	}
	strbuf_release(&sb);
	printf("# no task %s\n", label);
	exit(99);
}

/* Append the record of task t, as its files are now, to the journal j
 * of the current directory; got as resume_record takes it (NULL: every
 * written datum is here). */
static inline void
fixture_record_got(const struct fixture *fx, uint32_t t, const bool *got)
{
	struct journal j;
	struct errbuf err;
	struct resume rs;
	struct strbuf sb = STRBUF_INIT;
	if (journal_open(&j, "j", true, &err) < 0) {
		printf("# %s\n", err.msg);
		exit(99);
	}
	/* resume_record needs only the per-datum identities */
	memset(&rs, 0, sizeof(rs));
	rs.ids = xcalloc(fx->pl.dag.data.n ? fx->pl.dag.data.n : 1,
			 sizeof(*rs.ids));
	if (resume_record(&rs, &fx->pl, t, got, &j, &sb, &err) < 0) {
		printf("# %s\n", err.msg);
		exit(99);
	}
	if (journal_flush(&j, false, &err) < 0) {
		printf("# %s\n", err.msg);
		exit(99);
	}
	journal_release(&j);
	free(rs.ids);
	strbuf_release(&sb);
}

static inline void
fixture_record(const struct fixture *fx, uint32_t t)
{
	fixture_record_got(fx, t, NULL);
}

#endif
