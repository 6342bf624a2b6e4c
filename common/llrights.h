/*
 * llrights.h - cordon's groups of Landlock filesystem rights, each
 * written once (the single rights are landlock_compat.h's): the
 * language's pairs, the rights a file (not a directory) can take, a
 * private /tmp's, the ones that change or grow a tree; and the letters
 * of cordon --observe's trace, which cordonc learn reads back.
 */
#ifndef CORDON_LLRIGHTS_H
#define CORDON_LLRIGHTS_H

#include <stdint.h>

#include "landlock_compat.h"

/* The policy language's pairs (read, write, create, remove; ro, rx and
 * rw are made of them: names/tables_rights.c, query/pathq.c). */
#define CPOL_LL_READ (CORDON_LL_FS_READ_FILE | CORDON_LL_FS_READ_DIR)
#define CPOL_LL_WRITE (CORDON_LL_FS_WRITE_FILE | CORDON_LL_FS_TRUNCATE)
#define CPOL_LL_CREATE (CORDON_LL_FS_MAKE_REG | CORDON_LL_FS_MAKE_DIR)
#define CPOL_LL_REMOVE (CORDON_LL_FS_REMOVE_FILE | CORDON_LL_FS_REMOVE_DIR)

/* Rights that make sense on a file that is not a directory (the
 * launcher trims a rule on a file to them). */
#define CPOL_LL_FILE (CORDON_LL_FS_EXECUTE | CORDON_LL_FS_WRITE_FILE | \
    CORDON_LL_FS_READ_FILE | CORDON_LL_FS_TRUNCATE | CORDON_LL_FS_IOCTL_DEV)

/* Rights on a private /tmp and /dev/shm: files and directories, no exec,
 * no devices, sockets, fifos or links. */
#define CPOL_LL_TMP (CPOL_LL_READ | CPOL_LL_WRITE | CPOL_LL_CREATE | \
    CPOL_LL_REMOVE)

/* Rights that let a rule's path grow: write, or make anything new (what
 * a watch of the workdir misses outside it). */
#define CPOL_LL_GROW (CORDON_LL_FS_WRITE_FILE | CORDON_LL_FS_MAKE_REG | \
    CORDON_LL_FS_MAKE_DIR | CORDON_LL_FS_MAKE_SYM | CORDON_LL_FS_MAKE_SOCK | \
    CORDON_LL_FS_MAKE_FIFO | CORDON_LL_FS_MAKE_CHAR | \
    CORDON_LL_FS_MAKE_BLOCK)

/* Rights that change the filesystem: write, truncate, make-*, remove-*,
 * refer (everything but execute, read-file, read-dir and ioctl-dev). */
#define CPOL_LL_MODIFY (CORDON_LL_FS_ABI3 & ~(CORDON_LL_FS_EXECUTE | \
    CPOL_LL_READ))

/* The trace's rights: bit i of a path's record is letter i, one right. */
enum {
	CPOL_TR_READ = 1, CPOL_TR_LIST = 2, CPOL_TR_WRITE = 4,
	CPOL_TR_CREATE = 8, CPOL_TR_MKDIR = 16, CPOL_TR_EXEC = 32,
	CPOL_TR_RMFILE = 64, CPOL_TR_RMDIR = 128, CPOL_TR_TRUNC = 256,
	CPOL_TR_SYM = 512,
};
#define CPOL_TRACE_NRIGHTS 10

/* The letters of the rights in bits, in bit order, into buf (at least
 * CPOL_TRACE_NRIGHTS + 1 bytes). */
void cpol_trace_letters(unsigned int bits, char *buf);

/* The Landlock right of a trace letter into *right: 0, or -1 when c is
 * none of them. */
int cpol_trace_right(char c, uint64_t *right);

/* The Landlock rights of a record's bits. */
uint64_t cpol_trace_access(unsigned int bits);

#endif
