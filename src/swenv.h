/*
 * swenv: a task's software environment.  Turns a task's command into the
 * command that runs it inside its environment modules (`module load ...`
 * in the same shell, with Lmod or Environment Modules, whichever the host
 * has) and/or its container (docker, podman, apptainer or singularity):
 * the ONE place every executor's command line for such a task is made
 * (the runner calls it; local, SSH agents and Slurm job scripts run the
 * line it gives).  Also asks the engine and the module system, once per
 * image and module, whether what the tasks name is there (check, and the
 * pulls before a run), and removes a task's container that its kill left
 * behind.
 *
 * Owns the wrapper's text and the probes; never runs a task itself.
 */
#ifndef WFRUN_SWENV_H
#define WFRUN_SWENV_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "util.h"

struct wf_task;
struct workflow;

/* The engines by name, in the order "the first found" tries them. */
extern const char *const swenv_engines[];
extern const size_t swenv_nengines;

/* One task instance to wrap. */
struct swenv_job {
	const char *image;      /* NULL: no container */
	const char *modules;    /* one per line; NULL: none */
	bool network;
	const char *engine;     /* NULL: the first found where it runs */
	const char *name;       /* the container's name */
	char *const *env_add;   /* NAME=VALUE the task adds (NULL-ended) */
};

/* True when task t runs in a container or loads modules. */
bool swenv_used(const struct wf_task *t);

/* The container name of instance inst of task: wfrun-PID-TASK-INST. */
void swenv_name(const char *task, unsigned inst, struct strbuf *out);

/* The sh -c script that runs cmd (a shell command) in j's environment. */
void swenv_wrap(const struct swenv_job *j, const char *cmd,
		struct strbuf *out);

/* 0 when engine is a known name (NULL is); else -1 with err. */
int swenv_engine_known(const char *engine, struct errbuf *err);

/* What swenv_prepare does. */
enum {
	SWENV_MODULES = 1, /* try to load each module (check) */
	SWENV_PULL = 2,    /* pull an image the engine does not have (run) */
};

/*
 * Ask this machine's engine (and module system, with SWENV_MODULES) about
 * every image (and module) the workflow's tasks name, each once: errors
 * (a missing engine, image, module system or module: the task, the name
 * and the tool's own message) go to stderr.  With SWENV_PULL, an image
 * the engine does not have is pulled, its time and result written to
 * events (when not NULL) as
 *   {"t":..,"ev":"pull","worker":"local","engine":E,"image":I,"s":S,
 *    "ok":true|false}
 * Returns the number of errors.
 */
int swenv_prepare(const struct workflow *wf, const char *engine,
		  unsigned what, FILE *events);

/* The sh lines that set $e to the engine (the first found: NULL) or end
 * with 127, for scripts made elsewhere (swenv_remote.c). */
void swenv_script_engine(const char *engine, struct strbuf *out);
/* The sh lines that make `module` a function or end with 127. */
const char *swenv_script_modules(void);

/* Remove container name (after its task was killed), quietly and in
 * the background: the pid of the removal (registered with spawn_own:
 * reap it with spawn_wait), or -1. */
pid_t swenv_remove_start(const char *engine, const char *name);

#endif
