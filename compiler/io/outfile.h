/* outfile.h - write a whole output file atomically. */
#ifndef CORDON_OUTFILE_H
#define CORDON_OUTFILE_H

#include <stddef.h>

/*
 * outfile_write: write buf to path through a temporary file in the same
 * directory (mode 0644, fsync, checked close) renamed over path, so no
 * reader sees a partial file.  "-" writes to standard output.  An
 * existing path that is not a regular file (a device such as /dev/null,
 * a directory, a symlink) is refused, never replaced.  Returns 0, or -1
 * after printing a message on stderr.
 */
int outfile_write(const char *path, const void *buf, size_t len);

#endif
