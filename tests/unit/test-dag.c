/* Unit tests of the dag: edges in program order, collections, readiness. */
#include <stdlib.h>
#include <string.h>

#include "dag.h"
#include "tap.h"

static struct dag g;

static uint32_t
D(const char *p)
{
	return dag_intern(&g, p, strlen(p));
}

/* Add a task with accesses given as "r:path", "w:path", "rw:path",
 * "R:dir" (collection read), "W:dir", "RW:dir". */
static uint32_t
T(const char *a0, ...)
{
	va_list ap;
	uint32_t t = dag_add_task(&g, 0);
	va_start(ap, a0);
	for (const char *a = a0; a; a = va_arg(ap, const char *)) {
		const char *c = strchr(a, ':');
		int mode = 0;
		int dir = 0;
		for (const char *s = a; s < c; s++) {
			if (*s == 'r' || *s == 'R')
				mode |= DAG_READ;
			if (*s == 'w' || *s == 'W')
				mode |= DAG_WRITE;
			if (*s == 'R' || *s == 'W')
				dir = 1;
		}
		dag_add_access(&g, t, D(c + 1), mode, dir, 1, 0);
	}
	va_end(ap);
	dag_seal_task(&g, t);
	return t;
}

static int
has_edge(uint32_t a, uint32_t b)
{
	for (uint32_t i = g.succ_off[a]; i < g.succ_off[a + 1]; i++)
		if (g.succ[i] == b)
			return 1;
	return 0;
}

static void
reset(void)
{
	dag_release(&g);
	dag_init(&g);
}

int
main(void)
{
	dag_init(&g);

	/* RAW, WAR, WAW */
	uint32_t w1 = T("w:a", NULL);
	uint32_t r1 = T("r:a", NULL);
	uint32_t r2 = T("r:a", NULL);
	uint32_t w2 = T("w:a", NULL);
	uint32_t r3 = T("r:a", NULL);
	dag_finalize(&g);
	ok(has_edge(w1, r1) && has_edge(w1, r2), "RAW: readers depend on the writer");
	ok(has_edge(r1, w2) && has_edge(r2, w2), "WAR: a writer waits for earlier readers");
	ok(has_edge(w1, w2), "WAW: a writer waits for the earlier writer");
	ok(has_edge(w2, r3) && !has_edge(w1, r3), "a reader sees the last writer only");
	ok(!has_edge(r1, r2), "readers of one version are independent");
	is_int(g.nedges, 6, "six edges, no duplicates");
	is_int(g.inputs.n, 0, "no inputs");
	reset();

	/* An INOUT chain is a sequence; a task reading twice gets one edge. */
	uint32_t init = T("w:total", NULL);
	uint32_t c[4];
	for (int i = 0; i < 4; i++)
		c[i] = T("r:in", "rw:total", "r:total", NULL);
	dag_finalize(&g);
	ok(has_edge(init, c[0]), "INOUT chain starts after the writer");
	for (int i = 1; i < 4; i++)
		ok(has_edge(c[i - 1], c[i]), "INOUT %d after %d", i, i - 1);
	is_int(g.nedges, 4, "chain has exactly 4 edges");
	is_int(g.inputs.n, 1, "'in' is an input");
	is_str(g.data.v[g.inputs.v[0].datum].path, "in", "the input is 'in'");
	is_int(g.tasks.v[c[0]].waiting, 1, "one predecessor each");
	reset();

	/* A directory collection read depends on every element written. */
	uint32_t e1 = T("w:res/r1", NULL);
	uint32_t e2 = T("w:res/r2", NULL);
	uint32_t other = T("w:other/x", NULL);
	uint32_t gather = T("R:res", NULL);
	uint32_t later = T("w:res/r1", NULL);
	dag_finalize(&g);
	ok(has_edge(e1, gather) && has_edge(e2, gather), "gather after each element");
	ok(!has_edge(other, gather), "gather ignores other directories");
	ok(has_edge(gather, later), "WAR: rewriting an element waits for the gather");
	is_int(g.inputs.n, 0, "a dir whose elements are written is no input");
	reset();

	/* A directory written whole makes its files known to later readers. */
	uint32_t mk = T("W:split", NULL);
	uint32_t rd = T("r:split/part1", NULL);
	uint32_t rd2 = T("r:split/sub/deep", NULL);
	uint32_t wr = T("w:split/part1", NULL);
	dag_finalize(&g);
	ok(has_edge(mk, rd) && has_edge(mk, rd2), "files under a written dir come from its writer");
	ok(has_edge(rd, wr), "WAR on an element of a written dir");
	ok(has_edge(mk, wr) || (has_edge(mk, rd) && has_edge(rd, wr)), "WAW ordered after the dir writer");
	is_int(g.inputs.n, 0, "no inputs");
	reset();

	/* An INOUT directory waits for the writers and readers of elements. */
	uint32_t a = T("w:d/x", NULL);
	uint32_t b = T("r:d/x", NULL);
	uint32_t io = T("RW:d", NULL);
	uint32_t after = T("r:d/x", NULL);
	dag_finalize(&g);
	ok(has_edge(a, io) && has_edge(b, io), "INOUT dir after element writer and reader");
	ok(has_edge(io, after), "element readers after an INOUT dir");
	ok(!has_edge(a, after), "the old version is not read any more");
	reset();

	/* Readiness: complete releases successors exactly once. */
	uint32_t p = T("w:x", NULL), q = T("w:y", NULL);
	uint32_t j = T("r:x", "r:y", NULL);
	dag_finalize(&g);
	ok(g.tasks.v[p].state == TASK_READY && g.tasks.v[q].state == TASK_READY, "roots ready");
	ok(g.tasks.v[j].state == TASK_WAITING, "join waits");
	uint32_t *ready = NULL;
	size_t nr = 0, ar = 0;
	dag_complete(&g, p, &ready, &nr, &ar);
	is_int(nr, 0, "join not ready after one");
	dag_complete(&g, q, &ready, &nr, &ar);
	is_int(nr, 1, "join ready after both");
	is_int(ready[0], j, "the join");
	free(ready);
	reset();

	/* Appending after finalize (a foreach expanded at run time): the
	 * new tasks' edges follow program order across the two, an edge
	 * from a done task is satisfied, one from a running task waits. */
	g.open = true;
	uint32_t sp = T("W:chunks", NULL), slow = T("w:s", NULL);
	dag_finalize(&g);
	ok(g.open && g.tasks.v[sp].state == TASK_READY, "open dag finalized");
	ready = NULL;
	nr = ar = 0;
	dag_complete(&g, sp, &ready, &nr, &ar);
	uint32_t c1 = T("r:chunks/a", "w:out/a", NULL);
	uint32_t c2 = T("r:chunks/b", "w:out/b", NULL);
	uint32_t ga = T("R:out", "r:s", "w:total", NULL);
	dag_extend(&g, c1);
	ok(has_edge(sp, c1) && has_edge(sp, c2), "RAW from the split to each chunk");
	ok(has_edge(c1, ga) && has_edge(c2, ga) && has_edge(slow, ga),
	   "the gather after every chunk and the other writer");
	ok(g.tasks.v[c1].state == TASK_READY && g.tasks.v[c2].state == TASK_READY,
	   "chunks ready: their writer is done");
	is_int(g.tasks.v[ga].waiting, 3, "the gather waits for three");
	is_int(dag_nsucc(&g, slow), 1, "an old task gains a successor");
	nr = 0;
	dag_complete(&g, slow, &ready, &nr, &ar);
	dag_complete(&g, c1, &ready, &nr, &ar);
	dag_complete(&g, c2, &ready, &nr, &ar);
	ok(nr == 1 && ready[0] == ga, "the gather ready after all three");
	free(ready);
	dag_close(&g);
	ok(!g.open && !g.rnodes.v, "closed: the build state is gone");
	reset();

	/* Paths are data: parents are created, lookups agree. */
	uint32_t x = D("a/b/c");
	is_int(dag_lookup(&g, "a/b", 3), g.data.v[x].parent, "parent interned");
	is_int(dag_lookup(&g, "a/b/c", 5), x, "lookup finds the datum");
	is_int(dag_lookup(&g, "zz", 2), DAG_NONE, "unknown path");
	reset();

	/* Aliasing: one task naming one written path twice, or a path
	 * inside its own written (or read) collection. */
	uint32_t i, k;
	uint32_t t1 = T("r:f", "w:f", NULL);
	is_int(dag_alias(&g, t1, &i, &k) && i == 0 && k == 1, 1,
	       "in and out of one path alias");
	uint32_t t2 = T("r:f", "r:f", "w:g", NULL);
	is_int(dag_alias(&g, t2, &i, &k), 0, "two reads of one path do not");
	uint32_t t3 = T("r:d/x/y", "W:d", NULL);
	is_int(dag_alias(&g, t3, &i, &k) && i == 1 && k == 0, 1,
	       "a read inside a written collection aliases");
	uint32_t t4 = T("R:d", "r:d/x", NULL);
	is_int(dag_alias(&g, t4, &i, &k), 0,
	       "a read inside a read collection does not");
	uint32_t t5 = T("rw:f", NULL);
	is_int(dag_alias(&g, t5, &i, &k), 0, "an inout alone does not");
	dag_release(&g);
	return done_testing();
}
