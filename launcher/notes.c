/*
 * notes.c - what the run's outcome alone does not say, one line each on
 * standard error after the run (unless --quiet), beside the denial
 * summary: the timeout that ended it, an option looser than the policy
 * (options only tighten, so it was capped), and, after a run that did
 * not exit 0, a whole-run bound held by less than the run's own
 * mechanism (a per-process rlimit, nothing, or a watch of the workdir).  Each line names the fact and the figure,
 * in the policy's units.  (The output cap's line is launch.c's, printed
 * as the run's output ends.)
 */
#include <stdio.h>
#include <string.h>

#include "cordon.h"
#include "units.h"

#define FIG_LEN 32            /* "18446744073709551615ms" and more */

/* v as the policy language writes a value of unit u ("4G", "600s"). */
static const char *figure(char *buf, enum cpol_unit u, uint64_t v)
{
	if (u == CPOL_UNIT_SIZE)
		return cpol_unit_format(u, v, buf, FIG_LEN);
	/* a time in seconds, a count bare */
	snprintf(buf, FIG_LEN, u == CPOL_UNIT_TIME ? "%llus" : "%llu",
	    (unsigned long long)v);
	return buf;
}

/* A wall-clock time in ms as the policy writes it ("2s", "1500ms"). */
static const char *ms_figure(char *buf, uint64_t ms)
{
	if (ms % 1000 == 0)
		return figure(buf, CPOL_UNIT_TIME, ms / 1000);
	snprintf(buf, FIG_LEN, "%llums", (unsigned long long)ms);
	return buf;
}

/* --timeout, --output and each --limit looser than the policy's. */
static void capped(const struct opts *o, const struct cpol *p)
{
	char a[FIG_LEN], b[FIG_LEN];
	unsigned int r;
	uint64_t v;

	if (!o->session && o->timeout_ms > p->timeout_ms)
		sink_say("cordon: --timeout %g capped at the policy's %s",
		    (double)o->timeout_ms / 1000, ms_figure(b, p->timeout_ms));
	if (o->output_cap != UINT64_MAX && o->output_cap > p->output_cap)
		sink_say("cordon: --output %s capped at the policy's %s",
		    figure(a, CPOL_UNIT_SIZE, o->output_cap),
		    figure(b, CPOL_UNIT_SIZE, p->output_cap));
	for (r = 1; r <= CPOL_RLIM_MAX; r++) {
		if (o->limit[r] == UINT64_MAX)
			continue;
		v = command_limit(p, o->limit, r);
		if (v < o->limit[r])
			sink_say("cordon: --limit %s=%s capped at the policy's "
			    "%s", cpol_rlim_name(r), figure(a, cpol_rlim_unit(r),
			    o->limit[r]), figure(b, cpol_rlim_unit(r), v));
	}
}

/* Each whole-run bound the run's own mechanism did not hold. */
static void fallbacks(const struct bounds *b)
{
	char a[FIG_LEN];
	unsigned int i, r;

	for (i = 0; i < NBOUNDS; i++) {
		r = CPOL_RLIM_MEMORY + i;
		if (b->limit[i] == UINT64_MAX)
			continue;
		figure(a, cpol_rlim_unit(r), b->limit[i]);
		if (b->by[i] == BY_WATCH)
			sink_say("cordon: limit %s %s: watched, not held: %s",
			    cpol_rlim_name(r), a, RUNFS_WATCH_WHY);
		else if (i <= B_PIDS && (b->by[i] == BY_NONE ||
		    b->by[i] == BY_RLIMIT || b->by[i] == BY_RLIMIT_PROC))
			sink_say("cordon: limit %s %s: by %s, not a controller "
			    "for the whole run: %s", cpol_rlim_name(r), a,
			    status_bound_by(b->by[i]), b->why[i]);
	}
}

void notes_say(const struct opts *o, const struct cpol *p,
    const struct report *r)
{
	char a[FIG_LEN];

	if (o->quiet || r->outcome == OUT_ERROR)
		return;
	if (r->outcome == OUT_TIMEOUT)
		sink_say("cordon: timeout: the run passed %s and was killed",
		    ms_figure(a, command_timeout_ms(p, o)));
	capped(o, p);
	/* The environment's doing, the same on every run: said, as the
	 * denials are, when the run did not end well (where a bound could
	 * have mattered); the status says it always. */
	if (r->outcome != OUT_EXITED || r->exit_code != 0)
		fallbacks(&r->bounds);
}
