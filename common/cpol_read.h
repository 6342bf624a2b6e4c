/*
 * cpol_read.h - the blob reader's inside, shared by its three files:
 * cpol_cur.c (the cursor), cpol_read.c (the header and its table of
 * sections, the checksum) and cpol_readsec.c (each section's reader).
 * Calls go one way: cpol_read.c -> cpol_readsec.c -> cpol_cur.c.  Not public:
 * everything else reads a blob through cpol.h.
 */
#ifndef CORDON_CPOL_READ_H
#define CORDON_CPOL_READ_H

#include <stddef.h>
#include <stdint.h>

#include "cpol.h"
#include "fault.h"

struct cur {
	const uint8_t *p;
	size_t left;
	struct fault f;
};

#define fail(c, ...) fault(&(c)->f, __VA_ARGS__)

/* cpol_cur.c: the cursor, the one way input bytes are read */
const uint8_t *cur_take(struct cur *c, size_t n, const char *what);
uint8_t cur_u8(struct cur *c, const char *what);
uint16_t cur_u16(struct cur *c, const char *what);
uint32_t cur_u32(struct cur *c, const char *what);
uint64_t cur_u64(struct cur *c, const char *what);
char *cur_str(struct cur *c, const char *what);
uint32_t cur_count(struct cur *c, uint32_t lo, uint32_t cap,
    size_t minsize, const char *what);
void *cur_alloc(struct cur *c, uint32_t n, size_t size);

/* cpol_readsec.c: one section of len bytes, read by its type's reader */
void cur_section(struct cur *c, struct cpol *p, unsigned int type,
    uint32_t len, unsigned int flags);

#endif
