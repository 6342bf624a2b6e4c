/* sysq.c - seccomp program queries through the interpreter (see sysq.h). */
#include <stdio.h>
#include <string.h>

#include "bpf.h"
#include "sysq.h"
#include "tables.h"

uint32_t sysq_run(const struct cpol *p, uint32_t nr, const uint64_t args[6])
{
	struct bpf_input in;

	memset(&in, 0, sizeof(in));
	in.nr = nr;
	in.arch = p->arch;
	memcpy(in.args, args, sizeof(in.args));
	return bpf_run(p->insns, p->ninsns, &in);
}

int sysq_allows(uint32_t action)
{
	uint32_t a = action & BPF_ACT_FULL_MASK;

	return a == BPF_ACT_ALLOW || a == BPF_ACT_LOG;
}

static void add(struct sysq_space *s, unsigned int arg, uint64_t v)
{
	for (unsigned int i = 0; i < s->n[arg]; i++)
		if (s->v[arg][i] == v)
			return;
	if (s->n[arg] < SYSQ_MAX_VALUES)
		s->v[arg][s->n[arg]++] = v;
}

/* Values on both sides of one condition's boundary. */
static void add_cond(struct sysq_space *s, const struct cpol_cond *c)
{
	uint64_t w = c->width == 32 ? 0xffffffffull : UINT64_MAX;
	uint64_t v = c->value, m = c->op == CPOL_OP_MASKED_EQ ? c->mask : w;
	unsigned int a = c->arg;

	if (a >= 6)
		return;
	add(s, a, v);
	if (c->op == CPOL_OP_MASKED_EQ) {
		add(s, a, v | (~m & w));
		if (m)
			add(s, a, v ^ (m & -m));
	} else {
		add(s, a, (v + 1) & w);
		add(s, a, (v - 1) & w);
	}
	if (c->width == 32)
		add(s, a, v | 0xffffffff00000000ull);  /* upper bits ignored */
}

static void add_rules(struct sysq_space *s, const struct cpol *p,
    uint32_t nr)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->nrules; i++) {
		if (p->rules[i].nr != nr)
			continue;
		for (unsigned int k = 0; k < p->rules[i].ncond &&
		    k < CPOL_MAX_CONDS; k++)
			add_cond(s, &p->rules[i].cond[k]);
	}
}

void sysq_space_init(struct sysq_space *s, const struct cpol *a,
    const struct cpol *b, uint32_t nr)
{
	memset(s, 0, sizeof(*s));
	add_rules(s, a, nr);
	add_rules(s, b, nr);
	for (unsigned int i = 0; i < 6; i++) {
		add(s, i, 0);
		add(s, i, UINT64_MAX);
		if (s->n[i] > 2) {      /* conditioned: probe the width too */
			add(s, i, 1);
			add(s, i, 0xffffffffull);
			add(s, i, 0x100000000ull);
		}
	}
}

void sysq_space_fix(struct sysq_space *s, unsigned int arg, uint64_t value)
{
	if (arg >= 6)
		return;
	s->n[arg] = 1;
	s->v[arg][0] = value;
}

static uint64_t points(const struct sysq_space *s)
{
	uint64_t p = 1;

	for (unsigned int i = 0; i < 6; i++)
		p *= s->n[i];
	return p;
}

/* Drop the last (least telling) value of the longest list. */
static void shrink(struct sysq_space *s)
{
	unsigned int best = 0;

	for (unsigned int i = 1; i < 6; i++)
		if (s->n[i] > s->n[best])
			best = i;
	if (s->n[best] > 1)
		s->n[best]--;
}

int sysq_walk(struct sysq_space *s,
    int (*fn)(const uint64_t args[6], void *ctx), void *ctx)
{
	unsigned int idx[6] = { 0 };
	uint64_t args[6];
	int r;

	while (points(s) > SYSQ_MAX_POINTS)
		shrink(s);
	for (;;) {
		unsigned int i;

		for (i = 0; i < 6; i++)
			args[i] = s->v[i][idx[i]];
		if ((r = fn(args, ctx)) != 0)
			return r;
		for (i = 0; i < 6; i++) {
			if (++idx[i] < s->n[i])
				break;
			idx[i] = 0;
		}
		if (i == 6)
			return 0;
	}
}

const char *sysq_name(const struct cpol *p, uint32_t nr, char *buf,
    unsigned int len)
{
	const char *s;

	for (uint32_t i = 0; p && i < p->nrules; i++)
		if (p->rules[i].nr == nr)
			return p->rules[i].name;
	if (nr <= 0x7fffffffu && (s = tables_syscall_name((int)nr)))
		return s;
	snprintf(buf, len, "#%u", (unsigned int)nr);
	return buf;
}
