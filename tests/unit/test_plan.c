/*
 * test_plan.c - the launcher's plan (launcher/plan.c) as a table: a
 * policy's flags and limits, the options and the kernel's facts (a
 * struct probe, no kernel asked) give a plan, or the one refusal that
 * names its real cause.  Every refusal plan_make and plan_held can give
 * has a row; so do the decisions a run reads (namespaces, what holds
 * each bound, the filter, the rlimits).
 */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include <cmocka.h>

#include "bpf.h"
#include "plan.h"

#define U CLONE_NEWUSER
#define P CLONE_NEWPID
#define N CLONE_NEWNET
#define M CLONE_NEWNS
#define ANY 0xffffffffUL   /* ns_flags not checked */
#define GB (1ULL << 30)

/* The options of a row, on top of opts_parse's defaults. */
enum { O_NONS = 1, O_OBSERVE = 2, O_HOSTS = 4, O_WATCH = 8 };

struct row {
	const char *name;
	uint32_t flags;               /* CPOL_F_* */
	uint64_t memory, pids, disk, files, nproc;  /* 0: not set */
	int opts;                     /* O_* */
	int abi, ns, root;            /* the probe */
	const char *grows;            /* probe.grows_outside */
	uint32_t ninsns;              /* 0: one errno return */
	/* expected */
	const char *refused;          /* a substring of err, or NULL */
	const char *not_said;         /* a wrong cause: not in err */
	unsigned long ns_flags;
	const char *required;         /* substring of ns_required; "": none */
	enum plan_filter filter;
	enum bound_by disk_by;
};

#define OFF CPOL_F_NET_OFF
#define TCP CPOL_F_NET_TCP
#define HOSTS (CPOL_F_NET_TCP | CPOL_F_NET_HOSTS)
#define TMP CPOL_F_PRIVATE_TMP
#define BEST_NS CPOL_F_BEST_EFFORT_NS

static const struct row rows[] = {
	/* decisions */
	{ "network off", OFF, .abi = 7, .ns = -1, .ns_flags = U | P | N,
	  .required = "", .filter = FILTER_NOTIFY, .disk_by = BY_NONE },
	{ "network tcp: the host's", TCP, .abi = 7, .ns = -1,
	  .ns_flags = U | P, .required = "", .filter = FILTER_NOTIFY },
	{ "named hosts", HOSTS, .abi = 7, .ns = -1, .ns_flags = U | P | N,
	  .required = "names hosts", .filter = FILTER_NOTIFY },
	{ "private /tmp, best effort", OFF | TMP | BEST_NS, .abi = 7,
	  .ns = -1, .ns_flags = U | P | N | M, .required = "",
	  .filter = FILTER_NOTIFY },
	{ "private /tmp required", OFF | TMP, .abi = 7, .ns = -1,
	  .ns_flags = U | P | N | M, .required = "private /tmp",
	  .filter = FILTER_NOTIFY },
	{ "observe: no netns, learn filter", OFF, .opts = O_OBSERVE,
	  .abi = 7, .ns = -1, .ns_flags = U | P, .required = "--observe",
	  .filter = FILTER_LEARN },
	{ "observe through the proxy", OFF, .opts = O_OBSERVE | O_HOSTS,
	  .abi = 7, .ns = -1, .ns_flags = U | P | N, .required = "--observe",
	  .filter = FILTER_LEARN },
	{ "disk bound: the run tmpfs", OFF, .disk = GB, .abi = 7, .ns = -1,
	  .ns_flags = U | P | N | M, .required = "", .filter = FILTER_NOTIFY,
	  .disk_by = BY_TMPFS },
	{ "disk bound, no namespaces: watched", OFF, .disk = GB,
	  .opts = O_NONS, .abi = 7, .ns = -1, .ns_flags = 0, .required = "",
	  .filter = FILTER_BLOB, .disk_by = BY_WATCH },
	{ "disk bound, growing outside: required", OFF, .disk = GB,
	  .abi = 7, .ns = -1, .grows = "/srv/out", .ns_flags = U | P | N | M,
	  .required = "writable outside the workdir: /srv/out",
	  .filter = FILTER_NOTIFY, .disk_by = BY_TMPFS },
	{ "kernel refuses, best effort: degraded", OFF | TMP | BEST_NS,
	  .abi = 7, .ns = 0, .ns_flags = 0, .required = "",
	  .filter = FILTER_BLOB },
	{ "program too long for the listener", OFF, .abi = 7, .ns = -1,
	  .ninsns = 2100, .ns_flags = ANY, .required = "",
	  .filter = FILTER_BLOB },
	{ "landlock-watch: the watch's program", OFF, .opts = O_WATCH,
	  .abi = 7, .ns = -1, .ns_flags = U | P | N, .required = "",
	  .filter = FILTER_LLWATCH },
	{ "landlock-watch, too long for its copies: notify", OFF,
	  .opts = O_WATCH, .abi = 7, .ns = -1, .ninsns = 1400,
	  .ns_flags = U | P | N, .required = "", .filter = FILTER_NOTIFY },
	/* refusals, each with its one cause */
	{ "observe, too long for learn's prefix", OFF, .opts = O_OBSERVE,
	  .abi = 7, .ns = -1, .ninsns = 4090,
	  .refused = "learn mode's filter: the policy's program is too long",
	  .not_said = "4 GiB" },
	{ "observe-hosts alone", OFF, .opts = O_HOSTS, .abi = 7, .ns = -1,
	  .refused = "--observe-hosts is a part of learn mode" },
	{ "landlock-watch with observe", OFF, .opts = O_WATCH | O_OBSERVE,
	  .abi = 7, .ns = -1, .refused = "--landlock-watch needs Landlock and "
	  "a PID namespace (its listener): not with --observe" },
	{ "landlock-watch without namespaces", OFF, .opts = O_WATCH | O_NONS,
	  .abi = 7, .ns = -1, .refused = "--landlock-watch needs Landlock and "
	  "a PID namespace (its listener): not with --no-namespaces" },
	{ "Landlock too old", OFF, .abi = 3, .ns = -1,
	  .refused = "needs Landlock ABI 6, this kernel has 3" },
	{ "no Landlock", OFF, .abi = 0, .ns = -1,
	  .refused = "needs Landlock ABI 6, this kernel has 0" },
	{ "proxy's share leaves no process", HOSTS, .pids = 2, .abi = 7,
	  .ns = -1, .refused = "leaves no process for the run beside the "
	  "egress proxy's 2" },
	{ "observe without namespaces", OFF, .opts = O_OBSERVE | O_NONS,
	  .abi = 7, .ns = -1, .refused = "--observe needs a PID namespace "
	  "(its seccomp listener), and --no-namespaces forbids them",
	  .not_said = "/tmp" },
	{ "observe with a private /tmp, no namespaces", OFF | TMP,
	  .opts = O_OBSERVE | O_NONS, .abi = 7, .ns = -1,
	  .refused = "--observe needs a PID namespace", .not_said = "/tmp" },
	{ "named hosts without namespaces", HOSTS, .opts = O_NONS, .abi = 7,
	  .ns = -1, .refused = "names hosts, which needs a network namespace",
	  .not_said = "/tmp" },
	{ "private /tmp required, no namespaces", OFF | TMP, .opts = O_NONS,
	  .abi = 7, .ns = -1, .refused = "requires a private /tmp, which "
	  "needs a mount namespace, and --no-namespaces forbids them" },
	{ "disk bound growing outside, no namespaces", OFF, .disk = GB,
	  .opts = O_NONS, .abi = 7, .ns = -1, .grows = "/srv/out",
	  .refused = "limit disk needs a mount namespace here (writable "
	  "outside the workdir: /srv/out)", .not_said = "/tmp" },
	{ "files bound without Landlock, no namespaces",
	  OFF | CPOL_F_BEST_EFFORT_LANDLOCK, .files = 100, .opts = O_NONS,
	  .abi = 0, .ns = -1, .refused = "limit files needs a mount namespace "
	  "here (no Landlock)" },
	{ "disk required, no namespaces", OFF | CPOL_F_REQUIRE_DISK,
	  .disk = GB, .files = 10, .opts = O_NONS, .abi = 7, .ns = -1,
	  .refused = "limit disk and limit files need a mount namespace here "
	  "(the policy requires the run tmpfs)" },
	{ "disk bound, the kernel refuses namespaces", OFF, .disk = GB,
	  .abi = 7, .ns = 0, .grows = "/srv/out",
	  .refused = "limit disk needs a mount namespace here (writable "
	  "outside the workdir: /srv/out), but namespaces were refused: "
	  "the kernel refused them (clone: EPERM)", .not_said = "/tmp" },
	{ "private /tmp, the kernel refuses namespaces", OFF | TMP,
	  .abi = 7, .ns = 0, .refused = "requires a private /tmp, which "
	  "needs a mount namespace, but namespaces were refused: the kernel "
	  "refused them (clone: EPERM)" },
};

static void lim_add(struct cpol_limit *lim, uint32_t *n, uint8_t res,
    uint64_t v)
{
	if (!v)
		return;
	lim[*n].resource = res;
	lim[(*n)++].value = v;
}

static void policy(const struct row *r, struct cpol *p,
    struct cpol_insn *insns, struct cpol_limit *lim)
{
	uint32_t n = 0, i;

	memset(p, 0, sizeof(*p));
	p->name = (char *)"t";
	p->landlock_abi_min = 6;
	p->flags = r->flags;
	p->timeout_ms = 60000;
	p->output_cap = 1 << 20;
	p->ninsns = r->ninsns ? r->ninsns : 1;
	for (i = 0; i < p->ninsns; i++) {
		insns[i].code = BPF_RET | BPF_K;
		insns[i].k = BPF_ACT_ERRNO | 1;
	}
	p->insns = insns;
	lim_add(lim, &n, CPOL_RLIM_MEMORY, r->memory);
	lim_add(lim, &n, CPOL_RLIM_PIDS, r->pids);
	lim_add(lim, &n, CPOL_RLIM_DISK, r->disk);
	lim_add(lim, &n, CPOL_RLIM_FILES, r->files);
	lim_add(lim, &n, CPOL_RLIM_NPROC, r->nproc);
	p->limits = lim;
	p->nlimits = n;
}

static void options(const struct row *r, struct opts *o)
{
	opts_init(o);
	o->no_namespaces = (r->opts & O_NONS) != 0;
	o->observe = r->opts & O_OBSERVE ? "trace" : NULL;
	o->observe_hosts = (r->opts & O_HOSTS) != 0;
	o->ll_watch = (r->opts & O_WATCH) != 0;
}

static void test_table(void **state)
{
	static struct cpol_insn insns[CPOL_MAX_INSNS];
	struct cpol_limit lim[8];
	struct run_plan pl;
	struct cpol p;
	struct opts o;
	struct probe pr;
	char err[ERRLEN];
	size_t i;
	int rc;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];

		policy(r, &p, insns, lim);
		options(r, &o);
		pr = (struct probe){ .landlock_abi = r->abi, .ns = r->ns,
		    .root = r->root, .grows_outside = r->grows };
		if (r->ns == 0)   /* nscause.c's words, as probe_make says */
			snprintf(pr.ns_why, sizeof(pr.ns_why), "the kernel "
			    "refused them (clone: EPERM)");
		err[0] = '\0';
		rc = plan_make(&p, &o, &pr, &pl, err, sizeof(err));
		if (r->refused) {
			if (rc != -1 || !strstr(err, r->refused))
				fail_msg("%s: rc %d, err \"%s\"", r->name, rc,
				    err);
			if (r->not_said && strstr(err, r->not_said))
				fail_msg("%s: a wrong cause in \"%s\"", r->name,
				    err);
			continue;
		}
		if (rc != 0)
			fail_msg("%s: refused: %s", r->name, err);
		if (r->ns_flags != ANY && pl.ns_flags != r->ns_flags)
			fail_msg("%s: ns_flags 0x%lx", r->name, pl.ns_flags);
		if (r->required[0] ? !strstr(pl.ns_required, r->required) :
		    pl.ns_required[0] != '\0')
			fail_msg("%s: required \"%s\"", r->name,
			    pl.ns_required);
		if (pl.filter != r->filter)
			fail_msg("%s: filter %d", r->name, (int)pl.filter);
		if (pl.by[B_DISK] != r->disk_by)
			fail_msg("%s: disk by %d", r->name, (int)pl.by[B_DISK]);
	}
}

/* --check's probe: the clone given, the run tmpfs's mount refused (a
 * container profile): the plan refuses, naming the step and the way
 * out; with --no-namespaces it goes on. */
static void test_ns_setup_refused(void **state)
{
	static struct cpol_insn insns[CPOL_MAX_INSNS];
	const struct row r = { .name = "setup", .abi = 6 };
	struct cpol_limit lim[8];
	struct run_plan pl;
	struct cpol p;
	struct opts o;
	struct probe pr = { .landlock_abi = 6, .ns = 1 };
	char err[ERRLEN] = "";

	(void)state;
	policy(&r, &p, insns, lim);
	options(&r, &o);
	snprintf(pr.ns_broken, sizeof(pr.ns_broken), "the run tmpfs "
	    "(fsopen, fsconfig, fsmount): Operation not permitted");
	snprintf(pr.ns_hint, sizeof(pr.ns_hint), "in a container, its "
	    "runtime's seccomp profile may refuse it; allow it there, or run "
	    "with --no-namespaces");
	assert_int_equal(plan_make(&p, &o, &pr, &pl, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "fsopen"));
	assert_non_null(strstr(err, pr.ns_hint));    /* the probe's, said */
	o.no_namespaces = 1;
	assert_int_equal(plan_make(&p, &o, &pr, &pl, err, sizeof(err)), 0);
	assert_int_equal(pl.ns_flags, 0);
}

static int rlim_of(const struct run_plan *pl, int resource, uint64_t *v)
{
	int i;

	for (i = 0; i < pl->nrlim; i++)
		if (pl->rlim[i].resource == resource) {
			*v = pl->rlim[i].value;
			return 1;
		}
	return 0;
}

/* The rlimits after capping: the disk bound caps each file; as root,
 * limit nproc is the pids bound; without a controller memory and pids
 * fall back to the per-process rlimits, or are refused when required. */
static void test_bounds(void **state)
{
	static struct cpol_insn insns[1];
	struct cpol_limit lim[8];
	struct row r = { "bounds", OFF, .memory = GB, .pids = 100,
	    .disk = 2 * GB, .nproc = 50, .abi = 7, .ns = -1, .root = 1 };
	struct cgroup none = { .version = 0, .why = "no cgroup here" };
	struct cgroup v2 = { .version = 2, .memory = 1, .pids = 1 };
	struct run_plan pl;
	struct cpol p;
	struct opts o;
	struct probe pr = { .landlock_abi = 7, .ns = -1, .root = 1 };
	char err[ERRLEN];
	uint64_t v = 0;

	(void)state;
	policy(&r, &p, insns, lim);
	options(&r, &o);
	assert_int_equal(plan_make(&p, &o, &pr, &pl, err, sizeof(err)), 0);
	assert_true(rlim_of(&pl, RLIMIT_FSIZE, &v) && v == 2 * GB);
	assert_int_equal(pl.limit[B_PIDS], 50);     /* root: nproc */
	assert_int_equal(plan_held(&pl, &p, &v2, err, sizeof(err)), 0);
	assert_int_equal(pl.by[B_MEMORY], BY_CGROUP2);
	assert_int_equal(plan_make(&p, &o, &pr, &pl, err, sizeof(err)), 0);
	assert_int_equal(plan_held(&pl, &p, &none, err, sizeof(err)), 0);
	assert_int_equal(pl.by[B_MEMORY], BY_RLIMIT_PROC);
	assert_true(rlim_of(&pl, RLIMIT_DATA, &v) && v == GB);
	assert_int_equal(pl.by[B_PIDS], BY_NONE);   /* root */
	assert_non_null(strstr(pl.why[B_PIDS], "not apply RLIMIT_NPROC"));
	pr.root = 0;
	assert_int_equal(plan_make(&p, &o, &pr, &pl, err, sizeof(err)), 0);
	assert_int_equal(plan_held(&pl, &p, &none, err, sizeof(err)), 0);
	assert_int_equal(pl.by[B_PIDS], BY_RLIMIT);
	assert_true(rlim_of(&pl, RLIMIT_NPROC, &v) && v == 50);
	/* The refusals plan_held gives. */
	p.flags |= CPOL_F_REQUIRE_MEMORY;
	assert_int_equal(plan_make(&p, &o, &pr, &pl, err, sizeof(err)), 0);
	assert_int_equal(plan_held(&pl, &p, &none, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "requires limit memory to hold for the "
	    "whole run, but there is no memory cgroup: no cgroup here"));
	p.flags ^= CPOL_F_REQUIRE_MEMORY | CPOL_F_REQUIRE_PIDS;
	assert_int_equal(plan_make(&p, &o, &pr, &pl, err, sizeof(err)), 0);
	assert_int_equal(plan_held(&pl, &p, &none, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "requires limit pids to hold"));
}

/* --check's probe foresees the cgroup (probe.cgroup): the plan says what
 * holds memory and pids, or refuses with the real cause; a run (cgroup
 * 0: not asked) waits for its group.  And what cordon adds to the
 * command's environment. */
static void test_check_cgroup_env(void **state)
{
	static struct cpol_insn insns[1];
	struct cpol_limit lim[8];
	struct row r = { "cgroup", HOSTS, .memory = GB, .pids = 100,
	    .abi = 7, .ns = -1 };
	struct cpol_http http = { .host = (char *)"api.example", .port = 443,
	    .credential = (char *)"" };
	struct run_plan pl;
	struct cpol p;
	struct opts o;
	struct probe pr = { .landlock_abi = 7, .ns = -1, .cgroup = 1 };
	char err[ERRLEN];

	(void)state;
	policy(&r, &p, insns, lim);
	options(&r, &o);
	assert_int_equal(plan_make(&p, &o, &pr, &pl, err, sizeof(err)), 0);
	assert_int_equal(pl.by[B_MEMORY], BY_CGROUP1);
	assert_int_equal(pl.by[B_PIDS], BY_CGROUP1);
	assert_true(pl.env_proxy && !pl.env_ca);
	pr.cgroup = 0;                          /* a run: not asked */
	assert_int_equal(plan_make(&p, &o, &pr, &pl, err, sizeof(err)), 0);
	assert_int_equal(pl.by[B_MEMORY], BY_NONE);
	pr.cgroup = -1;
	snprintf(pr.cgroup_why, sizeof(pr.cgroup_why), "cannot make a group");
	assert_int_equal(plan_make(&p, &o, &pr, &pl, err, sizeof(err)), 0);
	assert_int_equal(pl.by[B_MEMORY], BY_RLIMIT_PROC);
	assert_non_null(strstr(pl.why[B_MEMORY], "cannot make a group"));
	p.flags |= CPOL_F_REQUIRE_MEMORY;
	assert_int_equal(plan_make(&p, &o, &pr, &pl, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "requires limit memory"));
	assert_non_null(strstr(err, "cannot make a group"));
	/* v2 that cannot hold them: a run would fail, so --check refuses. */
	pr.cgroup_base = "/x";
	snprintf(pr.cgroup_why, sizeof(pr.cgroup_why), "cgroup /x is not a "
	    "cgroup v2 directory");
	assert_int_equal(plan_make(&p, &o, &pr, &pl, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cgroup /x is not a cgroup v2"));
	assert_null(strstr(err, "requires limit memory"));
	pr.cgroup = 2;
	assert_int_equal(plan_make(&p, &o, &pr, &pl, err, sizeof(err)), 0);
	assert_int_equal(pl.by[B_MEMORY], BY_CGROUP2);
	assert_string_equal(pl.cgroup_base, "/x");
	/* HTTP hosts: the proxy's CA bundle too; network off: nothing. */
	p.http = &http;
	p.nhttp = 1;
	assert_int_equal(plan_make(&p, &o, &pr, &pl, err, sizeof(err)), 0);
	assert_true(pl.env_proxy && pl.env_ca);
	p.nhttp = 0;
	p.flags = OFF;
	assert_int_equal(plan_make(&p, &o, &pr, &pl, err, sizeof(err)), 0);
	assert_true(!pl.env_proxy && !pl.env_ca);
}

/* A warm spare is planned with its pool's options; its request may
 * tighten the timeout and the cap (warmhold.c), and plan_request is the
 * one place they become the plan's, which is all the supervisor reads:
 * tighter options tighten it, never widen; a --session --timeout past
 * the policy's session bound is refused, not capped. */
static void test_request(void **state)
{
	static struct cpol_insn insns[1];
	struct cpol_limit lim[8];
	struct row r = { "request", OFF, .abi = 7, .ns = -1 };
	struct run_plan pl;
	struct cpol p;
	struct opts o;
	struct probe pr = { .landlock_abi = 7, .ns = -1 };
	char err[ERRLEN];

	(void)state;
	policy(&r, &p, insns, lim);
	options(&r, &o);
	assert_int_equal(plan_make(&p, &o, &pr, &pl, err, sizeof(err)), 0);
	assert_int_equal(pl.timeout_ms, 60000);
	assert_int_equal(pl.output_cap, 1 << 20);
	o.timeout_ms = 5000;                    /* the request's */
	o.output_cap = 4096;
	assert_int_equal(plan_request(&pl, &p, &o, err, sizeof(err)), 0);
	assert_int_equal(pl.timeout_ms, 5000);
	assert_int_equal(pl.output_cap, 4096);
	o.timeout_ms = 120000;                  /* wider: the policy's */
	o.output_cap = UINT64_MAX;
	assert_int_equal(plan_request(&pl, &p, &o, err, sizeof(err)), 0);
	assert_int_equal(pl.timeout_ms, 60000);
	assert_int_equal(pl.output_cap, 1 << 20);
	o.session = 1;                          /* past the session bound */
	o.timeout_ms = 61000;
	err[0] = '\0';
	assert_int_equal(plan_request(&pl, &p, &o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "longer than the policy's session bound"));
}

/* The clone's namespaces refused by the kernel (a run's probe does not
 * ask): the plan again without them, from the plan's own functions: no
 * namespace, no private /tmp, the disk bound watched, the blob's
 * program; refused with the one cause where the run needs them. */
static void test_ns_refused(void **state)
{
	static struct cpol_insn insns[1];
	struct cpol_limit lim[8];
	struct row r = { "ns refused", OFF, .disk = GB, .abi = 7, .ns = -1 };
	struct run_plan pl;
	struct cpol p;
	struct opts o;
	struct probe pr = { .landlock_abi = 7, .ns = -1 };
	char err[ERRLEN];

	(void)state;
	policy(&r, &p, insns, lim);
	options(&r, &o);
	assert_int_equal(plan_make(&p, &o, &pr, &pl, err, sizeof(err)), 0);
	assert_int_equal(pl.ns_flags, U | P | N | M);
	assert_int_equal(pl.by[B_DISK], BY_TMPFS);
	assert_int_equal(pl.filter, FILTER_NOTIFY);
	assert_int_equal(plan_ns_refused(&pl, &p, &o, "the kernel (EPERM)",
	    err, sizeof(err)), 0);
	assert_int_equal(pl.ns_flags, 0);
	assert_int_equal(pl.by[B_DISK], BY_WATCH);
	assert_int_equal(pl.by[B_FILES], BY_NONE);
	assert_int_equal(pl.filter, FILTER_BLOB);
	assert_non_null(strstr(pl.filter_why, "no PID namespace"));
	assert_non_null(strstr(pl.ns_why[PLAN_NS_MNT],
	    "refused (see namespaces)"));
	p.flags |= TMP;                         /* needs a mount namespace */
	assert_int_equal(plan_make(&p, &o, &pr, &pl, err, sizeof(err)), 0);
	assert_true(pl.private_tmp);
	err[0] = '\0';
	assert_int_equal(plan_ns_refused(&pl, &p, &o, "the kernel (EPERM)",
	    err, sizeof(err)), -1);
	assert_non_null(strstr(err, "private /tmp"));
	assert_non_null(strstr(err, "but namespaces were refused: the kernel "
	    "(EPERM)"));
}

/* The credentials cordon cannot honour, refused by the plan (so
 * --check says so too): one given where the policy binds none; one the
 * run's own environment would carry beside the proxy's copy. */
static void test_credentials(void **state)
{
	static struct cpol_insn insns[1];
	struct cpol_limit lim[8];
	struct row r = { "credentials", HOSTS, .abi = 7, .ns = -1 };
	struct cpol_http http = { .host = (char *)"api.example",
	    .port = 443, .credential = (char *)"TOKEN" };
	struct cpol_env env = { .kind = CPOL_ENV_KEEP, .name = (char *)"TOKEN" };
	struct run_plan pl;
	struct cpol p;
	struct opts o;
	struct probe pr = { .landlock_abi = 7, .ns = -1 };
	char err[ERRLEN];

	(void)state;
	policy(&r, &p, insns, lim);
	options(&r, &o);
	o.ncred = 1;
	assert_int_equal(plan_make(&p, &o, &pr, &pl, err, sizeof(err)), -1);
	assert_string_equal(err, "--credential: the policy binds no "
	    "credential");
	p.http = &http;
	p.nhttp = 1;
	assert_int_equal(plan_make(&p, &o, &pr, &pl, err, sizeof(err)), 0);
	p.env = &env;
	p.nenv = 1;
	assert_int_equal(plan_make(&p, &o, &pr, &pl, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "puts credential TOKEN in the run's "
	    "environment too (env keep): refusing to run"));
	p.flags = OFF;                          /* no proxy: nothing sent */
	p.nhttp = 0;
	o.ncred = 0;
	assert_int_equal(plan_make(&p, &o, &pr, &pl, err, sizeof(err)), 0);
}

/* --landlock-watch: on where the plan chose its program, else the
 * plan's one reason, which the status and --check say. */
static void test_llwatch_why(void **state)
{
	static struct cpol_insn insns[CPOL_MAX_INSNS];
	struct cpol_limit lim[8];
	struct row r = { "llwatch", OFF, .opts = O_WATCH, .abi = 7, .ns = -1 };
	struct run_plan pl;
	struct cpol p;
	struct opts o;
	struct probe pr = { .landlock_abi = 7, .ns = -1 };
	char err[ERRLEN];

	(void)state;
	policy(&r, &p, insns, lim);
	options(&r, &o);
	assert_int_equal(plan_make(&p, &o, &pr, &pl, err, sizeof(err)), 0);
	assert_int_equal(pl.filter, FILTER_LLWATCH);
	assert_null(pl.llwatch_why);
	assert_int_equal(plan_ns_refused(&pl, &p, &o, "the kernel (EPERM)",
	    err, sizeof(err)), 0);
	assert_non_null(strstr(pl.llwatch_why, "needs the PID namespace"));
	r.ninsns = 1400;
	policy(&r, &p, insns, lim);
	assert_int_equal(plan_make(&p, &o, &pr, &pl, err, sizeof(err)), 0);
	assert_int_equal(pl.filter, FILTER_NOTIFY);
	assert_non_null(strstr(pl.llwatch_why, "too long for the watch's"));
	o.ll_watch = 0;
	assert_int_equal(plan_make(&p, &o, &pr, &pl, err, sizeof(err)), 0);
	assert_null(pl.llwatch_why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_ns_setup_refused),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_check_cgroup_env),
		cmocka_unit_test(test_request),
		cmocka_unit_test(test_ns_refused),
		cmocka_unit_test(test_credentials),
		cmocka_unit_test(test_llwatch_why),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
