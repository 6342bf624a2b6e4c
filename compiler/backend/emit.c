/*
 * emit.c - lower the checked rules of a policy to a seccomp BPF program.
 *
 * The program is two parts, run in order:
 *
 *   1. cordon's own prologue (a handful of instructions):
 *        arch != AUDIT_ARCH_X86_64        -> KILL_PROCESS (ia32, others)
 *        nr >= 0x40000000                 -> KILL_PROCESS (x32, and -1)
 *        nr > tables_syscall_max()        -> ERRNO(ENOSYS)
 *        nr in a hole of the table        -> ERRNO(ENOSYS)
 *      so that numbers the compiler does not know answer ENOSYS whatever
 *      the policy's default action is;
 *   2. libseccomp's program for the rules, with the policy's default
 *      action as the filter default (binary tree; bad arch killed again).
 *
 * Classic BPF jumps are relative, so libseccomp's program is appended
 * unchanged.  This is exact and small: the alternative (ENOSYS as the
 * filter default plus one default-action rule for every known syscall the
 * policy does not name) costs hundreds of instructions.  clone3 and
 * io_uring_* answer ENOSYS unless the policy names them: those are rules
 * of the table like any other, written by check/rules.c (as
 * tables_fixed_action decides); emit lowers exactly p->rules, and
 * validate.c refuses a table that lacks them.
 * validate.c re-checks the result against the rules with the interpreter.
 */
#include <errno.h>
#include <linux/filter.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bpf.h"
#include "emit.h"
#include "tables.h"

/* Largest prologue: 5 fixed + 2 per hole run + 2 returns. */
#define PRO_MAX 64
#define PRO_FIXED 5
#define PRO_MAX_HOLES ((PRO_MAX - PRO_FIXED - 2) / 2)
/* Bytes per exported sock_filter. */
#define INSN_BYTES 8

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static struct cpol_insn insn(uint16_t code, uint8_t jt, uint8_t jf,
    uint32_t k)
{
	struct cpol_insn i = { code, jt, jf, k };

	return i;
}

/*
 * The prologue.  Layout: checks at 0..c-1, then "ret ENOSYS" at c and
 * "ret KILL" at c+1; libseccomp's program starts at c+2.
 */
static int prologue(struct cpol_insn *out, uint32_t *np, char *err,
    size_t errlen)
{
	uint32_t lo[PRO_MAX], hi[PRO_MAX], nholes = 0, c, i;
	int nr, max = tables_syscall_max();

	for (nr = 0; nr <= max; nr++) {
		if (tables_syscall_name(nr))
			continue;
		if (nholes && hi[nholes - 1] + 1 == (uint32_t)nr) {
			hi[nholes - 1] = (uint32_t)nr;
			continue;
		}
		if (nholes == PRO_MAX_HOLES)
			return fail(err, errlen, "syscall table has too many "
			    "holes for the prologue");
		lo[nholes] = hi[nholes] = (uint32_t)nr;
		nholes++;
	}
	c = 5 + 2 * nholes;
	/* A jump from instruction at to absolute target t: t - at - 1. */
#define REL(at, t) ((uint8_t)((t) - (at) - 1))
	out[0] = insn(BPF_LD | BPF_W | BPF_ABS, 0, 0, 4);
	out[1] = insn(BPF_JMP | BPF_JEQ | BPF_K, 0, REL(1, c + 1),
	    tables_arch());
	out[2] = insn(BPF_LD | BPF_W | BPF_ABS, 0, 0, 0);
	out[3] = insn(BPF_JMP | BPF_JGE | BPF_K, REL(3, c + 1), 0,
	    0x40000000u);
	out[4] = insn(BPF_JMP | BPF_JGT | BPF_K, REL(4, c), 0,
	    (uint32_t)max);
	for (i = 0; i < nholes; i++) {
		uint32_t at = 5 + 2 * i;

		/* nr >= lo && nr <= hi -> ENOSYS */
		/* below lo: below every later hole too */
		out[at] = insn(BPF_JMP | BPF_JGE | BPF_K, 0, REL(at, c + 2),
		    lo[i]);
		out[at + 1] = insn(BPF_JMP | BPF_JGT | BPF_K,
		    REL(at + 1, at + 2 < c ? at + 2 : c + 2), REL(at + 1, c),
		    hi[i]);
	}
#undef REL
	out[c] = insn(BPF_RET | BPF_K, 0, 0, BPF_ACT_ERRNO | ENOSYS);
	out[c + 1] = insn(BPF_RET | BPF_K, 0, 0, BPF_ACT_KILL_PROCESS);
	*np = c + 2;
	return 0;
}

/* One condition -> one libseccomp comparison, exactly or not at all. */
static int lower_cond(const struct cpol_rule *r, const struct cpol_cond *c,
    struct scmp_arg_cmp *out, char *err, size_t errlen)
{
	static const enum scmp_compare ops[] = {
		[CPOL_OP_EQ] = SCMP_CMP_EQ, [CPOL_OP_NE] = SCMP_CMP_NE,
		[CPOL_OP_LT] = SCMP_CMP_LT, [CPOL_OP_LE] = SCMP_CMP_LE,
		[CPOL_OP_GT] = SCMP_CMP_GT, [CPOL_OP_GE] = SCMP_CMP_GE,
		[CPOL_OP_MASKED_EQ] = SCMP_CMP_MASKED_EQ,
	};

	if (c->arg > 5 || c->op < CPOL_OP_EQ || c->op > CPOL_OP_MAX ||
	    (c->width != 32 && c->width != 64))
		return fail(err, errlen, "%s (%s): malformed condition",
		    r->name, r->origin);
	memset(out, 0, sizeof(*out));
	out->arg = c->arg;
	if (c->width == 64) {
		out->op = ops[c->op];
		out->datum_a = c->op == CPOL_OP_MASKED_EQ ? c->mask : c->value;
		out->datum_b = c->op == CPOL_OP_MASKED_EQ ? c->value : 0;
		return 0;
	}
	/* 32-bit: compare the low half only, as the kernel reads it. */
	if (c->op != CPOL_OP_EQ && c->op != CPOL_OP_MASKED_EQ)
		return fail(err, errlen, "%s (%s): %s on 32-bit argument %u "
		    "cannot be expressed exactly", r->name, r->origin,
		    cpol_op_name(c->op), c->arg);
	out->op = SCMP_CMP_MASKED_EQ;
	out->datum_a = c->op == CPOL_OP_EQ ? 0xffffffffu :
	    (c->mask & 0xffffffffu);
	out->datum_b = c->value & 0xffffffffu;
	if (out->datum_b & ~out->datum_a)
		return fail(err, errlen, "%s (%s): value 0x%llx has bits "
		    "outside mask 0x%llx", r->name, r->origin,
		    (unsigned long long)out->datum_b,
		    (unsigned long long)out->datum_a);
	return 0;
}

static int add_rule(scmp_filter_ctx ctx, const struct cpol *p,
    const struct cpol_rule *r, char *err, size_t errlen)
{
	struct scmp_arg_cmp cmp[CPOL_MAX_CONDS];
	unsigned int i;
	int rc;

	if (r->nr > (uint32_t)tables_syscall_max() ||
	    !tables_syscall_name((int)r->nr))
		return fail(err, errlen, "%s (%s): syscall number %u is not "
		    "in the table", r->name, r->origin, r->nr);
	if (!bpf_action_valid(r->action))
		return fail(err, errlen, "%s (%s): action 0x%08x", r->name,
		    r->origin, r->action);
	if (r->ncond > CPOL_MAX_CONDS)
		return fail(err, errlen, "%s (%s): %u conditions", r->name,
		    r->origin, r->ncond);
	for (i = 0; i < r->ncond; i++)
		if (lower_cond(r, &r->cond[i], &cmp[i], err, errlen) < 0)
			return -1;
	/* libseccomp refuses a rule that repeats the default action; such
	 * a rule changes nothing (no match gives the default too). */
	if (r->action == p->default_action)
		return 0;
	rc = seccomp_rule_add_exact_array(ctx, r->action, (int)r->nr,
	    r->ncond, cmp);
	if (rc < 0)
		return fail(err, errlen, "%s (%s): libseccomp refused the "
		    "rule: %s", r->name, r->origin, strerror(-rc));
	return 0;
}

static scmp_filter_ctx make_ctx(const struct cpol *p, char *err,
    size_t errlen)
{
	scmp_filter_ctx ctx;

	if (p->arch != tables_arch() || seccomp_arch_native() !=
	    SCMP_ARCH_X86_64) {
		fail(err, errlen, "architecture 0x%08x: this compiler builds "
		    "x86-64 filters on x86-64 only", p->arch);
		return NULL;
	}
	if (!bpf_action_valid(p->default_action)) {
		fail(err, errlen, "default action 0x%08x", p->default_action);
		return NULL;
	}
	ctx = seccomp_init(p->default_action);
	if (!ctx) {
		fail(err, errlen, "libseccomp: cannot create a filter");
		return NULL;
	}
	if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2) < 0 ||
	    seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
	    SCMP_ACT_KILL_PROCESS) < 0) {
		seccomp_release(ctx);
		fail(err, errlen, "libseccomp: cannot set filter attributes");
		return NULL;
	}
	return ctx;
}

/* Export ctx's program through a memfd and decode it after the prologue
 * already in out[0..*np). */
static int export(scmp_filter_ctx ctx, struct cpol_insn **outp,
    uint32_t *np, char *err, size_t errlen)
{
	uint8_t *raw = NULL;
	struct cpol_insn *out;
	off_t size;
	size_t i, n;
	int fd, rc = -1;

	fd = memfd_create("cordon-bpf", MFD_CLOEXEC);
	if (fd < 0)
		return fail(err, errlen, "memfd_create: %s", strerror(errno));
	if (seccomp_export_bpf(ctx, fd) < 0) {
		fail(err, errlen, "libseccomp: cannot export the program");
		goto close_fd;
	}
	size = lseek(fd, 0, SEEK_END);
	if (size <= 0 || size % INSN_BYTES ||
	    size > (off_t)CPOL_MAX_INSNS * 4 * INSN_BYTES) {
		fail(err, errlen, "libseccomp exported %lld bytes",
		    (long long)size);
		goto close_fd;
	}
	n = (size_t)size / INSN_BYTES;
	out = realloc(*outp, (*np + n) * sizeof(*out));
	if (out)
		*outp = out;
	raw = malloc((size_t)size);
	if (!raw || !out) {
		fail(err, errlen, "out of memory");
		goto free_raw;
	}
	if (pread(fd, raw, (size_t)size, 0) != size) {
		fail(err, errlen, "reading the exported program failed");
		goto free_raw;
	}
	for (i = 0; i < n; i++) {
		const uint8_t *b = raw + i * INSN_BYTES;

		out[*np + i] = insn((uint16_t)(b[0] | b[1] << 8), b[2], b[3],
		    (uint32_t)b[4] | (uint32_t)b[5] << 8 |
		    (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24);
	}
	*np += (uint32_t)n;
	rc = 0;
free_raw:
	free(raw);
close_fd:
	close(fd);
	return rc;
}

/* Say why a program is too big: how many rules and conditions, and the
 * syscall with the most conditional rules. */
static int too_big(const struct cpol *p, uint32_t n, char *err,
    size_t errlen)
{
	uint32_t i, j, nconds = 0, best = 0, bestn = 0;

	for (i = 0; i < p->nrules; i = j) {
		for (j = i; j < p->nrules && p->rules[j].nr == p->rules[i].nr;
		    j++)
			nconds += p->rules[j].ncond;
		if (j - i > bestn) {
			bestn = j - i;
			best = i;
		}
	}
	return fail(err, errlen, "the seccomp program has %u instructions, "
	    "more than the kernel's limit of %u: %u rules with %u argument "
	    "conditions (the most, %u rules, on %s); use fewer conditional "
	    "rules", n, CPOL_MAX_INSNS, p->nrules, nconds, bestn,
	    p->nrules ? p->rules[best].name : "-");
}

int emit_seccomp(struct cpol *p, char *err, size_t errlen)
{
	struct cpol_insn *prog;
	scmp_filter_ctx ctx;
	uint32_t i, n = 0;

	prog = malloc(PRO_MAX * sizeof(*prog));
	if (!prog)
		return fail(err, errlen, "out of memory");
	if (prologue(prog, &n, err, errlen) < 0)
		goto free_prog;
	ctx = make_ctx(p, err, errlen);
	if (!ctx)
		goto free_prog;
	for (i = 0; i < p->nrules; i++)
		if (add_rule(ctx, p, &p->rules[i], err, errlen) < 0)
			goto release;
	if (export(ctx, &prog, &n, err, errlen) < 0)
		goto release;
	seccomp_release(ctx);
	if (n > CPOL_MAX_INSNS) {
		too_big(p, n, err, errlen);
		goto free_prog;
	}
	if (bpf_check(prog, n, err, errlen) < 0)
		goto free_prog;
	free(p->insns);
	p->insns = prog;
	p->ninsns = n;
	return 0;
release:
	seccomp_release(ctx);
free_prog:
	free(prog);
	return -1;
}
