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

/* After the clone: what holds disk and files, as the plan says (re-planned
 * when the kernel refused the namespaces: plan_ns_refused). */
void bounds_started(const struct run_plan *pl, struct bounds *b)
{
	b->by[B_DISK] = pl->by[B_DISK];
	b->by[B_FILES] = pl->by[B_FILES];
	memcpy(b->why[B_PIDS], pl->why[B_PIDS], sizeof(b->why[B_PIDS]));
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
