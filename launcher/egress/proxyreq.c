/*
 * proxyreq.c - the egress proxy's request parser: one HTTP/1.x request
 * head, of which only "CONNECT host:port HTTP/1.x" is accepted.  The
 * bytes come from the sandboxed snippet, so this follows cpol_read.c's
 * shape: one cursor, every byte read through take(), a sticky error.  No
 * system call, no allocation; tests/fuzz/fuzz_proxyreq.c fuzzes it.
 */
#include <arpa/inet.h>
#include <string.h>

#include "proxy.h"

struct cur {
	const char *p;
	size_t left;
	enum proxyreq_error err;
	int bad_name;           /* a target that is no name: said at the end */
};

/* The one place request bytes are read: one byte, or -1 at the end. */
static int take(struct cur *c)
{
	if (c->err || c->left == 0) {
		if (!c->err)
			c->err = PROXYREQ_BAD;
		return -1;
	}
	c->left--;
	return (unsigned char)*c->p++;
}

static int peek(const struct cur *c)
{
	return c->err || c->left == 0 ? -1 : (unsigned char)*c->p;
}

static void expect(struct cur *c, const char *s, enum proxyreq_error e)
{
	for (; *s && !c->err; s++)
		if (take(c) != (unsigned char)*s && !c->err)
			c->err = e;
}

/* Characters of a header line's value: visible ASCII, space and tab. */
static int field_char(int ch)
{
	return ch == '\t' || (ch >= 0x20 && ch < 0x7f);
}

static int token_char(int ch)
{
	return ch > 0x20 && ch < 0x7f && !strchr("()<>@,;:\\\"/[]?={}", ch);
}

/* The port after the last ':' of t[0..n): 1..65535, no leading 0. */
static unsigned long port_of(const char *t, size_t n)
{
	unsigned long port = 0;
	size_t i;

	if (n == 0 || n > 5 || (t[0] == '0'))
		return 0;
	for (i = 0; i < n; i++) {
		if (t[i] < '0' || t[i] > '9')
			return 0;
		port = port * 10 + (unsigned long)(t[i] - '0');
	}
	return port <= 65535 ? port : 0;
}

/* The host of a target, h[0..hn) ([] removed: bracketed): an IPv6
 * literal (it has a ':'), an IPv4 literal, or a name, which must be a
 * host name as a rule's is (cpol_host_name), less the root's one dot.
 * Anything else has no address to reach: PROXYREQ_BAD_TARGET, or, for a
 * would-be name, PROXYREQ_BAD_NAME once the rest of the head is read (the
 * name stays in out->host, for the refusal). */
static void target_host(struct cur *c, const char *h, size_t hn,
    int bracketed, struct proxyreq *out)
{
	unsigned char a[16];

	if (!bracketed && !memchr(h, ':', hn) && hn > 1 && h[hn - 1] == '.')
		hn--;                            /* the root's dot */
	if (hn == 0 || hn > CPOL_MAX_HOSTNAME) {
		c->err = PROXYREQ_BAD_TARGET;
		return;
	}
	memcpy(out->host, h, hn);
	out->host[hn] = '\0';
	if (memchr(out->host, ':', hn))
		out->literal = inet_pton(AF_INET6, out->host, a) == 1 ? 6 : -1;
	else if (bracketed)
		out->literal = -1;
	else if (inet_pton(AF_INET, out->host, a) == 1)
		out->literal = 4;
	else
		c->bad_name = !cpol_host_name(out->host, hn);
	if (out->literal < 0) {
		out->host[0] = '\0';
		c->err = PROXYREQ_BAD_TARGET;
	}
}

/* The target up to the next space: host:port, [v6]:port, or v6:port
 * (Python's http.client sends an IPv6 address without brackets).  The
 * host goes to out->host in lower case; a literal is marked. */
static void target(struct cur *c, struct proxyreq *out)
{
	char t[CPOL_MAX_HOSTNAME + 9] = { 0 };
	const char *colon;
	size_t n = 0, hn;
	int ch;

	while ((ch = peek(c)) > ' ' && ch < 0x7f && n < sizeof(t) - 1) {
		take(c);
		t[n++] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 'a' - 'A' : ch);
	}
	t[n] = '\0';
	colon = strrchr(t, ':');
	if (c->err || !colon || !(out->port = (uint16_t)port_of(colon + 1,
	    n - (size_t)(colon + 1 - t)))) {
		c->err = PROXYREQ_BAD_TARGET;
		return;
	}
	hn = (size_t)(colon - t);
	if (t[0] != '[') {
		target_host(c, t, hn, 0, out);
	} else if (hn < 2 || t[hn - 1] != ']') {
		c->err = PROXYREQ_BAD_TARGET;
	} else {
		target_host(c, t + 1, hn - 2, 1, out);
	}
}

/* Header lines up to the empty line: names are tokens, values text; the
 * proxy needs none of them. */
static void headers(struct cur *c)
{
	int n, ch;

	for (n = 0; !c->err; n++) {
		if (peek(c) == '\r') {
			expect(c, "\r\n", PROXYREQ_BAD);
			return;
		}
		if (n == PROXYREQ_HEADERS_MAX || !token_char(peek(c))) {
			c->err = PROXYREQ_BAD;
			return;
		}
		while (token_char(peek(c)))
			take(c);
		expect(c, ":", PROXYREQ_BAD);
		while (!c->err && (ch = take(c)) != '\r')
			if (!field_char(ch))
				c->err = PROXYREQ_BAD;
		expect(c, "\n", PROXYREQ_BAD);
	}
}

enum proxyreq_error proxyreq_parse(const char *buf, size_t len,
    struct proxyreq *out)
{
	struct cur c = { .p = buf, .left = 0, .err = PROXYREQ_OK };
	const char *end = NULL;
	size_t i;

	memset(out, 0, sizeof(*out));
	/* Only a whole head is parsed: find its end first. */
	for (i = 0; i + 4 <= len && i + 4 <= PROXYREQ_HEAD_MAX; i++)
		if (memcmp(buf + i, "\r\n\r\n", 4) == 0) {
			end = buf + i + 4;
			break;
		}
	if (!end)
		return len >= PROXYREQ_HEAD_MAX ? PROXYREQ_TOO_LONG :
		    PROXYREQ_MORE;
	c.left = (size_t)(end - buf);
	if (len < 8 || memcmp(buf, "CONNECT ", 8) != 0) {
		for (i = 0; i < c.left && token_char(buf[i]); i++)
			;
		return i > 0 && i < c.left && buf[i] == ' ' ?
		    PROXYREQ_NOT_CONNECT : PROXYREQ_BAD;
	}
	expect(&c, "CONNECT ", PROXYREQ_BAD);
	target(&c, out);
	expect(&c, " HTTP/1.", PROXYREQ_BAD);
	if (!c.err && peek(&c) != '0' && peek(&c) != '1')
		c.err = PROXYREQ_BAD;
	take(&c);
	expect(&c, "\r\n", PROXYREQ_BAD);
	headers(&c);
	if (!c.err && c.left != 0)
		c.err = PROXYREQ_BAD;
	if (!c.err && c.bad_name)
		c.err = PROXYREQ_BAD_NAME;
	out->head_len = (size_t)(end - buf);
	return c.err;
}
