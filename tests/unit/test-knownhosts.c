/*
 * knownhosts: known_hosts judged as OpenSSH 9 judges it (ssh-trust.bats
 * checks the same against ssh itself on a real sshd).
 */
#include <string.h>

#include "knownhosts.h"
#include "tap.h"

/* Wire blobs of two ed25519 keys (type, then 32 bytes), and their base64. */
static const unsigned char A[] = "\0\0\0\x0bssh-ed25519\0\0\0\x20"
				 "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
#define A64 "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB"
#define B64 "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJC"
#define SALT "|1|AAECAwQFBgcICQoLDA0ODxAREhM=|"

static enum knownhosts_verdict
check(const char *text, const char *host, int port, size_t *line)
{
	return knownhosts_check(text, strlen(text), host, port, A,
				sizeof(A) - 1, line);
}

int
main(void)
{
	size_t line;
	is_int(check("", "h", 22, &line), KH_NEW, "an empty file: new");
	is_int(check("h " A64 "\n", "h", 22, &line), KH_OK, "plain, port 22");
	is_int(check("# c\n\nh " B64 "\n", "h", 22, &line), KH_CHANGED,
	       "another key of the type: changed");
	is_int(line, 3, "on line 3");
	is_int(check("h " A64 "\n", "h", 2222, &line), KH_OK,
	       "a plain entry's key is accepted on another port");
	is_int(check("h " B64 "\n", "h", 2222, &line), KH_NEW,
	       "a plain entry never makes another port's key changed");
	is_int(check("[h]:2222 " B64 "\nh " A64 "\n", "h", 2222, &line),
	       KH_CHANGED, "[h]:port WRONG beside h RIGHT: changed");
	is_int(check("[h]:2222 " B64 "\n[h]:2222 " A64 "\n", "h", 2222, &line),
	       KH_OK, "one of two entries matches: ok");
	is_int(line, 2, "on line 2");
	is_int(check("[h]:22 " A64 "\n", "h", 22, &line), KH_NEW,
	       "[h]:22 is not how port 22 is named");
	is_int(check(SALT "zKYaAqmSav3Qxr2sffNqWFIcbe4= " A64 "\n", "127.0.0.1",
		     2222, &line), KH_OK, "a hashed [host]:port entry");
	is_int(check(SALT "vXPZpM3fPbCqhG5K7rISl8O0xEk= " B64 "\n", "h.example",
		     22, &line), KH_CHANGED, "a hashed plain entry, other key");
	is_int(check(SALT "vXPZpM3fPbCqhG5K7rISl8O0xEk= " A64 "\n", "h.exampl",
		     22, &line), KH_NEW, "a hashed entry of another name");
	is_int(check("*.example,!bad.example " A64 "\n", "bad.example", 22,
		     &line), KH_NEW, "a negated pattern: the line does not apply");
	is_int(check("*.EXAMPLE,!bad.example " A64 "\n", "Good.example", 22,
		     &line), KH_OK, "a wildcard, without case");
	is_int(check("h?st " A64 "\n", "host", 22, &line), KH_OK, "'?'");
	is_int(check("@revoked h " A64 "\nh " A64 "\n", "h", 22, &line),
	       KH_REVOKED, "a revoked key");
	is_int(check("@cert-authority h " A64 "\n", "h", 22, &line), KH_NEW,
	       "a CA line is for certificates");
	is_int(check("h ssh-ed25519 !!!!\nh " A64, "h", 22, &line), KH_OK,
	       "a broken line is skipped; the last line needs no newline");
	is_int(check(SALT "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
		     "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA " A64, "h", 22,
		     &line), KH_NEW, "an overlong hash is no match");
	return done_testing();
}
