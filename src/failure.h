/*
 * failure: the pieces of the failure policies that do not need the
 * runner's state — how many times a task is retried and after how long,
 * the policy that applies once retries are spent, the queue of tasks
 * waiting out their back-off (one loop timer, armed to the earliest), and
 * the cancelling of everything downstream of a failure.
 */
#ifndef WFRUN_FAILURE_H
#define WFRUN_FAILURE_H

#include <stdbool.h>
#include <stdint.h>

#include "dag.h"
#include "loop.h"
#include "workflow.h"

/* Retries of a task: its retries key; on_failure: retry without
 * retries means 2 (once on the same worker, once on another). */
long failure_retries(const struct wf_task *wt);
/* Seconds to wait before retry number n (1-based): 0.5 s, doubling,
 * at most 30 s. */
double failure_backoff(long n);
/* The policy once retries are spent: retry falls back to fail, and -k
 * turns fail into cancel_successors. */
enum wf_on_failure failure_final(const struct wf_task *wt, bool keep_going);

/* Tasks waiting out a back-off.  Retries are rare: linear scans. */
struct retryq {
	struct {
		double when;  /* clock_mono() */
		uint32_t task;
	} *v;
	size_t n, alloc;
	struct loop_timer timer;
};
/* Queue t to be due in secs; (re)arms the timer to call fn(arg). */
void retryq_push(struct retryq *q, struct loop *l, uint32_t t, double secs,
		 loop_timer_fn fn, void *arg);
/* Remove the tasks due by now into *out (cleared first); re-arm. */
void retryq_take_due(struct retryq *q, struct loop *l, loop_timer_fn fn,
		     void *arg, uint32_t **out, size_t *nout, size_t *aout);
void retryq_release(struct retryq *q, struct loop *l);

/* Mark every task downstream of t that has not run TASK_CANCELLED;
 * returns how many were marked (each task is marked once). */
size_t failure_cancel_downstream(struct dag *g, uint32_t t);

#endif
