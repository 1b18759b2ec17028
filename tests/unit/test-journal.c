/* Unit tests of the journal: round trip of awkward strings, torn tails,
 * checksums, compaction; and of the failure back-off. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

/* Whether the file holds exactly s. */
static bool
holds(const char *path, const char *s)
{
	char buf[4096];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(s) && !memcmp(buf, s, (size_t)n);
}

static void
put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ok(fd >= 0 && write(fd, s, strlen(s)) == (ssize_t)strlen(s), "wrote %s",
	   path);
	close(fd);
}

/* Three records, a b c, in a new journal j. */
static void
three(void)
{
	struct journal j;
	struct errbuf err;
	unlink("j");
	journal_open(&j, "j", true, &err);
	journal_add(&j, "a", "echo a", NULL, 0);
	journal_add(&j, "b", "echo b", NULL, 0);
	journal_add(&j, "c", "echo c", NULL, 0);
	ok(journal_flush(&j, true, &err) == 0, "three records");
	journal_release(&j);
}

/* A damaged line costs that record alone; a journal of another version,
 * or no journal, is an error and is left as it is. */
static void
test_damage(void)
{
	struct journal j;
	struct errbuf err;
	three();
	/* flip one byte of b's command */
	int fd = open("j", O_RDWR);
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf));
	char *b = n > 0 ? strstr(buf, "echo b") : NULL;
	ok(b != NULL, "b's record found");
	if (b)
		ok(pwrite(fd, "E", 1, b - buf) == 1, "flipped a byte");
	close(fd);
	ok(journal_open(&j, "j", false, &err) == 0, "read");
	ok(j.recs.n == 2 && journal_find(&j, "a") && journal_find(&j, "c") &&
	   !journal_find(&j, "b"), "only the damaged record is lost");
	ok(j.nlost == 1 && journal_lost(&j, "b") && !journal_lost(&j, "a"),
	   "the lost record's key is known");
	journal_release(&j);
	ok(journal_open(&j, "j", true, &err) == 0, "opened for append");
	journal_release(&j);
	ok(journal_open(&j, "j", false, &err) == 0 && j.nlost == 0 &&
	   j.recs.n == 2, "rewritten without the damaged line");
	journal_release(&j);

	/* a damaged terminator joins two lines: both are lost, no more */
	three();
	fd = open("j", O_RDWR);
	n = read(fd, buf, sizeof(buf));
	b = n > 0 ? strstr(buf, "echo a\n") : NULL;
	if (b)
		ok(pwrite(fd, " ", 1, b + 6 - buf) == 1, "joined a and b");
	close(fd);
	ok(journal_open(&j, "j", false, &err) == 0 && j.recs.n == 1 &&
	   journal_find(&j, "c") && journal_lost(&j, "a"),
	   "c is read after the joined line");
	journal_release(&j);

	/* a damaged header: the records are read, the header put back */
	three();
	fd = open("j", O_RDWR);
	ok(pwrite(fd, "X", 1, 0) == 1, "damaged the header");
	close(fd);
	ok(journal_open(&j, "j", true, &err) == 0 && j.recs.n == 3 &&
	   j.bad_header, "records read after a damaged header");
	journal_release(&j);
	ok(journal_open(&j, "j", false, &err) == 0 && !j.bad_header &&
	   j.recs.n == 3, "the header is rewritten");
	journal_release(&j);

	/* a journal of its header alone, damaged: no error, put back */
	put("j", "00000000 H\twfrun-journal\t1\n");
	ok(journal_open(&j, "j", true, &err) == 0 && j.bad_header &&
	   j.recs.n == 0, "a damaged header alone is no error");
	journal_release(&j);
	ok(journal_open(&j, "j", false, &err) == 0 && !j.bad_header,
	   "and is put back");
	journal_release(&j);

	const char *v999 = "7fcfa883 H\twfrun-journal\t999\n00000000 T\tx\n";
	put("j", v999);
	ok(journal_open(&j, "j", true, &err) < 0, "another version: an error");
	ok(strstr(err.msg, "j is a journal of format version 999") != NULL,
	   "it names the file and the version: %s", err.msg);
	ok(holds("j", v999), "and leaves the file as it was");
	journal_release(&j);
	put("j", "some notes\nof the user\n");
	ok(journal_open(&j, "j", true, &err) < 0 &&
	   strstr(err.msg, "j is not a wfrun journal"), "no journal: an error");
	ok(holds("j", "some notes\nof the user\n"), "left as it was");
	journal_release(&j);
}

/* A write that fails part way (here past RLIMIT_FSIZE, as on a full
 * disk) leaves the journal as it was; the records are written whole by
 * the next flush that can. */
static void
test_failed_append(void)
{
	struct journal j;
	struct errbuf err;
	three();
	off_t before = size_of("j");
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit old, lim;
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = (rlim_t)before + 10;
	ok(journal_open(&j, "j", true, &err) == 0, "opened");
	ok(setrlimit(RLIMIT_FSIZE, &lim) == 0, "file size limit set");
	journal_add(&j, "d", "echo d; a command longer than ten bytes", NULL, 0);
	ok(journal_flush(&j, true, &err) < 0, "the write fails part way");
	is_int(size_of("j"), before, "the journal is as it was");
	ok(journal_flush(&j, true, &err) < 0, "fails again");
	is_int(size_of("j"), before, "still as it was");
	setrlimit(RLIMIT_FSIZE, &old);
	journal_add(&j, "e", "echo e", NULL, 0);
	ok(journal_flush(&j, true, &err) == 0, "then it works");
	journal_release(&j);
	ok(journal_open(&j, "j", false, &err) == 0 && j.recs.n == 5 &&
	   j.nlost == 0 && !j.torn, "every record is whole");
	journal_release(&j);
	signal(SIGXFSZ, SIG_DFL);
}

/* An input that is a FIFO or a device is never read (it would block or
 * never end), even when it replaced a regular file since the stat. */
static void
test_special(void)
{
	alarm(20); /* a hang fails the test */
	struct jident id, fifo, zero;
	put("data", "hello\n");
	jident_get("data", false, false, &id);
	unlink("data");
	ok(mkfifo("data", 0644) == 0, "a FIFO in its place");
	jident_hash("data", &id);
	ok(id.hashed && id.size == 0 && id.mtime_ns == 0,
	   "a FIFO's identity, without waiting for a writer");
	jident_get("data", false, true, &fifo);
	ok(fifo.hash == id.hash, "the same by jident_get");
	ok(jident_matches("data", false, &fifo), "a FIFO stays up to date");
	unlink("data");
	put("data", "hello\n");
	jident_get("data", false, false, &id);
	unlink("data");
	ok(symlink("/dev/zero", "data") == 0, "/dev/zero in its place");
	jident_hash("data", &id);
	jident_get("/dev/zero", false, true, &zero);
	ok(id.hashed && id.hash == zero.hash && zero.hash != fifo.hash,
	   "a device's identity is its type and number");
	ok(jident_matches("data", false, &zero), "a device stays up to date");
	unlink("data");
	put("data", "");
	ok(!jident_matches("data", false, &zero), "an empty file is not it");
	unlink("data");
	alarm(0);
}

/* S lines: where a task's outputs are in a worker's store. */
static void
stores(void)
{
	struct journal j;
	struct errbuf err;
	unlink("j");
	ok(journal_open(&j, "j", true, &err) == 0, "fresh, for stores");
	struct jsfile sf[] = { { "out/a\tb", 5, 1700000000123456789LL },
			       { "d", -1, -3 } };
	struct jstore st = { "w1", "17-42", "/w/.wfrun/data/17-42/t1", sf, 2 };
	journal_add(&j, "a", "echo a", NULL, 0);
	journal_add_store(&j, "a", &st);
	journal_add(&j, "b", "echo b", NULL, 0);
	journal_add_store(&j, "a", &st); /* not b's: ignored */
	journal_add(&j, "c", "echo c", NULL, 0);
	journal_add_store(&j, "c", &st);
	journal_add(&j, "c", "echo c again", NULL, 0); /* brought back */
	ok(journal_flush(&j, true, &err) == 0, "flushed");
	journal_release(&j);
	ok(journal_open(&j, "j", false, &err) == 0 && j.nlost == 0,
	   "read, nothing lost");
	const struct jrec *r = journal_find(&j, "a");
	const struct jstore *s = r ? r->store : NULL;
	ok(s && !strcmp(s->worker, "w1") && !strcmp(s->run, "17-42") &&
		   !strcmp(s->dir, "/w/.wfrun/data/17-42/t1") && s->nf == 2,
	   "a's store");
	ok(s && !strcmp(s->f[0].path, "out/a\tb") && s->f[0].size == 5 &&
		   s->f[0].mtime_ns == 1700000000123456789LL &&
		   s->f[1].size == -1 && s->f[1].mtime_ns == -3,
	   "its files, sizes and mtimes");
	r = journal_find(&j, "b");
	ok(r && !r->store, "an S line after another key's record: ignored");
	r = journal_find(&j, "c");
	ok(r && !r->store && !strcmp(r->cmd, "echo c again"),
	   "a later record without S replaces one with");
	journal_release(&j);
	/* kept by compaction (a damaged line makes the journal rewritten) */
	append("j", "00000000 T\tx\techo\n");
	ok(journal_open(&j, "j", true, &err) == 0, "rewritten");
	journal_release(&j);
	ok(journal_open(&j, "j", false, &err) == 0 && j.nlost == 0 &&
		   (r = journal_find(&j, "a")) && r->store &&
		   r->store->nf == 2 && !journal_find(&j, "c")->store,
	   "the store kept by the rewrite");
	journal_release(&j);
	/* a damaged S line is lost alone */
	append("j", "00000000 S\ta\tw1\tr\t/d\n");
	ok(journal_open(&j, "j", false, &err) == 0 && j.nlost == 1 &&
		   journal_find(&j, "a")->store,
	   "a damaged S line: skipped");
	journal_release(&j);
	/* an S line after a damaged line is no one's, though the record
	 * before that is of its key */
	unlink("j");
	ok(journal_open(&j, "j", true, &err) == 0, "fresh again");
	journal_add(&j, "a", "echo a", NULL, 0);
	journal_flush(&j, true, &err);
	append("j", "00000000 T\ta\techo\n");
	journal_add_store(&j, "a", &st);
	append("j", j.pending.buf);
	strbuf_reset(&j.pending);
	journal_release(&j);
	ok(journal_open(&j, "j", false, &err) == 0 && j.nlost == 1 &&
		   journal_find(&j, "a") && !journal_find(&j, "a")->store,
	   "an S line after a damaged one: ignored");
	journal_release(&j);
}

/* X lines: a temp output of a record removed; kept by compaction. */
static void
temps(void)
{
	struct journal j;
	struct errbuf err;
	unlink("j");
	ok(journal_open(&j, "j", true, &err) == 0, "fresh, for temps");
	struct jfile f[2] = {
		{ 'r', "in", { 'f', 1, 1, 0, false, 0 } },
		{ 'w', "tmp/a.bam", { 'f', 3, 7, 0x42ULL, true, 0 } },
	};
	journal_add(&j, "p", "make", f, 2);
	journal_add_temp_gone(&j, "p", "tmp/a.bam");
	journal_add_temp_gone(&j, "p", "in");   /* read, not written */
	journal_add_temp_gone(&j, "q", "tmp/a.bam"); /* no record of q */
	ok(journal_flush(&j, true, &err) == 0, "flushed");
	journal_release(&j);
	ok(journal_open(&j, "j", false, &err) == 0 && j.nlost == 0 &&
		   j.recs.n == 1, "read, nothing lost, no record added");
	const struct jrec *r = journal_find(&j, "p");
	ok(r && r->nf == 2 && r->f[1].id.kind == 't' && r->f[1].id.size == 3 &&
		   r->f[1].id.hash == 0x42ULL,
	   "the written file reads as removed temp, its identity kept");
	ok(r && r->f[0].id.kind == 'f', "an X line naming a read: ignored");
	journal_release(&j);
	append("j", "00000000 T\tx\techo\n");
	ok(journal_open(&j, "j", true, &err) == 0, "rewritten");
	journal_release(&j);
	ok(journal_open(&j, "j", false, &err) == 0 && j.nlost == 0 &&
		   (r = journal_find(&j, "p")) && r->f[1].id.kind == 't',
	   "kind t kept by the rewrite");
	journal_release(&j);
	ok(journal_open(&j, "j", true, &err) == 0, "for a new record");
	journal_add(&j, "p", "make", f, 2);
	journal_flush(&j, true, &err);
	journal_release(&j);
	ok(journal_open(&j, "j", false, &err) == 0 &&
		   (r = journal_find(&j, "p")) && r->f[1].id.kind == 'f',
	   "a later record of the writer: the file is there again");
	journal_release(&j);
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
		{ 'r', "in\tput\n\\x", { 'f', 12, 1700000000123456789LL, 0xfeedULL, true, 0 } },
		{ 'w', "out dir", { 'd', 0, -5, 0, false, 0 } },
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

	/* A whole line with a bad checksum is skipped. */
	append("j", "00000000 T\tx\ty\n");
	ok(journal_open(&j, "j", false, &err) == 0 && j.recs.n == 3 &&
	   !j.torn && j.nlost == 1 && journal_lost(&j, "x"),
	   "a bad checksum costs that line");
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

	stores();
	temps();

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

	test_damage();
	test_failed_append();
	test_special();

	is_int((long)(failure_backoff(1) * 10), 5, "first back-off 0.5 s");
	is_int((long)failure_backoff(3), 2, "doubling");
	is_int((long)failure_backoff(40), 30, "at most 30 s");

	unlink("j");
	chdir("/");
	rmdir(dir);
	return done_testing();
}
