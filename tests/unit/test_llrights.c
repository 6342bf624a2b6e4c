/*
 * test_llrights.c - common/llrights.h, cordon's groups of Landlock
 * rights and the trace's letters, each written once: the groups keep
 * the values they had where they were written before (launcher/
 * landlock.c, bounds.c, query/pathq.h's bare 0x7ff2), and the letters
 * read back as the rights cordon --observe meant; and what learn's
 * fold is made of (issue 41): a record's rights, what a policy's rules
 * give a path by name (fsgrant.h), the index of names (strindex.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "fsgrant.h"
#include "llrights.h"
#include "strindex.h"

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

/* A record's bits, as Landlock rights (learn mode's fold). */
static void test_trace_access(void **state)
{
	(void)state;
	assert_true(cpol_trace_access(0) == 0);
	assert_true(cpol_trace_access(CPOL_TR_READ | CPOL_TR_LIST) ==
	    CPOL_LL_READ);
	assert_true(cpol_trace_access(CPOL_TR_EXEC | CPOL_TR_TRUNC) ==
	    (CORDON_LL_FS_EXECUTE | CORDON_LL_FS_TRUNCATE));
	assert_true(cpol_trace_access(1u << CPOL_TRACE_NRIGHTS) == 0);
}

/* What a policy's rules give a path, by name: beneath a rule, not
 * beside it; $WORKDIR; a private /tmp below /tmp, not /tmp itself. */
static void test_fs_granted(void **state)
{
	struct cpol_fs fs[] = {
		{ .access = CPOL_LL_READ, .path = "/usr/share/zoneinfo" },
		{ .access = CPOL_LL_READ | CPOL_LL_WRITE, .path = "$WORKDIR" },
		{ .access = CORDON_LL_FS_EXECUTE, .path = "/usr/bin/python3" },
	};
	struct cpol b;

	(void)state;
	memset(&b, 0, sizeof(b));
	b.fs = fs;
	b.nfs = 3;
	b.flags = CPOL_F_PRIVATE_TMP;
	assert_true(cpol_fs_granted(&b, "/usr/share/zoneinfo/UTC") ==
	    CPOL_LL_READ);
	assert_true(cpol_fs_granted(&b, "/usr/share/zoneinfo") ==
	    CPOL_LL_READ);
	assert_true(cpol_fs_granted(&b, "/usr/share/zoneinfox") == 0);
	assert_true(cpol_fs_granted(&b, "/usr/share") == 0);
	assert_true(cpol_fs_granted(&b, "$WORKDIR/data.csv") ==
	    (CPOL_LL_READ | CPOL_LL_WRITE));
	assert_true(cpol_fs_granted(&b, "/usr/bin/python3") ==
	    CORDON_LL_FS_EXECUTE);
	assert_true(cpol_fs_granted(&b, "/tmp/x") == CPOL_LL_TMP);
	assert_true(cpol_fs_granted(&b, "/tmp") == 0);
	assert_true(cpol_fs_granted(&b, "/dev/shm/x") == 0);
	assert_true(cpol_path_beneath("/", "/etc"));
	assert_false(cpol_path_beneath("/", "$WORKDIR"));
}

/* The index finds every one of many names, grown as it fills, and no
 * name it was not given. */
static void test_strindex(void **state)
{
	static char names[5000][16];
	struct strindex x = { 0 };
	unsigned int i;

	(void)state;
	assert_true(strindex_find(&x, "a") == STRINDEX_NONE);
	for (i = 0; i < 5000; i++) {
		snprintf(names[i], sizeof(names[i]), "/d/f%u", i);
		assert_int_equal(strindex_add(&x, names[i], i), 0);
	}
	for (i = 0; i < 5000; i++)
		assert_true(strindex_find(&x, names[i]) == i);
	assert_true(strindex_find(&x, "/d/f5000") == STRINDEX_NONE);
	assert_true(strindex_find(&x, "/d/f") == STRINDEX_NONE);
	assert_true(x.n == 5000 && x.cap >= 10000);
	assert_true(strindex_bytes(&x) == x.cap * sizeof(*x.slot));
	strindex_free(&x);
	assert_true(strindex_find(&x, names[0]) == STRINDEX_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_trace_letters),
		cmocka_unit_test(test_trace_access),
		cmocka_unit_test(test_fs_granted),
		cmocka_unit_test(test_strindex),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
