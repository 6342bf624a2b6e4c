/* jsonesc.c - JSON string escaping (see jsonesc.h). */
#include <stdint.h>
#include <string.h>

#include "jsonesc.h"
#include "utf8.h"

/* "\u" then four hex digits of v, into e. */
static size_t u_escape(unsigned int v, char e[JSON_ESCAPE_MAX + 1])
{
	static const char hex[] = "0123456789abcdef";
	int i;

	e[0] = '\\';
	e[1] = 'u';
	for (i = 0; i < 4; i++)
		e[2 + i] = hex[(v >> (12 - 4 * i)) & 15];
	e[6] = '\0';
	return 6;
}

/* The escape for the bytes at s, in e; 0 when the *len bytes there (one
 * whole UTF-8 sequence) go as they are. */
static size_t escape_of(const unsigned char *s, size_t *len,
    char e[JSON_ESCAPE_MAX + 1])
{
	unsigned char c = s[0];
	const char *b = c == '"' ? "\\\"" : c == '\\' ? "\\\\" :
	    c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;
	uint32_t cp;

	*len = 1;
	if (b) {
		memcpy(e, b, 3);
		return 2;
	}
	if (c < 0x20 || c == 0x7f)
		return u_escape(c, e);
	if (c < 0x80)
		return 0;
	*len = utf8_decode(s, &cp);
	if (*len)
		return 0;
	*len = 1;
	return u_escape(0xdc00u | c, e);   /* not UTF-8: surrogateescape */
}

void json_escape(const char *s, json_put_fn *put, void *ctx)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;
	char e[JSON_ESCAPE_MAX + 1];
	size_t len;

	while (*p) {
		size_t n = escape_of(p, &len, e);

		if (n) {
			if (p > run)
				put(ctx, (const char *)run, (size_t)(p - run));
			put(ctx, e, n);
			run = p + len;
		}
		p += len;
	}
	if (p > run)
		put(ctx, (const char *)run, (size_t)(p - run));
}
