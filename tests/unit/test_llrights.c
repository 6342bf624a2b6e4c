/*
 * test_llrights.c - common/llrights.h, cordon's groups of Landlock
 * rights and the trace's letters, each written once: the groups keep
 * the values they had where they were written before (launcher/
 * landlock.c, bounds.c, query/pathq.h's bare 0x7ff2), and the letters
 * read back as the rights cordon --observe meant.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "llrights.h"

static void test_groups(void **state)
{
	(void)state;
	assert_true(CPOL_LL_MODIFY == 0x7ff2);
	assert_true(CPOL_LL_FILE == 0xc007);
	assert_true(CPOL_LL_TMP == 0x41be);
	assert_true(CPOL_LL_GROW == 0x1fc2);
	assert_true((CPOL_LL_TMP & ~(CPOL_LL_READ | CPOL_LL_MODIFY)) == 0);
	assert_true((CPOL_LL_GROW & ~CPOL_LL_MODIFY) == 0);
}

static void test_trace_letters(void **state)
{
	static const struct {
		unsigned int bit;
		char letter;
		uint64_t right;
	} c[] = {
		{ CPOL_TR_READ, 'r', CORDON_LL_FS_READ_FILE },
		{ CPOL_TR_LIST, 'l', CORDON_LL_FS_READ_DIR },
		{ CPOL_TR_WRITE, 'w', CORDON_LL_FS_WRITE_FILE },
		{ CPOL_TR_CREATE, 'c', CORDON_LL_FS_MAKE_REG },
		{ CPOL_TR_MKDIR, 'd', CORDON_LL_FS_MAKE_DIR },
		{ CPOL_TR_EXEC, 'x', CORDON_LL_FS_EXECUTE },
		{ CPOL_TR_RMFILE, 'u', CORDON_LL_FS_REMOVE_FILE },
		{ CPOL_TR_RMDIR, 'v', CORDON_LL_FS_REMOVE_DIR },
		{ CPOL_TR_TRUNC, 't', CORDON_LL_FS_TRUNCATE },
		{ CPOL_TR_SYM, 's', CORDON_LL_FS_MAKE_SYM },
	};
	char buf[CPOL_TRACE_NRIGHTS + 1], one[2] = { 0, 0 };
	uint64_t r;
	size_t i;

	(void)state;
	assert_int_equal(sizeof(c) / sizeof(c[0]), CPOL_TRACE_NRIGHTS);
	for (i = 0; i < CPOL_TRACE_NRIGHTS; i++) {
		cpol_trace_letters(c[i].bit, buf);
		one[0] = c[i].letter;
		assert_string_equal(buf, one);
		assert_int_equal(cpol_trace_right(c[i].letter, &r), 0);
		assert_true(r == c[i].right);
	}
	cpol_trace_letters((1u << CPOL_TRACE_NRIGHTS) - 1, buf);
	assert_string_equal(buf, "rlwcdxuvts");
	cpol_trace_letters(CPOL_TR_WRITE | CPOL_TR_READ, buf);
	assert_string_equal(buf, "rw");
	cpol_trace_letters(0, buf);
	assert_string_equal(buf, "");
	assert_int_equal(cpol_trace_right('q', &r), -1);
	assert_int_equal(cpol_trace_right('\0', &r), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_trace_letters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
