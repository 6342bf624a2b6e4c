/*
 * fdpass.c - descriptors over a unix socket (SCM_RIGHTS): the way the run
 * hands cordon what only the run can make (its tmpfs mount, made in its
 * mount namespace; its seccomp listener, made by the filter), and a warm
 * request's stdio goes from cordon --submit to the pool and on to a
 * spare.  One message, with its bytes and up to FDPASS_MAX descriptors.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cordon.h"

int fdpass_sendv(int sock, const void *buf, size_t len, const int *fds,
    int nfd)
{
	char ctl[CMSG_SPACE(FDPASS_MAX * sizeof(int))];
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl,
		.msg_controllen = CMSG_SPACE((size_t)nfd * sizeof(int)),
	};
	struct cmsghdr *cm;

	if (nfd < 1 || nfd > FDPASS_MAX)
		return -1;
	memset(ctl, 0, sizeof(ctl));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN((size_t)nfd * sizeof(int));
	memcpy(CMSG_DATA(cm), fds, (size_t)nfd * sizeof(int));
	return sendmsg(sock, &mh, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

/* One message into buf (at most len bytes) and its descriptors
 * (close-on-exec) into fds, their count to *nfd.  Returns the bytes
 * read (0 at EOF), or -1: an error, a message or descriptor list cut
 * short (what came is closed), or flags has MSG_DONTWAIT and nothing is
 * there yet. */
ssize_t fdpass_recvv(int sock, void *buf, size_t len, int fds[FDPASS_MAX],
    int *nfd, int flags)
{
	char ctl[CMSG_SPACE(FDPASS_MAX * sizeof(int))];
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *cm;
	ssize_t n = recvmsg(sock, &mh, flags | MSG_CMSG_CLOEXEC);

	*nfd = 0;
	cm = n > 0 ? CMSG_FIRSTHDR(&mh) : NULL;
	if (cm && cm->cmsg_level == SOL_SOCKET &&
	    cm->cmsg_type == SCM_RIGHTS) {
		*nfd = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		memcpy(fds, CMSG_DATA(cm), (size_t)*nfd * sizeof(int));
	}
	if (n > 0 && (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		while (*nfd > 0)
			close(fds[--*nfd]);
		errno = EMSGSIZE;
		return -1;
	}
	return n;
}

int fdpass_send(int sock, int fd)
{
	return fdpass_sendv(sock, "F", 1, &fd, 1);
}

/* The descriptor (close-on-exec), or -1 (none sent, EOF, or flags has
 * MSG_DONTWAIT and nothing is there yet). */
int fdpass_recv(int sock, int flags)
{
	int fds[FDPASS_MAX], nfd;
	char byte;

	if (fdpass_recvv(sock, &byte, 1, fds, &nfd, flags) != 1 || nfd != 1) {
		while (nfd > 0)
			close(fds[--nfd]);
		return -1;
	}
	return fds[0];
}

/* The listener init sends a cold run's cordon (blocking), and before it
 * the payload's hello: one byte, FDPASS_HELLO, whose credentials the
 * kernel adds (the receiving end has SO_PASSCRED) with the payload's
 * pid translated into cordon's PID namespace, into *pid (pid may be
 * NULL; else left as it is).  The descriptor, or -1 (none sent, EOF). */
int fdpass_recv_hello(int sock, pid_t *pid)
{
	char ctl[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int))];
	struct ucred uc;
	struct cmsghdr *cm;
	ssize_t n;
	char byte = 0;
	int fd, hello;

	do {
		struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
		    .msg_control = ctl, .msg_controllen = sizeof(ctl) };

		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		fd = -1;
		hello = 0;
		for (cm = n == 1 ? CMSG_FIRSTHDR(&mh) : NULL; cm;
		    cm = CMSG_NXTHDR(&mh, cm)) {
			if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type ==
			    SCM_RIGHTS && cm->cmsg_len == CMSG_LEN(sizeof(int))) {
				memcpy(&fd, CMSG_DATA(cm), sizeof(int));
			} else if (cm->cmsg_level == SOL_SOCKET &&
			    cm->cmsg_type == SCM_CREDENTIALS && byte ==
			    FDPASS_HELLO && cm->cmsg_len ==
			    CMSG_LEN(sizeof(uc))) {
				memcpy(&uc, CMSG_DATA(cm), sizeof(uc));
				hello = uc.pid > 0;
				if (hello && pid)
					*pid = uc.pid;
			}
		}
		if (n == 1 && (mh.msg_flags & MSG_CTRUNC) && fd >= 0) {
			close(fd);
			return -1;
		}
		if (fd >= 0)
			return fd;
	} while (n < 0 ? errno == EINTR : n == 1 && hello);
	return -1;
}
