/* Unit tests of expand: quoting, expressions, paths, foreach, rendering. */
#include <stdlib.h>
#include <string.h>

#include "expand.h"
#include "helpers.h"
#include "path.h"
#include "tap.h"

static char *
quoted(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	sq_quote(&sb, s, strlen(s));
	return strbuf_detach(&sb);
}

static long long
ev(const char *s)
{
	long long v = -999999;
	struct errbuf e;
	if (eval_int(s, &v, &e) < 0)
		return -999999;
	return v;
}

/* Build a plan from YAML text; the plan's command of task t in *cmd. */
static struct workflow wf;
static struct plan pl;
static struct diags dg;

static int
build(const char *yaml)
{
	const char *path = write_tmp(yaml);
	diags_init(&dg, path);
	if (workflow_load(&wf, path, &dg) < 0 || dg.nerrors)
		return -1;
	return plan_build(&pl, &wf, &dg, true);
}

static void
teardown(void)
{
	plan_release(&pl);
	workflow_release(&wf);
	diags_release(&dg);
}

static char *
cmd(uint32_t t)
{
	struct strbuf sb = STRBUF_INIT;
	plan_command(&pl, t, &sb);
	return strbuf_detach(&sb);
}

static const char *
first_error(void)
{
	for (size_t i = 0; i < dg.list.n; i++)
		if (!dg.list.v[i].warning)
			return dg.list.v[i].msg;
	return "";
}

int
main(void)
{
	char *q;
	q = quoted("plain/path-1.txt");
	is_str(q, "plain/path-1.txt", "safe strings stay bare");
	free(q);
	q = quoted("a b");
	is_str(q, "'a b'", "spaces are quoted");
	free(q);
	q = quoted("it's");
	is_str(q, "'it'\\''s'", "single quotes are escaped");
	free(q);
	q = quoted("$(rm -rf /)");
	is_str(q, "'$(rm -rf /)'", "command substitution is inert");
	free(q);
	q = quoted("");
	is_str(q, "''", "the empty string is an empty word");
	free(q);
	q = quoted("a\nb");
	is_str(q, "'a\nb'", "newline inside quotes");
	free(q);

	is_int(ev("8-1"), 7, "subtraction");
	is_int(ev("2*(3+4)"), 14, "parentheses");
	is_int(ev("-3 + 10 % 4"), -1, "unary minus and modulo");
	is_int(ev("7/2"), 3, "integer division");
	is_int(ev("1/0"), -999999, "division by zero is an error");
	is_int(ev("abc"), -999999, "junk is an error");
	is_int(ev("1 2"), -999999, "two numbers is an error");
	is_int(ev("(-9223372036854775807-1)/-1"), -999999,
	       "LLONG_MIN / -1 is an overflow, not SIGFPE");
	is_int(ev("(-9223372036854775807-1)%-1"), -999999,
	       "LLONG_MIN %% -1 is an overflow");
	is_int(ev("-(-9223372036854775807-1)"), -999999,
	       "negating LLONG_MIN is an overflow");

	char *n;
	n = path_normalize("./a//b/./c/");
	is_str(n, "a/b/c", "normalise . and //");
	free(n);
	n = path_normalize("a/x/../b");
	is_str(n, "a/b", "normalise ..");
	free(n);
	n = path_normalize("../up/./x");
	is_str(n, "../up/x", "leading .. stays");
	free(n);
	n = path_normalize("/abs/../x");
	is_str(n, "/x", "absolute");
	free(n);

	/* cross product order and placeholders */
	int r = build("vars: {n: 2, tag: \"my sample\"}\n"
		      "tasks:\n"
		      "  - name: t\n"
		      "    foreach: {i: \"0..{n}-1\", s: [a, \"b c\"]}\n"
		      "    out: {o: \"out/{s}/{i}.txt\"}\n"
		      "    run: \"echo {tag} {i} > {out.o} {{x}}\"\n");
	is_int(r, 0, "cross product workflow builds");
	is_int(pl.dag.tasks.n, 4, "2 x 2 instances");
	q = cmd(0);
	is_str(q, "echo 'my sample' 0 > out/a/0.txt {x}", "first instance: first key outermost");
	free(q);
	q = cmd(1);
	is_str(q, "echo 'my sample' 0 > 'out/b c/0.txt' {x}", "paths with spaces are quoted");
	free(q);
	q = cmd(3);
	is_str(q, "echo 'my sample' 1 > 'out/b c/1.txt' {x}", "last instance");
	free(q);
	teardown();

	/* list collections render as several quoted words; argv fast path */
	r = build("tasks:\n"
		  "  - name: mk\n"
		  "    foreach: {i: \"1..3\"}\n"
		  "    out: {f: \"p {i}.txt\"}\n"
		  "    run: \"touch {out.f}\"\n"
		  "  - name: cat\n"
		  "    in: {all: {list: \"p {i}.txt\", foreach: {i: \"1..3\"}}}\n"
		  "    out: {o: all.txt}\n"
		  "    run: \"cat {in.all} > {out.o}\"\n"
		  "  - name: cp\n"
		  "    in: {all: {list: \"p {i}.txt\", foreach: {i: \"1..2\"}}}\n"
		  "    out: {d: {dir: copies}}\n"
		  "    run: \"cp -t {out.d} {in.all}\"\n");
	is_int(r, 0, "list collection workflow builds");
	q = cmd(3);
	is_str(q, "cat 'p 1.txt' 'p 2.txt' 'p 3.txt' > all.txt", "list rendered as quoted words");
	free(q);
	is_int(pl.dag.tasks.v[3].waiting, 3, "one edge per list element");
	struct strbuf buf = STRBUF_INIT;
	struct strvec av = { 0 };
	ok(plan_argv(&pl, 0, &buf, &av), "touch needs no shell");
	ok(av.n == 2 && !strcmp(av.v[1], "p 1.txt"), "argv keeps the space inside one word");
	ok(!plan_argv(&pl, 3, &buf, &av), "a redirection needs the shell");
	ok(plan_argv(&pl, 4, &buf, &av), "cp with a list needs no shell");
	is_int(av.n, 5, "cp -t copies 'p 1.txt' 'p 2.txt'");
	if (av.n == 5)
		is_str(av.v[4], "p 2.txt", "list elements are separate words");
	strbuf_release(&buf);
	VEC_FREE(av);
	teardown();

	/* errors */
	r = build("tasks:\n"
		  "  - name: t\n"
		  "    in: {a: x.txt}\n"
		  "    out: {b: y.txt}\n"
		  "    run: \"cat {in.b} {inn.a} {nope} > {out.b}\"\n");
	ok(r < 0, "bad placeholders are errors");
	is_int(dg.nerrors, 3, "three errors at once");
	is_str(first_error(), "run of task 't': {in.b}: 'b' is an out parameter; write {out.b}",
	       "wrong access named");
	teardown();

	r = build("tasks:\n"
		  "  - name: t\n"
		  "    in: {a: missing.txt}\n"
		  "    out: {b: y.txt}\n"
		  "    run: \"cat {in.a} > {out.b}\"\n");
	ok(r < 0, "a missing input is an error");
	is_str(first_error(), "task 't': input 'a' (missing.txt) does not exist and no earlier task writes it",
	       "missing input named");
	is_int(dg.list.v[0].loc.line, 3, "at the parameter's line");
	teardown();

	r = build("vars: {n: x}\n"
		  "tasks:\n"
		  "  - name: t\n"
		  "    foreach: {i: \"1..{n}\"}\n"
		  "    out: {b: \"y{i}\"}\n"
		  "    run: \"touch {out.b}\"\n");
	ok(r < 0, "a range bound that is no number is an error");
	is_str(first_error(), "foreach 'i' of task 't': range bound 'x' is not an integer expression (unexpected 'x')",
	       "bad range bound named");
	teardown();

	r = build("tasks:\n"
		  "  - name: t\n"
		  "    foreach: {i: \"3..1\"}\n"
		  "    out: {b: \"y{i}\"}\n"
		  "    run: \"touch {out.b}\"\n");
	is_int(r, 0, "an empty range is no error");
	is_int(pl.dag.tasks.n, 0, "and gives no instance");
	teardown();
	return done_testing();
}
