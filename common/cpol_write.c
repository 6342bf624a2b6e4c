/*
 * cpol_write.c - serialise a policy into the blob format of cpol.h.
 * Output depends only on the struct, so equal policies give equal bytes.
 * The writer enforces the reader's limits, so it never emits a blob that
 * cordon would refuse.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpol.h"
#include "fault.h"
#include "sha256.h"

struct buf {
	uint8_t *p;
	size_t len, cap;
	struct fault f;
};

#define fail(b, ...) fault(&(b)->f, __VA_ARGS__)

static void put(struct buf *b, const void *src, size_t n)
{
	/* n == 0: src may be NULL (an absent string), and memcpy's
	 * arguments must not be, even for no bytes. */
	if (b->f.bad || n == 0)
		return;
	if (n > CPOL_MAX_SIZE - b->len) {
		fail(b, "blob would exceed %u bytes", CPOL_MAX_SIZE);
		return;
	}
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			fail(b, "out of memory");
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

static void u8(struct buf *b, uint8_t v)
{
	put(b, &v, 1);
}

static void u16(struct buf *b, uint16_t v)
{
	uint8_t x[2] = { (uint8_t)v, (uint8_t)(v >> 8) };

	put(b, x, 2);
}

static void u32(struct buf *b, uint32_t v)
{
	uint8_t x[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
	    (uint8_t)(v >> 24) };

	put(b, x, 4);
}

static void u64(struct buf *b, uint64_t v)
{
	u32(b, (uint32_t)v);
	u32(b, (uint32_t)(v >> 32));
}

static void str(struct buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n > CPOL_MAX_STR) {
		fail(b, "string of %zu bytes exceeds %u", n, CPOL_MAX_STR);
		return;
	}
	u16(b, (uint16_t)n);
	put(b, s, n);
}

static void cap(struct buf *b, uint32_t n, uint32_t lo, uint32_t hi,
    const char *what)
{
	if (n < lo || n > hi)
		fail(b, "%s: count %u out of range %u..%u", what, n, lo, hi);
	u32(b, n);
}

/* Open a section; returns the offset of its length field. */
static size_t open_sect(struct buf *b, uint16_t type)
{
	size_t at;

	u16(b, type);
	u16(b, CPOL_SECT_CRITICAL);
	at = b->len;
	u32(b, 0);
	return at;
}

static void close_sect(struct buf *b, size_t at)
{
	size_t n;

	if (b->f.bad)
		return;
	n = b->len - at - 4;
	b->p[at] = (uint8_t)n;
	b->p[at + 1] = (uint8_t)(n >> 8);
	b->p[at + 2] = (uint8_t)(n >> 16);
	b->p[at + 3] = (uint8_t)(n >> 24);
}

/* RULES: the table explain and diff read (the kernel gets SECCOMP). */
static void rules_sect(struct buf *b, const struct cpol *p)
{
	size_t at;
	uint32_t i, j;

	at = open_sect(b, CPOL_S_RULES);
	u32(b, p->default_action);
	cap(b, p->nrules, 0, CPOL_MAX_RULES, "syscall rules");
	for (i = 0; i < p->nrules; i++) {
		const struct cpol_rule *r = &p->rules[i];

		u32(b, r->nr);
		str(b, r->name);
		u32(b, r->action);
		if (r->ncond > CPOL_MAX_CONDS)
			fail(b, "rule for %s: too many conditions", r->name);
		u8(b, r->ncond);
		for (j = 0; j < r->ncond && j < CPOL_MAX_CONDS; j++) {
			u8(b, r->cond[j].arg);
			u8(b, r->cond[j].op);
			u8(b, r->cond[j].width);
			u64(b, r->cond[j].mask);
			u64(b, r->cond[j].value);
		}
		str(b, r->origin);
	}
	close_sect(b, at);
}

static void http_sect(struct buf *b, const struct cpol *p)
{
	size_t at = open_sect(b, CPOL_S_HTTP);
	uint32_t i, j;

	cap(b, p->nhttp, 1, CPOL_MAX_HTTP, "http hosts");
	for (i = 0; i < p->nhttp; i++) {
		const struct cpol_http *h = &p->http[i];

		str(b, h->host);
		u16(b, h->port);
		u8(b, h->flags);
		str(b, h->credential ? h->credential : "");
		str(b, h->header ? h->header : "");
		cap(b, h->nrules, 0, CPOL_MAX_HTTP_RULES, "http rules");
		for (j = 0; j < h->nrules; j++) {
			str(b, h->rules[j].method);
			str(b, h->rules[j].prefix);
		}
	}
	close_sect(b, at);
}

/* The host rules for special literals the policy allowed (PRIVATE). */
static void private_sect(struct buf *b, const struct cpol *p)
{
	size_t at = open_sect(b, CPOL_S_PRIVATE);
	uint32_t i;

	cap(b, cpol_private_count(p), 1, CPOL_MAX_HOSTS, "private hosts");
	for (i = 0; i < p->nhosts; i++)
		if (p->hosts[i].flags & CPOL_HOST_PRIVATE) {
			str(b, p->hosts[i].host);
			u16(b, p->hosts[i].port);
		}
	close_sect(b, at);
}

/* Sections only in blobs that use them (older blobs stay the same). */
static void optional_sects(struct buf *b, const struct cpol *p)
{
	size_t at;
	uint32_t i;

	if (p->nhosts) {
		at = open_sect(b, CPOL_S_HOSTS);
		cap(b, p->nhosts, 1, CPOL_MAX_HOSTS, "host rules");
		for (i = 0; i < p->nhosts; i++) {
			str(b, p->hosts[i].host);
			u16(b, p->hosts[i].port);
		}
		close_sect(b, at);
	}
	if (p->npreload) {
		at = open_sect(b, CPOL_S_PRELOAD);
		cap(b, p->npreload, 1, CPOL_MAX_PRELOAD, "preload list");
		for (i = 0; i < p->npreload; i++)
			str(b, p->preload[i]);
		close_sect(b, at);
	}
	if (p->nhttp)
		http_sect(b, p);
	if (cpol_private_count(p))
		private_sect(b, p);
	if (p->session_ms) {
		at = open_sect(b, CPOL_S_SESSION);
		u64(b, p->session_ms);
		close_sect(b, at);
	}
}

static void body(struct buf *b, const struct cpol *p)
{
	size_t at;
	uint32_t i;

	at = open_sect(b, CPOL_S_META);
	str(b, p->name);
	str(b, p->description);
	str(b, p->compiler_version);
	put(b, p->source_digest, 32);
	close_sect(b, at);

	at = open_sect(b, CPOL_S_LAYERS);
	u32(b, p->landlock_abi_min);
	u32(b, p->flags);
	u32(b, p->errata_min);
	close_sect(b, at);

	at = open_sect(b, CPOL_S_SECCOMP);
	cap(b, p->ninsns, 1, CPOL_MAX_INSNS, "seccomp program");
	for (i = 0; i < p->ninsns; i++) {
		u16(b, p->insns[i].code);
		u8(b, p->insns[i].jt);
		u8(b, p->insns[i].jf);
		u32(b, p->insns[i].k);
	}
	close_sect(b, at);

	at = open_sect(b, CPOL_S_FS);
	cap(b, p->nfs, 0, CPOL_MAX_FS, "path rules");
	for (i = 0; i < p->nfs; i++) {
		u64(b, p->fs[i].access);
		u8(b, p->fs[i].flags);
		str(b, p->fs[i].path);
	}
	close_sect(b, at);

	at = open_sect(b, CPOL_S_NET);
	cap(b, p->nnet, 0, CPOL_MAX_NET, "network rules");
	for (i = 0; i < p->nnet; i++) {
		u8(b, p->net[i].kind);
		u16(b, p->net[i].port);
	}
	close_sect(b, at);

	at = open_sect(b, CPOL_S_LIMITS);
	u64(b, p->timeout_ms);
	u64(b, p->output_cap);
	cap(b, p->nlimits, 0, CPOL_RLIM_MAX, "limits");
	for (i = 0; i < p->nlimits; i++) {
		u8(b, p->limits[i].resource);
		u64(b, p->limits[i].value);
	}
	close_sect(b, at);

	at = open_sect(b, CPOL_S_ENV);
	cap(b, p->nenv, 0, CPOL_MAX_ENV, "environment");
	for (i = 0; i < p->nenv; i++) {
		u8(b, p->env[i].kind);
		str(b, p->env[i].name);
		str(b, p->env[i].value);
	}
	close_sect(b, at);

	at = open_sect(b, CPOL_S_ARGV);
	cap(b, p->nargv, 1, CPOL_MAX_ARGV, "command line");
	for (i = 0; i < p->nargv; i++)
		str(b, p->argv[i]);
	close_sect(b, at);

	rules_sect(b, p);
	optional_sects(b, p);
}

int cpol_write(const struct cpol *p, uint8_t **bufp, size_t *lenp,
    char *err, size_t errlen)
{
	struct buf b = { .p = NULL, .len = 0, .cap = 0,
	    .f = { .err = err, .errlen = errlen, .bad = 0 } };
	uint8_t zero[CPOL_SUM_LEN] = { 0 }, sum[CPOL_SUM_LEN];
	struct sha256 h;
	struct cpol check;

	put(&b, CPOL_MAGIC, CPOL_MAGIC_LEN);
	u16(&b, CPOL_VERSION);
	u16(&b, CPOL_HEADER_LEN);
	u32(&b, p->arch);
	u32(&b, 0);                   /* size, patched below */
	/* The HOSTS, PRELOAD, HTTP and PRIVATE sections only when used:
	 * other blobs stay as they were, and readable by readers that
	 * predate them. */
	u32(&b, (uint32_t)CPOL_S_RULES + (p->nhosts ? 1u : 0u) +
	    (p->npreload ? 1u : 0u) + (p->nhttp ? 1u : 0u) +
	    (cpol_private_count(p) ? 1u : 0u) +
	    (p->session_ms ? 1u : 0u));
	u32(&b, 0);
	u32(&b, 0);
	put(&b, zero, sizeof(zero));  /* checksum, patched below */
	body(&b, p);
	if (b.f.bad) {
		free(b.p);
		return -1;
	}
	b.p[16] = (uint8_t)b.len;
	b.p[17] = (uint8_t)(b.len >> 8);
	b.p[18] = (uint8_t)(b.len >> 16);
	b.p[19] = (uint8_t)(b.len >> 24);
	sha256_init(&h);
	sha256_update(&h, b.p, CPOL_SUM_OFF);
	sha256_update(&h, b.p + CPOL_HEADER_LEN, b.len - CPOL_HEADER_LEN);
	sha256_final(&h, sum);
	memcpy(b.p + CPOL_SUM_OFF, sum, CPOL_SUM_LEN);
	/* Never hand out what the reader would refuse. */
	if (cpol_read(b.p, b.len, &check, err, errlen) < 0) {
		free(b.p);
		return -1;
	}
	cpol_free(&check);
	*bufp = b.p;
	*lenp = b.len;
	return 0;
}
