/*
 * oci_import_out.c - the policy source `cordonc import` writes: the
 * resolved rules made acceptable to the policy language (socket and
 * socketpair belong to `network`; 32-bit arguments take == and masked
 * == only; one action per syscall unless the conditions are disjoint;
 * an unconditional rule stands alone), each change a comment, then the
 * statements a profile does not have, with safe defaults and the paths
 * left to the user.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf.h"
#include "cpol.h"
#include "explain_fmt.h"
#include "oci_import.h"
#include "tables.h"

/* Column past which a list of names wraps. */
#define OUT_WIDTH 72

static int allows(uint32_t a)
{
	return (a & BPF_ACT_FULL_MASK) == BPF_ACT_ALLOW ||
	    (a & BPF_ACT_FULL_MASK) == BPF_ACT_LOG;
}

static void drop(struct oci_import *im, struct oci_rule *r, const char *why)
{
	char act[64];
	int widens = !allows(r->action) && allows(im->default_action);

	r->dropped = 1;
	oci_note_add(&im->notes, 1, "dropped", "entry %u: %s %s%s: %s%s",
	    r->entry, cpol_action_name(r->action, act, sizeof(act)), r->name,
	    r->ncmp ? "(...)" : "", why, widens ? " (WARNING: the default "
	    "now lets these calls run; review)" : "");
}

/* Can cmp be written for r?  NULL, or why not. */
static const char *expressible(const struct oci_rule *r,
    const struct oci_cmp *c)
{
	unsigned int w = tables_arg_width(r->name, c->index);

	if (c->op == CPOL_OP_MASKED_EQ && (c->value2 & ~c->value))
		return "valueTwo has bits outside the mask: never matches";
	if (w == 0 && (r->action & BPF_ACT_FULL_MASK) != BPF_ACT_ALLOW)
		return "a condition on an argument cordonc has no width for "
		    "can only narrow an allow";
	if (w == 32 && c->op != CPOL_OP_EQ && c->op != CPOL_OP_MASKED_EQ)
		return "cordon compares 32-bit arguments with == and masks "
		    "only";
	if (w == 32 && c->op == CPOL_OP_MASKED_EQ &&
	    ((c->value2 & 0xffffffffu) & ~(c->value & 0xffffffffu)))
		return "the mask's low 32 bits never match";
	return NULL;
}

static int same_cmps(const struct oci_rule *a, const struct oci_rule *b)
{
	return a->ncmp == b->ncmp && memcmp(a->cmp, b->cmp,
	    a->ncmp * sizeof(a->cmp[0])) == 0;
}

/* The rules of one syscall, indexes in rs[0..n). */
static void resolve_one(struct oci_import *im, struct oci_rule **rs,
    unsigned int n)
{
	struct oci_rule *keep = NULL;
	const char *why;

	for (unsigned int i = 0; i < n; i++) {
		if (!strcmp(rs[i]->name, "socket") ||
		    !strcmp(rs[i]->name, "socketpair")) {
			drop(im, rs[i], "cordon's `network` statement owns it");
			continue;
		}
		for (unsigned int k = 0; k < rs[i]->ncmp && !rs[i]->dropped;
		    k++)
			if ((why = expressible(rs[i], &rs[i]->cmp[k])))
				drop(im, rs[i], why);
	}
	for (unsigned int i = 0; i < n && !keep; i++)
		if (!rs[i]->dropped && rs[i]->ncmp == 0)
			keep = rs[i];
	for (unsigned int i = 0; i < n && !keep; i++)
		if (!rs[i]->dropped)
			keep = rs[i];
	for (unsigned int i = 0; keep && i < n; i++) {
		struct oci_rule *r = rs[i];

		if (r == keep || r->dropped)
			continue;
		if (keep->ncmp == 0 && r->action == keep->action)
			r->dropped = 1;  /* already covered: same meaning */
		else if (keep->ncmp == 0)
			drop(im, r, "an unconditional rule on this syscall "
			    "(entry earlier or first) stands alone");
		else if (r->ncmp == 0 || r->action != keep->action)
			drop(im, r, "conflicts with the first rule kept for "
			    "this syscall");
		else
			for (unsigned int k = 0; k < i; k++)
				if (!rs[k]->dropped && rs[k] != r &&
				    same_cmps(rs[k], r))
					r->dropped = 1;
	}
}

static void resolve(struct oci_import *im)
{
	struct oci_rule *rs[64];
	int max = tables_syscall_max();

	for (int nr = 0; nr <= max; nr++) {
		unsigned int n = 0;

		for (unsigned int i = 0; i < im->nrules; i++)
			if (im->rules[i].nr == nr && n < 64)
				rs[n++] = &im->rules[i];
			else if (im->rules[i].nr == nr)
				drop(im, &im->rules[i], "more than 64 rules on "
				    "one syscall");
		if (n)
			resolve_one(im, rs, n);
	}
}

static void print_cmp(FILE *f, const struct oci_rule *r,
    const struct oci_cmp *c)
{
	unsigned int w = tables_arg_width(r->name, c->index);
	uint64_t full = w == 32 ? 0xffffffffu : UINT64_MAX;
	char arg[64], val[128];

	explain_arg(r->name, c->index, arg, sizeof(arg));
	if (c->op == CPOL_OP_MASKED_EQ) {
		fprintf(f, "%s & 0x%llx == 0x%llx", arg,
		    (unsigned long long)(c->value & full),
		    (unsigned long long)(c->value2 & full));
		return;
	}
	explain_value(r->name, c->index, w ? w : 64, c->value & full, val,
	    sizeof(val));
	fprintf(f, "%s %s %s", arg, cpol_op_name(c->op), val);
}

/* Unconditional rules with one action, names wrapped. */
static void print_group(FILE *f, const struct oci_import *im, uint32_t a)
{
	char act[64];
	size_t col = 0;

	for (unsigned int i = 0; i < im->nrules; i++) {
		const struct oci_rule *r = &im->rules[i];

		if (r->dropped || r->ncmp || r->action != a)
			continue;
		if (!col) {
			col = (size_t)fprintf(f, "%s",
			    cpol_action_name(a, act, sizeof(act)));
		} else if (col + strlen(r->name) + 2 > OUT_WIDTH) {
			fputs(",\n   ", f);
			col = 3;
		} else {
			fputc(',', f);
			col++;
		}
		col += (size_t)fprintf(f, " %s", r->name);
	}
	if (col)
		fputs(";\n", f);
}

static void print_rules(FILE *f, struct oci_import *im)
{
	uint32_t acts[16];
	unsigned int na = 0;
	char act[64];

	/* The rules are in nr order (sorted by the caller) */
	for (unsigned int i = 0; i < im->nrules; i++) {
		unsigned int k;

		for (k = 0; k < na && acts[k] != im->rules[i].action; k++)
			;
		if (k == na && na < 16 && !im->rules[i].dropped)
			acts[na++] = im->rules[i].action;
	}
	for (unsigned int k = 0; k < na; k++)
		print_group(f, im, acts[k]);
	for (unsigned int i = 0; i < im->nrules; i++) {
		const struct oci_rule *r = &im->rules[i];

		if (r->dropped || !r->ncmp)
			continue;
		fprintf(f, "%s %s(", cpol_action_name(r->action, act,
		    sizeof(act)), r->name);
		for (unsigned int c = 0; c < r->ncmp; c++) {
			if (c)
				fputs(", ", f);
			print_cmp(f, r, &r->cmp[c]);
		}
		fputs(");\n", f);
	}
}

static int cmp_rule(const void *a, const void *b)
{
	const struct oci_rule *x = a, *y = b;

	if (x->nr != y->nr)
		return x->nr < y->nr ? -1 : 1;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* A policy name from --name or the file's base name. */
static void policy_name(const struct oci_import *im, char *out, size_t len)
{
	const char *s = im->name, *slash = strrchr(im->profile, '/');
	size_t o = 0;

	if (!s)
		s = slash ? slash + 1 : im->profile;
	for (; *s && *s != '.' && o + 1 < len && o < 64; s++) {
		char ch = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : *s;

		out[o++] = (ch >= 'a' && ch <= 'z') || (ch >= '0' &&
		    ch <= '9') || ch == '_' ? ch : '-';
	}
	if (!o)
		o = (size_t)snprintf(out, len, "imported");
	out[o] = '\0';
}

/* A note on one comment line.  Its text quotes the profile's strings
 * (names, capabilities, kernels, keys), which JSON lets hold a newline:
 * written as it is, it would end the comment and the rest would be
 * policy source.  Every control character is written as \xHH. */
static void print_note(FILE *f, const struct oci_note *n)
{
	fprintf(f, "# %s: ", n->kind);
	for (const char *s = n->detail; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
	fputc('\n', f);
}

static void print_header(FILE *f, const struct oci_import *im)
{
	char name[72], act[64];

	policy_name(im, name, sizeof(name));
	fputs("# Imported by `cordonc import --format oci`: review it.\n", f);
	fprintf(f, "# Resolved for x86-64, kernel %u.%u, capabilities: ",
	    im->kmajor, im->kminor);
	for (unsigned int i = 0; i < im->ncaps; i++)
		fprintf(f, "%sCAP_%s", i ? ", " : "", im->caps[i]);
	fprintf(f, "%s.\n", im->ncaps ? "" : "none");
	fputs("# 32-bit arguments (fds, flags, commands) are compared on "
	    "their low 32 bits,\n# all the kernel reads; a profile's "
	    "SCMP_CMP_EQ compares all 64.\n", f);
	for (unsigned int i = 0; i < im->notes.n; i++)
		print_note(f, &im->notes.v[i]);
	fprintf(f, "\npolicy \"%s\";\n", name);
	fprintf(f, "description \"imported from an OCI seccomp profile\";\n");
	fputs("landlock 6;\n", f);
	fprintf(f, "default %s;\n\n", cpol_action_name(im->default_action, act,
	    sizeof(act)));
}

static void print_footer(FILE *f)
{
	fputs("\n# What a seccomp profile does not say; defaults to adjust.\n"
	    "# network off: socket() answers EAFNOSUPPORT and "
	    "socketpair(AF_UNIX)\n# is allowed, whatever the profile said "
	    "about them; `network connect PORT;`\n# allows TCP to PORT.\n"
	    "network off;\n"
	    "# Landlock: nothing is reachable until listed; the command and "
	    "its\n# loader need /usr (cordonc checks), add what the tool "
	    "reads.\n"
	    "path /usr rx;\npath optional /etc/ld.so.cache ro;\n"
	    "path /dev/null rw;\npath \"$WORKDIR\" rw;\n"
	    "limit core 0;\nlimit nofile 256;\ntimeout 60s;\noutput 1M;\n"
	    "env set HOME = \"$WORKDIR\", PATH = \"/usr/bin:/bin\";\n"
	    "command \"/usr/bin/python3\" \"-I\" \"$SNIPPET\";  # the tool's "
	    "interpreter\n", f);
}

int oci_import_write(struct oci_import *im, FILE *f)
{
	if (im->nrules)
		qsort(im->rules, im->nrules, sizeof(im->rules[0]), cmp_rule);
	resolve(im);
	if (oci_import_keep(im) < 0 || im->notes.oom)
		return -1;
	print_header(f, im);
	print_rules(f, im);
	print_footer(f);
	return ferror(f) ? -1 : 0;
}
