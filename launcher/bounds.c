/*
 * bounds.c - the whole-run bounds ("limit memory", "pids", "disk",
 * "files"): the plan (plan.c) decides how each will be held; here the
 * cgroup is made before the clone, what held each is said after it, and
 * what the run used is read.
 *
 *   memory, pids: a cgroup (cgroup.c) where cordon can use a controller
 *     below its own group; otherwise the per-process rlimits are all
 *     there is ("rlimit-per-process" for memory: as x nproc at worst;
 *     "rlimit" for pids: RLIMIT_NPROC, nothing for root's process
 *     count), or nothing.  As root, "limit nproc" is a pids bound too
 *     (the kernel does not apply RLIMIT_NPROC to uid 0).
 *     "limit memory required" / "limit pids required" refuse a fallback,
 *     with the reason (also in the status).
 *   disk, files: the run tmpfs (runfs.c) where a mount namespace exists;
 *     otherwise cordon watches the workdir and ends the run past the
 *     bound.  Watching covers the workdir only, so it needs Landlock and
 *     no writable path rule outside the workdir (device nodes aside);
 *     without those the bound cannot be held, and the run needs the
 *     namespace.  "limit disk required" / "files required" refuse the
 *     watch.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sched.h>
#include <unistd.h>

#include "plan.h"

/* Before the clone: the cgroup made, and the plan told how it holds
 * memory and pids (plan_held).  Returns 0 or -1 with err. */
int bounds_prepare(struct run_plan *pl, const struct cpol *p,
    struct launch *ln, struct bounds *b, char *err)
{
	int i;

	for (i = 0; i < NBOUNDS; i++) {
		b->limit[i] = pl->limit[i];
		b->by[i] = BY_NONE;
		if (i <= B_PIDS)
			b->why[i][0] = '\0';
	}
	b->memory_peak = b->oom_kills = b->pids_refused = UINT64_MAX;
	b->disk_used = b->files_used = UINT64_MAX;
	b->proxy_procs = b->limit[B_PIDS] == UINT64_MAX ? 0 : pl->proxy_procs;
	if (cgroup_make(&ln->cg, pl->cgroup_base, b->limit[B_MEMORY],
	    b->limit[B_PIDS] == UINT64_MAX ? UINT64_MAX :
	    b->limit[B_PIDS] - b->proxy_procs, err, ERRLEN) < 0)
		return -1;
	i = plan_held(pl, p, &ln->cg, err, ERRLEN);
	b->by[B_MEMORY] = pl->by[B_MEMORY];
	b->by[B_PIDS] = pl->by[B_PIDS];
	memcpy(b->why, pl->why, sizeof(b->why));
	return i;
}

/* After the clone: the namespaces we got decide disk and files, and
 * what RLIMIT_NPROC counts: without a user namespace, every process of
 * the uid on the host (the node, in a pod: every container running as
 * it), so other runs and programs of the uid take from the run's bound
 * and the run may get fewer processes than it; nothing the kernel gives
 * without a cgroup or a user namespace bounds a run's processes apart. */
void bounds_started(const struct launch *ln, struct bounds *b)
{
	enum bound_by by = ln->ns_flags & CLONE_NEWNS ? BY_TMPFS : BY_WATCH;
	size_t n = strlen(b->why[B_PIDS]);

	if (b->by[B_PIDS] == BY_RLIMIT && !(ln->ns_flags & CLONE_NEWUSER))
		snprintf(b->why[B_PIDS] + n, sizeof(b->why[B_PIDS]) - n, "; no "
		    "user namespace: every process of uid %u on the host "
		    "counts, other runs' included, so this run may get fewer",
		    (unsigned int)getuid());

	if (b->limit[B_DISK] != UINT64_MAX)
		b->by[B_DISK] = by;
	if (b->limit[B_FILES] != UINT64_MAX)
		b->by[B_FILES] = by;
}

/* After the run, every process reaped: usage, then the cgroup removed.
 * Returns 0, or -1 with err when something is left behind. */
int bounds_finish(struct launch *ln, struct bounds *b, int mnt, int wfd,
    char *err)
{
	if (mnt >= 0)
		(void)runfs_statfs(mnt, ln->own_inodes, &b->disk_used,
		    &b->files_used);
	else if (b->by[B_DISK] == BY_WATCH || b->by[B_FILES] == BY_WATCH)
		(void)runfs_usage(wfd, &b->disk_used, &b->files_used);
	cgroup_read(&ln->cg, b);
	return cgroup_remove(&ln->cg, err, ERRLEN);
}
