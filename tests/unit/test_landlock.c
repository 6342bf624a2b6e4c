/*
 * test_landlock.c - the launcher's Landlock decisions (launcher/landlock.c)
 * against the running kernel: the private /tmp rule carries only rights
 * the ruleset of each ABI handles (the kernel refuses a rule with a right
 * its ruleset does not handle), and a policy's `landlock N;` is the
 * minimum the launcher asks for (with 4 under TCP rules), never a floor
 * of 6 above it.
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

static int runs_on(uint32_t min, uint32_t nnet, int best, int abi,
    char *err, size_t errlen)
{
	struct cpol p = { 0 };
	struct layers l = { 0 };

	p.name = (char *)"t";
	p.landlock_abi_min = min;
	p.nnet = nnet;
	p.flags = best ? CPOL_F_BEST_EFFORT_LANDLOCK : 0;
	err[0] = '\0';
	return landlock_check(&p, abi, &l, err, errlen) == 0;
}

/* `landlock N;` is the minimum: no hidden floor of 6 above it; TCP rules
 * (network connect or bind) need ABI 4 whatever N says. */
static void test_policy_minimum(void **state)
{
	char err[512];

	(void)state;
	assert_true(runs_on(4, 0, 0, 4, err, sizeof(err)));
	assert_true(runs_on(1, 0, 0, 1, err, sizeof(err)));
	assert_true(runs_on(6, 0, 0, 6, err, sizeof(err)));
	assert_false(runs_on(6, 0, 0, 5, err, sizeof(err)));
	assert_non_null(strstr(err, "needs Landlock ABI 6, this kernel has 5"));
	assert_false(runs_on(7, 0, 0, 6, err, sizeof(err)));
	assert_non_null(strstr(err, "needs Landlock ABI 7, this kernel has 6"));
	assert_false(runs_on(2, 1, 0, 3, err, sizeof(err)));
	assert_non_null(strstr(err, "needs Landlock ABI 4, this kernel has 3"));
	assert_true(runs_on(2, 1, 0, 4, err, sizeof(err)));
	assert_false(runs_on(1, 0, 0, 0, err, sizeof(err)));
	assert_true(runs_on(7, 1, 1, 2, err, sizeof(err)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tmp_rule_each_abi),
		cmocka_unit_test(test_policy_minimum),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
