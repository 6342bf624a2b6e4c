/*
 * diffhttp.c - the HTTP part of diff: which named host gets which
 * credential (by name), and which methods and path prefixes reach it.
 * A host without HTTP rules is a tunnel: any request.  So rules added to
 * a host narrow it, a rule added to a list widens it, and a credential
 * added is a widening (the run's requests now carry it).
 */
#include <stdio.h>
#include <string.h>

#include "diff.h"

static const struct cpol_http *find(const struct cpol *p,
    const struct cpol_http *h)
{
	for (uint32_t i = 0; i < p->nhttp; i++)
		if (p->http[i].port == h->port &&
		    strcmp(p->http[i].host, h->host) == 0)
			return &p->http[i];
	return NULL;
}

/* Does a rule of to let through every request r lets through? */
static int rule_covered(const struct cpol_http *to,
    const struct cpol_http_rule *r)
{
	if (!to || to->nrules == 0)
		return 1;
	for (uint32_t i = 0; i < to->nrules; i++)
		if (strcmp(to->rules[i].method, r->method) == 0 &&
		    strncmp(to->rules[i].prefix, r->prefix,
		    strlen(to->rules[i].prefix)) == 0)
			return 1;
	return 0;
}

/* from's rules against to's: each not covered is wider (from is NEW)
 * or narrower; any-request on one side only, said once. */
static int rules_one_way(const struct cpol_http *from,
    const struct cpol_http *to, int dir, const char *s,
    struct diff_list *out)
{
	const char *verb = dir == DIFF_WIDER ? "added" : "removed";

	if ((!from || from->nrules == 0) && to && to->nrules > 0)
		return diff_add(out, dir, "http", s, NULL, "any method and "
		    "path %s (%s)", dir == DIFF_WIDER ? "allowed" :
		    "no longer allowed", dir == DIFF_WIDER ? "rules removed" :
		    "rules added");
	for (uint32_t i = 0; from && i < from->nrules; i++)
		if (!rule_covered(to, &from->rules[i]) && diff_add(out, dir,
		    "http", s, NULL, "%s \"%s\" %s", from->rules[i].method,
		    from->rules[i].prefix, verb) < 0)
			return -1;
	return 0;
}

static int cred(const struct cpol_http *o, const struct cpol_http *n,
    const char *s, struct diff_list *out)
{
	const char *a = o ? o->credential : "", *b = n ? n->credential : "";
	const char *ha = o ? o->header : "", *hb = n ? n->header : "";

	if (!*a && *b)
		return diff_add(out, DIFF_WIDER, "credential", s, NULL,
		    "%s added, as \"%s\"", b, hb);
	if (*a && !*b)
		return diff_add(out, DIFF_NARROWER, "credential", s, NULL,
		    "%s removed", a);
	if (strcmp(a, b) != 0 || strcmp(ha, hb) != 0)
		return diff_add(out, DIFF_CHANGED, "credential", s, NULL,
		    "%s as \"%s\" -> %s as \"%s\"", a, ha, b, hb);
	return 0;
}

static int one_host(const struct cpol_http *o, const struct cpol_http *n,
    struct diff_list *out)
{
	const struct cpol_http *h = n ? n : o;
	char s[CPOL_MAX_HOSTNAME + 16];
	int po = o && (o->flags & CPOL_HTTP_PLAIN);
	int pn = n && (n->flags & CPOL_HTTP_PLAIN);

	snprintf(s, sizeof(s), "%s:%u", h->host, (unsigned int)h->port);
	if (cred(o, n, s, out) < 0 ||
	    rules_one_way(n, o, DIFF_WIDER, s, out) < 0 ||
	    rules_one_way(o, n, DIFF_NARROWER, s, out) < 0)
		return -1;
	if (o && n && po != pn)
		return diff_add(out, DIFF_CHANGED, "http", s, NULL, "%s -> %s",
		    po ? "plain http" : "https", pn ? "plain http" : "https");
	return 0;
}

/* Is h's host:port a host rule of p (reached at all)?  A host one side
 * does not name is the hosts comparer's to report; here only its
 * credential counts. */
static int named(const struct cpol *p, const struct cpol_http *h)
{
	for (uint32_t i = 0; i < p->nhosts; i++)
		if (p->hosts[i].port == h->port &&
		    strcmp(p->hosts[i].host, h->host) == 0)
			return 1;
	return 0;
}

int diff_http(const struct cpol *old, const struct cpol *new,
    struct diff_list *out)
{
	char s[CPOL_MAX_HOSTNAME + 16];

	for (uint32_t i = 0; i < new->nhttp; i++) {
		const struct cpol_http *h = &new->http[i];

		snprintf(s, sizeof(s), "%s:%u", h->host, (unsigned int)h->port);
		if ((named(old, h) ? one_host(find(old, h), h, out) :
		    cred(NULL, h, s, out)) < 0)
			return -1;
	}
	for (uint32_t i = 0; i < old->nhttp; i++) {
		const struct cpol_http *h = &old->http[i];

		snprintf(s, sizeof(s), "%s:%u", h->host, (unsigned int)h->port);
		if (find(new, h))
			continue;
		if ((named(new, h) ? one_host(h, NULL, out) :
		    cred(h, NULL, s, out)) < 0)
			return -1;
	}
	return 0;
}
