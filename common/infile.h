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

/* The message for infile_open's errno: "not a regular file" for EINVAL,
 * strerror() otherwise. */
const char *infile_strerror(int err);

#endif
