/*
 * egress.c - the named-hosts network of one run, as launch.c sees it:
 * before the clone, a socketpair for the child's listener, the shared
 * page for the proxy's counts and refusals, and the name files read;
 * after the exec, the listener taken and the proxy started; after the
 * run, the proxy ended and its counts copied for the status, and its
 * refusals said on stderr after a run that failed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cordon.h"
#include "egress.h"

/* --resolve NAME:ADDRESS, read with the options (opts.c) whether or not
 * this program holds the proxy. */
int egress_map_parse(const char *arg, struct egress_map *m)
{
	const char *colon = strchr(arg, ':');
	size_t n = colon ? (size_t)(colon - arg) : 0;
	struct sockaddr_in *v4 = (struct sockaddr_in *)&m->addr;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&m->addr;

	memset(m, 0, sizeof(*m));
	if (n == 0 || n > CPOL_MAX_HOSTNAME)
		return -1;
	memcpy(m->name, arg, n);
	if (cpol_host_kind(m->name) != CPOL_HOST_NAME)
		return -1;
	if (inet_pton(AF_INET, colon + 1, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		m->len = sizeof(*v4);
	} else if (inet_pton(AF_INET6, colon + 1, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		m->len = sizeof(*v6);
	} else {
		return -1;
	}
	return 0;
}

void egress_init(struct egress_run *e)
{
	memset(e, 0, sizeof(*e));
	e->sock[0] = e->sock[1] = -1;
	e->pid = -1;
}

int egress_prepare(struct egress_run *e, const struct cpol *p,
    unsigned int procs, const struct egress_map *map, int nmap,
    const struct egress_creds *cr, char *err, size_t errlen)
{
	void *sh;

	/* The credentials cordon cannot honour: refused by the plan. */
	if (!(p->flags & CPOL_F_NET_HOSTS) && !e->observe)
		return 0;
	e->on = 1;
	/* procs: the plan's share (plan.c) */
	if (egress_conf_make(&e->conf, p, map, nmap, procs, e->observe, cr,
	    err, errlen) < 0)
		return -1;
	sh = mmap(NULL, sizeof(*e->sh), PROT_READ | PROT_WRITE, MAP_SHARED |
	    MAP_ANONYMOUS, -1, 0);
	if (sh != MAP_FAILED)
		e->sh = sh;
	if (!e->sh || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    e->sock) < 0) {
		snprintf(err, errlen, "egress proxy set-up: %s",
		    strerror(errno));
		return -1;              /* egress_end undoes it */
	}
	return 0;
}

/* After the child's exec: its listener came before it. */
int egress_go(struct egress_run *e, int null_fd, char *err, size_t errlen)
{
	int lfd;

	if (!e->on)
		return 0;
	lfd = fdpass_recv(e->sock[0], MSG_DONTWAIT);
	if (lfd < 0) {
		snprintf(err, errlen, "the egress proxy's listener did not "
		    "come from the run");
		return -1;
	}
	e->pid = egress_start(lfd, e->conf, e->sh, null_fd);
	close(lfd);
	if (e->pid < 0) {
		snprintf(err, errlen, "starting the egress proxy: %s",
		    strerror(errno));
		return -1;
	}
	return 0;
}

void egress_end(struct egress_run *e, struct egress_shared *out)
{
	if (e->pid > 0) {
		kill(e->pid, SIGKILL);
		while (waitpid(e->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (e->sh) {
		memcpy(out, e->sh, sizeof(*out));
		munmap(e->sh, sizeof(*e->sh));
	}
	if (e->sock[0] >= 0)
		close(e->sock[0]);
	if (e->sock[1] >= 0)
		close(e->sock[1]);
	egress_conf_free(e->conf);
	egress_init(e);
}

/* The summary on cordon's stderr after a run that failed: what the proxy
 * refused, in the status's words (the run chose the host and path). */
void egress_say(const struct report *r)
{
	const struct egress_shared *n = &r->net;
	char dest[sizeof(n->r[0].dest) * 4], what[sizeof(n->r[0].method) * 4 +
	    sizeof(n->r[0].path) * 4 + 4];
	char m[sizeof(n->r[0].method) * 4], p[sizeof(n->r[0].path) * 4];
	uint32_t i, listed = n->refused;

	if (!r->egress)
		return;
	if (listed > EGRESS_REFUSED_MAX)
		listed = EGRESS_REFUSED_MAX;
	for (i = 0; i < listed && i < DENIALS_SAY; i++) {
		what[0] = 0;
		if (n->r[i].ready && n->r[i].method[0])
			snprintf(what, sizeof(what), " (%s %s)",
			    sink_shown(n->r[i].method, m, sizeof(m)),
			    sink_shown(n->r[i].path, p, sizeof(p)));
		sink_say("cordon: network refused %s%s: %s", n->r[i].ready ?
		    sink_shown(n->r[i].dest, dest, sizeof(dest)) : "?", what,
		    egress_why_name(n->r[i].why));
	}
	if (n->refused > i)
		sink_say("cordon: and %u more network refusals (see the "
		    "status report)", n->refused - i);
}
