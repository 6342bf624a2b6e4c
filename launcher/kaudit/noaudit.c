/*
 * noaudit.c - the kernel's audit records in cordon, the program without
 * their reader (kaudit/reader.c is in cordon-audit and the programs with
 * a room): main.c executes cordon-audit for a run whose records the
 * kernel would give (audit_wanted) before anything of the run exists, so
 * audit_join is reached here only if the kernel's audit was turned on in
 * between; the status then says so.  The group is never
 * joined here: there is nothing to read or finish.
 */
#include "kaudit.h"
#include "cordon.h"

const int audit_built = 0;

struct audit *audit_join(struct audit *a, int landlock_abi, int landlock_on)
{
	(void)landlock_abi, (void)landlock_on;
	return audit_nope(a, "the kernel's audit was turned on after this "
	    "run was planned (cordon-audit reads its records)");
}

void audit_read(struct audit *a)
{
	(void)a;
}

void audit_payload(struct audit *a)
{
	(void)a;
}

void audit_finish(struct audit *a, int sigsys)
{
	(void)a, (void)sigsys;
}
