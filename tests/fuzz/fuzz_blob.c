/*
 * fuzz_blob.c - any bytes into the blob reader (cpol_read).
 *
 * Properties, for every input:
 *   - cpol_read accepts or refuses; it never crashes, reads out of
 *     bounds, leaks or trips UBSan; a refusal comes with a message; the
 *     launcher's reading (CPOL_READ_NO_RULES) accepts and refuses alike;
 *   - an accepted blob explains (text and JSON) and re-serialises with
 *     cpol_write, which must succeed, to the very same bytes, once the
 *     unknown non-critical sections (which cpol.h says a reader skips)
 *     are taken out of the input.
 *
 * The checksum would stop almost every mutation at the header, so each
 * input is tried twice: as given, and with the size and SHA-256 fields
 * of the header patched to match the bytes (the way cpol_write seals a
 * blob).  The second try is what lets the fuzzer reach the sections.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpol.h"
#include "fuzz.h"
#include "sha256.h"
#ifdef FUZZ_HAVE_EXPLAIN
#include "explain.h"
#endif


static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, size_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void seal(uint8_t *buf, size_t len)
{
	struct sha256 h;

	put32(buf + 16, len);
	sha256_init(&h);
	sha256_update(&h, buf, CPOL_SUM_OFF);
	sha256_update(&h, buf + CPOL_HEADER_LEN, len - CPOL_HEADER_LEN);
	sha256_final(&h, buf + CPOL_SUM_OFF);
}

/*
 * The canonical form of an accepted blob: the same bytes without the
 * sections this reader skips (unknown type, not critical), with the
 * section count and checksum fixed.  This is the oracle's own walk of
 * the section headers; the input was accepted, but it checks bounds
 * anyway.  Returns a heap copy and its length in *outlen.
 */
static uint8_t *canonical(const uint8_t *in, size_t len, size_t *outlen)
{
	uint8_t *out = malloc(len);
	size_t at = CPOL_HEADER_LEN, o = CPOL_HEADER_LEN;
	uint32_t nsect, i, kept = 0;

	if (!out)
		fuzz_fail("out of memory");
	memcpy(out, in, CPOL_HEADER_LEN);
	nsect = get32(in + 20);
	for (i = 0; i < nsect; i++) {
		unsigned int type;
		size_t slen;

		if (len - at < 8)
			fuzz_fail("accepted blob: section header %u cut", i);
		type = (unsigned int)(in[at] | in[at + 1] << 8);
		slen = get32(in + at + 4);
		if (len - at - 8 < slen)
			fuzz_fail("accepted blob: section %u overruns", type);
		if (type <= CPOL_S_MAX) {
			memcpy(out + o, in + at, 8 + slen);
			o += 8 + slen;
			kept++;
		}
		at += 8 + slen;
	}
	put32(out + 20, kept);
	seal(out, o);
	*outlen = o;
	return out;
}

static void roundtrip(const uint8_t *data, size_t size, struct cpol *p)
{
	char err[512];
	uint8_t *again, *canon;
	size_t againlen, canonlen;

	if (cpol_write(p, &again, &againlen, err, sizeof(err)) < 0)
		fuzz_fail("accepted blob does not re-serialise: %s", err);
	canon = canonical(data, size, &canonlen);
	if (againlen != canonlen || memcmp(again, canon, canonlen) != 0)
		fuzz_fail("re-serialised blob differs from the input "
		    "(%zu bytes, canonical input %zu bytes)", againlen,
		    canonlen);
	free(canon);
	free(again);
}

static void one(const uint8_t *data, size_t size)
{
	struct cpol p, lean;
	char err[512], lean_err[512];
	int rc;

	err[0] = '\0';
	rc = cpol_read(data, size, &p, err, sizeof(err));
	/* The launcher's reading (no rules table) must agree. */
	if ((cpol_read_flags(data, size, CPOL_READ_NO_RULES, &lean, lean_err,
	    sizeof(lean_err)) == 0) != (rc == 0))
		fuzz_fail("with and without the rules table disagree");
	if (rc == 0)
		cpol_free(&lean);
	if (rc < 0) {
		if (fuzz_expect_accept)
			fuzz_fail("refused a blob that must be accepted: %s",
			    err);
		if (err[0] == '\0')
			fuzz_fail("refused without a message");
		if (p.name || p.insns || p.rules || p.nrules)
			fuzz_fail("refused, but *out is not empty");
		return;
	}
#ifdef FUZZ_HAVE_EXPLAIN
	if (explain_text(fuzz_null, &p) < 0)
		fuzz_fail("explain_text failed on an accepted blob");
	if (explain_json(fuzz_null, &p) < 0)
		fuzz_fail("explain_json failed on an accepted blob");
#endif
	roundtrip(data, size, &p);
	cpol_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	one(data, size);
	if (size < CPOL_HEADER_LEN || size > CPOL_MAX_SIZE)
		return 0;
	/* Exactly size bytes, so ASan catches a read past the end. */
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	seal(copy, size);
	one(copy, size);
	free(copy);
	return 0;
}
