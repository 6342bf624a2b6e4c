/*
 * dns.c - the proxy's own name lookups: the hosts file, then the name
 * servers of /etc/resolv.conf, asked over UDP for A and AAAA records.
 *
 * Why not getaddrinfo(): cordon is a static binary, and glibc's resolver
 * in a static binary loads NSS modules at run time (a warning at link
 * time says so); a lookup could then run whatever shared library
 * nsswitch.conf names, inside cordon.  The proxy needs only addresses
 * for a handful of names the policy lists, so this asks the host's
 * configured resolver directly: no search domains, no ndots (a policy's
 * name is absolute), both texts read by cordon before the proxy starts.
 * The answer is parsed through one cursor (dns_parse, fuzzed with the
 * request parser); its id and its question (the name, any case, the type
 * and class) must be the query's, or it is not the answer and the proxy
 * waits on for the real one until the query's deadline.
 *
 * Bounds: a connection resolves one name, at most two queries (A, AAAA)
 * to each of resolv.conf's first DNS_SERVERS_MAX servers; the run sends
 * at most EGRESS_DNS_QUERIES in all (a counter in the shared page), and
 * answers with addresses are kept for their TTL in a table shared by the
 * connection processes (struct egress_dns), so a name asked again costs
 * no query.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxy.h"

#define DNS_MSG_MAX 1232        /* EDNS's safe UDP size; we send no OPT */
#define DNS_SERVERS_MAX 3       /* resolv.conf's MAXNS */
#define DNS_T_A 1
#define DNS_T_AAAA 28

struct cur {
	const uint8_t *p;
	size_t left;
	int bad;
};

static const uint8_t *take(struct cur *c, size_t n)
{
	const uint8_t *p;

	if (c->bad || n > c->left) {
		c->bad = 1;
		return NULL;
	}
	p = c->p;
	c->p += n;
	c->left -= n;
	return p;
}

static unsigned int u16(struct cur *c)
{
	const uint8_t *p = take(c, 2);

	return p ? (unsigned int)p[0] << 8 | p[1] : 0;
}

/* Skip a (possibly compressed) name: labels, ending in 0 or a pointer. */
static void name_skip(struct cur *c)
{
	const uint8_t *p;
	int n;

	for (n = 0; n < 128 && !c->bad; n++) {
		p = take(c, 1);
		if (!p || p[0] == 0)
			return;
		if ((p[0] & 0xc0) == 0xc0) {
			take(c, 1);
			return;
		}
		if (p[0] & 0xc0)
			c->bad = 1;
		else
			take(c, p[0]);
	}
	c->bad = 1;
}

static int fold(int ch)
{
	return ch >= 'A' && ch <= 'Z' ? ch + 'a' - 'A' : ch;
}

/* Is the next name in the message (uncompressed: the question's comes
 * first) exactly name, labels compared without regard to case? */
static int name_is(struct cur *c, const char *name)
{
	const uint8_t *p;
	size_t l, i;
	int same = 1;

	for (;;) {
		p = take(c, 1);
		if (!p)
			return 0;
		if (p[0] == 0)
			return same && *name == '\0';
		if (p[0] & 0xc0) {
			c->bad = 1;
			return 0;
		}
		l = p[0];
		p = take(c, l);
		if (!p)
			return 0;
		for (i = 0; same && i < l; i++)
			same = name[i] && name[i] != '.' &&
			    fold(p[i]) == fold((unsigned char)name[i]);
		if (same && name[l] != '.' && name[l] != '\0')
			same = 0;
		if (same)
			name += l + (name[l] == '.');
	}
}

/* The answer's records of type qtype into out; the least TTL into *ttl. */
static int records(struct cur *c, unsigned int an, uint16_t qtype,
    struct sockaddr_storage *out, int max, uint32_t *ttl)
{
	unsigned int i, type, class, rdlen;
	const uint8_t *rd, *t;
	uint32_t life;
	int n = 0;

	for (i = 0; i < an && !c->bad && n < max; i++) {
		name_skip(c);
		type = u16(c);
		class = u16(c);
		t = take(c, 4);
		rdlen = u16(c);
		rd = take(c, rdlen);
		if (!rd || class != 1 || type != qtype)
			continue;            /* CNAMEs and others: skipped */
		memset(&out[n], 0, sizeof(out[n]));
		if (type == DNS_T_A && rdlen == 4) {
			struct sockaddr_in *s = (struct sockaddr_in *)&out[n];

			s->sin_family = AF_INET;
			memcpy(&s->sin_addr, rd, 4);
		} else if (type == DNS_T_AAAA && rdlen == 16) {
			struct sockaddr_in6 *s = (struct sockaddr_in6 *)&out[n];

			s->sin6_family = AF_INET6;
			memcpy(&s->sin6_addr, rd, 16);
		} else {
			continue;
		}
		n++;
		/* RFC 2181: a TTL with the top bit set is 0. */
		life = (uint32_t)t[0] << 24 | (uint32_t)t[1] << 16 |
		    (uint32_t)t[2] << 8 | t[3];
		if (life & 0x80000000u)
			life = 0;
		if (life < *ttl)
			*ttl = life;
	}
	return c->bad ? 0 : n;
}

int dns_parse(const uint8_t *msg, size_t len, uint16_t id, const char *name,
    uint16_t qtype, struct sockaddr_storage *out, int max, uint32_t *ttl)
{
	struct cur c = { .p = msg, .left = len };
	unsigned int flags, qd, an;

	*ttl = UINT32_MAX;
	if (u16(&c) != id)
		return -1;
	flags = u16(&c);
	qd = u16(&c);
	an = u16(&c);
	take(&c, 4);                         /* authority, additional */
	/* A response to this very question, or not the answer at all. */
	if (c.bad || !(flags & 0x8000) || qd != 1 || !name_is(&c, name) ||
	    u16(&c) != qtype || u16(&c) != 1 || c.bad)
		return -1;
	/* A standard query, no error, not truncated; else no address. */
	if ((flags & 0x7800) || (flags & 0x000f) || (flags & 0x0200))
		return 0;
	return records(&c, an, qtype, out, max, ttl);
}

/* A query for name (already checked: labels of [a-z0-9-]). */
static size_t query(uint8_t *q, uint16_t id, const char *name,
    uint16_t qtype)
{
	size_t n = 12, l;
	const char *dot;

	memset(q, 0, 12);
	q[0] = (uint8_t)(id >> 8);
	q[1] = (uint8_t)id;
	q[2] = 0x01;                         /* recursion desired */
	q[5] = 1;                            /* one question */
	for (; *name; name = *dot ? dot + 1 : dot) {
		dot = strchr(name, '.');
		if (!dot)
			dot = name + strlen(name);
		l = (size_t)(dot - name);
		q[n++] = (uint8_t)l;
		memcpy(q + n, name, l);
		n += l;
	}
	q[n++] = 0;
	q[n++] = (uint8_t)(qtype >> 8);
	q[n++] = (uint8_t)qtype;
	q[n++] = 0;
	q[n++] = 1;                          /* class IN */
	return n;
}

/* Ask one server one question; the answers into out, their least TTL
 * into *ttl.  Until the query's deadline a reply that is not the answer
 * (dns_parse: -1) is dropped: a spoofer must guess the id and the port,
 * and may not hold the wait open by sending. */
static int ask(const struct sockaddr_storage *srv, const char *name,
    uint16_t qtype, struct sockaddr_storage *out, int max, uint32_t *ttl)
{
	uint8_t q[CPOL_MAX_HOSTNAME + 32], a[DNS_MSG_MAX];
	struct pollfd pf = { .events = POLLIN };
	uint64_t end = egress_now_ms() + EGRESS_DNS_MS, t;
	uint16_t id;
	ssize_t r;
	size_t qn;
	int n = -1;

	if (getrandom(&id, sizeof(id), 0) != (ssize_t)sizeof(id))
		return 0;
	qn = query(q, id, name, qtype);
	pf.fd = socket(srv->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (pf.fd < 0)
		return 0;
	if (connect(pf.fd, (const struct sockaddr *)srv, srv->ss_family ==
	    AF_INET ? sizeof(struct sockaddr_in) :
	    sizeof(struct sockaddr_in6)) == 0 &&
	    send(pf.fd, q, qn, 0) == (ssize_t)qn)
		while (n < 0 && (t = egress_now_ms()) < end &&
		    poll(&pf, 1, (int)(end - t)) == 1) {
			r = recv(pf.fd, a, sizeof(a), 0);
			if (r < 0)
				break;
			n = dns_parse(a, (size_t)r, id, name, qtype, out, max,
			    ttl);
		}
	close(pf.fd);
	return n < 0 ? 0 : n;
}

/* The next whitespace-separated word of a line, into w. */
static const char *word(const char *p, char *w, size_t wlen)
{
	size_t n = 0;

	p += strspn(p, " \t");
	while (*p && !strchr(" \t\n#", *p)) {
		if (n + 1 < wlen)
			w[n++] = *p;
		p++;
	}
	w[n] = '\0';
	return p;
}

static int addr_parse(const char *s, struct sockaddr_storage *a)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)a;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)a;

	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		return 0;
	}
	return -1;
}

/* Lines "ADDR NAME..." of the hosts file that name name. */
static int hosts_file(const char *text, const char *name,
    struct sockaddr_storage *out, int max)
{
	char addr[64], w[CPOL_MAX_HOSTNAME + 2];
	const char *p, *line;
	int n = 0, hit;

	for (line = text; *line && n < max; line = p + (*p == '\n')) {
		p = word(line, addr, sizeof(addr));
		for (hit = 0; *p && *p != '\n' && *p != '#';) {
			p = word(p, w, sizeof(w));
			hit |= strcasecmp(w, name) == 0;
		}
		if (hit && addr_parse(addr, &out[n]) == 0)
			n++;
		p += strcspn(p, "\n");
	}
	return n;
}

static int servers(const char *text, struct sockaddr_storage *srv)
{
	char w[64], a[64];
	const char *p, *line;
	int n = 0;

	for (line = text; *line && n < DNS_SERVERS_MAX; line = p + (*p ==
	    '\n')) {
		p = word(line, w, sizeof(w));
		if (strcmp(w, "nameserver") == 0) {
			p = word(p, a, sizeof(a));
			if (addr_parse(a, &srv[n]) == 0) {
				((struct sockaddr_in *)&srv[n])->sin_port =
				    htons(53);   /* same offset in both */
				n++;
			}
		}
		p += strcspn(p, "\n");
	}
	if (n == 0) {                        /* resolv.conf's default */
		addr_parse("127.0.0.1", &srv[0]);
		((struct sockaddr_in *)&srv[0])->sin_port = htons(53);
		n = 1;
	}
	return n;
}

/* A query of the run's EGRESS_DNS_QUERIES, or 0 when they are spent. */
static int budget(struct egress_shared *sh)
{
	uint32_t q = __atomic_load_n(&sh->dns_queries, __ATOMIC_RELAXED);

	do {
		if (q >= EGRESS_DNS_QUERIES)
			return 0;
	} while (!__atomic_compare_exchange_n(&sh->dns_queries, &q, q + 1, 0,
	    __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return 1;
}

/* A name's addresses as a live entry of the table keeps them. */
static int cache_get(const struct egress_dns *d, const char *name,
    struct sockaddr_storage *out, int max)
{
	uint32_t i, used = __atomic_load_n(&d->used, __ATOMIC_ACQUIRE);
	uint64_t now = egress_now_ms();
	int n;

	for (i = 0; i < used && i < EGRESS_DNS_CACHE; i++) {
		const struct egress_dns_entry *e = &d->e[i];

		if (!__atomic_load_n(&e->ready, __ATOMIC_ACQUIRE) ||
		    e->expires_ms <= now || strcmp(e->name, name) != 0)
			continue;
		n = e->n < max ? e->n : max;
		memcpy(out, e->addr, (size_t)n * sizeof(out[0]));
		return n;
	}
	return 0;
}

/* Keep an answer for ttl seconds in a slot of its own (a slot is written
 * once: a full table keeps nothing more). */
static void cache_put(struct egress_dns *d, const char *name,
    const struct sockaddr_storage *addr, int n, uint32_t ttl)
{
	uint32_t i;
	struct egress_dns_entry *e;

	if (ttl == 0 || n <= 0 || __atomic_load_n(&d->used,
	    __ATOMIC_RELAXED) >= EGRESS_DNS_CACHE)
		return;
	i = __atomic_fetch_add(&d->used, 1, __ATOMIC_ACQ_REL);
	if (i >= EGRESS_DNS_CACHE)
		return;
	e = &d->e[i];
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->n = (uint8_t)(n < EGRESS_ADDRS_MAX ? n : EGRESS_ADDRS_MAX);
	memcpy(e->addr, addr, (size_t)e->n * sizeof(addr[0]));
	e->expires_ms = egress_now_ms() + (uint64_t)ttl * 1000;
	__atomic_store_n(&e->ready, 1, __ATOMIC_RELEASE);
}

int dns_resolve(const struct egress_conf *c, struct egress_shared *sh,
    const char *name, struct sockaddr_storage *out, int max)
{
	static const uint16_t types[] = { DNS_T_A, DNS_T_AAAA };
	struct sockaddr_storage srv[DNS_SERVERS_MAX];
	uint32_t ttl, least = UINT32_MAX;
	int n = hosts_file(c->hosts, name, out, max), ns, i, t, spent = 0;

	if (n > 0)
		return n;
	if (c->dns && (n = cache_get(c->dns, name, out, max)) > 0)
		return n;
	ns = servers(c->resolv, srv);
	for (i = 0; i < ns && n == 0 && !spent; i++)
		for (t = 0; t < 2 && !spent; t++) {
			if (!budget(sh)) {
				spent = 1;
				break;
			}
			ttl = UINT32_MAX;
			n += ask(&srv[i], name, types[t], out + n, max - n,
			    &ttl);
			if (ttl < least)
				least = ttl;
		}
	if (n > 0 && c->dns)
		cache_put(c->dns, name, out, n, least);
	return n == 0 && spent ? -1 : n;
}
