/*
 * action.h - what an action is called, one vocabulary for both programs:
 * the errno names (the kernel's numbers, glibc's spelling: EAGAIN, not
 * EWOULDBLOCK; EOPNOTSUPP, not ENOTSUP) and an action as the policy
 * language writes it, "errno(EPERM)".  cordonc's explain, check and
 * audit messages and cordon's denials spell an action through here.
 */
#ifndef CORDON_ACTION_H
#define CORDON_ACTION_H

#include <stddef.h>
#include <stdint.h>

/* The largest errno a filter may return: SECCOMP_RET_DATA is 16 bits,
 * and the kernel clamps an errno to MAX_ERRNO. */
#define CPOL_ERRNO_MAX 4095

/* The name of errno e ("EAGAIN"), or NULL when it has none. */
const char *cpol_errno_name(int e);

/* The number a name stands for, aliases included ("EWOULDBLOCK": 11),
 * or -1. */
int cpol_errno_value(const char *name);

/* An action as a policy writes it: "errno(EPERM)" ("errno(N)" for an
 * errno with no name), otherwise bpf_action_str's "allow", "kill",
 * "trap", "log", ...; written to buf, returns buf. */
const char *cpol_action_name(uint32_t action, char *buf, size_t len);

#endif
