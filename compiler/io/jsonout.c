/* jsonout.c - JSON string escaping and separators (see jsonout.h). */
#include "jsonout.h"

void json_str(FILE *f, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		switch (*c) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		default:
			if (*c < 0x20 || *c == 0x7f)
				fprintf(f, "\\u00%c%c", hex[*c >> 4], hex[*c & 15]);
			else
				fputc(*c, f);
		}
	}
	fputc('"', f);
}

void json_key(FILE *f, const char *key)
{
	json_str(f, key);
	fputc(':', f);
}

void json_sep(FILE *f, int *first)
{
	if (!*first)
		fputc(',', f);
	*first = 0;
}
