/*
 * libFuzzer target: the master's side of the agent protocol, against a
 * hostile agent.  An agent client (agent_client.c) with a transport that
 * goes nowhere, after a proper HELLO, has two jobs out: task 1 staged (outputs "out" and
 * "d/log"), task 2 plain.  The input is what the agent answers, fed in
 * chunks whose size is its first byte.  Whatever it says, each job ends
 * at most once, and every file of a result the runner sees is a normal
 * relative path under an output its task was asked for; a worker that
 * breaks the protocol is lost, and its jobs with it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent_client.h"
#include "proto.h"
#include "wirepath.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *const outs[] = { "out", "d/log" };
static unsigned ended[3];

static void
nop_send(struct agent_link *l, const char *buf, size_t n)
{
	(void)l, (void)buf, (void)n;
}

static void
nop_close(struct agent_link *l, bool hurry)
{
	(void)l, (void)hurry;
}

static const struct agent_link_ops nowhere = { nop_send, NULL, NULL,
					       nop_close };

static void
on_result(const struct exec_result *r, void *arg)
{
	(void)arg;
	if (r->task < 1 || r->task > 2 || ended[r->task]++)
		abort();
	if (r->nfiles && (r->task != 1 || r->lost))
		abort();
	struct errbuf err;
	for (size_t i = 0; i < r->nfiles; i++) {
		const char *p = r->files[i].path;
		if (wirepath_check(p, strlen(p), &err) < 0 ||
		    !(wirepath_under(p, outs[0]) || wirepath_under(p, outs[1])))
			abort();
	}
	if (r->out_ok && r->nout_ok != 2)
		abort();
}

static void
on_state(struct exec *e, void *arg)
{
	(void)arg;
	if (e->state == EXEC_LOST && e->running)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const size_t step = 1 + (size_t)data[0];
	const char *in = (const char *)data + 1;
	const size_t len = size - 1;
	memset(ended, 0, sizeof(ended));
	struct agent_link link = { &nowhere };
	struct agent_client *c = agent_client_new("w", "host", "/wd", on_result,
						  on_state, NULL);
	agent_client_attach(c, &link);
	struct exec *e = agent_client_exec(c);
	/* ready, as the runner sends jobs only to a ready worker */
#define STR_(x) #x
#define STR(x) STR_(x)
	static const char hello[] = "HELLO\t" STR(PROTO_VERSION) "\tx86_64\t2\t1\n";
	agent_client_input(c, hello, sizeof(hello) - 1);
	char *argv[] = { "sh", "-c", "true", NULL };
	struct exec_stage st = { "/wd/.wfrun/sandbox/r/2", "/wd/.wfrun/data/r/t2",
				 NULL, 0, NULL, 0, (char **)outs, 2 };
	struct exec_job staged = { .task = 1, .argv = argv, .out_path = "o",
				   .err_path = "e", .stage = &st };
	struct exec_job plain = { .task = 2, .argv = argv, .out_path = "o",
				  .err_path = "e" };
	e->ops->submit(e, &staged);
	e->ops->submit(e, &plain);
	for (size_t at = 0; at < len; at += step)
		agent_client_input(c, in + at, len - at < step ? len - at : step);
	agent_client_ended(c, EXEC_LOST, "the input ended");
	/* every job has ended by now, once */
	if (ended[1] != 1 || ended[2] != 1 || e->running)
		abort();
	e->ops->release(e);
	return 0;
}
