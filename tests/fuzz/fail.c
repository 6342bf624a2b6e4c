/* fail.c - fuzz_fail(), shared by every harness. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

int fuzz_expect_accept;

void fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("fuzz: property failed: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
