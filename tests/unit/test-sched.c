/* Unit tests of the scheduler queues: program order and backfilling. */
#include "sched.h"
#include "tap.h"

int
main(void)
{
	struct sched s;
	long cores[] = { 1, 4, 2 };
	sched_init(&s, 3, cores, NULL);
	sched_push(&s, 0, 7);
	sched_push(&s, 1, 2);
	sched_push(&s, 0, 5);
	sched_push(&s, 2, 3);
	sched_push(&s, 0, 9);
	uint32_t name;
	is_int(sched_pop(&s, 4, 0, &name), 2, "earliest task first when it fits");
	is_int(name, 1, "its name");
	is_int(sched_pop(&s, 1, 0, &name), 5, "backfill: a 1-core task when 1 core is free");
	is_int(sched_pop(&s, 0, 0, &name), UINT32_MAX, "nothing fits in 0 cores");
	is_int(sched_pop(&s, 2, 0, &name), 3, "program order across names");
	is_int(sched_pop(&s, 8, 0, &name), 7, "heap order within a name");
	is_int(sched_pop(&s, 8, 0, &name), 9, "last");
	is_int(s.nready, 0, "empty");
	is_int(sched_pop(&s, 8, 0, &name), UINT32_MAX, "empty queue");
	sched_release(&s);

	/* I/O tasks take an executor, not cores. */
	long c2[] = { 1, 0 };
	bool io[] = { false, true };
	sched_init(&s, 2, c2, io);
	sched_push(&s, 0, 1);
	sched_push(&s, 1, 2);
	sched_push(&s, 1, 3);
	is_int(sched_pop(&s, 0, 1, &name), 2, "an I/O task starts with every core busy");
	is_int(sched_pop(&s, 0, 0, &name), UINT32_MAX, "but needs a free executor");
	is_int(sched_pop(&s, 1, 0, &name), 1, "a compute task needs no executor");
	is_int(sched_pop(&s, 1, 1, &name), 3, "the last I/O task");
	sched_release(&s);
	return done_testing();
}
