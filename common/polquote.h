/*
 * polquote.h - a name written as the policy language reads it back
 * (grammar/lexer.l, cordon.policy(5)), for every program that advises a
 * rule: `cordonc learn`'s policy, cordon's `add:` lines (audit and
 * --landlock-watch).  A path is bare when every byte is a bare path's,
 * else quoted, with \" and \\ (the only escapes there are).  A name the
 * language cannot say as it is has a problem, and is not advised: a
 * newline or NUL ends a string, "${" is substituted inside one
 * (check/value.c) and has no escape; control and bidirectional
 * characters and bytes that are not UTF-8 would be written raw into a
 * line meant for review.  Names inside comments (notes) are written with
 * every byte outside printable ASCII as \xNN.
 */
#ifndef CORDON_POLQUOTE_H
#define CORDON_POLQUOTE_H

#include <stddef.h>

/* One string literal's bytes, at most (PATH_MAX): the lexer refuses a
 * longer one (compiler/front/parse.h's PARSE_MAX_STRING is this). */
#define POLQ_STRING_MAX 4096

typedef void polq_put_fn(void *ctx, const char *p, size_t n);

/* put for a FILE * ctx. */
void polq_put_file(void *ctx, const char *p, size_t n);

/* Why a policy string cannot hold s as written, or NULL. */
const char *polq_string_problem(const char *s);
/* The same for a rule's path, which must also be absolute and canonical
 * (cpol_path_ok). */
const char *polq_path_problem(const char *path);

/* s as a policy string: quoted, \" and \\ escaped. */
void polq_string(const char *s, polq_put_fn *put, void *ctx);
/* A path statement's path: bare where it lexes so, else quoted. */
void polq_path(const char *path, polq_put_fn *put, void *ctx);
/* Any name inside a comment: printable ASCII, every other byte \xNN,
 * a backslash doubled. */
void polq_note(const char *s, polq_put_fn *put, void *ctx);

#endif
