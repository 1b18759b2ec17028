#include "failure.h"

#include <stdlib.h>

#include "util.h"

long
failure_retries(const struct wf_task *wt)
{
	if (wt->on_failure == WF_RETRY && !wt->retries)
		return 2;
	return wt->retries;
}

double
failure_backoff(long n)
{
	double s = 0.5;
	for (long i = 1; i < n && s < 30; i++)
		s *= 2;
	return s < 30 ? s : 30;
}

enum wf_on_failure
failure_final(const struct wf_task *wt, bool keep_going)
{
	enum wf_on_failure f = wt->on_failure;
	if (f == WF_RETRY)
		f = WF_FAIL;
	if (f == WF_FAIL && keep_going)
		f = WF_CANCEL_SUCCESSORS;
	return f;
}

static void
arm(struct retryq *q, struct loop *l, loop_timer_fn fn, void *arg)
{
	if (!q->n) {
		loop_timer_cancel(l, &q->timer);
		return;
	}
	double first = q->v[0].when;
	for (size_t i = 1; i < q->n; i++)
		if (q->v[i].when < first)
			first = q->v[i].when;
	loop_timer_arm(l, &q->timer, first - clock_mono(), fn, arg);
}

void
retryq_push(struct retryq *q, struct loop *l, uint32_t t, double secs,
	    loop_timer_fn fn, void *arg)
{
	ALLOC_GROW(q->v, q->n + 1, q->alloc);
	q->v[q->n].when = clock_mono() + secs;
	q->v[q->n].task = t;
	q->n++;
	arm(q, l, fn, arg);
}

void
retryq_take_due(struct retryq *q, struct loop *l, loop_timer_fn fn,
		void *arg, uint32_t **out, size_t *nout, size_t *aout)
{
	double now = clock_mono();
	*nout = 0;
	for (size_t i = 0; i < q->n;) {
		if (q->v[i].when <= now) {
			ALLOC_GROW(*out, *nout + 1, *aout);
			(*out)[(*nout)++] = q->v[i].task;
			q->v[i] = q->v[--q->n];
		} else {
			i++;
		}
	}
	arm(q, l, fn, arg);
}

void
retryq_release(struct retryq *q, struct loop *l)
{
	loop_timer_cancel(l, &q->timer);
	free(q->v);
	q->v = NULL;
	q->n = q->alloc = 0;
}

size_t
failure_cancel_downstream(struct dag *g, uint32_t t)
{
	size_t n = 0;
	VEC(uint32_t) stack = { 0 };
	VEC_PUSH(stack, t);
	while (stack.n) {
		uint32_t u = stack.v[--stack.n];
		for (uint32_t k = g->succ_off[u]; k < g->succ_off[u + 1]; k++) {
			uint32_t s = g->succ[k];
			uint8_t st = g->tasks.v[s].state;
			if (st == TASK_CANCELLED || st != TASK_WAITING)
				continue;
			g->tasks.v[s].state = TASK_CANCELLED;
			n++;
			VEC_PUSH(stack, s);
		}
	}
	VEC_FREE(stack);
	return n;
}
