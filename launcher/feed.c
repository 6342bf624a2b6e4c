/*
 * feed.c - a warm run's --stdin: the caller's standard input relayed to
 * the run's.
 *
 * A cold run with --stdin has cordon's own stdin as its fd 0.  A warm
 * run's fd 0 is a pipe from cordon made before its request (warmhold.c
 * writes its arguments there); with --stdin in the request, cordon's fd
 * 0 (the caller's, passed with the request) is copied into that pipe
 * after the arguments, until its end of file, which the run then reads.
 * cordon never blocks on it: the caller's side is read only when it
 * polls readable and nothing is pending, the run's pipe is written
 * without blocking, and at most FEED_PENDING bytes wait between them (a
 * run that does not read its stdin stops the copy, as a full pipe
 * would stop its writer, never cordon).  The caller's descriptor is not
 * touched otherwise (no flag set on it: it is shared with the caller).
 */
#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include "cordon.h"

/* out: the run's pipe, made non-blocking by warmhold.c, or -1 (no
 * feed: a cold run, or a warm one without --stdin). */
void feed_open(struct feed *f, int in, int out)
{
	f->in = out >= 0 ? in : -1;
	f->out = out;
	f->off = f->len = 0;
}

/* pf[0]: the caller's side, while nothing is pending; pf[1]: the run's
 * pipe, while something is. */
void feed_fds(const struct feed *f, struct pollfd *pf)
{
	pf[0].fd = f->in >= 0 && f->len == 0 ? f->in : -1;
	pf[0].events = POLLIN;
	pf[1].fd = f->out >= 0 && f->len > 0 ? f->out : -1;
	pf[1].events = POLLOUT;
	pf[0].revents = pf[1].revents = 0;
}

/* The caller's end of file (or an error reading it) ends the copy: the
 * run reads its end of file once what is pending is in. */
static void feed_read(struct feed *f)
{
	ssize_t n = read(f->in, f->buf, sizeof(f->buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		f->in = -1;           /* the caller's: never closed here */
		return;
	}
	f->off = 0;
	f->len = (size_t)n;
}

void feed_step(struct feed *f, const struct pollfd *pf)
{
	ssize_t w;

	if (pf[0].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))
		feed_read(f);         /* POLLNVAL: EBADF, the copy ends */
	while (f->len > 0 && f->out >= 0) {
		w = write(f->out, f->buf + f->off, f->len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			return;
		if (w <= 0) {         /* the run closed its stdin: drop all */
			f->len = 0;
			f->in = -1;
			break;
		}
		f->off += (size_t)w;
		f->len -= (size_t)w;
	}
	if (f->in < 0 && f->len == 0)
		feed_end(f);
}

void feed_end(struct feed *f)
{
	f->in = -1;
	f->len = 0;
	if (f->out >= 0)
		close(f->out);
	f->out = -1;
}
