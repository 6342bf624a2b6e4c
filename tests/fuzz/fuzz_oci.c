/*
 * fuzz_oci.c - any bytes through `cordonc import --format oci`, in
 * memory: the JSON reader (compiler/io/json_read.c), the profile reader
 * and the policy writer (compiler/oci/oci_import*.c), then the policy it
 * writes through the same passes as `cordonc compile`.
 *
 * Properties:
 *   - json_parse never reads outside the input (the driver and libFuzzer
 *     give exactly size bytes; ASan sees the rest);
 *   - a refusal is -1 with "line N: why" in err, N a line the input has,
 *     and the value left empty;
 *   - an accepted document holds no NUL byte; no value nests deeper than
 *     JSON_MAX_DEPTH or holds more than JSON_MAX_ITEMS; no object has a
 *     key twice; every string and key is NUL-terminated, at most
 *     JSON_MAX_STR bytes of valid UTF-8; every value's line is one of
 *     the input's; a number's token is JSON's grammar, and is_uint and
 *     num say exactly what the token's digits are when it is a plain
 *     integer that fits (and -0);
 *   - an accepted document round-trips: written back (compact, strings
 *     escaped only where JSON requires) it reads as the same tree, and
 *     writing that tree again gives the same bytes;
 *   - the profile is read twice (kernel 6.1 and no capability; kernel
 *     4.14 and many capabilities; an "ok-" file must be accepted in
 *     both): a refusal leaves a NUL-terminated message in im.err, and
 *     -2 names an entry of the profile's syscalls array; an accepted
 *     profile writes a policy whose header (every line before `policy`)
 *     is comments only, and that parses, checks, compiles, passes
 *     translation validation, serialises and reads back to the same
 *     bytes, and in whose filter every unconditional rule the import
 *     kept answers as the profile said.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpol.h"
#include "diag.h"
#include "emit.h"
#include "fuzz.h"
#include "json_read.h"
#include "oci_import.h"
#include "parse.h"
#include "sysq.h"
#include "validate.h"

/* Inputs longer than a policy file could be written from are not worth
 * the time (the reader's own cap, JSON_MAX_SIZE, is tested by size). */
#define FUZZ_OCI_MAX_INPUT (256u << 10)


/* ---- the JSON tree --------------------------------------------------- */

/* Strict UTF-8 (no overlong forms, surrogates or values past U+10FFFF),
 * written apart from the reader's. */
static int utf8_ok(const unsigned char *s)
{
	while (*s) {
		unsigned int n, cp, min;

		if (*s < 0x80) {
			s++;
			continue;
		}
		if ((*s & 0xe0) == 0xc0) {
			n = 1;
			min = 0x80;
		} else if ((*s & 0xf0) == 0xe0) {
			n = 2;
			min = 0x800;
		} else if ((*s & 0xf8) == 0xf0) {
			n = 3;
			min = 0x10000;
		} else {
			return 0;
		}
		cp = *s & (0x3fu >> n);
		for (s++; n; n--, s++) {
			if ((*s & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (*s & 0x3fu);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
	}
	return 1;
}

static const char *digits(const char *s)
{
	while (*s >= '0' && *s <= '9')
		s++;
	return s;
}

/* A number's token against RFC 8259's grammar, and what it says. */
static void check_number(const struct json_val *v)
{
	const char *s = v->str, *d, *end;
	int neg = *s == '-', plain;
	unsigned long long n = 0, fits = 1;

	d = s + neg;
	end = digits(d);
	if (end == d || (*d == '0' && end != d + 1))
		fuzz_fail("number token \"%s\": bad integer part", s);
	plain = !*end;
	for (const char *p = d; p < end; p++) {
		unsigned int dig = (unsigned int)(*p - '0');

		if (n > (~0ull - dig) / 10)
			fits = 0;
		n = n * 10 + dig;
	}
	if (*end == '.') {
		const char *frac = end + 1;

		if ((end = digits(frac)) == frac)
			fuzz_fail("number token \"%s\": no digit after '.'",
			    s);
	}
	if (*end == 'e' || *end == 'E') {
		const char *e = end + 1 + (end[1] == '+' || end[1] == '-');

		if ((end = digits(e)) == e)
			fuzz_fail("number token \"%s\": empty exponent", s);
	}
	if (*end)
		fuzz_fail("number token \"%s\": stray characters", s);
	plain = plain && fits && (!neg || n == 0);
	if (v->is_uint != plain || (plain && v->num != n) ||
	    (!plain && v->num != 0))
		fuzz_fail("number token \"%s\": is_uint %d num %llu", s,
		    v->is_uint, (unsigned long long)v->num);
}

static void check_string(const char *s)
{
	if (!s)
		fuzz_fail("a string or key without its text");
	if (strlen(s) > JSON_MAX_STR)
		fuzz_fail("a string of %zu bytes", strlen(s));
	if (!utf8_ok((const unsigned char *)s))
		fuzz_fail("a string that is not UTF-8");
}

static void check_tree(const struct json_val *v, unsigned int depth,
    unsigned int lines)
{
	if (depth > JSON_MAX_DEPTH)
		fuzz_fail("a value nested %u deep", depth);
	if (v->line < 1 || v->line > lines)
		fuzz_fail("a value on line %u of %u", v->line, lines);
	if (v->type < JSON_NULL || v->type > JSON_OBJ)
		fuzz_fail("a value of type %d", v->type);
	if (v->type == JSON_STR)
		check_string(v->str);
	if (v->type == JSON_NUM)
		check_number(v);
	if ((v->type == JSON_ARR || v->type == JSON_OBJ) ?
	    (v->n > JSON_MAX_ITEMS || (v->n && !v->items)) : (v->n != 0))
		fuzz_fail("%u items in a value of type %d", v->n, v->type);
	if (v->type == JSON_OBJ && v->n && !v->keys)
		fuzz_fail("an object without keys");
	for (unsigned int i = 0; i < v->n; i++) {
		if (v->type == JSON_OBJ) {
			check_string(v->keys[i]);
			for (unsigned int k = 0; k < i; k++)
				if (strcmp(v->keys[i], v->keys[k]) == 0)
					fuzz_fail("key \"%s\" twice",
					    v->keys[i]);
			if (json_get(v, v->keys[i]) != &v->items[i])
				fuzz_fail("json_get misses \"%s\"",
				    v->keys[i]);
		}
		check_tree(&v->items[i], depth + 1, lines);
	}
}

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void put_value(FILE *f, const struct json_val *v)
{
	switch (v->type) {
	case JSON_NULL:
		fputs("null", f);
		break;
	case JSON_BOOL:
		fputs(v->boolean ? "true" : "false", f);
		break;
	case JSON_NUM:
		fputs(v->str, f);
		break;
	case JSON_STR:
		put_string(f, v->str);
		break;
	default:
		fputc(v->type == JSON_OBJ ? '{' : '[', f);
		for (unsigned int i = 0; i < v->n; i++) {
			if (i)
				fputc(',', f);
			if (v->type == JSON_OBJ) {
				put_string(f, v->keys[i]);
				fputc(':', f);
			}
			put_value(f, &v->items[i]);
		}
		fputc(v->type == JSON_OBJ ? '}' : ']', f);
	}
}

static char *written(const struct json_val *v, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		fuzz_fail("open_memstream: out of memory");
	put_value(f, v);
	if (fclose(f) != 0)
		fuzz_fail("fclose: out of memory");
	return buf;
}

static int same_tree(const struct json_val *a, const struct json_val *b)
{
	if (a->type != b->type || a->boolean != b->boolean ||
	    a->is_uint != b->is_uint || a->num != b->num || a->n != b->n ||
	    (!a->str != !b->str) || (a->str && strcmp(a->str, b->str)))
		return 0;
	for (unsigned int i = 0; i < a->n; i++)
		if ((a->type == JSON_OBJ && strcmp(a->keys[i], b->keys[i])) ||
		    !same_tree(&a->items[i], &b->items[i]))
			return 0;
	return 1;
}

static void round_trip(const struct json_val *top)
{
	struct json_val back;
	char err[256], *text, *again;
	size_t len, againlen;

	text = written(top, &len);
	if (json_parse(text, len, &back, err, sizeof(err)) < 0)
		fuzz_fail("the document written back is refused: %s\n%s",
		    err, text);
	if (!same_tree(top, &back))
		fuzz_fail("the document written back reads differently:\n%s",
		    text);
	again = written(&back, &againlen);
	if (againlen != len || memcmp(text, again, len) != 0)
		fuzz_fail("writing the tree is not a fixed point:\n%s\n%s",
		    text, again);
	json_free(&back);
	free(again);
	free(text);
}

/* 0 and the tree, checked; or -1 after the refusal is checked. */
static int read_json(const uint8_t *data, size_t size,
    struct json_val *top)
{
	char err[256], *end = err;
	unsigned long lines = 1, at;
	int rc;

	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	err[0] = '\0';
	rc = json_parse((const char *)data, size, top, err, sizeof(err));
	if (rc < 0) {
		at = strncmp(err, "line ", 5) ? 0 : strtoul(err + 5, &end, 10);
		if (rc != -1 || at < 1 || at > lines ||
		    strncmp(end, ": ", 2) != 0 || !end[2])
			fuzz_fail("a refusal (%d) with \"%s\"", rc, err);
		if (top->type || top->n || top->items || top->keys ||
		    top->str)
			fuzz_fail("a refusal left a value behind");
		return -1;
	}
	if (rc != 0 || memchr(data, '\0', size))
		fuzz_fail("%d for an input with a NUL byte", rc);
	check_tree(top, 0, (unsigned int)lines);
	round_trip(top);
	return 0;
}

/* ---- the profile ----------------------------------------------------- */

static const char *const many_caps[] = {
	"SYS_ADMIN", "SYS_PTRACE", "SYS_MODULE", "SYS_BOOT", "SYS_TIME",
	"SYS_NICE", "SYS_PACCT", "SYS_RAWIO", "SYS_TTY_CONFIG", "SYSLOG",
	"SYS_CHROOT", "NET_ADMIN", "BPF", "PERFMON", "DAC_READ_SEARCH",
};

struct setting {
	unsigned int kmajor, kminor;
	unsigned int ncaps;
};

static const struct setting settings[] = {
	{ 6, 1, 0 },
	{ 4, 14, sizeof(many_caps) / sizeof(many_caps[0]) },
};

static void blob_checks(struct cpol *pol, const char *text)
{
	uint8_t *buf, *again;
	size_t len, againlen;
	struct cpol back;
	char err[512];

	if (cpol_write(pol, &buf, &len, err, sizeof(err)) < 0)
		fuzz_fail("the imported policy does not serialise: %s\n%s",
		    err, text);
	if (cpol_read(buf, len, &back, err, sizeof(err)) < 0)
		fuzz_fail("the reader refuses the imported blob: %s\n%s", err,
		    text);
	if (cpol_write(&back, &again, &againlen, err, sizeof(err)) < 0 ||
	    againlen != len || memcmp(buf, again, len) != 0)
		fuzz_fail("the imported blob changed in a round trip\n%s",
		    text);
	cpol_free(&back);
	free(again);
	free(buf);
}

/* text through parse, check, emit, validate into *pol. */
static void compile(const char *text, size_t len, struct cpol *pol)
{
	struct parse_file file = { 0 };
	struct policy p;
	struct diag *d = diag_new(fuzz_null);
	char err[512] = "";
	int bad;

	memset(&p, 0, sizeof(p));
	file = (struct parse_file){ .name = "fuzz.policy",
	    .path = "fuzz.policy", .text = (char *)text, .len = len };
	p.files = &file;
	p.nfiles = 1;
	if (!d || diag_source(d, file.name, text, len) < 0)
		fuzz_fail("diag: out of memory");
	p.stmts = parse_buffer(file.name, text, len, d, &p.lint);
	bad = diag_errors(d) || check_policy(&p, d, pol, NULL, NULL) < 0;
	if (bad) {
		diag_free(d);
		d = diag_new(stderr);
		if (d && diag_source(d, file.name, text, len) == 0)
			(void)check_policy(&p, d, pol, NULL, NULL);
		fuzz_fail("the imported policy does not check:\n%s", text);
	}
	if (emit_seccomp(pol, err, sizeof(err)) < 0)
		fuzz_fail("the imported policy does not compile: %s\n%s",
		    err, text);
	if (validate_seccomp(pol, err, sizeof(err)) < 0)
		fuzz_fail("translation validation: %s\n%s", err, text);
	blob_checks(pol, text);
	p.files = NULL;      /* the text is the caller's */
	p.nfiles = 0;
	parse_free(&p);
	diag_free(d);
}

/* The header, up to the policy statement, is comment lines only: no
 * string of the profile ends a comment and writes policy source. */
static void check_header(const char *text)
{
	const char *end = strstr(text, "\n\npolicy \"");

	if (!end)
		fuzz_fail("no header before the policy statement:\n%s", text);
	for (const char *l = text; l <= end; l = strchr(l, '\n') + 1)
		if (strncmp(l, "# ", 2) != 0)
			fuzz_fail("a header line that is no comment:\n%s",
			    text);
}

/* Every unconditional rule kept answers as the profile said. */
static void check_answers(const struct oci_import *im,
    const struct cpol *pol, const char *text)
{
	static const uint64_t zero[6];

	for (unsigned int i = 0; i < im->nrules; i++) {
		const struct oci_rule *r = &im->rules[i];
		uint32_t got;

		if (r->dropped || r->ncmp)
			continue;
		got = sysq_run(pol, (uint32_t)r->nr, zero);
		if (got != r->action)
			fuzz_fail("%s answers 0x%08x, the profile 0x%08x:\n%s",
			    r->name, got, r->action, text);
	}
}

static void import(const struct json_val *top, const struct setting *s)
{
	struct oci_import im;
	const struct json_val *sc = json_get(top, "syscalls");
	struct cpol pol;
	unsigned int bad = ~0u;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	memset(&im, 0, sizeof(im));
	im.profile = "fuzz.json";
	im.kmajor = s->kmajor;
	im.kminor = s->kminor;
	for (im.ncaps = 0; im.ncaps < s->ncaps; im.ncaps++)
		im.caps[im.ncaps] = many_caps[im.ncaps];
	rc = oci_import_read(&im, top, &bad);
	if (!memchr(im.err, '\0', sizeof(im.err)))
		fuzz_fail("im.err is not NUL-terminated");
	if (rc == -2 && (!sc || sc->type != JSON_ARR || bad >= sc->n))
		fuzz_fail("-2 names entry %u of a profile without it", bad);
	if (rc == 0 && top->type != JSON_OBJ)
		fuzz_fail("a profile that is not an object accepted");
	if (rc != 0 && fuzz_expect_accept)
		fuzz_fail("an ok- profile refused (kernel %u.%u, %u "
		    "capabilities): %s", s->kmajor, s->kminor, s->ncaps,
		    im.err);
	if (rc != 0 && rc != -1 && rc != -2)
		fuzz_fail("oci_import_read returned %d", rc);
	if (rc == 0) {
		f = open_memstream(&text, &len);
		if (!f)
			fuzz_fail("open_memstream: out of memory");
		if (oci_import_write(&im, f) < 0 || im.notes.oom)
			fuzz_fail("oci_import_write failed");
		if (fclose(f) != 0)
			fuzz_fail("fclose: out of memory");
		check_header(text);
		compile(text, len, &pol);
		check_answers(&im, &pol, text);
		cpol_free(&pol);
		free(text);
	}
	free(im.rules);
	oci_notes_free(&im.notes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_val top;

	if (size > FUZZ_OCI_MAX_INPUT)
		return 0;
	if (read_json(data, size, &top) < 0) {
		if (fuzz_expect_accept)
			fuzz_fail("an ok- input is not JSON");
		return 0;
	}
	for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++)
		import(&top, &settings[i]);
	json_free(&top);
	return 0;
}
