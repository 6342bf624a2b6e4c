/*
 * expect.h - `cordonc test`: check a policy's expectation statements
 * against the compiled policy.  Syscall expectations run the seccomp
 * program in the interpreter (every wildcard argument over the boundary
 * values of the policy's conditions on that syscall, and 0, 1, all-ones,
 * 32-bit edges); path expectations ask the Landlock rules (pathq.h);
 * network expectations read the flags and port rules, and host ones
 * what the network reaches (reach.h).
 */
#ifndef CORDON_EXPECT_H
#define CORDON_EXPECT_H

#include <stdio.h>

#include "input.h"

struct expect_result {
	const struct check_expect *e;
	int pass;
	unsigned long points;    /* argument combinations tried */
	char text[320];          /* the expectation, as written back */
	char detail[640];        /* why it failed (or what passed) */
};

/* Check every expectation of in: *out has in->nexpects results (free
 * it).  Returns the number that failed, or -1 on ENOMEM. */
int expect_run(const struct input *in, struct expect_result **out);

/* Print results, attributed to the policy tested: each failure (each
 * result when verbose) as "TOOL: FAIL expect TEXT (file:line): detail",
 * then one summary line. */
void expect_print_text(FILE *f, const struct input *in,
    const struct expect_result *r, unsigned int n, int verbose);
/* One JSON object for one policy. */
void expect_print_json(FILE *f, const struct input *in,
    const struct expect_result *r, unsigned int n);

#endif
