/*
 * jsonesc.h - the body of a JSON string, escaped one way for both
 * programs, so that every byte sequence gives valid JSON text (RFC 8259,
 * UTF-8) and the bytes can be had back: " and \ backslashed, \n \t \r
 * short, every other control byte (and DEL) as \u00XX, each valid UTF-8
 * sequence as is, and each byte that is not part of one (0x80..0xff) as
 * \udcXX, XX its value: a lone low surrogate, the mapping of Python's
 * "surrogateescape" (PEP 383), so os.fsencode() of the decoded string
 * gives the bytes back, and no valid UTF-8 text is written that way.
 * cordon(1) documents it.  It allocates nothing: the bytes go through
 * the caller's put (a FILE, or the launcher's fixed report buffer).
 */
#ifndef CORDON_JSONESC_H
#define CORDON_JSONESC_H

#include <stddef.h>

/* The longest escape one input byte becomes ("\udcff"). */
#define JSON_ESCAPE_MAX 6

typedef void json_put_fn(void *ctx, const char *p, size_t n);

/* Write s escaped, without the surrounding quotes, through put(ctx). */
void json_escape(const char *s, json_put_fn *put, void *ctx);

#endif
