/*
 * test_sysdecode.c - common/sysdecode.c, the launcher's names for denied
 * calls, agrees with the compiler's table (libseccomp) for every number,
 * and decodes arguments the way `cordonc explain` writes them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sysdecode.h"
#include "tables.h"

static void test_names_agree(void **state)
{
	int nr;

	(void)state;
	assert_int_equal(tables_syscall_max(), SYSDECODE_MAX);
	for (nr = 0; nr <= SYSDECODE_MAX + 10; nr++) {
		const char *a = tables_syscall_name(nr);
		const char *b = sysdecode_name((uint32_t)nr);

		if (!a || !b) {
			assert_null(a);
			assert_null(b);
		} else {
			assert_string_equal(a, b);
		}
	}
}

static void test_calls(void **state)
{
	uint64_t sock[6] = { 2, 1 | 0x80000, 0 }, tty[6] = { 3, 0x5412 };
	uint64_t open[6] = { (uint64_t)-100, 0x1000, 0x241, 0644 };
	uint64_t none[6] = { 0 };
	char buf[160];

	(void)state;
	sysdecode_call(41, sock, buf, sizeof(buf));
	assert_string_equal(buf, "socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, 0)");
	sysdecode_call(16, tty, buf, sizeof(buf));
	assert_string_equal(buf, "ioctl(3, TIOCSTI)");
	sysdecode_call(257, open, buf, sizeof(buf));
	assert_string_equal(buf, "openat(AT_FDCWD, ..., "
	    "O_WRONLY|O_CREAT|O_TRUNC, 0x1a4)");
	sysdecode_call(110, none, buf, sizeof(buf));
	assert_string_equal(buf, "getppid()");
	sysdecode_call(999, none, buf, sizeof(buf));
	assert_string_equal(buf, "syscall_999(...)");
	sysdecode_call(41, sock, buf, 8);       /* cut, still terminated */
	assert_int_equal(strlen(buf), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_agree),
		cmocka_unit_test(test_calls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
