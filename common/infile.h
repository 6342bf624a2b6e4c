/*
 * infile.h - how cordon and cordonc open every file they read as input
 * (a blob, a snippet, a policy source or include, an OCI profile): one
 * rule, in one place (threats.md #24).
 */
#ifndef CORDON_INFILE_H
#define CORDON_INFILE_H

#include <sys/stat.h>

/* Open path for reading with O_NONBLOCK | O_NOCTTY | O_CLOEXEC (plus
 * extra, e.g. O_NOFOLLOW), so that a FIFO or a device cannot block the
 * open itself, and refuse anything but a regular file.  Returns the
 * descriptor with *st filled, or -1 with errno set (EINVAL: not a
 * regular file).  Reads of a regular file never block on O_NONBLOCK. */
int infile_open(const char *path, int extra, struct stat *st);

/* Read the whole file behind fd (from infile_open, with its *st) into
 * buf, at most cap bytes, and NUL-terminate it (cap + 1 bytes of room):
 * one byte more than the file's size is asked for, so that a file that
 * grew is noticed.  Returns 0 with *len, or -1 with errno: EFBIG (its
 * size is more than cap bytes), ESTALE (it changed size while being read), or what
 * read() said.  EINTR is retried. */
int infile_read(int fd, const struct stat *st, char *buf, size_t cap,
    size_t *len);

/* The message for infile_open's or infile_read's errno: "not a regular
 * file" for EINVAL, "larger than ..." for EFBIG, "changed size while
 * being read" for ESTALE, strerror() otherwise. */
const char *infile_strerror(int err);

#endif
