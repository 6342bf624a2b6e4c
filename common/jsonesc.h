/*
 * jsonesc.h - the body of a JSON string, escaped one way for both
 * programs: " and \ backslashed, \n \t \r short, every other control
 * byte (and DEL) as \u00XX, everything else as is.  It allocates
 * nothing: the bytes go through the caller's put (a FILE, or the
 * launcher's fixed report buffer).
 */
#ifndef CORDON_JSONESC_H
#define CORDON_JSONESC_H

#include <stddef.h>

typedef void json_put_fn(void *ctx, const char *p, size_t n);

/* Write s escaped, without the surrounding quotes, through put(ctx). */
void json_escape(const char *s, json_put_fn *put, void *ctx);

#endif
