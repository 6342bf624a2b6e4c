/*
 * fault.h - the sticky first error of the blob reader and writer
 * (cpol_read.c, cpol_write.c): the first fault's message stands, later
 * ones are dropped, and bad says whether any happened.
 */
#ifndef CORDON_FAULT_H
#define CORDON_FAULT_H

#include <stddef.h>

struct fault {
	char *err;
	size_t errlen;
	int bad;
};

/* Record a fault: format into err unless one is already recorded. */
void fault(struct fault *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
