/* Unit tests of the resources loader: the schema, defaults, errors. */
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "resources.h"
#include "tap.h"

static struct cluster c;
static struct diags dg;

static int
load(const char *xml)
{
	resources_release(&c);
	diags_release(&dg);
	const char *path = write_tmp(xml);
	diags_init(&dg, path);
	return resources_load(&c, path, &dg);
}

static const char *
err(size_t i)
{
	return i < dg.list.n ? dg.list.v[i].msg : "";
}

int
main(void)
{
	diags_init(&dg, "");
	setenv("HOME", "/home/u", 1);
	is_int(load("<resources>\n"
		    "  <storage name=\"gpfs\" bandwidth=\"2000\"/>\n"
		    "  <worker name=\"n1\" host=\"10.0.0.1\" port=\"2222\" user=\"bio\">\n"
		    "    <cores>48</cores>\n"
		    "    <memory unit=\"GB\">96</memory>\n"
		    "    <io-executors>225</io-executors>\n"
		    "    <disk bandwidth=\"450\"/>\n"
		    "    <workdir shared=\"true\" storage=\"gpfs\">/gpfs/run</workdir>\n"
		    "    <ssh identity=\"~/.ssh/id_ed25519\" keepalive=\"5\"/>\n"
		    "  </worker>\n"
		    "  <worker name=\"me\" host=\"localhost\"/>\n"
		    "</resources>\n"),
	       0, "a full file loads");
	is_int(c.nworkers, 2, "two workers");
	is_int(c.nstorages, 1, "one storage");
	is_str(c.workers[0].host, "10.0.0.1", "host");
	is_int(c.workers[0].port, 2222, "port");
	is_int(c.workers[0].cores, 48, "cores");
	is_int(c.workers[0].memory, 96LL << 30, "memory in bytes");
	is_int(c.workers[0].io_executors, 225, "io executors");
	is_int((long)c.workers[0].disk_bw, 450, "disk bandwidth");
	ok(c.workers[0].shared, "shared workdir");
	is_str(c.workers[0].storage, "gpfs", "on storage gpfs");
	is_str(c.workers[0].identity, "/home/u/.ssh/id_ed25519", "~ expanded");
	is_str(c.workers[0].known_hosts, "/home/u/.ssh/known_hosts", "default known_hosts");
	is_int(c.workers[0].keepalive, 5, "keepalive");
	is_int(c.workers[0].timeout, 20, "default timeout");
	ok(!c.workers[0].local, "remote");
	ok(c.workers[1].local, "localhost runs in-process");
	is_int(c.workers[1].port, 22, "default port");

	ok(load("<resources>\n  <worker name=\"a\" host=\"h\">\n"
		"    <cores>-1</cores>\n    <workdir>/w</workdir>\n  </worker>\n</resources>\n") < 0,
	   "negative cores refused");
	is_int(dg.list.v[0].loc.line, 3, "on the cores line");
	ok(strstr(err(0), "cores") != NULL, "names the element: %s", err(0));

	ok(load("<resources>\n  <worker name=\"a\" host=\"h\" colour=\"red\">\n"
		"    <workdir>/w</workdir>\n  </worker>\n</resources>\n") < 0,
	   "unknown attribute refused");
	ok(strstr(err(0), "colour") != NULL, "names it: %s", err(0));

	ok(load("<resources>\n  <worker name=\"a\" host=\"h\"/>\n"
		"  <worker name=\"a\" host=\"localhost\"/>\n</resources>\n") < 0,
	   "duplicate worker names");
	is_str(err(0), "duplicate worker name 'a': worker names must be unique", "explained");
	ok(load("<resources>\n  <worker name=\"a\" host=\"h\"/>\n</resources>\n") < 0,
	   "a remote worker needs a workdir");
	is_str(err(0), "worker 'a' on h needs a <workdir> (an absolute path on that host)", "explained");

	ok(load("<resources>\n  <worker name=\"a\" host=\"h\">\n"
		"    <workdir storage=\"nfs\" shared=\"true\">/w</workdir>\n  </worker>\n</resources>\n") < 0,
	   "unknown storage refused");
	is_str(err(0), "the workdir names a storage that no <storage name=\"...\"> element defines", "explained");

	ok(load("<resources><worker name=\"a\" host=\"h\">\n</resources>\n") < 0,
	   "malformed XML");
	is_int(dg.list.v[0].loc.line, 2, "line of the mismatch");

	ok(load("<resources/>\n") < 0, "no worker at all");
	resources_release(&c);
	diags_release(&dg);
	return done_testing();
}
