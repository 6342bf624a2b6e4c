/*
 * filter.c - seccomp programs for the benchmarks (see filter.h).
 *
 * The naive linear program is what a hand-written filter usually looks
 * like: one comparison of the syscall number per rule, in table order,
 * with the rule's argument checks inline.  The kernel's action cache still
 * short-cuts syscalls whose verdict depends on the number alone, so the
 * difference from the blob's binary tree shows on syscalls with argument
 * conditions, and grows with their position in the table.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "filter.h"

/* Offsets into struct seccomp_data (the kernel's UAPI layout). */
#define OFF_NR 0u
#define OFF_ARCH 4u
#define OFF_ARG_LO(i) (16u + 8u * (unsigned int)(i))
#define OFF_ARG_HI(i) (OFF_ARG_LO(i) + 4u)
/* x32 syscalls have this bit set in nr; the blob's program refuses them. */
#define X32_BIT 0x40000000u

struct prog {
	struct sock_filter *insn;
	size_t n, cap;
	int overflow;
};

static void emit(struct prog *g, unsigned short code, unsigned int k,
    unsigned char jt, unsigned char jf)
{
	if (g->n == g->cap) {
		g->overflow = 1;
		return;
	}
	g->insn[g->n].code = code;
	g->insn[g->n].jt = jt;
	g->insn[g->n].jf = jf;
	g->insn[g->n].k = k;
	g->n++;
}

static void ld(struct prog *g, unsigned int off)
{
	emit(g, BPF_LD | BPF_W | BPF_ABS, off, 0, 0);
}

/* A "JA to the next rule" placeholder: k is patched when the rule ends. */
static void fail_jump(struct prog *g, size_t *fails, size_t *nfails)
{
	if (*nfails < CPOL_MAX_CONDS * 4)
		fails[(*nfails)++] = g->n;
	else
		g->overflow = 1;
	emit(g, BPF_JMP | BPF_JA, 0, 0, 0);
}

/* Equality on one 32-bit word, optionally masked: fall through if it holds. */
static void word_eq(struct prog *g, unsigned int off, uint32_t mask,
    uint32_t val, size_t *fails, size_t *nfails)
{
	ld(g, off);
	if (mask != 0xffffffffu)
		emit(g, BPF_ALU | BPF_AND | BPF_K, mask, 0, 0);
	emit(g, BPF_JMP | BPF_JEQ | BPF_K, val, 1, 0);
	fail_jump(g, fails, nfails);
}

/*
 * Ordered comparisons, unsigned.  strict: GT/LT; negate: LT/LE are
 * !(GE)/!(GT).  64-bit: high words decide unless equal.
 */
static void ordered(struct prog *g, const struct cpol_cond *c, int strict,
    int negate, size_t *fails, size_t *nfails)
{
	unsigned short op = strict ? BPF_JGT : BPF_JGE;
	unsigned short cmp = BPF_JMP | op | BPF_K;
	uint32_t lo = (uint32_t)c->value, hi = (uint32_t)(c->value >> 32);

	if (c->width == 64) {
		/* 0 ld hi; 1 jgt hi; 2 jeq hi; 3 ld lo; 4 cmp lo; 5 ja fail;
		 * 6 pass */
		ld(g, OFF_ARG_HI(c->arg));
		if (!negate) {
			emit(g, BPF_JMP | BPF_JGT | BPF_K, hi, 4, 0);
			emit(g, BPF_JMP | BPF_JEQ | BPF_K, hi, 0, 2);
		} else {
			emit(g, BPF_JMP | BPF_JGT | BPF_K, hi, 3, 0);
			emit(g, BPF_JMP | BPF_JEQ | BPF_K, hi, 0, 3);
		}
	}
	ld(g, OFF_ARG_LO(c->arg));
	if (!negate)
		emit(g, cmp, lo, 1, 0);
	else
		emit(g, cmp, lo, 0, 1);
	fail_jump(g, fails, nfails);
}

static void cond(struct prog *g, const struct cpol_cond *c, size_t *fails,
    size_t *nfails)
{
	uint64_t mask = c->op == CPOL_OP_MASKED_EQ ? c->mask : UINT64_MAX;
	uint32_t lo = (uint32_t)c->value, hi = (uint32_t)(c->value >> 32);

	switch (c->op) {
	case CPOL_OP_EQ:
	case CPOL_OP_MASKED_EQ:
		if (c->width == 64)
			word_eq(g, OFF_ARG_HI(c->arg), (uint32_t)(mask >> 32),
			    hi, fails, nfails);
		word_eq(g, OFF_ARG_LO(c->arg), (uint32_t)mask, lo, fails,
		    nfails);
		break;
	case CPOL_OP_NE:
		/* Pass if either word differs. */
		if (c->width == 64) {
			ld(g, OFF_ARG_HI(c->arg));
			emit(g, BPF_JMP | BPF_JEQ | BPF_K, hi, 0, 3);
		}
		ld(g, OFF_ARG_LO(c->arg));
		emit(g, BPF_JMP | BPF_JEQ | BPF_K, lo, 0, 1);
		fail_jump(g, fails, nfails);
		break;
	case CPOL_OP_GT:
		ordered(g, c, 1, 0, fails, nfails);
		break;
	case CPOL_OP_GE:
		ordered(g, c, 0, 0, fails, nfails);
		break;
	case CPOL_OP_LT:
		ordered(g, c, 0, 1, fails, nfails);
		break;
	case CPOL_OP_LE:
		ordered(g, c, 1, 1, fails, nfails);
		break;
	default:
		g->overflow = 1;
	}
}

static void rule(struct prog *g, const struct cpol_rule *r)
{
	size_t fails[CPOL_MAX_CONDS * 4 + 1], nfails = 0, i;

	ld(g, OFF_NR);
	emit(g, BPF_JMP | BPF_JEQ | BPF_K, r->nr, 1, 0);
	fail_jump(g, fails, &nfails);
	for (i = 0; i < r->ncond; i++)
		cond(g, &r->cond[i], fails, &nfails);
	emit(g, BPF_RET | BPF_K, r->action, 0, 0);
	if (g->overflow)
		return;
	for (i = 0; i < nfails; i++)
		g->insn[fails[i]].k = (unsigned int)(g->n - fails[i] - 1);
}

int filter_linear(const struct cpol *p, struct sock_fprog *prog, char *err,
    size_t errlen)
{
	struct prog g = { 0 };
	uint32_t i;

	g.cap = BPF_MAXINSNS;
	g.insn = calloc(g.cap, sizeof(*g.insn));
	if (!g.insn) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	ld(&g, OFF_ARCH);
	emit(&g, BPF_JMP | BPF_JEQ | BPF_K, p->arch, 1, 0);
	emit(&g, BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS, 0, 0);
	ld(&g, OFF_NR);
	emit(&g, BPF_JMP | BPF_JGE | BPF_K, X32_BIT, 0, 1);
	emit(&g, BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS, 0, 0);
	for (i = 0; i < p->nrules && !g.overflow; i++)
		rule(&g, &p->rules[i]);
	emit(&g, BPF_RET | BPF_K, p->default_action, 0, 0);
	if (g.overflow) {
		snprintf(err, errlen, "linear program for %u rules exceeds %d "
		    "instructions or has an unknown operator", p->nrules,
		    BPF_MAXINSNS);
		free(g.insn);
		return -1;
	}
	prog->filter = g.insn;
	prog->len = (unsigned short)g.n;
	return 0;
}

int filter_from_blob(const struct cpol *p, struct sock_fprog *prog,
    char *err, size_t errlen)
{
	struct sock_filter *f;
	uint32_t i;

	if (p->ninsns == 0 || p->ninsns > BPF_MAXINSNS) {
		snprintf(err, errlen, "blob has %u instructions", p->ninsns);
		return -1;
	}
	f = calloc(p->ninsns, sizeof(*f));
	if (!f) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < p->ninsns; i++) {
		f[i].code = p->insns[i].code;
		f[i].jt = p->insns[i].jt;
		f[i].jf = p->insns[i].jf;
		f[i].k = p->insns[i].k;
	}
	prog->filter = f;
	prog->len = (unsigned short)p->ninsns;
	return 0;
}

int filter_allow_all(struct sock_fprog *prog, char *err, size_t errlen,
    int load_arg)
{
	struct sock_filter *f = calloc(2, sizeof(*f));
	unsigned short n = 0;

	if (!f) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (load_arg) {
		f[n].code = BPF_LD | BPF_W | BPF_ABS;
		f[n++].k = OFF_ARG_LO(0);
	}
	f[n].code = BPF_RET | BPF_K;
	f[n++].k = SECCOMP_RET_ALLOW;
	prog->filter = f;
	prog->len = n;
	return 0;
}

int filter_install(const struct sock_fprog *prog)
{
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog);
}

void filter_free(struct sock_fprog *prog)
{
	free(prog->filter);
	prog->filter = NULL;
	prog->len = 0;
}
