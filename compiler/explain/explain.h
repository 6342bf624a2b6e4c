/* explain.h - print what a policy allows, for people or for machines. */
#ifndef CORDON_EXPLAIN_H
#define CORDON_EXPLAIN_H

#include <stdio.h>

#include "cpol.h"

/* Everything p allows: each syscall with conditions and action (and where
 * it came from), each path with rights, network, limits, environment,
 * command line, metadata.  Return 0, or -1 on a write error. */
int explain_text(FILE *f, const struct cpol *p);
int explain_json(FILE *f, const struct cpol *p);

#endif
