/*
 * proxyreq.c - the egress proxy's request parser: one HTTP/1.x request
 * head, of which only "CONNECT host:port HTTP/1.x" is accepted.  The
 * bytes come from the sandboxed snippet, so this follows cpol_read.c's
 * shape: one cursor, every byte read through take(), a sticky error.  No
 * system call, no allocation; tests/fuzz/fuzz_proxyreq.c fuzzes it.
 */
#include <arpa/inet.h>
#include <string.h>

#include "egress.h"

struct cur {
	const char *p;
	size_t left;
	enum proxyreq_error err;
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

/* host, [v6] or v4 literal, into out->host; then ':' port. */
static void target(struct cur *c, struct proxyreq *out)
{
	size_t n = 0;
	unsigned long port = 0;
	int ch, bracket = peek(c) == '[', digits = 0;
	unsigned char a[16];

	if (bracket)
		take(c);
	while ((ch = peek(c)) >= 0 && ch != (bracket ? ']' : ':')) {
		take(c);
		if (ch >= 'A' && ch <= 'Z')
			ch += 'a' - 'A';
		if (n == CPOL_MAX_HOSTNAME || !(ch == '.' || ch == '-' ||
		    (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
		    (bracket && ch == ':'))) {
			c->err = PROXYREQ_BAD_TARGET;
			return;
		}
		out->host[n++] = (char)ch;
	}
	out->host[n] = '\0';
	if (bracket)
		expect(c, "]", PROXYREQ_BAD_TARGET);
	expect(c, ":", PROXYREQ_BAD_TARGET);
	while (!c->err && (ch = peek(c)) >= '0' && ch <= '9') {
		take(c);
		port = port * 10 + (unsigned long)(ch - '0');
		if (++digits > 5 || (digits == 2 && port < 10)) {
			c->err = PROXYREQ_BAD_TARGET;   /* long, or a leading 0 */
			return;
		}
	}
	if (c->err)
		return;
	if (n > 0 && out->host[n - 1] == '.')
		out->host[--n] = '\0';           /* the root's dot */
	if (n == 0 || digits == 0 || port < 1 || port > 65535)
		c->err = PROXYREQ_BAD_TARGET;
	else if (bracket)
		out->literal = inet_pton(AF_INET6, out->host, a) == 1 ? 6 : -1;
	else
		out->literal = inet_pton(AF_INET, out->host, a) == 1 ? 4 : 0;
	if (!c->err && out->literal < 0)
		c->err = PROXYREQ_BAD_TARGET;
	out->port = (uint16_t)port;
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
	out->head_len = (size_t)(end - buf);
	return c.err;
}
