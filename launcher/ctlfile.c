/*
 * ctlfile.c - small kernel files (/proc, cgroup controls) read or written
 * in one call, never through a link.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cordon.h"

/* A small control or /proc file, one read, NUL-terminated. */
int file_get(const char *file, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* Write text to an existing file (a /proc or cgroup control file). */
int file_put(const char *file, const char *text)
{
	int fd = open(file, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t len = (ssize_t)strlen(text), n;

	if (fd < 0)
		return -1;
	n = write(fd, text, (size_t)len);
	if (close(fd) < 0 || n != len)
		return -1;
	return 0;
}
