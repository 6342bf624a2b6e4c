/*
 * outfile.h - how cordon and cordonc write every file they are given a
 * path for (a blob, an OCI profile or report, a learned policy, the
 * status report, the trace): one rule, in one place (issue 24).
 *
 * What is at the path decides how it is written:
 *   - nothing, or a regular file: a temporary file in the same directory
 *     (created O_EXCL, so never through a link), written, optionally
 *     fsync'd, closed and renamed over the path: no reader sees a
 *     partial file.  It keeps the permission bits (0777) of the file it
 *     replaces; a new file gets 0644 (0600 with OUTFILE_PRIVATE).
 *   - a character device or a FIFO: written in place, opened O_WRONLY |
 *     O_NOFOLLOW | O_NONBLOCK | O_NOCTTY (no O_CREAT, no O_TRUNC), never
 *     replaced; a FIFO nobody reads is refused at once, never waited on.
 *   - a symbolic link (never followed, never replaced: root must not
 *     write through someone else's link), a block device (a disk), a
 *     socket or a directory: refused.
 * Only the last component is looked at; the directories above it are the
 * caller's to trust.
 */
#ifndef CORDON_OUTFILE_H
#define CORDON_OUTFILE_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#define OUTFILE_SYNC    0x1  /* fsync the temporary file before the rename */
#define OUTFILE_PRIVATE 0x2  /* a new file gets 0600, not 0644 */
#define OUTFILE_DASH    0x4  /* "-" is standard output (cordonc's -o -) */
/* How cordonc writes every output: durable, "-" for standard output. */
#define OUTFILE_CORDONC (OUTFILE_SYNC | OUTFILE_DASH)
/* Room for any message of these functions: "path: why". */
#define OUTFILE_ERRLEN  (PATH_MAX + 128)

struct outfile {
	int fd;                 /* write the contents here (blocking) */
	int own;                /* fd is ours to close (not standard output) */
	int flags;
	const char *path;
	char tmp[PATH_MAX];     /* the temporary file; "" when in place */
};

/* Open path for writing as above.  Returns 0 with of->fd to write to, or
 * -1 with "path: why" in err. */
int outfile_open(struct outfile *of, const char *path, int flags,
    char *err, size_t errlen);

/* Whether outfile_open would refuse path as it is now (a link, a block
 * device, ...): 0, or -1 with "path: why" in err.  For a check before
 * the work whose result goes there. */
int outfile_check(const char *path, char *err, size_t errlen);

/* Finish: fsync (OUTFILE_SYNC), close, rename over the path.  Returns 0,
 * or -1 with "path: why" in err and the temporary file removed. */
int outfile_commit(struct outfile *of, char *err, size_t errlen);

/* Give up: close, remove the temporary file; the path is untouched. */
void outfile_abort(struct outfile *of);

/* outfile_open, write all of buf, outfile_commit. */
int outfile_write(const char *path, const void *buf, size_t len, int flags,
    char *err, size_t errlen);

#endif
