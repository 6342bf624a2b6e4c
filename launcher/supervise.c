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
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cordon.h"

struct relay {
	int fd[2];                    /* stdout, stderr pipes; -1 at EOF */
	uint64_t *count[2];
	uint64_t cap, relayed;
	int broken[2];                /* our own output is gone: drop */
	int *truncated;
};

uint64_t supervise_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

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

/* write() all of p, looping on short writes.  Returns 0 or -1. */
int supervise_write(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void relay_one(struct relay *r, int i)
{
	/* Static, not on the stack: the stack-clash probes would touch all
	 * 16 pages on entry, and a first touch is a page fault (~12 us on
	 * the bench VM); here only the pages a read fills are touched. */
	static char buf[65536];
	ssize_t n = read(r->fd[i], buf, sizeof(buf));
	uint64_t room = r->cap - r->relayed;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(r->fd[i]);
		r->fd[i] = -1;
		return;
	}
	*r->count[i] += (uint64_t)n;
	if ((uint64_t)n > room)
		*r->truncated = 1;
	else
		room = (uint64_t)n;
	/* Our own output gone: drop the rest, never block the child. */
	if (!r->broken[i] && supervise_write(1 + i, buf, (size_t)room) < 0)
		r->broken[i] = 1;
	r->relayed += room;
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

/* Reap the main child (killing it first unless it has exited), then
 * kill and reap every other descendant until none is left. */
static void tree_end(pid_t pid, int exited, int *status)
{
	pid_t r;

	if (!exited)
		kill(pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
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

/* A watched workdir (no run tmpfs): 1 past its bound, else the ms to
 * the next look (sooner once past half of a bound). */
static uint64_t look_at(const struct sup *sp)
{
	uint64_t bytes, inodes;

	if (runfs_usage(sp->watch_fd, &bytes, &inodes) < 0)
		return RUNFS_WATCH_MS;   /* read again at the next look */
	if (bytes > sp->watch_bytes || inodes > sp->watch_files)
		return 1;
	return bytes > sp->watch_bytes / 2 || inodes > sp->watch_files / 2 ?
	    RUNFS_WATCH_NEAR_MS : RUNFS_WATCH_MS;
}

/* The poll loop.  Returns 0 (main child exited), 1 (timeout), WAIT_DISK,
 * or the number of the signal that interrupted cordon. */
#define WAIT_DISK (-2)
static int wait_loop(struct relay *rl, const struct sup *sp)
{
	struct pollfd pf[4];
	uint64_t deadline = sp->deadline, look = 0;
	int pidfd = sp->pidfd, sigfd = sp->sigfd, i;

	for (;;) {
		uint64_t now = supervise_now_ms(), until = deadline;
		struct signalfd_siginfo si;

		if (now >= deadline)
			return 1;
		if (sp->watch_fd >= 0 && now >= look) {
			uint64_t next = look_at(sp);

			if (next == 1)
				return WAIT_DISK;
			look = now + next;
		}
		if (sp->watch_fd >= 0 && look < until)
			until = look;
		pf[0].fd = rl->fd[0];
		pf[1].fd = rl->fd[1];
		pf[2].fd = pidfd;
		pf[3].fd = sigfd;
		for (i = 0; i < 4; i++)
			pf[i].events = POLLIN;
		if (poll(pf, 4, until - now > 60000 ? 60000 :
		    (int)(until - now)) < 0 && errno != EINTR)
			return -1;
		if ((pf[3].revents & POLLIN) &&
		    read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			return (int)si.ssi_signo;
		for (i = 0; i < 2; i++)
			if (pf[i].revents & (POLLIN | POLLHUP | POLLERR))
				relay_one(rl, i);
		if (pf[2].revents & POLLIN)
			return 0;
	}
}

/* how: 0 the child ended (with status), 1 timeout, else cordon's signal. */
static void classify(struct report *r, int how, int status)
{
	static const struct { int sig; enum outcome o; const char *why; }
	    sigs[] = {
		{ SIGSYS, OUT_SECCOMP, ": a system call the policy forbids" },
		{ SIGXCPU, OUT_CPU, ": the CPU time limit" },
		{ SIGXFSZ, OUT_FSIZE, ": the file size limit" },
	};
	const char *why = "";
	size_t i;

	r->outcome = OUT_SIGNALED;
	if (how == 0 && WIFEXITED(status)) {
		r->outcome = OUT_EXITED;
		r->exit_code = WEXITSTATUS(status);
		snprintf(r->reason, sizeof(r->reason), "exited with %d",
		    r->exit_code);
		return;
	}
	r->signal = how ? SIGKILL : WTERMSIG(status);
	r->exit_code = how == 1 ? EXIT_TIMEOUT : 128 + (how ? how : r->signal);
	if (how == 1)
		r->outcome = OUT_TIMEOUT;
	for (i = 0; how == 0 && i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigs[i].sig == r->signal) {
			r->outcome = sigs[i].o;
			why = sigs[i].why;
		}
	if (how == 1)
		snprintf(r->reason, sizeof(r->reason), "timed out");
	else if (how)
		snprintf(r->reason, sizeof(r->reason), "cordon got %s",
		    strsignal(how));
	else
		snprintf(r->reason, sizeof(r->reason), "killed by %s%s",
		    strsignal(r->signal), why);
}

int supervise(const struct sup *sp, struct report *r)
{
	struct relay rl = {
		.fd = { sp->out_r, sp->err_r }, .cap = sp->cap,
		.count = { &r->stdout_bytes, &r->stderr_bytes },
		.truncated = &r->truncated,
	};
	struct rusage ru;
	int how, status = 0, raw;

	how = wait_loop(&rl, sp);
	tree_end(sp->pid, how == 0, &status);
	/* Everything is dead: read what is left in the pipes, to EOF. */
	while (rl.fd[0] >= 0 || rl.fd[1] >= 0) {
		if (rl.fd[0] >= 0)
			relay_one(&rl, 0);
		if (rl.fd[1] >= 0)
			relay_one(&rl, 1);
	}
	/* The run's init reports the payload's own status. */
	if (sp->st_r >= 0 && read(sp->st_r, &raw, sizeof(raw)) ==
	    (ssize_t)sizeof(raw))
		status = raw;
	if (how == WAIT_DISK) {
		r->outcome = OUT_DISK;
		r->signal = SIGKILL;
		r->exit_code = 128 + SIGKILL;
		snprintf(r->reason, sizeof(r->reason), "the workdir passed "
		    "limit disk or limit files: cordon ended the run");
	} else {
		classify(r, how < 0 ? 0 : how, status);
	}
	if (getrusage(RUSAGE_CHILDREN, &ru) == 0) {
		r->user_ms = (uint64_t)ru.ru_utime.tv_sec * 1000 +
		    (uint64_t)ru.ru_utime.tv_usec / 1000;
		r->sys_ms = (uint64_t)ru.ru_stime.tv_sec * 1000 +
		    (uint64_t)ru.ru_stime.tv_usec / 1000;
		r->max_rss_kb = (uint64_t)ru.ru_maxrss;
	}
	return how;
}
