/* jsonout.c - JSON string escaping and separators (see jsonout.h). */
#include "jsonesc.h"
#include "jsonout.h"

/* The stream's error flag, checked where the file is closed, records a
 * failed write. */
static void put_file(void *f, const char *p, size_t n)
{
	(void)fwrite(p, 1, n, f);
}

void json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	json_escape(s, put_file, f);
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
