/*
 * diffsys.c - the syscall part of diff: both filters are run in the
 * interpreter for every syscall number the compiler knows, over the
 * boundary values of both policies' conditions on it, and on the x32
 * numbers.  Syscalls that neither policy names follow the default
 * action; a change there is reported once, with the count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf.h"
#include "diff.h"
#include "explain_fmt.h"
#include "sysq.h"
#include "tables.h"

/* x32 numbers have this bit set; both filters must refuse them. */
#define DIFFSYS_X32 0x40000000u
/* Names listed when one default-action change affects many syscalls. */
#define DIFFSYS_MAX_NAMES 8

struct walk {
	const struct cpol *old, *new;
	uint32_t nr;
	unsigned long wider, narrower, changed, old_allowed, new_allowed;
	unsigned long points;
	uint64_t w_args[6], n_args[6], c_args[6];
	uint32_t c_old, c_new;
};

static int step(const uint64_t args[6], void *ctx)
{
	struct walk *w = ctx;
	uint32_t a = sysq_run(w->old, w->nr, args);
	uint32_t b = sysq_run(w->new, w->nr, args);
	int aa = sysq_allows(a), ba = sysq_allows(b);

	w->points++;
	w->old_allowed += aa;
	w->new_allowed += ba;
	if (ba && !aa) {
		if (!w->wider++)
			memcpy(w->w_args, args, sizeof(w->w_args));
	} else if (aa && !ba) {
		if (!w->narrower++)
			memcpy(w->n_args, args, sizeof(w->n_args));
	} else if (a != b && !w->changed++) {
		memcpy(w->c_args, args, sizeof(w->c_args));
		w->c_old = a;
		w->c_new = b;
	}
	return 0;
}

static const char *origin_of(const struct cpol *p, uint32_t nr)
{
	for (uint32_t i = 0; i < p->nrules; i++)
		if (p->rules[i].nr == nr)
			return p->rules[i].origin;
	return NULL;
}

/* The rule of p that gives answer to nr at args: the statement that
 * made the change, wherever its file put it among the sorted rules (a
 * rule appended to a base's is not the base's first one). */
static const char *rule_at(const struct cpol *p, uint32_t nr,
    const uint64_t args[6])
{
	uint32_t answer = sysq_run(p, nr, args);

	for (uint32_t i = 0; i < p->nrules; i++)
		if (p->rules[i].nr == nr && p->rules[i].action == answer &&
		    cpol_rule_matches(&p->rules[i], args))
			return p->rules[i].origin;
	return NULL;
}

/* Where a change at args comes from: NEW's deciding rule, else the rule
 * OLD had (removed), else any rule on nr. */
static const char *change_origin(const struct walk *w, const uint64_t
    args[6])
{
	const char *o = rule_at(w->new, w->nr, args);

	if (!o)
		o = rule_at(w->old, w->nr, args);
	if (!o)
		o = origin_of(w->new, w->nr);
	return o ? o : origin_of(w->old, w->nr);
}

static int report_wider(struct diff_list *out, const struct walk *w,
    const char *name)
{
	char ex[EXPLAIN_LINE];
	const char *o = change_origin(w, w->w_args);

	explain_call(name, w->w_args, ex, sizeof(ex));
	if (!w->old_allowed)
		return diff_add(out, DIFF_WIDER, "syscall", name, o,
		    w->new_allowed == w->points ? "newly allowed" :
		    "newly allowed with conditions (e.g. %s)", ex);
	return diff_add(out, DIFF_WIDER, "syscall", name, o,
	    "conditions widened: %s is now allowed", ex);
}

static int report_narrower(struct diff_list *out, const struct walk *w,
    const char *name)
{
	char ex[EXPLAIN_LINE];
	const char *o = change_origin(w, w->n_args);

	explain_call(name, w->n_args, ex, sizeof(ex));
	if (!w->new_allowed)
		return diff_add(out, DIFF_NARROWER, "syscall", name, o,
		    "no longer allowed");
	return diff_add(out, DIFF_NARROWER, "syscall", name, o,
	    "conditions narrowed: %s is no longer allowed", ex);
}

static int report(struct diff_list *out, const struct walk *w)
{
	char nb[32], ex[EXPLAIN_LINE], a[48], b[48];
	const char *name = sysq_name(w->new, w->nr, nb, sizeof(nb));

	if (w->nr & DIFFSYS_X32)
		name = "x32";
	if (w->wider && report_wider(out, w, name) < 0)
		return -1;
	if (w->narrower && report_narrower(out, w, name) < 0)
		return -1;
	if (!w->changed)
		return 0;
	explain_call(name, w->c_args, ex, sizeof(ex));
	return diff_add(out, DIFF_CHANGED, "syscall", name,
	    change_origin(w, w->c_args), "%s: %s -> %s", ex,
	    cpol_action_name(w->c_old, a, sizeof(a)),
	    cpol_action_name(w->c_new, b, sizeof(b)));
}

static int named(const struct cpol *p, uint32_t nr)
{
	return origin_of(p, nr) != NULL;
}

/* Syscalls neither policy names: summarised per kind of change. */
struct unnamed {
	unsigned int n[4];
	char names[4][DIFFSYS_MAX_NAMES * 24];
};

static void note_unnamed(struct unnamed *u, int dir, const char *name)
{
	size_t used = strlen(u->names[dir]);

	if (u->n[dir]++ < DIFFSYS_MAX_NAMES)
		snprintf(u->names[dir] + used, sizeof(u->names[dir]) - used,
		    "%s%s", used ? ", " : "", name);
}

static int report_unnamed(struct diff_list *out, const struct unnamed *u,
    const struct cpol *old, const struct cpol *new)
{
	static const char *const what[4] = { "", "newly allowed",
	    "no longer allowed", "answer changed" };
	char a[48], b[48];

	for (int d = DIFF_WIDER; d <= DIFF_CHANGED; d++)
		if (u->n[d] && diff_add(out, d, "syscall", "(default)", NULL,
		    "%u syscalls not named by either policy %s (default %s "
		    "-> %s): %s%s", u->n[d], what[d],
		    cpol_action_name(old->default_action, a, sizeof(a)),
		    cpol_action_name(new->default_action, b, sizeof(b)),
		    u->names[d], u->n[d] > DIFFSYS_MAX_NAMES ? ", ..." : "") < 0)
			return -1;
	return 0;
}

static int one(const struct cpol *old, const struct cpol *new, uint32_t nr,
    struct unnamed *u, struct diff_list *out)
{
	struct sysq_space s;
	struct walk w;
	char nb[32];

	memset(&w, 0, sizeof(w));
	w.old = old;
	w.new = new;
	w.nr = nr;
	sysq_space_init(&s, old, new, nr & ~DIFFSYS_X32);
	sysq_walk(&s, step, &w);
	if (!w.wider && !w.narrower && !w.changed)
		return 0;
	if ((nr & DIFFSYS_X32) || named(old, nr) || named(new, nr))
		return report(out, &w);
	note_unnamed(u, w.wider ? DIFF_WIDER : w.narrower ? DIFF_NARROWER :
	    DIFF_CHANGED, sysq_name(new, nr, nb, sizeof(nb)));
	return 0;
}

static int dir_of(uint32_t old, uint32_t new)
{
	if (sysq_allows(new) && !sysq_allows(old))
		return DIFF_WIDER;
	if (sysq_allows(old) && !sysq_allows(new))
		return DIFF_NARROWER;
	return DIFF_CHANGED;
}

int diff_default(const struct cpol *old, const struct cpol *new,
    struct diff_list *out)
{
	char a[48], b[48];

	if (old->default_action == new->default_action)
		return 0;
	return diff_add(out, dir_of(old->default_action, new->default_action),
	    "default", "action", NULL, "%s -> %s",
	    cpol_action_name(old->default_action, a, sizeof(a)),
	    cpol_action_name(new->default_action, b, sizeof(b)));
}

int diff_syscalls(const struct cpol *old, const struct cpol *new,
    struct diff_list *out)
{
	struct unnamed u;
	int max = tables_syscall_max();

	memset(&u, 0, sizeof(u));
	if (old->arch != new->arch)
		return diff_add(out, DIFF_CHANGED, "arch", "arch", NULL,
		    "0x%x -> 0x%x: syscalls not compared",
		    (unsigned int)old->arch, (unsigned int)new->arch);
	for (int nr = 0; nr <= max; nr++)
		if (one(old, new, (uint32_t)nr, &u, out) < 0)
			return -1;
	/* x32: a sample of the range, arguments as for the 64-bit call. */
	for (int nr = 0; nr <= max; nr += 7)
		if (one(old, new, DIFFSYS_X32 | (uint32_t)nr, &u, out) < 0)
			return -1;
	return report_unnamed(out, &u, old, new);
}
