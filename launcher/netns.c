/*
 * netns.c - the run's network namespace under named hosts, in the child
 * while it still holds the capabilities of its new user namespace (which
 * owns the new network namespace): bring loopback up, make the proxy's
 * listening socket on 127.0.0.1:CPOL_PROXY_PORT, and hand it to cordon
 * (SCM_RIGHTS, fdpass_send), which starts the proxy on it in the host's
 * namespace.  The child keeps no copy: the snippet cannot accept on it.
 * Loopback is brought up with SIOCSIFFLAGS: no netlink, no ip(8).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cordon.h"
#include "egress.h"

/* The backlog: connections the run may open before the proxy accepts. */
#define NETNS_BACKLOG 64

static int lo_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = -1;

	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, "lo", 3);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		rc = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	close(fd);
	return rc;
}

int netns_listen(int sock)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
	    .sin_port = htons(CPOL_PROXY_PORT) };
	int fd, rc = -1, e;

	if (lo_up() < 0)
		return -1;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    listen(fd, NETNS_BACKLOG) == 0)
		rc = fdpass_send(sock, fd);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}
