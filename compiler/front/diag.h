/*
 * diag.h - compiler diagnostics: "file:line:col: error: message", the
 * source line, a caret under the column.  Every error is reported (the
 * first DIAG_MAX_ERRORS in source order), sorted by place when flushed;
 * any error means no output.
 */
#ifndef CORDON_DIAG_H
#define CORDON_DIAG_H

#include <stdio.h>

#include "ast.h"

/* After this many errors the rest are counted but not printed: a broken
 * file should not scroll its first, most useful, errors away. */
#define DIAG_MAX_ERRORS 50

struct diag;

/* Messages go to out (stderr in cordonc, a memory stream in tests). */
struct diag *diag_new(FILE *out);
/* The one "did you mean" of every "unknown NAME" message: "; did you mean
 * BEFORE sug AFTER?" in buf (AFTER: "@", "\"" or ""), or "" when sug is
 * NULL. */
#define DIAG_SUGGEST_MAX 192
const char *diag_did_you_mean(char *buf, size_t len, const char *before,
    const char *sug, const char *after);
void diag_free(struct diag *d);
/* Treat warnings as errors. */
void diag_set_werror(struct diag *d, int on);

/* Remember a file's text so that messages can quote its lines.  name is
 * the display name used in locations; text must outlive d. */
int diag_source(struct diag *d, const char *name, const char *text,
    size_t len);

/* loc may be NULL (a message about the whole run). */
void diag_error(struct diag *d, const struct ast_loc *loc,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_warning(struct diag *d, const struct ast_loc *loc,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A note attached to the previous message (e.g. "first defined here"). */
void diag_note(struct diag *d, const struct ast_loc *loc,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Print the messages so far in source order (file in reading order,
 * line, column; messages with no place last), then forget them.
 * diag_free flushes too; source texts must still be alive. */
void diag_flush(struct diag *d);

/* Errors so far, warnings counted when -Werror is on. */
unsigned int diag_errors(const struct diag *d);

#endif
