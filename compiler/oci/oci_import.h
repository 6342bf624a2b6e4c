/*
 * oci_import.h - the rules `cordonc import` resolves from a profile
 * (oci_import.c) and writes as policy source (oci_import_out.c).
 */
#ifndef CORDON_OCI_IMPORT_H
#define CORDON_OCI_IMPORT_H

#include <stdint.h>
#include <stdio.h>

#include "oci.h"

/* Rules one import may produce: Docker's default profile resolves to
 * ~400; a profile entry with every name is ~470. */
#define OCI_IMPORT_MAX_RULES 8192
/* The largest errnoRet: libseccomp (2.5) refuses MAX_ERRNO (4095) in a
 * rule or a default, so runc cannot load such a profile and cordonc
 * could not compile the policy written from it. */
#define OCI_IMPORT_ERRNO_MAX 4094
/* Capabilities named with --cap (the kernel has 41). */
#define OCI_IMPORT_MAX_CAPS 64

/* One OCI comparison as the profile gives it. */
struct oci_cmp {
	unsigned int index;
	int op;               /* CPOL_OP_* (MASKED_EQ: value = mask) */
	uint64_t value, value2;
};

struct oci_rule {
	int nr;
	const char *name;     /* the compiler table's (static) */
	uint32_t action;      /* SECCOMP_RET_* with data */
	unsigned int ncmp;
	struct oci_cmp cmp[6];
	unsigned int entry;   /* index in the profile's syscalls array */
	int dropped;
};

struct oci_import {
	const char *profile;      /* path, for the header */
	const char *name;         /* policy name */
	const char *caps[OCI_IMPORT_MAX_CAPS];
	unsigned int ncaps;
	unsigned int kmajor, kminor;
	uint32_t default_action;
	struct oci_rule *rules;
	unsigned int nrules;
	struct oci_notes notes;   /* one "# " comment line each */
	char err[192];            /* why the profile was refused, or "" */
};

struct json_val;
/* Read a parsed profile (top) into im: its default action, rules and
 * notes, for im's kernel and capabilities.  0; -1: not a profile (why
 * in im->err, or "" where the caller names what a profile has); -2:
 * syscalls[*bad] is malformed or makes too many rules (why in im->err,
 * or ""). */
int oci_import_read(struct oci_import *im, const struct json_val *top,
    unsigned int *bad);
/* Resolve conflicts the policy language forbids, and write the source.
 * 0, or -1 (out of memory). */
int oci_import_write(struct oci_import *im, FILE *f);
/* After resolving: name clone3 and io_uring_* with the profile's answer
 * where cordon's ENOSYS would differ, note socketpair's widening by
 * `network off` (oci_import_keep.c).  0, or -1 (out of memory). */
int oci_import_keep(struct oci_import *im);

#endif
