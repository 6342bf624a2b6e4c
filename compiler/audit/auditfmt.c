/* auditfmt.c - audit reports as text, JSON and Markdown (see audit.h). */
#include <string.h>

#include "audit.h"
#include "jsonout.h"

static const char *pname(const struct audit_policy *a)
{
	return a->in->pol.name && a->in->pol.name[0] ? a->in->pol.name :
	    a->in->path;
}

int audit_print(FILE *f, const struct audit_policy *v, unsigned int n,
    const char *format, int verbose)
{
	if (strcmp(format, "text") == 0)
		audit_print_text(f, v, n, verbose);
	else if (strcmp(format, "json") == 0)
		audit_print_json(f, v, n);
	else if (strcmp(format, "markdown") == 0)
		audit_print_markdown(f, v, n, verbose);
	else if (strcmp(format, "sarif") == 0)
		audit_print_sarif(f, v, n);
	else
		return -1;
	return 0;
}

/* A finding suppressed inside an included file (a base) is the base's,
 * the same for every policy that includes it: reported once after the
 * policies (base_next), not in each policy's list. */
static int own(const struct finding *x)
{
	return !(x->included && x->suppressed);
}

/* A finding of the policy's own list that text and Markdown show:
 * suppressed ones only when asked (clean is quiet). */
static int shown(const struct finding *x, int verbose)
{
	return own(x) && (verbose || !x->suppressed);
}

static int same_finding(const struct finding *a, const struct finding *b)
{
	return a->id == b->id && a->line == b->line &&
	    !strcmp(a->file, b->file) && !strcmp(a->message, b->message);
}

/* The next base finding after (*i, *k) not reported before it: 1 and
 * *i, *k set, or 0 at the end.  Start with *i = 0, *k = -1. */
static int base_next(const struct audit_policy *v, unsigned int n,
    unsigned int *i, int *k)
{
	for (; *i < n; (*i)++, *k = -1) {
		while (++*k < (int)v[*i].findings.n) {
			const struct finding *x = &v[*i].findings.v[*k];
			int dup = own(x);

			for (unsigned int j = 0; !dup && j <= *i; j++)
				for (int m = 0; !dup && m < (j < *i ? (int)
				    v[j].findings.n : *k); m++)
					dup = !own(&v[j].findings.v[m]) &&
					    same_finding(&v[j].findings.v[m], x);
			if (!dup)
				return 1;
		}
	}
	return 0;
}

static void text_one(FILE *f, const struct audit_policy *a, int verbose)
{
	fprintf(f, "%s (%s): exposure %.1f/10 %s\n", pname(a), a->in->path,
	    a->score, audit_rating(a->score));
	if (a->nhigh)
		fprintf(f, "  %u high-risk grant%s (marked HR): at least "
		    "%.1f; the factors add up to %.1f\n", a->nhigh,
		    a->nhigh > 1 ? "s" : "", audit_high_floor(a->nhigh),
		    a->sum);
	fprintf(f, "  %-2s %-26s %6s %8s %6s  %s\n", "", "FACTOR", "WEIGHT",
	    "EXPOSURE", "SCORE", "DETAIL");
	for (int i = 0; i < AUDIT_NFACTORS; i++) {
		const struct audit_factor *x = &a->f[i];

		fprintf(f, "  %-2s %-26s %6.2f %8.2f %6.2f  %s\n",
		    x->high ? "HR" : x->exposure > 0 ? "!!" : "ok", x->name,
		    x->weight, x->exposure, x->weight * x->exposure,
		    x->human[0] ? x->human : x->detail);
	}
	for (unsigned int i = 0; i < a->findings.n; i++) {
		if (!shown(&a->findings.v[i], verbose))
			continue;
		fputs("  ", f);
		finding_print(f, &a->findings.v[i]);
	}
	fputc('\n', f);
}

/* A matrix cell cut to width, "..." marking the cut. */
static void text_cell(FILE *f, const char *s, int width)
{
	int n = (int)strlen(s);

	if (n <= width)
		fprintf(f, " %-*s", width, s);
	else
		fprintf(f, " %.*s...", width - 3, s);
}

void audit_print_text(FILE *f, const struct audit_policy *v, unsigned int n,
    int verbose)
{
	unsigned int bi = 0, nb = 0;
	int bk = -1;

	for (unsigned int i = 0; i < n; i++)
		text_one(f, &v[i], verbose);
	while (verbose && base_next(v, n, &bi, &bk)) {
		if (!nb++)
			fputs("Suppressed in included files\n", f);
		fputs("  ", f);
		finding_print(f, &v[bi].findings.v[bk]);
	}
	if (nb)
		fputc('\n', f);
	fputs("Capability matrix\n", f);
	fprintf(f, "%-20s %5s  %-24s %-24s %-24s %-24s %s\n", "TOOL", "SCORE",
	    "NETWORK", "WRITABLE", "EXEC", "DANGEROUS SYSCALLS", "LIMITS");
	for (unsigned int i = 0; i < n; i++) {
		const struct audit_policy *a = &v[i];

		fprintf(f, "%-20s %5.1f ", pname(a), a->score);
		text_cell(f, a->network, 24);
		text_cell(f, a->writes, 24);
		text_cell(f, a->exec, 24);
		text_cell(f, a->danger, 24);
		fprintf(f, " %s\n", a->limits_h);
	}
}

static void json_factors(FILE *f, const struct audit_policy *a)
{
	int first = 1;

	fputs("\"factors\":[", f);
	for (int i = 0; i < AUDIT_NFACTORS; i++) {
		const struct audit_factor *x = &a->f[i];

		json_sep(f, &first);
		fputs("{\"name\":", f);
		json_str(f, x->name);
		fprintf(f, ",\"weight\":%.2f,\"exposure\":%.2f,\"score\":%.2f,"
		    "\"high_risk\":%s,\"detail\":", x->weight, x->exposure,
		    x->weight * x->exposure, x->high ? "true" : "false");
		json_str(f, x->detail);
		fputc('}', f);
	}
	fputs("],", f);
}

static void json_matrix(FILE *f, const struct audit_policy *a)
{
	fputs("\"matrix\":{\"network\":", f);
	json_str(f, a->network);
	fprintf(f, ",\"writable_count\":%u,\"writable\":", a->nwrites);
	json_str(f, a->writes);
	fprintf(f, ",\"exec_count\":%u,\"exec\":", a->nexec);
	json_str(f, a->exec);
	fprintf(f, ",\"dangerous_count\":%u,\"dangerous\":", a->ndanger);
	json_str(f, a->danger);
	fputs(",\"limits\":", f);
	json_str(f, a->limits);
	fputs("},", f);
}

/* "],"included_suppressed":[...]": the base findings, once. */
static void json_base(FILE *f, const struct audit_policy *v, unsigned int n)
{
	unsigned int bi = 0;
	int bk = -1, first = 1;

	fputs("],\"included_suppressed\":[", f);
	while (base_next(v, n, &bi, &bk)) {
		json_sep(f, &first);
		finding_json(f, &v[bi].findings.v[bk]);
	}
	fputc(']', f);
}

void audit_print_json(FILE *f, const struct audit_policy *v, unsigned int n)
{
	int first = 1;

	fputs("{\"cordonc_audit\":1,\"policies\":[", f);
	for (unsigned int i = 0; i < n; i++) {
		const struct audit_policy *a = &v[i];
		int ff = 1;

		json_sep(f, &first);
		fputs("{\"name\":", f);
		json_str(f, pname(a));
		fputs(",\"file\":", f);
		json_str(f, a->in->path);
		fprintf(f, ",\"score\":%.1f,\"factor_sum\":%.1f,"
		    "\"high_risk\":%u,\"rating\":", a->score, a->sum, a->nhigh);
		json_str(f, audit_rating(a->score));
		fputc(',', f);
		json_factors(f, a);
		json_matrix(f, a);
		fputs("\"findings\":[", f);
		for (unsigned int k = 0; k < a->findings.n; k++) {
			if (!own(&a->findings.v[k]))
				continue;
			json_sep(f, &ff);
			finding_json(f, &a->findings.v[k]);
		}
		fputs("]}", f);
	}
	json_base(f, v, n);
	fputs("}\n", f);
}

/* A Markdown table cell: '|' and newlines would break the row. */
static void md_cell(FILE *f, const char *s)
{
	fputs(" ", f);
	for (; *s; s++)
		if (*s == '|')
			fputs("\\|", f);
		else
			fputc(*s == '\n' ? ' ' : *s, f);
	fputs(" |", f);
}

static void md_finding(FILE *f, const struct finding *x, int first)
{
	if (first)
		fputc('\n', f);
	fprintf(f, "- **%s** %s `%s:%u`: %s", x->id,
	    finding_severity_name(x->severity), x->file, x->line, x->message);
	if (x->suppressed)
		fprintf(f, " (suppressed: %s)", x->suppressed);
	fputc('\n', f);
}

static void md_policy(FILE *f, const struct audit_policy *a, int verbose)
{
	char buf[64];

	fprintf(f, "\n### %s: %.1f/10 (%s)\n\n", pname(a), a->score,
	    audit_rating(a->score));
	if (a->nhigh)
		fprintf(f, "%u high-risk grant%s (**HR**): the score is at "
		    "least %.1f (the factors add up to %.1f).\n\n", a->nhigh,
		    a->nhigh > 1 ? "s" : "", audit_high_floor(a->nhigh), a->sum);
	fputs("| Factor | Weight | Exposure | Score | Detail |\n"
	    "|---|---:|---:|---:|---|\n", f);
	for (int i = 0; i < AUDIT_NFACTORS; i++) {
		const struct audit_factor *x = &a->f[i];

		fputs(x->high ? "| **HR**" : "|", f);
		md_cell(f, x->name);
		snprintf(buf, sizeof(buf), "%.2f | %.2f | %.2f", x->weight,
		    x->exposure, x->weight * x->exposure);
		fprintf(f, " %s |", buf);
		md_cell(f, x->human[0] ? x->human : x->detail);
		fputc('\n', f);
	}
	for (unsigned int k = 0, nl = 0; k < a->findings.n; k++)
		if (shown(&a->findings.v[k], verbose))
			md_finding(f, &a->findings.v[k], nl++ == 0);
}

void audit_print_markdown(FILE *f, const struct audit_policy *v,
    unsigned int n, int verbose)
{
	unsigned int bi = 0;
	int bk = -1;

	fputs("## Policy audit\n\n| Tool | Score | Rating | Network | "
	    "Writable | Exec | Dangerous syscalls | Limits |\n"
	    "|---|---:|---|---|---|---|---|---|\n", f);
	for (unsigned int i = 0; i < n; i++) {
		const struct audit_policy *a = &v[i];

		fputs("|", f);
		md_cell(f, pname(a));
		fprintf(f, " %.1f | %s |", a->score, audit_rating(a->score));
		md_cell(f, a->network);
		md_cell(f, a->writes);
		md_cell(f, a->exec);
		md_cell(f, a->danger);
		md_cell(f, a->limits_h);
		fputc('\n', f);
	}
	for (unsigned int i = 0; i < n; i++)
		md_policy(f, &v[i], verbose);
	for (unsigned int nb = 0; verbose && base_next(v, n, &bi, &bk); nb++) {
		if (!nb)
			fputs("\n### Suppressed in included files\n", f);
		md_finding(f, &v[bi].findings.v[bk], nb == 0);
	}
}
