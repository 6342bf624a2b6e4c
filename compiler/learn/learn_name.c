/*
 * learn_name.c - the names a learned policy holds.  A path is written
 * as the policy language reads it back (grammar/lexer.l): bare when
 * every byte is a bare path's, else quoted, with \" and \\ (the only
 * escapes there are).  A name the language cannot say as it is, is
 * left out with the reason: a newline or NUL ends a string, "${" is
 * substituted inside one (check/value.c) and has no escape; control
 * and bidirectional characters and bytes that are not UTF-8 would be
 * written raw into a file meant for review.  Names inside comments are
 * written with every such byte as \xNN.
 */
#include <stdint.h>
#include <string.h>

#include "cpol.h"
#include "learn.h"
#include "parse.h"

#define BARE "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" \
	"0123456789_.+/-"

/* The code point of the UTF-8 sequence at s and its length, or 0 when
 * s does not start a valid one (truncated, overlong, a surrogate, past
 * U+10FFFF). */
static size_t utf8(const unsigned char *s, uint32_t *cp)
{
	size_t n, i;
	uint32_t c = s[0];

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	n = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
	if (n == 0 || c >= 0xf5)
		return 0;
	c &= 0x3fu >> (n - 1);
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3fu);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    c > 0x10ffff || (c >= 0xd800 && c < 0xe000))
		return 0;
	*cp = c;
	return n;
}

/* C0, DEL, C1, and the characters that reorder text on display. */
static int control(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c < 0xa0) || c == 0x200e ||
	    c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
	    (c >= 0x2066 && c <= 0x2069);
}

const char *learn_string_problem(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t c;
	size_t n;

	if (strlen(s) >= PARSE_MAX_STRING)
		return "longer than a policy string";
	if (strstr(s, "${"))
		return "it holds \"${\", which a policy string would substitute";
	for (; *p; p += n) {
		n = utf8(p, &c);
		if (n == 0)
			return "not UTF-8";
		if (control(c))
			return "it holds a control character";
	}
	return NULL;
}

const char *learn_name_problem(const char *s)
{
	return cpol_path_ok(s) ? learn_string_problem(s) :
	    "not an absolute, canonical path";
}

void learn_put_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

void learn_put_path(FILE *out, const char *p)
{
	if (p[0] == '/' && strspn(p, BARE) == strlen(p))
		fputs(p, out);
	else
		learn_put_string(out, p);
}

void learn_put_note(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++) {
		if (*p == '\\')
			fputs("\\\\", out);
		else if (*p >= 0x20 && *p < 0x7f)
			fputc(*p, out);
		else
			fprintf(out, "\\x%02x", *p);
	}
}

/* A comment's "first [CALL ]in SAMPLE", then end: names as notes. */
void learn_first(FILE *out, const char *call, const char *sample,
    const char *end)
{
	fputs("first ", out);
	if (call) {
		learn_put_note(out, call);
		fputc(' ', out);
	}
	fputs("in ", out);
	learn_put_note(out, sample);
	fputs(end, out);
}
