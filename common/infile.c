/* infile.c - open an input file without blocking (see infile.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "infile.h"

int infile_open(const char *path, int extra, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
	    extra);

	int e;

	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0)
		e = errno;
	else if (!S_ISREG(st->st_mode))
		e = EINVAL;
	else
		return fd;
	close(fd);
	errno = e;
	return -1;
}

const char *infile_strerror(int err)
{
	return err == EINVAL ? "not a regular file" : strerror(err);
}
