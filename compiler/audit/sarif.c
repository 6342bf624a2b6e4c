/*
 * sarif.c - the audit as SARIF 2.1.0 (OASIS), for code-scanning UIs:
 * one run, the lint rules as the driver's rules, every finding as a
 * result on its policy line (suppressed ones carry an inSource
 * suppression with the reason), and each policy's exposure score as a
 * result of rule CA001 on its `policy` statement.
 *
 * A finding in a file several policies include is one result.  Each
 * location is a URI relative to a uriBaseId: %SRCROOT% (the current
 * directory) for files under it, else DIRn for the file's directory;
 * run.originalUriBaseIds gives their absolute file: URIs.  Each result
 * has partialFingerprints["cordonFinding/v1"]: a hash of the rule id,
 * the relative URI and the statement's text (not its line number), so
 * a finding keeps its identity when lines move.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"
#include "jsonout.h"
#include "lint.h"

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"
#define SARIF_ROOT "%SRCROOT%"
/* Directories outside %SRCROOT% with their own base id (DIR1..). */
#define SARIF_MAX_BASES 32

struct bases {
	char root[PATH_MAX];            /* the current directory, "" if none */
	char *dir[SARIF_MAX_BASES];     /* absolute, no trailing '/' */
	unsigned int n;
};

/* A location: base id and the URI relative to it (percent-encoded). */
struct where {
	char base[16];
	char uri[3 * PATH_MAX];
};

/* Percent-encode s into out: RFC 3986 unreserved characters and '/'
 * stay as they are. */
static void uri_enc(const char *s, char *out, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = 0;

	for (; *s && o + 4 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("-._~/", c)) {
			out[o++] = (char)c;
		} else {
			out[o++] = '%';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		}
	}
	out[o] = '\0';
}

/* Where file (a path as opened) lies: under the root, or in a
 * directory of its own base (added to b when new). */
static void place(struct bases *b, const char *file, struct where *w)
{
	char abs[PATH_MAX], *slash;
	size_t rl = strlen(b->root);
	unsigned int i;

	if (!realpath(file, abs))
		snprintf(abs, sizeof(abs), "%s", file);
	if (rl && strncmp(abs, b->root, rl) == 0 && abs[rl] == '/') {
		snprintf(w->base, sizeof(w->base), "%s", SARIF_ROOT);
		uri_enc(abs + rl + 1, w->uri, sizeof(w->uri));
		return;
	}
	slash = strrchr(abs, '/');
	if (!slash || slash == abs) {   /* no directory to stand on */
		snprintf(w->base, sizeof(w->base), "%s", SARIF_ROOT);
		uri_enc(abs, w->uri, sizeof(w->uri));
		return;
	}
	*slash = '\0';
	for (i = 0; i < b->n && strcmp(b->dir[i], abs); i++)
		;
	if (i == b->n && b->n < SARIF_MAX_BASES &&
	    (b->dir[b->n] = strdup(abs)))
		b->n++;
	if (i >= b->n) {                /* no room: relative to the root */
		*slash = '/';
		snprintf(w->base, sizeof(w->base), "%s", SARIF_ROOT);
		uri_enc(abs, w->uri, sizeof(w->uri));
		return;
	}
	snprintf(w->base, sizeof(w->base), "DIR%u", i + 1);
	uri_enc(slash + 1, w->uri, sizeof(w->uri));
}

/* The base ids' absolute URIs (percent-encoded: no JSON escapes). */
static void bases_json(FILE *f, const struct bases *b)
{
	char uri[3 * PATH_MAX];

	uri_enc(b->root, uri, sizeof(uri));
	fprintf(f, ",\"originalUriBaseIds\":{\"%s\":{", SARIF_ROOT);
	if (b->root[0])
		fprintf(f, "\"uri\":\"file://%s/\"", uri);
	fputc('}', f);
	for (unsigned int i = 0; i < b->n; i++) {
		uri_enc(b->dir[i], uri, sizeof(uri));
		fprintf(f, ",\"DIR%u\":{\"uri\":\"file://%s/\"}", i + 1, uri);
	}
	fputc('}', f);
}

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

/* The text of line n of path, blanks trimmed; "" when unreadable. */
static void line_text(const char *path, unsigned int n, char *out,
    size_t len)
{
	FILE *f = n ? fopen(path, "r") : NULL;
	char *line = NULL, *s, *e;
	size_t cap = 0;
	unsigned int i = 0;

	out[0] = '\0';
	if (!f)
		return;
	while (getline(&line, &cap, f) >= 0)
		if (++i == n) {
			for (s = line; *s == ' ' || *s == '\t'; s++)
				;
			e = s + strlen(s);
			while (e > s && strchr(" \t\r\n", e[-1]))
				e--;
			*e = '\0';
			snprintf(out, len, "%s", s);
			break;
		}
	free(line);
	fclose(f);
}

/* FNV-1a, 64 bits, over a string and its terminating NUL. */
static uint64_t fnv(uint64_t h, const char *s)
{
	do {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	} while (*s++);
	return h;
}

/* "locations" and "partialFingerprints" of a result of rule id at
 * file (a display name of in) and line. */
static void location(FILE *f, struct bases *b, const struct input *in,
    const char *id, const char *file, unsigned int line)
{
	const char *path = input_file_path(in, file);
	char text[512];
	struct where w;
	uint64_t h;

	place(b, path, &w);
	line_text(path, line, text, sizeof(text));
	h = fnv(fnv(fnv(fnv(0xcbf29ce484222325ull, id), w.base), w.uri),
	    text);
	fprintf(f, "\"locations\":[{\"physicalLocation\":{\"artifactLocation\":"
	    "{\"uri\":\"%s\",\"uriBaseId\":\"%s\"}", w.uri, w.base);
	if (line)
		fprintf(f, ",\"region\":{\"startLine\":%u}", line);
	fprintf(f, "}}],\"partialFingerprints\":{\"cordonFinding/v1\":"
	    "\"%016llx\"}", (unsigned long long)h);
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

static void result(FILE *f, struct bases *b, const struct input *in,
    const struct finding *x)
{
	fputs("{\"ruleId\":", f);
	json_str(f, x->id);
	fprintf(f, ",\"ruleIndex\":%d,\"level\":", rule_index(x->id));
	json_str(f, level(x->severity));
	fputs(",\"message\":{\"text\":", f);
	json_str(f, x->message);
	fputs("},", f);
	location(f, b, in, x->id, x->file, x->line);
	if (x->suppressed) {
		fputs(",\"suppressions\":[{\"kind\":\"inSource\","
		    "\"justification\":", f);
		json_str(f, x->suppressed);
		fputs("}]", f);
	}
	fputc('}', f);
}

static void score(FILE *f, struct bases *b, const struct audit_policy *a)
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
	location(f, b, a->in, "CA001", file, line);
	fprintf(f, ",\"properties\":{\"score\":%.1f,\"highRisk\":%u,"
	    "\"network\":", s, a->nhigh);
	json_str(f, a->network);
	fputs("}}", f);
}

/* 1 if finding k of policy i was reported already (a file several
 * policies include: same rule, file, line and message). */
static int reported(const struct audit_policy *v, unsigned int i,
    unsigned int k)
{
	const struct finding *x = &v[i].findings.v[k];
	const char *path = input_file_path(v[i].in, x->file);

	for (unsigned int j = 0; j <= i; j++)
		for (unsigned int m = 0; m < (j == i ? k : v[j].findings.n);
		    m++) {
			const struct finding *y = &v[j].findings.v[m];

			if (y->id == x->id && y->line == x->line &&
			    !strcmp(y->message, x->message) &&
			    !strcmp(input_file_path(v[j].in, y->file), path))
				return 1;
		}
	return 0;
}

void audit_print_sarif(FILE *f, const struct audit_policy *v, unsigned int n)
{
	struct bases b;
	int first = 1;

	memset(&b, 0, sizeof(b));
	/* "/" + '/' would not prefix paths: no root then, as without one */
	if (!getcwd(b.root, sizeof(b.root)) || !strcmp(b.root, "/"))
		b.root[0] = '\0';
	fputs("{\"$schema\":\"" SARIF_SCHEMA "\",\"version\":\"2.1.0\","
	    "\"runs\":[{", f);
	driver(f, v, n);
	fputs(",\"results\":[", f);
	for (unsigned int i = 0; i < n; i++) {
		json_sep(f, &first);
		score(f, &b, &v[i]);
		for (unsigned int k = 0; k < v[i].findings.n; k++) {
			if (reported(v, i, k))
				continue;
			json_sep(f, &first);
			result(f, &b, v[i].in, &v[i].findings.v[k]);
		}
	}
	fputc(']', f);
	bases_json(f, &b);
	fputs("}]}\n", f);
	for (unsigned int i = 0; i < b.n; i++)
		free(b.dir[i]);
}
