/*
 * nsprobe.c - for --check: would a run's namespaces work?  A clone with
 * the run's namespace flags is not enough: a container runtime's seccomp
 * profile may give the clone and refuse what the child then does (the
 * uid map, the mount propagation, the run tmpfs's fsopen, fsconfig,
 * fsmount, open_tree and move_mount: runfs.c; for named hosts the
 * proxy's listener: netns.c), and then every run fails.
 * So the probe's child does the same calls on a tiny tmpfs, and names
 * the first refusal.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cordon.h"

/* The child: the run's set-up steps (run.c's ns_setup and mounts), the
 * first that fails written to w as "STEP: ERROR". */
static void probe_child(int w, int proxy, const char *uid_map,
    const char *gid_map, const char *step)
{
	struct stat st;
	int mnt, sp[2];

	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0 ||
	    file_put("/proc/self/uid_map", uid_map) < 0 ||
	    file_put("/proc/self/setgroups", "deny") < 0 ||
	    file_put("/proc/self/gid_map", gid_map) < 0)
		goto out;
	step = "mount propagation (mount)";
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		goto out;
	step = "the run tmpfs (fsopen, fsconfig, fsmount)";
	if ((mnt = runfs_mount(1 << 20, 64)) < 0)
		goto out;
	step = "attaching the run tmpfs (open_tree, move_mount)";
	if (runfs_attach(mnt, "tmp", stat("/tmp", &st) == 0 &&
	    S_ISDIR(st.st_mode) ? "/tmp" : "/") < 0)
		goto out;
	/* Named hosts: the egress proxy's listener, made as a run makes it
	 * (netns.c) and handed over a socket pair (fdpass.c). */
	step = "the egress proxy's listener in the run's network namespace "
	    "(socketpair, socket, ioctl, bind, listen)";
	if (proxy && (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    sp) < 0 || netns_listen(sp[0]) < 0))
		goto out;
	_exit(0);
out:
	dprintf(w, "%s: %s", step, strerror(errno));
	_exit(1);
}

int run_probe_ns(unsigned long flags, int proxy, char *why, size_t len,
    int *err)
{
	char uid_map[32], gid_map[32];
	const char *map_step = ns_map_step();   /* before the clone */
	int p[2], status;
	ssize_t n;
	pid_t pid;

	why[0] = '\0';
	snprintf(uid_map, sizeof(uid_map), "%u %u 1\n", getuid(), getuid());
	snprintf(gid_map, sizeof(gid_map), "%u %u 1\n", getgid(), getgid());
	if (pipe2(p, O_CLOEXEC) < 0)
		return 0;
	pid = (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, 0);
	if (pid == 0) {
		close(p[0]);
		probe_child(p[1], proxy, uid_map, gid_map, map_step);
	}
	if (pid < 0)
		*err = errno;
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return 0;
	}
	n = read(p[0], why, len - 1);
	why[n > 0 ? n : 0] = '\0';
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    (WEXITSTATUS(status) != 0 && !why[0]))
		snprintf(why, len, "the probe's child ended without a word");
	return 1;
}
