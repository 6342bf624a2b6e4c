/*
 * around.c - what keeps a tunnel from reaching around a host's http
 * rules (issue 38).  A tunnel is a CONNECT whose TLS the proxy does not
 * end: it relays bytes it never reads.  Rules bind a host's server as
 * well as its name, so a tunnel is refused when
 *   - its name is one with rules (one the proxy does not end here),
 *   - it would reach the address and port of a host with rules as that
 *     host resolves in this run (dns.c's shared answers, --resolve), or
 *   - its first bytes name a host with rules: the TLS ClientHello's
 *     server name (SNI, sni.c), or a plain request's Host header.
 */
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "proxy.h"
#include "httpreq.h"
#include "wall.h"

/* The first bytes the proxy holds back to read a name from: a TLS
 * record (a ClientHello in one record: sni.c) or a request head. */
#define FIRST_MAX (SNI_RECORD_MAX + 5)

/* Is name a host with http rules: any case, a ":port" and one
 * trailing dot (the root's) dropped, as a server would read it? */
static int ruled_name(const struct egress_conf *c, const char *name)
{
	size_t n = strcspn(name, ":");

	if (n > 0 && name[n - 1] == '.')
		n--;
	for (uint32_t i = 0; i < c->pol->nhttp; i++)
		if (c->pol->http[i].nrules > 0 &&
		    strlen(c->pol->http[i].host) == n &&
		    strncasecmp(c->pol->http[i].host, name, n) == 0)
			return 1;
	return 0;
}

int egress_has_rules(const struct egress_conf *c)
{
	for (uint32_t i = 0; !c->observe && i < c->pol->nhttp; i++)
		if (c->pol->http[i].nrules > 0)
			return 1;
	return 0;
}

static int same_addr(const struct sockaddr_storage *a,
    const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return 0;
	if (a->ss_family == AF_INET)
		return memcmp(&((const struct sockaddr_in *)a)->sin_addr,
		    &((const struct sockaddr_in *)b)->sin_addr, 4) == 0;
	return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
	    &((const struct sockaddr_in6 *)b)->sin6_addr, 16) == 0;
}

int egress_around_addr(const struct egress_conf *c,
    const struct proxyreq *rq, struct egress_shared *sh,
    const struct sockaddr_storage *addrs, int n)
{
	struct sockaddr_storage ruled[EGRESS_ADDRS_MAX];
	struct proxyreq r;
	enum egress_why why;
	int k, i, j;

	for (uint32_t h = 0; !c->observe && h < c->pol->nhttp; h++) {
		const struct cpol_http *ht = &c->pol->http[h];

		if (ht->nrules == 0 || ht->port != rq->port)
			continue;
		if (!rq->literal && strcmp(ht->host, rq->host) == 0)
			return 1;
		memset(&r, 0, sizeof(r));
		snprintf(r.host, sizeof(r.host), "%s", ht->host);
		r.port = ht->port;
		k = egress_addresses(c, &r, sh, ruled, &why);
		/* The query budget spent: the host's address is not known,
		 * so none is known safe. */
		if (k == 0 && why == EGRESS_DNS_LIMIT)
			return 1;
		for (i = 0; i < k; i++)
			for (j = 0; j < n; j++)
				if (same_addr(&ruled[i], &addrs[j]))
					return 1;
	}
	return 0;
}

/* The name buf[0..n) says: 1 with name (TLS SNI, a Host header, its
 * port dropped), 0 none yet or none at all (*done set when no more
 * bytes would tell), -1 a malformed ClientHello. */
static int said(const char *buf, size_t n, char *name, size_t namelen,
    int *done)
{
	struct httpreq rq;
	enum sni_result s = sni_parse((const uint8_t *)buf, n, name,
	    namelen);

	*done = s != SNI_MORE;
	if (s == SNI_BAD)
		return -1;
	if (s == SNI_OK)
		return name[0] != '\0';
	if (s == SNI_MORE)
		return 0;
	switch (httpreq_parse(buf, n, "", 0, 0, &rq)) {
	case HTTPREQ_MORE:
		*done = n >= HTTPREQ_HEAD_MAX;
		return 0;
	case HTTPREQ_OK:
		/* as sent: ruled_name drops a port and the root's dot */
		snprintf(name, namelen, "%s", rq.host);
		return name[0] != '\0';
	default:
		return 0;            /* not HTTP: a protocol of its own */
	}
}

int egress_first_flight(int fd, int out, const struct egress_conf *c,
    struct egress_shared *sh, const char *dest, const char *pre,
    size_t npre)
{
	char buf[FIRST_MAX], name[CPOL_MAX_HOSTNAME + 8];
	struct pollfd pf[2] = { { .fd = fd, .events = POLLIN },
	    { .fd = out, .events = POLLIN } };
	uint64_t end = egress_now_ms() + EGRESS_HEAD_MS, t;
	size_t n = npre < sizeof(buf) ? npre : sizeof(buf);
	int done = 0, r = 0;
	ssize_t got;

	memcpy(buf, pre, n);
	r = said(buf, n, name, sizeof(name), &done);
	/* Until the client's first bytes tell, or the server speaks first
	 * (a protocol whose client waits), or the head's time is up. */
	while (!done && n < sizeof(buf) && (t = egress_now_ms()) < end &&
	    poll(pf, 2, (int)(end - t)) > 0 && !pf[1].revents &&
	    (pf[0].revents & POLLIN)) {
		got = read(fd, buf + n, sizeof(buf) - n);
		if (got <= 0)
			break;
		n += (size_t)got;
		r = said(buf, n, name, sizeof(name), &done);
	}
	if (r < 0 || (r > 0 && ruled_name(c, name))) {
		egress_refuse(sh, dest, r < 0 ? EGRESS_TLS_CLIENT :
		    EGRESS_AROUND_RULES, NULL, NULL);
		return -1;
	}
	return n == 0 || write_all(out, buf, n) == 0 ? 0 : -1;
}
