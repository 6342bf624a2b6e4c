/*
 * test_jsonesc.c - common/jsonesc.c, the one JSON string escaper of both
 * programs: every control byte escaped, quotes and backslashes
 * backslashed, valid UTF-8 as is, every other byte as \udcXX; for every
 * byte value, and every pair and a sample of triples, the output is
 * valid JSON string text in UTF-8 and gives the bytes back (issue 38).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "jsonesc.h"

struct sink {
	char buf[256];
	size_t len;
	int puts;
};

static void put(void *ctx, const char *p, size_t n)
{
	struct sink *s = ctx;

	assert_true(s->len + n < sizeof(s->buf));
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	s->buf[s->len] = '\0';
	s->puts++;
}

static const char *esc(struct sink *s, const char *in)
{
	memset(s, 0, sizeof(*s));
	json_escape(in, put, s);
	return s->buf;
}

/* Length of the well-formed UTF-8 sequence at p (Unicode 15, table 3-7),
 * written apart from common/utf8.c; 0 if there is none. */
static size_t wellformed(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	for (i = 1; i < n; i++) {
		if (p[i] < (i == 1 ? lo : 0x80) || p[i] > (i == 1 ? hi : 0xbf))
			return 0;
	}
	return n;
}

static unsigned int hexval(char c)
{
	return c >= 'a' ? (unsigned int)(c - 'a' + 10) :
	    (unsigned int)(c - '0');
}

/* Check o is the body of a JSON string (no raw control, ", or lone \),
 * valid UTF-8, and decode it back to bytes: \udcXX and \u00XX as the
 * byte XX, the short escapes as theirs. */
static size_t unescape(const char *o, unsigned char *back)
{
	const unsigned char *p = (const unsigned char *)o;
	size_t n = 0, k;

	while (*p) {
		assert_true(*p >= 0x20 && *p != '"');
		if (*p != '\\') {
			k = wellformed(p);
			assert_true(k > 0);
			memcpy(back + n, p, k);
			n += k;
			p += k;
			continue;
		}
		p++;
		if (*p == 'u') {
			unsigned int v = 0;

			for (k = 1; k <= 4; k++) {
				assert_non_null(strchr("0123456789abcdef",
				    p[k]));
				v = v << 4 | hexval((char)p[k]);
			}
			/* only these two: the mapping is one-to-one */
			assert_true(v < 0x20 || v == 0x7f ||
			    (v >= 0xdc80 && v <= 0xdcff));
			back[n++] = (unsigned char)(v & 0xff);
			p += 5;
			continue;
		}
		assert_non_null(strchr("\"\\ntr", *p));
		back[n++] = *p == 'n' ? '\n' : *p == 't' ? '\t' :
		    *p == 'r' ? '\r' : *p;
		p++;
	}
	return n;
}

static void round_trip(const char *in)
{
	unsigned char back[256];
	struct sink s;
	size_t n;

	n = unescape(esc(&s, in), back);
	assert_int_equal(n, strlen(in));
	assert_memory_equal(back, in, n);
}

static void test_escapes(void **state)
{
	struct sink s;

	(void)state;
	assert_string_equal(esc(&s, ""), "");
	assert_int_equal(s.puts, 0);
	assert_string_equal(esc(&s, "plain text"), "plain text");
	assert_int_equal(s.puts, 1);
	assert_string_equal(esc(&s, "a\"b\\c"), "a\\\"b\\\\c");
	assert_string_equal(esc(&s, "l1\nl2\tt\rr"), "l1\\nl2\\tt\\rr");
	assert_string_equal(esc(&s, "\x01\x1f\x7f"), "\\u0001\\u001f\\u007f");
	assert_string_equal(esc(&s, "caf\xc3\xa9"), "caf\xc3\xa9");
	assert_string_equal(esc(&s, "\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");
}

static void test_not_utf8(void **state)
{
	struct sink s;

	(void)state;
	assert_string_equal(esc(&s, "/d\xff\xfe/x"), "/d\\udcff\\udcfe/x");
	/* overlong, surrogate, past U+10FFFF, truncated, stray */
	assert_string_equal(esc(&s, "\xc0\xae"), "\\udcc0\\udcae");
	assert_string_equal(esc(&s, "\xed\xa0\x80"),
	    "\\udced\\udca0\\udc80");
	assert_string_equal(esc(&s, "\xf4\x90\x80\x80"),
	    "\\udcf4\\udc90\\udc80\\udc80");
	assert_string_equal(esc(&s, "\xe2\x82"), "\\udce2\\udc82");
	assert_string_equal(esc(&s, "\x80\xc3\xa9"), "\\udc80\xc3\xa9");
}

/* Every byte alone, every pair, and every triple starting with a lead
 * byte: valid JSON text, and the same bytes back. */
static void test_every_byte(void **state)
{
	char in[4] = { 0 };
	unsigned int a, b, c;

	(void)state;
	for (a = 1; a < 256; a++) {
		in[0] = (char)a;
		in[1] = 0;
		round_trip(in);
		for (b = 1; b < 256; b++) {
			in[1] = (char)b;
			in[2] = 0;
			round_trip(in);
			for (c = 0x7e; a >= 0xc0 && c < 256; c++) {
				in[2] = (char)c;
				round_trip(in);
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_not_utf8),
		cmocka_unit_test(test_every_byte),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
