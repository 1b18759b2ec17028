/*
 * wfrun-worker: the worker agent.  The master starts it over one SSH exec
 * channel (or as a child process, directly or through srun) and talks to
 * it with the protocol of src/proto.h on stdin and stdout; it runs many
 * tasks at once (each in its own process group, with its timing, CPU
 * time, max RSS and bytes measured here, where it ran) so a host needs
 * one SSH session however many tasks it runs.  It uses libc only (it is
 * linked statically so the master can upload it to any Linux host of the
 * same architecture).  When its stdin ends — the master is gone — it
 * kills its tasks and exits.  Every process a task starts ends with it
 * (contain.h: a cgroup per task where the host offers one).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "contain.h"
#include "exec.h"
#include "loop.h"
#include "path.h"
#include "proto.h"
#include "spawn.h"
#include "util.h"
#include "wirepath.h"

#define KILL_GRACE 5.0

/* A staged task (SRUN) while it runs: where its outputs go after. */
struct staged {
	uint32_t task;
	char *sandbox, *outdir;
	struct strvec outs;
	bool drop; /* STOP: the sandbox goes whatever the task's status */
};

/* A task's deadline (DEADLINE), on the monotonic clock. */
struct deadline {
	uint32_t task;
	double when;
};

struct agent {
	VEC(struct staged) staged;
	VEC(struct deadline) dls;
	struct loop_timer dl_timer;     /* the earliest of dls */
	struct loop loop;
	struct exec *ex;
	struct proto_decoder dec;
	struct strbuf out;
	struct loop_timer kill_timer;
	struct loop_timer live_timer;   /* the master's silence limit */
	long long log_max;              /* LOGMAX for the next RUN/SRUN */
	bool exiting;
	bool input_open;
};

/* The master's silence limit, from its PING (0: none yet), and whether
 * it has passed: the master is then gone, as when stdin ends. */
static double master_limit;
static bool master_gone;
/* When the agent last wrote a line, and when the master's silence
 * limit is next due (clock_mono). */
static double last_said, live_due;

static void
send_line(struct strbuf *line)
{
	if (master_gone) {
		strbuf_reset(line);
		return;
	}
	proto_end(line);
	const char *p = line->buf;
	size_t n = line->len;
	while (n) {
		ssize_t w = write(1, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				/* stdout is the channel: wait for room, not
				 * longer than the master's silence limit */
				fd_set fs;
				FD_ZERO(&fs);
				FD_SET(1, &fs);
				struct timeval tv = { (time_t)master_limit,
						      0 };
				if (select(2, NULL, &fs, NULL,
					   master_limit > 0 ? &tv : NULL) == 0) {
					fprintf(stderr, "wfrun-worker: the master "
						"took nothing for %g s: it is "
						"gone\n", master_limit);
					master_gone = true;
					break;
				}
				continue;
			}
			/* The master is gone; the tasks die with stdin's end. */
			return;
		}
		p += w;
		n -= (size_t)w;
	}
	strbuf_reset(line);
	last_said = clock_mono();
}

/* Work that holds the loop for long (staging, listing or removing
 * 100,000 files: tens of seconds on a loaded host) cannot answer PINGs;
 * it calls this often, and every second (a quarter of the master's
 * silence limit if that is shorter) it says PONG unasked, so that the
 * master does not take a busy agent for a lost one. */
static void
still_here(void)
{
	static struct strbuf l = STRBUF_INIT;
	double every = master_limit > 0 && master_limit < 4 ? master_limit / 4
							       : 1;
	if (clock_mono() - last_said < every)
		return;
	proto_field(&l, "PONG", 1);
	send_line(&l);
}

static int
rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	still_here();
	return flag == FTW_DP ? rmdir(p) : unlink(p);
}

/* rm -rf p; never follows a symbolic link out of it. */
static void
remove_tree(const char *p)
{
	nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * The agent removes, moves and makes nothing outside its sandboxes and
 * store: the paths of an SRUN under them are normal relative ones
 * (checked before anything is done), and walked one component at a time
 * with O_NOFOLLOW, so a symbolic link a task made (or an output that is
 * one) never leads an action out.
 */

/* The directory base/rel (rel normal; "" or "." base itself), opened
 * without following a link below base; made when create.  -1: errno. */
static int
open_under(const char *base, const char *rel, bool create)
{
	if (create)
		mkdir_p(base, 0777);
	int fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!strcmp(rel, "."))
		rel = "";
	while (fd >= 0 && *rel) {
		const char *e = strchrnul(rel, '/');
		char *name = xstrndup(rel, (size_t)(e - rel));
		int sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					      O_CLOEXEC);
		if (sub < 0 && errno == ENOENT && create &&
		    (!mkdirat(fd, name, 0777) || errno == EEXIST))
			sub = openat(fd, name, O_RDONLY | O_DIRECTORY |
						       O_NOFOLLOW | O_CLOEXEC);
		int saved = errno;
		free(name);
		close(fd);
		errno = saved;
		fd = sub;
		rel = *e ? e + 1 : e;
	}
	return fd;
}

/* rm -rf of name in directory dir; never follows a symbolic link. */
static void
remove_at(int dir, const char *name)
{
	int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					   O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		/* not a directory (a file, a link): unlinked itself */
		if (fd < 0)
			unlinkat(dir, name, 0);
		else
			close(fd);
		return;
	}
	struct dirent *de;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			remove_at(dirfd(d), de->d_name);
	closedir(d);
	unlinkat(dir, name, AT_REMOVEDIR);
}

/* Move output rel from the sandbox to outdir (whatever was there at
 * rel before removed); its kind 'f', 'd' or '-' (not there or not
 * moved). */
static char
move_out(const struct staged *s, const char *rel, struct stat *st)
{
	char *dir = path_dirname(rel);
	const char *leaf = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
	char kind = '-';
	int from = open_under(s->sandbox, dir, false), to = -1;
	if (from >= 0 && !fstatat(from, leaf, st, AT_SYMLINK_NOFOLLOW)) {
		to = open_under(s->outdir, dir, true);
		if (to >= 0) {
			remove_at(to, leaf); /* a run of the task before */
			if (!renameat(from, leaf, to, leaf))
				kind = S_ISDIR(st->st_mode) ? 'd' : 'f';
		}
		if (kind == '-')
			fprintf(stderr, "wfrun-worker: cannot move %s from %s "
				"to %s: %s\n", rel, s->sandbox, s->outdir,
				strerror(errno));
	}
	if (from >= 0)
		close(from);
	if (to >= 0)
		close(to);
	free(dir);
	return kind;
}

static struct strbuf *list_files_into, *list_mtimes_into;
static const char *list_files_base;
static size_t list_files_n;

/* A file's mtime in ns, as a DONE field (and as HAVE compares it),
 * with its TAB (l may start empty). */
static void
add_mtime(struct strbuf *l, const struct stat *st)
{
	char v[32];
	snprintf(v, sizeof(v), "%lld", (long long)st->st_mtim.tv_sec *
					       1000000000LL + st->st_mtim.tv_nsec);
	proto_field(l, v, 0);
}

static int
list_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)f;
	still_here();
	bool dir = flag == FTW_D;
	/* a symbolic link is listed (its size: its target's length), never
	 * followed: the master brings it back as a link */
	if (!dir && flag != FTW_SL && (flag != FTW_F || !S_ISREG(st->st_mode)))
		return 0;
	/* a directory is listed with size -1, so an empty one is known */
	char size[32];
	snprintf(size, sizeof(size), "%lld", dir ? -1LL : (long long)st->st_size);
	/* proto_field, not proto_fieldf: the buffer starts empty and every
	 * field here needs its TAB */
	proto_field(list_files_into, p + strlen(list_files_base) + 1, 0);
	proto_field(list_files_into, size, 0);
	add_mtime(list_mtimes_into, st);
	list_files_n++;
	return 0;
}

/* After a staged task: move its outputs into the store, list them, and
 * append "stage_out_s nout KIND... nfile (PATH SIZE)... MTIME_NS..." to
 * l. */
static void
finish_staged(struct staged *s, bool ok, struct strbuf *l)
{
	double t0 = clock_mono();
	struct strbuf kinds = STRBUF_INIT, files = STRBUF_INIT;
	struct strbuf dst = STRBUF_INIT, mtimes = STRBUF_INIT;
	size_t nfiles = 0;
	for (size_t i = 0; i < s->outs.n; i++) {
		struct stat st;
		strbuf_reset(&dst);
		strbuf_addf(&dst, "%s/%s", s->outdir, s->outs.v[i]);
		const char *out = s->outs.v[i];
		char kind = !ok ? '-' : out[0] != '/' ? move_out(s, out, &st)
			    : lstat(out, &st) ? '-'
			    : S_ISDIR(st.st_mode) ? 'D' : 'F';
		if (kind == 'D' || kind == 'F') {
			/* not in the store: no file of it listed */
			proto_field(&kinds, kind == 'D' ? "d" : "f", 0);
			continue;
		}
		char k[2] = { kind, '\0' }, size[32];
		proto_field(&kinds, k, 0);
		if (kind == 'f') {
			snprintf(size, sizeof(size), "%lld", (long long)st.st_size);
			proto_field(&files, s->outs.v[i], 0);
			proto_field(&files, size, 0);
			add_mtime(&mtimes, &st);
			nfiles++;
		} else if (kind == 'd') {
			/* nftw gives full paths: list_one strips outdir/ */
			list_files_into = &files;
			list_mtimes_into = &mtimes;
			list_files_base = s->outdir;
			list_files_n = 0;
			nftw(dst.buf, list_one, 16, FTW_PHYS);
			nfiles += list_files_n;
		}
	}
	if (ok || s->drop)
		remove_tree(s->sandbox);
	proto_fieldf(l, "%.6f", clock_mono() - t0);
	proto_fieldf(l, "%zu", s->outs.n);
	strbuf_add(l, kinds.buf, kinds.len);
	proto_fieldf(l, "%zu", nfiles);
	strbuf_add(l, files.buf, files.len);
	strbuf_add(l, mtimes.buf, mtimes.len);
	strbuf_release(&kinds);
	strbuf_release(&files);
	strbuf_release(&mtimes);
	strbuf_release(&dst);
}

static void
staged_free(struct staged *s)
{
	free(s->sandbox);
	free(s->outdir);
	for (size_t i = 0; i < s->outs.n; i++)
		free(s->outs.v[i]);
	VEC_FREE(s->outs);
}

static void dl_fired(void *arg);

/* Arm the timer for the earliest deadline, dropping task's (if not
 * UINT32_MAX: it ended) and those past (their tasks killed). */
static void
dl_update(struct agent *a, uint32_t task)
{
	double now = clock_mono(), next = 0;
	size_t k = 0;
	for (size_t i = 0; i < a->dls.n; i++) {
		struct deadline d = a->dls.v[i];
		if (d.task == task)
			continue;
		if (d.when <= now) {
			fprintf(stderr, "wfrun-worker: task %u past its "
				"deadline: killed\n", d.task);
			a->ex->ops->signal_one(a->ex, d.task, SIGKILL);
			continue;
		}
		if (!next || d.when < next)
			next = d.when;
		a->dls.v[k++] = d;
	}
	a->dls.n = k;
	if (next)
		loop_timer_arm(&a->loop, &a->dl_timer, next - now, dl_fired, a);
	else
		loop_timer_cancel(&a->loop, &a->dl_timer);
}

static void
dl_fired(void *arg)
{
	dl_update(arg, UINT32_MAX);
}

static void
on_done(const struct exec_result *r, void *arg)
{
	struct agent *a = arg;
	dl_update(a, r->task);
	struct strbuf *l = &a->out;
	struct staged *st = NULL;
	for (size_t i = 0; i < a->staged.n; i++)
		if (a->staged.v[i].task == r->task)
			st = &a->staged.v[i];
	strbuf_reset(l);
	if (!r->started) {
		proto_field(l, "FAILED", 1);
		proto_fieldf(l, "%u", r->task);
		proto_field(l, r->error, 0);
	} else {
		proto_field(l, "DONE", 1);
		proto_fieldf(l, "%u", r->task);
		proto_fieldf(l, "%d", r->wstatus);
		proto_fieldf(l, "%.6f", r->start);
		proto_fieldf(l, "%.6f", r->end);
		proto_fieldf(l, "%.6f", r->utime);
		proto_fieldf(l, "%.6f", r->stime);
		/* (0: not known, as no process has: the protocol takes
		 * no negative) */
		proto_fieldf(l, "%ld", r->maxrss_kb > 0 ? r->maxrss_kb : 0);
		proto_fieldf(l, "%lld", r->read_bytes);
		proto_fieldf(l, "%lld", r->write_bytes);
		proto_fieldf(l, "%d", r->out_empty);
		proto_fieldf(l, "%d", r->err_empty);
		if (st)
			finish_staged(st, WIFEXITED(r->wstatus) &&
					      !WEXITSTATUS(r->wstatus), l);
	}
	send_line(l);
	if (st) {
		staged_free(st);
		*st = a->staged.v[--a->staged.n];
	}
}

/* The answer to WRITTEN (exec_local reads /proc). */
static void
on_written(struct exec *e, uint32_t task, double when, long long bytes,
	   void *arg)
{
	(void)e;
	struct agent *a = arg;
	struct strbuf *l = &a->out;
	strbuf_reset(l);
	proto_field(l, "WRITTEN", 1);
	proto_fieldf(l, "%u", task);
	proto_fieldf(l, "%.6f", when);
	proto_fieldf(l, "%lld", bytes);
	send_line(l);
}

static void
kill_now(void *arg)
{
	struct agent *a = arg;
	a->ex->ops->signal_all(a->ex, SIGKILL);
}

static void
begin_exit(struct agent *a)
{
	if (a->exiting)
		return;
	a->exiting = true;
	if (a->ex->running) {
		a->ex->ops->signal_all(a->ex, SIGTERM);
		loop_timer_arm(&a->loop, &a->kill_timer, KILL_GRACE, kill_now, a);
	}
}

/* Fail task id before it starts. */
static void
refuse(struct agent *a, uint32_t id, const char *fmt, ...) PRINTF(3, 4);
static void
refuse(struct agent *a, uint32_t id, const char *fmt, ...)
{
	struct exec_result r;
	memset(&r, 0, sizeof(r));
	r.task = id;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r.error, sizeof(r.error), fmt, ap);
	va_end(ap);
	on_done(&r, a);
}

/* The common tail of RUN and SRUN from field k: out err nenv ENV... exe
 * ARGV...; cwd NULL: the agent's. */
static void
run_task(struct agent *a, struct proto_msg *m, uint32_t id, size_t k,
	 const char *cwd)
{
	long nenv;
	if (m->n < k + 5 || parse_long(m->f[k + 2], &nenv) < 0 || nenv < 0 ||
	    (size_t)nenv + k + 4 > m->n) {
		fprintf(stderr, "wfrun-worker: malformed %s message\n", m->f[0]);
		return;
	}
	struct exec_job job;
	memset(&job, 0, sizeof(job));
	job.task = id;
	job.cwd = cwd;
	job.out_path = m->f[k];
	job.err_path = m->f[k + 1];
	job.log_max = a->log_max;
	a->log_max = 0;
	char **envp = nenv ? spawn_env(m->f + k + 3, (size_t)nenv) : NULL;
	job.envp = envp;
	const char *exe = m->f[k + 3 + nenv];
	char *found = NULL;
	if (!strchr(exe, '/'))
		exe = found = path_search(exe);
	size_t argc = m->n - k - 4 - (size_t)nenv;
	char **argv = xcalloc(argc + 1, sizeof(char *));
	for (size_t i = 0; i < argc; i++)
		argv[i] = m->f[k + 4 + nenv + i];
	job.argv = argv;
	if (!exe) {
		refuse(a, id, "%s: command not found", m->f[k + 3 + nenv]);
	} else {
		job.exe = exe;
		a->ex->ops->submit(a->ex, &job);
	}
	free(found);
	free(argv);
	free(envp);
}

/* Copy src to dst (a staged file the task will also write). */
static int
copy_file(const char *src, const char *dst)
{
	int in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	struct stat st;
	int out = fstat(in, &st) ? -1
				 : open(dst, O_WRONLY | O_CREAT | O_TRUNC |
						     O_CLOEXEC,
					st.st_mode & 07777);
	int rc = out < 0 ? -1 : 0;
	char buf[1 << 16];
	ssize_t n;
	while (!rc && (n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 || write(out, buf, (size_t)n) != n)
			rc = -1;
	}
	close(in);
	if (out >= 0 && close(out))
		rc = -1;
	return rc;
}

/* Every path of an SRUN that is under its sandbox (each DST, DIR and
 * OUT, from field 5 for nlink links) is a normal relative one ("." the
 * sandbox, for a DIR or an OUT): NULL, or the first that is not. */
static const char *
outside_path(struct proto_msg *m, size_t nlink)
{
	struct errbuf err;
	size_t k = 5;
	for (size_t i = 0; i < nlink; i++, k += 3)
		if (wirepath_check(m->f[k + 1], strlen(m->f[k + 1]), &err) < 0)
			return m->f[k + 1];
	for (int list = 0; list < 2; list++) {
		long n;
		if (k >= m->n || parse_long(m->f[k], &n) < 0 || n < 0 ||
		    k + 1 + (size_t)n > m->n)
			return NULL; /* malformed: said later */
		for (size_t i = k + 1; i < k + 1 + (size_t)n; i++) {
			/* an absolute OUT is only looked at, where it is */
			const char *q = m->f[i] + (list && m->f[i][0] == '/');
			if (strcmp(q, ".") && wirepath_check(q, strlen(q), &err) < 0)
				return m->f[i];
		}
		k += 1 + (size_t)n;
	}
	return NULL;
}

/* SRUN id sandbox outdir nlink (SRC DST COPY)... nmk DIR... nout OUT...
 * then RUN's tail from out_log. */
static void
run_staged(struct agent *a, struct proto_msg *m)
{
	long id, n;
	size_t k = 4;
	if (m->n < 5 || parse_long(m->f[1], &id) < 0 ||
	    parse_long(m->f[4], &n) < 0 || n < 0 ||
	    (size_t)n * 3 + 6 > m->n) {
		fprintf(stderr, "wfrun-worker: malformed SRUN message\n");
		return;
	}
	const char *sandbox = m->f[2];
	const char *bad = outside_path(m, (size_t)n);
	if (bad) {
		refuse(a, (uint32_t)id, "cannot stage '%s': a path outside the "
		       "sandbox %s (a worker whose workdir is not shared takes "
		       "only paths under the workdir)", bad, sandbox);
		return;
	}
	struct strbuf p = STRBUF_INIT;
	remove_tree(sandbox); /* an attempt of the same task before */
	if (mkdir_p(sandbox, 0777) < 0) {
		refuse(a, (uint32_t)id, "cannot create the sandbox %s: %s",
		       sandbox, strerror(errno));
		return;
	}
	size_t nlink = (size_t)n;
	k = 5;
	char *made = NULL; /* the directory the last link went into */
	for (size_t i = 0; i < nlink; i++, k += 3) {
		const char *src = m->f[k], *dst = m->f[k + 1];
		still_here();
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", sandbox, dst);
		char *dir = path_dirname(p.buf);
		if (!made || strcmp(dir, made)) {
			mkdir_p(dir, 0777);
			free(made);
			made = dir;
		} else {
			free(dir);
		}
		int r = strcmp(m->f[k + 2], "1") ? link(src, p.buf)
						 : copy_file(src, p.buf);
		/* a store on another file system, or one without links */
		if (r < 0 && (errno == EXDEV || errno == EPERM ||
			      errno == EMLINK))
			r = copy_file(src, p.buf);
		if (r < 0 && errno != EEXIST) {
			refuse(a, (uint32_t)id, "cannot stage %s into the "
			       "sandbox %s: %s", src, sandbox, strerror(errno));
			strbuf_release(&p);
			free(made);
			return;
		}
	}
	free(made);
	if (parse_long(m->f[k], &n) < 0 || n < 0 || k + 1 + (size_t)n > m->n)
		goto bad;
	for (long i = 0; i < n; i++) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", sandbox, m->f[k + 1 + i]);
		mkdir_p(p.buf, 0777);
	}
	k += 1 + (size_t)n;
	if (k >= m->n || parse_long(m->f[k], &n) < 0 || n < 0 ||
	    k + 1 + (size_t)n > m->n)
		goto bad;
	struct staged st = { (uint32_t)id, xstrdup(sandbox), xstrdup(m->f[3]),
			     { 0 }, false };
	for (long i = 0; i < n; i++)
		VEC_PUSH(st.outs, xstrdup(m->f[k + 1 + i]));
	k += 1 + (size_t)n;
	/* the logs live outside the sandbox, which goes after a success */
	for (int i = 0; i < 2 && k + i < m->n; i++) {
		char *dir = path_dirname(m->f[k + i]);
		mkdir_p(dir, 0777);
		free(dir);
	}
	VEC_PUSH(a->staged, st);
	strbuf_release(&p);
	run_task(a, m, (uint32_t)id, k, sandbox);
	return;
bad:
	strbuf_release(&p);
	fprintf(stderr, "wfrun-worker: malformed SRUN message\n");
}

/* A directory the master may ask about or prune: absolute, normal, and
 * a store (with a /.wfrun/data/ component). */
static bool
store_dir(const char *dir)
{
	struct errbuf err;
	return dir[0] == '/' && strstr(dir, "/.wfrun/data/") &&
	       !wirepath_check(dir + 1, strlen(dir + 1), &err);
}

/* Whether dir/rel has the size (-1: is a directory) and mtime given;
 * why not in why. */
static bool
have_one(const char *dir, const char *rel, const char *size,
	 const char *mtime, struct strbuf *why)
{
	struct errbuf err;
	char *e1, *e2;
	long long sz = strtoll(size, &e1, 10), mt = strtoll(mtime, &e2, 10);
	if (*e1 || *e2 || !*size || !*mtime ||
	    wirepath_check(rel, strlen(rel), &err) < 0) {
		strbuf_addf(why, "malformed HAVE entry '%s'", rel);
		return false;
	}
	char *p = xasprintf("%s/%s", dir, rel);
	struct stat st;
	bool ok = !lstat(p, &st);
	if (!ok)
		strbuf_addf(why, "%s: %s", p, strerror(errno));
	else if (sz < 0 ? !S_ISDIR(st.st_mode)
			: S_ISDIR(st.st_mode) || st.st_size != sz ||
				  (long long)st.st_mtim.tv_sec * 1000000000LL +
						  st.st_mtim.tv_nsec != mt)
		strbuf_addf(why, "%s changed", p);
	ok = ok && !why->len;
	free(p);
	return ok;
}

/* HAVE id dir n (PATH SIZE MTIME_NS)...: answer HAS id 1, or 0 why. */
static void
on_have(struct agent *a, struct proto_msg *m)
{
	long id, n;
	struct strbuf why = STRBUF_INIT;
	if (m->n < 4 || parse_long(m->f[1], &id) < 0 ||
	    parse_long(m->f[3], &n) < 0 || n < 0 ||
	    (size_t)n > (m->n - 4) / 3) {
		fprintf(stderr, "wfrun-worker: malformed HAVE message\n");
		return;
	}
	if (!store_dir(m->f[2]))
		strbuf_addf(&why, "'%s' is not a store", m->f[2]);
	for (size_t i = 0; i < (size_t)n && !why.len; i++) {
		still_here();
		have_one(m->f[2], m->f[4 + 3 * i], m->f[5 + 3 * i],
			 m->f[6 + 3 * i], &why);
	}
	proto_field(&a->out, "HAS", 1);
	proto_fieldf(&a->out, "%ld", id);
	proto_field(&a->out, why.len ? "0" : "1", 0);
	if (why.len)
		proto_field(&a->out, why.buf, 0);
	send_line(&a->out);
	strbuf_release(&why);
}

/* PRUNE workdir RUN...: the stores and sandboxes of those runs go. */
static void
on_prune(struct proto_msg *m)
{
	struct errbuf err;
	const char *wd = m->n >= 2 ? m->f[1] : "";
	if (wd[0] != '/' || (wd[1] && wirepath_check(wd + 1, strlen(wd + 1),
						    &err) < 0)) {
		fprintf(stderr, "wfrun-worker: PRUNE of a workdir that is not "
			"absolute and normal\n");
		return;
	}
	for (size_t i = 2; i < m->n; i++) {
		const char *run = m->f[i];
		if (strchr(run, '/') || wirepath_check(run, strlen(run), &err))
			continue;
		for (int k = 0; k < 2; k++) {
			char *p = xasprintf("%s/.wfrun/%s/%s", wd,
					    k ? "sandbox" : "data", run);
			remove_tree(p);
			free(p);
		}
	}
}

static void master_silent(void *arg);

/* The master's silence limit from now. */
static void
arm_live(struct agent *a, double secs)
{
	live_due = clock_mono() + secs;
	loop_timer_arm(&a->loop, &a->live_timer, secs, master_silent, a);
}

static void
master_silent(void *arg)
{
	struct agent *a = arg;
	/* Late: the loop was held (staging 100,000 files), and what the
	 * master said meanwhile is still unread: read it first. */
	if (clock_mono() - live_due > 0.5) {
		arm_live(a, 0.05);
		return;
	}
	fprintf(stderr, "wfrun-worker: no word from the master for %g s: "
		"stopping\n", master_limit);
	master_gone = true;
	begin_exit(a);
}

/* PING limit: answer, and from now on a master silent that long is
 * gone. */
static void
on_ping(struct agent *a, struct proto_msg *m)
{
	char *end;
	double v = m->n >= 2 ? strtod(m->f[1], &end) : 0;
	if (m->n >= 2 && !*end && v > 0 && v < 1e6) {
		master_limit = v;
		arm_live(a, v);
	}
	proto_field(&a->out, "PONG", 1);
	send_line(&a->out);
}

static void
handle(struct agent *a, struct proto_msg *m)
{
	const char *t = m->f[0];
	long v;
	long id;
	if (!strcmp(t, "RUN") && m->n >= 2 && !parse_long(m->f[1], &id)) {
		if (!a->exiting)
			run_task(a, m, (uint32_t)id, 3, *m->f[2] ? m->f[2] : NULL);
	} else if (!strcmp(t, "SRUN")) {
		if (!a->exiting)
			run_staged(a, m);
	} else if (!strcmp(t, "KILLALL") && m->n == 2 &&
		   !parse_long(m->f[1], &v)) {
		a->ex->ops->signal_all(a->ex, (int)v);
	} else if (!strcmp(t, "KILL") && m->n == 3) {
		if (!parse_long(m->f[1], &id) && !parse_long(m->f[2], &v))
			a->ex->ops->signal_one(a->ex, (uint32_t)id, (int)v);
	} else if (!strcmp(t, "STOP") && m->n == 2) {
		if (parse_long(m->f[1], &id))
			return;
		for (size_t i = 0; i < a->staged.n; i++)
			if (a->staged.v[i].task == (uint32_t)id)
				a->staged.v[i].drop = true;
		a->ex->ops->signal_one(a->ex, (uint32_t)id, SIGKILL);
	} else if (!strcmp(t, "WRITTEN") && m->n == 2) {
		if (!parse_long(m->f[1], &id))
			a->ex->ops->ask_written(a->ex, (uint32_t)id);
	} else if (!strcmp(t, "EXIT")) {
		begin_exit(a);
	} else if (!strcmp(t, "HAVE")) {
		on_have(a, m);
	} else if (!strcmp(t, "PRUNE")) {
		on_prune(m);
	} else if (!strcmp(t, "PING")) {
		on_ping(a, m);
	} else if (!strcmp(t, "LOGMAX") && m->n == 3 &&
		   !parse_long(m->f[1], &id)) {
		char *end;
		long long max = strtoll(m->f[2], &end, 10);
		a->log_max = *end || max < 0 ? 0 : max;
	} else if (!strcmp(t, "DEADLINE") && m->n == 3 &&
		   !parse_long(m->f[1], &id)) {
		char *end;
		double secs = strtod(m->f[2], &end);
		if (*end || !(secs > 0))
			return;
		struct deadline d = { (uint32_t)id, clock_mono() + secs };
		VEC_PUSH(a->dls, d);
		dl_update(a, UINT32_MAX);
	} else {
		fprintf(stderr, "wfrun-worker: ignoring message '%s'\n", t);
	}
}

static void
on_stdin(int fd, short revents, void *arg)
{
	struct agent *a = arg;
	char buf[65536];
	ssize_t n = read(fd, buf, sizeof(buf));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		loop_unwatch_fd(&a->loop, fd);
		a->input_open = false;
		begin_exit(a);
		return;
	}
	proto_feed(&a->dec, buf, (size_t)n);
	if (master_limit > 0 && !master_gone)
		arm_live(a, master_limit);
	/* a line of MB (an SRUN of 100,000 links) takes a while to come,
	 * the master's PINGs behind it */
	still_here();
	struct proto_msg m;
	struct errbuf err;
	int r;
	while ((r = proto_next(&a->dec, &m, &err)) != 0) {
		if (r < 0)
			fprintf(stderr, "wfrun-worker: %s\n", err.msg);
		else if (m.n && *m.f[0])
			handle(a, &m);
	}
}

static void
on_signal(int signo, void *arg)
{
	struct agent *a = arg;
	if (signo == SIGCHLD) {
		a->ex->ops->on_sigchld(a->ex);
		return;
	}
	/* SIGHUP when sshd closes the session, SIGTERM, SIGINT */
	begin_exit(a);
}

int
main(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))) {
		printf("wfrun-worker %s protocol %d\n", WFRUN_VERSION,
		       PROTO_VERSION);
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "usage: wfrun-worker [--version]\n"
				"Started by wfrun over SSH; speaks the protocol "
				"of wfrun's src/proto.h on stdin/stdout.\n");
		return 2;
	}
	struct agent a;
	memset(&a, 0, sizeof(a));
	strbuf_init(&a.out);
	proto_decoder_init(&a.dec);
	if (loop_init(&a.loop, on_signal, &a) < 0) {
		fprintf(stderr, "wfrun-worker: signalfd: %s\n", strerror(errno));
		return 1;
	}
	struct errbuf err;
	if (contain_open(NULL, &err) < 0) { /* (no record: cannot fail) */
		fprintf(stderr, "wfrun-worker: %s\n", err.msg);
		return 1;
	}
	a.ex = exec_local_new(on_done, &a.loop, &a);
	a.ex->written = on_written;
	fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
	loop_watch_fd(&a.loop, 0, POLLIN, on_stdin, &a);
	a.input_open = true;

	struct utsname u;
	uname(&u);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	proto_field(&a.out, "HELLO", 1);
	proto_fieldf(&a.out, "%d", PROTO_VERSION);
	proto_field(&a.out, u.machine, 0);
	proto_fieldf(&a.out, "%ld", ncpu > 0 ? ncpu : 1);
	proto_fieldf(&a.out, "%ld", (long)getpid());
	send_line(&a.out);

	while (!a.exiting || a.ex->running) {
		loop_run_once(&a.loop);
		if (master_gone)
			begin_exit(&a);
	}
	loop_timer_cancel(&a.loop, &a.live_timer);
	loop_timer_cancel(&a.loop, &a.dl_timer);
	VEC_FREE(a.dls);

	strbuf_reset(&a.out);
	proto_field(&a.out, "BYE", 1);
	send_line(&a.out);
	a.ex->ops->release(a.ex);
	contain_close();
	for (size_t i = 0; i < a.staged.n; i++)
		staged_free(&a.staged.v[i]);
	VEC_FREE(a.staged);
	loop_release(&a.loop);
	proto_decoder_release(&a.dec);
	strbuf_release(&a.out);
	return 0;
}
