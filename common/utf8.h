/*
 * utf8.h - the one reader of UTF-8 sequences: what JSON text may carry
 * as is (jsonesc.c) and what a policy string may hold (polquote.c).
 */
#ifndef CORDON_UTF8_H
#define CORDON_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* The code point of the UTF-8 sequence at s and its length (1..4), or 0
 * when s does not start a valid one: truncated (a NUL ends it), a stray
 * continuation byte, overlong, a surrogate, past U+10FFFF.  Reads at
 * most up to the first byte that does not continue the sequence, so a
 * NUL-terminated s is never read past its end. */
size_t utf8_decode(const unsigned char *s, uint32_t *cp);

#endif
