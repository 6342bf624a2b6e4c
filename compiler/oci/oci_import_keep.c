/*
 * oci_import_keep.c - the profile's answers that cordon's own lowering
 * would change, kept or named (called by oci_import_out.c once the rules
 * are resolved):
 *
 *   - clone3 and io_uring_* answer ENOSYS in a policy that does not name
 *     them (tables_fixed_enosys).  When the profile's answer for one
 *     (its unconditional rule, or its default) is another, the policy
 *     names the call with that answer; what cannot be written so (only
 *     conditional rules kept) is a "differs" note.
 *   - `network off` allows socketpair(AF_UNIX) whatever the profile
 *     says: a "widened" note when the profile refuses socketpair.
 *   - a 32-bit argument is compared on its low half (all the kernel
 *     reads), where the profile compares all 64 bits: a "differs" note
 *     naming each syscall whose kept conditions read the high half.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpf.h"
#include "cpol.h"
#include "explain_fmt.h"
#include "oci_import.h"
#include "tables.h"

/* Marks a rule the profile does not have (it follows every entry). */
#define KEEP_ENTRY (~0u)

static int allows(uint32_t a)
{
	return (a & BPF_ACT_FULL_MASK) == BPF_ACT_ALLOW ||
	    (a & BPF_ACT_FULL_MASK) == BPF_ACT_LOG;
}

/* The profile's answer for nr with no argument condition in the way:
 * its first unconditional rule (kept or dropped), else the default.
 * *cond: 1 when some rule on nr has conditions. */
static uint32_t profile_answer(const struct oci_import *im, int nr,
    int *cond, int *kept_cond)
{
	const struct oci_rule *first = NULL;

	*cond = *kept_cond = 0;
	for (unsigned int i = 0; i < im->nrules; i++) {
		const struct oci_rule *r = &im->rules[i];

		if (r->nr != nr)
			continue;
		if (r->ncmp) {
			*cond = 1;
			*kept_cond |= !r->dropped;
		} else if (!first || r->entry < first->entry) {
			first = r;
		}
	}
	return first ? first->action : im->default_action;
}

static int kept_plain(const struct oci_import *im, int nr)
{
	for (unsigned int i = 0; i < im->nrules; i++)
		if (im->rules[i].nr == nr && !im->rules[i].dropped &&
		    !im->rules[i].ncmp)
			return 1;
	return 0;
}

static int add_plain(struct oci_import *im, int nr, uint32_t action)
{
	struct oci_rule *r;

	if (im->nrules >= OCI_IMPORT_MAX_RULES)
		return -1;
	r = realloc(im->rules, (im->nrules + 1) * sizeof(*r));
	if (!r)
		return -1;
	im->rules = r;
	r = &r[im->nrules++];
	memset(r, 0, sizeof(*r));
	r->nr = nr;
	r->name = tables_syscall_name(nr);
	r->action = action;
	r->entry = KEEP_ENTRY;
	return 0;
}

static int keep_fixed(struct oci_import *im, const char *name)
{
	int nr = tables_syscall_nr(name), cond, kept_cond;
	uint32_t want;
	char act[64];

	if (nr < 0 || kept_plain(im, nr))
		return 0;
	want = profile_answer(im, nr, &cond, &kept_cond);
	cpol_action_name(want, act, sizeof(act));
	if (want == (BPF_ACT_ERRNO | ENOSYS))
		return 0;
	if (kept_cond) {
		oci_note_add(&im->notes, 1, "differs", "%s: calls no rule "
		    "kept here matches answer errno(ENOSYS) in cordon, %s in "
		    "the profile (a policy that names %s with conditions "
		    "answers ENOSYS to the rest)", name, act, name);
		return 0;
	}
	if (add_plain(im, nr, want) < 0)
		return -1;
	oci_note_add(&im->notes, 1, "kept", "%s: the profile answers %s%s; "
	    "written as `%s %s;` (cordon answers ENOSYS to it unless a "
	    "policy names it)%s", name, act, cond ? " (with no condition)" :
	    "", act, name, !strcmp(name, "clone3") && !allows(want) ?
	    "; glibc falls back to clone only on ENOSYS, so threads and "
	    "posix_spawn fail under this answer" : "");
	return 0;
}

static void widen_socketpair(struct oci_import *im)
{
	int nr = tables_syscall_nr("socketpair"), cond, kept_cond;
	uint32_t a;
	char act[64];

	if (nr < 0)
		return;
	a = profile_answer(im, nr, &cond, &kept_cond);
	if (allows(a) && !cond)
		return;
	cpol_action_name(a, act, sizeof(act));
	oci_note_add(&im->notes, 1, "widened", "socketpair: `network off` "
	    "allows socketpair(AF_UNIX) (a connected pair, no address); the "
	    "profile answers %s%s (WARNING: wider than the profile)", act,
	    cond ? " unless its conditions match" : "");
}

/* Does cmp c read the high half of a 32-bit argument of r? */
static int reads_high(const struct oci_rule *r, const struct oci_cmp *c)
{
	if (tables_arg_width(r->name, c->index) != 32)
		return 0;
	return c->op != CPOL_OP_MASKED_EQ || (c->value >> 32) != 0;
}

static void note_low32(struct oci_import *im)
{
	int last = -1;

	for (unsigned int i = 0; i < im->nrules; i++) {
		const struct oci_rule *r = &im->rules[i];
		unsigned int k;
		char arg[64];

		if (r->dropped || r->nr == last)
			continue;
		for (k = 0; k < r->ncmp && !reads_high(r, &r->cmp[k]); k++)
			;
		if (k == r->ncmp)
			continue;
		last = r->nr;
		explain_arg(r->name, r->cmp[k].index, arg, sizeof(arg));
		oci_note_add(&im->notes, 1, "differs", "%s: %s is 32 bits "
		    "and compared on its low half (all the kernel reads); "
		    "the profile compares all 64, so a value with high bits "
		    "set answers as its low half does", r->name, arg);
	}
}

static int by_nr(const void *a, const void *b)
{
	const struct oci_rule *x = a, *y = b;

	if (x->nr != y->nr)
		return x->nr < y->nr ? -1 : 1;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

int oci_import_keep(struct oci_import *im)
{
	for (unsigned int k = 0; tables_fixed_enosys[k]; k++)
		if (keep_fixed(im, tables_fixed_enosys[k]) < 0)
			return -1;
	widen_socketpair(im);
	if (im->nrules)
		qsort(im->rules, im->nrules, sizeof(im->rules[0]), by_nr);
	note_low32(im);
	return 0;
}
