/*
 * checkexp.c - expectation statements (`expect deny ptrace;`), resolved for
 * `cordonc test`.  compile checks their names and values too.
 */
#include <stdlib.h>
#include <string.h>

#include "checkctx.h"
#include "tables.h"

static const char *const path_kinds[] = { "read", "write", "exec",
	"no-read", "no-write", "no-exec", NULL };
static const char *const net_negated[] = { "no-connect", "no-bind", NULL };

static void syscall_args(struct check_ctx *c, const struct ast_item *it,
    struct check_expect *e)
{
	const struct ast_val *v;
	uint64_t mag;
	int neg;

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

static void one(struct check_ctx *c, const struct ast_stmt *s,
    struct check_expect **out, unsigned int *n)
{
	char dym[DIAG_SUGGEST_MAX];
	struct check_expect e = { .loc = s->loc };
	const struct ast_item *it;
	const char *sug;

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
