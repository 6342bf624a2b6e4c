/*
 * checkhttp.c - the credential and http statements: which named host
 * gets which credential's name and header, which methods and path
 * prefixes reach it (the HTTP section, common/cpol.h).  The merge rule's
 * key is "host:port", for each statement kind apart; the host must be
 * a name that network connect lists.  No system calls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkctx.h"

#define PLAIN_PORT 80   /* http:// without "plain": the scheme's port */

/* "host":port of v, checked: 0 with *host (heap) and *port, or -1. */
static int dest(struct check_ctx *c, const struct cpol *out,
    const struct ast_val *v, char **host, uint16_t *port)
{
	uint64_t n;
	uint32_t i;
	int neg;

	*host = NULL;
	if (!v->port) {
		diag_error(c->d, &v->loc, "write a named host and its port: "
		    "\"host\":443");
		return -1;
	}
	if (value_num(c, v->port, &n, &neg) < 0 || value_str(c, v, host) < 0)
		goto bad;
	if (neg || n < 1 || n > 65535) {
		diag_error(c->d, &v->port->loc, "port must be 1 to 65535");
		goto bad;
	}
	*port = (uint16_t)n;
	if (check_host(c, &v->loc, *host) < 0)
		goto bad;
	if (cpol_host_kind(*host) != CPOL_HOST_NAME) {
		diag_error(c->d, &v->loc, "\"%s\": credentials and http "
		    "rules need one host name (the proxy makes a certificate "
		    "for it), not a wildcard or an address", *host);
		goto bad;
	}
	for (i = 0; i < out->nhosts; i++)
		if (out->hosts[i].port == *port &&
		    strcmp(out->hosts[i].host, *host) == 0)
			return 0;
	if (!c->partial)
		diag_error(c->d, &v->loc, "\"%s\":%u is not a named host: add "
		    "it to network connect", *host, *port);
	goto bad;
bad:
	free(*host);
	*host = NULL;
	return -1;
}

/* The entry for host:port, made (sorted later) when new. */
static struct cpol_http *entry(struct check_ctx *c, struct cpol *out,
    char *host, uint16_t port)
{
	uint32_t i;

	for (i = 0; i < out->nhttp; i++)
		if (out->http[i].port == port &&
		    strcmp(out->http[i].host, host) == 0) {
			free(host);
			return &out->http[i];
		}
	if (!out->http && !(out->http = check_mem(c, calloc(CPOL_MAX_HTTP,
	    sizeof(*out->http))))) {
		free(host);
		return NULL;
	}
	/* host rules are at most CPOL_MAX_HOSTS == CPOL_MAX_HTTP */
	out->http[out->nhttp] = (struct cpol_http){ .host = host,
	    .port = port, .flags = port == PLAIN_PORT ? CPOL_HTTP_PLAIN : 0 };
	return &out->http[out->nhttp++];
}

static void credential(struct check_ctx *c, struct cpol *out,
    const struct mention *m)
{
	const struct ast_stmt *s = m->s;
	struct cpol_http *h;
	char *host, *hdr = NULL;
	uint16_t port;

	if (!cpol_env_name_ok(s->name)) {
		diag_error(c->d, &s->name_loc, "\"%s\" is not a credential "
		    "name: letters, digits and _, as an environment "
		    "variable's", s->name);
		return;
	}
	for (uint32_t i = 0; i < out->nenv; i++)
		if (strcmp(out->env[i].name, s->name) == 0) {
			diag_error(c->d, &s->name_loc, "credential %s is also "
			    "in the run's environment (env %s): the run would "
			    "hold the value; drop it from env", s->name,
			    out->env[i].kind == CPOL_ENV_KEEP ? "keep" : "set");
			return;
		}
	if (value_str(c, s->aux, &hdr) < 0)
		return;
	if (!cpol_http_header_ok(hdr)) {
		diag_error(c->d, &s->aux->loc, "\"%s\" is not a header "
		    "template: \"Field-Name: text\" with {} once where the "
		    "value goes, printable ASCII, at most %d bytes", hdr,
		    CPOL_MAX_HTTP_HEADER);
		free(hdr);
		return;
	}
	if (dest(c, out, m->v, &host, &port) < 0 ||
	    !(h = entry(c, out, host, port))) {
		free(hdr);
		return;
	}
	h->credential = check_mem(c, strdup(s->name));
	h->header = hdr;
}

static int by_rule(const void *a, const void *b)
{
	const struct cpol_http_rule *x = a, *y = b;
	int d = strcmp(x->method, y->method);

	return d ? d : strcmp(x->prefix, y->prefix);
}

/* One "METHOD "prefix"" of an http statement into h. */
static void rule(struct check_ctx *c, struct cpol_http *h,
    const struct ast_item *it)
{
	char *prefix = NULL;
	uint32_t i;

	if (!cpol_http_method_ok(it->name)) {
		diag_error(c->d, &it->loc, "\"%s\" is not an HTTP method: "
		    "upper-case letters, as GET or POST", it->name);
		return;
	}
	if (value_str(c, it->value, &prefix) < 0)
		return;
	if (!cpol_http_prefix_ok(prefix)) {
		diag_error(c->d, &it->value->loc, "\"%s\" is not a path "
		    "prefix: '/' then printable ASCII, no space, '#', '\\', "
		    "\".\" or \"..\" segment or encoded '.', '/' or '\\'",
		    prefix);
		goto done;
	}
	for (i = 0; i < h->nrules; i++)
		if (!strcmp(h->rules[i].method, it->name) &&
		    !strcmp(h->rules[i].prefix, prefix)) {
			diag_error(c->d, &it->loc, "%s \"%s\" listed twice",
			    it->name, prefix);
			goto done;
		}
	if (h->nrules == CPOL_MAX_HTTP_RULES) {
		diag_error(c->d, &it->loc, "more than %d http rules for one "
		    "host", CPOL_MAX_HTTP_RULES);
		goto done;
	}
	if (!h->rules && !(h->rules = check_mem(c, calloc(CPOL_MAX_HTTP_RULES,
	    sizeof(*h->rules)))))
		goto done;
	h->rules[h->nrules].method = check_mem(c, strdup(it->name));
	h->rules[h->nrules++].prefix = prefix;
	prefix = NULL;
done:
	free(prefix);
}

static void http(struct check_ctx *c, struct cpol *out,
    const struct mention *m)
{
	const struct ast_item *it;
	struct cpol_http *h;
	char *host;
	uint16_t port;

	if (dest(c, out, m->v, &host, &port) < 0 ||
	    !(h = entry(c, out, host, port)))
		return;
	if (m->s->flags & AST_F_PLAIN)
		h->flags |= CPOL_HTTP_PLAIN;
	for (it = m->s->items; it; it = it->next)
		rule(c, h, it);
	if (h->rules)
		qsort(h->rules, h->nrules, sizeof(*h->rules), by_rule);
}

static int by_http(const void *a, const void *b)
{
	const struct cpol_http *x = a, *y = b;
	int d = strcmp(x->host, y->host);

	return d ? d : x->port - y->port;
}

/* Every mention of kind, keyed "host:port" (dests of a credential, the
 * one dest of an http statement), merged. */
static void collect(struct check_ctx *c, struct mentions *ms,
    enum ast_kind kind, const char *what)
{
	const struct ast_stmt *s;
	const struct ast_val *v;
	char key[CPOL_MAX_STR + 32];

	for (s = c->p->stmts; s; s = s->next)
		for (v = s->kind == kind ? s->val : NULL; v; v = v->next) {
			snprintf(key, sizeof(key), "%s%s%s",
			    v->str ? v->str : "", v->port ? ":" : "",
			    v->port && v->port->str ? v->port->str : "");
			if (v->port && !v->port->str)
				snprintf(key + strlen(key), sizeof(key) -
				    strlen(key), "%llu",
				    (unsigned long long)v->port->num);
			if (mentions_add(ms, key, s, NULL, v) < 0)
				diag_error(c->d, NULL, "out of memory");
			if (kind == AST_HTTP)
				break;
		}
	mentions_merge(c, ms, 0, what);
}

/* The statement of kind whose dest is host:port, for its place. */
static const struct ast_val *dest_of(struct check_ctx *c, enum ast_kind kind,
    const char *host, uint16_t port)
{
	const struct ast_stmt *s;
	const struct ast_val *v;
	uint64_t n;
	char *h;
	int neg, same;

	for (s = c->p->stmts; s; s = s->next)
		for (v = s->kind == kind ? s->val : NULL; v; v = v->next) {
			if (!v->port || value_num(c, v->port, &n, &neg) < 0 ||
			    n != port || value_str(c, v, &h) < 0)
				continue;
			same = strcmp(h, host) == 0;
			free(h);
			if (same)
				return v;
		}
	return NULL;
}

/* A wildcard that reaches a host with http rules (cpol_wildcard_over):
 * a sibling name resolving to that host's server would tunnel around
 * the rules.  Wildcards carry no rules, so it is refused. */
static void wildcards_over(struct check_ctx *c, const struct cpol *out)
{
	const struct ast_val *w, *r;
	uint32_t i, hi;

	for (i = 0; i < out->nhosts; i++) {
		if (!cpol_wildcard_over(out, i, &hi))
			continue;
		w = dest_of(c, AST_NETWORK, out->hosts[i].host,
		    out->hosts[i].port);
		r = dest_of(c, AST_HTTP, out->http[hi].host,
		    out->http[hi].port);
		diag_error(c->d, w ? &w->loc : NULL, "\"%s\":%u reaches %s, "
		    "which has http rules: a name below it that resolves to "
		    "%s's server would be a plain tunnel around them; list "
		    "the names the run needs one by one", out->hosts[i].host,
		    out->hosts[i].port, out->http[hi].host,
		    out->http[hi].host);
		if (r)
			diag_note(c->d, &r->loc, "the http rules for "
			    "\"%s\":%u", out->http[hi].host,
			    out->http[hi].port);
	}
}

void check_http(struct check_ctx *c, struct cpol *out)
{
	struct mentions creds = { 0 }, rules = { 0 };
	unsigned int i;

	collect(c, &creds, AST_CREDENTIAL, "credential for");
	collect(c, &rules, AST_HTTP, "http rules for");
	for (i = 0; i < creds.n; i++)
		credential(c, out, &creds.m[i]);
	for (i = 0; i < rules.n; i++)
		http(c, out, &rules.m[i]);
	/* As the reader gives them: "" for no credential, never NULL. */
	for (i = 0; i < out->nhttp; i++) {
		if (!out->http[i].credential)
			out->http[i].credential = check_mem(c, strdup(""));
		if (!out->http[i].header)
			out->http[i].header = check_mem(c, strdup(""));
	}
	if (out->nhttp > 0)
		qsort(out->http, out->nhttp, sizeof(*out->http), by_http);
	wildcards_over(c, out);
	mentions_free(&creds);
	mentions_free(&rules);
}
