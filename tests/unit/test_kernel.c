/*
 * test_kernel.c - cordon's BPF interpreter against the kernel.
 *
 * Each filter (a hand-built rule set through emit_seccomp, and every
 * compiled policy in $BUILD/policies/) is installed in a child, and the
 * child makes every syscall number 0..max+10, x32 numbers, and the
 * boundary values of each rule's conditions.  Nothing the filter allows
 * runs: a "canary" filter installed first answers ERRNO(4095) to
 * everything, and the kernel keeps the most restrictive answer, taking
 * the newer filter's on a tie.  So the child observes:
 *   allow, log       -> -4095 (the canary's)
 *   errno(e)         -> -e (cordon's filter is newer)
 *   trap             -> SIGSYS caught by a handler
 *   kill             -> the child dies of SIGSYS (restarted after it)
 * and each observation must match bpf_run's answer.  The canary lets
 * rt_sigreturn (for the handler) and seccomp(SET_MODE_FILTER) through;
 * rt_sigreturn is therefore not probed, and neither is uretprobe, which
 * the kernel never filters.  Results go to shared memory:
 * the child makes no system call but the probes.
 */
#include <errno.h>
#include <glob.h>
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
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "bpf.h"
#include "cpol.h"
#include "emit.h"
#include "tables.h"

#define MAX_PROBES 8192
#define CANARY_ERRNO 4095
#define NR_RT_SIGRETURN 15
/* This kernel runs uretprobe without consulting seccomp at all ("seccomp:
 * passthrough uretprobe", Linux 6.14) and kills a caller outside the
 * uprobe trampoline: there is no filter answer to compare. */
#define NR_URETPROBE 335

struct probe {
	uint32_t nr;
	uint64_t args[6];
};

struct shared {
	volatile int cur, done, finished, trapped, setup_errno;
	long ret[MAX_PROBES];
	int trap[MAX_PROBES];
};

static struct probe probes[MAX_PROBES];
static unsigned int nprobes;
static struct shared *shm;

static void add_probe(uint32_t nr, const uint64_t args[6])
{
	if (nr == NR_RT_SIGRETURN || nr == NR_URETPROBE ||
	    nprobes == MAX_PROBES)
		return;
	probes[nprobes].nr = nr;
	memcpy(probes[nprobes].args, args, sizeof(probes[0].args));
	nprobes++;
}

static void make_probes(const struct cpol *p)
{
	uint64_t a[6] = { 0 };
	uint32_t nr, i, j, k;

	nprobes = 0;
	for (nr = 0; nr <= (uint32_t)tables_syscall_max() + 10; nr++)
		add_probe(nr, a);
	for (nr = 0; nr < 16; nr++)
		add_probe(nr | 0x40000000u, a);
	for (i = 0; i < p->nrules; i++) {
		const struct cpol_rule *r = &p->rules[i];

		memset(a, 0, sizeof(a));
		for (j = 0; j < r->ncond; j++)
			a[r->cond[j].arg] = r->cond[j].value;
		add_probe(r->nr, a);
		for (j = 0; j < r->ncond; j++)
			for (k = 0; k < 3; k++) {
				uint64_t keep = a[r->cond[j].arg];

				a[r->cond[j].arg] = keep + k - 1 +
				    (k == 1 ? 0xffffffff00000000u : 0);
				add_probe(r->nr, a);
				a[r->cond[j].arg] = keep;
			}
	}
}

static void on_sigsys(int sig)
{
	(void)sig;
	shm->trapped = 1;
}

static int install(const struct sock_filter *f, unsigned short n)
{
	struct sock_fprog prog = { n, (struct sock_filter *)f };

	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

/* The child: canary, then the filter (none: calibration), then probes
 * from start on. */
static void child(const struct cpol *p, unsigned int start)
{
	static const struct sock_filter canary[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR_RT_SIGRETURN, 4, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_seccomp, 0, 2),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 16),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SECCOMP_SET_MODE_FILTER,
		    1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | CANARY_ERRNO),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_filter *f = calloc(p ? p->ninsns : 1, sizeof(*f));
	struct rlimit core = { 0, 0 };
	struct sigaction sa;
	unsigned int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigsys;
	if (!f || setrlimit(RLIMIT_CORE, &core) < 0 ||
	    sigaction(SIGSYS, &sa, NULL) < 0 ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    install(canary, sizeof(canary) / sizeof(canary[0])) < 0) {
		shm->setup_errno = errno ? errno : -1;
		_exit(1);
	}
	for (i = 0; p && i < p->ninsns; i++) {
		f[i].code = p->insns[i].code;
		f[i].jt = p->insns[i].jt;
		f[i].jf = p->insns[i].jf;
		f[i].k = p->insns[i].k;
	}
	if (p && install(f, (unsigned short)p->ninsns) < 0) {
		shm->setup_errno = errno;
		_exit(1);
	}
	for (i = start; i < nprobes; i++) {
		const uint64_t *a = probes[i].args;
		long r;

		shm->cur = (int)i;
		shm->trapped = 0;
		errno = 0;
		r = syscall((long)probes[i].nr, a[0], a[1], a[2], a[3], a[4],
		    a[5]);
		shm->ret[i] = r < 0 ? -errno : r;
		shm->trap[i] = shm->trapped;
		shm->done = (int)i + 1;
	}
	shm->finished = 1;
	for (;;)
		;  /* exit_group is filtered too: the parent kills us */
}

#define KILLED (-100000)  /* ret[] marker: the child died at this probe */

/* Run every probe under p in children; -1 if the kernel refuses. */
static int run_kernel(const struct cpol *p)
{
	unsigned int start = 0;

	while (start < nprobes) {
		struct timespec tick = { 0, 100000 };
		int status;
		pid_t pid;

		shm->finished = 0;
		shm->cur = (int)start;
		shm->setup_errno = 0;
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0)
			child(p, start);
		for (;;) {
			pid_t w = waitpid(pid, &status, WNOHANG);

			assert_true(w >= 0);
			if (w == pid)
				break;
			if (shm->finished) {
				kill(pid, SIGKILL);
				assert_int_equal(waitpid(pid, &status, 0), pid);
				return 0;
			}
			nanosleep(&tick, NULL);
		}
		if (shm->setup_errno)
			return -1;
		if (p && (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSYS))
			fail_msg("child ended with status 0x%x at probe %d "
			    "(nr %u)", status, shm->cur, probes[shm->cur].nr);
		shm->ret[shm->cur] = KILLED;
		shm->trap[shm->cur] = 0;
		start = (unsigned int)shm->cur + 1;
	}
	return 0;
}

static const char *observed(unsigned int i, char *buf, size_t len)
{
	if (shm->ret[i] == KILLED)
		snprintf(buf, len, "kill");
	else if (shm->trap[i])
		snprintf(buf, len, "trap");
	else if (shm->ret[i] == -CANARY_ERRNO)
		snprintf(buf, len, "allow/log");
	else
		snprintf(buf, len, "returned %ld", shm->ret[i]);
	return buf;
}

static int matches(uint32_t want, unsigned int i)
{
	switch (want & BPF_ACT_FULL_MASK) {
	case BPF_ACT_ALLOW:
	case BPF_ACT_LOG:
		return shm->ret[i] == -CANARY_ERRNO && !shm->trap[i];
	case BPF_ACT_ERRNO:
		return shm->ret[i] == -(long)(want & BPF_ACT_DATA_MASK) &&
		    !shm->trap[i];
	case BPF_ACT_TRAP:
		return shm->trap[i] != 0;
	default:
		return shm->ret[i] == KILLED;
	}
}

/*
 * Calibration: with the canary alone every probe must answer -4095.  One
 * that does not never reaches seccomp on this kernel (seen: uretprobe,
 * and a non-upstream syscall 336 on a vendor kernel); it is reported and
 * left out, since no filter can decide it.
 */
static uint8_t unfiltered[MAX_PROBES];

static void calibrate(void)
{
	unsigned int i;

	memset(unfiltered, 0, sizeof(unfiltered));
	if (run_kernel(NULL) < 0) {
		print_message("skipped: seccomp unavailable (%s)\n",
		    strerror(shm->setup_errno));
		skip();
	}
	for (i = 0; i < nprobes; i++)
		if (shm->ret[i] != -CANARY_ERRNO || shm->trap[i]) {
			unfiltered[i] = 1;
			print_message("nr %u never reaches seccomp on this "
			    "kernel (returned %ld); not compared\n",
			    probes[i].nr, shm->ret[i]);
		}
}

static void cross_check(const struct cpol *p, const char *what)
{
	char a[32], b[64];
	unsigned int i;

	make_probes(p);
	calibrate();
	if (run_kernel(p) < 0)
		fail_msg("%s: the kernel refused the filter (%s)", what,
		    strerror(shm->setup_errno));
	for (i = 0; i < nprobes; i++) {
		if (unfiltered[i])
			continue;
		struct bpf_input in;
		uint32_t want;

		memset(&in, 0, sizeof(in));
		in.arch = tables_arch();
		in.nr = probes[i].nr;
		memcpy(in.args, probes[i].args, sizeof(in.args));
		want = bpf_run(p->insns, p->ninsns, &in);
		if (!matches(want, i))
			fail_msg("%s: nr %u args [0x%llx, 0x%llx, 0x%llx]: "
			    "interpreter says %s, kernel %s", what,
			    probes[i].nr,
			    (unsigned long long)probes[i].args[0],
			    (unsigned long long)probes[i].args[1],
			    (unsigned long long)probes[i].args[2],
			    bpf_action_str(want, a, sizeof(a)),
			    observed(i, b, sizeof(b)));
	}
	print_message("%s: %u probes agree\n", what, nprobes);
}

static struct cpol_rule *rule(struct cpol *p, const char *name,
    uint32_t action)
{
	struct cpol_rule *r = &p->rules[p->nrules++];

	memset(r, 0, sizeof(*r));
	r->nr = (uint32_t)tables_syscall_nr(name);
	r->name = (char *)name;
	r->action = action;
	r->origin = (char *)"test";
	return r;
}

static void cond32(struct cpol_rule *r, uint8_t arg, uint64_t mask,
    uint64_t value)
{
	struct cpol_cond c = { arg, CPOL_OP_MASKED_EQ, 32, mask, value };

	r->cond[r->ncond++] = c;
}

/* Every kind of answer: allow, errno, trap, kill, log, conditions. */
static void test_hand_built(void **state)
{
	struct cpol_rule rules[16];
	struct cpol p;
	char err[512];

	(void)state;
	memset(&p, 0, sizeof(p));
	p.arch = tables_arch();
	p.default_action = BPF_ACT_ERRNO | EPERM;
	p.rules = rules;
	rule(&p, "read", BPF_ACT_ALLOW);
	rule(&p, "write", BPF_ACT_LOG);
	rule(&p, "open", BPF_ACT_TRAP);
	rule(&p, "rt_sigreturn", BPF_ACT_ALLOW);
	cond32(rule(&p, "socket", BPF_ACT_ALLOW), 0, 0xffffffffu, 1);
	cond32(rule(&p, "socket", BPF_ACT_ERRNO | EAFNOSUPPORT), 0,
	    0xffffffffu, 2);
	cond32(rule(&p, "ioctl", BPF_ACT_ALLOW), 1, 0xffffffffu, 0x5401);
	rule(&p, "ptrace", BPF_ACT_KILL_PROCESS);
	cond32(rule(&p, "personality", BPF_ACT_ALLOW), 0, 0xffffffffu,
	    0xffffffffu);
	rule(&p, "mseal", BPF_ACT_ALLOW);
	if (emit_seccomp(&p, err, sizeof(err)) < 0)
		fail_msg("emit: %s", err);
	cross_check(&p, "hand-built");
	free(p.insns);
}

static void test_shipped(void **state)
{
	const char *build = getenv("BUILD");
	char pattern[512], err[512];
	glob_t g;
	size_t i;

	(void)state;
	snprintf(pattern, sizeof(pattern), "%s/policies/*.cpol",
	    build ? build : "build");
	if (glob(pattern, 0, NULL, &g) != 0) {
		print_message("no compiled policies match %s\n", pattern);
		skip();
	}
	for (i = 0; i < g.gl_pathc; i++) {
		struct cpol p;

		if (cpol_load(g.gl_pathv[i], 0, &p, err, sizeof(err)) < 0)
			fail_msg("%s: %s", g.gl_pathv[i], err);
		cross_check(&p, g.gl_pathv[i]);
		cpol_free(&p);
	}
	globfree(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_built),
		cmocka_unit_test(test_shipped),
	};
	int rc;

	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	munmap(shm, sizeof(*shm));
	return rc;
}
