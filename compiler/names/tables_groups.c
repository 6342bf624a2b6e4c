/*
 * tables_groups.c - the built-in @groups.
 *
 * Modelled on systemd's well-known seccomp groups (systemd.exec(5),
 * SystemCallFilter=), written for x86-64 only, and tightened for running
 * hostile code:
 *   - clone3 and io_uring_* are in no group: they answer ENOSYS unless a
 *     policy names them (seccomp cannot read clone3's flags; io_uring does
 *     I/O seccomp never sees);
 *   - process_vm_readv/writev are in @debug only, not @ipc;
 *   - unshare and setns are in @namespace, not @process;
 *   - @system-service leaves out @keyring, kcmp and userfaultfd.
 * Members are syscall names or other groups ("@signal").  The unit test
 * checks that every member resolves, and man/cordon-groups.7 is generated
 * from this table (tools/groups-man).
 */
#include <stddef.h>
#include <string.h>

#include "tables.h"

struct group {
	const char *name;
	const char *doc;
	const char *const *members;
};

#define M(...) ((const char *const[]){ __VA_ARGS__, NULL })

static const struct group groups[] = {
	{ "aio", "Asynchronous I/O (io_uring excluded)",
	    M("io_cancel", "io_destroy", "io_getevents", "io_pgetevents",
		"io_setup", "io_submit") },
	{ "basic-io", "Read, write, seek and close open descriptors",
	    M("close", "close_range", "dup", "dup2", "dup3", "lseek",
		"pread64", "preadv", "preadv2", "pwrite64", "pwritev",
		"pwritev2", "read", "readv", "write", "writev") },
	{ "chown", "Change file ownership",
	    M("chown", "fchown", "fchownat", "lchown") },
	{ "clock", "Set the system clock",
	    M("adjtimex", "clock_adjtime", "clock_settime",
		"settimeofday") },
	{ "cpu-emulation", "Emulate other CPU modes (x86 LDT)",
	    M("modify_ldt") },
	{ "debug", "Debug, trace and inspect other processes",
	    M("kcmp", "lookup_dcookie", "perf_event_open", "pidfd_getfd",
		"process_vm_readv", "process_vm_writev", "ptrace",
		"uretprobe") },
	{ "default", "What every program needs: memory, threads, time, ids",
	    M("arch_prctl", "brk", "clock_getres", "clock_gettime",
		"clock_nanosleep", "exit", "exit_group", "futex",
		"futex_requeue", "futex_wait", "futex_waitv", "futex_wake",
		"get_robust_list", "get_thread_area", "getegid", "geteuid",
		"getgid", "getgroups", "getpgid", "getpgrp", "getpid",
		"getppid", "getrandom", "getresgid", "getresuid", "getsid",
		"gettid", "gettimeofday", "getuid", "membarrier", "mmap",
		"mprotect", "munmap", "nanosleep", "pause", "prlimit64",
		"restart_syscall", "rseq", "rt_sigreturn",
		"sched_getaffinity", "sched_yield", "set_robust_list",
		"set_thread_area", "set_tid_address", "time") },
	{ "file-system", "Open, stat, create and remove files and directories",
	    M("access", "chdir", "chmod", "close", "creat", "faccessat",
		"faccessat2", "fallocate", "fchdir", "fchmod", "fchmodat",
		"fchmodat2", "fcntl", "fgetxattr", "file_getattr",
		"file_setattr", "flistxattr", "fremovexattr", "fsetxattr",
		"fstat", "fstatfs", "ftruncate", "futimesat", "getcwd",
		"getdents", "getdents64", "getxattr", "getxattrat",
		"inotify_add_watch", "inotify_init", "inotify_init1",
		"inotify_rm_watch", "lgetxattr", "link", "linkat",
		"listxattr", "listxattrat", "llistxattr", "lremovexattr",
		"lsetxattr", "lstat", "mkdir", "mkdirat", "mknod", "mknodat",
		"mmap", "munmap", "newfstatat", "open", "openat", "openat2",
		"readlink", "readlinkat", "removexattr", "removexattrat",
		"rename", "renameat", "renameat2", "rmdir", "setxattr",
		"setxattrat", "stat", "statfs", "statx", "symlink",
		"symlinkat", "truncate", "unlink", "unlinkat", "utime",
		"utimensat", "utimes") },
	{ "io-event", "Wait for events on descriptors (poll, select, epoll)",
	    M("epoll_create", "epoll_create1", "epoll_ctl", "epoll_pwait",
		"epoll_pwait2", "epoll_wait", "eventfd", "eventfd2", "poll",
		"ppoll", "pselect6", "select") },
	{ "ipc", "Pipes, SysV IPC, POSIX message queues, memfd",
	    M("memfd_create", "mq_getsetattr", "mq_notify", "mq_open",
		"mq_timedreceive", "mq_timedsend", "mq_unlink", "msgctl",
		"msgget", "msgrcv", "msgsnd", "pipe", "pipe2", "semctl",
		"semget", "semop", "semtimedop", "shmat", "shmctl", "shmdt",
		"shmget") },
	{ "keyring", "Kernel keyring",
	    M("add_key", "keyctl", "request_key") },
	{ "memlock", "Lock memory in RAM",
	    M("mlock", "mlock2", "mlockall", "munlock", "munlockall") },
	{ "module", "Load and unload kernel modules",
	    M("delete_module", "finit_module", "init_module") },
	{ "mount", "Mount, unmount, the new mount API, chroot, pivot_root",
	    M("chroot", "fsconfig", "fsmount", "fsopen", "fspick",
		"listmount", "mount", "mount_setattr", "move_mount",
		"open_tree", "open_tree_attr", "pivot_root", "statmount",
		"umount2") },
	{ "namespace", "Create and join namespaces",
	    M("setns", "unshare") },
	{ "network-io", "Sockets: create, connect, send, receive",
	    M("accept", "accept4", "bind", "connect", "getpeername",
		"getsockname", "getsockopt", "listen", "recvfrom",
		"recvmmsg", "recvmsg", "sendmmsg", "sendmsg", "sendto",
		"setsockopt", "shutdown", "socket", "socketpair") },
	{ "obsolete", "Syscalls no longer implemented or long unused",
	    M("_sysctl", "afs_syscall", "create_module", "epoll_ctl_old",
		"epoll_wait_old", "get_kernel_syms", "getpmsg", "putpmsg",
		"query_module", "security", "sysfs", "tuxcall", "uselib",
		"ustat", "vserver") },
	{ "pkey", "Memory protection keys",
	    M("pkey_alloc", "pkey_free", "pkey_mprotect") },
	{ "privileged", "Calls that need privilege (capabilities)",
	    M("@chown", "@clock", "@module", "@raw-io", "@reboot", "@swap",
		"_sysctl", "acct", "bpf", "capset", "chroot",
		"fanotify_init", "fanotify_mark", "nfsservctl",
		"open_by_handle_at", "pivot_root", "quotactl", "quotactl_fd",
		"setdomainname", "setfsgid", "setfsuid", "setgid",
		"setgroups", "sethostname", "setregid", "setresgid",
		"setresuid", "setreuid", "setuid", "vhangup") },
	{ "process", "Create, run, signal and wait for processes",
	    M("capget", "clone", "execve", "execveat", "exit", "exit_group",
		"fork", "getrusage", "kill", "pidfd_open",
		"pidfd_send_signal", "prctl", "rt_sigqueueinfo",
		"rt_tgsigqueueinfo", "tgkill", "times", "tkill", "vfork",
		"wait4", "waitid") },
	{ "raw-io", "Raw I/O port access",
	    M("ioperm", "iopl") },
	{ "reboot", "Reboot and load a new kernel",
	    M("kexec_file_load", "kexec_load", "reboot") },
	{ "resources", "Change scheduling, memory policy and resource limits",
	    M("ioprio_set", "mbind", "migrate_pages", "move_pages",
		"sched_setaffinity", "sched_setattr", "sched_setparam",
		"sched_setscheduler", "set_mempolicy",
		"set_mempolicy_home_node", "setpriority", "setrlimit") },
	{ "sandbox", "Landlock and seccomp: restrict oneself further",
	    M("landlock_add_rule", "landlock_create_ruleset",
		"landlock_restrict_self", "seccomp") },
	{ "setuid", "Change user and group ids",
	    M("setgid", "setgroups", "setregid", "setresgid", "setresuid",
		"setreuid", "setuid") },
	{ "signal", "Handle and block signals",
	    M("rt_sigaction", "rt_sigpending", "rt_sigprocmask",
		"rt_sigsuspend", "rt_sigtimedwait", "sigaltstack",
		"signalfd", "signalfd4") },
	{ "swap", "Enable and disable swap",
	    M("swapoff", "swapon") },
	{ "sync", "Flush files to storage",
	    M("fdatasync", "fsync", "msync", "sync", "sync_file_range",
		"syncfs") },
	{ "system-service", "What a typical service needs (no keyring, "
	    "kcmp, userfaultfd, namespaces)",
	    M("@aio", "@basic-io", "@chown", "@default", "@file-system",
		"@io-event", "@ipc", "@memlock", "@network-io", "@process",
		"@resources", "@setuid", "@signal", "@sync", "@timer",
		"cachestat", "capset", "copy_file_range", "fadvise64",
		"flock", "get_mempolicy", "getcpu", "getpriority", "ioctl",
		"ioprio_get", "lsm_get_self_attr", "lsm_list_modules",
		"madvise", "mincore", "mremap", "mseal", "name_to_handle_at",
		"personality", "readahead", "remap_file_pages",
		"sched_get_priority_max", "sched_get_priority_min",
		"sched_getattr", "sched_getparam", "sched_getscheduler",
		"sched_rr_get_interval", "sendfile", "setfsgid", "setfsuid",
		"setpgid", "setsid", "splice", "sysinfo", "tee", "umask",
		"uname", "vmsplice") },
	{ "timer", "Timers and alarms",
	    M("alarm", "getitimer", "setitimer", "timer_create",
		"timer_delete", "timer_getoverrun", "timer_gettime",
		"timer_settime", "timerfd_create", "timerfd_gettime",
		"timerfd_settime", "times") },
};

#define NGROUPS (sizeof(groups) / sizeof(groups[0]))

static const struct group *find(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	if (name[0] == '@')
		name++;
	for (i = 0; i < NGROUPS; i++)
		if (strcmp(groups[i].name, name) == 0)
			return &groups[i];
	return NULL;
}

const char *const *tables_group(const char *name)
{
	const struct group *g = find(name);

	return g ? g->members : NULL;
}

const char *tables_group_at(unsigned int i)
{
	return i < NGROUPS ? groups[i].name : NULL;
}

const char *tables_group_doc(const char *name)
{
	const struct group *g = find(name);

	return g ? g->doc : NULL;
}
