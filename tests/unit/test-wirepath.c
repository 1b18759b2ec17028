/*
 * What the master believes of a worker's agent (issue 24, defect 2): the
 * paths of a DONE are checked (wirepath), and an agent whose DONE names a
 * path outside what its task was asked for is dropped as a lost worker,
 * its jobs given back to run elsewhere, never passed on to the stage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_client.h"
#include "proto.h"
#include "tap.h"
#include "wirepath.h"

static struct exec_result res[4];
static size_t nres;
static char first_path[256];
static size_t nstate;

static size_t sent_bytes, closed;

/* The transport: counts what the client sends, and its closing. */
static void
link_send(struct agent_link *l, const char *buf, size_t n)
{
	(void)l;
	(void)buf;
	sent_bytes += n;
}

static void
link_close(struct agent_link *l, bool hurry, const char *last, size_t n)
{
	(void)last;
	closed += l && !hurry;
	sent_bytes += n;
}

static const struct agent_link_ops ops = { link_send, NULL, NULL,
					   link_close, NULL };

static void
on_done(const struct exec_result *r, void *arg)
{
	(void)arg;
	if (nres < 4)
		res[nres] = *r;
	if (r->nfiles)
		snprintf(first_path, sizeof(first_path), "%s", r->files[0].path);
	res[nres].files = NULL;
	res[nres].out_ok = NULL;
	nres++;
}

static void
on_state(struct exec *e, void *arg)
{
	(void)e, (void)arg;
	nstate++;
}

/* A client, ready, with task 1 sent staged (outputs dd and log.txt). */
static struct agent_client *
ready_client(struct agent_link *l)
{
	struct agent_client *c = agent_client_new("w1", "host1", "/wd", on_done,
						  on_state, NULL);
	agent_client_attach(c, l);
	char hello[64];
	snprintf(hello, sizeof(hello), "HELLO\t%d\tx86_64\t2\t99\n",
		 PROTO_VERSION);
	agent_client_input(c, hello, strlen(hello));
	char *outs[] = { "dd", "log.txt" };
	struct exec_stage st = { "/wd/.wfrun/sandbox/r/2", "/wd/.wfrun/data/r/t2",
				 NULL, 0, NULL, 0, outs, 2 };
	char *argv[] = { "true", NULL };
	struct exec_job job = { .task = 1, .argv = argv, .out_path = "o",
				.err_path = "e", .stage = &st };
	struct exec *e = agent_client_exec(c);
	e->ops->submit(e, &job);
	nres = nstate = 0;
	first_path[0] = '\0';
	return c;
}

#define DONE1 "DONE\t1\t0\t1.0\t2.0\t0\t0\t0\t0\t0\t1\t1\t0.1\t2\tf\td\t"

static void
feed(struct agent_client *c, const char *files)
{
	char line[1024];
	snprintf(line, sizeof(line), DONE1 "%s\n", files);
	agent_client_input(c, line, strlen(line));
}

static void
hostile(const char *files, const char *why)
{
	struct agent_link l = { &ops };
	struct agent_client *c = ready_client(&l);
	struct exec *e = agent_client_exec(c);
	feed(c, files);
	ok(nres == 1 && res[0].lost && !res[0].nfiles, "%s: its task is lost",
	   why);
	ok(e->state == EXEC_LOST && strstr(e->error, "broke the protocol"),
	   "%s: the worker is dropped (%s)", why, e->error);
	ok(!strstr(first_path, ".."), "%s: no path reached the runner", why);
	/* what it says after that is not believed */
	feed(c, "1\tdd/x\t1");
	is_int(nres, 1, "%s: nothing more is heard from it", why);
	size_t before = closed;
	sent_bytes = 0;
	e->ops->release(e);
	ok(closed == before + 1 && !sent_bytes,
	   "%s: its link is closed, no EXIT sent to it", why);
}

int
main(void)
{
	struct errbuf err;
	const char *good[] = { "a", "a/b", "dd/x.txt", ".hidden/a..b", "..a" };
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		is_int(wirepath_check(good[i], strlen(good[i]), &err), 0,
		       "'%s' is a path an agent may name", good[i]);
	const char *bad[] = { "", "/etc/passwd", "dd/../../x", "..", ".", "a/.",
			      "./a", "a//b", "a/", "a\nb" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		is_int(wirepath_check(bad[i], strlen(bad[i]), &err), -1,
		       "bad path %zu is refused (%s)", i, err.msg);
	ok(wirepath_under("dd/x", "dd") && wirepath_under("dd", "dd") &&
		   !wirepath_under("ddx", "dd") && wirepath_under("a", "."),
	   "wirepath_under");

	struct agent_link l = { &ops };
	struct agent_client *c = ready_client(&l);
	feed(c, "2\tdd\t-1\tdd/x\t5");
	ok(nres == 1 && !res[0].lost && res[0].started && !strcmp(first_path, "dd"),
	   "an honest DONE reaches the runner");
	is_int(agent_client_exec(c)->state, EXEC_READY, "the worker stays");
	agent_client_exec(c)->ops->release(agent_client_exec(c));

	hostile("1\tdd/../../../../tmp/x\t3", "a '..' path");
	hostile("1\t/tmp/x\t3", "an absolute path");
	hostile("1\tother/x\t3", "a path under no output");
	hostile("1\tdd/a\\nb\t3", "a newline in a path");
	const char *lies[][2] = {
		{ "2\tf\tz\t0", "an unknown output kind" },
		{ "1\tf\t0", "fewer outputs than asked" },
		{ "3\tf\tf\tf\t0", "more outputs than asked" },
		{ "", "a plain DONE for a staged task" },
	};
	for (size_t i = 0; i < sizeof(lies) / sizeof(*lies); i++) {
		struct agent_link l2 = { &ops };
		struct agent_client *c2 = ready_client(&l2);
		char x[256];
		snprintf(x, sizeof(x), "DONE\t1\t0\t1.0\t2.0\t0\t0\t0\t0\t0"
			 "\t1\t1%s%s\n", *lies[i][0] ? "\t0.1\t" : "", lies[i][0]);
		agent_client_input(c2, x, strlen(x));
		ok(nres == 1 && res[0].lost, "%s: lost", lies[i][1]);
		agent_client_exec(c2)->ops->release(agent_client_exec(c2));
	}
	/* found by fuzz-agent: a second HELLO, of another version, failed
	 * the worker with its jobs never given back */
	struct agent_link l3 = { &ops };
	struct agent_client *c3 = ready_client(&l3);
	char again[64];
	snprintf(again, sizeof(again), "HELLO\t%d\tx86_64\t2\t1\n",
		 PROTO_VERSION + 1);
	agent_client_input(c3, again, strlen(again));
	ok(nres == 1 && res[0].lost &&
		   agent_client_exec(c3)->state == EXEC_LOST,
	   "a second HELLO: the worker is dropped, its job given back");
	agent_client_exec(c3)->ops->release(agent_client_exec(c3));
	return done_testing();
}
