/*
 * wall.h - write all of a buffer to a blocking descriptor: the one loop
 * on short writes that cordon and cordonc share.
 */
#ifndef CORDON_WALL_H
#define CORDON_WALL_H

#include <stddef.h>

/* write() all n bytes of p to fd, retrying on EINTR and short writes.
 * Returns 0, or -1 with errno set (EIO where write() wrote nothing). */
int write_all(int fd, const void *p, size_t n);

#endif
