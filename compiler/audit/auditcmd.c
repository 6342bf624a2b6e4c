/*
 * auditcmd.c - option parsing and exit codes of the audit subcommands
 * (see auditcmd.h).  The work is done by expect.c, lint.c, diff.c,
 * verify.c and audit.c; this file only reads the command line, loads the
 * policies and maps results to exit codes.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "cliopt.h"
#include "auditcmd.h"
#include "diff.h"
#include "expect.h"
#include "jsonout.h"
#include "lint.h"
#include "verify.h"

enum { OPT_JSON = 256, OPT_STRICT, OPT_LIST, OPT_FORMAT, OPT_HELP };

struct opts {
	struct compile_opts in;
	int json, strict, list, verbose;
	const char *format;
	const char *usage;
};

static const struct option longopts[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "verbose", no_argument, NULL, 'v' },
	{ NULL, 0, NULL, 0 },
};

static int usage(const struct opts *o)
{
	fprintf(stderr, "usage: cordonc %s\ncordonc %.*s --help describes "
	    "every option\n", o->usage, (int)strcspn(o->usage, " "), o->usage);
	return CORDONC_EXIT_USAGE;
}

/* Parse options; returns the index of the first operand, or -1 (usage
 * printed; -2 for --help). */
static int parse(struct opts *o, int argc, char **argv, const char *use)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->in.errf = stderr;
	o->format = "text";
	o->usage = use;
	optind = 0;   /* glibc: restart scanning from argv[1] */
	while ((c = getopt_long(argc, argv, CLIOPT_SOURCE "hv", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'I':
		case 'D':
			if (cliopt_source(&o->in, c, optarg) < 0)
				return -1;
			break;
		case OPT_JSON: o->json = 1; break;
		case OPT_STRICT: o->strict = 1; break;
		case OPT_LIST: o->list = 1; break;
		case 'v': o->verbose = 1; break;
		case OPT_FORMAT: o->format = optarg; break;
		case 'h':
		case OPT_HELP:
			printf("usage: cordonc %s\n", use);
			return -2;
		default:
			usage(o);
			return -1;
		}
	}
	return optind;
}

static int start(struct opts *o, int argc, char **argv, const char *use,
    int min, int max)
{
	int i = parse(o, argc, argv, use);

	if (i == -2)
		return -2;
	if (i < 0 || argc - i < min || (max && argc - i > max)) {
		if (i >= 0)
			usage(o);
		return -1;
	}
	return i;
}

int auditcmd_test(int argc, char **argv)
{
	struct opts o;
	int i = start(&o, argc, argv, AUDITCMD_USAGE_TEST, 1, 0), ret = 0;
	int first = 1;

	if (i < 0)
		return i == -2 ? 0 : 2;
	if (o.json)
		fputs("{\"policies\":[", stdout);
	for (; i < argc; i++) {
		struct expect_result *r;
		struct input in;
		int failed;

		if (input_load(argv[i], &o.in, &in) < 0) {
			ret = CORDONC_EXIT_USAGE;
			continue;
		}
		if ((failed = expect_run(&in, &r)) < 0) {
			input_free(&in);
			return CORDONC_EXIT_USAGE;
		}
		if (failed && ret == 0)
			ret = CORDONC_EXIT_POLICY;
		if (o.json) {
			json_sep(stdout, &first);
			expect_print_json(stdout, &in, r, in.map.nexpects);
		} else {
			expect_print_text(stdout, &in, r, in.map.nexpects,
			    o.verbose);
		}
		free(r);
		input_free(&in);
	}
	if (o.json)
		printf("],\"pass\":%s}\n", ret == 0 ? "true" : "false");
	return ret;
}

static void lint_list(void)
{
	const struct lint_rule *r;
	unsigned int n;

	r = lint_rules(&n);
	for (unsigned int i = 0; i < n; i++)
		printf("%s %-7s %-22s %s\n", r[i].id,
		    finding_severity_name(r[i].severity), r[i].name,
		    r[i].summary);
}

/* 1 if finding k repeats an earlier one (same rule, place, message). */
static int seen_before(const struct finding_list *l, unsigned int k)
{
	const struct finding *x = &l->v[k];

	for (unsigned int i = 0; i < k; i++)
		if (l->v[i].id == x->id && l->v[i].line == x->line &&
		    !strcmp(l->v[i].file, x->file) &&
		    !strcmp(l->v[i].message, x->message))
			return 1;
	return 0;
}

/* Exit status of a lint run over findings l. */
static int lint_status(const struct finding_list *l, int strict)
{
	for (unsigned int i = 0; i < l->n; i++)
		if (!l->v[i].suppressed && (strict ||
		    l->v[i].severity >= FINDING_ERROR))
			return CORDONC_EXIT_POLICY;
	return 0;
}

int auditcmd_lint(int argc, char **argv)
{
	struct finding_list all = { 0 };
	struct opts o;
	int i = start(&o, argc, argv, AUDITCMD_USAGE_LINT, 0, 0), ret = 0;
	int first = 1;

	if (i < 0)
		return i == -2 ? 0 : 2;
	if (o.list) {
		lint_list();
		return 0;
	}
	if (i == argc)
		return usage(&o);
	for (; i < argc; i++) {
		struct input in;

		if (input_load(argv[i], &o.in, &in) < 0) {
			ret = CORDONC_EXIT_USAGE;
			continue;
		}
		if (lint_run(&in, &all) < 0) {
			input_free(&in);
			finding_list_free(&all);
			return CORDONC_EXIT_USAGE;
		}
		input_free(&in);
	}
	if (o.json)
		fputs("{\"findings\":[", stdout);
	for (unsigned int k = 0; k < all.n; k++) {
		if (seen_before(&all, k))
			continue;   /* a base file's finding, once */
		if (all.v[k].suppressed && !o.json && !o.verbose)
			continue;   /* clean is quiet: --verbose shows it */
		if (o.json) {
			json_sep(stdout, &first);
			finding_json(stdout, &all.v[k]);
		} else {
			finding_print(stdout, &all.v[k]);
		}
	}
	if (ret == 0)
		ret = lint_status(&all, o.strict);
	if (o.json)
		printf("],\"pass\":%s}\n", ret == 0 ? "true" : "false");
	finding_list_free(&all);
	return ret;
}

static void diff_print(const struct diff_list *l, const struct opts *o,
    const char *old, const char *new)
{
	if (o->json || strcmp(o->format, "json") == 0)
		diff_print_json(stdout, l, old, new);
	else if (strcmp(o->format, "markdown") == 0)
		diff_print_markdown(stdout, l, old, new);
	else
		diff_print_text(stdout, l, old, new);
}

int auditcmd_diff(int argc, char **argv)
{
	struct diff_list l = { 0 };
	struct input a, b;
	struct opts o;
	int i = start(&o, argc, argv, AUDITCMD_USAGE_DIFF, 2, 2), ret;

	if (i < 0)
		return i == -2 ? 0 : 2;
	if (strcmp(o.format, "text") && strcmp(o.format, "json") &&
	    strcmp(o.format, "markdown"))
		return usage(&o);
	if (input_load(argv[i], &o.in, &a) < 0)
		return CORDONC_EXIT_USAGE;
	if (input_load(argv[i + 1], &o.in, &b) < 0) {
		input_free(&a);
		return CORDONC_EXIT_USAGE;
	}
	if (diff_run(&a.pol, &b.pol, &l) < 0 || diff_locate(&l, &a, &b) < 0) {
		fprintf(stderr, "cordonc diff: cannot compare %s with %s\n",
		    a.path, b.path);
		ret = CORDONC_EXIT_USAGE;
	} else {
		diff_print(&l, &o, a.path, b.path);
		ret = diff_count(&l, DIFF_WIDER) ? CORDONC_EXIT_POLICY : 0;
	}
	diff_list_free(&l);
	input_free(&a);
	input_free(&b);
	return ret;
}

int auditcmd_verify(int argc, char **argv)
{
	struct opts o;
	int i = start(&o, argc, argv, AUDITCMD_USAGE_VERIFY, 2, 2);

	if (i < 0)
		return i == -2 ? 0 : 2;
	return verify_run(argv[i], argv[i + 1], &o.in, o.json, stdout);
}

int auditcmd_audit(int argc, char **argv)
{
	struct opts o;
	int i = start(&o, argc, argv, AUDITCMD_USAGE_AUDIT, 1, 0), ret = 0;
	struct audit_policy *v;
	struct input *in;
	unsigned int n = 0;

	if (i < 0)
		return i == -2 ? 0 : 2;
	in = calloc((size_t)(argc - i), sizeof(*in));
	v = calloc((size_t)(argc - i), sizeof(*v));
	if (!in || !v) {
		free(in);
		free(v);
		return CORDONC_EXIT_USAGE;
	}
	for (; i < argc && ret == 0; i++) {
		if (input_load(argv[i], &o.in, &in[n]) < 0) {
			ret = CORDONC_EXIT_USAGE;
		} else if (audit_policy(&in[n], &v[n]) < 0) {
			ret = CORDONC_EXIT_USAGE;
			audit_policy_free(&v[n]);
			input_free(&in[n]);
		} else {
			n++;
		}
	}
	if (ret == 0 && audit_print(stdout, v, n, o.format, o.verbose) < 0)
		ret = usage(&o);
	for (unsigned int k = 0; k < n; k++) {
		audit_policy_free(&v[k]);
		input_free(&in[k]);
	}
	free(v);
	free(in);
	return ret;
}
