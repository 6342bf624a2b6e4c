/* validate.h - prove an emitted BPF program against the rules it came
 * from (the interpreter in common/bpf.c). */
#ifndef CORDON_VALIDATE_H
#define CORDON_VALIDATE_H

#include <stddef.h>

#include "cpol.h"

/*
 * validate_seccomp: translation validation.  Run p->insns through the BPF
 * interpreter for every syscall number of the arch (and the x32 range and
 * out-of-range numbers) and for the boundary values of every condition in
 * p->rules, and compare with what the rules say.  Returns 0, or -1 with
 * the first disagreement in err (an internal error: write no blob).
 */
int validate_seccomp(const struct cpol *p, char *err, size_t errlen);

#endif
