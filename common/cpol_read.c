/*
 * cpol_read.c - validate and decode a compiled policy.
 *
 * Every input byte is touched only through struct cur, whose single
 * accessor take() checks n <= left and whose error is sticky: after the
 * first fault every read yields zeroes and the fault's message stands.
 * Nothing here makes a system call but malloc; cpol_load (cpol_load.c)
 * does the file I/O.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cpol.h"
#include "fault.h"
#include "sha256.h"

struct cur {
	const uint8_t *p;
	size_t left;
	struct fault f;
};

#define fail(c, ...) fault(&(c)->f, __VA_ARGS__)

/* The one place input bytes are read. */
static const uint8_t *take(struct cur *c, size_t n, const char *what)
{
	const uint8_t *p;

	if (c->f.bad)
		return NULL;
	if (n > c->left) {
		fail(c, "truncated %s: need %zu bytes, %zu left", what, n,
		    c->left);
		return NULL;
	}
	p = c->p;
	c->p += n;
	c->left -= n;
	return p;
}

static uint8_t u8(struct cur *c, const char *what)
{
	const uint8_t *p = take(c, 1, what);

	return p ? p[0] : 0;
}

static uint16_t u16(struct cur *c, const char *what)
{
	const uint8_t *p = take(c, 2, what);

	if (!p)
		return 0;
	return (uint16_t)((unsigned int)p[0] | (unsigned int)p[1] << 8);
}

static uint32_t u32(struct cur *c, const char *what)
{
	const uint8_t *p = take(c, 4, what);

	if (!p)
		return 0;
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static uint64_t u64(struct cur *c, const char *what)
{
	uint64_t lo = u32(c, what);

	return lo | (uint64_t)u32(c, what) << 32;
}

/* A string: u16 length, bytes, no NUL; returned as a NUL-terminated copy. */
static char *str(struct cur *c, const char *what)
{
	uint16_t n = u16(c, what);
	const uint8_t *p;
	char *s;

	if (n > CPOL_MAX_STR) {
		fail(c, "%s: string of %u bytes exceeds %u", what, n,
		    CPOL_MAX_STR);
		return NULL;
	}
	p = take(c, n, what);
	if (!p)
		return NULL;
	if (memchr(p, '\0', n)) {
		fail(c, "%s: NUL byte inside a string", what);
		return NULL;
	}
	s = malloc((size_t)n + 1);
	if (!s) {
		fail(c, "out of memory");
		return NULL;
	}
	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

/* A count, checked against its cap and against the bytes left (each
 * element takes at least minsize bytes) before anything is allocated. */
static uint32_t count(struct cur *c, uint32_t lo, uint32_t cap,
    size_t minsize, const char *what)
{
	uint32_t n = u32(c, what);

	if (c->f.bad)
		return 0;
	if (n < lo || n > cap) {
		fail(c, "%s: count %u out of range %u..%u", what, n, lo, cap);
		return 0;
	}
	if ((size_t)n * minsize > c->left) {
		fail(c, "%s: count %u does not fit in %zu bytes", what, n,
		    c->left);
		return 0;
	}
	return n;
}

static void *alloc(struct cur *c, uint32_t n, size_t size)
{
	void *p;

	if (c->f.bad || n == 0)
		return NULL;
	p = calloc(n, size);
	if (!p)
		fail(c, "out of memory");
	return p;
}

static void meta(struct cur *c, struct cpol *p)
{
	const uint8_t *d;

	p->name = str(c, "policy name");
	p->description = str(c, "description");
	p->compiler_version = str(c, "compiler version");
	d = take(c, 32, "source digest");
	if (d)
		memcpy(p->source_digest, d, 32);
	if (!c->f.bad && p->name[0] == '\0')
		fail(c, "empty policy name");
}

static void layers(struct cur *c, struct cpol *p)
{
	uint32_t net;

	p->landlock_abi_min = u32(c, "landlock ABI");
	p->flags = u32(c, "layer flags");
	p->errata_min = u32(c, "errata");
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

	p->ninsns = count(c, 1, CPOL_MAX_INSNS, 8, "seccomp program");
	p->insns = alloc(c, p->ninsns, sizeof(*p->insns));
	for (i = 0; i < p->ninsns && !c->f.bad; i++) {
		p->insns[i].code = u16(c, "instruction");
		p->insns[i].jt = u8(c, "instruction");
		p->insns[i].jf = u8(c, "instruction");
		p->insns[i].k = u32(c, "instruction");
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

	p->nfs = count(c, 0, CPOL_MAX_FS, 11, "path rules");
	p->fs = alloc(c, p->nfs, sizeof(*p->fs));
	for (i = 0; i < p->nfs && !c->f.bad; i++) {
		struct cpol_fs *r = &p->fs[i];

		r->access = u64(c, "path rights");
		r->flags = u8(c, "path flags");
		r->path = str(c, "path");
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

	p->nnet = count(c, 0, CPOL_MAX_NET, 3, "network rules");
	p->net = alloc(c, p->nnet, sizeof(*p->net));
	for (i = 0; i < p->nnet && !c->f.bad; i++) {
		p->net[i].kind = u8(c, "network rule");
		p->net[i].port = u16(c, "network rule");
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

	p->nhosts = count(c, 1, CPOL_MAX_HOSTS, 4, "host rules");
	p->hosts = alloc(c, p->nhosts, sizeof(*p->hosts));
	for (i = 0; i < p->nhosts && !c->f.bad; i++) {
		struct cpol_host *h = &p->hosts[i];

		h->host = str(c, "host");
		h->port = u16(c, "host port");
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

static void http_rules(struct cur *c, struct cpol_http *h, uint32_t at)
{
	uint32_t i;

	h->nrules = count(c, 0, CPOL_MAX_HTTP_RULES, 4, "http rules");
	h->rules = alloc(c, h->nrules, sizeof(*h->rules));
	for (i = 0; i < h->nrules && !c->f.bad; i++) {
		struct cpol_http_rule *r = &h->rules[i], *q = r - 1;

		r->method = str(c, "http method");
		r->prefix = str(c, "http prefix");
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
	h->host = str(c, "http host");
	h->port = u16(c, "http port");
	h->flags = u8(c, "http flags");
	h->credential = str(c, "credential name");
	h->header = str(c, "credential header");
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

	p->nhttp = count(c, 1, CPOL_MAX_HTTP, 12, "http hosts");
	p->http = alloc(c, p->nhttp, sizeof(*p->http));
	for (i = 0; i < p->nhttp && !c->f.bad; i++) {
		struct cpol_http *h = &p->http[i], *q = h - 1;

		http_host(c, h, i);
		if (!c->f.bad && i > 0 && (strcmp(h->host, q->host) < 0 ||
		    (strcmp(h->host, q->host) == 0 && h->port <= q->port)))
			fail(c, "http hosts out of order or repeated");
	}
}

/* Every HTTP host is a HOSTS rule too (the proxy's allowlist). */
static int http_hosts_named(const struct cpol *p)
{
	uint32_t i, j;

	for (i = 0; i < p->nhttp; i++) {
		for (j = 0; j < p->nhosts; j++)
			if (p->hosts[j].port == p->http[i].port &&
			    strcmp(p->hosts[j].host, p->http[i].host) == 0)
				break;
		if (j == p->nhosts)
			return 0;
	}
	return 1;
}

static void limits(struct cur *c, struct cpol *p)
{
	uint32_t i;

	p->timeout_ms = u64(c, "timeout");
	p->output_cap = u64(c, "output cap");
	p->nlimits = count(c, 0, CPOL_RLIM_MAX, 9, "limits");
	p->limits = alloc(c, p->nlimits, sizeof(*p->limits));
	if (!c->f.bad && p->timeout_ms == 0)
		fail(c, "timeout of 0 ms");
	for (i = 0; i < p->nlimits && !c->f.bad; i++) {
		p->limits[i].resource = u8(c, "limit");
		p->limits[i].value = u64(c, "limit");
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

	p->nenv = count(c, 0, CPOL_MAX_ENV, 5, "environment");
	p->env = alloc(c, p->nenv, sizeof(*p->env));
	for (i = 0; i < p->nenv && !c->f.bad; i++) {
		struct cpol_env *e = &p->env[i];

		e->kind = u8(c, "environment entry");
		e->name = str(c, "environment name");
		e->value = str(c, "environment value");
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

	p->nargv = count(c, 1, CPOL_MAX_ARGV, 2, "command line");
	p->argv = alloc(c, p->nargv + 1, sizeof(*p->argv));
	for (i = 0; i < p->nargv && !c->f.bad; i++)
		p->argv[i] = str(c, "command word");
	/* Not bad: count() gave nargv >= 1 and every str() succeeded. */
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

	p->npreload = count(c, 1, CPOL_MAX_PRELOAD, 2, "preload list");
	p->preload = alloc(c, p->npreload + 1, sizeof(*p->preload));
	for (i = 0; i < p->npreload && !c->f.bad; i++) {
		p->preload[i] = str(c, "module name");
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

	r->nr = u32(c, "rule");
	r->name = str(c, "syscall name");
	r->action = u32(c, "rule action");
	r->ncond = u8(c, "rule");
	if (c->f.bad)
		return;
	/* Only the count here: the conditions are not read yet. */
	if (r->ncond > CPOL_MAX_CONDS) {
		fail(c, "rule for %s: %u conditions", r->name, r->ncond);
		return;
	}
	for (j = 0; j < r->ncond; j++) {
		r->cond[j].arg = u8(c, "condition");
		r->cond[j].op = u8(c, "condition");
		r->cond[j].width = u8(c, "condition");
		r->cond[j].mask = u64(c, "condition");
		r->cond[j].value = u64(c, "condition");
	}
	r->origin = str(c, "rule origin");
	if (!c->f.bad)
		rule_ok(c, r);
}

static void rules(struct cur *c, struct cpol *p, unsigned int flags)
{
	struct cpol_rule one;
	uint32_t i;

	p->default_action = u32(c, "default action");
	p->nrules = count(c, 0, CPOL_MAX_RULES, 13, "syscall rules");
	if (!(flags & CPOL_READ_NO_RULES)) {
		p->rules = alloc(c, p->nrules, sizeof(*p->rules));
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
};

static void section(struct cur *c, struct cpol *p, unsigned int type,
    uint32_t len, unsigned int flags)
{
	struct cur s = { .p = NULL, .left = 0,
	    .f = { .err = c->f.err, .errlen = c->f.errlen, .bad = 0 } };

	s.p = take(c, len, "section");
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
	default: return;
	}
	if (!s.f.bad && s.left != 0)
		fail(&s, "%zu stray bytes at the end of the %s section",
		    s.left, section_names[type]);
	if (s.f.bad)
		c->f.bad = 1;
}

static void header(struct cur *c, const uint8_t *buf, size_t len,
    struct cpol *p, uint32_t *nsect)
{
	const uint8_t *magic = take(c, CPOL_MAGIC_LEN, "header");
	uint16_t version, hdrlen;
	uint32_t size, flags, reserved;
	uint8_t sum[32];
	struct sha256 h;

	if (magic && memcmp(magic, CPOL_MAGIC, CPOL_MAGIC_LEN) != 0)
		fail(c, "not a cordon policy blob (bad magic)");
	version = u16(c, "header");
	hdrlen = u16(c, "header");
	p->arch = u32(c, "header");
	size = u32(c, "header");
	*nsect = u32(c, "header");
	flags = u32(c, "header");
	reserved = u32(c, "header");
	if (!take(c, CPOL_SUM_LEN, "header") || c->f.bad)
		return;
	if (version != CPOL_VERSION)
		fail(c, "blob format version %u, this reader knows %u",
		    version, CPOL_VERSION);
	else if (hdrlen != CPOL_HEADER_LEN)
		fail(c, "header length %u, expected %u", hdrlen,
		    CPOL_HEADER_LEN);
	else if (size != len)
		fail(c, "header says %u bytes, file has %zu", size, len);
	else if (flags != 0 || reserved != 0)
		fail(c, "unknown header flags");
	else if (*nsect > CPOL_MAX_SECTIONS)
		fail(c, "%u sections exceed %u", *nsect, CPOL_MAX_SECTIONS);
	if (c->f.bad)
		return;
	sha256_init(&h);
	sha256_update(&h, buf, CPOL_SUM_OFF);
	sha256_update(&h, buf + CPOL_HEADER_LEN, len - CPOL_HEADER_LEN);
	sha256_final(&h, sum);
	/* The header was taken from buf: it holds CPOL_HEADER_LEN bytes. */
	/* NOLINTNEXTLINE(clang-analyzer-core.NonNullParamChecker) */
	if (memcmp(sum, buf + CPOL_SUM_OFF, CPOL_SUM_LEN) != 0)
		fail(c, "checksum mismatch: the blob is corrupt");
	memcpy(p->blob_digest, buf + CPOL_SUM_OFF, CPOL_SUM_LEN);
}

/* Sections every blob must carry: the launcher needs all of them. */
#define REQUIRED ((1u << CPOL_S_META) | (1u << CPOL_S_LAYERS) | \
    (1u << CPOL_S_SECCOMP) | (1u << CPOL_S_FS) | (1u << CPOL_S_NET) | \
    (1u << CPOL_S_LIMITS) | (1u << CPOL_S_ENV) | (1u << CPOL_S_ARGV) | \
    (1u << CPOL_S_RULES))

int cpol_read(const uint8_t *buf, size_t len, struct cpol *out,
    char *err, size_t errlen)
{
	return cpol_read_flags(buf, len, 0, out, err, errlen);
}

int cpol_read_flags(const uint8_t *buf, size_t len, unsigned int flags,
    struct cpol *out, char *err, size_t errlen)
{
	struct cur c = { .p = buf, .left = len,
	    .f = { .err = err, .errlen = errlen, .bad = 0 } };
	uint32_t nsect, i, seen = 0;
	unsigned int last = 0;

	memset(out, 0, sizeof(*out));
	if (len > CPOL_MAX_SIZE)
		fail(&c, "blob of %zu bytes exceeds %u", len, CPOL_MAX_SIZE);
	header(&c, buf, len, out, &nsect);
	for (i = 0; i < nsect && !c.f.bad; i++) {
		uint16_t type = u16(&c, "section header");
		uint16_t sflags = u16(&c, "section header");
		uint32_t slen = u32(&c, "section header");

		if (c.f.bad)
			break;
		if (type <= last)
			fail(&c, "section %u out of order or repeated", type);
		else if (sflags & ~CPOL_SECT_CRITICAL)
			fail(&c, "section %u: unknown flags 0x%x", type,
			    sflags);
		else if (type > CPOL_S_MAX && (sflags & CPOL_SECT_CRITICAL))
			fail(&c, "unknown critical section %u", type);
		else if (type <= CPOL_S_MAX && !(sflags & CPOL_SECT_CRITICAL))
			fail(&c, "section %u is not marked critical", type);
		last = type;
		if (type <= CPOL_S_MAX)
			seen |= 1u << type;
		section(&c, out, type, slen, flags);
	}
	if (!c.f.bad && c.left != 0)
		fail(&c, "%zu stray bytes after the last section", c.left);
	if (!c.f.bad && (seen & REQUIRED) != REQUIRED)
		fail(&c, "a required section is missing (have 0x%x)", seen);
	if (!c.f.bad && !(out->flags & CPOL_F_NET_HOSTS) !=
	    !(seen & (1u << CPOL_S_HOSTS)))
		fail(&c, "host rules without the named-hosts flag, or the "
		    "flag without host rules");
	if (!c.f.bad && (out->flags & CPOL_F_NET_HOSTS) &&
	    !(out->flags & CPOL_F_NET_TCP))
		fail(&c, "named hosts without network tcp");
	if (!c.f.bad && !http_hosts_named(out))
		fail(&c, "an http host that no host rule names");
	if (c.f.bad) {
		cpol_free(out);
		return -1;
	}
	return 0;
}

void cpol_free(struct cpol *p)
{
	uint32_t i;

	free(p->name);
	free(p->description);
	free(p->compiler_version);
	free(p->insns);
	for (i = 0; p->fs && i < p->nfs; i++)
		free(p->fs[i].path);
	free(p->fs);
	free(p->net);
	free(p->limits);
	for (i = 0; p->env && i < p->nenv; i++) {
		free(p->env[i].name);
		free(p->env[i].value);
	}
	free(p->env);
	for (i = 0; p->argv && i < p->nargv; i++)
		free(p->argv[i]);
	free(p->argv);
	for (i = 0; p->rules && i < p->nrules; i++) {
		free(p->rules[i].name);
		free(p->rules[i].origin);
	}
	free(p->rules);
	for (i = 0; p->hosts && i < p->nhosts; i++)
		free(p->hosts[i].host);
	free(p->hosts);
	for (i = 0; p->preload && i < p->npreload; i++)
		free(p->preload[i]);
	free(p->preload);
	for (i = 0; p->http && i < p->nhttp; i++) {
		uint32_t j;

		for (j = 0; p->http[i].rules && j < p->http[i].nrules; j++) {
			free(p->http[i].rules[j].method);
			free(p->http[i].rules[j].prefix);
		}
		free(p->http[i].rules);
		free(p->http[i].host);
		free(p->http[i].credential);
		free(p->http[i].header);
	}
	free(p->http);
	memset(p, 0, sizeof(*p));
}

const char *cpol_rlim_name(unsigned int r)
{
	static const char *const names[CPOL_RLIM_MAX + 1] = {
		[CPOL_RLIM_CPU] = "cpu", [CPOL_RLIM_AS] = "as",
		[CPOL_RLIM_DATA] = "data", [CPOL_RLIM_FSIZE] = "fsize",
		[CPOL_RLIM_NPROC] = "nproc", [CPOL_RLIM_NOFILE] = "nofile",
		[CPOL_RLIM_CORE] = "core", [CPOL_RLIM_STACK] = "stack",
		[CPOL_RLIM_MEMLOCK] = "memlock",
		[CPOL_RLIM_SIGPENDING] = "sigpending",
		[CPOL_RLIM_MEMORY] = "memory",
		[CPOL_RLIM_PIDS] = "pids", [CPOL_RLIM_DISK] = "disk",
		[CPOL_RLIM_FILES] = "files",
	};

	return r <= CPOL_RLIM_MAX ? names[r] : NULL;
}

enum cpol_unit cpol_rlim_unit(unsigned int r)
{
	switch (r) {
	case CPOL_RLIM_CPU:
		return CPOL_UNIT_TIME;    /* seconds */
	case CPOL_RLIM_NPROC: case CPOL_RLIM_NOFILE: case CPOL_RLIM_PIDS:
	case CPOL_RLIM_FILES: case CPOL_RLIM_SIGPENDING:
		return CPOL_UNIT_COUNT;
	default:
		return CPOL_UNIT_SIZE;    /* bytes */
	}
}

int cpol_rlim_kernel(unsigned int r)
{
	static const int kernel[CPOL_RLIM_KERNEL_MAX + 1] = {
		[CPOL_RLIM_CPU] = RLIMIT_CPU, [CPOL_RLIM_AS] = RLIMIT_AS,
		[CPOL_RLIM_DATA] = RLIMIT_DATA,
		[CPOL_RLIM_FSIZE] = RLIMIT_FSIZE,
		[CPOL_RLIM_NPROC] = RLIMIT_NPROC,
		[CPOL_RLIM_NOFILE] = RLIMIT_NOFILE,
		[CPOL_RLIM_CORE] = RLIMIT_CORE,
		[CPOL_RLIM_STACK] = RLIMIT_STACK,
		[CPOL_RLIM_MEMLOCK] = RLIMIT_MEMLOCK,
		[CPOL_RLIM_SIGPENDING] = RLIMIT_SIGPENDING,
	};

	return r >= 1 && r <= CPOL_RLIM_KERNEL_MAX ? kernel[r] : -1;
}

uint32_t cpol_rlim_required_flag(unsigned int r)
{
	switch (r) {
	case CPOL_RLIM_MEMORY: return CPOL_F_REQUIRE_MEMORY;
	case CPOL_RLIM_PIDS: return CPOL_F_REQUIRE_PIDS;
	case CPOL_RLIM_DISK: return CPOL_F_REQUIRE_DISK;
	case CPOL_RLIM_FILES: return CPOL_F_REQUIRE_FILES;
	default: return 0;
	}
}

const char *cpol_op_name(unsigned int op)
{
	static const char *const names[CPOL_OP_MAX + 1] = {
		[CPOL_OP_EQ] = "==", [CPOL_OP_NE] = "!=", [CPOL_OP_LT] = "<",
		[CPOL_OP_LE] = "<=", [CPOL_OP_GT] = ">", [CPOL_OP_GE] = ">=",
		[CPOL_OP_MASKED_EQ] = "&==",
	};

	return op <= CPOL_OP_MAX ? names[op] : NULL;
}
