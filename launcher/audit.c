/*
 * audit.c - whether the kernel's audit records can tell what Landlock
 * refused the run and which call the seccomp filter killed it at, and the
 * run's denials as cordon keeps them (struct audit, kaudit.h).
 *
 * The kernel writes a record for each Landlock denial (ABI 7+: Linux
 * 6.15) and each seccomp kill, but only while its audit is on
 * (audit_enabled, `auditctl -e 1`).  cordon never turns it on: that is
 * the host's setting, and every process's records would go to the
 * kernel log while it is on.  When it is on and cordon may read it
 * (root), the records are read by kaudit/reader.c, which the plain cold
 * core leaves out: main.c executes cordon-audit for such a run
 * (audit_wanted), before anything of it exists.  Elsewhere the status
 * says why there are no records (audit_open's reasons).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/netlink.h>

#include "kaudit.h"
#include "cordon.h"
#include "landlock_compat.h"

/* The run's: its pages are touched only as far as records are written
 * (zero at the start, never cleared: a process launches one run, so
 * audit_open is called once; a memset would fault in its 27 KiB). */
static struct audit one;

struct audit *audit_nope(struct audit *a, const char *why)
{
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
	a->by = NULL;
	snprintf(a->why, sizeof(a->why), "%s", why);
	return a;
}

/* The kernel's audit_enabled (AUDIT_GET, on a socket of its own: the
 * multicast one must not be bound by a send first), or -1 with errno;
 * *lost: the records the kernel dropped so far (its backlog full). */
int audit_enabled(uint32_t *lost)
{
	struct {
		struct nlmsghdr h;
		struct audit_status s;
	} q = { .h = { .nlmsg_len = sizeof(q), .nlmsg_type = AUDIT_GET,
	    .nlmsg_flags = NLM_F_REQUEST } }, ans;
	ssize_t n = -1;
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);

	if (fd < 0)
		return -1;
	if (send(fd, &q, sizeof(q), 0) == (ssize_t)sizeof(q))
		n = recv(fd, &ans, sizeof(ans), 0);
	close(fd);
	if (n >= (ssize_t)sizeof(struct nlmsghdr) &&
	    ans.h.nlmsg_type == NLMSG_ERROR) {
		struct nlmsgerr *e = NLMSG_DATA(&ans.h);

		errno = e->error < 0 ? -e->error : EPROTO;
		return -1;
	}
	if (n < (ssize_t)(NLMSG_HDRLEN + 2 * sizeof(uint32_t)) ||
	    ans.h.nlmsg_type != AUDIT_GET) {
		errno = EPROTO;
		return -1;
	}
	*lost = n >= (ssize_t)(NLMSG_HDRLEN + 7 * sizeof(uint32_t)) ?
	    ans.s.lost : 0;
	return (int)ans.s.enabled;
}

/* The kernel's answer before the run, asked once (audit_wanted, then
 * audit_open): on (1), off (0), or -1 and why (its errno). */
static int asked, answer, answer_errno;

static int kernel_on(void)
{
	if (!asked) {
		answer = audit_enabled(&one.lost_before);
		answer_errno = errno;
		asked = 1;
	}
	errno = answer_errno;
	return answer;
}

/* 1 when the kernel's audit is on and cordon may ask it: the run's
 * records can be read (kaudit/reader.c: cordon-audit). */
int audit_wanted(void)
{
	return kernel_on() == 1;
}

/* The multicast socket (a->fd) where the kernel's audit is on and
 * answers cordon: audit_join then joins the group (kaudit/reader.c);
 * else a->fd is -1 and a->why says why not. */
struct audit *audit_open(int landlock_abi, int landlock_on)
{
	struct audit *a = &one;
	int on, fd;

	a->fd = -1;
	a->seccomp_nr = -1;
	a->landlock = landlock_on && landlock_abi >= 7;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (fd < 0)
		return audit_nope(a, "no audit in this kernel (a NETLINK_AUDIT "
		    "socket is refused)");
	a->fd = fd;
	if ((on = kernel_on()) < 0)
		return audit_nope(a, errno == EPERM ? "reading the kernel's "
		    "audit records needs root (CAP_AUDIT_CONTROL and "
		    "CAP_AUDIT_READ); cordon has no other way to see "
		    "Landlock's refusals or a kill's call" : "the kernel did "
		    "not answer AUDIT_GET");
	if (on == 0)
		return audit_nope(a, "the kernel's audit is off "
		    "(audit_enabled 0): it writes no record of Landlock's "
		    "refusals or seccomp's kills; cordon does not turn it on "
		    "(a host setting: auditctl -e 1)");
	return a;
}

/* Landlock's refusals come from the watch (llwatch.c), not from the
 * kernel's records (which are then not asked for): the seccomp record
 * of a kill is still read where the audit is on. */
void audit_watched(struct audit *a)
{
	a->landlock = 0;
	a->watch = 1;
	a->by = "cordon's watch of the run's path and port calls, checked "
	    "against the policy's rules (--landlock-watch; foretold, not "
	    "the kernel's record)";
	a->why[0] = '\0';
}

/* landlock_restrict_self's flags: denials after the exec of the
 * interpreter are logged only when cordon reads them. */
unsigned int audit_restrict_flags(const struct audit *a)
{
	return a->fd >= 0 && a->landlock ?
	    CORDON_LL_RESTRICT_SELF_LOG_NEW_EXEC_ON : 0;
}

/* A denial, counted once per access and object: the run's domain's
 * (from a record), or one the Landlock watch foretold (llwatch.c). */
struct audit_denial *audit_denial_add(struct audit *a, const char *access,
    const char *object, int net, long pid, const char *comm)
{
	struct audit_denial *d;
	unsigned int i;

	for (i = 0; i < a->n; i++)
		if (strcmp(a->d[i].access, access) == 0 &&
		    strcmp(a->d[i].object, object) == 0) {
			a->d[i].count++;
			return NULL;
		}
	if (a->n == AUDIT_DENIALS_MAX) {
		a->dropped++;
		return NULL;
	}
	d = &a->d[a->n++];
	memset(d, 0, sizeof(*d));
	snprintf(d->access, sizeof(d->access), "%s", access);
	snprintf(d->object, sizeof(d->object), "%s", object);
	snprintf(d->comm, sizeof(d->comm), "%s", comm);
	d->net = net;
	d->pid = pid;
	d->count = 1;
	return d;
}

