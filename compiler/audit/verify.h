/*
 * verify.h - `cordonc verify POLICY BLOB`: compile POLICY in memory
 * exactly as `cordonc compile` would and check that BLOB holds the same
 * bytes.  On a mismatch, show what differs the way `cordonc diff BLOB
 * POLICY` would, plus the metadata diff does not compare.
 */
#ifndef CORDON_VERIFY_H
#define CORDON_VERIFY_H

#include <stdio.h>

#include "input.h"

/* Returns 0 identical, 1 different or BLOB invalid, 2 POLICY unusable. */
int verify_run(const char *policy, const char *blob,
    const struct compile_opts *o, int json, FILE *out);

#endif
