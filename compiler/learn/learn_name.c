/*
 * learn_name.c - the comment lines a learned policy holds; names are
 * written by common/polquote.c, the one quoting of the policy language.
 */
#include <stdio.h>

#include "learn.h"
#include "polquote.h"

/* A comment's "first [CALL ]in SAMPLE", then end: names as notes. */
void learn_first(FILE *out, const char *call, const char *sample,
    const char *end)
{
	fputs("first ", out);
	if (call) {
		polq_note(call, polq_put_file, out);
		fputc(' ', out);
	}
	fputs("in ", out);
	polq_note(sample, polq_put_file, out);
	fputs(end, out);
}
