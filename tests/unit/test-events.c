/*
 * Unit tests of events.jsonl (events.h): what events_write writes reads
 * back the same through the reader, and a bad line is an error at its
 * line and column.  And of the generic heap (util.h) the queues use.
 */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "events.h"
#include "tap.h"
#include "util.h"

static char *
tmp_file(const char *text)
{
	char *path = xstrdup("/tmp/wfrun-test-events.XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die("cannot write %s", path);
	close(fd);
	return path;
}

static void
round_trip(void)
{
	char *path = tmp_file("");
	FILE *f = fopen(path, "w");
	struct iopol_event end = {
		.ev = "epoch_end", .device = "disk \"0\"", .epoch = 3, .c = 120,
		.k = 4, .tasks = 8, .mean_s = 1.5, .t_s = 2.25, .busy_s = 9,
		.mbps = 480, .registered = true,
	};
	struct iopol_event con = {
		.ev = "constraint", .device = "", .c = 200, .k = 2, .n = 17,
		.why = "learned",
	};
	events_write(f, 10.5, "write\nout", &end);
	fputs("\n   \n{\"ev\":\"other\",\"x\":[1,{\"y\":null}],\"c\":\"no\"}\n",
	      f);
	events_write(f, 11, "w", &con);
	fclose(f);

	struct events_reader er;
	struct event e;
	struct errbuf err;
	ok(events_open(&er, path, &err) == 0, "open");
	is_int(events_next(&er, &e, &err), 1, "an epoch_end");
	is_str(e.ev, "epoch_end", "its ev");
	is_str(e.name, "write\nout", "its name, escapes undone");
	is_str(e.device, "disk \"0\"", "its device");
	ok(e.t == 10.5 && e.epoch == 3 && e.c == 120 && e.k == 4,
	   "t, epoch, c and k");
	ok(e.tasks == 8 && e.mean_s == 1.5 && e.t_s == 2.25 && e.mbps == 480,
	   "tasks, mean_s, t_s and mbps");
	is_int(e.registered, 1, "registered");
	ok(isnan(e.n) && !e.why, "what it has not is absent");
	is_int(events_next(&er, &e, &err), 1, "blank lines skipped");
	is_str(e.ev, "other", "any other ev is read too");
	ok(isnan(e.c), "a key of the wrong kind reads as absent");
	is_int(events_next(&er, &e, &err), 1, "a constraint");
	ok(e.c == 200 && e.n == 17 && isnan(e.epoch), "c, n and no epoch");
	is_str(e.why, "learned", "why");
	is_int(e.registered, -1, "no registered");
	is_int(er.lineno, 5, "its line");
	is_int(events_next(&er, &e, &err), 0, "the end");
	events_close(&er);
	unlink(path);
	free(path);
}

static void
bad_line(void)
{
	char *path = tmp_file("{\"ev\":\"rate\"}\n{\"ev\" \"x\"}\n");
	struct events_reader er;
	struct event e;
	struct errbuf err;
	ok(events_open(&er, path, &err) == 0, "open");
	is_int(events_next(&er, &e, &err), 1, "a good line first");
	is_int(events_next(&er, &e, &err), -1, "then a bad one");
	/* the column is the one after the character found wrong */
	char *want = xasprintf("%s:2:8: expected ':' after a key", path);
	is_str(err.msg, want, "at its line and column");
	free(want);
	events_close(&er);
	unlink(path);
	free(path);
	ok(events_open(&er, "/nonexistent/events.jsonl", &err) < 0,
	   "a missing file");
	char *p = events_beside("/a/b/trace.tsv");
	is_str(p, "/a/b/events.jsonl", "events.jsonl beside the trace");
	free(p);
}

struct item {
	int key, seq;
};

static bool
item_less(const void *a, const void *b)
{
	return ((const struct item *)a)->key < ((const struct item *)b)->key;
}

static void
heap(void)
{
	struct {
		struct item *v;
		size_t n, alloc;
	} h = { 0 };
	srand(7);
	for (int i = 0; i < 1000; i++) {
		struct item it = { rand() % 50, i };
		HEAP_PUSH(h, it, item_less);
	}
	int sorted = 1, prev = -1;
	for (int i = 0; i < 600; i++) {
		struct item it;
		HEAP_POP(h, it, item_less);
		sorted &= it.key >= prev;
		prev = it.key;
	}
	for (int i = 0; i < 100; i++) {
		struct item it = { prev + rand() % 10, i };
		HEAP_PUSH(h, it, item_less);
	}
	while (h.n) {
		struct item it;
		HEAP_POP(h, it, item_less);
		sorted &= it.key >= prev;
		prev = it.key;
	}
	ok(sorted, "heap: 1100 items out in order, pushes between pops");
	free(h.v);

	struct theap t = { 0 };
	theap_push(&t, 3.0, 1, 10);
	theap_push(&t, 1.0, 2, 20);
	theap_push(&t, 2.0, 3, 30);
	struct theap_item a = theap_pop(&t), b = theap_pop(&t);
	ok(a.id == 2 && a.aux == 20 && b.id == 3, "theap: earliest first");
	is_int(t.n, 1, "theap: one left");
	free(t.v);
}

int
main(void)
{
	round_trip();
	bad_line();
	heap();
	return done_testing();
}
