/*
 * fuzz_proxyreq.c - what the sandboxed snippet (and the network) can send
 * cordon's egress proxy: request heads into launcher/proxyreq.c, and DNS
 * answers into dns_parse (launcher/dns.c).
 *
 * Input: the first byte chooses; 0..127 a request head (the rest of the
 * input), 128..255 a DNS answer to query id 0x1234 (even: A, odd: AAAA).
 *
 * Properties:
 *   - neither parser crashes, hangs or reads outside the input (the
 *     sanitizers watch; the input is copied to a buffer of its own size);
 *   - an accepted head is a CONNECT with a non-empty lower-case host of
 *     the allowed characters, a port 1..65535, a literal flag that
 *     inet_pton agrees with, and a head length within the input that ends
 *     in CRLFCRLF; PROXYREQ_MORE only for inputs without CRLFCRLF in the
 *     first PROXYREQ_HEAD_MAX bytes;
 *   - dns_parse returns 0..max addresses, each AF_INET or AF_INET6.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "../../launcher/egress.h"

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
}

static void dns(const uint8_t *data, size_t size, int aaaa)
{
	struct sockaddr_storage out[EGRESS_ADDRS_MAX];
	int n, i;

	n = dns_parse(data, size, 0x1234, aaaa ? 28 : 1, out,
	    EGRESS_ADDRS_MAX);
	if (n < 0 || n > EGRESS_ADDRS_MAX)
		fuzz_fail("dns_parse gave %d", n);
	for (i = 0; i < n; i++)
		if (out[i].ss_family != (aaaa ? AF_INET6 : AF_INET))
			fuzz_fail("address %d of family %d", i,
			    out[i].ss_family);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
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
	if (data[0] < 128)
		head(copy, size - 1);
	else
		dns(copy, size - 1, data[0] & 1);
	free(copy);
	return 0;
}
