/* outfile.c - write an output file by what is at its path (see outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "wall.h"

static int fail(char *err, size_t errlen, const char *path, const char *why)
{
	snprintf(err, errlen, "%s: %s", path, why);
	return -1;
}

/* Why a path that is neither a regular file, a character device nor a
 * FIFO is refused. */
static const char *refusal(mode_t m)
{
	if (S_ISLNK(m))
		return "a symbolic link: refusing to write through it or "
		    "replace it";
	if (S_ISBLK(m))
		return "a block device: refusing to write over it";
	if (S_ISSOCK(m))
		return "a socket: refusing to write to it";
	if (S_ISDIR(m))
		return "a directory: refusing to replace it";
	return "not a regular file, a character device or a FIFO";
}

/* A character device or a FIFO: the object itself, never replaced. */
static int open_inplace(struct outfile *of, const struct stat *was,
    char *err, size_t errlen)
{
	struct stat st;
	int fd = open(of->path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_NOCTTY | O_CLOEXEC), fl, e;

	if (fd < 0) {
		e = errno;
		if (e == ENXIO && S_ISFIFO(was->st_mode))
			return fail(err, errlen, of->path, "a FIFO that no "
			    "process reads: refusing to wait for one");
		return fail(err, errlen, of->path, e == ELOOP ?
		    refusal(S_IFLNK) : strerror(e));
	}
	if (fstat(fd, &st) < 0 || st.st_dev != was->st_dev ||
	    st.st_ino != was->st_ino || st.st_rdev != was->st_rdev) {
		close(fd);
		return fail(err, errlen, of->path, "changed while it was "
		    "being opened");
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		e = errno;
		close(fd);
		return fail(err, errlen, of->path, strerror(e));
	}
	of->fd = fd;
	of->own = 1;
	return 0;
}

/* Nothing or a regular file (was NULL: nothing): a temporary file beside
 * it, with the permission bits of the file it will replace. */
static int open_temp(struct outfile *of, const struct stat *was,
    char *err, size_t errlen)
{
	const char *slash = strrchr(of->path, '/');
	int dlen = slash ? (int)(slash - of->path) + 1 : 0, e;
	mode_t mode = was ? was->st_mode & 0777 :
	    (of->flags & OUTFILE_PRIVATE) ? 0600 : 0644;

	if (snprintf(of->tmp, sizeof(of->tmp), "%.*s.cordon-XXXXXX", dlen,
	    of->path) >= (int)sizeof(of->tmp)) {
		of->tmp[0] = '\0';
		return fail(err, errlen, of->path, strerror(ENAMETOOLONG));
	}
	of->fd = mkostemp(of->tmp, O_CLOEXEC);
	if (of->fd < 0) {
		e = errno;
		of->tmp[0] = '\0';
		return fail(err, errlen, of->path, strerror(e));
	}
	of->own = 1;
	if (fchmod(of->fd, mode) < 0) {
		e = errno;
		outfile_abort(of);
		return fail(err, errlen, of->path, strerror(e));
	}
	return 0;
}

/* What is at path: OUT_NONE, OUT_REPLACE (a regular file), OUT_INPLACE
 * (a character device or a FIFO), or -1 with the refusal in err. */
enum { OUT_NONE, OUT_REPLACE, OUT_INPLACE };

static int classify(const char *path, struct stat *st, char *err,
    size_t errlen)
{
	if (lstat(path, st) < 0) {
		if (errno == ENOENT)
			return OUT_NONE;
		return fail(err, errlen, path, strerror(errno));
	}
	if (S_ISREG(st->st_mode))
		return OUT_REPLACE;
	if (S_ISCHR(st->st_mode) || S_ISFIFO(st->st_mode))
		return OUT_INPLACE;
	return fail(err, errlen, path, refusal(st->st_mode));
}

int outfile_check(const char *path, char *err, size_t errlen)
{
	struct stat st;

	return classify(path, &st, err, errlen) < 0 ? -1 : 0;
}

int outfile_open(struct outfile *of, const char *path, int flags,
    char *err, size_t errlen)
{
	struct stat st;

	of->fd = -1;
	of->own = 0;
	of->flags = flags;
	of->path = path;
	of->tmp[0] = '\0';
	if ((flags & OUTFILE_DASH) && strcmp(path, "-") == 0) {
		if (fflush(stdout) != 0)
			return fail(err, errlen, "standard output",
			    strerror(errno));
		of->fd = STDOUT_FILENO;
		return 0;
	}
	switch (classify(path, &st, err, errlen)) {
	case OUT_NONE:
		return open_temp(of, NULL, err, errlen);
	case OUT_REPLACE:
		return open_temp(of, &st, err, errlen);
	case OUT_INPLACE:
		return open_inplace(of, &st, err, errlen);
	default:
		return -1;
	}
}

int outfile_commit(struct outfile *of, char *err, size_t errlen)
{
	int e = 0;

	if (of->tmp[0] && (of->flags & OUTFILE_SYNC) && fsync(of->fd) < 0)
		e = errno;
	if (of->own && close(of->fd) < 0 && !e)
		e = errno;
	of->fd = -1;
	of->own = 0;
	if (!e && of->tmp[0] && rename(of->tmp, of->path) < 0)
		e = errno;
	if (e && of->tmp[0])
		unlink(of->tmp);
	of->tmp[0] = '\0';
	if (e)
		return fail(err, errlen, of->path, strerror(e));
	return 0;
}

void outfile_abort(struct outfile *of)
{
	if (of->own)
		close(of->fd);
	if (of->tmp[0])
		unlink(of->tmp);
	of->fd = -1;
	of->own = 0;
	of->tmp[0] = '\0';
}

int outfile_write(const char *path, const void *buf, size_t len, int flags,
    char *err, size_t errlen)
{
	struct outfile of;
	int e;

	if (outfile_open(&of, path, flags, err, errlen) < 0)
		return -1;
	if (write_all(of.fd, buf, len) < 0) {
		e = errno;
		outfile_abort(&of);
		return fail(err, errlen, path, strerror(e));
	}
	return outfile_commit(&of, err, errlen);
}
