/*
 * submit.c - cordon --submit @NAME [option ...] snippet [arg ...]: one run
 * in the warm pool NAME (cordon --serve), for scripts and tests.
 *
 * Sends this directory, then the words after NAME, each NUL-ended, with
 * this process's stdin, stdout and stderr (and the --status-fd
 * descriptor, renamed WARM_STATUS_FD for the pool) in one message over
 * the pool's abstract socket, then waits for the run's exit status and
 * exits with it (the protocol and its limits: warm.h).  An option a
 * warm run does not take (main.c's warm_run_options, warm_setup_options)
 * is refused here; the pool (warm.py) sorts the options and cordon checks
 * them again; a refusal is printed and exits 125.
 *
 * Whoever bound the name first holds it: before anything is sent, the
 * listener's credentials (SO_PEERCRED, taken by the kernel when it called
 * listen) must be this process's uid or root's; any other process gets
 * no descriptor and no word, and its answer is not taken.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

#include "cordon.h"
#include "warm.h"

/* The pool's socket, or -1 with why: the name's form, no pool bound to
 * it (none started, or one still importing its preloads: it binds once
 * ready), or the system's error. */
static int connect_pool(const char *name, const char **why)
{
	static char msg[400];
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	size_t n = strlen(name);
	int s;

	if (name[0] != '@' || n < 2 || n > sizeof(a.sun_path) - 1) {
		*why = "a pool's name is @ and 1 to 107 bytes (cordon --serve "
		    "@name policy.cpol)";
		return -1;
	}
	memcpy(a.sun_path + 1, name + 1, n - 1);    /* sun_path[0]: NUL */
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s >= 0 && connect(s, (struct sockaddr *)&a, (socklen_t)(offsetof(
	    struct sockaddr_un, sun_path) + n)) == 0)
		return s;
	if (s >= 0 && errno == ECONNREFUSED)
		snprintf(msg, sizeof(msg), "no pool listens on %s yet (a pool "
		    "takes requests once cordon --serve %s has said \"warm "
		    "pool %s " WARM_READY_WORD "\")", name, name, name);
	else
		snprintf(msg, sizeof(msg), "%s", strerror(errno));
	*why = msg;
	if (s >= 0)
		close(s);
	return -1;
}

/* 0 if the pool on s runs as this process's uid or as root; else -1
 * with why. */
static int pool_trusted(int s, const char **why)
{
	static char msg[128];
	struct ucred c;
	socklen_t n = sizeof(c);
	uid_t me = geteuid();

	if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &c, &n) < 0 ||
	    n != sizeof(c)) {
		snprintf(msg, sizeof(msg), "the pool's credentials: %s",
		    strerror(errno));
		*why = msg;
		return -1;
	}
	if (c.uid == me || c.uid == 0)
		return 0;
	snprintf(msg, sizeof(msg), "the name is held by a process of uid "
	    "%u (pid %d), not of uid %u or root: not sending anything to it",
	    (unsigned)c.uid, (int)c.pid, (unsigned)me);
	*why = msg;
	return -1;
}

/* The index of the snippet in argv (after cordon's options), or -1 with
 * *why set: too many words, or an option a warm run does not take (the
 * pool refuses it too; said here with its name). */
static int options_end(int argc, char **argv, const char **why)
{
	static char *av[WARM_WORDS_MAX + 2];
	static char msg[128];
	int i, end;

	*why = "request too long";
	if (argc > WARM_WORDS_MAX)
		return -1;
	av[0] = "cordon";
	for (i = 0; i < argc; i++)
		av[i + 1] = argv[i];
	av[argc + 1] = NULL;
	if ((end = opts_warm_scan(argc + 1, av, 1, msg, sizeof(msg))) < 0)
		*why = msg;
	return end < 0 ? -1 : end - 1;
}

/* A descriptor number, or -1. */
static int fd_word(const char *w)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(w, &end, 10);
	return errno || end == w || *end || v < 3 || v > INT32_MAX ? -1 :
	    (int)v;
}

/* This directory, then the words, each NUL-ended, into buf; the
 * --status-fd value becomes WARM_STATUS_FD and its descriptor goes to
 * *status.  Returns the length, or -1. */
static ssize_t request(int argc, char **argv, char *buf, int *status,
    const char **why)
{
	static char num[16], eq[32];
	int i, opts = options_end(argc, argv, why);
	size_t len, n;

	snprintf(num, sizeof(num), "%d", WARM_STATUS_FD);
	snprintf(eq, sizeof(eq), "--status-fd=%d", WARM_STATUS_FD);

	/* First the caller's directory: relative paths are the caller's. */
	if (opts < 0)
		return -1;
	if (!getcwd(buf, WARM_REQUEST_MAX / 2)) {
		*why = "this directory has no name";
		return -1;
	}
	len = strlen(buf) + 1;
	for (i = 0; i < argc; i++) {
		const char *w = argv[i];

		if (i > 0 && i <= opts && strcmp(argv[i - 1], "--status-fd") ==
		    0) {
			*status = fd_word(w);
			w = num;
		} else if (i < opts && strncmp(w, "--status-fd=", 12) == 0) {
			*status = fd_word(w + 12);
			w = eq;
		}
		n = strlen(w) + 1;
		if (len + n > WARM_REQUEST_MAX) {
			*why = "request too long";
			return -1;
		}
		memcpy(buf + len, w, n);
		len += n;
	}
	return (ssize_t)len;
}

/* The pool's answer on s: its exit status, or 125 after its refusal
 * (or, when it said nothing, sent's error) is printed. */
static int answer(int s, char *buf, int sent)
{
	ssize_t got = 0, r;
	int32_t code;

	/* One message (more would be the pool's error), then EOF. */
	while ((r = read(s, buf + got, 1 + WARM_ERROR_MAX - (size_t)got)) >
	    0 || (r < 0 && errno == EINTR))
		got += r > 0 ? r : 0;
	if (got == WARM_HEAD_LEN && buf[0] == WARM_MSG_EXIT && sent == 0) {
		code = (int32_t)warm_head_get(buf);
		return code < 0 || code > 255 ? EXIT_CORDON : code;
	}
	if (got > 1 && buf[0] == WARM_MSG_ERROR)
		fprintf(stderr, "cordon: the warm pool refused the run: %.*s\n",
		    (int)got - 1, buf + 1);
	else if (sent != 0)
		fprintf(stderr, "cordon: --submit: %s\n", strerror(sent));
	else
		fprintf(stderr, "cordon: the warm pool refused the run: it "
		    "ended the connection\n");
	return EXIT_CORDON;
}

int submit_main(int argc, char **argv)
{
	static char buf[WARM_REQUEST_MAX + 1];
	int fds[WARM_FDS_MAX] = { 0, 1, 2, -1 }, s, sent = 0, rc;
	const char *why = NULL;
	ssize_t len;

	if (argc < 2) {
		fprintf(stderr, "usage: cordon --submit @name [option ...] "
		    "snippet [arg ...]\n");
		return EXIT_CORDON;
	}
	len = request(argc - 1, argv + 1, buf, &fds[3], &why);
	s = len < 0 ? -1 : connect_pool(argv[0], &why);
	if (s >= 0 && pool_trusted(s, &why) < 0) {
		close(s);
		s = -1;
	}
	if (s < 0) {
		fprintf(stderr, "cordon: --submit %s: %s\n", argv[0], why);
		return EXIT_CORDON;
	}
	/* A pool that refuses at once may have closed before this send:
	 * its answer is read all the same. */
	if (fdpass_sendv(s, buf, (size_t)len, fds, fds[3] >= 0 ?
	    WARM_FDS_MAX : WARM_FDS_MIN) <
	    0)
		sent = errno ? errno : EIO;
	rc = answer(s, buf, sent);
	close(s);
	return rc;
}
