#include "resources.h"

#include "path.h"

#include <errno.h>
#include <limits.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlschemas.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Generated from resources/wfrun-resources.xsd by the Makefile. */
extern const char wfrun_resources_xsd[];

struct xml_ctx {
	struct diags *d;
	bool refused; /* a DOCTYPE stopped the parser */
};

/*
 * A resources file has no use for a DTD, and a DTD is how XML files attack
 * their readers: entities that expand a billion times, external entities
 * that read local files or fetch URLs.  The parser is stopped at the
 * DOCTYPE, before any declaration in it is read; nothing is ever fetched
 * (XML_PARSE_NONET, no DTD loading, no entity substitution, no XInclude).
 */
static void
refuse_dtd(void *arg, const xmlChar *name, const xmlChar *external_id,
	   const xmlChar *system_id)
{
	(void)name;
	(void)external_id;
	(void)system_id;
	xmlParserCtxtPtr ctxt = arg;
	struct xml_ctx *x = ctxt->_private;
	struct wf_loc loc = { ctxt->input ? (unsigned)ctxt->input->line : 0, 1 };
	if (!x->refused)
		diag_error(x->d, loc, "a resources file cannot have a DOCTYPE "
			   "(DTDs and entities are refused); remove it");
	x->refused = true;
	xmlStopParser(ctxt);
}

static void
structured_error(void *arg, xmlErrorPtr e)
{
	struct xml_ctx *x = arg;
	struct wf_loc loc = { e->line > 0 ? (unsigned)e->line : 0,
			      e->int2 > 0 ? (unsigned)e->int2 : 1 };
	char *msg = xstrdup(e->message ? e->message : "invalid XML");
	size_t n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = '\0';
	/* One diagnostic, one line ("...encoding !\nBytes: 0xE9..."). */
	for (char *p = msg; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	/* libxml2 follows each bad attribute value with this note, which
	 * says nothing to the user. */
	if (strstr(msg, "No precomputed value available")) {
		free(msg);
		return;
	}
	/* libxml2 says "Element 'x': ..." — keep its words, they name the
	 * element and what the schema wanted, except for the identity
	 * constraints, whose wording only a schema author reads easily. */
	const char *key = strstr(msg, "Duplicate key-sequence [");
	if (key && strstr(msg, "'workerName'"))
		diag_error(x->d, loc, "duplicate worker name %.*s: worker names "
			   "must be unique", (int)strcspn(key + 24, "]"), key + 24);
	else if (key && strstr(msg, "'storageName'"))
		diag_error(x->d, loc, "duplicate storage name %.*s: storage "
			   "names must be unique", (int)strcspn(key + 24, "]"),
			   key + 24);
	else if (strstr(msg, "'workdirStorage'"))
		diag_error(x->d, loc, "the workdir names a storage that no "
			   "<storage name=\"...\"> element defines");
	else
		diag_error(x->d, loc, "%s", msg);
	free(msg);
}

char *
expand_tilde(const char *p)
{
	if (p[0] != '~' || (p[1] && p[1] != '/'))
		return xstrdup(p);
	const char *home = getenv("HOME");
	if (!home || !*home) {
		struct passwd *pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : "/";
	}
	return xasprintf("%s%s", home, p + 1);
}

static char *
prop(xmlNodePtr n, const char *name)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
	if (!v)
		return NULL;
	char *s = xstrdup((const char *)v);
	xmlFree(v);
	return s;
}

static char *
text(xmlNodePtr n)
{
	xmlChar *v = xmlNodeGetContent(n);
	char *s = xstrdup(v ? (const char *)v : "");
	xmlFree(v);
	/* trim */
	char *a = s, *e = s + strlen(s);
	while (*a == ' ' || *a == '\t' || *a == '\n' || *a == '\r')
		a++;
	while (e > a && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
			 e[-1] == '\r'))
		e--;
	char *r = xstrndup(a, (size_t)(e - a));
	free(s);
	return r;
}

static bool
is(xmlNodePtr n, const char *name)
{
	return n->type == XML_ELEMENT_NODE &&
	       !strcmp((const char *)n->name, name);
}

static struct wf_loc
line_of(xmlNodePtr n)
{
	struct wf_loc l = { (unsigned)xmlGetLineNo(n), 1 };
	return l;
}

/* A path of the file: ~ expanded, relative ones taken from the directory
 * of the resources file (wfrun runs in the workflow's workdir later). */
static char *
file_path(const struct cluster *c, const char *p)
{
	char *e = expand_tilde(p);
	if (e[0] == '/')
		return e;
	char *dir = path_dirname(c->file);
	char *j = path_join(dir, e);
	char *abs = path_absolute(j);
	free(dir);
	free(j);
	free(e);
	return abs;
}

/* xs:boolean after whitespace collapsing. */
static bool
is_true(const char *s)
{
	if (!s)
		return false;
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return !strncmp(s, "true", 4) || s[0] == '1';
}

/* <cores> and <io-executors>: the schema makes them positive integers of
 * any size; wfrun takes at most MAX_COUNT. */
#define MAX_COUNT 1000000

static long
count_of(xmlNodePtr k, const struct worker_spec *w, struct diags *d)
{
	char *s = text(k), *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || v > MAX_COUNT || v < 1) {
		diag_error(d, line_of(k), "worker '%s': <%s> is %s; at most %d",
			   w->name, (const char *)k->name, s, MAX_COUNT);
		v = 0;
	}
	free(s);
	return v;
}

static void
load_worker(struct cluster *c, xmlNodePtr n, struct diags *d)
{
	struct worker_spec *w = &c->workers[c->nworkers++];
	memset(w, 0, sizeof(*w));
	w->line = (unsigned)xmlGetLineNo(n);
	w->name = prop(n, "name");
	w->host = prop(n, "host");
	char *port = prop(n, "port");
	w->port = port ? atoi(port) : 22;
	free(port);
	w->user = prop(n, "user");
	w->container_engine = prop(n, "container-engine");
	w->keepalive = 15;
	w->timeout = 20;
	w->lost_after = 20;
	w->local = w->host && (!strcmp(w->host, "localhost"));
	for (xmlNodePtr k = n->children; k; k = k->next) {
		if (is(k, "cores")) {
			w->cores = count_of(k, w, d);
		} else if (is(k, "memory")) {
			char *s = text(k), *u = prop(k, "unit");
			long long mul = 1LL << 30;
			if (u && !strcmp(u, "MB"))
				mul = 1LL << 20;
			else if (u && !strcmp(u, "TB"))
				mul = 1LL << 40;
			w->memory = atoll(s) * mul;
			free(s);
			free(u);
		} else if (is(k, "io-executors")) {
			w->io_executors = count_of(k, w, d);
		} else if (is(k, "disk")) {
			char *s = prop(k, "bandwidth");
			w->disk_bw = s ? strtod(s, NULL) : 0;
			free(s);
		} else if (is(k, "workdir")) {
			char *s = text(k), *sh = prop(k, "shared");
			w->workdir = expand_tilde(s);
			w->shared = is_true(sh);
			w->storage = prop(k, "storage");
			free(s);
			free(sh);
			if (w->workdir[0] != '/')
				diag_error(d, line_of(k), "worker '%s': workdir '%s' "
					   "must be an absolute path", w->name,
					   w->workdir);
			else if (w->local)
				diag_warning(d, line_of(k), "worker '%s' runs on "
					     "localhost in the workflow's workdir; "
					     "its <workdir> is ignored", w->name);
		} else if (is(k, "ssh")) {
			char *id = prop(k, "identity"), *kh = prop(k, "known-hosts");
			char *ka = prop(k, "keepalive"), *to = prop(k, "timeout");
			char *la = prop(k, "lost-after");
			if (id)
				w->identity = file_path(c, id);
			if (kh)
				w->known_hosts = file_path(c, kh);
			if (ka)
				w->keepalive = atoi(ka);
			if (to)
				w->timeout = atoi(to);
			if (la)
				w->lost_after = atoi(la);
			free(id);
			free(kh);
			free(ka);
			free(to);
			free(la);
			if (w->local)
				diag_warning(d, line_of(k), "worker '%s' runs on "
					     "localhost without SSH; its <ssh> is "
					     "ignored", w->name);
		}
	}
	if (!w->known_hosts)
		w->known_hosts = expand_tilde("~/.ssh/known_hosts");
	if (w->storage && !w->shared)
		diag_error(d, line_of(n), "worker '%s': a workdir on storage '%s' "
			   "must be shared=\"true\"", w->name, w->storage);
	if (!w->local && !w->workdir)
		diag_error(d, line_of(n), "worker '%s' on %s needs a <workdir> "
			   "(an absolute path on that host)", w->name, w->host);
}

/* An integer attribute the schema has already bounded, or dflt. */
static long
int_prop(xmlNodePtr n, const char *name, long dflt)
{
	char *s = prop(n, name);
	long v = s ? strtol(s, NULL, 10) : dflt;
	free(s);
	return v;
}

static void
load_slurm(struct cluster *c, xmlNodePtr n)
{
	struct slurm_spec *s = xcalloc(1, sizeof(*s));
	c->slurm = s;
	s->line = (unsigned)xmlGetLineNo(n);
	s->partition = prop(n, "partition");
	s->account = prop(n, "account");
	s->qos = prop(n, "qos");
	s->time = prop(n, "time");
	s->memory = prop(n, "memory-per-node");
	s->max_nodes = int_prop(n, "max-nodes", 1);
	s->cores_per_node = int_prop(n, "cores-per-node", 0);
	s->idle = (int)int_prop(n, "idle", 60);
	s->lost_after = (int)int_prop(n, "lost-after", 20);
	s->max_jobs = int_prop(n, "max-jobs", 1000);
	s->poll = (int)int_prop(n, "poll", 2);
	char *submit = prop(n, "submit");
	s->jobs = submit && !strcmp(submit, "jobs");
	free(submit);
	for (xmlNodePtr k = n->children; k; k = k->next)
		if (is(k, "option"))
			VEC_PUSH(s->options, text(k));
}

/* Parse len bytes at buf (path names them), validate, fill c. */
static int
load(struct cluster *c, const char *path, const char *buf, size_t len,
     struct diags *d)
{
	memset(c, 0, sizeof(*c));
	c->file = xstrdup(path);
	size_t before = d->nerrors;
	struct xml_ctx x = { d, false };
	struct wf_loc l0 = { 0, 0 };

	if (len > INT_MAX) {
		diag_error(d, l0, "the resources file is larger than 2 GB");
		return -1;
	}
	xmlSchemaParserCtxtPtr pctx = xmlSchemaNewMemParserCtxt(
		wfrun_resources_xsd, (int)strlen(wfrun_resources_xsd));
	xmlSchemaPtr schema = pctx ? xmlSchemaParse(pctx) : NULL;
	if (!schema)
		BUG("the built-in resources schema does not parse");
	xmlParserCtxtPtr ctx = xmlNewParserCtxt();
	if (!ctx)
		die("out of memory");
	ctx->_private = &x;
	ctx->sax->internalSubset = refuse_dtd;
	xmlSetStructuredErrorFunc(&x, structured_error);
	int opts = XML_PARSE_NONET | XML_PARSE_NOXINCNODE;
	xmlDocPtr doc = xmlCtxtReadMemory(ctx, buf, (int)len, path, NULL, opts);
	if (doc && !x.refused) {
		xmlSchemaValidCtxtPtr v = xmlSchemaNewValidCtxt(schema);
		xmlSchemaSetValidStructuredErrors(v, structured_error, &x);
		int r = xmlSchemaValidateDoc(v, doc);
		xmlSchemaFreeValidCtxt(v);
		if (r == 0) {
			xmlNodePtr root = xmlDocGetRootElement(doc);
			size_t nw = 0, ns = 0;
			for (xmlNodePtr n = root->children; n; n = n->next) {
				nw += is(n, "worker");
				ns += is(n, "storage");
			}
			c->workers = xcalloc(nw ? nw : 1, sizeof(*c->workers));
			c->storages = xcalloc(ns ? ns : 1, sizeof(*c->storages));
			for (xmlNodePtr n = root->children; n; n = n->next) {
				if (is(n, "worker")) {
					load_worker(c, n, d);
				} else if (is(n, "storage")) {
					struct storage_spec *s =
						&c->storages[c->nstorages++];
					char *bw = prop(n, "bandwidth");
					s->name = prop(n, "name");
					s->bandwidth = bw ? strtod(bw, NULL) : 0;
					s->line = (unsigned)xmlGetLineNo(n);
					free(bw);
				} else if (is(n, "slurm")) {
					load_slurm(c, n);
				}
			}
			if (!c->nworkers && !c->slurm)
				diag_error(d, line_of(root), "no <worker> and no "
					   "<slurm>: say where tasks run (see "
					   "wfrun-resources(5))");
		}
	} else if (!doc && d->nerrors == before) {
		diag_error(d, l0, "cannot read the resources file");
	}
	if (doc)
		xmlFreeDoc(doc);
	xmlSetStructuredErrorFunc(NULL, NULL);
	xmlFreeParserCtxt(ctx);
	xmlSchemaFree(schema);
	xmlSchemaFreeParserCtxt(pctx);
	return d->nerrors == before ? 0 : -1;
}

/* Read whole and bounded (a pipe too, a device never), then parsed from
 * memory: libxml2 itself would read any file to its end. */
int
resources_load(struct cluster *c, const char *path, struct diags *d)
{
	struct strbuf sb = STRBUF_INIT;
	struct errbuf err;
	if (read_bounded(path, READ_MAX_INPUT, &sb, &err) < 0) {
		struct wf_loc l0 = { 0, 0 };
		memset(c, 0, sizeof(*c));
		c->file = xstrdup(path);
		diag_error(d, l0, "cannot read: %s", err.msg);
		strbuf_release(&sb);
		return -1;
	}
	int r = load(c, path, sb.buf, sb.len, d);
	strbuf_release(&sb);
	return r;
}

int
resources_load_mem(struct cluster *c, const char *path, const char *buf,
		   size_t len, struct diags *d)
{
	return load(c, path, buf, len, d);
}

void
resources_release(struct cluster *c)
{
	for (size_t i = 0; i < c->nworkers; i++) {
		struct worker_spec *w = &c->workers[i];
		free(w->name);
		free(w->host);
		free(w->user);
		free(w->workdir);
		free(w->storage);
		free(w->container_engine);
		free(w->identity);
		free(w->known_hosts);
	}
	free(c->workers);
	for (size_t i = 0; i < c->nstorages; i++)
		free(c->storages[i].name);
	free(c->storages);
	if (c->slurm) {
		struct slurm_spec *s = c->slurm;
		free(s->partition);
		free(s->account);
		free(s->qos);
		free(s->time);
		free(s->memory);
		for (size_t i = 0; i < s->options.n; i++)
			free(s->options.v[i]);
		VEC_FREE(s->options);
		free(s);
	}
	free(c->file);
	memset(c, 0, sizeof(*c));
}
