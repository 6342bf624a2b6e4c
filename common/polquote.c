/* polquote.c - names in the policy language (see polquote.h). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cpol.h"
#include "polquote.h"
#include "utf8.h"

#define BARE "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" \
	"0123456789_.+/-"

void polq_put_file(void *ctx, const char *p, size_t n)
{
	fwrite(p, 1, n, ctx);
}

/* C0, DEL, C1, and the characters that reorder text on display. */
static int control(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c < 0xa0) || c == 0x200e ||
	    c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
	    (c >= 0x2066 && c <= 0x2069);
}

const char *polq_string_problem(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t c;
	size_t n;

	if (strlen(s) >= POLQ_STRING_MAX)
		return "longer than a policy string";
	if (strstr(s, "${"))
		return "it holds \"${\", which a policy string would substitute";
	for (; *p; p += n) {
		n = utf8_decode(p, &c);
		if (n == 0)
			return "not UTF-8";
		if (control(c))
			return "it holds a control character";
	}
	return NULL;
}

const char *polq_path_problem(const char *s)
{
	return cpol_path_ok(s) ? polq_string_problem(s) :
	    "not an absolute, canonical path";
}

void polq_string(const char *s, polq_put_fn *put, void *ctx)
{
	const char *run = s;

	put(ctx, "\"", 1);
	for (; *s; s++) {
		if (*s != '"' && *s != '\\')
			continue;
		put(ctx, run, (size_t)(s - run));
		put(ctx, "\\", 1);
		run = s;
	}
	put(ctx, run, (size_t)(s - run));
	put(ctx, "\"", 1);
}

void polq_path(const char *p, polq_put_fn *put, void *ctx)
{
	if (p[0] == '/' && strspn(p, BARE) == strlen(p))
		put(ctx, p, strlen(p));
	else
		polq_string(p, put, ctx);
}

void polq_note(const char *s, polq_put_fn *put, void *ctx)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	char e[4] = { '\\', 'x', 0, 0 };

	for (; *p; p++) {
		if (*p == '\\') {
			put(ctx, "\\\\", 2);
		} else if (*p >= 0x20 && *p < 0x7f) {
			put(ctx, (const char *)p, 1);
		} else {
			e[2] = hex[*p >> 4];
			e[3] = hex[*p & 15];
			put(ctx, e, 4);
		}
	}
}
