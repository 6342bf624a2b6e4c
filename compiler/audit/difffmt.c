/*
 * difffmt.c - diff's change list for people (text), for machines (one
 * JSON object) and for a review comment (Markdown).
 */
#include <string.h>

#include "diff.h"
#include "jsonout.h"

static const char mark[4] = { '?', '+', '-', '~' };

static void summary(FILE *f, const struct diff_list *l, const char *old,
    const char *new, const char *q)
{
	unsigned int w = diff_count(l, DIFF_WIDER);
	unsigned int n = diff_count(l, DIFF_NARROWER);

	if (w)
		fprintf(f, "%s%s%s is wider than %s%s%s: %u widening%s, %u "
		    "narrowing%s\n", q, new, q, q, old, q, w, w == 1 ? "" : "s",
		    n, n == 1 ? "" : "s");
	else
		fprintf(f, "%s%s%s allows nothing %s%s%s does not (%u change%s)"
		    "\n", q, new, q, q, old, q, l->n, l->n == 1 ? "" : "s");
}

void diff_print_text(FILE *f, const struct diff_list *l, const char *old,
    const char *new)
{
	for (unsigned int i = 0; i < l->n; i++) {
		const struct diff_change *c = &l->v[i];

		/* "+ timeout: 2m -> 10m", not "timeout timeout" */
		if (strcmp(c->kind, c->subject) == 0)
			fprintf(f, "%c %s: %s", mark[c->dir & 3], c->kind,
			    c->detail);
		else
			fprintf(f, "%c %s %s: %s", mark[c->dir & 3], c->kind,
			    c->subject, c->detail);
		if (c->origin)
			fprintf(f, " (%s)", c->origin);
		fputc('\n', f);
	}
	summary(f, l, old, new, "");
}

void diff_print_json(FILE *f, const struct diff_list *l, const char *old,
    const char *new)
{
	static const char *const dirs[4] = { "?", "wider", "narrower",
	    "changed" };
	int first = 1;

	fputs("{\"old\":", f);
	json_str(f, old);
	fputs(",\"new\":", f);
	json_str(f, new);
	fprintf(f, ",\"wider\":%s,\"changes\":[",
	    diff_count(l, DIFF_WIDER) ? "true" : "false");
	for (unsigned int i = 0; i < l->n; i++) {
		const struct diff_change *c = &l->v[i];

		json_sep(f, &first);
		fputs("{\"direction\":", f);
		json_str(f, dirs[c->dir & 3]);
		fputs(",\"kind\":", f);
		json_str(f, c->kind);
		fputs(",\"subject\":", f);
		json_str(f, c->subject);
		fputs(",\"detail\":", f);
		json_str(f, c->detail);
		fputs(",\"origin\":", f);
		json_str(f, c->origin);
		fputc('}', f);
	}
	fputs("]}\n", f);
}

/* A Markdown table cell: '|' would end it, a newline the row, and a
 * backtick or the '*' of "*.example.org" would start code or emphasis. */
static void md_cell(FILE *f, const char *s)
{
	fputs(" ", f);
	for (; s && *s; s++)
		if (*s == '|' || *s == '`' || *s == '*' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else
			fputc(*s == '\n' ? ' ' : *s, f);
	fputs(" |", f);
}

void diff_print_markdown(FILE *f, const struct diff_list *l,
    const char *old, const char *new)
{
	static const char *const dirs[4] = { "?", "**wider**", "narrower",
	    "changed" };

	fputs("## Policy diff\n\n", f);
	summary(f, l, old, new, "`");
	if (!l->n)
		return;
	fputs("\n| Change | Kind | Subject | Detail | Origin |\n"
	    "|---|---|---|---|---|\n", f);
	for (unsigned int i = 0; i < l->n; i++) {
		const struct diff_change *c = &l->v[i];

		fprintf(f, "| %c %s |", mark[c->dir & 3], dirs[c->dir & 3]);
		md_cell(f, c->kind);
		md_cell(f, c->subject);
		md_cell(f, c->detail);
		md_cell(f, c->origin ? c->origin : "");
		fputc('\n', f);
	}
}
