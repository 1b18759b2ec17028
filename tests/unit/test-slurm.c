/*
 * slurm.c: an allocation's nodes and CPUs as Slurm writes them in the
 * environment (SLURM_JOB_NODELIST, SLURM_JOB_CPUS_PER_NODE), and the
 * workers wfrun --slurm makes of them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resources.h"
#include "slurm.h"
#include "tap.h"

/* The hostlist s expanded, names joined by spaces; "ERR: msg" on error. */
static const char *
hosts(const char *s)
{
	static char buf[4096];
	struct strvec v = { 0 };
	struct errbuf err;
	if (slurm_hostlist(s, &v, &err) < 0) {
		snprintf(buf, sizeof(buf), "ERR: %s", err.msg);
		if (v.n)
			snprintf(buf, sizeof(buf), "ERR left %zu names", v.n);
		VEC_FREE(v);
		return buf;
	}
	buf[0] = '\0';
	for (size_t i = 0; i < v.n; i++) {
		if (i)
			strncat(buf, " ", sizeof(buf) - strlen(buf) - 1);
		strncat(buf, v.v[i], sizeof(buf) - strlen(buf) - 1);
		free(v.v[i]);
	}
	VEC_FREE(v);
	return buf;
}

static const char *
cpus(const char *s, size_t n)
{
	static char buf[1200];
	long out[64];
	struct errbuf err;
	if (slurm_cpus(s, n, out, &err) < 0) {
		snprintf(buf, sizeof(buf), "ERR: %s", err.msg);
		return buf;
	}
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%ld",
			 i ? " " : "", out[i]);
	return buf;
}

static void
test_hostlist(void)
{
	is_str(hosts("n1"), "n1", "one name");
	is_str(hosts("n[1-3]"), "n1 n2 n3", "a range");
	is_str(hosts("n[1-3,7]"), "n1 n2 n3 n7", "a range and a number");
	is_str(hosts("gpu[01-03]"), "gpu01 gpu02 gpu03", "zero-padded");
	is_str(hosts("n[8-10]"), "n8 n9 n10", "no padding: widths grow");
	is_str(hosts("n[098-101]"), "n098 n099 n100 n101",
	       "padding holds past a power of ten");
	is_str(hosts("a[1-2],b,c[5]"), "a1 a2 b c5", "several expressions");
	is_str(hosts("rack[1-2]-n[1-2]"), "rack1-n1 rack1-n2 rack2-n1 rack2-n2",
	       "two brackets, the last varying fastest");
	is_str(hosts("node-1.example.org,x"), "node-1.example.org x",
	       "dots and dashes in names");
	ok(!strncmp(hosts(""), "ERR", 3), "empty: an error");
	ok(!strncmp(hosts("n[1-3"), "ERR", 3), "'[' without ']': %s",
	   hosts("n[1-3"));
	ok(!strncmp(hosts("n1-3]"), "ERR", 3), "']' without '['");
	ok(!strncmp(hosts("n[3-1]"), "ERR", 3), "a range that goes down");
	ok(!strncmp(hosts("n[a-b]"), "ERR", 3), "letters in a range");
	ok(!strncmp(hosts("n[[1]]"), "ERR", 3), "nested brackets");
	ok(!strncmp(hosts("a,,b"), "ERR", 3), "an empty name");
	ok(!strncmp(hosts("n[0-99999999]"), "ERR", 3),
	   "a range of a hundred million hosts: an error, not a hang");
	is_str(hosts("a1,b[1-x]"),
	       "ERR: 'b[1-x]': a range wants digits after '-'",
	       "the bad expression named; no name left behind");
}

static void
test_cpus(void)
{
	is_str(cpus("4", 1), "4", "one node");
	is_str(cpus("2(x3)", 3), "2 2 2", "a repeat");
	is_str(cpus("4(x2),1", 3), "4 4 1", "a repeat and a count");
	is_str(cpus("1,2,3", 3), "1 2 3", "a list");
	ok(!strncmp(cpus("2(x3)", 2), "ERR", 3), "more counts than nodes: %s",
	   cpus("2(x3)", 2));
	ok(!strncmp(cpus("2", 2), "ERR", 3), "fewer counts than nodes");
	ok(!strncmp(cpus("0", 1), "ERR", 3), "no CPUs");
	ok(!strncmp(cpus("2(3)", 1), "ERR", 3), "'(' without x");
	ok(!strncmp(cpus("2(x0)", 1), "ERR", 3), "a repeat of 0");
	ok(!strncmp(cpus("2x", 1), "ERR", 3), "trailing garbage");
}

static void
test_env(void)
{
	struct cluster c;
	struct errbuf err;
	unsetenv("SLURM_JOB_ID");
	unsetenv("SLURM_JOBID");
	unsetenv("SLURM_JOB_NODELIST");
	unsetenv("SLURM_NODELIST");
	memset(&c, 0, sizeof(c));
	ok(slurm_cluster_from_env(&c, &err) < 0 &&
		   strstr(err.msg, "not inside a Slurm allocation"),
	   "outside an allocation: %s", err.msg);
	setenv("SLURM_JOB_ID", "42", 1);
	setenv("SLURM_JOB_NODELIST", "n[1-2],gpu7", 1);
	setenv("SLURM_JOB_CPUS_PER_NODE", "4(x2),8", 1);
	memset(&c, 0, sizeof(c));
	ok(slurm_cluster_from_env(&c, &err) == 0, "an allocation of 3 nodes");
	ok(c.nworkers == 3, "3 workers: %zu", c.nworkers);
	if (c.nworkers == 3) {
		is_str(c.workers[2].name, "gpu7", "named after their node");
		ok(c.workers[0].cores == 4 && c.workers[2].cores == 8,
		   "with the allocation's CPUs");
		ok(c.workers[1].shared && c.workers[1].srun,
		   "sharing the workdir, started by srun");
	}
	is_str(c.file, "the Slurm allocation 42", "named in messages");
	resources_release(&c);
	setenv("SLURM_JOB_CPUS_PER_NODE", "4(x2)", 1);
	memset(&c, 0, sizeof(c));
	ok(slurm_cluster_from_env(&c, &err) < 0 &&
		   strstr(err.msg, "SLURM_JOB_CPUS_PER_NODE"),
	   "CPUs for 2 of 3 nodes: %s", err.msg);
	setenv("SLURM_JOB_NODELIST", "n[1-", 1);
	ok(slurm_cluster_from_env(&c, &err) < 0 &&
		   strstr(err.msg, "SLURM_JOB_NODELIST"),
	   "a malformed node list: %s", err.msg);
}

static void
test_argv(void)
{
	char **a = slurm_agent_argv("n2", 4, "/opt/wfrun-worker", NULL);
	size_t n = 0;
	bool node = false, cpus = false;
	for (; a[n]; n++) {
		node |= !strcmp(a[n], "--nodelist=n2");
		cpus |= !strcmp(a[n], "--cpus-per-task=4");
	}
	is_str(a[0], "srun", "a job step");
	ok(node && cpus, "on its node, with its CPUs");
	is_str(a[n - 1], "/opt/wfrun-worker", "running the agent");
	slurm_argv_free(a);
}

int
main(void)
{
	test_hostlist();
	test_cpus();
	test_env();
	test_argv();
	return done_testing();
}
