/*
 * undo: nothing a failed task touched is lost or left looking complete.
 *
 * Before a task runs, undo_save() copies each of its INOUT data (files or
 * directory collections) to .wfrun/saved/<id>/ — a FICLONE reflink where
 * the file system can, a plain copy otherwise (a hard link would not do:
 * the task writes the same inode); of an INOUT file reached through a
 * symbolic link or with other hard links, the file's data, put back by
 * rewriting it in place — with a manifest naming the task and
 * the paths, and renames the directory into place only when complete.
 * When the task fails, undo_fail() moves what it left (its OUT data and
 * the updated INOUT data) aside to .wfrun/failed/<name>/<id>/ — never
 * deleting it — and renames the saved copies back (an INOUT file is
 * hard-linked aside first, so the rename replaces it with no gap).  When it succeeds and
 * its journal record is on disk, undo_discard() drops the copies,
 * manifest first: a directory without one is no copy (a fault that cut
 * the removal short leaves it; the next run removes it).
 *
 * undo_recover() runs before a new run starts: a saved directory that a
 * killed master left belongs to a task that was running then, or one that
 * finished whose record was not yet on disk; if the journal shows the
 * task finished (a record written after the copy was made, or one its
 * data still matches), the copy is dropped, else it is restored, the
 * latest task's first (so the earliest copy of a chain is what stays);
 * an entry already put back is left alone.  Input files (read, never
 * written by the workflow) are never written here.  Paths are relative
 * to the workdir (the current directory) or absolute.
 */
#ifndef WFRUN_UNDO_H
#define WFRUN_UNDO_H

#include <stdbool.h>
#include <stdint.h>

#include "expand.h"
#include "journal.h"

/* Does task t have INOUT data (so undo_save copies something)? */
bool undo_has_inout(const struct plan *p, uint32_t t);
/* Save the INOUT data of task t, set aside each OUT of it that is a
 * symbolic link (the link, put back if the task fails: the task writes a
 * file of its own there, never through the link), and move each other OUT
 * that holds what t's latest record in j (may be NULL) says it made there
 * into the saved directory (a rename, after the manifest that lists it is
 * sealed; a directory collection is made again, empty), put back if the
 * task fails and dropped when it succeeds, so that the task starts from
 * nothing and its last good output is not lost; 1 when it set something
 * aside (undo_succeeded and undo_discard are then due), 0 when it had
 * nothing to, or -1 with err (the task must not run then).  An INOUT directory collection that now holds
 * a symbolic link or a file with other hard links (made by an earlier
 * task, after the check before the run) is refused. */
int undo_save(const struct plan *p, uint32_t t, const struct journal *j,
	      struct errbuf *err);
/*
 * Task t failed: move its outputs aside and restore its INOUT data.
 * When keep_outputs (on_failure: ignore with every output present), its
 * outputs stay and the copies are dropped.  *aside is set to the
 * directory things were moved to (malloc'd), or NULL when nothing was.
 * Returns 0, or -1 with err when something could not be moved back (the
 * copy then stays in .wfrun/saved/ and the message names it).
 */
int undo_fail(const struct plan *p, uint32_t t, bool keep_outputs,
	      char **aside, struct errbuf *err);
/* Task t succeeded and its journal record is written to the file (not
 * yet synced): mark its copies so that a run after a kill drops them even if
 * a later task changed the data (undo_recover). */
void undo_succeeded(uint32_t t);
/* Drop the copies of a task that succeeded. */
void undo_discard(uint32_t t);
/* Restore or drop what a killed run left in .wfrun/saved/; returns how
 * many tasks' data were restored. */
size_t undo_recover(const struct journal *j);
/* How many tasks' data undo_recover would restore (nothing changed). */
size_t undo_pending(const struct journal *j);

/*
 * Originals: a workflow input (a file or directory collection no earlier
 * task makes) that a task updates in place (INOUT) is kept as it was
 * before its first update, in .wfrun/orig/<hash of its path>/ (copied
 * as undo_save copies, with a manifest naming the path and the task that
 * took it), so that a rerun can start the chain of updates from it
 * again: a task that read the original, or the first update itself,
 * runs again (resume.h, struct resume_orig).  A copy is kept while the
 * journal has a record of the task that took it.
 */
/* Keep the original of each datum that task t is the first to update
 * in place (first: per access of the dag, resume.h) unless it is kept
 * already; 0, or -1 with err (t must not run then). */
int undo_keep_originals(const struct plan *p, uint32_t t, const uint8_t *first,
			struct errbuf *err);
/* Whether the original of the datum at path is kept. */
bool undo_has_original(const char *path);
/* Put the original of path back, moving what is there into *aside (as
 * undo_fail does); the original stays kept.  1 when it did, 0 when path
 * is as the original already, or -1 with err. */
int undo_put_original(const char *path, char **aside, struct errbuf *err);
/* Remove the originals whose taker the journal has no record of (the
 * journal was removed, or the taker never finished: it takes a new
 * one), and what a fault left of copies being made. */
void undo_drop_originals(const struct journal *j);

/* Remove a tree that wfrun made (rm -rf). */
void undo_rmtree(const char *path);

#endif
