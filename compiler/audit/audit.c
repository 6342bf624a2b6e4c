/*
 * audit.c - exposure score and capability matrix of one policy (see
 * audit.h).  Every factor is measured on the compiled policy: dangerous
 * syscalls by asking the seccomp program itself (the interpreter), paths
 * through Landlock's rule semantics.  auditfmt.c and sarif.c print.
 *
 * The score is the weighted sum of the factors, raised to a floor by the
 * high-risk grants: a default that allows, a dangerous syscall allowed
 * (ptrace, process_vm_*, ...: lintsys.c's list), network beyond named hosts
 * (unrestricted, a listening port, any host at a port), a
 * writable path outside $WORKDIR, a host secret readable, a path both
 * writable and executable, a secret-looking environment name kept.  Any
 * one of them is enough to escape the sandbox's intent, so one alone
 * makes the policy "exposed" (AUDIT_HIGH_FLOOR) and each further one
 * adds AUDIT_HIGH_STEP.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "audit.h"
#include "bpf.h"
#include "explain_fmt.h"
#include "landlock_compat.h"
#include "llrights.h"
#include "lint.h"
#include "pathq.h"
#include "reach.h"
#include "sysq.h"
#include "tables.h"

/* Thresholds, as in lint.c: beyond them a factor is fully exposed. */
#define AUDIT_DANGER_FULL 3.0    /* dangerous syscalls allowed */
#define AUDIT_WRITES_FULL 2.0    /* writable paths outside $WORKDIR */
#define AUDIT_READS_FULL 2.0     /* sensitive readable paths */
#define AUDIT_EXEC_FULL 4.0      /* executable rule paths */
#define AUDIT_LONG_TIMEOUT_MS (10ull * 60 * 1000)
#define AUDIT_HUGE_TIMEOUT_MS (60ull * 60 * 1000)
/* A session kept past a day holds its memory like a service. */
#define AUDIT_HUGE_SESSION_MS (24ull * 60 * 60 * 1000)
#define AUDIT_BIG_OUTPUT (64ull << 20)

enum {
	F_DEFAULT, F_DANGER, F_NETWORK, F_WRITES, F_READS, F_WX, F_EXEC,
	F_ENV, F_LIMITS, F_TIME, F_LAYERS,
};

/* high: a factor whose full exposure (1.0) is a high-risk grant. */
static const struct {
	const char *name;
	double weight;
	int high;
} factors[AUDIT_NFACTORS] = {
	[F_DEFAULT] = { "default action", 3.0, 1 },
	[F_DANGER] = { "dangerous syscalls", 1.5, 1 },
	[F_NETWORK] = { "network", 1.0, 1 },
	[F_WRITES] = { "writes outside $WORKDIR", 1.0, 1 },
	[F_READS] = { "sensitive reads", 1.0, 1 },
	[F_WX] = { "write+execute", 0.5, 1 },
	[F_EXEC] = { "executable paths", 0.25, 0 },
	[F_ENV] = { "secret-like environment", 0.75, 1 },
	[F_LIMITS] = { "resource limits", 0.5, 0 },
	[F_TIME] = { "timeout and output", 0.25, 0 },
	[F_LAYERS] = { "enforcement layers", 0.25, 0 },
};

static double cap1(double x)
{
	return x > 1.0 ? 1.0 : x;
}

/* Append ", item" (or "item") to a cell, "..." once it is full. */
static void cell_add(char *cell, const char *item)
{
	size_t used = strlen(cell), n = strlen(item) + 2;

	if (used + n + 4 >= AUDIT_CELL) {
		if (used + 4 < AUDIT_CELL && !strstr(cell, "..."))
			strcat(cell, ", ...");
		return;
	}
	if (used)
		strcat(cell, ", ");
	strcat(cell, item);
}

static void setf(struct audit_policy *a, int i, double x, const char *fmt,
    ...) __attribute__((format(printf, 4, 5)));

static void setf(struct audit_policy *a, int i, double x, const char *fmt,
    ...)
{
	va_list ap;

	a->f[i].exposure = cap1(x);
	va_start(ap, fmt);
	vsnprintf(a->f[i].detail, sizeof(a->f[i].detail), fmt, ap);
	va_end(ap);
}

/* Factor i is a high-risk grant in this policy when cond holds. */
static void mark(struct audit_policy *a, int i, int cond)
{
	a->f[i].high = factors[i].high && cond;
}

struct any_allow {
	const struct cpol *p;
	uint32_t nr;
};

static int allowed_at(const uint64_t args[6], void *ctx)
{
	const struct any_allow *w = ctx;

	return sysq_allows(sysq_run(w->p, w->nr, args));
}

/* Dangerous syscalls the filter lets run for some tried arguments. */
static void score_danger(struct audit_policy *a, const struct cpol *p)
{
	char act[48];
	const char *name;

	for (int nr = 0; nr <= tables_syscall_max(); nr++) {
		struct any_allow w = { p, (uint32_t)nr };
		struct sysq_space s;

		if (!(name = tables_syscall_name(nr)) ||
		    !lint_dangerous(name, NULL))
			continue;
		sysq_space_init(&s, p, NULL, (uint32_t)nr);
		if (!sysq_walk(&s, allowed_at, &w))
			continue;
		a->ndanger++;
		cell_add(a->danger, name);
	}
	setf(a, F_DEFAULT, sysq_allows(p->default_action), "%s",
	    bpf_action_str(p->default_action, act, sizeof(act)));
	cpol_action_name(p->default_action, a->f[F_DEFAULT].human,
	    sizeof(a->f[F_DEFAULT].human));
	setf(a, F_DANGER, a->ndanger / AUDIT_DANGER_FULL, "%u allowed%s%s",
	    a->ndanger, a->ndanger ? ": " : "", a->danger);
	mark(a, F_DEFAULT, sysq_allows(p->default_action));
	mark(a, F_DANGER, a->ndanger > 0);
	if (!a->ndanger)
		strcpy(a->danger, "none");
}

/* Named hosts: the hosts and ports the proxy reaches, not the proxy's
 * own port (the one TCP rule to it, in the run's namespace). */
static void host_cells(struct audit_policy *a, const struct cpol *p)
{
	char item[CPOL_MAX_HOSTNAME + 2 * CPOL_MAX_STR + 64];
	size_t n;

	for (uint32_t i = 0; i < p->nhosts; i++) {
		reach_format(p->hosts[i].host, p->hosts[i].port, item,
		    sizeof(item));
		if (p->hosts[i].flags & CPOL_HOST_PRIVATE) {
			n = strlen(item);
			snprintf(item + n, sizeof(item) - n, " private, %s",
			    cpol_host_special(p->hosts[i].host));
		}
		for (uint32_t j = 0; j < p->nhttp; j++) {
			const struct cpol_http *h = &p->http[j];

			if (h->port != p->hosts[i].port ||
			    strcmp(h->host, p->hosts[i].host) != 0)
				continue;
			n = strlen(item);
			snprintf(item + n, sizeof(item) - n, " (%s%s%s%s)",
			    *h->credential ? "credential " : "",
			    h->credential, *h->credential ? "; " : "",
			    h->nrules ? "http rules" : "any request");
		}
		cell_add(a->network, item);
	}
}

static void score_network(struct audit_policy *a, const struct cpol *p)
{
	int hosts = !!(p->flags & CPOL_F_NET_HOSTS), bind = 0;
	char port[16];

	if (!(p->flags & (CPOL_F_NET_OFF | CPOL_F_NET_TCP))) {
		strcpy(a->network, "unrestricted");
		setf(a, F_NETWORK, 1, "unrestricted");
		mark(a, F_NETWORK, 1);
		return;
	}
	if (p->flags & CPOL_F_NET_OFF) {
		strcpy(a->network, "off");
		setf(a, F_NETWORK, 0, "off");
		return;
	}
	if (hosts)
		host_cells(a, p);
	for (uint32_t i = 0; i < p->nnet; i++) {
		bind |= p->net[i].kind == CPOL_NET_BIND;
		if (hosts && p->net[i].kind == CPOL_NET_CONNECT)
			continue;
		snprintf(port, sizeof(port), "%s %u", p->net[i].kind ==
		    CPOL_NET_BIND ? "bind" : "tcp", (unsigned int)p->net[i].port);
		cell_add(a->network, port);
	}
	if (!a->network[0])
		strcpy(a->network, "tcp, no port");
	setf(a, F_NETWORK, bind ? 1.0 : 0.5, "%s %s: %s%s", hosts ?
	    "named hosts" : "TCP", bind ? "connect and listen" : "connect",
	    a->network, hosts ? " (by cordon's proxy)" : " (any host)");
	/* Beyond a tool's need: listening, or any host at a port. */
	mark(a, F_NETWORK, bind || !hosts);
}

/* Writing a device node (write-file alone, under /dev/: a GPU, a
 * terminal) is I/O to a device, not a change to host files: counted in
 * the factor, not a high-risk grant. */
static int device_io(const char *path, uint64_t acc)
{
	return strncmp(path, "/dev/", 5) == 0 &&
	    (acc & CPOL_LL_MODIFY) == CORDON_LL_FS_WRITE_FILE;
}

static void score_paths(struct audit_policy *a, const struct cpol *p)
{
	unsigned int nout = 0, nsens = 0, nwx = 0, nhost = 0;
	char out[AUDIT_CELL] = "", sens[AUDIT_CELL] = "", wx[AUDIT_CELL] = "";

	for (uint32_t i = 0; i < p->nfs; i++) {
		const char *path = p->fs[i].path;
		uint64_t acc = p->fs[i].access, eff = pathq_rights(p, path);

		if (acc & CPOL_LL_MODIFY) {
			a->nwrites++;
			cell_add(a->writes, path);
			if (!pathq_write_ok(p, path) && ++nout)
				cell_add(out, path);
			nhost += !pathq_write_ok(p, path) &&
			    !device_io(path, acc);
		}
		if (acc & CORDON_LL_FS_EXECUTE) {
			a->nexec++;
			cell_add(a->exec, path);
		}
		if ((acc & (CORDON_LL_FS_READ_FILE | CORDON_LL_FS_READ_DIR)) &&
		    pathq_sensitive(path) && ++nsens)
			cell_add(sens, path);
		if ((eff & CORDON_LL_FS_EXECUTE) && (eff &
		    (CORDON_LL_FS_WRITE_FILE | CORDON_LL_FS_MAKE_REG)) && ++nwx)
			cell_add(wx, path);
	}
	if (!a->nwrites)
		strcpy(a->writes, "none");
	if (!a->nexec)
		strcpy(a->exec, "none");
	setf(a, F_WRITES, nout / AUDIT_WRITES_FULL, "%u%s%s", nout,
	    nout ? ": " : "", out);
	setf(a, F_READS, nsens / AUDIT_READS_FULL, "%u%s%s", nsens,
	    nsens ? ": " : "", sens);
	setf(a, F_WX, nwx ? 1 : 0, "%u%s%s", nwx, nwx ? ": " : "", wx);
	setf(a, F_EXEC, a->nexec / AUDIT_EXEC_FULL, "%u: %s", a->nexec,
	    a->exec);
	mark(a, F_WRITES, nhost > 0);
	mark(a, F_READS, nsens > 0);
	mark(a, F_WX, nwx > 0);
}

static void score_env(struct audit_policy *a, const struct cpol *p)
{
	char names[AUDIT_CELL] = "";
	unsigned int n = 0;

	for (uint32_t i = 0; i < p->nenv; i++)
		if (lint_secret_word(p->env[i].name) && ++n)
			cell_add(names, p->env[i].name);
	setf(a, F_ENV, n ? 1 : 0, "%s", n ? names : "none");
	mark(a, F_ENV, n > 0);
}

static uint64_t limit_of(const struct cpol *p, unsigned int res)
{
	for (uint32_t i = 0; i < p->nlimits; i++)
		if (p->limits[i].resource == res)
			return p->limits[i].value;
	return CPOL_RLIM_INFINITY;
}

static void score_limits(struct audit_policy *a, const struct cpol *p)
{
	static const unsigned int want[] = { CPOL_RLIM_NPROC, CPOL_RLIM_FSIZE };
	char miss[AUDIT_CELL] = "", item[64], v[32];
	unsigned int n = 0;

	for (uint32_t i = 0; i < p->nlimits; i++) {
		const char *name = cpol_rlim_name(p->limits[i].resource);

		if (p->limits[i].value == CPOL_RLIM_INFINITY)
			snprintf(item, sizeof(item), "%s=unlimited", name);
		else
			snprintf(item, sizeof(item), "%s=%llu", name,
			    (unsigned long long)p->limits[i].value);
		cell_add(a->limits, item);
		snprintf(item, sizeof(item), "%s=%s", name,
		    explain_limit(&p->limits[i], v, sizeof(v)));
		cell_add(a->limits_h, item);
	}
	if (limit_of(p, CPOL_RLIM_AS) == CPOL_RLIM_INFINITY &&
	    limit_of(p, CPOL_RLIM_DATA) == CPOL_RLIM_INFINITY && ++n)
		cell_add(miss, "memory");
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (limit_of(p, want[i]) == CPOL_RLIM_INFINITY && ++n)
			cell_add(miss, cpol_rlim_name(want[i]));
	if (!a->limits[0]) {
		strcpy(a->limits, "none");
		strcpy(a->limits_h, "none");
	}
	setf(a, F_LIMITS, n / 3.0, "missing: %s", n ? miss : "none");
}

static void score_time(struct audit_policy *a, const struct cpol *p)
{
	char t[32], o[32], s[32];
	double x = 0;

	if (p->timeout_ms == 0 || p->timeout_ms > AUDIT_HUGE_TIMEOUT_MS)
		x += 0.5;
	else if (p->timeout_ms > AUDIT_LONG_TIMEOUT_MS)
		x += 0.25;
	if (p->output_cap == 0 || p->output_cap > AUDIT_BIG_OUTPUT)
		x += 0.5;
	if (cpol_session_ms(p) > AUDIT_HUGE_SESSION_MS)
		x += 0.25;
	setf(a, F_TIME, x > 1 ? 1 : x, "timeout %llu ms, output %llu bytes, "
	    "session %llu ms", (unsigned long long)p->timeout_ms,
	    (unsigned long long)p->output_cap,
	    (unsigned long long)cpol_session_ms(p));
	snprintf(a->f[F_TIME].human, sizeof(a->f[F_TIME].human),
	    "timeout %s, output %s, session %s", p->timeout_ms ?
	    explain_ms(p->timeout_ms, t, sizeof(t)) : "none", p->output_cap ?
	    explain_size(p->output_cap, o, sizeof(o)) : "none",
	    explain_ms(cpol_session_ms(p), s, sizeof(s)));
}

static void score_layers(struct audit_policy *a, const struct cpol *p)
{
	double x = 0;

	if (p->flags & CPOL_F_BEST_EFFORT_LANDLOCK)
		x = 1;
	else if (p->landlock_abi_min < 6)
		x = 0.5;
	else if (p->flags & CPOL_F_BEST_EFFORT_NS)
		x = 0.25;
	setf(a, F_LAYERS, x, "landlock >= %u%s%s", (unsigned int)
	    p->landlock_abi_min, p->flags & CPOL_F_BEST_EFFORT_LANDLOCK ?
	    ", best-effort" : "", p->flags & CPOL_F_BEST_EFFORT_NS ?
	    ", private tmp best-effort" : "");
}

/* The weighted sum, raised to the high-risk floor. */
double audit_high_floor(unsigned int n)
{
	return n ? AUDIT_HIGH_FLOOR + AUDIT_HIGH_STEP * (n - 1) : 0.0;
}

static void audit_total(struct audit_policy *a)
{
	double low;

	for (int i = 0; i < AUDIT_NFACTORS; i++) {
		a->sum += a->f[i].weight * a->f[i].exposure;
		a->nhigh += (unsigned int)a->f[i].high;
	}
	low = audit_high_floor(a->nhigh);
	a->score = a->sum > low ? a->sum : low;
	if (a->score > 10.0)
		a->score = 10.0;
}

int audit_policy(const struct input *in, struct audit_policy *a)
{
	const struct cpol *p = &in->pol;

	memset(a, 0, sizeof(*a));
	a->in = in;
	for (int i = 0; i < AUDIT_NFACTORS; i++) {
		a->f[i].name = factors[i].name;
		a->f[i].weight = factors[i].weight;
	}
	score_danger(a, p);
	score_network(a, p);
	score_paths(a, p);
	score_env(a, p);
	score_limits(a, p);
	score_time(a, p);
	score_layers(a, p);
	audit_total(a);
	return lint_run(in, &a->findings);
}

void audit_policy_free(struct audit_policy *a)
{
	finding_list_free(&a->findings);
}

const char *audit_rating(double score)
{
	if (score < 2.0)
		return "ok";
	if (score < 4.0)
		return "medium";
	if (score < 7.0)
		return "exposed";
	return "unsafe";
}
