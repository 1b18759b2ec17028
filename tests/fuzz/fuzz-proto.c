/*
 * libFuzzer target: the master<->agent line protocol.  The first byte
 * picks the chunk size the input is fed in (a pipe delivers any split);
 * every message decoded is re-encoded and decoded again, which must give
 * the same fields (escaping is a bijection).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
roundtrip(const struct proto_msg *m)
{
	struct strbuf line = STRBUF_INIT;
	for (size_t i = 0; i < m->n; i++)
		proto_field(&line, m->f[i], i == 0);
	proto_end(&line);
	struct proto_decoder d2;
	struct proto_msg m2;
	struct errbuf err;
	proto_decoder_init(&d2);
	proto_feed(&d2, line.buf, line.len);
	if (proto_next(&d2, &m2, &err) != 1 || m2.n != m->n)
		abort();
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->f[i], m2.f[i]))
			abort();
	if (proto_next(&d2, &m2, &err) != 0)
		abort();
	proto_decoder_release(&d2);
	strbuf_release(&line);
}

/* A DONE either reads or says why; what it reads is in its ranges. */
static void
done(const struct proto_msg *m)
{
	struct proto_done d;
	struct errbuf err;
	if (!m->n || strcmp(m->f[0], "DONE") ||
	    proto_parse_done(m, &d, &err) < 0)
		return;
	if (d.read_bytes < -1 || d.write_bytes < -1 || d.start < 0 ||
	    (d.staged && d.kfile + 2 * d.nfile > m->n))
		abort();
	for (size_t i = 0; d.staged && i < d.nout; i++)
		if (14 + i >= m->n)
			abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	size_t chunk = (size_t)data[0] + 1;
	data++;
	size--;
	struct proto_decoder d;
	proto_decoder_init(&d);
	struct proto_msg m;
	struct errbuf err;
	for (size_t off = 0; off < size; off += chunk) {
		size_t n = size - off < chunk ? size - off : chunk;
		proto_feed(&d, (const char *)data + off, n);
		int r;
		while ((r = proto_next(&d, &m, &err)) != 0)
			if (r > 0) {
				roundtrip(&m);
				done(&m);
			}
	}
	proto_decoder_release(&d);
	return 0;
}
