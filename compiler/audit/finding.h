/*
 * finding.h - a lint finding: stable ID, severity, location, message.
 * lint produces them; audit reports them (text, JSON, Markdown, SARIF).
 */
#ifndef CORDON_FINDING_H
#define CORDON_FINDING_H

#include <stdio.h>

enum finding_severity {
	FINDING_NOTE = 1,
	FINDING_WARNING = 2,
	FINDING_ERROR = 3,
};

struct finding {
	const char *id;          /* "CL001": static storage */
	int severity;
	char *file;
	unsigned int line;       /* 0: unknown */
	char *message;
	char *suppressed;        /* the reason given, or NULL */
	int included;            /* located in an included file (a base) */
};

struct finding_list {
	struct finding *v;
	unsigned int n;
	unsigned int cap;
};

/* Append a finding (message printf-style).  Returns 0, or -1 on ENOMEM. */
int finding_add(struct finding_list *l, const char *id, int severity,
    const char *file, unsigned int line, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
void finding_list_free(struct finding_list *l);

/* "error", "warning", "note" (SARIF's level names too). */
const char *finding_severity_name(int severity);

/* Print one finding as "file:line: severity: [ID] message". */
void finding_print(FILE *f, const struct finding *x);
/* Print one finding as a JSON object. */
void finding_json(FILE *f, const struct finding *x);

#endif
