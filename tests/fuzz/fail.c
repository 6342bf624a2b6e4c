/* fail.c - what every harness shares: fuzz_fail(), LLVMFuzzerInitialize
 * (fuzz_null opened, then the harness's fuzz_setup, if it has one). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

int fuzz_expect_accept;
FILE *fuzz_null;

__attribute__((weak)) int fuzz_setup(void)
{
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_null = fopen("/dev/null", "w");
	return fuzz_null ? fuzz_setup() : -1;
}

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
