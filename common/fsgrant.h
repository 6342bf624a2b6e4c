/*
 * fsgrant.h - the rights a policy's path rules give a path, by name:
 * the one answer cordon's learn mode (reads the base grants are not
 * recorded) and cordonc learn (only what the base lacks is written)
 * share.
 */
#ifndef CORDON_FSGRANT_H
#define CORDON_FSGRANT_H

#include <stdint.h>

#include "cpol.h"

/* Is path dir itself or a name beneath it? */
int cpol_path_beneath(const char *dir, const char *path);

/* The Landlock rights b's rules give path, named as learn names it:
 * absolute, or "$WORKDIR..." for a name in the run's workdir.  A rule
 * covers its path and every name beneath it; a private /tmp and
 * /dev/shm give what cordon's run tmpfs gives (CPOL_LL_TMP) beneath
 * them. */
uint64_t cpol_fs_granted(const struct cpol *b, const char *path);

#endif
