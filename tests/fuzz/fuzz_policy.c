/*
 * fuzz_policy.c - any text into the compiler, in memory, through the
 * same passes as `cordonc compile`: parse, check, emit, translation
 * validation, serialise; then the blob is read back and explained.
 *
 * No file is opened: parse_buffer() does not follow includes, and an
 * `include` statement is only a node.  To reach the merge rule across
 * files anyway, the input is cut at each "\0\1" into up to FUZZ_FILES
 * pieces; piece i becomes file i (depth 1 below the first), spliced in
 * order, as if the first file ended with an include of each of the others.
 *
 * Properties:
 *   - no crash, hang, leak or undefined behaviour, whatever the text;
 *   - a pass that fails says so with an error (no silent failure), and a
 *     pass that reports an error fails (no blob after a diagnostic);
 *   - translation validation never disagrees with emit (that would be a
 *     compiler bug: the BPF does not implement the rules);
 *   - a compiled policy serialises, reads back, re-serialises to the same
 *     bytes (determinism) and explains.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpol.h"
#include "diag.h"
#include "emit.h"
#include "validate.h"
#include "explain.h"
#include "fuzz.h"
#include "parse.h"

/* Pieces of one input; real policies include a handful of files. */
#define FUZZ_FILES 8
/* Inputs beyond a source file's cap are what parse_policy refuses. */
#define FUZZ_MAX_TEXT PARSE_MAX_FILE_SIZE


static char *dup_mem(const void *p, size_t n)
{
	char *s = malloc(n + 1);

	if (!s)
		fuzz_fail("out of memory");
	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

/* Next piece of data[*at..size), up to "\0\1" or the end. */
static size_t piece(const uint8_t *data, size_t size, size_t *at,
    const uint8_t **start)
{
	size_t i;

	*start = data + *at;
	for (i = *at; i + 1 < size; i++) {
		if (data[i] == 0 && data[i + 1] == 1) {
			size_t n = i - *at;

			*at = i + 2;
			return n;
		}
	}
	i = size - *at;
	*at = size;
	return i;
}

/* Parse every piece into p (files and statements, in order). */
static void parse_pieces(struct policy *p, const uint8_t *data, size_t size,
    struct diag *d)
{
	struct ast_stmt **tail = &p->stmts;
	size_t at = 0;

	p->files = calloc(FUZZ_FILES, sizeof(*p->files));
	if (!p->files)
		fuzz_fail("out of memory");
	while (p->nfiles < FUZZ_FILES && (at < size || p->nfiles == 0)) {
		struct parse_file *f = &p->files[p->nfiles];
		struct ast_stmt *s;
		const uint8_t *start;
		size_t n = piece(data, size, &at, &start);
		char name[32];

		snprintf(name, sizeof(name), "fuzz%u.policy", p->nfiles);
		f->name = dup_mem(name, strlen(name));
		f->path = dup_mem(name, strlen(name));
		f->text = dup_mem(start, n);
		f->len = n;
		f->depth = p->nfiles ? 1 : 0;
		if (diag_source(d, f->name, f->text, f->len) < 0)
			fuzz_fail("diag_source: out of memory");
		*tail = parse_buffer(f->name, f->text, f->len, d, &p->lint);
		for (s = *tail; s; s = s->next) {
			s->file = p->nfiles;
			tail = &s->next;
		}
		p->nfiles++;
	}
}

static void blob_checks(struct cpol *pol)
{
	uint8_t *buf, *again;
	size_t len, againlen;
	struct cpol back;
	char err[512];

	if (cpol_write(pol, &buf, &len, err, sizeof(err)) < 0)
		fuzz_fail("compiled policy does not serialise: %s", err);
	if (cpol_read(buf, len, &back, err, sizeof(err)) < 0)
		fuzz_fail("the reader refuses the compiler's blob: %s", err);
	if (cpol_write(&back, &again, &againlen, err, sizeof(err)) < 0)
		fuzz_fail("read-back blob does not serialise: %s", err);
	if (againlen != len || memcmp(buf, again, len) != 0)
		fuzz_fail("blob changed in a read/write round trip");
	if (explain_text(fuzz_null, &back) < 0 ||
	    explain_json(fuzz_null, &back) < 0)
		fuzz_fail("explain failed on a compiled policy");
	cpol_free(&back);
	free(again);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy p;
	struct diag *d;
	struct cpol pol;
	char err[512];
	int rc, compiled = 0;
	unsigned int syntax;

	if (size > FUZZ_MAX_TEXT)
		return 0;
	err[0] = '\0';
	memset(&p, 0, sizeof(p));
	d = diag_new(fuzz_null);
	if (!d)
		fuzz_fail("diag_new: out of memory");
	parse_pieces(&p, data, size, d);
	/* As compile_source: what parsed is checked after syntax errors,
	 * and nothing goes further. */
	syntax = diag_errors(d);
	rc = check_policy(&p, d, &pol, NULL, NULL);
	if (rc < 0 && diag_errors(d) == syntax)
		fuzz_fail("check_policy failed without an error");
	if (rc == 0 && diag_errors(d) > syntax)
		fuzz_fail("check_policy succeeded after %u errors",
		    diag_errors(d));
	if (rc == 0 && syntax > 0)
		cpol_free(&pol);
	if (rc < 0 || syntax > 0)
		goto out;
	if (emit_seccomp(&pol, err, sizeof(err)) < 0) {
		if (err[0] == '\0')
			fuzz_fail("emit_seccomp failed without a message");
		cpol_free(&pol);
		goto out;
	}
	if (validate_seccomp(&pol, err, sizeof(err)) < 0)
		fuzz_fail("translation validation: %s", err);
	blob_checks(&pol);
	cpol_free(&pol);
	compiled = 1;
out:
	if (fuzz_expect_accept && !compiled)
		fuzz_fail("a policy that must compile did not (%u errors; "
		    "%s)", diag_errors(d), err);
	parse_free(&p);
	diag_free(d);
	return 0;
}
