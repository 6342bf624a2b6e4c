/*
 * rulesctx.h - state shared by the two parts of the syscall rules:
 * rulesentry.c reads the rule statements into entries, rules.c applies
 * the merge rule to them and writes the table.  Not a public interface.
 */
#ifndef CORDON_RULESCTX_H
#define CORDON_RULESCTX_H

#include "checkctx.h"

#define MASK32 0xffffffffull

/* One (syscall, action, conditions) a statement asks for. */
struct entry {
	const char *name;
	int nr;
	uint32_t action;
	const struct ast_cond *conds;
	const struct ast_stmt *s;
	const struct ast_loc *loc;
	const char *via;             /* the @group it came from, or NULL */
	unsigned int seq;
	int ok;                      /* conditions lowered into r */
	struct cpol_rule r;
};

struct rules {
	struct check_ctx *c;
	struct entry *e;
	unsigned int n, cap;
	struct mentions groups;      /* user groups, merged */
	struct cpol *out;
	unsigned int outcap;
};

/* rulesentry.c: the entries of every rule statement into r->e (the user
 * groups merged into r->groups first); errors reported through r->c. */
void collect(struct rules *r);

#endif
