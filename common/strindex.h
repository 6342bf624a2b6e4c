/*
 * strindex.h - an index of strings: each names one slot of the caller's
 * own array (open addressing, grown as it fills; the strings stay the
 * caller's).  cordon's learn mode and cordonc learn find a path among
 * thousands with it, where a scan of a table was a bound.
 */
#ifndef CORDON_STRINDEX_H
#define CORDON_STRINDEX_H

#include <stddef.h>
#include <stdint.h>

#define STRINDEX_NONE UINT32_MAX

struct strindex {
	struct strindex_slot { const char *key; uint32_t at; } *slot;
	size_t cap, n;
};

/* The slot s names, or STRINDEX_NONE. */
uint32_t strindex_find(const struct strindex *x, const char *s);
/* s (kept as the pointer, not copied) names slot at: 0, or -1 (out of
 * memory; x unchanged).  s must not be in x yet. */
int strindex_add(struct strindex *x, const char *s, uint32_t at);
/* The index's own memory in bytes (the caller's budget). */
size_t strindex_bytes(const struct strindex *x);
void strindex_free(struct strindex *x);

#endif
