/*
 * test_infile.c - common/infile.c, how both programs read an input file
 * whole: a file that fits comes back whole and NUL-terminated, one over
 * the cap is refused (never a cut part: the proxy used to cut
 * /etc/hosts at 64 KiB without a word), a FIFO is not a regular file.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "infile.h"

static char dir[] = "/tmp/cordon-infile.XXXXXX";

static const char *make(const char *name, size_t n)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	while (n--)
		fputc('a' + (int)(n % 26), f);
	assert_int_equal(fclose(f), 0);
	return path;
}

static int read_at_most(const char *path, size_t cap, char *buf, size_t *len)
{
	struct stat st;
	int fd = infile_open(path, O_NOFOLLOW, &st), rc, e;

	if (fd < 0)
		return -1;
	rc = infile_read(fd, &st, buf, cap, len);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

static void test_fits_whole(void **state)
{
	char buf[101];
	size_t len = 0;

	(void)state;
	assert_int_equal(read_at_most(make("f100", 100), 100, buf, &len), 0);
	assert_int_equal(len, 100);
	assert_int_equal(strlen(buf), 100);
	assert_int_equal(read_at_most(make("empty", 0), 100, buf, &len), 0);
	assert_int_equal(len, 0);
	assert_string_equal(buf, "");
}

static void test_over_the_cap_refused(void **state)
{
	char buf[101];
	size_t len = 7;

	(void)state;
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(read_at_most(make("f101", 101), 100, buf, &len), -1);
	assert_int_equal(errno, EFBIG);
	assert_int_equal(len, 7);
	assert_string_equal(infile_strerror(EFBIG),
	    "larger than the reader takes");
}

static void test_not_regular(void **state)
{
	char path[128], buf[16];
	size_t len;

	(void)state;
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(read_at_most(path, sizeof(buf) - 1, buf, &len), -1);
	assert_int_equal(errno, EINVAL);
	assert_string_equal(infile_strerror(EINVAL), "not a regular file");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fits_whole),
		cmocka_unit_test(test_over_the_cap_refused),
		cmocka_unit_test(test_not_regular),
	};
	static const char *const made[] = { "f100", "empty", "f101", "fifo" };
	char path[128];
	size_t i;
	int rc;

	if (!mkdtemp(dir))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	for (i = 0; i < sizeof(made) / sizeof(made[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, made[i]);
		(void)unlink(path);
	}
	return rmdir(dir) < 0 ? 1 : rc;
}
