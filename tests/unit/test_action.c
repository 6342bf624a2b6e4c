/*
 * test_action.c - common/action.c, the one errno vocabulary and the one
 * spelling of an action, for cordonc's messages and cordon's denials:
 * each number named as glibc names it (the spelling before the table
 * existed), the aliases read and never written, and every action kind.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "action.h"
#include "bpf.h"

/* Every number from 1 to the largest errno is named as strerrorname_np
 * names it, and each name reads back as its number. */
static void test_errno_names(void **state)
{
	const char *ours, *libc;
	int e;

	(void)state;
	for (e = 1; e <= CPOL_ERRNO_MAX; e++) {
		ours = cpol_errno_name(e);
		libc = strerrorname_np(e);
		if ((ours == NULL) != (libc == NULL) ||
		    (ours && strcmp(ours, libc) != 0))
			fail_msg("errno %d: %s here, %s in glibc", e,
			    ours ? ours : "(none)", libc ? libc : "(none)");
		if (ours)
			assert_int_equal(cpol_errno_value(ours), e);
	}
	assert_null(cpol_errno_name(0));
	assert_null(cpol_errno_name(-1));
	assert_null(cpol_errno_name(CPOL_ERRNO_MAX + 1));
}

static void test_errno_aliases(void **state)
{
	(void)state;
	assert_int_equal(cpol_errno_value("EWOULDBLOCK"), EAGAIN);
	assert_int_equal(cpol_errno_value("EDEADLOCK"), EDEADLK);
	assert_int_equal(cpol_errno_value("ENOTSUP"), EOPNOTSUPP);
	assert_string_equal(cpol_errno_name(EAGAIN), "EAGAIN");
	assert_string_equal(cpol_errno_name(EOPNOTSUPP), "EOPNOTSUPP");
	assert_string_equal(cpol_errno_name(EDEADLK), "EDEADLK");
	assert_int_equal(cpol_errno_value("NOPE"), -1);
	assert_int_equal(cpol_errno_value(""), -1);
	assert_int_equal(cpol_errno_value(NULL), -1);
}

static void test_action_names(void **state)
{
	static const struct {
		uint32_t action;
		const char *name;
	} c[] = {
		{ BPF_ACT_ALLOW, "allow" },
		{ BPF_ACT_KILL_PROCESS, "kill" },
		{ BPF_ACT_KILL_THREAD, "kill-thread" },
		{ BPF_ACT_TRAP, "trap" },
		{ BPF_ACT_LOG, "log" },
		{ BPF_ACT_USER_NOTIF, "user-notif" },
		{ BPF_ACT_ERRNO | EPERM, "errno(EPERM)" },
		{ BPF_ACT_ERRNO | EAGAIN, "errno(EAGAIN)" },
		{ BPF_ACT_ERRNO | EOPNOTSUPP, "errno(EOPNOTSUPP)" },
		{ BPF_ACT_ERRNO, "errno(0)" },      /* errno 0 */
		{ BPF_ACT_ERRNO | 4000, "errno(4000)" },
	};
	char buf[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		assert_string_equal(cpol_action_name(c[i].action, buf,
		    sizeof(buf)), c[i].name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errno_names),
		cmocka_unit_test(test_errno_aliases),
		cmocka_unit_test(test_action_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
