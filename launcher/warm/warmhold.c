/*
 * warmhold.c - a warm pool's spare, between its set-up and its run.
 *
 * The template (warm.py) makes spares ahead of requests.  A spare is
 * cordon (launch.c) in a fork of the template's maker, with the blob
 * and the pool's options: workdir, run tmpfs, cgroup, namespaces,
 * rlimits, Landlock and seccomp are all in place around a run process
 * that has resumed the template's interpreter.  The run exercises the
 * preloads once (copy-on-write faults and cold caches paid now, not in
 * the caller's time), writes "W" on its fd 3 and reads its stdin.
 *
 * Here cordon waits with it: for that "W" (or the run's end), then says
 * "R" to the template (and "T" when it has a run tmpfs) and takes one
 * request (warm.h: the protocol): NUL-separated words (the
 * caller's directory, then cordon's options, the blob, the snippet and
 * its arguments) with the caller's stdin, stdout, stderr and, for
 * --status-fd, its status descriptor.  The options are parsed by cordon's
 * own parser and only those that do not change the set-up are taken
 * (--timeout, --output, --quiet, --status-fd, --status-file, and
 * --workdir, whose files are copied into the run tmpfs and whose outputs
 * are copied back, as a cold run's).  The snippet is copied into the
 * run's workdir, the run gets its arguments on its stdin ("G", a 4-byte
 * length, NUL-ended words; then EOF, or with --stdin the caller's stdin,
 * relayed by supervise(): feed.c), and the run's clock starts.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cordon.h"
#include "sysdecode.h"
#include "wall.h"
#include "warm.h"

#define WARM_READY_MS 30000           /* a spare's warm-up, at most */

int warm_spare_ctl = -1;

/* The run's listener, taken from it (pidfd_getfd) once its filter is
 * installed; init sent its pidfd.  0, or -1 (not yet, or errno). */
static int listener_take(struct held_run *w)
{
	long fd = syscall(SYS_pidfd_getfd, w->run, WARM_LISTENER_FD, 0);

	if (fd < 0)
		return -1;
	w->listener = (int)fd;
	close(w->run);
	w->run = -1;
	return 0;
}

/* The call a notification before the request stopped, named. */
static const char *refused_call(int listener)
{
	static char buf[160];
	struct seccomp_notif req;
	uint64_t args[6];
	int i;

	memset(&req, 0, sizeof(req));
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
		return "made a call the policy refuses";
	for (i = 0; i < 6; i++)
		args[i] = req.data.args[i];
	snprintf(buf, sizeof(buf), "made a call the policy refuses: ");
	sysdecode_call((uint32_t)req.data.nr, args, buf + strlen(buf),
	    sizeof(buf) - strlen(buf));
	return buf;
}

/*
 * The run's "W" on its fd 3.  Meanwhile init sends the run's pidfd, and
 * the listener is taken from the run; a notification before the request
 * means the template's own code made a call the policy refuses: nobody
 * may answer it for the snippet, and the spare fails.  0, or -1 with err
 * (the run called what the policy refuses, ended, or hung, or its
 * listener could not be taken).
 */
static int run_warm(struct held_run *w, char *err)
{
	struct pollfd pf[4] = { { .fd = w->ready_r, .events = POLLIN },
	    { .fd = w->pidfd, .events = POLLIN }, { .fd = -1 },
	    { .fd = w->ctl, .events = 0 } };
	uint64_t end = clock_now_ms() + WARM_READY_MS, now;
	const char *why = "was not ready in 30 s";
	char c = 0;
	int n;

	if (w->notify_sock >= 0 && (w->run = fdpass_recv(w->notify_sock,
	    0)) < 0) {
		snprintf(err, ERRLEN, "the warm run's init sent no pidfd");
		return -1;
	}
	while ((now = clock_now_ms()) < end) {
		/* EBADF: no filter yet; EPERM: not yet dumpable. */
		if (w->run >= 0 && listener_take(w) < 0 && errno != EBADF &&
		    errno != EPERM)
			break;
		pf[2].fd = w->listener;
		pf[2].events = POLLIN;
		/* Until its filter is installed, look again each ms. */
		n = poll(pf, 4, w->run >= 0 ? 1 : (int)(end - now));
		if (n < 0 && errno != EINTR)
			break;
		if (n <= 0)
			continue;
		why = pf[3].revents ? "" :           /* the pool closed */
		    (pf[2].revents & POLLIN) ? refused_call(w->listener) :
		    "ended";
		if ((pf[0].revents & POLLIN) && !pf[2].revents &&
		    !pf[3].revents)
			break;
		if (pf[0].revents | pf[1].revents | pf[2].revents |
		    pf[3].revents)
			goto failed;
	}
	/* "W" comes after the filter (and the run's dumpable flag): its
	 * listener is there now, for certain. */
	if (w->run >= 0 && listener_take(w) < 0)
		why = "could not give its listener";
	else if ((pf[0].revents & POLLIN) && read(w->ready_r, &c, 1) == 1 &&
	    c == WARM_MSG_WARM)
		return 0;
failed:
	snprintf(err, ERRLEN, why[0] ? "the warm run %s before its "
	    "request" : "%s", why);
	return -1;
}

/* One request from the template: its words into buf (each NUL-ended;
 * their length to *got), its descriptors into fds.  Returns the count of
 * descriptors, or -1. */
static int request_take(int ctl, int tmpfs, char *buf, size_t len,
    size_t *got, int fds[FDPASS_MAX], char *err)
{
	const char ready[2] = { WARM_MSG_READY, tmpfs ? WARM_READY_TMPFS :
	    WARM_READY_PLAIN };
	ssize_t n;
	int nfd = 0;

	if (write_all(ctl, ready, sizeof(ready)) < 0) {
		snprintf(err, ERRLEN, "the pool is gone");
		return -1;
	}
	while ((n = fdpass_recvv(ctl, buf, len - 1, fds, &nfd, 0)) < 0 &&
	    errno == EINTR)
		;
	if (n <= 0 || nfd < WARM_FDS_MIN || nfd > WARM_FDS_MAX) {
		/* The pool closing an idle spare is no error to print. */
		snprintf(err, ERRLEN, "%s", n == 0 ? "" : "the pool sent no "
		    "request");
		while (nfd > 0)
			close(fds[--nfd]);
		return -1;
	}
	*got = (size_t)n;            /* warmreq_split ends its last word */
	return nfd;
}

/* The caller's descriptors become cordon's 0, 1, 2; the status one, if
 * any, stays where it landed: its number, for --status-fd, into num. */
static int fds_take(const int fds[FDPASS_MAX], int nfd, char *num,
    size_t numlen)
{
	int i, rc = 0;

	for (i = 0; i < WARM_FDS_MIN; i++)
		if (dup2(fds[i], i) < 0)
			rc = -1;
	for (i = 0; i < WARM_FDS_MIN; i++)
		close(fds[i]);
	snprintf(num, numlen, "%d", nfd == WARM_FDS_MAX ? fds[nfd - 1] : -1);
	return rc;
}

/* The snippet into the run's workdir (the spare's empty copy). */
static int snippet_put(const struct opts *g, const struct held_run *w,
    char *err)
{
	char path[128];
	int in, out, rc;

	snprintf(path, sizeof(path), "%s%s", w->mnt >= 0 ? "w/" : "",
	    w->snippet);
	if ((in = snippet_open(g->snippet, err, ERRLEN)) < 0)
		return -1;
	out = openat(w->mnt >= 0 ? w->mnt : w->wfd, path, O_WRONLY |
	    O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
	rc = out < 0 ? -1 : snippet_fill(in, g->snippet, out, err, ERRLEN);
	if (out < 0)
		snprintf(err, ERRLEN, "snippet copy: %s", strerror(errno));
	if (out >= 0 && close(out) < 0 && rc == 0) {
		snprintf(err, ERRLEN, "snippet copy: %s", strerror(errno));
		rc = -1;
	}
	if (in > 0)
		close(in);
	return rc;
}

/* --workdir DIR in a request: DIR's files into the run tmpfs; finish()
 * copies the outputs back (the snippet's copy is removed from DIR after:
 * a DIR holding that name is refused, its file would be lost). */
static int workdir_in(struct opts *g, struct held_run *w,
    struct report *r, char *err)
{
	char path[sizeof(r->workdir)];
	struct runfs_budget b;
	int d, in;

	if (w->mnt < 0) {
		snprintf(err, ERRLEN, "--workdir in a warm run needs the run "
		    "tmpfs (a mount namespace)");
		return -1;
	}
	if (workdir_make(g->workdir, path, sizeof(path), err, ERRLEN) < 0)
		return -1;
	d = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d < 0 || faccessat(d, w->snippet, F_OK, AT_SYMLINK_NOFOLLOW) ==
	    0) {
		snprintf(err, ERRLEN, "--workdir %.400s: %s", path, d < 0 ?
		    strerror(errno) : "holds snippet.py, the warm run's own");
		if (d >= 0)
			close(d);
		return -1;
	}
	in = openat(w->mnt, "w", O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	/* Unbounded here: the run tmpfs refuses past its own bounds. */
	runfs_budget_init(&b, UINT64_MAX, UINT64_MAX, NULL);
	if (in < 0 || runfs_copy(d, in, &b) < 0) {
		snprintf(err, ERRLEN, "copying %.400s into the run tmpfs: %s",
		    path, strerror(errno));
		if (in >= 0)
			close(in);
		close(d);
		return -1;
	}
	close(in);
	memcpy(r->workdir, path, sizeof(r->workdir));
	w->given = d;
	return 0;
}

/* The run's arguments on its stdin (then EOF, or the feed). */
static int args_send(const struct held_run *w, const struct opts *g)
{
	static char buf[WARM_HEAD_LEN + WARM_REQUEST_MAX];
	size_t len = WARM_HEAD_LEN, n;
	int i;

	for (i = 0; i < g->nargs; i++) {
		n = strlen(g->args[i]) + 1;
		if (len + n > sizeof(buf))
			return -1;
		memcpy(buf + len, g->args[i], n);
		len += n;
	}
	warm_head_put(buf, WARM_MSG_GO, (uint32_t)(len - WARM_HEAD_LEN));
	return write_all(w->go_w, buf, len);
}

int warm_hold(struct opts *o, struct held_run *w, struct report *r,
    char *err)
{
	static char buf[WARM_SPARE_MAX + 1], num[16];
	static struct warmreq rq;
	enum warmreq_error e;
	struct opts g;
	int fds[FDPASS_MAX], nfd, end;
	size_t len;

	nfd = run_warm(w, err);
	if (w->run >= 0) {            /* its listener is taken, or never */
		close(w->run);
		w->run = -1;
	}
	if (nfd < 0 || (nfd = request_take(w->ctl, w->mnt >= 0, buf,
	    sizeof(buf), &len, fds, err)) < 0)
		return -1;
	e = warmreq_split(buf, len, &rq);
	if (fds_take(fds, nfd, num, sizeof(num)) < 0 || e != WARMREQ_OK ||
	    chdir(rq.cwd) < 0) {
		snprintf(err, ERRLEN, "a warm request: %s", e != WARMREQ_OK ?
		    warmreq_why(e) : strerror(errno));
		return -1;
	}
	/* A run's own options only: its set-up is made. */
	if ((end = opts_warm_scan(rq.argc, rq.argv, 0, err, ERRLEN)) < 0)
		return -1;
	warmreq_status_fd(&rq, end, num);
	optind = 0;
	if (opts_parse(rq.argc, rq.argv, &g) >= 0 || strcmp(g.policy,
	    o->policy) != 0) {
		snprintf(err, ERRLEN, "a warm request: bad options, or not "
		    "the pool's policy");
		return -1;
	}
	r->wall_ms = clock_now_ms();
	if ((g.workdir && workdir_in(&g, w, r, err) < 0) ||
	    snippet_put(&g, w, err) < 0)
		return -1;
	/* --stdin: the caller's stdin follows, relayed by supervise()
	 * (feed.c), which never blocks on the run's pipe. */
	if (args_send(w, &g) < 0 || (g.keep_stdin &&
	    fcntl(w->go_w, F_SETFL, O_NONBLOCK) < 0)) {
		snprintf(err, ERRLEN, "the warm run: %s", strerror(errno));
		return -1;
	}
	/* The pool's --timeout and --output (this spare's), tightened by
	 * the request's. */
	if (g.timeout_ms && (!o->timeout_ms || g.timeout_ms < o->timeout_ms))
		o->timeout_ms = g.timeout_ms;
	/* A session: the policy's session bound, tightened by the request
	 * alone (the pool's --timeout bounds a run, each cell's is the
	 * client's); launch.c refuses one that asks for more. */
	if (g.session)
		o->timeout_ms = g.timeout_ms;
	o->session = g.session;
	if (g.output_cap < o->output_cap)
		o->output_cap = g.output_cap;
	o->quiet = g.quiet;
	o->keep_stdin = g.keep_stdin;     /* launch.c's hold(): the feed */
	o->status_fd = g.status_fd;
	o->status_file = g.status_file;
	o->workdir = g.workdir;
	o->snippet = g.snippet;
	return 0;
}

void warm_said(int ctl, int rc)
{
	char msg[WARM_HEAD_LEN];

	fflush(NULL);
	warm_head_put(msg, WARM_MSG_EXIT, (uint32_t)rc);
	(void)write_all(ctl, msg, sizeof(msg));
}
