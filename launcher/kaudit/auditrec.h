/*
 * auditrec.h - one kernel audit record's text, the fields cordon reads
 * (auditrec.c: no system call, fuzzed; kaudit/reader.c uses it).
 */
#ifndef CORDON_AUDITREC_H
#define CORDON_AUDITREC_H

#include "kaudit.h"

/* Record types (linux/audit.h; Debian's 6.1 headers lack Landlock's). */
#define AUDITREC_SYSCALL 1300
#define AUDITREC_EOE 1320
#define AUDITREC_SECCOMP 1326
#define AUDITREC_LL_ACCESS 1423
#define AUDITREC_LL_DOMAIN 1424

int auditrec_parse(int type, const char *text, size_t len,
    struct auditrec *r);

#endif
