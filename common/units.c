/* units.c - the units of sizes and times (units.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

static const struct cpol_unit_def units[] = {
	{ "K", CPOL_UNIT_SIZE, 1ull << 10 }, { "M", CPOL_UNIT_SIZE, 1ull << 20 },
	{ "G", CPOL_UNIT_SIZE, 1ull << 30 }, { "T", CPOL_UNIT_SIZE, 1ull << 40 },
	{ "ms", CPOL_UNIT_TIME, 1 }, { "s", CPOL_UNIT_TIME, 1000 },
	{ "m", CPOL_UNIT_TIME, 60000 }, { "h", CPOL_UNIT_TIME, 3600000 },
};

#define NUNITS (sizeof(units) / sizeof(units[0]))

const struct cpol_unit_def *cpol_unit_find(const char *name)
{
	size_t i;

	for (i = 0; name && i < NUNITS; i++)
		if (strcmp(units[i].name, name) == 0)
			return &units[i];
	return NULL;
}

const struct cpol_unit_def *cpol_unit_at(size_t i)
{
	return i < NUNITS ? &units[i] : NULL;
}

uint64_t cpol_unit_bare(enum cpol_unit kind)
{
	return kind == CPOL_UNIT_TIME ? 1000 : 1;
}

const struct cpol_unit_def *cpol_unit_whole(enum cpol_unit kind,
    uint64_t v, uint64_t max)
{
	const struct cpol_unit_def *best = NULL;
	size_t i;

	for (i = 0; i < NUNITS; i++)
		if (units[i].kind == kind && units[i].scale <= max &&
		    v % units[i].scale == 0 &&
		    (!best || units[i].scale > best->scale))
			best = &units[i];
	return best;
}

const char *cpol_unit_format(enum cpol_unit kind, uint64_t v, char *buf,
    size_t len)
{
	/* 0: the smallest unit, "0ms", or bare "0" for a size */
	const struct cpol_unit_def *u = cpol_unit_whole(kind, v,
	    v ? UINT64_MAX : 1);
	snprintf(buf, len, "%llu%s", (unsigned long long)(u ? v / u->scale :
	    v), u ? u->name : "");
	return buf;
}

int cpol_size_parse(const char *s, uint64_t *v)
{
	const struct cpol_unit_def *u;
	unsigned long long n;
	uint64_t scale = 1;
	char *end;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end) {
		u = cpol_unit_find(end);
		if (!u || u->kind != CPOL_UNIT_SIZE)
			return -1;
		scale = u->scale;
	}
	if (n > (UINT64_MAX - 1) / scale)
		return -1;
	*v = (uint64_t)n * scale;
	return 0;
}
