#include "dag.h"

#include <stdlib.h>
#include <string.h>

#include "path.h"

void
dag_init(struct dag *d)
{
	memset(d, 0, sizeof(*d));
	arena_init(&d->arena);
	hmap_init(&d->paths);
}

void
dag_release(struct dag *d)
{
	arena_release(&d->arena);
	hmap_release(&d->paths);
	VEC_FREE(d->data);
	VEC_FREE(d->tasks);
	VEC_FREE(d->acc);
	VEC_FREE(d->binds);
	VEC_FREE(d->inputs);
	VEC_FREE(d->edge_from);
	VEC_FREE(d->edge_to);
	VEC_FREE(d->rnodes);
	VEC_FREE(d->stamp);
	VEC_FREE(d->mark);
	VEC_FREE(d->mark_acc);
	free(d->succ_off);
	free(d->succ);
	memset(d, 0, sizeof(*d));
}

uint32_t
dag_lookup(const struct dag *d, const char *path, size_t len)
{
	uint64_t *v = hmap_get(&d->paths, path, len);
	return v ? (uint32_t)*v : DAG_NONE;
}

uint32_t
dag_intern(struct dag *d, const char *path, size_t len)
{
	uint64_t *v = hmap_get(&d->paths, path, len);
	if (v)
		return (uint32_t)*v;
	uint32_t parent = DAG_NONE;
	long pl = path_parent_len(path, len);
	if (pl > 0)
		parent = dag_intern(d, path, (size_t)pl);
	if (d->data.n >= DAG_NONE - 1)
		die("too many distinct paths (more than %u)", DAG_NONE - 1);
	uint32_t id = (uint32_t)d->data.n;
	struct dag_datum x;
	memset(&x, 0, sizeof(x));
	x.path = arena_strndup(&d->arena, path, len);
	x.len = (uint32_t)len;
	x.parent = parent;
	x.first_child = DAG_NONE;
	x.next_sibling = DAG_NONE;
	x.writer = DAG_NONE;
	x.readers = DAG_NONE;
	if (parent != DAG_NONE) {
		x.next_sibling = d->data.v[parent].first_child;
		d->data.v[parent].first_child = id;
	}
	VEC_PUSH(d->data, x);
	hmap_put(&d->paths, x.path, len, id, NULL);
	return id;
}

uint32_t
dag_add_task(struct dag *d, uint32_t tmpl)
{
	if (d->tasks.n >= DAG_NONE - 1)
		die("too many task instances");
	struct dag_task t;
	memset(&t, 0, sizeof(t));
	t.tmpl = tmpl;
	t.bind = (uint32_t)d->binds.n;
	t.acc = (uint32_t)d->acc.n;
	VEC_PUSH(d->tasks, t);
	VEC_PUSH(d->stamp, 0);
	return (uint32_t)(d->tasks.n - 1);
}

void
dag_add_bind(struct dag *d, const char *value)
{
	VEC_PUSH(d->binds, value);
}

void
dag_add_access(struct dag *d, uint32_t task, uint32_t datum, int mode,
	       bool is_dir, unsigned depth, unsigned param)
{
	if (task != d->tasks.n - 1)
		BUG("accesses must be added to the last task");
	struct dag_access a;
	a.datum = datum;
	a.mode = (uint8_t)mode;
	a.is_dir = is_dir;
	a.depth = (uint16_t)(depth > 65535 ? 65535 : depth);
	a.param = (uint16_t)param;
	VEC_PUSH(d->acc, a);
	d->tasks.v[task].nacc++;
	if (is_dir)
		d->data.v[datum].flags |= DATUM_COLLECTION;
}

uint32_t
dag_latest_writer(const struct dag *d, uint32_t x)
{
	uint32_t best = DAG_NONE;
	for (; x != DAG_NONE; x = d->data.v[x].parent) {
		uint32_t w = d->data.v[x].writer;
		if (w != DAG_NONE && (best == DAG_NONE || w > best))
			best = w;
	}
	return best;
}

static void
edge(struct dag *d, uint32_t from, uint32_t to)
{
	if (from == DAG_NONE || from == to)
		return;
	if (d->stamp.v[from] == to + 1)
		return;
	d->stamp.v[from] = to + 1;
	VEC_PUSH(d->edge_from, from);
	VEC_PUSH(d->edge_to, to);
	d->nedges++;
}

static void
add_reader(struct dag *d, uint32_t x, uint32_t t)
{
	uint32_t head = d->data.v[x].readers;
	/* The same task reading twice needs one node. */
	if (head != DAG_NONE && (uint32_t)(d->rnodes.v[head] >> 32) == t)
		return;
	VEC_PUSH(d->rnodes, ((uint64_t)t << 32) | head);
	d->data.v[x].readers = (uint32_t)(d->rnodes.n - 1);
}

static void
readers_to(struct dag *d, uint32_t x, uint32_t t)
{
	for (uint32_t n = d->data.v[x].readers; n != DAG_NONE;
	     n = (uint32_t)d->rnodes.v[n])
		edge(d, (uint32_t)(d->rnodes.v[n] >> 32), t);
}

/* Visit every known path under x (not x itself), depth first. */
#define EACH_DESCENDANT(d, x, y)                                             \
	for (uint32_t y = (d)->data.v[x].first_child; y != DAG_NONE;         \
	     y = dag_next_descendant(d, x, y))

uint32_t
dag_next_descendant(const struct dag *d, uint32_t root, uint32_t y)
{
	if (d->data.v[y].first_child != DAG_NONE)
		return d->data.v[y].first_child;
	while (y != root) {
		if (d->data.v[y].next_sibling != DAG_NONE)
			return d->data.v[y].next_sibling;
		y = d->data.v[y].parent;
	}
	return DAG_NONE;
}

static void
mark_input(struct dag *d, uint32_t x, uint32_t t, unsigned param)
{
	if (d->data.v[x].flags & DATUM_INPUT)
		return;
	d->data.v[x].flags |= DATUM_INPUT;
	struct dag_input in = { x, t, (uint16_t)param };
	VEC_PUSH(d->inputs, in);
}

static void
do_read(struct dag *d, uint32_t t, const struct dag_access *a)
{
	uint32_t x = a->datum;
	uint32_t w = dag_latest_writer(d, x);
	bool produced = w != DAG_NONE;
	edge(d, w, t);
	if (a->is_dir) {
		EACH_DESCENDANT(d, x, y)
		{
			uint32_t yw = d->data.v[y].writer;
			if (yw != DAG_NONE) {
				edge(d, yw, t);
				produced = true;
			}
			add_reader(d, y, t);
		}
	}
	add_reader(d, x, t);
	if (!produced)
		mark_input(d, x, t, a->param);
}

static void
do_write(struct dag *d, uint32_t t, const struct dag_access *a)
{
	uint32_t x = a->datum;
	edge(d, dag_latest_writer(d, x), t);
	readers_to(d, x, t);
	for (uint32_t z = d->data.v[x].parent; z != DAG_NONE;
	     z = d->data.v[z].parent)
		readers_to(d, z, t);
	if (a->is_dir) {
		EACH_DESCENDANT(d, x, y)
		{
			edge(d, d->data.v[y].writer, t);
			readers_to(d, y, t);
			d->data.v[y].readers = DAG_NONE;
		}
	}
	d->data.v[x].writer = t;
	d->data.v[x].readers = DAG_NONE;
}

/* Is datum x marked by an access of t (kept in *k) that, with mode,
 * makes a write? */
static bool
marked(const struct dag *d, uint32_t x, uint32_t t, const struct dag_access *a,
       int mode, bool dir_only, uint32_t *k)
{
	if (d->mark.v[x] != t + 1)
		return false;
	*k = d->mark_acc.v[x];
	if (dir_only && !a[*k].is_dir)
		return false;
	return ((a[*k].mode | mode) & DAG_WRITE) != 0;
}

bool
dag_alias(struct dag *d, uint32_t t, uint32_t *i, uint32_t *j)
{
	const struct dag_task *task = &d->tasks.v[t];
	const struct dag_access *a = dag_task_acc(d, task);
	while (d->mark.n < d->data.n) {
		VEC_PUSH(d->mark, 0);
		VEC_PUSH(d->mark_acc, 0);
	}
	for (uint32_t k = 0; k < task->nacc; k++) {
		uint32_t x = a[k].datum;
		if (marked(d, x, t, a, a[k].mode, false, i)) {
			*j = k;
			return true;
		}
		if (d->mark.v[x] != t + 1 || (a[k].mode & DAG_WRITE)) {
			d->mark.v[x] = t + 1;
			d->mark_acc.v[x] = k;
		}
	}
	for (uint32_t k = 0; k < task->nacc; k++)
		for (uint32_t z = d->data.v[a[k].datum].parent; z != DAG_NONE;
		     z = d->data.v[z].parent)
			if (marked(d, z, t, a, a[k].mode, true, i)) {
				*j = k;
				return true;
			}
	return false;
}

void
dag_seal_task(struct dag *d, uint32_t t)
{
	const struct dag_task *task = &d->tasks.v[t];
	const struct dag_access *a = dag_task_acc(d, task);
	for (uint32_t i = 0; i < task->nacc; i++)
		if (a[i].mode & DAG_READ)
			do_read(d, t, &a[i]);
	for (uint32_t i = 0; i < task->nacc; i++)
		if (a[i].mode & DAG_WRITE)
			do_write(d, t, &a[i]);
}

/* The successor lists (CSR) of every edge so far. */
static void
make_succ(struct dag *d)
{
	size_t n = d->tasks.n;
	free(d->succ_off);
	free(d->succ);
	d->succ_off = xcalloc(n + 2, sizeof(uint32_t));
	d->succ = xmalloc((d->nedges ? d->nedges : 1) * sizeof(uint32_t));
	for (size_t i = 0; i < d->nedges; i++)
		d->succ_off[d->edge_from.v[i] + 1]++;
	for (size_t i = 0; i < n; i++)
		d->succ_off[i + 1] += d->succ_off[i];
	uint32_t *fill = xmalloc((n + 1) * sizeof(uint32_t));
	memcpy(fill, d->succ_off, (n + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < d->nedges; i++)
		d->succ[fill[d->edge_from.v[i]]++] = d->edge_to.v[i];
	free(fill);
}

void
dag_close(struct dag *d)
{
	d->open = false;
	VEC_FREE(d->edge_from);
	VEC_FREE(d->edge_to);
	VEC_FREE(d->rnodes);
	VEC_FREE(d->stamp);
	VEC_FREE(d->mark);
	VEC_FREE(d->mark_acc);
}

/* Count the edges into tasks from first on, from tasks not done, and
 * set those tasks' states. */
static void
count_waiting(struct dag *d, uint32_t first)
{
	for (size_t i = 0; i < d->nedges; i++) {
		uint32_t to = d->edge_to.v[i];
		if (to >= first &&
		    d->tasks.v[d->edge_from.v[i]].state != TASK_DONE)
			d->tasks.v[to].waiting++;
	}
	for (size_t i = first; i < d->tasks.n; i++)
		d->tasks.v[i].state = d->tasks.v[i].waiting ? TASK_WAITING
							    : TASK_READY;
}

void
dag_finalize(struct dag *d)
{
	for (size_t i = 0; i < d->tasks.n; i++)
		d->tasks.v[i].state = TASK_WAITING; /* none done yet */
	make_succ(d);
	count_waiting(d, 0);
	if (!d->open)
		dag_close(d);
}

void
dag_extend(struct dag *d, uint32_t first)
{
	if (!d->open)
		BUG("dag_extend on a closed dag");
	make_succ(d);
	count_waiting(d, first);
}

void
dag_complete(struct dag *d, uint32_t t, uint32_t **ready, size_t *nready,
	     size_t *alloc)
{
	d->tasks.v[t].state = TASK_DONE;
	for (uint32_t i = d->succ_off[t]; i < d->succ_off[t + 1]; i++) {
		struct dag_task *s = &d->tasks.v[d->succ[i]];
		if (!s->waiting)
			BUG("task %u has no waiting predecessors", d->succ[i]);
		if (--s->waiting == 0 && s->state != TASK_LEFT_OUT) {
			s->state = TASK_READY;
			ALLOC_GROW(*ready, *nready + 1, *alloc);
			(*ready)[(*nready)++] = d->succ[i];
		}
	}
}

bool
dag_out_only(const struct dag *d, uint32_t t)
{
	const struct dag_task *dt = &d->tasks.v[t];
	for (uint32_t i = 0; i < dt->nacc; i++) {
		const struct dag_access *a = &d->acc.v[dt->acc + i];
		if ((a->mode & DAG_WRITE) && (a->mode != DAG_WRITE || a->is_dir))
			return false;
	}
	return true;
}
