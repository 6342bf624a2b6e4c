/*
 * landlock_compat.h - Landlock UAPI definitions newer than Debian 12's
 * <linux/landlock.h> (linux-libc-dev 6.1 stops at ABI 2), with the values
 * of the kernel's include/uapi/linux/landlock.h.  Our own struct names, so
 * a newer system header cannot clash; the layout is the kernel's
 * (extensible structs: the kernel takes the size we pass).
 */
#ifndef CORDON_LANDLOCK_COMPAT_H
#define CORDON_LANDLOCK_COMPAT_H

#include <stdint.h>
#include <sys/syscall.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

struct cordon_ll_ruleset_attr {
	uint64_t handled_access_fs;   /* ABI 1 */
	uint64_t handled_access_net;  /* ABI 4 */
	uint64_t scoped;              /* ABI 6 */
};

struct cordon_ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct cordon_ll_net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
};

#define CORDON_LL_RULE_PATH_BENEATH 1
#define CORDON_LL_RULE_NET_PORT 2

#define CORDON_LL_CREATE_RULESET_VERSION (1U << 0)
#define CORDON_LL_CREATE_RULESET_ERRATA (1U << 1)

/* Filesystem rights, by the ABI that introduced them. */
#define CORDON_LL_FS_EXECUTE (1ULL << 0)
#define CORDON_LL_FS_WRITE_FILE (1ULL << 1)
#define CORDON_LL_FS_READ_FILE (1ULL << 2)
#define CORDON_LL_FS_READ_DIR (1ULL << 3)
#define CORDON_LL_FS_REMOVE_DIR (1ULL << 4)
#define CORDON_LL_FS_REMOVE_FILE (1ULL << 5)
#define CORDON_LL_FS_MAKE_CHAR (1ULL << 6)
#define CORDON_LL_FS_MAKE_DIR (1ULL << 7)
#define CORDON_LL_FS_MAKE_REG (1ULL << 8)
#define CORDON_LL_FS_MAKE_SOCK (1ULL << 9)
#define CORDON_LL_FS_MAKE_FIFO (1ULL << 10)
#define CORDON_LL_FS_MAKE_BLOCK (1ULL << 11)
#define CORDON_LL_FS_MAKE_SYM (1ULL << 12)
#define CORDON_LL_FS_REFER (1ULL << 13)       /* ABI 2 */
#define CORDON_LL_FS_TRUNCATE (1ULL << 14)    /* ABI 3 */
#define CORDON_LL_FS_IOCTL_DEV (1ULL << 15)   /* ABI 5 */

#define CORDON_LL_FS_ABI1 ((1ULL << 13) - 1)
#define CORDON_LL_FS_ABI2 (CORDON_LL_FS_ABI1 | CORDON_LL_FS_REFER)
#define CORDON_LL_FS_ABI3 (CORDON_LL_FS_ABI2 | CORDON_LL_FS_TRUNCATE)
#define CORDON_LL_FS_ABI5 (CORDON_LL_FS_ABI3 | CORDON_LL_FS_IOCTL_DEV)

/* Network rights (ABI 4). */
#define CORDON_LL_NET_BIND_TCP (1ULL << 0)
#define CORDON_LL_NET_CONNECT_TCP (1ULL << 1)

/* Scopes (ABI 6). */
#define CORDON_LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define CORDON_LL_SCOPE_SIGNAL (1ULL << 1)

#define CORDON_LL_RESTRICT_SELF_LOG_SAME_EXEC_OFF (1U << 0)
#define CORDON_LL_RESTRICT_SELF_LOG_NEW_EXEC_ON (1U << 1)
#define CORDON_LL_RESTRICT_SELF_LOG_SUBDOMAINS_OFF (1U << 2)

/* The newest ABI whose rights this header knows. */
#define CORDON_LL_ABI_KNOWN 7

#endif
