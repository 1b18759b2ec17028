/*
 * knownhosts: what an OpenSSH known_hosts file says of a host's key,
 * decided as ssh(1) (OpenSSH 9) with StrictHostKeyChecking=yes decides
 * it.  The name looked up is "host" for port 22 and "[host]:port" for any
 * other; when that gives NEW, "host" is looked up too, and only a key it
 * accepts counts (ssh's "checking without port identifier": a plain
 * entry never makes a key CHANGED on another port).  An entry's host field is a
 * comma-separated list of patterns ('*' and '?' wildcards, compared
 * without case; a matching "!pattern" makes the line not apply) or one
 * hashed name "|1|salt|hash" (HMAC-SHA1).  Of the entries that apply, a
 * "@revoked" one with this key revokes it; one with this key (no marker)
 * accepts it; else one with a key of the same type means the key has
 * CHANGED; else the key is NEW.  "@cert-authority" lines are for
 * certificates and are skipped.  Pure: it reads the file's text, given.
 */
#ifndef WFRUN_KNOWNHOSTS_H
#define WFRUN_KNOWNHOSTS_H

#include <stddef.h>

enum knownhosts_verdict { KH_NEW, KH_OK, KH_CHANGED, KH_REVOKED };

/* The verdict on key (its SSH wire blob, key[0..keylen)) for host:port;
 * *line gets the line number of the entry that decided (0: none). */
enum knownhosts_verdict knownhosts_check(const char *text, size_t len,
					 const char *host, int port,
					 const unsigned char *key,
					 size_t keylen, size_t *line);

#endif
