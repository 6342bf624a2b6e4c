/*
 * jsonout.h - the little JSON writing that lint, test, diff, verify and
 * audit share: quoted strings with every control byte escaped, and a
 * "comma before every element but the first" helper.  Callers write the
 * structure themselves; this only gets escaping and separators right.
 */
#ifndef CORDON_JSONOUT_H
#define CORDON_JSONOUT_H

#include <stdio.h>

/* Write s as a JSON string literal ("null" for NULL). */
void json_str(FILE *f, const char *s);
/* Write "key": (with the key quoted and escaped). */
void json_key(FILE *f, const char *key);
/* Write "," unless *first, then clear *first. */
void json_sep(FILE *f, int *first);

#endif
