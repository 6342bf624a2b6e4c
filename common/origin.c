/*
 * origin.c - a rule's origin, the "file:line" string the blob carries
 * (cpol.h RULES): written by the compiler's check, read back by lint and
 * the audit tools.  The one place that knows its syntax.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpol.h"

char *cpol_origin_format(const char *file, unsigned int line)
{
	char *s;

	if (!file)
		return strdup(CPOL_ORIGIN_BUILTIN);
	if (asprintf(&s, "%s:%u", file, line) < 0)
		return NULL;
	return s;
}

char *cpol_origin_split(const char *origin, unsigned int *line)
{
	const char *colon = origin ? strrchr(origin, ':') : NULL;
	char *end;
	unsigned long n;

	*line = 0;
	if (!origin)
		return strdup("-");
	if (!colon || colon[1] == '\0')
		return strdup(origin);
	errno = 0;
	n = strtoul(colon + 1, &end, 10);
	if (*end || errno || n > 0xffffffffu)
		return strdup(origin);
	*line = (unsigned int)n;
	return strndup(origin, (size_t)(colon - origin));
}
