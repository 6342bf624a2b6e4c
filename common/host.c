/*
 * host.c - the named-host rules of "network connect": what a host name
 * is (cpol_host_name), what a rule may say (cpol_host_kind) and which
 * names it lets through (cpol_host_match).  The compiler, the blob reader
 * and the launcher's proxy (a CONNECT target) use these, so a name means
 * one thing everywhere.  No system call.
 */
#include <arpa/inet.h>
#include <string.h>
#include <strings.h>

#include "cpol.h"

#define LABEL_MAX 63            /* RFC 1035: the longest label */

static int alnum(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	    (ch >= '0' && ch <= '9');
}

/* One label at s[0..left): its length (1..LABEL_MAX) up to the next '.'
 * or the end, or 0 when it is not a label: letters, digits and '-', not
 * starting or ending with '-'. */
static size_t label(const char *s, size_t left)
{
	size_t n = 0;

	while (n < left && (alnum(s[n]) || s[n] == '-'))
		n++;
	if (n == 0 || n > LABEL_MAX || s[0] == '-' || s[n - 1] == '-' ||
	    (n < left && s[n] != '.'))
		return 0;
	return n;
}

int cpol_host_name(const char *s, size_t len)
{
	size_t n, at = 0, labels = 0, last = 0, i;

	if (len == 0 || len > CPOL_MAX_HOSTNAME)
		return 0;
	for (;;) {
		n = label(s + at, len - at);
		if (n == 0)
			return 0;               /* also an empty label: ".." */
		labels++;
		last = at;
		at += n;
		if (at == len)
			break;
		at++;                           /* the '.' */
		if (at == len)
			return 0;               /* a trailing dot */
	}
	for (i = last; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		;
	return labels >= 2 && i < len;
}

/* A rule's name: a host name, in lower case (a blob holds one spelling). */
static int rule_name(const char *s)
{
	size_t n = strlen(s), i;

	for (i = 0; i < n; i++)
		if (s[i] >= 'A' && s[i] <= 'Z')
			return 0;
	return cpol_host_name(s, n);
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
		return rule_name(s + 2) ? CPOL_HOST_WILDCARD : CPOL_HOST_BAD;
	return rule_name(s) ? CPOL_HOST_NAME : CPOL_HOST_BAD;
}

/* "*.example.org" matches any name ending in ".example.org" (at any
 * depth), never "example.org" itself; anything else matches itself.
 * Names compare without regard to case, as DNS has them. */
int cpol_host_match(const char *pattern, const char *host)
{
	size_t hn = strlen(host), sn;

	if (strncmp(pattern, "*.", 2) != 0)
		return strcasecmp(pattern, host) == 0;
	sn = strlen(pattern + 1);    /* ".example.org" */
	return hn > sn && strcasecmp(host + hn - sn, pattern + 1) == 0;
}
