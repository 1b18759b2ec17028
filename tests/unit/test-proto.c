/* Unit tests of the agent protocol codec. */
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "tap.h"

int
main(void)
{
	struct strbuf l = STRBUF_INIT;
	proto_field(&l, "RUN", 1);
	proto_field(&l, "a\tb\nc\\d\re", 0);
	proto_field(&l, "", 0);
	proto_end(&l);
	is_str(l.buf, "RUN\ta\\tb\\nc\\\\d\\re\t\n", "escaping");

	struct proto_decoder d;
	struct proto_msg m;
	struct errbuf err;
	proto_decoder_init(&d);
	/* fed in two pieces, with a second message behind it */
	proto_feed(&d, l.buf, 5);
	is_int(proto_next(&d, &m, &err), 0, "no whole line yet");
	proto_feed(&d, l.buf + 5, l.len - 5);
	proto_feed(&d, "BYE\n", 4);
	is_int(proto_next(&d, &m, &err), 1, "a line");
	is_int(m.n, 3, "three fields");
	is_str(m.f[0], "RUN", "type");
	is_str(m.f[1], "a\tb\nc\\d\re", "round trip");
	is_str(m.f[2], "", "empty field");
	is_int(proto_next(&d, &m, &err), 1, "the second line");
	is_str(m.f[0], "BYE", "BYE");
	is_int(m.n, 1, "one field");
	is_int(proto_next(&d, &m, &err), 0, "drained");

	proto_feed(&d, "X\\q\nY\\\nOK\n", 11);
	is_int(proto_next(&d, &m, &err), -1, "unknown escape");
	is_str(err.msg, "unknown escape '\\q' in a protocol line", "explained");
	is_int(proto_next(&d, &m, &err), -1, "trailing backslash");
	is_int(proto_next(&d, &m, &err), 1, "the decoder recovers");
	is_str(m.f[0], "OK", "next line intact");

	char *big = malloc(PROTO_MAX_LINE + 10);
	memset(big, 'x', PROTO_MAX_LINE + 9);
	proto_feed(&d, big, PROTO_MAX_LINE + 9);
	is_int(proto_next(&d, &m, &err), -1, "an endless line is refused");
	proto_feed(&d, "\nZ\n", 3);
	is_int(proto_next(&d, &m, &err), 1, "then lines parse again");
	free(big);

	strbuf_reset(&l);
	proto_fieldf(&l, "%s", "DONE");
	proto_fieldf(&l, "%d", 7);
	is_str(l.buf, "DONE\t7", "proto_fieldf starts a line, then separates");
	strbuf_release(&l);
	proto_decoder_release(&d);
	return done_testing();
}
