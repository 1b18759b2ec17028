/* swenv: a task's modules and container (swenv.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "expand.h"
#include "spawn.h"
#include "swenv.h"
#include "workflow.h"

const char *const swenv_engines[] = { "docker", "podman", "apptainer",
				      "singularity" };
const size_t swenv_nengines = ARRAY_SIZE(swenv_engines);

/* Make `module` a function of this sh (Lmod's or Environment Modules'
 * init for sh), or end with 127. */
static const char module_init[] =
	"command -v module >/dev/null 2>&1 || "
	"for f in \"${LMOD_PKG:-/usr/share/lmod/lmod}/init/profile\" "
	"\"${MODULESHOME:-/usr/share/modules}/init/sh\" "
	"/etc/profile.d/modules.sh; do "
	"if [ -r \"$f\" ]; then . \"$f\"; break; fi; done\n"
	"command -v module >/dev/null 2>&1 || { echo 'wfrun: no module "
	"system (Lmod or Environment Modules) on this host' >&2; exit 127; }\n";

/* $e: the engine asked for, or the first found; or end with 127. */
static void
engine_pick(const char *engine, struct strbuf *out)
{
	if (engine) {
		strbuf_adds(out, "e=");
		sq_quote(out, engine, strlen(engine));
		strbuf_adds(out, "\n");
		return;
	}
	strbuf_adds(out, "e=\nfor c in");
	for (size_t i = 0; i < swenv_nengines; i++)
		strbuf_addf(out, " %s", swenv_engines[i]);
	strbuf_adds(out, "; do if command -v \"$c\" >/dev/null 2>&1; then "
		      "e=$c; break; fi; done\n[ -n \"$e\" ] || { echo 'wfrun: "
		      "no container engine (docker, podman, apptainer, "
		      "singularity) on this host' >&2; exit 127; }\n");
}

/* Podman (4.3) sets its own RLIMIT_NPROC to kernel.pid_max and asks
 * for 1048576 open files and processes in the container: above our hard
 * limits without CAP_SYS_RESOURCE, runc's setrlimit fails (EPERM).  So
 * our own limits, nproc no higher than pid_max; and runc (crun fails in
 * cgroup hybrid mode) unless the user configured podman.  $r: rm kills
 * at once (podman's default is TERM, then KILL 10 s later).  $c, with a
 * --cgroup-parent: conmon stays in the task's cgroups, where it may
 * outlive the run by a moment, not in a child the run's end removes. */
static const char podman_opts[] =
	"x= r= c=\nif [ \"${e##*/}\" = podman ]; then\nr=\"-t 0\" "
	"c=\"--cgroups no-conmon\"\n"
	"n=$(ulimit -n); p=$(ulimit -u 2>/dev/null || ulimit -p)\n"
	"m=$(cat /proc/sys/kernel/pid_max 2>/dev/null) || m=\n"
	"[ \"$n\" = unlimited ] && n=-1\n"
	"if [ \"$p\" = unlimited ] || { [ -n \"$m\" ] && [ \"$p\" -gt \"$m\" ]; "
	"}; then p=${m:--1}; fi\n"
	"x=\"--ulimit nofile=$n:$n --ulimit nproc=$p:$p\"\n"
	"if [ -z \"$CONTAINERS_CONF\" ] && "
	"[ ! -e /etc/containers/containers.conf ] && "
	"[ ! -e \"$HOME/.config/containers/containers.conf\" ] && "
	"command -v runc >/dev/null 2>&1; then x=\"$x --runtime runc\"; fi\n"
	"fi\n";

/* $g: the task's cgroup (wfrun's, cgroup v2) when the engine can make
 * the container's under it: cgroup v1 for the controllers (hybrid mode)
 * and no systemd (so the engine's cgroup driver is cgroupfs, which takes
 * a path).  The container's CPU time then counts in the task's cgroup
 * and its memory in the same path of the v1 memory hierarchy, where
 * contain.c reads them. */
static const char cgroup_parent[] =
	"g=\nwhile IFS= read -r l; do case $l in 0::/*) g=${l#0::};; esac; "
	"done </proc/self/cgroup\n"
	"case $g in */wfrun-*/t[0-9]*) [ -d /sys/fs/cgroup/unified ] && "
	"[ ! -d /run/systemd/system ] || g=;; *) g=;; esac\n";

/* docker or podman run, in the background so that a TERM or INT ends the
 * container (the engine's client alone would leave it running). */
static void
run_oci(const struct swenv_job *j, const char *cmd, struct strbuf *out)
{
	strbuf_adds(out, podman_opts);
	strbuf_adds(out, cgroup_parent);
	strbuf_adds(out, "w=");
	sq_quote(out, j->name, strlen(j->name));
	strbuf_adds(out, "\ntrap '\"$e\" rm -f $r \"$w\" >/dev/null 2>&1; "
		      "exit 143' INT TERM HUP\n\"$e\" run --rm --name \"$w\"");
	if (!j->network)
		strbuf_adds(out, " --network none");
	strbuf_adds(out, " --mount \"type=bind,src=$PWD,dst=$PWD\" "
		    "-w \"$PWD\" "
		      "--user \"$(id -u):$(id -g)\"");
	for (char *const *a = j->env_add; a && *a; a++) {
		const char *eq = strchr(*a, '=');
		strbuf_adds(out, " -e ");
		sq_quote(out, *a, eq ? (size_t)(eq - *a) : strlen(*a));
	}
	strbuf_adds(out, " $x ${g:+--cgroup-parent \"$g\"} ${g:+$c} ");
	sq_quote(out, j->image, strlen(j->image));
	strbuf_adds(out, " /bin/sh -c ");
	sq_quote(out, cmd, strlen(cmd));
	strbuf_adds(out, " &\nwait $!\n");
}

/* apptainer or singularity: the host's user, environment and network. */
static void
run_sif(const struct swenv_job *j, const char *cmd, struct strbuf *out)
{
	strbuf_adds(out, "\"$e\" exec --bind \"$PWD\" --pwd \"$PWD\" ");
	sq_quote(out, j->image, strlen(j->image));
	strbuf_adds(out, " /bin/sh -c ");
	sq_quote(out, cmd, strlen(cmd));
	strbuf_adds(out, "\n");
}

bool
swenv_used(const struct wf_task *t)
{
	return t->container || t->modules;
}

void
swenv_name(const char *task, unsigned inst, struct strbuf *out)
{
	strbuf_reset(out);
	strbuf_addf(out, "wfrun-%ld-%s-%u", (long)getpid(), task, inst);
}

static bool
is_sif_engine(const char *e)
{
	return e && (!strcmp(e, "apptainer") || !strcmp(e, "singularity"));
}

void
swenv_wrap(const struct swenv_job *j, const char *cmd, struct strbuf *out)
{
	strbuf_reset(out);
	if (j->modules) {
		strbuf_adds(out, module_init);
		strbuf_adds(out, "module load");
		for (const char *m = j->modules; *m;) {
			size_t n = strcspn(m, "\n");
			strbuf_adds(out, " ");
			sq_quote(out, m, n);
			m += n + (m[n] == '\n');
		}
		strbuf_adds(out, " || exit\n");
	}
	if (!j->image) {
		strbuf_adds(out, cmd);
		return;
	}
	engine_pick(j->engine, out);
	if (is_sif_engine(j->engine)) {
		run_sif(j, cmd, out);
	} else if (j->engine) {
		run_oci(j, cmd, out);
	} else {
		strbuf_adds(out, "case ${e##*/} in apptainer|singularity)\n");
		run_sif(j, cmd, out);
		strbuf_adds(out, ";;\n*)\n");
		run_oci(j, cmd, out);
		strbuf_adds(out, ";;\nesac\n");
	}
}

int
swenv_engine_known(const char *engine, struct errbuf *err)
{
	if (!engine)
		return 0;
	for (size_t i = 0; i < swenv_nengines; i++)
		if (!strcmp(engine, swenv_engines[i]))
			return 0;
	return errprintf(err, "unknown container engine '%s': docker, podman, "
			 "apptainer or singularity", engine);
}

/* Run argv here; its exit status (-1: it could not run) with its
 * stderr in out (its stdout when stderr is empty). */
static int
run_tool(char *const *argv, struct strbuf *out)
{
	struct errbuf err;
	int fds[2], st;
	strbuf_reset(out);
	pid_t pid = spawn_command(argv, fds, &err);
	if (pid < 0) {
		strbuf_adds(out, err.msg);
		return -1;
	}
	for (int i = 0; i < 2; i++) {
		char buf[4096];
		ssize_t n;
		size_t from = out->len;
		while ((n = read(fds[i], buf, sizeof(buf))) > 0 ||
		       (n < 0 && errno == EINTR))
			if (n > 0 && out->len < 65536)
				strbuf_add(out, buf, (size_t)n);
		close(fds[i]);
		if (i == 1 && out->len > from) { /* stderr says why */
			memmove(out->buf, out->buf + from, out->len - from + 1);
			strbuf_setlen(out, out->len - from);
		}
	}
	if (spawn_wait(pid, &st, true) != pid)
		return -1;
	while (out->len && (out->buf[out->len - 1] == '\n' ||
			    out->buf[out->len - 1] == ' '))
		out->buf[--out->len] = 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The engine on this machine's PATH: the one asked for, or the first. */
static const char *
engine_here(const char *engine, struct strbuf *sb)
{
	for (size_t i = 0; i < swenv_nengines; i++) {
		const char *e = engine ? engine : swenv_engines[i];
		char *argv[] = { "sh", "-c", "command -v \"$1\"", "sh",
				 (char *)e, NULL };
		if (run_tool(argv, sb) == 0)
			return e;
		if (engine)
			break;
	}
	return NULL;
}

/* Seen before: the first task of the workflow naming s in its field. */
static bool
seen(const struct workflow *wf, size_t upto, const char *s, bool image)
{
	for (size_t i = 0; i < upto; i++) {
		const char *o = image ? wf->tasks[i].container
				      : wf->tasks[i].modules;
		if (o && !strcmp(o, s))
			return true;
	}
	return false;
}

static void
pull_event(FILE *ev, const char *engine, const char *image, double t0,
	   bool ok)
{
	if (!ev)
		return;
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "{\"t\":%.3f,\"ev\":\"pull\",\"worker\":\"local\","
		    "\"engine\":", t0);
	strbuf_add_json(&sb, engine);
	strbuf_adds(&sb, ",\"image\":");
	strbuf_add_json(&sb, image);
	strbuf_addf(&sb, ",\"s\":%.3f,\"ok\":%s}\n", clock_real() - t0,
		    ok ? "true" : "false");
	fputs(sb.buf, ev);
	fflush(ev);
	strbuf_release(&sb);
}

/* Is image there (pull: get it if not)?  0, or -1 said on stderr. */
static int
image_ready(const char *task, const char *engine, const char *image,
	    bool pull, FILE *ev)
{
	struct strbuf sb = STRBUF_INIT;
	bool sif = is_sif_engine(engine);
	char *argv[] = { (char *)engine, sif ? "inspect" : "image",
			 sif ? (char *)image : "inspect", (char *)image, NULL };
	if (sif)
		argv[3] = NULL;
	int rc = run_tool(argv, &sb) == 0 ? 0 : -1;
	if (rc && pull && !sif) {
		char *pargv[] = { (char *)engine, "pull", "-q", (char *)image,
				  NULL };
		double t0 = clock_real();
		info_msg("pulling image %s with %s", image, engine);
		rc = run_tool(pargv, &sb) == 0 ? 0 : -1;
		pull_event(ev, engine, image, t0, !rc);
		if (rc)
			error_msg("task '%s': cannot pull image '%s' with %s: %s",
				  task, image, engine, sb.buf);
	} else if (rc) {
		error_msg("task '%s': image '%s' not found by %s on this "
			  "machine: %s", task, image, engine, sb.buf);
	}
	strbuf_release(&sb);
	return rc;
}

/* Can the modules (one per line) be loaded here?  One probe per module. */
static int
modules_ready(const char *task, const char *mods, struct strvec *done)
{
	struct strbuf sb = STRBUF_INIT, script = STRBUF_INIT;
	int nerr = 0;
	strbuf_addf(&script, "%smodule load \"$1\"", module_init);
	for (const char *m = mods; *m;) {
		size_t n = strcspn(m, "\n");
		char *name = xstrndup(m, n);
		m += n + (m[n] == '\n');
		size_t i;
		for (i = 0; i < done->n && strcmp(done->v[i], name); i++)
			;
		if (i < done->n) {
			free(name);
			continue;
		}
		VEC_PUSH(*done, name);
		char *argv[] = { "sh", "-c", script.buf, "sh", name, NULL };
		if (run_tool(argv, &sb) != 0) {
			error_msg("task '%s': module '%s' cannot be loaded on "
				  "this machine: %s", task, name, sb.buf);
			nerr++;
		}
	}
	strbuf_release(&sb);
	strbuf_release(&script);
	return nerr;
}

int
swenv_prepare(const struct workflow *wf, const char *engine,
	      unsigned what, FILE *events)
{
	struct strbuf sb = STRBUF_INIT;
	struct strvec mods = { 0 };
	const char *e = NULL;
	bool looked = false;
	int nerr = 0;
	for (size_t i = 0; i < wf->ntasks; i++) {
		const struct wf_task *t = &wf->tasks[i];
		if ((what & SWENV_MODULES) && t->modules &&
		    !seen(wf, i, t->modules, false))
			nerr += modules_ready(t->name, t->modules, &mods);
		if (!t->container || seen(wf, i, t->container, true))
			continue;
		if (!looked) {
			e = engine_here(engine, &sb);
			looked = true;
			if (!e) {
				error_msg("task '%s' runs in a container, but %s "
					  "is not installed on this machine",
					  t->name, engine ? engine : "no "
					  "container engine (docker, podman, "
					  "apptainer, singularity)");
				nerr++;
			}
		}
		if (e && image_ready(t->name, e, t->container,
					 what & SWENV_PULL, events))
			nerr++;
	}
	for (size_t i = 0; i < mods.n; i++)
		free(mods.v[i]);
	VEC_FREE(mods);
	strbuf_release(&sb);
	return nerr;
}

pid_t
swenv_remove_start(const char *engine, const char *name)
{
	struct strbuf sh = STRBUF_INIT, q = STRBUF_INIT, f = STRBUF_INIT,
		      fv = STRBUF_INIT;
	engine_pick(engine, &sh);
	sq_quote(&q, name, strlen(name));
	strbuf_addf(&fv, "name=^%s$", name);
	sq_quote(&f, fv.buf, fv.len);
	/* podman: a kill that ended its conmon (in the task's cgroup)
	 * leaves the container "running" in podman's state; the first rm
	 * fails on it but marks it exited, the second removes it.  A
	 * client killed while its create was still with the daemon (a
	 * loaded machine: more than a 2 s timeout) leaves a container
	 * that appears after the rm: look again a second later, up to 10
	 * times. */
	strbuf_addf(&sh, "case ${e##*/} in apptainer|singularity) exit 0 ;; esac\n"
		    "for i in 1 2 3 4 5 6 7 8 9 10; do\n"
		    "case ${e##*/} in\n"
		    "podman) \"$e\" rm -f -t 0 %s || \"$e\" rm -f -t 0 %s ;;\n"
		    "*) \"$e\" rm -f %s ;;\nesac >/dev/null 2>&1\n"
		    "sleep 1\n"
		    "[ -z \"$(\"$e\" ps -a -q --filter %s 2>/dev/null)\" ] && break\n"
		    "done\n",
		    q.buf, q.buf, q.buf, f.buf);
	char *argv[] = { "sh", "-c", sh.buf, NULL };
	int fds[2];
	struct errbuf err;
	pid_t pid = spawn_command(argv, fds, &err);
	if (pid > 0) { /* it writes nothing: its pipes are not read */
		close(fds[0]);
		close(fds[1]);
	}
	strbuf_release(&q);
	strbuf_release(&f);
	strbuf_release(&fv);
	strbuf_release(&sh);
	return pid;
}

void
swenv_script_engine(const char *engine, struct strbuf *out)
{
	engine_pick(engine, out);
}

const char *
swenv_script_modules(void)
{
	return module_init;
}
