/*
 * fuzz_jsonesc.c - common/jsonesc.c, the escaper of every string the
 * status report and cordonc's JSON carry (paths, comms, commands the
 * run named: every byte is input).
 *
 * Input: any bytes; the string is what comes before the first NUL.
 *
 * Properties:
 *   - json_escape never reads outside the string, and writes at most
 *     JSON_ESCAPE_MAX bytes per input byte;
 *   - its output is the body of a JSON string (RFC 8259): no raw byte
 *     below 0x20, no raw '"', each backslash starts \" \\ \n \t \r or
 *     \u and four lower-case hex digits;
 *   - its output is well-formed UTF-8 (checked here apart from
 *     common/utf8.c, by Unicode's table 3-7);
 *   - a \u escape is a control byte (< 0x20, 0x7f) or \udc80..\udcff,
 *     and decoding them as the bytes they stand for gives the input
 *     back (the mapping is lossless).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "../../common/jsonesc.h"

struct out {
	unsigned char *buf;
	size_t len, cap;
};

static void put(void *ctx, const char *p, size_t n)
{
	struct out *o = ctx;

	if (n > o->cap - o->len)
		fuzz_fail("more than %d bytes out per byte in",
		    JSON_ESCAPE_MAX);
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static unsigned int hex4(const unsigned char *p, size_t left)
{
	unsigned int v = 0, i;

	if (left < 4)
		fuzz_fail("a \\u escape cut short");
	for (i = 0; i < 4; i++) {
		const char *h = "0123456789abcdef";
		const char *at = p[i] ? strchr(h, p[i]) : NULL;

		if (!at)
			fuzz_fail("a \\u escape with a non-hex digit");
		v = v << 4 | (unsigned int)(at - h);
	}
	return v;
}

/* Check o's text and decode it into back; the decoded length. */
static size_t check(const struct out *o, unsigned char *back)
{
	const unsigned char *p = o->buf, *end = o->buf + o->len;
	size_t n = 0, k;
	unsigned int v;

	while (p < end) {
		if (*p < 0x20 || *p == '"')
			fuzz_fail("a raw 0x%02x in the output", *p);
		if (*p != '\\') {
			if (!(k = fuzz_wellformed(p, (size_t)(end - p))))
				fuzz_fail("output not UTF-8 at %zu",
				    (size_t)(p - o->buf));
			memcpy(back + n, p, k);
			n += k;
			p += k;
			continue;
		}
		if (++p == end)
			fuzz_fail("a lone backslash at the end");
		if (*p == 'u') {
			v = hex4(p + 1, (size_t)(end - p - 1));
			if (!(v < 0x20 || v == 0x7f || (v >= 0xdc80 &&
			    v <= 0xdcff)))
				fuzz_fail("\\u%04x is not in the mapping", v);
			back[n++] = (unsigned char)(v & 0xff);
			p += 5;
			continue;
		}
		if (!strchr("\"\\ntr", *p) || !*p)
			fuzz_fail("a bad escape \\%c", *p);
		back[n++] = *p == 'n' ? '\n' : *p == 't' ? '\t' :
		    *p == 'r' ? '\r' : *p;
		p++;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct out o = { 0 };
	char *s = malloc(size + 1);
	unsigned char *back = NULL;
	size_t len;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	len = strlen(s);
	o.cap = len * JSON_ESCAPE_MAX;
	o.buf = malloc(o.cap + 1);
	back = malloc(o.cap + 1);
	if (o.buf && back) {
		json_escape(s, put, &o);
		if (check(&o, back) != len || memcmp(back, s, len) != 0)
			fuzz_fail("decoded output differs from the input");
	}
	free(back);
	free(o.buf);
	free(s);
	return 0;
}
