/*
 * warmhuge.c - the warm template's anonymous memory collapsed into
 * transparent huge pages (MADV_COLLAPSE, Linux 6.1) once its preloads are
 * in: each fork of it (a spare, its init, its run) copies, and each exit
 * tears down, one entry per 2 MiB instead of 512.  Measured on code_gen's
 * template (bench/README.md section 7): 22 of its 83 MiB collapse, a fork
 * takes 1.1 ms instead of 1.8, an exit 1.3 instead of 2.3.  The regions
 * are not marked MADV_HUGEPAGE: what a run allocates later stays in small
 * pages, and a run's first write to a huge page splits it, copying 4 KiB
 * as before.  Best effort: a kernel without it changes nothing.  It
 * lasts for the first spares only: the template's own writes after a
 * fork (its server loop, on pages a spare shares) split the huge pages
 * again, 20 MiB -> 2 MiB after the first request (bench/README.md
 * section 7, where collapsing again before each fork was measured and
 * not adopted).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "warm.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#define HUGE_SIZE (2UL << 20)

/* The n-th space-separated field of a maps line, or "". */
static const char *field(const char *line, int n)
{
	while (n-- > 0 && (line = strchr(line, ' ')) != NULL)
		while (*line == ' ')
			line++;
	return line ? line : "";
}

/* One line of /proc/self/maps ("lo-hi perms offset dev inode path"): a
 * private writable anonymous region (or the brk heap), its 2 MiB-aligned
 * part in [*a, *b); 0 if none.  initend.c's droppable() reads the same
 * lines without libc, for init, which may not use it there. */
static int huge_part(const char *line, unsigned long *a, unsigned long *b)
{
	const char *path = field(line, 5);
	unsigned long lo, hi;
	char *end;

	lo = strtoul(line, &end, 16);
	if (strncmp(end, "-", 1) != 0)     /* lo-hi */
		return 0;
	hi = strtoul(end + 1, &end, 16);
	if (*end != ' ' || strncmp(end + 1, "rw-p ", 5) != 0 ||
	    (path[0] != '\n' && path[0] && strcmp(path, "[heap]\n") != 0))
		return 0;
	*a = (lo + HUGE_SIZE - 1) & ~(HUGE_SIZE - 1);
	*b = hi & ~(HUGE_SIZE - 1);
	return *b > *a;
}

/* [a, b) in huge pages: an address range /proc/self/maps listed. */
static int collapse(unsigned long a, unsigned long b)
{
	void *at = (void *)a;  /* NOLINT(performance-no-int-to-ptr) */

	return madvise(at, b - a, MADV_COLLAPSE);
}

unsigned long warm_huge(void)
{
	char line[512];
	unsigned long a, b, done = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (huge_part(line, &a, &b) && collapse(a, b) == 0)
			done += (b - a) / HUGE_SIZE;
	fclose(f);
	return done;
}
