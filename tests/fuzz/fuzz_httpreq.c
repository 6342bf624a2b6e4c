/*
 * fuzz_httpreq.c - what the sandboxed snippet sends inside a TLS
 * connection the proxy ends (a host with a credential or http rules):
 * request heads into launcher/egress/httpreq.c, then the rules' check
 * (cpol_http_allows, common/http.c) on what was parsed.
 *
 * Input: the request head; the field the credential's header names is
 * "Authorization".
 *
 * Properties:
 *   - the parser never crashes or reads outside the input (a buffer of
 *     its own size);
 *   - HTTPREQ_MORE only without CRLFCRLF in the first HTTPREQ_HEAD_MAX
 *     bytes;
 *   - an accepted head: its length within the input, ending in CRLFCRLF;
 *     a method of A-Z; a target starting with '/' without controls or
 *     spaces; HTTP/1.0 or 1.1; every header line within the head, ending
 *     in CRLF, with no CR or LF inside; no kept line named
 *     Authorization, Connection or Proxy-Authorization; a Host for 1.1;
 *   - cpol_http_allows never lets a path with a ".." segment through.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fuzz.h"
#include "../../launcher/egress/httpreq.h"
#include "cpol.h"

/* Does the line s (len bytes) start with the field name f + ':'? */
static int field(const char *s, size_t len, const char *f)
{
	size_t n = strlen(f);

	return len > n && strncasecmp(s, f, n) == 0;
}

static void lines(const char *b, const struct httpreq *rq)
{
	for (unsigned int i = 0; i < rq->nlines; i++) {
		const struct httpreq_line *l = &rq->line[i];
		const char *s = b + l->off;

		if (l->off < rq->line_len || l->off + l->len > rq->head_len - 2 ||
		    l->len < 3 || s[l->len - 2] != '\r' ||
		    s[l->len - 1] != '\n' || memchr(s, '\n', l->len - 1) ||
		    memchr(s, '\r', l->len - 2))
			fuzz_fail("header line %u badly bounded", i);
		if (!l->drop && (field(s, l->len, "authorization:") ||
		    field(s, l->len, "connection:") ||
		    field(s, l->len, "proxy-authorization:")))
			fuzz_fail("kept a line the proxy must drop: %.20s", s);
	}
}

/* One parse in one mode; ok: what it returned. */
static enum httpreq_error parse(const char *b, size_t size,
    unsigned int flags)
{
	static const struct cpol_http_rule rule = { (char *)"GET",
		(char *)"/v1/" };
	static const struct cpol_http h = { (char *)"api.example.org", 443,
		0, (char *)"T", (char *)"Authorization: {}",
		(struct cpol_http_rule *)&rule, 1 };
	static struct httpreq rq;
	char host[CPOL_MAX_HOSTNAME + 8];
	uint16_t port;
	enum httpreq_error e;

	e = httpreq_parse(b, size, "Authorization", 13, flags, &rq);
	if (e == HTTPREQ_MORE && size >= HTTPREQ_HEAD_MAX)
		fuzz_fail("MORE at %zu bytes", size);
	if (e != HTTPREQ_OK)
		return e;
	if (rq.head_len < 4 || rq.head_len > size || memcmp(b +
	    rq.head_len - 4, "\r\n\r\n", 4) != 0)
		fuzz_fail("accepted head of bad length %zu", rq.head_len);
	if (!rq.method[0] || strspn(rq.method,
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != strlen(rq.method) ||
	    rq.target[0] != '/' || strpbrk(rq.target, " \r\n\t"))
		fuzz_fail("accepted method or target");
	if (rq.minor == 1 && !rq.host[0])
		fuzz_fail("HTTP/1.1 without Host");
	if ((flags & HTTPREQ_ABSOLUTE) && (!rq.authority[0] ||
	    strpbrk(rq.authority, "/@ ")))
		fuzz_fail("accepted authority \"%s\"", rq.authority);
	if ((flags & HTTPREQ_ABSOLUTE) && httpreq_authority(rq.authority,
	    host, sizeof(host), &port) == 0 && (port == 0 ||
	    !cpol_host_name(host, strlen(host))))
		fuzz_fail("authority gave host \"%s\" port %u", host, port);
	lines(b, &rq);
	if (cpol_http_allows(&h, rq.method, rq.target) &&
	    (strstr(rq.target, "/../") || strstr(rq.target, "/./")))
		fuzz_fail("a dot segment let through: %s", rq.target);
	return e;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *b = malloc(size ? size : 1);
	enum httpreq_error e, a;

	if (!b)
		return 0;
	memcpy(b, data, size);
	e = parse(b, size, 0);
	a = parse(b, size, HTTPREQ_ABSOLUTE);
	if (fuzz_expect_accept && e != HTTPREQ_OK && a != HTTPREQ_OK)
		fuzz_fail("an ok- head refused: %d, %d", (int)e, (int)a);
	free(b);
	return 0;
}
