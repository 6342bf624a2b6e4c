/*
 * test_oom.c - out of memory is an error, never a smaller policy.
 *
 * malloc, calloc and realloc are replaced (glibc sends its own internal
 * calls, strdup's too, and libseccomp's through them) by wrappers that
 * fail the k-th call once armed.  For each k across the whole compile of
 * a policy that uses every section (policies/radiomics.policy: limits,
 * environment, command, paths, private, network, expectations, through
 * its includes), compile_source must either fail (an error; the lexer
 * exits 2 on its own) or give exactly the blob and the expectations of
 * an unhindered compile.  Each k runs in a child (a hang is a failure).
 * libseccomp's own allocations are left alone: it loops forever when one
 * fails (a libseccomp bug, not ours).  CORDON_OOM_STEP=N
 * tries every N-th call only; CORDON_OOM_POLICY=PATH compiles another
 * policy (tests/golden/ok/credential.policy: the credential and http
 * statements).
 */
#include <dlfcn.h>
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "compile.h"

/* AddressSanitizer owns malloc: the interposers below cannot run under
 * it (make sanitize), and the test skips there with that reason. */
#if defined(__SANITIZE_ADDRESS__)
#define OOM_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OOM_UNDER_ASAN 1
#endif
#endif

#ifdef OOM_UNDER_ASAN
static void test_every_allocation(void **state)
{
	(void)state;
	fprintf(stderr, "test_oom: skipped: AddressSanitizer replaces "
	    "malloc, which this test must interpose\n");
	skip();
}
#else
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t m);
extern void *__libc_realloc(void *p, size_t n);

static long armed_at;      /* fail the call numbered armed_at (1-based) */
static long calls;         /* calls since armed; -1: not counting */
static long calls_done;
static int failed;

/* libseccomp (2.5) spins forever in seccomp_export_bpf after one of its
 * own allocations failed: its calls are not counted. */
static int from_libseccomp(const void *caller)
{
	Dl_info i;

	return dladdr(caller, &i) && i.dli_fname &&
	    strstr(i.dli_fname, "libseccomp");
}

static int fail_now(const void *caller)
{
	if (calls < 0 || from_libseccomp(caller))
		return 0;
	if (++calls == armed_at) {
		failed = 1;
		return 1;
	}
	return 0;
}

void *malloc(size_t n)
{
	return fail_now(__builtin_return_address(0)) ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
	return fail_now(__builtin_return_address(0)) ? NULL : __libc_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
	return fail_now(__builtin_return_address(0)) ? NULL : __libc_realloc(p, n);
}

#define POLICY "policies/radiomics.policy"

static struct compile_opts opts;

/* One compile with the k-th allocation failing (k 0: none); the blob in
 * *blob (NULL on failure) and the number of expectations. */
static int one(long k, uint8_t **blob, size_t *len, unsigned int *nexp)
{
	struct cpol pol;
	struct compile_map map;
	char err[256];
	int r;

	*blob = NULL;
	failed = 0;
	armed_at = k;
	calls = 0;
	r = compile_source(getenv("CORDON_OOM_POLICY") ?
	    getenv("CORDON_OOM_POLICY") : POLICY, &opts, &pol, &map);
	calls_done = calls;
	calls = -1;
	if (r < 0)
		return -1;
	*nexp = map.nexpects;
	assert_int_equal(cpol_write(&pol, blob, len, err, sizeof(err)), 0);
	cpol_free(&pol);
	compile_map_free(&map);
	return 0;
}

/* The k-th allocation failing, in a child: 0 same blob, 1 refused (an
 * error, or the lexer's own exit on out of memory), 3 another policy. */
static int child(long k, const uint8_t *ref, size_t rlen, unsigned int rexp)
{
	uint8_t *blob;
	size_t len;
	unsigned int nexp;

	if (one(k, &blob, &len, &nexp) < 0)
		return failed ? 1 : 4;
	if (!ref || len != rlen || memcmp(blob, ref, len) != 0 ||
	    nexp != rexp) {
		printf("allocation %ld failed, yet the compile succeeded with "
		    "another policy (%zu bytes, %u expectations; want %zu, "
		    "%u)\n", k, len, nexp, rlen, rexp);
		return 3;
	}
	return 0;
}

static void test_every_allocation(void **state)
{
	uint8_t *ref = NULL;
	size_t rlen = 0;
	unsigned int rexp = 0;
	long total, k, step, refused = 0;
	const char *s = getenv("CORDON_OOM_STEP");
	const char *only = getenv("CORDON_OOM_ONLY");
	int st;
	pid_t pid;

	(void)state;
	calls = -1;
	opts.errf = fopen("/dev/null", "w");
	assert_non_null(opts.errf);
	assert_int_equal(one(-1, &ref, &rlen, &rexp), 0);
	total = calls_done;
	assert_true(rexp > 0 && total > 100);
	step = s ? strtol(s, NULL, 10) : 1;
	if (step < 1)
		step = 1;
	if (only) {        /* one k, here: for a debugger */
		k = strtol(only, NULL, 10);
		printf("# allocation %ld: child status %d\n", k,
		    child(k, ref, rlen, rexp));
		return;
	}
	fflush(stdout);
	for (k = 1; k <= total; k += step) {
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			dup2(fileno(opts.errf), 2);
			alarm(30);
			_exit(child(k, ref, rlen, rexp));
		}
		assert_int_equal(waitpid(pid, &st, 0), pid);
		if (WIFSIGNALED(st))
			fail_msg("allocation %ld of %ld failed: the compile "
			    "died of signal %d", k, total, WTERMSIG(st));
		if (WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 1 &&
		    WEXITSTATUS(st) != 2)
			fail_msg("allocation %ld of %ld failed: child exit %d",
			    k, total, WEXITSTATUS(st));
		refused += WEXITSTATUS(st) != 0;
	}
	printf("# %ld allocations (every %ld-th failed): %ld refused, the "
	    "rest recovered to the same blob\n", total, step, refused);
	free(ref);
	fclose(opts.errf);
}

#endif /* OOM_UNDER_ASAN */

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_allocation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
