/*
 * logname: the names of a task instance's stdout and stderr logs, the one
 * place that decides them (the runner, the executors and the report take
 * them from here, never build their own).
 *
 * A task without foreach logs to .wfrun/logs/TASK.out and TASK.err; an
 * instance of one with foreach to .wfrun/logs/TASK/K=V,K2=V2.out (its
 * foreach keys in order), so that adding a task or an instance never
 * renames another's logs.  Values are made safe for one file name: every
 * byte but letters, digits and "._+-@" is written %XX (upper-case hex;
 * '%' itself is %25, '=' and ',' too when inside a value), and a name
 * whose escaped form is longer than LOGNAME_MAX bytes keeps its first
 * LOGNAME_KEEP bytes followed by '~' and the 16 hex digits of the FNV-1a
 * hash of the whole escaped name.  A task with a log: key
 * (wfrun-workflow(5)) has its logs where that says instead
 * (plan_log()).  Pure: it creates nothing.
 */
#ifndef WFRUN_LOGNAME_H
#define WFRUN_LOGNAME_H

#include <stdint.h>

#include "expand.h"
#include "util.h"

/* The longest instance name (without ".out"), within NAME_MAX. */
#define LOGNAME_MAX 200
#define LOGNAME_KEEP 180
#define LOGNAME_DIR ".wfrun/logs"

/* Append the escaped form of s[0..n) (see above). */
void logname_escape(struct strbuf *out, const char *s, size_t n);
/* The file name (no directory, no extension) of an instance whose foreach
 * keys and values are keys[i] and vals[i]: "K=V,K2=V2", capped. */
void logname_instance(struct strbuf *out, const char *const *keys,
		      const char *const *vals, size_t n);
/* Whether task t's logs are wfrun's, under LOGNAME_DIR (not a log:
 * key's): then one directory holds those of every instance. */
bool logname_own(const struct plan *p, uint32_t t);
/* The directory that holds task t's log with extension ext, relative to
 * the workdir: out is reset first. */
void logname_dir(const struct plan *p, uint32_t t, const char *ext,
		 struct strbuf *out);
/* Task t's log with extension ext ("out" or "err"), relative to the
 * workdir: out is reset first. */
void logname_path(const struct plan *p, uint32_t t, const char *ext,
		  struct strbuf *out);

#endif
