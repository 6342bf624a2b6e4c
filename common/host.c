/*
 * host.c - the named-host rules of "network connect": what a host name
 * is (cpol_host_name), what a rule may say (cpol_host_kind) and which
 * names it lets through (cpol_host_match), and which addresses are not
 * public (cpol_addr_special: the one table of them).  The compiler, the
 * blob reader and the launcher's proxy (a CONNECT target, an address it
 * resolved) use these, so a name and an address mean one thing
 * everywhere.  No system call.
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

/* The addresses that are not the public Internet's: the host's own,
 * its network's and its cloud's services, and ranges no server is
 * reached at.  One table, for the compiler (a literal a rule names),
 * the blob reader and the proxy (a literal, and what a name resolved
 * to).  IPv4 rows are written as IPv4-mapped IPv6 (::ffff:a.b.c.d/96+n);
 * an IPv4 address is looked up in that form.  First match wins: the
 * narrow rows come before the ranges that hold them. */
struct special {
	uint8_t net[16];
	uint8_t bits;
	const char *what;
};

#define V4(a, b, c, d) { [10] = 0xff, [11] = 0xff, [12] = (a), [13] = (b), \
	[14] = (c), [15] = (d) }
static const struct special specials[] = {
	{ V4(169, 254, 169, 254), 128, "cloud metadata" },
	{ V4(100, 100, 100, 200), 128, "cloud metadata" },
	{ V4(0, 0, 0, 0), 96 + 8, "unspecified (this network)" },
	{ V4(10, 0, 0, 0), 96 + 8, "private (RFC 1918)" },
	{ V4(100, 64, 0, 0), 96 + 10, "shared (carrier NAT)" },
	{ V4(127, 0, 0, 0), 96 + 8, "loopback" },
	{ V4(169, 254, 0, 0), 96 + 16, "link-local" },
	{ V4(172, 16, 0, 0), 96 + 12, "private (RFC 1918)" },
	{ V4(192, 0, 0, 0), 96 + 24, "reserved (IETF protocols)" },
	{ V4(192, 0, 2, 0), 96 + 24, "documentation" },
	{ V4(192, 168, 0, 0), 96 + 16, "private (RFC 1918)" },
	{ V4(198, 18, 0, 0), 96 + 15, "benchmarking" },
	{ V4(198, 51, 100, 0), 96 + 24, "documentation" },
	{ V4(203, 0, 113, 0), 96 + 24, "documentation" },
	{ V4(224, 0, 0, 0), 96 + 4, "multicast" },
	{ V4(240, 0, 0, 0), 96 + 4, "reserved (and broadcast)" },
	{ { [15] = 0 }, 128, "unspecified" },
	{ { [15] = 1 }, 128, "loopback" },
	{ { 0xfd, 0x00, 0x0e, 0xc2, [14] = 0x02, [15] = 0x54 }, 128,
	    "cloud metadata" },                        /* fd00:ec2::254 */
	{ { 0xfc }, 7, "private (unique local, fc00::/7)" },
	{ { 0xfe, 0x80 }, 10, "link-local" },
	{ { 0xff }, 8, "multicast" },
	{ { 0x20, 0x01, 0x0d, 0xb8 }, 32, "documentation" },
};
#undef V4

static int in_net(const uint8_t *a, const struct special *s)
{
	unsigned int full = s->bits / 8u, rest = s->bits % 8u;
	uint8_t mask = (uint8_t)(0xff00u >> rest);

	return memcmp(a, s->net, full) == 0 &&
	    (rest == 0 || ((a[full] ^ s->net[full]) & mask) == 0);
}

const char *cpol_addr_special(const uint8_t *addr, size_t len)
{
	static const uint8_t nat64[12] = { 0, 0x64, 0xff, 0x9b };
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };
	uint8_t a[16];
	size_t i;

	if (len == 4) {
		memcpy(a, v4mapped, 12);
		memcpy(a + 12, addr, 4);
	} else if (len == 16) {
		memcpy(a, addr, 16);
	} else {
		return "not an address";
	}
	/* NAT64 (64:ff9b::/96) reaches the IPv4 address it holds. */
	if (memcmp(a, nat64, 12) == 0)
		memcpy(a, v4mapped, 12);
	for (i = 0; i < sizeof(specials) / sizeof(specials[0]); i++)
		if (in_net(a, &specials[i]))
			return specials[i].what;
	/* An IPv4 address past the table is public; IPv6 is when it is
	 * global unicast (2000::/3): the rest is reserved, the old
	 * IPv4-compatible ::a.b.c.d included. */
	if (memcmp(a, v4mapped, 12) != 0 && (a[0] & 0xe0) != 0x20)
		return "reserved";
	return NULL;
}

const char *cpol_host_special(const char *host)
{
	uint8_t a[16];

	if (cpol_host_kind(host) == CPOL_HOST_IPV4 &&
	    inet_pton(AF_INET, host, a) == 1)
		return cpol_addr_special(a, 4);
	if (cpol_host_kind(host) == CPOL_HOST_IPV6 &&
	    inet_pton(AF_INET6, host, a) == 1)
		return cpol_addr_special(a, 16);
	return NULL;
}

uint32_t cpol_private_count(const struct cpol *p)
{
	uint32_t i, n = 0;

	for (i = 0; i < p->nhosts; i++)
		n += (p->hosts[i].flags & CPOL_HOST_PRIVATE) != 0;
	return n;
}

int cpol_wildcard_over(const struct cpol *p, uint32_t w, uint32_t *hi)
{
	const struct cpol_host *h = &p->hosts[w];
	uint32_t i;

	if (strncmp(h->host, "*.", 2) != 0)
		return 0;
	for (i = 0; i < p->nhttp; i++)
		if (p->http[i].nrules > 0 && p->http[i].port == h->port &&
		    cpol_host_match(h->host, p->http[i].host)) {
			*hi = i;
			return 1;
		}
	return 0;
}
