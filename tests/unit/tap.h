/*
 * tap.h: a tiny TAP producer for wfrun's unit tests.  Each check prints
 * "ok N - what" or "not ok N - what" with the values that differed;
 * done_testing() prints the plan and returns the exit status.
 */
#ifndef WFRUN_TAP_H
#define WFRUN_TAP_H

#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

static void
tap_ok(int pass, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#include <stdarg.h>
static void
tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	tap_n++;
	printf("%sok %d - ", pass ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!pass) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
}

#define is_str(got, want, ...)                                               \
	do {                                                                 \
		const char *g_ = (got), *w_ = (want);                        \
		int p_ = g_ && w_ ? !strcmp(g_, w_) : g_ == w_;              \
		tap_ok(p_, __FILE__, __LINE__, __VA_ARGS__);                 \
		if (!p_)                                                     \
			printf("#   got:  '%s'\n#   want: '%s'\n",           \
			       g_ ? g_ : "(null)", w_ ? w_ : "(null)");      \
	} while (0)

#define is_int(got, want, ...)                                               \
	do {                                                                 \
		long long g_ = (long long)(got), w_ = (long long)(want);     \
		tap_ok(g_ == w_, __FILE__, __LINE__, __VA_ARGS__);           \
		if (g_ != w_)                                                \
			printf("#   got:  %lld\n#   want: %lld\n", g_, w_);  \
	} while (0)

static int
done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
