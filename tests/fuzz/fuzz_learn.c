/*
 * fuzz_learn.c - any name bytes through cordonc learn's writer, and the
 * policy it writes back through the real front end (parse, check).
 *
 * The first byte chooses how the name arrives: even, as a file beneath
 * the run's workdir in a cordon trace (learn_read, then "$WORKDIR/NAME");
 * odd, as a host path straight in the tables (HOST "NAME"), which a
 * trace cannot carry for a name with a newline.
 * The name is also the sample's, which comments repeat.
 *
 * Properties:
 *   - the learned policy parses and checks without an error;
 *   - it holds exactly the statements of the same learn without the
 *     path, plus one path rule naming exactly that path with exactly the
 *     rights seen, or, where the writer refuses the name, none and a
 *     "# not learned" note; never a network, syscall or other rule (the
 *     policy as checked has the same rules, ports, environment and
 *     flags as without the name);
 *   - a canonical path of printable ASCII with no "${" (quotes and
 *     backslashes included) is never refused, unless it is or holds a
 *     credential store (common/secret.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpol.h"
#include "diag.h"
#include "fuzz.h"
#include "landlock_compat.h"
#include "learn.h"
#include "parse.h"
#include "secret.h"

#define WD "/nonexistent-cordon-fuzz-wd"
#define HOST "/nonexistent-cordon-fuzz-host/"  /* not too wide, not /proc */
#define RIGHTS (CORDON_LL_FS_READ_FILE | CORDON_LL_FS_MAKE_SYM)

static struct learn l;     /* large: static, cleared for each input */

/* The learned policy for l, in memory. */
static char *written(const char *sample, size_t *len)
{
	struct cpol base;
	char *samples[1] = { (char *)sample }, *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	memset(&base, 0, sizeof(base));
	if (!f)
		fuzz_fail("open_memstream: out of memory");
	if (learn_write(f, &l, &base, "base.policy", "learned", samples, 1)
	    < 0)
		fuzz_fail("learn_write failed");
	if (fclose(f) != 0)
		fuzz_fail("fclose: out of memory");
	return buf;
}

struct view {
	unsigned int stmts, paths, others;
	struct cpol pol;
};

/* What the include would bring: the one statement check wants. */
static const char base_text[] = "command \"/nonexistent-cordon/python\" \"$SNIPPET\";\n";

/* Parse and check text as cordonc compile's front end does, the base
 * spliced in after it as file 1 (parse_buffer reads no include). */
static void reread(const char *text, size_t len, struct view *v)
{
	struct parse_file files[2] = { { 0 }, { 0 } };
	struct policy p;
	struct ast_stmt *s, **tail;
	struct diag *d = diag_new(fuzz_null);

	memset(&p, 0, sizeof(p));
	memset(v, 0, sizeof(*v));
	p.files = files;
	p.nfiles = 2;
	files[0] = (struct parse_file){ .name = "learned.policy",
	    .path = "learned.policy", .text = (char *)text, .len = len };
	files[1] = (struct parse_file){ .name = "base.policy",
	    .path = "base.policy", .text = (char *)base_text,
	    .len = sizeof(base_text) - 1, .depth = 1 };
	if (!d || diag_source(d, files[0].name, text, len) < 0 ||
	    diag_source(d, files[1].name, base_text, files[1].len) < 0)
		fuzz_fail("diag: out of memory");
	p.stmts = parse_buffer(files[0].name, text, len, d, &p.lint);
	for (tail = &p.stmts; *tail; tail = &(*tail)->next) {
		s = *tail;
		v->stmts++;
		v->paths += s->kind == AST_PATH;
		v->others += s->kind == AST_RULE || s->kind == AST_NETWORK ||
		    s->kind == AST_DEFINE || s->kind == AST_ENV_SET ||
		    s->kind == AST_COMMAND || s->kind == AST_PRELOAD ||
		    s->kind == AST_PRIVATE || s->kind == AST_ENV_KEEP;
	}
	*tail = parse_buffer(files[1].name, base_text, files[1].len, d,
	    &p.lint);
	for (s = *tail; s; s = s->next)
		s->file = 1;
	if (diag_errors(d) || check_policy(&p, d, &v->pol, NULL, NULL) < 0) {
		diag_free(d);
		d = diag_new(stderr);
		if (d)
			(void)check_policy(&p, d, &v->pol, NULL, NULL);
		diag_free(d);
		fuzz_fail("the learned policy does not read back:\n%s", text);
	}
	p.files = NULL;      /* the texts are the caller's */
	p.nfiles = 0;
	parse_free(&p);
	diag_free(d);
}

/* The name into l, as the first byte says; the path l holds, or NULL
 * where the trace reader refuses it. */
static const char *learned(const uint8_t *data, size_t size,
    const char *name)
{
	char err[256], *trace;
	size_t n;
	FILE *f;
	int rc;

	if (size && data[0] % 2) {
		n = strlen(name) + sizeof(HOST);
		trace = malloc(n);
		if (!trace)
			fuzz_fail("out of memory");
		snprintf(trace, n, HOST "%s", name);
		l.path = malloc(sizeof(*l.path));  /* learn's table grows */
		if (!l.path)
			fuzz_fail("out of memory");
		l.path[0] = (struct learn_path){ trace, RIGHTS, 1, name };
		l.npath = l.cappath = 1;
		return trace;
	}
	if (strchr(name, '\n'))
		return NULL;        /* cordon writes no such trace line */
	n = strlen(name) + 128;
	trace = malloc(n);
	if (!trace)
		fuzz_fail("out of memory");
	snprintf(trace, n, "cordon-trace\t1\nworkdir\t" WD "\npath\trs\t1\t"
	    WD "/%s\n", name);
	f = fmemopen(trace, strlen(trace), "r");
	if (!f)
		fuzz_fail("fmemopen: out of memory");
	rc = learn_read(f, name, &l, err, sizeof(err));
	fclose(f);
	free(trace);
	if (rc < 0 || l.npath == 0)
		return NULL;
	if (l.npath != 1 || l.ncall || l.nport || l.path[0].access != RIGHTS)
		fuzz_fail("one trace path became other records");
	return l.path[0].path;
}

/* Printable ASCII, canonical, no "${": the writer must say it. */
static int plain(const char *p)
{
	const unsigned char *s = (const unsigned char *)p;

	for (; *s; s++)
		if (*s < 0x20 || *s >= 0x7f)
			return 0;
	return cpol_path_ok(p) && !strstr(p, "${") &&
	    strlen(p) < PARSE_MAX_STRING && !secret_path(p) &&
	    !secret_below(p);
}

static void compare(const char *path, const char *text,
    const struct view *with, const struct view *without)
{
	int refused = with->pol.nfs == 0;

	if (with->others || without->others ||
	    with->pol.nnet != without->pol.nnet ||
	    with->pol.nrules != without->pol.nrules ||
	    with->pol.nenv != without->pol.nenv ||
	    with->pol.nhosts != without->pol.nhosts ||
	    with->pol.flags != without->pol.flags || without->pol.nfs)
		fuzz_fail("a name made a statement:\n%s", text);
	if (with->stmts != without->stmts + !refused ||
	    with->paths != !refused || with->pol.nfs > 1)
		fuzz_fail("%u statements, %u paths (%u without the name):\n%s",
		    with->stmts, with->paths, without->stmts, text);
	if (refused && !strstr(text, "\n# not learned: "))
		fuzz_fail("a name left out without a note:\n%s", text);
	if (refused && fuzz_expect_accept)
		fuzz_fail("an ok- input refused:\n%s", text);
	if (refused && plain(path))
		fuzz_fail("a plain name refused:\n%s", text);
	if (!refused && (strcmp(with->pol.fs[0].path, path) != 0 ||
	    with->pol.fs[0].access != RIGHTS))
		fuzz_fail("the rule names %s, not the path learned:\n%s",
		    with->pol.fs[0].path, text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct view with, without;
	const char *path;
	char *name, *text, *bare, *expect;
	size_t len, barelen;

	if (size > 8192)
		return 0;
	name = malloc(size + 1);
	if (!name)
		fuzz_fail("out of memory");
	memcpy(name, data + (size > 0), size - (size > 0));
	name[size - (size > 0)] = '\0';
	memset(&l, 0, sizeof(l));
	l.memory = l.files = UINT64_MAX;
	path = learned(data, size, name);
	if (path) {
		expect = strdup(path);
		if (!expect)
			fuzz_fail("out of memory");
		text = written(name, &len);
		reread(text, len, &with);
		learn_free(&l);  /* the same learn without the path */
		bare = written(name, &barelen);
		reread(bare, barelen, &without);
		compare(expect, text, &with, &without);
		cpol_free(&with.pol);
		cpol_free(&without.pol);
		free(bare);
		free(text);
		free(expect);
	}
	learn_free(&l);
	free(name);
	return 0;
}
