/*
 * validate.c - translation validation of the emitted seccomp program.
 *
 * The program libseccomp produced is run through cordon's own
 * interpreter (common/bpf.c) on many inputs, and each answer is compared
 * with what the policy's rules say, computed here directly from
 * p->rules and p->default_action (HACKING.md, "Fixed lowering"):
 *
 *   arch other than the target's, or nr >= 0x40000000  -> KILL_PROCESS
 *   nr not in the table (holes, above the maximum)     -> ERRNO(ENOSYS)
 *   a rule on nr whose conditions all hold             -> its action
 *   no rule names nr: clone3, io_uring_*               -> ERRNO(ENOSYS)
 *   otherwise                                          -> default action
 *
 * Conditions on 32-bit arguments compare the low 32 bits only.  Two
 * matching rules with different actions are an error too (the checker
 * promises disjoint rules).
 *
 * Inputs: every number 0..max+64 (zero and all-ones arguments), the x32
 * twin of each, out-of-range numbers, wrong architectures; and for every
 * condition of every rule, its boundary values (value-1, value, value+1,
 * each mask bit flipped, bits outside the mask set, upper-half garbage on
 * 32-bit arguments) while the rule's other conditions hold.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf.h"
#include "validate.h"
#include "tables.h"

#define AUDIT_ARCH_I386_ 0x40000003u
#define AUDIT_ARCH_AARCH64_ 0xc00000b7u
#define X32_BIT 0x40000000u
#define NO_RULE UINT32_MAX

struct vctx {
	const struct cpol *p;
	uint32_t *first;    /* first rule index per nr, or NO_RULE */
	uint32_t nfirst;
	unsigned long runs;
	char *err;
	size_t errlen;
};

static uint64_t low32(uint64_t v)
{
	return v & 0xffffffffu;
}

/* What the rules say for in; *why is the deciding rule (or NULL), and
 * *clash a second matching rule with another action (or NULL). */
static uint32_t expect(const struct vctx *v, const struct bpf_input *in,
    const struct cpol_rule **why, const struct cpol_rule **clash)
{
	const struct cpol *p = v->p;
	uint32_t i, a;

	*why = *clash = NULL;
	if (in->arch != tables_arch() || in->nr >= X32_BIT)
		return BPF_ACT_KILL_PROCESS;
	if (in->nr > (uint32_t)tables_syscall_max() ||
	    !tables_syscall_name((int)in->nr))
		return BPF_ACT_ERRNO | ENOSYS;
	i = v->first[in->nr];
	if (i == NO_RULE)
		return tables_fixed_action(p, in->nr, &a) ? a : p->default_action;
	for (; i < p->nrules && p->rules[i].nr == in->nr; i++) {
		if (!cpol_rule_matches(&p->rules[i], in->args))
			continue;
		if (!*why)
			*why = &p->rules[i];
		else if ((*why)->action != p->rules[i].action)
			*clash = &p->rules[i];
	}
	return *why ? (*why)->action : p->default_action;
}

static int fail(struct vctx *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int fail(struct vctx *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->err, v->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int probe(struct vctx *v, const struct bpf_input *in)
{
	const struct cpol_rule *why, *clash;
	uint32_t want, got;
	char w[32], g[32];
	const char *name;

	want = expect(v, in, &why, &clash);
	got = bpf_run(v->p->insns, v->p->ninsns, in);
	v->runs++;
	name = in->arch == tables_arch() ? tables_syscall_name((int)in->nr) :
	    NULL;
	if (clash)
		return fail(v, "rules at %s and %s both match %s(0x%llx, "
		    "0x%llx, 0x%llx, ...) with different actions", why->origin,
		    clash->origin, why->name,
		    (unsigned long long)in->args[0],
		    (unsigned long long)in->args[1],
		    (unsigned long long)in->args[2]);
	if (want == got)
		return 0;
	return fail(v, "seccomp program disagrees with the rules: arch "
	    "0x%08x nr %u (%s) args [0x%llx, 0x%llx, 0x%llx, 0x%llx, 0x%llx, "
	    "0x%llx]: program says %s, rules say %s (%s)", in->arch, in->nr,
	    name ? name : "?", (unsigned long long)in->args[0],
	    (unsigned long long)in->args[1], (unsigned long long)in->args[2],
	    (unsigned long long)in->args[3], (unsigned long long)in->args[4],
	    (unsigned long long)in->args[5], bpf_action_str(got, g, sizeof(g)),
	    bpf_action_str(want, w, sizeof(w)),
	    why ? why->origin : "default");
}

/* Same arguments, several numbers and architectures. */
static int sweep(struct vctx *v, uint64_t fill)
{
	static const uint32_t odd[] = {
		0x3fffffffu, 0x7fffffffu, 0x80000000u, 0xfffffffeu,
		0xffffffffu, 0x10000u, 1000u, 512u, 547u,
	};
	static const uint32_t arches[] = {
		AUDIT_ARCH_I386_, AUDIT_ARCH_AARCH64_, 0, 0x4000003eu,
		0xc000003fu,
	};
	struct bpf_input in;
	uint32_t nr, max = (uint32_t)tables_syscall_max() + 64;
	size_t i;

	memset(&in, 0, sizeof(in));
	for (i = 0; i < 6; i++)
		in.args[i] = fill;
	in.arch = tables_arch();
	for (nr = 0; nr <= max; nr++) {
		in.nr = nr;
		if (probe(v, &in) < 0)
			return -1;
		in.nr = nr | X32_BIT;
		if (probe(v, &in) < 0)
			return -1;
	}
	for (i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		in.nr = odd[i];
		if (probe(v, &in) < 0)
			return -1;
	}
	for (i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		for (nr = 0; nr < 8; nr++) {
			in.arch = arches[i];
			in.nr = nr == 7 ? 41 : nr; /* socket, for ia32 */
			if (probe(v, &in) < 0)
				return -1;
		}
	return 0;
}

/* A value of the argument for which c holds (if any does). */
static uint64_t satisfy(const struct cpol_cond *c)
{
	switch (c->op) {
	case CPOL_OP_NE: return c->value ^ 1;
	case CPOL_OP_LT: return c->value ? c->value - 1 : 0;
	case CPOL_OP_GT: return c->value + 1;
	default: return c->value;
	}
}

static int probe_arg(struct vctx *v, struct bpf_input *in, unsigned int arg,
    uint64_t val, unsigned int width)
{
	uint64_t keep = in->args[arg];
	int rc;

	in->args[arg] = val;
	rc = probe(v, in);
	/* The kernel ignores the upper half of a 32-bit argument: so must
	 * the program, both ways. */
	if (rc == 0 && width == 32) {
		in->args[arg] = low32(val) | 0xffffffff00000000u;
		rc = probe(v, in);
		if (rc == 0) {
			in->args[arg] = low32(val) | 0x8000000100000000u;
			rc = probe(v, in);
		}
	}
	in->args[arg] = keep;
	return rc;
}

/* Boundary values of condition c, the rule's other conditions holding. */
static int probe_cond(struct vctx *v, struct bpf_input *in,
    const struct cpol_cond *c)
{
	const uint64_t x = c->value, m = c->mask;
	const uint64_t vals[] = {
		x - 1, x, x + 1, x ^ 1, 0, ~(uint64_t)0, x ^ 0x80000000u,
		x ^ 0x8000000000000000u, x | ~m, x & m,
	};
	unsigned int i, nvals = sizeof(vals) / sizeof(vals[0]);

	if (c->op != CPOL_OP_MASKED_EQ)
		nvals -= 2;
	for (i = 0; i < nvals; i++)
		if (probe_arg(v, in, c->arg, vals[i], c->width) < 0)
			return -1;
	if (c->op != CPOL_OP_MASKED_EQ)
		return 0;
	for (i = 0; i < 64; i++)
		if ((m >> i & 1) &&
		    probe_arg(v, in, c->arg, x ^ (uint64_t)1 << i, c->width) < 0)
			return -1;
	return 0;
}

static int probe_rule(struct vctx *v, const struct cpol_rule *r)
{
	struct bpf_input in;
	unsigned int i, fill;

	for (fill = 0; fill < 2; fill++) {
		memset(&in, 0, sizeof(in));
		in.arch = tables_arch();
		in.nr = r->nr;
		for (i = 0; i < 6; i++)
			in.args[i] = fill ? ~(uint64_t)0 : 0;
		for (i = 0; i < r->ncond && i < CPOL_MAX_CONDS; i++)
			in.args[r->cond[i].arg % 6] = satisfy(&r->cond[i]);
		if (probe(v, &in) < 0)
			return -1;
		for (i = 0; i < r->ncond && i < CPOL_MAX_CONDS; i++) {
			uint64_t keep = in.args[r->cond[i].arg % 6];

			if (probe_cond(v, &in, &r->cond[i]) < 0)
				return -1;
			in.args[r->cond[i].arg % 6] = keep;
		}
	}
	return 0;
}

static int index_rules(struct vctx *v)
{
	const struct cpol *p = v->p;
	uint32_t i;

	v->nfirst = (uint32_t)tables_syscall_max() + 1;
	v->first = malloc(v->nfirst * sizeof(*v->first));
	if (!v->first)
		return fail(v, "out of memory");
	for (i = 0; i < v->nfirst; i++)
		v->first[i] = NO_RULE;
	for (i = 0; i < p->nrules; i++) {
		const struct cpol_rule *r = &p->rules[i];

		if (r->nr >= v->nfirst)
			return fail(v, "%s (%s): number %u outside the table",
			    r->name, r->origin, r->nr);
		if (i && r->nr < p->rules[i - 1].nr)
			return fail(v, "rules not sorted by number at %s",
			    r->origin);
		for (unsigned int c = 0; c < r->ncond; c++)
			if (r->cond[c].arg > 5)
				return fail(v, "%s (%s): argument %u",
				    r->name, r->origin, r->cond[c].arg);
		if (v->first[r->nr] == NO_RULE)
			v->first[r->nr] = i;
	}
	return 0;
}

int validate_seccomp(const struct cpol *p, char *err, size_t errlen)
{
	struct vctx v = { .p = p, .err = err, .errlen = errlen };
	uint32_t i;
	int rc = -1;

	if (bpf_check(p->insns, p->ninsns, err, errlen) < 0)
		return -1;
	if (index_rules(&v) < 0)
		goto free_first;
	if (sweep(&v, 0) < 0 || sweep(&v, ~(uint64_t)0) < 0 ||
	    sweep(&v, 0xffffffffu) < 0)
		goto free_first;
	for (i = 0; i < p->nrules; i++)
		if (probe_rule(&v, &p->rules[i]) < 0)
			goto free_first;
	rc = 0;
free_first:
	free(v.first);
	return rc;
}
