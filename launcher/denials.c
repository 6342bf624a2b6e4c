/*
 * denials.c - what the seccomp filter refused, call by call.
 *
 * With a listener (a PID namespace: see notify_prepare() in launch.c),
 * the blob's kill and errno returns reach cordon as notifications.  For
 * each one cordon runs the blob's own program on the same seccomp_data
 * (common/bpf.c) to learn the action the policy decided, records the
 * call (decoded by common/sysdecode.c), and the supervisor answers it
 * with that errno or kills the run: the call never proceeds.  The rule
 * that decided it comes from the blob's RULES table, read again only
 * when the first denial happens (launches read the blob without it) and
 * only when the file is still the blob that was launched.
 *
 * A denial is expected when a rule of the policy names the call and
 * answers it errno(ENOSYS): "not implemented here", which callers are
 * written to meet by falling back (glibc's clone3 -> clone, liburing);
 * the default action, the architecture check, a compiler-made rule
 * ("builtin") and any other errno, trap or kill are denials to fix.
 * The status marks each; the stderr summary leaves the expected out.
 *
 * Identical denials (call, action, rule) are counted once.  Past
 * DENIALS_MAX distinct ones the table keeps the most telling: a new one
 * takes the place of the least telling entry when it is more telling
 * (severity(): a kill before a trap before an errno, then a call the
 * table holds fewer entries of), and the calls of the entry left out are
 * counted as dropped.  So 70 decoys (one call, 70 arguments) cannot push
 * out the one ptrace after them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>

#include "action.h"
#include "bpf.h"
#include "cordon.h"
#include "sysdecode.h"

/* The table lives here, not in the report: its pages are touched only
 * when something is denied. */
static struct denials table;

struct denials *denials_init(const char *policy, const struct cpol *p,
    int observed, const char *why)
{
	uint32_t i;

	table.policy = policy;
	table.pol = p;
	table.observed = observed;
	table.why = why;
	table.traps = 0;
	table.low = -1;
	for (i = 0; i < p->ninsns; i++)
		if (p->insns[i].code == (BPF_RET | BPF_K) &&
		    (p->insns[i].k & BPF_ACT_FULL_MASK) == BPF_ACT_TRAP)
			table.traps = 1;
	return &table;
}

/* The rule's origin ("file:line"), "default", or why it is unknown;
 * *named: a rule of the policy's statements decided it. */
static const char *rule_of(struct denials *d, uint32_t nr,
    const uint64_t *args, uint32_t action, int *named)
{
	char err[ERRLEN];
	uint32_t i;

	if (d->rules == 0) {
		d->rules = -1;
		if (cpol_load(d->policy, 0, &d->full, err, sizeof(err)) == 0) {
			d->rules = memcmp(d->full.blob_digest,
			    d->pol->blob_digest, 32) == 0 ? 1 : -2;
			if (d->rules < 0)
				cpol_free(&d->full);
		}
	}
	if (d->rules == -2)
		return "unknown (the blob file changed since the launch)";
	if (d->rules < 0)
		return "unknown (the blob could not be read again)";
	for (i = 0; i < d->full.nrules; i++) {
		const struct cpol_rule *r = &d->full.rules[i];

		if (r->nr == nr && r->action == action &&
		    cpol_rule_matches(r, args)) {
			*named = r->origin &&
			    strcmp(r->origin, CPOL_ORIGIN_BUILTIN) != 0;
			return r->origin;
		}
	}
	return "default";
}

/* How telling an entry of the table is, as a number to compare: the
 * action first (kill, trap, errno), then how few entries of the same
 * system call the table holds (with the entry itself).  nr is the
 * entry's call, act its action. */
static unsigned int severity(const struct denials *d, uint32_t nr,
    const char *act)
{
	unsigned int i, same = 0, rank;

	rank = strcmp(act, "kill") == 0 ? 2 : strcmp(act, "trap") == 0;
	for (i = 0; i < d->n; i++)
		same += d->d[i].nr == nr;
	return rank * (DENIALS_MAX + 1) + (DENIALS_MAX - same);
}

/* A full table: the index of the entry a new one (call nr, action act)
 * replaces, or -1 when the new one is dropped; the entry left out is
 * counted as dropped.  The least telling entry is found again only after
 * the table changed (d->low < 0). */
static int make_room(struct denials *d, uint32_t nr, const char *act)
{
	unsigned int i, sev;

	if (d->low < 0) {
		d->least = ~0u;
		for (i = 0; i < d->n; i++) {
			sev = severity(d, d->d[i].nr, d->d[i].action);
			if (sev < d->least) {
				d->least = sev;
				d->low = (int)i;
			}
		}
	}
	/* The new entry, counted as if it were in (one more of its call). */
	sev = severity(d, nr, act);
	if (sev == 0 || sev - 1 <= d->least)
		return -1;
	d->dropped += d->d[d->low].count;
	i = (unsigned int)d->low;
	d->low = -1;
	return (int)i;
}

void denials_add(struct denials *d, const struct bpf_input *in,
    uint32_t action)
{
	char call[DENIAL_CALL_LEN], act[32];
	const char *rule;
	struct denial *e;
	unsigned int i;
	int room, named = 0;

	if (in->arch != AUDIT_ARCH_X86_64) {
		snprintf(call, sizeof(call), "syscall %u of architecture "
		    "0x%x", in->nr, in->arch);
		rule = "the architecture check";
	} else if (in->nr & 0x40000000u) {
		snprintf(call, sizeof(call), "x32 syscall %u",
		    in->nr & ~0x40000000u);
		rule = "the architecture check";
	} else {
		sysdecode_call(in->nr, in->args, call, sizeof(call));
		rule = rule_of(d, in->nr, in->args, action, &named);
	}
	cpol_action_name(action, act, sizeof(act));
	for (i = 0; i < d->n; i++) {
		e = &d->d[i];
		if (strcmp(e->call, call) == 0 && strcmp(e->action, act) == 0 &&
		    strcmp(e->rule, rule) == 0) {
			e->count++;
			return;
		}
	}
	if (d->n < DENIALS_MAX) {
		e = &d->d[d->n++];
	} else if ((room = make_room(d, in->nr, act)) >= 0) {
		e = &d->d[room];
	} else {
		d->dropped++;
		return;
	}
	e->nr = in->nr;
	e->count = 1;
	snprintf(e->call, sizeof(e->call), "%s", call);
	snprintf(e->action, sizeof(e->action), "%s", act);
	snprintf(e->rule, sizeof(e->rule), "%s", rule);
	e->expected = named && action == (BPF_ACT_ERRNO | ENOSYS);
	snprintf(e->name, sizeof(e->name), "%s",
	    in->arch == AUDIT_ARCH_X86_64 && sysdecode_name(in->nr) ?
	    sysdecode_name(in->nr) : "?");
}

/* The short summary on cordon's stderr after a run that failed: the
 * denials to fix (the expected ones are in the status only). */
void denials_say(const struct denials *d)
{
	unsigned int i, fix = 0;

	if (!d || !d->observed || (d->n == 0 && d->dropped == 0))
		return;
	for (i = 0; i < d->n; i++) {
		if (d->d[i].expected || fix++ >= DENIALS_SAY)
			continue;
		sink_say("cordon: denied %s: %s, %llu time%s, rule %s",
		    d->d[i].call, d->d[i].action,
		    (unsigned long long)d->d[i].count,
		    d->d[i].count == 1 ? "" : "s", d->d[i].rule);
	}
	if (fix > DENIALS_SAY || d->dropped)
		sink_say("cordon: and %u more kinds of denied call, %llu "
		    "calls past the table (see the status report)",
		    fix > DENIALS_SAY ? fix - DENIALS_SAY : 0,
		    (unsigned long long)d->dropped);
}

void denials_free(struct denials *d)
{
	if (d && d->rules == 1)
		cpol_free(&d->full);
	if (d)
		d->rules = 0;
}
