/*
 * input.h - one policy as the audit tools (test, lint, diff, verify,
 * audit) see it: a struct cpol, compiled in memory from a source or read
 * from a blob, plus what only a source knows: where each statement is,
 * the lint suppression comments and the expectations.  For a blob the
 * source-only arrays are empty and locations fall back to the blob file.
 */
#ifndef CORDON_INPUT_H
#define CORDON_INPUT_H

#include <stdint.h>
#include <stdio.h>

#include "compile.h"
#include "cpol.h"

struct input {
	char *path;                /* as named on the command line */
	int is_source;
	struct cpol pol;
	struct compile_map map;    /* compile.h; empty for a blob */
};

/*
 * input_load: a blob (starts with CPOL_MAGIC) is read with cpol_load; a
 * source is compiled in memory by compile_source, as `cordonc compile`
 * would, keeping its source map.
 * Returns 0, or -1 with the reason on o->errf (*in empty).
 */
int input_load(const char *path, const struct compile_opts *o,
    struct input *in);
void input_free(struct input *in);

/* The statement (kind, key) that decides (the last one, as merging
 * reads them); key NULL matches any.  NULL when none (or a blob). */
const struct input_stmt *input_stmt_find(const struct input *in, int kind,
    const char *key);

/* input_where: file and line of the statement (kind, key); key NULL
 * matches any.  Falls back to the `policy` statement, then to in->path
 * with line 0 (unknown).  Never NULL. */
const char *input_where(const struct input *in, int kind, const char *key,
    unsigned int *line);

/* The path a source file was opened by, for its display name (as in
 * origins and locations); name itself when unknown. */
const char *input_file_path(const struct input *in, const char *name);

/* How reports show a source file (display name): the policy itself as
 * named on the command line, an included file by its name as the
 * include wrote it (relative to the including policy's directory or to
 * the -I directory it was found in), never the path it was opened by
 * (an -I or installed directory would make it absolute). */
const char *input_file_shown(const struct input *in, const char *name);

/* 1 when display name is one of the files the policy included (not
 * the policy's own file). */
int input_file_included(const struct input *in, const char *name);

#endif
