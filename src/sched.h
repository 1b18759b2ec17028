/*
 * sched: which ready task runs next.  Pure: no I/O, no clock.  Ready tasks
 * wait in one queue per task name (a min-heap by program order), because
 * every instance of a name asks for the same resources; the next task is
 * the earliest in program order among the queues whose demand fits the
 * free capacity, so a task that fits is never held up behind a larger one
 * (backfilling).  A compute task takes cores; an I/O task takes one I/O
 * executor and no core, so I/O overlaps with compute.  A pick costs
 * O(task names + log n).
 */
#ifndef WFRUN_SCHED_H
#define WFRUN_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sched_queue {
	uint32_t *heap;
	size_t n, alloc;
	long cores; /* what each task of this name takes */
	bool io;    /* takes an I/O executor instead of cores */
	long long memory; /* bytes each task of this name reserves, 0: none */
};

struct sched {
	struct sched_queue *q;
	size_t nq;
	size_t nready;
};

/* io may be NULL: every name is compute. */
void sched_init(struct sched *s, size_t nnames, const long *cores,
		const bool *io);
void sched_release(struct sched *s);
void sched_push(struct sched *s, uint32_t name, uint32_t task);
/* Pop the next task that fits in free_cores and free_io executors;
 * UINT32_MAX if none fits. */
uint32_t sched_pop(struct sched *s, long free_cores, long free_io,
		   uint32_t *name);
/* The same, among the names whose memory fits free_mem bytes (LLONG_MAX:
 * not limited) and the I/O names that may (io_ok) start now as well: the
 * storage-bandwidth constraints (iopol). */
typedef bool (*sched_io_ok)(uint32_t name, void *arg);
uint32_t sched_pop_if(struct sched *s, long free_cores, long free_io,
		      long long free_mem, sched_io_ok io_ok, void *arg,
		      uint32_t *name);

#endif
