/* select: the part of a plan a run is asked for (select.h). */
#include "select.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "path.h"

/* The workflow task named name[0..len), or -1. */
static long
find_task(const struct workflow *wf, const char *name, size_t len)
{
	for (size_t k = 0; k < wf->ntasks; k++)
		if (strlen(wf->tasks[k].name) == len &&
		    !memcmp(wf->tasks[k].name, name, len))
			return (long)k;
	return -1;
}

void
select_path_from(const char *workdir, const char *cwd, const char *path,
		 struct strbuf *out)
{
	char *abs = path[0] == '/' ? xstrdup(path) : path_join(workdir, path);
	char *norm = path_normalize(abs);
	/* the longest common run of whole components */
	size_t i = 0, common = 0;
	while (cwd[i] && norm[i] == cwd[i]) {
		i++;
		if (cwd[i] == '/' || (!cwd[i] && (!norm[i] || norm[i] == '/')))
			common = i;
	}
	if (!strcmp(cwd, "/"))
		common = 0;
	for (const char *c = cwd + common; *c; c++)
		if (*c == '/' && c[1])
			strbuf_adds(out, out->len ? "/.." : "..");
	const char *rest = norm + common;
	while (*rest == '/')
		rest++;
	if (*rest) {
		if (out->len)
			strbuf_addch(out, '/');
		strbuf_adds(out, rest);
	}
	if (!out->len)
		strbuf_addch(out, '.');
	free(norm);
	free(abs);
}

/* abs (normalised) relative to dir when at or under it, else NULL. */
static char *
under(const char *abs, const char *dir)
{
	size_t n = strlen(dir);
	if (!strcmp(abs, dir))
		return xstrdup(".");
	if (!strcmp(dir, "/"))
		return xstrdup(abs + 1);
	if (!strncmp(abs, dir, n) && abs[n] == '/')
		return xstrdup(abs + n + 1);
	return NULL;
}

/* The real path of p (absolute, normalised): that of its deepest
 * existing ancestor, and the rest as it is; NULL when it is p. */
static char *
real_path(const char *p)
{
	char *head = xstrdup(p), *real = NULL;
	size_t n = strlen(p);
	while (!(real = realpath(head, NULL)) && n > 1) {
		long l = path_parent_len(p, n);
		n = l > 0 ? (size_t)l : 1;
		head[n] = '\0';
	}
	free(head);
	if (!real)
		return NULL;
	char *r = n < strlen(p) ? path_join(real, p + n + (p[n] == '/'))
				: xstrdup(real);
	free(real);
	if (!strcmp(r, p)) {
		free(r);
		return NULL;
	}
	return r;
}

/* A target path (relative to the current directory cwd, or absolute) as
 * a datum is named: relative to the workdir, or absolute outside it.
 * The current directory is a physical path: when the workdir or the
 * target is named through a symbolic link, their real paths are
 * compared too. */
static char *
datum_form(const char *workdir, const char *cwd, const char *target)
{
	char *j = target[0] == '/' ? xstrdup(target) : path_join(cwd, target);
	char *abs = path_normalize(j);
	free(j);
	char *r = under(abs, workdir);
	char *rw = r ? NULL : real_path(workdir);
	char *ra = r ? NULL : real_path(abs);
	if (!r && (rw || ra))
		r = under(ra ? ra : abs, rw ? rw : workdir);
	free(rw);
	free(ra);
	if (!r)
		return abs;
	free(abs);
	return r;
}

/* Whether instance t has every KEY=VALUE of sel (comma-separated); -1
 * with err when a key is not one of its task's foreach keys. */
static int
instance_has(const struct plan *p, uint32_t t, const char *sel, size_t len,
	     struct errbuf *err)
{
	const struct dag_task *dt = &p->dag.tasks.v[t];
	const struct wf_task *wt = &p->wf->tasks[dt->tmpl];
	/* (no binds at all when no task has a foreach: NULL + 0 is
	 * undefined) */
	const char *const *vals = wt->foreach.n ? p->dag.binds.v + dt->bind
						: NULL;
	const char *s = sel, *end = sel + len;
	while (s < end) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		const char *e = comma ? comma : end;
		const char *eq = memchr(s, '=', (size_t)(e - s));
		size_t i;
		for (i = 0; eq && i < wt->foreach.n; i++)
			if (strlen(wt->foreach.v[i].name) == (size_t)(eq - s) &&
			    !memcmp(wt->foreach.v[i].name, s, (size_t)(eq - s)))
				break;
		if (!eq || i == wt->foreach.n) {
			errprintf(err, "target '%s[%.*s]': task '%s' has no foreach "
				  "key '%.*s' (write %s[KEY=VALUE,...])", wt->name,
				  (int)len, sel, wt->name,
				  (int)(eq ? eq - s : e - s), s, wt->name);
			return -1;
		}
		if (strlen(vals[i]) != (size_t)(e - eq - 1) ||
		    memcmp(vals[i], eq + 1, (size_t)(e - eq - 1)))
			return 0;
		s = comma ? comma + 1 : end;
	}
	return 1;
}

/* Target NAME or NAME[KEY=VALUE,...]: want its instances.  0 when it
 * names no task (then it may be a path), 1 when it did, -1 with err. */
static int
want_task(const struct plan *p, const char *target, uint8_t *want,
	  struct errbuf *err)
{
	size_t n = strlen(target);
	const char *br = strchr(target, '[');
	bool inst = br && n > 1 && target[n - 1] == ']';
	long k = find_task(p->wf, target, inst ? (size_t)(br - target) : n);
	if (k < 0)
		return 0;
	if (plan_pending(p) && (uint32_t)k >= p->stage_from) {
		errprintf(err, "target '%s': task '%s' has no instances yet: it "
			  "is expanded during the run, once what it globs is "
			  "written (wfrun-workflow(5), DYNAMIC); ask for it with "
			  "--until %s", target, p->wf->tasks[k].name,
			  p->wf->tasks[k].name);
		return -1;
	}
	size_t found = 0;
	for (uint32_t t = 0; t < p->dag.tasks.n; t++) {
		if (p->dag.tasks.v[t].tmpl != (uint32_t)k)
			continue;
		int has = inst ? instance_has(p, t, br + 1,
					      (size_t)(target + n - 1 - br - 1),
					      err)
			       : 1;
		if (has < 0)
			return -1;
		found += (size_t)has;
		want[t] |= (uint8_t)has;
	}
	if (inst && !found) {
		errprintf(err, "target '%s': no instance of task '%s' has %.*s",
			  target, p->wf->tasks[k].name,
			  (int)(target + n - 1 - br - 1), br + 1);
		return -1;
	}
	return 1;
}

/* Target path x (a datum form): want the last writer of it (itself, or
 * a directory written whole above it) and of every known path below it.
 * Whether any task writes it. */
static bool
want_path(const struct dag *g, const char *x, uint8_t *want)
{
	bool any = false;
	if (!strcmp(x, ".")) {
		for (uint32_t d = 0; d < g->data.n; d++)
			if (g->data.v[d].writer != DAG_NONE &&
			    g->data.v[d].path[0] != '/') {
				want[g->data.v[d].writer] = 1;
				any = true;
			}
		return any;
	}
	/* the nearest known path at or above x */
	size_t len = strlen(x);
	uint32_t d = dag_lookup(g, x, len);
	for (long l = (long)len; d == DAG_NONE && l > 0;) {
		l = path_parent_len(x, (size_t)l);
		if (l > 0)
			d = dag_lookup(g, x, (size_t)l);
	}
	if (d == DAG_NONE)
		return false;
	uint32_t w = dag_latest_writer(g, d);
	if (g->data.v[d].len != len) {
		/* x lies below d, known: a directory written whole at or
		 * above d makes it */
		for (uint32_t z = d; z != DAG_NONE; z = g->data.v[z].parent)
			if (g->data.v[z].writer != DAG_NONE &&
			    (g->data.v[z].flags & DATUM_COLLECTION)) {
				want[w] = 1;
				return true;
			}
		return false;
	}
	if (w != DAG_NONE) {
		want[w] = 1;
		any = true;
	}
	for (uint32_t y = g->data.v[d].first_child; y != DAG_NONE;
	     y = dag_next_descendant(g, d, y))
		if (g->data.v[y].writer != DAG_NONE) {
			want[g->data.v[y].writer] = 1;
			any = true;
		}
	return any;
}

/* The closest task name or written path to target (d: its datum form),
 * said in err after what. */
static void
suggest(const struct plan *p, const char *target, const char *d,
	const char *cwd, const char *what, struct errbuf *err)
{
	const struct dag *g = &p->dag;
	struct strbuf sug = STRBUF_INIT;
	const char *note = "";
	/* a path relative to the workdir, not the current directory */
	char *asis = path_normalize(target);
	uint32_t x = dag_lookup(g, asis, strlen(asis));
	if (target[0] != '/' && x != DAG_NONE &&
	    dag_latest_writer(g, x) != DAG_NONE) {
		select_path_from(p->wf->workdir, cwd, asis, &sug);
		note = " (a target path is relative to the current directory, "
		       "not the workdir)";
	} else {
		size_t n = 0, dl = strlen(d);
		const char **c = xmalloc((p->wf->ntasks + g->data.n + 1) *
					 sizeof(*c));
		for (size_t k = 0; k < p->wf->ntasks; k++)
			c[n++] = p->wf->tasks[k].name;
		const char *best = closest_word(target, c, n);
		/* paths of about the target's length, by their datum form */
		n = 0;
		for (uint32_t k = 0; !best && k < g->data.n; k++) {
			size_t l = g->data.v[k].len;
			if (g->data.v[k].writer != DAG_NONE &&
			    l + 3 >= dl && l <= dl + 3)
				c[n++] = g->data.v[k].path;
		}
		const char *bp = best ? NULL : closest_word(d, c, n);
		if (best)
			strbuf_adds(&sug, best);
		else if (bp)
			select_path_from(p->wf->workdir, cwd, bp, &sug);
		free(c);
	}
	errprintf(err, "%s%s%s%s%s", what, sug.len ? "; did you mean '" : "",
		  sug.buf, sug.len ? "'?" : "", note);
	free(asis);
	strbuf_release(&sug);
}

/* Target (a task name or a path): mark what it names in want; -1 with
 * err when it names nothing. */
static int
want_target(const struct plan *p, const char *target, const char *cwd,
	    uint8_t *want, struct errbuf *err)
{
	const struct dag *g = &p->dag;
	int r = want_task(p, target, want, err);
	if (r)
		return r < 0 ? -1 : 0;
	if (!*target) {
		errprintf(err, "an empty target names nothing");
		return -1;
	}
	char *d = datum_form(p->wf->workdir, cwd, target);
	if (d[0] == '/') {
		/* outside the workdir: named as ../x, or absolute */
		struct strbuf up = STRBUF_INIT;
		select_path_from("/", p->wf->workdir, d, &up);
		if (dag_lookup(g, up.buf, up.len) != DAG_NONE) {
			free(d);
			d = strbuf_detach(&up);
		}
		strbuf_release(&up);
	}
	if (want_path(g, d, want)) {
		free(d);
		return 0;
	}
	struct strbuf what = STRBUF_INIT;
	uint32_t x = dag_lookup(g, d, strlen(d));
	char *abs = d[0] == '/' ? xstrdup(d) : path_join(p->wf->workdir, d);
	char *na = path_normalize(abs);
	strbuf_addf(&what, "target '%s' names nothing in %s: no task has that "
		    "name, and none writes %s", target, p->wf->file, na);
	free(na);
	free(abs);
	if (x != DAG_NONE && (g->data.v[x].flags & DATUM_INPUT))
		strbuf_adds(&what, " (a workflow input, which no task makes)");
	else if (plan_pending(p))
		strbuf_addf(&what, " among the tasks before '%s', and those from "
			    "it on are expanded during the run (wfrun-workflow(5), "
			    "DYNAMIC): ask for them with --until",
			    p->wf->tasks[p->stage_from].name);
	suggest(p, target, d, cwd, what.buf, err);
	strbuf_release(&what);
	free(d);
	return -1;
}

/* want[] closed under predecessors: a task is needed when a task that
 * needs it is.  Edges point forward, so one backward sweep does it. */
static void
close_backward(const struct dag *g, uint8_t *want)
{
	for (uint32_t t = (uint32_t)g->tasks.n; t-- > 0;)
		for (uint32_t k = g->succ_off[t];
		     !want[t] && k < g->succ_off[t + 1]; k++)
			want[t] = want[g->succ[k]];
}

/* --until NAME: its workflow task, or -1 with err. */
static long
until_task(const struct plan *p, const char *name, struct errbuf *err)
{
	long k = find_task(p->wf, name, strlen(name));
	if (k >= 0)
		return k;
	const char **c = xmalloc((p->wf->ntasks + 1) * sizeof(*c));
	for (size_t i = 0; i < p->wf->ntasks; i++)
		c[i] = p->wf->tasks[i].name;
	const char *sug = closest_word(name, c, p->wf->ntasks);
	errprintf(err, "--until: %s has no task named '%s'%s%s%s", p->wf->file,
		  name, sug ? "; did you mean '" : "", sug ? sug : "",
		  sug ? "'?" : "");
	free(c);
	return -1;
}

int
select_tasks(struct plan *p, const struct select_ask *ask, size_t *left,
	     struct errbuf *err)
{
	struct dag *g = &p->dag;
	size_t nt = g->tasks.n;
	*left = 0;
	if (!ask->n && !ask->until)
		return 0;
	char *cwd = getcwd(NULL, 0);
	if (!cwd) {
		errprintf(err, "cannot read the current directory: %s",
			  strerror(errno));
		return -1;
	}
	long until = -1;
	if (ask->until && (until = until_task(p, ask->until, err)) < 0) {
		free(cwd);
		return -1;
	}
	uint8_t *want = xcalloc(nt ? nt : 1, 1);
	int rc = 0;
	for (size_t i = 0; i < ask->n && !rc; i++)
		rc = want_target(p, ask->targets[i], cwd, want, err);
	free(cwd);
	if (!rc) {
		if (ask->n)
			close_backward(g, want);
		for (uint32_t t = 0; t < nt; t++) {
			if (until >= 0 && g->tasks.v[t].tmpl > (uint32_t)until)
				want[t] = 0;
			else if (!ask->n)
				want[t] = 1;
			if (!want[t]) {
				g->tasks.v[t].state = TASK_LEFT_OUT;
				(*left)++;
			}
		}
	}
	free(want);
	return rc;
}

size_t
select_appended(struct plan *p, const struct select_ask *ask, uint32_t first)
{
	struct dag *g = &p->dag;
	size_t left = 0;
	if (!ask || (!ask->n && !ask->until))
		return 0;
	long until = -1;
	if (ask->until && !ask->n)
		until = find_task(p->wf, ask->until, strlen(ask->until));
	for (uint32_t t = first; t < g->tasks.n; t++)
		if (until < 0 || g->tasks.v[t].tmpl > (uint32_t)until) {
			g->tasks.v[t].state = TASK_LEFT_OUT;
			left++;
		}
	return left;
}
