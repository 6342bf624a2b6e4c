/*
 * bpf.c - validate and run seccomp classic-BPF programs.
 *
 * bpf_check accepts a subset of what the kernel's seccomp accepts:
 *   - 1..CPOL_MAX_INSNS instructions, the last one a RET;
 *   - only the opcodes seccomp allows (no byte/half loads, no indirect
 *     loads, no MSH), each spelled exactly (no stray size/mode bits);
 *   - loads from seccomp_data: 4-byte, aligned, inside the 64 bytes;
 *   - scratch memory M[0..15] read only where written first, by the
 *     kernel's own rule (a RET passes what was written before it on to
 *     the next instruction);
 *   - jumps forward and inside the program; every instruction but a RET
 *     reachable;
 *   - division or modulo by a constant zero, shifts by 32 or more refused;
 *   - fields an instruction does not use (jt, jf, k) zero;
 *   - RET K with an action cordon can install (kill, trap, errno 0..4095,
 *     log, allow; not trace or user-notif, which need a supervisor); no
 *     RET A.  bpf_check_listener also takes user-notif, exactly
 *     SECCOMP_RET_USER_NOTIF: the programs cordon itself makes for its
 *     listener (launcher/filter.c), never a blob's.
 * bpf_run then runs such a program exactly as the kernel would.
 */
#include <linux/filter.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bpf.h"

/* Opcodes seccomp takes, spelled out (linux/filter.h numbering). */
enum {
	OP_LD_ABS = BPF_LD | BPF_W | BPF_ABS,
	OP_LD_LEN = BPF_LD | BPF_W | BPF_LEN,
	OP_LD_IMM = BPF_LD | BPF_W | BPF_IMM,
	OP_LD_MEM = BPF_LD | BPF_W | BPF_MEM,
	OP_LDX_LEN = BPF_LDX | BPF_W | BPF_LEN,
	OP_LDX_IMM = BPF_LDX | BPF_W | BPF_IMM,
	OP_LDX_MEM = BPF_LDX | BPF_W | BPF_MEM,
	OP_ST = BPF_ST,
	OP_STX = BPF_STX,
	OP_RET_K = BPF_RET | BPF_K,
	OP_TAX = BPF_MISC | BPF_TAX,
	OP_TXA = BPF_MISC | BPF_TXA,
	OP_JA = BPF_JMP | BPF_JA,
};

static int fail(char *err, size_t errlen, size_t pc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, size_t pc, const char *fmt, ...)
{
	va_list ap;
	int off;

	off = snprintf(err, errlen, "instruction %zu: ", pc);
	if (off < 0 || (size_t)off >= errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err + off, errlen - (size_t)off, fmt, ap);
	va_end(ap);
	return -1;
}

static int is_alu(unsigned int code)
{
	unsigned int op = code & 0xf0u;

	if ((code & 0x07u) != BPF_ALU)
		return 0;
	if (op == BPF_NEG)
		return code == (BPF_ALU | BPF_NEG);
	switch (op) {
	case BPF_ADD: case BPF_SUB: case BPF_MUL: case BPF_DIV:
	case BPF_MOD: case BPF_AND: case BPF_OR: case BPF_XOR:
	case BPF_LSH: case BPF_RSH:
		return (code & ~0xf8u) == BPF_ALU;
	default:
		return 0;
	}
}

static int is_cond_jump(unsigned int code)
{
	unsigned int op = code & 0xf0u;

	if ((code & 0x07u) != BPF_JMP || (code & ~0xf8u) != BPF_JMP)
		return 0;
	return op == BPF_JEQ || op == BPF_JGT || op == BPF_JGE ||
	    op == BPF_JSET;
}

int bpf_action_valid(uint32_t k)
{
	uint32_t act = k & BPF_ACT_FULL_MASK, data = k & BPF_ACT_DATA_MASK;

	switch (act) {
	case BPF_ACT_ERRNO:
		return data <= 4095;
	case BPF_ACT_TRAP:
		return 1;
	case BPF_ACT_KILL_PROCESS:
	case BPF_ACT_KILL_THREAD:
	case BPF_ACT_LOG:
	case BPF_ACT_ALLOW:
		return data == 0;
	default:
		return 0;
	}
}

/* Fields one instruction must leave zero, and its own operand checks. */
static int check_one(const struct cpol_insn *in, size_t pc, size_t n,
    int notif, char *err, size_t errlen)
{
	unsigned int code = in->code;
	int cond = is_cond_jump(code);

	if (!cond && (in->jt || in->jf))
		return fail(err, errlen, pc, "jt/jf set on a non-jump");
	switch (code) {
	case OP_LD_ABS:
		if (in->k % 4 || in->k >= BPF_INPUT_LEN)
			return fail(err, errlen, pc, "load at offset %u: not an "
			    "aligned word of seccomp_data", in->k);
		return 0;
	case OP_LD_MEM: case OP_LDX_MEM: case OP_ST: case OP_STX:
		if (in->k >= BPF_SCRATCH_WORDS)
			return fail(err, errlen, pc, "scratch slot %u out of "
			    "range", in->k);
		return 0;
	case OP_LD_IMM: case OP_LDX_IMM:
		return 0;
	case OP_LD_LEN: case OP_LDX_LEN: case OP_TAX: case OP_TXA:
	case BPF_ALU | BPF_NEG:
		break;
	case OP_RET_K:
		if (!bpf_action_valid(in->k) &&
		    !(notif && in->k == BPF_ACT_USER_NOTIF))
			return fail(err, errlen, pc, "return value 0x%08x is "
			    "not an action cordon installs", in->k);
		return 0;
	case OP_JA:
		if ((uint64_t)pc + 1 + in->k >= n)
			return fail(err, errlen, pc, "jump past the end");
		return 0;
	default:
		if (cond) {
			if (pc + 1 + in->jt >= n || pc + 1 + in->jf >= n)
				return fail(err, errlen, pc,
				    "jump past the end");
		} else if (!is_alu(code)) {
			return fail(err, errlen, pc, "opcode 0x%04x not "
			    "allowed in seccomp", code);
		}
		if ((code & BPF_X) == 0) {
			unsigned int op = code & 0xf0u;

			if (!cond && (op == BPF_DIV || op == BPF_MOD) &&
			    in->k == 0)
				return fail(err, errlen, pc,
				    "division by constant zero");
			if (!cond && (op == BPF_LSH || op == BPF_RSH) &&
			    in->k >= 32)
				return fail(err, errlen, pc,
				    "shift by %u", in->k);
			return 0;
		}
		break;
	}
	if (in->k)
		return fail(err, errlen, pc, "unused k is 0x%x, not 0", in->k);
	return 0;
}

/*
 * A jump to `to` with slots `valid` written: the target is reached, and
 * keeps only the slots written on every jump to it.
 */
static void jump_to(uint8_t *reached, uint16_t *masks, size_t to,
    uint16_t valid)
{
	reached[to] = 1;
	masks[to] &= valid;
}

/*
 * Scratch slots are judged exactly as the kernel's classic-BPF checker
 * judges them (check_load_and_stores): one forward pass; a jump's targets
 * keep the slots written on every jump to them, and the instruction after
 * any non-jump, a RET included, also keeps only what was written before
 * that instruction.  That is stricter than following the paths alone (a
 * RET does not fall through), but a program the kernel refuses must never
 * pass here: it would fail at install instead of at compile time.
 */
static int check(const struct cpol_insn *prog, size_t n, int notif,
    char *err, size_t errlen)
{
	uint8_t reached[CPOL_MAX_INSNS];
	uint16_t masks[CPOL_MAX_INSNS], valid = 0;
	size_t pc;

	if (n == 0 || n > CPOL_MAX_INSNS) {
		snprintf(err, errlen, "program of %zu instructions (1..%u)",
		    n, CPOL_MAX_INSNS);
		return -1;
	}
	for (pc = 0; pc < n; pc++)
		if (check_one(&prog[pc], pc, n, notif, err, errlen) < 0)
			return -1;
	if (prog[n - 1].code != OP_RET_K)
		return fail(err, errlen, n - 1, "last instruction is not a "
		    "return");
	memset(reached, 0, n);
	memset(masks, 0xff, n * sizeof(*masks));
	reached[0] = 1;
	for (pc = 0; pc < n; pc++) {
		const struct cpol_insn *in = &prog[pc];

		valid &= masks[pc];
		if (!reached[pc]) {
			/* libseccomp leaves its bad-arch return unreachable
			 * when it reroutes long jumps; any other dead code is
			 * refused.  Nothing jumps here: valid is unchanged. */
			if (in->code == OP_RET_K)
				continue;
			return fail(err, errlen, pc, "unreachable");
		}
		if ((in->code == OP_LD_MEM || in->code == OP_LDX_MEM) &&
		    !(valid & (1u << in->k)))
			return fail(err, errlen, pc, "scratch slot %u read "
			    "before it is written", in->k);
		if (in->code == OP_ST || in->code == OP_STX)
			valid = (uint16_t)(valid | 1u << in->k);
		if (in->code == OP_JA) {
			jump_to(reached, masks, pc + 1 + in->k, valid);
			valid = 0xffff;
		} else if (is_cond_jump(in->code)) {
			jump_to(reached, masks, pc + 1 + in->jt, valid);
			jump_to(reached, masks, pc + 1 + in->jf, valid);
			valid = 0xffff;
		} else if (in->code != OP_RET_K) {
			reached[pc + 1] = 1;
		}
	}
	return 0;
}

int bpf_check(const struct cpol_insn *prog, size_t n, char *err,
    size_t errlen)
{
	return check(prog, n, 0, err, errlen);
}

int bpf_check_listener(const struct cpol_insn *prog, size_t n, char *err,
    size_t errlen)
{
	return check(prog, n, 1, err, errlen);
}

/* The 32-bit word of the input at byte offset off (aligned, < 64). */
static uint32_t word(const struct bpf_input *in, uint32_t off)
{
	uint64_t v;

	switch (off) {
	case 0:
		return in->nr;
	case 4:
		return in->arch;
	default:
		v = off < 16 ? in->ip : in->args[(off - 16) / 8];
		return (off & 4) ? (uint32_t)(v >> 32) : (uint32_t)v;
	}
}

static uint32_t alu(unsigned int op, uint32_t a, uint32_t v)
{
	switch (op) {
	case BPF_ADD: return a + v;
	case BPF_SUB: return a - v;
	case BPF_MUL: return a * v;
	case BPF_DIV: return a / v;
	case BPF_MOD: return a % v;
	case BPF_AND: return a & v;
	case BPF_OR: return a | v;
	case BPF_XOR: return a ^ v;
	case BPF_LSH: return a << (v & 31);
	case BPF_RSH: return a >> (v & 31);
	default: return (uint32_t)-a; /* BPF_NEG */
	}
}

static int jump_taken(unsigned int op, uint32_t a, uint32_t v)
{
	switch (op) {
	case BPF_JEQ: return a == v;
	case BPF_JGT: return a > v;
	case BPF_JGE: return a >= v;
	default: return (a & v) != 0; /* BPF_JSET */
	}
}

uint32_t bpf_run(const struct cpol_insn *prog, size_t n,
    const struct bpf_input *in)
{
	uint32_t a = 0, x = 0, mem[BPF_SCRATCH_WORDS] = { 0 };
	size_t pc = 0;

	if (n == 0 || n > CPOL_MAX_INSNS)
		return BPF_ACT_KILL_PROCESS;
	while (pc < n) {
		const struct cpol_insn *i = &prog[pc];
		unsigned int code = i->code, op = code & 0xf0u;
		uint32_t k = i->k, src = (code & BPF_X) ? x : k;

		pc++;
		switch (code) {
		case OP_LD_ABS:
			if (k % 4 || k >= BPF_INPUT_LEN)
				return BPF_ACT_KILL_PROCESS;
			a = word(in, k);
			continue;
		case OP_LD_LEN: a = BPF_INPUT_LEN; continue;
		case OP_LDX_LEN: x = BPF_INPUT_LEN; continue;
		case OP_LD_IMM: a = k; continue;
		case OP_LDX_IMM: x = k; continue;
		case OP_TAX: x = a; continue;
		case OP_TXA: a = x; continue;
		case OP_RET_K: return k;
		case OP_JA:
			if (k >= n - pc)
				return BPF_ACT_KILL_PROCESS;
			pc += k;
			continue;
		case OP_LD_MEM: case OP_LDX_MEM: case OP_ST: case OP_STX:
			if (k >= BPF_SCRATCH_WORDS)
				return BPF_ACT_KILL_PROCESS;
			if (code == OP_LD_MEM)
				a = mem[k];
			else if (code == OP_LDX_MEM)
				x = mem[k];
			else
				mem[k] = code == OP_ST ? a : x;
			continue;
		default:
			break;
		}
		if (is_cond_jump(code)) {
			pc += jump_taken(op, a, src) ? i->jt : i->jf;
			continue;
		}
		if (!is_alu(code))
			return BPF_ACT_KILL_PROCESS;
		if ((op == BPF_DIV || op == BPF_MOD) && src == 0)
			return BPF_ACT_KILL_THREAD;
		a = alu(op, a, src);
	}
	return BPF_ACT_KILL_PROCESS; /* fell off the end */
}

const char *bpf_action_str(uint32_t ret, char *buf, size_t len)
{
	uint32_t data = ret & BPF_ACT_DATA_MASK;

	switch (ret & BPF_ACT_FULL_MASK) {
	case BPF_ACT_KILL_PROCESS: snprintf(buf, len, "kill"); break;
	case BPF_ACT_KILL_THREAD: snprintf(buf, len, "kill-thread"); break;
	case BPF_ACT_TRAP: snprintf(buf, len, "trap"); break;
	case BPF_ACT_ERRNO: snprintf(buf, len, "errno(%u)", data); break;
	case BPF_ACT_USER_NOTIF: snprintf(buf, len, "user-notif"); break;
	case BPF_ACT_TRACE: snprintf(buf, len, "trace(%u)", data); break;
	case BPF_ACT_LOG: snprintf(buf, len, "log"); break;
	case BPF_ACT_ALLOW: snprintf(buf, len, "allow"); break;
	default: snprintf(buf, len, "0x%08x", ret); break;
	}
	return buf;
}
