/*
 * test_filter.c - the programs cordon makes for its listener
 * (launcher/filter.c): each, built for a small hand-made blob, passes its
 * proof and answers a table of calls as the launcher always has; each
 * proof fails on a program broken in one jump or one return; and the
 * cases that cannot be built say so.
 */
#include <errno.h>
#include <linux/audit.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include <cmocka.h>

#include "bpf.h"
#include "filter.h"
#include "plan.h"

#define NOTIF BPF_ACT_USER_NOTIF
#define ALLOW BPF_ACT_ALLOW
#define EPERM_ (BPF_ACT_ERRNO | EPERM)
#define ENOENT_ (BPF_ACT_ERRNO | ENOENT)
#define ONES UINT64_MAX

#define TEXT_LO 0x555500001000ULL
#define TEXT_HI 0x555500009000ULL
static const struct filter_text text = { TEXT_LO, TEXT_HI };
#define IN_TEXT 0x555500004000ULL
#define OUT_TEXT 0x7f0000001000ULL

static struct cpol_insn stmt(uint16_t code, uint32_t k)
{
	return (struct cpol_insn){ code, 0, 0, k };
}

/* jeq k at `at`, to t or f (indices). */
static struct cpol_insn jeq(uint32_t k, size_t at, size_t t, size_t f)
{
	return (struct cpol_insn){ BPF_JMP | BPF_JEQ | BPF_K,
	    (uint8_t)(t - at - 1), (uint8_t)(f - at - 1), k };
}

/* The sample blob: x86-64 only (else kill); open errno(EPERM), ptrace
 * kill, kill trap, getpid log, execve errno(ENOENT) when its first
 * argument is 0 (else allow), everything else allowed. */
enum { B_ALLOW = 10, B_EPERM, B_ENOENT, B_TRAP, B_LOG, B_KILL, B_LEN };

static void sample(struct cpol_insn *b)
{
	b[0] = stmt(BPF_LD | BPF_W | BPF_ABS, 4);
	b[1] = jeq(AUDIT_ARCH_X86_64, 1, 2, B_KILL);
	b[2] = stmt(BPF_LD | BPF_W | BPF_ABS, 0);
	b[3] = jeq(SYS_open, 3, B_EPERM, 4);
	b[4] = jeq(SYS_ptrace, 4, B_KILL, 5);
	b[5] = jeq(SYS_kill, 5, B_TRAP, 6);
	b[6] = jeq(SYS_getpid, 6, B_LOG, 7);
	b[7] = jeq(SYS_execve, 7, 8, B_ALLOW);
	b[8] = stmt(BPF_LD | BPF_W | BPF_ABS, 16);
	b[9] = jeq(0, 9, B_ENOENT, B_ALLOW);
	b[B_ALLOW] = stmt(BPF_RET | BPF_K, ALLOW);
	b[B_EPERM] = stmt(BPF_RET | BPF_K, EPERM_);
	b[B_ENOENT] = stmt(BPF_RET | BPF_K, ENOENT_);
	b[B_TRAP] = stmt(BPF_RET | BPF_K, BPF_ACT_TRAP);
	b[B_LOG] = stmt(BPF_RET | BPF_K, BPF_ACT_LOG);
	b[B_KILL] = stmt(BPF_RET | BPF_K, BPF_ACT_KILL_PROCESS);
}

static struct cpol_insn blob[B_LEN];

static int setup(void **state)
{
	char err[256];

	(void)state;
	sample(blob);
	assert_int_equal(bpf_check(blob, B_LEN, err, sizeof(err)), 0);
	return 0;
}

static struct cpol_insn *build(enum filter_prog which, size_t *len)
{
	struct cpol_insn *f = filter_build(which, blob, B_LEN, text, len);

	assert_non_null(f);
	return f;
}

static int prove(enum filter_prog which, const struct cpol_insn *f,
    size_t len, char *err, size_t errlen)
{
	return filter_prove(which, blob, B_LEN, f, len, text, err, errlen);
}

static void test_proven(void **state)
{
	static const enum filter_prog all[] = { FPROG_NOTIFY, FPROG_LEARN,
	    FPROG_LLWATCH };
	char err[256] = "";
	size_t i, len;
	struct cpol_insn *f;

	(void)state;
	for (i = 0; i < 3; i++) {
		f = build(all[i], &len);
		if (prove(all[i], f, len, err, sizeof(err)) < 0)
			fail_msg("%zu: %s", i, err);
		free(f);
	}
	f = build(FPROG_NOTIFY, &len);
	assert_int_equal(len, NOTIFY_PREFIX + 2 * B_LEN);   /* the plan's */
	free(f);
}

/* One call, as the launcher's programs have always answered it. */
struct call {
	enum filter_prog which;
	uint32_t arch, nr;
	uint64_t ip, arg0;
	uint32_t want;
};

static const struct call calls[] = {
	/* the notify rewrite: refusals notified, the rest as it is */
	{ FPROG_NOTIFY, AUDIT_ARCH_X86_64, SYS_open, OUT_TEXT, 0, NOTIF },
	{ FPROG_NOTIFY, AUDIT_ARCH_X86_64, SYS_ptrace, OUT_TEXT, 0, NOTIF },
	{ FPROG_NOTIFY, AUDIT_ARCH_X86_64, SYS_kill, OUT_TEXT, 0,
	  BPF_ACT_TRAP },
	{ FPROG_NOTIFY, AUDIT_ARCH_X86_64, SYS_getpid, IN_TEXT, 0,
	  BPF_ACT_LOG },
	{ FPROG_NOTIFY, AUDIT_ARCH_X86_64, SYS_read, OUT_TEXT, 0, ALLOW },
	{ FPROG_NOTIFY, AUDIT_ARCH_I386, SYS_read, OUT_TEXT, 0, NOTIF },
	{ FPROG_NOTIFY, AUDIT_ARCH_X86_64, 0x40000000u | SYS_open, OUT_TEXT,
	  0, ALLOW },
	/* cordon's own exec: the blob's answer, never notified */
	{ FPROG_NOTIFY, AUDIT_ARCH_X86_64, SYS_execve, IN_TEXT, 0, ENOENT_ },
	{ FPROG_NOTIFY, AUDIT_ARCH_X86_64, SYS_execve, TEXT_LO, 0, ENOENT_ },
	{ FPROG_NOTIFY, AUDIT_ARCH_X86_64, SYS_execve, TEXT_HI, 0, NOTIF },
	{ FPROG_NOTIFY, AUDIT_ARCH_X86_64, SYS_execve, OUT_TEXT, 0, NOTIF },
	{ FPROG_NOTIFY, AUDIT_ARCH_X86_64, SYS_execve, OUT_TEXT, ONES,
	  ALLOW },
	/* learn: the watched and every refusal notified */
	{ FPROG_LEARN, AUDIT_ARCH_X86_64, SYS_openat, OUT_TEXT, 0, NOTIF },
	{ FPROG_LEARN, AUDIT_ARCH_X86_64, SYS_clone, IN_TEXT, 0, NOTIF },
	{ FPROG_LEARN, AUDIT_ARCH_X86_64, SYS_mknod, OUT_TEXT, 0, ALLOW },
	{ FPROG_LEARN, AUDIT_ARCH_X86_64, SYS_kill, OUT_TEXT, 0, NOTIF },
	{ FPROG_LEARN, AUDIT_ARCH_X86_64, SYS_getpid, OUT_TEXT, 0,
	  BPF_ACT_LOG },
	{ FPROG_LEARN, AUDIT_ARCH_X86_64, SYS_exit, IN_TEXT, 0, ALLOW },
	{ FPROG_LEARN, AUDIT_ARCH_X86_64, SYS_exit, OUT_TEXT, 0, NOTIF },
	{ FPROG_LEARN, AUDIT_ARCH_X86_64, SYS_exit_group, OUT_TEXT, 0,
	  NOTIF },
	{ FPROG_LEARN, AUDIT_ARCH_X86_64, SYS_execve, IN_TEXT, ONES, ALLOW },
	{ FPROG_LEARN, AUDIT_ARCH_X86_64, SYS_execve, IN_TEXT, 0, NOTIF },
	{ FPROG_LEARN, AUDIT_ARCH_X86_64, SYS_execve, OUT_TEXT, ONES, NOTIF },
	{ FPROG_LEARN, AUDIT_ARCH_I386, SYS_getpid, OUT_TEXT, 0, NOTIF },
	/* the Landlock watch: path calls the blob allows notified too */
	{ FPROG_LLWATCH, AUDIT_ARCH_X86_64, SYS_openat, OUT_TEXT, 0, NOTIF },
	{ FPROG_LLWATCH, AUDIT_ARCH_X86_64, SYS_mknod, OUT_TEXT, 0, NOTIF },
	{ FPROG_LLWATCH, AUDIT_ARCH_X86_64, SYS_clone, OUT_TEXT, 0, ALLOW },
	{ FPROG_LLWATCH, AUDIT_ARCH_X86_64, SYS_open, OUT_TEXT, 0, NOTIF },
	{ FPROG_LLWATCH, AUDIT_ARCH_X86_64, SYS_kill, OUT_TEXT, 0,
	  BPF_ACT_TRAP },
	{ FPROG_LLWATCH, AUDIT_ARCH_X86_64, SYS_ptrace, OUT_TEXT, 0, NOTIF },
	{ FPROG_LLWATCH, AUDIT_ARCH_X86_64, SYS_getpid, OUT_TEXT, 0,
	  BPF_ACT_LOG },
	{ FPROG_LLWATCH, AUDIT_ARCH_X86_64, SYS_execve, IN_TEXT, ONES,
	  ALLOW },
	{ FPROG_LLWATCH, AUDIT_ARCH_X86_64, SYS_execve, IN_TEXT, 0,
	  ENOENT_ },
	{ FPROG_LLWATCH, AUDIT_ARCH_X86_64, SYS_execve, OUT_TEXT, ONES,
	  NOTIF },
	{ FPROG_LLWATCH, AUDIT_ARCH_I386, SYS_openat, OUT_TEXT, 0, NOTIF },
};

static void test_calls(void **state)
{
	struct cpol_insn *f;
	struct bpf_input in;
	char a[32], b[32];
	size_t i, len;
	uint32_t got;

	(void)state;
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		f = build(calls[i].which, &len);
		memset(&in, 0, sizeof(in));
		in.arch = calls[i].arch;
		in.nr = calls[i].nr;
		in.ip = calls[i].ip;
		in.args[0] = calls[i].arg0;
		got = bpf_run(f, len, &in);
		if (got != calls[i].want)
			fail_msg("row %zu: %s, not %s", i,
			    bpf_action_str(got, a, sizeof(a)),
			    bpf_action_str(calls[i].want, b, sizeof(b)));
		free(f);
	}
}

/* The index of the prefix's jeq on k. */
static size_t find_jeq(const struct cpol_insn *f, size_t len, uint32_t k)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (f[i].code == (BPF_JMP | BPF_JEQ | BPF_K) && f[i].k == k)
			return i;
	fail_msg("no jeq on %u", k);
	return 0;
}

/* Where a mutation applies: the index, and what becomes of it. */
enum field { JT, JF, K };

static void mutant(enum filter_prog which, size_t at, enum field fld,
    uint32_t v, const char *what)
{
	char err[256] = "";
	struct cpol_insn *f;
	size_t len;

	f = build(which, &len);
	assert_true(at < len);
	if (fld == JT)
		f[at].jt = (uint8_t)v;
	else if (fld == JF)
		f[at].jf = (uint8_t)v;
	else
		f[at].k = v;
	if (prove(which, f, len, err, sizeof(err)) == 0)
		fail_msg("%s: the proof passed", what);
	assert_true(err[0] != '\0');
	free(f);
}

static void test_mutants_notify(void **state)
{
	size_t r = NOTIFY_PREFIX, len;
	struct cpol_insn *f = build(FPROG_NOTIFY, &len);

	(void)state;
	/* the jump to the blob's own copy one short: its last RET */
	mutant(FPROG_NOTIFY, 9, K, f[9].k - 1, "ja own - 1");
	mutant(FPROG_NOTIFY, 9, K, 0xffff, "ja past the end");
	/* the text's upper bound: inside and outside swapped */
	mutant(FPROG_NOTIFY, 8, JT, f[8].jf, "jge hi swapped");
	mutant(FPROG_NOTIFY, 7, K, f[7].k + 1, "jge lo + 1");
	mutant(FPROG_NOTIFY, 3, K, SYS_execveat, "execveat for execve");
	/* one return of the rewritten copy: open's errno kept */
	mutant(FPROG_NOTIFY, r + B_EPERM, K, EPERM_, "errno not notified");
	mutant(FPROG_NOTIFY, r + B_KILL, K, BPF_ACT_KILL_PROCESS,
	    "kill not notified");
	mutant(FPROG_NOTIFY, r + B_TRAP, K, NOTIF, "trap notified");
	mutant(FPROG_NOTIFY, r + B_ALLOW, K, 0x7fc00001u, "notify data");
	free(f);
}

static void test_mutants_learn(void **state)
{
	size_t len, w, c;
	struct cpol_insn *f = build(FPROG_LEARN, &len);

	(void)state;
	c = len - B_LEN;
	w = find_jeq(f, c, SYS_openat);
	mutant(FPROG_LEARN, c - 1, K, ALLOW, "the prefix's notify allows");
	mutant(FPROG_LEARN, w, JT, f[w].jt + 1u, "openat into the copy");
	mutant(FPROG_LEARN, 3, JT, f[3].jt + 1u, "execve past the text's ld");
	mutant(FPROG_LEARN, c + B_TRAP, K, BPF_ACT_TRAP, "trap let be");
	mutant(FPROG_LEARN, c + B_ALLOW, K, NOTIF, "allow notified");
	mutant(FPROG_LEARN, 2, K, 16, "loads an argument for nr");
	mutant(FPROG_LEARN, 2, K, 2, "misaligned load");
	free(f);
}

static void test_mutants_llwatch(void **state)
{
	size_t len, r, o, w, m;
	struct cpol_insn *f = build(FPROG_LLWATCH, &len);

	(void)state;
	w = len - B_LEN;
	o = w - B_LEN;
	r = o - B_LEN;
	m = find_jeq(f, r, SYS_mknod);
	mutant(FPROG_LLWATCH, r - 1, K, f[r - 1].k - 1, "ja watch - 1");
	mutant(FPROG_LLWATCH, r - 2, K, f[r - 2].k + 1, "ja refusals + 1");
	mutant(FPROG_LLWATCH, m, JT, f[m].jt + 1u, "mknod to the refusals");
	mutant(FPROG_LLWATCH, 9, K, f[9].k + (uint32_t)B_LEN, "own -> watch");
	mutant(FPROG_LLWATCH, w + B_ALLOW, K, ALLOW, "watched allow let be");
	mutant(FPROG_LLWATCH, o + B_ENOENT, K, NOTIF, "own copy notifies");
	mutant(FPROG_LLWATCH, r + B_TRAP, K, NOTIF, "trap notified");
	free(f);
}

static void test_no_fit(void **state)
{
	struct filter_text empty = { text.lo, text.lo };
	struct filter_text across = { 0xfffff000ULL, 0x100001000ULL };
	struct cpol_insn *f, *big;
	char err[256] = "";
	size_t len;

	(void)state;
	/* A warm run's extension: no text, nothing let through as cordon's. */
	f = filter_build(FPROG_NOTIFY, blob, B_LEN, empty, &len);
	assert_non_null(f);
	if (filter_prove(FPROG_NOTIFY, blob, B_LEN, f, len, empty, err,
	    sizeof(err)) < 0)
		fail_msg("%s", err);
	free(f);
	errno = 0;
	assert_null(filter_build(FPROG_LEARN, blob, B_LEN, across, &len));
	assert_int_equal(errno, E2BIG);
	/* Too long for the kernel with the prefix and the copies. */
	big = calloc(CPOL_MAX_INSNS / 2, sizeof(*big));
	assert_non_null(big);
	big[CPOL_MAX_INSNS / 2 - 1] = stmt(BPF_RET | BPF_K, ALLOW);
	errno = 0;
	assert_null(filter_build(FPROG_NOTIFY, big, CPOL_MAX_INSNS / 2, text,
	    &len));
	assert_int_equal(errno, E2BIG);
	free(big);
}

static void test_watched(void **state)
{
	(void)state;
	assert_true(filter_watches(FPROG_LEARN, SYS_openat));
	assert_true(filter_watches(FPROG_LLWATCH, SYS_openat));
	assert_true(filter_watches(FPROG_LEARN, SYS_clone3));
	assert_false(filter_watches(FPROG_LLWATCH, SYS_clone3));
	assert_true(filter_watches(FPROG_LLWATCH, SYS_linkat));
	assert_false(filter_watches(FPROG_LEARN, SYS_linkat));
	assert_false(filter_watches(FPROG_LEARN, SYS_execve));
	assert_false(filter_watches(FPROG_NOTIFY, SYS_openat));
}

/* USER_NOTIF: cordon's programs only, and exactly. */
static void test_check_listener(void **state)
{
	struct cpol_insn p[1] = { { BPF_RET | BPF_K, 0, 0, NOTIF } };
	char err[256];

	(void)state;
	assert_int_equal(bpf_check(p, 1, err, sizeof(err)), -1);
	assert_int_equal(bpf_check_listener(p, 1, err, sizeof(err)), 0);
	p[0].k = NOTIF | 1;
	assert_int_equal(bpf_check_listener(p, 1, err, sizeof(err)), -1);
	p[0].k = BPF_ACT_TRACE;
	assert_int_equal(bpf_check_listener(p, 1, err, sizeof(err)), -1);
}

/* filter_make: cordon's own text, proven, as the kernel takes it. */
static void test_make(void **state)
{
	struct cpol p;
	struct sock_filter *out = NULL;
	unsigned short n = 0;
	char err[256] = "";

	(void)state;
	memset(&p, 0, sizeof(p));
	p.insns = blob;
	p.ninsns = B_LEN;
	if (filter_make(FPROG_LLWATCH, &p, &out, &n, err, sizeof(err)) !=
	    FILTER_MADE)
		fail_msg("%s", err);
	assert_non_null(out);
	assert_true(n > 3 * B_LEN);
	/* the watch's copy last: its kill notified */
	assert_int_equal(out[n - 1].code, BPF_RET | BPF_K);
	assert_int_equal(out[n - 1].k, NOTIF);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_proven),
		cmocka_unit_test(test_calls),
		cmocka_unit_test(test_mutants_notify),
		cmocka_unit_test(test_mutants_learn),
		cmocka_unit_test(test_mutants_llwatch),
		cmocka_unit_test(test_no_fit),
		cmocka_unit_test(test_watched),
		cmocka_unit_test(test_check_listener),
		cmocka_unit_test(test_make),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
