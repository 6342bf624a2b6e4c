/*
 * bpf.h - cordon's own seccomp classic-BPF interpreter.
 *
 * Stricter than the kernel: bpf_check refuses anything the kernel would
 * refuse and more (see bpf.c), so that a program it accepts means one
 * thing.  No system calls, no libseccomp: the launcher, cordonc's
 * translation validation, `cordonc test` and the fuzzers all link it.
 */
#ifndef CORDON_BPF_H
#define CORDON_BPF_H

#include <stddef.h>
#include <stdint.h>

#include "cpol.h"

/* struct seccomp_data as the filter sees it: nr at offset 0, arch at 4,
 * instruction_pointer at 8, args[i] at 16 + 8 * i, little-endian. */
struct bpf_input {
	uint32_t nr;
	uint32_t arch;
	uint64_t ip;
	uint64_t args[6];
};

#define BPF_INPUT_LEN 64      /* sizeof(struct seccomp_data) */
#define BPF_SCRATCH_WORDS 16  /* BPF_MEMWORDS */

/* Return actions (SECCOMP_RET_*), and the mask of their data part. */
#define BPF_ACT_KILL_PROCESS 0x80000000u
#define BPF_ACT_KILL_THREAD 0x00000000u
#define BPF_ACT_TRAP 0x00030000u
#define BPF_ACT_ERRNO 0x00050000u
#define BPF_ACT_USER_NOTIF 0x7fc00000u
#define BPF_ACT_TRACE 0x7ff00000u
#define BPF_ACT_LOG 0x7ffc0000u
#define BPF_ACT_ALLOW 0x7fff0000u
#define BPF_ACT_FULL_MASK 0xffff0000u
#define BPF_ACT_DATA_MASK 0x0000ffffu

/* A RET value that refuses the call: a kill (of the process or thread)
 * or an errno.  What cordon's listener is told of (launcher/plan.c
 * decides on it, launcher/filter.c rewrites by it). */
static inline int bpf_act_refuses(uint32_t ret)
{
	uint32_t act = ret & BPF_ACT_FULL_MASK;

	return act == BPF_ACT_KILL_PROCESS || act == BPF_ACT_KILL_THREAD ||
	    act == BPF_ACT_ERRNO;
}

/*
 * bpf_check: validate a seccomp program.  Returns 0, or -1 with the
 * first problem (and its instruction index) in err.
 */
int bpf_check(const struct cpol_insn *prog, size_t n, char *err,
    size_t errlen);

/* bpf_check for a program cordon made for its listener (the launcher's
 * filter.c): RET SECCOMP_RET_USER_NOTIF accepted too, nothing else more. */
int bpf_check_listener(const struct cpol_insn *prog, size_t n, char *err,
    size_t errlen);

/*
 * bpf_run: run a program that passed bpf_check on one input and return
 * the 32-bit value of the RET it reached.  It never reads outside prog or
 * the input even on an unchecked program: whatever bpf_check would refuse
 * yields BPF_ACT_KILL_PROCESS.  Division by a zero X register returns 0
 * (SECCOMP_RET_KILL_THREAD), as the kernel does.
 */
uint32_t bpf_run(const struct cpol_insn *prog, size_t n,
    const struct bpf_input *in);

/* A readable name of a return value: "allow", "errno(38)", "kill", ...
 * written to buf; returns buf. */
const char *bpf_action_str(uint32_t ret, char *buf, size_t len);

/* Is k an action cordon may install: allow, log, kill (process or
 * thread), trap, or errno 0..4095, with no stray data bits? */
int bpf_action_valid(uint32_t k);

#endif
