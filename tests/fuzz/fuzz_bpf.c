/*
 * fuzz_bpf.c - any program and seccomp_data into common/bpf.c.
 *
 * Input: 64 bytes of struct seccomp_data (little-endian nr, arch, ip,
 * args[6]; shorter inputs are zero-padded), then instructions of 8 bytes
 * each (u16 code, u8 jt, u8 jf, u32 k, as in the blob); a partial last
 * instruction is dropped, at most CPOL_MAX_INSNS + 1 are taken so the
 * limit itself is exercised.
 *
 * Properties:
 *   - bpf_check and bpf_run never crash, hang or read outside the
 *     program, whatever the program (bpf_run is documented safe on
 *     unchecked programs);
 *   - a refusal comes with a message;
 *   - on an accepted program, bpf_run agrees with the reference
 *     interpreter below, written separately from bpf.c from the kernel's
 *     classic-BPF semantics, and returns an action cordon installs;
 *   - an accepted program is also accepted by the kernel's own classic
 *     BPF checker (SO_ATTACH_FILTER on a socket: no privilege needed, and
 *     nothing is installed on this process).  The kernel's seccomp check
 *     is stricter than the socket one, but bpf_check is stricter still.
 */
#include <errno.h>
#include <linux/filter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bpf.h"
#include "cpol.h"
#include "fuzz.h"

/* One spare so that the harness can offer CPOL_MAX_INSNS + 1. */
#define FUZZ_BPF_MAX (CPOL_MAX_INSNS + 1)

static int sock = -1;

int fuzz_setup(void)
{
	sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	return sock < 0 ? -1 : 0;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* The input as the filter sees it: 64 bytes, host order words. */
static void data_words(const struct bpf_input *in, uint32_t w[16])
{
	unsigned int i;

	w[0] = in->nr;
	w[1] = in->arch;
	w[2] = (uint32_t)in->ip;
	w[3] = (uint32_t)(in->ip >> 32);
	for (i = 0; i < 6; i++) {
		w[4 + 2 * i] = (uint32_t)in->args[i];
		w[5 + 2 * i] = (uint32_t)(in->args[i] >> 32);
	}
}

/*
 * Reference: classic BPF as the kernel runs a seccomp filter that passed
 * its checks.  Only called on programs bpf_check accepted, so jumps stay
 * inside and loads are aligned; it still guards pc and offsets itself
 * (returning 0xffffffff, a value no program may return) so that a checker
 * bug shows up as a disagreement rather than as a crash in the oracle.
 */
#define REF_BAD 0xffffffffu

static uint32_t ref_run(const struct cpol_insn *prog, size_t n,
    const struct bpf_input *in)
{
	uint32_t w[16], m[16], a = 0, x = 0;
	size_t pc = 0, steps;

	memset(m, 0, sizeof(m));
	data_words(in, w);
	for (steps = 0; steps <= n && pc < n; steps++) {
		const struct cpol_insn *i = &prog[pc++];
		uint32_t k = i->k;
		uint32_t v = BPF_SRC(i->code) == BPF_X ? x : k;

		switch (BPF_CLASS(i->code)) {
		case BPF_RET:
			return k;
		case BPF_LD:
			if (BPF_MODE(i->code) == BPF_ABS) {
				if (k >= 64 || k % 4 != 0)
					return REF_BAD;
				a = w[k / 4];
			} else if (BPF_MODE(i->code) == BPF_LEN)
				a = 64;
			else if (BPF_MODE(i->code) == BPF_IMM)
				a = k;
			else if (BPF_MODE(i->code) == BPF_MEM && k < 16)
				a = m[k];
			else
				return REF_BAD;
			break;
		case BPF_LDX:
			if (BPF_MODE(i->code) == BPF_LEN)
				x = 64;
			else if (BPF_MODE(i->code) == BPF_IMM)
				x = k;
			else if (BPF_MODE(i->code) == BPF_MEM && k < 16)
				x = m[k];
			else
				return REF_BAD;
			break;
		case BPF_ST:
		case BPF_STX:
			if (k >= 16)
				return REF_BAD;
			m[k] = BPF_CLASS(i->code) == BPF_ST ? a : x;
			break;
		case BPF_MISC:
			if (BPF_MISCOP(i->code) == BPF_TAX)
				x = a;
			else
				a = x;
			break;
		case BPF_ALU:
			switch (BPF_OP(i->code)) {
			case BPF_ADD: a += v; break;
			case BPF_SUB: a -= v; break;
			case BPF_MUL: a *= v; break;
			case BPF_DIV:
				if (v == 0)
					return 0;  /* the kernel: return 0 */
				a /= v;
				break;
			case BPF_MOD:
				if (v == 0)
					return 0;
				a %= v;
				break;
			case BPF_AND: a &= v; break;
			case BPF_OR: a |= v; break;
			case BPF_XOR: a ^= v; break;
			/* The kernel masks a 32-bit shift count to 5 bits. */
			case BPF_LSH: a <<= (v & 31); break;
			case BPF_RSH: a >>= (v & 31); break;
			case BPF_NEG: a = 0u - a; break;
			default: return REF_BAD;
			}
			break;
		case BPF_JMP:
			switch (BPF_OP(i->code)) {
			case BPF_JA: pc += k; break;
			case BPF_JEQ: pc += a == v ? i->jt : i->jf; break;
			case BPF_JGT: pc += a > v ? i->jt : i->jf; break;
			case BPF_JGE: pc += a >= v ? i->jt : i->jf; break;
			case BPF_JSET: pc += (a & v) ? i->jt : i->jf; break;
			default: return REF_BAD;
			}
			break;
		default:
			return REF_BAD;
		}
	}
	return REF_BAD;  /* fell off the end or looped: never for seccomp */
}

static int installable(uint32_t ret)
{
	uint32_t act = ret & BPF_ACT_FULL_MASK;

	return act == BPF_ACT_KILL_PROCESS || act == BPF_ACT_KILL_THREAD ||
	    act == BPF_ACT_TRAP || act == BPF_ACT_ERRNO ||
	    act == BPF_ACT_LOG || act == BPF_ACT_ALLOW;
}

/* The kernel's classic-BPF checker, through a socket filter. */
static void kernel_accepts(const struct cpol_insn *prog, size_t n)
{
	struct sock_filter f[FUZZ_BPF_MAX];
	struct sock_fprog fp;
	size_t i;

	for (i = 0; i < n; i++) {
		f[i].code = prog[i].code;
		f[i].jt = prog[i].jt;
		f[i].jf = prog[i].jf;
		f[i].k = prog[i].k;
	}
	fp.len = (unsigned short)n;
	fp.filter = f;
	/* EINVAL is the checker's refusal; ENOMEM is the socket's memory
	 * bound (net.core.optmem_max, 20 KiB on older kernels), not a
	 * judgement of the program. */
	if (setsockopt(sock, SOL_SOCKET, SO_ATTACH_FILTER, &fp,
	    sizeof(fp)) < 0 && errno != ENOMEM)
		fuzz_fail("bpf_check accepted a program of %zu instructions "
		    "that the kernel refuses: %s", n, strerror(errno));
	/* Detach again: the next accepted program starts clean. */
	(void)setsockopt(sock, SOL_SOCKET, SO_DETACH_FILTER, NULL, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t head[BPF_INPUT_LEN];
	struct bpf_input in;
	struct cpol_insn *prog;
	size_t n, i;
	char err[256];
	uint32_t got, want;

	memset(head, 0, sizeof(head));
	memcpy(head, data, size < sizeof(head) ? size : sizeof(head));
	in.nr = le32(head);
	in.arch = le32(head + 4);
	in.ip = le64(head + 8);
	for (i = 0; i < 6; i++)
		in.args[i] = le64(head + 16 + 8 * i);
	n = size > BPF_INPUT_LEN ? (size - BPF_INPUT_LEN) / 8 : 0;
	if (n > FUZZ_BPF_MAX)
		n = FUZZ_BPF_MAX;
	/* Exactly n instructions on the heap: ASan sees any overrun. */
	prog = malloc(n ? n * sizeof(*prog) : 1);
	if (!prog)
		return 0;
	for (i = 0; i < n; i++) {
		const uint8_t *p = data + BPF_INPUT_LEN + 8 * i;

		prog[i].code = (uint16_t)(p[0] | p[1] << 8);
		prog[i].jt = p[2];
		prog[i].jf = p[3];
		prog[i].k = le32(p + 4);
	}
	err[0] = '\0';
	got = bpf_run(prog, n, &in);  /* safe even unchecked */
	if (bpf_check(prog, n, err, sizeof(err)) < 0) {
		if (err[0] == '\0')
			fuzz_fail("bpf_check refused without a message");
		if (fuzz_expect_accept)
			fuzz_fail("refused a program that must be accepted: "
			    "%s", err);
		free(prog);
		return 0;
	}
	want = ref_run(prog, n, &in);
	if (got != want)
		fuzz_fail("bpf_run returned 0x%08x, the reference 0x%08x "
		    "(%zu instructions)", got, want, n);
	if (!installable(got))
		fuzz_fail("accepted program returned 0x%08x", got);
	kernel_accepts(prog, n);
	free(prog);
	return 0;
}
