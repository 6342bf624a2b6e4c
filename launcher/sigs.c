/*
 * sigs.c - the signals cordon takes: SIGINT, SIGTERM and SIGHUP blocked
 * and read through a signalfd by the supervisor (supervise.c), never by
 * a handler; SIGPIPE ignored (a caller that closed its end is seen as a
 * write's EPIPE).  Blocked before the clone, so the child starts with
 * them blocked and unblocks them itself (run.c).
 */
#include <signal.h>
#include <sys/signalfd.h>

#include "cordon.h"

int signals_take(int *sigfd)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR ||
	    sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -1;
	*sigfd = signalfd(-1, &set, SFD_CLOEXEC);
	return *sigfd < 0 ? -1 : 0;
}
