/*
 * cpol_read.c - validate and decode a compiled policy.
 *
 * Every input byte is touched only through struct cur, the cursor of
 * cpol_cur.c (declared in cpol_read.h).  Nothing here makes a system call
 * but malloc; cpol_load (cpol_load.c) does the file I/O.
 * The sections' own readers are in cpol_readsec.c.  Calls go one way:
 * cpol_read.c -> cpol_readsec.c -> cpol_cur.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cpol.h"
#include "cpol_read.h"
#include "fault.h"
#include "sha256.h"

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

/* A special address literal is a rule only where the policy said
 * "private" (the PRIVATE section). */
static int specials_private(const struct cpol *p)
{
	for (uint32_t i = 0; i < p->nhosts; i++)
		if (cpol_host_special(p->hosts[i].host) &&
		    !(p->hosts[i].flags & CPOL_HOST_PRIVATE))
			return 0;
	return 1;
}

static void header(struct cur *c, const uint8_t *buf, size_t len,
    struct cpol *p, uint32_t *nsect)
{
	const uint8_t *magic = cur_take(c, CPOL_MAGIC_LEN, "header");
	uint16_t version, hdrlen;
	uint32_t size, flags, reserved;
	uint8_t sum[32];
	struct sha256 h;

	if (magic && memcmp(magic, CPOL_MAGIC, CPOL_MAGIC_LEN) != 0)
		fail(c, "not a cordon policy blob (bad magic)");
	version = cur_u16(c, "header");
	hdrlen = cur_u16(c, "header");
	p->arch = cur_u32(c, "header");
	size = cur_u32(c, "header");
	*nsect = cur_u32(c, "header");
	flags = cur_u32(c, "header");
	reserved = cur_u32(c, "header");
	if (!cur_take(c, CPOL_SUM_LEN, "header") || c->f.bad)
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
		uint16_t type = cur_u16(&c, "section header");
		uint16_t sflags = cur_u16(&c, "section header");
		uint32_t slen = cur_u32(&c, "section header");

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
		cur_section(&c, out, type, slen, flags);
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
	if (!c.f.bad && !specials_private(out))
		fail(&c, "a host rule for a loopback, private, link-local or "
		    "other special address without \"private\"");
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
