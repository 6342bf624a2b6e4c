/*
 * diag.c - located diagnostics with the source line and a caret.  Each
 * message (with its notes) is formatted when reported but kept until
 * diag_flush, which prints them in source order: by file (in the order
 * the files were read), line and column; messages with no place last.
 * The passes find errors in their own order; the reader sees the file's.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

struct diag_src {
	const char *name;
	const char *text;
	size_t len;
	unsigned int order;     /* reading order */
	struct diag_src *next;
};

/* One message and its notes, formatted, waiting for diag_flush. */
struct diag_msg {
	unsigned int file;      /* reading order; UINT_MAX: no place */
	int line, col;
	unsigned int seq;       /* reporting order, to keep sorting stable */
	int is_error;
	char *text;
	size_t len;
};

struct diag {
	FILE *out;
	int werror;
	int quiet;              /* the last message was not kept */
	int direct;             /* the last message was printed at once */
	int said_cap;           /* "too many errors" printed */
	unsigned int errors;
	unsigned int warnings;
	unsigned int nsrcs;
	struct diag_src *srcs;
	struct diag_msg *msgs;
	unsigned int nmsgs, cap, kept_errors;
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
	diag_flush(d);
	for (s = d->srcs; s; s = next) {
		next = s->next;
		free(s);
	}
	free(d->msgs);
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
	s->order = d->nsrcs++;
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

static void emit(struct diag *d, FILE *out, const struct ast_loc *loc,
    const char *kind, const char *suffix, const char *fmt, va_list ap)
    __attribute__((format(printf, 6, 0)));
static void report(struct diag *d, const struct ast_loc *loc, int is_error,
    const char *suffix, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));

static void emit(struct diag *d, FILE *out, const struct ast_loc *loc,
    const char *kind, const char *suffix, const char *fmt, va_list ap)
{
	FILE *saved = d->out;

	d->out = out;
	if (loc && loc->file)
		fprintf(out, "%s:%d:%d: %s: ", loc->file, loc->first_line,
		    loc->first_column, kind);
	else
		fprintf(out, "cordonc: %s: ", kind);
	vfprintf(out, fmt, ap);
	fprintf(out, "%s\n", suffix);
	if (loc && loc->file)
		quote(d, loc);
	d->out = saved;
}

/* Sort key: place, then reporting order. */
static int msg_cmp(const void *a, const void *b)
{
	const struct diag_msg *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static struct diag_msg place(const struct diag *d, const struct ast_loc *loc)
{
	struct diag_msg m = { .file = UINT_MAX };
	const struct diag_src *s;

	if (!loc || !loc->file)
		return m;
	for (s = d->srcs; s; s = s->next)
		if (s->name == loc->file || strcmp(s->name, loc->file) == 0)
			break;
	m.file = s ? s->order : UINT_MAX - 1;
	m.line = loc->first_line;
	m.col = loc->first_column;
	return m;
}

/* Over the cap, the errors kept are the first DIAG_MAX_ERRORS in source
 * order: the last of them makes room for m, or m is not kept (1). */
static int make_room(struct diag *d, const struct diag_msg *m)
{
	unsigned int i, last = UINT_MAX;

	if (!m->is_error || d->kept_errors < DIAG_MAX_ERRORS)
		return 0;
	for (i = 0; i < d->nmsgs; i++)
		if (d->msgs[i].is_error && (last == UINT_MAX ||
		    msg_cmp(&d->msgs[i], &d->msgs[last]) > 0))
			last = i;
	if (last == UINT_MAX || msg_cmp(m, &d->msgs[last]) > 0)
		return 1;
	free(d->msgs[last].text);
	d->msgs[last] = d->msgs[--d->nmsgs];
	d->kept_errors--;
	return 0;
}

/* Keep m (formatted in text); printed at once if memory runs out. */
static void keep(struct diag *d, struct diag_msg *m)
{
	struct diag_msg *v = d->msgs;

	if (d->nmsgs == d->cap) {
		v = realloc(d->msgs, (d->cap ? d->cap * 2 : 16) * sizeof(*v));
		if (v) {
			d->msgs = v;
			d->cap = d->cap ? d->cap * 2 : 16;
		}
	}
	d->direct = !v || d->nmsgs == d->cap;
	if (d->direct) {
		fwrite(m->text, 1, m->len, d->out);
		free(m->text);
		return;
	}
	d->msgs[d->nmsgs++] = *m;
	d->kept_errors += m->is_error ? 1u : 0u;
}

static void report(struct diag *d, const struct ast_loc *loc, int is_error,
    const char *suffix, const char *fmt, va_list ap)
{
	struct diag_msg m = place(d, loc);
	FILE *f;

	m.is_error = is_error;
	m.seq = d->errors + d->warnings;
	d->quiet = make_room(d, &m);
	if (d->quiet)
		return;
	f = open_memstream(&m.text, &m.len);
	d->direct = !f;
	if (!f) {
		emit(d, d->out, loc, is_error ? "error" : "warning", suffix,
		    fmt, ap);
		return;
	}
	emit(d, f, loc, is_error ? "error" : "warning", suffix, fmt, ap);
	if (fclose(f) != 0) {
		free(m.text);
		return;
	}
	keep(d, &m);
}

void diag_error(struct diag *d, const struct ast_loc *loc,
    const char *fmt, ...)
{
	va_list ap;

	d->errors++;
	va_start(ap, fmt);
	report(d, loc, 1, "", fmt, ap);
	va_end(ap);
}

void diag_warning(struct diag *d, const struct ast_loc *loc,
    const char *fmt, ...)
{
	va_list ap;

	if (d->werror)
		d->errors++;
	else
		d->warnings++;
	va_start(ap, fmt);
	report(d, loc, d->werror, d->werror ? " [-Werror]" : "", fmt, ap);
	va_end(ap);
}

/* m's text with more after it (taken), or NULL when out of memory. */
static char *append(struct diag_msg *m, const char *more, size_t n)
{
	char *t = realloc(m->text, m->len + n + 1);

	if (!t)
		return NULL;
	memcpy(t + m->len, more, n);
	m->len += n;
	t[m->len] = '\0';
	return t;
}

/* A note goes with the message before it (printed with it, or not). */
void diag_note(struct diag *d, const struct ast_loc *loc,
    const char *fmt, ...)
{
	struct diag_msg *m = d->nmsgs ? &d->msgs[d->nmsgs - 1] : NULL;
	char *text = NULL, *t;
	size_t len = 0;
	FILE *f;
	va_list ap;

	if (d->quiet)
		return;
	va_start(ap, fmt);
	f = m && !d->direct ? open_memstream(&text, &len) : NULL;
	emit(d, f ? f : d->out, loc, "note", "", fmt, ap);
	va_end(ap);
	if (f && fclose(f) == 0 && (t = append(m, text, len)))
		m->text = t;
	free(text);
}

void diag_flush(struct diag *d)
{
	unsigned int i;

	if (d->nmsgs > 1)
		qsort(d->msgs, d->nmsgs, sizeof(*d->msgs), msg_cmp);
	for (i = 0; i < d->nmsgs; i++) {
		fwrite(d->msgs[i].text, 1, d->msgs[i].len, d->out);
		free(d->msgs[i].text);
	}
	if (d->errors > DIAG_MAX_ERRORS && !d->said_cap++)
		fprintf(d->out, "cordonc: error: too many errors; "
		    "not showing the rest\n");
	d->nmsgs = 0;
	d->kept_errors = 0;
}

unsigned int diag_errors(const struct diag *d)
{
	return d->errors;
}

