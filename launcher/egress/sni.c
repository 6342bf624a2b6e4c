/*
 * sni.c - the server name a TLS ClientHello asks for (RFC 8446 4.1.2,
 * RFC 6066 3), read through one cursor from the first bytes a tunnel
 * carries (around.c).  No system call, no allocation; fuzzed
 * (tests/fuzz/fuzz_proxyreq.c) and unit-tested (tests/unit/test_host.c).
 */
#include <string.h>

#include "proxy.h"

struct cur {
	const uint8_t *p;
	size_t left;
	int bad;
};

static const uint8_t *take(struct cur *c, size_t n)
{
	const uint8_t *p = c->p;

	if (c->bad || n > c->left) {
		c->bad = 1;
		return NULL;
	}
	c->p += n;
	c->left -= n;
	return p;
}

static size_t num(struct cur *c, size_t bytes)
{
	const uint8_t *p = take(c, bytes);
	size_t v = 0;

	for (size_t i = 0; p && i < bytes; i++)
		v = v << 8 | p[i];
	return v;
}

/* The server_name extension's host_name into name. */
static int sni_ext(struct cur *e, char *name, size_t namelen)
{
	struct cur list;
	size_t n = num(e, 2), l;

	list.p = take(e, n);
	list.left = n;
	list.bad = e->bad;
	while (!list.bad && list.left > 0) {
		unsigned int type = (unsigned int)num(&list, 1);
		const uint8_t *h;

		l = num(&list, 2);
		h = take(&list, l);
		if (h && type == 0) {
			if (l == 0 || l >= namelen || memchr(h, 0, l))
				return SNI_BAD;
			memcpy(name, h, l);
			name[l] = '\0';
			return SNI_OK;
		}
	}
	return list.bad ? SNI_BAD : SNI_OK;
}

enum sni_result sni_parse(const uint8_t *b, size_t n, char *name,
    size_t namelen)
{
	struct cur c = { .p = b, .left = n, .bad = 0 }, h, e;
	size_t rec, hs, l;

	name[0] = '\0';
	if (n == 0)
		return SNI_MORE;
	if (b[0] != 0x16)
		return SNI_NONE;
	if (n < 5)
		return SNI_MORE;
	take(&c, 3);
	rec = num(&c, 2);
	if (rec > SNI_RECORD_MAX)
		return SNI_BAD;
	if (n < 5 + rec)
		return SNI_MORE;
	h.p = take(&c, rec);
	h.left = rec;
	h.bad = 0;
	/* A ClientHello, whole in this record (no split hello). */
	if (num(&h, 1) != 1 || (hs = num(&h, 3)) > h.left || h.bad)
		return SNI_BAD;
	h.left = hs;
	take(&h, 2 + 32);                    /* version, random */
	take(&h, num(&h, 1));                /* session id */
	take(&h, num(&h, 2));                /* cipher suites */
	take(&h, num(&h, 1));                /* compression */
	if (h.left == 0 && !h.bad)
		return SNI_OK;               /* no extensions: no name */
	l = num(&h, 2);
	e.p = take(&h, l);
	e.left = l;
	e.bad = h.bad;
	while (!e.bad && e.left > 0) {
		size_t type = num(&e, 2), el = num(&e, 2);
		struct cur x;

		/* one statement each: an initializer list's order is not
		 * the reading order */
		x.p = take(&e, el);
		x.left = el;
		x.bad = e.bad;
		if (!x.bad && type == 0)
			return (enum sni_result)sni_ext(&x, name, namelen);
	}
	return e.bad ? SNI_BAD : SNI_OK;
}

