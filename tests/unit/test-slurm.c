/*
 * slurm.c: an allocation's nodes and CPUs as Slurm writes them in the
 * environment (SLURM_JOB_NODELIST, SLURM_JOB_CPUS_PER_NODE), and the
 * workers wfrun --slurm makes of them; slurm_alloc.c's readers of what
 * scontrol, sinfo and squeue print, and the sbatch line of a node.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resources.h"
#include "slurm.h"
#include "slurm_alloc.h"
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

/* What Slurm 22.05 prints (scontrol show partition, two of them). */
static const char PARTS[] =
	"PartitionName=debug\n"
	"   AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL\n"
	"   AllocNodes=ALL Default=NO QoS=N/A\n"
	"   Nodes=n[1-3]\n\n"
	"PartitionName=long\n"
	"   AllocNodes=ALL Default=YES QoS=N/A\n"
	"   Nodes=n[4-9]\n";

static void
test_partition(void)
{
	char *p = slurm_parse_partition(PARTS, "debug");
	is_str(p, "debug", "a partition by name");
	free(p);
	p = slurm_parse_partition(PARTS, NULL);
	is_str(p, "long", "the default one");
	free(p);
	ok(!slurm_parse_partition(PARTS, "deb"), "not a prefix of a name");
	ok(!slurm_parse_partition("", NULL), "no partition at all");
	ok(!slurm_parse_partition("PartitionName=a\n Default=NO\n", NULL),
	   "none is the default");
	long c, m;
	ok(!slurm_parse_sinfo("2 2000\n8 64000\n4 1000\n", &c, &m) &&
		   c == 8 && m == 64000,
	   "sinfo: the most CPUs and memory of a node: %ld %ld", c, m);
	ok(slurm_parse_sinfo("", &c, &m) < 0, "sinfo: no node");
	is_int(slurm_parse_mem("4000"), 4000, "MB by default");
	is_int(slurm_parse_mem("4G"), 4096, "G");
	is_int(slurm_parse_mem("2t"), 2L << 20, "t");
	is_int(slurm_parse_mem("2048K"), 2, "K");
	is_int(slurm_parse_mem("4GB"), -1, "one letter only");
	is_int(slurm_parse_mem("x"), -1, "a number");
}

static void
test_squeue(void)
{
	char l1[] = "123 RUNNING n2 4", l2[] = "124 PENDING  4", l3[] = "125";
	char l4[] = "126 RUNNING n1 x";
	char *id, *st, *node;
	long cpus;
	ok(!slurm_parse_squeue(l1, &id, &st, &node, &cpus) &&
		   !strcmp(id, "123") && !strcmp(st, "RUNNING") &&
		   !strcmp(node, "n2") && cpus == 4,
	   "a running job: its node and CPUs");
	ok(!slurm_parse_squeue(l2, &id, &st, &node, &cpus) &&
		   !strcmp(id, "124") && !strcmp(st, "PENDING") && !node &&
		   cpus == 4,
	   "a pending job: no node");
	ok(slurm_parse_squeue(l3, &id, &st, &node, &cpus) < 0, "a short line");
	ok(slurm_parse_squeue(l4, &id, &st, &node, &cpus) < 0, "CPUs not a "
	   "number");
}

/* Whether argv has w (any value when w ends with '='). */
static bool
has(char **argv, const char *w)
{
	size_t n = strlen(w);
	for (; *argv; argv++)
		if (w[n - 1] == '=' ? !strncmp(*argv, w, n) : !strcmp(*argv, w))
			return true;
	return false;
}

static void
test_sbatch(void)
{
	struct slurm_spec s;
	memset(&s, 0, sizeof(s));
	s.partition = "debug";
	s.max_nodes = 3;
	char **a = slurm_sbatch_argv(&s, "wfrun-x");
	ok(has(a, "--parsable") && has(a, "--nodes=1") &&
		   has(a, "--job-name=wfrun-x") && has(a, "--partition=debug") &&
		   has(a, "--exclusive") && !has(a, "--ntasks=1"),
	   "one whole node of the partition, named");
	slurm_argv_free(a);
	char *opts[] = { "--gres=gpu:1" };
	s.partition = NULL;
	s.account = "lab";
	s.qos = "fast";
	s.time = "1:00:00";
	s.cores_per_node = 8;
	s.memory = "16G";
	s.options.v = opts;
	s.options.n = 1;
	a = slurm_sbatch_argv(&s, "wfrun-x");
	ok(has(a, "--account=lab") && has(a, "--qos=fast") &&
		   has(a, "--time=1:00:00") && has(a, "--cpus-per-task=8") &&
		   has(a, "--ntasks=1") && !has(a, "--exclusive") &&
		   has(a, "--mem=16G") && has(a, "--gres=gpu:1"),
	   "account, qos, time, cores, memory, options");
	ok(!has(a, "--partition="), "no partition: Slurm's default");
	slurm_argv_free(a);
	a = slurm_agent_argv("n2", 8, "/w", "77");
	ok(has(a, "--jobid=77") && has(a, "--overlap"),
	   "an agent in a job wfrun made");
	slurm_argv_free(a);
}

int
main(void)
{
	test_hostlist();
	test_cpus();
	test_env();
	test_argv();
	test_partition();
	test_squeue();
	test_sbatch();
	return done_testing();
}
