/*
 * sysdecode.h - system call names and arguments, as `cordonc explain`
 * writes them: "socket(AF_INET, SOCK_STREAM, 0)", "ioctl(3, TIOCSTI)".
 *
 * The launcher names a denied call with it (it links neither the
 * compiler nor libseccomp); the compiler's tables (through libseccomp)
 * and these agree, which tests/unit/test_sysdecode.c checks for every
 * number.  No pointers in the tables: a static PIE relocates every
 * pointer at start-up, and each page it touches costs a launch a fault.
 */
#ifndef CORDON_SYSDECODE_H
#define CORDON_SYSDECODE_H

#include <stddef.h>
#include <stdint.h>

/* The highest x86-64 number named (Linux 6.18: file_setattr). */
#define SYSDECODE_MAX 469

/* The name of syscall nr (x86-64), or NULL. */
const char *sysdecode_name(uint32_t nr);

/* "name(arg, ...)" into buf (cut at len - 1): the arguments that matter
 * for a policy, constants by name, pointers as "...".  A syscall whose
 * arguments are not in the table is written "name(...)"; an unknown
 * number "syscall_NR(...)". */
void sysdecode_call(uint32_t nr, const uint64_t args[6], char *buf,
    size_t len);

/* Append to buf[0..len) without overflowing; output is cut at len-1.
 * The one such appender: explain's formatter uses it too. */
void sysdecode_add(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
