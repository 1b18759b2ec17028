/* swenv_remote: images and modules asked of remote workers (swenv_remote.h). */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "expand.h"
#include "resources.h"
#include "slurm_jobs.h"
#include "swenv.h"
#include "swenv_remote.h"
#include "workflow.h"

/* The preparation job of worker wi: a task number no plan reaches. */
#define PREP_TASK(wi) ((uint32_t)(UINT32_MAX - (wi)))

/* Where the job of worker wi writes its answers: the shared workdir, or
 * (there) the /tmp of a worker with a workdir of its own. */
static char *
log_name(const struct swenv_remote *sr, size_t wi, const char *ext)
{
	return xasprintf("%s/.wfrun/swenv-%zu.%s", sr->workdir, wi, ext);
}

static char *
log_there(const struct swenv_remote *sr, size_t wi, const char *ext)
{
	return sr->w[wi].own ? xasprintf("/tmp/wfrun-swenv-%ld-%zu.%s",
					 (long)getpid(), wi, ext)
			     : log_name(sr, wi, ext);
}

/* Task t's image (image) or module list (one per line), or NULL. */
static const char *
field(const struct wf_task *t, bool image)
{
	return image ? t->container : t->modules;
}

/* The same of task k, when no task before it names the same; else NULL:
 * each is asked once. */
static const char *
first_of(const struct workflow *wf, size_t k, bool image)
{
	const char *s = field(&wf->tasks[k], image);
	for (size_t j = 0; s && j < k; j++) {
		const char *o = field(&wf->tasks[j], image);
		if (o && !strcmp(o, s))
			return NULL;
	}
	return s;
}

/* The script's helpers: $f holds a tool's message, say prints it on one
 * line; have IMAGE asks the engine $e; oci: $e pulls images. */
static const char script_head[] =
	"f=$(mktemp) || exit\ntrap 'rm -f \"$f\"' EXIT\n"
	"say() { tr -s '\\n\\t ' '   ' < \"$f\"; }\n"
	"have() { case ${e##*/} in apptainer|singularity) \"$e\" inspect "
	"\"$1\";; *) \"$e\" image inspect \"$1\";; esac; }\n"
	"oci() { case ${e##*/} in apptainer|singularity) return 1;; esac; }\n";

/* Lines "i K ok", "i K pulled T0 T1 ", "i K failed T0 T1 MSG" or "i K
 * missing 0 0 MSG" for the image of task K; "x MSG": no engine. */
static void
script_images(const struct swenv_remote *sr, const char *engine,
	      struct strbuf *s)
{
	const struct workflow *wf = sr->wf;
	bool any = false;
	for (size_t k = 0; k < wf->ntasks; k++) {
		const char *img = first_of(wf, k, true);
		if (!img)
			continue;
		if (!any) {
			strbuf_adds(s, "e=$(exec 2>\"$f\"\n");
			swenv_script_engine(engine, s);
			strbuf_adds(s, "command -v \"$e\" >/dev/null || { echo "
				    "\"wfrun: $e is not installed on this host\""
				    " >&2; exit 127; }\nprintf %s \"$e\") || "
				    "{ echo \"x $(say)\"; exit 0; }\n"
				    "echo \"e ${e##*/}\"\n");
			any = true;
		}
		strbuf_adds(s, "i=");
		sq_quote(s, img, strlen(img));
		strbuf_addf(s, "\nif have \"$i\" >/dev/null 2>\"$f\"; then echo "
			    "'i %zu ok'\n", k);
		if (sr->what & SWENV_PULL)
			strbuf_addf(s, "elif oci; then t0=$(date +%%s.%%N)\nif "
				    "\"$e\" pull -q \"$i\" >/dev/null 2>\"$f\"; "
				    "then r=pulled; else r=failed; fi\necho \"i "
				    "%zu $r $t0 $(date +%%s.%%N) $(say)\"\n", k);
		strbuf_addf(s, "else echo \"i %zu missing 0 0 $(say)\"; fi\n",
			    k);
	}
}

/* Lines "m K ok" or "m K bad MSG" for the module list of task K. */
static void
script_modules(const struct workflow *wf, struct strbuf *s)
{
	for (size_t k = 0; k < wf->ntasks; k++) {
		const char *mods = first_of(wf, k, false);
		if (!mods)
			continue;
		strbuf_addf(s, "if (\n%smodule load", swenv_script_modules());
		for (const char *m = mods; *m;) {
			size_t n = strcspn(m, "\n");
			strbuf_adds(s, " ");
			sq_quote(s, m, n);
			m += n + (m[n] == '\n');
		}
		strbuf_addf(s, "\n) >\"$f\" 2>&1; then echo 'm %zu ok'; else "
			    "echo \"m %zu bad $(say)\"; fi\n", k, k);
	}
}

void
swenv_remote_init(struct swenv_remote *sr, const struct workflow *wf,
		  const char *workdir, const struct swenv_worker *w,
		  size_t nw, unsigned what, FILE *events)
{
	memset(sr, 0, sizeof(*sr));
	sr->wf = wf;
	sr->workdir = workdir;
	sr->what = what;
	sr->events = events;
	sr->nw = nw;
	sr->w = xcalloc(nw ? nw : 1, sizeof(*sr->w));
	if (nw)
		memcpy(sr->w, w, nw * sizeof(*w));
	sr->why = xcalloc(nw * wf->ntasks + 1, sizeof(*sr->why));
}

/* Give worker wi's executor back its callbacks. */
static void
give_back(struct swenv_remote *sr, size_t wi)
{
	struct swenv_worker *w = &sr->w[wi];
	if (!w->waiting)
		return;
	w->waiting = false;
	w->ex->done = w->done;
	w->ex->on_state = w->on_state;
	w->ex->arg = w->arg;
	w->ex->xfer_done = w->xfer_done;
	w->ex->xfer_arg = w->xfer_arg;
	sr->waiting--;
}

/* Every task naming what task k names (its image, or its modules) cannot
 * run on worker wi: msg says why. */
static void
refuse(struct swenv_remote *sr, size_t wi, size_t k, bool image,
       const char *msg)
{
	const struct workflow *wf = sr->wf;
	const char *s = field(&wf->tasks[k], image);
	for (size_t j = 0; j < wf->ntasks; j++) {
		const char *o = field(&wf->tasks[j], image);
		char **why = &sr->why[wi * wf->ntasks + j];
		if (o && !strcmp(o, s) && !*why)
			*why = xstrdup(msg);
	}
}

/* FILE:LINE of task k. */
static void
task_where(const struct workflow *wf, size_t k, struct strbuf *out)
{
	struct wf_loc l = wf->tasks[k].loc;
	unsigned f = WF_LOC_FILE(l);
	strbuf_addf(out, "%s:%u", f < wf->files.n && wf->files.v[f]
		    ? wf->files.v[f] : wf->file, l.line);
}

static void
pull_done(struct swenv_remote *sr, size_t wi, size_t k, const char *engine,
	  double t0, double t1, bool ok)
{
	if (!sr->events)
		return;
	struct strbuf ev = STRBUF_INIT;
	strbuf_addf(&ev, "{\"t\":%.3f,\"ev\":\"pull\",\"worker\":", t0);
	strbuf_add_json(&ev, sr->w[wi].name);
	strbuf_adds(&ev, ",\"engine\":");
	strbuf_add_json(&ev, engine);
	strbuf_adds(&ev, ",\"image\":");
	strbuf_add_json(&ev, sr->wf->tasks[k].container);
	strbuf_addf(&ev, ",\"s\":%.3f,\"ok\":%s}\n", t1 - t0,
		    ok ? "true" : "false");
	fputs(ev.buf, sr->events);
	fflush(sr->events);
	strbuf_release(&ev);
}

/* One line of worker wi's answers. */
static void
answer(struct swenv_remote *sr, size_t wi, const char *engine, char *line)
{
	const struct workflow *wf = sr->wf;
	struct strbuf msg = STRBUF_INIT;
	char kind = line[0], st[16] = "";
	size_t k = 0;
	int used = 0;
	double t0 = 0, t1 = 0;
	if (kind == 'i' && sscanf(line, "i %zu %15s %lf %lf %n", &k, st, &t0,
				  &t1, &used) < 2)
		return;
	if (kind == 'm' && sscanf(line, "m %zu %15s %n", &k, st, &used) < 2)
		return;
	if ((kind != 'i' && kind != 'm') || k >= wf->ntasks ||
	    !strcmp(st, "ok"))
		return;
	const char *tool = line + used, *w = sr->w[wi].name;
	const char *img = wf->tasks[k].container;
	if (!strcmp(st, "pulled") || !strcmp(st, "failed")) {
		pull_done(sr, wi, k, engine, t0, t1, st[0] == 'p');
		if (st[0] == 'p') {
			info_msg("worker '%s': pulled image %s with %s in %.1f "
				 "s", w, img, engine, t1 - t0);
			return;
		}
	}
	task_where(wf, k, &msg);
	strbuf_addf(&msg, ": task '%s': ", wf->tasks[k].name);
	size_t from = msg.len;
	if (kind == 'm')
		strbuf_addf(&msg, "modules cannot be loaded on worker '%s': %s",
			    w, tool);
	else if (st[0] == 'f')
		strbuf_addf(&msg, "cannot pull image '%s' with %s on worker "
			    "'%s': %s", img, engine, w, tool);
	else
		strbuf_addf(&msg, "image '%s' not found by %s on worker '%s': "
			    "%s", img, engine, w, tool);
	while (msg.len && msg.buf[msg.len - 1] == ' ')
		msg.buf[--msg.len] = 0;
	error_msg("%s", msg.buf);
	sr->nerr++;
	refuse(sr, wi, k, kind == 'i', msg.buf + from);
	strbuf_release(&msg);
}

/* Worker wi's answers, from its log; "e ENGINE" says the engine found. */
static void
read_answers(struct swenv_remote *sr, size_t wi)
{
	struct strbuf sb = STRBUF_INIT;
	struct errbuf err;
	char *path = log_name(sr, wi, "out");
	const char *engine = sr->w[wi].engine;
	if (read_bounded(path, READ_MAX_INPUT, &sb, &err) < 0) {
		error_msg("worker '%s': its answer about images and modules "
			  "cannot be read: %s", sr->w[wi].name, err.msg);
		sr->nerr++;
	}
	for (char *l = sb.buf, *nl; l && *l; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = 0;
		if (l[0] == 'e' && l[1] == ' ' && !engine)
			engine = l + 2;
		else if (l[0] == 'x') {
			error_msg("worker '%s': tasks run in a container, but %s",
				  sr->w[wi].name, l[1] ? l + 2 : "no engine");
			sr->nerr++;
			for (size_t k = 0; k < sr->wf->ntasks; k++)
				if (sr->wf->tasks[k].container)
					refuse(sr, wi, k, true, l + 2);
		} else
			answer(sr, wi, engine ? engine : "the engine", l);
	}
	free(path);
	strbuf_release(&sb);
}

/* The answers of worker wi, fetched: read them. */
static void
prep_fetched(struct exec *e, const struct xfer_result *x, void *arg)
{
	struct swenv_remote *sr = arg;
	size_t wi = (size_t)x->id;
	if (wi >= sr->nw || sr->w[wi].ex != e || !sr->w[wi].waiting)
		return;
	give_back(sr, wi);
	if (x->ok) {
		read_answers(sr, wi);
	} else {
		error_msg("worker '%s': its answer about images and modules "
			  "cannot be fetched: %s", sr->w[wi].name, x->error);
		sr->nerr++;
	}
	char *out = log_name(sr, wi, "out");
	unlink(out);
	free(out);
}

/* Ask for worker wi's answers over its SFTP: 0, or -1 (not asked). */
static int
fetch(struct swenv_remote *sr, size_t wi)
{
	struct exec *ex = sr->w[wi].ex;
	char *local = log_name(sr, wi, "out"), *there = log_there(sr, wi, "out");
	struct xfer x = { wi, XFER_GET, local, there };
	int rc = ex->ops->transfer ? ex->ops->transfer(ex, &x) : -1;
	free(local);
	free(there);
	return rc;
}

static void
prep_done(const struct exec_result *res, void *arg)
{
	struct swenv_remote *sr = arg;
	size_t wi = UINT32_MAX - res->task;
	if (wi >= sr->nw || !sr->w[wi].waiting)
		return;
	bool ok = res->started && WIFEXITED(res->wstatus) &&
		  !WEXITSTATUS(res->wstatus);
	if (ok && sr->w[wi].own && fetch(sr, wi) == 0)
		return; /* the answers come through prep_fetched */
	give_back(sr, wi);
	char *out = log_name(sr, wi, "out"), *err = log_name(sr, wi, "err");
	if (ok) {
		read_answers(sr, wi);
	} else {
		struct strbuf sb = STRBUF_INIT;
		if (res->error[0])
			strbuf_adds(&sb, res->error);
		else if (read_bounded(err, 65536, &sb, NULL) < 0 || !sb.len)
			strbuf_addf(&sb, "its preparation job ended with "
				    "status %d", res->wstatus);
		while (sb.len && sb.buf[sb.len - 1] == '\n')
			sb.buf[--sb.len] = 0;
		error_msg("worker '%s': cannot ask about images and modules: %s",
			  sr->w[wi].name, sb.buf);
		strbuf_release(&sb);
		sr->nerr++;
	}
	unlink(out);
	unlink(err);
	free(out);
	free(err);
}

static void
prep_state(struct exec *e, void *arg)
{
	struct swenv_remote *sr = arg;
	for (size_t wi = 0; wi < sr->nw; wi++)
		if (sr->w[wi].ex == e && sr->w[wi].waiting &&
		    e->state != EXEC_READY) {
			give_back(sr, wi);
			e->on_state(e, e->arg);
		}
}

/* Send worker wi its job. */
static void
ask_one(struct swenv_remote *sr, size_t wi)
{
	struct swenv_worker *w = &sr->w[wi];
	struct strbuf s = STRBUF_INIT;
	strbuf_adds(&s, script_head);
	if (w->own) /* the answers earlier runs left */
		strbuf_adds(&s, "find /tmp -maxdepth 1 -name 'wfrun-swenv-*' "
			    "-mmin +60 -exec rm -f {} + 2>/dev/null\n");
	script_images(sr, w->engine, &s);
	if (sr->what & SWENV_MODULES)
		script_modules(sr->wf, &s);
	char *argv[] = { "/bin/sh", "-c", s.buf, NULL };
	char *out = log_there(sr, wi, "out"), *err = log_there(sr, wi, "err");
	struct exec_job job = { 0 };
	job.task = PREP_TASK(wi);
	job.exe = "/bin/sh";
	job.argv = argv;
	job.cwd = w->own ? NULL : sr->workdir;
	job.out_path = out;
	job.err_path = err;
	job.name = "wfrun-prepare";
	job.tag = w->name;
	job.cores = 1;
	w->done = w->ex->done;
	w->on_state = w->ex->on_state;
	w->arg = w->ex->arg;
	w->xfer_done = w->ex->xfer_done;
	w->xfer_arg = w->ex->xfer_arg;
	w->ex->done = prep_done;
	w->ex->on_state = prep_state;
	w->ex->arg = sr;
	w->ex->xfer_done = prep_fetched;
	w->ex->xfer_arg = sr;
	w->waiting = true;
	sr->waiting++;
	if (w->ex->ops->submit(w->ex, &job) < 0) {
		give_back(sr, wi);
		error_msg("worker '%s': cannot ask about images and modules",
			  w->name);
		sr->nerr++;
	}
	free(out);
	free(err);
	strbuf_release(&s);
}

int
swenv_remote_ask(struct swenv_remote *sr, struct loop *loop, const int *stop)
{
	bool any = false;
	for (size_t k = 0; k < sr->wf->ntasks; k++)
		any = any || sr->wf->tasks[k].container ||
		      (sr->wf->tasks[k].modules && (sr->what & SWENV_MODULES));
	if (!any)
		return 0;
	char *dir = xasprintf("%s/.wfrun", sr->workdir);
	mkdir(dir, 0777);
	free(dir);
	for (size_t wi = 0; wi < sr->nw; wi++)
		if (sr->w[wi].ex && sr->w[wi].ex->state == EXEC_READY)
			ask_one(sr, wi);
	/* stopped: a job still running keeps its callbacks here, so that
	 * its end, later, is not taken for a task's */
	while (sr->waiting && !(stop && *stop))
		loop_run_once(loop);
	return sr->nerr;
}

const char *
swenv_remote_why(const struct swenv_remote *sr, size_t wi, size_t task)
{
	if (!sr->why || wi >= sr->nw || task >= sr->wf->ntasks)
		return NULL;
	return sr->why[wi * sr->wf->ntasks + task];
}

void
swenv_remote_release(struct swenv_remote *sr)
{
	for (size_t i = 0; sr->why && i < sr->nw * sr->wf->ntasks; i++)
		free(sr->why[i]);
	free(sr->why);
	free(sr->w);
	memset(sr, 0, sizeof(*sr));
}

/* wfrun check's own executors, connected for the question alone. */
struct asker {
	struct loop loop;
	struct exec **ex;
	size_t n;
	int stop;
};

static void
asker_signal(int signo, void *arg)
{
	struct asker *a = arg;
	if (signo != SIGCHLD) {
		a->stop++;
		return;
	}
	for (size_t i = 0; i < a->n; i++)
		if (a->ex[i])
			a->ex[i]->ops->on_sigchld(a->ex[i]);
}

/* No job but the preparation job, whose callbacks are swenv_remote's. */
static void
asker_done(const struct exec_result *res, void *arg)
{
	(void)res;
	(void)arg;
}

static void
asker_state(struct exec *e, void *arg)
{
	(void)e;
	(void)arg;
}

/* Start worker ws's executor (NULL: it is not asked from here). */
static struct exec *
asker_start(struct asker *a, const struct cluster *cl, size_t i,
	    const struct workflow *wf, const char *agent)
{
	const struct worker_spec *ws = &cl->workers[i];
	struct exec_ssh_opts so = { false, agent, wf->workdir, false };
	struct exec_ssh_opts own = { false, agent, NULL, true };
	if (ws->local || ws->srun)
		return NULL;
	if (ws->slurm_jobs)
		return slurm_jobs_new(cl->slurm, wf->workdir, &a->loop,
				      asker_done, a);
	if (!ws->shared)
		return exec_ssh_new(ws, &own, &a->loop, asker_done,
				    asker_state, a);
	return exec_ssh_new(ws, &so, &a->loop, asker_done, asker_state, a);
}

int
swenv_remote_check(const struct workflow *wf, const struct cluster *cl,
		   const char *engine, const char *agent)
{
	struct asker a = { .n = cl->nworkers };
	if (loop_init(&a.loop, asker_signal, &a) < 0) {
		error_msg("cannot set up signal handling: %s", strerror(errno));
		return 1;
	}
	a.ex = xcalloc(a.n + 1, sizeof(*a.ex));
	struct swenv_worker *sw = xcalloc(a.n + 1, sizeof(*sw));
	for (size_t i = 0; i < a.n; i++)
		a.ex[i] = asker_start(&a, cl, i, wf, agent);
	for (size_t i = 0; i < a.n && !a.stop; i++)
		while (a.ex[i] && a.ex[i]->state == EXEC_CONNECTING && !a.stop)
			loop_run_once(&a.loop);
	for (size_t i = 0; i < a.n; i++) {
		const struct worker_spec *ws = &cl->workers[i];
		if (a.ex[i] && a.ex[i]->state != EXEC_READY) /* runs none */
			warning_msg("worker '%s' cannot be asked about images "
				    "and modules: %s", ws->name, a.ex[i]->error);
		sw[i].name = ws->name;
		sw[i].ex = a.ex[i];
		sw[i].engine = engine ? engine : ws->container_engine;
		sw[i].cores = 1;
		sw[i].own = !ws->shared && !ws->local && !ws->slurm_jobs;
	}
	struct swenv_remote sr;
	swenv_remote_init(&sr, wf, wf->workdir, sw, a.n, SWENV_MODULES, NULL);
	int nerr = swenv_remote_ask(&sr, &a.loop, &a.stop);
	for (size_t i = 0; i < a.n; i++)
		if (a.ex[i])
			a.ex[i]->ops->release(a.ex[i]);
	swenv_remote_release(&sr);
	free(a.ex);
	free(sw);
	loop_release(&a.loop);
	return nerr;
}
