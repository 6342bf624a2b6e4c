/*
 * test_jsonesc.c - common/jsonesc.c, the one JSON string escaper of both
 * programs: every control byte escaped, quotes and backslashes
 * backslashed, the rest (UTF-8 included) as is, in as few puts as runs.
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
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
