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

static void one(struct check_ctx *c, const struct ast_stmt *s,
    struct check_expect **out, unsigned int *n)
{
	char dym[DIAG_SUGGEST_MAX];
	struct check_expect e = { .loc = s->loc };
	const struct ast_item *it;
	const char *sug;
	uint64_t port;
	int neg;

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
		e.kind = CHECK_EXPECT_NETWORK;
		e.net = (s->flags & AST_F_NET_OFF) ? "off" :
		    (s->flags & AST_F_NET_BIND) ? "bind" : "connect";
		if (check_network_form(c, s) < 0)
			return;
		if (s->val && s->val->port && value_str(c, s->val,
		    &e.host) < 0)
			return;
		if (s->val && value_num(c, s->val->port ? s->val->port :
		    s->val, &port, &neg) == 0 &&
		    (neg || port < 1 || port > 65535))
			diag_error(c->d, &s->val->loc, "port must be 1 to "
			    "65535");
		else if (s->val)
			e.port = (uint16_t)port;
		if (add(c, out, n, &e) < 0)
			free(e.host);
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
