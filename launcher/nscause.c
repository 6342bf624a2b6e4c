/*
 * nscause.c - why the kernel refused the run's namespaces, found out
 * rather than guessed: the clone's errno, the settings the kernel reads
 * (/proc/sys), and whether cordon itself runs under a seccomp filter (a
 * container runtime's profile: Seccomp 2 in /proc/self/status).  One
 * sentence, said once, wherever a refusal is reported (a run that needs
 * its namespaces, --check's plan).  A filter cannot be read (that needs
 * CAP_SYS_ADMIN), so it is named the cause only where the kernel's own
 * settings allow the namespaces.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "action.h"
#include "cordon.h"

/* A /proc/sys number, or -1 where there is none. */
static long sys_value(const char *path)
{
	char buf[32];

	if (file_get(path, buf, sizeof(buf)) < 0)
		return -1;
	return strtol(buf, NULL, 10);
}

/* 1 when cordon runs under a seccomp filter (mode 2). */
static int filtered(void)
{
	char buf[4096], *s;

	if (file_get("/proc/self/status", buf, sizeof(buf)) < 0)
		return 0;
	s = strstr(buf, "\nSeccomp:");
	return s && strtol(s + strlen("\nSeccomp:"), NULL, 10) == 2;
}

/* Why: into buf, for a clone that failed with e. */
void ns_cause(int e, char *buf, size_t len)
{
	long users = sys_value("/proc/sys/user/max_user_namespaces");
	long unpriv = sys_value("/proc/sys/kernel/unprivileged_userns_clone");
	long aa = sys_value(
	    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
	const char *name = cpol_errno_name(e);
	int n;

	if (users == 0)
		n = snprintf(buf, len, "sysctl user.max_user_namespaces is 0");
	else if (e == ENOSPC || e == EUSERS)
		n = snprintf(buf, len, "no user namespace left (sysctl "
		    "user.max_user_namespaces %ld reached, or 32 levels "
		    "nested)", users);
	else if (unpriv == 0 && getuid() != 0)
		n = snprintf(buf, len, "sysctl "
		    "kernel.unprivileged_userns_clone is 0");
	else if (aa == 1 && e == EACCES)
		n = snprintf(buf, len, "AppArmor restricts unprivileged user "
		    "namespaces (sysctl "
		    "kernel.apparmor_restrict_unprivileged_userns is 1)");
	else if (filtered())
		n = snprintf(buf, len, "the seccomp filter cordon runs under "
		    "(a container runtime's profile) refused the clone; the "
		    "kernel's settings allow it: use a profile that allows "
		    "clone and unshare with namespace flags");
	else if (e == ENOSYS)
		n = snprintf(buf, len, "the kernel has no namespaces");
	else
		n = snprintf(buf, len, "the kernel refused them");
	if (n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " (clone: %s)",
		    name ? name : strerror(e));
}
