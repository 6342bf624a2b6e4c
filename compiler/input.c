/*
 * input.c - load a policy for the audit tools (see input.h): a blob as
 * is, or a source through the compile driver (compile.c) with its source
 * map; where a statement or a file is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input.h"

const char *input_file_path(const struct input *in, const char *name)
{
	for (unsigned int i = 0; i < in->map.nfiles; i++)
		if (strcmp(in->map.file_names[i], name) == 0)
			return in->map.file_paths[i];
	return name;
}

const char *input_file_shown(const struct input *in, const char *name)
{
	if (in->map.nfiles && strcmp(in->map.file_names[0], name) == 0)
		return in->path;
	return name;
}

int input_file_included(const struct input *in, const char *name)
{
	for (unsigned int i = 1; i < in->map.nfiles; i++)
		if (strcmp(in->map.file_names[i], name) == 0)
			return 1;
	return 0;
}

const struct input_stmt *input_stmt_find(const struct input *in, int kind,
    const char *key)
{
	const struct input_stmt *hit = NULL;

	for (unsigned int i = 0; i < in->map.nstmts; i++) {
		const struct input_stmt *s = &in->map.stmts[i];

		if (s->kind == kind && (!key || (s->key &&
		    strcmp(s->key, key) == 0)))
			hit = s;   /* the last one wins, as in merging */
	}
	return hit;
}

const char *input_where(const struct input *in, int kind, const char *key,
    unsigned int *line)
{
	const struct input_stmt *hit = input_stmt_find(in, kind, key);

	for (unsigned int i = 0; !hit && i < in->map.nstmts; i++)
		if (in->map.stmts[i].kind == INPUT_POLICY)
			hit = &in->map.stmts[i];
	if (hit) {
		*line = hit->line;
		return hit->file;
	}
	*line = 0;
	return in->path;
}

int input_load(const char *path, const struct compile_opts *o,
    struct input *in)
{
	char err[512];

	memset(in, 0, sizeof(*in));
	if (!(in->path = strdup(path))) {
		fprintf(o->errf, "%s: out of memory\n", path);
		return -1;
	}
	if (compile_is_blob(path)) {
		if (cpol_load(path, 0, &in->pol, err, sizeof(err)) == 0)
			return 0;
		fprintf(o->errf, "%s: %s\n", path, err);
		input_free(in);
		return -1;
	}
	in->is_source = 1;
	if (compile_source(path, o, &in->pol, &in->map) == 0)
		return 0;
	input_free(in);
	return -1;
}

void input_free(struct input *in)
{
	cpol_free(&in->pol);
	compile_map_free(&in->map);
	free(in->path);
	memset(in, 0, sizeof(*in));
}
