/*
 * run.c - start the child and apply the layers, in this order:
 *
 *   clone (namespaces if the kernel allows), default signal mask and
 *   SIGPIPE, setsid, parent-death signal (and a check that the parent is
 *   still there), every descriptor above 2 marked close-on-exec, stdin
 *   from /dev/null, stdout and stderr to the supervisor's pipes,
 *   namespace set-up, rlimits, chdir to the workdir, umask 077, every
 *   capability dropped, no_new_privs, Landlock, seccomp, execve.
 *
 * Everything the child uses was prepared by the parent; the child parses
 * nothing and allocates nothing.  A failure is written to the
 * close-on-exec message pipe (errno, then text) and ends the child with
 * 125; a successful execve closes the pipe, which the parent reads as EOF.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/close_range.h>
#include <linux/securebits.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cordon.h"
#include "landlock_compat.h"

/* Namespace creation fails with these when the kernel or its settings
 * forbid it; anything else is a real error. */
static int ns_refused(int e)
{
	return e == EPERM || e == EINVAL || e == ENOSPC || e == EUSERS ||
	    e == EACCES || e == ENOSYS;
}

static void fail_with(const struct launch *ln, const char *what, int code)
    __attribute__((noreturn));

static void fail_with(const struct launch *ln, const char *what, int code)
{
	char msg[ERRLEN];
	int e = errno;
	size_t n;

	memcpy(msg, &e, sizeof(e));
	n = sizeof(e) + (size_t)snprintf(msg + sizeof(e), sizeof(msg) -
	    sizeof(e), "%s%s%s", what, e ? ": " : "", e ? strerror(e) : "");
	if (write(ln->msg_w, msg, n < sizeof(msg) ? n : sizeof(msg)) < 0)
		_exit(code);
	_exit(code);
}

static void fail(const struct launch *ln, const char *what)
    __attribute__((noreturn));

static void fail(const struct launch *ln, const char *what)
{
	fail_with(ln, what, EXIT_CORDON);
}

static int caps_drop(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0,
	};
	struct __user_cap_data_struct d[2];
	unsigned long c;

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) < 0)
		return -1;
	if (d[0].effective & (1u << CAP_SETPCAP)) {
		/* Root gains nothing at exec, now or after a setuid. */
		if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT |
		    SECBIT_NOROOT_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
		    SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED |
		    SECBIT_KEEP_CAPS_LOCKED, 0, 0, 0) < 0)
			return -1;
		/* Every capability the kernel knows: EINVAL past the last. */
		for (c = 0; prctl(PR_CAPBSET_DROP, c, 0, 0, 0) == 0; c++)
			;
		if (errno != EINVAL || c <= CAP_SETPCAP)
			return -1;
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
		return -1;
	memset(d, 0, sizeof(d));
	return (int)syscall(SYS_capset, &h, d);
}

static void limits_set(const struct launch *ln)
{
	int i;

	for (i = 0; i < ln->nrlim; i++) {
		struct rlimit rl = { .rlim_cur = ln->rlim[i].value,
		    .rlim_max = ln->rlim[i].value };
		struct rlimit old;
		/* glibc's type for the resource (an enum under _GNU_SOURCE):
		 * clang's -Wsign-conversion refuses a plain int. */
		__rlimit_resource_t res =
		    (__rlimit_resource_t)ln->rlim[i].resource;

		/* At the hard CPU limit the kernel sends SIGKILL; one second
		 * of grace lets SIGXCPU (soft) arrive first and name the cause. */
		if (rl.rlim_max < RLIM_INFINITY &&
		    ln->rlim[i].resource == RLIMIT_CPU)
			rl.rlim_max++;

		if (setrlimit(res, &rl) == 0)
			continue;
		/* Above our own hard limit: the hard limit is tighter. */
		if (errno != EPERM || getrlimit(res, &old) < 0
		    || old.rlim_max > rl.rlim_max)
			fail(ln, "setrlimit");
		rl.rlim_cur = rl.rlim_max = old.rlim_max;
		if (setrlimit(res, &rl) < 0)
			fail(ln, "setrlimit");
	}
}

static void child(const struct launch *ln) __attribute__((noreturn));

static void child(const struct launch *ln)
{
	struct sock_fprog prog = { .len = ln->nbpf, .filter = ln->bpf };
	struct pollfd pf = { .fd = ln->msg_w, .events = POLLOUT };
	char err[ERRLEN];
	sigset_t none;
	int null;

	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) < 0 ||
	    signal(SIGPIPE, SIG_DFL) == SIG_ERR)
		fail(ln, "signals");
	if (setsid() < 0)
		fail(ln, "setsid");
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		fail(ln, "PR_SET_PDEATHSIG");
	/* The parent may have died before that: its pipe end is gone. */
	if (poll(&pf, 1, 0) < 0 || (pf.revents & POLLERR))
		_exit(EXIT_CORDON);
	if (syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
		fail(ln, "close_range");
	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null < 0 || dup2(null, 0) < 0 || dup2(ln->out_w, 1) < 0 ||
	    dup2(ln->err_w, 2) < 0)
		fail(ln, "stdio");
	if (ns_setup(ln, err, sizeof(err)) < 0) {
		errno = 0;
		fail(ln, err);
	}
	limits_set(ln);
	if (fchdir(ln->workdir_fd) < 0)
		fail(ln, "chdir to the working directory");
	umask(077);
	if (caps_drop() < 0)
		fail(ln, "dropping capabilities");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		fail(ln, "PR_SET_NO_NEW_PRIVS");
	if (ln->ruleset_fd >= 0 && syscall(__NR_landlock_restrict_self,
	    ln->ruleset_fd, 0) < 0)
		fail(ln, "landlock_restrict_self");
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
		fail(ln, "seccomp");
	execve(ln->argv[0], ln->argv, ln->envp);
	fail_with(ln, ln->argv[0], errno == ENOENT ? EXIT_NOTFOUND :
	    EXIT_NOEXEC);
}

/* clone() as fork(), with namespaces and a pidfd. */
static pid_t spawn(unsigned long flags, int *pidfd)
{
	return (pid_t)syscall(SYS_clone, flags | CLONE_PIDFD | SIGCHLD, NULL,
	    pidfd, NULL, 0);
}

pid_t run_start(struct launch *ln, int *pidfd, char *err, size_t errlen)
{
	pid_t pid = -1;

	if (ln->ns_flags) {
		pid = spawn(ln->ns_flags, pidfd);
		if (pid < 0 && !ns_refused(errno)) {
			snprintf(err, errlen, "clone: %s", strerror(errno));
			return -1;
		}
	}
	if (pid < 0 && ln->ns_required) {
		snprintf(err, errlen, "the policy requires a private /tmp or "
		    "/dev/shm, but the kernel refused namespaces. Hint: "
		    "sysctl user.max_user_namespaces, "
		    "kernel.apparmor_restrict_unprivileged_userns");
		return -1;
	}
	if (pid < 0) {
		ln->ns_flags = 0;
		ln->private_tmp = ln->private_shm = 0;
		pid = spawn(0, pidfd);
	}
	if (pid == 0)
		child(ln);
	if (pid < 0)
		snprintf(err, errlen, "clone: %s", strerror(errno));
	return pid;
}

/* For --check: would the kernel give us these namespaces? */
int run_probe_ns(unsigned long flags)
{
	int pidfd = -1, status;
	pid_t pid = spawn(flags, &pidfd);

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return 0;
	close(pidfd);
	return waitpid(pid, &status, 0) == pid;
}
