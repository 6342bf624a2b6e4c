/*
 * cpolrule.c - whether a call's arguments meet a RULES entry's
 * conditions, each compared on its width as the filter compares it: the
 * one copy, for the compiler's validation and diff and the launcher's
 * denials (which rule decided a refused call).
 */
#include "cpol.h"

static int cond_holds(const struct cpol_cond *c, const uint64_t args[6])
{
	uint64_t w = c->width == 32 ? 0xffffffffu : ~(uint64_t)0;
	uint64_t a = args[c->arg % 6] & w, v = c->value & w;

	switch (c->op) {
	case CPOL_OP_EQ: return a == v;
	case CPOL_OP_NE: return a != v;
	case CPOL_OP_LT: return a < v;
	case CPOL_OP_LE: return a <= v;
	case CPOL_OP_GT: return a > v;
	case CPOL_OP_GE: return a >= v;
	case CPOL_OP_MASKED_EQ: return (a & c->mask & w) == v;
	default: return 0;
	}
}

int cpol_rule_matches(const struct cpol_rule *r, const uint64_t args[6])
{
	for (uint8_t i = 0; i < r->ncond; i++)
		if (!cond_holds(&r->cond[i], args))
			return 0;
	return 1;
}
