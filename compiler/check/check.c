/*
 * check.c - the semantic pass: every section of the policy (the merge
 * rule in merge.c) but the syscall rules (rules.c) and the BPF (emit.c).
 * No system calls: it reads the tree and writes a struct cpol.
 */
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkctx.h"
#include "landlock_compat.h"
#include "tables.h"

/* The one statement of a kind left after merging (key: its keyword). */
static const struct ast_stmt *single(struct check_ctx *c, enum ast_kind kind,
    const char *key)
{
	const struct ast_stmt *s, *found = NULL;
	struct mentions ms = { 0 };

	for (s = c->p->stmts; s; s = s->next)
		if (s->kind == kind && mentions_add(&ms, key, s, NULL,
		    s->val) < 0)
			diag_error(c->d, NULL, "out of memory");
	mentions_merge(c, &ms, 0, "");
	if (ms.n > 0)
		found = ms.m[0].s;
	mentions_free(&ms);
	return found;
}

static int name_ok(const char *n)
{
	size_t len = strspn(n, "abcdefghijklmnopqrstuvwxyz0123456789_-");

	return len > 0 && len <= 64 && n[len] == '\0';
}

static void meta(struct check_ctx *c, struct cpol *out)
{
	const struct ast_stmt *s;
	uint64_t n;
	int neg;

	s = single(c, AST_POLICY, "policy");
	if (!s) {
		if (!c->partial)   /* after a syntax error it may be that */
			diag_error(c->d, NULL, "%s: no policy statement "
			    "(policy \"NAME\";)", c->p->files[0].name);
	} else if (value_str(c, s->val, &out->name) == 0 &&
	    !name_ok(out->name))
		diag_error(c->d, &s->val->loc, "policy name \"%s\" must be 1 "
		    "to 64 of a-z, 0-9, _ and -", out->name);
	s = single(c, AST_DESCRIPTION, "description");
	if (s)
		value_str(c, s->val, &out->description);
	else
		out->description = check_mem(c, strdup(""));
	out->compiler_version = check_mem(c, strdup(CHECK_COMPILER_VERSION));
	memcpy(out->source_digest, c->p->digest, 32);
	out->arch = tables_arch();
	out->landlock_abi_min = CHECK_DEFAULT_LANDLOCK;
	s = single(c, AST_LANDLOCK, "landlock");
	if (s && value_num(c, s->val, &n, &neg) == 0) {
		if (neg || n < 1 || n > CHECK_MAX_LANDLOCK)
			diag_error(c->d, &s->val->loc, "Landlock ABI must be "
			    "1 to %d", CHECK_MAX_LANDLOCK);
		else
			out->landlock_abi_min = (uint32_t)n;
	}
	if (single(c, AST_BEST_EFFORT, "best-effort landlock"))
		out->flags |= CPOL_F_BEST_EFFORT_LANDLOCK;
	c->default_action = SECCOMP_RET_KILL_PROCESS;
	s = single(c, AST_DEFAULT, "default");
	if (s)
		value_action(c, &s->action, &c->default_action);
	out->default_action = c->default_action;
}

/* The resource a limit name stands for (cpol_rlim_name is the one table),
 * or 0 after a diagnostic. */
static unsigned int limit_resource(struct check_ctx *c,
    const struct ast_stmt *s)
{
	char dym[DIAG_SUGGEST_MAX];
	const char *names[CPOL_RLIM_MAX + 1];
	const char *sug;
	unsigned int r;

	for (r = 1; r <= CPOL_RLIM_MAX; r++) {
		names[r - 1] = cpol_rlim_name(r);
		if (strcmp(names[r - 1], s->name) == 0)
			return r;
	}
	names[CPOL_RLIM_MAX] = NULL;
	sug = tables_suggest_among(s->name, names);
	diag_error(c->d, &s->name_loc, "unknown limit %s%s", s->name,
	    diag_did_you_mean(dym, sizeof(dym), "", sug, ""));
	return 0;
}

static enum value_unit limit_unit(unsigned int r)
{
	switch (cpol_rlim_unit(r)) {
	case CPOL_UNIT_TIME:
		return VALUE_TIME;
	case CPOL_UNIT_COUNT:
		return VALUE_COUNT;
	default:
		return VALUE_SIZE;
	}
}

/* "limit NAME required;": a whole-run bound the launcher must enforce
 * with its kernel mechanism (cgroup, run tmpfs), never a fallback. */
static void limits_required(struct check_ctx *c, struct cpol *out)
{
	const struct ast_stmt *s;
	unsigned int r;
	uint32_t i, flag;

	for (s = c->p->stmts; s; s = s->next) {
		if (s->kind != AST_LIMIT || s->val ||
		    !(r = limit_resource(c, s)))
			continue;
		flag = cpol_rlim_required_flag(r);
		if (!flag) {
			diag_error(c->d, &s->name_loc, "only memory, pids, "
			    "disk and files can be required, not %s", s->name);
			continue;
		}
		for (i = 0; out->limits && i < out->nlimits; i++)
			if (out->limits[i].resource == r)
				break;
		if (out->limits && (i == out->nlimits ||
		    out->limits[i].value == CPOL_RLIM_INFINITY))
			diag_error(c->d, &s->name_loc, "limit %s required, "
			    "but no limit %s is set", s->name, s->name);
		out->flags |= flag;
	}
}

static void limits(struct check_ctx *c, struct cpol *out)
{
	struct mentions ms = { 0 };
	const struct ast_stmt *s;
	unsigned int i, r;
	uint64_t v;
	enum value_unit unit;

	for (s = c->p->stmts; s; s = s->next)
		if (s->kind == AST_LIMIT && s->val && mentions_add(&ms,
		    s->name, s, NULL, s->val) < 0)
			diag_error(c->d, NULL, "out of memory");
	mentions_merge(c, &ms, 0, "limit");
	out->limits = check_mem(c, calloc(CPOL_RLIM_MAX,
	    sizeof(*out->limits)));
	for (i = 0; out->limits && i < ms.n; i++) {
		s = ms.m[i].s;
		if (!(r = limit_resource(c, s)))
			continue;
		unit = limit_unit(r);
		if (value_qty(c, s->val, unit, 1, &v) < 0)
			continue;
		if (unit == VALUE_TIME && v != CPOL_RLIM_INFINITY) {
			if (v % 1000) {
				diag_error(c->d, &s->val->loc, "the cpu limit "
				    "counts whole seconds");
				continue;
			}
			v /= 1000;
		}
		out->limits[out->nlimits++] = (struct cpol_limit){
		    (uint8_t)r, v };
	}
	mentions_free(&ms);
	/* resources in increasing order, as the blob wants */
	for (i = 1; out->limits && i < out->nlimits; i++)
		for (r = i; r > 0 && out->limits[r - 1].resource >
		    out->limits[r].resource; r--) {
			struct cpol_limit t = out->limits[r];

			out->limits[r] = out->limits[r - 1];
			out->limits[r - 1] = t;
		}
	limits_required(c, out);
}

static void run_limits(struct check_ctx *c, struct cpol *out)
{
	const struct ast_stmt *s;

	out->timeout_ms = CHECK_DEFAULT_TIMEOUT_MS;
	s = single(c, AST_TIMEOUT, "timeout");
	if (s && value_qty(c, s->val, VALUE_TIME, 0, &out->timeout_ms) == 0 &&
	    out->timeout_ms == 0)
		diag_error(c->d, &s->val->loc, "timeout must be positive");
	if (out->timeout_ms == 0)
		out->timeout_ms = CHECK_DEFAULT_TIMEOUT_MS;
	/* "session 1h;": how long a session (cordon --session) may live;
	 * none: a session is bounded by the timeout, as any run. */
	s = single(c, AST_SESSION, "session");
	if (s && value_qty(c, s->val, VALUE_TIME, 0, &out->session_ms) == 0 &&
	    out->session_ms == 0)
		diag_error(c->d, &s->val->loc, "session must be positive");
	out->output_cap = CHECK_DEFAULT_OUTPUT_CAP;
	s = single(c, AST_OUTPUT, "output");
	if (s)
		value_qty(c, s->val, VALUE_SIZE, 0, &out->output_cap);
	/* "output SIZE truncate;": past the cap, drop and keep running
	 * (the default ends the run). */
	if (s && s->name && strcmp(s->name, "truncate") != 0)
		diag_error(c->d, &s->name_loc, "unknown output mode '%s' "
		    "(expected truncate)", s->name);
	else if (s && s->name)
		out->flags |= CPOL_F_OUTPUT_TRUNCATE;
}

/* $NAME in a command word or an environment value: cordon binds those
 * of tables_vars.c there; any other $NAME would reach the program as
 * written, so it is an error (a typo, most likely).  A '$' not followed
 * by a letter or '_' is plain text. */
static void dollars(struct check_ctx *c, const struct ast_loc *loc,
    const char *s, int in_command)
{
	static const char word[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
	    "qrstuvwxyz_0123456789";
	unsigned int where = in_command ? TABLES_VAR_COMMAND : TABLES_VAR_ENV;
	const char *sug, *bound[8];
	char name[64], say[64];
	size_t n;

	for (; (s = strchr(s, '$')); s++) {
		n = strspn(s + 1, word);
		if (n == 0 || (s[1] >= '0' && s[1] <= '9') ||
		    tables_var_bound(s + 1, n, where))
			continue;
		if (tables_var_bound(s + 1, n, ~0u)) {
			diag_error(c->d, loc, "$%.*s is bound in %s only; %s "
			    "gets it as written", (int)n, s + 1, in_command ?
			    "paths" : "the command and paths", in_command ?
			    "a command word" : "an environment value");
			continue;
		}
		snprintf(name, sizeof(name), "%.*s", (int)n, s + 1);
		tables_vars(where, bound, 8);
		sug = tables_suggest_among(name, bound);
		diag_error(c->d, loc, "unknown $%s (cordon replaces %s)%s%s%s",
		    name, tables_vars_say(where, say, sizeof(say)),
		    sug ? "; did you mean $" : "", sug ? sug : "",
		    sug ? "?" : "");
	}
}

/* A Python command in a policy that reads no base/python.policy: what
 * the interpreter needs to start (its files, the loader's executable
 * mappings, its system calls) is granted nowhere, and the run dies in a
 * way only lint explains.  Said when the policy compiles. */
static void no_base(struct check_ctx *c, const struct ast_stmt *s,
    const char *argv0)
{
	static const char base[] = "base/python.policy";
	const char *slash = strrchr(argv0, '/');
	size_t n;

	if (strncmp(slash ? slash + 1 : argv0, "python", 6) != 0)
		return;
	for (unsigned int i = 0; i < c->p->nfiles; i++) {
		n = strlen(c->p->files[i].name);
		if (n >= sizeof(base) - 1 && strcmp(c->p->files[i].name + n -
		    (sizeof(base) - 1), base) == 0)
			return;
	}
	diag_warning(c->d, &s->val->loc, "no include of %s: the interpreter "
	    "cannot start without what it grants (its files, the loader's "
	    "mappings, its system calls); add `include \"%s\";`", base, base);
}

static void command(struct check_ctx *c, struct cpol *out)
{
	const struct ast_stmt *s = single(c, AST_COMMAND, "command");
	const struct ast_val *w;
	unsigned int n = 0;

	c->cmd_stmt = s;

	if (!s) {
		if (!c->partial)
			diag_error(c->d, NULL, "%s: no command statement "
			    "(command \"/usr/bin/python3\" \"$SNIPPET\";)",
			    c->p->files[0].name);
		return;
	}
	for (w = s->val; w; w = w->next)
		n++;
	if (n > CPOL_MAX_ARGV) {
		diag_error(c->d, &s->loc, "more than %d command words",
		    CPOL_MAX_ARGV);
		return;
	}
	out->argv = check_mem(c, calloc(n + 1, sizeof(*out->argv)));
	for (w = s->val; out->argv && w; w = w->next)
		if (value_str(c, w, &out->argv[out->nargv]) == 0)
			dollars(c, &w->loc, out->argv[out->nargv++], 1);
	/* The grammar gives a command at least one word, so n >= 1 and
	 * argv[0] was set when nargv == n. */
	/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference) */
	if (out->nargv == n && out->argv[0][0] != '/')
		diag_error(c->d, &s->val->loc, "the command must be an "
		    "absolute path (there is no PATH search in the sandbox)");
	else if (out->nargv == n && diag_errors(c->d) == 0)
		check_exec(c, out, &s->val->loc);  /* on complete rules */
}

static int by_env(const void *a, const void *b)
{
	return strcmp(((const struct cpol_env *)a)->name,
	    ((const struct cpol_env *)b)->name);
}

static void env(struct check_ctx *c, struct cpol *out)
{
	struct mentions ms = { 0 };
	const struct ast_stmt *s;
	const struct ast_item *it;
	struct cpol_env *e;
	unsigned int i;

	for (s = c->p->stmts; s; s = s->next)
		for (it = s->items; (s->kind == AST_ENV_KEEP ||
		    s->kind == AST_ENV_SET) && it; it = it->next)
			if (mentions_add(&ms, it->name, s, it, it->value) < 0)
				diag_error(c->d, NULL, "out of memory");
	mentions_merge(c, &ms, 0, "environment variable");
	if (ms.n > CPOL_MAX_ENV) {
		diag_error(c->d, &ms.m[CPOL_MAX_ENV].it->loc, "more than %d "
		    "environment variables", CPOL_MAX_ENV);
		goto done;
	}
	out->env = check_mem(c, calloc(ms.n ? ms.n : 1, sizeof(*out->env)));
	for (i = 0; out->env && i < ms.n; i++) {
		it = ms.m[i].it;
		if (!cpol_env_name_ok(it->name)) {
			diag_error(c->d, &it->loc, "bad environment variable "
			    "name %s", it->name);
			continue;
		}
		e = &out->env[out->nenv];
		if (!(e->name = check_mem(c, strdup(it->name))))
			continue;
		e->kind = it->value ? CPOL_ENV_SET : CPOL_ENV_KEEP;
		if (it->value ? value_str(c, it->value, &e->value) < 0 :
		    !(e->value = check_mem(c, strdup("")))) {
			free(e->name);
			continue;
		}
		if (it->value)
			dollars(c, &it->value->loc, e->value, 0);
		out->nenv++;
	}
	if (out->env && out->nenv > 0)
		qsort(out->env, out->nenv, sizeof(*out->env), by_env);
done:
	mentions_free(&ms);
}

static void defines(struct check_ctx *c)
{
	const struct ast_stmt *s;

	for (s = c->p->stmts; s; s = s->next)
		if (s->kind == AST_DEFINE && mentions_add(&c->defs, s->name, s,
		    NULL, s->val) < 0)
			diag_error(c->d, NULL, "out of memory");
	mentions_merge(c, &c->defs, 0, "definition of");
}

/* preload: every statement's modules, in order, each once (an included
 * file's list and the including file's add up). */
static void preload(struct check_ctx *c, struct cpol *out)
{
	const struct ast_stmt *s;
	const struct ast_item *it;
	uint32_t i;

	for (s = c->p->stmts; s; s = s->next)
		for (it = s->kind == AST_PRELOAD ? s->items : NULL; it;
		    it = it->next) {
			if (!cpol_module_ok(it->name)) {
				diag_error(c->d, &it->loc, "\"%s\" is not a "
				    "Python module name", it->name);
				continue;
			}
			for (i = 0; i < out->npreload; i++)
				if (strcmp(out->preload[i], it->name) == 0)
					break;
			if (i < out->npreload)
				continue;
			if (out->npreload == CPOL_MAX_PRELOAD) {
				diag_error(c->d, &it->loc, "more than %d "
				    "preloaded modules", CPOL_MAX_PRELOAD);
				return;
			}
			if (!out->preload && !(out->preload = calloc(
			    CPOL_MAX_PRELOAD + 1, sizeof(*out->preload)))) {
				diag_error(c->d, NULL, "out of memory");
				return;
			}
			if (!(out->preload[out->npreload] = strdup(it->name))) {
				diag_error(c->d, NULL, "out of memory");
				return;
			}
			out->npreload++;
		}
}

int check_policy(const struct policy *p, struct diag *d, struct cpol *out,
    struct check_expect **expects, unsigned int *nexpects)
{
	struct check_ctx c = { .p = p, .d = d };
	struct check_expect *e = NULL;
	unsigned int ne = 0;
	unsigned int before = diag_errors(d);

	c.partial = before > 0;
	memset(out, 0, sizeof(*out));
	defines(&c);
	if (value_init(&c) < 0)
		diag_error(d, NULL, "out of memory");
	meta(&c, out);
	check_paths(&c, out);
	limits(&c, out);
	run_limits(&c, out);
	env(&c, out);
	command(&c, out);
	preload(&c, out);
	check_network(&c, out);
	check_http(&c, out);
	rules_lower(&c, out);
	check_expect_all(&c, &e, &ne);
	/* It compiles: say so, unless calls the base would name are let
	 * through by default anyway. */
	if (diag_errors(d) == 0 && out->nargv > 0 &&
	    out->default_action != SECCOMP_RET_ALLOW)
		no_base(&c, c.cmd_stmt, out->argv[0]);
	value_fini(&c);
	mentions_free(&c.defs);
	if (diag_errors(d) != before || !expects) {
		check_expect_free(e, ne);
		e = NULL;
		ne = 0;
	}
	if (expects) {
		*expects = e;
		*nexpects = ne;
	}
	if (diag_errors(d) != before) {
		cpol_free(out);
		return -1;
	}
	return 0;
}
