/*
 * plan.h - one run's decisions, made before anything happens.
 *
 * probe.c asks the kernel and the file system what the plan needs to
 * know (struct probe); plan.c decides, making no system call
 * (plan_make: every decision with its reason, or the one refusal that
 * stops the run); launch.c and run.c carry the plan out, bounds.c and
 * the supervisor read it, and cordon --check prints it (plansay.c).
 */
#ifndef CORDON_PLAN_H
#define CORDON_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "cordon.h"

/* What the kernel and the host say, asked once (probe.c). */
struct probe {
	int landlock_abi, landlock_errata;  /* 0: no Landlock */
	int ns;               /* 1: the kernel gives the namespaces, 0: it
	                       * refuses them, -1: not asked (a run: the
	                       * clone tries; refused, plan_ns_refused) */
	char ns_why[240];     /* ns 0: why (nscause.c) */
	char ns_broken[200];  /* ns 1: the set-up step a run's child would
	                       * fail ("STEP: ERROR", nsprobe.c), or "" */
	char ns_hint[200];    /* ns_broken: what would help (nscause.c) */
	int root;             /* uid 0: RLIMIT_NPROC does not bind it */
	unsigned int uid;     /* cordon's: RLIMIT_NPROC's count's owner */
	const char *grows_outside;  /* the first rule path that can grow
	                       * something outside the workdir, or NULL */
	const char *cgroup_base;   /* --cgroup or $CORDON_CGROUP (v2 there),
	                       * or NULL (v1, below cordon's own groups) */
	int cgroup;           /* 0: not asked (a run makes its group and
	                       * learns, cgroup.c); 1, 2: the version a
	                       * group would have; -1: none can be made */
	char cgroup_why[256]; /* -1: why none (v2: why a run would fail) */
};
/* ask: --check's, which asks what a run would try (the namespaces, a
 * cgroup's controllers) instead of trying it. */
void probe_make(const struct cpol *p, const struct opts *o, int ask,
    struct probe *pr);

/* The namespaces, in the order the status names them. */
enum { PLAN_NS_USER, PLAN_NS_PID, PLAN_NS_NET, PLAN_NS_MNT, PLAN_NS_N };

/* The seccomp program the run gets, each but the blob's made by
 * filter.c (the prefix of the notify rewrite is NOTIFY_PREFIX
 * instructions): the blob's as it is; the notify rewrite; learn mode's
 * (--observe); the Landlock watch's (--landlock-watch). */
enum plan_filter { FILTER_BLOB, FILTER_NOTIFY, FILTER_LEARN,
	FILTER_LLWATCH };
#define NOTIFY_PREFIX 10

struct run_plan {
	struct layers layers;         /* what will apply (landlock_check) */
	int landlock;                 /* a ruleset is built */
	uint64_t ll_handled, tmp_access;   /* its handled rights; /tmp's */
	unsigned long ns_flags;       /* CLONE_NEW* wanted */
	char ns_why[PLAN_NS_N][128];  /* why each is wanted, or not */
	char ns_required[300];        /* no namespace, no run: the cause,
	                               * or "" (run without, degraded) */
	int private_tmp, private_shm;
	int egress, egress_observe;   /* the proxy; in learn mode */
	int tls;                      /* the proxy ends TLS for HTTP hosts:
	                               * a credential or http rules */
	const char *egress_why;
	unsigned int proxy_procs;     /* the proxy's share of pids, or 0 */
	uint64_t limit[NBOUNDS];      /* UINT64_MAX: none */
	enum bound_by by[NBOUNDS];    /* disk, files: planned (tmpfs or
	                               * watch); memory, pids: plan_held */
	char disk_why[300];           /* why disk and files are held so */
	char why[2][BOUND_WHY_LEN];   /* memory, pids: why no controller */
	struct rlim rlim[CPOL_RLIM_KERNEL_MAX];  /* after capping */
	int nrlim;
	enum plan_filter filter;
	const char *filter_why;
	const char *llwatch_why;      /* --landlock-watch asked, and why it
	                               * is not on (FILTER_LLWATCH: NULL) */
	int notify_skipped;           /* too long for the notify rewrite */
	uint64_t timeout_ms, output_cap;
	int truncate;                 /* past the cap: drop, keep running */
	int learn;                    /* --observe */
	int root;                     /* the probe's: uid 0 */
	unsigned int uid;             /* the probe's */
	const char *cgroup_base;      /* the probe's: where the group goes */
	int env_proxy, env_ca;        /* the proxy's variables replace the
	                               * policy's; its CA bundle's too */
	const char *env_why;
	int nargs;                    /* the caller's arguments, after the
	                               * policy's command */
};

/* Every decision, or -1 with the one cause in err.  No system call. */
int plan_make(const struct cpol *p, const struct opts *o,
    const struct probe *pr, struct run_plan *pl, char *err, size_t errlen);
/* The wall-clock bound and the output cap (and a --session --timeout
 * past the policy's session bound, refused): part of plan_make, and
 * again once a warm spare's request has tightened the options
 * (warmhold.c), so that the supervisor reads them from the plan only.
 * No system call. */
int plan_request(struct run_plan *pl, const struct cpol *p,
    const struct opts *o, char *err, size_t errlen);
/* The kernel refused the clone's namespaces (run_start): the plan
 * without them, as plan_make makes it for a probe that found none (the
 * same refusal where the run cannot go without them), so that the apply
 * side reads the namespaces, the private /tmp, what holds the disk bound
 * and the filter from the plan only; refused: why (nscause.c, from the
 * clone's errno).  No system call. */
int plan_ns_refused(struct run_plan *pl, const struct cpol *p,
    const struct opts *o, const char *refused, char *err, size_t errlen);
/* Memory and pids, once the cgroup is made (cgroup.c), or as --check's
 * probe foresees it: held by it, or by the per-process rlimits (capped
 * here); -1 with err where the policy requires a controller.  No system
 * call. */
int plan_held(struct run_plan *pl, const struct cpol *p,
    const struct cgroup *cg, char *err, size_t errlen);

/* plansay.c: cordon --check's view of the plan, text or JSON. */
int plan_say(const struct cpol *p, const struct run_plan *pl,
    const struct probe *pr, int json);

#endif
