/*
 * reader.c - the kernel's audit records of the run, read (cordon-audit
 * and every program with a room; the plain cold core, `cordon`, has
 * noaudit.c: main.c executes cordon-audit for a run whose records the
 * kernel would give, launcher/audit.c's audit_wanted).
 *
 * Where the kernel's audit is on and cordon may read the multicast group
 * (CAP_AUDIT_READ: root), audit_join joins it before the clone and the
 * run's records are kept: Landlock's of the run's own domain (the one
 * whose "allocated" record names the run's first process, which made
 * it), seccomp's of the run's first process or, under a PID namespace,
 * of its payload (init's child, whose pid cordon has from the payload's
 * hello: the kernel's translation of its credentials, fdpass.c; the
 * record names the pid as cordon sees it).  The host's other records
 * pass through and are dropped; AUDIT_RECORDS_MAX in all, AUDIT_BATCH
 * at each look.  After the run a process of cordon's own makes one
 * Landlock denial of its own: its record is the end mark, after which
 * every record of the run has come (the kernel queues them in order).
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

#include "auditrec.h"
#include "kaudit.h"
#include "cordon.h"
#include "landlock_compat.h"

/* The longest record the kernel sends (its MAX_AUDIT_MESSAGE_LENGTH). */
#define AUDIT_MSG_MAX 8970

const int audit_built = 1;

/* The group joined on a->fd, audit_open's socket (the kernel's audit is
 * on: it asked); else a->fd is closed and a->why says why not. */
struct audit *audit_join(struct audit *a, int landlock_abi, int landlock_on)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
	    .nl_groups = 1u << (AUDIT_NLGRP_READLOG - 1) };
	int rcv = 1 << 20;

	if (bind(a->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return audit_nope(a, "joining the audit multicast group was "
		    "refused (it needs CAP_AUDIT_READ)");
	setsockopt(a->fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	if (fcntl(a->fd, F_SETFL, O_NONBLOCK) < 0)
		return audit_nope(a, "the audit socket could not be made "
		    "non-blocking");
	a->by = "audit";
	if (!landlock_on)
		snprintf(a->why, sizeof(a->why), "Landlock was not applied");
	else if (!a->landlock)
		snprintf(a->why, sizeof(a->why), "Landlock ABI %d records no "
		    "denials (ABI 7, Linux 6.15, does)", landlock_abi);
	return a;
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
	if (audit_enabled(&lost) >= 0 && lost != a->lost_before)
		a->lost = 1;
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
}
