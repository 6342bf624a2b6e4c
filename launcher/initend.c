/*
 * initend.c - the run's init once the payload has started: it reaps
 * until the payload has ended, sends cordon the payload's fate and exits
 * (run.c says why init exists and what it holds).
 *
 * A warm run's init first lets go of the template's memory.  It is a
 * fork of its spare, a fork of the template's maker, so it maps the
 * interpreter's whole heap (about 55 of code_gen's 85 MiB resident are
 * private anonymous memory), which it never touches once it has forked
 * the run.  Its exit tore those page tables down after the run had
 * ended and before cordon could report: on the caller's path
 * (bench/README.md section 7).  Shed instead right after the run's fork,
 * while the spare waits for a request: every private anonymous mapping
 * is unmapped but the stack and the thread's own block (from the thread
 * pointer: the stack protector's canary, errno and glibc's rseq area,
 * which the kernel writes).  Code and file mappings stay.
 *
 * From then on init may use nothing else: it makes system calls through
 * syscall(2) only (the shed itself: that and string functions on its
 * stack), and no signal handler is left: each is reset to the default
 * first (a template's handler is the interpreter's code, on memory about
 * to go; init ignores a signal from inside its namespace without one).
 * Best effort: a map that cannot be read leaves the rest as it was.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cordon.h"

/* A maps line: "lo-hi perms offset dev inode path", the path at most
 * PATH_MAX and " (deleted)". */
#define LINE_MAX_LEN (PATH_MAX + 256)

struct keep {
	uintptr_t at[4];              /* addresses init still uses */
};

/* A hexadecimal or decimal number at *s, *s moved past it. */
static uintptr_t number(const char **s, unsigned base)
{
	uintptr_t n = 0;
	unsigned d;

	for (;; (*s)++) {
		if (**s >= '0' && **s <= '9')
			d = (unsigned)(**s - '0');
		else if (base == 16 && **s >= 'a' && **s <= 'f')
			d = (unsigned)(**s - 'a' + 10);
		else
			return n;
		n = n * base + d;
	}
}

/* The field after the next run of spaces. */
static const char *next(const char *s)
{
	while (*s && *s != ' ')
		s++;
	while (*s == ' ')
		s++;
	return s;
}

/* One line (NUL-ended, no newline): its range, if it is private
 * anonymous memory holding none of keep's addresses; 0 otherwise.
 * warm/warmhuge.c reads the same lines with libc (strtoul, strchr):
 * init may call no libc function that could touch memory it unmaps. */
static int droppable(const char *s, const struct keep *k, uintptr_t *lo,
    uintptr_t *hi)
{
	const char *perms, *path;
	size_t i;

	*lo = number(&s, 16);
	if (strncmp(s++, "-", 1) != 0)        /* lo-hi */
		return 0;
	*hi = number(&s, 16);
	perms = next(s);
	s = next(next(next(perms)));          /* past offset and device */
	if (strlen(perms) < 4 || perms[3] != 'p' || number(&s, 10) != 0)
		return 0;                     /* shared, or a file's */
	path = next(s);
	if (*path && strcmp(path, "[heap]") != 0 &&
	    strncmp(path, "[anon:", 6) != 0)
		return 0;                     /* [stack], [vdso], ... */
	for (i = 0; i < sizeof(k->at) / sizeof(k->at[0]); i++)
		if (k->at[i] >= *lo && k->at[i] < *hi)
			return 0;
	return *hi > *lo;
}

/* Every handler gone: each signal's action the default. */
static void handlers_reset(void)
{
	/* The kernel's struct sigaction: handler, flags, restorer, mask. */
	unsigned long dfl[4] = { (unsigned long)SIG_DFL, 0, 0, 0 };
	long sig;

	for (sig = 1; sig <= 64; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			(void)syscall(SYS_rt_sigaction, sig, dfl, NULL, 8UL);
}

/* Unmap each droppable line of buf[0, n); what is left of an unfinished
 * last line is moved to the start.  The length kept. */
static size_t shed_lines(char *buf, size_t n, const struct keep *k)
{
	char *line = buf, *nl;
	uintptr_t lo, hi;

	while ((nl = memchr(line, '\n', n - (size_t)(line - buf))) != NULL) {
		*nl = '\0';
		if (droppable(line, k, &lo, &hi))
			(void)syscall(SYS_munmap, lo, hi - lo);
		line = nl + 1;
	}
	n -= (size_t)(line - buf);
	memmove(buf, line, n);
	return n;
}

static void shed(int maps)
{
	char buf[2 * LINE_MAX_LEN];
	char *tp = __builtin_thread_pointer();
	struct keep k = { .at = { (uintptr_t)buf, (uintptr_t)tp,
	    (uintptr_t)(tp + __rseq_offset), (uintptr_t)&errno } };
	size_t n = 0;
	long got;

	handlers_reset();
	/* The map read while it shrinks: each read goes on from the end of
	 * the last mapping it gave. */
	for (;;) {
		got = syscall(SYS_read, maps, buf + n, sizeof(buf) - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		buf[n + (size_t)got] = '\0';
		n = shed_lines(buf, n + (size_t)got, &k);
		if (n >= LINE_MAX_LEN)
			break;                /* a line longer than any */
	}
	(void)syscall(SYS_close, maps);
}

void init_end(pid_t payload, int st_w, int maps)
{
	struct fate f = { .status = 0 };
	siginfo_t si;
	int status = 0;
	long pid = 0;

	if (maps >= 0)
		shed(maps);
	/* Each child seen dead first (WNOWAIT): the payload's CPU time is
	 * read before it is reaped. */
	while (pid != payload) {
		memset(&si, 0, sizeof(si));
		if (syscall(SYS_waitid, P_ALL, 0, &si, WEXITED | WNOWAIT,
		    NULL) < 0) {
			if (errno == EINTR)
				continue;
			syscall(SYS_exit_group, EXIT_CORDON);
		}
		if (si.si_pid == payload)
			f.cpu_us = clock_cpu_us(payload);
		while ((pid = syscall(SYS_wait4, si.si_pid, &status, 0,
		    NULL)) < 0 && errno == EINTR)
			;
	}
	f.status = status;
	if (syscall(SYS_write, st_w, &f, sizeof(f)) != (long)sizeof(f))
		syscall(SYS_exit_group, EXIT_CORDON);
	syscall(SYS_exit_group, WIFEXITED(status) ? WEXITSTATUS(status) :
	    128 + WTERMSIG(status));
	__builtin_unreachable();
}
