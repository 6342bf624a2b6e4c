/*
 * test_cgown.c - where cordon finds its own cgroup v1 group
 * (launcher/cgown.c): one /proc/self/mountinfo line and the group named
 * in /proc/self/cgroup give the group's directory, or nothing: a mount of
 * the whole hierarchy, a mount whose root is an ancestor of the group (a
 * container's view), controllers mounted together, octal escapes, and
 * the lines that must not match (another hierarchy, cgroup2, a root that
 * only shares a prefix with the group).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cordon.h"

/* cgown.c reads /proc through cgroup.c's file_get; not called here. */
int file_get(const char *file, char *buf, size_t len)
{
	(void)file;
	(void)buf;
	(void)len;
	return -1;
}

#define MEM "35 25 0:30 %s %s rw,nosuid shared:12 - cgroup cgroup %s\n"

/* The directory for group from one line, or "" when it does not match. */
static const char *dir_of(const char *root, const char *point,
    const char *super, const char *ctl, const char *group)
{
	static char dir[CGROUP_PATH_MAX];
	char line[1024];

	snprintf(line, sizeof(line), MEM, root, point, super);
	if (cgroup_mount_dir(line, ctl, group, dir, sizeof(dir)) < 0)
		return "";
	return dir;
}

static void test_whole_hierarchy(void **state)
{
	(void)state;
	assert_string_equal(dir_of("/", "/sys/fs/cgroup/memory", "rw,memory",
	    "memory", "/a/b"), "/sys/fs/cgroup/memory/a/b");
	assert_string_equal(dir_of("/", "/sys/fs/cgroup/memory", "rw,memory",
	    "memory", "/"), "/sys/fs/cgroup/memory");
}

static void test_mount_of_an_ancestor(void **state)
{
	(void)state;
	assert_string_equal(dir_of("/docker/x", "/sys/fs/cgroup/pids",
	    "rw,pids", "pids", "/docker/x"), "/sys/fs/cgroup/pids");
	assert_string_equal(dir_of("/docker/x", "/sys/fs/cgroup/pids",
	    "rw,pids", "pids", "/docker/x/y"), "/sys/fs/cgroup/pids/y");
	/* a prefix of the name is not an ancestor */
	assert_string_equal(dir_of("/docker/x", "/sys/fs/cgroup/pids",
	    "rw,pids", "pids", "/docker/xy"), "");
	assert_string_equal(dir_of("/docker/x", "/sys/fs/cgroup/pids",
	    "rw,pids", "pids", "/other"), "");
}

static void test_controllers_and_types(void **state)
{
	char line[512], dir[CGROUP_PATH_MAX];

	(void)state;
	assert_string_equal(dir_of("/", "/c", "rw,cpu,cpuacct", "cpuacct",
	    "/g"), "/c/g");
	assert_string_equal(dir_of("/", "/c", "rw,cpu,cpuacct", "cpua",
	    "/g"), "");
	assert_string_equal(dir_of("/", "/c", "rw,memory", "pids", "/g"), "");
	snprintf(line, sizeof(line), "30 25 0:26 / /sys/fs/cgroup/unified "
	    "rw - cgroup2 cgroup2 rw,memory\n");
	assert_int_equal(cgroup_mount_dir(line, "memory", "/g", dir,
	    sizeof(dir)), -1);
	snprintf(line, sizeof(line), "30 25 0:26 / /x rw - cgroup\n");
	assert_int_equal(cgroup_mount_dir(line, "memory", "/g", dir,
	    sizeof(dir)), -1);
}

static void test_escapes_and_length(void **state)
{
	char line[512], dir[16];

	(void)state;
	assert_string_equal(dir_of("/", "/mnt/a\\040b", "rw,pids", "pids",
	    "/g"), "/mnt/a b/g");
	snprintf(line, sizeof(line), MEM, "/", "/sys/fs/cgroup/pids",
	    "rw,pids");
	assert_int_equal(cgroup_mount_dir(line, "pids", "/g", dir,
	    sizeof(dir)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_hierarchy),
		cmocka_unit_test(test_mount_of_an_ancestor),
		cmocka_unit_test(test_controllers_and_types),
		cmocka_unit_test(test_escapes_and_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
