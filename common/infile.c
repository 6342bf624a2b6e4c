/* infile.c - open an input file without blocking (see infile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
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

int infile_read(int fd, const struct stat *st, char *buf, size_t cap,
    size_t *len)
{
	size_t want, got = 0;
	ssize_t n;

	if (st->st_size < 0 || (uint64_t)st->st_size > cap) {
		errno = EFBIG;
		return -1;
	}
	want = (size_t)st->st_size;
	while (got < want + 1 && got < cap + 1) {
		n = read(fd, buf + got, (want < cap ? want + 1 : cap + 1) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got != want) {
		errno = ESTALE;   /* grew or shrank since the fstat */
		return -1;
	}
	buf[got] = '\0';
	*len = got;
	return 0;
}

const char *infile_strerror(int err)
{
	if (err == EFBIG)
		return "larger than the reader takes";
	if (err == ESTALE)
		return "changed size while being read";
	return err == EINVAL ? "not a regular file" : strerror(err);
}
