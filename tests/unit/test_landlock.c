/*
 * test_landlock.c - the launcher's Landlock decisions (launcher/landlock.c)
 * against the running kernel: the private /tmp rule carries only rights
 * the ruleset of each ABI handles (the kernel refuses a rule with a right
 * its ruleset does not handle), and a policy's `landlock N;` is the
 * minimum the launcher asks for.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "cordon.h"
#include "landlock_compat.h"

/* Under best-effort on ABI 1 and 2, the private /tmp rule must be one the
 * kernel accepts in a ruleset handling that ABI's rights (TRUNCATE, ABI 3,
 * made landlock_add_rule fail with EINVAL). */
static void test_tmp_rule_each_abi(void **state)
{
	int errata, abi, fd;

	(void)state;
	if (landlock_probe(&errata) < 3)
		skip();   /* a ruleset handling ABI 3 rights needs ABI 3 */
	fd = open("/tmp", O_PATH | O_CLOEXEC);
	assert_true(fd >= 0);
	for (abi = 1; abi <= 7; abi++) {
		struct cordon_ll_ruleset_attr attr = { 0 };
		uint64_t handled = landlock_fs_rights(abi);
		int rs;

		attr.handled_access_fs = handled;
		rs = (int)syscall(__NR_landlock_create_ruleset, &attr,
		    sizeof(attr.handled_access_fs), 0);
		if (rs < 0 && errno == EINVAL)
			continue;   /* a right newer than this kernel */
		assert_true(rs >= 0);
		assert_int_equal(landlock_tmp_rights(handled) & ~handled, 0);
		if (landlock_add(rs, fd, landlock_tmp_rights(handled)) != 0)
			fail_msg("ABI %d: the /tmp rule is refused: %s", abi,
			    strerror(errno));
		close(rs);
	}
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tmp_rule_each_abi),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
