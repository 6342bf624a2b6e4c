/* reach.c - the hosts a policy's network reaches (see reach.h). */
#include <stdio.h>
#include <string.h>

#include "reach.h"

static int wild(const char *h)
{
	return strncmp(h, "*.", 2) == 0;
}

/* What rule lets through of host: every name it stands for, some, none. */
static enum reach rule_reach(const char *rule, const char *host)
{
	if (!wild(host))
		return cpol_host_match(rule, host) ? REACH_ALL : REACH_NONE;
	/* host is "*.d": rule "*.d", or "*.e" with d below e, takes all */
	if (strcmp(rule, host) == 0 ||
	    (wild(rule) && cpol_host_match(rule, host + 2)))
		return REACH_ALL;
	/* an exact name below d, or "*.e" with e below d: some */
	if (cpol_host_match(host, wild(rule) ? rule + 2 : rule))
		return REACH_SOME;
	return REACH_NONE;
}

static int connect_port(const struct cpol *p, unsigned int port)
{
	for (uint32_t i = 0; i < p->nnet; i++)
		if (p->net[i].kind == CPOL_NET_CONNECT && p->net[i].port == port)
			return 1;
	return 0;
}

enum reach reach_host(const struct cpol *p, const char *host,
    unsigned int port, const struct cpol_host **rule)
{
	enum reach best = REACH_NONE;

	if (rule)
		*rule = NULL;
	if (p->flags & CPOL_F_NET_OFF)
		return REACH_NONE;
	if (!(p->flags & CPOL_F_NET_TCP))
		return REACH_ALL;
	if (!(p->flags & CPOL_F_NET_HOSTS))
		return connect_port(p, port) ? REACH_ALL : REACH_NONE;
	for (uint32_t i = 0; i < p->nhosts && best != REACH_ALL; i++) {
		enum reach r;

		if (p->hosts[i].port != port)
			continue;
		r = rule_reach(p->hosts[i].host, host);
		if (r > best) {
			best = r;
			if (rule)
				*rule = &p->hosts[i];
		}
	}
	return best;
}

char *reach_format(const char *host, unsigned int port, char *buf,
    size_t len)
{
	int v6 = strchr(host, ':') != NULL;

	snprintf(buf, len, "%s%s%s:%u", v6 ? "[" : "", host, v6 ? "]" : "",
	    port);
	return buf;
}
