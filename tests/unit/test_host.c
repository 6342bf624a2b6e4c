/*
 * test_host.c - the one host-name check (common/host.c cpol_host_name)
 * and its two users: the compiler's rule kinds (cpol_host_kind, through
 * which cordonc and the blob reader check a rule) and the proxy's
 * CONNECT parser (launcher/egress/proxyreq.c), which must refuse exactly the
 * names the compiler refuses; and the proxy's DNS answer check
 * (launcher/egress/dns.c dns_parse): the id, the question's name (any case),
 * type and class must be the query's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "cpol.h"
#include "proxy.h"

static char label63[64], label64[65], long_name[300];

static int setup(void **state)
{
	size_t n;

	(void)state;
	memset(label63, 'a', 63);
	memset(label64, 'a', 64);
	/* 4 labels of 63 and one of 1: 4 * 64 + 1 = 257 bytes > 253. */
	for (n = 0; n < 4 * 64; n += 64) {
		memset(long_name + n, 'b', 63);
		long_name[n + 63] = '.';
	}
	long_name[n] = 'c';
	return 0;
}

static int name(const char *s)
{
	return cpol_host_name(s, strlen(s));
}

static void test_names(void **state)
{
	char buf[400];

	(void)state;
	assert_true(name("api.example.org"));
	assert_true(name("API.Example.ORG"));         /* any case */
	assert_true(name("a-b.c0.googleapis.com"));
	assert_true(name("x.1a"));                    /* last label: 1a */
	snprintf(buf, sizeof(buf), "%s.googleapis.com", label63);
	assert_true(name(buf));
	snprintf(buf, sizeof(buf), "%s.googleapis.com", label64);
	assert_false(name(buf));                      /* a 64-byte label */
	assert_false(name("-x.googleapis.com"));      /* leading '-' */
	assert_false(name("x-.googleapis.com"));      /* trailing '-' */
	assert_false(name("a..googleapis.com"));      /* an empty label */
	assert_false(name(".googleapis.com"));
	assert_false(name("googleapis.com."));        /* the root's dot */
	assert_false(name("localhost"));              /* one label */
	assert_false(name("1.2.3.4"));                /* reads as an address */
	assert_false(name("x.123"));
	assert_false(name("exa_mple.com"));
	assert_false(name("a b.com"));
	assert_false(name(""));
	assert_false(cpol_host_name("a.com\0x", 7));  /* a NUL inside */
	assert_true(cpol_host_name("a.comXYZ", 5));   /* only s[0..len) */
	assert_false(name(long_name));
	long_name[253] = '\0';                        /* 253 bytes ... */
	long_name[252] = 'd';                         /* ... not ending '.' */
	assert_true(name(long_name));
}

/* A rule: the same names, in lower case, or "*." and one, or a literal. */
static void test_kinds(void **state)
{
	(void)state;
	assert_int_equal(cpol_host_kind("api.example.org"), CPOL_HOST_NAME);
	assert_int_equal(cpol_host_kind("Api.X.org"), CPOL_HOST_BAD);
	assert_int_equal(cpol_host_kind("*.googleapis.com"),
	    CPOL_HOST_WILDCARD);
	assert_int_equal(cpol_host_kind("*.-x.com"), CPOL_HOST_BAD);
	assert_int_equal(cpol_host_kind("-x.googleapis.com"), CPOL_HOST_BAD);
	assert_int_equal(cpol_host_kind("a..googleapis.com"), CPOL_HOST_BAD);
	assert_int_equal(cpol_host_kind("192.0.2.7"), CPOL_HOST_IPV4);
	assert_int_equal(cpol_host_kind("2001:db8::1"), CPOL_HOST_IPV6);
	assert_int_equal(cpol_host_kind("127.000.0.1"), CPOL_HOST_BAD);
	/* other spellings of an address: none is a rule (issue 38) */
	assert_int_equal(cpol_host_kind("127.1"), CPOL_HOST_BAD);
	assert_int_equal(cpol_host_kind("0x7f.0.0.1"), CPOL_HOST_BAD);
	assert_int_equal(cpol_host_kind("2130706433"), CPOL_HOST_BAD);
	assert_int_equal(cpol_host_kind("0177.0.0.1"), CPOL_HOST_BAD);
	assert_int_equal(cpol_host_kind("::FFFF:127.0.0.1"), CPOL_HOST_BAD);
	assert_true(cpol_host_match("*.googleapis.com", "a.b.googleapis.com"));
	assert_true(cpol_host_match("*.googleapis.com", "X.GoogleAPIs.com"));
	assert_false(cpol_host_match("*.googleapis.com", "googleapis.com"));
	assert_true(cpol_host_match("api.example.org", "API.example.org"));
}

/* The one table of special addresses (common/host.c): each kind at its
 * edges, in its IPv4, IPv4-mapped and NAT64 forms; public ones pass. */
static void test_special(void **state)
{
	static const struct { const char *host, *what; } cases[] = {
		{ "127.0.0.1", "loopback" }, { "127.255.255.254", "loopback" },
		{ "::1", "loopback" }, { "::ffff:127.0.0.1", "loopback" },
		{ "64:ff9b::7f00:1", "loopback" },
		{ "169.254.169.254", "cloud metadata" },
		{ "fd00:ec2::254", "cloud metadata" },
		{ "100.100.100.200", "cloud metadata" },
		{ "::ffff:169.254.169.254", "cloud metadata" },
		{ "169.254.0.1", "link-local" }, { "fe80::1", "link-local" },
		{ "febf::1", "link-local" },
		{ "10.0.0.1", "private (RFC 1918)" },
		{ "172.16.0.1", "private (RFC 1918)" },
		{ "172.31.255.255", "private (RFC 1918)" },
		{ "192.168.1.1", "private (RFC 1918)" },
		{ "fc00::1", "private (unique local, fc00::/7)" },
		{ "fdff::1", "private (unique local, fc00::/7)" },
		{ "0.0.0.0", "unspecified (this network)" },
		{ "::", "unspecified" }, { "224.0.0.1", "multicast" },
		{ "ff02::1", "multicast" }, { "255.255.255.255",
		    "reserved (and broadcast)" },
		{ "100.64.0.1", "shared (carrier NAT)" },
		{ "::127.0.0.1", "reserved" }, { "4000::1", "reserved" },
		{ "8.8.8.8", NULL }, { "172.32.0.1", NULL },
		{ "172.15.255.255", NULL }, { "169.253.0.1", NULL },
		{ "100.128.0.1", NULL }, { "2606:4700::1111", NULL },
		{ "::ffff:8.8.8.8", NULL }, { "64:ff9b::808:808", NULL },
		{ "fec0::1", "reserved" }, { "api.example.org", NULL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *w = cpol_host_special(cases[i].host);

		if (!w != !cases[i].what || (w && strcmp(w, cases[i].what)))
			fail_msg("%s: %s, want %s", cases[i].host,
			    w ? w : "public", cases[i].what ? cases[i].what :
			    "public");
	}
}

/* A wildcard over a host with http rules on its port, and only then. */
static void test_wildcard_over(void **state)
{
	static struct cpol_http_rule get[] = { { "GET", "/v1/" } };
	struct cpol_host hosts[] = { { "*.example.org", 443, 0 },
		{ "*.example.org", 8443, 0 }, { "*.example.net", 443, 0 },
		{ "api.example.org", 443, 0 } };
	struct cpol_http http[] = { { "api.example.org", 443, 0, "", "",
		get, 1 } };
	struct cpol p;
	uint32_t hi = 99;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.hosts = hosts;
	p.nhosts = 4;
	p.http = http;
	p.nhttp = 1;
	assert_true(cpol_wildcard_over(&p, 0, &hi));
	assert_int_equal(hi, 0);
	assert_false(cpol_wildcard_over(&p, 1, &hi));
	assert_false(cpol_wildcard_over(&p, 2, &hi));
	assert_false(cpol_wildcard_over(&p, 3, &hi));
	p.http[0].nrules = 0;      /* any request: nothing to go around */
	assert_false(cpol_wildcard_over(&p, 0, &hi));
}

/* A ClientHello in one record naming name (NULL: no server_name),
 * into b; its length. */
static size_t hello(uint8_t *b, const char *name)
{
	size_t n = 0, l = name ? strlen(name) : 0, ext = name ? 9 + l : 0,
	    hs = 2 + 32 + 1 + 4 + 2 + 2 + ext;

	b[n++] = 0x16, b[n++] = 3, b[n++] = 1;
	b[n++] = (uint8_t)((hs + 4) >> 8), b[n++] = (uint8_t)(hs + 4);
	b[n++] = 1, b[n++] = 0, b[n++] = (uint8_t)(hs >> 8);
	b[n++] = (uint8_t)hs;
	b[n++] = 3, b[n++] = 3;
	memset(b + n, 0xaa, 32);
	n += 32;
	b[n++] = 0;                                  /* session id */
	b[n++] = 0, b[n++] = 2, b[n++] = 0x13, b[n++] = 0x01;
	b[n++] = 1, b[n++] = 0;                      /* compression */
	b[n++] = (uint8_t)(ext >> 8), b[n++] = (uint8_t)ext;
	if (name) {
		b[n++] = 0, b[n++] = 0;              /* server_name */
		b[n++] = (uint8_t)((l + 5) >> 8), b[n++] = (uint8_t)(l + 5);
		b[n++] = (uint8_t)((l + 3) >> 8), b[n++] = (uint8_t)(l + 3);
		b[n++] = 0;                          /* host_name */
		b[n++] = (uint8_t)(l >> 8), b[n++] = (uint8_t)l;
		memcpy(b + n, name, l);
		n += l;
	}
	return n;
}

/* The server name a tunnel's first bytes ask for (launcher/egress/sni.c):
 * found whole, more wanted for every cut, none for other protocols. */
static void test_sni(void **state)
{
	uint8_t b[600];
	char name[CPOL_MAX_HOSTNAME + 8];
	size_t n = hello(b, "api.example.org"), i;

	(void)state;
	assert_int_equal(sni_parse(b, n, name, sizeof(name)), SNI_OK);
	assert_string_equal(name, "api.example.org");
	for (i = 0; i < n; i++)
		if (sni_parse(b, i, name, sizeof(name)) != SNI_MORE)
			fail_msg("a hello cut at %zu is not SNI_MORE", i);
	n = hello(b, NULL);
	assert_int_equal(sni_parse(b, n, name, sizeof(name)), SNI_OK);
	assert_string_equal(name, "");
	assert_int_equal(sni_parse((const uint8_t *)"GET / HTTP/1.1\r\n", 16,
	    name, sizeof(name)), SNI_NONE);
	n = hello(b, "api.example.org");
	b[5] = 2;                                    /* not a ClientHello */
	assert_int_equal(sni_parse(b, n, name, sizeof(name)), SNI_BAD);
	n = hello(b, "api.example.org");
	b[8] = (uint8_t)(b[8] + 40);   /* a hello longer than its record */
	assert_int_equal(sni_parse(b, n, name, sizeof(name)), SNI_BAD);
	n = hello(b, "api.example.org");
	assert_int_equal(sni_parse(b, n, name, 8), SNI_BAD);  /* too long */
}

static enum proxyreq_error connect_to(const char *target,
    struct proxyreq *rq)
{
	char head[600];
	int n = snprintf(head, sizeof(head), "CONNECT %s HTTP/1.1\r\nHost: "
	    "%s\r\n\r\n", target, target);

	return proxyreq_parse(head, (size_t)n, rq);
}

/* The proxy refuses, as not a name, every name the check refuses. */
static void test_connect_targets(void **state)
{
	static const char *const bad[] = { "-x.googleapis.com:443",
	    "x-.googleapis.com:443", "a..googleapis.com:443",
	    "googleapis.com..:443", "localhost:443", "exa_mple.com:443",
	    "1.2.3.04:443", NULL };
	struct proxyreq rq;
	char t[400];
	int i;

	(void)state;
	for (i = 0; bad[i]; i++) {
		assert_int_equal(connect_to(bad[i], &rq), PROXYREQ_BAD_NAME);
		/* The name as asked (less the root's dot), for the report. */
		assert_true(rq.host[0] && strncmp(rq.host, bad[i],
		    strlen(rq.host)) == 0);
		assert_int_equal(rq.port, 443);
	}
	snprintf(t, sizeof(t), "%s.googleapis.com:443", label64);
	assert_int_equal(connect_to(t, &rq), PROXYREQ_BAD_NAME);
	snprintf(t, sizeof(t), "%s.googleapis.com:443", label63);
	assert_int_equal(connect_to(t, &rq), PROXYREQ_OK);
	/* Any case, the root's one dot: the same name, in lower case. */
	assert_int_equal(connect_to("X.GoogleAPIs.com.:443", &rq), PROXYREQ_OK);
	assert_string_equal(rq.host, "x.googleapis.com");
	assert_int_equal(rq.literal, 0);
	assert_int_equal(connect_to("[::1]:443", &rq), PROXYREQ_OK);
	assert_int_equal(rq.literal, 6);
	assert_int_equal(connect_to("192.0.2.7:443", &rq), PROXYREQ_OK);
	assert_int_equal(rq.literal, 4);
	assert_int_equal(connect_to("[a.com]:443", &rq), PROXYREQ_BAD_TARGET);
	assert_int_equal(connect_to("a.com:0", &rq), PROXYREQ_BAD_TARGET);
	/* A head bad elsewhere is a bad request, whatever its name. */
	assert_int_equal(proxyreq_parse("CONNECT -x.com:443 HTTP/2.0\r\n\r\n",
	    31, &rq), PROXYREQ_BAD);
}

/* An answer: id 0x1234, one question (name as given), one A record. */
static size_t answer(uint8_t *m, const char *qname, unsigned int qtype,
    uint16_t id)
{
	static const uint8_t rr[] = { 0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60,
	    0, 4, 10, 0, 0, 1 };
	size_t n = 12, l;
	const char *dot;

	memset(m, 0, 12);
	m[0] = (uint8_t)(id >> 8);
	m[1] = (uint8_t)id;
	m[2] = 0x81;                /* a response, recursion desired */
	m[3] = 0x80;
	m[5] = 1;                   /* one question */
	m[7] = 1;                   /* one answer */
	for (; *qname; qname = *dot ? dot + 1 : dot) {
		dot = strchr(qname, '.');
		if (!dot)
			dot = qname + strlen(qname);
		l = (size_t)(dot - qname);
		m[n++] = (uint8_t)l;
		memcpy(m + n, qname, l);
		n += l;
	}
	m[n++] = 0;
	m[n++] = (uint8_t)(qtype >> 8);
	m[n++] = (uint8_t)qtype;
	m[n++] = 0;
	m[n++] = 1;
	memcpy(m + n, rr, sizeof(rr));
	return n + sizeof(rr);
}

static int parse(const uint8_t *m, size_t n, uint32_t *ttl)
{
	struct sockaddr_storage out[EGRESS_ADDRS_MAX];

	return dns_parse(m, n, 0x1234, "api.example.org", 1, out,
	    EGRESS_ADDRS_MAX, ttl);
}

static void test_dns_question(void **state)
{
	uint8_t m[512];
	uint32_t ttl;
	size_t n;

	(void)state;
	n = answer(m, "api.example.org", 1, 0x1234);
	assert_int_equal(parse(m, n, &ttl), 1);
	assert_int_equal(ttl, 60);
	n = answer(m, "API.Example.ORG", 1, 0x1234);  /* 0x20 case: same */
	assert_int_equal(parse(m, n, &ttl), 1);
	n = answer(m, "evil.example.org", 1, 0x1234);
	assert_int_equal(parse(m, n, &ttl), -1);
	n = answer(m, "api.example.org.evil.com", 1, 0x1234);
	assert_int_equal(parse(m, n, &ttl), -1);
	n = answer(m, "api.example", 1, 0x1234);
	assert_int_equal(parse(m, n, &ttl), -1);
	n = answer(m, "api.example.or", 1, 0x1234);
	assert_int_equal(parse(m, n, &ttl), -1);
	n = answer(m, "api.example.org", 28, 0x1234); /* another type */
	assert_int_equal(parse(m, n, &ttl), -1);
	n = answer(m, "api.example.org", 1, 0x4321);  /* another id */
	assert_int_equal(parse(m, n, &ttl), -1);
	n = answer(m, "api.example.org", 1, 0x1234);
	m[3] = 0x83;                                  /* NXDOMAIN: none */
	assert_int_equal(parse(m, n, &ttl), 0);
	n = answer(m, "api.example.org", 1, 0x1234);
	m[2] = 0x01;                                  /* a query, no answer */
	assert_int_equal(parse(m, n, &ttl), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_special),
		cmocka_unit_test(test_wildcard_over),
		cmocka_unit_test(test_sni),
		cmocka_unit_test(test_connect_targets),
		cmocka_unit_test(test_dns_question),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
