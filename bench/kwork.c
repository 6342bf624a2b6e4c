/*
 * kwork.c - floor --kernel-work: the kernel work of cordon's default
 * path for the blob at hand, and nothing else of cordon's, so that
 * cordon's overhead can be set against a floor that pays the same
 * kernel costs.  What the blob asks for, as cordon's plan decides it
 * (launcher/plan.c):
 *
 *   - namespaces, as launcher/run.c clones them: user and PID always;
 *     net for "network off" or named hosts; mount for a private /tmp or
 *     /dev/shm, "limit disk" or "limit files".  In the child: its own
 *     uid and gid mapped (setgroups denied), as run.c's ns_setup().
 *   - with a mount namespace, the run tmpfs by launcher/runfs.c's own
 *     code (runfs_mount, runfs_attach, linked in): propagation made
 *     private, fsopen/fsconfig (size=, nr_inodes=)
 *     /fsmount (nosuid, nodev, noexec), w/ tmp/ shm/ made, tmp/ attached
 *     on /tmp and shm/ on /dev/shm (open_tree, move_mount) where private.
 *     The floor has no working directory: nothing is copied in, w/ is
 *     attached nowhere, and the mount is not handed to anyone.
 *   - for "limit memory" or "limit pids", the run's cgroup by cordon's
 *     own code (launcher/cgroup.c, cgown.c, cgstale.c, linked in): a
 *     group below the floor's own in each v1 hierarchy (the stale ones
 *     swept), the bounds written, joined by the child writing "0" to its
 *     tasks file first thing, removed after the child is reaped.  Where
 *     no group can be made (unprivileged, no v1 controller), none, and
 *     the line says why, as cordon falls back to rlimits.
 *
 * Not here, as in the plain floor: no init process in the PID namespace
 * (the command is its PID 1), no egress proxy for named hosts, no status.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cordon.h"
#include "kwork.h"

/* The one run of this floor: its plan, copied into the child by fork. */
static struct {
	unsigned long ns;               /* clone flags */
	int tmp, shm;                   /* private /tmp, /dev/shm */
	uint64_t limit[4];              /* memory, pids, disk, files */
	char uid_map[32], gid_map[32];
	struct cgroup cg;
	char note[128];
} kw;

enum { KW_MEMORY, KW_PIDS, KW_DISK, KW_FILES };

static void limits_read(const struct cpol *p)
{
	uint32_t i;

	for (i = 0; i < 4; i++)
		kw.limit[i] = UINT64_MAX;
	for (i = 0; i < p->nlimits; i++) {
		uint8_t r = p->limits[i].resource;

		if (r >= CPOL_RLIM_MEMORY && r <= CPOL_RLIM_FILES)
			kw.limit[r - CPOL_RLIM_MEMORY] = p->limits[i].value;
	}
}

/* The plan's namespaces (plan.c: plan_net, plan_mnt). */
static void ns_plan(const struct cpol *p)
{
	kw.ns = CLONE_NEWUSER | CLONE_NEWPID;
	if (p->flags & (CPOL_F_NET_OFF | CPOL_F_NET_HOSTS))
		kw.ns |= CLONE_NEWNET;
	kw.tmp = (p->flags & CPOL_F_PRIVATE_TMP) != 0;
	kw.shm = (p->flags & CPOL_F_PRIVATE_SHM) != 0;
	if (kw.tmp || kw.shm || kw.limit[KW_DISK] != UINT64_MAX ||
	    kw.limit[KW_FILES] != UINT64_MAX)
		kw.ns |= CLONE_NEWNS;
	snprintf(kw.uid_map, sizeof(kw.uid_map), "%u %u 1\n", getuid(),
	    getuid());
	snprintf(kw.gid_map, sizeof(kw.gid_map), "%u %u 1\n", getgid(),
	    getgid());
}

static void say_plan(const struct cpol *p, char *say, size_t len)
{
	const char *cg = "no cgroup (no memory or pids bound)";
	char why[300];

	if (kw.cg.version)
		cg = "cgroup v1 memory and pids: made, joined by \"0\" to tasks, "
		    "removed";
	else if (kw.limit[KW_MEMORY] != UINT64_MAX ||
	    kw.limit[KW_PIDS] != UINT64_MAX) {
		snprintf(why, sizeof(why), "cgroup SKIPPED: %s", kw.cg.why);
		cg = why;
	}
	snprintf(say, len, "user, pid%s%s namespaces; %s; %s%s",
	    kw.ns & CLONE_NEWNET ? ", net" : "",
	    kw.ns & CLONE_NEWNS ? ", mount" : "",
	    kw.ns & CLONE_NEWNS ? (kw.tmp || kw.shm ? "run tmpfs (fsmount) "
	    "on /tmp, /dev/shm" : "run tmpfs (fsmount)") : "no run tmpfs "
	    "(no private /tmp, no disk bound)", cg,
	    p->flags & CPOL_F_NET_HOSTS ? "; no egress proxy" : "");
}

int kwork_prepare(const struct cpol *p, char *say, size_t len)
{
	char err[512];

	memset(&kw, 0, sizeof(kw));
	limits_read(p);
	ns_plan(p);
	/* base NULL: cgroup v1 below our own groups, cordon's default. */
	if (cgroup_make(&kw.cg, NULL, kw.limit[KW_MEMORY], kw.limit[KW_PIDS],
	    err, sizeof(err)) < 0) {
		snprintf(say, len, "%s", err);
		return -1;
	}
	say_plan(p, say, len);
	return 0;
}

/* Namespace creation fails with these when the kernel or its settings
 * forbid it (run.c's ns_refused). */
static int ns_refused(int e)
{
	return e == EPERM || e == EINVAL || e == ENOSPC || e == EUSERS ||
	    e == EACCES || e == ENOSYS;
}

pid_t kwork_spawn(void)
{
	long pid = syscall(SYS_clone, kw.ns | SIGCHLD, NULL, NULL, NULL, 0);

	if (pid < 0 && ns_refused(errno)) {
		snprintf(kw.note, sizeof(kw.note), "namespaces refused (%s): "
		    "none", strerror(errno));
		kw.ns = 0;
		pid = syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL, 0);
	}
	return (pid_t)pid;
}

const char *kwork_note(void)
{
	return kw.note;
}

/* The run tmpfs (runfs.c's runfs_mount: runfs_make less the copy), its
 * private parts attached (run.c's mounts, by runfs_attach). */
static int mounts(void)
{
	int mnt, rc = -1;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -1;
	/* + its own inodes: the root, w/, tmp/, shm/ */
	mnt = runfs_mount(kw.limit[KW_DISK], kw.limit[KW_FILES] ==
	    UINT64_MAX ? UINT64_MAX : kw.limit[KW_FILES] + 4);
	if (mnt < 0)
		return -1;
	if ((!kw.tmp || runfs_attach(mnt, "tmp", "/tmp") == 0) &&
	    (!kw.shm || runfs_attach(mnt, "shm", "/dev/shm") == 0))
		rc = 0;
	close(mnt);
	return rc;
}

int kwork_child(void)
{
	if (cgroup_join(&kw.cg) < 0)
		return -1;
	if (!kw.ns)
		return 0;
	if (file_put("/proc/self/uid_map", kw.uid_map) < 0 ||
	    file_put("/proc/self/setgroups", "deny") < 0 ||
	    file_put("/proc/self/gid_map", kw.gid_map) < 0)
		return -1;
	return kw.ns & CLONE_NEWNS ? mounts() : 0;
}

int kwork_finish(void)
{
	return cgroup_remove(&kw.cg, NULL, 0);
}
