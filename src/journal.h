/*
 * journal: <workdir>/.wfrun/journal, the append-only record of finished
 * tasks that lets a new run skip what is still up to date.
 *
 * Format: text, one record per line, binary-safe: every field is escaped
 * (backslash, tab, newline and carriage return become \\ \t \n \r), fields
 * are separated by tabs, and each line starts with the CRC-32 of the rest
 * of the line in 8 hex digits and a space:
 *
 *   CRC H wfrun-journal 1                       (first line)
 *   CRC T KEY CMD {MODE PATH SIZE MTIME_NS HASH}...
 *
 * KEY is the task's label ("name (i=3)"), CMD its command after expansion
 * (the shell form), or empty in a record that makes the task's earlier
 * ones void (resume_drop_records: it ran, and must run again).  MODE is two letters: r (read) or w (written), then f
 * (file), d (directory collection) or - (absent).  HASH is the FNV-1a
 * 64-bit hash of the content in 16 hex digits for files up to
 * JOURNAL_HASH_MAX bytes, else "-".  A directory's SIZE is the bytes of
 * its files, its MTIME_NS the latest mtime in it, its HASH a hash of the
 * names, sizes and mtimes of everything under it.  What is neither a
 * regular file nor a directory (a device, a FIFO, a socket) is never
 * opened for its hash (it could block, or never end): it is kind f with
 * SIZE and MTIME_NS 0 and as HASH one of its type and device number, so
 * that reading or writing it never makes it look changed.  A later record
 * of the same KEY replaces an earlier one.
 *
 * A task that ran on a worker whose workdir is not shared is recorded
 * when it ends there, its outputs absent (they are in that worker's
 * store, not yet on the master), followed at once (in the same write) by
 * where they are:
 *
 *   CRC S KEY WORKER RUN DIR {PATH SIZE MTIME_NS}...
 *
 * WORKER is the worker's name, RUN the run whose store holds them, DIR
 * that store's directory for the task on the worker (absolute), and each
 * PATH (relative to DIR and to the workdir) a file, link or directory
 * (SIZE -1) as the agent listed it.  An S line belongs to the T line of
 * KEY right before it; anywhere else it is ignored.  When the outputs
 * are brought back, a new T record of KEY, without S, replaces both.
 *
 * A temp output (wfrun-workflow(5)) removed once every task that reads
 * it had finished is said by a line after its writer's record:
 *
 *   CRC X KEY PATH
 *
 * after which that record's entry "wf PATH ..." reads as "wt PATH ..."
 * (kind t: a temp file that was there with that identity and was
 * removed; compaction writes it so).  A missing file of kind t makes
 * its writer out of date only when a task that reads it runs again
 * (resume.c).  An X line that follows no record of KEY writing PATH is
 * ignored.
 *
 * Records are buffered and written once per loop round, so a killed
 * master loses none that it finished; fdatasync, for a machine that
 * crashes, is at most every JOURNAL_SYNC_EVERY seconds (the runner's
 * timer), and comes before the saved copies of those tasks' INOUT data
 * are dropped.  A write that fails (a full disk) is undone: the file is
 * cut back to its last whole line, and the records stay queued for the
 * next flush.
 *
 * Reading: a line is a record when its CRC matches; one that does not (a
 * damaged byte) is skipped alone, and reading goes on at the next line,
 * so a damaged record costs that record (a damaged newline joins two
 * lines: both are lost).  The key such a line seems to record is kept
 * (journal_lost), so that a task that ran before is still known to have.
 * A last line without its newline (a crash while it was written) is cut
 * off before anything is appended; damaged lines or header are rewritten
 * away (see compaction).  A first line that is a header of another
 * version, or a file of which no line checks out, is an error: the file
 * is left as it is.
 */
#ifndef WFRUN_JOURNAL_H
#define WFRUN_JOURNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util.h"

#define JOURNAL_PATH ".wfrun/journal"
/* Files up to this size get a content hash. */
#define JOURNAL_HASH_MAX (1024 * 1024)
/* Seconds between two fdatasyncs at most. */
#define JOURNAL_SYNC_EVERY 0.05

/* The identity of one file or directory collection. */
struct jident {
	char kind;           /* 'f', 'd', or '-' (absent) */
	uint64_t size;
	int64_t mtime_ns;
	uint64_t hash;
	bool hashed;
	int unreadable;      /* a directory, the errno of a folder under it
				that could not be read: no identity at all */
};

struct jfile {
	char mode;           /* 'r' or 'w' */
	char *path;
	struct jident id;
};

/* Where a task's outputs are in a worker's store (an S line). */
struct jsfile {
	char *path;
	long long size;      /* -1: a directory */
	int64_t mtime_ns;
};
struct jstore {
	char *worker, *run, *dir;
	struct jsfile *f;
	size_t nf;
};

struct jrec {
	char *key;
	char *cmd;
	struct jfile *f;
	size_t nf;
	struct jstore *store; /* its outputs are on a worker, or NULL */
};

struct journal {
	int fd;                 /* -1: read only (or not open) */
	VEC(struct jrec) recs;  /* every record read, in order */
	struct hmap keys;       /* key -> index of its latest record */
	size_t nread;           /* records read from the file */
	bool torn;              /* the file ended in a partial record */
	struct strbuf pending;  /* serialised records not yet written */
	bool unsynced;          /* written since the last fdatasync */
	off_t end;              /* length of the file's whole lines */
	size_t nlost;           /* damaged lines skipped */
	bool bad_header;        /* its first line is damaged or no header */
	bool cut;               /* a failed write could not be undone: the
				   next one starts on a new line */
	struct hmap lost_keys;  /* keys that damaged lines seem to record */
	struct strvec lost_key_v; /* (their strings) */
};

/*
 * Read path (a missing file is an empty journal).  With append, also open
 * it for appending: the torn tail is cut off, the header written if new,
 * and a journal with many replaced records is rewritten compacted.
 * Returns 0, or -1 with err.
 */
int journal_open(struct journal *j, const char *path, bool append,
		 struct errbuf *err);
void journal_release(struct journal *j);

/* The latest record of key, or NULL. */
const struct jrec *journal_find(const struct journal *j, const char *key);
/* Record r's entry of mode ('r' or 'w') for path, or NULL; i: where a
 * task's access i usually is (its records list them in access order). */
const struct jfile *jrec_entry(const struct jrec *r, size_t i, char mode,
			       const char *path);

/* Whether a damaged line, skipped, seems to be a record of key (a task
 * that ran before, whose record is lost). */
bool journal_lost(const struct journal *j, const char *key);

/* Queue a record (the strings are copied into the serialised form). */
void journal_add(struct journal *j, const char *key, const char *cmd,
		 const struct jfile *f, size_t nf);
/* Queue the S line of the record just queued for key (journal_add). */
void journal_add_store(struct journal *j, const char *key,
		       const struct jstore *s);
/* Queue an X line: the temp output path of key's latest record was
 * removed (its entry reads as kind 't' from then on). */
void journal_add_temp_gone(struct journal *j, const char *key,
			   const char *path);
/* Write the queued records, and fdatasync when sync; 0, or -1 with err. */
int journal_flush(struct journal *j, bool sync, struct errbuf *err);

/* The identity of path now (kind '-' when it does not exist); a directory
 * when is_dir.  The hash is computed only when want_hash. */
void jident_get(const char *path, bool is_dir, bool want_hash,
		struct jident *out);
/* Add the content hash to id, a file's identity as jident_get gave it
 * (none above JOURNAL_HASH_MAX; an empty file's without reading it). */
void jident_hash(const char *path, struct jident *id);
/*
 * Whether path still has the identity rec: same kind and size, and the
 * same mtime or (when rec has a hash) the same content.
 */
bool jident_matches(const char *path, bool is_dir, const struct jident *rec);
/* Whether two recorded identities are of the same data, as
 * jident_matches judges a path against one (the same size, and the same
 * mtime or both hashed the same); true when either is absent or could
 * not be read (nothing to tell them apart by). */
bool jident_same(const struct jident *a, const struct jident *b);

#endif
