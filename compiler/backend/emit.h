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

#endif
