/*
 * test_bpf.c - the seccomp BPF checker and interpreter (common/bpf.c):
 * every opcode run, every refusal hit, the 4096-instruction limit exact.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <linux/filter.h>

#include "bpf.h"

#define S(c, jt, jf, k) ((struct cpol_insn){ (uint16_t)(c), jt, jf, k })
#define RET(k) S(BPF_RET | BPF_K, 0, 0, k)
#define LD(off) S(BPF_LD | BPF_W | BPF_ABS, 0, 0, off)
#define IMM(k) S(BPF_LD | BPF_W | BPF_IMM, 0, 0, k)
#define LDXI(k) S(BPF_LDX | BPF_W | BPF_IMM, 0, 0, k)
#define ALLOW BPF_ACT_ALLOW
#define N(a) (sizeof(a) / sizeof((a)[0]))

static char err[256];

static struct bpf_input input(void)
{
	struct bpf_input in;
	unsigned int i;

	memset(&in, 0, sizeof(in));
	in.nr = 41;
	in.arch = 0xc000003eu;
	in.ip = 0x1122334455667788u;
	for (i = 0; i < 6; i++)
		in.args[i] = 0x100000000u * (i + 1) + 0x10 * (i + 1);
	return in;
}

static int check(const struct cpol_insn *p, size_t n)
{
	err[0] = '\0';
	return bpf_check(p, n, err, sizeof(err));
}

/* Run a checked program: A is returned through "ret errno(A & 0xfff)"
 * built by the caller; here we just run. */
static uint32_t run(const struct cpol_insn *p, size_t n)
{
	struct bpf_input in = input();

	assert_int_equal(check(p, n), 0);
	return bpf_run(p, n, &in);
}

/* A program computing A, then returning ERRNO | (A == want). */
static void expect_a(struct cpol_insn *body, size_t nb, uint32_t want)
{
	struct cpol_insn p[32];

	assert_true(nb + 3 <= N(p));
	memcpy(p, body, nb * sizeof(*p));
	p[nb] = S(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, want);
	p[nb + 1] = RET(ALLOW);
	p[nb + 2] = RET(BPF_ACT_ERRNO | 1);
	assert_int_equal(run(p, nb + 3), ALLOW);
}

static void test_loads(void **state)
{
	static const struct { uint32_t off, want; } cases[] = {
		{ 0, 41 }, { 4, 0xc000003eu }, { 8, 0x55667788u },
		{ 12, 0x11223344u }, { 16, 0x10 }, { 20, 1 }, { 24, 0x20 },
		{ 28, 2 }, { 56, 0x60 }, { 60, 6 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct cpol_insn p[] = { LD(cases[i].off) };

		expect_a(p, 1, cases[i].want);
	}
	{
		struct cpol_insn p[] = { S(BPF_LD | BPF_W | BPF_LEN, 0, 0, 0) };

		expect_a(p, 1, 64);
	}
	{
		struct cpol_insn p[] = { S(BPF_LDX | BPF_W | BPF_LEN, 0, 0, 0),
			S(BPF_MISC | BPF_TXA, 0, 0, 0) };

		expect_a(p, 2, 64);
	}
	{
		struct cpol_insn p[] = { IMM(7), S(BPF_ST, 0, 0, 3), IMM(0),
			S(BPF_LD | BPF_W | BPF_MEM, 0, 0, 3) };

		expect_a(p, 4, 7);
	}
	{
		struct cpol_insn p[] = { LDXI(9), S(BPF_STX, 0, 0, 15),
			S(BPF_LDX | BPF_W | BPF_MEM, 0, 0, 15),
			S(BPF_MISC | BPF_TXA, 0, 0, 0) };

		expect_a(p, 4, 9);
	}
	{
		struct cpol_insn p[] = { IMM(5), S(BPF_MISC | BPF_TAX, 0, 0, 0),
			IMM(0), S(BPF_MISC | BPF_TXA, 0, 0, 0) };

		expect_a(p, 4, 5);
	}
}

static void test_alu(void **state)
{
	static const struct { unsigned int op; uint32_t a, v, want; } cases[] = {
		{ BPF_ADD, 5, 3, 8 }, { BPF_SUB, 5, 7, 0xfffffffeu },
		{ BPF_MUL, 0x10000, 0x10000, 0 }, { BPF_DIV, 17, 5, 3 },
		{ BPF_MOD, 17, 5, 2 }, { BPF_AND, 0xf0f0, 0xff00, 0xf000 },
		{ BPF_OR, 0xf0, 0x0f, 0xff }, { BPF_XOR, 0xff, 0x0f, 0xf0 },
		{ BPF_LSH, 1, 31, 0x80000000u }, { BPF_RSH, 0x80000000u, 31, 1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct cpol_insn k[] = { IMM(cases[i].a),
			S(BPF_ALU | cases[i].op | BPF_K, 0, 0, cases[i].v) };
		struct cpol_insn x[] = { IMM(cases[i].a), LDXI(cases[i].v),
			S(BPF_ALU | cases[i].op | BPF_X, 0, 0, 0) };

		expect_a(k, 2, cases[i].want);
		expect_a(x, 3, cases[i].want);
	}
	{
		struct cpol_insn p[] = { IMM(1),
			S(BPF_ALU | BPF_NEG, 0, 0, 0) };

		expect_a(p, 2, 0xffffffffu);
	}
	{
		/* Division by a zero X stops the program with 0, as the
		 * kernel does. */
		struct cpol_insn p[] = { IMM(1), LDXI(0),
			S(BPF_ALU | BPF_DIV | BPF_X, 0, 0, 0), RET(ALLOW) };

		assert_int_equal(run(p, N(p)), BPF_ACT_KILL_THREAD);
	}
}

static void test_jumps(void **state)
{
	static const struct { unsigned int op; uint32_t a, v; int taken; } c[] = {
		{ BPF_JEQ, 5, 5, 1 }, { BPF_JEQ, 5, 6, 0 },
		{ BPF_JGT, 6, 5, 1 }, { BPF_JGT, 5, 5, 0 },
		{ BPF_JGE, 5, 5, 1 }, { BPF_JGE, 4, 5, 0 },
		{ BPF_JSET, 6, 2, 1 }, { BPF_JSET, 6, 1, 0 },
		{ BPF_JGT, 0xffffffffu, 1, 1 },  /* unsigned */
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(c); i++) {
		struct cpol_insn k[] = { IMM(c[i].a),
			S(BPF_JMP | c[i].op | BPF_K, 1, 0, c[i].v),
			RET(BPF_ACT_ERRNO | 1), RET(ALLOW) };
		struct cpol_insn x[] = { IMM(c[i].a), LDXI(c[i].v),
			S(BPF_JMP | c[i].op | BPF_X, 1, 0, 0),
			RET(BPF_ACT_ERRNO | 1), RET(ALLOW) };
		uint32_t want = c[i].taken ? ALLOW : BPF_ACT_ERRNO | 1;

		assert_int_equal(run(k, N(k)), want);
		assert_int_equal(run(x, N(x)), want);
	}
	{
		struct cpol_insn p[] = { S(BPF_JMP | BPF_JA, 0, 0, 1),
			RET(BPF_ACT_KILL_PROCESS), RET(ALLOW) };

		assert_int_equal(check(p, N(p)), 0); /* a dead RET is fine */
		p[1] = IMM(0);
		assert_int_equal(check(p, N(p)), -1); /* other dead code not */
		assert_string_equal(err, "instruction 1: unreachable");
		p[0].k = 0;
		p[1] = RET(BPF_ACT_LOG);
		assert_int_equal(run(p, 2), BPF_ACT_LOG);
	}
}

static void test_returns(void **state)
{
	static const uint32_t ok[] = {
		ALLOW, BPF_ACT_LOG, BPF_ACT_KILL_PROCESS, BPF_ACT_KILL_THREAD,
		BPF_ACT_TRAP, BPF_ACT_TRAP | 7, BPF_ACT_ERRNO,
		BPF_ACT_ERRNO | 4095,
	};
	static const uint32_t bad[] = {
		BPF_ACT_ERRNO | 4096, BPF_ACT_TRACE, BPF_ACT_USER_NOTIF,
		ALLOW | 1, BPF_ACT_KILL_PROCESS | 1, 0x12340000u, 0xffffffffu,
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(ok); i++) {
		struct cpol_insn p[] = { RET(ok[i]) };

		assert_int_equal(run(p, 1), ok[i]);
	}
	for (i = 0; i < N(bad); i++) {
		struct cpol_insn p[] = { RET(bad[i]) };
		char want[96];

		assert_int_equal(check(p, 1), -1);
		snprintf(want, sizeof(want), "instruction 0: return value "
		    "0x%08x is not an action cordon installs", bad[i]);
		assert_string_equal(err, want);
	}
}

/* Each entry: a program bpf_check must refuse, and the exact message. */
static void test_refusals(void **state)
{
	static const struct {
		const char *why;
		struct cpol_insn p[6];
		size_t n;
		const char *msg;
	} c[] = {
		{ "half load", { S(0x28, 0, 0, 0), RET(ALLOW) }, 2,
		    "instruction 0: opcode 0x0028 not allowed in seccomp" },
		{ "byte load", { S(0x30, 0, 0, 0), RET(ALLOW) }, 2,
		    "instruction 0: opcode 0x0030 not allowed in seccomp" },
		{ "indirect", { S(0x40, 0, 0, 0), RET(ALLOW) }, 2,
		    "instruction 0: opcode 0x0040 not allowed in seccomp" },
		{ "msh", { S(0xb1, 0, 0, 0), RET(ALLOW) }, 2,
		    "instruction 0: opcode 0x00b1 not allowed in seccomp" },
		{ "ret a", { S(BPF_RET | BPF_A, 0, 0, 0), RET(ALLOW) }, 2,
		    "instruction 0: opcode 0x0016 not allowed in seccomp" },
		{ "ret x", { S(BPF_RET | BPF_X, 0, 0, 0), RET(ALLOW) }, 2,
		    "instruction 0: opcode 0x000e not allowed in seccomp" },
		{ "misaligned", { LD(2), RET(ALLOW) }, 2,
		    "instruction 0: load at offset 2: "
		    "not an aligned word of seccomp_data" },
		{ "misaligned 17", { LD(17), RET(ALLOW) }, 2,
		    "instruction 0: load at offset 17: "
		    "not an aligned word of seccomp_data" },
		{ "past data", { LD(64), RET(ALLOW) }, 2,
		    "instruction 0: load at offset 64: "
		    "not an aligned word of seccomp_data" },
		{ "far past", { LD(0xfffffffcu), RET(ALLOW) }, 2,
		    "instruction 0: load at offset 4294967292: "
		    "not an aligned word of seccomp_data" },
		{ "slot 16", { IMM(0), S(BPF_ST, 0, 0, 16), RET(ALLOW) }, 3,
		    "instruction 1: scratch slot 16 out of range" },
		{ "unwritten", { S(BPF_LD | BPF_MEM, 0, 0, 0), RET(ALLOW) }, 2,
		    "instruction 0: scratch slot 0 read before it is written" },
		{ "one path", { IMM(0), S(BPF_JMP | BPF_JEQ, 0, 1, 0),
		    S(BPF_ST, 0, 0, 1), S(BPF_LDX | BPF_MEM, 0, 0, 1),
		    RET(ALLOW) }, 5,
		    "instruction 3: scratch slot 1 read before it is written" },
		/* Written on the only path to the read, but the RET before
		 * the read did not write it: the kernel refuses (F10). */
		{ "after ret", { S(BPF_JMP | BPF_JEQ, 2, 0, 0),
		    S(BPF_ST, 0, 0, 0), S(BPF_JMP | BPF_JEQ, 0, 1, 0),
		    RET(ALLOW), S(BPF_LD | BPF_MEM, 0, 0, 0), RET(ALLOW) }, 6,
		    "instruction 4: scratch slot 0 read before it is written" },
		{ "div 0", { S(BPF_ALU | BPF_DIV | BPF_K, 0, 0, 0), RET(ALLOW) }, 2,
		    "instruction 0: division by constant zero" },
		{ "mod 0", { S(BPF_ALU | BPF_MOD | BPF_K, 0, 0, 0), RET(ALLOW) }, 2,
		    "instruction 0: division by constant zero" },
		{ "shift 32", { S(BPF_ALU | BPF_LSH | BPF_K, 0, 0, 32),
		    RET(ALLOW) }, 2,
		    "instruction 0: shift by 32" },
		{ "ja out", { S(BPF_JMP | BPF_JA, 0, 0, 1), RET(ALLOW) }, 2,
		    "instruction 0: jump past the end" },
		{ "ja huge", { S(BPF_JMP | BPF_JA, 0, 0, 0xffffffffu),
		    RET(ALLOW) }, 2,
		    "instruction 0: jump past the end" },
		{ "jt out", { S(BPF_JMP | BPF_JEQ, 1, 0, 0), RET(ALLOW) }, 2,
		    "instruction 0: jump past the end" },
		{ "jf out", { S(BPF_JMP | BPF_JEQ, 0, 1, 0), RET(ALLOW) }, 2,
		    "instruction 0: jump past the end" },
		{ "no ret", { RET(ALLOW), IMM(0) }, 2,
		    "instruction 1: last instruction is not a return" },
		{ "jt on ld", { S(BPF_LD | BPF_IMM, 1, 0, 0), IMM(0),
		    RET(ALLOW) }, 3,
		    "instruction 0: jt/jf set on a non-jump" },
		{ "k on tax", { S(BPF_MISC | BPF_TAX, 0, 0, 1), RET(ALLOW) }, 2,
		    "instruction 0: unused k is 0x1, not 0" },
		{ "k on alu x", { S(BPF_ALU | BPF_ADD | BPF_X, 0, 0, 1),
		    RET(ALLOW) }, 2,
		    "instruction 0: unused k is 0x1, not 0" },
		{ "bad alu", { S(BPF_ALU | 0xb0, 0, 0, 1), RET(ALLOW) }, 2,
		    "instruction 0: opcode 0x00b4 not allowed in seccomp" },
		{ "bad jmp", { S(BPF_JMP | 0x50, 0, 0, 0), RET(ALLOW) }, 2,
		    "instruction 0: opcode 0x0055 not allowed in seccomp" },
		{ "unreachable", { RET(ALLOW), IMM(0), RET(ALLOW) }, 3,
		    "instruction 1: unreachable" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(c); i++) {
		if (check(c[i].p, c[i].n) != -1)
			fail_msg("accepted: %s", c[i].why);
		if (strcmp(err, c[i].msg) != 0)
			fail_msg("%s: refused as \"%s\", not \"%s\"",
			    c[i].why, err, c[i].msg);
	}
	assert_int_equal(check(c[0].p, 0), -1);
	assert_string_equal(err, "program of 0 instructions (1..4096)");
}

static void test_length(void **state)
{
	struct cpol_insn *p = calloc(CPOL_MAX_INSNS + 1, sizeof(*p));
	struct bpf_input in = input();
	size_t i;

	(void)state;
	assert_non_null(p);
	for (i = 0; i < CPOL_MAX_INSNS; i++)
		p[i] = IMM((uint32_t)i);
	p[CPOL_MAX_INSNS - 1] = RET(ALLOW);
	assert_int_equal(check(p, CPOL_MAX_INSNS), 0);
	assert_int_equal(bpf_run(p, CPOL_MAX_INSNS, &in), ALLOW);
	p[CPOL_MAX_INSNS - 1] = IMM(0);
	p[CPOL_MAX_INSNS] = RET(ALLOW);
	assert_int_equal(check(p, CPOL_MAX_INSNS + 1), -1);
	assert_string_equal(err, "program of 4097 instructions (1..4096)");
	/* bpf_run on what bpf_check refuses kills */
	assert_int_equal(bpf_run(p, CPOL_MAX_INSNS + 1, &in),
	    BPF_ACT_KILL_PROCESS);
	free(p);
}

static void test_run_unchecked(void **state)
{
	struct bpf_input in = input();
	struct cpol_insn a[] = { LD(2), RET(ALLOW) };
	struct cpol_insn b[] = { S(BPF_JMP | BPF_JA, 0, 0, 5), RET(ALLOW) };
	struct cpol_insn c[] = { IMM(0) };

	(void)state;
	assert_int_equal(bpf_run(a, 2, &in), BPF_ACT_KILL_PROCESS);
	assert_int_equal(bpf_run(b, 2, &in), BPF_ACT_KILL_PROCESS);
	assert_int_equal(bpf_run(c, 1, &in), BPF_ACT_KILL_PROCESS);
	assert_int_equal(bpf_run(c, 0, &in), BPF_ACT_KILL_PROCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loads),
		cmocka_unit_test(test_alu),
		cmocka_unit_test(test_jumps),
		cmocka_unit_test(test_returns),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_length),
		cmocka_unit_test(test_run_unchecked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
