/*
 * httpreq.c - one HTTP/1.x request head (see httpreq.h).  One cursor
 * through the bytes; every field checked before it is copied.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "httpreq.h"

static const char tchar[] = "!#$%&'*+-.^_`|~0123456789"
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/* The end of the head (after CRLFCRLF), or 0. */
static size_t head_end(const char *buf, size_t len)
{
	size_t i;

	for (i = 3; i < len; i++)
		if (buf[i] == '\n' && buf[i - 1] == '\r' && buf[i - 2] == '\n' &&
		    buf[i - 3] == '\r')
			return i + 1;
	return 0;
}

/* An absolute-form target "http://authority[/path]" at s[0..n): the
 * authority apart, the path (or "/") into out->target. */
static enum httpreq_error absolute(const char *s, size_t n,
    struct httpreq *out)
{
	size_t a;

	if (n < 8 || strncasecmp(s, "http://", 7) != 0)
		return HTTPREQ_BAD;
	s += 7;
	n -= 7;
	a = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789.-:");
	if (a > n)
		a = n;
	if (a == 0 || a >= sizeof(out->authority) || (a < n && s[a] != '/'))
		return HTTPREQ_BAD;     /* no userinfo, no IPv6 literal */
	memcpy(out->authority, s, a);
	out->authority[a] = '\0';
	if (n - a > HTTPREQ_TARGET_MAX)
		return HTTPREQ_TOO_LONG;
	if (a == n) {
		strcpy(out->target, "/");
	} else {
		memcpy(out->target, s + a, n - a);
		out->target[n - a] = '\0';
	}
	return HTTPREQ_OK;
}

int httpreq_authority(const char *a, char *host, size_t hostlen,
    uint16_t *port)
{
	const char *colon = strchr(a, ':');
	size_t n = colon ? (size_t)(colon - a) : strlen(a), i;
	unsigned long p = 80;

	if (n == 0 || n >= hostlen)
		return -1;
	for (i = 0; i < n; i++)
		host[i] = (char)(a[i] >= 'A' && a[i] <= 'Z' ? a[i] + 32 : a[i]);
	host[n] = '\0';
	if (colon) {
		if (!colon[1] || strlen(colon + 1) > 5 ||
		    strspn(colon + 1, "0123456789") != strlen(colon + 1))
			return -1;
		p = strtoul(colon + 1, NULL, 10);
	}
	if (p == 0 || p > 65535 || !cpol_host_name(host, n))
		return -1;
	*port = (uint16_t)p;
	return 0;
}

/* "METHOD SP target SP HTTP/1.x CRLF" at buf[0..n) (n: up to LF). */
static enum httpreq_error request_line(const char *s, size_t n,
    unsigned int flags, struct httpreq *out)
{
	size_t m = 0, t, i;
	enum httpreq_error e;

	while (m < n && s[m] >= 'A' && s[m] <= 'Z')
		m++;
	if (m == 0 || m > CPOL_MAX_HTTP_METHOD || m >= n || s[m] != ' ')
		return HTTPREQ_BAD;
	memcpy(out->method, s, m);
	out->method[m] = '\0';
	for (t = m + 1; t < n && s[t] != ' '; t++)
		if ((unsigned char)s[t] <= ' ' || (unsigned char)s[t] >= 0x7f)
			return HTTPREQ_BAD;
	i = t - m - 1;
	if (flags & HTTPREQ_ABSOLUTE) {
		if ((e = absolute(s + m + 1, i, out)) != HTTPREQ_OK)
			return e;
	} else {
		if (i == 0 || s[m + 1] != '/')
			return HTTPREQ_BAD;     /* origin-form only */
		if (i > HTTPREQ_TARGET_MAX)
			return HTTPREQ_TOO_LONG;
		memcpy(out->target, s + m + 1, i);
		out->target[i] = '\0';
	}
	if (n - t != 10 || memcmp(s + t, " HTTP/1.", 8) != 0 ||
	    (s[t + 8] != '0' && s[t + 8] != '1') || s[t + 9] != '\r')
		return HTTPREQ_BAD;
	out->minor = s[t + 8] - '0';
	return HTTPREQ_OK;
}

static int named(const char *s, size_t n, const char *name)
{
	return strlen(name) == n && strncasecmp(s, name, n) == 0;
}

/* Hop-by-hop and proxy fields: not forwarded (the proxy says
 * "Connection: close" itself; Expect would hold the body until a 100
 * the proxy relays only with the answer). */
static int hop(const char *s, size_t n)
{
	static const char *const hops[] = { "connection", "keep-alive",
		"proxy-connection", "proxy-authorization", "te", "upgrade",
		"trailer", "expect" };
	size_t i;

	for (i = 0; i < sizeof(hops) / sizeof(hops[0]); i++)
		if (named(s, n, hops[i]))
			return 1;
	return 0;
}

/* Fields some servers or frameworks take as the request's method or path
 * in place of the request line's. */
static int rewrites(const char *s, size_t n)
{
	static const char *const names[] = { "x-http-method-override",
		"x-http-method", "x-method-override", "x-original-url",
		"x-rewrite-url" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (named(s, n, names[i]))
			return 1;
	return 0;
}

static enum httpreq_error length(const char *v, size_t n,
    struct httpreq *out, int *seen)
{
	uint64_t x = 0;
	size_t i;

	if (*seen || n == 0 || n > 12)
		return HTTPREQ_BAD;
	for (i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return HTTPREQ_BAD;
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	if (x > HTTPREQ_BODY_MAX)
		return HTTPREQ_TOO_LONG;
	*seen = 1;
	out->length = x;
	return HTTPREQ_OK;
}

/* One "name: value CRLF" line at s[0..n) (n: up to LF, included). */
static enum httpreq_error header(const char *s, size_t n, const char *drop,
    size_t droplen, struct httpreq *out, int *seen)
{
	size_t name = strspn(s, tchar), v, e, i;
	struct httpreq_line *l = &out->line[out->nlines];

	if (name == 0 || name >= n || s[name] != ':' || n < 2 ||
	    s[n - 2] != '\r')
		return HTTPREQ_BAD;
	for (i = name + 1; i < n - 2; i++)
		if (((unsigned char)s[i] < ' ' && s[i] != '\t') ||
		    s[i] == 0x7f)
			return HTTPREQ_BAD;
	for (v = name + 1; v < n - 2 && (s[v] == ' ' || s[v] == '\t'); v++)
		;
	for (e = n - 2; e > v && (s[e - 1] == ' ' || s[e - 1] == '\t'); e--)
		;
	if (memchr(s, '_', name))
		return HTTPREQ_UNDERSCORE;
	out->rewrite |= (uint8_t)rewrites(s, name);
	l->drop = (uint8_t)(hop(s, name) || (droplen && droplen == name &&
	    strncasecmp(s, drop, name) == 0));
	if (named(s, name, "transfer-encoding"))
		return HTTPREQ_UNSUPPORTED;
	if (named(s, name, "content-length"))
		return length(s + v, e - v, out, &seen[0]);
	if (named(s, name, "host")) {
		if (seen[1] || e - v == 0 || e - v >= sizeof(out->host))
			return HTTPREQ_BAD;
		memcpy(out->host, s + v, e - v);
		out->host[e - v] = '\0';
		seen[1] = 1;
	}
	return HTTPREQ_OK;
}

enum httpreq_error httpreq_parse(const char *buf, size_t len,
    const char *drop, size_t droplen, unsigned int flags,
    struct httpreq *out)
{
	size_t end = head_end(buf, len < HTTPREQ_HEAD_MAX ? len :
	    HTTPREQ_HEAD_MAX), at, nl;
	enum httpreq_error e;
	int seen[2] = { 0, 0 };

	memset(out, 0, sizeof(*out));
	if (end == 0)
		return len >= HTTPREQ_HEAD_MAX ? HTTPREQ_TOO_LONG :
		    HTTPREQ_MORE;
	if (memchr(buf, '\0', end))
		return HTTPREQ_BAD;
	nl = (size_t)((const char *)memchr(buf, '\n', end) - buf) + 1;
	if ((e = request_line(buf, nl - 1, flags, out)) != HTTPREQ_OK)
		return e;
	out->line_len = nl;
	for (at = nl; at < end - 2; at += nl) {
		nl = (size_t)((const char *)memchr(buf + at, '\n', end - at) -
		    (buf + at)) + 1;
		if (out->nlines == HTTPREQ_HEADERS_MAX)
			return HTTPREQ_TOO_LONG;
		out->line[out->nlines].off = (uint32_t)at;
		out->line[out->nlines].len = (uint32_t)nl;
		if ((e = header(buf + at, nl, drop, droplen, out, seen)) !=
		    HTTPREQ_OK)
			return e;
		out->nlines++;
	}
	if (!seen[1] && out->minor == 1)
		return HTTPREQ_BAD;     /* HTTP/1.1 needs its Host */
	out->head_len = end;
	return HTTPREQ_OK;
}
