#include "slurm_alloc.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "resources.h"
#include "slurm.h"
#include "spawn.h"

extern char **environ;

/* Seconds between two looks at the queue while a job pends: short, as a
 * node granted waits for its first task meanwhile; one squeue a poll
 * for all jobs, whatever their number. */
#define POLL_FIRST 0.25
#define POLL_MOST 2.0
/* Seconds slurm_alloc_release waits in all for an sbatch under way and
 * its scancel (RELEASE_HURRY after a second Ctrl-C), and at least for
 * the scancel: Slurm's commands hang while slurmctld's host does not
 * answer, and the run's end waited for them as long as they took. */
#define RELEASE_WAIT 10.0
#define RELEASE_HURRY 2.0
/* Bytes of a command's output kept: squeue's for 100,000 jobs. */
#define OUT_MAX (8 << 20)

/* --- Slurm's commands as child processes ---------------------------------- */

typedef void (*cmd_done_fn)(struct slurm_cmd *c, void *arg);

struct slurm_cmd {
	pid_t pid;              /* 0: reaped */
	int status;             /* its wait status, -1: not known */
	int fd[2];              /* its stdout and stderr, -1: ended */
	struct strbuf out, err;
	struct loop *loop;      /* NULL: waited for */
	cmd_done_fn done;
	void *arg;
};

static void
cmd_free(struct slurm_cmd *c)
{
	strbuf_release(&c->out);
	strbuf_release(&c->err);
	free(c);
}

/* Start argv with stdin /dev/null, stdout and stderr on pipes: NULL
 * with err (naming the command) when it cannot start. */
static struct slurm_cmd *
cmd_spawn(char *const *argv, struct errbuf *err)
{
	int fds[2];
	pid_t pid = spawn_command(argv, fds, err);
	if (pid < 0) {
		size_t n = strlen(err->msg);
		snprintf(err->msg + n, sizeof(err->msg) - n, " (are Slurm's "
			 "commands installed and on PATH?)");
		return NULL;
	}
	struct slurm_cmd *c = xcalloc(1, sizeof(*c));
	c->pid = pid;
	c->status = -1;
	c->fd[0] = fds[0];
	c->fd[1] = fds[1];
	strbuf_init(&c->out);
	strbuf_init(&c->err);
	return c;
}

static void
cmd_reap(struct slurm_cmd *c, bool block)
{
	if (!c->pid)
		return;
	pid_t r = spawn_wait(c->pid, &c->status, block);
	if (r == c->pid)
		c->pid = 0;
	else if (r < 0) /* not a child: cannot be */
		c->pid = 0, c->status = -1;
}

/* Fd i of c is done with. */
static void
cmd_close_fd(struct slurm_cmd *c, int i)
{
	if (c->loop)
		loop_unwatch_fd(c->loop, c->fd[i]);
	close(c->fd[i]);
	c->fd[i] = -1;
}

/* Read fd i of c: false at its end. */
static bool
cmd_read(struct slurm_cmd *c, int i)
{
	char buf[65536];
	ssize_t n = read(c->fd[i], buf, sizeof(buf));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return true;
	if (n <= 0) {
		cmd_close_fd(c, i);
		return false;
	}
	struct strbuf *sb = i ? &c->err : &c->out;
	if (sb->len < OUT_MAX)
		strbuf_add(sb, buf, (size_t)n);
	return true;
}

/* Done when both outputs ended and it is reaped: tell, and free it. */
static bool
cmd_check(struct slurm_cmd *c)
{
	if (c->fd[0] >= 0 || c->fd[1] >= 0)
		return false;
	cmd_reap(c, false);
	if (c->pid)
		return false;
	if (c->done)
		c->done(c, c->arg);
	cmd_free(c);
	return true;
}

static void
on_cmd_output(int fd, short revents, void *arg)
{
	(void)revents;
	struct slurm_cmd *c = arg;
	cmd_read(c, fd == c->fd[1]);
	cmd_check(c);
}

/* Run argv in the loop: done(c, arg) when it has ended (c is freed
 * after), NULL with err when it cannot start. */
static struct slurm_cmd *
cmd_start(struct loop *loop, char *const *argv, cmd_done_fn done, void *arg,
	  struct errbuf *err)
{
	struct slurm_cmd *c = cmd_spawn(argv, err);
	if (!c)
		return NULL;
	c->loop = loop;
	c->done = done;
	c->arg = arg;
	for (int i = 0; i < 2; i++) {
		fcntl(c->fd[i], F_SETFL, fcntl(c->fd[i], F_GETFL) | O_NONBLOCK);
		loop_watch_fd(loop, c->fd[i], POLLIN, on_cmd_output, c);
	}
	return c;
}

/* Read c's stdout and stderr to their end, waiting until the
 * clock_mono() time until at most (HUGE_VAL: as long as it takes): past
 * it, c is killed (its process group) and its outputs closed. */
static void
cmd_drain(struct slurm_cmd *c, double until)
{
	while (c->fd[0] >= 0 || c->fd[1] >= 0) {
		struct pollfd f[2] = { { c->fd[0], POLLIN, 0 },
				       { c->fd[1], POLLIN, 0 } };
		int ms = -1;
		if (until < HUGE_VAL) {
			double left = until - clock_mono();
			ms = left > 0 ? (int)(left * 1000) + 1 : 0;
		}
		int r = poll(f, 2, ms);
		if (r < 0 && errno != EINTR)
			break;
		if (r == 0) {
			if (c->pid)
				kill(-c->pid, SIGKILL);
			for (int i = 0; i < 2; i++)
				if (c->fd[i] >= 0)
					cmd_close_fd(c, i);
			break;
		}
		for (int i = 0; i < 2; i++)
			if (f[i].revents)
				cmd_read(c, i);
	}
}

/* Run argv to its end, or until (cmd_drain): its exit status (-1:
 * killed or not known), out and errs filled; -2 with err when it cannot
 * start. */
static int
cmd_run(char *const *argv, struct strbuf *out, struct strbuf *errs,
	struct errbuf *err, double until)
{
	struct slurm_cmd *c = cmd_spawn(argv, err);
	if (!c)
		return -2;
	cmd_drain(c, until);
	for (int i = 0; i < 2; i++)
		if (c->fd[i] >= 0)
			close(c->fd[i]);
	cmd_reap(c, true);
	int rc = c->status >= 0 && WIFEXITED(c->status)
			 ? WEXITSTATUS(c->status) : -1;
	strbuf_add(out, c->out.buf, c->out.len);
	strbuf_add(errs, c->err.buf, c->err.len);
	cmd_free(c);
	return rc;
}

/* What a command said, for an error: its first stderr line that says
 * "error", else its first, else its exit. */
static void
said(const struct slurm_cmd *c, const char *what, struct strbuf *msg)
{
	const char *s = c->err.len ? c->err.buf : "";
	const char *e = strstr(s, "error");
	const char *line = s;
	if (e) {
		while (e > s && e[-1] != '\n')
			e--;
		line = e;
	}
	size_t n = strcspn(line, "\n");
	strbuf_reset(msg);
	if (n)
		strbuf_addf(msg, "%.*s", (int)(n > 500 ? 500 : n), line);
	else if (c->status >= 0 && WIFEXITED(c->status))
		strbuf_addf(msg, "%s exited with status %d and said nothing",
			    what, WEXITSTATUS(c->status));
	else
		strbuf_addf(msg, "%s ended and said nothing", what);
}

/* --- pure parsers --------------------------------------------------------- */

/* The value of key (with its '=') in [s, end), new string, or NULL. */
static char *
field(const char *s, const char *end, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = s; p && p < end; p = strpbrk(p, " \n")) {
		while (p < end && (*p == ' ' || *p == '\n'))
			p++;
		if ((size_t)(end - p) > kl && !strncmp(p, key, kl)) {
			p += kl;
			return xstrndup(p, strcspn(p, " \n"));
		}
	}
	return NULL;
}

char *
slurm_parse_partition(const char *text, const char *want)
{
	const char *p = text;
	while ((p = strstr(p, "PartitionName="))) {
		const char *end = strstr(p + 1, "PartitionName=");
		if (!end)
			end = p + strlen(p);
		char *name = field(p, end, "PartitionName=");
		char *def = field(p, end, "Default=");
		bool ok = want ? !strcmp(name, want) : def && !strcmp(def, "YES");
		free(def);
		if (ok)
			return name;
		free(name);
		p = end;
	}
	return NULL;
}

long
slurm_parse_mem(const char *s)
{
	char *e;
	errno = 0;
	long v = strtol(s, &e, 10);
	if (e == s || errno || v < 0)
		return -1;
	long mul = 1;
	switch (toupper((unsigned char)*e)) {
	case '\0':
	case 'M':
		break;
	case 'K':
		return *e && e[1] ? -1 : v / 1024;
	case 'G':
		mul = 1024;
		break;
	case 'T':
		mul = 1024L * 1024;
		break;
	default:
		return -1;
	}
	if (*e && e[1])
		return -1;
	return v > 0 && mul > 1 && v > (1L << 40) / mul ? -1 : v * mul;
}

int
slurm_parse_sinfo(const char *text, long *cpus, long *mem_mb)
{
	int found = -1;
	*cpus = *mem_mb = 0;
	for (const char *p = text; *p;) {
		char *e;
		long c = strtol(p, &e, 10);
		if (e != p && c > 0) {
			long m = strtol(e, NULL, 10);
			*cpus = c > *cpus ? c : *cpus;
			*mem_mb = m > *mem_mb ? m : *mem_mb;
			found = 0;
		}
		p += strcspn(p, "\n");
		p += *p == '\n';
	}
	return found;
}

int
slurm_parse_squeue(char *line, char **id, char **state, char **node,
		   long *cpus)
{
	char *save = NULL;
	*id = strtok_r(line, " \t", &save);
	*state = strtok_r(NULL, " \t", &save);
	char *a = strtok_r(NULL, " \t", &save);
	char *b = strtok_r(NULL, " \t", &save);
	/* a pending job has no node: its line has three words */
	*node = b ? a : NULL;
	char *c = b ? b : a;
	if (!*id || !*state || !c)
		return -1;
	char *e;
	*cpus = strtol(c, &e, 10);
	return *e || *cpus < 0 ? -1 : 0;
}

static void
push(char **argv, size_t *n, char *s)
{
	argv[(*n)++] = s;
}

char **
slurm_sbatch_argv(const struct slurm_spec *s, const char *name)
{
	char **argv = xcalloc(16 + s->options.n, sizeof(char *));
	size_t n = 0;
	push(argv, &n, xstrdup("sbatch"));
	push(argv, &n, xstrdup("--parsable"));
	push(argv, &n, xstrdup("--nodes=1"));
	push(argv, &n, xasprintf("--job-name=%s", name));
	push(argv, &n, xstrdup("--output=/dev/null"));
	if (s->partition)
		push(argv, &n, xasprintf("--partition=%s", s->partition));
	if (s->account)
		push(argv, &n, xasprintf("--account=%s", s->account));
	if (s->qos)
		push(argv, &n, xasprintf("--qos=%s", s->qos));
	if (s->time)
		push(argv, &n, xasprintf("--time=%s", s->time));
	/* the node's CPUs, or a part of it: the agent runs what fits */
	if (s->cores_per_node) {
		push(argv, &n, xstrdup("--ntasks=1"));
		push(argv, &n, xasprintf("--cpus-per-task=%ld",
					 s->cores_per_node));
	} else {
		push(argv, &n, xstrdup("--exclusive"));
	}
	if (s->memory)
		push(argv, &n, xasprintf("--mem=%s", s->memory));
	for (size_t i = 0; i < s->options.n; i++)
		push(argv, &n, xstrdup(s->options.v[i]));
	/* the job only holds the node; the agent is a step of it */
	push(argv, &n, xstrdup("--wrap=exec sleep infinity"));
	return argv;
}

/* --- startup -------------------------------------------------------------- */

int
slurm_partition_get(const char *partition, struct slurm_partition *pi,
		    struct errbuf *err)
{
	memset(pi, 0, sizeof(*pi));
	struct strbuf out = STRBUF_INIT, errs = STRBUF_INIT;
	char *sc[] = { "scontrol", "show", "partition", (char *)partition,
		       NULL };
	int rc = cmd_run(sc, &out, &errs, err, HUGE_VAL);
	if (rc == -2)
		goto fail;
	pi->name = slurm_parse_partition(out.buf, partition);
	if (!pi->name) {
		/* it says why on stdout ("Partition foo not found") */
		struct strbuf *w = errs.len ? &errs : &out;
		size_t n = strcspn(w->buf, "\n");
		if (partition && n)
			errprintf(err, "partition '%s': scontrol says: %.*s",
				  partition, (int)n, w->buf);
		else if (partition)
			errprintf(err, "no partition '%s' (scontrol show "
				  "partition)", partition);
		else
			errprintf(err, "the Slurm cluster has no default "
				  "partition: give one (<slurm partition=...>)");
		goto fail;
	}
	strbuf_reset(&out);
	strbuf_reset(&errs);
	char *si[] = { "sinfo", "-h", "-N", "-p", pi->name, "-o", "%c %m",
		       NULL };
	rc = cmd_run(si, &out, &errs, err, HUGE_VAL);
	if (rc == -2)
		goto fail;
	if (rc || slurm_parse_sinfo(out.buf, &pi->cpus, &pi->mem_mb) < 0) {
		errs.len = strcspn(errs.buf, "\n");
		errprintf(err, "partition '%s' has no node (sinfo%s%.*s)",
			  pi->name, errs.len ? ": " : "", (int)errs.len,
			  errs.buf);
		goto fail;
	}
	strbuf_release(&out);
	strbuf_release(&errs);
	return 0;
fail:
	strbuf_release(&out);
	strbuf_release(&errs);
	slurm_partition_release(pi);
	return -1;
}

void
slurm_partition_release(struct slurm_partition *pi)
{
	free(pi->name);
	memset(pi, 0, sizeof(*pi));
}

/* scancel ids (a NULL-terminated list after "scancel"), until at most
 * (cmd_drain): what it said. */
static int
scancel_sync(struct strvec *ids, struct errbuf *err, double until)
{
	if (ids->n <= 1)
		return 0;
	VEC_PUSH(*ids, NULL);
	struct strbuf out = STRBUF_INIT, errs = STRBUF_INIT;
	int rc = cmd_run(ids->v, &out, &errs, err, until);
	ids->n--;
	/* a job that ended meanwhile is no error */
	bool bad = rc > 0 && !strstr(errs.buf, "Invalid job id");
	if (bad) {
		errs.len = strcspn(errs.buf, "\n");
		errprintf(err, "scancel: %.*s", (int)errs.len, errs.buf);
	} else if (rc < 0 && rc != -2) {
		errprintf(err, "scancel did not answer");
		bad = true;
	}
	strbuf_release(&out);
	strbuf_release(&errs);
	return rc == -2 || bad ? -1 : 0;
}

static void wait_gone(struct strvec *ids);

int
slurm_alloc_clean(const char *record, struct errbuf *err)
{
	FILE *f = fopen_bounded(record, 1 << 20, NULL);
	if (!f)
		return 0;
	char line[64];
	struct strvec ids = { 0 };
	VEC_PUSH(ids, xstrdup("scancel"));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (*line && strspn(line, "0123456789_") == strlen(line))
			VEC_PUSH(ids, xstrdup(line));
	}
	fclose(f);
	err->msg[0] = '\0';
	int rc = scancel_sync(&ids, err, HUGE_VAL);
	/* a job still running writes the outputs this run is to make */
	if (!rc)
		wait_gone(&ids);
	for (size_t i = 0; i < ids.n; i++)
		free(ids.v[i]);
	VEC_FREE(ids);
	if (!rc)
		unlink(record);
	return rc;
}

/* --- the jobs ------------------------------------------------------------- */

void
slurm_alloc_init(struct slurm_alloc *a, const struct slurm_spec *spec,
		 const char *name, const char *record, long node_cores,
		 struct loop *loop, const struct slurm_alloc_ops *ops)
{
	memset(a, 0, sizeof(*a));
	a->spec = spec;
	a->name = xstrdup(name);
	a->record = xstrdup(record);
	a->node_cores = node_cores > 0 ? node_cores : 1;
	a->loop = loop;
	a->ops = *ops;
	a->interval = POLL_FIRST;
}

size_t
slurm_alloc_coming(const struct slurm_alloc *a)
{
	size_t n = 0;
	for (size_t i = 0; i < a->nodes.n; i++)
		n += a->nodes.v[i]->state == SLURM_SUBMITTING ||
		     a->nodes.v[i]->state == SLURM_PENDING;
	return n;
}

static size_t
held(const struct slurm_alloc *a)
{
	size_t n = 0;
	for (size_t i = 0; i < a->nodes.n; i++)
		n += a->nodes.v[i]->state != SLURM_GONE;
	return n;
}

static void poll_fired(void *arg);

static void
arm_poll(struct slurm_alloc *a)
{
	if (!a->poll.armed && !a->squeue && !a->closing)
		loop_timer_arm(a->loop, &a->poll, a->interval, poll_fired, a);
}

static void
refuse(struct slurm_alloc *a, const char *msg)
{
	a->refused = true;
	a->ops.error(a->ops.arg, msg);
}

void
slurm_record_job(const char *record, const char *id)
{
	FILE *f = fopen(record, "a");
	if (f) {
		fprintf(f, "%s\n", id);
		fclose(f);
	}
}

static void
sbatch_done(struct slurm_cmd *c, void *arg)
{
	struct slurm_node *n = arg;
	struct slurm_alloc *a = n->alloc;
	n->cmd = NULL;
	const char *s = c->out.buf;
	size_t len = strspn(s, "0123456789");
	/* (its status is not known when a local worker reaped it) */
	if (len && (s[len] == '\n' || s[len] == ';' || !s[len]) &&
	    c->status <= 0) {
		n->job = xstrndup(s, len);
		n->state = SLURM_PENDING;
		slurm_record_job(a->record, n->job);
		arm_poll(a);
		return;
	}
	n->state = SLURM_GONE;
	struct strbuf msg = STRBUF_INIT;
	said(c, "sbatch", &msg);
	if (!a->refused)
		refuse(a, msg.buf);
	strbuf_release(&msg);
}

void
slurm_alloc_want(struct slurm_alloc *a, long cores)
{
	long coming = (long)slurm_alloc_coming(a) * a->node_cores;
	while (!a->refused && cores > coming &&
	       held(a) < (size_t)a->spec->max_nodes) {
		struct slurm_node *n = xcalloc(1, sizeof(*n));
		n->state = SLURM_SUBMITTING;
		n->alloc = a;
		char **argv = slurm_sbatch_argv(a->spec, a->name);
		struct errbuf err;
		n->cmd = cmd_start(a->loop, argv, sbatch_done, n, &err);
		slurm_argv_free(argv);
		VEC_PUSH(a->nodes, n);
		if (!n->cmd) {
			n->state = SLURM_GONE;
			refuse(a, err.msg);
			return;
		}
		coming += a->node_cores;
	}
}

static struct slurm_node *
node_of(struct slurm_alloc *a, const char *id)
{
	for (size_t i = 0; i < a->nodes.n; i++)
		if (a->nodes.v[i]->job && !strcmp(a->nodes.v[i]->job, id))
			return a->nodes.v[i];
	return NULL;
}

static void
squeue_done(struct slurm_cmd *c, void *arg)
{
	struct slurm_alloc *a = arg;
	a->squeue = NULL;
	bool *seen = xcalloc(a->nodes.n + 1, sizeof(bool));
	for (char *line = c->out.buf, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *id, *state, *node;
		long cpus;
		if (slurm_parse_squeue(line, &id, &state, &node, &cpus) < 0)
			continue;
		struct slurm_node *n = node_of(a, id);
		if (!n || n->state != SLURM_PENDING)
			continue;
		for (size_t i = 0; i < a->nodes.n; i++)
			seen[i] |= a->nodes.v[i] == n;
		if (!strcmp(state, "RUNNING") && node && *node) {
			n->state = SLURM_RUNNING;
			n->node = xstrdup(node);
			n->cores = cpus > 0 ? cpus : a->node_cores;
			a->ops.up(a->ops.arg, n);
		} else if (strcmp(state, "PENDING") &&
			   strcmp(state, "CONFIGURING")) {
			warning_msg("Slurm job %s of the run is %s: asking "
				    "again when tasks wait", n->job, state);
			n->state = SLURM_GONE;
		}
	}
	/* not in the queue any more (and squeue answered): it ended */
	for (size_t i = 0; i < a->nodes.n && c->status == 0 && !c->err.len;
	     i++)
		if (!seen[i] && a->nodes.v[i]->state == SLURM_PENDING)
			a->nodes.v[i]->state = SLURM_GONE;
	free(seen);
	a->interval = a->interval * 2 > POLL_MOST ? POLL_MOST : a->interval * 2;
	if (slurm_alloc_coming(a))
		arm_poll(a);
	else
		a->interval = POLL_FIRST;
}

static void
poll_fired(void *arg)
{
	struct slurm_alloc *a = arg;
	struct strbuf ids = STRBUF_INIT;
	for (size_t i = 0; i < a->nodes.n; i++)
		if (a->nodes.v[i]->state == SLURM_PENDING)
			strbuf_addf(&ids, "%s%s", ids.len ? "," : "",
				    a->nodes.v[i]->job);
	if (ids.len && !a->squeue) {
		char *argv[] = { "squeue", "-h", "-j", ids.buf, "-o",
				 "%i %T %N %C", NULL };
		struct errbuf err;
		a->squeue = cmd_start(a->loop, argv, squeue_done, a, &err);
		if (!a->squeue)
			refuse(a, err.msg);
	} else if (slurm_alloc_coming(a)) {
		arm_poll(a); /* an sbatch still runs */
	}
	strbuf_release(&ids);
}

static void
scancel_done(struct slurm_cmd *c, void *arg)
{
	struct slurm_node *n = arg;
	n->cmd = NULL;
	if (c->status != 0 && c->err.len && !strstr(c->err.buf, "Invalid")) {
		struct strbuf msg = STRBUF_INIT;
		said(c, "scancel", &msg);
		warning_msg("cannot give back node %s (job %s): %s", n->node,
			    n->job, msg.buf);
		strbuf_release(&msg);
	}
}

void
slurm_alloc_give_back(struct slurm_alloc *a, struct slurm_node *n)
{
	if (n->state != SLURM_RUNNING || n->cmd)
		return;
	n->state = SLURM_GONE;
	char *argv[] = { "scancel", n->job, NULL };
	struct errbuf err;
	n->cmd = cmd_start(a->loop, argv, scancel_done, n, &err);
	if (!n->cmd)
		warning_msg("cannot give back node %s: %s", n->node, err.msg);
}

void
slurm_alloc_on_sigchld(struct slurm_alloc *a)
{
	if (a->squeue)
		cmd_check(a->squeue);
	for (size_t i = 0; i < a->nodes.n; i++)
		if (a->nodes.v[i]->cmd)
			cmd_check(a->nodes.v[i]->cmd);
}

/* Wait for a command started in the loop, then tell as the loop would. */
static void
cmd_finish(struct slurm_cmd *c, double until)
{
	cmd_drain(c, until);
	cmd_reap(c, true);
	cmd_check(c);
}

/* Until the cancelled jobs ids (after "scancel") have left the queue
 * (they are COMPLETING while their nodes clean up), or GONE_WAIT: when
 * wfrun ends, nothing of the run is left in squeue.  The run is over:
 * waiting here holds nothing up. */
#define GONE_WAIT 20.0
static void
wait_gone(struct strvec *ids)
{
	if (ids->n <= 1)
		return;
	struct strbuf list = STRBUF_INIT;
	for (size_t i = 1; i < ids->n; i++)
		strbuf_addf(&list, "%s%s", i > 1 ? "," : "", ids->v[i]);
	char *argv[] = { "squeue", "-h", "-j", list.buf, "-o", "%i", NULL };
	double end = clock_mono() + GONE_WAIT;
	struct strbuf out = STRBUF_INIT, errs = STRBUF_INIT;
	struct errbuf err;
	for (;;) {
		strbuf_reset(&out);
		strbuf_reset(&errs);
		/* an error: all left the queue ("Invalid job id") */
		if (cmd_run(argv, &out, &errs, &err, end) != 0 || !out.len ||
		    clock_mono() > end)
			break;
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	strbuf_release(&out);
	strbuf_release(&errs);
	strbuf_release(&list);
}

void
slurm_alloc_release(struct slurm_alloc *a, bool hurry)
{
	if (!a->name)
		return;
	double until = clock_mono() + (hurry ? RELEASE_HURRY : RELEASE_WAIT);
	loop_timer_cancel(a->loop, &a->poll);
	a->closing = true;
	if (a->squeue) {
		struct slurm_cmd *q = a->squeue;
		q->done = NULL;
		cmd_finish(q, clock_mono()); /* its answer no longer matters */
	}
	/* an sbatch that still runs gives its job's id: wait for it */
	for (size_t i = 0; i < a->nodes.n; i++)
		if (a->nodes.v[i]->cmd)
			cmd_finish(a->nodes.v[i]->cmd, until);
	struct strvec ids = { 0 };
	VEC_PUSH(ids, xstrdup("scancel"));
	for (size_t i = 0; i < a->nodes.n; i++) {
		struct slurm_node *n = a->nodes.v[i];
		if (n->job)
			VEC_PUSH(ids, xstrdup(n->job));
	}
	struct errbuf err;
	err.msg[0] = '\0';
	if (scancel_sync(&ids, &err,
			 fmax(until, clock_mono() + RELEASE_HURRY)) < 0)
		warning_msg("%s; the jobs of this run may be left in Slurm's "
			    "queue (the next run here cancels them)", err.msg);
	else if (wait_gone(&ids), 1)
		unlink(a->record);
	for (size_t i = 0; i < ids.n; i++)
		free(ids.v[i]);
	VEC_FREE(ids);
	for (size_t i = 0; i < a->nodes.n; i++) {
		free(a->nodes.v[i]->job);
		free(a->nodes.v[i]->node);
		free(a->nodes.v[i]);
	}
	VEC_FREE(a->nodes);
	free(a->name);
	free(a->record);
	memset(a, 0, sizeof(*a));
}
