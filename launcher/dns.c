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
 * request parser); its id and question must match the query.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "egress.h"

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

int dns_parse(const uint8_t *msg, size_t len, uint16_t id, uint16_t qtype,
    struct sockaddr_storage *out, int max)
{
	struct cur c = { .p = msg, .left = len };
	unsigned int flags, qd, an, i, type, class, rdlen;
	const uint8_t *rd;
	int n = 0;

	if (u16(&c) != id)
		return 0;
	flags = u16(&c);
	qd = u16(&c);
	an = u16(&c);
	take(&c, 4);                         /* authority, additional */
	/* A response, standard query, no error, not truncated. */
	if (c.bad || !(flags & 0x8000) || (flags & 0x7800) ||
	    (flags & 0x000f) || (flags & 0x0200) || qd != 1)
		return 0;
	name_skip(&c);
	if (u16(&c) != qtype || u16(&c) != 1)
		return 0;
	for (i = 0; i < an && !c.bad && n < max; i++) {
		name_skip(&c);
		type = u16(&c);
		class = u16(&c);
		take(&c, 4);                 /* TTL */
		rdlen = u16(&c);
		rd = take(&c, rdlen);
		if (!rd || class != 1 || type != qtype)
			continue;            /* CNAMEs and others: skipped */
		memset(&out[n], 0, sizeof(out[n]));
		if (type == DNS_T_A && rdlen == 4) {
			struct sockaddr_in *s = (struct sockaddr_in *)&out[n];

			s->sin_family = AF_INET;
			memcpy(&s->sin_addr, rd, 4);
			n++;
		} else if (type == DNS_T_AAAA && rdlen == 16) {
			struct sockaddr_in6 *s = (struct sockaddr_in6 *)&out[n];

			s->sin6_family = AF_INET6;
			memcpy(&s->sin6_addr, rd, 16);
			n++;
		}
	}
	return c.bad ? 0 : n;
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

/* Ask one server one question; the answers into out. */
static int ask(const struct sockaddr_storage *srv, const char *name,
    uint16_t qtype, struct sockaddr_storage *out, int max)
{
	uint8_t q[CPOL_MAX_HOSTNAME + 32], a[DNS_MSG_MAX];
	struct pollfd pf = { .events = POLLIN };
	uint16_t id;
	ssize_t r;
	size_t qn;
	int n = 0;

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
		/* Until the deadline: a reply that does not match is
		 * dropped (a spoofer must guess the id and the port). */
		while (n == 0 && poll(&pf, 1, EGRESS_DNS_MS) == 1) {
			r = recv(pf.fd, a, sizeof(a), 0);
			if (r < 0)
				break;
			n = dns_parse(a, (size_t)r, id, qtype, out, max);
			if (n == 0 && r >= 4 && a[0] == q[0] && a[1] == q[1])
				break;               /* an answer: none */
		}
	close(pf.fd);
	return n;
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

int dns_resolve(const struct egress_conf *c, const char *name,
    struct sockaddr_storage *out, int max)
{
	struct sockaddr_storage srv[DNS_SERVERS_MAX];
	int n = hosts_file(c->hosts, name, out, max), ns, i;

	if (n > 0)
		return n;
	ns = servers(c->resolv, srv);
	for (i = 0; i < ns && n == 0; i++) {
		n = ask(&srv[i], name, DNS_T_A, out, max);
		n += ask(&srv[i], name, DNS_T_AAAA, out + n, max - n);
	}
	return n;
}
