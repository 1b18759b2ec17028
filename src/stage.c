#include "stage.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "path.h"

#define NONE UINT32_MAX

enum { F_NONE, F_MOVING, F_HELD };

/* One file of one datum version. */
struct sfile {
	uint32_t ver;         /* writer task + 1; 0: the master's input */
	const char *rel;      /* relative to the workdir (arena) */
	long long size;       /* -1: a directory (made, never sent) */
	bool on_master;       /* an input, or relayed into .wfrun/relay */
	bool wanted;          /* to be brought back by this run's fetch */
	bool fetched;         /* in the relay, or made, ready to be placed */
	bool placed;          /* under its own name in the workdir */
	uint32_t master_x;    /* GET to the relay in flight, or NONE */
	uint32_t lost_from;   /* the lost worker that last held it, or NONE */
	int64_t mtime_ns;     /* where it was made (0: not known) */
	const char *old;      /* the store of an earlier run that holds it on
				 worker home (a task skipped, its outputs
				 taken from there: stage_adopt), or NULL */
	uint32_t home;
};

enum xkind { X_PUT, X_RELAY, X_FETCH };

struct u64vec {
	uint64_t *v;
	size_t n, alloc;
};
struct u32vec {
	uint32_t *v;
	size_t n, alloc;
};

/* A transfer asked of a worker. */
struct xrec {
	uint32_t file;
	uint32_t worker;       /* PUT: destination; RELAY, FETCH: source */
	uint8_t kind;
	struct u64vec waiters; /* PUT: task << 32 | seq; RELAY: PUT ids */
};

/* A task whose inputs are on their way to its worker. */
struct pend {
	uint32_t task, worker, seq;
	uint32_t missing;      /* files not yet on the worker */
	double t0;
	long long bytes;       /* sent to the worker for this task */
	struct exec_job job;
	struct strvec argv, env;
	char *out_path, *err_path, *exe;
};

struct sworker {
	bool staged, lost;
	struct exec *ex;
	const char *name, *workdir;
};

struct stage {
	struct plan *p;
	struct dag *g;
	char runid[64];
	struct sworker *w;
	size_t nw;
	struct arena arena;
	struct hmap files_by_key;     /* "ver\0rel" -> file */
	VEC(struct sfile) files;
	uint8_t *fst;                 /* files x workers: F_* */
	uint32_t *fx;                 /* files x workers: PUT in flight */
	size_t falloc;                /* rows allocated in fst/fx */
	VEC(struct xrec) x;
	struct pend **pend;           /* per task, while staged */
	uint32_t seq;
	uint32_t *rt_writer;          /* per datum: last writer done, or NONE */
	struct u32vec *vfiles;        /* per task: the files it wrote */
	struct u32vec *need;          /* per task: its input files (cache) */
	bool *need_done;
	struct u32vec *infiles;       /* per datum: master files under it */
	bool *in_walked;
	char **in_refused;            /* per datum: a link not followed */
	const char **need_refused;    /* per task: why it cannot be staged */
	char *wd_real;                /* the workdir, links resolved */
	double *in_s, *out_s;         /* per task, of its last launch */
	long long *bytes;
	size_t fetching, fetch_failed;
	struct u32vec *refetch;       /* per task run again at the end: the
					 lost outputs it is to make */
	struct strbuf sb;
	struct stage_hooks hooks;
	uint8_t *regen;               /* per task: times it was run again */
	bool *ok;                     /* per task: its last attempt here
					 succeeded */
	enum stage_fetch mode;
	struct u32vec *parked;        /* per producer: tasks waiting for it */
	uint32_t *ran_on;             /* per task: the worker of its last
					 success, or NONE */
	uint8_t *ask;                 /* per task: ASK_* of its store */
	uint32_t *ask_w;              /* per task: the worker asked */
	size_t asking;
};

enum { ASK_NONE, ASK_SENT, ASK_HELD, ASK_GONE };

static const char *
ver_dir(uint32_t ver, char *buf, size_t n)
{
	if (!ver)
		snprintf(buf, n, "in");
	else
		snprintf(buf, n, "t%u", ver);
	return buf;
}

/* Where file f lives on worker k. */
static void
remote_path(struct stage *st, uint32_t f, size_t k, struct strbuf *out)
{
	char v[32];
	const struct sfile *sf = &st->files.v[f];
	strbuf_reset(out);
	if (sf->old && sf->home == k)
		strbuf_addf(out, "%s/%s", sf->old, sf->rel);
	else
		strbuf_addf(out, "%s/.wfrun/data/%s/%s/%s", st->w[k].workdir,
			    st->runid, ver_dir(sf->ver, v, sizeof(v)), sf->rel);
}

/* Where file f is on the master (relative to the workdir). */
static void
master_path(struct stage *st, uint32_t f, struct strbuf *out)
{
	char v[32];
	const struct sfile *sf = &st->files.v[f];
	strbuf_reset(out);
	if (!sf->ver)
		strbuf_adds(out, sf->rel);
	else
		strbuf_addf(out, ".wfrun/relay/%s/%s/%s", st->runid,
			    ver_dir(sf->ver, v, sizeof(v)), sf->rel);
}

static uint32_t
file_get(struct stage *st, uint32_t ver, const char *rel, size_t len,
	 long long size)
{
	strbuf_reset(&st->sb);
	strbuf_addf(&st->sb, "%u", ver);
	strbuf_addch(&st->sb, '\0');
	strbuf_add(&st->sb, rel, len);
	uint64_t *slot = hmap_get(&st->files_by_key, st->sb.buf, st->sb.len);
	if (slot) {
		if (size >= 0)
			st->files.v[*slot].size = size;
		return (uint32_t)*slot;
	}
	/* the key must outlive the map: the arena holds it */
	char *key = arena_alloc(&st->arena, st->sb.len + 1);
	memcpy(key, st->sb.buf, st->sb.len);
	key[st->sb.len] = '\0';
	hmap_put(&st->files_by_key, key, st->sb.len, st->files.n, NULL);
	struct sfile sf = { ver, key + strlen(key) + 1, size, ver == 0, false,
			    false, false, NONE, NONE, 0, NULL, NONE };
	VEC_PUSH(st->files, sf);
	if (st->files.n > st->falloc) {
		size_t old = st->falloc;
		st->falloc = st->falloc ? 2 * st->falloc : 256;
		st->fst = xrealloc(st->fst, st->falloc * st->nw);
		st->fx = xrealloc(st->fx, st->falloc * st->nw * sizeof(uint32_t));
		memset(st->fst + old * st->nw, 0, (st->falloc - old) * st->nw);
		for (size_t i = old * st->nw; i < st->falloc * st->nw; i++)
			st->fx[i] = NONE;
	}
	return (uint32_t)(st->files.n - 1);
}

static bool
is_abs(const char *p)
{
	return p[0] == '/';
}

/* rel is path or under it ("." holds everything). */
static bool
under(const char *rel, const char *path)
{
	if (!strcmp(path, "."))
		return true;
	size_t n = strlen(path);
	return !strncmp(rel, path, n) && (rel[n] == '\0' || rel[n] == '/');
}

/* The task whose version of datum x a reader sees now: the last finished
 * writer of x or of a directory holding it (a later task in program order
 * wins, as in dag_latest_writer). */
static uint32_t
latest(const struct stage *st, uint32_t x)
{
	uint32_t best = NONE;
	for (; x != DAG_NONE; x = st->g->data.v[x].parent) {
		uint32_t w = st->rt_writer[x];
		if (w != NONE && (best == NONE || w > best))
			best = w;
	}
	return best;
}

/* A symbolic link below an input datum: followed (true) when it leads to
 * a place inside the workdir, as a task reading it there would; else
 * never (a secret file or a whole tree outside would go to a worker): the
 * datum is refused, saying why. */
static bool
follow_link(struct stage *st, uint32_t x, const char *name)
{
	char *to = realpath(name, NULL);
	if (!to)
		return false; /* dangling: nothing to read */
	if (!st->wd_real)
		st->wd_real = realpath(".", NULL);
	size_t n = st->wd_real ? strlen(st->wd_real) : 0;
	bool in = st->wd_real && !strncmp(to, st->wd_real, n) &&
		  (to[n] == '/' || to[n] == '\0');
	if (!in && !st->in_refused[x])
		st->in_refused[x] = xasprintf(
			"cannot stage '%s': a symbolic link to %s, outside the "
			"workdir (links inside an input directory are followed "
			"only within the workdir on workers whose workdir is not "
			"shared)", name, to);
	free(to);
	return in;
}

/* Every regular file at or under path (relative; "" the workdir), as
 * version 0 files of datum x.  The datum's own path is followed if it is
 * a symbolic link (the workflow named it); a link below it only within
 * the workdir (follow_link). */
static void
walk_input(struct stage *st, uint32_t x, struct strbuf *path, bool top)
{
	struct stat sb;
	const char *name = path->len ? path->buf : ".";
	if (lstat(name, &sb) < 0)
		return;
	if (S_ISLNK(sb.st_mode) && !top && !follow_link(st, x, name))
		return;
	if (S_ISLNK(sb.st_mode) && stat(name, &sb) < 0)
		return;
	if (S_ISREG(sb.st_mode)) {
		uint32_t f = file_get(st, 0, path->buf, path->len, sb.st_size);
		VEC_PUSH(st->infiles[x], f);
		return;
	}
	if (!S_ISDIR(sb.st_mode))
		return;
	DIR *d = opendir(name);
	if (!d)
		return;
	struct dirent *de;
	size_t len = path->len;
	bool empty = true;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		/* the workdir read whole: not wfrun's own files */
		if (!len && !strcmp(de->d_name, ".wfrun"))
			continue;
		empty = false;
		if (len)
			strbuf_addch(path, '/');
		strbuf_adds(path, de->d_name);
		walk_input(st, x, path, false);
		strbuf_setlen(path, len);
	}
	closedir(d);
	if (empty && len) {
		uint32_t f = file_get(st, 0, path->buf, len, -1);
		VEC_PUSH(st->infiles[x], f);
	}
}

/* The master's files under datum x, read once. */
static void
input_files(struct stage *st, uint32_t x)
{
	if (st->in_walked[x])
		return;
	st->in_walked[x] = true;
	struct strbuf path = STRBUF_INIT;
	const char *p = st->g->data.v[x].path;
	if (strcmp(p, "."))
		strbuf_adds(&path, p);
	walk_input(st, x, &path, true);
	strbuf_release(&path);
}

/* Add to the task's needs the files of version w under datum x (w NONE:
 * the master's inputs), the later version of a path winning. */
static void
add_files(struct stage *st, struct hmap *seen, struct u32vec *need,
	  uint32_t x, uint32_t w)
{
	const char *path = st->g->data.v[x].path;
	uint32_t *v;
	size_t n;
	if (w == NONE) {
		input_files(st, x);
		if (st->in_refused[x] && !st->need_refused[need - st->need])
			st->need_refused[need - st->need] = st->in_refused[x];
		v = st->infiles[x].v;
		n = st->infiles[x].n;
	} else {
		v = st->vfiles[w].v;
		n = st->vfiles[w].n;
	}
	for (size_t i = 0; i < n; i++) {
		const struct sfile *sf = &st->files.v[v[i]];
		if (!under(sf->rel, path))
			continue;
		int found = 0;
		uint64_t *slot = hmap_put(seen, sf->rel, strlen(sf->rel),
					  need->n, &found);
		if (!found) {
			VEC_PUSH(*need, v[i]);
		} else if (st->files.v[need->v[*slot]].ver < sf->ver) {
			need->v[*slot] = v[i];
		}
	}
}

/* The files task t reads, each once (a file passed alone and inside a
 * collection is one file).  Fixed once the task is ready. */
static void
compute_need(struct stage *st, uint32_t t)
{
	if (st->need_done[t])
		return;
	st->need_done[t] = true;
	struct dag *g = st->g;
	const struct dag_task *dt = &g->tasks.v[t];
	struct hmap seen;
	hmap_init(&seen);
	for (uint32_t i = 0; i < dt->nacc; i++) {
		const struct dag_access *a = &g->acc.v[dt->acc + i];
		uint32_t x = a->datum;
		if (!(a->mode & DAG_READ) || is_abs(g->data.v[x].path))
			continue;
		uint32_t base = latest(st, x);
		add_files(st, &seen, &st->need[t], x, base);
		if (!a->is_dir)
			continue;
		/* elements written since the collection's own version */
		for (uint32_t y = g->data.v[x].first_child; y != DAG_NONE;) {
			uint32_t wy = st->rt_writer[y];
			if (wy != NONE && (base == NONE || wy > base))
				add_files(st, &seen, &st->need[t], y, wy);
			/* next in depth-first order, staying under x */
			if (g->data.v[y].first_child != DAG_NONE) {
				y = g->data.v[y].first_child;
				continue;
			}
			while (y != x && g->data.v[y].next_sibling == DAG_NONE)
				y = g->data.v[y].parent;
			y = y == x ? DAG_NONE : g->data.v[y].next_sibling;
		}
	}
	hmap_release(&seen);
}

long long
stage_local_bytes(struct stage *st, uint32_t t, size_t wi)
{
	if (!st->w[wi].staged)
		return 0;
	compute_need(st, t);
	long long sum = 0;
	for (size_t i = 0; i < st->need[t].n; i++) {
		uint32_t f = st->need[t].v[i];
		if (st->fst[f * st->nw + wi] != F_NONE &&
		    st->files.v[f].size > 0)
			sum += st->files.v[f].size;
	}
	return sum;
}

struct stage *
stage_new(struct plan *p, size_t nworkers)
{
	struct stage *st = xcalloc(1, sizeof(*st));
	st->p = p;
	st->g = &p->dag;
	st->nw = nworkers;
	st->w = xcalloc(nworkers, sizeof(*st->w));
	snprintf(st->runid, sizeof(st->runid), "%ld-%ld", (long)clock_real(),
		 (long)getpid());
	arena_init(&st->arena);
	hmap_init(&st->files_by_key);
	size_t nt = st->g->tasks.n ? st->g->tasks.n : 1;
	size_t nd = st->g->data.n ? st->g->data.n : 1;
	st->pend = xcalloc(nt, sizeof(*st->pend));
	st->rt_writer = xmalloc(nd * sizeof(uint32_t));
	for (size_t i = 0; i < nd; i++)
		st->rt_writer[i] = NONE;
	st->vfiles = xcalloc(nt, sizeof(*st->vfiles));
	st->need = xcalloc(nt, sizeof(*st->need));
	st->need_done = xcalloc(nt, sizeof(bool));
	st->infiles = xcalloc(nd, sizeof(*st->infiles));
	st->in_walked = xcalloc(nd, sizeof(bool));
	st->in_refused = xcalloc(nd, sizeof(char *));
	st->need_refused = xcalloc(nt, sizeof(char *));
	st->in_s = xcalloc(nt, sizeof(double));
	st->out_s = xcalloc(nt, sizeof(double));
	st->bytes = xcalloc(nt, sizeof(long long));
	st->regen = xcalloc(nt, 1);
	st->ok = xcalloc(nt, sizeof(bool));
	st->mode = FETCH_NONE;
	st->parked = xcalloc(nt, sizeof(*st->parked));
	st->refetch = xcalloc(nt, sizeof(*st->refetch));
	st->ran_on = xmalloc(nt * sizeof(uint32_t));
	for (size_t i = 0; i < nt; i++)
		st->ran_on[i] = NONE;
	st->ask = xcalloc(nt, 1);
	st->ask_w = xcalloc(nt, sizeof(uint32_t));
	strbuf_init(&st->sb);
	return st;
}

static void
pend_free(struct pend *pd)
{
	for (size_t i = 0; i < pd->argv.n; i++)
		free(pd->argv.v[i]);
	VEC_FREE(pd->argv);
	for (size_t i = 0; i < pd->env.n; i++)
		free(pd->env.v[i]);
	VEC_FREE(pd->env);
	free(pd->out_path);
	free(pd->err_path);
	free(pd->exe);
	free(pd);
}

void
stage_free(struct stage *st)
{
	if (!st)
		return;
	size_t nt = st->g->tasks.n, nd = st->g->data.n;
	for (size_t i = 0; i < nt; i++) {
		if (st->pend[i])
			pend_free(st->pend[i]);
		VEC_FREE(st->vfiles[i]);
		VEC_FREE(st->need[i]);
		VEC_FREE(st->parked[i]);
		VEC_FREE(st->refetch[i]);
	}
	for (size_t i = 0; i < nd; i++)
		VEC_FREE(st->infiles[i]);
	for (size_t i = 0; i < st->x.n; i++)
		VEC_FREE(st->x.v[i].waiters);
	VEC_FREE(st->x);
	VEC_FREE(st->files);
	hmap_release(&st->files_by_key);
	arena_release(&st->arena);
	free(st->fst);
	free(st->fx);
	free(st->pend);
	free(st->rt_writer);
	free(st->vfiles);
	free(st->need);
	free(st->need_done);
	free(st->infiles);
	free(st->in_walked);
	for (size_t i = 0; i < st->g->data.n; i++)
		free(st->in_refused[i]);
	free(st->in_refused);
	free(st->need_refused);
	free(st->wd_real);
	free(st->in_s);
	free(st->out_s);
	free(st->bytes);
	free(st->regen);
	free(st->ok);
	free(st->parked);
	free(st->refetch);
	free(st->ran_on);
	free(st->ask);
	free(st->ask_w);
	free(st->w);
	strbuf_release(&st->sb);
	free(st);
}

static void on_xfer(struct exec *e, const struct xfer_result *r, void *arg);
static void on_store(struct exec *e, uint64_t id, bool ok, const char *why,
		     void *arg);

void
stage_set_hooks(struct stage *st, const struct stage_hooks *h)
{
	if (st)
		st->hooks = *h;
}

void
stage_add_worker(struct stage *st, size_t wi, struct exec *ex,
		 const char *name, const char *workdir)
{
	st->w[wi].staged = true;
	st->w[wi].ex = ex;
	st->w[wi].name = name;
	st->w[wi].workdir = workdir;
	ex->xfer_done = on_xfer;
	ex->store_done = on_store;
	ex->xfer_arg = st;
}

bool
stage_is_staged(const struct stage *st, size_t wi)
{
	return st && st->w[wi].staged;
}

/* ---- transfers ---- */

static uint32_t
new_xrec(struct stage *st, uint32_t f, size_t k, enum xkind kind)
{
	struct xrec x;
	memset(&x, 0, sizeof(x));
	x.file = f;
	x.worker = (uint32_t)k;
	x.kind = (uint8_t)kind;
	VEC_PUSH(st->x, x);
	return (uint32_t)(st->x.n - 1);
}

static bool
ready(const struct stage *st, size_t k)
{
	return st->w[k].staged && !st->w[k].lost &&
	       st->w[k].ex->state == EXEC_READY;
}

/* A worker that holds file f and can send it, or NONE. */
static uint32_t
holder(const struct stage *st, uint32_t f)
{
	for (size_t k = 0; k < st->nw; k++)
		if (st->fst[f * st->nw + k] == F_HELD && ready(st, k))
			return (uint32_t)k;
	return NONE;
}

static void handle_result(struct stage *st, const struct xfer_result *r);

/* Hand transfer xi to its worker's thread; a worker that cannot take it
 * fails it as lost (reported at once, outside any caller's loop). */
static void
issue(struct stage *st, uint32_t xi)
{
	struct xrec *x = &st->x.v[xi];
	struct strbuf loc = STRBUF_INIT, rem = STRBUF_INIT;
	/* a fetch too lands in the relay: it is placed under its own
	 * name only once whole, with the rest of its task's (stage_place) */
	master_path(st, x->file, &loc);
	remote_path(st, x->file, x->worker, &rem);
	struct stat sb;
	if (x->kind == X_PUT && st->files.v[x->file].ver &&
	    !lstat(loc.buf, &sb) && S_ISLNK(sb.st_mode)) {
		/* a link a task made: sending it would send what it leads
		 * to on the master */
		struct xfer_result res;
		memset(&res, 0, sizeof(res));
		res.id = xi;
		snprintf(res.error, sizeof(res.error), "a symbolic link a task "
			 "made goes to no other worker");
		strbuf_release(&loc);
		strbuf_release(&rem);
		handle_result(st, &res);
		return;
	}
	struct xfer xf = { xi, x->kind == X_PUT ? XFER_PUT : XFER_GET, loc.buf,
			   rem.buf };
	struct exec *ex = st->w[x->worker].ex;
	int r = ready(st, x->worker) ? ex->ops->transfer(ex, &xf) : -1;
	strbuf_release(&loc);
	strbuf_release(&rem);
	if (r < 0) {
		struct xfer_result res;
		memset(&res, 0, sizeof(res));
		res.id = xi;
		res.lost = true;
		snprintf(res.error, sizeof(res.error), "worker '%s' is not "
			 "reachable", st->w[x->worker].name);
		handle_result(st, &res);
	}
}

/* "'out/3.txt' (written by task gen (i=3))" */
static void
describe(struct stage *st, uint32_t f, struct strbuf *out)
{
	const struct sfile *sf = &st->files.v[f];
	strbuf_addf(out, "'%s'", sf->rel);
	if (sf->ver) {
		strbuf_adds(out, " (written by task ");
		plan_label(st->p, sf->ver - 1, out);
		strbuf_addch(out, ')');
	}
	if (sf->lost_from != NONE)
		strbuf_addf(out, " was only on worker '%s', which was lost",
			    st->w[sf->lost_from].name);
	else
		strbuf_adds(out, " is on no reachable worker");
}

static void
fail_task(struct stage *st, struct pend *pd, bool lost, const char *msg)
{
	struct exec_result res;
	memset(&res, 0, sizeof(res));
	res.task = pd->task;
	res.lost = lost;
	res.read_bytes = res.write_bytes = -1;
	res.start = res.end = clock_real();
	snprintf(res.error, sizeof(res.error), "%s", msg);
	struct exec *ex = st->w[pd->worker].ex;
	st->in_s[pd->task] = clock_mono() - pd->t0;
	st->bytes[pd->task] = pd->bytes;
	st->pend[pd->task] = NULL;
	pend_free(pd);
	ex->done(&res, ex->arg);
}

/*
 * Task pd needs file f, which no reachable worker holds.  Run its producer
 * again (once) and park the task until that ends; or, when that cannot
 * be, fail the task naming the data.
 */
static void
lost_input(struct stage *st, struct pend *pd, uint32_t f, const char *why)
{
	uint32_t ver = st->files.v[f].ver;
	uint32_t p = ver ? ver - 1 : NONE;
	/* (its producer may be running again already, for a lost output
	 * of the final fetch: refetch) */
	bool again = p != NONE && st->hooks.rerun &&
		     (st->parked[p].n || st->refetch[p].n ||
		      (st->regen[p] < 1 && st->hooks.rerun(p, st->hooks.arg)));
	if (!again) {
		struct strbuf msg = STRBUF_INIT;
		strbuf_adds(&msg, "its input ");
		describe(st, f, &msg);
		if (p != NONE && st->regen[p])
			strbuf_adds(&msg, ", and running its producer again did "
				    "not make it");
		if (why)
			strbuf_addf(&msg, " (%s)", why);
		fail_task(st, pd, false, msg.buf);
		strbuf_release(&msg);
		return;
	}
	if (!st->parked[p].n && !st->refetch[p].n) {
		st->regen[p]++;
		struct strbuf lab = STRBUF_INIT, msg = STRBUF_INIT;
		plan_label(st->p, p, &lab);
		describe(st, f, &msg);
		warning_msg("%s: running task %s again", msg.buf, lab.buf);
		strbuf_release(&lab);
		strbuf_release(&msg);
	}
	VEC_PUSH(st->parked[p], pd->task);
	struct exec_result res;
	memset(&res, 0, sizeof(res));
	res.task = pd->task;
	res.parked = true;
	struct exec *ex = st->w[pd->worker].ex;
	st->pend[pd->task] = NULL;
	pend_free(pd);
	ex->done(&res, ex->arg);
}

static struct pend *
waiter(struct stage *st, uint64_t key)
{
	struct pend *pd = st->pend[key >> 32];
	return pd && pd->seq == (uint32_t)key ? pd : NULL;
}

static void submit(struct stage *st, struct pend *pd);
static void refetch(struct stage *st, uint32_t t);
static void lost_output(struct stage *st, uint32_t f);

static void
put_result(struct stage *st, uint32_t xi, const struct xfer_result *r)
{
	struct xrec *x = &st->x.v[xi];
	size_t i = x->file * st->nw + x->worker;
	st->fst[i] = r->ok ? F_HELD : F_NONE;
	st->fx[i] = NONE;
	/* a task may be failed (and freed) below: take the list */
	struct u64vec w = x->waiters;
	memset(&x->waiters, 0, sizeof(x->waiters));
	for (size_t k = 0; k < w.n; k++) {
		struct pend *pd = waiter(st, w.v[k]);
		if (!pd)
			continue;
		if (r->ok) {
			if (!--pd->missing)
				submit(st, pd);
		} else {
			struct strbuf msg = STRBUF_INIT;
			strbuf_addf(&msg, "cannot stage '%s' on worker '%s': %s",
				    st->files.v[x->file].rel,
				    st->w[pd->worker].name, r->error);
			fail_task(st, pd, r->lost || st->w[pd->worker].lost,
				  msg.buf);
			strbuf_release(&msg);
		}
	}
	VEC_FREE(w);
}

/* File f on worker k is no more (its worker was lost). */
static void
forget(struct stage *st, size_t k)
{
	st->w[k].lost = true;
	for (size_t f = 0; f < st->files.n; f++)
		if (st->fst[f * st->nw + k] == F_HELD) {
			st->fst[f * st->nw + k] = F_NONE;
			st->files.v[f].lost_from = (uint32_t)k;
		}
}

static void
relay_result(struct stage *st, uint32_t xi, const struct xfer_result *r)
{
	struct xrec *x = &st->x.v[xi];
	struct sfile *sf = &st->files.v[x->file];
	sf->master_x = NONE;
	if (r->ok)
		sf->on_master = true;
	else if (r->lost && !st->w[x->worker].lost)
		forget(st, x->worker);
	uint32_t src = r->ok ? NONE : holder(st, x->file);
	if (!r->ok && src != NONE) {
		/* another worker has it: the waiting PUTs wait for that */
		uint32_t again = new_xrec(st, x->file, src, X_RELAY);
		x = &st->x.v[xi];
		st->x.v[again].waiters = x->waiters;
		memset(&x->waiters, 0, sizeof(x->waiters));
		st->files.v[st->x.v[again].file].master_x = again;
		issue(st, again);
		return;
	}
	struct u64vec w = x->waiters;
	memset(&x->waiters, 0, sizeof(x->waiters));
	for (size_t k = 0; k < w.n; k++) {
		uint32_t put = (uint32_t)w.v[k];
		if (r->ok) {
			issue(st, put);
		} else {
			struct xrec *px = &st->x.v[put];
			uint32_t f = px->file;
			size_t i = f * st->nw + px->worker;
			st->fst[i] = F_NONE;
			st->fx[i] = NONE;
			struct u64vec pw = px->waiters;
			memset(&px->waiters, 0, sizeof(px->waiters));
			for (size_t j = 0; j < pw.n; j++) {
				struct pend *pd = waiter(st, pw.v[j]);
				if (pd)
					lost_input(st, pd, f,
						   r->lost ? NULL : r->error);
			}
			VEC_FREE(pw);
		}
	}
	VEC_FREE(w);
}

static void
fetch_result(struct stage *st, uint32_t xi, const struct xfer_result *r)
{
	struct xrec *x = &st->x.v[xi];
	uint32_t f = x->file;
	if (r->ok) {
		st->files.v[f].fetched = true;
		st->files.v[f].on_master = true; /* in the relay */
		st->fetching--;
		return;
	}
	if (r->lost && !st->w[x->worker].lost)
		forget(st, x->worker);
	uint32_t src = holder(st, f);
	if (r->lost && src != NONE) {
		issue(st, new_xrec(st, f, src, X_FETCH));
		return;
	}
	st->fetching--;
	if (r->lost) {
		/* lost with the only worker that had it: made again */
		lost_output(st, f);
		return;
	}
	st->fetch_failed++;
	error_msg("output '%s' not brought back from worker '%s': %s",
		  st->files.v[f].rel, st->w[x->worker].name, r->error);
}

static void
handle_result(struct stage *st, const struct xfer_result *r)
{
	uint32_t xi = (uint32_t)r->id;
	if (xi >= st->x.n)
		BUG("transfer %u unknown", xi);
	switch (st->x.v[xi].kind) {
	case X_PUT:
		put_result(st, xi, r);
		break;
	case X_RELAY:
		relay_result(st, xi, r);
		break;
	case X_FETCH:
		fetch_result(st, xi, r);
		break;
	}
}

static void
on_xfer(struct exec *e, const struct xfer_result *r, void *arg)
{
	(void)e;
	handle_result(arg, r);
}

/* ---- tasks ---- */

/* Make file f come to the task's worker; -1 when no one has it. */
static int
need_file(struct stage *st, struct pend *pd, uint32_t f)
{
	size_t k = pd->worker, i = f * st->nw + k;
	uint64_t key = (uint64_t)pd->task << 32 | pd->seq;
	struct sfile *sf = &st->files.v[f];
	if (st->fst[i] == F_HELD || sf->size < 0)
		return 0;
	if (st->fst[i] == F_MOVING) {
		VEC_PUSH(st->x.v[st->fx[i]].waiters, key);
		pd->missing++;
		return 0;
	}
	uint32_t src = sf->on_master || sf->master_x != NONE ? NONE
							     : holder(st, f);
	if (!sf->on_master && sf->master_x == NONE && src == NONE)
		return -1;
	uint32_t put = new_xrec(st, f, k, X_PUT);
	VEC_PUSH(st->x.v[put].waiters, key);
	st->fst[i] = F_MOVING;
	st->fx[i] = put;
	pd->missing++;
	pd->bytes += sf->size;
	if (sf->on_master) {
		issue(st, put);
	} else if (sf->master_x != NONE) {
		VEC_PUSH(st->x.v[sf->master_x].waiters, put);
	} else {
		uint32_t relay = new_xrec(st, f, src, X_RELAY);
		VEC_PUSH(st->x.v[relay].waiters, put);
		st->files.v[f].master_x = relay;
		issue(st, relay);
	}
	return 0;
}

static void
copy_strvec(struct strvec *to, char *const *from)
{
	for (; from && *from; from++)
		VEC_PUSH(*to, xstrdup(*from));
	VEC_PUSH(*to, NULL);
}

void
stage_launch(struct stage *st, uint32_t t, size_t wi,
	     const struct exec_job *job)
{
	struct pend *pd = xcalloc(1, sizeof(*pd));
	pd->task = t;
	pd->worker = (uint32_t)wi;
	pd->seq = ++st->seq;
	pd->t0 = clock_mono();
	pd->job = *job;
	copy_strvec(&pd->argv, job->argv);
	pd->job.argv = pd->argv.v;
	if (job->env_add) {
		copy_strvec(&pd->env, job->env_add);
		pd->job.env_add = pd->env.v;
	}
	pd->job.envp = NULL;
	pd->job.exe = pd->exe = job->exe ? xstrdup(job->exe) : NULL;
	/* logs beside the store, outside the sandbox that goes away */
	pd->out_path = xasprintf("%s/%s", st->w[wi].workdir, job->out_path);
	pd->err_path = xasprintf("%s/%s", st->w[wi].workdir, job->err_path);
	pd->job.out_path = pd->out_path;
	pd->job.err_path = pd->err_path;
	pd->job.cwd = NULL;
	if (st->pend[t])
		BUG("task %u staged twice", t);
	st->pend[t] = pd;
	compute_need(st, t);
	if (st->need_refused[t]) {
		fail_task(st, pd, false, st->need_refused[t]);
		return;
	}
	uint32_t seq = pd->seq;
	for (size_t i = 0; i < st->need[t].n; i++) {
		uint32_t f = st->need[t].v[i];
		if (need_file(st, pd, f) < 0) {
			lost_input(st, pd, f, NULL);
			return;
		}
		/* a transfer that failed at once may have ended the task */
		if (!waiter(st, (uint64_t)t << 32 | seq))
			return;
	}
	if (!pd->missing)
		submit(st, pd);
}

/* The task writes f's path (an INOUT): it gets a copy, not a link. */
static bool
written_by(struct stage *st, uint32_t t, const char *rel)
{
	const struct dag_task *dt = &st->g->tasks.v[t];
	for (uint32_t i = 0; i < dt->nacc; i++) {
		const struct dag_access *a = &st->g->acc.v[dt->acc + i];
		if ((a->mode & DAG_WRITE) &&
		    under(rel, st->g->data.v[a->datum].path))
			return true;
	}
	return false;
}

static void
submit(struct stage *st, struct pend *pd)
{
	uint32_t t = pd->task;
	size_t k = pd->worker;
	struct dag *g = st->g;
	const struct dag_task *dt = &g->tasks.v[t];
	const char *wd = st->w[k].workdir;
	size_t n = st->need[t].n;
	struct exec_link *links = xcalloc(n ? n : 1, sizeof(*links));
	struct strvec srcs = { 0 }, mk = { 0 }, outs = { 0 };
	struct strbuf b = STRBUF_INIT;
	size_t nl = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t f = st->need[t].v[i];
		if (st->files.v[f].size < 0) {
			VEC_PUSH(mk, (char *)st->files.v[f].rel);
			continue;
		}
		remote_path(st, f, k, &b);
		VEC_PUSH(srcs, xstrdup(b.buf));
		links[nl].src = srcs.v[nl];
		links[nl].dst = st->files.v[f].rel;
		links[nl].copy = written_by(st, t, links[nl].dst);
		nl++;
	}
	for (uint32_t i = 0; i < dt->nacc; i++) {
		const struct dag_access *a = &g->acc.v[dt->acc + i];
		const char *path = g->data.v[a->datum].path;
		if (is_abs(path)) {
			/* written in place on the worker: the agent only
			 * says whether it is there, as a local run checks */
			if (a->mode & DAG_WRITE)
				VEC_PUSH(outs, (char *)path);
			continue;
		}
		if (a->is_dir && strcmp(path, "."))
			VEC_PUSH(mk, (char *)path);
		if (a->mode & DAG_WRITE) {
			VEC_PUSH(outs, (char *)path);
			uint32_t par = g->data.v[a->datum].parent;
			if (!a->is_dir && par != DAG_NONE)
				VEC_PUSH(mk, (char *)g->data.v[par].path);
		}
	}
	char *sandbox = xasprintf("%s/.wfrun/sandbox/%s/%u", wd, st->runid,
				  t + 1);
	char *outdir = xasprintf("%s/.wfrun/data/%s/t%u", wd, st->runid, t + 1);
	struct exec_stage es = { sandbox, outdir, links, nl, mk.v, mk.n,
				 outs.v, outs.n };
	pd->job.stage = &es;
	st->in_s[t] = clock_mono() - pd->t0;
	st->bytes[t] = pd->bytes;
	st->pend[t] = NULL;
	struct exec *ex = st->w[k].ex;
	ex->ops->submit(ex, &pd->job);
	pend_free(pd);
	for (size_t i = 0; i < srcs.n; i++)
		free(srcs.v[i]);
	VEC_FREE(srcs);
	VEC_FREE(mk);
	VEC_FREE(outs);
	free(links);
	free(sandbox);
	free(outdir);
	strbuf_release(&b);
}

/* Task t's version of what it wrote is on worker wi: readers see it (a
 * task run again (lineage) makes an older version: the newest stays the
 * one readers see). */
static void
made_here(struct stage *st, uint32_t t, size_t wi)
{
	const struct dag *g = st->g;
	const struct dag_task *dt = &g->tasks.v[t];
	st->ran_on[t] = (uint32_t)wi;
	for (uint32_t i = 0; i < dt->nacc; i++) {
		const struct dag_access *a = &g->acc.v[dt->acc + i];
		uint32_t *w = &st->rt_writer[a->datum];
		if ((a->mode & DAG_WRITE) && (*w == NONE || *w < t))
			*w = t;
	}
}

uint32_t
stage_done(struct stage *st, uint32_t t, size_t wi,
	   const struct exec_result *res, bool exited0, double *in_s,
	   double *out_s, long long *bytes)
{
	*in_s = st->in_s[t];
	*bytes = st->bytes[t];
	*out_s = res->stage_out_s;
	uint32_t missing = DAG_NONE;
	if (res->lost)
		return DAG_NONE; /* it runs again */
	st->ok[t] = false;
	if (!res->started) {
		exited0 = false;
		goto unpark;
	}
	st->vfiles[t].n = 0;
	for (size_t i = 0; i < res->nfiles; i++) {
		const struct exec_outfile *of = &res->files[i];
		uint32_t f = file_get(st, t + 1, of->path, strlen(of->path),
				      of->size);
		st->fst[f * st->nw + wi] = F_HELD;
		st->files.v[f].on_master = false;
		st->files.v[f].lost_from = NONE;
		st->files.v[f].mtime_ns = of->mtime_ns;
		st->files.v[f].old = NULL;
		VEC_PUSH(st->vfiles[t], f);
	}
	struct dag *g = st->g;
	const struct dag_task *dt = &g->tasks.v[t];
	size_t o = 0;
	for (uint32_t i = 0; i < dt->nacc; i++) {
		const struct dag_access *a = &g->acc.v[dt->acc + i];
		if (!(a->mode & DAG_WRITE))
			continue;
		if (exited0 && missing == DAG_NONE &&
		    (o >= res->nout_ok || !res->out_ok[o]))
			missing = i;
		o++;
	}
	st->ok[t] = exited0 && missing == DAG_NONE;
	if (st->ok[t])
		made_here(st, t, wi);
unpark:;
	/* whatever came of it, the tasks waiting for it try again (and
	 * fail, naming the data, if it is still not there) */
	struct u32vec pk = st->parked[t];
	memset(&st->parked[t], 0, sizeof(st->parked[t]));
	for (size_t i = 0; i < pk.n; i++)
		st->hooks.unpark(pk.v[i], st->hooks.arg);
	VEC_FREE(pk);
	if (st->refetch[t].n)
		refetch(st, t);
	return missing;
}

void
stage_worker_lost(struct stage *st, size_t wi)
{
	if (!st || !st->w[wi].staged)
		return;
	forget(st, wi);
	for (size_t t = 0; t < st->g->tasks.n; t++) {
		struct pend *pd = st->pend[t];
		if (pd && pd->worker == wi)
			fail_task(st, pd, true, "its worker was lost");
		if (st->ask[t] == ASK_SENT && st->ask_w[t] == wi) {
			st->ask[t] = ASK_GONE;
			st->asking--;
		}
	}
}

bool
stage_abort(struct stage *st, uint32_t t, const char *msg)
{
	if (!st || !st->pend[t])
		return false;
	fail_task(st, st->pend[t], false, msg);
	return true;
}

void
stage_cancel(struct stage *st)
{
	if (!st)
		return;
	for (size_t t = 0; t < st->g->tasks.n; t++)
		if (st->pend[t])
			fail_task(st, st->pend[t], false, "interrupted while its "
				  "inputs were being staged");
}

/* ---- the end ---- */

/* Some task after version ver's writer reads file f (or a collection
 * holding it): f is not a final output. */
static bool
consumed(struct stage *st, const uint32_t *maxr, uint32_t f)
{
	const struct sfile *sf = &st->files.v[f];
	size_t n = strlen(sf->rel);
	uint32_t x = DAG_NONE;
	for (long len = (long)n; len > 0 && x == DAG_NONE;
	     len = path_parent_len(sf->rel, (size_t)len))
		x = dag_lookup(st->g, sf->rel, (size_t)len);
	for (; x != DAG_NONE; x = st->g->data.v[x].parent)
		if (maxr[x] != NONE && maxr[x] + 1 > sf->ver)
			return true;
	return false;
}

/* Output f is on no reachable worker: run its producer again (once),
 * and fetch f when that ends; or say it is lost. */
static void
lost_output(struct stage *st, uint32_t f)
{
	uint32_t p = st->files.v[f].ver - 1;
	/* (it may be running again already, for a task that reads f:
	 * parked) */
	if (st->refetch[p].n ||
	    (st->hooks.rerun &&
	     (st->parked[p].n ||
	      (st->regen[p] < 1 && st->hooks.rerun(p, st->hooks.arg))))) {
		if (!st->refetch[p].n)
			st->fetching++; /* busy until it ends */
		if (!st->refetch[p].n && !st->parked[p].n) {
			st->regen[p]++;
			struct strbuf lab = STRBUF_INIT, msg = STRBUF_INIT;
			plan_label(st->p, p, &lab);
			describe(st, f, &msg);
			warning_msg("output %s: running task %s again", msg.buf,
				    lab.buf);
			strbuf_release(&lab);
			strbuf_release(&msg);
		}
		VEC_PUSH(st->refetch[p], f);
		return;
	}
	struct strbuf msg = STRBUF_INIT;
	strbuf_adds(&msg, "output ");
	describe(st, f, &msg);
	strbuf_adds(&msg, ": not brought back");
	error_msg("%s", msg.buf);
	strbuf_release(&msg);
	st->fetch_failed++;
}

/* Task t, run again at the end for lost outputs, ended: fetch them. */
static void
refetch(struct stage *st, uint32_t t)
{
	struct u32vec v = st->refetch[t];
	memset(&st->refetch[t], 0, sizeof(st->refetch[t]));
	st->fetching--;
	for (size_t i = 0; i < v.n; i++) {
		uint32_t f = v.v[i], src = holder(st, f);
		if (src == NONE) {
			struct strbuf msg = STRBUF_INIT;
			strbuf_adds(&msg, "output ");
			describe(st, f, &msg);
			strbuf_adds(&msg, ", and running its producer again did "
				    "not make it: not brought back");
			error_msg("%s", msg.buf);
			strbuf_release(&msg);
			st->fetch_failed++;
		} else {
			st->fetching++;
			issue(st, new_xrec(st, f, src, X_FETCH));
		}
	}
	VEC_FREE(v);
}

void
stage_abandon(struct stage *st)
{
	for (uint32_t t = 0; st && t < st->g->tasks.n; t++)
		if (st->refetch[t].n) {
			st->hooks.rerun = NULL; /* no worker left to run it */
			refetch(st, t);
		}
}

void
stage_fetch_start(struct stage *st, enum stage_fetch mode)
{
	st->mode = mode;
	if (mode == FETCH_NONE)
		return;
	struct dag *g = st->g;
	size_t nd = g->data.n;
	uint32_t *maxr = xmalloc((nd ? nd : 1) * sizeof(uint32_t));
	bool *seen = xcalloc(nd ? nd : 1, sizeof(bool));
	bool *queued = xcalloc(st->files.n ? st->files.n : 1, sizeof(bool));
	for (size_t i = 0; i < nd; i++)
		maxr[i] = NONE;
	for (uint32_t t = 0; t < g->tasks.n; t++) {
		const struct dag_task *dt = &g->tasks.v[t];
		/* (a task left out reads nothing in this run) */
		for (uint32_t i = 0; dt->state != TASK_LEFT_OUT && i < dt->nacc;
		     i++) {
			const struct dag_access *a = &g->acc.v[dt->acc + i];
			if (a->mode & DAG_READ)
				maxr[a->datum] = t;
		}
	}
	for (uint32_t t = 0; t < g->tasks.n; t++) {
		const struct dag_task *dt = &g->tasks.v[t];
		for (uint32_t i = 0; i < dt->nacc; i++) {
			const struct dag_access *a = &g->acc.v[dt->acc + i];
			uint32_t x = a->datum;
			const char *path = g->data.v[x].path;
			if (!(a->mode & DAG_WRITE) || seen[x] || is_abs(path))
				continue;
			seen[x] = true;
			uint32_t w = latest(st, x);
			if (w == NONE)
				continue; /* never written: its task failed */
			/* a directory written whole exists even if empty */
			if (a->is_dir && w == t && strcmp(path, ".") &&
			    mkdir_p(path, 0777) < 0)
				error_msg("cannot create the output directory "
					  "%s: %s", path, strerror(errno));
			for (size_t j = 0; j < st->vfiles[w].n; j++) {
				uint32_t f = st->vfiles[w].v[j];
				if (queued[f] || !under(st->files.v[f].rel, path))
					continue;
				queued[f] = true;
				if (mode == FETCH_FINAL && consumed(st, maxr, f))
					continue;
				uint32_t src = holder(st, f);
				st->files.v[f].wanted = true;
				if (st->files.v[f].size < 0 ||
				    st->files.v[f].on_master) {
					/* made, or in the relay already */
					st->files.v[f].fetched = true;
				} else if (src == NONE) {
					lost_output(st, f);
				} else {
					st->fetching++;
					issue(st, new_xrec(st, f, src, X_FETCH));
				}
			}
		}
	}
	free(maxr);
	free(seen);
	free(queued);
}

bool
stage_ran(const struct stage *st, uint32_t t)
{
	return st && st->ok[t] && st->mode != FETCH_NONE;
}

/* Task t updates (INOUT) the datum holding rel. */
static bool
updated_by(struct stage *st, uint32_t t, const char *rel)
{
	const struct dag_task *dt = &st->g->tasks.v[t];
	for (uint32_t i = 0; i < dt->nacc; i++) {
		const struct dag_access *a = &st->g->acc.v[dt->acc + i];
		if (a->mode == (DAG_READ | DAG_WRITE) &&
		    under(rel, st->g->data.v[a->datum].path))
			return true;
	}
	return false;
}

/* File f, whole in the relay, takes its own name in the workdir: a link
 * made in the relay, renamed over the name, so that no half of it, and
 * no temporary name beside it, is ever there (a killed master leaves
 * only the relay, which the next run removes). */
static int
place_file(struct stage *st, uint32_t f)
{
	struct sfile *sf = &st->files.v[f];
	int r = 0;
	if (sf->size < 0) {
		r = mkdir_p(sf->rel, 0777);
	} else {
		struct strbuf src = STRBUF_INIT, tmp = STRBUF_INIT;
		master_path(st, f, &src);
		strbuf_addf(&tmp, ".wfrun/relay/%s/.placing", st->runid);
		char *dir = path_dirname(sf->rel);
		mkdir_p(dir, 0777);
		free(dir);
		unlink(tmp.buf);
		r = link(src.buf, tmp.buf);
		if (!r)
			r = rename(tmp.buf, sf->rel);
		strbuf_release(&src);
		strbuf_release(&tmp);
	}
	if (r < 0) {
		error_msg("cannot bring output '%s' back: %s", sf->rel,
			  strerror(errno));
		st->fetch_failed++;
		return -1;
	}
	sf->placed = true;
	return 0;
}

bool
stage_brings_update(struct stage *st, uint32_t t)
{
	const struct u32vec *v = &st->vfiles[t];
	for (size_t j = 0; j < v->n; j++) {
		const struct sfile *sf = &st->files.v[v->v[j]];
		if (sf->wanted && sf->fetched && updated_by(st, t, sf->rel))
			return true;
	}
	return false;
}

bool
stage_place(struct stage *st, uint32_t t, bool *got)
{
	struct dag *g = st->g;
	const struct dag_task *dt = &g->tasks.v[t];
	const struct u32vec *v = &st->vfiles[t];
	bool whole = true;
	for (size_t j = 0; j < v->n; j++) {
		const struct sfile *sf = &st->files.v[v->v[j]];
		if (sf->wanted && !sf->fetched)
			whole = false;
	}
	for (size_t j = 0; j < v->n; j++) {
		struct sfile *sf = &st->files.v[v->v[j]];
		if (!sf->wanted || !sf->fetched || sf->placed)
			continue;
		/* an update in place comes back only with all the rest of
		 * its task, which is then recorded as done */
		if (!whole && updated_by(st, t, sf->rel))
			continue;
		if (place_file(st, v->v[j]) < 0)
			whole = false;
	}
	for (uint32_t i = 0; i < dt->nacc; i++) {
		const struct dag_access *a = &g->acc.v[dt->acc + i];
		const char *path = g->data.v[a->datum].path;
		got[i] = false;
		if (!(a->mode & DAG_WRITE) || is_abs(path) ||
		    latest(st, a->datum) != t)
			continue;
		got[i] = true;
		for (size_t j = 0; j < v->n; j++) {
			const struct sfile *sf = &st->files.v[v->v[j]];
			if (under(sf->rel, path) && !sf->placed)
				got[i] = false;
		}
	}
	return whole;
}

bool
stage_busy(const struct stage *st)
{
	return st && st->fetching;
}

static int
rm_one(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb;
	(void)f;
	return flag == FTW_DP ? rmdir(p) : unlink(p);
}

size_t
stage_finish(struct stage *st)
{
	if (!st)
		return 0;
	FILE *fp = fopen(".wfrun/data.tsv", "we");
	if (fp) {
		fputs("path\ttask_id\tsize\tworkers\tworker_path\tfetched\n", fp);
		struct strbuf b = STRBUF_INIT;
		for (uint32_t t = 0; t < st->g->tasks.n; t++)
			for (size_t j = 0; j < st->vfiles[t].n; j++) {
				uint32_t f = st->vfiles[t].v[j];
				const struct sfile *sf = &st->files.v[f];
				if (sf->size < 0)
					continue;
				fprintf(fp, "%s\t%u\t%lld\t", sf->rel, t + 1,
					sf->size);
				size_t first = st->nw;
				for (size_t k = 0; k < st->nw; k++)
					if (st->fst[f * st->nw + k] == F_HELD) {
						fprintf(fp, "%s%s",
							first < st->nw ? "," : "",
							st->w[k].name);
						if (first == st->nw)
							first = k;
					}
				if (first < st->nw)
					remote_path(st, f, first, &b);
				else
					strbuf_reset(&b);
				fprintf(fp, "\t%s\t%s\n", b.buf,
					sf->placed ? "yes" : "no");
			}
		strbuf_release(&b);
		if (fclose(fp))
			warning_msg("cannot write .wfrun/data.tsv: %s",
				    strerror(errno));
	}
	/* the relay is wfrun's own copy of what workers made */
	char *relay = xasprintf(".wfrun/relay/%s", st->runid);
	struct stat sb;
	if (!stat(relay, &sb))
		nftw(relay, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	rmdir(".wfrun/relay");
	free(relay);
	return st->fetch_failed;
}

/* ---- the stores of earlier runs ---- */

bool
stage_store(struct stage *st, uint32_t t, struct jstore *out)
{
	memset(out, 0, sizeof(*out));
	uint32_t k = st->ran_on[t];
	const struct u32vec *v = &st->vfiles[t];
	if (!st->ok[t] || k == NONE)
		return false;
	out->f = xcalloc(v->n + 1, sizeof(*out->f));
	for (size_t j = 0; j < v->n; j++) {
		const struct sfile *sf = &st->files.v[v->v[j]];
		/* an agent that gives no mtime: its store cannot be told
		 * from another, so it is not recorded */
		if (!sf->mtime_ns && sf->size >= 0) {
			free(out->f);
			out->f = NULL;
			return false;
		}
		out->f[out->nf].path = (char *)sf->rel;
		out->f[out->nf].size = sf->size;
		out->f[out->nf++].mtime_ns = sf->mtime_ns;
	}
	strbuf_reset(&st->sb);
	strbuf_addf(&st->sb, "%s/.wfrun/data/%s/t%u", st->w[k].workdir,
		    st->runid, t + 1);
	out->dir = arena_strndup(&st->arena, st->sb.buf, st->sb.len);
	out->worker = (char *)st->w[k].name;
	out->run = st->runid;
	return true;
}

/* The staged worker named name that can be asked, or NONE. */
static uint32_t
worker_named(const struct stage *st, const char *name)
{
	for (size_t k = 0; k < st->nw; k++)
		if (st->w[k].staged && !strcmp(st->w[k].name, name))
			return ready(st, k) && st->w[k].ex->ops->store_have
				       ? (uint32_t)k
				       : NONE;
	return NONE;
}

void
stage_store_ask(struct stage *st, uint32_t t, const struct jstore *js)
{
	uint32_t k = worker_named(st, js->worker);
	st->ask[t] = ASK_GONE;
	if (k == NONE)
		return;
	struct exec_outfile *f = xcalloc(js->nf + 1, sizeof(*f));
	for (size_t i = 0; i < js->nf; i++) {
		f[i].path = js->f[i].path;
		f[i].size = js->f[i].size;
		f[i].mtime_ns = js->f[i].mtime_ns;
	}
	struct exec *ex = st->w[k].ex;
	if (ex->ops->store_have(ex, t, js->dir, f, js->nf) == 0) {
		st->ask[t] = ASK_SENT;
		st->ask_w[t] = k;
		st->asking++;
	}
	free(f);
}

static void
on_store(struct exec *e, uint64_t id, bool ok, const char *why, void *arg)
{
	struct stage *st = arg;
	if (id >= st->g->tasks.n || st->ask[id] != ASK_SENT ||
	    st->w[st->ask_w[id]].ex != e)
		return; /* (a worker lost meanwhile: its answer is late) */
	st->ask[id] = ok ? ASK_HELD : ASK_GONE;
	st->asking--;
	if (!ok && log_level >= 2) {
		struct strbuf lab = STRBUF_INIT;
		plan_label(st->p, (uint32_t)id, &lab);
		verbose_msg("task %s runs again: what it made is no longer in "
			    "the store of worker '%s' (%s)", lab.buf,
			    st->w[st->ask_w[id]].name, why);
		strbuf_release(&lab);
	}
}

bool
stage_asking(const struct stage *st)
{
	return st && st->asking;
}

bool
stage_store_held(const struct stage *st, uint32_t t)
{
	return st && st->ask[t] == ASK_HELD;
}

void
stage_adopt(struct stage *st, uint32_t t, const struct jstore *js)
{
	uint32_t k = st->ask_w[t];
	const char *dir = arena_strndup(&st->arena, js->dir, strlen(js->dir));
	/* what it read, fixed now (the tasks before it adopted, not it): a
	 * lost output of it is made again from those */
	compute_need(st, t);
	st->vfiles[t].n = 0;
	for (size_t i = 0; i < js->nf; i++) {
		const struct jsfile *jf = &js->f[i];
		uint32_t f = file_get(st, t + 1, jf->path, strlen(jf->path),
				      jf->size);
		struct sfile *sf = &st->files.v[f];
		st->fst[f * st->nw + k] = F_HELD;
		sf->on_master = false;
		sf->lost_from = NONE;
		sf->mtime_ns = jf->mtime_ns;
		sf->old = dir;
		sf->home = k;
		VEC_PUSH(st->vfiles[t], f);
	}
	st->ok[t] = true;
	made_here(st, t, k);
}

/* Whether a store record of the journal names run on worker. */
static bool
referred(const struct journal *j, const char *worker, const char *run)
{
	for (size_t i = 0; i < j->recs.n; i++) {
		const struct jstore *s = j->recs.v[i].store;
		uint64_t *last = hmap_get(&j->keys, j->recs.v[i].key,
					  strlen(j->recs.v[i].key));
		if (s && last && *last == i && !strcmp(s->worker, worker) &&
		    !strcmp(s->run, run))
			return true;
	}
	return false;
}

/* A line "WORKER\tRUN" of the ledger, kept (true) or pruned. */
static bool
ledger_line(struct stage *st, const struct journal *j, char *line,
	    struct strvec *prune)
{
	char *tab = strchr(line, '\t');
	if (!tab)
		return false;
	*tab = '\0';
	const char *run = tab + 1;
	uint32_t k = NONE;
	for (size_t i = 0; i < st->nw && k == NONE; i++)
		if (st->w[i].staged && !strcmp(st->w[i].name, line))
			k = (uint32_t)i;
	bool keep = k == NONE || !ready(st, k) || !strcmp(run, st->runid) ||
		    referred(j, line, run);
	if (!keep) {
		VEC_PUSH(prune[k], xstrdup(run));
		return false;
	}
	*tab = '\t';
	return true;
}

int
stage_prune(struct stage *st, const struct journal *j, const char *ledger)
{
	struct strvec *prune = xcalloc(st->nw, sizeof(*prune));
	struct strbuf out = STRBUF_INIT;
	FILE *in = fopen(ledger, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while (in && (n = getline(&line, &cap, in)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (ledger_line(st, j, line, prune))
			strbuf_addf(&out, "%s\n", line);
	}
	free(line);
	if (in)
		fclose(in);
	for (size_t k = 0; k < st->nw; k++) {
		if (!st->w[k].staged)
			continue;
		strbuf_addf(&out, "%s\t%s\n", st->w[k].name, st->runid);
		struct exec *ex = st->w[k].ex;
		if (prune[k].n && ready(st, k) && ex->ops->store_prune)
			ex->ops->store_prune(ex, st->w[k].workdir, prune[k].v,
					     prune[k].n);
		for (size_t i = 0; i < prune[k].n; i++)
			free(prune[k].v[i]);
		VEC_FREE(prune[k]);
	}
	free(prune);
	/* written before any task of this run runs there, so that a kill
	 * leaves its store known */
	char *tmp = xasprintf("%s.new", ledger);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int rc = fd < 0 || write(fd, out.buf, out.len) != (ssize_t)out.len ||
			 fdatasync(fd) < 0 || rename(tmp, ledger) < 0
		 ? -1 : 0;
	int e = errno;
	if (fd >= 0)
		close(fd);
	if (rc)
		unlink(tmp);
	errno = e;
	free(tmp);
	strbuf_release(&out);
	return rc;
}
