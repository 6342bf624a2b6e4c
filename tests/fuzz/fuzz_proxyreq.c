/*
 * fuzz_proxyreq.c - what the sandboxed snippet (and the network) can send
 * cordon's egress proxy: request heads into launcher/egress/proxyreq.c, and DNS
 * answers into dns_parse (launcher/egress/dns.c); every input also as a
 * tunnel's first bytes into sni_parse (launcher/egress/sni.c).
 *
 * Input: the first byte chooses; 0..127 a request head (the rest of the
 * input), 128..255 a DNS answer to query id 0x1234 for api.example.org
 * (even: A, odd: AAAA).
 *
 * Properties:
 *   - neither parser crashes, hangs or reads outside the input (the
 *     sanitizers watch; the input is copied to a buffer of its own size);
 *   - an accepted head is a CONNECT with a non-empty lower-case host of
 *     the allowed characters, a port 1..65535, a literal flag that
 *     inet_pton agrees with (a name: one cpol_host_name accepts), and a
 *     head length within the input that ends in CRLFCRLF; PROXYREQ_MORE
 *     only for inputs without CRLFCRLF in the first PROXYREQ_HEAD_MAX
 *     bytes; PROXYREQ_BAD_NAME only with a port and a host that is no
 *     literal and that cpol_host_name refuses;
 *   - dns_parse returns -1 (not the answer) or 0..max addresses, each of
 *     the asked family, and -1 whenever the question is not exactly
 *     api.example.org (any case), the type asked, class IN.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "../../launcher/egress/proxy.h"

#define QNAME "api.example.org"

static int is_literal(const char *h)
{
	unsigned char a[16];

	return inet_pton(AF_INET, h, a) == 1 || inet_pton(AF_INET6, h, a) == 1;
}

static void bad_name(const struct proxyreq *rq)
{
	size_t i;

	if (rq->port == 0 || rq->host[0] == '\0' || is_literal(rq->host) ||
	    cpol_host_name(rq->host, strlen(rq->host)))
		fuzz_fail("BAD_NAME for \"%s\" port %u", rq->host,
		    (unsigned int)rq->port);
	for (i = 0; rq->host[i]; i++)
		if (rq->host[i] <= ' ' || rq->host[i] >= 0x7f ||
		    (rq->host[i] >= 'A' && rq->host[i] <= 'Z'))
			fuzz_fail("BAD_NAME host with byte 0x%02x",
			    rq->host[i]);
}

static void head(const uint8_t *data, size_t size)
{
	struct proxyreq rq;
	enum proxyreq_error e;
	unsigned char a[16];
	size_t i;

	e = proxyreq_parse((const char *)data, size, &rq);
	if (fuzz_expect_accept && e != PROXYREQ_OK)
		fuzz_fail("an ok- head refused: %d", (int)e);
	if (e == PROXYREQ_MORE && size >= PROXYREQ_HEAD_MAX)
		fuzz_fail("MORE at %zu bytes", size);
	if (e == PROXYREQ_BAD_NAME)
		bad_name(&rq);
	if (e != PROXYREQ_OK)
		return;
	if (rq.head_len < 4 || rq.head_len > size ||
	    memcmp(data + rq.head_len - 4, "\r\n\r\n", 4) != 0 ||
	    memcmp(data, "CONNECT ", 8) != 0)
		fuzz_fail("accepted head of bad length %zu", rq.head_len);
	if (rq.host[0] == '\0' || rq.port == 0)
		fuzz_fail("accepted an empty host or port 0");
	for (i = 0; rq.host[i]; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789.-:",
		    rq.host[i]))
			fuzz_fail("host with byte 0x%02x", rq.host[i]);
	if ((rq.literal == 4) != (inet_pton(AF_INET, rq.host, a) == 1) ||
	    (rq.literal == 6) != (inet_pton(AF_INET6, rq.host, a) == 1 &&
	    rq.literal != 4))
		fuzz_fail("literal %d for \"%s\"", rq.literal, rq.host);
	if (!rq.literal && !cpol_host_name(rq.host, strlen(rq.host)))
		fuzz_fail("accepted \"%s\", no host name", rq.host);
}

/* Is the message's question exactly QNAME (any case), qtype, IN?  Read
 * here apart from dns.c: uncompressed labels after the 12-byte header. */
static int question_is(const uint8_t *m, size_t size, unsigned int qtype)
{
	const char *want = QNAME;
	size_t at = 12, l, i;

	if (size < 12 || m[4] != 0 || m[5] != 1)
		return 0;
	for (;;) {
		if (at >= size || (m[at] & 0xc0))
			return 0;
		l = m[at++];
		if (l == 0)
			break;
		if (at + l > size || (*want == '\0'))
			return 0;
		for (i = 0; i < l; i++)
			if (want[i] == '\0' || want[i] == '.' ||
			    (m[at + i] | 0x20) != want[i])
				return 0;
		if (want[l] != '.' && want[l] != '\0')
			return 0;
		want += l + (want[l] == '.');
		at += l;
	}
	return *want == '\0' && at + 4 <= size && m[at] == qtype >> 8 &&
	    m[at + 1] == (qtype & 0xff) && m[at + 2] == 0 && m[at + 3] == 1;
}

static void dns(const uint8_t *data, size_t size, int aaaa)
{
	struct sockaddr_storage out[EGRESS_ADDRS_MAX];
	unsigned int qtype = aaaa ? 28 : 1;
	uint32_t ttl;
	int n, i;

	n = dns_parse(data, size, 0x1234, QNAME, (uint16_t)qtype, out,
	    EGRESS_ADDRS_MAX, &ttl);
	if (n < -1 || n > EGRESS_ADDRS_MAX)
		fuzz_fail("dns_parse gave %d", n);
	if (n >= 0 && !question_is(data, size, qtype))
		fuzz_fail("an answer to another question taken");
	if (n > 0 && ttl == UINT32_MAX)
		fuzz_fail("addresses without a TTL");
	for (i = 0; i < n; i++)
		if (out[i].ss_family != (aaaa ? AF_INET6 : AF_INET))
			fuzz_fail("address %d of family %d", i,
			    out[i].ss_family);
}

/* Every input is also a tunnel's first bytes (launcher/egress/sni.c):
 * a result of the four, a name only with SNI_OK, NUL-terminated, no
 * longer than the input. */
static void sni(const uint8_t *data, size_t size)
{
	char name[CPOL_MAX_HOSTNAME + 8];
	enum sni_result r;

	memset(name, 'x', sizeof(name));
	r = sni_parse(data, size, name, sizeof(name));
	if (r != SNI_OK && r != SNI_MORE && r != SNI_NONE && r != SNI_BAD)
		fuzz_fail("sni_parse gave %d", (int)r);
	if (!memchr(name, '\0', sizeof(name)))
		fuzz_fail("sni_parse left no NUL in the name");
	if (r != SNI_OK && name[0] != '\0')
		fuzz_fail("a name without SNI_OK");
	if (strlen(name) > size)
		fuzz_fail("a name longer than the input");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	if (size < 1)
		return 0;
	/* A buffer of exactly the input's size: a read past it is seen. */
	copy = malloc(size - 1 ? size - 1 : 1);
	if (!copy)
		return 0;
	memcpy(copy, data + 1, size - 1);
	sni(copy, size - 1);
	if (data[0] < 128)
		head(copy, size - 1);
	else
		dns(copy, size - 1, data[0] & 1);
	free(copy);
	return 0;
}
