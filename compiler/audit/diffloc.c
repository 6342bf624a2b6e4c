/*
 * diffloc.c - origins for the changes whose blob section carries none
 * (limits, timeout, output, paths, environment, command, default): the
 * statement that decides it in NEW's source, else in OLD's (a removed
 * one; a session's, without the statement, the timeout's), as
 * "file:line" with the file as reports show it (input.h).
 * Syscall changes keep the rule origins diffsys.c found in the blobs.
 */
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "input.h"

static const struct {
	const char *kind;
	int stmt;
	int keyed;          /* the change's subject is the statement's key */
} kinds[] = {
	{ "limit", INPUT_LIMIT, 1 }, { "timeout", INPUT_TIMEOUT, 0 },
	{ "output", INPUT_OUTPUT, 0 }, { "path", INPUT_PATH, 1 },
	{ "env", INPUT_ENV, 1 }, { "command", INPUT_COMMAND, 0 },
	{ "default", INPUT_DEFAULT, 0 }, { "network", INPUT_NETWORK, 0 },
	{ "session", INPUT_SESSION, 0 },
	{ "session", INPUT_TIMEOUT, 0 },    /* no session statement: the
					     * timeout decides (cpol.h) */
};

static char *locate(const struct input *in, int stmt, const char *key)
{
	const struct input_stmt *s = input_stmt_find(in, stmt, key);

	if (!s)
		return NULL;
	return cpol_origin_format(input_file_shown(in, s->file), s->line);
}

int diff_locate(struct diff_list *l, const struct input *old,
    const struct input *new)
{
	for (unsigned int i = 0; i < l->n; i++) {
		struct diff_change *c = &l->v[i];

		for (size_t k = 0; !c->origin && k < sizeof(kinds) /
		    sizeof(kinds[0]); k++) {
			const char *key = kinds[k].keyed ? c->subject : NULL;

			if (strcmp(c->kind, kinds[k].kind) != 0)
				continue;
			if (!input_stmt_find(new, kinds[k].stmt, key) &&
			    !input_stmt_find(old, kinds[k].stmt, key))
				continue;   /* the kind's next statement */
			c->origin = locate(input_stmt_find(new, kinds[k].stmt,
			    key) ? new : old, kinds[k].stmt, key);
			if (!c->origin)
				return -1;
		}
	}
	return 0;
}
