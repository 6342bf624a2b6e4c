/*
 * lint.h - risky things a policy allows, as findings with stable IDs.
 * Works on a struct cpol (source or blob); source-only information
 * (statement locations, suppression comments) comes with struct input.
 */
#ifndef CORDON_LINT_H
#define CORDON_LINT_H

#include "finding.h"
#include "input.h"

struct lint_rule {
	const char *id;          /* "CL001" */
	const char *name;        /* "dangerous-syscall" */
	int severity;            /* default severity (a finding may differ) */
	const char *summary;     /* one line, for --list and SARIF */
};

/* The rule table, in ID order; *n set to its length. */
const struct lint_rule *lint_rules(unsigned int *n);

/*
 * lint_run: append the findings for in to out, applying suppressions
 * (a suppressed finding keeps its place with ->suppressed set).
 * Returns 0, or -1 on ENOMEM.
 */
int lint_run(const struct input *in, struct finding_list *out);
/* linthttp.c: CL016 and CL017, credentials on named hosts. */
int lint_http(const struct input *in, struct finding_list *out);
/* linthttp.c: CL018 and CL019, wildcards over http rules and private
 * address literals. */
int lint_hosts(const struct input *in, struct finding_list *out);
/* lintsys.c: the rules on the syscall filter.  CL001, CL002: rules that
 * allow a dangerous or unconditioned syscall; CL003: a default that
 * allows; CL014: the loader's file mappings refused; CL015: TIOCSTI or
 * TIOCLINUX allowed. */
int check_rules(const struct input *in, struct finding_list *out);
int check_default(const struct input *in, struct finding_list *out);
int check_loader(const struct input *in, struct finding_list *out);
int check_tty(const struct input *in, struct finding_list *out);

/* 1 if name is a syscall lint calls dangerous; *why a short reason. */
int lint_dangerous(const char *name, const char **why);

/* The word that makes an environment name look like a secret, or NULL. */
const char *lint_secret_word(const char *name);

#endif
