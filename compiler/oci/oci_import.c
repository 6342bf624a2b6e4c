/*
 * oci_import.c - `cordonc import --format oci PROFILE.json`: read an OCI
 * runtime-spec or Docker seccomp profile and resolve it for x86-64 and a
 * stated capability set and kernel (Docker's archMap, includes and
 * excludes by arches, caps and minKernel), the way Docker and runc
 * read it: an entry whose conditions name one argument twice becomes one
 * rule per condition (runc ORs them).  Every entry resolved or dropped
 * gets a note, written as a comment (oci_import_out.c).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>

#include "bpf.h"
#include "cliopt.h"
#include "cpol.h"
#include "json_read.h"
#include "oci_import.h"
#include "outfile.h"
#include "tables.h"

/* OCI action name -> SECCOMP_RET_* (errno data added by the caller). */
static int parse_action(struct oci_import *im, const struct json_val *act,
    const struct json_val *eret, uint32_t *out, const char *what)
{
	static const struct { const char *name; uint32_t a; } acts[] = {
		{ "SCMP_ACT_ALLOW", BPF_ACT_ALLOW },
		{ "SCMP_ACT_LOG", BPF_ACT_LOG },
		{ "SCMP_ACT_KILL_PROCESS", BPF_ACT_KILL_PROCESS },
		{ "SCMP_ACT_TRAP", BPF_ACT_TRAP },
		{ "SCMP_ACT_ERRNO", BPF_ACT_ERRNO },
	};
	const char *s = act && act->type == JSON_STR ? act->str : NULL;
	uint64_t e = 1;   /* runc: EPERM when errnoRet is absent */

	if (!s)
		return -1;
	if (eret && (eret->type != JSON_NUM || !eret->is_uint ||
	    eret->num > OCI_IMPORT_ERRNO_MAX)) {
		snprintf(im->err, sizeof(im->err), "%s: errnoRet must be an "
		    "errno from 0 to %d", what, OCI_IMPORT_ERRNO_MAX);
		return -1;
	}
	if (eret)
		e = eret->num;
	for (size_t i = 0; i < sizeof(acts) / sizeof(acts[0]); i++)
		if (strcmp(s, acts[i].name) == 0) {
			*out = acts[i].a | (acts[i].a == BPF_ACT_ERRNO ?
			    (uint32_t)e : 0);
			return 0;
		}
	if (!strcmp(s, "SCMP_ACT_KILL") || !strcmp(s, "SCMP_ACT_KILL_THREAD")) {
		oci_note_add(&im->notes, 1, "resolved", "%s: %s kills a "
		    "thread; cordon kills the process", what, s);
		*out = BPF_ACT_KILL_PROCESS;
	} else if (!strcmp(s, "SCMP_ACT_TRACE")) {
		oci_note_add(&im->notes, 1, "resolved", "%s: %s with no "
		    "tracer attached answers ENOSYS: errno(ENOSYS)", what, s);
		*out = BPF_ACT_ERRNO | ENOSYS;
	} else if (!strcmp(s, "SCMP_ACT_NOTIFY")) {
		oci_note_add(&im->notes, 1, "resolved", "%s: %s needs a "
		    "supervisor cordon does not have: errno(EPERM)", what, s);
		*out = BPF_ACT_ERRNO | EPERM;
	} else {
		return -1;
	}
	return 0;
}

static int str_in(const struct json_val *arr, const char *const *want,
    unsigned int nwant)
{
	if (!arr || arr->type != JSON_ARR)
		return 0;
	for (unsigned int i = 0; i < arr->n; i++)
		for (unsigned int k = 0; k < nwant; k++)
			if (arr->items[i].type == JSON_STR &&
			    strcasecmp(arr->items[i].str, want[k]) == 0)
				return 1;
	return 0;
}

static const char *const x86_64_names[] = {
	"amd64", "x86_64", "SCMP_ARCH_X86_64",
};

static int has_cap(const struct oci_import *im, const char *cap)
{
	const char *c = strncasecmp(cap, "CAP_", 4) == 0 ? cap + 4 : cap;

	for (unsigned int i = 0; i < im->ncaps; i++)
		if (strcasecmp(im->caps[i], c) == 0)
			return 1;
	return 0;
}

/* minKernel as Docker's loader reads it: exactly "X.Y" (digits), not
 * 0.0; -1 otherwise. */
static int kernel_strict(const char *s, unsigned int *maj,
    unsigned int *min)
{
	unsigned long a, b;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	a = strtoul(s, &end, 10);
	if (*end != '.' || errno || a > UINT_MAX || end[1] < '0' ||
	    end[1] > '9')
		return -1;
	b = strtoul(end + 1, &end, 10);
	if (*end || errno || b > UINT_MAX || (a == 0 && b == 0))
		return -1;
	*maj = (unsigned int)a;
	*min = (unsigned int)b;
	return 0;
}

/* "X.Y..." into *maj, *min; -1 if it does not start that way or a part
 * does not fit (sscanf's %u would be undefined there). */
static int kernel_version(const char *s, unsigned int *maj,
    unsigned int *min)
{
	unsigned long a, b;
	char *end;

	errno = 0;
	a = strtoul(s, &end, 10);
	if (end == s || *end != '.' || errno || a > UINT_MAX)
		return -1;
	s = end + 1;
	b = strtoul(s, &end, 10);
	if (end == s || errno || b > UINT_MAX)
		return -1;
	*maj = (unsigned int)a;
	*min = (unsigned int)b;
	return 0;
}

/* Kernel "X.Y" at least im's kernel?  -1 on a bad string. */
static int kernel_cmp(const struct oci_import *im, const char *v)
{
	unsigned int a, b;

	if (kernel_strict(v, &a, &b) < 0)
		return -2;
	if (im->kmajor != a)
		return im->kmajor > a ? 1 : -1;
	return im->kminor > b ? 1 : im->kminor < b ? -1 : 0;
}

static const struct json_val bad_kernel;
#define BAD_KERNEL (&bad_kernel)

/* The minKernel of includes or excludes: NULL when absent, null or ""
 * (Docker: no minimum); BAD_KERNEL (why in im->err) when malformed. */
static const struct json_val *min_kernel(struct oci_import *im,
    const struct json_val *obj, const char *where)
{
	const struct json_val *k = json_get(obj, "minKernel");

	if (!k || k->type == JSON_NULL || (k->type == JSON_STR && !k->str[0]))
		return NULL;
	if (k->type == JSON_STR && kernel_cmp(im, k->str) != -2)
		return k;
	snprintf(im->err, sizeof(im->err), "%s.minKernel %s%s%s: not a "
	    "kernel version \"X.Y\" (digits, not 0.0)", where,
	    k->type == JSON_STR ? "\"" : "", k->type == JSON_STR ? k->str :
	    "(not a string)", k->type == JSON_STR ? "\"" : "");
	return BAD_KERNEL;
}

/* Docker's includes/excludes.  1: the entry applies; 0: it does not
 * (why in *why); -1: malformed. */
static int applies(struct oci_import *im, const struct json_val *ent,
    char *why, size_t len)
{
	const struct json_val *inc = json_get(ent, "includes");
	const struct json_val *exc = json_get(ent, "excludes");
	const struct json_val *a, *k;

	if ((a = json_get(inc, "arches")) && a->n &&
	    !str_in(a, x86_64_names, 3))
		return snprintf(why, len, "includes.arches has no amd64"), 0;
	if ((a = json_get(exc, "arches")) && str_in(a, x86_64_names, 3))
		return snprintf(why, len, "excludes.arches has amd64"), 0;
	for (unsigned int i = 0; (a = json_get(inc, "caps")) && i < a->n; i++)
		if (a->items[i].type != JSON_STR)
			return -1;
		else if (!has_cap(im, a->items[i].str))
			return snprintf(why, len, "includes.caps needs %s",
			    a->items[i].str), 0;
	for (unsigned int i = 0; (a = json_get(exc, "caps")) && i < a->n; i++)
		if (a->items[i].type != JSON_STR)
			return -1;
		else if (has_cap(im, a->items[i].str))
			return snprintf(why, len, "excludes.caps has %s",
			    a->items[i].str), 0;
	if ((k = min_kernel(im, inc, "includes")) == BAD_KERNEL)
		return -1;
	if (k && kernel_cmp(im, k->str) < 0)
		return snprintf(why, len, "includes.minKernel %s", k->str), 0;
	if ((k = min_kernel(im, exc, "excludes")) == BAD_KERNEL)
		return -1;
	if (k && kernel_cmp(im, k->str) >= 0)
		return snprintf(why, len, "excludes.minKernel %s", k->str), 0;
	return 1;
}

static int parse_cmp(const struct json_val *a, struct oci_cmp *c)
{
	static const char *const ops[] = {
		[CPOL_OP_EQ] = "SCMP_CMP_EQ", [CPOL_OP_NE] = "SCMP_CMP_NE",
		[CPOL_OP_LT] = "SCMP_CMP_LT", [CPOL_OP_LE] = "SCMP_CMP_LE",
		[CPOL_OP_GT] = "SCMP_CMP_GT", [CPOL_OP_GE] = "SCMP_CMP_GE",
		[CPOL_OP_MASKED_EQ] = "SCMP_CMP_MASKED_EQ",
	};
	const struct json_val *idx = json_get(a, "index"),
	    *v = json_get(a, "value"), *v2 = json_get(a, "valueTwo"),
	    *op = json_get(a, "op");

	if (!idx || idx->type != JSON_NUM || !idx->is_uint || idx->num > 5 ||
	    !op || op->type != JSON_STR || (v && (v->type != JSON_NUM ||
	    !v->is_uint)) || (v2 && (v2->type != JSON_NUM || !v2->is_uint)))
		return -1;
	c->index = (unsigned int)idx->num;
	c->value = v ? v->num : 0;
	c->value2 = v2 ? v2->num : 0;
	for (int i = CPOL_OP_EQ; i <= CPOL_OP_MAX; i++)
		if (strcmp(op->str, ops[i]) == 0) {
			c->op = i;
			return 0;
		}
	return -1;
}

static struct oci_rule *new_rule(struct oci_import *im)
{
	struct oci_rule *r;

	if (im->nrules >= OCI_IMPORT_MAX_RULES)
		return NULL;
	r = realloc(im->rules, (im->nrules + 1) * sizeof(*r));
	if (!r)
		return NULL;
	im->rules = r;
	memset(&r[im->nrules], 0, sizeof(*r));
	return &r[im->nrules++];
}

/* Rules for one name of entry e: one with every comparison, or (runc)
 * one per comparison when an argument repeats. */
static int add_name(struct oci_import *im, unsigned int e, const char *nm,
    uint32_t action, const struct oci_cmp *c, unsigned int n)
{
	int nr = tables_syscall_nr(nm), split = 0;
	struct oci_rule *r;

	if (nr < 0) {
		oci_note_add(&im->notes, 1, "dropped", "entry %u: %s is not "
		    "an x86-64 syscall", e, nm);
		return 0;
	}
	for (unsigned int i = 0; i < n; i++)
		for (unsigned int k = i + 1; k < n; k++)
			if (c[i].index == c[k].index)
				split = 1;
	if (split)
		oci_note_add(&im->notes, 1, "resolved", "entry %u: %s: "
		    "conditions repeat an argument; runc adds one rule per "
		    "condition (OR), and so does this policy", e, nm);
	for (unsigned int i = 0; i < (split ? n : 1); i++) {
		if (!(r = new_rule(im)))
			return -1;
		r->nr = nr;
		r->name = tables_syscall_name(nr);
		r->action = action;
		r->entry = e;
		r->ncmp = split ? 1 : n;
		memcpy(r->cmp, split ? &c[i] : c, r->ncmp * sizeof(*c));
	}
	return 0;
}

static int entry(struct oci_import *im, const struct json_val *ent,
    unsigned int e)
{
	const struct json_val *names = json_get(ent, "names"),
	    *name = json_get(ent, "name"), *args = json_get(ent, "args");
	struct oci_cmp c[6];
	char why[160], what[32];
	uint32_t action;
	int ok;

	snprintf(what, sizeof(what), "entry %u", e);
	if (names && name) {
		snprintf(im->err, sizeof(im->err), "both \"name\" and "
		    "\"names\": use one (as runc and Docker require)");
		return -1;
	}
	if (ent->type != JSON_OBJ || (!names && !name) ||
	    (names && names->type != JSON_ARR) ||
	    (name && name->type != JSON_STR) ||
	    (args && args->type != JSON_ARR && args->type != JSON_NULL) ||
	    (args && args->n > 6))
		return -1;
	ok = applies(im, ent, why, sizeof(why));
	if (ok < 0)
		return -1;
	if (parse_action(im, json_get(ent, "action"),
	    json_get(ent, "errnoRet"), &action, what) < 0)
		return -1;
	for (unsigned int i = 0; args && i < args->n; i++)
		if (parse_cmp(&args->items[i], &c[i]) < 0)
			return -1;
	if (!ok) {
		const struct json_val *first = name ? name :
		    names->n ? &names->items[0] : NULL;

		/* not yet checked to be a string (a dropped entry's names
		 * are read no further): an array or object has no text */
		oci_note_add(&im->notes, 1, "dropped", "entry %u (%s%s): %s",
		    e, first && first->str ? first->str : "",
		    names && names->n > 1 ? ", ..." : "", why);
		return 0;
	}
	if (name)
		return add_name(im, e, name->str, action, c,
		    args ? args->n : 0);
	for (unsigned int i = 0; i < names->n; i++)
		if (names->items[i].type != JSON_STR || add_name(im, e,
		    names->items[i].str, action, c, args ? args->n : 0) < 0)
			return -1;
	return 0;
}

static int arches(struct oci_import *im, const struct json_val *top)
{
	const struct json_val *a = json_get(top, "architectures"),
	    *m = json_get(top, "archMap");
	int found = 0;

	if (a && m && a->type != JSON_NULL && m->type != JSON_NULL) {
		snprintf(im->err, sizeof(im->err), "both \"architectures\" "
		    "and \"archMap\": use one (as Docker's loader requires)");
		return -1;
	}
	if (str_in(a, x86_64_names, 3))
		found = 1;
	for (unsigned int i = 0; m && m->type == JSON_ARR && i < m->n; i++) {
		const struct json_val *arch = json_get(&m->items[i],
		    "architecture");

		if (!arch || arch->type != JSON_STR)
			return -1;
		if (strcmp(arch->str, "SCMP_ARCH_X86_64") == 0) {
			found = 1;
			oci_note_add(&im->notes, 1, "resolved", "archMap: "
			    "SCMP_ARCH_X86_64 only; its sub-architectures "
			    "(x86, x32) are killed by cordon");
		}
	}
	if (!found)
		oci_note_add(&im->notes, 1, "resolved", "the profile names no "
		    "x86-64 architecture; its rules are read as x86-64 ones");
	return 0;
}

int oci_import_read(struct oci_import *im, const struct json_val *top,
    unsigned int *bad)
{
	const struct json_val *sc = json_get(top, "syscalls");
	static const char *const known[] = { "defaultAction",
		"defaultErrnoRet", "architectures", "archMap", "syscalls" };

	if (top->type != JSON_OBJ)
		return -1;
	for (unsigned int i = 0; i < top->n; i++) {
		size_t k;

		for (k = 0; k < 5 && strcmp(top->keys[i], known[k]); k++)
			;
		if (k == 5)
			oci_note_add(&im->notes, 1, "dropped", "\"%s\": not "
			    "a seccomp rule; ignored", top->keys[i]);
	}
	if (parse_action(im, json_get(top, "defaultAction"),
	    json_get(top, "defaultErrnoRet"), &im->default_action,
	    "defaultAction") < 0 || arches(im, top) < 0)
		return -1;
	if (sc && sc->type != JSON_ARR && sc->type != JSON_NULL)
		return -1;
	for (unsigned int i = 0; sc && i < sc->n; i++)
		if (entry(im, &sc->items[i], i) < 0) {
			*bad = i;
			return -2;
		}
	return 0;
}

static int parse_args(int argc, char **argv, struct oci_import *im,
    const char **out)
{
	static const struct option lo[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "name", required_argument, NULL, 'n' },
		{ "cap", required_argument, NULL, 'c' },
		{ "kernel", required_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 },
	};
	struct utsname u;
	int ch;

	if (uname(&u) == 0 && kernel_version(u.release, &im->kmajor,
	    &im->kminor) < 0)
		im->kmajor = im->kminor = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "o:", lo, NULL)) != -1) {
		/* Several branches refuse (return -1): an option chain. */
		if (ch == 'f' && strcmp(optarg, "oci") != 0)
			return -1;  /* NOLINT(bugprone-branch-clone) */
		else if (ch == 'o')
			*out = optarg;
		else if (ch == 'n')
			im->name = optarg;
		else if (ch == 'c' && im->ncaps < OCI_IMPORT_MAX_CAPS)
			im->caps[im->ncaps++] = strncasecmp(optarg, "CAP_",
			    4) == 0 ? optarg + 4 : optarg;
		else if (ch == 'k' && kernel_version(optarg, &im->kmajor,
		    &im->kminor) == 0)
			continue;
		else if (ch != 'f')
			return -1;
	}
	return optind == argc - 1 ? optind : -1;
}

int oci_import_cmd(int argc, char **argv)
{
	struct oci_import im;
	struct json_val top;
	const char *out = "-";
	char err[256], werr[OUTFILE_ERRLEN], *buf = NULL;
	size_t len = 0;
	unsigned int bad = 0;
	int i, r, ret = CORDONC_EXIT_POLICY;
	FILE *f;

	memset(&im, 0, sizeof(im));
	if ((i = parse_args(argc, argv, &im, &out)) < 0) {
		fprintf(stderr, "usage: cordonc %s\ncordonc import --help "
		    "describes every option\n", OCI_USAGE_IMPORT);
		return CORDONC_EXIT_USAGE;
	}
	im.profile = argv[i];
	if (json_load(argv[i], &top, err, sizeof(err)) < 0) {
		fprintf(stderr, "cordonc: import: %s: %s\n", argv[i], err);
		return CORDONC_EXIT_POLICY;
	}
	r = oci_import_read(&im, &top, &bad);
	if (r == -2)
		fprintf(stderr, "cordonc: import: %s: syscalls[%u] (line "
		    "%u): %s\n", im.profile, bad, json_get(&top,
		    "syscalls")->items[bad].line, im.err[0] ? im.err :
		    "malformed or too many rules");
	else if (r == -1 && im.err[0])
		fprintf(stderr, "cordonc: import: %s: %s\n", argv[i], im.err);
	else if (r == -1)
		fprintf(stderr, "cordonc: import: %s: not a seccomp profile "
		    "(defaultAction, architectures, syscalls)\n", argv[i]);
	if (r < 0)
		goto out;
	f = open_memstream(&buf, &len);
	if (!f)
		goto out;
	r = oci_import_write(&im, f);
	if (fclose(f) != 0 || r < 0 || im.notes.oom)
		fprintf(stderr, "cordonc: import: out of memory\n");
	else if (outfile_write(out, buf, len, OUTFILE_CORDONC, werr,
	    sizeof(werr)) == 0)
		ret = 0;
	else
		fprintf(stderr, "cordonc: error: %s\n", werr);
out:
	free(buf);
	free(im.rules);
	oci_notes_free(&im.notes);
	json_free(&top);
	return ret;
}
