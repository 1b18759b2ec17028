#include "logname.h"

#include <stdlib.h>
#include <string.h>

#include "path.h"

static int
name_safe(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || strchr("._+-@", c) != NULL;
}

void
logname_escape(struct strbuf *out, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c && name_safe(c)) {
			strbuf_addch(out, (char)c);
		} else {
			strbuf_addch(out, '%');
			strbuf_addch(out, hex[c >> 4]);
			strbuf_addch(out, hex[c & 15]);
		}
	}
}

void
logname_instance(struct strbuf *out, const char *const *keys,
		 const char *const *vals, size_t n)
{
	size_t start = out->len;
	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_addch(out, ',');
		strbuf_adds(out, keys[i]);
		strbuf_addch(out, '=');
		logname_escape(out, vals[i], strlen(vals[i]));
	}
	if (out->len - start <= LOGNAME_MAX)
		return;
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = start; i < out->len; i++)
		h = (h ^ (unsigned char)out->buf[i]) * 0x100000001b3ULL;
	strbuf_setlen(out, start + LOGNAME_KEEP);
	strbuf_addf(out, "~%016llx", (unsigned long long)h);
}

bool
logname_own(const struct plan *p, uint32_t t)
{
	return !p->pt[p->dag.tasks.v[t].tmpl].log;
}

void
logname_dir(const struct plan *p, uint32_t t, const char *ext,
	    struct strbuf *out)
{
	const struct wf_task *wt = &p->wf->tasks[p->dag.tasks.v[t].tmpl];
	if (plan_log(p, t, !strcmp(ext, "err"), out)) {
		char *d = path_dirname(out->buf);
		strbuf_reset(out);
		strbuf_adds(out, d);
		free(d);
		return;
	}
	strbuf_reset(out);
	strbuf_adds(out, LOGNAME_DIR);
	if (wt->foreach.n)
		strbuf_addf(out, "/%s", wt->name);
}

void
logname_path(const struct plan *p, uint32_t t, const char *ext,
	     struct strbuf *out)
{
	const struct dag_task *dt = &p->dag.tasks.v[t];
	const struct wf_task *wt = &p->wf->tasks[dt->tmpl];
	if (plan_log(p, t, !strcmp(ext, "err"), out))
		return;
	logname_dir(p, t, ext, out);
	strbuf_addch(out, '/');
	if (!wt->foreach.n) {
		strbuf_adds(out, wt->name);
	} else {
		const char *keys[WF_MAX_KEYS];
		for (size_t i = 0; i < wt->foreach.n; i++)
			keys[i] = wt->foreach.v[i].name;
		logname_instance(out, keys, p->dag.binds.v + dt->bind,
				 wt->foreach.n);
	}
	strbuf_addf(out, ".%s", ext);
}
