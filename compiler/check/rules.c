/*
 * rules.c - the syscall rules of a policy: the merge rule applied per
 * syscall to the entries rulesentry.c reads (@groups expanded, argument
 * conditions lowered), network and the fixed ENOSYS rules added, and the
 * table sorted for the blob.
 */
#include <linux/seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <errno.h>

#include "action.h"
#include "rulesctx.h"
#include "tables.h"

static int in_list(const char *name, const char *const *l)
{
	for (; *l; l++)
		if (strcmp(*l, name) == 0)
			return 1;
	return 0;
}

/* Whether the network statement lists a port (or host) of this kind. */
static int net_kind(const struct rules *r, uint8_t kind)
{
	unsigned int i;

	for (i = 0; r->out->net && i < r->out->nnet; i++)
		if (r->out->net[i].kind == kind)
			return 1;
	return 0;
}

/* Syscalls the network statement owns: a TCP client needs connect, a
 * server bind, listen and accept (Landlock bounds the ports). */
static int net_owned(const struct rules *r, const char *name)
{
	switch (tables_net_owner(name)) {
	case TABLES_NET_ALWAYS:
		return 1;
	case TABLES_NET_TCP:
		return r->c->net_tcp;
	case TABLES_NET_CONNECT:
		return r->c->net_tcp && net_kind(r, CPOL_NET_CONNECT);
	case TABLES_NET_BIND:
		return r->c->net_tcp && net_kind(r, CPOL_NET_BIND);
	default:
		return 0;
	}
}

/* The merge rule for network-owned syscalls: the network statement
 * replaces rules on them from files read before its own; a rule in its
 * own file or a later one is an error. */
static int net_replaces(const struct rules *r, const struct ast_stmt *s)
{
	const struct ast_stmt *net = r->c->net_stmt, *x;

	if (!net || s->file == net->file)
		return 0;
	for (x = s->next; x; x = x->next)
		if (x == net)
			return 1;
	return 0;
}

static int emit_rule(struct rules *r, const struct cpol_rule *src,
    const char *name, const struct ast_loc *loc)
{
	struct cpol_rule *nr;

	if (r->out->nrules == r->outcap) {
		nr = realloc(r->out->rules, (r->outcap ? r->outcap * 2 : 64) *
		    sizeof(*nr));
		if (!nr)
			return -1;
		r->out->rules = nr;
		r->outcap = r->outcap ? r->outcap * 2 : 64;
	}
	nr = &r->out->rules[r->out->nrules];
	*nr = *src;
	nr->name = strdup(name);
	nr->origin = cpol_origin_format(loc ? loc->file : NULL,
	    loc ? (unsigned int)loc->first_line : 0);
	if (!nr->name || !nr->origin) {
		free(nr->name);
		free(nr->origin);
		return -1;
	}
	r->out->nrules++;
	return 0;
}

/* Provably disjoint: some argument has equalities that cannot both hold. */
static int disjoint(const struct cpol_rule *a, const struct cpol_rule *b)
{
	unsigned int i, j;
	uint64_t ma, mb;

	for (i = 0; i < a->ncond; i++)
		for (j = 0; j < b->ncond; j++) {
			const struct cpol_cond *x = &a->cond[i], *y = &b->cond[j];

			if (x->arg != y->arg || (x->op != CPOL_OP_EQ &&
			    x->op != CPOL_OP_MASKED_EQ) || (y->op != CPOL_OP_EQ
			    && y->op != CPOL_OP_MASKED_EQ))
				continue;
			ma = x->op == CPOL_OP_EQ ? ~0ull : x->mask;
			mb = y->op == CPOL_OP_EQ ? ~0ull : y->mask;
			if ((x->value & ma & mb) != (y->value & ma & mb))
				return 1;
		}
	return 0;
}

static void two_places(struct rules *r, const struct entry *a,
    const struct entry *b, const char *msg)
{
	char b1[32], b2[32];

	diag_error(r->c->d, b->loc, "%s: %s %s here and %s at %s:%d", msg,
	    b->name, cpol_action_name(b->action, b1, sizeof(b1)),
	    cpol_action_name(a->action, b2, sizeof(b2)), a->loc->file,
	    a->loc->first_line);
	diag_note(r->c->d, a->loc, "%s%s%s", cpol_action_name(a->action, b2,
	    sizeof(b2)), a->via ? " through @" : " here", a->via ? a->via : "");
}

/* Check one syscall's entries (all from one file, group entries already
 * resolved away or alone); 0 if they may all be emitted. */
static int consistent(struct rules *r, struct entry **e, unsigned int n)
{
	unsigned int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++) {
			int ui = e[i]->conds == NULL, uj = e[j]->conds == NULL;

			if (ui && uj && e[i]->action == e[j]->action &&
			    !e[i]->via && !e[j]->via) {
				two_places(r, e[j], e[i], "duplicate rule");
				return -1;
			}
			if (e[i]->action != e[j]->action && (ui || uj ||
			    !disjoint(&e[i]->r, &e[j]->r))) {
				two_places(r, e[j], e[i], ui && uj ?
				    "allowed and denied in one file" :
				    "rules on one syscall that overlap with "
				    "different actions");
				return -1;
			}
			if (ui != uj && e[i]->action == e[j]->action) {
				two_places(r, e[j], e[i], "an unconditional "
				    "rule next to a conditional one");
				return -1;
			}
		}
	return 0;
}

static int same_rule(const struct cpol_rule *a, const struct cpol_rule *b)
{
	unsigned int i;

	if (a->action != b->action || a->ncond != b->ncond)
		return 0;
	/* Field by field: memcmp would compare the padding after width,
	 * which struct assignment from a compound literal leaves
	 * unspecified. */
	for (i = 0; i < a->ncond; i++) {
		const struct cpol_cond *p = &a->cond[i], *q = &b->cond[i];

		if (p->arg != q->arg || p->op != q->op ||
		    p->width != q->width || p->mask != q->mask ||
		    p->value != q->value)
			return 0;
	}
	return 1;
}

/* Warn when an explicit rule repeats what a group in its file says. */
static void shadowed(struct rules *r, struct entry **l, unsigned int n)
{
	char buf[32];
	unsigned int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; l[i]->via && j < n; j++)
			if (!l[j]->via && !l[j]->conds && !l[i]->conds &&
			    l[j]->action == l[i]->action) {
				diag_warning(r->c->d, l[j]->loc, "%s %s is "
				    "shadowed by @%s", cpol_action_name(
				    l[j]->action, buf, sizeof(buf)),
				    l[j]->name, l[i]->via);
				diag_note(r->c->d, l[i]->loc, "@%s here",
				    l[i]->via);
				return;
			}
}

static int is_also(const struct entry *e)
{
	return (e->s->flags & AST_F_ALSO) != 0;
}

/* The entry that owns a syscall: the last not written `also` (n if
 * every one is); its file's entries and the `also` ones after it are
 * kept. */
static unsigned int owner_of(const struct entry *e, unsigned int n)
{
	unsigned int i;

	for (i = n; i > 0; i--)
		if (!is_also(&e[i - 1]))
			return i - 1;
	return n;
}

static int kept(const struct entry *e, unsigned int n, unsigned int o,
    unsigned int i)
{
	if (o == n)
		return 1;
	return e[i].s->file == e[o].s->file || (is_also(&e[i]) && i > o);
}

/* A file that narrows or replaces an included file's explicit rules on
 * a syscall with conditional rules of its own: warn, naming each
 * included rule dropped (not repeated) and how to keep them. */
static void dropped(struct rules *r, const struct entry *e, unsigned int n,
    unsigned int o, struct entry **l, unsigned int k)
{
	char b[32];
	unsigned int i, j, nd = 0;

	for (i = 0; i < k; i++)
		if (l[i]->via || !l[i]->conds)
			return;
	for (i = 0; i < n; i++) {
		if (kept(e, n, o, i) || e[i].via || !e[i].ok ||
		    (!e[i].conds && e[i].action == l[0]->action))
			continue;  /* narrowing a whole-syscall rule: meant */
		for (j = 0; j < k && !same_rule(&e[i].r, &l[j]->r); j++)
			;
		if (j < k)
			continue;
		if (nd++ == 0)
			diag_warning(r->c->d, l[0]->loc, "these rules on %s "
			    "replace the included ones (a later file's rules "
			    "on a syscall replace an earlier file's); to add "
			    "to them write `%s also %s(...)`, or repeat the "
			    "ones to keep", e[i].name, cpol_action_name(
			    l[0]->action, b, sizeof(b)), e[i].name);
		diag_note(r->c->d, e[i].loc, "dropped: %s %s%s here",
		    cpol_action_name(e[i].action, b, sizeof(b)), e[i].name,
		    e[i].conds ? "(...)" : "");
	}
}

/* Apply the merge rule to the entries of one syscall (reading order). */
static void one_syscall(struct rules *r, struct entry *e, unsigned int n,
    struct entry **l)
{
	unsigned int i, j, k = 0, ex = 0;
	unsigned int o = owner_of(e, n);

	if (net_owned(r, e[0].name)) {
		for (i = 0; i < n; i++)
			if (!e[i].via && !net_replaces(r, e[i].s))
				diag_error(r->c->d, e[i].loc, "%s is controlled "
				    "by the network statement; rules on it are "
				    "not allowed", e[i].name);
		return;
	}
	for (i = 0; i < n; i++)
		if (kept(e, n, o, i)) {
			l[k++] = &e[i];
			ex += !e[i].via;
		}
	dropped(r, e, n, o, l, k);
	if (ex) {
		shadowed(r, l, k);
		for (i = j = 0; i < k; i++)
			if (!l[i]->via)
				l[j++] = l[i];
		k = j;
	} else if (in_list(e[0].name, tables_fixed_enosys)) {
		return;
	}
	for (i = 0; i < k; i++)
		if (!l[i]->ok)
			return;
	if (consistent(r, l, k) < 0)
		return;
	for (i = 0; i < k; i++) {
		for (j = 0; j < i && !same_rule(&l[i]->r, &l[j]->r); j++)
			;
		if (j == i && emit_rule(r, &l[i]->r, l[i]->name,
		    &l[i]->s->loc) < 0)
			diag_error(r->c->d, NULL, "out of memory");
	}
}

static int by_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->nr != y->nr)
		return x->nr < y->nr ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* A rule generated by the compiler (network, builtin ENOSYS). */
static void gen(struct rules *r, const char *name, uint32_t action,
    const struct cpol_cond *conds, unsigned int n, const struct ast_loc *loc)
{
	struct cpol_rule rule = { 0 };
	int nr = tables_syscall_nr(name);

	if (nr < 0)
		return;
	rule.nr = (uint32_t)nr;
	rule.action = action;
	rule.ncond = (uint8_t)n;
	if (n > 0)  /* conds is NULL for none, and memcpy's may not be */
		memcpy(rule.cond, conds, n * sizeof(*conds));
	if (emit_rule(r, &rule, name, loc) < 0)
		diag_error(r->c->d, NULL, "out of memory");
}

static struct cpol_cond eq32(unsigned int arg, uint64_t mask, uint64_t v)
{
	return (struct cpol_cond){ (uint8_t)arg, CPOL_OP_MASKED_EQ, 32, mask,
	    v };
}

/* Everything outside {x : x & mask == v} as disjoint masked equalities:
 * one rule per mask bit, that bit differing from v.  (cs holds the
 * conditions the rules share; the new one goes at index n.) */
static void complement(struct rules *r, const char *name, uint32_t action,
    struct cpol_cond *cs, unsigned int n, unsigned int arg, uint64_t mask,
    uint64_t v, const struct ast_loc *loc)
{
	unsigned int b;
	uint64_t bit;

	for (b = 0; b < 32; b++) {
		bit = 1ull << b;
		if (!(mask & bit))
			continue;
		cs[n] = eq32(arg, bit, (v & bit) ^ bit);
		gen(r, name, action, cs, n + 1, loc);
	}
}

/* socket() in tcp mode: AF_INET/AF_INET6 (differ in bit 3), type & 0xf
 * == SOCK_STREAM, protocol 0 or IPPROTO_TCP allowed; everything else
 * errno(EAFNOSUPPORT), written as disjoint rules libseccomp can take. */
static void tcp_socket(struct rules *r, const struct ast_loc *loc)
{
	const uint32_t no = SECCOMP_RET_ERRNO | EAFNOSUPPORT;
	const uint64_t dmask = MASK32 & ~(uint64_t)(AF_INET ^ AF_INET6);
	static const int fam[2] = { AF_INET, AF_INET6 };
	static const int proto[2] = { 0, IPPROTO_TCP };
	struct cpol_cond cs[3];
	unsigned int i, j;

	for (i = 0; i < 2; i++)
		for (j = 0; j < 2; j++) {
			cs[0] = eq32(0, MASK32, (uint64_t)fam[i]);
			cs[1] = eq32(1, 0xf, SOCK_STREAM);
			cs[2] = eq32(2, MASK32, (uint64_t)proto[j]);
			gen(r, "socket", SECCOMP_RET_ALLOW, cs, 3, loc);
		}
	complement(r, "socket", no, cs, 0, 0, dmask, AF_INET, loc);
	cs[0] = eq32(0, dmask, AF_INET);
	complement(r, "socket", no, cs, 1, 1, 0xf, SOCK_STREAM, loc);
	cs[1] = eq32(1, 0xf, SOCK_STREAM);
	/* protocol not in {0, 6}: a bit outside 0b110 set, or 2, or 4 */
	complement(r, "socket", no, cs, 2, 2, MASK32 & ~6ull, 0, loc);
	cs[2] = eq32(2, MASK32, 2);
	gen(r, "socket", no, cs, 3, loc);
	cs[2] = eq32(2, MASK32, 4);
	gen(r, "socket", no, cs, 3, loc);
}

static void network(struct rules *r)
{
	static const char *const send[] = { "sendto", "sendmsg", "sendmmsg" };
	static const unsigned int flags_arg[] = { 3, 2, 3 };
	static const char *const server[] = { "bind", "listen", "accept",
		"accept4" };
	const struct ast_loc *loc = r->c->net_stmt ? &r->c->net_stmt->loc :
	    NULL;
	struct cpol_cond k;
	unsigned int i, idx, width;

	k = eq32(0, MASK32, AF_UNIX);
	gen(r, "socketpair", SECCOMP_RET_ALLOW, &k, 1, loc);
	if (!r->c->net_tcp) {
		gen(r, "socket", SECCOMP_RET_ERRNO | EAFNOSUPPORT, NULL, 0,
		    loc);
		return;
	}
	tcp_socket(r, loc);
	if (net_kind(r, CPOL_NET_CONNECT))
		gen(r, "connect", SECCOMP_RET_ALLOW, NULL, 0, loc);
	if (net_kind(r, CPOL_NET_BIND))
		for (i = 0; i < 4; i++)
			gen(r, server[i], SECCOMP_RET_ALLOW, NULL, 0, loc);
	for (i = 0; i < 3; i++) {
		if (tables_arg(send[i], "flags", &idx, &width) < 0)
			idx = flags_arg[i];
		k = eq32(idx, MSG_FASTOPEN, 0);
		gen(r, send[i], SECCOMP_RET_ALLOW, &k, 1, loc);
		k = eq32(idx, MSG_FASTOPEN, MSG_FASTOPEN);
		gen(r, send[i], SECCOMP_RET_ERRNO | EOPNOTSUPP, &k, 1, loc);
	}
}

static int by_rule(const void *a, const void *b)
{
	const struct cpol_rule *x = a, *y = b;
	unsigned int i;

	if (x->nr != y->nr)
		return x->nr < y->nr ? -1 : 1;
	if (x->action != y->action)
		return x->action < y->action ? -1 : 1;
	if (x->ncond != y->ncond)
		return x->ncond < y->ncond ? -1 : 1;
	for (i = 0; i < x->ncond; i++) {
		const struct cpol_cond *p = &x->cond[i], *q = &y->cond[i];

		if (p->arg != q->arg)
			return p->arg < q->arg ? -1 : 1;
		if (p->op != q->op)
			return p->op < q->op ? -1 : 1;
		if (p->mask != q->mask)
			return p->mask < q->mask ? -1 : 1;
		if (p->value != q->value)
			return p->value < q->value ? -1 : 1;
	}
	return 0;
}

void rules_lower(struct check_ctx *c, struct cpol *out)
{
	struct rules r = { .c = c, .out = out };
	struct entry **l;
	unsigned int i, j, k;
	uint32_t a;

	collect(&r);
	if (r.n > 0)
		qsort(r.e, r.n, sizeof(*r.e), by_entry);
	/* An array of pointers: sizeof(*l) is sizeof(struct entry *). */
	/* NOLINTNEXTLINE(bugprone-sizeof-expression) */
	l = check_mem(c, calloc(r.n ? r.n : 1, sizeof(*l)));
	for (i = 0; l && i < r.n; i = j) {
		for (j = i; j < r.n && r.e[j].nr == r.e[i].nr; j++)
			;
		one_syscall(&r, &r.e[i], j - i, l);
	}
	/* The fixed ENOSYS rules: tables_fixed_action decides (names/). */
	for (k = 0; tables_fixed_enosys[k]; k++) {
		int nr = tables_syscall_nr(tables_fixed_enosys[k]);

		if (nr >= 0 && tables_fixed_action(out, (uint32_t)nr, &a))
			gen(&r, tables_fixed_enosys[k], a, NULL, 0, NULL);
	}
	network(&r);
	if (out->nrules > 0)
		qsort(out->rules, out->nrules, sizeof(*out->rules),
		    by_rule);
	if (out->nrules > CPOL_MAX_RULES)
		diag_error(c->d, NULL, "more than %d syscall rules",
		    CPOL_MAX_RULES);
	free(l);
	free(r.e);
	mentions_free(&r.groups);
}
