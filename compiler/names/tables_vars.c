/*
 * tables_vars.c - the $NAMEs cordon binds in a policy, and where each may
 * stand: the one list.  check/ refuses every other $NAME with it (a
 * typo's "did you mean" among those allowed there) and says which are.
 */
#include <stdio.h>
#include <string.h>

#include "tables.h"

static const struct var {
	const char *name;     /* without the '$' */
	unsigned int where;   /* TABLES_VAR_* */
} vars[] = {
	{ "WORKDIR", TABLES_VAR_PATH | TABLES_VAR_COMMAND | TABLES_VAR_ENV },
	{ "SNIPPET", TABLES_VAR_PATH | TABLES_VAR_COMMAND },
};

#define NVARS (sizeof(vars) / sizeof(vars[0]))

unsigned int tables_vars(unsigned int where, const char **out,
    unsigned int max)
{
	unsigned int n = 0;

	for (size_t i = 0; i < NVARS && n + 1 < max; i++)
		if (vars[i].where & where)
			out[n++] = vars[i].name;
	if (max)
		out[n] = NULL;
	return n;
}

int tables_var_bound(const char *name, size_t len, unsigned int where)
{
	for (size_t i = 0; i < NVARS; i++)
		if ((vars[i].where & where) && strlen(vars[i].name) == len &&
		    strncmp(vars[i].name, name, len) == 0)
			return 1;
	return 0;
}

const char *tables_vars_say(unsigned int where, char *buf, size_t len)
{
	const char *v[NVARS + 1];
	unsigned int n = tables_vars(where, v, NVARS + 1), i;
	size_t o = 0;

	buf[0] = 0;
	for (i = 0; i < n && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s$%s", i == 0 ? "" :
		    i + 1 == n ? " and " : ", ", v[i]);
	return buf;
}
