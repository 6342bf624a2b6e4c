/*
 * test_httptarget.c - the request target's normal form
 * (launcher/egress/httptarget.c): a table of spellings servers decode to
 * another path than the one an http rule matched (issue 38's, and
 * variants no issue names), each with the fault it must give, and
 * targets in normal form that must pass; and the head parser's fields
 * (launcher/egress/httpreq.c): a header name with '_' refused, the
 * method-override and URL-rewrite fields marked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "httpreq.h"
#include "httptarget.h"

struct row {
	const char *target;
	enum httptarget_fault fault;
};

static const struct row rows[] = {
	/* issue 38: these reached the upstream past GET "/v1/" */
	{ "/v1/..;/admin", HTTPTARGET_PARAM },
	{ "/v1/.;/..;/", HTTPTARGET_PARAM },
	{ "/v1/..#/admin", HTTPTARGET_BYTE },
	{ "/v1/..#", HTTPTARGET_BYTE },
	{ "/v1/%252e%252e/admin", HTTPTARGET_ENCODED },
	{ "/v1/%c0%ae%c0%ae/admin", HTTPTARGET_UTF8 },
	{ "/v1/%u002e%u002e/admin", HTTPTARGET_ESCAPE },
	/* encoded '.', '/', '\\', '%', ';', any case, doubly */
	{ "/v1/%2e%2E/admin", HTTPTARGET_ENCODED },
	{ "/v1/%2E%2e/admin", HTTPTARGET_ENCODED },
	{ "/v1/%2e", HTTPTARGET_ENCODED },
	{ "/v1%2f..%2fadmin", HTTPTARGET_ENCODED },
	{ "/v1/%2F", HTTPTARGET_ENCODED },
	{ "/v1/%252f", HTTPTARGET_ENCODED },
	{ "/v1/%255c", HTTPTARGET_ENCODED },
	{ "/v1/%5c..%5cadmin", HTTPTARGET_ENCODED },
	{ "/v1/%5C", HTTPTARGET_ENCODED },
	{ "/v1/..%3b/admin", HTTPTARGET_ENCODED },
	{ "/v1/%3B", HTTPTARGET_ENCODED },
	/* encoded control bytes */
	{ "/v1/%00", HTTPTARGET_ENCODED },
	{ "/v1/x%00.json", HTTPTARGET_ENCODED },
	{ "/v1/%0d%0aX:%20y", HTTPTARGET_ENCODED },
	{ "/v1/%1F", HTTPTARGET_ENCODED },
	{ "/v1/%7f", HTTPTARGET_ENCODED },
	/* overlong, surrogate, past U+10FFFF, cut short, stray */
	{ "/v1/%e0%80%ae", HTTPTARGET_UTF8 },
	{ "/v1/%E0%80%AE%E0%80%AE/admin", HTTPTARGET_UTF8 },
	{ "/v1/%f0%80%80%ae", HTTPTARGET_UTF8 },
	{ "/v1/%c1%9c", HTTPTARGET_UTF8 },
	{ "/v1/%c0%af", HTTPTARGET_UTF8 },
	{ "/v1/%ed%a0%80", HTTPTARGET_UTF8 },
	{ "/v1/%f4%90%80%80", HTTPTARGET_UTF8 },
	{ "/v1/%f5%80%80%80", HTTPTARGET_UTF8 },
	{ "/v1/%ff", HTTPTARGET_UTF8 },
	{ "/v1/%80", HTTPTARGET_UTF8 },
	{ "/v1/%c3", HTTPTARGET_UTF8 },
	{ "/v1/%c3?x=1", HTTPTARGET_UTF8 },
	{ "/v1/%c3/x", HTTPTARGET_UTF8 },
	{ "/v1/%c3a", HTTPTARGET_UTF8 },
	{ "/v1/%e2%82", HTTPTARGET_UTF8 },
	/* '%' without two hex digits, anywhere */
	{ "/v1/%U002e%U002e/admin", HTTPTARGET_ESCAPE },
	{ "/v1/%", HTTPTARGET_ESCAPE },
	{ "/v1/%2", HTTPTARGET_ESCAPE },
	{ "/v1/%g0", HTTPTARGET_ESCAPE },
	{ "/v1/%%32%65", HTTPTARGET_ESCAPE },
	{ "/v1/x?q=%zz", HTTPTARGET_ESCAPE },
	{ "/v1/x?q=%u002e", HTTPTARGET_ESCAPE },
	/* dot and empty segments, with or without a query after them */
	{ "/v1/./x", HTTPTARGET_SEGMENT },
	{ "/v1/../admin", HTTPTARGET_SEGMENT },
	{ "/v1/..", HTTPTARGET_SEGMENT },
	{ "/v1/.", HTTPTARGET_SEGMENT },
	{ "/v1/..?x=1", HTTPTARGET_SEGMENT },
	{ "/v1/.?", HTTPTARGET_SEGMENT },
	{ "/.", HTTPTARGET_SEGMENT },
	{ "/..", HTTPTARGET_SEGMENT },
	{ "//v1/", HTTPTARGET_SEGMENT },
	{ "//", HTTPTARGET_SEGMENT },
	{ "/v1//admin", HTTPTARGET_SEGMENT },
	{ "/v1///", HTTPTARGET_SEGMENT },
	/* ';' parameters in the path */
	{ "/v1/x;jsessionid=1", HTTPTARGET_PARAM },
	{ "/v1;/admin", HTTPTARGET_PARAM },
	{ "/;/v1/", HTTPTARGET_PARAM },
	/* bytes never in a target: '#', '\\', space, controls, non-ASCII */
	{ "/v1/x?q=a#frag", HTTPTARGET_BYTE },
	{ "/v1/#", HTTPTARGET_BYTE },
	{ "/v1/\\admin", HTTPTARGET_BYTE },
	{ "/v1\\..\\admin", HTTPTARGET_BYTE },
	{ "/v1/x?q=\\", HTTPTARGET_BYTE },
	{ "/v1/x y", HTTPTARGET_BYTE },
	{ "/v1/\t", HTTPTARGET_BYTE },
	{ "/v1/\r\n", HTTPTARGET_BYTE },
	{ "/v1/\x7f", HTTPTARGET_BYTE },
	{ "/v1/\xc3\xa9", HTTPTARGET_BYTE },
	{ "/v1/\xc0\xae\xc0\xae/admin", HTTPTARGET_BYTE },
	/* not a path */
	{ "", HTTPTARGET_NOT_PATH },
	{ "v1/", HTTPTARGET_NOT_PATH },
	{ "*", HTTPTARGET_NOT_PATH },
	{ "?x", HTTPTARGET_NOT_PATH },
	{ "%2fv1/", HTTPTARGET_NOT_PATH },
	/* normal form */
	{ "/", HTTPTARGET_OK },
	{ "/v1/", HTTPTARGET_OK },
	{ "/v1/x", HTTPTARGET_OK },
	{ "/v1/x/", HTTPTARGET_OK },
	{ "/.well-known/x", HTTPTARGET_OK },
	{ "/v1/.x", HTTPTARGET_OK },
	{ "/v1/x.", HTTPTARGET_OK },
	{ "/v1/..x", HTTPTARGET_OK },
	{ "/v1/x..", HTTPTARGET_OK },
	{ "/v1/...", HTTPTARGET_OK },
	{ "/v1/a%20b", HTTPTARGET_OK },
	{ "/v1/%41dmin", HTTPTARGET_OK },
	{ "/v1/%2b%23%3f", HTTPTARGET_OK },
	{ "/v1/caf%c3%a9", HTTPTARGET_OK },
	{ "/v1/caf%C3%A9", HTTPTARGET_OK },
	{ "/v1/%e2%82%ac", HTTPTARGET_OK },
	{ "/v1/%ed%9f%bf", HTTPTARGET_OK },
	{ "/v1/%ee%80%80", HTTPTARGET_OK },
	{ "/v1/%f0%9f%98%80", HTTPTARGET_OK },
	{ "/v1/%f4%8f%bf%bf", HTTPTARGET_OK },
	/* a query is not a path: its dots, slashes, ';' and escapes pass */
	{ "/v1/x?q=..", HTTPTARGET_OK },
	{ "/v1/x?q=../../etc&r=%2e%2e%2f", HTTPTARGET_OK },
	{ "/v1/x?a=/..;/b", HTTPTARGET_OK },
	{ "/v1/x?a=%00%c0%ae", HTTPTARGET_OK },
	{ "/v1/x?a=//b", HTTPTARGET_OK },
	{ "/v1/x?", HTTPTARGET_OK },
	{ "/v1/x??", HTTPTARGET_OK },
	{ "/?", HTTPTARGET_OK },
};

static void test_targets(void **state)
{
	size_t i, bad = 0;
	enum httptarget_fault f;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		f = httptarget_check(rows[i].target);
		if (f != rows[i].fault) {
			print_error("\"%s\": %s, expected %s\n", rows[i].target,
			    httptarget_fault_name(f),
			    httptarget_fault_name(rows[i].fault));
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* Every fault has its words, and nothing else. */
static void test_fault_names(void **state)
{
	int f;

	(void)state;
	for (f = HTTPTARGET_OK; f <= HTTPTARGET_PARAM; f++)
		assert_string_not_equal(httptarget_fault_name(
		    (enum httptarget_fault)f), "?");
	assert_string_equal(httptarget_fault_name(
	    (enum httptarget_fault)(HTTPTARGET_PARAM + 1)), "?");
}

/* One head with the field line f (CRLF added). */
static enum httpreq_error head(const char *f, struct httpreq *rq)
{
	char buf[512];
	int n = snprintf(buf, sizeof(buf), "GET /v1/x HTTP/1.1\r\n"
	    "Host: api.example.org\r\n%s\r\n\r\n", f);

	assert_true(n > 0 && (size_t)n < sizeof(buf));
	return httpreq_parse(buf, (size_t)n, "Authorization", 13, 0, rq);
}

static void test_underscore(void **state)
{
	static const char *const bad[] = { "Transfer_Encoding: chunked",
		"Content_Length: 5", "X_Forwarded_For: 1.2.3.4", "_: x",
		"X-Api_Key: k" };
	static struct httpreq rq;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(head(bad[i], &rq), HTTPREQ_UNDERSCORE);
	assert_int_equal(head("X-Api-Key: a_b", &rq), HTTPREQ_OK);
}

static void test_rewrite(void **state)
{
	static const char *const marked[] = { "X-HTTP-Method-Override: DELETE",
		"x-http-method-override: DELETE", "X-HTTP-Method: PUT",
		"X-Method-Override: PATCH", "X-Original-URL: /admin",
		"X-REWRITE-URL: /admin", "X-Rewrite-Url:/admin" };
	static const char *const kept[] = { "X-HTTP-Method-Overrides: x",
		"X-Original-URI: /admin", "X-Forwarded-For: 1.2.3.4",
		"Accept: x-original-url" };
	static struct httpreq rq;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(marked) / sizeof(marked[0]); i++) {
		assert_int_equal(head(marked[i], &rq), HTTPREQ_OK);
		assert_int_equal(rq.rewrite, 1);
	}
	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		assert_int_equal(head(kept[i], &rq), HTTPREQ_OK);
		assert_int_equal(rq.rewrite, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_fault_names),
		cmocka_unit_test(test_underscore),
		cmocka_unit_test(test_rewrite),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
