/*
 * plansay.c - cordon --check: the run's plan (plan.c), each decision with
 * its reason, as text or (--json) one JSON object on one line.  The plan
 * is the one a run would carry out; memory and pids are held by a cgroup
 * only if one can be made at the run (root on cgroup v1, or --cgroup),
 * which --check does not try.
 */
#include <sched.h>
#include <stdio.h>

#include "jsonesc.h"
#include "plan.h"

static const char *const ns_name[PLAN_NS_N] = { "user", "pid", "net",
    "mnt" };
static const unsigned long ns_flag[PLAN_NS_N] = { CLONE_NEWUSER,
    CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWNS };
static const char *const filter_name[] = { "blob", "notify", "learn",
	"llwatch" };

static const char *probed(const struct probe *pr, const struct run_plan *pl)
{
	if (!pl->ns_flags && pr->ns != 0)
		return "not used";
	return pr->ns < 0 ? "not asked" : pr->ns ? "available" : pr->ns_why;
}

/* Why a bound is held so, or "" (disk and files: the plan's reason;
 * memory and pids: why no controller, where there is none). */
static const char *bound_why(const struct run_plan *pl, int i)
{
	if (pl->limit[i] == UINT64_MAX)
		return "";
	return i >= B_DISK ? pl->disk_why : pl->why[i];
}

/* A bound's planned holder: disk and files are decided; memory and pids
 * as the probe foresees the cgroup (plan_held), or, not asked, waiting
 * for it. */
static const char *holder(const struct run_plan *pl, int i)
{
	if (pl->limit[i] == UINT64_MAX)
		return "none";
	if (i <= B_PIDS && (pl->by[i] != BY_NONE || pl->why[i][0]))
		return status_bound_by(pl->by[i]);
	if (i == B_MEMORY)
		return "cgroup, else rlimit-per-process";
	if (i == B_PIDS)
		return pl->root ? "cgroup, else none (RLIMIT_NPROC does not "
		    "bind root)" : "cgroup, else rlimit";
	return status_bound_by(pl->by[i]);
}

static const char *rlim_name(int resource)
{
	unsigned int r;

	for (r = 1; r <= CPOL_RLIM_KERNEL_MAX; r++)
		if (cpol_rlim_kernel(r) == resource)
			return cpol_rlim_name(r);
	return "?";
}

static void text_bounds(const struct run_plan *pl)
{
	static const char *const name[NBOUNDS] = { "memory", "pids", "disk",
	    "files" };
	int i;

	printf("bounds:\n");
	for (i = 0; i < NBOUNDS; i++) {
		if (pl->limit[i] == UINT64_MAX) {
			printf("  %s: none\n", name[i]);
			continue;
		}
		printf("  %s: %llu by %s%s%s\n", name[i],
		    (unsigned long long)pl->limit[i], holder(pl, i),
		    bound_why(pl, i)[0] ? ": " : "", bound_why(pl, i));
	}
	printf("rlimits:");
	for (i = 0; i < pl->nrlim; i++)
		if (pl->rlim[i].value == UINT64_MAX)
			printf(" %s=unlimited", rlim_name(pl->rlim[i].resource));
		else
			printf(" %s=%llu", rlim_name(pl->rlim[i].resource),
			    (unsigned long long)pl->rlim[i].value);
	printf("%s\n", pl->nrlim ? "" : " none");
}

/* The command and its environment: the policy's words ($WORKDIR and
 * $SNIPPET as written), the caller's arguments, the variables set or
 * kept, and what cordon adds (plan_env). */
static void text_command(const struct cpol *p, const struct run_plan *pl)
{
	uint32_t i;

	printf("command:");
	for (i = 0; i < p->nargv; i++)
		printf(" %s", p->argv[i]);
	printf(" (+%d argument%s from the caller)\nenvironment:", pl->nargs,
	    pl->nargs == 1 ? "" : "s");
	for (i = 0; i < p->nenv; i++)
		printf(" %s%s", p->env[i].name, p->env[i].kind ==
		    CPOL_ENV_KEEP ? " (kept)" : "");
	printf("%s; cordon adds %s\n", p->nenv ? "" : " none",
	    pl->env_why);
}

static void text(const struct cpol *p, const struct run_plan *pl,
    const struct probe *pr)
{
	const struct layers *l = &pl->layers;
	uint32_t i;
	int j;

	printf("policy %s: %s\nblob sha256 ", p->name, p->description);
	for (j = 0; j < 32; j++)
		printf("%02x", p->blob_digest[j]);
	printf("\nlandlock: ABI %d (policy minimum %u%s), errata 0x%x%s\n",
	    l->landlock_abi, p->landlock_abi_min, p->flags &
	    CPOL_F_BEST_EFFORT_LANDLOCK ? ", best effort" : "",
	    l->landlock_errata, pl->learn ? "; none: --observe" : "");
	printf("landlock fs: %s, %u path rules\n", l->landlock_fs ? "yes" :
	    "NO", p->nfs);
	printf("landlock net: %s, network %s", l->landlock_net ? "yes" : "NO",
	    p->flags & CPOL_F_NET_OFF ? "off" : "tcp");
	for (i = 0; i < p->nnet; i++)
		printf(" %s %u", p->net[i].kind == CPOL_NET_BIND ? "bind" :
		    "connect", p->net[i].port);
	printf("\nscopes: abstract unix %s, signal %s\n",
	    l->scope_abstract_unix ? "yes" : "NO",
	    l->scope_signal ? "yes" : "NO");
	printf("seccomp: %u instructions, the %s program: %s\n", p->ninsns,
	    filter_name[pl->filter], pl->filter_why);
	if (pl->llwatch_why)
		printf("landlock watch: off: %s\n", pl->llwatch_why);
	printf("namespaces: %s\n", probed(pr, pl));
	for (j = 0; j < PLAN_NS_N; j++)
		printf("  %s: %s: %s\n", ns_name[j], pl->ns_flags & ns_flag[j] ?
		    "yes" : "no", pl->ns_why[j]);
	printf("  required: %s\n", pl->ns_required[0] ? pl->ns_required :
	    "no (without them the run goes on, degraded)");
	text_bounds(pl);
	text_command(p, pl);
	printf("egress proxy: %s: %s\n", pl->egress ? "on" : "off",
	    pl->egress_why);
	printf("timeout: %llu ms\noutput: ", (unsigned long long)pl->timeout_ms);
	if (pl->output_cap == UINT64_MAX)
		printf("no cap\n");
	else
		printf("%llu bytes, then %s\n", (unsigned long long)
		    pl->output_cap, pl->truncate ? "dropped" : "the run ends");
	printf("no_new_privs, capabilities dropped, environment from nothing, "
	    "descriptors closed, new session: yes\n");
}

static void put(void *ctx, const char *s, size_t n)
{
	fwrite(s, 1, n, ctx);
}

/* "key":"escaped value" (null for NULL), after sep. */
/* "key":"v" (null for NULL), or without a key an array's "v". */
static void jstr(const char *sep, const char *key, const char *v)
{
	printf("%s", sep);
	if (key)
		printf("\"%s\":", key);
	if (!v) {
		printf("null");
		return;
	}
	putchar('"');
	json_escape(v, put, stdout);
	putchar('"');
}

static void jnum(const char *sep, const char *key, uint64_t v)
{
	if (v == UINT64_MAX)
		printf("%s\"%s\":null", sep, key);
	else
		printf("%s\"%s\":%llu", sep, key, (unsigned long long)v);
}

static void json_bounds(const struct run_plan *pl)
{
	static const char *const name[NBOUNDS] = { "memory", "pids", "disk",
	    "files" };
	int i;

	printf(",\"bounds\":{");
	for (i = 0; i < NBOUNDS; i++) {
		printf("%s\"%s\":{", i ? "," : "", name[i]);
		jnum("", "limit", pl->limit[i]);
		jstr(",", "by", holder(pl, i));
		jstr(",", "why", bound_why(pl, i)[0] ? bound_why(pl, i) :
		    NULL);
		putchar('}');
	}
	printf("},\"rlimits\":{");
	for (i = 0; i < pl->nrlim; i++)
		jnum(i ? "," : "", rlim_name(pl->rlim[i].resource),
		    pl->rlim[i].value);
	putchar('}');
}

static void json_command(const struct cpol *p, const struct run_plan *pl)
{
	uint32_t i;

	printf(",\"command\":{\"argv\":[");
	for (i = 0; i < p->nargv; i++)
		jstr(i ? "," : "", NULL, p->argv[i]);
	printf("],\"caller_args\":%d,\"environment\":[", pl->nargs);
	for (i = 0; i < p->nenv; i++) {
		jstr(i ? ",{" : "{", "name", p->env[i].name);
		printf(",\"kept\":%s}", p->env[i].kind == CPOL_ENV_KEEP ?
		    "true" : "false");
	}
	printf("],\"proxy_env\":%s,\"ca_env\":%s", pl->env_proxy ? "true" :
	    "false", pl->env_ca ? "true" : "false");
	jstr(",", "why", pl->env_why);
	putchar('}');
}

static void json(const struct cpol *p, const struct run_plan *pl,
    const struct probe *pr)
{
	char hex[65];
	int j;

	for (j = 0; j < 32; j++)
		snprintf(hex + 2 * j, 3, "%02x", p->blob_digest[j]);
	jstr("{", "policy", p->name);
	jstr(",", "blob", hex);
	printf(",\"landlock\":{\"abi\":%d,\"errata\":%d,\"minimum\":%u,"
	    "\"best_effort\":%s,\"ruleset\":%s}", pl->layers.landlock_abi,
	    pl->layers.landlock_errata, p->landlock_abi_min, p->flags &
	    CPOL_F_BEST_EFFORT_LANDLOCK ? "true" : "false", pl->landlock ?
	    "true" : "false");
	jstr(",\"namespaces\":{", "kernel", probed(pr, pl));
	for (j = 0; j < PLAN_NS_N; j++) {
		printf(",\"%s\":{\"wanted\":%s", ns_name[j], pl->ns_flags &
		    ns_flag[j] ? "true" : "false");
		jstr(",", "why", pl->ns_why[j]);
		putchar('}');
	}
	jstr(",", "required", pl->ns_required[0] ? pl->ns_required : NULL);
	putchar('}');
	json_bounds(pl);
	jstr(",\"seccomp\":{", "program", filter_name[pl->filter]);
	printf(",\"instructions\":%u", p->ninsns);
	jstr(",", "why", pl->filter_why);
	putchar('}');
	json_command(p, pl);
	printf(",\"egress\":{\"on\":%s", pl->egress ? "true" : "false");
	jstr(",", "why", pl->egress_why);
	putchar('}');
	jnum(",", "timeout_ms", pl->timeout_ms);
	jnum(",", "output_cap", pl->output_cap);
	printf(",\"output_truncate\":%s}\n", pl->truncate ? "true" : "false");
}

int plan_say(const struct cpol *p, const struct run_plan *pl,
    const struct probe *pr, int as_json)
{
	if (as_json)
		json(p, pl, pr);
	else
		text(p, pl, pr);
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : -1;
}
