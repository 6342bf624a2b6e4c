/*
 * warmdir.c - a warm pool template's private directory ($WORKDIR of its
 * imports, /tmp/cordon-warm.XXXXXX): made and held, removed at the pool's
 * stop, and swept by the next pool when its template is gone.
 *
 * The template holds an exclusive flock on the directory for its whole
 * life (serve.c keeps the descriptor across the exec, warm.py across its
 * re-executions; its spares close it).  The mark, a file inside, is
 * written only once that lock is held: a directory whose lock a sweep
 * can take and that holds the mark was a template's, and its template is
 * gone (SIGKILL, a crash); one without the mark may be a pool being made
 * right now, and is left.  Only the caller's own directories are swept.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "cordon.h"
#include "warm.h"

#define WARMDIR_TMP "/tmp"
#define WARMDIR_PREFIX "cordon-warm."
#define WARMDIR_MARK ".cordon-pool"   /* held by a template once */

int warmdir_make(char *dir, char *err)
{
	int fd, mark = -1;

	if (!mkdtemp(dir)) {
		snprintf(err, ERRLEN, "the template's directory: %s",
		    strerror(errno));
		return -1;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* Blocking: a sweep holds it only while it looks for the mark. */
	if (fd < 0 || flock(fd, LOCK_EX) < 0 || (mark = openat(fd,
	    WARMDIR_MARK, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) < 0 || close(mark) < 0) {
		snprintf(err, ERRLEN, "the template's directory %s: %s", dir,
		    strerror(errno));
		if (fd >= 0)
			close(fd);
		(void)rmdir(dir);
		return -1;
	}
	return fd;
}

int warmdir_remove(const char *dir, char *err, size_t len)
{
	return workdir_remove(dir, WARMDIR_MARK, err, len);
}

void warmdir_sweep(void)
{
	int left = workdir_sweep(WARMDIR_TMP, WARMDIR_PREFIX, WARMDIR_MARK);

	if (left > 0)
		fprintf(stderr, "cordon: %d abandoned warm pool director%s in "
		    "%s could not be removed\n", left, left == 1 ? "y" : "ies",
		    WARMDIR_TMP);
}
