/*
 * units.h - the units of sizes and times, one table for both programs:
 * K, M, G, T (powers of 1024) after a size; ms, s, m, h after a time.
 * A size without a unit is bytes, a time seconds.  cordonc's values
 * (check/value.c) and the lexer's "decimals are not allowed; write
 * 512M" read them here; so does cordon's --limit.
 */
#ifndef CORDON_UNITS_H
#define CORDON_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "cpol.h"            /* enum cpol_unit: size, time, count */

struct cpol_unit_def {
	const char *name;           /* as written after the number */
	enum cpol_unit kind;        /* CPOL_UNIT_SIZE or CPOL_UNIT_TIME */
	uint64_t scale;             /* in bytes, or in milliseconds */
};

/* The unit spelled exactly name ("m" is minutes, "M" mebibytes), or
 * NULL. */
const struct cpol_unit_def *cpol_unit_find(const char *name);

/* The i-th unit, smallest first within each kind; NULL past the last. */
const struct cpol_unit_def *cpol_unit_at(size_t i);

/* The scale of a number written without a unit: 1 for a size (bytes),
 * 1000 for a time (seconds, in milliseconds). */
uint64_t cpol_unit_bare(enum cpol_unit kind);

/* The largest unit of kind, of scale max at most, that divides v (in
 * bytes or milliseconds; 0 is divided by all), or NULL: none does. */
const struct cpol_unit_def *cpol_unit_whole(enum cpol_unit kind,
    uint64_t v, uint64_t max);

/* v (bytes, or milliseconds) as the policy language writes it, in the
 * largest unit that divides it: "512M", "4097", "10m", "1500ms"; 0 is
 * "0" or "0ms".  Written to buf; returns buf. */
const char *cpol_unit_format(enum cpol_unit kind, uint64_t v, char *buf,
    size_t len);

/* A size as cordon's options take it: decimal digits, then nothing or
 * one size unit ("512M").  0 with *v set, or -1 (a sign, space or other
 * unit; UINT64_MAX and above, which is "unlimited"). */
int cpol_size_parse(const char *s, uint64_t *v);

#endif
