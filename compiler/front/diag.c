/* diag.c - located diagnostics with the source line and a caret. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

struct diag_src {
	const char *name;
	const char *text;
	size_t len;
	struct diag_src *next;
};

struct diag {
	FILE *out;
	int werror;
	int quiet;              /* the last error was over the cap */
	unsigned int errors;
	unsigned int warnings;
	struct diag_src *srcs;
};

struct diag *diag_new(FILE *out)
{
	struct diag *d = calloc(1, sizeof(*d));

	if (d)
		d->out = out;
	return d;
}

const char *diag_did_you_mean(char *buf, size_t len, const char *before,
    const char *sug, const char *after)
{
	if (!sug || snprintf(buf, len, "; did you mean %s%s%s?", before, sug,
	    after) < 0)
		return "";
	return buf;
}

void diag_free(struct diag *d)
{
	struct diag_src *s, *next;

	if (!d)
		return;
	for (s = d->srcs; s; s = next) {
		next = s->next;
		free(s);
	}
	free(d);
}

void diag_set_werror(struct diag *d, int on)
{
	d->werror = on;
}

int diag_source(struct diag *d, const char *name, const char *text,
    size_t len)
{
	struct diag_src *s = calloc(1, sizeof(*s));

	if (!s)
		return -1;
	s->name = name;
	s->text = text;
	s->len = len;
	s->next = d->srcs;
	d->srcs = s;
	return 0;
}

/* Find line (1-based) of the named source: *start and *n set, or 0. */
static int find_line(const struct diag *d, const char *name, int line,
    const char **start, size_t *n)
{
	const struct diag_src *s;
	const char *p, *end, *nl;
	int l;

	for (s = d->srcs; s; s = s->next)
		if (s->name == name || strcmp(s->name, name) == 0)
			break;
	if (!s || line < 1)
		return 0;
	p = s->text;
	end = s->text + s->len;
	for (l = 1; l < line; l++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return 0;
		p = nl + 1;
	}
	nl = memchr(p, '\n', (size_t)(end - p));
	*start = p;
	*n = nl ? (size_t)(nl - p) : (size_t)(end - p);
	return 1;
}

/* The source line, then spaces (tabs kept, so the caret lines up), a
 * caret, and tildes to the end of a one-line span. */
static void quote(const struct diag *d, const struct ast_loc *loc)
{
	const char *text;
	size_t n, i, col;

	if (!find_line(d, loc->file, loc->first_line, &text, &n))
		return;
	fprintf(d->out, "%.*s\n", (int)n, text);
	col = loc->first_column > 0 ? (size_t)loc->first_column - 1 : 0;
	for (i = 0; i < col && i < n; i++)
		fputc(text[i] == '\t' ? '\t' : ' ', d->out);
	fputc('^', d->out);
	if (loc->last_line == loc->first_line)
		for (i = col + 1; i < (size_t)loc->last_column && i < n; i++)
			fputc('~', d->out);
	fputc('\n', d->out);
}

static void emit(struct diag *d, const struct ast_loc *loc, const char *kind,
    const char *suffix, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));
static void report_error(struct diag *d, const struct ast_loc *loc,
    const char *suffix, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

static void emit(struct diag *d, const struct ast_loc *loc, const char *kind,
    const char *suffix, const char *fmt, va_list ap)
{
	if (loc && loc->file)
		fprintf(d->out, "%s:%d:%d: %s: ", loc->file, loc->first_line,
		    loc->first_column, kind);
	else
		fprintf(d->out, "cordonc: %s: ", kind);
	vfprintf(d->out, fmt, ap);
	fprintf(d->out, "%s\n", suffix);
	if (loc && loc->file)
		quote(d, loc);
}

static void report_error(struct diag *d, const struct ast_loc *loc,
    const char *suffix, const char *fmt, va_list ap)
{
	d->errors++;
	d->quiet = d->errors > DIAG_MAX_ERRORS;
	if (d->errors == DIAG_MAX_ERRORS + 1)
		fprintf(d->out, "cordonc: error: too many errors; "
		    "not showing the rest\n");
	if (!d->quiet)
		emit(d, loc, "error", suffix, fmt, ap);
}

void diag_error(struct diag *d, const struct ast_loc *loc,
    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report_error(d, loc, "", fmt, ap);
	va_end(ap);
}

void diag_warning(struct diag *d, const struct ast_loc *loc,
    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (d->werror) {
		report_error(d, loc, " [-Werror]", fmt, ap);
	} else {
		d->warnings++;
		d->quiet = 0;
		emit(d, loc, "warning", "", fmt, ap);
	}
	va_end(ap);
}

void diag_note(struct diag *d, const struct ast_loc *loc,
    const char *fmt, ...)
{
	va_list ap;

	if (d->quiet)
		return;
	va_start(ap, fmt);
	emit(d, loc, "note", "", fmt, ap);
	va_end(ap);
}

unsigned int diag_errors(const struct diag *d)
{
	return d->errors;
}

