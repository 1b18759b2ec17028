#include "undo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "path.h"

#define SAVED ".wfrun/saved"
#define FAILED ".wfrun/failed"
#define ORIG ".wfrun/orig"

/* Copy the file src to dst, keeping times; a reflink where the file
 * system can.  dst must not exist, or (in_place) it is rewritten: the
 * same inode, so its other names and the links to it see the data. */
static int
copy_file(const char *src, const char *dst, const struct stat *st,
	  bool in_place)
{
	int in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	int out = in_place ? open(dst, O_WRONLY | O_TRUNC | O_CLOEXEC)
			   : open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
				  st->st_mode & 07777);
	if (out < 0) {
		int e = errno;
		close(in);
		errno = e;
		return -1;
	}
	int rc = 0;
	if (ioctl(out, FICLONE, in) < 0) {
		off_t left = st->st_size;
		bool cfr = true;
		while (left > 0) {
			ssize_t n;
			if (cfr) {
				n = copy_file_range(in, NULL, out, NULL,
						    (size_t)left, 0);
				if (n < 0 && (errno == EXDEV || errno == ENOSYS ||
					      errno == EINVAL || errno == EOPNOTSUPP)) {
					cfr = false;
					continue;
				}
			} else {
				char buf[65536];
				n = read(in, buf, sizeof(buf));
				if (n > 0) {
					ssize_t done = 0;
					while (done < n) {
						ssize_t w = write(out, buf + done,
								  (size_t)(n - done));
						if (w < 0) {
							if (errno == EINTR)
								continue;
							rc = -1;
							break;
						}
						done += w;
					}
				}
			}
			if (rc < 0)
				break;
			if (n < 0) {
				if (errno == EINTR)
					continue;
				rc = -1;
				break;
			}
			if (n == 0)
				break; /* shrank while copied */
			left -= n;
		}
	}
	struct timespec ts[2] = { st->st_atim, st->st_mtim };
	if (!rc)
		futimens(out, ts);
	int e = errno;
	close(in);
	if (close(out) < 0 && !rc) {
		rc = -1;
		e = errno;
	}
	errno = e;
	return rc;
}

/* Copy a file or tree; -1 with errno and the failing path in
 * *where.  -2 (where says which) when the INOUT datum holds a name the
 * restore would miss the data of: a symbolic link (it, or one in the
 * tree), or a file in the tree with other hard links.  The check before
 * the run refuses those it sees; this one sees those that earlier tasks
 * made since. */
static int
copy_any(struct strbuf *src, struct strbuf *dst, struct strbuf *where,
	 bool inside)
{
	struct stat st;
	if (lstat(src->buf, &st) < 0)
		goto fail;
	if (S_ISLNK(st.st_mode) ||
	    (inside && S_ISREG(st.st_mode) && st.st_nlink > 1)) {
		strbuf_reset(where);
		strbuf_adds(where, src->buf);
		return -2;
	}
	if (!S_ISDIR(st.st_mode)) {
		if (copy_file(src->buf, dst->buf, &st, false) < 0)
			goto fail;
		return 0;
	}
	if (mkdir(dst->buf, (st.st_mode & 07777) | 0700) < 0)
		goto fail;
	DIR *d = opendir(src->buf);
	if (!d)
		goto fail;
	size_t sl = src->len, dl = dst->len;
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		strbuf_addf(src, "/%s", e->d_name);
		strbuf_addf(dst, "/%s", e->d_name);
		rc = copy_any(src, dst, where, true);
		strbuf_setlen(src, sl);
		strbuf_setlen(dst, dl);
		if (rc < 0)
			break;
	}
	closedir(d);
	if (rc < 0)
		return rc;
	chmod(dst->buf, st.st_mode & 07777);
	struct timespec ts[2] = { st.st_atim, st.st_mtim };
	utimensat(AT_FDCWD, dst->buf, ts, 0);
	return 0;
fail:
	if (!where->len)
		strbuf_adds(where, src->buf);
	return -1;
}

void
undo_rmtree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		if (d) {
			struct dirent *e;
			while ((e = readdir(d))) {
				if (!strcmp(e->d_name, ".") ||
				    !strcmp(e->d_name, ".."))
					continue;
				char *sub = xasprintf("%s/%s", path, e->d_name);
				undo_rmtree(sub);
				free(sub);
			}
			closedir(d);
		}
		rmdir(path);
	} else {
		unlink(path);
	}
}

/* The manifest: key, name, id, then one "P<path>" (saved as entry n),
 * "L<path>" (a file reached through a symbolic link or with other hard
 * links: its data saved as entry n, put back by rewriting the file in
 * place) or "A<path>" (absent before the task) per INOUT datum;
 * NUL-separated. */
struct manifest {
	char *buf;
	size_t len;
	const char *key, *name, *id;
	VEC(const char *) paths; /* each starts with P, L or A */
};

static int
manifest_read(const char *dir, struct manifest *m)
{
	memset(m, 0, sizeof(*m));
	char *path = xasprintf("%s/manifest", dir);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return -1;
	struct strbuf sb = STRBUF_INIT;
	char chunk[4096];
	ssize_t n;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		strbuf_add(&sb, chunk, (size_t)n);
	close(fd);
	m->len = sb.len;
	m->buf = strbuf_detach(&sb);
	const char *fields[3];
	size_t k = 0, off = 0;
	while (off < m->len) {
		const char *s = m->buf + off;
		size_t l = strnlen(s, m->len - off);
		if (off + l == m->len)
			break; /* no terminating NUL: torn */
		if (k < 3)
			fields[k++] = s;
		else if (l >= 1 && (s[0] == 'P' || s[0] == 'L' || s[0] == 'A'))
			VEC_PUSH(m->paths, s);
		off += l + 1;
	}
	if (k < 3) {
		free(m->buf);
		VEC_FREE(m->paths);
		return -1;
	}
	m->key = fields[0];
	m->name = fields[1];
	m->id = fields[2];
	return 0;
}

static void
manifest_release(struct manifest *m)
{
	free(m->buf);
	VEC_FREE(m->paths);
}

/* Whether dir has a manifest; false only when it is known to be gone. */
static bool
has_manifest(const char *dir)
{
	char *mp = xasprintf("%s/manifest", dir);
	struct stat st;
	bool has = lstat(mp, &st) == 0 || errno != ENOENT;
	free(mp);
	return has;
}

/* Drop the saved directory dir, its manifest first: what a fault leaves
 * of it is then no copy, and undo_recover or the next undo_save removes
 * it.  When the manifest cannot be removed the directory stays whole
 * (a later run decides from the journal, as after a kill). */
static void
drop_saved(const char *dir)
{
	char *mp = xasprintf("%s/manifest", dir);
	int rc = unlink(mp);
	free(mp);
	if (rc < 0 && errno != ENOENT)
		return;
	undo_rmtree(dir);
}

bool
undo_has_inout(const struct plan *p, uint32_t t)
{
	const struct dag *g = &p->dag;
	const struct dag_task *dt = &g->tasks.v[t];
	for (uint32_t i = 0; i < dt->nacc; i++)
		if (g->acc.v[dt->acc + i].mode == (DAG_READ | DAG_WRITE))
			return true;
	return false;
}

/* Is path (lstat'd in *st) a file that other names reach: a symbolic
 * link to a regular file, or one with other hard links?  Then *st is
 * the file's own, and undo must save and put back its data, not the
 * name (a rename would leave the task's change in the file). */
static bool
linked(const char *path, struct stat *st)
{
	struct stat target;
	if (S_ISLNK(st->st_mode)) {
		if (stat(path, &target) < 0 || !S_ISREG(target.st_mode))
			return false;
		*st = target;
		return true;
	}
	return S_ISREG(st->st_mode) && st->st_nlink > 1;
}

/* Is the path an OUT of a task that is a symbolic link now?  The task's
 * write would land in the link's target (maybe out of the workdir), and
 * a failure could not put that back: the link is set aside as a datum
 * of its own before the task runs (the task makes a new file there) and
 * put back if it fails. */
static bool
out_is_link(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

/* An OUT over a workflow input (a path an earlier task reads and no
 * task made before): the user's data, which a failure must put back as
 * for INOUT. */
static bool
out_over_input(const struct dag *g, const struct dag_access *a)
{
	return a->mode == DAG_WRITE &&
	       (g->data.v[a->datum].flags & DATUM_INPUT);
}

/* An OUT (access i of its task, a) that holds what the task's latest
 * record rec (or NULL) says it made there, not a link: moved aside whole
 * before the task runs again, so that it starts from nothing (a
 * directory collection made again with fewer files kept the others: a
 * split into 3 chunks where 5 had been left 2 stale ones for the
 * gather), and put back if it fails (its last good output is not lost to
 * a failed rerun).  What is there otherwise (what a killed attempt left,
 * or an earlier task) is written over, and goes aside if the task fails,
 * as before. */
static bool
out_to_move(const struct dag *g, const struct dag_access *a, uint32_t i,
	    const struct jrec *rec)
{
	if (!rec || a->mode != DAG_WRITE || out_over_input(g, a))
		return false;
	const char *path = g->data.v[a->datum].path;
	const struct jfile *f = jrec_entry(rec, i, 'w', path);
	struct stat st;
	return f && lstat(path, &st) == 0 && !S_ISLNK(st.st_mode) &&
	       jident_matches(path, a->is_dir, &f->id);
}

/* Does undo_save set anything aside for task t: INOUT data, an OUT over
 * a workflow input, an OUT that is a symbolic link, or an OUT that holds
 * earlier data? */
static bool
saves(const struct plan *p, uint32_t t)
{
	const struct dag *g = &p->dag;
	const struct dag_task *dt = &g->tasks.v[t];
	if (undo_has_inout(p, t))
		return true;
	struct stat st;
	for (uint32_t i = 0; i < dt->nacc; i++) {
		const struct dag_access *a = &g->acc.v[dt->acc + i];
		/* (one lstat: a link, or earlier data, or an input) */
		if (out_over_input(g, a) ||
		    (a->mode == DAG_WRITE &&
		     lstat(g->data.v[a->datum].path, &st) == 0))
			return true;
	}
	return false;
}

/* The INOUT datum at path, that copy_any refused (where names what). */
static int
refuse_linked(const char *path, const char *where, struct errbuf *err)
{
	struct stat lst;
	bool sym = !lstat(where, &lst) && S_ISLNK(lst.st_mode);
	const char *what = sym ? "a symbolic link"
			       : "a file with other hard links";
	const char *miss = sym ? "what it points to"
			       : "the change under its other names";
	if (strcmp(path, where))
		return errprintf(err, "its INOUT data %s now holds '%s', %s: "
				 "restoring it after a failure would miss %s",
				 path, where, what, miss);
	return errprintf(err, "its INOUT data %s is now %s: restoring it "
			 "after a failure would miss %s", path, what, miss);
}

/* Save the datum at path (INOUT, or an OUT that is a link: out) as
 * entry *n of dir, its manifest line into man; 0, or -1 with err. */
static int
save_one(const char *path, bool out, const char *dir, unsigned *n,
	 struct strbuf *man, struct errbuf *err)
{
	struct stat st;
	if (lstat(path, &st) < 0) {
		strbuf_addf(man, "A%s", path);
		strbuf_addch(man, '\0');
		return 0;
	}
	struct strbuf src = STRBUF_INIT, dst = STRBUF_INIT, where = STRBUF_INIT;
	strbuf_adds(&src, path);
	strbuf_addf(&dst, "%s/%u", dir, (*n)++);
	int rc = 0;
	char kind = 'P';
	if (out) {
		char buf[4096];
		ssize_t k = readlink(path, buf, sizeof(buf) - 1);
		if (k >= 0)
			buf[k] = '\0';
		if (k < 0 || symlink(buf, dst.buf) < 0)
			rc = errprintf(err, "cannot set aside its OUT %s, a "
				       "symbolic link, before it runs: %s", path,
				       strerror(errno));
	} else if (linked(path, &st)) {
		kind = 'L';
		if (copy_file(path, dst.buf, &st, false) < 0)
			rc = errprintf(err, "cannot save a copy of its INOUT "
				       "data %s before it runs (%s: %s)", path,
				       path, strerror(errno));
	} else {
		int c = copy_any(&src, &dst, &where, false);
		if (c == -2)
			rc = refuse_linked(path, where.buf, err);
		else if (c < 0)
			rc = errprintf(err, "cannot save a copy of its INOUT "
				       "data %s before it runs (%s: %s)", path,
				       where.buf, strerror(errno));
	}
	if (!rc) {
		strbuf_addf(man, "%c%s", kind, path);
		strbuf_addch(man, '\0');
	}
	strbuf_release(&src);
	strbuf_release(&dst);
	strbuf_release(&where);
	return rc;
}

/* The manifest's first fields: task t's label, name and id. */
static void
manifest_head(const struct plan *p, uint32_t t, struct strbuf *man)
{
	const char *name = p->wf->tasks[p->dag.tasks.v[t].tmpl].name;
	plan_label(p, t, man);
	strbuf_addch(man, '\0');
	strbuf_add(man, name, strlen(name) + 1);
	strbuf_addf(man, "%u", t + 1);
	strbuf_addch(man, '\0');
}

/* Write the manifest man into the copy being made in tmp, and rename
 * tmp to final: only a whole copy is ever under its name. */
static int
seal(const char *tmp, const char *final, const struct strbuf *man,
     struct errbuf *err)
{
	char *mp = xasprintf("%s/manifest", tmp);
	int fd = open(mp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	bool ok = fd >= 0 && write(fd, man->buf, man->len) == (ssize_t)man->len;
	if (fd >= 0 && close(fd) < 0)
		ok = false;
	int rc = 0;
	if (!ok || rename(tmp, final) < 0)
		rc = errprintf(err, "cannot write %s: %s", mp, strerror(errno));
	free(mp);
	return rc;
}

/* The OUT links of task t, saved in the manifest: off their paths, so
 * that the task writes a file of its own there. */
static int
unlink_out_links(const struct plan *p, uint32_t t, struct errbuf *err)
{
	const struct dag *g = &p->dag;
	const struct dag_task *dt = &g->tasks.v[t];
	for (uint32_t i = 0; i < dt->nacc; i++) {
		const struct dag_access *a = &g->acc.v[dt->acc + i];
		const char *path = g->data.v[a->datum].path;
		if (a->mode == DAG_WRITE && out_is_link(path) &&
		    unlink(path) < 0)
			return errprintf(err, "cannot set aside its OUT %s, a "
					 "symbolic link: %s", path,
					 strerror(errno));
	}
	return 0;
}

/* Move the earlier OUT data of task t (accesses acc[0..k), listed in the
 * sealed manifest of dir as entries n, n + 1, ...) into dir; a directory
 * collection is made again, empty, for the task to write into.  One on
 * another file system than .wfrun stays where it is (the task writes
 * over it, as before).  0, or -1 with err. */
static int
move_outs(const struct plan *p, uint32_t t, const char *dir, unsigned n,
	  const uint32_t *acc, size_t k, struct errbuf *err)
{
	const struct dag *g = &p->dag;
	const struct dag_task *dt = &g->tasks.v[t];
	int rc = 0;
	for (size_t i = 0; i < k && !rc; i++) {
		const struct dag_access *a = &g->acc.v[dt->acc + acc[i]];
		const char *path = g->data.v[a->datum].path;
		char *dst = xasprintf("%s/%u", dir, n + (unsigned)i);
		struct stat st;
		bool is_dir = lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
		if (rename(path, dst) < 0) {
			if (errno != EXDEV && errno != ENOENT)
				rc = errprintf(err, "cannot move its earlier "
					       "output %s aside to %s: %s", path,
					       dst, strerror(errno));
		} else if (is_dir && mkdir(path, 0777) < 0) {
			rc = errprintf(err, "cannot create the output "
				       "directory %s: %s", path,
				       strerror(errno));
		}
		free(dst);
	}
	return rc;
}

int
undo_save(const struct plan *p, uint32_t t, const struct journal *j,
	  struct errbuf *err)
{
	const struct dag *g = &p->dag;
	const struct dag_task *dt = &g->tasks.v[t];
	if (!saves(p, t))
		return 0;
	char *final = xasprintf(SAVED "/%u", t + 1);
	char *tmp = xasprintf(SAVED "/%u.tmp", t + 1);
	struct stat st;
	int rc = 0;
	bool none = false; /* nothing listed */
	if (lstat(final, &st) == 0 && !has_manifest(final))
		undo_rmtree(final); /* what a fault left of a dropped copy */
	if (lstat(final, &st) == 0) {
		rc = errprintf(err, "%s/ already holds the saved INOUT data of an "
			       "earlier run that could not be put back; move "
			       "them back by hand (see its manifest) and remove it",
			       final);
		goto out;
	}
	undo_rmtree(tmp);
	/* (.wfrun/saved is there but for the first: one mkdir) */
	if (mkdir(tmp, 0777) < 0 && (errno != ENOENT || mkdir_p(tmp, 0777) < 0)) {
		rc = errprintf(err, "cannot create %s: %s", tmp, strerror(errno));
		goto out;
	}
	struct strbuf man = STRBUF_INIT;
	manifest_head(p, t, &man);
	unsigned n = 0;
	VEC(uint32_t) moved = { 0 }; /* accesses to move: entries n, n + 1.. */
	size_t head = man.len;
	for (uint32_t i = 0; i < dt->nacc && !rc; i++) {
		const struct dag_access *a = &g->acc.v[dt->acc + i];
		const char *path = g->data.v[a->datum].path;
		struct stat ost;
		if (a->mode == (DAG_READ | DAG_WRITE))
			rc = save_one(path, false, tmp, &n, &man, err);
		else if (a->mode == DAG_WRITE && out_is_link(path))
			rc = save_one(path, true, tmp, &n, &man, err);
		else if (out_over_input(g, a) && lstat(path, &ost) == 0)
			rc = save_one(path, false, tmp, &n, &man, err);
	}
	/* its last good OUT data: listed now, moved once the manifest is
	 * sealed (an entry not there yet is one restore leaves alone: a
	 * kill before the move leaves the data where they were) */
	const struct jrec *rec = NULL;
	if (j) {
		struct strbuf key = STRBUF_INIT;
		plan_label(p, t, &key);
		rec = journal_find(j, key.buf);
		strbuf_release(&key);
	}
	for (uint32_t i = 0; i < dt->nacc && !rc && rec; i++) {
		const struct dag_access *a = &g->acc.v[dt->acc + i];
		if (!out_to_move(g, a, i, rec))
			continue;
		strbuf_addf(&man, "P%s", g->data.v[a->datum].path);
		strbuf_addch(&man, '\0');
		VEC_PUSH(moved, i);
	}
	/* (only what a killed attempt left at an OUT: nothing to keep, no
	 * empty copy for undo_recover to "restore") */
	none = !rc && man.len == head;
	if (!rc && !none) {
		rc = seal(tmp, final, &man, err);
		/* from here a failure or a kill puts the links back */
		if (!rc && (unlink_out_links(p, t, err) < 0 ||
			    move_outs(p, t, final, n, moved.v, moved.n, err) < 0)) {
			char *aside = NULL;
			struct errbuf e2;
			undo_fail(p, t, false, &aside, &e2);
			free(aside);
			rc = -1;
		}
	}
	VEC_FREE(moved);
	if (rc || none)
		undo_rmtree(tmp);
	strbuf_release(&man);
out:
	free(final);
	free(tmp);
	return rc < 0 ? rc : !none;
}

/* A directory under .wfrun/failed/NAME/ that does not exist yet. */
static char *
aside_dir(const char *name, const char *id)
{
	char *d = xasprintf(FAILED "/%s/%s", name, id);
	struct stat st;
	for (unsigned k = 2; lstat(d, &st) == 0; k++) {
		free(d);
		d = xasprintf(FAILED "/%s/%s.%u", name, id, k);
	}
	return d;
}

/* Where path goes in the aside directory dir (malloc'd). */
static char *
aside_path(const char *path, const char *dir)
{
	const char *rel = path;
	while (*rel == '/')
		rel++;
	return xasprintf("%s/%s%s", dir, path[0] == '/' ? "_root_/" : "", rel);
}

/* Move path aside into dir (made on first use); 0 or -1 with err. */
static int
move_aside(const char *path, const char *dir, struct errbuf *err)
{
	char *dst = aside_path(path, dir);
	char *parent = path_dirname(dst);
	int rc = 0;
	if (mkdir_p(parent, 0777) < 0 ||
	    (rename(path, dst) < 0 && errno != ENOENT)) {
		if (errno == EXDEV) {
			/* another file system: beside it, under a name no
			 * task reads */
			free(dst);
			dst = xasprintf("%s.wfrun-failed", path);
			struct stat st;
			for (unsigned k = 2; lstat(dst, &st) == 0; k++) {
				free(dst);
				dst = xasprintf("%s.wfrun-failed.%u", path, k);
			}
			if (rename(path, dst) < 0)
				rc = errprintf(err, "cannot move %s aside to %s: "
					       "%s", path, dst, strerror(errno));
		} else {
			rc = errprintf(err, "cannot move %s aside to %s: %s",
				       path, dst, strerror(errno));
		}
	}
	free(parent);
	free(dst);
	return rc;
}

/* A hard link to the file path in the aside directory dir (made on
 * first use); 0, or -1 (another file system, ...: move it instead). */
static int
link_aside(const char *path, const char *dir)
{
	char *dst = aside_path(path, dir);
	char *parent = path_dirname(dst);
	int rc = mkdir_p(parent, 0777) < 0 || link(path, dst) < 0 ? -1 : 0;
	free(parent);
	free(dst);
	return rc;
}

/* Put back saved entry n of dir into the file path (stat'd in *st)
 * reached through a link: a copy of what is there now goes aside, then
 * the file is rewritten in place, so every name of it sees the old data
 * again. */
static int
put_back_in_place(const char *dir, unsigned n, const char *path,
		  const struct stat *st, const struct manifest *m, char **aside,
		  struct errbuf *err)
{
	if (!*aside)
		*aside = aside_dir(m->name, m->id);
	char *dst = aside_path(path, *aside);
	char *parent = path_dirname(dst);
	char *src = xasprintf("%s/%u", dir, n);
	struct stat saved;
	int rc = 0;
	if (mkdir_p(parent, 0777) < 0 || copy_file(path, dst, st, false) < 0)
		rc = errprintf(err, "cannot copy %s aside to %s: %s", path, dst,
			       strerror(errno));
	else if (stat(src, &saved) < 0 ||
		 copy_file(src, path, &saved, true) < 0)
		rc = errprintf(err, "cannot put back %s from %s: %s", path, src,
			       strerror(errno));
	free(src);
	free(parent);
	free(dst);
	return rc;
}

/* Put back the saved INOUT data of dir's manifest, moving what is there
 * now into *aside (chosen on first use). */
static int
restore(const char *dir, const struct manifest *m, char **aside,
	struct errbuf *err)
{
	int rc = 0;
	unsigned n = 0;
	struct stat st;
	for (size_t i = 0; i < m->paths.n; i++) {
		const char *path = m->paths.v[i] + 1;
		bool present = m->paths.v[i][0] != 'A';
		char *entry = xasprintf("%s/%u", dir, n);
		bool gone = present && lstat(entry, &st) < 0 && errno == ENOENT;
		free(entry);
		if (gone) {
			/* put back already, by a restore a fault cut short */
			n++;
			continue;
		}
		if (m->paths.v[i][0] == 'L' && stat(path, &st) == 0 &&
		    S_ISREG(st.st_mode)) {
			if (put_back_in_place(dir, n++, path, &st, m, aside,
					      err) < 0)
				rc = -1;
			continue;
		}
		if (lstat(path, &st) == 0) {
			if (!*aside)
				*aside = aside_dir(m->name, m->id);
			/* a file stays where it is until the rename below
			 * replaces it: a kill in between leaves no gap */
			bool linked_aside = present && S_ISREG(st.st_mode) &&
					    link_aside(path, *aside) == 0;
			if (!linked_aside && move_aside(path, *aside, err) < 0) {
				rc = -1;
				if (present)
					n++;
				continue;
			}
		}
		if (!present)
			continue;
		char *src = xasprintf("%s/%u", dir, n++);
		char *parent = path_dirname(path);
		if ((strchr(path, '/') && mkdir_p(parent, 0777) < 0) ||
		    rename(src, path) < 0)
			rc = errprintf(err, "cannot put back %s from %s: %s", path,
				       src, strerror(errno));
		free(parent);
		free(src);
	}
	return rc;
}

int
undo_fail(const struct plan *p, uint32_t t, bool keep_outputs, char **aside,
	  struct errbuf *err)
{
	const struct dag *g = &p->dag;
	const struct dag_task *dt = &g->tasks.v[t];
	const char *name = p->wf->tasks[dt->tmpl].name;
	char id[16];
	snprintf(id, sizeof(id), "%u", t + 1);
	*aside = NULL;
	char *dir = xasprintf(SAVED "/%u", t + 1);
	int rc = 0;
	if (keep_outputs) {
		drop_saved(dir);
		free(dir);
		return 0;
	}
	struct stat st;
	for (uint32_t i = 0; i < dt->nacc; i++) {
		const struct dag_access *a = &g->acc.v[dt->acc + i];
		if (a->mode != DAG_WRITE)
			continue;
		const char *path = g->data.v[a->datum].path;
		if (lstat(path, &st) < 0)
			continue;
		if (!*aside)
			*aside = aside_dir(name, id);
		if (move_aside(path, *aside, err) < 0)
			rc = -1;
	}
	struct manifest m;
	if (manifest_read(dir, &m) == 0) {
		if (restore(dir, &m, aside, err) < 0)
			rc = -1;
		else
			drop_saved(dir);
		manifest_release(&m);
	}
	free(dir);
	return rc;
}

void
undo_succeeded(uint32_t t)
{
	char path[80];
	snprintf(path, sizeof(path), SAVED "/%u/done", t + 1);
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd); /* (if it cannot be made, a rerun restores) */
}

void
undo_discard(uint32_t t)
{
	char dir[64];
	snprintf(dir, sizeof(dir), SAVED "/%u", t + 1);
	drop_saved(dir);
}

/* Whether the journal has a record of key written after the copy in dir
 * was made (undo_succeeded marked it), or one that shows every path of m
 * written and still as the record has it.  (The first: a later task of a
 * chain of INOUT tasks changed the data since; restoring the copy of a
 * task that finished rolled the chain back.) */
static bool
finished(const struct journal *j, const char *dir, const struct manifest *m)
{
	const struct jrec *r = journal_find(j, m->key);
	if (!r)
		return false;
	char *done = xasprintf("%s/done", dir);
	struct stat st;
	bool marked = lstat(done, &st) == 0;
	free(done);
	if (marked)
		return true;
	for (size_t i = 0; i < m->paths.n; i++) {
		const char *path = m->paths.v[i] + 1;
		size_t k;
		for (k = 0; k < r->nf; k++)
			if (r->f[k].mode == 'w' && !strcmp(r->f[k].path, path))
				break;
		if (k == r->nf ||
		    !jident_matches(path, r->f[k].id.kind == 'd', &r->f[k].id))
			return false;
	}
	return true;
}

/* qsort: saved directories by task id, the highest first. */
static int
later_first(const void *a, const void *b)
{
	unsigned long x = strtoul(*(char *const *)a, NULL, 10);
	unsigned long y = strtoul(*(char *const *)b, NULL, 10);
	return x < y ? 1 : x > y ? -1 : 0;
}

/* The names in the directory path but those starting with a dot. */
static void
dir_names(const char *path, struct strvec *names)
{
	DIR *d = opendir(path);
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			VEC_PUSH(*names, xstrdup(e->d_name));
	if (d)
		closedir(d);
}

size_t
undo_pending(const struct journal *j)
{
	struct strvec names = { 0 };
	dir_names(SAVED, &names);
	size_t n = 0;
	for (size_t i = 0; i < names.n; i++) {
		char *dir = xasprintf(SAVED "/%s", names.v[i]);
		size_t l = strlen(names.v[i]);
		struct manifest m;
		if (!(l > 4 && !strcmp(names.v[i] + l - 4, ".tmp")) &&
		    manifest_read(dir, &m) == 0) {
			n += !finished(j, dir, &m);
			manifest_release(&m);
		}
		free(dir);
		free(names.v[i]);
	}
	free(names.v);
	return n;
}

size_t
undo_recover(const struct journal *j)
{
	struct strvec names = { 0 };
	dir_names(SAVED, &names);
	/* the latest task's copy first: of a chain of INOUT tasks that a
	 * kill left unrecorded, the earliest one's copy is what stays */
	if (names.n) /* (qsort of NULL: undefined, even for 0) */
		qsort(names.v, names.n, sizeof(*names.v), later_first);
	size_t restored = 0;
	for (size_t i = 0; i < names.n; i++) {
		char *dir = xasprintf(SAVED "/%s", names.v[i]);
		size_t l = strlen(names.v[i]);
		struct manifest m;
		if (l > 4 && !strcmp(names.v[i] + l - 4, ".tmp")) {
			/* its task never started */
			undo_rmtree(dir);
		} else if (manifest_read(dir, &m) == 0) {
			if (finished(j, dir, &m)) {
				drop_saved(dir);
			} else {
				char *aside = NULL;
				struct errbuf err;
				if (restore(dir, &m, &aside, &err) < 0) {
					error_msg("%s; the saved copy stays in %s",
						  err.msg, dir);
				} else {
					drop_saved(dir);
					restored++;
					info_msg("restored what task %s started "
						 "from (its INOUT data, its earlier "
						 "outputs), which a killed run left "
						 "unfinished%s%s",
						 m.key, aside ? "; what it had "
						 "written is in " : "",
						 aside ? aside : "");
				}
				free(aside);
			}
			manifest_release(&m);
		} else if (!has_manifest(dir)) {
			/* what a fault left of a copy being dropped */
			undo_rmtree(dir);
		}
		free(dir);
		free(names.v[i]);
	}
	free(names.v);
	return restored;
}

/* The directory of the original of path: ORIG/<hash of the path>, or
 * <hash>-N past others whose manifest names another path; *kept when
 * it holds a whole copy of path (malloc'd). */
static char *
orig_dir(const char *path, bool *kept)
{
	uint32_t h = hash_bytes(path, strlen(path));
	*kept = false;
	for (unsigned k = 1;; k++) {
		char *dir = k == 1 ? xasprintf(ORIG "/%08x", h)
				   : xasprintf(ORIG "/%08x-%u", h, k);
		struct manifest m;
		if (manifest_read(dir, &m) < 0)
			return dir;
		bool same = m.paths.n == 1 && !strcmp(m.paths.v[0] + 1, path);
		manifest_release(&m);
		if (same) {
			*kept = true;
			return dir;
		}
		free(dir);
	}
}

/* Keep the original of the datum at path, which task t is the first to
 * update in place, as dir (its manifest names t and path). */
static int
keep_original(const struct plan *p, uint32_t t, const char *path,
	      const char *dir, struct errbuf *err)
{
	char *tmp = xasprintf("%s.tmp", dir);
	struct strbuf man = STRBUF_INIT;
	unsigned n = 0;
	int rc = 0;
	undo_rmtree(dir); /* what a fault left of a dropped copy */
	undo_rmtree(tmp);
	if (mkdir_p(tmp, 0777) < 0)
		rc = errprintf(err, "cannot create %s: %s", tmp,
			       strerror(errno));
	if (!rc) {
		manifest_head(p, t, &man);
		rc = save_one(path, false, tmp, &n, &man, err);
	}
	if (!rc)
		rc = seal(tmp, dir, &man, err);
	if (rc)
		undo_rmtree(tmp);
	strbuf_release(&man);
	free(tmp);
	return rc;
}

int
undo_keep_originals(const struct plan *p, uint32_t t, const uint8_t *first,
		    struct errbuf *err)
{
	const struct dag *g = &p->dag;
	const struct dag_task *dt = &g->tasks.v[t];
	for (uint32_t i = 0; first && i < dt->nacc; i++) {
		if (!first[dt->acc + i])
			continue;
		const char *path = g->data.v[g->acc.v[dt->acc + i].datum].path;
		bool kept;
		char *dir = orig_dir(path, &kept);
		int rc = kept ? 0 : keep_original(p, t, path, dir, err);
		free(dir);
		if (rc < 0)
			return rc;
	}
	return 0;
}

bool
undo_has_original(const char *path)
{
	bool kept;
	free(orig_dir(path, &kept));
	return kept;
}

/* Whether path is as its original, kept in dir (manifest m), is: then
 * there is nothing to put back (a kill after an earlier put-back, an
 * update that changed nothing). */
static bool
is_original(const char *dir, const struct manifest *m, const char *path)
{
	struct stat st;
	if (m->paths.v[0][0] == 'A')
		return lstat(path, &st) < 0 && errno == ENOENT;
	char *entry = xasprintf("%s/0", dir);
	bool is_dir = lstat(entry, &st) == 0 && S_ISDIR(st.st_mode);
	struct jident id;
	jident_get(entry, is_dir, true, &id);
	free(entry);
	return id.kind != '-' && !id.unreadable &&
	       jident_matches(path, is_dir, &id);
}

int
undo_put_original(const char *path, char **aside, struct errbuf *err)
{
	bool kept;
	char *dir = orig_dir(path, &kept);
	struct manifest m;
	if (!kept || manifest_read(dir, &m) < 0) {
		errprintf(err, "the original of %s is not kept", path);
		free(dir);
		return -1;
	}
	if (is_original(dir, &m, path)) {
		manifest_release(&m);
		free(dir);
		return 0;
	}
	/* restore() renames its entries into place: it gets a copy, and
	 * the original stays kept for a later run */
	char *put = xasprintf("%s.put", dir);
	struct strbuf src = STRBUF_INIT, dst = STRBUF_INIT, where = STRBUF_INIT;
	strbuf_adds(&src, dir);
	strbuf_adds(&dst, put);
	undo_rmtree(put);
	int rc = 0;
	if (copy_any(&src, &dst, &where, false) != 0)
		rc = errprintf(err, "cannot copy the original of %s (%s: %s)",
			       path, where.buf, strerror(errno));
	else
		rc = restore(put, &m, aside, err);
	undo_rmtree(put);
	manifest_release(&m);
	strbuf_release(&src);
	strbuf_release(&dst);
	strbuf_release(&where);
	free(put);
	free(dir);
	return rc < 0 ? rc : 1;
}

void
undo_drop_originals(const struct journal *j)
{
	struct strvec names = { 0 };
	dir_names(ORIG, &names);
	for (size_t i = 0; i < names.n; i++) {
		char *dir = xasprintf(ORIG "/%s", names.v[i]);
		struct manifest m;
		/* a copy cut short (.tmp, .put, no whole manifest) is none */
		if (strchr(names.v[i], '.') || manifest_read(dir, &m) < 0) {
			undo_rmtree(dir);
		} else {
			/* kept while the journal knows that its taker ran */
			if (!journal_find(j, m.key) && !journal_lost(j, m.key))
				drop_saved(dir);
			manifest_release(&m);
		}
		free(dir);
		free(names.v[i]);
	}
	free(names.v);
}
