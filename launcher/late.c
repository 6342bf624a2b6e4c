/*
 * late.c - descriptors closed after the status is out.
 *
 * Some last closes decide nothing the status reports yet cost the
 * caller time: the run tmpfs's mount (closing it unmounts the tree, and
 * the unmount waits for an RCU grace period) and the removed workdir
 * (its inode freed: on a file system mounted with discard, a synchronous
 * discard of its block).  Measured on a warm call: 0.7 and 1.8 ms
 * between the run's end and its status (bench/README.md section 7).
 * launch() hands them here once their use is over (the workdir already
 * removed, the copy-back done); main.c closes them once the status is
 * written and a warm run's caller told.
 */
#include <unistd.h>

#include "cordon.h"

static int late[4] = { -1, -1, -1, -1 };

void late_keep(int *fd)
{
	size_t i;

	if (*fd < 0)
		return;
	for (i = 0; i < sizeof(late) / sizeof(late[0]); i++)
		if (late[i] < 0) {
			late[i] = *fd;
			*fd = -1;
			return;
		}
	close(*fd);                   /* no room: closed now */
	*fd = -1;
}

void late_close(void)
{
	size_t i;

	for (i = 0; i < sizeof(late) / sizeof(late[0]); i++)
		if (late[i] >= 0) {
			close(late[i]);
			late[i] = -1;
		}
}
