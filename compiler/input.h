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

#include "check.h"
#include "cpol.h"

/* Statement kinds whose location lint and audit report. */
enum input_stmt_kind {
	INPUT_POLICY = 1,   /* the `policy "name";` statement (key: name) */
	INPUT_PATH,         /* key: the path as compiled ("$WORKDIR/out") */
	INPUT_ENV,          /* key: the variable name */
	INPUT_NETWORK,      /* key: NULL */
	INPUT_LIMIT,        /* key: cpol_rlim_name() ("as", "nproc") */
	INPUT_TIMEOUT,
	INPUT_OUTPUT,
	INPUT_DEFAULT,
	INPUT_LANDLOCK,     /* `landlock N;` */
	INPUT_BEST_EFFORT,  /* `best-effort landlock;` or `private` best effort */
	INPUT_COMMAND,
};

struct input_stmt {
	int kind;
	char *key;
	char *file;
	unsigned int line;
};

/* `# cordon-lint: ignore ID reason` (reason may be empty: then it does
 * not suppress, and lint reports the comment itself). */
struct input_suppress {
	char *id;
	char *reason;
	char *file;
	unsigned int line;
};

struct input {
	char *path;                /* as named on the command line */
	int is_source;
	struct cpol pol;
	struct input_stmt *stmts;
	unsigned int nstmts;
	struct input_suppress *sups;
	unsigned int nsups;
	struct check_expect *expects;  /* check.h; empty for a blob */
	unsigned int nexpects;
	struct policy *src;        /* the parsed source (expectations point
	                            * into it); NULL for a blob */
	char **file_names;         /* display names of the sources read */
	char **file_paths;         /* and the paths they were opened by */
	unsigned int nfiles;
};

/* How to compile sources: -I directories, -D definitions, where
 * diagnostics go. */
struct input_opts {
	const char *incdirs[PARSE_MAX_INCDIRS];
	unsigned int nincdirs;
	struct parse_define defines[PARSE_MAX_DEFINES];
	unsigned int ndefines;
	FILE *errf;
};

/*
 * input_load: a blob (starts with CPOL_MAGIC) is read with cpol_load; a
 * source is compiled in memory through the compiler's own passes (parse,
 * check, emit, translation validation), as `cordonc compile` would.
 * Returns 0, or -1 with the reason on o->errf (*in empty).
 */
int input_load(const char *path, const struct input_opts *o,
    struct input *in);
void input_free(struct input *in);

/* input_where: file and line of the statement (kind, key); key NULL
 * matches any.  Falls back to the `policy` statement, then to in->path
 * with line 0 (unknown).  Never NULL. */
const char *input_where(const struct input *in, int kind, const char *key,
    unsigned int *line);

/* The path a source file was opened by, for its display name (as in
 * origins and locations); name itself when unknown. */
const char *input_file_path(const struct input *in, const char *name);

/* Split an origin "file:line" into *line, returning a heap copy of file. */
char *input_origin_file(const char *origin, unsigned int *line);

#endif
