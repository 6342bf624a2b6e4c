/*
 * checkexp.c - expectation statements (`expect deny ptrace;`), resolved for
 * `cordonc test`.  compile checks their names and values too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkctx.h"
#include "tables.h"

static const char *const path_kinds[] = { "read", "write", "exec",
	"no-read", "no-write", "no-exec", NULL };
static const char *const net_negated[] = { "no-connect", "no-bind", NULL };

/* A pattern's text as written (a constant, a number, A|B), into buf. */
static void pattern_text(const struct ast_val *v, char *buf, size_t len)
{
	size_t o = 0;
	int n;

	buf[0] = 0;
	for (; v && o < len; v = v->alt, o += n > 0 ? (size_t)n : 0) {
		if (v->kind == AST_V_NUM || v->kind == AST_V_QTY)
			n = snprintf(buf + o, len - o, "%s%s%llu%s", o ? "|" :
			    "", v->neg ? "-" : "", (unsigned long long)v->num,
			    v->kind == AST_V_QTY ? v->str : "");
		else
			n = snprintf(buf + o, len - o, "%s%s%s%s", o ? "|" :
			    "", v->kind == AST_V_VAR ? "${" : "", v->str ?
			    v->str : "*", v->kind == AST_V_VAR ? "}" : "");
	}
}

/* NAME OP VALUE that no position can say: a comparison other than ==,
 * or an argument the call does not have. */
static void no_such(struct check_ctx *c, const struct ast_item *it,
    const struct ast_val *v)
{
	const char *names[7], *sug;
	char dym[DIAG_SUGGEST_MAX];
	unsigned int i;

	if (v->num != AST_OP_EQ) {
		diag_error(c->d, &v->loc, "an expectation matches values, not "
		    "comparisons: write each argument's value by position, "
		    "* for any (a rule's conditions compare)");
		return;
	}
	for (i = 0; i < 6 && (names[i] = tables_arg_name(it->name, i)); i++)
		;
	names[i] = NULL;
	sug = tables_suggest_among(v->str, names);
	diag_error(c->d, &v->loc, "%s has no argument %s%s (expectation "
	    "arguments go by position)", it->name, v->str,
	    diag_did_you_mean(dym, sizeof(dym), "", sug, ""));
}

/* An expectation's patterns go by position, and those left out match
 * any value: NAME=VALUE and "..." are refused with the form meant (each
 * value at its argument's place, '*' before it, nothing after the
 * last).  1 when refused (said). */
static int by_position(struct check_ctx *c, const struct ast_item *it)
{
	char at[6][64], form[6 * 66 + 64];
	const struct ast_val *v, *bad = NULL;
	unsigned int pos = 0, idx, width, last = 0, i;
	size_t o;

	memset(at, 0, sizeof(at));
	for (v = it->args; v && v->kind != AST_V_REST && pos < 6; v = v->next) {
		idx = pos;
		if (v->kind == AST_V_NAMED) {
			if (v->num != AST_OP_EQ ||
			    tables_arg(it->name, v->str, &idx, &width) < 0) {
				no_such(c, it, v);
				return 1;
			}
			bad = bad ? bad : v;
		}
		pattern_text(v->kind == AST_V_NAMED ? v->port : v, at[idx],
		    sizeof(at[idx]));
		pos = idx + 1;
		last = pos > last ? pos : last;
	}
	for (v = it->args; v && v->kind != AST_V_REST; v = v->next)
		;
	if (!bad && !v)
		return 0;
	/* a known call's name and six 64-byte patterns: form holds them */
	o = (size_t)snprintf(form, sizeof(form), "%.40s(", it->name);
	for (i = 0; i < last; i++)
		o += (size_t)snprintf(form + o, sizeof(form) - o, "%s%s",
		    i ? ", " : "", at[i][0] ? at[i] : "*");
	snprintf(form + o, sizeof(form) - o, ")");
	if (bad)
		diag_error(c->d, &bad->loc, "expectation arguments go by "
		    "position, not by name, and those left out match any "
		    "value: write %s", last ? form : it->name);
	else
		diag_error(c->d, &v->loc, "'...' is not a pattern: arguments "
		    "left out match any value: write %s", last ? form :
		    it->name);
	return 1;
}

static void syscall_args(struct check_ctx *c, const struct ast_item *it,
    struct check_expect *e)
{
	const struct ast_val *v;
	uint64_t mag;
	int neg;

	if (by_position(c, it))
		return;
	for (v = it->args; v; v = v->next) {
		if (e->nargs == 6) {
			diag_error(c->d, &v->loc, "more than 6 arguments");
			return;
		}
		if (v->kind == AST_V_ANY)
			e->args[e->nargs].wild = 1;
		else if (value_num(c, v, &mag, &neg) == 0)
			e->args[e->nargs].value = neg ? 0 - mag : mag;
		e->nargs++;
	}
}

static int add(struct check_ctx *c, struct check_expect **out,
    unsigned int *n, struct check_expect *e)
{
	struct check_expect *ne;

	if (*n >= CPOL_MAX_RULES)     /* never a zero-size (wrapped) realloc */
		return -1;
	ne = realloc(*out, (*n + 1) * sizeof(*ne));
	if (!ne) {                    /* *out is still ours */
		(void)check_mem(c, ne);   /* says "out of memory" */
		return -1;
	}
	ne[*n] = *e;
	*out = ne;
	(*n)++;
	return 0;
}

/* One destination of a network expectation: a port, or "host":port
 * (a host as a rule takes it: common/host.c).  0, or -1 (reported). */
static int net_dest(struct check_ctx *c, const struct ast_val *v,
    struct check_expect *e)
{
	uint64_t port;
	int neg;

	if (v->port) {
		if (value_str(c, v, &e->host) < 0)
			return -1;
		if (check_host(c, &v->loc, e->host) < 0)
			return -1;
	}
	if (value_num(c, v->port ? v->port : v, &port, &neg) < 0)
		return -1;
	if (neg || port < 1 || port > 65535) {
		diag_error(c->d, &v->loc, "port must be 1 to 65535");
		return -1;
	}
	e->port = (uint16_t)port;
	return 0;
}

/* expect network off; or expect network connect|bind|no-connect|no-bind
 * DEST, ...: one expectation per destination. */
static void net_all(struct check_ctx *c, const struct ast_stmt *s,
    const struct check_expect *proto, struct check_expect **out,
    unsigned int *n)
{
	char dym[DIAG_SUGGEST_MAX];
	struct check_expect e = *proto;
	const struct ast_val *v;
	const char *const *k;

	e.kind = CHECK_EXPECT_NETWORK;
	e.net = (s->flags & AST_F_NET_OFF) ? "off" :
	    (s->flags & AST_F_NET_BIND) ? "bind" : "connect";
	if (s->name) {
		for (k = net_negated; *k && strcmp(*k, s->name); k++)
			;
		if (!*k) {
			diag_error(c->d, &s->name_loc, "unknown network "
			    "expectation %s%s", s->name, diag_did_you_mean(dym,
			    sizeof(dym), "", tables_suggest_among(s->name,
			    net_negated), ""));
			return;
		}
		e.net = *k;
	}
	if (check_network_form(c, s) < 0)
		return;
	if (!s->val && add(c, out, n, &e) < 0)
		return;
	for (v = s->val; v; v = v->next) {
		struct check_expect one = e;

		one.loc = v->loc;
		if (net_dest(c, v, &one) < 0 || add(c, out, n, &one) < 0)
			free(one.host);
	}
}

/* "expect deny write PATH": deny takes system calls; a path refused is
 * no-read, no-write or no-exec.  Said with the form meant. */
static void denied_path(struct check_ctx *c, const struct ast_stmt *s)
{
	static const char *const plain[] = { "read", "write", "exec", NULL };
	const char *k = tables_suggest_among(s->name, plain);
	char path[4096];

	pattern_text(s->val, path, sizeof(path));
	if (k)
		diag_error(c->d, &s->action.loc, "'expect deny' names system "
		    "calls; a path the policy must refuse is written: expect "
		    "no-%s %s%s%s;", k, s->val->kind == AST_V_STR ? "\"" : "",
		    path, s->val->kind == AST_V_STR ? "\"" : "");
	else
		diag_error(c->d, &s->action.loc, "'expect deny' names system "
		    "calls; a path's expectation is read, write, exec, "
		    "no-read, no-write or no-exec (expect no-write %s%s%s;)",
		    s->val->kind == AST_V_STR ? "\"" : "", path,
		    s->val->kind == AST_V_STR ? "\"" : "");
}

static void one(struct check_ctx *c, const struct ast_stmt *s,
    struct check_expect **out, unsigned int *n)
{
	char dym[DIAG_SUGGEST_MAX];
	struct check_expect e = { .loc = s->loc };
	const struct ast_item *it;
	const char *sug;

	if (s->ekind == AST_E_PATH && s->action.kind == AST_A_DENY) {
		denied_path(c, s);
		return;
	}
	if (s->ekind == AST_E_PATH) {
		e.kind = CHECK_EXPECT_PATH;
		for (e.right = NULL, sug = NULL; !e.right; ) {
			const char *const *k;

			for (k = path_kinds; *k && strcmp(*k, s->name); k++)
				;
			if (*k) {
				e.right = *k;
				break;
			}
			sug = tables_suggest_among(s->name, path_kinds);
			diag_error(c->d, &s->name_loc, "unknown expectation "
			    "%s%s", s->name, diag_did_you_mean(dym,
			    sizeof(dym), "", sug, ""));
			return;
		}
		if (value_str(c, s->val, &e.path) == 0 && add(c, out, n, &e) < 0)
			free(e.path);
		return;
	}
	if (s->ekind == AST_E_NETWORK) {
		net_all(c, s, &e, out, n);
		return;
	}
	e.kind = CHECK_EXPECT_SYSCALL;
	if (s->action.kind == AST_A_DENY)
		e.action = CHECK_EXPECT_DENY;
	else if (value_action(c, &s->action, &e.action) < 0)
		return;
	for (it = s->items; it; it = it->next) {
		struct check_expect one = e;

		one.loc = it->loc;
		one.syscall = it->name;
		one.nr = tables_syscall_nr(it->name);
		if (one.nr < 0) {
			sug = tables_suggest('s', it->name);
			diag_error(c->d, &it->loc, "unknown syscall %s%s",
			    it->name, diag_did_you_mean(dym, sizeof(dym), "",
			    sug, ""));
			continue;
		}
		syscall_args(c, it, &one);
		add(c, out, n, &one);
	}
}

/* Every expectation, with c's definitions (merged, values ready). */
void check_expect_all(struct check_ctx *c, struct check_expect **out,
    unsigned int *n)
{
	const struct ast_stmt *s;

	*out = NULL;
	*n = 0;
	for (s = c->p->stmts; s; s = s->next)
		if (s->kind == AST_EXPECT)
			one(c, s, out, n);
}

int check_expectations(const struct policy *p, struct diag *d,
    struct check_expect **out, unsigned int *n)
{
	struct check_ctx c = { .p = p, .d = d };
	const struct ast_stmt *s;
	unsigned int before = diag_errors(d);

	for (s = p->stmts; s; s = s->next)
		if (s->kind == AST_DEFINE && mentions_add(&c.defs, s->name, s,
		    NULL, s->val) < 0)
			diag_error(d, NULL, "out of memory");
	/* multi: reports nothing (check_policy reports duplicate defines) */
	mentions_merge(&c, &c.defs, 1, "");
	if (value_init(&c) < 0)
		diag_error(d, NULL, "out of memory");
	check_expect_all(&c, out, n);
	value_fini(&c);
	mentions_free(&c.defs);
	return diag_errors(d) == before ? 0 : -1;
}

void check_expect_free(struct check_expect *e, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		free(e[i].path);
		free(e[i].host);
	}
	free(e);
}
