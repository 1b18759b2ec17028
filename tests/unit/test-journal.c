/* Unit tests of the journal: round trip of awkward strings, torn tails,
 * checksums, compaction; and of the failure back-off. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "failure.h"
#include "journal.h"
#include "tap.h"

static void
append(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_APPEND);
	ok(fd >= 0 && write(fd, s, strlen(s)) == (ssize_t)strlen(s),
	   "appended junk");
	close(fd);
}

static off_t
size_of(const char *path)
{
	struct stat st;
	return stat(path, &st) ? -1 : st.st_size;
}

int
main(void)
{
	char dir[] = "/tmp/test-journal.XXXXXX";
	if (!mkdtemp(dir) || chdir(dir) < 0)
		return 1;
	struct journal j;
	struct errbuf err;
	ok(journal_open(&j, "j", false, &err) == 0 && j.recs.n == 0,
	   "a missing journal is empty");
	journal_release(&j);

	ok(journal_open(&j, "j", true, &err) == 0, "created");
	struct jfile f[2] = {
		{ 'r', "in\tput\n\\x", { 'f', 12, 1700000000123456789LL, 0xfeedULL, true } },
		{ 'w', "out dir", { 'd', 0, -5, 0, false } },
	};
	journal_add(&j, "t (i=1)", "printf 'a\\tb\\n' | tr\r", f, 2);
	journal_add(&j, "t (i=2)", "echo 2", NULL, 0);
	ok(journal_flush(&j, true, &err) == 0, "flushed");
	journal_release(&j);

	ok(journal_open(&j, "j", false, &err) == 0, "reopened");
	is_int(j.recs.n, 2, "two records");
	const struct jrec *r = journal_find(&j, "t (i=1)");
	ok(r != NULL, "found by key");
	if (r) {
		is_str(r->cmd, "printf 'a\\tb\\n' | tr\r", "command round trip");
		is_int(r->nf, 2, "two files");
		is_str(r->f[0].path, "in\tput\n\\x", "path with tab, newline, backslash");
		ok(r->f[0].mode == 'r' && r->f[0].id.kind == 'f', "mode and kind");
		ok(r->f[0].id.size == 12 &&
		   r->f[0].id.mtime_ns == 1700000000123456789LL, "size and mtime");
		ok(r->f[0].id.hashed && r->f[0].id.hash == 0xfeedULL, "hash");
		ok(!r->f[1].id.hashed && r->f[1].id.mtime_ns == -5 &&
		   r->f[1].id.kind == 'd', "no hash, negative mtime, directory");
	}
	ok(!j.torn, "not torn");
	journal_release(&j);

	/* A torn tail is ignored on read and cut off before appending. */
	off_t good = size_of("j");
	append("j", "0badc0de T\tpartial");
	ok(journal_open(&j, "j", false, &err) == 0 && j.recs.n == 2 && j.torn,
	   "read up to the last whole record");
	journal_release(&j);
	ok(journal_open(&j, "j", true, &err) == 0, "opened for append");
	is_int(size_of("j"), good, "the torn tail was cut off");
	journal_add(&j, "t (i=2)", "echo two", NULL, 0);
	journal_flush(&j, true, &err);
	journal_release(&j);
	ok(journal_open(&j, "j", false, &err) == 0 && j.recs.n == 3,
	   "appended after the cut");
	r = journal_find(&j, "t (i=2)");
	is_str(r ? r->cmd : "", "echo two", "a later record replaces an earlier one");
	journal_release(&j);

	/* A whole line with a bad checksum ends the journal there. */
	append("j", "00000000 T\tx\ty\n");
	ok(journal_open(&j, "j", false, &err) == 0 && j.recs.n == 3 && j.torn,
	   "a bad checksum ends the journal");
	journal_release(&j);

	/* Compaction keeps the latest record of each key. */
	unlink("j");
	ok(journal_open(&j, "j", true, &err) == 0, "fresh");
	for (int i = 0; i < 1500; i++)
		journal_add(&j, i % 2 ? "odd" : "even", i % 2 ? "1" : "0", NULL, 0);
	journal_add(&j, "odd", "last", NULL, 0);
	journal_flush(&j, true, &err);
	journal_release(&j);
	ok(journal_open(&j, "j", true, &err) == 0, "compacted on open");
	journal_release(&j);
	ok(journal_open(&j, "j", false, &err) == 0 && j.recs.n == 2,
	   "two records left");
	r = journal_find(&j, "odd");
	is_str(r ? r->cmd : "", "last", "the latest one");
	journal_release(&j);

	/* Identities: the hash saves a file rewritten with the same bytes. */
	int fd = open("data", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ok(write(fd, "hello\n", 6) == 6, "wrote data");
	close(fd);
	struct jident id;
	jident_get("data", false, true, &id);
	ok(id.kind == 'f' && id.size == 6 && id.hashed, "identity of a file");
	struct timespec ts[2] = { { 1, 0 }, { 1, 0 } };
	utimensat(AT_FDCWD, "data", ts, 0);
	ok(jident_matches("data", false, &id), "same content, other mtime");
	fd = open("data", O_WRONLY | O_TRUNC);
	ok(write(fd, "jello\n", 6) == 6, "rewrote data");
	close(fd);
	utimensat(AT_FDCWD, "data", ts, 0);
	ok(!jident_matches("data", false, &id), "other content, same size");
	unlink("data");
	ok(!jident_matches("data", false, &id), "gone");

	/* An empty file's hash is known without reading it, and is the one
	 * a read of nothing gives: it matches after a touch. */
	fd = open("empty", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	close(fd);
	jident_get("empty", false, false, &id);
	ok(!id.hashed, "no hash unless asked");
	jident_hash("empty", &id);
	ok(id.kind == 'f' && id.size == 0 && id.hashed, "empty file hashed");
	utimensat(AT_FDCWD, "empty", ts, 0);
	ok(jident_matches("empty", false, &id), "empty, other mtime: same");
	fd = open("empty", O_WRONLY | O_TRUNC);
	ok(write(fd, "x", 1) == 1, "wrote a byte");
	close(fd);
	ok(!jident_matches("empty", false, &id), "no longer empty");
	unlink("empty");

	is_int((long)(failure_backoff(1) * 10), 5, "first back-off 0.5 s");
	is_int((long)failure_backoff(3), 2, "doubling");
	is_int((long)failure_backoff(40), 30, "at most 30 s");

	unlink("j");
	chdir("/");
	rmdir(dir);
	return done_testing();
}
