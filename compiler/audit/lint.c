/*
 * lint.c - the lint rules (see lint.h): the table, the rules on paths,
 * environment, network, limits and layers, suppressions, and lint_run.
 * Each check reads the compiled policy and reports at the statement that
 * caused the finding: syscall rules carry their origin "file:line";
 * other statements are located through input_where().  The rules on the
 * syscall filter are in lintsys.c, those on credentials in linthttp.c;
 * auditcmd.c has the command line.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "landlock_compat.h"
#include "llrights.h"
#include "lint.h"
#include "pathq.h"

/* More connect ports than this is "network on" in all but name. */
#define LINT_MAX_PORTS 8
/* A wall-clock timeout longer than this is no limit for a tool call. */
#define LINT_MAX_TIMEOUT_MS (60ull * 60 * 1000)
/* A session that outlives a working day is a service, not a tool call. */
#define LINT_MAX_SESSION_MS (24ull * 60 * 60 * 1000)

static const struct lint_rule rules[] = {
	{ "CL000", "suppression", FINDING_ERROR,
	  "lint suppression comment without a reason, or naming no rule" },
	{ "CL001", "dangerous-syscall", FINDING_ERROR,
	  "a dangerous syscall is allowed" },
	{ "CL002", "unconditioned-syscall", FINDING_WARNING,
	  "a syscall that needs argument conditions is allowed without them" },
	{ "CL003", "default-allow", FINDING_ERROR,
	  "the default action allows every syscall not named" },
	{ "CL004", "write-exec", FINDING_ERROR,
	  "a path is both writable and executable" },
	{ "CL005", "write-outside-workdir", FINDING_WARNING,
	  "a path outside $WORKDIR is writable" },
	{ "CL006", "sensitive-read", FINDING_ERROR,
	  "a sensitive path is readable (/, /home, /root, /etc, /proc, /run, "
	  "docker.sock, credentials)" },
	{ "CL007", "secret-env", FINDING_ERROR,
	  "an environment variable that looks like a secret is kept or set" },
	{ "CL008", "network-wide", FINDING_WARNING,
	  "network access without tight port limits" },
	{ "CL009", "timeout", FINDING_WARNING,
	  "no timeout, or a timeout longer than an hour" },
	{ "CL010", "limits", FINDING_WARNING,
	  "no memory, process or file-size limit, or no output cap" },
	{ "CL011", "best-effort", FINDING_WARNING,
	  "a layer may be skipped at run time (best-effort)" },
	{ "CL012", "landlock-abi", FINDING_WARNING,
	  "minimum Landlock ABI below 6: no abstract-socket or signal scoping" },
	{ "CL013", "run-bounds", FINDING_WARNING,
	  "no whole-run bound on memory, processes, disk or inodes, or one "
	  "whose rlimit fallback is far above it" },
	{ "CL014", "loader-exec", FINDING_ERROR,
	  "executable file mappings are refused: the dynamic loader cannot "
	  "map shared libraries (Python's extension modules, libm)" },
	{ "CL015", "terminal-ioctl", FINDING_ERROR,
	  "an ioctl request the base refuses on purpose is allowed (TIOCSTI "
	  "injects terminal input, TIOCLINUX drives the console)" },
	{ "CL016", "credential-any-request", FINDING_WARNING,
	  "a credential is added to any request to its host (no http rules)" },
	{ "CL017", "credential-plain", FINDING_ERROR,
	  "a credential goes to a plain http:// host, readable on the path" },
	{ "CL018", "wildcard-over-http-rules", FINDING_ERROR,
	  "a wildcard host reaches a host with http rules: a sibling name "
	  "resolving to its server tunnels around them" },
	{ "CL019", "private-address", FINDING_WARNING,
	  "a loopback, private, link-local or metadata address literal is "
	  "allowed (\"private\")" },
	{ "CL020", "session", FINDING_WARNING,
	  "a session longer than a day, or one without a whole-run memory "
	  "bound (limit memory) to hold it for its hours" },
};
#define NRULES (sizeof(rules) / sizeof(rules[0]))

const struct lint_rule *lint_rules(unsigned int *n)
{
	*n = NRULES;
	return rules;
}

#define EXEC_BAD (CORDON_LL_FS_WRITE_FILE | CORDON_LL_FS_MAKE_REG | \
	CORDON_LL_FS_MAKE_SYM | CORDON_LL_FS_REFER)

/* CL004: execute together with a right that puts new bytes there. */
static int check_write_exec(const struct input *in, struct finding_list *out)
{
	const struct cpol *p = &in->pol;

	for (uint32_t i = 0; i < p->nfs; i++) {
		const char *path = p->fs[i].path, *file;
		uint64_t r = pathq_rights(p, path);
		unsigned int line;
		int dup = 0;

		if (!(r & CORDON_LL_FS_EXECUTE) || !(r & EXEC_BAD))
			continue;
		for (uint32_t j = 0; j < p->nfs && !dup; j++) {
			uint64_t q = pathq_rights(p, p->fs[j].path);

			dup = j != i && strcmp(p->fs[j].path, path) != 0 &&
			    pathq_covers(p->fs[j].path, path) &&
			    (q & CORDON_LL_FS_EXECUTE) && (q & EXEC_BAD);
		}
		if (dup)
			continue;
		file = input_where(in, INPUT_PATH, path, &line);
		if (finding_add(out, "CL004", FINDING_ERROR, file, line,
		    "%s is writable and executable: code written there can "
		    "be run", path) < 0)
			return -1;
	}
	return 0;
}

/* CL005: modifying rights outside the working directory. */
static int check_writes(const struct input *in, struct finding_list *out)
{
	const struct cpol *p = &in->pol;

	for (uint32_t i = 0; i < p->nfs; i++) {
		const char *path = p->fs[i].path, *file;
		uint64_t m = p->fs[i].access & CPOL_LL_MODIFY;
		unsigned int line;
		char buf[256];

		if (!m || pathq_write_ok(p, path))
			continue;
		pathq_format(m, buf, sizeof(buf));
		file = input_where(in, INPUT_PATH, path, &line);
		if (finding_add(out, "CL005", FINDING_WARNING, file, line,
		    "%s is outside $WORKDIR and grants %s", path, buf) < 0)
			return -1;
	}
	return 0;
}

/* CL006: read rights on a sensitive path or an ancestor of one. */
static int check_reads(const struct input *in, struct finding_list *out)
{
	const struct cpol *p = &in->pol;
	uint64_t rd = CORDON_LL_FS_READ_FILE | CORDON_LL_FS_READ_DIR;

	for (uint32_t i = 0; i < p->nfs; i++) {
		const char *path = p->fs[i].path, *hit, *file;
		unsigned int line;
		int r;

		if (!(p->fs[i].access & rd) || !(hit = pathq_sensitive(path)))
			continue;
		file = input_where(in, INPUT_PATH, path, &line);
		if (strcmp(hit, path) == 0)
			r = finding_add(out, "CL006", FINDING_ERROR, file,
			    line, "%s is readable as a whole", path);
		else
			r = finding_add(out, "CL006", FINDING_ERROR, file,
			    line, "%s is readable, which includes %s", path,
			    hit);
		if (r < 0)
			return -1;
	}
	return 0;
}

static const char *const secret_words[] = {
	"KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH",
	"PRIVATE", "SESSION", "COOKIE",
};

const char *lint_secret_word(const char *name)
{
	for (size_t i = 0; i < sizeof(secret_words) / sizeof(secret_words[0]);
	    i++)
		if (strcasestr(name, secret_words[i]))
			return secret_words[i];
	return NULL;
}

/* CL007: environment names that look like credentials. */
static int check_env(const struct input *in, struct finding_list *out)
{
	const struct cpol *p = &in->pol;

	for (uint32_t i = 0; i < p->nenv; i++) {
		const char *w = lint_secret_word(p->env[i].name), *file;
		unsigned int line;

		if (!w)
			continue;
		file = input_where(in, INPUT_ENV, p->env[i].name, &line);
		if (finding_add(out, "CL007", FINDING_ERROR, file, line,
		    "environment variable %s (%s) looks like a secret and is "
		    "%s", p->env[i].name, w, p->env[i].kind == CPOL_ENV_KEEP ?
		    "passed to the snippet" : "set for the snippet") < 0)
			return -1;
	}
	return 0;
}

/* CL008: network wider than a few outgoing TCP ports. */
static int check_net(const struct input *in, struct finding_list *out)
{
	const struct cpol *p = &in->pol;
	unsigned int line, nconnect = 0;
	const char *file = input_where(in, INPUT_NETWORK, NULL, &line);

	if (!(p->flags & (CPOL_F_NET_OFF | CPOL_F_NET_TCP)))
		return finding_add(out, "CL008", FINDING_ERROR, file, line,
		    "network is not restricted");
	if (!(p->flags & CPOL_F_NET_TCP))
		return 0;
	for (uint32_t i = 0; i < p->nnet; i++) {
		if (p->net[i].kind == CPOL_NET_CONNECT) {
			nconnect++;
			continue;
		}
		if (finding_add(out, "CL008", FINDING_WARNING, file, line,
		    "the snippet may listen on TCP port %u",
		    (unsigned int)p->net[i].port) < 0)
			return -1;
	}
	if (nconnect > LINT_MAX_PORTS)
		return finding_add(out, "CL008", FINDING_WARNING, file, line,
		    "TCP connect is allowed to %u ports (more than %u)",
		    nconnect, LINT_MAX_PORTS);
	return 0;
}

static int has_stmt(const struct input *in, int kind)
{
	for (unsigned int i = 0; i < in->map.nstmts; i++)
		if (in->map.stmts[i].kind == kind)
			return 1;
	return 0;
}

static int limited(const struct cpol *p, unsigned int res)
{
	for (uint32_t i = 0; i < p->nlimits; i++)
		if (p->limits[i].resource == res)
			return p->limits[i].value != CPOL_RLIM_INFINITY;
	return 0;
}

/* CL009, CL010: timeout, rlimits and output cap. */
static int check_limits(const struct input *in, struct finding_list *out)
{
	const struct cpol *p = &in->pol;
	unsigned int line;
	const char *file = input_where(in, INPUT_TIMEOUT, NULL, &line);
	char miss[128] = "";

	if (in->is_source && !has_stmt(in, INPUT_TIMEOUT)) {
		if (finding_add(out, "CL009", FINDING_WARNING, file, line,
		    "no timeout statement: the compiler's default applies") < 0)
			return -1;
	} else if (p->timeout_ms > LINT_MAX_TIMEOUT_MS &&
	    finding_add(out, "CL009", FINDING_WARNING, file, line,
	    "timeout of %llu s is longer than an hour",
	    (unsigned long long)(p->timeout_ms / 1000)) < 0)
		return -1;
	if (!limited(p, CPOL_RLIM_AS) && !limited(p, CPOL_RLIM_DATA))
		strcat(miss, " memory (as or data)");
	if (!limited(p, CPOL_RLIM_NPROC))
		strcat(miss, " nproc");
	if (!limited(p, CPOL_RLIM_FSIZE))
		strcat(miss, " fsize");
	if (p->output_cap == 0 || p->output_cap == UINT64_MAX)
		strcat(miss, " output");
	if (!miss[0])
		return 0;
	file = input_where(in, INPUT_LIMIT, NULL, &line);
	return finding_add(out, "CL010", FINDING_WARNING, file, line,
	    "no limit on:%s", miss);
}

static uint64_t limit_of(const struct cpol *p, unsigned int res)
{
	for (uint32_t i = 0; i < p->nlimits; i++)
		if (p->limits[i].resource == res)
			return p->limits[i].value;
	return CPOL_RLIM_INFINITY;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* CL013: the whole-run bounds, and what holds memory without a cgroup:
 * each process's address space (or data) capped at "limit memory", times
 * the process count. */
static int check_run_bounds(const struct input *in, struct finding_list *out)
{
	static const unsigned int res[] = { CPOL_RLIM_MEMORY, CPOL_RLIM_PIDS,
	    CPOL_RLIM_DISK, CPOL_RLIM_FILES };
	const struct cpol *p = &in->pol;
	uint64_t mem = limit_of(p, CPOL_RLIM_MEMORY), each, n;
	const char *file;
	char miss[64] = "";
	unsigned int line;
	size_t i;

	file = input_where(in, INPUT_LIMIT, NULL, &line);
	for (i = 0; i < sizeof(res) / sizeof(res[0]); i++)
		if (limit_of(p, res[i]) == CPOL_RLIM_INFINITY) {
			strcat(miss, " ");
			strcat(miss, cpol_rlim_name(res[i]));
		}
	if (miss[0] && finding_add(out, "CL013", FINDING_WARNING, file, line,
	    "no whole-run limit on:%s (per-process rlimits bound each "
	    "process, not the run)", miss) < 0)
		return -1;
	if (mem == CPOL_RLIM_INFINITY || (p->flags & CPOL_F_REQUIRE_MEMORY))
		return 0;
	each = min64(mem, min64(limit_of(p, CPOL_RLIM_AS),
	    limit_of(p, CPOL_RLIM_DATA)));
	n = min64(limit_of(p, CPOL_RLIM_PIDS), limit_of(p, CPOL_RLIM_NPROC));
	file = input_where(in, INPUT_LIMIT, "pids", &line);
	if (n == CPOL_RLIM_INFINITY || each > UINT64_MAX / n ||
	    each * n > 4 * mem)
		return finding_add(out, "CL013", FINDING_NOTE, file, line,
		    "without a memory controller (unprivileged, no delegated "
		    "cgroup) limit memory falls back to per-process rlimits: "
		    "up to %s; 'limit memory required;' refuses such runs",
		    n == CPOL_RLIM_INFINITY || each > UINT64_MAX / n ?
		    "unbounded" : "pids x memory");
	return 0;
}

/* CL011, CL012: layers that may be missing at run time. */
static int check_layers(const struct input *in, struct finding_list *out)
{
	const struct cpol *p = &in->pol;
	unsigned int line;
	const char *file = input_where(in, INPUT_BEST_EFFORT, NULL, &line);

	if ((p->flags & CPOL_F_BEST_EFFORT_LANDLOCK) &&
	    finding_add(out, "CL011", FINDING_WARNING, file, line,
	    "best-effort landlock: runs below Landlock ABI %u with fewer "
	    "restrictions", (unsigned int)p->landlock_abi_min) < 0)
		return -1;
	if ((p->flags & CPOL_F_BEST_EFFORT_NS) &&
	    finding_add(out, "CL011", FINDING_NOTE, file, line,
	    "private /tmp or /dev/shm may be missing at run time") < 0)
		return -1;
	if (p->landlock_abi_min >= 6)
		return 0;
	file = input_where(in, INPUT_LANDLOCK, NULL, &line);
	return finding_add(out, "CL012", FINDING_WARNING, file, line,
	    "landlock %u: abstract unix sockets and signals are not scoped "
	    "(needs 6)", (unsigned int)p->landlock_abi_min);
}

static const struct lint_rule *rule_by_id(const char *id)
{
	for (size_t i = 0; i < NRULES; i++)
		if (strcmp(rules[i].id, id) == 0)
			return &rules[i];
	return NULL;
}

static int same_file(const char *a, const char *b)
{
	char *ra, *rb;
	int same;

	if (strcmp(a, b) == 0)
		return 1;
	ra = realpath(a, NULL);
	rb = realpath(b, NULL);
	same = ra && rb && strcmp(ra, rb) == 0;
	free(ra);
	free(rb);
	return same;
}

/* A suppression applies to a finding on its own line or the next one. */
static int applies(const struct input_suppress *s, const struct finding *x)
{
	return strcmp(s->id, x->id) == 0 && x->line &&
	    (s->line == x->line || s->line + 1 == x->line) &&
	    same_file(s->file, x->file);
}

/* Mark suppressed findings; report bad or unused suppressions (CL000). */
static int suppress(const struct input *in, struct finding_list *out)
{
	unsigned int nfound = out->n;

	for (unsigned int i = 0; i < in->map.nsups; i++) {
		const struct input_suppress *s = &in->map.sups[i];
		int used = 0, ok = s->reason && s->reason[0];

		if (!rule_by_id(s->id)) {
			if (finding_add(out, "CL000", FINDING_ERROR, s->file,
			    s->line, "suppression names no lint rule: %s",
			    s->id) < 0)
				return -1;
			continue;
		}
		if (!ok) {
			if (finding_add(out, "CL000", FINDING_ERROR, s->file,
			    s->line, "suppression of %s gives no reason: it "
			    "does not apply", s->id) < 0)
				return -1;
			continue;
		}
		for (unsigned int k = 0; k < nfound; k++) {
			struct finding *x = &out->v[k];

			if (!applies(s, x))
				continue;
			used = 1;  /* even if a comment above covered it too */
			if (!x->suppressed && !(x->suppressed = strdup(s->reason)))
				return -1;
		}
		/* Whether an included file's (a base's) suppression is used
		 * depends on its includer: not this policy's to report. */
		if (!used && !input_file_included(in, s->file) &&
		    finding_add(out, "CL000", FINDING_NOTE, s->file,
		    s->line, "suppression of %s matches no finding", s->id) < 0)
			return -1;
	}
	return 0;
}

/* CL020: how long a session may live, and what holds it meanwhile. */
static int check_session(const struct input *in, struct finding_list *out)
{
	const struct cpol *p = &in->pol;
	unsigned int line;
	const char *file = input_where(in, INPUT_SESSION, NULL, &line);

	if (!p->session_ms)
		return 0;
	if (p->session_ms > LINT_MAX_SESSION_MS && finding_add(out, "CL020",
	    FINDING_WARNING, file, line, "session of %llu h is longer than "
	    "a day", (unsigned long long)(p->session_ms / 3600000)) < 0)
		return -1;
	if (!limited(p, CPOL_RLIM_MEMORY) && finding_add(out, "CL020",
	    FINDING_WARNING, file, line, "a session without limit memory: "
	    "nothing bounds what it holds for its hours") < 0)
		return -1;
	return 0;
}

int lint_run(const struct input *in, struct finding_list *out)
{
	if (check_rules(in, out) < 0 || check_default(in, out) < 0 ||
	    check_write_exec(in, out) < 0 || check_writes(in, out) < 0 ||
	    check_reads(in, out) < 0 || check_env(in, out) < 0 ||
	    check_net(in, out) < 0 || check_limits(in, out) < 0 ||
	    check_run_bounds(in, out) < 0 || check_session(in, out) < 0 ||
	    check_layers(in, out) < 0 || check_loader(in, out) < 0 ||
	    check_tty(in, out) < 0 || lint_http(in, out) < 0 ||
	    lint_hosts(in, out) < 0)
		return -1;
	if (suppress(in, out) < 0)
		return -1;
	for (unsigned int i = 0; i < out->n; i++) {
		const char *shown = input_file_shown(in, out->v[i].file);
		char *copy;

		out->v[i].included = input_file_included(in, out->v[i].file);
		if (shown == out->v[i].file)
			continue;
		if (!(copy = strdup(shown)))
			return -1;
		free(out->v[i].file);
		out->v[i].file = copy;
	}
	return 0;
}
