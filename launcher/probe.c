/*
 * probe.c - what the plan needs to know of the kernel and the host,
 * asked once, before plan_make (plan.c) decides: the Landlock ABI and
 * errata, the uid, whether the kernel gives the namespaces (for
 * --check; a run's clone tries them and falls back, run.c), the
 * cgroup a run would use and its controllers (for --check; a run makes
 * its group, cgroup.c), and the first rule path that can grow something
 * outside the workdir (which a watch of the workdir would miss:
 * bounds.c).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "landlock_compat.h"
#include "llrights.h"
#include "plan.h"

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

/* The group a run would make for its memory and pids bounds: its
 * version, or 0 and why not (cgroup.c's own checks, which only read). */
static void probe_cgroup(const struct cpol *p, const struct opts *o,
    struct probe *pr)
{
	const int need[2] = {
		command_limit(p, o->limit, CPOL_RLIM_MEMORY) != UINT64_MAX,
		command_limit(p, o->limit, CPOL_RLIM_PIDS) != UINT64_MAX,
	};
	char parent[2][CGROUP_PATH_MAX];

	pr->cgroup_why[0] = '\0';
	if (!need[0] && !need[1])
		pr->cgroup = -1;      /* none needed */
	else if (pr->cgroup_base)
		pr->cgroup = cgroup_v2_usable(pr->cgroup_base, need,
		    pr->cgroup_why, sizeof(pr->cgroup_why)) ? 2 : -1;
	else
		pr->cgroup = cgroup_v1_parents(need, parent, pr->cgroup_why,
		    sizeof(pr->cgroup_why)) > 0 ? 1 : -1;
}

void probe_make(const struct cpol *p, const struct opts *o, int ask,
    struct probe *pr)
{
	const char *env = getenv("CORDON_CGROUP");
	int e = 0;

	pr->landlock_abi = landlock_probe(&pr->landlock_errata);
	pr->uid = getuid();
	pr->root = pr->uid == 0;
	pr->ns = ask ? run_probe_ns(CLONE_NEWUSER | CLONE_NEWPID |
	    CLONE_NEWNET | CLONE_NEWNS, (p->flags & CPOL_F_NET_HOSTS) != 0,
	    pr->ns_broken, sizeof(pr->ns_broken), &e) : -1;
	if (!ask)
		pr->ns_broken[0] = '\0';
	pr->ns_hint[0] = '\0';
	if (pr->ns_broken[0])
		ns_broken_hint(pr->ns_hint, sizeof(pr->ns_hint));
	pr->ns_why[0] = '\0';
	if (pr->ns == 0)
		ns_cause(e, pr->ns_why, sizeof(pr->ns_why));
	pr->cgroup_base = o->cgroup ? o->cgroup : env && env[0] ? env : NULL;
	pr->cgroup = 0;
	if (ask)
		probe_cgroup(p, o, pr);
	/* Only a disk or files bound asks (a stat per rule). */
	pr->grows_outside = command_limit(p, o->limit, CPOL_RLIM_DISK) ==
	    UINT64_MAX && command_limit(p, o->limit, CPOL_RLIM_FILES) ==
	    UINT64_MAX ? NULL : grows_outside(p);
}
