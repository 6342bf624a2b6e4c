/*
 * fuzz.h - the libFuzzer entry points every harness in tests/fuzz/
 * defines.  Each harness is linked two ways: with -fsanitize=fuzzer
 * (build-fuzz/, `make fuzz`), and with driver.c's main() as a plain
 * program that replays files (the regression inputs of `make check`).
 */
#ifndef CORDON_FUZZ_H
#define CORDON_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Stop with a message on stderr: a harness property failed.  abort()
 * so that libFuzzer records the input as a crash. */
void fuzz_fail(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

/* fail.c defines LLVMFuzzerInitialize for every harness: it opens
 * fuzz_null (/dev/null, for what a harness's code writes) and calls
 * fuzz_setup, which a harness defines when it needs more (fail.c's own,
 * weak, does nothing). */
extern FILE *fuzz_null;
int fuzz_setup(void);

/* Set by driver.c while it replays a file whose name starts with "ok-":
 * that input must be accepted (a blob read, a policy compiled), not only
 * survived.  Always 0 under libFuzzer. */
extern int fuzz_expect_accept;

/* wellformed.c: the length of the well-formed UTF-8 sequence at p (of
 * left bytes), or 0; Unicode's table 3-7, apart from common/utf8.c. */
size_t fuzz_wellformed(const unsigned char *p, size_t left);

#endif
