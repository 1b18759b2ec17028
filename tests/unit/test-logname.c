/* Unit tests of logname.c: the file name of an instance's logs from its
 * foreach values (escaped, capped with a hash). */
#include <stdlib.h>
#include <string.h>

#include "logname.h"
#include "tap.h"

static char *
inst(const char *const *keys, const char *const *vals, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	logname_instance(&sb, keys, vals, n);
	return strbuf_detach(&sb);
}

int
main(void)
{
	const char *k1[] = { "sample" }, *v1[] = { "S1" };
	char *s = inst(k1, v1, 1);
	is_str(s, "sample=S1", "one key");
	free(s);

	const char *k2[] = { "s", "chr" }, *v2[] = { "a/b c", "x=1,y%" };
	s = inst(k2, v2, 2);
	is_str(s, "s=a%2Fb%20c,chr=x%3D1%2Cy%25",
	       "slash, space, '=', ',' and '%%' escaped");
	free(s);

	const char *v3[] = { "..", "" };
	s = inst(k2, v3, 2);
	is_str(s, "s=..,chr=", "dots and empty values stay inside the name");
	free(s);

	char *big = malloc(301);
	memset(big, 'x', 300);
	big[300] = '\0';
	const char *v4[] = { big };
	s = inst(k1, v4, 1);
	ok(strlen(s) == LOGNAME_KEEP + 17, "a long name is capped (%zu)",
	   strlen(s));
	ok(!strncmp(s, "sample=xxx", 10) && s[LOGNAME_KEEP] == '~',
	   "it keeps its start, then '~' and the hash");
	big[299] = 'y';
	char *s2 = inst(k1, v4, 1);
	ok(strcmp(s, s2) != 0, "two long names that differ at the end differ");
	free(s2);
	free(s);
	free(big);
	return done_testing();
}
