/*
 * pathcall.h - the path and address arguments of a call cordon was
 * notified of, read from the caller's memory (/proc/PID/mem).  The
 * caller could change them between the read and the call (TOCTOU): what
 * these read is for reporting and learning, never for a decision.
 */
#ifndef CORDON_PATHCALL_H
#define CORDON_PATHCALL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

int pathcall_peek(pid_t pid, uint64_t addr, char *buf, size_t len);
int pathcall_abs(pid_t pid, int dirfd, uint64_t addr, char *out,
    size_t len);
int pathcall_of(pid_t pid, int dirfd, uint64_t addr, char *out,
    size_t len, int entry);

#endif
