/*
 * cpol_readsec.c - the blob's sections, each read and checked on its own
 * (meta, layers, seccomp, fs, net, hosts, http, limits, env, argv,
 * preload, rules) through cpol_read.c's cursor, and cur_section(), which
 * hands one section's bytes to its reader.  No system call but malloc.
 */
#include <stdlib.h>
#include <string.h>

#include "cpol.h"
#include "cpol_read.h"

static void meta(struct cur *c, struct cpol *p)
{
	const uint8_t *d;

	p->name = cur_str(c, "policy name");
	p->description = cur_str(c, "description");
	p->compiler_version = cur_str(c, "compiler version");
	d = cur_take(c, 32, "source digest");
	if (d)
		memcpy(p->source_digest, d, 32);
	if (!c->f.bad && p->name[0] == '\0')
		fail(c, "empty policy name");
}

static void layers(struct cur *c, struct cpol *p)
{
	uint32_t net;

	p->landlock_abi_min = cur_u32(c, "landlock ABI");
	p->flags = cur_u32(c, "layer flags");
	p->errata_min = cur_u32(c, "errata");
	if (c->f.bad)
		return;
	if (p->landlock_abi_min < 1 || p->landlock_abi_min > 255)
		fail(c, "landlock ABI %u out of range 1..255",
		    p->landlock_abi_min);
	if (p->flags & ~CPOL_F_ALL)
		fail(c, "unknown layer flags 0x%x", p->flags & ~CPOL_F_ALL);
	net = p->flags & (CPOL_F_NET_OFF | CPOL_F_NET_TCP);
	if (net != CPOL_F_NET_OFF && net != CPOL_F_NET_TCP)
		fail(c, "layer flags must say network off or tcp, once");
}

static void seccomp(struct cur *c, struct cpol *p)
{
	uint32_t i;

	p->ninsns = cur_count(c, 1, CPOL_MAX_INSNS, 8, "seccomp program");
	p->insns = cur_alloc(c, p->ninsns, sizeof(*p->insns));
	for (i = 0; i < p->ninsns && !c->f.bad; i++) {
		p->insns[i].code = cur_u16(c, "instruction");
		p->insns[i].jt = cur_u8(c, "instruction");
		p->insns[i].jf = cur_u8(c, "instruction");
		p->insns[i].k = cur_u32(c, "instruction");
	}
}

/* Paths: absolute or $WORKDIR-based or exactly $SNIPPET; canonical. */
int cpol_path_ok(const char *s)
{
	const char *rest;

	if (strcmp(s, "$SNIPPET") == 0)
		return 1;
	if (strncmp(s, "$WORKDIR", 8) == 0)
		rest = s + 8;
	else if (s[0] == '/')
		rest = s;
	else
		return 0;
	/* strncmp matched 8 bytes, so s + 8 is inside the string. */
	/* NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult) */
	if (rest[0] == '\0')
		return rest != s;  /* "$WORKDIR" alone, not "" */
	if (rest[0] != '/')
		return 0;
	if (strcmp(rest, "/") == 0)
		return rest == s;  /* "/" alone, not "$WORKDIR/" */
	while (*rest) {
		const char *seg = rest + 1, *end = strchr(seg, '/');
		size_t n = end ? (size_t)(end - seg) : strlen(seg);

		if (n == 0 || (n == 1 && seg[0] == '.') ||
		    (n == 2 && seg[0] == '.' && seg[1] == '.'))
			return 0;
		rest = seg + n;
	}
	return 1;
}

static void fs(struct cur *c, struct cpol *p)
{
	uint32_t i;

	p->nfs = cur_count(c, 0, CPOL_MAX_FS, 11, "path rules");
	p->fs = cur_alloc(c, p->nfs, sizeof(*p->fs));
	for (i = 0; i < p->nfs && !c->f.bad; i++) {
		struct cpol_fs *r = &p->fs[i];

		r->access = cur_u64(c, "path rights");
		r->flags = cur_u8(c, "path flags");
		r->path = cur_str(c, "path");
		if (c->f.bad)
			break;
		if (r->access == 0 || r->access >> 16)
			fail(c, "path %s: bad rights 0x%llx", r->path,
			    (unsigned long long)r->access);
		else if (r->flags & ~CPOL_FS_ALL)
			fail(c, "path %s: unknown flags 0x%x", r->path,
			    r->flags);
		else if (!cpol_path_ok(r->path))
			fail(c, "path \"%s\" is not absolute and canonical",
			    r->path);
	}
}

static void net(struct cur *c, struct cpol *p)
{
	uint32_t i;

	p->nnet = cur_count(c, 0, CPOL_MAX_NET, 3, "network rules");
	p->net = cur_alloc(c, p->nnet, sizeof(*p->net));
	for (i = 0; i < p->nnet && !c->f.bad; i++) {
		p->net[i].kind = cur_u8(c, "network rule");
		p->net[i].port = cur_u16(c, "network rule");
		if (c->f.bad)
			break;
		if (p->net[i].kind != CPOL_NET_CONNECT &&
		    p->net[i].kind != CPOL_NET_BIND)
			fail(c, "network rule %u: unknown kind %u", i,
			    p->net[i].kind);
		else if (p->net[i].port == 0)
			fail(c, "network rule %u: port 0", i);
	}
}

static void hosts(struct cur *c, struct cpol *p)
{
	uint32_t i;

	p->nhosts = cur_count(c, 1, CPOL_MAX_HOSTS, 4, "host rules");
	p->hosts = cur_alloc(c, p->nhosts, sizeof(*p->hosts));
	for (i = 0; i < p->nhosts && !c->f.bad; i++) {
		struct cpol_host *h = &p->hosts[i];

		h->host = cur_str(c, "host");
		h->port = cur_u16(c, "host port");
		if (c->f.bad)
			break;
		if (cpol_host_kind(h->host) == CPOL_HOST_BAD)
			fail(c, "host rule %u: \"%s\" is not a lower-case "
			    "name, *.name or address literal", i, h->host);
		else if (h->port == 0)
			fail(c, "host rule %u: port 0", i);
		else if (i > 0 && (strcmp(h->host, p->hosts[i - 1].host) < 0 ||
		    (strcmp(h->host, p->hosts[i - 1].host) == 0 &&
		    h->port <= p->hosts[i - 1].port)))
			fail(c, "host rules out of order or repeated");
	}
}

/* PRIVATE: marks HOSTS rules (read before it: section 10 < 13). */
static void private_hosts(struct cur *c, struct cpol *p)
{
	uint32_t i, j, n = cur_count(c, 1, CPOL_MAX_HOSTS, 4,
	    "private hosts");
	char *h, *last = NULL;
	uint16_t port, last_port = 0;

	for (i = 0; i < n && !c->f.bad; i++) {
		h = cur_str(c, "private host");
		port = cur_u16(c, "private host port");
		for (j = 0; h && !c->f.bad && j < p->nhosts; j++)
			if (p->hosts[j].port == port &&
			    strcmp(p->hosts[j].host, h) == 0)
				break;
		if (c->f.bad || !h)
			;
		else if (j == p->nhosts || !cpol_host_special(h))
			fail(c, "private host %u: not a host rule for a "
			    "special address literal", i);
		else if (last && (strcmp(h, last) < 0 || (strcmp(h, last) ==
		    0 && port <= last_port)))
			fail(c, "private hosts out of order or repeated");
		else
			p->hosts[j].flags |= CPOL_HOST_PRIVATE;
		free(last);
		last = h;
		last_port = port;
	}
	free(last);
}

static void http_rules(struct cur *c, struct cpol_http *h, uint32_t at)
{
	uint32_t i;

	h->nrules = cur_count(c, 0, CPOL_MAX_HTTP_RULES, 4, "http rules");
	h->rules = cur_alloc(c, h->nrules, sizeof(*h->rules));
	for (i = 0; i < h->nrules && !c->f.bad; i++) {
		struct cpol_http_rule *r = &h->rules[i], *q = r - 1;

		r->method = cur_str(c, "http method");
		r->prefix = cur_str(c, "http prefix");
		if (c->f.bad)
			break;
		if (!cpol_http_method_ok(r->method) ||
		    !cpol_http_prefix_ok(r->prefix))
			fail(c, "http host %u, rule %u: a bad method or path "
			    "prefix", at, i);
		else if (i > 0 && (strcmp(r->method, q->method) < 0 ||
		    (strcmp(r->method, q->method) == 0 &&
		    strcmp(r->prefix, q->prefix) <= 0)))
			fail(c, "http host %u: rules out of order or repeated",
			    at);
	}
}

static void http_host(struct cur *c, struct cpol_http *h, uint32_t at)
{
	h->host = cur_str(c, "http host");
	h->port = cur_u16(c, "http port");
	h->flags = cur_u8(c, "http flags");
	h->credential = cur_str(c, "credential name");
	h->header = cur_str(c, "credential header");
	if (c->f.bad)
		return;
	if (cpol_host_kind(h->host) != CPOL_HOST_NAME || h->port == 0)
		fail(c, "http host %u: not a host name and port", at);
	else if (h->flags & ~CPOL_HTTP_ALL)
		fail(c, "http host %u: unknown flags 0x%x", at, h->flags);
	else if (!*h->credential != !*h->header)
		fail(c, "http host %u: a credential without its header or "
		    "a header without its credential", at);
	else if (*h->credential && (!cpol_env_name_ok(h->credential) ||
	    !cpol_http_header_ok(h->header)))
		fail(c, "http host %u: a bad credential name or header", at);
	else
		http_rules(c, h, at);
}

static void http(struct cur *c, struct cpol *p)
{
	uint32_t i;

	p->nhttp = cur_count(c, 1, CPOL_MAX_HTTP, 12, "http hosts");
	p->http = cur_alloc(c, p->nhttp, sizeof(*p->http));
	for (i = 0; i < p->nhttp && !c->f.bad; i++) {
		struct cpol_http *h = &p->http[i], *q = h - 1;

		http_host(c, h, i);
		if (!c->f.bad && i > 0 && (strcmp(h->host, q->host) < 0 ||
		    (strcmp(h->host, q->host) == 0 && h->port <= q->port)))
			fail(c, "http hosts out of order or repeated");
	}
}

static void limits(struct cur *c, struct cpol *p)
{
	uint32_t i;

	p->timeout_ms = cur_u64(c, "timeout");
	p->output_cap = cur_u64(c, "output cap");
	p->nlimits = cur_count(c, 0, CPOL_RLIM_MAX, 9, "limits");
	p->limits = cur_alloc(c, p->nlimits, sizeof(*p->limits));
	if (!c->f.bad && p->timeout_ms == 0)
		fail(c, "timeout of 0 ms");
	for (i = 0; i < p->nlimits && !c->f.bad; i++) {
		p->limits[i].resource = cur_u8(c, "limit");
		p->limits[i].value = cur_u64(c, "limit");
		if (c->f.bad)
			break;
		if (p->limits[i].resource < 1 ||
		    p->limits[i].resource > CPOL_RLIM_MAX)
			fail(c, "unknown limit %u", p->limits[i].resource);
		else if (i > 0 && p->limits[i].resource <=
		    p->limits[i - 1].resource)
			fail(c, "limits out of order or repeated");
	}
}

int cpol_env_name_ok(const char *s)
{
	size_t i;

	if (s[0] == '\0' || (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (i = 0; s[i]; i++)
		if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

static void env(struct cur *c, struct cpol *p)
{
	uint32_t i;

	p->nenv = cur_count(c, 0, CPOL_MAX_ENV, 5, "environment");
	p->env = cur_alloc(c, p->nenv, sizeof(*p->env));
	for (i = 0; i < p->nenv && !c->f.bad; i++) {
		struct cpol_env *e = &p->env[i];

		e->kind = cur_u8(c, "environment entry");
		e->name = cur_str(c, "environment name");
		e->value = cur_str(c, "environment value");
		if (c->f.bad)
			break;
		if (e->kind != CPOL_ENV_KEEP && e->kind != CPOL_ENV_SET)
			fail(c, "environment entry %u: unknown kind %u", i,
			    e->kind);
		else if (!cpol_env_name_ok(e->name))
			fail(c, "bad environment name \"%s\"", e->name);
		else if (e->kind == CPOL_ENV_KEEP && e->value[0] != '\0')
			fail(c, "kept variable %s carries a value", e->name);
	}
}

static void argv(struct cur *c, struct cpol *p)
{
	uint32_t i;

	p->nargv = cur_count(c, 1, CPOL_MAX_ARGV, 2, "command line");
	p->argv = cur_alloc(c, p->nargv + 1, sizeof(*p->argv));
	for (i = 0; i < p->nargv && !c->f.bad; i++)
		p->argv[i] = cur_str(c, "command word");
	/* Not bad: cur_count() gave nargv >= 1 and every cur_str() succeeded. */
	/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference) */
	if (!c->f.bad && p->argv[0][0] != '/')
		fail(c, "command \"%s\" is not an absolute path", p->argv[0]);
}

int cpol_module_ok(const char *s)
{
	size_t n = strlen(s), i;
	int start = 1;

	if (n == 0 || n > CPOL_MAX_MODULE)
		return 0;
	for (i = 0; i < n; i++) {
		char ch = s[i];

		if (ch == '.') {
			if (start)
				return 0;
			start = 1;
			continue;
		}
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    ch == '_' || (!start && ch >= '0' && ch <= '9')))
			return 0;
		start = 0;
	}
	return !start;
}

static void preload(struct cur *c, struct cpol *p)
{
	uint32_t i;

	p->npreload = cur_count(c, 1, CPOL_MAX_PRELOAD, 2, "preload list");
	p->preload = cur_alloc(c, p->npreload + 1, sizeof(*p->preload));
	for (i = 0; i < p->npreload && !c->f.bad; i++) {
		p->preload[i] = cur_str(c, "module name");
		if (p->preload[i] && !cpol_module_ok(p->preload[i]))
			fail(c, "bad module name \"%s\"", p->preload[i]);
	}
}

/* A rule read whole: its conditions (rule() checked their count). */
static void rule_ok(struct cur *c, const struct cpol_rule *r)
{
	unsigned int i;

	for (i = 0; i < r->ncond; i++) {
		const struct cpol_cond *k = &r->cond[i];

		if (k->arg > 5 || k->op < 1 || k->op > CPOL_OP_MAX ||
		    (k->width != 32 && k->width != 64)) {
			fail(c, "rule for %s: bad condition %u", r->name, i);
			return;
		}
	}
}

static void rule(struct cur *c, struct cpol_rule *r)
{
	uint32_t j;

	r->nr = cur_u32(c, "rule");
	r->name = cur_str(c, "syscall name");
	r->action = cur_u32(c, "rule action");
	r->ncond = cur_u8(c, "rule");
	if (c->f.bad)
		return;
	/* Only the count here: the conditions are not read yet. */
	if (r->ncond > CPOL_MAX_CONDS) {
		fail(c, "rule for %s: %u conditions", r->name, r->ncond);
		return;
	}
	for (j = 0; j < r->ncond; j++) {
		r->cond[j].arg = cur_u8(c, "condition");
		r->cond[j].op = cur_u8(c, "condition");
		r->cond[j].width = cur_u8(c, "condition");
		r->cond[j].mask = cur_u64(c, "condition");
		r->cond[j].value = cur_u64(c, "condition");
	}
	r->origin = cur_str(c, "rule origin");
	if (!c->f.bad)
		rule_ok(c, r);
}

static void rules(struct cur *c, struct cpol *p, unsigned int flags)
{
	struct cpol_rule one;
	uint32_t i;

	p->default_action = cur_u32(c, "default action");
	p->nrules = cur_count(c, 0, CPOL_MAX_RULES, 13, "syscall rules");
	if (!(flags & CPOL_READ_NO_RULES)) {
		p->rules = cur_alloc(c, p->nrules, sizeof(*p->rules));
		for (i = 0; i < p->nrules && !c->f.bad; i++)
			rule(c, &p->rules[i]);
		return;
	}
	for (i = 0; i < p->nrules && !c->f.bad; i++) {
		memset(&one, 0, sizeof(one));
		rule(c, &one);
		free(one.name);
		free(one.origin);
	}
}

static const char *const section_names[CPOL_S_MAX + 1] = {
	[CPOL_S_META] = "meta", [CPOL_S_LAYERS] = "layers",
	[CPOL_S_SECCOMP] = "seccomp", [CPOL_S_FS] = "fs",
	[CPOL_S_NET] = "net", [CPOL_S_LIMITS] = "limits",
	[CPOL_S_ENV] = "env", [CPOL_S_ARGV] = "argv",
	[CPOL_S_RULES] = "rules", [CPOL_S_HOSTS] = "hosts",
	[CPOL_S_PRELOAD] = "preload", [CPOL_S_HTTP] = "http",
	[CPOL_S_PRIVATE] = "private", [CPOL_S_SESSION] = "session",
};

/* SESSION: u64 session_ms, above 0. */
static void session(struct cur *c, struct cpol *p)
{
	p->session_ms = cur_u64(c, "session");
	if (!c->f.bad && p->session_ms == 0)
		fail(c, "session of 0 ms");
}

void cur_section(struct cur *c, struct cpol *p, unsigned int type,
    uint32_t len, unsigned int flags)
{
	struct cur s = { .p = NULL, .left = 0,
	    .f = { .err = c->f.err, .errlen = c->f.errlen, .bad = 0 } };

	s.p = cur_take(c, len, "section");
	if (!s.p)
		return;
	s.left = len;
	switch (type) {
	case CPOL_S_META: meta(&s, p); break;
	case CPOL_S_LAYERS: layers(&s, p); break;
	case CPOL_S_SECCOMP: seccomp(&s, p); break;
	case CPOL_S_FS: fs(&s, p); break;
	case CPOL_S_NET: net(&s, p); break;
	case CPOL_S_LIMITS: limits(&s, p); break;
	case CPOL_S_ENV: env(&s, p); break;
	case CPOL_S_ARGV: argv(&s, p); break;
	case CPOL_S_RULES: rules(&s, p, flags); break;
	case CPOL_S_HOSTS: hosts(&s, p); break;
	case CPOL_S_PRELOAD: preload(&s, p); break;
	case CPOL_S_HTTP: http(&s, p); break;
	case CPOL_S_PRIVATE: private_hosts(&s, p); break;
	case CPOL_S_SESSION: session(&s, p); break;
	default: return;
	}
	if (!s.f.bad && s.left != 0)
		fail(&s, "%zu stray bytes at the end of the %s section",
		    s.left, section_names[type]);
	if (s.f.bad)
		c->f.bad = 1;
}
