/*
 * compile.h - the one compile driver: a source through parse, check,
 * emit and translation validation, giving a struct cpol with its BPF and
 * the source map (what only a source knows: where each statement is, the
 * lint suppression comments, the expectations, the files read).
 * `cordonc compile` and `explain` write or show the cpol; the audit tools
 * (input.h) keep the map too.
 */
#ifndef CORDON_COMPILE_H
#define CORDON_COMPILE_H

#include <stdio.h>

#include "check.h"
#include "cpol.h"
#include "parse.h"

/* How to compile: -I directories, -D definitions, where diagnostics go. */
struct compile_opts {
	const char *incdirs[PARSE_MAX_INCDIRS];
	unsigned int nincdirs;
	struct parse_define defines[PARSE_MAX_DEFINES];
	unsigned int ndefines;
	int werror;                /* warnings count as errors */
	int cli;                   /* compile's and explain's messages:
	                            * "cordonc: error: FILE: ..." and the
	                            * "N errors; nothing written" line */
	FILE *errf;
};

/* Statement kinds whose location lint and audit report. */
enum compile_stmt_kind {
	INPUT_POLICY = 1,   /* the `policy "name";` statement (key: name) */
	INPUT_PATH,         /* key: the path as written */
	INPUT_ENV,          /* key: the variable name */
	INPUT_NETWORK,      /* key: NULL */
	INPUT_LIMIT,        /* key: cpol_rlim_name() ("as", "nproc") */
	INPUT_TIMEOUT,
	INPUT_OUTPUT,
	INPUT_DEFAULT,
	INPUT_LANDLOCK,     /* `landlock N;` */
	INPUT_BEST_EFFORT,  /* `best-effort landlock;` or `private` best effort */
	INPUT_COMMAND,
	INPUT_SESSION,      /* `session 1h;` */
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

/* The source map.  Expectations point into src (the parsed source). */
struct compile_map {
	struct input_stmt *stmts;
	unsigned int nstmts;
	struct input_suppress *sups;
	unsigned int nsups;
	struct check_expect *expects;
	unsigned int nexpects;
	struct policy *src;
	char **file_names;         /* display names of the sources read */
	char **file_paths;         /* and the paths they were opened by */
	unsigned int nfiles;
};

/*
 * compile_source: path through every pass into *pol (with BPF, proved by
 * the interpreter) and, when map is not NULL, *map.  Returns 0, or -1
 * with the reasons on o->errf (*pol and *map empty).  Out of memory
 * anywhere is an error, never a smaller policy.
 */
int compile_source(const char *path, const struct compile_opts *o,
    struct cpol *pol, struct compile_map *map);
void compile_map_free(struct compile_map *map);

/* Whether path starts with the blob magic (CPOL_MAGIC); 0 when it cannot
 * be read (the source reader then reports why). */
int compile_is_blob(const char *path);

#endif
