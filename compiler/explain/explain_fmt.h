/*
 * explain_fmt.h - the formatting explain's text and JSON views share:
 * actions, conditions with argument names and symbolic values, Landlock
 * rights with shorthands, sizes and times with units.
 */
#ifndef CORDON_EXPLAIN_FMT_H
#define CORDON_EXPLAIN_FMT_H

#include <stddef.h>
#include <stdint.h>

#include "action.h" /* cpol_action_name: the views spell actions by it */
#include "cpol.h"

/* Longest formatted condition or rule. */
#define EXPLAIN_LINE 1024

/* Argument name ("domain") or "argN" into buf. */
const char *explain_arg(const char *syscall, unsigned int arg, char *buf,
    size_t len);
/* A value as a constant name suited to the argument ("AF_UNIX",
 * "PROT_READ|PROT_WRITE"), or NULL if none fits exactly. */
const char *explain_symbol(const char *syscall, unsigned int arg,
    unsigned int width, uint64_t value, char *buf, size_t len);
/* A value as its symbol, else decimal (small) or hex. */
const char *explain_value(const char *syscall, unsigned int arg,
    unsigned int width, uint64_t value, char *buf, size_t len);
/* A call with named arguments as the author would write them, the
 * trailing zero ones left out: "ioctl(fd=0, request=TIOCSTI)". */
const char *explain_call(const char *syscall, const uint64_t args[6],
    char *buf, size_t len);
/* "domain == AF_UNIX", "prot & PROT_EXEC == 0". */
const char *explain_cond(const char *syscall, const struct cpol_cond *c,
    char *buf, size_t len);
/* "socket(domain == AF_UNIX, type == SOCK_STREAM)" or "read". */
const char *explain_rule(const struct cpol_rule *r, char *buf, size_t len);
/* Landlock rights: a shorthand when exact ("rx"), else names joined by
 * ", " (with read/write/create/remove for complete pairs); "none". */
const char *explain_rights(uint64_t access, char *buf, size_t len);
/* "4G", "256M", "1000" (bytes not a power-of-1024 multiple) */
const char *explain_size(uint64_t bytes, char *buf, size_t len);
/* "60s", "5m", "1500ms" */
const char *explain_ms(uint64_t ms, char *buf, size_t len);
/* A limit's value with its unit: "30s", "4G", "64", "unlimited". */
const char *explain_limit(const struct cpol_limit *l, char *buf,
    size_t len);
/* Lower-case hex of 32 bytes; NULL (and buf empty) if all zero. */
const char *explain_digest(const uint8_t d[32], char *buf, size_t len);

#endif
