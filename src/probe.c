/*
 * probe: sequential, fsync'd, O_DIRECT writes to unnamed files; see probe.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "probe.h"

#define BLOCK (1L << 20)
/* O_DIRECT wants buffers aligned to the logical block size; a page is a
 * multiple of every size Linux supports. */
#define ALIGN 4096

struct writer {
	int fd;
	long blocks;
	unsigned char *buf;
	pthread_barrier_t *go;
	volatile sig_atomic_t *stop;
	bool direct;
	/* the first error, read by the main thread after join */
	int err;
	const char *what;
};

int
probe_check_dir(const struct probe_opts *o, struct errbuf *err)
{
	struct stat st;
	if (stat(o->dir, &st) < 0)
		return errprintf(err, "%s: %s; give an existing directory on the "
				 "storage to measure", o->dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return errprintf(err, "%s is not a directory; give a directory on "
				 "the storage to measure", o->dir);
	if (access(o->dir, W_OK | X_OK) < 0)
		return errprintf(err, "%s is not a writable directory (%s); give "
				 "one this user can write in", o->dir,
				 strerror(errno));
	struct statvfs vfs;
	if (statvfs(o->dir, &vfs) == 0) {
		unsigned long long avail =
			(unsigned long long)vfs.f_bavail * vfs.f_frsize;
		unsigned long long need = (unsigned long long)o->size_mb * BLOCK;
		if (avail < need)
			return errprintf(err, "%s has %llu MB free but the probe "
					 "writes %ld MB; give a smaller --size",
					 o->dir, avail / BLOCK, o->size_mb);
	}
	return 0;
}

/*
 * A file in dir that has no name, so nothing can be left behind.  *direct
 * is cleared when the filesystem refuses O_DIRECT.
 */
static int
open_unnamed(const char *dir, bool *direct, struct errbuf *err)
{
	int fd;
	/* The tests set WFRUN_PROBE_NAMED to take the path that filesystems
	 * without O_TMPFILE (vfat, some network ones) take. */
	if (!getenv("WFRUN_PROBE_NAMED")) {
		fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC | O_DIRECT, 0600);
		if (fd >= 0) {
			*direct = true;
			return fd;
		}
		fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
		if (fd >= 0) {
			*direct = false;
			return fd;
		}
		if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
			return errprintf(err, "cannot create a file in %s: %s",
					 dir, strerror(errno));
	}
	/* No O_TMPFILE here: a named file, unlinked before any signal that
	 * ends the process can be taken. */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	char *path = xasprintf("%s/.wfrun-probe.XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	int e = errno;
	if (fd >= 0 && unlink(path) < 0) {
		e = errno;
		close(fd);
		fd = -1;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (fd < 0) {
		errprintf(err, "cannot create a file in %s: %s", dir, strerror(e));
		free(path);
		return -1;
	}
	free(path);
	int fl = fcntl(fd, F_GETFL);
	*direct = fl >= 0 && fcntl(fd, F_SETFL, fl | O_DIRECT) == 0;
	return fd;
}

/* Write all of buf, retrying short writes.  0 or -1 with errno. */
static int
write_block(int fd, const unsigned char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

static void *
writer_main(void *arg)
{
	struct writer *w = arg;
	pthread_barrier_wait(w->go);
	for (long b = 0; b < w->blocks; b++) {
		if (w->stop && *w->stop)
			return NULL;
		/* Each block differs, so no layer can store it as a copy. */
		memcpy(w->buf, &b, sizeof(b));
		if (write_block(w->fd, w->buf, BLOCK) < 0) {
			/* Some filesystems take the flag but not the I/O:
			 * go on buffered (fsync still bounds the time). */
			int fl;
			if (errno == EINVAL && w->direct && b == 0 &&
			    (fl = fcntl(w->fd, F_GETFL)) >= 0 &&
			    fcntl(w->fd, F_SETFL, fl & ~O_DIRECT) == 0) {
				w->direct = false;
				b--;
				continue;
			}
			w->err = errno;
			w->what = "write";
			return NULL;
		}
	}
	if (fsync(w->fd) < 0) {
		w->err = errno;
		w->what = "fsync";
	}
	return NULL;
}

/* xorshift64: fresh-looking data that no layer compresses. */
static void
fill(unsigned char *buf, size_t n, uint64_t seed)
{
	uint64_t x = seed | 1;
	for (size_t i = 0; i + 8 <= n; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(buf + i, &x, 8);
	}
}

int
probe_run(const struct probe_opts *o, struct probe_result *r,
	  struct errbuf *err)
{
	memset(r, 0, sizeof(*r));
	if (o->writers < 1 || o->writers > PROBE_MAX_WRITERS ||
	    o->size_mb < o->writers)
		BUG("probe_run: %d writers, %ld MB", o->writers, o->size_mb);
	if (probe_check_dir(o, err) < 0)
		return -1;
	int n = o->writers;
	long per = o->size_mb / n;
	struct writer *w = xcalloc((size_t)n, sizeof(*w));
	pthread_barrier_t go;
	pthread_barrier_init(&go, NULL, (unsigned)n + 1);
	int rc = 0, opened = 0, started = 0;
	for (int i = 0; i < n; i++) {
		w[i].fd = open_unnamed(o->dir, &w[i].direct, err);
		if (w[i].fd < 0) {
			rc = -1;
			break;
		}
		opened++;
		void *p;
		if (posix_memalign(&p, ALIGN, BLOCK))
			die("out of memory");
		w[i].buf = p;
		fill(w[i].buf, BLOCK, 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1));
		w[i].blocks = per;
		w[i].go = &go;
		w[i].stop = o->stop;
	}
	pthread_t *tid = xcalloc((size_t)n, sizeof(*tid));
	if (!rc) {
		for (int i = 0; i < n; i++) {
			int e = pthread_create(&tid[i], NULL, writer_main, &w[i]);
			if (e) {
				/* The barrier would never open: wait for no one. */
				die("cannot start a writer thread: %s", strerror(e));
			}
			started++;
		}
		pthread_barrier_wait(&go);
		double t0 = clock_mono();
		for (int i = 0; i < started; i++)
			pthread_join(tid[i], NULL);
		r->secs = clock_mono() - t0;
		r->direct = true;
		for (int i = 0; i < n; i++) {
			if (!w[i].direct)
				r->direct = false;
			if (w[i].err && !rc) {
				if (w[i].err == ENOSPC || w[i].err == EDQUOT)
					errprintf(err, "%s: %s while writing %ld MB; give "
						  "a smaller --size", o->dir,
						  strerror(w[i].err), o->size_mb);
				else
					errprintf(err, "%s: %s failed: %s", o->dir,
						  w[i].what, strerror(w[i].err));
				rc = -1;
			}
		}
		r->stopped = o->stop && *o->stop;
		r->written_mb = per * n;
		if (r->secs > 0)
			r->mbps = (double)r->written_mb / r->secs;
	}
	for (int i = 0; i < opened; i++) {
		close(w[i].fd);
		free(w[i].buf);
	}
	pthread_barrier_destroy(&go);
	free(tid);
	free(w);
	return rc;
}
