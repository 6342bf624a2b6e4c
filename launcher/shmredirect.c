/*
 * shmredirect.c - a run without a private /dev/shm (no mount namespace)
 * gets libcordon-shm.so preloaded, so that its POSIX semaphores and shared
 * memory objects (multiprocessing's Lock, Queue, Pool) are files in
 * WORKDIR/.cordon-shm, inside its bounds, instead of /dev/shm, which it
 * may not write (launcher/shm/shm.c says why).  The library is found
 * beside cordon only (companion.c), never through the environment; the
 * run gets the right to read that one file and nothing else.  Without
 * the library (or with a policy's own LD_PRELOAD, which is left as it
 * is) the run goes as before: its semaphores fail with EACCES.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cordon.h"
#include "landlock_compat.h"
#include "plan.h"
#include "shm.h"

int shm_redirect(struct launch *ln, const struct run_plan *pl, char *err)
{
	char lib[PATH_MAX], dir[PATH_MAX + sizeof(CPOL_SHM_DIR_NAME) + 1];
	uint64_t access;
	int fd;

	if (pl->private_shm || companion_path(SHM_LIB, lib, sizeof(lib)) < 0)
		return 0;
	access = landlock_rule_access(CORDON_LL_FS_READ_FILE, pl->ll_handled,
	    0);
	if (ln->ruleset_fd >= 0 && access) {
		if ((fd = open(lib, O_PATH | O_CLOEXEC)) < 0 ||
		    landlock_add(ln->ruleset_fd, fd, access) < 0) {
			snprintf(err, ERRLEN, "%.300s: %s", lib, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		close(fd);
	}
	snprintf(dir, sizeof(dir), "%s/%s", ln->workdir, CPOL_SHM_DIR_NAME);
	if (command_setenv(&ln->envp, "LD_PRELOAD", lib, 0) < 0 ||
	    command_setenv(&ln->envp, SHM_ENV, dir, 1) < 0) {
		snprintf(err, ERRLEN, "out of memory");
		return -1;
	}
	return 0;
}
