/*
 * sarif.c - the audit as SARIF 2.1.0 (OASIS), for code-scanning UIs:
 * one run, the lint rules as the driver's rules, every finding as a
 * result on its policy line (suppressed ones carry an inSource
 * suppression with the reason), and each policy's exposure score as a
 * result of rule CA001 on its `policy` statement.
 */
#include <string.h>

#include "audit.h"
#include "jsonout.h"
#include "lint.h"

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"

static const char *level(int severity)
{
	return finding_severity_name(severity);  /* error, warning, note */
}

static void rule(FILE *f, const char *id, const char *name,
    const char *text, int severity)
{
	fputs("{\"id\":", f);
	json_str(f, id);
	fputs(",\"name\":", f);
	json_str(f, name);
	fputs(",\"shortDescription\":{\"text\":", f);
	json_str(f, text);
	fputs("},\"defaultConfiguration\":{\"level\":", f);
	json_str(f, level(severity));
	fputs("}}", f);
}

static void driver(FILE *f, const struct audit_policy *v, unsigned int n)
{
	const char *version = n && v[0].in->pol.compiler_version ?
	    v[0].in->pol.compiler_version : "unknown";
	const struct lint_rule *r;
	unsigned int nr;

	r = lint_rules(&nr);
	fputs("\"tool\":{\"driver\":{\"name\":\"cordonc\",\"version\":", f);
	json_str(f, version);
	fputs(",\"rules\":[", f);
	for (unsigned int i = 0; i < nr; i++) {
		rule(f, r[i].id, r[i].name, r[i].summary, r[i].severity);
		fputc(',', f);
	}
	rule(f, "CA001", "exposure-score", "exposure score of a policy, 0 "
	    "(locked down) to 10 (wide open)", FINDING_NOTE);
	fputs("]}}", f);
}

static void location(FILE *f, const struct input *in, const char *file,
    unsigned int line)
{
	fputs("\"locations\":[{\"physicalLocation\":{\"artifactLocation\":"
	    "{\"uri\":", f);
	json_str(f, input_file_path(in, file));
	fputc('}', f);
	if (line)
		fprintf(f, ",\"region\":{\"startLine\":%u}", line);
	fputs("}}]", f);
}

static int rule_index(const char *id)
{
	const struct lint_rule *r;
	unsigned int n;

	r = lint_rules(&n);
	for (unsigned int i = 0; i < n; i++)
		if (strcmp(r[i].id, id) == 0)
			return (int)i;
	return (int)n;   /* CA001 comes last */
}

static void result(FILE *f, const struct input *in, const struct finding *x)
{
	fputs("{\"ruleId\":", f);
	json_str(f, x->id);
	fprintf(f, ",\"ruleIndex\":%d,\"level\":", rule_index(x->id));
	json_str(f, level(x->severity));
	fputs(",\"message\":{\"text\":", f);
	json_str(f, x->message);
	fputs("},", f);
	location(f, in, x->file, x->line);
	if (x->suppressed) {
		fputs(",\"suppressions\":[{\"kind\":\"inSource\","
		    "\"justification\":", f);
		json_str(f, x->suppressed);
		fputs("}]", f);
	}
	fputc('}', f);
}

static void score(FILE *f, const struct audit_policy *a)
{
	unsigned int line;
	const char *file = input_where(a->in, INPUT_POLICY, NULL, &line);
	char msg[128];
	double s = a->score;

	snprintf(msg, sizeof(msg), "policy %s: exposure %.1f/10 (%s)",
	    a->in->pol.name, s, audit_rating(s));
	fprintf(f, "{\"ruleId\":\"CA001\",\"ruleIndex\":%d,\"level\":",
	    rule_index("CA001"));
	json_str(f, s >= 7.0 ? "error" : s >= 4.0 ? "warning" : "note");
	fputs(",\"message\":{\"text\":", f);
	json_str(f, msg);
	fputs("},", f);
	location(f, a->in, file, line);
	fprintf(f, ",\"properties\":{\"score\":%.1f}}", s);
}

void audit_print_sarif(FILE *f, const struct audit_policy *v, unsigned int n)
{
	int first = 1;

	fputs("{\"$schema\":\"" SARIF_SCHEMA "\",\"version\":\"2.1.0\","
	    "\"runs\":[{", f);
	driver(f, v, n);
	fputs(",\"results\":[", f);
	for (unsigned int i = 0; i < n; i++) {
		json_sep(f, &first);
		score(f, &v[i]);
		for (unsigned int k = 0; k < v[i].findings.n; k++) {
			json_sep(f, &first);
			result(f, v[i].in, &v[i].findings.v[k]);
		}
	}
	fputs("]}]}\n", f);
}
