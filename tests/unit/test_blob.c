/*
 * test_blob.c - the blob reader (common/cpol_read.c) against the writer:
 * round trip and identical bytes, then corruption of every kind, each
 * built by hand with the checksum recomputed so that the reader's own
 * check (not the checksum) must catch it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cpol.h"
#include "sha256.h"

static uint8_t *blob;
static size_t blen;
static char err[512];

static struct cpol_insn insns[] = {
	{ 0x06, 0, 0, 0x7fff0000u },
};
static struct cpol_fs fsr[] = {
	{ 0x0d, 0, (char *)"/usr/lib" },
	{ 0x7fff, 0, (char *)"$WORKDIR" },
	{ 0x0c, CPOL_FS_OPTIONAL, (char *)"/xx/yy" },
};
static struct cpol_net netr[] = { { CPOL_NET_CONNECT, 443 } };
static struct cpol_limit lim[] = {
	{ CPOL_RLIM_CPU, 30 }, { CPOL_RLIM_AS, 4ull << 30 },
	{ CPOL_RLIM_CORE, 0 },
};
static struct cpol_env envr[] = {
	{ CPOL_ENV_KEEP, (char *)"LANG", (char *)"" },
	{ CPOL_ENV_SET, (char *)"HOME", (char *)"$WORKDIR" },
};
static char *argvv[] = { (char *)"/usr/bin/python3", (char *)"-I",
	(char *)"$SNIPPET" };
static struct cpol_rule rulev[] = {
	{ 0, (char *)"read", 0x7fff0000u, 0, { { 0 } }, (char *)"a:1" },
	{ 41, (char *)"socket", 0x7fff0000u, 1,
	    { { 0, CPOL_OP_MASKED_EQ, 32, 0xffffffffu, 1 } },
	    (char *)"a:2" },
};

static void sample(struct cpol *p)
{
	memset(p, 0, sizeof(*p));
	p->arch = 0xc000003eu;
	p->name = (char *)"demo";
	p->description = (char *)"a test";
	p->compiler_version = (char *)"cordonc test";
	p->source_digest[0] = 0x5a;
	p->landlock_abi_min = 6;
	p->flags = CPOL_F_NET_TCP | CPOL_F_PRIVATE_TMP;
	p->insns = insns;
	p->ninsns = 1;
	p->fs = fsr;
	p->nfs = 3;
	p->net = netr;
	p->nnet = 1;
	p->timeout_ms = 60000;
	p->output_cap = 1 << 20;
	p->limits = lim;
	p->nlimits = 3;
	p->env = envr;
	p->nenv = 2;
	p->argv = argvv;
	p->nargv = 3;
	p->default_action = 0x00050026u;
	p->rules = rulev;
	p->nrules = 2;
}

static int setup(void **state)
{
	struct cpol p;

	(void)state;
	sample(&p);
	if (cpol_write(&p, &blob, &blen, err, sizeof(err)) < 0)
		fail_msg("cpol_write: %s", err);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(blob);
	return 0;
}

static uint8_t *copy(size_t extra)
{
	uint8_t *b = calloc(1, blen + extra);

	assert_non_null(b);
	memcpy(b, blob, blen);
	return b;
}

static void put32(uint8_t *b, size_t off, uint32_t v)
{
	b[off] = (uint8_t)v;
	b[off + 1] = (uint8_t)(v >> 8);
	b[off + 2] = (uint8_t)(v >> 16);
	b[off + 3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *b, size_t off)
{
	return (uint32_t)b[off] | (uint32_t)b[off + 1] << 8 |
	    (uint32_t)b[off + 2] << 16 | (uint32_t)b[off + 3] << 24;
}

/* Recompute size and checksum after a hand edit. */
static void reseal(uint8_t *b, size_t len)
{
	struct sha256 h;

	put32(b, 16, (uint32_t)len);
	sha256_init(&h);
	sha256_update(&h, b, CPOL_SUM_OFF);
	sha256_update(&h, b + CPOL_HEADER_LEN, len - CPOL_HEADER_LEN);
	sha256_final(&h, b + CPOL_SUM_OFF);
}

/* Offset of section type's header (u16 type, u16 flags, u32 len). */
static size_t find_section(const uint8_t *b, size_t len, unsigned int type)
{
	size_t off = CPOL_HEADER_LEN;

	while (off + 8 <= len) {
		if ((unsigned int)(b[off] | b[off + 1] << 8) == type)
			return off;
		off += 8 + get32(b, off + 4);
	}
	fail_msg("section %u not found", type);
	return 0;
}

/* Read b both ways (with the rules table, and without as the launcher
 * does): the two must accept and refuse alike. */
static int reads(const uint8_t *b, size_t len)
{
	struct cpol p, q;
	char lean_err[512];
	int rc = cpol_read(b, len, &p, err, sizeof(err));
	int lean = cpol_read_flags(b, len, CPOL_READ_NO_RULES, &q, lean_err,
	    sizeof(lean_err));

	if ((rc == 0) != (lean == 0))
		fail_msg("with and without the rules table disagree: %s / %s",
		    rc ? err : "accepted", lean ? lean_err : "accepted");
	if (rc == 0) {
		cpol_free(&p);
		cpol_free(&q);
	}
	return rc;
}

/* b (resealed) must be refused with exactly the message want. */
static void refused(uint8_t *b, size_t len, const char *want)
{
	reseal(b, len);
	if (reads(b, len) == 0)
		fail_msg("accepted: %s (%zu bytes)", want, len);
	if (strcmp(err, want) != 0)
		fail_msg("refused as \"%s\", not \"%s\"", err, want);
	free(b);
}

static void test_round_trip(void **state)
{
	struct cpol p, q;
	uint8_t *again;
	size_t alen;

	(void)state;
	sample(&q);
	assert_int_equal(cpol_read(blob, blen, &p, err, sizeof(err)), 0);
	assert_string_equal(p.name, "demo");
	assert_string_equal(p.fs[2].path, "/xx/yy");
	assert_int_equal(p.fs[2].flags, CPOL_FS_OPTIONAL);
	assert_int_equal(p.limits[1].value, 4ull << 30);
	assert_string_equal(p.env[1].value, "$WORKDIR");
	assert_string_equal(p.argv[2], "$SNIPPET");
	assert_int_equal(p.rules[1].cond[0].value, 1);
	assert_int_equal(p.rules[1].cond[0].mask, 0xffffffffu);
	assert_string_equal(p.rules[1].origin, "a:2");
	assert_memory_equal(p.blob_digest, blob + CPOL_SUM_OFF, 32);
	assert_memory_equal(p.source_digest, q.source_digest, 32);
	assert_int_equal(cpol_write(&p, &again, &alen, err, sizeof(err)), 0);
	assert_int_equal(alen, blen);
	assert_memory_equal(again, blob, blen);
	free(again);
	cpol_free(&p);
}

/* The launcher's reading: every field but the rules table. */
static void test_no_rules(void **state)
{
	struct cpol p, q;

	(void)state;
	assert_int_equal(cpol_read(blob, blen, &p, err, sizeof(err)), 0);
	assert_int_equal(cpol_read_flags(blob, blen, CPOL_READ_NO_RULES, &q,
	    err, sizeof(err)), 0);
	assert_null(q.rules);
	assert_true(p.nrules > 0);
	assert_int_equal(q.nrules, p.nrules);
	assert_int_equal(q.default_action, p.default_action);
	assert_int_equal(q.ninsns, p.ninsns);
	assert_memory_equal(q.insns, p.insns, p.ninsns * sizeof(*p.insns));
	assert_string_equal(q.argv[2], p.argv[2]);
	assert_memory_equal(q.blob_digest, p.blob_digest, 32);
	cpol_free(&p);
	cpol_free(&q);
}

static void test_truncations(void **state)
{
	size_t n;

	(void)state;
	for (n = 0; n < blen; n++)
		if (reads(blob, n) == 0)
			fail_msg("accepted %zu of %zu bytes", n, blen);
}

static void test_bit_flips(void **state)
{
	uint8_t *b = copy(0);
	size_t i;
	unsigned int bit;

	(void)state;
	for (i = 0; i < blen; i++)
		for (bit = 0; bit < 8; bit++) {
			b[i] ^= (uint8_t)(1u << bit);
			if (reads(b, blen) == 0)
				fail_msg("accepted flip of bit %u at %zu", bit,
				    i);
			b[i] ^= (uint8_t)(1u << bit);
		}
	free(b);
}

static void test_header(void **state)
{
	uint8_t *b;
	char want[64];

	(void)state;
	b = copy(0);
	b[1] ^= 0x20;
	refused(b, blen, "not a cordon policy blob (bad magic)");
	b = copy(0);
	b[8] = 2;
	refused(b, blen, "blob format version 2, this reader knows 1");
	b = copy(0);
	b[10] = 32;
	refused(b, blen, "header length 32, expected 64");
	b = copy(0);
	b[24] = 1;
	refused(b, blen, "unknown header flags");
	b = copy(0);
	b[28] = 1;      /* the reserved word: refused as flags are */
	refused(b, blen, "unknown header flags");
	b = copy(0);
	put32(b, 20, 1000);
	refused(b, blen, "1000 sections exceed 32");
	/* wrong size: reseal writes the true size, so undo that */
	b = copy(0);
	reseal(b, blen);
	put32(b, 16, (uint32_t)blen + 1);
	assert_int_equal(reads(b, blen), -1);
	snprintf(want, sizeof(want), "header says %zu bytes, file has %zu",
	    blen + 1, blen);
	assert_string_equal(err, want);
	free(b);
	/* trailing byte, size and checksum updated */
	b = copy(1);
	refused(b, blen + 1, "1 stray bytes after the last section");
}

/* Body offset of a section (after its 8-byte header). */
static size_t body(const uint8_t *b, unsigned int type)
{
	return find_section(b, blen, type) + 8;
}

static void test_counts(void **state)
{
	static const struct {
		unsigned int type;
		size_t at;
		uint32_t v;
		const char *msg;
	} c[] = {
		{ CPOL_S_SECCOMP, 0, 0,
		    "seccomp program: count 0 out of range 1..4096" },
		{ CPOL_S_SECCOMP, 0, 4097,
		    "seccomp program: count 4097 out of range 1..4096" },
		{ CPOL_S_SECCOMP, 0, 0xffffffffu,
		    "seccomp program: count 4294967295 out of range 1..4096" },
		{ CPOL_S_FS, 0, 513, "path rules: count 513 out of range "
		    "0..512" },
		{ CPOL_S_FS, 0, 0x7fffffffu, "path rules: count 2147483647 "
		    "out of range 0..512" },
		{ CPOL_S_NET, 0, 65, "network rules: count 65 out of range "
		    "0..64" },
		{ CPOL_S_ENV, 0, 129, "environment: count 129 out of range "
		    "0..128" },
		{ CPOL_S_ARGV, 0, 0, "command line: count 0 out of range "
		    "1..64" },
		{ CPOL_S_ARGV, 0, 65, "command line: count 65 out of range "
		    "1..64" },
		{ CPOL_S_RULES, 4, 8193, "syscall rules: count 8193 out of "
		    "range 0..8192" },
		{ CPOL_S_RULES, 4, 0xffffffffu, "syscall rules: count "
		    "4294967295 out of range 0..8192" },
		{ CPOL_S_LIMITS, 16, 10, "limits: count 10 does not fit in "
		    "27 bytes" },
		/* timeout 0 (low word; high is 0) */
		{ CPOL_S_LIMITS, 0, 0, "timeout of 0 ms" },
		{ CPOL_S_LAYERS, 0, 256, "landlock ABI 256 out of range "
		    "1..255" },
		/* an unknown layer flag; both network flags */
		{ CPOL_S_LAYERS, 4, 0x80, "layer flags must say network off "
		    "or tcp, once" },
		{ CPOL_S_LAYERS, 4, CPOL_F_NET_OFF | CPOL_F_NET_TCP,
		    "layer flags must say network off or tcp, once" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint8_t *b = copy(0);

		put32(b, body(b, c[i].type) + c[i].at, c[i].v);
		refused(b, blen, c[i].msg);
	}
}

static void test_strings(void **state)
{
	uint8_t *b, *s;
	size_t at;
	char want[64];

	(void)state;
	/* META starts with the name: u16 length 4, "demo" */
	b = copy(0);
	at = body(b, CPOL_S_META);
	b[at] = 0xff;
	b[at + 1] = 0xff;
	refused(b, blen, "policy name: string of 65535 bytes exceeds 4096");
	b = copy(0);
	b[at + 2 + 1] = '\0';
	refused(b, blen, "policy name: NUL byte inside a string");
	/* an empty name: length 0 and its 4 bytes taken out */
	b = copy(0);
	b[at] = 0;
	b[at + 1] = 0;
	memmove(b + at + 2, b + at + 6, blen - at - 6);
	put32(b, at - 4, get32(b, at - 4) - 4);
	refused(b, blen - 4, "empty policy name");
	/* paths, same length as "/xx/yy" */
	{
		static const char *const bad[] = {
			"/xx/..", "/x//yy", "xx/yyy", "/xx/./", "/xx/y/",
			"$WORKD", "/../yy",
		};
		size_t i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			b = copy(0);
			s = memmem(b, blen, "/xx/yy", 6);
			assert_non_null(s);
			memcpy(s, bad[i], 6);
			snprintf(want, sizeof(want), "path \"%s\" is not "
			    "absolute and canonical", bad[i]);
			refused(b, blen, want);
		}
	}
	/* the command must be an absolute path */
	b = copy(0);
	s = memmem(b, blen, "/usr/bin/python3", 16);
	assert_non_null(s);
	s[0] = 'u';
	refused(b, blen, "command \"uusr/bin/python3\" is not an absolute "
	    "path");
	/* environment names */
	b = copy(0);
	s = memmem(b, blen, "LANG", 4);
	assert_non_null(s);
	s[1] = '=';
	refused(b, blen, "bad environment name \"L=NG\"");
}

/* Append a section of type with flags (4 bytes of body). */
static void test_unknown_sections(void **state)
{
	uint8_t *b;
	struct cpol p;
	unsigned int critical;
	char want[64];

	(void)state;
	for (critical = 0; critical < 2; critical++) {
		b = copy(12);
		b[blen] = CPOL_S_MAX + 1;
		b[blen + 1] = 0;
		b[blen + 2] = (uint8_t)critical;
		b[blen + 3] = 0;
		put32(b, blen + 4, 4);
		put32(b, blen + 8, 0xdeadbeefu);
		put32(b, 20, get32(b, 20) + 1);
		reseal(b, blen + 12);
		if (critical) {
			assert_int_equal(reads(b, blen + 12), -1);
			snprintf(want, sizeof(want), "unknown critical "
			    "section %d", CPOL_S_MAX + 1);
			assert_string_equal(err, want);
		} else {
			assert_int_equal(cpol_read(b, blen + 12, &p, err,
			    sizeof(err)), 0);
			assert_string_equal(p.name, "demo");
			cpol_free(&p);
		}
		free(b);
	}
	/* a known section must be marked critical */
	b = copy(0);
	b[find_section(b, blen, CPOL_S_NET) + 2] = 0;
	refused(b, blen, "section 5 is not marked critical");
	/* unknown section flag */
	b = copy(0);
	b[find_section(b, blen, CPOL_S_NET) + 2] = 3;
	refused(b, blen, "section 5: unknown flags 0x3");
	/* out of order: NET renumbered as 3 after SECCOMP */
	b = copy(0);
	b[find_section(b, blen, CPOL_S_NET)] = 3;
	refused(b, blen, "section 3 out of order or repeated");
}

static void test_missing_section(void **state)
{
	unsigned int type;

	(void)state;
	/* Every section a blob must carry (HOSTS is only there with named
	 * hosts; the demo blob has none). */
	for (type = 1; type <= CPOL_S_RULES; type++) {
		uint8_t *b = copy(0);
		size_t at = find_section(b, blen, type);
		size_t n = 8 + get32(b, at + 4);

		char want[64];

		memmove(b + at, b + at + n, blen - at - n);
		put32(b, 20, get32(b, 20) - 1);
		snprintf(want, sizeof(want), "a required section is missing "
		    "(have 0x%x)", 0x3feu & ~(1u << type));
		refused(b, blen - n, want);
	}
}

static void test_section_lengths(void **state)
{
	/* Per section type: one byte more claimed than the section has,
	 * then one less. */
	static const char *const want[][2] = {
		[CPOL_S_META] = { "1 stray bytes at the end of the meta section",
		    "truncated source digest: need 32 bytes, 31 left" },
		[CPOL_S_LAYERS] = { "1 stray bytes at the end of the layers "
		    "section", "truncated errata: need 4 bytes, 3 left" },
		[CPOL_S_SECCOMP] = { "1 stray bytes at the end of the seccomp "
		    "section", "seccomp program: count 1 does not fit in 7 "
		    "bytes" },
		[CPOL_S_FS] = { "1 stray bytes at the end of the fs section",
		    "truncated path: need 6 bytes, 5 left" },
		[CPOL_S_NET] = { "1 stray bytes at the end of the net section",
		    "network rules: count 1 does not fit in 2 bytes" },
		[CPOL_S_LIMITS] = { "1 stray bytes at the end of the limits "
		    "section", "limits: count 3 does not fit in 26 bytes" },
		[CPOL_S_ENV] = { "1 stray bytes at the end of the env section",
		    "truncated environment value: need 8 bytes, 7 left" },
		[CPOL_S_ARGV] = { "1 stray bytes at the end of the argv "
		    "section", "truncated command word: need 8 bytes, 7 "
		    "left" },
		[CPOL_S_RULES] = { "truncated section: need 70 bytes, 69 left",
		    "truncated rule origin: need 3 bytes, 2 left" },
	};
	unsigned int type;

	(void)state;
	for (type = 1; type <= CPOL_S_RULES; type++) {
		uint8_t *b = copy(0);
		size_t at = find_section(b, blen, type);

		put32(b, at + 4, get32(b, at + 4) + 1);
		refused(b, blen, want[type][0]);
		b = copy(0);
		put32(b, at + 4, get32(b, at + 4) - 1);
		refused(b, blen, want[type][1]);
	}
}

/* man/cordon.cpol.5 states the limits and the version of cpol.h. */
/* The HTTP section: written and read back the same, and each rule the
 * reader enforces on it refused (a writer's check is the reader). */
static void test_http(void **state)
{
	static struct cpol_host hosts[] = { { (char *)"a.example.org", 443, 0 },
		{ (char *)"b.example.org", 80, 0 } };
	static struct cpol_http_rule rules[] = {
		{ (char *)"GET", (char *)"/v1/" },
		{ (char *)"POST", (char *)"/v1/search" } };
	static struct cpol_http http[] = {
		{ (char *)"a.example.org", 443, 0, (char *)"TOKEN",
		  (char *)"Authorization: Bearer {}", rules, 2 },
		{ (char *)"b.example.org", 80, CPOL_HTTP_PLAIN, (char *)"",
		  (char *)"", NULL, 0 } };
	struct cpol p, q;
	uint8_t *b, *again;
	size_t len, alen;

	(void)state;
	sample(&p);
	p.flags |= CPOL_F_NET_HOSTS;
	p.hosts = hosts;
	p.nhosts = 2;
	p.http = http;
	p.nhttp = 2;
	assert_int_equal(cpol_write(&p, &b, &len, err, sizeof(err)), 0);
	assert_int_equal(cpol_read(b, len, &q, err, sizeof(err)), 0);
	assert_int_equal(q.nhttp, 2);
	assert_string_equal(q.http[0].credential, "TOKEN");
	assert_string_equal(q.http[0].rules[1].prefix, "/v1/search");
	assert_int_equal(q.http[1].flags, CPOL_HTTP_PLAIN);
	assert_true(cpol_http_allows(&q.http[0], "GET", "/v1/x?y=1"));
	assert_false(cpol_http_allows(&q.http[0], "GET", "/v2/x"));
	assert_false(cpol_http_allows(&q.http[0], "GET", "/v1/../admin"));
	assert_false(cpol_http_allows(&q.http[0], "GET", "/v1/%2e%2e/x"));
	assert_false(cpol_http_allows(&q.http[0], "DELETE", "/v1/x"));
	assert_true(cpol_http_allows(&q.http[1], "DELETE", "/x"));
	assert_int_equal(cpol_write(&q, &again, &alen, err, sizeof(err)), 0);
	assert_int_equal(alen, len);
	assert_memory_equal(again, b, len);
	free(again);
	free(b);
	cpol_free(&q);
	/* each refused by the writer's own read-back */
	http[0].header = (char *)"Authorization: Bearer";
	assert_int_equal(cpol_write(&p, &b, &len, err, sizeof(err)), -1);
	http[0].header = (char *)"Authorization: Bearer {}";
	rules[0].prefix = (char *)"/v1/../x";
	assert_int_equal(cpol_write(&p, &b, &len, err, sizeof(err)), -1);
	rules[0].prefix = (char *)"/v1/";
	http[1].port = 81;     /* no host rule names it */
	assert_int_equal(cpol_write(&p, &b, &len, err, sizeof(err)), -1);
	assert_string_equal(err, "an http host that no host rule names");
	http[1].port = 80;
	http[1].credential = (char *)"TOKEN";   /* without its header */
	assert_int_equal(cpol_write(&p, &b, &len, err, sizeof(err)), -1);
	http[1].credential = (char *)"";
}

/* The PRIVATE section: a special literal's "private" written and read
 * back; a special literal without it, or the word elsewhere, refused. */
static void test_private(void **state)
{
	static struct cpol_host hosts[] = {
		{ (char *)"10.0.0.1", 443, CPOL_HOST_PRIVATE },
		{ (char *)"8.8.8.8", 53, 0 },
		{ (char *)"::1", 8080, CPOL_HOST_PRIVATE } };
	struct cpol p, q;
	uint8_t *b;
	size_t len;

	(void)state;
	sample(&p);
	p.flags |= CPOL_F_NET_HOSTS;
	p.hosts = hosts;
	p.nhosts = 3;
	assert_int_equal(cpol_write(&p, &b, &len, err, sizeof(err)), 0);
	assert_int_equal(cpol_read(b, len, &q, err, sizeof(err)), 0);
	assert_int_equal(q.hosts[0].flags, CPOL_HOST_PRIVATE);
	assert_int_equal(q.hosts[1].flags, 0);
	assert_int_equal(q.hosts[2].flags, CPOL_HOST_PRIVATE);
	assert_int_equal(cpol_private_count(&q), 2);
	free(b);
	cpol_free(&q);
	hosts[2].flags = 0;            /* ::1 without the word */
	assert_int_equal(cpol_write(&p, &b, &len, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "without \"private\""));
	hosts[2].flags = CPOL_HOST_PRIVATE;
	hosts[1].flags = CPOL_HOST_PRIVATE;   /* the word on a public one */
	assert_int_equal(cpol_write(&p, &b, &len, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a host rule for a special"));
	hosts[1].flags = 0;
}

static void test_man_page(void **state)
{
	static const struct { const char *name; unsigned long v; } limits[] = {
		{ "CPOL_MAX_SECTIONS", CPOL_MAX_SECTIONS },
		{ "CPOL_MAX_STR", CPOL_MAX_STR },
		{ "CPOL_MAX_INSNS", CPOL_MAX_INSNS },
		{ "CPOL_MAX_FS", CPOL_MAX_FS },
		{ "CPOL_MAX_NET", CPOL_MAX_NET },
		{ "CPOL_MAX_ENV", CPOL_MAX_ENV },
		{ "CPOL_MAX_ARGV", CPOL_MAX_ARGV },
		{ "CPOL_MAX_RULES", CPOL_MAX_RULES },
		{ "CPOL_MAX_CONDS", CPOL_MAX_CONDS },
		{ "CPOL_MAX_HTTP", CPOL_MAX_HTTP },
		{ "CPOL_MAX_HTTP_RULES", CPOL_MAX_HTTP_RULES },
		{ "CPOL_MAX_HTTP_METHOD", CPOL_MAX_HTTP_METHOD },
		{ "CPOL_MAX_HTTP_PREFIX", CPOL_MAX_HTTP_PREFIX },
		{ "CPOL_MAX_HTTP_HEADER", CPOL_MAX_HTTP_HEADER },
	};
	char *page = calloc(1, 65536), want[128];
	FILE *f = fopen("man/cordon.cpol.5", "r");
	size_t i;

	(void)state;
	assert_non_null(page);
	if (!f)
		fail_msg("cannot open man/cordon.cpol.5 (run from the top "
		    "of the tree)");
	assert_true(fread(page, 1, 65535, f) > 0);
	fclose(f);
	for (i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		snprintf(want, sizeof(want), ".It Dv %s Ta %lu Ta ",
		    limits[i].name, limits[i].v);
		if (!strstr(page, want))
			fail_msg("man page lacks \"%s\"", want);
	}
	assert_int_equal(CPOL_MAX_SIZE, 4u << 20);
	assert_non_null(strstr(page, ".It Dv CPOL_MAX_SIZE Ta 4 MiB"));
	snprintf(want, sizeof(want), "version Ta %u\n", CPOL_VERSION);
	assert_non_null(strstr(page, want));
	snprintf(want, sizeof(want), "hdrlen Ta %u\n", CPOL_HEADER_LEN);
	assert_non_null(strstr(page, want));
	snprintf(want, sizeof(want), "The defined types are 1 to %u.",
	    CPOL_S_MAX);
	assert_non_null(strstr(page, want));
	free(page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_no_rules),
		cmocka_unit_test(test_truncations),
		cmocka_unit_test(test_bit_flips),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_unknown_sections),
		cmocka_unit_test(test_missing_section),
		cmocka_unit_test(test_section_lengths),
		cmocka_unit_test(test_http),
		cmocka_unit_test(test_private),
		cmocka_unit_test(test_man_page),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
