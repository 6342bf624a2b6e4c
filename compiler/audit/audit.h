/*
 * audit.h - one report over many policies: an exposure score per policy
 * (0 locked down .. 10 wide open) explained factor by factor, a
 * capability matrix, and the lint findings; as text, JSON, Markdown or
 * SARIF 2.1.0.
 */
#ifndef CORDON_AUDIT_H
#define CORDON_AUDIT_H

#include <stdio.h>

#include "finding.h"
#include "input.h"

#define AUDIT_NFACTORS 11
/* Entries listed per matrix cell before "...". */
#define AUDIT_CELL 200

struct audit_factor {
	const char *name;        /* "default action" (static) */
	double weight;           /* the weights add up to 10 */
	double exposure;         /* 0 (closed) .. 1 (open) */
	int high;                /* 1: a high-risk grant (audit.c's list) */
	char detail[AUDIT_CELL];  /* exact numbers (JSON, SARIF) */
	char human[AUDIT_CELL];   /* with units and names (text, Markdown);
	                           * empty: the detail says it */
};

/* Each high-risk grant alone makes a policy "exposed": the score is at
 * least AUDIT_HIGH_FLOOR, and each further one adds AUDIT_HIGH_STEP. */
#define AUDIT_HIGH_FLOOR 4.0
#define AUDIT_HIGH_STEP 0.5

struct audit_policy {
	const struct input *in;
	double sum;              /* sum of weight * exposure, 0..10 */
	double score;            /* max(sum, the high-risk floor), 0..10 */
	unsigned int nhigh;      /* high-risk grants (factors with high) */
	struct audit_factor f[AUDIT_NFACTORS];
	struct finding_list findings;
	/* the capability matrix row */
	char network[AUDIT_CELL];
	char writes[AUDIT_CELL];     /* writable paths */
	char exec[AUDIT_CELL];       /* executable paths */
	char danger[AUDIT_CELL];     /* dangerous syscalls the filter allows */
	char limits[AUDIT_CELL];     /* exact (JSON) */
	char limits_h[AUDIT_CELL];   /* with units (text, Markdown) */
	unsigned int nwrites, nexec, ndanger;
};

/* audit_policy: score, matrix row and lint findings for in (which must
 * outlive a).  Returns 0, or -1 on ENOMEM. */
int audit_policy(const struct input *in, struct audit_policy *a);
void audit_policy_free(struct audit_policy *a);

/* The least score n high-risk grants give (0 for none). */
double audit_high_floor(unsigned int n);

/* "ok", "medium", "exposed", "unsafe" for a score. */
const char *audit_rating(double score);

/* Write the report for v[0..n) in format "text", "json", "markdown" or
 * "sarif".  Returns 0, or -1 for an unknown format.  verbose: text and
 * Markdown show suppressed findings too (JSON and SARIF always carry
 * them, marked). */
int audit_print(FILE *f, const struct audit_policy *v, unsigned int n,
    const char *format, int verbose);
void audit_print_text(FILE *f, const struct audit_policy *v, unsigned int n,
    int verbose);
void audit_print_json(FILE *f, const struct audit_policy *v, unsigned int n);
void audit_print_markdown(FILE *f, const struct audit_policy *v,
    unsigned int n, int verbose);
void audit_print_sarif(FILE *f, const struct audit_policy *v, unsigned int n);

#endif
