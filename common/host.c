/*
 * host.c - the named-host rules of "network connect": what a rule may
 * say (cpol_host_kind) and which names it lets through (cpol_host_match).
 * The compiler, the blob reader and the launcher's proxy use these, so a
 * rule means one thing everywhere.  No system call.
 */
#include <arpa/inet.h>
#include <string.h>

#include "cpol.h"

/* One DNS label: [a-z0-9-]{1,63}, not starting or ending with '-'. */
static size_t label(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-");

	if (n == 0 || n > 63 || s[0] == '-' || s[n - 1] == '-')
		return 0;
	return n;
}

/* A lower-case DNS name of at least two labels, none of them all digits
 * at the end (that would read as an address). */
static int name_ok(const char *s)
{
	size_t n, labels = 0, total = strlen(s);
	const char *last = s;

	if (total == 0 || total > CPOL_MAX_HOSTNAME)
		return 0;
	for (;;) {
		n = label(s);
		if (n == 0)
			return 0;
		labels++;
		last = s;
		if (s[n] == '\0')
			break;
		if (s[n] != '.')
			return 0;
		s += n + 1;
	}
	return labels >= 2 && strspn(last, "0123456789") != strlen(last);
}

/* An address literal exactly as inet_ntop writes it. */
static int literal(int af, const char *s)
{
	unsigned char a[16];
	char back[INET6_ADDRSTRLEN];

	if (inet_pton(af, s, a) != 1 ||
	    !inet_ntop(af, a, back, sizeof(back)))
		return 0;
	return strcmp(back, s) == 0;
}

enum cpol_host_kind cpol_host_kind(const char *s)
{
	if (literal(AF_INET, s))
		return CPOL_HOST_IPV4;
	if (strchr(s, ':'))
		return literal(AF_INET6, s) ? CPOL_HOST_IPV6 : CPOL_HOST_BAD;
	if (strncmp(s, "*.", 2) == 0)
		return name_ok(s + 2) ? CPOL_HOST_WILDCARD : CPOL_HOST_BAD;
	return name_ok(s) ? CPOL_HOST_NAME : CPOL_HOST_BAD;
}

/* "*.example.org" matches any name ending in ".example.org" (at any
 * depth), never "example.org" itself; anything else matches itself. */
int cpol_host_match(const char *pattern, const char *host)
{
	size_t hn = strlen(host), sn;

	if (strncmp(pattern, "*.", 2) != 0)
		return strcmp(pattern, host) == 0;
	sn = strlen(pattern + 1);    /* ".example.org" */
	return hn > sn && strcmp(host + hn - sn, pattern + 1) == 0;
}
