/*
 * addrs.c - the addresses the proxy may connect to for a request: a
 * literal as it is, a --resolve mapping as given, or what DNS says with
 * every address that is not public dropped (common/host.c's one table).
 * Its own file so that proxy.c and around.c (which ties http rules to
 * the addresses of their hosts) both call it and neither calls the
 * other.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "cordon.h"
#include "proxy.h"

/* Private, loopback, link-local, metadata, multicast, reserved (the one
 * table: common/host.c): not for a name found in DNS (rebinding to the
 * host's or the cluster's services), nor for a literal the policy does
 * not mark "private". */
int egress_addr_public(const struct sockaddr_storage *s)
{
	if (s->ss_family == AF_INET)
		return !cpol_addr_special((const uint8_t *)
		    &((const struct sockaddr_in *)s)->sin_addr, 4);
	if (s->ss_family == AF_INET6)
		return !cpol_addr_special(((const struct sockaddr_in6 *)
		    s)->sin6_addr.s6_addr, 16);
	return 0;
}

/* The addresses to try: a literal itself, a --resolve mapping as given,
 * or what DNS says with every non-public address dropped. */
int egress_addresses(const struct egress_conf *c, const struct proxyreq *rq,
    struct egress_shared *sh, struct sockaddr_storage *out,
    enum egress_why *why)
{
	struct sockaddr_storage all[EGRESS_ADDRS_MAX];
	int i, n, k = 0;

	*why = EGRESS_NO_ADDRESS;
	if (rq->literal) {
		memset(&out[0], 0, sizeof(out[0]));
		if (rq->literal == 4 && inet_pton(AF_INET, rq->host,
		    &((struct sockaddr_in *)&out[0])->sin_addr) == 1)
			out[0].ss_family = AF_INET;
		else if (inet_pton(AF_INET6, rq->host,
		    &((struct sockaddr_in6 *)&out[0])->sin6_addr) == 1)
			out[0].ss_family = AF_INET6;
		return out[0].ss_family ? 1 : 0;
	}
	for (i = 0; i < c->nmap; i++)
		if (strcmp(c->map[i].name, rq->host) == 0 && k <
		    EGRESS_ADDRS_MAX)
			out[k++] = c->map[i].addr;
	if (k > 0)
		return k;
	n = dns_resolve(c, sh, rq->host, all, EGRESS_ADDRS_MAX);
	if (n < 0)
		*why = EGRESS_DNS_LIMIT;
	for (i = 0; i < n; i++)
		if (egress_addr_public(&all[i]))
			out[k++] = all[i];
	if (n > 0 && k == 0)
		*why = EGRESS_PRIVATE_ADDRESS;
	return k;
}
