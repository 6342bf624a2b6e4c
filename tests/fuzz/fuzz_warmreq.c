/*
 * fuzz_warmreq.c - what a warm spare's cordon takes from the template
 * (launcher/warm/warmreq.c): the request's words, taken apart in place
 * into the caller's directory and cordon's argv, then the values of
 * --status-fd among the options replaced by the descriptor's number.
 *
 * Input: the request's bytes (NUL-ended words; the last NUL may be
 * missing).  The last byte also picks where the options end.
 *
 * Properties:
 *   - warmreq_split never reads or writes outside the buffer (its size
 *     and the one byte the protocol gives it for a missing NUL);
 *   - it refuses exactly: nothing (EMPTY), a directory not starting
 *     with '/' (RELATIVE), more than WARM_ARGV_MAX - 2 words after it
 *     (TOO_MANY), counted here independently; a refusal leaves argc 0
 *     and argv[0] NULL;
 *   - an accepted request: cwd is the buffer's start, argv[0] "cordon",
 *     argv[argc] NULL, every word in the buffer, each right after the
 *     last one's NUL, the last ending at the buffer's end; the input's
 *     bytes unchanged;
 *   - warmreq_status_fd replaces exactly the values of "--status-fd"
 *     words before end (an option and its value a pair, as getopt reads
 *     them), and touches no operand.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "warm.h"

/* What warmreq_split must say, from the bytes alone. */
static enum warmreq_error expected(const uint8_t *data, size_t size)
{
	size_t i, words = 0;

	if (size == 0)
		return WARMREQ_EMPTY;
	if (data[0] != '/')
		return WARMREQ_RELATIVE;
	for (i = 0; i < size; i++)
		words += data[i] == '\0';
	words += data[size - 1] != '\0';
	return words - 1 > WARM_ARGV_MAX - 2 ? WARMREQ_TOO_MANY : WARMREQ_OK;
}

static void words_check(const char *b, size_t size, const struct warmreq *rq)
{
	const char *p = b + strlen(b) + 1;
	size_t len = size + (b[size - 1] != '\0');
	int i;

	if (rq->cwd != b || strcmp(rq->argv[0], "cordon") != 0 ||
	    rq->argv[rq->argc] != NULL)
		fuzz_fail("directory, argv[0] or argv's end");
	for (i = 1; i < rq->argc; i++) {
		if (rq->argv[i] != p)
			fuzz_fail("word %d not where the last one ended", i);
		p += strlen(p) + 1;
	}
	if (p != b + len)
		fuzz_fail("words end at %td of %zu", p - b, len);
}

/* The reference: getopt's pairs, "--status-fd" and its value. */
static void status_check(struct warmreq *rq, int end)
{
	static char *before[WARM_ARGV_MAX];
	static char num[] = "7";
	int i, n = 0, got;

	memcpy(before, rq->argv, sizeof(before));
	got = warmreq_status_fd(rq, end, num);
	for (i = 1; i + 1 < end && i + 1 < rq->argc; i++)
		if (strcmp(before[i], "--status-fd") == 0) {
			before[++i] = num;
			n++;
		}
	for (i = 0; i <= rq->argc; i++)
		if (rq->argv[i] != before[i])
			fuzz_fail("word %d of %d (options end at %d): %s", i,
			    rq->argc, end, rq->argv[i] == num ? "replaced" :
			    "kept");
	if (got != n)
		fuzz_fail("said %d replaced, not %d", got, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct warmreq rq;
	char *b = malloc(size + 1);
	enum warmreq_error e, want = expected(data, size);

	if (!b)
		return 0;
	memcpy(b, data, size);
	e = warmreq_split(b, size, &rq);
	if (e != want)
		fuzz_fail("said %s, not %s", warmreq_why(e), warmreq_why(want));
	if (fuzz_expect_accept && e != WARMREQ_OK)
		fuzz_fail("an ok- request refused: %s", warmreq_why(e));
	if (memcmp(b, data, size) != 0)
		fuzz_fail("the input changed");
	if (e != WARMREQ_OK && (rq.argc != 0 || rq.argv[0] != NULL))
		fuzz_fail("a refusal left words");
	if (e == WARMREQ_OK) {
		words_check(b, size, &rq);
		status_check(&rq, (int)(data[size - 1] % (rq.argc + 2)));
	}
	free(b);
	return 0;
}
