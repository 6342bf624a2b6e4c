/* ast.c - constructors and destructors of syntax tree nodes. */
#include <stdlib.h>
#include <string.h>

#include "ast.h"

struct ast_val *ast_val_new(enum ast_val_kind kind, const struct ast_loc *loc)
{
	struct ast_val *v = calloc(1, sizeof(*v));

	if (v) {
		v->kind = kind;
		v->loc = *loc;
	}
	return v;
}

struct ast_cond *ast_cond_new(const struct ast_loc *loc)
{
	struct ast_cond *c = calloc(1, sizeof(*c));

	if (c)
		c->loc = *loc;
	return c;
}

struct ast_item *ast_item_new(const struct ast_loc *loc, char *name)
{
	struct ast_item *it = calloc(1, sizeof(*it));

	if (it) {
		it->loc = *loc;
		it->name = name;
	}
	return it;
}

struct ast_stmt *ast_stmt_new(enum ast_kind kind, const struct ast_loc *loc)
{
	struct ast_stmt *s = calloc(1, sizeof(*s));

	if (s) {
		s->kind = kind;
		s->loc = *loc;
	}
	return s;
}

struct ast_val *ast_val_reverse(struct ast_val *v)
{
	struct ast_val *out = NULL, *next;

	for (; v; v = next) {
		next = v->next;
		v->next = out;
		out = v;
	}
	return out;
}

struct ast_item *ast_item_reverse(struct ast_item *it)
{
	struct ast_item *out = NULL, *next;

	for (; it; it = next) {
		next = it->next;
		it->next = out;
		out = it;
	}
	return out;
}

struct ast_cond *ast_cond_reverse(struct ast_cond *c)
{
	struct ast_cond *out = NULL, *next;

	for (; c; c = next) {
		next = c->next;
		c->next = out;
		out = c;
	}
	return out;
}

struct ast_stmt *ast_stmt_reverse(struct ast_stmt *s)
{
	struct ast_stmt *out = NULL, *next;

	for (; s; s = next) {
		next = s->next;
		s->next = out;
		out = s;
	}
	return out;
}

/* Alternatives (A|B|C) carry no list of their own: free them in a loop,
 * so a long chain cannot exhaust the stack. */
void ast_val_free(struct ast_val *v)
{
	struct ast_val *next, *a, *anext;

	for (; v; v = next) {
		next = v->next;
		for (a = v->alt; a; a = anext) {
			anext = a->alt;
			free(a->str);
			free(a);
		}
		ast_val_free(v->port);
		free(v->str);
		free(v);
	}
}

void ast_cond_free(struct ast_cond *c)
{
	struct ast_cond *next;

	for (; c; c = next) {
		next = c->next;
		free(c->arg);
		ast_val_free(c->mask);
		ast_val_free(c->value);
		free(c);
	}
}

void ast_item_free(struct ast_item *it)
{
	struct ast_item *next;

	for (; it; it = next) {
		next = it->next;
		free(it->name);
		ast_cond_free(it->conds);
		ast_val_free(it->args);
		ast_val_free(it->value);
		free(it);
	}
}

void ast_stmt_free(struct ast_stmt *s)
{
	struct ast_stmt *next;

	for (; s; s = next) {
		next = s->next;
		free(s->name);
		ast_val_free(s->val);
		ast_val_free(s->aux);
		ast_val_free(s->action.errno_val);
		ast_item_free(s->items);
		free(s);
	}
}
