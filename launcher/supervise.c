/*
 * supervise.c - the parent's side of a run: wait for the child's exec,
 * relay stdout and stderr up to the output cap (the rest is read and
 * dropped, so the child never blocks), end the run at the timeout or on
 * SIGINT/SIGTERM/SIGHUP, then kill and reap every descendant.
 *
 * cordon is a child subreaper: a descendant whose parent dies (after
 * setsid() and a double fork, say) becomes cordon's child.  The tree
 * kill loops: SIGKILL every child listed in /proc/self/task/TID/children,
 * reap one, repeat until there is no child left.  A process killed this
 * way cannot fork any more, and its orphans are reparented to cordon
 * before it can be reaped, so the loop ends with nothing alive.  With a
 * PID namespace the whole tree already dies with its init, which sends
 * the payload's wait status through the status pipe.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kaudit.h"
#include "learnmode.h"
#include "bpf.h"
#include "cordon.h"
#include "sysdecode.h"

/* How the wait loop ended: a tagged value, each kind its own data. */
enum end_kind {
	END_EXITED, END_TIMEOUT, END_OUTPUT, END_SIGNAL, END_SECCOMP,
	END_DISK, END_FAILED,
};
struct end {
	enum end_kind kind;
	int signo;                    /* END_SIGNAL: what cordon received */
	int err;                      /* END_FAILED: errno of poll(); */
	                              /* END_DISK: 1, 3 if the watch was blind
	                               * (a process, the tree), 2 if the file
	                               * system ran low */
	int nr;                       /* END_SECCOMP: the call the filter */
	uint32_t arch;                /*   stopped, and its architecture */
};

/* The filter's listener, once init has sent it; -1 before and after.
 * tokens: the refused calls cordon may answer now (DENIALS_BURST at
 * most, DENIALS_RATE more each second), as of the time at (ms). */
struct notify {
	int sock, listener;
	uint64_t tokens, at;
};

/* Wait for the child's execve: EOF on the message pipe.  Returns 0, or
 * the child's errno (or -1) with its message in msg. */
int supervise_exec(int msg_r, char *msg, size_t len)
{
	char buf[ERRLEN + 1];
	size_t got = 0;
	int e;

	for (;;) {
		ssize_t n = read(msg_r, buf + got, sizeof(buf) - 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || (got += (size_t)n) == sizeof(buf) - 1)
			break;
	}
	if (got == 0)
		return 0;
	buf[got] = '\0';
	if (got < sizeof(e)) {
		snprintf(msg, len, "the child failed to start");
		return -1;
	}
	memcpy(&e, buf, sizeof(e));
	snprintf(msg, len, "%s", buf + sizeof(e));
	return e ? e : -1;
}

static void kill_children(void)
{
	char path[64], buf[4096];
	ssize_t n;
	char *p, *end;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children",
	    (int)getpid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	/* Longer lists are read again on the next round. */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (p = buf; *p; p = end) {
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		if (pid > 0)
			kill((pid_t)pid, SIGKILL);
	}
}

static uint64_t usec(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000 + (uint64_t)tv->tv_usec;
}

/* Reap the main child (killing it first unless it has exited), with its
 * wait status and CPU time (read while it is dead and not yet reaped),
 * then kill and reap every other descendant until none is left. */
static void tree_end(pid_t pid, int exited, struct fate *f)
{
	siginfo_t si;
	int status = 0;
	pid_t r;

	if (!exited)
		kill(pid, SIGKILL);
	memset(&si, 0, sizeof(si));
	while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0 &&
	    errno == EINTR)
		;
	f->cpu_us = clock_cpu_us(pid);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	f->status = status;
	for (;;) {
		r = waitpid(-1, NULL, WNOHANG);
		if (r < 0 && errno != EINTR)
			break;
		if (r != 0)
			continue;
		kill_children();
		(void)waitpid(-1, NULL, 0);
	}
}

/* Linux 6.6: the run's thread that sends a notification hands its CPU
 * to cordon, waiting on the listener, and back with the answer: no
 * wake-up on the other CPU (a denied call's round trip).  Older kernels
 * refuse it (EINVAL): nothing changes. */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP 1
#endif

static void listener_sync(int listener)
{
	if (listener >= 0)
		(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
		    (unsigned long)SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
}

/* Take the listener (and a cold payload's pid); at EOF, stop waiting. */
static void notify_recv(struct notify *nt, struct audit *a)
{
	nt->listener = fdpass_recv_hello(nt->sock, a ? &a->payload : NULL);
	audit_payload(a);
	listener_sync(nt->listener);
	close(nt->sock);
	nt->sock = -1;
}

/* A call the Landlock watch was sent (llwatch.c) that the blob's own
 * program allows: it proceeds once seen. */
static int watched(const struct sup *sp, const struct bpf_input *in,
    uint32_t act)
{
	act &= BPF_ACT_FULL_MASK;
	return sp->llw && sp->llw->on && llwatch_watched(in->nr) &&
	    (act == BPF_ACT_ALLOW || act == BPF_ACT_LOG);
}

static void continue_call(int listener, uint64_t id)
{
	struct seccomp_notif_resp resp;

	memset(&resp, 0, sizeof(resp));
	resp.id = id;
	resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	/* ENOENT: the caller died meanwhile; nothing to do. */
	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

/* A notification: the filter stopped a call.  The blob's own program,
 * run on the same data, says what the policy decided: an errno is
 * answered with that errno (the call never runs), anything else ends
 * the run, and the call dies unanswered.  Each is recorded (denials.c).
 * Returns 1 with the call in *e when the run must end, or 0 (answered,
 * or the listener is gone: every filtered task died). */
static int notify_take(struct notify *nt, const struct sup *sp,
    short revents, struct end *e)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	struct bpf_input in;
	uint32_t act;

	if (revents & POLLIN) {
		memset(&req, 0, sizeof(req));
		if (ioctl(nt->listener, SECCOMP_IOCTL_NOTIF_RECV, &req) == 0) {
			in.nr = (uint32_t)req.data.nr;
			in.arch = req.data.arch;
			in.ip = req.data.instruction_pointer;
			memcpy(in.args, req.data.args, sizeof(in.args));
			act = bpf_run(sp->prog, sp->nprog, &in);
			if (watched(sp, &in, act)) {
				llwatch_call(sp->llw, sp->audit, &in,
				    (pid_t)req.pid);
				continue_call(nt->listener, req.id);
				return 0;
			}
			nt->tokens--;       /* notify_arm: > 0 */
			denials_add(sp->den, &in, act);
			if ((act & BPF_ACT_FULL_MASK) != BPF_ACT_ERRNO) {
				*e = (struct end){ .kind = END_SECCOMP,
				    .nr = req.data.nr, .arch = req.data.arch };
				return 1;
			}
			memset(&resp, 0, sizeof(resp));
			resp.id = req.id;
			resp.error = -(int32_t)(act & BPF_ACT_DATA_MASK);
			/* ENOENT: the caller died meanwhile; nothing to do. */
			(void)ioctl(nt->listener, SECCOMP_IOCTL_NOTIF_SEND,
			    &resp);
			return 0;
		}
	}
	if (revents & (POLLHUP | POLLERR | POLLNVAL)) {
		close(nt->listener);
		nt->listener = -1;
	}
	return 0;
}

/* The listener to poll now, or -1 while the budget is spent (then the
 * next look is at most DENIALS_WAIT_MS away): cordon's own work for the
 * run's refused calls stays within DENIALS_BURST + DENIALS_RATE a
 * second, and calls past it wait in the kernel, never let through.
 * Learn mode (trusted samples, every call notified) has no budget. */
static int notify_arm(struct notify *nt, const struct sup *sp,
    uint64_t now, uint64_t *until)
{
	struct pollfd p = { .fd = nt->listener, .events = POLLIN };
	uint64_t add;

	if (nt->listener < 0 || sp->learn || sp->llw)
		return nt->listener;
	/* Whole milliseconds: a fraction lost is a token never given. */
	add = (now - nt->at) * DENIALS_RATE / 1000;
	nt->at = now;
	nt->tokens = add >= DENIALS_BURST - nt->tokens ? DENIALS_BURST :
	    nt->tokens + add;
	if (nt->tokens > 0)
		return nt->listener;
	if (poll(&p, 1, 0) > 0 && (p.revents & POLLIN))
		sp->den->rate_limited = 1;      /* a call is waiting */
	if (now + DENIALS_WAIT_MS < *until)
		*until = now + DENIALS_WAIT_MS;
	return -1;
}

/* cordon's CPU time (this thread's) in us. */
static uint64_t cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* Before an early walk, a count of the tree's entries (watch_count: no
 * stat, stops once past): 1 when it shows the run past its files bound
 * (WATCH_COUNT), or holding more than at its start on a file system
 * running low (WATCH_LOW); *why as look_at's. */
static int quick_count(const struct sup *sp, const struct watch_pace *wp,
    int due, int *why)
{
	uint64_t max = due == WATCH_COUNT ? sp->watch_files :
	    wp->start_files, n;

	if ((due != WATCH_COUNT && due != WATCH_LOW) ||
	    watch_count(sp->watch_fd, max, &n) < 0 || n <= max)
		return 0;
	*why = n == UINT64_MAX ? 3 : due == WATCH_LOW ? 2 : 0;
	return 1;
}

/* A watched workdir (no run tmpfs): 0 past its bound (*why: 1, 3 when
 * the watch could not see all of it, 2 when the file system ran low), else
 * the ms to the next look (watchpace.c: a walk sooner once past half of
 * a bound, or at once when the file system gained enough; later when a
 * walk costs more than 1/RUNFS_WATCH_SHARE of the time between). */
static uint64_t look_at(const struct sup *sp, struct watch_pace *wp,
    uint64_t now, int *why)
{
	uint64_t found[2], next, t0;
	int due = watch_due(wp, sp->watch_fd, now), past, blind;

	if (due == WATCH_WAIT)
		return watch_wait(wp, now);
	if (quick_count(sp, wp, due, why))
		return 0;
	watch_before(wp, sp->watch_fd);
	t0 = cpu_us();
	if (watch_measure(sp->watch_fd, &found[0], &found[1], &blind) < 0)
		return RUNFS_WATCH_MS;   /* read again at the next look */
	*why = blind == WATCH_BLIND_TREE ? 3 : blind == WATCH_BLIND_PROC;
	next = found[0] > sp->watch_bytes / 2 ||
	    found[1] > sp->watch_files / 2 ? RUNFS_WATCH_NEAR_MS :
	    RUNFS_WATCH_MS;
	past = watch_walked(wp, now, found, cpu_us() - t0, next, due);
	if (past) {
		if (!*why && past == 2)
			*why = 2;
		return 0;
	}
	return watch_wait(wp, now);
}

static struct end wait_loop(struct relay *rl, const struct sup *sp,
    struct notify *nt, struct feed *feed)
{
	struct pollfd pf[11];
	struct signalfd_siginfo si;
	struct end e;
	uint64_t now, until, look = 0, next;
	struct watch_pace wp;

	watch_pace_init(&wp, sp->watch_bytes, sp->watch_files);

	for (;;) {
		now = clock_now_ms();
		if (rl->over && !rl->truncate)
			return (struct end){ .kind = END_OUTPUT };
		if (now >= sp->deadline)
			return (struct end){ .kind = END_TIMEOUT };
		if (sp->watch_fd >= 0 && now >= look) {
			e.err = 0;
			if ((next = look_at(sp, &wp, now, &e.err)) == 0)
				return (struct end){ .kind = END_DISK,
				    .err = e.err };
			look = now + next;
		}
		until = sp->watch_fd >= 0 && look < sp->deadline ? look :
		    sp->deadline;
		relay_fds(rl, pf, 0);
		pf[4].fd = sp->pidfd;
		pf[5].fd = sp->sigfd;
		pf[6].fd = nt->sock;
		pf[7].fd = notify_arm(nt, sp, now, &until);
		pf[8].fd = sp->audit ? sp->audit->fd : -1;
		for (e.nr = 4; e.nr < 9; e.nr++) {
			pf[e.nr].events = POLLIN;
			pf[e.nr].revents = 0;
		}
		feed_fds(feed, pf + 9);
		if (poll(pf, 11, until - now > 60000 ? 60000 :
		    (int)(until - now)) < 0 && errno != EINTR)
			return (struct end){ .kind = END_FAILED, .err = errno };
		if ((pf[5].revents & POLLIN) &&
		    read(sp->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			return (struct end){ .kind = END_SIGNAL,
			    .signo = (int)si.ssi_signo };
		if (sp->learn && (pf[7].revents & POLLIN))
			learn_take(nt->listener, sp);
		else if (pf[7].revents && notify_take(nt, sp, pf[7].revents,
		    &e))
			return e;
		if (pf[6].revents)
			notify_recv(nt, sp->audit);
		if (pf[8].revents)
			audit_read(sp->audit);
		relay_step(rl, pf, 0);
		feed_step(feed, pf + 9);
		if (pf[4].revents & POLLIN)
			return (struct end){ .kind = END_EXITED };
	}
}

/* cpu_limit only on the kernel's own condition: SIGXCPU once the main
 * process's CPU time as the kernel counts it (clock_cpu_us) reached
 * the soft limit, SIGKILL once it reached the hard one.  The snippet can
 * send itself either at any time, but not before it has used that much
 * CPU time; a SIGKILL between the two limits is its own. */
static int cpu_killed(const struct fate *f, const struct sup *sp, int sig)
{
	uint64_t lim = sig == SIGXCPU ? sp->cpu_limit_ms :
	    sig == SIGKILL ? sp->cpu_hard_ms : 0;

	return lim && f->cpu_us >= lim * 1000;
}

/* oom only where the kernel's OOM kill can only have been the main
 * process's: the run's memory cgroup counted one, and the run never held
 * another task (process or thread) than it and, with a PID namespace,
 * its init, so no child could have been the victim (the count is the
 * group's; who was killed is not observable).  1: oom; 0: no OOM kill
 * counted; -1: OOM kills counted (in *kills) that cordon cannot pin on
 * the main process.  Without a memory cgroup: 0, never oom. */
static int oom_killed(const struct sup *sp, uint64_t *kills)
{
	uint64_t peak;

	if (!sp->cg || !sp->cg->memory ||
	    (*kills = cgroup_oom_kills(sp->cg)) == 0)
		return 0;
	peak = cgroup_tasks_peak(sp->cg);
	return peak != UINT64_MAX && peak <= (sp->st_r >= 0 ? 2u : 1u) ?
	    1 : -1;
}

/* A kill the kernel's audit record names (audit.c): the run's first
 * process died of SIGSYS at that call. */
static void seccomp_named(struct report *r, long nr)
{
	const char *name = sysdecode_name((uint32_t)nr);

	snprintf(r->reason, sizeof(r->reason), "killed by the policy: "
	    "system call %ld (%s), from the kernel's audit record", nr,
	    name ? name : "unknown");
}

/* The run ended on its own: how its main process died, from facts. */
static void died(struct report *r, const struct fate *f,
    const struct sup *sp)
{
	int sig = WTERMSIG(f->status), oom;
	uint64_t ms = f->cpu_us / 1000, kills = 0;

	if (WIFEXITED(f->status)) {
		r->outcome = OUT_EXITED;
		r->signal = 0;
		r->exit_code = WEXITSTATUS(f->status);
		snprintf(r->reason, sizeof(r->reason), "exited with %d",
		    r->exit_code);
		return;
	}
	r->outcome = OUT_SIGNALED;
	r->signal = sig;
	r->exit_code = 128 + sig;
	snprintf(r->reason, sizeof(r->reason), "killed by SIG%s",
	    sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
	oom = sig == SIGKILL ? oom_killed(sp, &kills) : 0;
	if (cpu_killed(f, sp, sig)) {
		r->outcome = OUT_CPU;
		snprintf(r->reason, sizeof(r->reason), "killed by SIG%s: it "
		    "used %llu ms of CPU time, the limit is %llu ms",
		    sigabbrev_np(sig), (unsigned long long)ms,
		    (unsigned long long)sp->cpu_limit_ms);
	} else if (oom > 0) {
		r->outcome = OUT_OOM;
		snprintf(r->reason, sizeof(r->reason), "killed by the "
		    "kernel's out-of-memory killer");
	} else if (oom < 0) {
		snprintf(r->reason, sizeof(r->reason), "killed by SIGKILL; "
		    "the memory cgroup counted %llu OOM kill%s, of which of "
		    "the run's tasks cordon cannot tell",
		    (unsigned long long)kills, kills == 1 ? "" : "s");
	} else if ((sig == SIGXCPU || sig == SIGKILL) && sp->cpu_limit_ms) {
		snprintf(r->reason, sizeof(r->reason), "killed by SIG%s after "
		    "%llu ms of CPU time: not the CPU limit", sigabbrev_np(sig),
		    (unsigned long long)ms);
	} else if (sig == SIGSYS && sp->audit && sp->audit->seccomp_nr >= 0) {
		r->outcome = OUT_SECCOMP;
		seccomp_named(r, sp->audit->seccomp_nr);
	} else if (sig == SIGSYS || sig == SIGXFSZ) {
		snprintf(r->reason, sizeof(r->reason), "killed by SIG%s: %s, "
		    "or the snippet itself (cordon cannot tell which)",
		    sigabbrev_np(sig), sig == SIGSYS ? "the seccomp filter" :
		    "the file size limit");
	}
}

/* "killed by the policy: system call 101 (ptrace)" */
static void seccomp_reason(struct report *r, const struct end *e)
{
	const char *name = sysdecode_name((uint32_t)e->nr);

	if (e->arch != AUDIT_ARCH_X86_64 || (e->nr & 0x40000000))
		snprintf(r->reason, sizeof(r->reason), "killed by the policy: "
		    "%ssystem call %d", e->arch != AUDIT_ARCH_X86_64 ?
		    "a foreign architecture's " : "x32 ", e->nr & ~0x40000000);
	else
		snprintf(r->reason, sizeof(r->reason), "killed by the policy: "
		    "system call %d (%s)", e->nr, name ? name : "unknown");
}

static void classify(struct report *r, struct end e, const struct fate *f,
    const struct sup *sp)
{
	r->signal = SIGKILL;          /* unless died() says otherwise */
	switch (e.kind) {
	case END_EXITED:
		died(r, f, sp);
		return;
	case END_TIMEOUT:
		r->outcome = OUT_TIMEOUT;
		r->exit_code = EXIT_TIMEOUT;
		snprintf(r->reason, sizeof(r->reason), "timed out");
		return;
	case END_OUTPUT:
		r->outcome = OUT_OUTPUT;
		r->exit_code = EXIT_OUTPUT;
		snprintf(r->reason, sizeof(r->reason), "the output passed "
		    "the cap of %llu bytes", (unsigned long long)sp->cap);
		return;
	case END_SIGNAL:
		r->outcome = OUT_INTERRUPTED;
		r->exit_code = 128 + e.signo;
		snprintf(r->reason, sizeof(r->reason), "cordon got SIG%s "
		    "from outside", sigabbrev_np(e.signo) ?
		    sigabbrev_np(e.signo) : "?");
		return;
	case END_SECCOMP:
		r->outcome = OUT_SECCOMP;
		r->exit_code = 128 + SIGSYS;
		seccomp_reason(r, &e);
		return;
	case END_DISK:
		r->outcome = OUT_DISK;
		r->exit_code = 128 + SIGKILL;
		watch_reason(e.err, r->reason, sizeof(r->reason));
		return;
	case END_FAILED:
		r->outcome = OUT_ERROR;
		r->exit_code = EXIT_CORDON;
		snprintf(r->reason, sizeof(r->reason), "supervisor: poll: %s",
		    strerror(e.err));
		return;
	}
}

void supervise(const struct sup *sp, struct report *r)
{
	static char pend[2][RELAY_PENDING];
	static struct feed feed;      /* static: see relay_read's scratch */
	struct relay rl = {
		.s = { { .in = sp->out_r, .pend = pend[0],
		    .count = &r->stdout_bytes },
		    { .in = sp->err_r, .pend = pend[1],
		    .count = &r->stderr_bytes } },
		.cap = sp->cap, .truncate = sp->truncate, .r = r,
		.frames = sp->frames,
	};
	struct fate f, st;
	struct rusage ru;
	struct end e;
	struct notify nt = { .sock = sp->listener >= 0 ? -1 : sp->notify_r,
	    .listener = sp->listener, .tokens = DENIALS_BURST,
	    .at = clock_now_ms() };

	listener_sync(nt.listener);     /* a warm run's, taken before */
	sink_open(1, &rl.s[0].out);
	sink_open(2, &rl.s[1].out);
	feed_open(&feed, 0, sp->feed_w);
	e = wait_loop(&rl, sp, &nt, &feed);
	feed_end(&feed);
	tree_end(sp->pid, e.kind == END_EXITED, &f);
	if (nt.listener >= 0)
		close(nt.listener);
	relay_finish(&rl);
	/* The run's init reports the payload's own status and CPU time. */
	if (sp->st_r >= 0 && read(sp->st_r, &st, sizeof(st)) ==
	    (ssize_t)sizeof(st))
		f = st;
	if (sp->audit)
		audit_finish(sp->audit, e.kind == END_EXITED &&
		    WIFSIGNALED(f.status) && WTERMSIG(f.status) == SIGSYS);
	classify(r, e, &f, sp);
	if (getrusage(RUSAGE_CHILDREN, &ru) == 0) {
		r->user_ms = usec(&ru.ru_utime) / 1000;
		r->sys_ms = usec(&ru.ru_stime) / 1000;
		r->max_rss_kb = (uint64_t)ru.ru_maxrss;
	}
}
