/* jsonesc.c - JSON string escaping (see jsonesc.h). */
#include <string.h>

#include "jsonesc.h"

/* The escape for c, in e (at least 7 bytes); 0 when c goes as is. */
static size_t escape_of(unsigned char c, char e[7])
{
	static const char hex[] = "0123456789abcdef";
	const char *s = c == '"' ? "\\\"" : c == '\\' ? "\\\\" :
	    c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;

	if (s) {
		memcpy(e, s, 3);
		return 2;
	}
	if (c >= 0x20 && c != 0x7f)
		return 0;
	memcpy(e, "\\u00", 4);
	e[4] = hex[c >> 4];
	e[5] = hex[c & 15];
	e[6] = '\0';
	return 6;
}

void json_escape(const char *s, json_put_fn *put, void *ctx)
{
	const char *run = s;
	char e[7];

	for (; *s; s++) {
		size_t n = escape_of((unsigned char)*s, e);

		if (!n)
			continue;
		if (s > run)
			put(ctx, run, (size_t)(s - run));
		put(ctx, e, n);
		run = s + 1;
	}
	if (s > run)
		put(ctx, run, (size_t)(s - run));
}
