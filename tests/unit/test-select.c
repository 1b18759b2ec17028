/* Unit tests of select: paths as the current directory names them. */
#include <stdlib.h>
#include <string.h>

#include "select.h"
#include "tap.h"

static void
from(const char *wd, const char *cwd, const char *path, const char *want)
{
	struct strbuf sb = STRBUF_INIT;
	select_path_from(wd, cwd, path, &sb);
	is_str(sb.buf, want, "%s in %s, seen from %s", path, wd, cwd);
	strbuf_release(&sb);
}

int
main(void)
{
	from("/p/out", "/p", "calls/S1.vcf", "out/calls/S1.vcf");
	from("/p/out", "/p/out", "calls/S1.vcf", "calls/S1.vcf");
	from("/p/out", "/p/out/calls", "calls/S1.vcf", "S1.vcf");
	from("/p/out", "/q/r", "a.txt", "../../p/out/a.txt");
	from("/p/out", "/p/outer", "a.txt", "../out/a.txt");
	from("/p/out", "/", "a.txt", "p/out/a.txt");
	from("/p/out", "/p", "../data/in.txt", "data/in.txt");
	from("/p/out", "/p/out", ".", ".");
	from("/p/out", "/p/out/calls", ".", "..");
	from("/p/out", "/p", "/abs/x", "../abs/x");
	/* a workdir's path as the root sees it: how a target outside the
	 * workdir is looked for as ../x */
	from("/", "/p/out", "/p/data/in.txt", "../data/in.txt");
	return done_testing();
}
