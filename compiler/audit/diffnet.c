/*
 * diffnet.c - the network part of diff: the mode (off, named hosts, tcp,
 * unrestricted), the Landlock port rules (NET) and the named hosts
 * (HOSTS).  A host rule is compared by what it reaches (reach.h), not by
 * its text: "a.example.org":443 added under "*.example.org":443 is no
 * widening, and "*.example.org":8443 is one even where :443 was allowed.
 */
#include <string.h>

#include "diff.h"
#include "reach.h"

/* The modes, narrowest first: a later one reaches more. */
static const char *const modes[] = { "off", "named hosts", "tcp",
	"unrestricted" };

static unsigned int net_mode(const struct cpol *p)
{
	if (p->flags & CPOL_F_NET_OFF)
		return 0;
	if ((p->flags & CPOL_F_NET_TCP) && (p->flags & CPOL_F_NET_HOSTS))
		return 1;
	if (p->flags & CPOL_F_NET_TCP)
		return 2;
	return 3;
}

static int has_port(const struct cpol *p, const struct cpol_net *n)
{
	for (uint32_t i = 0; i < p->nnet; i++)
		if (p->net[i].kind == n->kind && p->net[i].port == n->port)
			return 1;
	return 0;
}

/* Named hosts: the connect rule to the proxy's own port reaches the
 * proxy in the run's namespace, no host; the host rules say the rest. */
static int proxy_rule(const struct cpol *p, const struct cpol_net *n)
{
	return (p->flags & CPOL_F_NET_HOSTS) && n->kind == CPOL_NET_CONNECT &&
	    n->port == CPOL_PROXY_PORT;
}

/* The port rules of a that b lacks, each a change of kind ("what"). */
static int ports_only_in(const struct cpol *a, const struct cpol *b,
    int kind, const char *what, struct diff_list *out)
{
	for (uint32_t i = 0; i < a->nnet; i++) {
		const struct cpol_net *n = &a->net[i];
		char port[8];

		if (proxy_rule(a, n) || (has_port(b, n) && !proxy_rule(b, n)))
			continue;
		snprintf(port, sizeof(port), "%u", (unsigned int)n->port);
		if (diff_add(out, kind, "network", port, NULL, "%s to TCP port "
		    "%s %s", n->kind == CPOL_NET_BIND ? "bind" : "connect",
		    port, what) < 0)
			return -1;
	}
	return 0;
}

int diff_network(const struct cpol *old, const struct cpol *new,
    struct diff_list *out)
{
	unsigned int a = net_mode(old), b = net_mode(new);

	if (a != b && diff_add(out, b > a ? DIFF_WIDER : DIFF_NARROWER,
	    "network", "mode", NULL, "%s -> %s", modes[a], modes[b]) < 0)
		return -1;
	if (ports_only_in(new, old, DIFF_WIDER, "added", out) < 0 ||
	    ports_only_in(old, new, DIFF_NARROWER, "removed", out) < 0)
		return -1;
	return 0;
}

static int has_rule(const struct cpol *p, const struct cpol_host *h)
{
	for (uint32_t i = 0; i < p->nhosts; i++)
		if (p->hosts[i].port == h->port &&
		    strcmp(p->hosts[i].host, h->host) == 0)
			return 1;
	return 0;
}

/* A rule to lacks whose names to still reaches (by another rule, or
 * by its mode): a change, not a widening or a narrowing. */
static int covered(struct diff_list *out, const char *s, const char *verb,
    int dir, const struct cpol *to, const struct cpol_host *by)
{
	char o[CPOL_MAX_HOSTNAME + 16];
	const char *when = dir == DIFF_WIDER ? "was" : "is still";

	if (by)
		return diff_add(out, DIFF_CHANGED, "host", s, NULL, "rule %s "
		    "(it %s reached through %s)", verb, when,
		    reach_format(by->host, by->port, o, sizeof(o)));
	return diff_add(out, DIFF_CHANGED, "host", s, NULL, "rule %s (it %s "
	    "reached: network %s)", verb, when, modes[net_mode(to)]);
}

/* Each host rule of from, against what to reaches: wider (dir
 * DIFF_WIDER: from is NEW) or narrower where to reaches less of it. */
static int hosts_one_way(const struct cpol *from, const struct cpol *to,
    int dir, struct diff_list *out)
{
	const char *verb = dir == DIFF_WIDER ? "added" : "removed";

	for (uint32_t i = 0; i < from->nhosts; i++) {
		const struct cpol_host *h = &from->hosts[i], *by;
		enum reach r = reach_host(to, h->host, h->port, &by);
		char s[CPOL_MAX_HOSTNAME + 16], o[CPOL_MAX_HOSTNAME + 16];
		int e = 0;

		reach_format(h->host, h->port, s, sizeof(s));
		if (r == REACH_NONE && (h->flags & CPOL_HOST_PRIVATE))
			e = diff_add(out, dir, "host", s, NULL, "connect %s: "
			    "private, not a public address (%s)", verb,
			    cpol_host_special(h->host));
		else if (r == REACH_NONE)
			e = diff_add(out, dir, "host", s, NULL, "connect %s "
			    "(named host, by cordon's proxy)", verb);
		else if (r == REACH_SOME)
			e = diff_add(out, dir, "host", s, NULL, "connect %s: "
			    "only some names below it %s, through %s",
			    dir == DIFF_WIDER ? "widened" : "narrowed",
			    dir == DIFF_WIDER ? "were reached before" :
			    "are still reached",
			    reach_format(by->host, by->port, o, sizeof(o)));
		else if (!has_rule(to, h))
			e = covered(out, s, verb, dir, to, by);
		if (e < 0)
			return -1;
	}
	return 0;
}

int diff_hosts(const struct cpol *old, const struct cpol *new,
    struct diff_list *out)
{
	if (hosts_one_way(new, old, DIFF_WIDER, out) < 0)
		return -1;
	return hosts_one_way(old, new, DIFF_NARROWER, out);
}

/* The PRIVATE section: a host rule in both whose "private" word came
 * or went.  (A reader takes a special literal only with the word, and
 * the word only on one, so an added private host is an added host,
 * which diff_hosts reports with the word; this is the section's own
 * comparer, so no section goes unread.) */
int diff_private(const struct cpol *old, const struct cpol *new,
    struct diff_list *out)
{
	char s[CPOL_MAX_HOSTNAME + 16];

	for (uint32_t i = 0; i < new->nhosts; i++)
		for (uint32_t j = 0; j < old->nhosts; j++) {
			const struct cpol_host *a = &old->hosts[j],
			    *b = &new->hosts[i];
			unsigned int x = a->flags & CPOL_HOST_PRIVATE,
			    y = b->flags & CPOL_HOST_PRIVATE;

			if (a->port != b->port || strcmp(a->host, b->host) ||
			    x == y)
				continue;
			reach_format(b->host, b->port, s, sizeof(s));
			if (diff_add(out, y ? DIFF_WIDER : DIFF_NARROWER,
			    "host", s, NULL, "private %s", y ? "added" :
			    "removed") < 0)
				return -1;
		}
	return 0;
}
