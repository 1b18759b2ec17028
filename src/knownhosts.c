/*
 * knownhosts: known_hosts as OpenSSH reads it (see knownhosts.h), with
 * the SHA-1 (FIPS 180-4) and HMAC (RFC 2104) of hashed names.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "knownhosts.h"
#include "util.h"

struct sha1 {
	uint32_t h[5];
	unsigned char buf[64];
	size_t nbuf;
	uint64_t total;
};

static uint32_t
rol(uint32_t x, int n)
{
	return x << n | x >> (32 - n);
}

static void
sha1_block(struct sha1 *s, const unsigned char *p)
{
	uint32_t w[80], a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3],
			e = s->h[4];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 80; i++)
		w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	for (int i = 0; i < 80; i++) {
		uint32_t f, k;
		if (i < 20)
			f = (b & c) | (~b & d), k = 0x5a827999;
		else if (i < 40)
			f = b ^ c ^ d, k = 0x6ed9eba1;
		else if (i < 60)
			f = (b & c) | (b & d) | (c & d), k = 0x8f1bbcdc;
		else
			f = b ^ c ^ d, k = 0xca62c1d6;
		uint32_t t = rol(a, 5) + f + e + k + w[i];
		e = d, d = c, c = rol(b, 30), b = a, a = t;
	}
	s->h[0] += a, s->h[1] += b, s->h[2] += c, s->h[3] += d, s->h[4] += e;
}

static void
sha1_init(struct sha1 *s)
{
	static const uint32_t h0[5] = { 0x67452301, 0xefcdab89, 0x98badcfe,
					0x10325476, 0xc3d2e1f0 };
	memcpy(s->h, h0, sizeof(h0));
	s->nbuf = 0;
	s->total = 0;
}

static void
sha1_add(struct sha1 *s, const unsigned char *p, size_t n)
{
	s->total += n;
	while (n) {
		size_t k = 64 - s->nbuf < n ? 64 - s->nbuf : n;
		memcpy(s->buf + s->nbuf, p, k);
		s->nbuf += k, p += k, n -= k;
		if (s->nbuf == 64) {
			sha1_block(s, s->buf);
			s->nbuf = 0;
		}
	}
}

static void
sha1_end(struct sha1 *s, unsigned char out[20])
{
	uint64_t bits = s->total * 8;
	unsigned char pad = 0x80, zero = 0, len[8];
	sha1_add(s, &pad, 1);
	while (s->nbuf != 56)
		sha1_add(s, &zero, 1);
	for (int i = 0; i < 8; i++)
		len[i] = (unsigned char)(bits >> (56 - 8 * i));
	sha1_add(s, len, 8);
	for (int i = 0; i < 20; i++)
		out[i] = (unsigned char)(s->h[i / 4] >> (24 - 8 * (i % 4)));
}

static void
hmac_sha1(const unsigned char *key, size_t klen, const char *msg,
	  unsigned char out[20])
{
	unsigned char k[64] = { 0 }, pad[64], inner[20];
	struct sha1 s;
	if (klen > 64) {
		sha1_init(&s);
		sha1_add(&s, key, klen);
		sha1_end(&s, k);
	} else {
		memcpy(k, key, klen);
	}
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < 64; i++)
			pad[i] = k[i] ^ (pass ? 0x5c : 0x36);
		sha1_init(&s);
		sha1_add(&s, pad, 64);
		if (pass)
			sha1_add(&s, inner, 20);
		else
			sha1_add(&s, (const unsigned char *)msg, strlen(msg));
		sha1_end(&s, pass ? out : inner);
	}
}

/* Base64 of s[0..n) into out (room for n bytes); its length, or -1. */
static long
unbase64(const char *s, size_t n, unsigned char *out)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	uint32_t acc = 0;
	int bits = 0;
	long o = 0;
	for (size_t i = 0; i < n && s[i] != '='; i++) {
		const char *c = s[i] ? strchr(b64, s[i]) : NULL;
		if (!c)
			return -1;
		acc = acc << 6 | (uint32_t)(c - b64);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (unsigned char)(acc >> bits);
		}
	}
	return o;
}

/* The key type a wire blob names ("ssh-ed25519"...), as (p, n). */
static bool
blob_type(const unsigned char *b, size_t len, const unsigned char **p,
	  size_t *n)
{
	if (len < 4)
		return false;
	uint32_t l = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
		     (uint32_t)b[2] << 8 | b[3];
	if (l > len - 4)
		return false;
	*p = b + 4;
	*n = l;
	return true;
}

/* OpenSSH's match_pattern: '*' any run, '?' one character, no case. */
static bool
pattern_match(const char *s, const char *p, size_t pn)
{
	for (; pn; p++, pn--) {
		if (*p == '*') {
			for (const char *t = s;; t++) {
				if (pattern_match(t, p + 1, pn - 1))
					return true;
				if (!*t)
					return false;
			}
		}
		if (!*s || (*p != '?' && tolower((unsigned char)*p) !=
						 tolower((unsigned char)*s)))
			return false;
		s++;
	}
	return !*s;
}

/* Does the host field f[0..n) apply to name? */
static bool
hosts_match(const char *f, size_t n, const char *name)
{
	if (n > 3 && !strncmp(f, "|1|", 3)) {
		const char *bar = memchr(f + 3, '|', n - 3);
		unsigned char salt[64], hash[64], mac[20];
		/* 20 bytes each: 28 characters of base64 */
		if (!bar || bar - f - 3 > 32 || f + n - bar - 1 > 32)
			return false;
		long sl = unbase64(f + 3, (size_t)(bar - f - 3), salt);
		long hl = unbase64(bar + 1, (size_t)(f + n - bar - 1), hash);
		if (sl != 20 || hl != 20)
			return false;
		hmac_sha1(salt, 20, name, mac);
		return !memcmp(mac, hash, 20);
	}
	bool pos = false;
	for (size_t i = 0; i < n;) {
		const char *e = memchr(f + i, ',', n - i);
		size_t len = e ? (size_t)(e - f - i) : n - i;
		bool neg = len && f[i] == '!';
		if (pattern_match(name, f + i + neg, len - neg)) {
			if (neg)
				return false;
			pos = true;
		}
		i += len + 1;
	}
	return pos;
}

/* The next whitespace-separated field of line at *p, as (start, n). */
static const char *
field(const char **p, const char *end, size_t *n)
{
	while (*p < end && (**p == ' ' || **p == '\t'))
		(*p)++;
	const char *s = *p;
	while (*p < end && **p != ' ' && **p != '\t')
		(*p)++;
	*n = (size_t)(*p - s);
	return s;
}

/* The verdict of the entries for name alone. */
static enum knownhosts_verdict
judge(const char *text, size_t len, const char *name,
      const unsigned char *key, size_t keylen, size_t *line)
{
	const unsigned char *kt, *et;
	size_t ktn, etn;
	if (!blob_type(key, keylen, &kt, &ktn))
		ktn = 0, kt = key;
	enum knownhosts_verdict v = KH_NEW;
	size_t ln = 0, changed = 0;
	unsigned char *blob = xmalloc(len + 1);
	*line = 0;
	for (const char *p = text, *end; p < text + len; p = end + 1) {
		end = memchr(p, '\n', (size_t)(text + len - p));
		if (!end)
			end = text + len;
		ln++;
		size_t n;
		const char *f = field(&p, end, &n);
		bool revoked = false;
		if (!n || *f == '#')
			continue;
		if (*f == '@') {
			if (n != strlen("@revoked") ||
			    strncmp(f, "@revoked", n))
				continue; /* @cert-authority: certificates */
			revoked = true;
			f = field(&p, end, &n);
		}
		if (!hosts_match(f, n, name))
			continue;
		field(&p, end, &n); /* the type: the blob's own is compared */
		f = field(&p, end, &n);
		long bl = unbase64(f, n, blob);
		if (bl < 0 || !blob_type(blob, (size_t)bl, &et, &etn))
			continue;
		bool same = (size_t)bl == keylen && !memcmp(blob, key, keylen);
		if (same && revoked) {
			v = KH_REVOKED, *line = ln;
			break;
		}
		if (same && !revoked && v != KH_OK)
			v = KH_OK, *line = ln;
		else if (!revoked && etn == ktn && !memcmp(et, kt, ktn) &&
			 !changed)
			changed = ln;
	}
	free(blob);
	if (v == KH_NEW && changed)
		v = KH_CHANGED, *line = changed;
	return v;
}

enum knownhosts_verdict
knownhosts_check(const char *text, size_t len, const char *host, int port,
		 const unsigned char *key, size_t keylen, size_t *line)
{
	char name[1100];
	snprintf(name, sizeof(name), port == 22 ? "%s" : "[%s]:%d", host, port);
	enum knownhosts_verdict v = judge(text, len, name, key, keylen, line);
	if (v != KH_NEW || port == 22)
		return v;
	/* ssh's "checking without port identifier": the plain name's
	 * entries may only accept the key, never refuse it */
	size_t plain;
	if (judge(text, len, host, key, keylen, &plain) != KH_OK)
		return KH_NEW;
	*line = plain;
	return KH_OK;
}
