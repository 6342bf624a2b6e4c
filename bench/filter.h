/*
 * filter.h - seccomp programs for the benchmarks: the one a blob carries,
 * and a naive linear program built from the blob's rule table.
 */
#ifndef CORDON_BENCH_FILTER_H
#define CORDON_BENCH_FILTER_H

#include <linux/filter.h>
#include <stddef.h>

#include "cpol.h"

/* filter_from_blob: copy p's ready BPF into *prog (heap).  0 or -1. */
int filter_from_blob(const struct cpol *p, struct sock_fprog *prog,
    char *err, size_t errlen);

/*
 * filter_linear: the same rules as p->rules, lowered the naive way: check
 * the arch, then compare the syscall number with each rule in turn (and
 * its conditions), the default action at the end.  No tree, no grouping
 * of the rules of one syscall.  0 or -1.
 */
int filter_linear(const struct cpol *p, struct sock_fprog *prog,
    char *err, size_t errlen);

/*
 * filter_allow_all: RET ALLOW, which the kernel's action cache answers
 * without running the program; with load_arg, an argument is loaded
 * first, so the cache cannot decide and every syscall runs the program.
 * 0 or -1.
 */
int filter_allow_all(struct sock_fprog *prog, char *err, size_t errlen,
    int load_arg);

/* filter_install: no_new_privs must be set; installs prog.  0 or -1. */
int filter_install(const struct sock_fprog *prog);

void filter_free(struct sock_fprog *prog);

#endif
