/*
 * plan.c - one run's decisions, each with its reason, from the validated
 * blob, the options and what probe.c found: no system call, so that a
 * unit test can state them (tests/unit/test_plan.c) and cordon --check
 * can print them.
 *
 *   namespaces: a user namespace always; a PID namespace (the run's
 *     init); a network namespace for "network off" and named hosts; a
 *     mount namespace for a private /tmp or /dev/shm and the disk and
 *     files bounds (the run tmpfs).  Some are required: no namespace, no
 *     run (the cause is named, ns_required); the others degrade.
 *   bounds: memory and pids by a cgroup, or the per-process rlimits
 *     (plan_held, once the cgroup is made); disk and files by the run
 *     tmpfs, or by a watch of the workdir, which covers the workdir only
 *     (so it needs Landlock and no writable rule outside the workdir).
 *   the rlimits after capping, the seccomp program, the egress proxy,
 *     the timeout and the output cap.
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "bpf.h"
#include "filter.h"
#include "landlock_compat.h"
#include "plan.h"

/* Tighten (or add) one of the run's rlimits to v. */
static void rlim_cap(struct run_plan *pl, int resource, uint64_t v)
{
	int i;

	for (i = 0; i < pl->nrlim; i++)
		if (pl->rlim[i].resource == resource) {
			if (pl->rlim[i].value > v)
				pl->rlim[i].value = v;
			return;
		}
	if (pl->nrlim < CPOL_RLIM_KERNEL_MAX) {
		pl->rlim[pl->nrlim].resource = resource;
		pl->rlim[pl->nrlim++].value = v;
	}
}

static int rlim_has(const struct run_plan *pl, int resource)
{
	int i;

	for (i = 0; i < pl->nrlim; i++)
		if (pl->rlim[i].resource == resource &&
		    pl->rlim[i].value != RLIM_INFINITY)
			return 1;
	return 0;
}

static void why(struct run_plan *pl, int ns, const char *text)
{
	snprintf(pl->ns_why[ns], sizeof(pl->ns_why[ns]), "%s", text);
}

/* The options that only make sense together.  -1 with err. */
static int opts_refused(const struct opts *o, char *err, size_t errlen)
{
	if (o->observe_hosts && !o->observe) {
		snprintf(err, errlen, "--observe-hosts is a part of learn "
		    "mode: only with --observe");
		return -1;
	}
	if (o->ll_watch && (o->observe || o->no_namespaces)) {
		snprintf(err, errlen, "--landlock-watch needs Landlock and a "
		    "PID namespace (its listener): not with %s", o->observe ?
		    "--observe" : "--no-namespaces");
		return -1;
	}
	return 0;
}

/* The credentials cordon cannot honour refuse the run: one given
 * (--credential) where the policy binds none, or, with the proxy
 * (plan_net), one the run's own environment would also carry.  -1 with
 * err. */
static int creds_refused(const struct cpol *p, const struct opts *o,
    const struct run_plan *pl, char *err, size_t errlen)
{
	if (o->ncred > 0 && p->nhttp == 0) {
		snprintf(err, errlen, "--credential: the policy binds no "
		    "credential");
		return -1;
	}
	if (!pl->egress)
		return 0;
	for (uint32_t i = 0; i < p->nhttp; i++) {
		const struct cpol_http *h = &p->http[i];

		for (uint32_t j = 0; *h->credential && j < p->nenv; j++)
			if (strcmp(p->env[j].name, h->credential) == 0) {
				snprintf(err, errlen, "the policy puts "
				    "credential %s in the run's environment "
				    "too (env %s): refusing to run",
				    h->credential, p->env[j].kind ==
				    CPOL_ENV_KEEP ? "keep" : "set");
				return -1;
			}
	}
	return 0;
}

/* The network namespace: an empty one for "network off", loopback and
 * the proxy's listener for named hosts.  Learn mode: the network is
 * what is learned, so none; through the egress proxy (--observe-hosts,
 * or a base that names hosts) the run's network is the proxy alone. */
static void plan_net(const struct cpol *p, const struct opts *o,
    struct run_plan *pl)
{
	pl->egress_observe = o->observe && (o->observe_hosts ||
	    (p->flags & CPOL_F_NET_HOSTS));
	pl->egress = (p->flags & CPOL_F_NET_HOSTS) || pl->egress_observe;
	pl->tls = pl->egress && p->nhttp > 0;
	pl->egress_why = pl->egress_observe ? "--observe through the proxy: "
	    "every host let through and recorded" : pl->egress ? "named "
	    "hosts: the run's only way out is cordon's proxy" : "no named "
	    "hosts";
	if (pl->egress) {
		pl->ns_flags |= CLONE_NEWNET;
		why(pl, PLAN_NS_NET, pl->egress_observe ? "--observe "
		    "through the proxy: loopback and its listener" : "named "
		    "hosts: loopback and the proxy's listener only");
	} else if (o->observe) {
		why(pl, PLAN_NS_NET, "--observe: the network is what is "
		    "learned (the host's)");
	} else if (p->flags & CPOL_F_NET_OFF) {
		pl->ns_flags |= CLONE_NEWNET;
		why(pl, PLAN_NS_NET, "network off: an empty namespace");
	} else {
		why(pl, PLAN_NS_NET, "network tcp: the host's, Landlock "
		    "limits the ports");
	}
}

/* The mount namespace: the run tmpfs, for what it holds. */
static void plan_mnt(const struct cpol *p, struct run_plan *pl)
{
	pl->private_tmp = (p->flags & CPOL_F_PRIVATE_TMP) != 0;
	pl->private_shm = (p->flags & CPOL_F_PRIVATE_SHM) != 0;
	if (pl->private_tmp || pl->private_shm ||
	    pl->limit[B_DISK] != UINT64_MAX || pl->limit[B_FILES] != UINT64_MAX)
		pl->ns_flags |= CLONE_NEWNS;
	if (!(pl->ns_flags & CLONE_NEWNS)) {
		why(pl, PLAN_NS_MNT, "no private /tmp, no disk bound");
		return;
	}
	snprintf(pl->ns_why[PLAN_NS_MNT], sizeof(pl->ns_why[PLAN_NS_MNT]),
	    "the run tmpfs: %s%s%s%s", pl->private_tmp ? "private /tmp, " :
	    "", pl->private_shm ? "private /dev/shm, " : "",
	    pl->limit[B_DISK] != UINT64_MAX ? "limit disk, " : "",
	    pl->limit[B_FILES] != UINT64_MAX ? "limit files, " : "");
	/* the last ", " off */
	pl->ns_why[PLAN_NS_MNT][strlen(pl->ns_why[PLAN_NS_MNT]) - 2] = '\0';
}

/* Can a watch of the workdir hold disk and files without a mount
 * namespace?  NULL, or why not (in pl->disk_why's words). */
static const char *watch_refused(const struct cpol *p,
    const struct probe *pr, const struct run_plan *pl, char *buf,
    size_t len)
{
	if (pr->grows_outside) {
		snprintf(buf, len, "writable outside the workdir: %.200s",
		    pr->grows_outside);
		return buf;
	}
	if (!pl->landlock)
		return pl->learn ? "no Landlock (--observe)" : "no Landlock";
	if (p->flags & (CPOL_F_REQUIRE_DISK | CPOL_F_REQUIRE_FILES))
		return "the policy requires the run tmpfs";
	return NULL;
}

/* The one cause, in order, for which the run needs its namespaces. */
static void plan_required(const struct cpol *p, const struct probe *pr,
    struct run_plan *pl)
{
	char why[240];
	const char *w, *which;
	size_t n = sizeof(pl->ns_required);

	pl->ns_required[0] = '\0';
	if (pl->learn) {
		snprintf(pl->ns_required, n, "--observe needs a PID namespace "
		    "(its seccomp listener)");
	} else if (pl->egress) {
		snprintf(pl->ns_required, n, "the policy names hosts, which "
		    "needs a network namespace (the run's only way out is "
		    "cordon's proxy)");
	} else if ((p->flags & (CPOL_F_PRIVATE_TMP | CPOL_F_PRIVATE_SHM)) &&
	    !(p->flags & CPOL_F_BEST_EFFORT_NS)) {
		snprintf(pl->ns_required, n, "policy %.64s requires a private "
		    "%s, which needs a mount namespace", p->name,
		    pl->private_tmp ? "/tmp" : "/dev/shm");
	}
	if (pl->limit[B_DISK] == UINT64_MAX && pl->limit[B_FILES] == UINT64_MAX)
		return;
	w = watch_refused(p, pr, pl, why, sizeof(why));
	which = pl->limit[B_FILES] == UINT64_MAX ? "limit disk needs" :
	    pl->limit[B_DISK] == UINT64_MAX ? "limit files needs" :
	    "limit disk and limit files need";
	snprintf(pl->disk_why, sizeof(pl->disk_why), w ? "the run tmpfs (a "
	    "watch cannot hold them here: %s)" : "%sthe run tmpfs; without a "
	    "mount namespace, a watch of the workdir", w ? w : "");
	if (w && !pl->ns_required[0])
		snprintf(pl->ns_required, n, "%s a mount namespace here (%s)",
		    which, w);
}

/* The egress proxy's processes at most, itself included: a share of the
 * run's pids and nproc bounds (as root the pids bound is the lower of
 * the two), a quarter and at least 2, taken off the run's own pids
 * group, so that the two together stay within the bound. */
static unsigned int proxy_procs(const struct cpol *p, const uint64_t *cli)
{
	uint64_t pids = command_limit(p, cli, CPOL_RLIM_PIDS),
	    nproc = command_limit(p, cli, CPOL_RLIM_NPROC),
	    most = EGRESS_MAX_OPEN + 1, quarter;

	if (nproc < pids)
		pids = nproc;
	quarter = pids / 4 > 2 ? pids / 4 : 2;
	if (pids != UINT64_MAX && quarter < most)
		most = quarter;
	return (unsigned int)most;
}

/* The whole-run bounds' figures and the rlimits.  RLIMIT_NPROC does not
 * bind uid 0: as root, limit nproc is a bound on the run's processes.
 * Returns 0, or -1 with err when the proxy's share leaves the run no
 * process. */
static int plan_bounds(const struct cpol *p, const struct opts *o,
    const struct probe *pr, struct run_plan *pl, char *err, size_t errlen)
{
	uint64_t nproc = command_limit(p, o->limit, CPOL_RLIM_NPROC);
	int i;

	for (i = 0; i < NBOUNDS; i++) {
		pl->limit[i] = command_limit(p, o->limit,
		    (unsigned int)(CPOL_RLIM_MEMORY + i));
		pl->by[i] = BY_NONE;
	}
	if (pr->root && nproc < pl->limit[B_PIDS])
		pl->limit[B_PIDS] = nproc;
	pl->nrlim = command_rlimits(p, o->limit, pl->rlim);
	/* One file never outgrows the space (and a watch misses less). */
	if (pl->limit[B_DISK] != UINT64_MAX)
		rlim_cap(pl, RLIMIT_FSIZE, pl->limit[B_DISK]);
	pl->proxy_procs = pl->egress ? proxy_procs(p, o->limit) : 0;
	if (pl->limit[B_PIDS] == UINT64_MAX ||
	    pl->limit[B_PIDS] > pl->proxy_procs)
		return 0;
	snprintf(err, errlen, "limit pids %llu leaves no process for the "
	    "run beside the egress proxy's %u (named hosts need at least "
	    "%u)", (unsigned long long)pl->limit[B_PIDS], pl->proxy_procs,
	    pl->proxy_procs + 1);
	return -1;
}

/* Without namespaces (--no-namespaces, or a kernel that refuses them):
 * refused when one is required, else what is left. */
static int plan_no_ns(const struct opts *o, int ns, const char *refused,
    struct run_plan *pl, char *err, size_t errlen)
{
	int i;

	if (!o->no_namespaces && ns != 0)
		return 0;
	if (pl->ns_required[0]) {
		snprintf(err, errlen, "%s, %s%s", pl->ns_required,
		    o->no_namespaces ? "and --no-namespaces forbids them" :
		    "but namespaces were refused: ", o->no_namespaces ? "" :
		    refused);
		return -1;
	}
	for (i = 0; i < PLAN_NS_N; i++)
		why(pl, i, o->no_namespaces ? "--no-namespaces" :
		    "refused (see namespaces)");
	pl->ns_flags = 0;
	pl->private_tmp = pl->private_shm = 0;
	return 0;
}

/* The seccomp program: the blob's as it is, or rewritten so that its
 * refusals notify cordon (a PID namespace's init hands over the
 * listener: launch.c), or learn mode's (learn.c), or the Landlock
 * watch's (llwatch.c; else the notify rewrite where its three copies do
 * not fit).  Whether each fits is filter.c's one size check.  -1 with
 * err: learn mode's does not fit. */
static int plan_filter(const struct cpol *p, const struct opts *o,
    struct run_plan *pl, char *err, size_t errlen)
{
	uint32_t i;
	int refusals = 0;

	pl->filter = FILTER_BLOB;
	pl->llwatch_why = !o->ll_watch ? NULL : !pl->landlock ?
	    "Landlock was not applied" : !(pl->ns_flags & CLONE_NEWPID) ?
	    "--landlock-watch needs the PID namespace (its listener); the "
	    "run had none" : "the policy's program is too long for the "
	    "watch's copies";
	if (!(pl->ns_flags & CLONE_NEWPID)) {
		pl->filter_why = "no PID namespace: the filter's refusals "
		    "reach no listener";
		return 0;
	}
	if (pl->learn) {
		pl->filter = FILTER_LEARN;
		pl->filter_why = "--observe: refused calls let through and "
		    "recorded";
		if (filter_fits(FPROG_LEARN, p->ninsns))
			return 0;
		snprintf(err, errlen, "learn mode's filter: the policy's "
		    "program is too long for its prefix");
		return -1;
	}
	if (o->ll_watch && pl->landlock &&
	    filter_fits(FPROG_LLWATCH, p->ninsns)) {
		pl->filter = FILTER_LLWATCH;
		pl->llwatch_why = NULL;
		pl->filter_why = "--landlock-watch: path and port calls sent to "
		    "cordon and checked against the policy's rules; the "
		    "filter's refusals notify cordon";
		return 0;
	}
	if (p->ninsns && !filter_fits(FPROG_NOTIFY, p->ninsns)) {
		pl->notify_skipped = 1;
		pl->filter_why = "the policy's program is too long to add the "
		    "listener's copy";
		return 0;
	}
	for (i = 0; i < p->ninsns; i++)
		refusals |= p->insns[i].code == (BPF_RET | BPF_K) &&
		    bpf_act_refuses(p->insns[i].k);
	pl->filter = refusals ? FILTER_NOTIFY : FILTER_BLOB;
	pl->filter_why = refusals ? "its kills and errnos notify cordon, "
	    "which records each refusal" : "the program refuses nothing: "
	    "no listener";
	return 0;
}

/* The command's environment: the policy's, and where the run's way out
 * is the proxy, the variables every client reads for it (command.c). */
static void plan_env(const struct cpol *p, const struct opts *o,
    struct run_plan *pl)
{
	pl->nargs = o->nargs;
	pl->env_proxy = pl->egress;
	pl->env_ca = pl->egress && p->nhttp > 0;
	pl->env_why = pl->env_ca ? "the proxy's address and the CA bundle "
	    "it wrote (HTTP hosts: it ends their TLS)" : pl->env_proxy ?
	    "the proxy's address (HTTPS_PROXY and the like)" : "the "
	    "policy's only";
}

/* --check: memory and pids as the probe foresees the run's cgroup.  A
 * v2 directory that cannot hold them fails a run: refused here too. */
static int plan_cgroup(const struct cpol *p, const struct probe *pr,
    struct run_plan *pl, char *err, size_t errlen)
{
	struct cgroup cg;

	memset(&cg, 0, sizeof(cg));
	if (pr->cgroup_base && pr->cgroup < 0 && pr->cgroup_why[0]) {
		snprintf(err, errlen, "%s", pr->cgroup_why);
		return -1;
	}
	cg.version = pr->cgroup > 0 ? pr->cgroup : 0;
	cg.memory = cg.version && pl->limit[B_MEMORY] != UINT64_MAX;
	cg.pids = cg.version && pl->limit[B_PIDS] != UINT64_MAX;
	snprintf(cg.why, sizeof(cg.why), "%s", pr->cgroup_why);
	return plan_held(pl, p, &cg, err, errlen);
}

/* What the namespaces decide (ns: the probe's, 0 once the kernel
 * refused the clone's): none, or the refusal naming the one cause a run
 * cannot go without them; what holds the disk and files bounds; the
 * filter. */
static int plan_ns(const struct cpol *p, const struct opts *o, int ns,
    const char *refused, struct run_plan *pl, char *err, size_t errlen)
{
	if (plan_no_ns(o, ns, refused, pl, err, errlen) < 0)
		return -1;
	pl->by[B_DISK] = pl->limit[B_DISK] == UINT64_MAX ? BY_NONE :
	    pl->ns_flags & CLONE_NEWNS ? BY_TMPFS : BY_WATCH;
	pl->by[B_FILES] = pl->limit[B_FILES] == UINT64_MAX ? BY_NONE :
	    pl->ns_flags & CLONE_NEWNS ? BY_TMPFS : BY_WATCH;
	if (pl->by[B_DISK] == BY_WATCH || pl->by[B_FILES] == BY_WATCH)
		snprintf(pl->disk_why, sizeof(pl->disk_why), "%s",
		    RUNFS_WATCH_WHY);
	return plan_filter(p, o, pl, err, errlen);
}

int plan_make(const struct cpol *p, const struct opts *o,
    const struct probe *pr, struct run_plan *pl, char *err, size_t errlen)
{
	memset(pl, 0, sizeof(*pl));
	if (opts_refused(o, err, errlen) < 0)
		return -1;
	pl->learn = o->observe != NULL;
	pl->root = pr->root;
	pl->uid = pr->uid;
	pl->layers.landlock_errata = pr->landlock_errata;
	if (landlock_check(p, pr->landlock_abi, &pl->layers, err, errlen) < 0)
		return -1;
	/* Learn mode: no Landlock, the paths are what is learned. */
	pl->landlock = !pl->learn && pr->landlock_abi >= 1;
	pl->ll_handled = landlock_fs_rights(pr->landlock_abi);
	pl->tmp_access = landlock_tmp_rights(pl->ll_handled);
	pl->ns_flags = CLONE_NEWUSER | CLONE_NEWPID;
	why(pl, PLAN_NS_USER, "always: the others without privilege");
	why(pl, PLAN_NS_PID, "the run's init: every process reaped, "
	    "the filter's listener");
	plan_net(p, o, pl);
	if (creds_refused(p, o, pl, err, errlen) < 0)
		return -1;
	plan_env(p, o, pl);
	pl->cgroup_base = pr->cgroup_base;
	if (plan_bounds(p, o, pr, pl, err, errlen) < 0 || (pr->cgroup &&
	    plan_cgroup(p, pr, pl, err, errlen) < 0))
		return -1;
	plan_mnt(p, pl);
	plan_required(p, pr, pl);
	if (!o->no_namespaces && pr->ns > 0 && pr->ns_broken[0]) {
		snprintf(err, errlen, "the kernel gives the namespaces, but a "
		    "run could not set them up (%s), so every run would fail. "
		    "Hint: %s", pr->ns_broken, pr->ns_hint);
		return -1;
	}
	if (plan_ns(p, o, pr->ns, pr->ns_why, pl, err, errlen) < 0)
		return -1;
	pl->truncate = (p->flags & CPOL_F_OUTPUT_TRUNCATE) != 0;
	return plan_request(pl, p, o, err, errlen);
}

/* RLIMIT_NPROC without a user namespace counts every process of the uid
 * on the host (the node, in a pod: every container running as it), so
 * other runs and programs of the uid take from the run's bound; nothing
 * the kernel gives without a cgroup or a user namespace bounds a run's
 * processes apart.  Said once, where the plan holds pids so. */
static void pids_shared(struct run_plan *pl)
{
	size_t n = strlen(pl->why[B_PIDS]);

	if (pl->by[B_PIDS] == BY_RLIMIT && !(pl->ns_flags & CLONE_NEWUSER) &&
	    !strstr(pl->why[B_PIDS], "; no user namespace"))
		snprintf(pl->why[B_PIDS] + n, sizeof(pl->why[B_PIDS]) - n,
		    "; no user namespace: every process of uid %u on the host "
		    "counts, other runs' included, so this run may get fewer",
		    pl->uid);
}

int plan_ns_refused(struct run_plan *pl, const struct cpol *p,
    const struct opts *o, const char *refused, char *err, size_t errlen)
{
	if (plan_ns(p, o, 0, refused, pl, err, errlen) < 0)
		return -1;
	pids_shared(pl);
	return 0;
}

int plan_request(struct run_plan *pl, const struct cpol *p,
    const struct opts *o, char *err, size_t errlen)
{
	if (command_session_ok(p, o, err, errlen) < 0)
		return -1;
	pl->timeout_ms = command_timeout_ms(p, o);
	pl->output_cap = command_output_cap(p, o->output_cap);
	return 0;
}

static int refuse(char *err, size_t errlen, const char *name,
    const char *why)
{
	snprintf(err, errlen, "the policy requires limit %s to hold for "
	    "the whole run, but there is %.250s. Hint: run as root on cgroup "
	    "v1 (a group is made below cordon's own), or give a delegated "
	    "cgroup v2 directory with --cgroup", name, why);
	return -1;
}

/* How memory and pids are held, given the cgroup made.  Without a
 * controller, the per-process rlimits are capped at the bound: each
 * process's address space (or data, where the policy leaves the address
 * space unlimited, as CUDA needs) at "memory", the process count at
 * "pids" (counted per user namespace, so per run when cordon has one;
 * never for root); why says why there is no controller. */
int plan_held(struct run_plan *pl, const struct cpol *p,
    const struct cgroup *cg, char *err, size_t errlen)
{
	enum bound_by by = cg->version == 2 ? BY_CGROUP2 : BY_CGROUP1;

	pl->why[B_MEMORY][0] = pl->why[B_PIDS][0] = '\0';
	if (pl->limit[B_MEMORY] != UINT64_MAX && cg->memory) {
		pl->by[B_MEMORY] = by;
	} else if (pl->limit[B_MEMORY] != UINT64_MAX) {
		rlim_cap(pl, rlim_has(pl, RLIMIT_AS) ? RLIMIT_AS : RLIMIT_DATA,
		    pl->limit[B_MEMORY]);
		pl->by[B_MEMORY] = BY_RLIMIT_PROC;
		snprintf(pl->why[B_MEMORY], sizeof(pl->why[B_MEMORY]), "no "
		    "memory cgroup: %s; each process is capped at the bound, "
		    "not the run", cg->why);
	}
	if (pl->limit[B_PIDS] != UINT64_MAX && cg->pids) {
		pl->by[B_PIDS] = by;
	} else if (pl->limit[B_PIDS] != UINT64_MAX) {
		rlim_cap(pl, RLIMIT_NPROC, pl->limit[B_PIDS]);
		pl->by[B_PIDS] = pl->root ? BY_NONE : BY_RLIMIT;
		snprintf(pl->why[B_PIDS], sizeof(pl->why[B_PIDS]), "no pids "
		    "cgroup: %s; %s", cg->why, pl->root ? "the kernel does not "
		    "apply RLIMIT_NPROC to root" : "RLIMIT_NPROC counts the "
		    "uid's processes (per user namespace)");
	}
	pids_shared(pl);
	if ((p->flags & CPOL_F_REQUIRE_MEMORY) && !cg->memory)
		return refuse(err, errlen, "memory", pl->why[B_MEMORY]);
	if ((p->flags & CPOL_F_REQUIRE_PIDS) && !cg->pids)
		return refuse(err, errlen, "pids", pl->why[B_PIDS]);
	return 0;
}
