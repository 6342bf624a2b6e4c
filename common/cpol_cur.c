/*
 * cpol_cur.c - the blob reader's cursor: the one way input bytes are read.
 *
 * Every input byte is touched only through struct cur (cpol_read.h), whose
 * single accessor cur_take() checks n <= left and whose error is sticky:
 * after the first fault every read yields zeroes and the fault's message
 * stands.  Used by cpol_read.c (the header) and cpol_readsec.c (each
 * section); calls neither, so the reader's files call one way.
 */
#include <stdlib.h>
#include <string.h>

#include "cpol_read.h"
#include "fault.h"

/* The one place input bytes are read. */
const uint8_t *cur_take(struct cur *c, size_t n, const char *what)
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

uint8_t cur_u8(struct cur *c, const char *what)
{
	const uint8_t *p = cur_take(c, 1, what);

	return p ? p[0] : 0;
}

uint16_t cur_u16(struct cur *c, const char *what)
{
	const uint8_t *p = cur_take(c, 2, what);

	if (!p)
		return 0;
	return (uint16_t)((unsigned int)p[0] | (unsigned int)p[1] << 8);
}

uint32_t cur_u32(struct cur *c, const char *what)
{
	const uint8_t *p = cur_take(c, 4, what);

	if (!p)
		return 0;
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

uint64_t cur_u64(struct cur *c, const char *what)
{
	uint64_t lo = cur_u32(c, what);

	return lo | (uint64_t)cur_u32(c, what) << 32;
}

/* A string: u16 length, bytes, no NUL; returned as a NUL-terminated copy. */
char *cur_str(struct cur *c, const char *what)
{
	uint16_t n = cur_u16(c, what);
	const uint8_t *p;
	char *s;

	if (n > CPOL_MAX_STR) {
		fail(c, "%s: string of %u bytes exceeds %u", what, n,
		    CPOL_MAX_STR);
		return NULL;
	}
	p = cur_take(c, n, what);
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
uint32_t cur_count(struct cur *c, uint32_t lo, uint32_t cap,
    size_t minsize, const char *what)
{
	uint32_t n = cur_u32(c, what);

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

void *cur_alloc(struct cur *c, uint32_t n, size_t size)
{
	void *p;

	if (c->f.bad || n == 0)
		return NULL;
	p = calloc(n, size);
	if (!p)
		fail(c, "out of memory");
	return p;
}
