/*
 * proto: the protocol between the master and a worker agent
 * (wfrun-worker), documented here and only here.  Pure: it encodes and
 * decodes, it never reads or writes a file descriptor.
 *
 * Version 7.  The agent runs over one byte stream (an SSH exec channel,
 * or a child process's pipes): the master writes to its stdin, the agent
 * answers on its stdout; its stderr is for humans.
 * A message is one line: fields separated by one TAB, ended by LF.  In a
 * field, "\\" is a backslash, "\t" a TAB, "\n" a LF, "\r" a CR; no other
 * byte is escaped and no other escape exists.  The first field is the
 * message's type.  Numbers are decimal; times are Unix epoch seconds with
 * microseconds.  A line may be of any length (a DONE of 100,000 files
 * is tens of MB): PROTO_MAX_LINE, 1 GiB, only keeps a peer that never
 * ends its line from taking all memory; a longer line is an error.
 * (Version 4 refused lines over 1 MiB, and then read the rest of one as
 * new lines; version 5 added PING, PONG and DEADLINE; version 6 adds
 * LOGMAX, and an agent busy with a long job sends PONG unasked; version
 * 7 adds the files' mtimes to DONE, and HAVE, HAS and PRUNE, so that a
 * rerun takes what a worker's store still holds.)
 *
 * Agent -> master
 *   HELLO    version arch ncpus pid          first line, once
 *   DONE     id wstatus start end utime stime maxrss_kb read_bytes
 *            write_bytes out_empty err_empty
 *                                             the task ended (wait status
 *                                             as from wait4; -1 bytes when
 *                                             unknown, maxrss_kb 0)
 *            [stage_out_s nout KIND... nfile (PATH SIZE)...]
 *                                             after a staged task (SRUN):
 *                                             the seconds spent moving its
 *                                             outputs into outdir, one KIND
 *                                             per out of the SRUN ('f' a
 *                                             file, 'd' a directory, '-'
 *                                             missing or not moved: the
 *                                             task failed), then every
 *                                             regular file, symbolic link
 *                                             and directory now under
 *                                             those outputs, relative,
 *                                             with its size in bytes (-1:
 *                                             a directory; a link's: its
 *                                             target's length)
 *            [MTIME_NS...]                    then each of those files'
 *                                             mtime in nanoseconds, in
 *                                             the same order (lstat's)
 *                                             (a DONE whose numbers
 *                                             cannot be read fails its
 *                                             task: proto_parse_done)
 *   FAILED   id message                       the task could not start
 *   WRITTEN  id when bytes                    the answer to WRITTEN: what
 *                                             the task's process group has
 *                                             written to storage so far
 *                                             (its processes' write_bytes;
 *                                             -1 when not known), read at
 *                                             when (the clock of DONE's
 *                                             start and end); none if the
 *                                             task is not running
 *   PONG                                      the answer to PING
 *   HAS      id ok [why]                      the answer to HAVE: ok 1,
 *                                             the store holds exactly
 *                                             that; 0 and why it does not
 *   BYE                                       the agent is exiting
 *
 * Master -> agent
 *   RUN      id cwd out_log err_log nenv ENV... exe ARGV...
 *                                             start a task in cwd (logs are
 *                                             absolute paths; ENV are
 *                                             NAME=VALUE added to the
 *                                             agent's environment; exe is
 *                                             looked up on the agent's PATH
 *                                             when it has no '/')
 *   SRUN     id sandbox outdir nlink (SRC DST COPY)... nmk DIR...
 *            nout OUT... out_log err_log nenv ENV... exe ARGV...
 *                                             a task of a workdir that is
 *                                             not shared: make the sandbox
 *                                             (absolute), link each SRC
 *                                             (absolute, a file) to DST
 *                                             (relative to the sandbox;
 *                                             COPY 1: copy it instead, the
 *                                             task writes it), make each
 *                                             DIR, run the task there; if
 *                                             it exits 0, move each OUT to
 *                                             outdir/OUT and remove the
 *                                             sandbox (kept after a
 *                                             failure, for a look); an
 *                                             absolute OUT is only looked
 *                                             for where it is (its KIND
 *                                             in DONE, no file listed)
 *   LOGMAX   id bytes                         right before a RUN or SRUN:
 *                                             each of its logs keeps at
 *                                             most about bytes, the cut
 *                                             said in the log (none: no
 *                                             cap)
 *   DEADLINE id secs                          right after a RUN or SRUN:
 *                                             SIGKILL the task's group
 *                                             secs after it was received,
 *                                             should it still run (the
 *                                             master kills it at its
 *                                             timeout; this holds when
 *                                             the master cannot)
 *   KILL     id signo                         signal one task's group
 *   STOP     id                               SIGKILL one task's group: it
 *                                             was stopped to run again
 *                                             later, so a staged task's
 *                                             sandbox is removed when it
 *                                             ends, whatever its status
 *   KILLALL  signo                            signal every task's group
 *   WRITTEN  id                               ask what a running task has
 *                                             written so far
 *   HAVE     id dir n (PATH SIZE MTIME_NS)... does dir (absolute, normal,
 *                                             with a /.wfrun/data/
 *                                             component) hold each PATH
 *                                             (relative, normal) with
 *                                             that size and mtime, as
 *                                             DONE listed it (SIZE -1: a
 *                                             directory, mtime not
 *                                             compared)?  Answer HAS
 *   PRUNE    workdir RUN...                   remove workdir/.wfrun/data/RUN
 *                                             and workdir/.wfrun/sandbox/
 *                                             RUN for each RUN (one path
 *                                             component, not . or ..):
 *                                             stores no record refers to
 *   EXIT                                      kill every task, say BYE, exit
 *   PING     lost                             a heartbeat, first right
 *                                             after HELLO, then at least
 *                                             every lost/4 seconds: answer
 *                                             PONG; from now on, when no
 *                                             byte comes from the master
 *                                             for lost seconds (or it
 *                                             takes none for as long), it
 *                                             is gone: as at EXIT
 *
 * Liveness: HELLO must come within the worker's timeout of the agent's
 * start, and be the first line (anything else: the worker failed); once
 * ready, an agent that sends no byte for lost seconds, or a line that
 * cannot be decoded, is lost: its tasks are run again elsewhere and what
 * it says later is ignored.
 *
 * End of input on the agent's stdin is EXIT: when the connection drops,
 * the agent kills its tasks (SIGTERM, SIGKILL 5 s later) and exits, so no
 * process is left behind on the worker.  Its store (the outdirs of SRUN)
 * stays as it is, whatever happens to the connection: only PRUNE removes
 * a run's store, so a master killed before its fetch can take, in its
 * next run, what its tasks left there (HAVE).  An unknown message type is
 * ignored with a warning on stderr (a newer master may send more).
 */
#ifndef WFRUN_PROTO_H
#define WFRUN_PROTO_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

#define PROTO_VERSION 7
#define PROTO_MAX_LINE ((size_t)1 << 30)

/* Append one escaped field (preceded by a TAB unless first). */
void proto_field(struct strbuf *line, const char *s, int first);
void proto_fieldf(struct strbuf *line, const char *fmt, ...) PRINTF(2, 3);
/* End the line. */
void proto_end(struct strbuf *line);

/* A decoded message: fields point into the decoder's buffer and are valid
 * until the next call to proto_next(). */
struct proto_msg {
	char **f;
	size_t n;
};

struct proto_decoder {
	struct strbuf in;     /* bytes received, not yet decoded */
	size_t pos;           /* start of the next line in in */
	size_t scanned;       /* bytes from pos known to hold no LF */
	bool skip;            /* dropping the rest of a line too long */
	size_t max;           /* the longest line: PROTO_MAX_LINE */
	struct strbuf cur;    /* the current line, unescaped in place */
	VEC(char *) fields;
};

void proto_decoder_init(struct proto_decoder *d);
void proto_decoder_release(struct proto_decoder *d);
void proto_feed(struct proto_decoder *d, const char *buf, size_t n);
/*
 * Decode the next complete message: 1 and *m filled, 0 when no whole line
 * is buffered, -1 on a malformed line (err filled; the line is dropped).
 */
int proto_next(struct proto_decoder *d, struct proto_msg *m,
	       struct errbuf *err);

/*
 * A DONE message's numbers.  The staged part, when there is one, gives
 * nout KINDs at f[14 ..] and nfile (PATH SIZE) pairs from f[kfile]; its
 * sizes have been checked, and are read with strtoll; so are the nfile
 * mtimes from f[kmtime] (kmtime 0: the agent sent none).
 */
struct proto_done {
	long id;
	int wstatus;
	double start, end, utime, stime;
	long maxrss_kb;
	long long read_bytes, write_bytes; /* -1: not known */
	int out_empty, err_empty;
	int staged;
	double stage_out_s;
	size_t nout, nfile, kfile, kmtime;
};

/*
 * Decode a DONE message (m->f[0] is "DONE").  0 and *d filled, or -1 with
 * err naming the field that is missing or not a number of its kind: a
 * DONE that cannot be read says nothing about its task, not zeros.  A
 * newer agent may append fields; they are ignored.
 */
int proto_parse_done(const struct proto_msg *m, struct proto_done *d,
		     struct errbuf *err);

#endif
