/*
 * run.c - start the child and apply the layers, in this order:
 *
 *   clone (user, PID, network and mount namespaces where the kernel
 *   allows), default signal mask and SIGPIPE, setsid, the priority
 *   (--nice, --idle), parent-death signal (and a check that the parent
 *   is still there), every
 *   descriptor above 2 marked close-on-exec, stdin from /dev/null, stdout
 *   and stderr to the supervisor's pipes, namespace set-up, rlimits,
 *   chdir to the workdir, umask 077, every capability dropped,
 *   no_new_privs, Landlock; then, with a PID namespace, the child
 *   becomes the run's init (see init()) and forks the payload; seccomp
 *   last, in the payload only; execve.
 *
 * Everything the child uses was decided by the plan (plan.c) and
 * prepared by the parent; the child parses nothing, decides nothing and
 * allocates nothing.  A failure is written to the
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
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "egress.h"
#include "landlock_compat.h"
#include "plan.h"

/* exit_group with the syscall instruction in cordon's own text (as
 * exec_here below): learn mode's filter notifies a payload's exit unless
 * cordon's code makes it, and a payload whose exec failed exits before
 * init can hand cordon the listener. */
static void exit_here(int code) __attribute__((noreturn));

static void exit_here(int code)
{
	for (;;)
		__asm__ volatile ("syscall" : : "a"((long)SYS_exit_group),
		    "D"((long)code) : "rcx", "r11", "memory");
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
		exit_here(code);
	exit_here(code);
}

static void fail(const struct launch *ln, const char *what)
    __attribute__((noreturn));

static void fail(const struct launch *ln, const char *what)
{
	fail_with(ln, what, EXIT_CORDON);
}

/* --nice and --idle, in the child: the run (its init and payload), never
 * cordon.  Both only lower the priority, which needs no privilege; the
 * base policy denies setpriority and sched_set* to the snippet, and
 * RLIMIT_NICE (0 unless the caller raised it) would refuse a way back. */
static void priority_lower(const struct launch *ln)
{
	struct sched_param sp = { .sched_priority = 0 };
	int cur;

	if (ln->nice > 0) {
		errno = 0;
		cur = getpriority(PRIO_PROCESS, 0);
		if (cur == -1 && errno)
			fail(ln, "getpriority");
		if (setpriority(PRIO_PROCESS, 0, cur + ln->nice > 19 ? 19 :
		    cur + ln->nice) < 0)
			fail(ln, "setpriority (--nice)");
	}
	if (ln->idle && sched_setscheduler(0, SCHED_IDLE, &sp) < 0)
		fail(ln, "sched_setscheduler (--idle)");
}

/* mkdir -p the workdir's path below dir (a fresh, empty private dir), so
 * the workdir can be attached there too. */
static int mkpath(const char *dir, const char *workdir)
{
	char path[4096];
	char *p;

	if (snprintf(path, sizeof(path), "%s", workdir) >= (int)sizeof(path))
		return -1;
	for (p = path + strlen(dir) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(path, 0700) < 0 && errno != EEXIST ? -1 : 0;
}

static int below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && path[n] == '/';
}

/* 1 when the run sees its workdir below its private /tmp or /dev/shm,
 * where private_dir makes its mount point again: the host's directory
 * is then no mount point of the run's, only where its files came from. */
int run_workdir_private(const struct launch *ln)
{
	return (ln->ns_flags & CLONE_NEWNS) &&
	    ((ln->private_tmp && below(ln->workdir, "/tmp")) ||
	    (ln->private_shm && below(ln->workdir, "/dev/shm")));
}

/* The run tmpfs's sub on dir, with the Landlock rights of a private /tmp;
 * a workdir below dir gets its mount point made again there. */
static void private_dir(int mnt, const char *sub, const char *dir,
    const struct launch *ln)
{
	int fd;

	if (runfs_attach(mnt, sub, dir) < 0 || (below(ln->workdir, dir) &&
	    mkpath(dir, ln->workdir) < 0))
		fail(ln, dir);
	if (ln->ruleset_fd < 0)
		return;
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || landlock_add(ln->ruleset_fd, fd, ln->plan->tmp_access) < 0 ||
	    close(fd) < 0)
		fail(ln, dir);
}

/* The run's writable space: one bounded tmpfs (runfs.c) for the workdir,
 * /tmp and /dev/shm; its descriptor goes to cordon. */
static void mounts(const struct launch *ln)
{
	const struct run_plan *pl = ln->plan;
	int mnt;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		fail(ln, "namespace set-up: mount propagation");
	mnt = runfs_make(ln->workdir_fd, pl->limit[B_DISK],
	    pl->limit[B_FILES] == UINT64_MAX ? UINT64_MAX :
	    pl->limit[B_FILES] + ln->own_inodes);
	if (mnt < 0)
		fail(ln, errno == ENOSPC ? "copying the workdir into the run "
		    "tmpfs: more than limit disk or limit files" :
		    "the run tmpfs");
	if (ln->private_tmp)
		private_dir(mnt, "tmp", "/tmp", ln);
	if (ln->private_shm)
		private_dir(mnt, "shm", "/dev/shm", ln);
	if (runfs_attach(mnt, "w", ln->workdir) < 0)
		fail(ln, "attaching the run tmpfs on the workdir");
	if (fdpass_send(ln->mnt_w, mnt) < 0)
		fail(ln, "handing the run tmpfs to cordon");
	close(mnt);
}

/* In the child, while it holds every capability of its new user
 * namespace: map our own uid and gid (nothing else), then the mounts. */
static void ns_setup(const struct launch *ln)
{
	/* cordon made itself non-dumpable, which leaves /proc/self/uid_map
	 * owned by root; init() makes the child non-dumpable again. */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
		fail(ln, "PR_SET_DUMPABLE");
	if (file_put("/proc/self/uid_map", ln->uid_map) < 0 ||
	    file_put("/proc/self/setgroups", "deny") < 0)
		fail(ln, ln->map_step);
	if (file_put("/proc/self/gid_map", ln->gid_map) < 0)
		fail(ln, "gid_map");
	if (ln->net_w >= 0 && netns_listen(ln->net_w) < 0)
		fail(ln, "the egress proxy's listener in the run's network "
		    "namespace");
	if (ln->ns_flags & CLONE_NEWNS)
		mounts(ln);
}

/* The workdir's own path rules, on the workdir the run sees (the current
 * directory): in the child, since a run tmpfs exists only here. */
static void landlock_here(const struct launch *ln)
{
	char msg[ERRLEN - 64];
	int fd;

	if (ln->ruleset_fd < 0)
		return;
	fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || landlock_workdir(ln->ruleset_fd, ln->pol,
	    ln->plan->ll_handled, fd, ln->snippet_name, msg, sizeof(msg)) < 0) {
		errno = 0;
		fail(ln, fd < 0 ? "the working directory" : msg);
	}
	close(fd);
}

/* 1 when cordon holds cap (effective), 0 when not, -1 when unknown. */
int run_cap_held(unsigned cap)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0,
	};
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	if (cap >= 64 || syscall(SYS_capget, &h, d) < 0)
		return -1;
	return !!(d[cap / 32].effective & (1u << (cap % 32)));
}

/* Every capability gone, for good (the child; the egress proxy). */
int run_caps_drop(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0,
	};
	struct __user_cap_data_struct d[2];
	unsigned long c;
	int setpcap = run_cap_held(CAP_SETPCAP);

	if (setpcap < 0)
		return -1;
	if (setpcap == 1) {
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

/* Each limit is the policy's, but never looser than the caller's: soft
 * and hard are each the smaller of the two (threat #26). */
static void limits_set(const struct launch *ln)
{
	const struct run_plan *pl = ln->plan;
	struct rlimit rl, old;
	int i;

	for (i = 0; i < pl->nrlim; i++) {
		/* glibc's type for the resource (an enum under _GNU_SOURCE):
		 * clang's -Wsign-conversion refuses a plain int. */
		__rlimit_resource_t res =
		    (__rlimit_resource_t)pl->rlim[i].resource;

		if (getrlimit(res, &old) < 0)
			fail(ln, "getrlimit");
		command_rlimit_pair(pl->rlim[i].resource, pl->rlim[i].value,
		    &old, &rl);
		if (setrlimit(res, &rl) < 0)
			fail(ln, "setrlimit");
	}
}

/* execve with the syscall instruction in cordon's own text, whether
 * cordon is static or (sanitizer builds) not: learn mode's filter lets
 * exactly that exec through unnotified (learn.c).  x86-64, as the blob. */
static long exec_here(const char *path, char *const argv[],
    char *const envp[])
{
	long ret;

	__asm__ volatile ("syscall" : "=a"(ret) : "0"((long)SYS_execve),
	    "D"(path), "S"(argv), "d"(envp) : "rcx", "r11", "memory");
	return ret;
}

/* The last layer, then the command: in the child, or in init's child
 * (a vfork-like child: it only makes system calls, then execs or exits).
 * With a listener wanted, the filter is the rewritten one (the blob's
 * kills notify cordon instead) and its listener's number is left in
 * *listener, in the descriptor table it shares with init; the listener
 * is close-on-exec, so the command never holds it. */
static void payload_exec(const struct launch *ln, int *listener)
    __attribute__((noreturn));

static void payload_exec(const struct launch *ln, int *listener)
{
	struct sock_fprog prog = { .len = ln->nbpf, .filter = ln->bpf };
	long fd;

	if (listener) {
		/* The hello: cordon learns this process's pid as it sees
		 * it (the kernel's translation of its credentials), which a
		 * kill's audit record names.  Before the filter: nothing
		 * refuses it. */
		(void)send(ln->notify_w, &(char){ FDPASS_HELLO }, 1,
		    MSG_NOSIGNAL);
		prog.filter = ln->bpf_notify;
		prog.len = ln->nbpf_notify;
		fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
		if (fd < 0)
			fail(ln, "seccomp listener");
		*listener = (int)fd;
	} else if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0,
	    &prog) < 0) {
		fail(ln, "seccomp");
	}
	errno = (int)-exec_here(ln->argv[0], ln->argv, ln->envp);
	fail_with(ln, ln->argv[0], errno == ENOENT ? EXIT_NOTFOUND :
	    EXIT_NOEXEC);
}

struct payload_arg {
	const struct launch *ln;
	int listener;
};

static int payload_main(void *arg)
{
	struct payload_arg *a = arg;

	payload_exec(a->ln, a->ln->notify_w >= 0 ? &a->listener : NULL);
}

/*
 * A warm run (cordon --serve's template called cordon in-process): no
 * exec follows, so init forks the run itself, unfiltered (a fork by a
 * filtered process would be a call the policy may refuse, and nobody
 * could answer it yet).  The run keeps its stdin (a spare's request) and
 * fd 3 ("warm"), closes every other descriptor (those a cold run's exec
 * closes), installs the filter, its listener landing on
 * WARM_LISTENER_FD, and resumes the template's interpreter in
 * warm_resume (it never returns).  Every other layer is the cold run's:
 * this process is what child() and init() made.
 */
void (*warm_resume)(char **argv, char **envp);

static void warm_run(const struct launch *ln) __attribute__((noreturn));

static void warm_run(const struct launch *ln)
{
	struct sock_fprog prog = { .len = ln->nbpf, .filter = ln->bpf };
	unsigned long flags = 0;
	long fd;

	/* Dumpable, as a cold run's command is after its exec: cordon (same
	 * uid, outside the run's user namespace) takes the listener. */
	if (ln->ready_w < 0 || dup2(ln->ready_w, WARM_RUN_READY_FD) < 0 ||
	    syscall(SYS_close_range, WARM_RUN_READY_FD + 1, ~0U, 0) < 0 ||
	    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
		_exit(EXIT_CORDON);
	if (ln->notify_w >= 0) {
		prog.filter = ln->bpf_notify;
		prog.len = ln->nbpf_notify;
		flags = SECCOMP_FILTER_FLAG_NEW_LISTENER;
	}
	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
	if (fd < 0 || (flags && fd != WARM_LISTENER_FD))
		_exit(EXIT_CORDON);
	warm_resume(ln->argv, ln->envp);
	_exit(EXIT_CORDON);
}

/* Send the listener to cordon and drop init's copy. */
static int listener_send(const struct launch *ln, int listener)
{
	int rc = fdpass_send(ln->notify_w, listener);

	if (close(listener) < 0 || close(ln->notify_w) < 0)
		rc = -1;
	return rc;
}

/* The cold payload, vfork-like: its listener sent to cordon. */
static pid_t cold_start(const struct launch *ln)
{
	/* The payload's stack until its exec (static: no page is touched
	 * until used; payload_exec needs about one). */
	static char stack[65536] __attribute__((aligned(16)));
	struct payload_arg arg = { .ln = ln, .listener = -1 };
	pid_t payload;

	/* Like vfork (no copy of the page tables; init waits for the exec;
	 * payload_exec() only makes system calls), and sharing the
	 * descriptor table until the exec, so that the filter's listener,
	 * made in the payload, is init's to send.  posix_spawn cannot
	 * install a seccomp filter between fork and exec. */
	payload = clone(payload_main, stack + sizeof(stack), CLONE_VM |
	    CLONE_VFORK | CLONE_FILES | SIGCHLD, &arg);
	if (payload < 0)
		fail(ln, "clone");
	close(ln->msg_w);     /* the payload's copy closed at its exec */
	if (ln->notify_w >= 0 && (arg.listener < 0 ||
	    listener_send(ln, arg.listener) < 0)) {
		kill(payload, SIGKILL);   /* no listener: nothing runs */
		_exit(EXIT_CORDON);
	}
	return payload;
}

/* The warm run, forked: cordon gets its pidfd, and takes the listener
 * from it (warmhold.c) before the run may close it. */
static pid_t warm_start(const struct launch *ln)
{
	int pidfd = -1;
	long pid = syscall(SYS_clone, (unsigned long)(CLONE_PIDFD | SIGCHLD),
	    NULL, &pidfd, NULL, 0UL);

	if (pid == 0)
		warm_run(ln);
	if (pid < 0)
		fail(ln, "fork (warm run)");
	close(ln->msg_w);
	close(ln->go_r);       /* the run's now: its stdin, its fd 3 */
	close(ln->ready_w);
	if (ln->notify_w >= 0 ? listener_send(ln, pidfd) < 0 :
	    close(pidfd) < 0) {
		kill((pid_t)pid, SIGKILL);
		_exit(EXIT_CORDON);
	}
	return (pid_t)pid;
}

/*
 * PID 1 of the run's PID namespace.  It has every layer but seccomp
 * (Landlock, no_new_privs, no capability, the rlimits, the session): it
 * must fork, wait and exit whatever the policy's filter says, and its
 * code after the fork is init_end's loop alone (initend.c).  It is made
 * non-dumpable, so the payload (same uid, same Landlock domain) can
 * neither ptrace it nor read its memory or take its descriptors; and as
 * init it ignores every signal sent from inside the namespace.  Its only
 * descriptors are the standard ones, the status pipe, whose sole reader
 * is cordon (a hijacked init could only lie about the payload's own
 * status), and for a moment the filter's listener.  It reaps every
 * orphan; when the payload ends it sends the payload's raw wait status
 * and CPU time (struct fate) to cordon (init cannot re-raise a signal on
 * itself, and only init sees the payload dead before it is reaped) and
 * exits, and the kernel kills whatever is left in the namespace.  If
 * cordon dies, the parent-death signal kills init, and the namespace
 * with it.
 */
static void init(const struct launch *ln, int maps)
    __attribute__((noreturn));

static void init(const struct launch *ln, int maps)
{
	pid_t payload;

	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		fail(ln, "PR_SET_DUMPABLE");
	payload = warm_resume ? warm_start(ln) : cold_start(ln);
	init_end(payload, ln->st_w, maps);
}

static void child(const struct launch *ln) __attribute__((noreturn));

static void child(const struct launch *ln)
{
	struct pollfd pf = { .fd = ln->msg_w, .events = POLLOUT };
	sigset_t none;
	int maps;

	/* Before anything else, so that all of the run is inside. */
	if (cgroup_join(&ln->cg) < 0)
		fail(ln, "joining the run's cgroup");
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) < 0 ||
	    signal(SIGPIPE, SIG_DFL) == SIG_ERR)
		fail(ln, "signals");
	if (setsid() < 0)
		fail(ln, "setsid");
	priority_lower(ln);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		fail(ln, "PR_SET_PDEATHSIG");
	/* The parent may have died before that: its pipe end is gone. */
	if (poll(&pf, 1, 0) < 0 || (pf.revents & POLLERR))
		_exit(EXIT_CORDON);
	if (syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC) < 0 ||
	    (ln->audit_fd >= 0 && close(ln->audit_fd) < 0))
		fail(ln, "close_range");
	/* cordon's ends of a warm spare's pipes: the run sees EOF. */
	if (ln->go_w >= 0 && (close(ln->go_w) < 0 || close(ln->ready_r) < 0))
		fail(ln, "close");
	if (dup2(ln->go_r >= 0 ? ln->go_r : ln->null_fd, 0) < 0 ||
	    dup2(ln->out_w, 1) < 0 ||
	    dup2(ln->err_w, 2) < 0)
		fail(ln, "stdio");
	if (ln->ns_flags)
		ns_setup(ln);
	limits_set(ln);
	/* In a new mount namespace, by path: the workdir may be bound anew. */
	if ((ln->ns_flags & CLONE_NEWNS ? chdir(ln->workdir) :
	    fchdir(ln->workdir_fd)) < 0)
		fail(ln, "chdir to the working directory");
	landlock_here(ln);
	umask(077);
	if (run_caps_drop() < 0)
		fail(ln, "dropping capabilities");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		fail(ln, "PR_SET_NO_NEW_PRIVS");
	/* A warm run's init reads its own map to shed the template's
	 * memory (initend.c): opened before Landlock, which may refuse it;
	 * the run closes it (warm_run). */
	maps = warm_resume ? open("/proc/self/maps", O_RDONLY | O_CLOEXEC) :
	    -1;
	if (ln->ruleset_fd >= 0 && syscall(__NR_landlock_restrict_self,
	    ln->ruleset_fd, ln->ll_log) < 0)
		fail(ln, "landlock_restrict_self");
	if (ln->ns_flags & CLONE_NEWPID)
		init(ln, maps);
	if (warm_resume)
		fail(ln, "a warm run needs a PID namespace");
	payload_exec(ln, NULL);
}

/* clone() as fork(), with namespaces and a pidfd. */
static pid_t spawn(unsigned long flags, int *pidfd)
{
	return (pid_t)syscall(SYS_clone, flags | CLONE_PIDFD | SIGCHLD, NULL,
	    pidfd, NULL, 0);
}

/* Namespace creation fails with these when the kernel or its settings
 * forbid it; anything else is a real error. */
static int ns_refused(int e)
{
	return e == EPERM || e == EINVAL || e == ENOSPC || e == EUSERS ||
	    e == EACCES || e == ENOSYS;
}

pid_t run_start(struct launch *ln, int *pidfd, char *err, size_t errlen)
{
	pid_t pid = spawn(ln->ns_flags, pidfd);

	if (pid < 0 && ln->ns_flags && ns_refused(errno))
		return RUN_NS_REFUSED;
	if (pid == 0) {
		tls_forget();  /* this copy of the credentials, before all */
		child(ln);
	}
	if (pid < 0)
		snprintf(err, errlen, "clone: %s", strerror(errno));
	return pid;
}
