/* strindex.c - an index of strings (strindex.h). */
#include <stdlib.h>
#include <string.h>

#include "strindex.h"

#define STRINDEX_FIRST 64     /* slots at the first add; a power of 2 */

/* FNV-1a, 64 bits. */
static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* The slot holding s, or the empty one where it would go. */
static size_t probe(const struct strindex_slot *slot, size_t cap,
    const char *s)
{
	size_t i = (size_t)hash(s) & (cap - 1);

	while (slot[i].key && strcmp(slot[i].key, s) != 0)
		i = (i + 1) & (cap - 1);
	return i;
}

uint32_t strindex_find(const struct strindex *x, const char *s)
{
	size_t i;

	if (!x->cap)
		return STRINDEX_NONE;
	i = probe(x->slot, x->cap, s);
	return x->slot[i].key ? x->slot[i].at : STRINDEX_NONE;
}

/* Twice the slots (or the first ones), every key placed again. */
static int grow(struct strindex *x)
{
	size_t cap = x->cap ? x->cap * 2 : STRINDEX_FIRST, i;
	struct strindex_slot *slot;

	if (cap > SIZE_MAX / sizeof(*slot))
		return -1;
	slot = calloc(cap, sizeof(*slot));
	if (!slot)
		return -1;
	for (i = 0; i < x->cap; i++)
		if (x->slot[i].key)
			slot[probe(slot, cap, x->slot[i].key)] = x->slot[i];
	free(x->slot);
	x->slot = slot;
	x->cap = cap;
	return 0;
}

int strindex_add(struct strindex *x, const char *s, uint32_t at)
{
	size_t i;

	/* At most half full: probes stay short. */
	if ((x->n + 1) * 2 > x->cap && grow(x) < 0)
		return -1;
	i = probe(x->slot, x->cap, s);
	x->slot[i].key = s;
	x->slot[i].at = at;
	x->n++;
	return 0;
}

size_t strindex_bytes(const struct strindex *x)
{
	return x->cap * sizeof(*x->slot);
}

void strindex_free(struct strindex *x)
{
	free(x->slot);
	memset(x, 0, sizeof(*x));
}
