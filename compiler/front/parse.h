/*
 * parse.h - read a policy source and its includes into one statement
 * list (in reading order), with definitions and lint comments.
 */
#ifndef CORDON_PARSE_H
#define CORDON_PARSE_H

#include <stddef.h>

#include "ast.h"
#include "diag.h"
#include "polquote.h"

/* Caps on what a source may make the compiler hold.  Each bounds memory
 * or recursion; real policies are far below them. */
#define PARSE_MAX_FILE_SIZE (1u << 20)  /* one source file: 1 MiB */
#define PARSE_MAX_DEPTH 16              /* include nesting */
#define PARSE_MAX_FILES 256             /* files read in one compile */
#define PARSE_MAX_INCDIRS 32            /* -I directories */
#define PARSE_MAX_DEFINES 256           /* -D definitions */
#define PARSE_MAX_STRING POLQ_STRING_MAX /* one string literal (polquote.h) */

/* A "# cordon-lint: ..." comment, kept for the lint subcommand. */
struct parse_lint {
	const char *file;
	int line;
	char *text;          /* what follows "cordon-lint:", trimmed */
	struct parse_lint *next;
};

/* One file read (an include instance).  name is the display name:
 * relative to the top file's directory, or to the -I directory. */
struct parse_file {
	char *name;
	char *path;          /* how it was opened */
	char *text;
	size_t len;
	unsigned int depth;
};

/* A command-line definition (-D NAME=VALUE). */
struct parse_define {
	char *name;
	char *value;
};

struct policy {
	struct ast_stmt *stmts;        /* every file's, in reading order */
	struct parse_file *files;      /* index = ast_stmt.file */
	unsigned int nfiles;
	struct parse_define defines[PARSE_MAX_DEFINES];
	unsigned int ndefines;
	struct parse_lint *lint;       /* in reading order */
	unsigned char digest[32];      /* SHA-256 of the sources, as read */
};

/* A token as read: where, and its text in the source (len 0 if it
 * spans lines).  For "missing ';' after ...". */
struct lex_tok {
	struct ast_loc loc;
	size_t off;
	int len;
};

/* Lexer state (flex's yyextra), one per file being scanned. */
struct lex_state {
	const char *src;            /* the text being scanned */
	size_t pos;                 /* offset of the next character */
	struct lex_tok last;        /* the last token read (the lookahead) */
	struct lex_tok prev;        /* the one before it */
	const char *file;
	int line;
	int col;
	struct diag *diag;
	struct ast_loc str_start;   /* where the open string/comment began */
	char *buf;                  /* string being scanned */
	size_t len;
	size_t cap;
	int overflow;               /* string longer than PARSE_MAX_STRING */
	struct parse_lint **lint_tail;
	struct ast_stmt *stmts;     /* parser output, last first */
};

/*
 * parse_policy: read path and everything it includes.  incdirs: -I
 * directories, searched after the including file's directory.  defines:
 * -D NAME=VALUE, which override define statements.  Errors go to d.
 * Returns 0 (check diag_errors for syntax errors), -1 if the top file
 * could not be read or memory ran out.
 */
int parse_policy(struct policy *p, const char *path,
    const char *const *incdirs, unsigned int nincdirs,
    const struct parse_define *defines, unsigned int ndefines,
    struct diag *d);

/* Where includes are looked for after the -I directories: the installed
 * shipped policies, $(PREFIX)/share/cordon/policies (incsearch.c). */
extern const char parse_default_incdir[];

/* A *.policy name near inc in dirs (and their subdirectories), into out;
 * 1 when there is one.  For "cannot find included file". */
int parse_include_suggest(const char *inc, const char *const *dirs,
    unsigned int ndirs, char *out, size_t outlen);

/* Parse one buffer (no includes followed); for unit tests and fuzzing. */
struct ast_stmt *parse_buffer(const char *name, const char *text, size_t len,
    struct diag *d, struct parse_lint **lint);

/* Lint-suppression comments of a parsed policy, in reading order. */
const struct parse_lint *parse_lint_comments(const struct policy *p);

void parse_free(struct policy *p);

#endif
