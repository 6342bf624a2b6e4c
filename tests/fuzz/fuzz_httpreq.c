/*
 * fuzz_httpreq.c - what the sandboxed snippet sends inside a TLS
 * connection the proxy ends (a host with a credential or http rules):
 * request heads into launcher/egress/httpreq.c, then the rules' check
 * (cpol_http_allows, common/http.c) on what was parsed.
 *
 * Input: the request head; the field the credential's header names is
 * "Authorization".  The same bytes (to the first NUL, at most
 * TARGET_MAX) are also a request target for httptarget_check
 * (launcher/egress/httptarget.c), as is every target a head carries.
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
 *   - no accepted head has a header name with '_'; rq.rewrite is set
 *     exactly when a line is a method-override or URL-rewrite field;
 *   - cpol_http_allows never lets a path with a ".." segment through;
 *   - httptarget_check accepts exactly what normal() below, a second
 *     spelling of cordon.policy(5)'s rule, accepts: the path decoded
 *     once then checked whole (no '.', '..' or empty segment, no ';',
 *     '%', '\\' or control byte, UTF-8 in shortest form, checked by
 *     code point), never a fault without its words.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <stdint.h>

#include "fuzz.h"
#include "../../launcher/egress/httpreq.h"
#include "../../launcher/egress/httptarget.h"
#include "cpol.h"

/* Does the line s (len bytes) start with the field name f + ':'? */
static int field(const char *s, size_t len, const char *f)
{
	size_t n = strlen(f);

	return len > n && strncasecmp(s, f, n) == 0;
}

/* Is the line s a method-override or URL-rewrite field? */
static int rewrite(const char *s, size_t len)
{
	static const char *const f[] = { "x-http-method-override:",
		"x-http-method:", "x-method-override:", "x-original-url:",
		"x-rewrite-url:" };

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (field(s, len, f[i]))
			return 1;
	return 0;
}

static void lines(const char *b, const struct httpreq *rq)
{
	int rw = 0;

	for (unsigned int i = 0; i < rq->nlines; i++) {
		const struct httpreq_line *l = &rq->line[i];
		const char *s = b + l->off;
		const char *colon = memchr(s, ':', l->len);

		if (!colon || memchr(s, '_', (size_t)(colon - s)))
			fuzz_fail("kept a header name with '_': %.20s", s);
		rw |= rewrite(s, l->len);

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
	if (rw != rq->rewrite)
		fuzz_fail("rewrite %d for a head with%s such a field",
		    rq->rewrite, rw ? "" : "out");
}

#define TARGET_MAX 4096     /* bytes of the input tried as a target */

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ?
	    c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* d[0..n): UTF-8 in shortest form, by code point. */
static int utf8(const unsigned char *d, size_t n)
{
	static const uint32_t least[] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t i = 0, k, len;
	uint32_t cp;

	while (i < n) {
		len = d[i] < 0x80 ? 1 : (d[i] & 0xe0) == 0xc0 ? 2 :
		    (d[i] & 0xf0) == 0xe0 ? 3 : (d[i] & 0xf8) == 0xf0 ? 4 : 0;
		if (len == 0 || len > n - i)
			return 0;
		cp = len == 1 ? d[i] : d[i] & (0x7fu >> len);
		for (k = 1; k < len; k++) {
			if ((d[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (d[i + k] & 0x3fu);
		}
		if ((len > 1 && cp < least[len]) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += len;
	}
	return 1;
}

/* The rule again, another way: every byte, then the path decoded once
 * (an escape may not give '.', '/', '\\', '%', ';' or a control) and
 * checked as a server that decodes it would see it. */
static int normal(const char *t)
{
	static unsigned char d[TARGET_MAX + 1];
	size_t n = strlen(t), p = strcspn(t, "?"), i, m = 0, seg = 0;

	if (t[0] != '/')
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)t[i] <= ' ' || (unsigned char)t[i] >= 0x7f ||
		    t[i] == '#' || t[i] == '\\' || (t[i] == '%' &&
		    (hexval(t[i + 1]) < 0 || hexval(t[i + 2]) < 0)))
			return 0;
	for (i = 0; i < p; i++) {
		d[m] = (unsigned char)t[i];
		if (t[i] == '%') {
			d[m] = (unsigned char)(hexval(t[i + 1]) * 16 +
			    hexval(t[i + 2]));
			i += 2;
			if (d[m] < 0x20 || d[m] == 0x7f || strchr("./\\%;",
			    d[m]))
				return 0;
		}
		m++;
	}
	for (i = 1; i <= m; i++) {
		if (i < m && d[i] != '/')
			continue;
		if ((i - seg - 1 == 0 && i < m) || (i - seg - 1 == 1 &&
		    d[seg + 1] == '.') || (i - seg - 1 == 2 &&
		    d[seg + 1] == '.' && d[seg + 2] == '.'))
			return 0;
		seg = i;
	}
	return !memchr(d, ';', m) && utf8(d, m);
}

static void target(const char *t)
{
	enum httptarget_fault f = httptarget_check(t);

	if ((f == HTTPTARGET_OK) != normal(t))
		fuzz_fail("httptarget_check says %s, the rule says %s: %s",
		    httptarget_fault_name(f), normal(t) ? "normal" : "not",
		    t);
	if (strcmp(httptarget_fault_name(f), "?") == 0)
		fuzz_fail("fault %d without its words", (int)f);
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
	target(rq.target);
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
	{
		static char t[TARGET_MAX + 1];
		size_t n = strnlen(b, size < TARGET_MAX ? size : TARGET_MAX);

		memcpy(t, b, n);
		t[n] = '\0';
		target(t);
	}
	if (fuzz_expect_accept && e != HTTPREQ_OK && a != HTTPREQ_OK)
		fuzz_fail("an ok- head refused: %d, %d", (int)e, (int)a);
	free(b);
	return 0;
}
