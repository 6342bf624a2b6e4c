/*
 * sink.c - writing to the caller's descriptors (cordon's stdout, stderr,
 * --status-fd) without ever blocking on them.
 *
 * The caller owns those descriptors and may share their open file
 * description with other processes, so cordon does not set O_NONBLOCK on
 * it (that flag lives in the shared description and would change how
 * the caller's other writers behave).  Instead, by the descriptor's type:
 *
 *   socket       send(MSG_DONTWAIT | MSG_NOSIGNAL): non-blocking for this
 *                call only, nothing shared changes;
 *   FIFO, tty    a second open file description on the same object,
 *                opened through /proc/self/fd/N with O_NONBLOCK (O_NOCTTY:
 *                never a controlling terminal).  A pipe whose reader is
 *                gone refuses the open (ENXIO): the sink is gone;
 *   regular file, block device   the descriptor itself: writing to them
 *                waits for the disk, never for the caller;
 *   anything else, or a reopen refused (EACCES: a pipe made by another
 *                uid)   poll() for POLLOUT with no wait, then at most
 *                PIPE_BUF bytes: a pipe that polls writable has a free
 *                page, and a write of up to PIPE_BUF bytes into it
 *                completes at once (only a third writer on the same pipe,
 *                racing between the poll and the write, could make it
 *                wait).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cordon.h"
#include "outfile.h"

void sink_open(int fd, struct sink *s)
{
	struct stat st;
	char path[64];

	s->fd = fd;
	s->own = 0;
	s->mode = SINK_POLL;
	if (fstat(fd, &st) < 0) {
		s->mode = SINK_GONE;
		return;
	}
	if (S_ISSOCK(st.st_mode)) {
		s->mode = SINK_SEND;
		return;
	}
	if (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode)) {
		s->mode = SINK_WRITE;
		return;
	}
	if (!S_ISFIFO(st.st_mode) && !isatty(fd))
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	s->fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (s->fd >= 0) {
		s->own = 1;
		s->mode = SINK_WRITE;
	} else if (errno == ENXIO) {
		s->mode = SINK_GONE;      /* no reader left */
	} else {
		s->fd = fd;
	}
}

void sink_close(struct sink *s)
{
	if (s->own && s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->own = 0;
	s->mode = SINK_GONE;
}

/* Bytes taken (0: none now, try later), or -1: the sink is gone. */
ssize_t sink_put(struct sink *s, const char *p, size_t n)
{
	struct pollfd pf = { .fd = s->fd, .events = POLLOUT };
	ssize_t w;

	if (n == 0)
		return 0;
	switch (s->mode) {
	case SINK_GONE:
		return -1;
	case SINK_SEND:
		w = send(s->fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
		break;
	case SINK_POLL:
		if (poll(&pf, 1, 0) < 0)
			return errno == EINTR ? 0 : -1;
		if (pf.revents & (POLLERR | POLLNVAL))
			return -1;
		if (!(pf.revents & POLLOUT))
			return 0;
		w = write(s->fd, p, n < PIPE_BUF ? n : PIPE_BUF);
		break;
	default:
		w = write(s->fd, p, n);
		break;
	}
	if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK ||
	    errno == EINTR))
		return 0;
	if (w <= 0) {
		s->mode = SINK_GONE;
		return -1;
	}
	return w;
}

/* Wait (at most until deadline, CLOCK_MONOTONIC ms) for the sink to take
 * more.  Returns 0 when it may, -1 when the deadline has passed. */
int sink_wait(const struct sink *s, uint64_t deadline)
{
	struct pollfd pf = { .fd = s->fd, .events = POLLOUT };
	uint64_t now = clock_now_ms();

	if (now >= deadline)
		return -1;
	if (poll(&pf, 1, (int)(deadline - now > 1000 ? 1000 :
	    deadline - now)) < 0 && errno != EINTR)
		return -1;
	return 0;
}

/* All of p, waiting at most until deadline.  Returns 0, or -1 (errno
 * ETIMEDOUT when the caller took no more in time). */
int sink_write_all(struct sink *s, const char *p, size_t n,
    uint64_t deadline)
{
	while (n > 0) {
		ssize_t w = sink_put(s, p, n);

		if (w < 0) {
			errno = EPIPE;
			return -1;
		}
		p += w;
		n -= (size_t)w;
		if (w == 0 && sink_wait(s, deadline) < 0) {
			errno = ETIMEDOUT;
			return -1;
		}
	}
	return 0;
}

/* cordon's own message on its stderr, after the run has started: the
 * caller may not be reading stderr, so it is written if it fits now,
 * within a short wait, and otherwise dropped. */
void sink_say(const char *fmt, ...)
{
	char buf[ERRLEN + 64];
	struct sink s;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	sink_open(2, &s);
	(void)sink_write_all(&s, buf, (size_t)n, clock_now_ms() + 100);
	sink_close(&s);
}

/* s with every byte outside printable ASCII as \xNN, in buf: the run
 * chose it (a path, a comm, a host it asked the proxy for) and must not
 * write cordon's lines on stderr. */
const char *sink_shown(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (; *s && o + 5 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c > 0x7e || c == '\\')
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
		else
			buf[o++] = (char)c;
	}
	buf[o] = 0;
	return buf;
}

/* A file the caller named (--status-file, --observe): common/outfile.c
 * decides how (a regular file replaced by rename, a character device or
 * a FIFO written in place, anything else refused), and the bytes go
 * through a sink, so a FIFO's reader has until deadline to take them,
 * as --status-fd's has.  Returns 0, or -1 with "path: why" in err. */
int sink_file(const char *path, const char *p, size_t n, uint64_t deadline,
    char *err, size_t errlen)
{
	struct outfile of;
	struct sink s;
	int rc;

	if (outfile_open(&of, path, OUTFILE_PRIVATE, err, errlen) < 0)
		return -1;
	sink_open(of.fd, &s);
	rc = sink_write_all(&s, p, n, deadline);
	sink_close(&s);
	if (rc < 0) {
		snprintf(err, errlen, "%s: %s", path, errno == ETIMEDOUT ?
		    "no process read it in time" : strerror(errno));
		outfile_abort(&of);
		return -1;
	}
	return outfile_commit(&of, err, errlen);
}
