#include "sched.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void
sched_init(struct sched *s, size_t nnames, const long *cores, const bool *io)
{
	s->q = xcalloc(nnames ? nnames : 1, sizeof(*s->q));
	s->nq = nnames;
	s->nready = 0;
	for (size_t i = 0; i < nnames; i++) {
		s->q[i].cores = cores[i];
		s->q[i].io = io && io[i];
	}
}

void
sched_release(struct sched *s)
{
	for (size_t i = 0; i < s->nq; i++)
		free(s->q[i].heap);
	free(s->q);
	memset(s, 0, sizeof(*s));
}

/* Ready tasks of a name: a min-heap of task ids, program order. */
static bool
task_less(const void *a, const void *b)
{
	return *(const uint32_t *)a < *(const uint32_t *)b;
}

void
sched_push(struct sched *s, uint32_t name, uint32_t task)
{
	struct sched_queue *q = &s->q[name];
	ALLOC_GROW(q->heap, q->n + 1, q->alloc);
	heap_push(q->heap, q->n++, sizeof(*q->heap), &task, task_less);
	s->nready++;
}

static uint32_t
heap_pop_task(struct sched_queue *q)
{
	uint32_t top;
	heap_pop(q->heap, q->n--, sizeof(*q->heap), &top, task_less);
	return top;
}

uint32_t
sched_pop(struct sched *s, long free_cores, long free_io, uint32_t *name)
{
	return sched_pop_if(s, free_cores, free_io, LLONG_MAX, NULL, NULL,
			    name);
}

uint32_t
sched_pop_if(struct sched *s, long free_cores, long free_io,
	     long long free_mem, sched_io_ok io_ok, void *arg, uint32_t *name)
{
	size_t best = s->nq;
	for (size_t i = 0; i < s->nq; i++) {
		struct sched_queue *q = &s->q[i];
		if (!q->n || (q->io ? free_io < 1 : q->cores > free_cores) ||
		    q->memory > free_mem)
			continue;
		if (best != s->nq && q->heap[0] > s->q[best].heap[0])
			continue;
		if (q->io && io_ok && !io_ok((uint32_t)i, arg))
			continue;
		best = i;
	}
	if (best == s->nq)
		return UINT32_MAX;
	s->nready--;
	if (name)
		*name = (uint32_t)best;
	return heap_pop_task(&s->q[best]);
}
