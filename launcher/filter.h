/*
 * filter.h - the seccomp programs cordon makes from the blob's own, for
 * its listener (filter.c): each built by one module and proven by
 * running it (common/bpf.c) before the run starts.
 */
#ifndef CORDON_FILTER_H
#define CORDON_FILTER_H

#include <linux/filter.h>
#include <stddef.h>
#include <stdint.h>

#include "cpol.h"

/* The programs, each the blob's behind a prefix of cordon's. */
enum filter_prog {
	FPROG_NOTIFY,                 /* refusals notify cordon (launch.c) */
	FPROG_LEARN,                  /* --observe (learn.c) */
	FPROG_LLWATCH,                /* --landlock-watch (llwatch.c) */
};

/* What filter_make gives: the program, none because it cannot be made
 * (too long for the kernel, or cordon's text across a 4 GiB line), or a
 * refusal in err (its proof failed, or no memory). */
enum filter_result { FILTER_MADE, FILTER_NO_FIT, FILTER_FAILED };

/* Cordon's own text, [lo, hi): the calls the prefixes let through from
 * there (the payload's first exec, before init hands over the
 * listener).  Empty in the warm pool's extension (launcher/build.mk). */
struct filter_text {
	uint64_t lo, hi;
};

struct filter_text filter_own_text(void);

/* The call numbers proven one by one, 0..FILTER_PROOF_NR (x86-64's stop
 * near 470; the x32 bit, -1 and a few more are added). */
#define FILTER_PROOF_NR 511

/* Is nr a call which's program sends to cordon whatever the blob says
 * (the watched table's column; execve, exit and exit_group apart)? */
int filter_watches(enum filter_prog which, uint32_t nr);

/* Does which's program for a blob of n instructions fit the kernel's
 * length (filter_build's size check, the only one; the plan asks it)?
 * No system call. */
int filter_fits(enum filter_prog which, size_t n);

/* which's program for the blob's n instructions and text t: allocated,
 * *len its length; NULL with errno E2BIG when it cannot be made, ENOMEM
 * without memory.  Not yet proven. */
struct cpol_insn *filter_build(enum filter_prog which,
    const struct cpol_insn *blob, size_t n, struct filter_text t,
    size_t *len);

/* The proof: bpf_check_listener; each copy the blob's instructions with
 * its kind's answers (compared instruction by instruction); the prefix
 * reading only the call, arch and instruction pointer, and sending every
 * call number 0..FILTER_PROOF_NR and beyond, each architecture, inside
 * and outside t, to the copy (or USER_NOTIF) filter.c's contract names.
 * 0, or -1 with the first difference in err. */
int filter_prove(enum filter_prog which, const struct cpol_insn *blob,
    size_t n, const struct cpol_insn *prog, size_t len,
    struct filter_text t, char *err, size_t errlen);

/* A program as the kernel takes it; NULL without memory. */
struct sock_filter *filter_sock(const struct cpol_insn *prog, size_t n);

/* Built for p's program and cordon's text, proven, and converted: *out
 * (the caller frees it) and *n, or why not. */
enum filter_result filter_make(enum filter_prog which, const struct cpol *p,
    struct sock_filter **out, unsigned short *n, char *err,
    size_t errlen);

#endif
