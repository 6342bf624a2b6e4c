/*
 * fdpass.c - one descriptor over a unix socket (SCM_RIGHTS), the way the
 * run hands cordon what only the run can make: its tmpfs mount (made in
 * its mount namespace) and its seccomp listener (made by the filter).
 */
#include <string.h>
#include <sys/socket.h>

#include "cordon.h"

int fdpass_send(int sock, int fd)
{
	char byte = 'F', ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *cm;

	memset(ctl, 0, sizeof(ctl));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &mh, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

/* The descriptor (close-on-exec), or -1 (none sent, EOF, or flags has
 * MSG_DONTWAIT and nothing is there yet). */
int fdpass_recv(int sock, int flags)
{
	char byte, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &mh, flags | MSG_CMSG_CLOEXEC) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&mh);
	if (!cm || cm->cmsg_level != SOL_SOCKET ||
	    cm->cmsg_type != SCM_RIGHTS ||
	    cm->cmsg_len != CMSG_LEN(sizeof(int)))
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}
