/* finding.c - lint findings and their plain renderings (see finding.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "finding.h"
#include "jsonout.h"

/* More findings than this in one policy means something is wrong with
 * the policy as a whole; the cap keeps the growth arithmetic safe. */
#define FINDING_MAX 100000u

int finding_add(struct finding_list *l, const char *id, int severity,
    const char *file, unsigned int line, const char *fmt, ...)
{
	struct finding *x;
	va_list ap;
	int r;

	if (l->n == l->cap) {
		unsigned int cap = l->cap ? l->cap * 2 : 16;
		struct finding *v;

		if (cap > FINDING_MAX)
			return -1;
		v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	x = &l->v[l->n];
	memset(x, 0, sizeof(*x));
	x->id = id;
	x->severity = severity;
	x->line = line;
	x->file = strdup(file ? file : "-");
	va_start(ap, fmt);
	r = vasprintf(&x->message, fmt, ap);
	va_end(ap);
	if (!x->file || r < 0) {
		free(x->file);
		return -1;
	}
	l->n++;
	return 0;
}

void finding_list_free(struct finding_list *l)
{
	for (unsigned int i = 0; i < l->n; i++) {
		free(l->v[i].file);
		free(l->v[i].message);
		free(l->v[i].suppressed);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

const char *finding_severity_name(int severity)
{
	switch (severity) {
	case FINDING_ERROR: return "error";
	case FINDING_WARNING: return "warning";
	default: return "note";
	}
}

void finding_print(FILE *f, const struct finding *x)
{
	if (x->line)
		fprintf(f, "%s:%u: ", x->file, x->line);
	else
		fprintf(f, "%s: ", x->file);
	fprintf(f, "%s: [%s] %s", finding_severity_name(x->severity), x->id,
	    x->message);
	if (x->suppressed)
		fprintf(f, " (suppressed: %s)", x->suppressed);
	fputc('\n', f);
}

void finding_json(FILE *f, const struct finding *x)
{
	fputc('{', f);
	json_key(f, "id");
	json_str(f, x->id);
	fputc(',', f);
	json_key(f, "severity");
	json_str(f, finding_severity_name(x->severity));
	fputc(',', f);
	json_key(f, "file");
	json_str(f, x->file);
	fprintf(f, ",\"line\":%u,", x->line);
	json_key(f, "message");
	json_str(f, x->message);
	fputc(',', f);
	json_key(f, "suppressed");
	json_str(f, x->suppressed);
	fputc('}', f);
}
