/*
 * probe.c - what the plan needs to know of the kernel and the host,
 * asked once, before plan_make (plan.c) decides: the Landlock ABI and
 * errata, the uid, whether the kernel gives the namespaces (for
 * --check; a run's clone tries them and falls back, run.c), and the
 * first rule path that can grow something outside the workdir (which a
 * watch of the workdir would miss: bounds.c).
 */
#include <errno.h>
#include <sched.h>
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

void probe_make(const struct cpol *p, const struct opts *o, int ask_ns,
    struct probe *pr)
{
	pr->landlock_abi = landlock_probe(&pr->landlock_errata);
	pr->root = getuid() == 0;
	pr->ns = ask_ns ? run_probe_ns(CLONE_NEWUSER | CLONE_NEWPID |
	    CLONE_NEWNET | CLONE_NEWNS) : -1;
	/* Only a disk or files bound asks (a stat per rule). */
	pr->grows_outside = command_limit(p, o->limit, CPOL_RLIM_DISK) ==
	    UINT64_MAX && command_limit(p, o->limit, CPOL_RLIM_FILES) ==
	    UINT64_MAX ? NULL : grows_outside(p);
}
