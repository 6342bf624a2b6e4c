/*
 * limits.c - a run's limits, decided: each rlimit, the wall-clock bound
 * and the output cap, the policy's tightened by the command line (never
 * loosened), and the soft and hard pair the child sets.  Pure: no system
 * call; plan.c decides with them (tests/unit/test_plan.c links this
 * file), run.c and the supervisor apply what the plan says.
 */
#include <stdio.h>
#include <sys/resource.h>

#include "cordon.h"

/* Limit r: the policy's, tightened by cli[r] (UINT64_MAX: no option), or
 * the option's where the policy has none; UINT64_MAX when neither sets
 * it (which is also "unlimited": both leave the resource unbounded). */
uint64_t command_limit(const struct cpol *p, const uint64_t *cli,
    unsigned int r)
{
	uint64_t v = cli[r];
	uint32_t i;

	for (i = 0; i < p->nlimits; i++)
		if (p->limits[i].resource == r && p->limits[i].value < v)
			v = p->limits[i].value;
	return v;
}

/* The wall-clock bound: the policy's timeout, or a session's
 * (--session: the policy's session statement), tightened by --timeout. */
uint64_t command_timeout_ms(const struct cpol *p, const struct opts *o)
{
	uint64_t bound = o->session ? cpol_session_ms(p) : p->timeout_ms;

	return o->timeout_ms && o->timeout_ms < bound ? o->timeout_ms : bound;
}

/* A session asked to live longer than the policy lets one is refused,
 * not capped: the caller would count on hours it does not have. */
int command_session_ok(const struct cpol *p, const struct opts *o,
    char *err, size_t errlen)
{
	if (!o->session || o->timeout_ms <= cpol_session_ms(p))
		return 0;
	snprintf(err, errlen, "--session --timeout %g: longer than the "
	    "policy's session bound of %g s (its session statement, else its "
	    "timeout)", (double)o->timeout_ms / 1000,
	    (double)cpol_session_ms(p) / 1000);
	return -1;
}

/* The output cap: the policy's, tightened by --output (UINT64_MAX: none). */
uint64_t command_output_cap(const struct cpol *p, uint64_t cli)
{
	return cli < p->output_cap ? cli : p->output_cap;
}

/* The per-process limits the policy or the command line sets.  Returns
 * the count. */
int command_rlimits(const struct cpol *p, const uint64_t *cli,
    struct rlim *out)
{
	unsigned int r;
	uint32_t i;
	int n = 0, set;

	for (r = 1; r <= CPOL_RLIM_KERNEL_MAX; r++) {
		set = cli[r] != UINT64_MAX;
		for (i = 0; i < p->nlimits; i++)
			set |= p->limits[i].resource == r;
		if (!set)
			continue;
		out[n].resource = cpol_rlim_kernel(r);
		out[n++].value = command_limit(p, cli, r);
	}
	return n;
}

/* The soft and hard limit the child sets for one of them, from its value
 * and the limits cordon was started with (old): each the smaller of the
 * two (threat #26).  At the hard CPU limit the kernel sends SIGKILL; one
 * second of grace lets SIGXCPU (soft) arrive first and name the cause,
 * and where the caller's hard limit is the tighter the grace second
 * stays below it (tighter still, never looser).  The child applies it
 * (run.c); the supervisor judges a CPU kill by the same two numbers. */
void command_rlimit_pair(int resource, uint64_t value,
    const struct rlimit *old, struct rlimit *rl)
{
	rl->rlim_cur = rl->rlim_max = value;
	if (rl->rlim_max < RLIM_INFINITY && resource == RLIMIT_CPU)
		rl->rlim_max++;
	if (old->rlim_cur < rl->rlim_cur)
		rl->rlim_cur = old->rlim_cur;
	if (old->rlim_max < rl->rlim_max)
		rl->rlim_max = old->rlim_max;
	if (rl->rlim_cur > rl->rlim_max)
		rl->rlim_cur = rl->rlim_max;
	if (resource == RLIMIT_CPU && rl->rlim_max < RLIM_INFINITY &&
	    rl->rlim_cur == rl->rlim_max && rl->rlim_cur > 1)
		rl->rlim_cur--;
}
