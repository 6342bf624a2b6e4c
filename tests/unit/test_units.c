/*
 * test_units.c - common/units.c, the one table of size and time units:
 * the names and scales the policy language and cordon's options take,
 * and cpol_size_parse as cordon's --limit and --output read a size.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "units.h"

static void test_table(void **state)
{
	static const struct {
		const char *name;
		enum cpol_unit kind;
		uint64_t scale;
	} want[] = {
		{ "K", CPOL_UNIT_SIZE, 1024 }, { "M", CPOL_UNIT_SIZE, 1 << 20 },
		{ "G", CPOL_UNIT_SIZE, 1 << 30 },
		{ "T", CPOL_UNIT_SIZE, 1ull << 40 },
		{ "ms", CPOL_UNIT_TIME, 1 }, { "s", CPOL_UNIT_TIME, 1000 },
		{ "m", CPOL_UNIT_TIME, 60000 }, { "h", CPOL_UNIT_TIME, 3600000 },
	};
	const struct cpol_unit_def *u, *prev = NULL;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		u = cpol_unit_find(want[i].name);
		assert_non_null(u);
		assert_int_equal(u->kind, want[i].kind);
		assert_true(u->scale == want[i].scale);
	}
	for (i = 0; (u = cpol_unit_at(i)) != NULL; i++, prev = u)
		if (prev && prev->kind == u->kind)   /* smallest first */
			assert_true(prev->scale < u->scale);
	assert_int_equal(i, sizeof(want) / sizeof(want[0]));
	assert_null(cpol_unit_find("k"));
	assert_null(cpol_unit_find("KB"));
	assert_null(cpol_unit_find(""));
	assert_null(cpol_unit_find(NULL));
	assert_true(cpol_unit_bare(CPOL_UNIT_SIZE) == 1);
	assert_true(cpol_unit_bare(CPOL_UNIT_TIME) == 1000);
}

static void test_size_parse(void **state)
{
	static const struct {
		const char *s;
		int ok;
		uint64_t v;
	} c[] = {
		{ "0", 1, 0 }, { "4096", 1, 4096 }, { "512M", 1, 512ull << 20 },
		{ "2G", 1, 2ull << 30 }, { "1T", 1, 1ull << 40 },
		{ "16777215T", 1, 16777215ull << 40 },
		{ "16777216T", 0, 0 },               /* 2^64: too large */
		{ "18446744073709551614", 1, UINT64_MAX - 1 },
		{ "18446744073709551615", 0, 0 },    /* "unlimited" */
		{ "18446744073709551616", 0, 0 },
		{ "", 0, 0 }, { "K", 0, 0 }, { "-1", 0, 0 }, { "+1", 0, 0 },
		{ " 1", 0, 0 }, { "1 ", 0, 0 }, { "1k", 0, 0 }, { "1KB", 0, 0 },
		{ "1s", 0, 0 }, { "1ms", 0, 0 }, { "1.5M", 0, 0 },
	};
	uint64_t v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		v = 7;
		if ((cpol_size_parse(c[i].s, &v) == 0) != c[i].ok)
			fail_msg("\"%s\": %s", c[i].s, c[i].ok ? "refused" :
			    "accepted");
		if (c[i].ok && v != c[i].v)
			fail_msg("\"%s\": %llu", c[i].s, (unsigned long long)v);
	}
}

static void test_format(void **state)
{
	static const struct {
		enum cpol_unit kind;
		uint64_t v;
		const char *s;
	} c[] = {
		{ CPOL_UNIT_SIZE, 0, "0" }, { CPOL_UNIT_SIZE, 1023, "1023" },
		{ CPOL_UNIT_SIZE, 1024, "1K" }, { CPOL_UNIT_SIZE, 4097, "4097" },
		{ CPOL_UNIT_SIZE, 512ull << 20, "512M" },
		{ CPOL_UNIT_SIZE, 1536ull << 30, "1536G" },
		{ CPOL_UNIT_SIZE, 1ull << 50, "1024T" },
		{ CPOL_UNIT_TIME, 0, "0ms" }, { CPOL_UNIT_TIME, 1500, "1500ms" },
		{ CPOL_UNIT_TIME, 2000, "2s" },
		{ CPOL_UNIT_TIME, 600000, "10m" },
		{ CPOL_UNIT_TIME, 7200000, "2h" },
	};
	char buf[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		assert_string_equal(cpol_unit_format(c[i].kind, c[i].v, buf,
		    sizeof(buf)), c[i].s);
	/* the lexer's "0.5G: write 512M": no larger than the unit given */
	assert_string_equal(cpol_unit_whole(CPOL_UNIT_SIZE, 512ull << 20,
	    1ull << 30)->name, "M");
	assert_null(cpol_unit_whole(CPOL_UNIT_SIZE, 1023, 1ull << 30));
	assert_string_equal(cpol_unit_whole(CPOL_UNIT_TIME, 0, 60000)->name,
	    "m");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_size_parse),
		cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
