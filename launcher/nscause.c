/*
 * nscause.c - why the kernel refused the run's namespaces, found out
 * rather than guessed: the clone's errno, the settings the kernel reads
 * (/proc/sys), and whether cordon itself runs under a seccomp filter (a
 * container runtime's profile: Seccomp 2 in /proc/self/status).  One
 * sentence, said once, wherever a refusal is reported (a run that needs
 * its namespaces, --check's plan).  A filter cannot be read (that needs
 * CAP_SYS_ADMIN), so it is named the cause only where the kernel's own
 * settings allow the namespaces.  Where the kernel gives the namespaces
 * but a run's child cannot set them up, the step it fails names what is
 * known of its cause (the uid map), and a hint says what would help.
 */
#include <errno.h>
#include <linux/capability.h>
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

/* 1 when the run's child may not map cordon's uid: since Linux 5.12 a
 * map of uid 0 asks for CAP_SETFCAP of the namespace's creator, which a
 * container's root without capabilities lacks. */
static int map_refused(void)
{
	return geteuid() == 0 && run_cap_held(CAP_SETFCAP) == 0;
}

/* The uid map's step, as the child names it when it fails. */
const char *ns_map_step(void)
{
	return map_refused() ? "uid_map (uid 0 may map itself into a user "
	    "namespace only with CAP_SETFCAP, which cordon lacks)" :
	    "uid_map";
}

/* What would get a run past the set-up step its child failed. */
void ns_broken_hint(char *buf, size_t len)
{
	if (map_refused())
		snprintf(buf, len, "run cordon as another uid, or with "
		    "--no-namespaces");
	else if (filtered())
		snprintf(buf, len, "in a container, its runtime's seccomp "
		    "profile may refuse it (deploy/kubernetes/README.md); "
		    "allow it there, or run with --no-namespaces");
	else
		snprintf(buf, len, "run with --no-namespaces");
}
