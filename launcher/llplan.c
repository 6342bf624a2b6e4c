/*
 * llplan.c - Landlock, decided: the rights an ABI handles, a private
 * /tmp's, the ABI a policy needs (refused, fail closed, when the kernel's
 * is older), and what a path rule grants.  Pure: no system call; plan.c
 * decides with it (tests/unit/test_plan.c links this file), landlock.c
 * builds the ruleset and llwatch.c reads the rules through the same.
 */
#include <stdio.h>

#include "cordon.h"
#include "landlock_compat.h"
#include "llrights.h"

static const char hint[] = "Hint: Landlock needs Linux 5.13+ built with "
    "CONFIG_SECURITY_LANDLOCK=y and \"landlock\" in the lsm= boot list";

uint64_t landlock_fs_rights(int abi)
{
	if (abi >= 5)
		return CORDON_LL_FS_ABI5;
	if (abi >= 3)
		return CORDON_LL_FS_ABI3;
	if (abi == 2)
		return CORDON_LL_FS_ABI2;
	return abi == 1 ? CORDON_LL_FS_ABI1 : 0;
}

/* The private /tmp and /dev/shm rule: only rights the ruleset handles
 * (landlock_fs_rights of the running ABI), else the kernel refuses the
 * rule (TRUNCATE is ABI 3). */
uint64_t landlock_tmp_rights(uint64_t handled)
{
	return CPOL_LL_TMP & handled;
}

/* The ABI a policy needs: its `landlock N;`, and 4 when it has TCP rules
 * (network connect or bind: Landlock's TCP rights are ABI 4).  The
 * scopes (ABI 6) are the default N, not a floor: `landlock 4;` states
 * that the policy runs without them. */
uint32_t landlock_needed(const struct cpol *p)
{
	return p->nnet > 0 && p->landlock_abi_min < 4 ? 4 :
	    p->landlock_abi_min;
}

/* Refuse unless the running ABI has what the policy needs (fail closed),
 * and record in *l what will apply. */
int landlock_check(const struct cpol *p, int abi, struct layers *l,
    char *err, size_t errlen)
{
	int best = (p->flags & CPOL_F_BEST_EFFORT_LANDLOCK) != 0;

	l->landlock_abi = abi;
	l->landlock_fs = abi >= 1;
	l->landlock_net = abi >= 4;
	l->scope_abstract_unix = l->scope_signal = abi >= 6;
	if (best || (abi >= 1 && (uint32_t)abi >= landlock_needed(p)))
		return 0;
	snprintf(err, errlen, "policy %s needs Landlock ABI %u, this kernel "
	    "has %d. %s (ABI 6: Linux 6.12+; or mark the policy best-effort)",
	    p->name,
	    landlock_needed(p), abi, hint);
	return -1;
}

/* What a path rule grants: the rights the ruleset handles, and on a
 * file that is not a folder only those that make sense on a file (the
 * kernel refuses the others).  The Landlock watch (llwatch.c) reads the
 * rules through the same. */
uint64_t landlock_rule_access(uint64_t access, uint64_t handled, int dir)
{
	return access & handled & (dir ? ~0ULL : CPOL_LL_FILE);
}
