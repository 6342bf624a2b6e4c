/* fault.c - the sticky first error (see fault.h). */
#include <stdarg.h>
#include <stdio.h>

#include "fault.h"

void fault(struct fault *f, const char *fmt, ...)
{
	va_list ap;

	if (f->bad)
		return;
	f->bad = 1;
	va_start(ap, fmt);
	vsnprintf(f->err, f->errlen, fmt, ap);
	va_end(ap);
}
