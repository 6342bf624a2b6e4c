/* emit.h - lower the checked rules of a policy to a seccomp BPF program. */
#ifndef CORDON_EMIT_H
#define CORDON_EMIT_H

#include <stddef.h>
#include <stdint.h>

#include "cpol.h"

/*
 * emit_seccomp: build the BPF program for p->arch from p->rules and
 * p->default_action with libseccomp (binary tree on; bad arch killed; on
 * x86-64 the x32 range and ia32 refused; syscall numbers not in the table
 * answer ENOSYS), and store it in p->insns / p->ninsns.  More than
 * CPOL_MAX_INSNS instructions is an error naming the cause.
 * Returns 0, or -1 with a message in err.
 */
int emit_seccomp(struct cpol *p, char *err, size_t errlen);

/*
 * validate_seccomp: translation validation.  Run p->insns through the BPF
 * interpreter for every syscall number of the arch (and the x32 range and
 * out-of-range numbers) and for the boundary values of every condition in
 * p->rules, and compare with what the rules say.  Returns 0, or -1 with
 * the first disagreement in err (an internal error: write no blob).
 */
int validate_seccomp(const struct cpol *p, char *err, size_t errlen);

#endif
