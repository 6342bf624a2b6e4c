/*
 * audit.c - what Landlock refused the run, and which call the seccomp
 * filter killed it at, from the kernel's audit records.
 *
 * The kernel writes a record for each Landlock denial (ABI 7+: Linux
 * 6.15) and each seccomp kill, but only while its audit is on
 * (audit_enabled, `auditctl -e 1`).  cordon never turns it on: that is
 * the host's setting, and every process's records would go to the
 * kernel log while it is on.  When it is on and cordon may read the
 * multicast group (CAP_AUDIT_READ: root), cordon joins the group before
 * the clone and keeps only the run's records: Landlock's of the run's
 * own domain (the one whose "allocated" record names the run's first
 * process, which made it), seccomp's of the run's first process or,
 * under a PID namespace, of its payload (init's child, whose pid cordon
 * has from the payload's hello: the kernel's translation of its
 * credentials, fdpass.c; the record names the pid as cordon sees it).  The
 * host's other records pass through and are dropped; AUDIT_RECORDS_MAX in
 * all, AUDIT_BATCH at each look.  After the run a process of cordon's
 * own makes one Landlock denial of its own: its record is the end mark,
 * after which every record of the run has come (the kernel queues them
 * in order).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>

#include "kaudit.h"
#include "cordon.h"
#include "landlock_compat.h"

/* The longest record the kernel sends (its MAX_AUDIT_MESSAGE_LENGTH). */
#define AUDIT_MSG_MAX 8970

/* The run's: its pages are touched only as far as records are written
 * (zero at the start, never cleared: a process launches one run, so
 * audit_open is called once; a memset would fault in its 27 KiB). */
static struct audit one;

static struct audit *nope(struct audit *a, const char *why)
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
static int enabled(uint32_t *lost)
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

/* Join the audit group if the kernel and cordon's rights allow it; else
 * a->why says why not. */
struct audit *audit_open(int landlock_abi, int landlock_on)
{
	struct audit *a = &one;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
	    .nl_groups = 1u << (AUDIT_NLGRP_READLOG - 1) };
	int on, fd, rcv = 1 << 20;

	a->fd = -1;
	a->seccomp_nr = -1;
	a->landlock = landlock_on && landlock_abi >= 7;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (fd < 0)
		return nope(a, "no audit in this kernel (a NETLINK_AUDIT "
		    "socket is refused)");
	a->fd = fd;
	if ((on = enabled(&a->lost_before)) < 0)
		return nope(a, errno == EPERM ? "reading the kernel's audit "
		    "records needs root (CAP_AUDIT_CONTROL and "
		    "CAP_AUDIT_READ); cordon has no other way to see "
		    "Landlock's refusals or a kill's call" : "the kernel did not answer AUDIT_GET");
	if (on == 0)
		return nope(a, "the kernel's audit is off (audit_enabled 0): "
		    "it writes no record of Landlock's refusals or seccomp's "
		    "kills; cordon does not turn it on (a host setting: "
		    "auditctl -e 1)");
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return nope(a, "joining the audit multicast group was "
		    "refused (it needs CAP_AUDIT_READ)");
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0)
		return nope(a, "the audit socket could not be made "
		    "non-blocking");
	a->by = "audit";
	if (!landlock_on)
		snprintf(a->why, sizeof(a->why), "Landlock was not applied");
	else if (!a->landlock)
		snprintf(a->why, sizeof(a->why), "Landlock ABI %d records no "
		    "denials (ABI 7, Linux 6.15, does)", landlock_abi);
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

static struct audit_event *event(struct audit *a, uint64_t serial)
{
	unsigned int i, old = 0;

	for (i = 0; i < AUDIT_OPEN; i++) {
		if (a->ev[i].serial == serial)
			return &a->ev[i];
		if (a->ev[i].serial < a->ev[old].serial)
			old = i;
	}
	a->ev[old].serial = serial;
	a->ev[old].waiting = 0;
	return &a->ev[old];
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

static void add(struct audit *a, const struct auditrec *r)
{
	struct audit_denial *d = audit_denial_add(a, r->access, r->object,
	    r->net, -1, "");

	if (d)
		d->serial = r->serial;
}

/* Landlock's records of an event: the access comes before the domain's
 * "allocated" record of the same event, so an access of a domain not
 * yet known waits there (one per event: the last one). */
static void landlock_rec(struct audit *a, const struct auditrec *r)
{
	struct audit_event *ev = event(a, r->serial);

	if (r->type == AUDITREC_LL_DOMAIN) {
		if (r->allocated && r->pid == a->pid && a->domain == 0) {
			a->domain = r->domain;
			if (ev->waiting && ev->wait.domain == r->domain)
				add(a, &ev->wait);
		}
		ev->waiting = 0;
		return;
	}
	if (a->domain && r->domain == a->domain) {
		add(a, r);
	} else if (a->domain == 0) {
		ev->wait = *r;
		ev->waiting = 1;
	}
}

/* The SYSCALL record of an event names the process of its denials. */
static void syscall_rec(struct audit *a, const struct auditrec *r)
{
	unsigned int i;

	for (i = 0; i < a->n; i++)
		if (a->d[i].serial == r->serial && a->d[i].pid < 0) {
			a->d[i].pid = r->pid;
			memcpy(a->d[i].comm, r->comm, sizeof(a->d[i].comm));
		}
}

static void seccomp_rec(struct audit *a, const struct auditrec *r);

/* One record: the end mark, the run's Landlock records, the SYSCALL
 * record of an event, or the run's first process killed by the filter
 * (KILL_PROCESS: a thread's kill does not say what ended the process). */
static void record(struct audit *a, int type, const char *text, size_t n)
{
	struct auditrec r;

	if (auditrec_parse(type, text, n, &r) < 0)
		return;
	if (type == AUDITREC_LL_DOMAIN && r.allocated && a->probe > 0 &&
	    r.pid == a->probe)
		a->probe_seen = 1;
	else if ((type == AUDITREC_LL_ACCESS || type == AUDITREC_LL_DOMAIN) &&
	    a->landlock && a->pid > 0)
		landlock_rec(a, &r);
	else if (type == AUDITREC_SYSCALL)
		syscall_rec(a, &r);
	else if (type == AUDITREC_SECCOMP && r.sig == SIGSYS &&
	    a->seccomp_nr < 0 && r.pid > 0 &&
	    (r.code & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_KILL_PROCESS)
		seccomp_rec(a, &r);
}

/* A kill: the run's first process's or its payload's; another pid's
 * kept a while (its record may come before the payload's hello). */
static void seccomp_rec(struct audit *a, const struct auditrec *r)
{
	if (r->pid == a->pid || (a->payload > 0 && r->pid == a->payload)) {
		a->seccomp_nr = r->syscall;
		return;
	}
	a->kills[a->nkills % AUDIT_OPEN].pid = r->pid;
	a->kills[a->nkills++ % AUDIT_OPEN].nr = r->syscall;
}

void audit_payload(struct audit *a)
{
	unsigned int i;

	for (i = 0; a && a->payload > 0 && i < a->nkills && i < AUDIT_OPEN;
	    i++)
		if (a->kills[i].pid == a->payload && a->seccomp_nr < 0)
			a->seccomp_nr = a->kills[i].nr;
}

/* Up to AUDIT_BATCH records waiting on the socket. */
void audit_read(struct audit *a)
{
	static char buf[AUDIT_MSG_MAX + NLMSG_HDRLEN + 16];
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	unsigned int i;
	ssize_t n;

	for (i = 0; a->fd >= 0 && i < AUDIT_BATCH; i++) {
		n = recv(a->fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
		if (n < 0 && errno == ENOBUFS) {
			a->lost = 1;
			continue;
		}
		if (n < (ssize_t)NLMSG_HDRLEN)
			return;
		if (++a->records > AUDIT_RECORDS_MAX) {
			close(a->fd);
			a->fd = -1;
			return;
		}
		if (h->nlmsg_len > (uint32_t)n || h->nlmsg_len < NLMSG_HDRLEN)
			continue;
		record(a, h->nlmsg_type, (char *)NLMSG_DATA(h),
		    h->nlmsg_len - NLMSG_HDRLEN);
	}
}

/* The end mark: a child of cordon's makes one Landlock denial. */
static pid_t probe(void)
{
	struct cordon_ll_ruleset_attr at = {
		.handled_access_fs = CORDON_LL_FS_READ_DIR,
	};
	pid_t pid = fork();
	int rs;

	if (pid != 0)
		return pid;
	rs = (int)syscall(__NR_landlock_create_ruleset, &at,
	    sizeof(at.handled_access_fs), 0);
	if (rs >= 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
	    syscall(__NR_landlock_restrict_self, rs, 0) == 0)
		close(open("/", O_RDONLY | O_DIRECTORY));
	_exit(0);
}

/* After the run: read up to the end mark (AUDIT_DRAIN_MS at most).
 * Without Landlock's records there is no end mark: cordon then waits
 * only for a kill's record (sigsys: the run died of SIGSYS). */
void audit_finish(struct audit *a, int sigsys)
{
	uint64_t until = clock_now_ms() + AUDIT_DRAIN_MS, now;
	struct pollfd pf;
	uint32_t lost;
	int st;

	if (!a->by)
		return;
	if (a->fd >= 0 && a->landlock)
		a->probe = probe();
	while (a->probe > 0 && waitpid(a->probe, &st, 0) < 0 &&
	    errno == EINTR)
		;
	while (a->fd >= 0 && (a->landlock ? !a->probe_seen :
	    sigsys && a->seccomp_nr < 0) &&
	    (now = clock_now_ms()) < until) {
		pf.fd = a->fd;
		pf.events = POLLIN;
		if (poll(&pf, 1, (int)(until - now)) < 0 && errno != EINTR)
			break;
		audit_read(a);
	}
	a->incomplete = (a->landlock && !a->probe_seen) ||
	    a->records > AUDIT_RECORDS_MAX;
	if (enabled(&lost) >= 0 && lost != a->lost_before)
		a->lost = 1;
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
}
