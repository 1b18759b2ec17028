/* Unit tests of the agent protocol codec. */
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "tap.h"

/* A DONE up to its read_bytes field. */
#define HEAD "DONE\t42\t0\t1.5\t2.25\t0.1\t0.2\t1024\t-1"
/* A staged DONE up to its nout field. */
#define STAGED "DONE\t7\t0\t1\t2\t0\t0\t1\t0\t9\t1\t1\t0.5\t"

/* Decode one line (TAB-separated, no escapes) as a DONE. */
static int
done(const char *line, struct proto_done *pd, struct errbuf *err)
{
	struct proto_decoder d;
	struct proto_msg m;
	proto_decoder_init(&d);
	proto_feed(&d, line, strlen(line));
	proto_feed(&d, "\n", 1);
	int r = proto_next(&d, &m, err) == 1 ? proto_parse_done(&m, pd, err)
					      : -2;
	proto_decoder_release(&d);
	return r;
}

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

	/* a line over the limit is dropped whole: its rest, however it
	 * comes, is not read as new lines (issue 24, defect 5) */
	d.max = 1000;
	char big[1500];
	memset(big, 'x', sizeof(big));
	big[700] = '\t';
	proto_feed(&d, big, sizeof(big));
	is_int(proto_next(&d, &m, &err), -1, "an endless line is refused");
	is_str(err.msg, "protocol line longer than 1000 bytes", "saying so");
	proto_feed(&d, big, sizeof(big));
	is_int(proto_next(&d, &m, &err), 0, "its rest is dropped");
	proto_feed(&d, "yy\nZ\n", 5);
	is_int(proto_next(&d, &m, &err), 1, "then lines parse again");
	is_str(m.f[0], "Z", "from the next whole line");
	d.max = PROTO_MAX_LINE;

	/* a DONE of 100,000 files of 200-character names: 20 MB, fed as
	 * a pipe gives it, decodes (version 4 refused lines over 1 MiB) */
	struct strbuf bigl = STRBUF_INIT;
	proto_field(&bigl, "DONE", 1);
	char name[201];
	memset(name, 'n', 200);
	name[200] = '\0';
	for (int i = 0; i < 100000; i++)
		proto_field(&bigl, name, 0);
	proto_end(&bigl);
	int got = 0;
	for (size_t off = 0; off < bigl.len; off += 65536) {
		size_t n = bigl.len - off < 65536 ? bigl.len - off : 65536;
		proto_feed(&d, bigl.buf + off, n);
		got += proto_next(&d, &m, &err) == 1;
	}
	ok(got == 1 && m.n == 100001 && strlen(m.f[100000]) == 200,
	   "a 20 MB line decodes (%zu fields)", m.n);
	strbuf_release(&bigl);
	/* and its buffers are not kept once the next line comes */
	proto_feed(&d, "PONG\n", 5);
	is_int(proto_next(&d, &m, &err), 1, "a small line after it");
	ok(d.in.alloc <= (1 << 20) && d.cur.alloc <= (1 << 20) &&
		   d.fields.alloc <= (1 << 16),
	   "the 20 MB are given back (in %zu, cur %zu, fields %zu)",
	   d.in.alloc, d.cur.alloc, d.fields.alloc);

	/* DONE: every number is checked */
	struct proto_done pd;
	const char *plain = "DONE\t42\t256\t1.5\t2.25\t0.1\t0.2\t1024\t-1"
			    "\t33554432\t1\t0";
	is_int(done(plain, &pd, &err), 0, "a DONE is read");
	ok(pd.id == 42 && pd.wstatus == 256 && pd.start == 1.5 &&
		   pd.end == 2.25 && pd.maxrss_kb == 1024 &&
		   pd.read_bytes == -1 && pd.write_bytes == 33554432 &&
		   pd.out_empty == 1 && pd.err_empty == 0 && !pd.staged,
	   "its numbers");
	is_int(done(HEAD "\t33x\t1\t0", &pd, &err), -1, "bytes not a number");
	is_str(err.msg, "DONE's write_bytes (field 9) is '33x', not an "
	       "integer from -1 to 9223372036854775807",
	       "named with its field");
	is_int(done(HEAD "\t\t1\t0", &pd, &err), -1, "an empty field");
	is_int(done("DONE\t42\t0\tnan\t2.25\t0.1\t0.2\t1024\t-1"
		    "\t5\t1\t0", &pd, &err), -1, "a time that is not one");
	is_str(err.msg, "DONE's start (field 3) is 'nan', not a number of "
	       "seconds", "named");
	is_int(done(HEAD "\t5", &pd, &err), -1, "a short DONE");
	is_str(err.msg, "DONE has no out_empty (field 10)", "says what lacks");
	is_int(done(HEAD "\t-2\t1\t0", &pd, &err), -1, "bytes below -1");
	is_int(done(HEAD "\t5\t2\t0", &pd, &err), -1,
	       "a flag that is not 0 or 1");
	is_str(err.msg, "DONE's out_empty (field 10) is '2', not an integer "
	       "from 0 to 1", "its range named");
	/* the staged part */
	is_int(done(STAGED "2\tf\t-\t2\tout/a\t9\tout\t-1", &pd, &err), 0,
	       "a staged DONE");
	ok(pd.staged && pd.stage_out_s == 0.5 && pd.nout == 2 &&
		   pd.nfile == 2 && pd.kfile == 17,
	   "its outputs and files");
	is_int(done(STAGED "2\tf\t-\t3\tout/a\t9\tout\t-1", &pd, &err), -1,
	       "more files named than sent");
	is_int(done(STAGED "9\tf", &pd, &err), -1,
	       "more outputs named than sent");
	is_int(done(STAGED "1\tf\t1\tout\tbig", &pd, &err), -1,
	       "a size not a number");
	is_int(done(STAGED "1\tf\t1\tout\t3", &pd, &err), 0,
	       "a DONE of version 6: no mtimes");
	is_int((int)pd.kmtime, 0, "none said");
	is_int(done(STAGED "2\tf\t-\t2\tout/a\t9\tout\t-1\t17\t-5", &pd,
		    &err), 0, "the files' mtimes after them (version 7)");
	is_int((int)pd.kmtime, 21, "from field 21");
	is_int(done(STAGED "1\tf\t1\tout\t3\tnew", &pd, &err), -1,
	       "an mtime that is not a number");
	is_str(err.msg, "DONE's file mtime (field 18) is 'new', not an integer "
	       "from -9223372036854775808 to 9223372036854775807", "named");
	is_int(done(STAGED "1\tf\t1\tout\t3\t7\tnew", &pd, &err), 0,
	       "a newer agent's extra field is ignored");

	strbuf_reset(&l);
	proto_fieldf(&l, "%s", "DONE");
	proto_fieldf(&l, "%d", 7);
	is_str(l.buf, "DONE\t7", "proto_fieldf starts a line, then separates");
	strbuf_release(&l);
	proto_decoder_release(&d);
	return done_testing();
}
