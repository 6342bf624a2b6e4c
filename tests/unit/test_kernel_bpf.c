/*
 * test_kernel_bpf.c - the live cross-check of cordon's BPF interpreter
 * (common/bpf.c) against the kernel: every shipped filter is installed in
 * a forked child, every syscall number is made there with chosen
 * arguments, and the outcome is compared with what bpf_run() says.
 *
 * Blobs: the arguments, or every *.cpol in $CORDON_POLICIES, or in
 * ../policies next to this binary's directory (build/tests ->
 * build/policies).  With none, the test is skipped, saying why.
 *
 * Arguments.  Every number is called with all six arguments -1, which
 * makes nearly every call fail harmlessly (EBADF, EFAULT, EINVAL); and,
 * for each rule of the blob's RULES section with conditions, with the
 * conditions' values satisfied and -1 elsewhere, so that the allowed
 * branches of conditioned syscalls are taken too.  Numbers: 0 .. the
 * table's maximum, up to KBPF_BEYOND past it (unknown to the compiler),
 * and a sample of the x32 range.  Skipped (their effect would end or
 * disturb the child before it can report, or leak outside it): see
 * skipped[] below.
 *
 * The comparison, per call, with A = bpf_run(blob, {nr, arch, args}):
 *   KILL_PROCESS, KILL_THREAD, TRAP: the child dies of SIGSYS without
 *     returning from syscall(2);
 *   ERRNO(n): syscall(2) returns -1 with errno n;
 *   TRACE, USER_NOTIF (no tracer, no listener): -1 with ENOSYS;
 *   ALLOW, LOG: the call behaves as it does in a child without any
 *     filter: the same success or errno, or the same fatal signal, or it
 *     blocks in both (the child's alarm ends it).
 * Each call runs in its own child, so kills are survived.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "bpf.h"
#include "cpol.h"
#include "tables.h"

/* Numbers past the table's maximum tried: the filter's ENOSYS branch. */
#define KBPF_BEYOND 32
/* x32 numbers tried: every KBPF_X32_STEP-th, from 0. */
#define KBPF_X32 0x40000000u
#define KBPF_X32_STEP 11
/* A call that blocks this long is "blocked" (same in both runs). */
#define KBPF_ALARM_S 2
/* Mismatches printed before the rest are only counted. */
#define KBPF_MAX_PRINT 20

/* x86-64 numbers never made: rt_sigreturn (restores garbage), pause
 * (blocks with no argument to fail on), fork and vfork (a second
 * process running the test), exit and exit_group (end the child before
 * it reports), msgget (creates a System V queue that outlives it). */
static const int skipped[] = { 15, 34, 57, 58, 60, 231, 68 };

/* Numbers the kernel runs without consulting seccomp at all (x86-64):
 * uretprobe (335, since Linux 6.11) and uprobe (336, since 6.17) only
 * act from a uprobe trampoline, so the kernel passes them through every
 * filter.  Whatever the interpreter says, they behave as unfiltered. */
static const int passthrough[] = { 335, 336 };

enum { OUT_RETURNED = 1, OUT_SIGNALED, OUT_BLOCKED, OUT_EXITED };

struct outcome {
	int kind;
	long ret;
	int err;
	int sig;
};

struct shared {
	volatile int done;
	volatile long ret;
	volatile int err;
};

static struct shared *shm;
static char **blobs;
static size_t nblobs;
static glob_t found;

static int is_skipped(uint32_t nr)
{
	for (size_t i = 0; i < sizeof(skipped) / sizeof(skipped[0]); i++)
		if ((nr & ~KBPF_X32) == (uint32_t)skipped[i])
			return 1;
	return 0;
}

static int is_passthrough(uint32_t nr)
{
	for (size_t i = 0; i < sizeof(passthrough) / sizeof(passthrough[0]);
	    i++)
		if (nr == (uint32_t)passthrough[i])
			return 1;
	return 0;
}

static void child(const struct sock_fprog *prog, uint32_t nr,
    const uint64_t a[6])
{
	static const struct rlimit nocore = { 0, 0 };
	long r;

	/* cmocka catches SIGSEGV, SIGILL, ... and longjmps: the call's own
	 * signals must end this child, not resume the test runner in it. */
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	setrlimit(RLIMIT_CORE, &nocore);   /* SIGSYS would dump core */
	setsid();
	alarm(KBPF_ALARM_S);
	if (prog && (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog) != 0))
		_exit(99);
	errno = 0;
	r = syscall((long)nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	shm->err = errno;
	shm->ret = r;
	shm->done = 1;
	syscall(SYS_exit_group, 0);
	for (;;)
		syscall(SYS_exit, 0);   /* if exit_group is refused */
}

/* Run one call in a fresh child, filtered by prog (NULL: unfiltered).
 * Returns 0, or -1 if the filter could not be installed. */
static int run(const struct sock_fprog *prog, uint32_t nr,
    const uint64_t a[6], struct outcome *o)
{
	int st;
	pid_t pid;

	memset((void *)shm, 0, sizeof(*shm));
	memset(o, 0, sizeof(*o));
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		child(prog, nr, a);
	while (waitpid(pid, &st, 0) < 0)
		assert_int_equal(errno, EINTR);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 99 && !shm->done)
		return -1;
	if (shm->done) {
		o->kind = OUT_RETURNED;
		o->ret = shm->ret;
		o->err = o->ret == -1 ? shm->err : 0;
	} else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM) {
		o->kind = OUT_BLOCKED;
	} else if (WIFSIGNALED(st)) {
		o->kind = OUT_SIGNALED;
		o->sig = WTERMSIG(st);
	} else {
		o->kind = OUT_EXITED;
	}
	return 0;
}

static int allows(uint32_t act)
{
	uint32_t a = act & BPF_ACT_FULL_MASK;

	return a == BPF_ACT_ALLOW || a == BPF_ACT_LOG;
}

/* Does kernel outcome o agree with interpreter answer act?  base is the
 * unfiltered outcome (computed only for allow). */
static int agrees(uint32_t act, const struct outcome *o,
    const struct outcome *base)
{
	uint32_t a = act & BPF_ACT_FULL_MASK, data = act & BPF_ACT_DATA_MASK;

	switch (a) {
	case BPF_ACT_KILL_PROCESS:
	case BPF_ACT_KILL_THREAD:
	case BPF_ACT_TRAP:
		return o->kind == OUT_SIGNALED && o->sig == SIGSYS;
	case BPF_ACT_ERRNO:
		return o->kind == OUT_RETURNED && o->ret == -1 &&
		    o->err == (int)(data > 4095 ? 4095 : data);
	case BPF_ACT_TRACE:
	case BPF_ACT_USER_NOTIF:
		return o->kind == OUT_RETURNED && o->ret == -1 &&
		    o->err == ENOSYS;
	default:   /* allow, log */
		if (o->kind != base->kind)
			return 0;
		if (o->kind == OUT_RETURNED)
			return (o->ret == -1) == (base->ret == -1) &&
			    o->err == base->err;
		return o->kind != OUT_SIGNALED || o->sig == base->sig;
	}
}

static void describe(char *buf, size_t len, const struct outcome *o)
{
	if (o->kind == OUT_RETURNED)
		snprintf(buf, len, "returned %ld errno %d", o->ret, o->err);
	else if (o->kind == OUT_SIGNALED)
		snprintf(buf, len, "killed by signal %d", o->sig);
	else if (o->kind == OUT_BLOCKED)
		snprintf(buf, len, "blocked");
	else
		snprintf(buf, len, "exited");
}

struct check {
	const char *blob;
	const struct cpol *p;
	struct sock_fprog prog;
	unsigned long calls, mismatches;
	int unavailable;
};

static void one_call(struct check *c, uint32_t nr, const uint64_t a[6])
{
	struct bpf_input in = { .nr = nr, .arch = c->p->arch };
	struct outcome o, base = { 0 };
	uint32_t act;
	char x[48], y[64], z[64];
	const char *name;

	memcpy(in.args, a, sizeof(in.args));
	act = bpf_run(c->p->insns, c->p->ninsns, &in);
	if (run(&c->prog, nr, a, &o) < 0) {
		c->unavailable = 1;
		return;
	}
	if (allows(act) || is_passthrough(nr))
		assert_int_equal(run(NULL, nr, a, &base), 0);
	c->calls++;
	if (agrees(is_passthrough(nr) ? BPF_ACT_ALLOW : act, &o, &base))
		return;
	if (c->mismatches++ >= KBPF_MAX_PRINT)
		return;
	name = tables_syscall_name((int)(nr & ~KBPF_X32));
	describe(y, sizeof(y), &o);
	describe(z, sizeof(z), &base);
	fprintf(stderr, "%s: %s%s (%u) args %llx,%llx,%llx: interpreter %s, "
	    "kernel %s (unfiltered: %s)\n", c->blob, nr & KBPF_X32 ? "x32 " :
	    "", name ? name : "?", nr, (unsigned long long)a[0],
	    (unsigned long long)a[1], (unsigned long long)a[2],
	    bpf_action_str(act, x, sizeof(x)), y, z);
}

/* An argument value that satisfies one condition. */
static uint64_t satisfy(const struct cpol_cond *c)
{
	switch (c->op) {
	case CPOL_OP_LT: return c->value - 1;
	case CPOL_OP_GT: return c->value + 1;
	case CPOL_OP_NE: return c->value + 1;
	default: return c->value;   /* ==, <=, >=, masked == */
	}
}

/* Every vector for nr: all -1, then one per conditioned rule. */
static void one_number(struct check *c, uint32_t nr)
{
	uint64_t a[6];
	uint32_t base = nr & ~KBPF_X32;

	memset(a, 0xff, sizeof(a));
	one_call(c, nr, a);
	for (uint32_t i = 0; i < c->p->nrules && !c->unavailable; i++) {
		const struct cpol_rule *r = &c->p->rules[i];

		if (r->nr != base || r->ncond == 0 || (nr & KBPF_X32))
			continue;
		memset(a, 0xff, sizeof(a));
		for (unsigned int k = 0; k < r->ncond && k < CPOL_MAX_CONDS; k++)
			if (r->cond[k].arg < 6)
				a[r->cond[k].arg] = satisfy(&r->cond[k]);
		one_call(c, nr, a);
	}
}

static unsigned long check_blob(const char *path)
{
	struct sock_filter *f;
	struct check c = { .blob = path };
	struct cpol p;
	char err[256];
	int max = tables_syscall_max();

	if (cpol_load(path, &p, err, sizeof(err)) < 0)
		fail_msg("%s: %s", path, err);
	c.p = &p;
	f = calloc(p.ninsns, sizeof(*f));
	assert_non_null(f);
	for (uint32_t i = 0; i < p.ninsns; i++)
		f[i] = (struct sock_filter){ p.insns[i].code, p.insns[i].jt,
		    p.insns[i].jf, p.insns[i].k };
	c.prog.len = (unsigned short)p.ninsns;
	c.prog.filter = f;
	for (int nr = 0; nr <= max + KBPF_BEYOND && !c.unavailable; nr++)
		if (!is_skipped((uint32_t)nr))
			one_number(&c, (uint32_t)nr);
	for (int nr = 0; nr <= max && !c.unavailable; nr += KBPF_X32_STEP)
		if (!is_skipped((uint32_t)nr))
			one_number(&c, KBPF_X32 | (uint32_t)nr);
	free(f);
	cpol_free(&p);
	if (c.unavailable) {
		fprintf(stderr, "seccomp filters cannot be installed here\n");
		skip();
	}
	fprintf(stderr, "%s: %lu calls, %lu disagreements\n", path, c.calls,
	    c.mismatches);
	return c.mismatches;
}

static void test_kernel_agrees(void **state)
{
	unsigned long bad = 0;

	(void)state;
	if (nblobs == 0) {
		fprintf(stderr, "no blobs (build the policies first)\n");
		skip();
	}
	for (size_t i = 0; i < nblobs; i++)
		bad += check_blob(blobs[i]);
	assert_int_equal(bad, 0);
}

/* The interpreter's view of the skipped numbers is still exercised:
 * make sure the list names what it means to. */
static void test_skipped_names(void **state)
{
	static const char *const names[] = { "rt_sigreturn", "pause", "fork",
	    "vfork", "exit", "exit_group", "msgget" };

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		assert_int_equal(tables_syscall_nr(names[i]), skipped[i]);
	assert_int_equal(tables_syscall_nr("uretprobe"), passthrough[0]);
}

static void find_blobs(int argc, char **argv)
{
	const char *dir = getenv("CORDON_POLICIES");
	char self[PATH_MAX], pattern[PATH_MAX + 16];

	if (argc > 1) {
		blobs = argv + 1;
		nblobs = (size_t)(argc - 1);
		return;
	}
	if (!dir) {
		snprintf(self, sizeof(self), "%s", argv[0]);
		dir = dirname(dirname(self));   /* build/tests/x -> build */
		snprintf(pattern, sizeof(pattern), "%s/policies/*.cpol", dir);
	} else {
		snprintf(pattern, sizeof(pattern), "%s/*.cpol", dir);
	}
	if (glob(pattern, 0, NULL, &found) == 0) {
		blobs = found.gl_pathv;
		nblobs = found.gl_pathc;
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_skipped_names),
		cmocka_unit_test(test_kernel_agrees),
	};

	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED)
		return 1;
	find_blobs(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
