/*
 * history: the runs' records, .wfrun/runs/RUNID/ (see history.h).
 * run.json is written whole to run.json.tmp and renamed: when the run
 * starts (end and exit null, status "running") and when it ends.  One key
 * a line, so that it reads back without a JSON parser: a key is found at
 * the start of a line, where no string value can put it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "events.h"
#include "exitcode.h"
#include "history.h"
#include "path.h"
#include "undo.h"

#define LATEST_TRACE ".wfrun/trace.tsv"
#define NOTHING "nothing to do"

static int saved_argc;
static char **saved_argv;

void
history_set_argv(int argc, char **argv)
{
	saved_argv = xcalloc((size_t)argc + 1, sizeof(*saved_argv));
	for (int i = 0; i < argc; i++)
		saved_argv[i] = xstrdup(argv[i]);
	saved_argc = argc;
}

/* SHA-256 (FIPS 180-4) of what is read from fd. */
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void
sha256_block(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], v[8];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^
			      (w[i - 15] >> 3);
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^
			      (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(v, h, sizeof(v));
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = v[7] + (ROR(v[4], 6) ^ ROR(v[4], 11) ^
				      ROR(v[4], 25)) +
			      ((v[4] & v[5]) ^ (~v[4] & v[6])) + K[i] + w[i];
		uint32_t t2 = (ROR(v[0], 2) ^ ROR(v[0], 13) ^ ROR(v[0], 22)) +
			      ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
		memmove(v + 1, v, 7 * sizeof(*v));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		h[i] += v[i];
}

char *
history_sha256_file(const char *path)
{
	uint32_t h[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
			  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	unsigned char buf[64 * 64];
	uint64_t total = 0;
	size_t have = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			return NULL;
		}
		if (n == 0)
			break;
		total += (uint64_t)n;
		have += (size_t)n;
		size_t full = have / 64 * 64;
		for (size_t o = 0; o < full; o += 64)
			sha256_block(h, buf + o);
		memmove(buf, buf + full, have - full);
		have -= full;
	}
	close(fd);
	buf[have++] = 0x80;
	size_t end = have > 56 ? 128 : 64;
	memset(buf + have, 0, end - have);
	for (int i = 0; i < 8; i++)
		buf[end - 1 - i] = (unsigned char)((total * 8) >> (8 * i));
	for (size_t o = 0; o < end; o += 64)
		sha256_block(h, buf + o);
	char *hex = xmalloc(65);
	for (int i = 0; i < 8; i++)
		snprintf(hex + 8 * i, 9, "%08x", (unsigned)h[i]);
	return hex;
}

/* path made absolute against the current directory (NULL: NULL). */
static char *
absolute(const char *path)
{
	char cwd[PATH_MAX];
	if (!path)
		return NULL;
	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return xstrdup(path);
	return xasprintf("%s/%s", cwd, path);
}

void
history_init(struct history *h, const char *workflow, const char *resources)
{
	memset(h, 0, sizeof(*h));
	bool pipe = !workflow || !strcmp(workflow, "-");
	h->workflow = pipe ? NULL : absolute(workflow);
	h->wf_sha = pipe ? NULL : history_sha256_file(workflow);
	h->resources = absolute(resources);
	h->res_sha = resources ? history_sha256_file(resources) : NULL;
	h->pid = (long)getpid();
}

static void
add_key_str(struct strbuf *b, const char *key, const char *v, bool last)
{
	strbuf_addf(b, "  \"%s\": ", key);
	if (v)
		strbuf_add_json(b, v);
	else
		strbuf_adds(b, "null");
	strbuf_adds(b, last ? "\n" : ",\n");
}

static void
add_counts(struct strbuf *b, const struct history_counts *c)
{
	strbuf_addf(b, "  \"counts\": {\"run\": %zu, \"up_to_date\": %zu, "
		    "\"failed\": %zu, \"cancelled\": %zu, \"not_run\": %zu, "
		    "\"left_out\": %zu}\n", c->run, c->up_to_date, c->failed,
		    c->cancelled, c->not_run, c->left_out);
}

/* dir/name made to hold b (written whole beside it, then renamed). */
static int
write_whole(const char *dir, const char *name, const struct strbuf *b,
	    struct errbuf *err)
{
	char *tmp = xasprintf("%s/%s.tmp", dir, name);
	char *path = xasprintf("%s/%s", dir, name);
	FILE *fp = fopen(tmp, "we");
	int r = 0;
	if (!fp || fwrite(b->buf, 1, b->len, fp) != b->len || fclose(fp) ||
	    rename(tmp, path) < 0) {
		r = errprintf(err, "cannot write %s: %s", path,
			      strerror(errno));
		if (fp)
			unlink(tmp);
	}
	free(tmp);
	free(path);
	return r;
}

/* run.json of h as it stands: end < 0 and rc < 0 while running. */
static int
write_record(const struct history *h, double end, int rc, const char *status,
	     const struct history_counts *c, struct errbuf *err)
{
	struct strbuf b = STRBUF_INIT;
	strbuf_adds(&b, "{\n");
	add_key_str(&b, "id", h->id, false);
	strbuf_addf(&b, "  \"start\": %.3f,\n", h->start);
	if (end < 0)
		strbuf_adds(&b, "  \"end\": null,\n");
	else
		strbuf_addf(&b, "  \"end\": %.3f,\n", end);
	strbuf_addf(&b, "  \"pid\": %ld,\n  \"argv\": [", h->pid);
	for (int i = 0; i < saved_argc; i++) {
		strbuf_adds(&b, i ? ", " : "");
		strbuf_add_json(&b, saved_argv[i]);
	}
	strbuf_adds(&b, "],\n");
	add_key_str(&b, "version", WFRUN_VERSION, false);
	add_key_str(&b, "workflow", h->workflow, false);
	add_key_str(&b, "workflow_sha256", h->wf_sha, false);
	add_key_str(&b, "resources", h->resources, false);
	add_key_str(&b, "resources_sha256", h->res_sha, false);
	if (rc < 0)
		strbuf_adds(&b, "  \"exit\": null,\n");
	else
		strbuf_addf(&b, "  \"exit\": %d,\n", rc);
	add_key_str(&b, "status", status, false);
	add_counts(&b, c);
	strbuf_adds(&b, "}\n");
	int r = write_whole(h->dir, "run.json", &b, err);
	strbuf_release(&b);
	return r;
}

/* HISTORY_DIR/YYYYMMDD-HHMMSS-UUUUUU (UTC), made: a later run's sorts
 * after (the next microsecond if one of that name is there). */
static int
make_dir(struct history *h, struct errbuf *err)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	h->start = (double)tv.tv_sec + tv.tv_usec / 1e6;
	for (int tries = 0; tries < 1000; tries++, tv.tv_usec++) {
		if (tv.tv_usec >= 1000000) {
			tv.tv_sec++;
			tv.tv_usec = 0;
		}
		struct tm tm;
		char stamp[32];
		gmtime_r(&tv.tv_sec, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
		free(h->id);
		free(h->dir);
		h->id = xasprintf("%s-%06ld", stamp, (long)tv.tv_usec);
		h->dir = xasprintf("%s/%s", HISTORY_DIR, h->id);
		if (mkdir(h->dir, 0777) == 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	errprintf(err, "cannot create %s: %s", h->dir, strerror(errno));
	free(h->id);
	free(h->dir);
	h->id = h->dir = NULL;
	return -1;
}

/* path a new empty file, also named dir/name: true if linked. */
static bool
fresh_linked(const char *path, const char *dir, const char *name)
{
	unlink(path);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd >= 0)
		close(fd);
	char *in = xasprintf("%s/%s", dir, name);
	bool ok = fd >= 0 && link(path, in) == 0;
	free(in);
	return ok;
}

/* .wfrun/NAME made another name of the record id's NAME (replaced
 * whole: a link made beside it, then renamed). */
static void
point_latest(const char *id, const char *name)
{
	char *from = xasprintf("%s/%s/%s", HISTORY_DIR, id, name);
	char *to = xasprintf(".wfrun/%s", name);
	char *tmp = xasprintf("%s.tmp", to);
	unlink(tmp);
	if (link(from, tmp) == 0 && rename(tmp, to) < 0)
		unlink(tmp);
	free(from);
	free(to);
	free(tmp);
}

int
history_begin(struct history *h, const char *tpath, struct errbuf *err)
{
	if (mkdir_p(HISTORY_DIR, 0777) < 0)
		return errprintf(err, "cannot create %s: %s", HISTORY_DIR,
				 strerror(errno));
	if (history_prune(NULL, HISTORY_KEEP - 1, err) < 0 ||
	    make_dir(h, err) < 0)
		return -1;
	struct history_counts none = { 0 };
	if (write_record(h, -1, -1, "running", &none, err) < 0) {
		undo_rmtree(h->dir);
		free(h->id);
		h->id = NULL;
		return -1;
	}
	if (!strcmp(tpath, LATEST_TRACE))
		point_latest(h->id, "run.json");
	h->tpath = xstrdup(tpath);
	h->epath = events_beside(tpath);
	h->tlinked = fresh_linked(tpath, h->dir, "trace.tsv");
	h->elinked = fresh_linked(h->epath, h->dir, "events.jsonl");
	return 0;
}

/* Copy from to to (to is replaced). */
static int
copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	ssize_t n = 0;
	while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	close(in);
	if (out < 0 || close(out) < 0 || n < 0)
		return -1;
	return 0;
}

/* The latest trace, events and run.json back to those of the last
 * record, other than h's, of a run that ran something (if one is left). */
static void
restore_latest(const struct history *h)
{
	struct errbuf err;
	struct history_rec *recs;
	long n = history_list(NULL, &recs, &err);
	for (long i = n - 1; i >= 0; i--) {
		if (!strcmp(recs[i].id, h->id) ||
		    !strcmp(recs[i].status, NOTHING))
			continue;
		point_latest(recs[i].id, "trace.tsv");
		point_latest(recs[i].id, "events.jsonl");
		point_latest(recs[i].id, "run.json");
		point_latest(recs[i].id, HISTORY_NOT_RUN);
		break;
	}
	free(recs);
}

int
history_not_run(struct history *h, const struct strbuf *tsv,
		struct errbuf *err)
{
	if (!h->id)
		return 0;
	int r = write_whole(h->dir, HISTORY_NOT_RUN, tsv, err);
	if (!r && !strcmp(h->tpath, LATEST_TRACE))
		point_latest(h->id, HISTORY_NOT_RUN);
	return r;
}

int
history_end(struct history *h, int rc, const struct history_counts *c,
	    struct errbuf *err)
{
	if (!h->id)
		return 0;
	char *t = xasprintf("%s/trace.tsv", h->dir);
	char *e = xasprintf("%s/events.jsonl", h->dir);
	if (!h->tlinked)
		copy_file(h->tpath, t);
	if (!h->elinked)
		copy_file(h->epath, e);
	free(t);
	free(e);
	bool nothing = rc == EXIT_OK && !c->run && !c->failed;
	const char *status = nothing ? NOTHING
			     : rc == EXIT_OK ? "ok"
			     : rc == EXIT_INTERRUPTED ? "interrupted"
			     : "failed";
	struct timeval tv;
	gettimeofday(&tv, NULL);
	int r = write_record(h, (double)tv.tv_sec + tv.tv_usec / 1e6, rc,
			     status, c, err);
	if (nothing && !strcmp(h->tpath, LATEST_TRACE))
		restore_latest(h);
	else if (!strcmp(h->tpath, LATEST_TRACE))
		point_latest(h->id, "run.json");
	return r;
}

void
history_release(struct history *h)
{
	free(h->id);
	free(h->dir);
	free(h->workflow);
	free(h->wf_sha);
	free(h->resources);
	free(h->res_sha);
	free(h->tpath);
	free(h->epath);
	memset(h, 0, sizeof(*h));
}

/* The value after "key": at the start of a line of json, NULL if none. */
static const char *
value_of(const char *json, const char *key)
{
	char *pat = xasprintf("\n  \"%s\": ", key);
	const char *p = strstr(json, pat);
	if (p)
		p += strlen(pat);
	free(pat);
	return p;
}

static double
num_of(const char *json, const char *key)
{
	const char *v = value_of(json, key);
	return v && strncmp(v, "null", 4) ? strtod(v, NULL) : -1;
}

static size_t
count_of(const char *json, const char *key)
{
	char *pat = xasprintf("\"%s\": ", key);
	const char *c = value_of(json, "counts");
	const char *p = c ? strstr(c, pat) : NULL;
	size_t n = p ? strtoul(p + strlen(pat), NULL, 10) : 0;
	free(pat);
	return n;
}

/* Is a run of pid still going in the workdir wd: pid there, the
 * workdir's lock held and naming pid (guard.c)? */
static bool
live(const char *wd, long pid)
{
	if (pid <= 0 || (kill((pid_t)pid, 0) < 0 && errno != EPERM))
		return false;
	char *lock = xasprintf("%s/.wfrun/lock", wd ? wd : ".");
	int fd = open(lock, O_RDONLY | O_CLOEXEC);
	free(lock);
	if (fd < 0)
		return false;
	bool held = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	char buf[32];
	ssize_t n = held ? pread(fd, buf, sizeof(buf) - 1, 0) : 0;
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return strtol(buf, NULL, 10) == pid;
}

/* Read wd's record id into *r: 0, or -1 if it has no readable run.json. */
static int
read_record(const char *wd, const char *id, struct history_rec *r)
{
	char *path = xasprintf("%s/%s/%s/run.json", wd ? wd : ".",
			       HISTORY_DIR, id);
	struct strbuf b = STRBUF_INIT;
	struct errbuf err;
	strbuf_addch(&b, '\n');
	int got = read_bounded(path, READ_MAX_INPUT, &b, &err);
	free(path);
	if (got < 0) {
		strbuf_release(&b);
		return -1;
	}
	memset(r, 0, sizeof(*r));
	snprintf(r->id, sizeof(r->id), "%s", id);
	r->start = num_of(b.buf, "start");
	r->end = num_of(b.buf, "end");
	r->exit = (int)num_of(b.buf, "exit");
	r->pid = (long)num_of(b.buf, "pid");
	const char *s = value_of(b.buf, "status");
	if (s && *s == '"')
		snprintf(r->status, sizeof(r->status), "%.*s",
			 (int)strcspn(s + 1, "\""), s + 1);
	if (!strcmp(r->status, "running") && !live(wd, r->pid))
		snprintf(r->status, sizeof(r->status), "killed");
	r->c.run = count_of(b.buf, "run");
	r->c.up_to_date = count_of(b.buf, "up_to_date");
	r->c.failed = count_of(b.buf, "failed");
	r->c.cancelled = count_of(b.buf, "cancelled");
	r->c.not_run = count_of(b.buf, "not_run");
	r->c.left_out = count_of(b.buf, "left_out");
	strbuf_release(&b);
	return 0;
}

static int
cmp_rec(const void *a, const void *b)
{
	return strcmp(((const struct history_rec *)a)->id,
		      ((const struct history_rec *)b)->id);
}

long
history_list(const char *wd, struct history_rec **recs, struct errbuf *err)
{
	char *dir = xasprintf("%s/%s", wd ? wd : ".", HISTORY_DIR);
	DIR *d = opendir(dir);
	*recs = NULL;
	if (!d) {
		long r = errno == ENOENT ? 0
			 : errprintf(err, "cannot read %s: %s", dir,
				     strerror(errno));
		free(dir);
		return r;
	}
	free(dir);
	size_t n = 0, alloc = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			*recs = xrealloc(*recs, alloc * sizeof(**recs));
		}
		if (read_record(wd, e->d_name, &(*recs)[n]) == 0)
			n++;
	}
	closedir(d);
	if (!n) {
		free(*recs);
		*recs = NULL;
	}
	if (n)
		qsort(*recs, n, sizeof(**recs), cmp_rec);
	return (long)n;
}

long
history_prune(const char *wd, size_t keep, struct errbuf *err)
{
	struct history_rec *recs;
	long n = history_list(wd, &recs, err), removed = 0;
	if (n <= 0)
		return n;
	long real = -1;
	for (long i = n - 1; i >= 0 && real < 0; i--)
		if (strcmp(recs[i].status, NOTHING))
			real = i;
	for (long i = 0; i < n - (long)keep; i++) {
		if (i == real || !strcmp(recs[i].status, "running"))
			continue;
		char *dir = xasprintf("%s/%s/%s", wd ? wd : ".", HISTORY_DIR,
				      recs[i].id);
		undo_rmtree(dir);
		free(dir);
		removed++;
	}
	free(recs);
	return removed;
}

char *
history_run_dir(const char *wd, const char *id)
{
	if (!*id || strchr(id, '/') || id[0] == '.')
		return NULL;
	char *dir = xasprintf("%s/%s/%s", wd ? wd : ".", HISTORY_DIR, id);
	char *json = xasprintf("%s/run.json", dir);
	bool there = access(json, F_OK) == 0;
	free(json);
	if (there)
		return dir;
	free(dir);
	return NULL;
}
