/*
 * ns.c - namespaces, a bonus on top of the layers that do not need them.
 * The parent asks clone() for a user namespace (so no privilege is
 * needed), an empty network namespace for "network off", and a mount
 * namespace for a private /tmp and /dev/shm.  No PID namespace: the
 * snippet would be its init, which ignores signals it has no handler for
 * (its own SIGXCPU, SIGXFSZ, kill(getpid())), and a pid-1 helper would
 * cost a process per run; the supervisor's subreaper loop kills the tree.  If the kernel refuses, run.c clones without any, and the
 * status report says so.  ns_setup runs in the child, before the
 * capabilities it holds inside the new user namespace are dropped.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cordon.h"

unsigned long ns_wanted(const struct cpol *p)
{
	unsigned long f = CLONE_NEWUSER;

	if (p->flags & CPOL_F_NET_OFF)
		f |= CLONE_NEWNET;
	if (p->flags & (CPOL_F_PRIVATE_TMP | CPOL_F_PRIVATE_SHM))
		f |= CLONE_NEWNS;
	return f;
}

static int put(const char *file, const char *text)
{
	int fd = open(file, O_WRONLY | O_CLOEXEC);
	ssize_t len = (ssize_t)strlen(text), n;

	if (fd < 0)
		return -1;
	n = write(fd, text, (size_t)len);
	if (close(fd) < 0 || n != len)
		return -1;
	return 0;
}

/* Map our own uid and gid, nothing else. */
static int map_ids(uid_t uid, gid_t gid)
{
	char line[64];

	snprintf(line, sizeof(line), "%u %u 1\n", uid, uid);
	if (put("/proc/self/uid_map", line) < 0 ||
	    put("/proc/self/setgroups", "deny") < 0)
		return -1;
	snprintf(line, sizeof(line), "%u %u 1\n", gid, gid);
	return put("/proc/self/gid_map", line);
}

/* The workdir lives under the directory just hidden by a fresh tmpfs:
 * make the same path in the tmpfs and bind the real directory there. */
static int rebind(const char *dir, const struct launch *ln)
{
	size_t n = strlen(dir);
	char path[4096], src[64];
	char *p;

	if (strncmp(ln->workdir, dir, n) != 0 || ln->workdir[n] != '/')
		return 0;
	if (snprintf(path, sizeof(path), "%s", ln->workdir) >=
	    (int)sizeof(path))
		return -1;
	for (p = path + n + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return -1;
	snprintf(src, sizeof(src), "/proc/self/fd/%d", ln->workdir_fd);
	return mount(src, path, NULL, MS_BIND, NULL);
}

static int private_dir(const char *dir, const struct launch *ln)
{
	int fd;

	if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV,
	    "mode=0700") < 0 || rebind(dir, ln) < 0)
		return -1;
	if (ln->ruleset_fd < 0)
		return 0;
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || landlock_add(ln->ruleset_fd, fd, ln->tmp_access) < 0)
		return -1;
	return close(fd);
}

int ns_setup(const struct launch *ln, char *err, size_t errlen)
{
	const char *what = "uid_map";

	/* cordon made itself non-dumpable, which leaves /proc/self/uid_map
	 * owned by root; execve makes the snippet dumpable again anyway. */
	if ((ln->ns_flags & CLONE_NEWUSER) && (prctl(PR_SET_DUMPABLE, 1, 0,
	    0, 0) < 0 || map_ids(ln->uid, ln->gid) < 0))
		goto fail;
	what = "mount propagation";
	if ((ln->ns_flags & CLONE_NEWNS) &&
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		goto fail;
	what = "private /tmp";
	if (ln->private_tmp && private_dir("/tmp", ln) < 0)
		goto fail;
	what = "private /dev/shm";
	if (ln->private_shm && private_dir("/dev/shm", ln) < 0)
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "namespace set-up: %s: %s", what,
	    strerror(errno));
	return -1;
}
