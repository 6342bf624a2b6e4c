/*
 * sysbench.c - what a seccomp filter costs per system call.
 *
 *   sysbench [-n CALLS] [-b BATCHES] none|allow|args|tree|linear [BLOB]
 *
 * For each probe (a syscall with fixed arguments), a fresh child installs
 * BATCHES batches of CALLS calls with the vDSO clock, installs the filter
 * (none; allow = a one-instruction RET ALLOW program; tree = the blob's
 * program; linear = a naive linear program of the blob's rules), times as
 * many batches again, and writes the times to memory shared with the
 * parent; the filter cannot be removed, hence one child per measurement.
 * The child checks that the filtered call returns what the unfiltered one
 * did.
 *
 * Output, one tab-separated line per probe (medians over the batches):
 *   probe  conditions  instructions  ns_before  ns_after  verdict
 * conditions: how many rules of the blob's table condition the probe's
 * syscall on its arguments (0 without a blob); verdict: same, denied (a
 * different result) or killed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "cpol.h"
#include "filter.h"

#define MAX_BATCHES 4001  /* pairs of batches: many short ones beat noise */

struct probe {
	const char *name;
	long nr;
	long (*call)(int fd);
};

static long call_getppid(int fd)
{
	(void)fd;
	return syscall(SYS_getppid);
}

static long call_ioctl(int fd)
{
	int n;

	return syscall(SYS_ioctl, fd, FIONREAD, &n);
}

static long call_fcntl(int fd)
{
	return syscall(SYS_fcntl, fd, F_GETFL);
}

static long call_prctl(int fd)
{
	(void)fd;
	return syscall(SYS_prctl, PR_GET_DUMPABLE, 0, 0, 0, 0);
}

static const struct probe probes[] = {
	{ "getppid", SYS_getppid, call_getppid },
	{ "ioctl(FIONREAD)", SYS_ioctl, call_ioctl },
	{ "fcntl(F_GETFL)", SYS_fcntl, call_fcntl },
	{ "prctl(PR_GET_DUMPABLE)", SYS_prctl, call_prctl },
};

/* Written by the child, read by the parent after it exits. */
struct shared {
	double before[MAX_BATCHES], ns[MAX_BATCHES], diff[MAX_BATCHES];
	int turn;                  /* 0: parent's batch, 1: child's */
	int done;                  /* batches the child has finished */
	long want_ret, want_err;   /* before the filter */
	long ret, err;             /* after */
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double batch(const struct probe *pr, int fd, long calls)
{
	double t0 = now_ns();
	long i;

	for (i = 0; i < calls; i++)
		pr->call(fd);
	return (now_ns() - t0) / (double)calls;
}

/*
 * Hand-off between the two processes: a futex on the shared page, so the
 * waiting side sleeps instead of taking a CPU from the measuring one.  If
 * the filter refuses futex, the wait degrades to spinning.
 */
static void await_turn(struct shared *sh, int me)
{
	int t;

	while ((t = __atomic_load_n(&sh->turn, __ATOMIC_ACQUIRE)) != me)
		syscall(SYS_futex, &sh->turn, FUTEX_WAIT, t, NULL, NULL, 0);
}

static void pass_turn(struct shared *sh, int to)
{
	__atomic_store_n(&sh->turn, to, __ATOMIC_RELEASE);
	syscall(SYS_futex, &sh->turn, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/*
 * In the child: install the filter, then take turns with the unfiltered
 * parent, batch for batch: each pair of batches runs milliseconds apart,
 * so the difference is the filter's cost with the machine's drift
 * cancelled (with mode "none" it is the noise).  No system call but the
 * probe's and exit_group runs under the filter.
 */
static void measure(const struct probe *pr, const struct sock_fprog *prog,
    int fd, long calls, int batches, struct shared *sh)
{
	int b;

	errno = 0;
	sh->want_ret = pr->call(fd);
	sh->want_err = errno;
	if (prog && (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    filter_install(prog) < 0))
		_exit(3);
	errno = 0;
	sh->ret = pr->call(fd);
	sh->err = errno;
	for (b = 0; b < batches; b++) {
		await_turn(sh, 1);
		sh->ns[b] = batch(pr, fd, calls);
		sh->done = b + 1;
		pass_turn(sh, 0);
	}
	_exit(0);
}

/* In the parent: its half of the turns; 1 if it reaped the child (done
 * or killed, *status says which), 0 if the child is still to be reaped. */
static int partner(const struct probe *pr, pid_t pid, int fd, long calls,
    int batches, struct shared *sh, int *status)
{
	struct timespec tick = { 0, 100 * 1000 * 1000 };
	int b, t;

	for (b = 0; b < batches; b++) {
		sh->before[b] = batch(pr, fd, calls);
		pass_turn(sh, 1);
		/* Wake up now and then to notice a child the filter killed. */
		while ((t = __atomic_load_n(&sh->turn, __ATOMIC_ACQUIRE)) != 0) {
			syscall(SYS_futex, &sh->turn, FUTEX_WAIT, t, &tick,
			    NULL, 0);
			if (waitpid(pid, status, WNOHANG) == pid)
				return 1;
		}
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static unsigned int conditions(const struct cpol *p, long nr)
{
	unsigned int n = 0;
	uint32_t i;

	for (i = 0; p && i < p->nrules; i++)
		if ((long)p->rules[i].nr == nr && p->rules[i].ncond > 0)
			n++;
	return n;
}

static int run_probe(const struct probe *pr, const struct sock_fprog *prog,
    const struct cpol *p, long calls, int batches, struct shared *sh,
    int fd)
{
	const char *verdict = "killed";
	int status, b, reaped;
	pid_t pid;

	memset(sh, 0, sizeof(*sh));
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		measure(pr, prog, fd, calls, batches, sh);
	reaped = partner(pr, pid, fd, calls, batches, sh, &status);
	while (!reaped && waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
	    sh->done == batches) {
		for (b = 0; b < batches; b++)
			sh->diff[b] = sh->ns[b] - sh->before[b];
		qsort(sh->ns, (size_t)batches, sizeof(double), cmp_double);
		qsort(sh->before, (size_t)batches, sizeof(double),
		    cmp_double);
		qsort(sh->diff, (size_t)batches, sizeof(double), cmp_double);
		verdict = sh->ret == sh->want_ret && sh->err == sh->want_err ?
		    "same" : "denied";
	} else if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSYS) {
		fprintf(stderr, "sysbench: %s: child failed (status %#x)\n",
		    pr->name, (unsigned int)status);
		return -1;
	}
	printf("%s\t%u\t%u\t%.1f\t%.1f\t%.1f\t%s\n", pr->name,
	    conditions(p, pr->nr), prog ? prog->len : 0,
	    sh->before[batches / 2], sh->ns[batches / 2],
	    sh->diff[batches / 2], verdict);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: sysbench [-n CALLS] [-b BATCHES] "
	    "none|allow|args|tree|linear [BLOB]\n");
	exit(2);
}

static int make_prog(const char *mode, const struct cpol *p,
    struct sock_fprog *prog, char *err, size_t errlen)
{
	if (strcmp(mode, "allow") == 0)
		return filter_allow_all(prog, err, errlen, 0);
	if (strcmp(mode, "args") == 0)
		return filter_allow_all(prog, err, errlen, 1);
	if (strcmp(mode, "tree") == 0)
		return filter_from_blob(p, prog, err, errlen);
	return filter_linear(p, prog, err, errlen);
}

int main(int argc, char **argv)
{
	struct cpol p, *pp = NULL;
	struct sock_fprog prog = { 0 }, *progp = NULL;
	struct shared *sh;
	char err[512];
	long calls = 2000;
	int batches = 51, opt, pipefd[2];
	const char *mode;
	size_t i;

	while ((opt = getopt(argc, argv, "n:b:")) != -1) {
		if (opt == 'n')
			calls = strtol(optarg, NULL, 10);
		else if (opt == 'b')
			batches = (int)strtol(optarg, NULL, 10);
		else
			usage();
	}
	if (calls < 1 || batches < 1 || batches > MAX_BATCHES ||
	    optind >= argc)
		usage();
	mode = argv[optind];
	if (strcmp(mode, "none") && strcmp(mode, "allow") &&
	    strcmp(mode, "args") &&
	    strcmp(mode, "tree") && strcmp(mode, "linear"))
		usage();
	if (optind + 1 < argc) {
		if (cpol_load(argv[optind + 1], 0, &p, err, sizeof(err)) < 0) {
			fprintf(stderr, "sysbench: %s\n", err);
			return 1;
		}
		pp = &p;
	}
	if (strcmp(mode, "none")) {
		if ((strcmp(mode, "allow") && strcmp(mode, "args") && !pp) ||
		    make_prog(mode, pp, &prog, err, sizeof(err)) < 0) {
			fprintf(stderr, "sysbench: %s: %s\n", mode,
			    pp ? err : "needs a blob");
			return 1;
		}
		progp = &prog;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || pipe(pipefd) < 0) {
		perror("sysbench");
		return 1;
	}
	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		if (run_probe(&probes[i], progp, pp, calls, batches, sh,
		    pipefd[0]) < 0) {
			perror("sysbench");
			return 1;
		}
		if (fflush(stdout) == EOF) {
			perror("sysbench: stdout");
			return 1;
		}
	}
	filter_free(&prog);
	if (pp)
		cpol_free(pp);
	return 0;
}
