/* events: events.jsonl, written and read (events.h). */
#include "events.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"

char *
events_beside(const char *trace_path)
{
	char *dir = path_dirname(trace_path);
	char *p = xasprintf("%s/events.jsonl", dir);
	free(dir);
	return p;
}

/* ---- writing ---- */

void
events_write(FILE *f, double t, const char *name, const struct iopol_event *e)
{
	struct strbuf b = STRBUF_INIT;
	strbuf_addf(&b, "{\"t\":%.6f,\"ev\":\"%s\",\"name\":", t, e->ev);
	strbuf_add_json(&b, name);
	strbuf_adds(&b, ",\"device\":");
	strbuf_add_json(&b, e->device);
	if (e->step) {
		/* (before the fields that came first: scripts read them to
		 * the end of the line) */
		strbuf_adds(&b, ",\"step\":");
		strbuf_add_json(&b, e->step);
		strbuf_addf(&b, ",\"best\":%ld,\"best_rate\":%.6g,\"lo\":%ld,"
			    "\"hi\":%ld", e->best, e->best_rate, e->lo, e->hi);
		if (e->open) {
			strbuf_adds(&b, ",\"open\":");
			strbuf_add_json(&b, e->open);
		}
	}
	if (strcmp(e->ev, "constraint"))
		strbuf_addf(&b, ",\"epoch\":%d", e->epoch);
	strbuf_addf(&b, ",\"c\":%g,\"k\":%ld", e->c, e->k);
	if (!strcmp(e->ev, "epoch_end"))
		strbuf_addf(&b, ",\"tasks\":%ld,\"mean_s\":%.6f,\"t_s\":%.6f,"
			    "\"busy_s\":%.6f,\"mbps\":%.6g,\"registered\":%s",
			    e->tasks, e->mean_s, e->t_s, e->busy_s, e->mbps,
			    e->registered ? "true" : "false");
	if (!strcmp(e->ev, "rate") || !strcmp(e->ev, "ramp"))
		strbuf_addf(&b,
			    ",\"mbps\":%.6g,\"after_s\":%.6f,\"err\":%.4f,"
			    "\"fill\":%ld",
			    e->mbps, e->after_s, e->err, e->fill);
	if (!strcmp(e->ev, "preempt"))
		strbuf_addf(&b, ",\"tasks\":%ld", e->tasks);
	if (!strcmp(e->ev, "constraint")) {
		strbuf_addf(&b, ",\"n\":%ld,\"why\":", e->n);
		strbuf_add_json(&b, e->why);
	}
	strbuf_adds(&b, "}\n");
	fputs(b.buf, f);
	fflush(f);
	strbuf_release(&b);
}

/* ---- reading: a small parser for one flat JSON object ---- */

struct events_kv {
	char key[32];
	enum { J_STR, J_NUM, J_BOOL, J_OTHER } type;
	double num;
	bool b;
	struct strbuf str;
};

struct jparse {
	const char *p;
	const char *error;
};

static void
jskip_ws(struct jparse *j)
{
	while (*j->p == ' ' || *j->p == '\t' || *j->p == '\r' ||
	       *j->p == '\n')
		j->p++;
}

static void
utf8_put(struct strbuf *sb, unsigned long cp)
{
	if (cp < 0x80) {
		strbuf_addch(sb, (int)cp);
	} else if (cp < 0x800) {
		strbuf_addch(sb, (int)(0xc0 | (cp >> 6)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		strbuf_addch(sb, (int)(0xe0 | (cp >> 12)));
		strbuf_addch(sb, (int)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	} else {
		strbuf_addch(sb, (int)(0xf0 | (cp >> 18)));
		strbuf_addch(sb, (int)(0x80 | ((cp >> 12) & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	}
}

static int
jhex4(struct jparse *j, unsigned long *cp)
{
	*cp = 0;
	for (int i = 0; i < 4; i++) {
		char c = *j->p++;
		int d = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0) {
			j->error = "bad \\u escape";
			return -1;
		}
		*cp = *cp * 16 + (unsigned long)d;
	}
	return 0;
}

/* A string at j->p (after its opening quote was checked). */
static int
jstring(struct jparse *j, struct strbuf *out)
{
	j->p++;
	for (;;) {
		char c = *j->p++;
		if (!c) {
			j->error = "unterminated string";
			return -1;
		}
		if (c == '"')
			return 0;
		if (c != '\\') {
			if (out)
				strbuf_addch(out, c);
			continue;
		}
		char e = *j->p++;
		unsigned long cp;
		switch (e) {
		case '"': case '\\': case '/': cp = (unsigned char)e; break;
		case 'b': cp = '\b'; break;
		case 'f': cp = '\f'; break;
		case 'n': cp = '\n'; break;
		case 'r': cp = '\r'; break;
		case 't': cp = '\t'; break;
		case 'u':
			if (jhex4(j, &cp) < 0)
				return -1;
			if (cp >= 0xd800 && cp < 0xdc00 && j->p[0] == '\\' &&
			    j->p[1] == 'u') {
				unsigned long lo;
				j->p += 2;
				if (jhex4(j, &lo) < 0)
					return -1;
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				     (lo - 0xdc00);
			}
			break;
		default:
			j->error = "bad escape in a string";
			return -1;
		}
		if (out)
			utf8_put(out, cp);
	}
}

/* Skip any JSON value (used for nested arrays and objects). */
static int
jskip_value(struct jparse *j)
{
	jskip_ws(j);
	char c = *j->p;
	if (c == '"')
		return jstring(j, NULL);
	if (c == '{' || c == '[') {
		char close = c == '{' ? '}' : ']';
		j->p++;
		jskip_ws(j);
		if (*j->p == close) {
			j->p++;
			return 0;
		}
		for (;;) {
			if (close == '}') {
				jskip_ws(j);
				if (*j->p != '"' || jstring(j, NULL) < 0) {
					j->error = "expected a key";
					return -1;
				}
				jskip_ws(j);
				if (*j->p++ != ':') {
					j->error = "expected ':'";
					return -1;
				}
			}
			if (jskip_value(j) < 0)
				return -1;
			jskip_ws(j);
			if (*j->p == ',') {
				j->p++;
				continue;
			}
			if (*j->p++ == close)
				return 0;
			j->error = "expected ',' or the end of a list";
			return -1;
		}
	}
	const char *s = j->p;
	while (*j->p && !strchr(",}] \t\r\n", *j->p))
		j->p++;
	if (j->p == s) {
		j->error = "expected a value";
		return -1;
	}
	return 0;
}

/* The value at j->p into e (NULL: skipped); -1 with j->error. */
static int
jvalue(struct jparse *j, struct events_kv *e)
{
	char c = *j->p;
	if (c == '"') {
		if (jstring(j, e ? &e->str : NULL) < 0)
			return -1;
		if (e)
			e->type = J_STR;
	} else if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "false", 5)) {
		if (e) {
			e->type = J_BOOL;
			e->b = c == 't';
		}
		j->p += c == 't' ? 4 : 5;
	} else if (c == '-' || (c >= '0' && c <= '9')) {
		char *end;
		double v = strtod(j->p, &end);
		if (end == j->p) {
			j->error = "bad number";
			return -1;
		}
		j->p = end;
		if (e) {
			e->type = J_NUM;
			e->num = v;
		}
	} else if (!strncmp(j->p, "null", 4)) {
		j->p += 4;
	} else if (c == '{' || c == '[') {
		return jskip_value(j);
	} else {
		j->error = "expected a value";
		return -1;
	}
	return 0;
}

/* The key and the ':' after it at j->p into key; -1 with j->error. */
static int
jkey(struct jparse *j, struct strbuf *key)
{
	jskip_ws(j);
	strbuf_reset(key);
	if (*j->p != '"' || jstring(j, key) < 0) {
		if (!j->error)
			j->error = "expected a key";
		return -1;
	}
	jskip_ws(j);
	if (*j->p++ != ':') {
		j->error = "expected ':' after a key";
		return -1;
	}
	jskip_ws(j);
	return 0;
}

/* After a value: 1 at a ',', 0 at the '}' that ends the line, -1 with
 * j->error. */
static int
jnext(struct jparse *j)
{
	jskip_ws(j);
	if (*j->p == ',') {
		j->p++;
		return 1;
	}
	if (*j->p == '}') {
		j->p++;
		jskip_ws(j);
		if (!*j->p)
			return 0;
		j->error = "text after the object";
		return -1;
	}
	j->error = "expected ',' or '}'";
	return -1;
}

/* Parse one object into kv (at most max keys kept); -1 with j->error. */
static int
jobject(struct jparse *j, struct events_kv *kv, size_t max, size_t *nkv)
{
	*nkv = 0;
	jskip_ws(j);
	if (*j->p++ != '{') {
		j->error = "a line must be a JSON object";
		return -1;
	}
	jskip_ws(j);
	if (*j->p == '}') {
		j->p++;
		return 0;
	}
	struct strbuf key = STRBUF_INIT;
	do {
		if (jkey(j, &key) < 0)
			break;
		struct events_kv *e = *nkv < max && key.len < sizeof(kv->key)
					      ? &kv[*nkv] : NULL;
		if (e) {
			memcpy(e->key, key.buf, key.len + 1);
			strbuf_reset(&e->str);
			e->type = J_OTHER;
		}
		if (jvalue(j, e) < 0)
			break;
		if (e)
			(*nkv)++;
	} while (jnext(j) > 0);
	strbuf_release(&key);
	return j->error ? -1 : 0;
}

/* ---- the events in a parsed line ---- */

static const struct {
	const char *key;
	int type;
	size_t off;
} fields[] = {
	{ "ev", J_STR, offsetof(struct event, ev) },
	{ "name", J_STR, offsetof(struct event, name) },
	{ "device", J_STR, offsetof(struct event, device) },
	{ "why", J_STR, offsetof(struct event, why) },
	{ "step", J_STR, offsetof(struct event, step) },
	{ "open", J_STR, offsetof(struct event, open) },
	{ "best", J_NUM, offsetof(struct event, best) },
	{ "best_rate", J_NUM, offsetof(struct event, best_rate) },
	{ "lo", J_NUM, offsetof(struct event, lo) },
	{ "hi", J_NUM, offsetof(struct event, hi) },
	{ "t", J_NUM, offsetof(struct event, t) },
	{ "epoch", J_NUM, offsetof(struct event, epoch) },
	{ "c", J_NUM, offsetof(struct event, c) },
	{ "k", J_NUM, offsetof(struct event, k) },
	{ "n", J_NUM, offsetof(struct event, n) },
	{ "tasks", J_NUM, offsetof(struct event, tasks) },
	{ "mean_s", J_NUM, offsetof(struct event, mean_s) },
	{ "t_s", J_NUM, offsetof(struct event, t_s) },
	{ "busy_s", J_NUM, offsetof(struct event, busy_s) },
	{ "mbps", J_NUM, offsetof(struct event, mbps) },
	{ "after_s", J_NUM, offsetof(struct event, after_s) },
	{ "err", J_NUM, offsetof(struct event, err) },
	{ "fill", J_NUM, offsetof(struct event, fill) },
	{ "registered", J_BOOL, offsetof(struct event, registered) },
};

/* The first of kv[0..n) named key with a value of type; NULL if none. */
static const struct events_kv *
jget(const struct events_kv *kv, size_t n, const char *key, int type)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(kv[i].key, key) && (int)kv[i].type == type)
			return &kv[i];
	return NULL;
}

static void
fill_event(struct event *e, const struct events_kv *kv, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		const struct events_kv *v = jget(kv, n, fields[i].key,
						 fields[i].type);
		char *at = (char *)e + fields[i].off;
		if (fields[i].type == J_STR)
			*(const char **)at = v ? v->str.buf : NULL;
		else if (fields[i].type == J_NUM)
			*(double *)at = v ? v->num : NAN;
		else
			*(int *)at = v ? v->b : -1;
	}
}

int
events_open(struct events_reader *er, const char *path, struct errbuf *err)
{
	memset(er, 0, sizeof(*er));
	struct errbuf why;
	er->fp = fopen_bounded(path, READ_MAX_RECORD, &why);
	if (!er->fp)
		return errprintf(err, "cannot read the events %s: %s", path, why.msg);
	er->path = xstrdup(path);
	er->kv = xcalloc(EVENTS_MAXKEYS, sizeof(*er->kv));
	for (size_t i = 0; i < EVENTS_MAXKEYS; i++)
		strbuf_init(&er->kv[i].str);
	return 0;
}

int
events_next(struct events_reader *er, struct event *e, struct errbuf *err)
{
	while (getline(&er->line, &er->cap, er->fp) >= 0) {
		er->lineno++;
		struct jparse j = { er->line, NULL };
		jskip_ws(&j);
		if (!*j.p)
			continue;
		size_t n;
		if (jobject(&j, er->kv, EVENTS_MAXKEYS, &n) < 0)
			return errprintf(err, "%s:%ld:%ld: %s", er->path,
					 er->lineno, (long)(j.p - er->line) + 1,
					 j.error);
		fill_event(e, er->kv, n);
		return 1;
	}
	if (ferror(er->fp))
		return errprintf(err, "cannot read the events %s: %s",
				 er->path, read_strerror(errno, READ_MAX_RECORD));
	return 0;
}

void
events_close(struct events_reader *er)
{
	if (er->kv)
		for (size_t i = 0; i < EVENTS_MAXKEYS; i++)
			strbuf_release(&er->kv[i].str);
	free(er->kv);
	free(er->line);
	free(er->path);
	if (er->fp)
		fclose(er->fp);
	memset(er, 0, sizeof(*er));
}
