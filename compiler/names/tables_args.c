/*
 * tables_args.c - argument names and widths of the syscalls a policy is
 * likely to condition.
 *
 * Width is 32 where the kernel reads the argument as a C int, unsigned
 * int, pid_t or umode_t (or truncates it, as clone() does its flags with
 * lower_32_bits()), so that a filter compares only the bits the kernel
 * uses; 64 for pointers, sizes, offsets and unsigned long flags the
 * kernel reads whole.  Taken from the SYSCALL_DEFINEn prototypes of
 * Linux 6.18 (x86-64 entry points).
 */
#include <stddef.h>
#include <string.h>

#include "tables.h"

struct arg {
	const char *name;
	unsigned char width;
};

struct sysargs {
	const char *syscall;
	struct arg a[6];
};

#define I(n) { n, 32 }
#define L(n) { n, 64 }

static const struct sysargs table[] = {
	{ "accept4", { I("fd"), L("addr"), L("addrlen"), I("flags") } },
	{ "arch_prctl", { I("option"), L("addr") } },
	{ "bind", { I("fd"), L("addr"), I("addrlen") } },
	{ "bpf", { I("cmd"), L("attr"), I("size") } },
	{ "chmod", { L("pathname"), I("mode") } },
	{ "clone", { I("flags"), L("stack"), L("parent_tid"), L("child_tid"),
	    L("tls") } },
	{ "clone3", { L("cl_args"), L("size") } },
	{ "close", { I("fd") } },
	{ "connect", { I("fd"), L("addr"), I("addrlen") } },
	{ "creat", { L("pathname"), I("mode") } },
	{ "dup", { I("oldfd") } },
	{ "dup2", { I("oldfd"), I("newfd") } },
	{ "dup3", { I("oldfd"), I("newfd"), I("flags") } },
	{ "execve", { L("pathname"), L("argv"), L("envp") } },
	{ "execveat", { I("dirfd"), L("pathname"), L("argv"), L("envp"),
	    I("flags") } },
	{ "fallocate", { I("fd"), I("mode"), L("offset"), L("len") } },
	{ "fchmod", { I("fd"), I("mode") } },
	{ "fchmodat", { I("dirfd"), L("pathname"), I("mode") } },
	{ "fchmodat2", { I("dirfd"), L("pathname"), I("mode"), I("flags") } },
	{ "fcntl", { I("fd"), I("cmd"), L("arg") } },
	{ "futex", { L("uaddr"), I("op"), I("val"), L("timeout"),
	    L("uaddr2"), I("val3") } },
	{ "getrandom", { L("buf"), L("buflen"), I("flags") } },
	{ "getsockopt", { I("fd"), I("level"), I("optname"), L("optval"),
	    L("optlen") } },
	{ "ioctl", { I("fd"), I("request"), L("arg") } },
	{ "kill", { I("pid"), I("sig") } },
	{ "listen", { I("fd"), I("backlog") } },
	{ "lseek", { I("fd"), L("offset"), I("whence") } },
	{ "madvise", { L("addr"), L("length"), I("advice") } },
	{ "memfd_create", { L("name"), I("flags") } },
	{ "mkdir", { L("pathname"), I("mode") } },
	{ "mkdirat", { I("dirfd"), L("pathname"), I("mode") } },
	/* the kernel reads mmap's fd through fget(unsigned int) */
	{ "mmap", { L("addr"), L("length"), L("prot"), L("flags"), I("fd"),
	    L("offset") } },
	{ "mknod", { L("pathname"), I("mode"), I("dev") } },
	{ "mknodat", { I("dirfd"), L("pathname"), I("mode"), I("dev") } },
	{ "mount", { L("source"), L("target"), L("filesystemtype"),
	    L("mountflags"), L("data") } },
	{ "mprotect", { L("addr"), L("length"), L("prot") } },
	{ "mremap", { L("old_address"), L("old_size"), L("new_size"),
	    L("flags"), L("new_address") } },
	{ "open", { L("pathname"), I("flags"), I("mode") } },
	{ "openat", { I("dirfd"), L("pathname"), I("flags"), I("mode") } },
	{ "openat2", { I("dirfd"), L("pathname"), L("how"), L("size") } },
	{ "perf_event_open", { L("attr"), I("pid"), I("cpu"), I("group_fd"),
	    L("flags") } },
	{ "personality", { I("persona") } },
	{ "pidfd_getfd", { I("pidfd"), I("targetfd"), I("flags") } },
	{ "pidfd_open", { I("pid"), I("flags") } },
	{ "pidfd_send_signal", { I("pidfd"), I("sig"), L("info"),
	    I("flags") } },
	{ "pkey_mprotect", { L("addr"), L("length"), L("prot"), I("pkey") } },
	{ "prctl", { I("option"), L("arg2"), L("arg3"), L("arg4"),
	    L("arg5") } },
	{ "prlimit64", { I("pid"), I("resource"), L("new_limit"),
	    L("old_limit") } },
	{ "process_vm_readv", { I("pid"), L("local_iov"), L("liovcnt"),
	    L("remote_iov"), L("riovcnt"), L("flags") } },
	{ "process_vm_writev", { I("pid"), L("local_iov"), L("liovcnt"),
	    L("remote_iov"), L("riovcnt"), L("flags") } },
	{ "ptrace", { L("request"), L("pid"), L("addr"), L("data") } },
	{ "read", { I("fd"), L("buf"), L("count") } },
	{ "recvfrom", { I("fd"), L("buf"), L("len"), I("flags"),
	    L("src_addr"), L("addrlen") } },
	{ "recvmsg", { I("fd"), L("msg"), I("flags") } },
	{ "renameat2", { I("olddirfd"), L("oldpath"), I("newdirfd"),
	    L("newpath"), I("flags") } },
	{ "rt_sigaction", { I("sig"), L("act"), L("oact"), L("sigsetsize") } },
	{ "rt_sigprocmask", { I("how"), L("set"), L("oset"),
	    L("sigsetsize") } },
	{ "seccomp", { I("operation"), I("flags"), L("args") } },
	{ "sendmmsg", { I("fd"), L("msgvec"), I("vlen"), I("flags") } },
	{ "sendmsg", { I("fd"), L("msg"), I("flags") } },
	{ "sendto", { I("fd"), L("buf"), L("len"), I("flags"),
	    L("dest_addr"), I("addrlen") } },
	{ "setns", { I("fd"), I("nstype") } },
	{ "setrlimit", { I("resource"), L("rlim") } },
	{ "setsockopt", { I("fd"), I("level"), I("optname"), L("optval"),
	    I("optlen") } },
	{ "shutdown", { I("fd"), I("how") } },
	{ "socket", { I("domain"), I("type"), I("protocol") } },
	{ "socketpair", { I("domain"), I("type"), I("protocol"), L("sv") } },
	{ "tgkill", { I("tgid"), I("tid"), I("sig") } },
	{ "tkill", { I("tid"), I("sig") } },
	{ "umount2", { L("target"), I("flags") } },
	/* unshare() reads its flags whole and refuses unknown bits */
	{ "unshare", { L("flags") } },
	{ "unlinkat", { I("dirfd"), L("pathname"), I("flags") } },
	{ "wait4", { I("pid"), L("wstatus"), I("options"), L("rusage") } },
	{ "waitid", { I("idtype"), I("id"), L("infop"), I("options"),
	    L("rusage") } },
	{ "write", { I("fd"), L("buf"), L("count") } },
};

#define NTABLE (sizeof(table) / sizeof(table[0]))

static const struct sysargs *find(const char *syscall)
{
	size_t i;

	if (!syscall)
		return NULL;
	for (i = 0; i < NTABLE; i++)
		if (strcmp(table[i].syscall, syscall) == 0)
			return &table[i];
	return NULL;
}

int tables_arg(const char *syscall, const char *arg, unsigned int *index,
    unsigned int *width)
{
	const struct sysargs *s = find(syscall);
	unsigned int i;

	if (!s || !arg)
		return -1;
	for (i = 0; i < 6 && s->a[i].name; i++)
		if (strcmp(s->a[i].name, arg) == 0) {
			*index = i;
			*width = s->a[i].width;
			return 0;
		}
	return -1;
}

/* Arguments past the last named one are 64-bit: the kernel ignores
 * them, and a 64-bit comparison is exact whatever their type. */
unsigned int tables_arg_width(const char *syscall, unsigned int index)
{
	const struct sysargs *s = find(syscall);

	if (!s || index > 5)
		return 0;
	return s->a[index].name ? s->a[index].width : 64;
}

const char *tables_arg_name(const char *syscall, unsigned int index)
{
	const struct sysargs *s = find(syscall);

	if (!s || index > 5)
		return NULL;
	return s->a[index].name;
}
