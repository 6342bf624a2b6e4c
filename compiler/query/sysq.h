/*
 * sysq.h - questions about a policy's seccomp program, answered by
 * running it in cordon's BPF interpreter (common/bpf.h): what does the
 * filter return for this syscall and these arguments, and which argument
 * values are worth trying (the boundary values of every condition that
 * one or two policies place on a syscall).
 */
#ifndef CORDON_SYSQ_H
#define CORDON_SYSQ_H

#include <stdint.h>

#include "cpol.h"

/* Values tried per argument: the conditions' values, their neighbours
 * and a few generic ones; enough for every shipped policy. */
#define SYSQ_MAX_VALUES 24
/* Argument combinations tried per syscall; value lists are shortened
 * (least telling values first) until the product fits. */
#define SYSQ_MAX_POINTS 65536u

struct sysq_space {
	unsigned int n[6];
	uint64_t v[6][SYSQ_MAX_VALUES];
};

/* The filter's answer (SECCOMP_RET_* with data) for nr and args on p's
 * own architecture. */
uint32_t sysq_run(const struct cpol *p, uint32_t nr, const uint64_t args[6]);

/* 1 if an answer lets the call run (allow, log). */
int sysq_allows(uint32_t action);

/* Representative argument values for nr from the conditions of a and b
 * (b may be NULL): every argument gets at least 0 and all-ones. */
void sysq_space_init(struct sysq_space *s, const struct cpol *a,
    const struct cpol *b, uint32_t nr);
/* Try only value for argument arg. */
void sysq_space_fix(struct sysq_space *s, unsigned int arg, uint64_t value);

/* Call fn on every point of s (at most SYSQ_MAX_POINTS) until it returns
 * non-zero; returns that value, or 0. */
int sysq_walk(struct sysq_space *s,
    int (*fn)(const uint64_t args[6], void *ctx), void *ctx);

/* The syscall's name for nr: from p's rules, then the compiler's table;
 * "#nr" in buf when neither knows it. */
const char *sysq_name(const struct cpol *p, uint32_t nr, char *buf,
    unsigned int len);

#endif
