/*
 * report_run: reads run.json, the record history.c writes of a run (one
 * "key": value per line), into the report's header: its strings (JSON
 * escapes undone), numbers, the argv array joined by spaces and the
 * counts object.  A key that is missing or null stays unknown.
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

/* Where the value of "key" starts in json (after "key": ), NULL if none. */
static const char *
value_at(const char *json, const char *key)
{
	size_t n = strlen(key);
	for (const char *p = strchr(json, '"'); p; p = strchr(p + 1, '"'))
		if (!strncmp(p + 1, key, n) && p[n + 1] == '"' &&
		    p[n + 2] == ':') {
			p += n + 3;
			return p + strspn(p, " \t\n");
		}
	return NULL;
}

/* The JSON string at *pp (after its opening quote) appended to b, *pp
 * moved past its closing quote. */
static void
take_string(struct strbuf *b, const char **pp)
{
	const char *p = *pp;
	for (; *p && *p != '"'; p++) {
		if (*p != '\\' || !p[1]) {
			strbuf_addch(b, *p);
			continue;
		}
		p++;
		switch (*p) {
		case 'n': strbuf_addch(b, '\n'); break;
		case 't': strbuf_addch(b, '\t'); break;
		case 'r': strbuf_addch(b, '\r'); break;
		case 'u': {
			char hex[5] = { 0 };
			strncpy(hex, p + 1, 4);
			unsigned long c = strtoul(hex, NULL, 16);
			strbuf_addch(b, c && c < 128 ? (char)c : '?');
			p += strlen(hex);
			break;
		}
		default: strbuf_addch(b, *p);
		}
	}
	*pp = *p ? p + 1 : p;
}

/* The string value of key, in the report's arena; NULL if none. */
static const char *
str_of(struct report *r, const char *json, const char *key)
{
	const char *p = value_at(json, key);
	if (!p || *p != '"')
		return NULL;
	p++;
	struct strbuf b = STRBUF_INIT;
	take_string(&b, &p);
	const char *s = arena_strndup(&r->arena, b.buf, b.len);
	strbuf_release(&b);
	return s;
}

/* The number value of key; dflt when missing or null. */
static double
num_of(const char *json, const char *key, double dflt)
{
	const char *p = value_at(json, key);
	char *end;
	double v = p ? strtod(p, &end) : 0;
	return p && end != p ? v : dflt;
}

/* The argv array, its words joined by spaces (quoted when they hold a
 * space or are empty). */
static const char *
argv_of(struct report *r, const char *json)
{
	const char *p = value_at(json, "argv");
	if (!p || *p != '[')
		return NULL;
	struct strbuf b = STRBUF_INIT, w = STRBUF_INIT;
	for (p++; *p && *p != ']'; p++) {
		if (*p != '"')
			continue;
		p++;
		strbuf_reset(&w);
		take_string(&w, &p);
		bool quote = !w.len || strpbrk(w.buf, " \t\n'\"");
		strbuf_addf(&b, b.len ? " %s%s%s" : "%s%s%s", quote ? "'" : "",
			    w.buf, quote ? "'" : "");
		p--;
	}
	const char *s = arena_strndup(&r->arena, b.buf, b.len);
	strbuf_release(&w);
	strbuf_release(&b);
	return s;
}

/* A file of the run's record, whole, into b; -1 with err (b released). */
static int
read_record(const char *path, struct strbuf *b, struct errbuf *err)
{
	struct errbuf why;
	if (read_bounded(path, READ_MAX_INPUT, b, &why) < 0) {
		strbuf_release(b);
		return errprintf(err, "cannot read %s: %s", path, why.msg);
	}
	return 0;
}

int
report_load_run(struct report *r, const char *path, struct errbuf *err)
{
	struct strbuf b = STRBUF_INIT;
	if (read_record(path, &b, err) < 0)
		return -1;
	struct report_run *u = &r->run;
	u->have = true;
	u->id = str_of(r, b.buf, "id");
	u->version = str_of(r, b.buf, "version");
	u->workflow = str_of(r, b.buf, "workflow");
	u->wf_sha = str_of(r, b.buf, "workflow_sha256");
	u->resources = str_of(r, b.buf, "resources");
	u->status = str_of(r, b.buf, "status");
	u->argv = argv_of(r, b.buf);
	u->start = num_of(b.buf, "start", -1);
	u->end = num_of(b.buf, "end", -1);
	u->exit = (long)num_of(b.buf, "exit", -1);
	const char *c = value_at(b.buf, "counts");
	c = c ? c : "";
	u->run = (long)num_of(c, "run", -1);
	u->up_to_date = (long)num_of(c, "up_to_date", -1);
	u->failed = (long)num_of(c, "failed", -1);
	u->cancelled = (long)num_of(c, "cancelled", -1);
	u->not_run = (long)num_of(c, "not_run", -1);
	strbuf_release(&b);
	return 0;
}

int
report_load_not_run(struct report *r, const char *path, struct errbuf *err)
{
	struct strbuf b = STRBUF_INIT;
	if (read_record(path, &b, err) < 0)
		return -1;
	char *line = b.buf;
	int rc = 0;
	for (size_t ln = 1; *line; ln++) {
		char *end = strchr(line, '\n');
		if (end)
			*end = '\0';
		char *t1 = strchr(line, '\t');
		char *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
		if (!t2) {
			rc = errprintf(err, "%s:%zu: not STATE<TAB>NAME<TAB>TAG",
				       path, ln);
			break;
		}
		*t1 = *t2 = '\0';
		if (ln > 1) {
			struct report_notrun n = {
				arena_strndup(&r->arena, line, strlen(line)),
				arena_strndup(&r->arena, t1 + 1, strlen(t1 + 1)),
				arena_strndup(&r->arena, t2 + 1, strlen(t2 + 1)),
			};
			VEC_PUSH(r->notrun, n);
		}
		if (!end)
			break;
		line = end + 1;
	}
	strbuf_release(&b);
	return rc;
}
