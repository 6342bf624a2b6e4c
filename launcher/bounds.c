/*
 * bounds.c - the whole-run bounds ("limit memory", "pids", "disk",
 * "files"): decide before the clone how each will be held, say after it
 * which did, and read what the run used.
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

#include "cordon.h"
#include "landlock_compat.h"
#include "llrights.h"

/* The first rule that can grow something outside the workdir, or NULL. */
static const char *grows_outside(const struct cpol *p)
{
	struct stat st;
	uint32_t i;

	for (i = 0; i < p->nfs; i++) {
		const struct cpol_fs *r = &p->fs[i];

		if (!(r->access & CPOL_LL_GROW) || r->path[0] == '$')
			continue;
		/* Writing a device node (/dev/null) stores nothing. */
		if (!(r->access & ~CORDON_LL_FS_WRITE_FILE & CPOL_LL_GROW) &&
		    stat(r->path, &st) == 0 && S_ISCHR(st.st_mode))
			continue;
		if (stat(r->path, &st) < 0 && errno == ENOENT &&
		    (r->flags & CPOL_FS_OPTIONAL))
			continue;
		return r->path;
	}
	return NULL;
}

/* Tighten (or add) one of the child's rlimits to v. */
static void rlim_cap(struct launch *ln, int resource, uint64_t v)
{
	int i;

	for (i = 0; i < ln->nrlim; i++)
		if (ln->rlim[i].resource == resource) {
			if (ln->rlim[i].value > v)
				ln->rlim[i].value = v;
			return;
		}
	if (ln->nrlim < CPOL_RLIM_KERNEL_MAX) {
		ln->rlim[ln->nrlim].resource = resource;
		ln->rlim[ln->nrlim++].value = v;
	}
}

static int rlim_has(const struct launch *ln, int resource)
{
	int i;

	for (i = 0; i < ln->nrlim; i++)
		if (ln->rlim[i].resource == resource &&
		    ln->rlim[i].value != RLIM_INFINITY)
			return 1;
	return 0;
}

/* How memory and pids are held, given the cgroup we got.  Without a
 * controller, the per-process rlimits are capped at the bound: each
 * process's address space (or data, where the policy leaves the address
 * space unlimited, as CUDA needs) at "memory", the process count at
 * "pids" (counted per user namespace, so per run when cordon has one;
 * never for root); b->why says why there is no controller. */
static void held(struct launch *ln, struct bounds *b)
{
	enum bound_by by = ln->cg.version == 2 ? BY_CGROUP2 : BY_CGROUP1;
	int root = getuid() == 0;

	if (b->limit[B_MEMORY] != UINT64_MAX && ln->cg.memory) {
		b->by[B_MEMORY] = by;
	} else if (b->limit[B_MEMORY] != UINT64_MAX) {
		rlim_cap(ln, rlim_has(ln, RLIMIT_AS) ? RLIMIT_AS : RLIMIT_DATA,
		    b->limit[B_MEMORY]);
		b->by[B_MEMORY] = BY_RLIMIT_PROC;
		snprintf(b->why[B_MEMORY], sizeof(b->why[B_MEMORY]), "no "
		    "memory cgroup: %s; each process is capped at the bound, "
		    "not the run", ln->cg.why);
	}
	if (b->limit[B_PIDS] != UINT64_MAX && ln->cg.pids) {
		b->by[B_PIDS] = by;
	} else if (b->limit[B_PIDS] != UINT64_MAX) {
		rlim_cap(ln, RLIMIT_NPROC, b->limit[B_PIDS]);
		b->by[B_PIDS] = root ? BY_NONE : BY_RLIMIT;
		snprintf(b->why[B_PIDS], sizeof(b->why[B_PIDS]), "no pids "
		    "cgroup: %s; %s", ln->cg.why, root ? "the kernel does not "
		    "apply RLIMIT_NPROC to root" : "RLIMIT_NPROC counts the "
		    "uid's processes (per user namespace)");
	}
}

static int refuse(char *err, const char *name, const char *why)
{
	snprintf(err, ERRLEN, "the policy requires limit %s to hold for "
	    "the whole run, but there is %.250s. Hint: run as root on cgroup "
	    "v1 (a group is made below cordon's own), or give a delegated "
	    "cgroup v2 directory with --cgroup", name, why);
	return -1;
}

/* RLIMIT_NPROC does not bind uid 0: as root, limit nproc is a bound on
 * the run's processes, held (where it can be) by the pids group. */
static void root_nproc(const struct opts *o, const struct cpol *p,
    struct bounds *b)
{
	uint64_t nproc = command_limit(p, o->limit, CPOL_RLIM_NPROC);

	if (getuid() == 0 && nproc < b->limit[B_PIDS])
		b->limit[B_PIDS] = nproc;
}

/* The egress proxy's processes come out of the pids bound: the run's
 * own group gets the rest, so that the two together stay within it.
 * Returns 0, or -1 with err when nothing would be left for the run. */
static int proxy_share(const struct launch *ln, struct bounds *b,
    char *err)
{
	b->proxy_procs = b->limit[B_PIDS] == UINT64_MAX ? 0 : ln->proxy_procs;
	if (b->limit[B_PIDS] > b->proxy_procs)
		return 0;
	snprintf(err, ERRLEN, "limit pids %llu leaves no process for the "
	    "run beside the egress proxy's %u (named hosts need at least "
	    "%u)", (unsigned long long)b->limit[B_PIDS], b->proxy_procs,
	    b->proxy_procs + 1);
	return -1;
}

/* Before the clone.  Returns 0 or -1 with err. */
int bounds_prepare(const struct opts *o, const struct cpol *p,
    struct launch *ln, struct bounds *b, char *err)
{
	const char *base = o->cgroup ? o->cgroup : getenv("CORDON_CGROUP");
	const char *out;
	int i;

	for (i = 0; i < NBOUNDS; i++) {
		b->limit[i] = command_limit(p, o->limit,
		    (unsigned int)(CPOL_RLIM_MEMORY + i));
		b->by[i] = BY_NONE;
		if (i <= B_PIDS)
			b->why[i][0] = '\0';
	}
	root_nproc(o, p, b);
	b->memory_peak = b->oom_kills = b->pids_refused = UINT64_MAX;
	b->disk_used = b->files_used = UINT64_MAX;
	/* One file never outgrows the space (and a watch misses less). */
	if (b->limit[B_DISK] != UINT64_MAX)
		rlim_cap(ln, RLIMIT_FSIZE, b->limit[B_DISK]);
	if (proxy_share(ln, b, err) < 0 || cgroup_make(&ln->cg, base,
	    b->limit[B_MEMORY], b->limit[B_PIDS] == UINT64_MAX ? UINT64_MAX :
	    b->limit[B_PIDS] - b->proxy_procs, err, ERRLEN) < 0)
		return -1;
	held(ln, b);
	if ((p->flags & CPOL_F_REQUIRE_MEMORY) && !ln->cg.memory)
		return refuse(err, "memory", b->why[B_MEMORY]);
	if ((p->flags & CPOL_F_REQUIRE_PIDS) && !ln->cg.pids)
		return refuse(err, "pids", b->why[B_PIDS]);
	if (b->limit[B_DISK] == UINT64_MAX && b->limit[B_FILES] == UINT64_MAX)
		return 0;
	/* Without a mount namespace, can a watch hold the bound? */
	out = grows_outside(p);
	if (!out && ln->ruleset_fd >= 0 && !(p->flags &
	    (CPOL_F_REQUIRE_DISK | CPOL_F_REQUIRE_FILES)))
		return 0;
	ln->ns_required = 1;
	if (!o->no_namespaces)
		return 0;
	snprintf(err, ERRLEN, "limit disk and limit files need a mount "
	    "namespace here (%s%s), and --no-namespaces forbids one",
	    out ? "writable outside the workdir: " : ln->ruleset_fd < 0 ?
	    "no Landlock" : "the policy requires the run tmpfs",
	    out ? out : "");
	return -1;
}

/* After the clone: the namespaces we got decide disk and files. */
void bounds_started(const struct launch *ln, struct bounds *b)
{
	enum bound_by by = ln->ns_flags & CLONE_NEWNS ? BY_TMPFS : BY_WATCH;

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
