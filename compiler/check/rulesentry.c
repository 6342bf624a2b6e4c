/*
 * rulesentry.c - the rule statements read into entries, one per
 * (syscall, action, conditions) a statement asks for: @groups expanded
 * (user groups merged first, then the built-in ones), argument conditions
 * lowered to what libseccomp takes (HACKING.md, "Comparisons").  rules.c
 * applies the merge rule to the entries.
 */
#include <linux/seccomp.h>
#include <stdlib.h>
#include <string.h>

#include "rulesctx.h"
#include "tables.h"

/* Sign-extend or check a value for an argument of width bits. */
static int fit(struct check_ctx *c, const struct ast_val *v, unsigned width,
    uint64_t *out)
{
	uint64_t mag;
	int neg;

	if (value_num(c, v, &mag, &neg) < 0)
		return -1;
	if (width == 32 && (neg ? mag > 0x80000000ull : mag > MASK32)) {
		diag_error(c->d, &v->loc, "value does not fit the 32-bit "
		    "argument");
		return -1;
	}
	if (neg && mag > 0x8000000000000000ull) {
		diag_error(c->d, &v->loc, "value does not fit in 64 bits");
		return -1;
	}
	*out = neg ? 0 - mag : mag;
	if (width == 32)
		*out &= MASK32;
	return 0;
}

/* Argument index and width; *known 0 for argN of an unlisted syscall. */
static int arg_of(struct check_ctx *c, const char *sys, const struct ast_cond
    *k, unsigned int *idx, unsigned int *width)
{
	char dym[DIAG_SUGGEST_MAX];
	const char *names[7], *s;
	char list[160];
	unsigned int i, n = 0;
	size_t used;

	if (strlen(k->arg) == 4 && !strncmp(k->arg, "arg", 3) &&
	    k->arg[3] >= '0' && k->arg[3] <= '5') {
		*idx = (unsigned)(k->arg[3] - '0');
		*width = tables_arg_width(sys, *idx);
		return 0;
	}
	if (tables_arg(sys, k->arg, idx, width) == 0)
		return 0;
	for (i = 0; i < 6; i++)
		if ((names[n] = tables_arg_name(sys, i)))
			n++;
	names[n] = NULL;
	/* two edits make anything of a short name: cmd is not fd */
	s = strlen(k->arg) > 3 ? tables_suggest_among(k->arg, names) : NULL;
	list[0] = '\0';
	for (i = 0, used = 0; i < n && used < sizeof(list); i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used,
		    "%s%s", i ? ", " : "", names[i]);
	diag_error(c->d, &k->arg_loc, "%s has no argument named %s%s; its "
	    "arguments are %s (arg0 to arg5 always work)", sys, k->arg,
	    diag_did_you_mean(dym, sizeof(dym), "", s, ""),
	    n ? list : "not named");
	return -1;
}

/* The parser's operators are the blob's: their names are cpol_op_name's. */
#define SAME_OP(x) ((int)AST_OP_##x == (int)CPOL_OP_##x)
_Static_assert(SAME_OP(EQ) && SAME_OP(NE) && SAME_OP(LT) && SAME_OP(LE) &&
    SAME_OP(GT) && SAME_OP(GE), "ast_op values are CPOL_OP_* values");

/* Lower one condition; see HACKING.md "Comparisons". */
static int lower_cond(struct check_ctx *c, const struct entry *e,
    const struct ast_cond *k, struct cpol_cond *out)
{
	unsigned int idx, width;

	if (arg_of(c, e->name, k, &idx, &width) < 0)
		return -1;
	if (width == 0 && e->action != SECCOMP_RET_ALLOW) {
		diag_error(c->d, &k->arg_loc, "the width of %s's %s is unknown:"
		    " a refusal on it could be bypassed through the upper 32 "
		    "bits (use allow, or a named argument)", e->name, k->arg);
		return -1;
	}
	if (width == 0)
		width = 64;
	*out = (struct cpol_cond){ (uint8_t)idx, CPOL_OP_EQ, (uint8_t)width,
	    0, 0 };
	if (width == 32 && k->op != AST_OP_EQ) {
		diag_error(c->d, &k->loc, "'%s' on the 32-bit argument %s of "
		    "%s cannot be expressed exactly (only == and & ... == "
		    "can)", cpol_op_name((unsigned int)k->op), k->arg, e->name);
		return -1;
	}
	if (fit(c, k->value, width, &out->value) < 0)
		return -1;
	if (k->mask) {
		if (fit(c, k->mask, 64, &out->mask) < 0)
			return -1;
		if (width == 32)
			out->mask &= MASK32;
		if (out->value & ~out->mask) {
			diag_error(c->d, &k->loc, "this condition can never be "
			    "true (the value has bits outside the mask)");
			return -1;
		}
		out->op = CPOL_OP_MASKED_EQ;
	} else if (width == 32) {
		out->op = CPOL_OP_MASKED_EQ;
		out->mask = MASK32;
	} else {
		out->op = (uint8_t)k->op;
	}
	return 0;
}

static int by_cond(const void *a, const void *b)
{
	const struct cpol_cond *x = a, *y = b;

	return x->arg - y->arg;
}

/* Lower the conditions of an entry into e->r. */
static void lower_entry(struct check_ctx *c, struct entry *e)
{
	const struct ast_cond *k;
	unsigned int i, n = 0;
	int bad = 0;

	e->r.nr = (uint32_t)e->nr;
	e->r.action = e->action;
	for (k = e->conds; k; k = k->next, n++) {
		if (n == CPOL_MAX_CONDS) {
			diag_error(c->d, &k->loc, "more than %d conditions",
			    CPOL_MAX_CONDS);
			return;
		}
		if (lower_cond(c, e, k, &e->r.cond[n]) < 0) {
			bad = 1;
			continue;
		}
		for (i = 0; i < n; i++)
			if (e->r.cond[i].arg == e->r.cond[n].arg) {
				diag_error(c->d, &k->loc, "a second condition "
				    "on argument %u of %s (libseccomp takes one"
				    " per argument per rule; write two rules)",
				    e->r.cond[n].arg, e->name);
				bad = 1;
			}
	}
	e->r.ncond = (uint8_t)n;
	qsort(e->r.cond, n, sizeof(e->r.cond[0]), by_cond);
	e->ok = !bad;
}

static int add_entry(struct rules *r, const char *name, int nr,
    uint32_t action, const struct ast_cond *conds, const struct ast_stmt *s,
    const struct ast_loc *loc, const char *via)
{
	struct entry *ne;

	if (r->n == r->cap) {
		ne = realloc(r->e, (r->cap ? r->cap * 2 : 64) * sizeof(*ne));
		if (!ne)
			return -1;
		r->e = ne;
		r->cap = r->cap ? r->cap * 2 : 64;
	}
	ne = &r->e[r->n];
	*ne = (struct entry){ .name = name, .nr = nr, .action = action,
	    .conds = conds, .s = s, .loc = loc, .via = via, .seq = r->n };
	lower_entry(r->c, ne);
	r->n++;
	return 0;
}

static const struct ast_stmt *user_group(struct rules *r, const char *name)
{
	unsigned int i;

	for (i = 0; i < r->groups.n; i++)
		if (strcmp(r->groups.m[i].key, name) == 0)
			return r->groups.m[i].s;
	return NULL;
}

static void expand(struct rules *r, const char *group, uint32_t action,
    const struct ast_stmt *s, const struct ast_loc *loc, const char *via,
    unsigned int depth);

/* One member of a group or a rule: a syscall or a nested group. */
static void member(struct rules *r, const char *name, int is_group,
    const struct ast_cond *conds, uint32_t action, const struct ast_stmt *s,
    const struct ast_loc *loc, const char *via, int builtin,
    unsigned int depth)
{
	char dym[DIAG_SUGGEST_MAX];
	const char *sug;
	int nr;

	if (is_group) {
		expand(r, name, action, s, loc, via, depth + 1);
		return;
	}
	nr = tables_syscall_nr(name);
	if (nr < 0) {
		if (builtin)
			return;   /* a group member this libseccomp lacks */
		sug = tables_suggest('s', name);
		diag_error(r->c->d, loc, "unknown syscall %s%s", name,
		    diag_did_you_mean(dym, sizeof(dym), "", sug, ""));
		return;
	}
	if (add_entry(r, name, nr, action, conds, s, loc, via) < 0)
		diag_error(r->c->d, NULL, "out of memory");
}

static void expand(struct rules *r, const char *group, uint32_t action,
    const struct ast_stmt *s, const struct ast_loc *loc, const char *via,
    unsigned int depth)
{
	char dym[DIAG_SUGGEST_MAX];
	const struct ast_stmt *g = user_group(r, group);
	const char *const *m;
	const struct ast_item *it;
	const char *sug;

	if (depth > CHECK_MAX_GROUP_DEPTH) {
		diag_error(r->c->d, loc, "groups nest deeper than %d (a group "
		    "that contains itself?)", CHECK_MAX_GROUP_DEPTH);
		return;
	}
	if (g) {
		for (it = g->items; it; it = it->next)
			member(r, it->name, it->is_group, it->conds, action,
			    s, it->is_group ? loc : &it->loc, via, 0, depth);
		return;
	}
	m = tables_group(group);
	if (!m) {
		sug = tables_suggest('g', group);
		diag_error(r->c->d, loc, "unknown group @%s%s", group,
		    diag_did_you_mean(dym, sizeof(dym), "@", sug, ""));
		return;
	}
	for (; *m; m++)
		member(r, (*m)[0] == '@' ? *m + 1 : *m, (*m)[0] == '@', NULL,
		    action, s, loc, via, 1, depth);
}

void collect(struct rules *r)
{
	struct check_ctx *c = r->c;
	const struct ast_stmt *s;
	const struct ast_item *it;
	uint32_t action;
	unsigned int n;

	for (s = c->p->stmts; s; s = s->next)
		if (s->kind == AST_GROUP) {
			if (tables_group(s->name))
				diag_error(c->d, &s->name_loc, "@%s is a "
				    "built-in group", s->name);
			else if (mentions_add(&r->groups, s->name, s, NULL,
			    NULL) < 0)
				diag_error(c->d, NULL, "out of memory");
		}
	mentions_merge(c, &r->groups, 0, "group");
	for (s = c->p->stmts; s; s = s->next) {
		if (s->kind != AST_RULE || value_action(c, &s->action,
		    &action) < 0)
			continue;
		for (it = s->items, n = 0; it; it = it->next, n++) {
			if (n == CHECK_MAX_LIST) {
				diag_error(c->d, &it->loc, "more than %d "
				    "members in one statement", CHECK_MAX_LIST);
				break;
			}
			member(r, it->name, it->is_group, it->conds, action, s,
			    &it->loc, it->is_group ? it->name : NULL, 0, 0);
		}
	}
}
