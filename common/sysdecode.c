/*
 * sysdecode.c - names and decoded arguments of x86-64 system calls (see
 * sysdecode.h).  Names were written out from cordonc's table (libseccomp
 * 2.5.4 plus the calls of Linux 6.18 it lacks); constant values come
 * from the system headers.
 */
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include "sysdecode.h"

/* Every name, in number order, each ended by NUL ("" for a gap). */
static const char names[] =
	"read\0write\0open\0close\0stat\0fstat\0lstat\0poll\0lseek\0"
	"mmap\0mprotect\0munmap\0brk\0rt_sigaction\0rt_sigprocmask\0"
	"rt_sigreturn\0ioctl\0pread64\0pwrite64\0readv\0writev\0access\0"
	"pipe\0select\0sched_yield\0mremap\0msync\0mincore\0madvise\0"
	"shmget\0shmat\0shmctl\0dup\0dup2\0pause\0nanosleep\0getitimer\0"
	"alarm\0setitimer\0getpid\0sendfile\0socket\0connect\0accept\0"
	"sendto\0recvfrom\0sendmsg\0recvmsg\0shutdown\0bind\0listen\0"
	"getsockname\0getpeername\0socketpair\0setsockopt\0getsockopt\0"
	"clone\0fork\0vfork\0execve\0exit\0wait4\0kill\0uname\0semget\0"
	"semop\0semctl\0shmdt\0msgget\0msgsnd\0msgrcv\0msgctl\0fcntl\0"
	"flock\0fsync\0fdatasync\0truncate\0ftruncate\0getdents\0getcwd\0"
	"chdir\0fchdir\0rename\0mkdir\0rmdir\0creat\0link\0unlink\0"
	"symlink\0readlink\0chmod\0fchmod\0chown\0fchown\0lchown\0umask\0"
	"gettimeofday\0getrlimit\0getrusage\0sysinfo\0times\0ptrace\0"
	"getuid\0syslog\0getgid\0setuid\0setgid\0geteuid\0getegid\0"
	"setpgid\0getppid\0getpgrp\0setsid\0setreuid\0setregid\0"
	"getgroups\0setgroups\0setresuid\0getresuid\0setresgid\0"
	"getresgid\0getpgid\0setfsuid\0setfsgid\0getsid\0capget\0capset\0"
	"rt_sigpending\0rt_sigtimedwait\0rt_sigqueueinfo\0rt_sigsuspend\0"
	"sigaltstack\0utime\0mknod\0uselib\0personality\0ustat\0statfs\0"
	"fstatfs\0sysfs\0getpriority\0setpriority\0sched_setparam\0"
	"sched_getparam\0sched_setscheduler\0sched_getscheduler\0"
	"sched_get_priority_max\0sched_get_priority_min\0"
	"sched_rr_get_interval\0mlock\0munlock\0mlockall\0munlockall\0"
	"vhangup\0modify_ldt\0pivot_root\0_sysctl\0prctl\0arch_prctl\0"
	"adjtimex\0setrlimit\0chroot\0sync\0acct\0settimeofday\0mount\0"
	"umount2\0swapon\0swapoff\0reboot\0sethostname\0setdomainname\0"
	"iopl\0ioperm\0create_module\0init_module\0delete_module\0"
	"get_kernel_syms\0query_module\0quotactl\0nfsservctl\0getpmsg\0"
	"putpmsg\0afs_syscall\0tuxcall\0security\0gettid\0readahead\0"
	"setxattr\0lsetxattr\0fsetxattr\0getxattr\0lgetxattr\0fgetxattr\0"
	"listxattr\0llistxattr\0flistxattr\0removexattr\0lremovexattr\0"
	"fremovexattr\0tkill\0time\0futex\0sched_setaffinity\0"
	"sched_getaffinity\0set_thread_area\0io_setup\0io_destroy\0"
	"io_getevents\0io_submit\0io_cancel\0get_thread_area\0"
	"lookup_dcookie\0epoll_create\0epoll_ctl_old\0epoll_wait_old\0"
	"remap_file_pages\0getdents64\0set_tid_address\0restart_syscall\0"
	"semtimedop\0fadvise64\0timer_create\0timer_settime\0"
	"timer_gettime\0timer_getoverrun\0timer_delete\0clock_settime\0"
	"clock_gettime\0clock_getres\0clock_nanosleep\0exit_group\0"
	"epoll_wait\0epoll_ctl\0tgkill\0utimes\0vserver\0mbind\0"
	"set_mempolicy\0get_mempolicy\0mq_open\0mq_unlink\0mq_timedsend\0"
	"mq_timedreceive\0mq_notify\0mq_getsetattr\0kexec_load\0waitid\0"
	"add_key\0request_key\0keyctl\0ioprio_set\0ioprio_get\0"
	"inotify_init\0inotify_add_watch\0inotify_rm_watch\0"
	"migrate_pages\0openat\0mkdirat\0mknodat\0fchownat\0futimesat\0"
	"newfstatat\0unlinkat\0renameat\0linkat\0symlinkat\0readlinkat\0"
	"fchmodat\0faccessat\0pselect6\0ppoll\0unshare\0set_robust_list\0"
	"get_robust_list\0splice\0tee\0sync_file_range\0vmsplice\0"
	"move_pages\0utimensat\0epoll_pwait\0signalfd\0timerfd_create\0"
	"eventfd\0fallocate\0timerfd_settime\0timerfd_gettime\0accept4\0"
	"signalfd4\0eventfd2\0epoll_create1\0dup3\0pipe2\0inotify_init1\0"
	"preadv\0pwritev\0rt_tgsigqueueinfo\0perf_event_open\0recvmmsg\0"
	"fanotify_init\0fanotify_mark\0prlimit64\0name_to_handle_at\0"
	"open_by_handle_at\0clock_adjtime\0syncfs\0sendmmsg\0setns\0"
	"getcpu\0process_vm_readv\0process_vm_writev\0kcmp\0"
	"finit_module\0sched_setattr\0sched_getattr\0renameat2\0seccomp\0"
	"getrandom\0memfd_create\0kexec_file_load\0bpf\0execveat\0"
	"userfaultfd\0membarrier\0mlock2\0copy_file_range\0preadv2\0"
	"pwritev2\0pkey_mprotect\0pkey_alloc\0pkey_free\0statx\0"
	"io_pgetevents\0rseq\0uretprobe\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
	"\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
	"\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
	"\0\0\0\0\0\0\0\0pidfd_send_signal\0io_uring_setup\0"
	"io_uring_enter\0io_uring_register\0open_tree\0move_mount\0"
	"fsopen\0fsconfig\0fsmount\0fspick\0pidfd_open\0clone3\0"
	"close_range\0openat2\0pidfd_getfd\0faccessat2\0process_madvise\0"
	"epoll_pwait2\0mount_setattr\0quotactl_fd\0"
	"landlock_create_ruleset\0landlock_add_rule\0"
	"landlock_restrict_self\0memfd_secret\0process_mrelease\0"
	"futex_waitv\0set_mempolicy_home_node\0cachestat\0fchmodat2\0"
	"map_shadow_stack\0futex_wake\0futex_wait\0futex_requeue\0"
	"statmount\0listmount\0lsm_get_self_attr\0lsm_set_self_attr\0"
	"lsm_list_modules\0mseal\0setxattrat\0getxattrat\0listxattrat\0"
	"removexattrat\0open_tree_attr\0file_getattr\0file_setattr\0";

/* Argument kinds, one letter per argument:
 *   i int, u unsigned, x hex, p pointer ("..."), d dirfd (AT_FDCWD),
 *   D socket domain, T socket type, P protocol, R ioctl request,
 *   F fcntl command, O prctl option, C clone flags, M mmap protection,
 *   m mmap flags, o open flags. */
struct sig {
	char name[24];
	char args[7];
};

static const struct sig sigs[] = {
	{ "read", "ipu" }, { "write", "ipu" }, { "open", "pox" },
	{ "close", "i" }, { "mmap", "puMmiu" }, { "mprotect", "puM" },
	{ "pkey_mprotect", "puMi" }, { "ioctl", "iR" }, { "fcntl", "iFu" },
	{ "prctl", "Ou" }, { "socket", "DTP" }, { "socketpair", "DTPp" },
	{ "connect", "ipu" }, { "bind", "ipu" }, { "listen", "ii" },
	{ "clone", "Cpppu" }, { "clone3", "pu" }, { "unshare", "C" },
	{ "setns", "iC" }, { "openat", "dpox" }, { "openat2", "dppu" },
	{ "creat", "px" }, { "execve", "ppp" }, { "execveat", "dpppx" },
	{ "kill", "ii" }, { "tkill", "ii" }, { "tgkill", "iii" },
	{ "ptrace", "uipp" }, { "mount", "pppxp" }, { "umount2", "px" },
	{ "personality", "x" }, { "mkdir", "px" }, { "mkdirat", "dpx" },
	{ "unlink", "p" }, { "unlinkat", "dpx" }, { "rmdir", "p" },
	{ "rename", "pp" }, { "chmod", "px" }, { "fchmod", "ix" },
	{ "chown", "pii" }, { "fchown", "iii" }, { "chroot", "p" },
	{ "pivot_root", "pp" }, { "bpf", "ipu" }, { "seccomp", "uxp" },
	{ "memfd_create", "px" }, { "userfaultfd", "x" },
	{ "io_uring_setup", "up" }, { "keyctl", "iuuuu" },
	{ "add_key", "pppui" }, { "request_key", "pppi" },
	{ "perf_event_open", "piiix" }, { "madvise", "puu" },
	{ "mseal", "pux" }, { "getrandom", "pux" }, { "setuid", "i" },
	{ "setgid", "i" }, { "setsid", "" }, { "getpid", "" },
	{ "fork", "" }, { "vfork", "" }, { "sync", "" },
	{ "sethostname", "pu" }, { "syslog", "ipi" }, { "acct", "p" },
	{ "reboot", "xxxp" }, { "swapon", "px" }, { "swapoff", "p" },
	{ "init_module", "pup" }, { "finit_module", "ipx" },
	{ "kexec_load", "uupx" }, { "process_vm_readv", "ipupux" },
	{ "process_vm_writev", "ipupux" }, { "pidfd_open", "ix" },
	{ "pidfd_getfd", "iix" }, { "fanotify_init", "xx" },
	{ "inotify_init1", "x" }, { "eventfd2", "ux" },
	{ "sendto", "ipuxpu" }, { "sendmsg", "ipx" }, { "recvfrom", "ipuxpp" },
	{ "accept4", "ippx" }, { "dup", "i" }, { "dup2", "ii" },
	{ "dup3", "iix" }, { "pipe2", "px" }, { "lseek", "iii" },
	{ "rseq", "puix" }, { "sched_setaffinity", "iup" },
	{ "setpriority", "iii" }, { "quotactl", "xpip" },
	{ "name_to_handle_at", "dpppx" }, { "open_by_handle_at", "ipo" },
	{ "iopl", "i" }, { "ioperm", "uui" }, { "modify_ldt", "ipu" },
	{ "vhangup", "" }, { "uselib", "p" }, { "lookup_dcookie", "upu" },
	{ "fsopen", "px" }, { "fsmount", "ixx" }, { "open_tree", "dpx" },
	{ "move_mount", "dpdpx" }, { "landlock_create_ruleset", "pux" },
	{ "landlock_restrict_self", "ix" }, { "set_mempolicy", "ipu" },
	{ "mbind", "puipux" }, { "migrate_pages", "iupp" },
	{ "move_pages", "iuppp" }, { "statmount", "ppux" },
	{ "listmount", "ppux" }, { "mlock", "pu" }, { "munlock", "pu" },
	{ "getppid", "" }, { "setpgid", "ii" }, { "capset", "pp" },
};

struct konst {
	uint32_t v;
	char n[24];
};
#define K(x) { (uint32_t)(x), #x }

static const struct konst domains[] = {
	K(AF_UNSPEC), K(AF_UNIX), K(AF_INET), K(AF_INET6), K(AF_NETLINK),
	K(AF_PACKET), K(AF_KEY), K(AF_BLUETOOTH), K(AF_ALG), K(AF_VSOCK),
	K(AF_CAN), K(AF_TIPC), K(AF_RDS), K(AF_XDP), K(AF_PPPOX),
	K(AF_LLC), K(AF_IB), K(AF_MPLS), K(AF_KCM), K(AF_QIPCRTR),
	K(AF_SMC), K(AF_MCTP), K(AF_APPLETALK), K(AF_X25), K(AF_AX25),
	K(AF_BRIDGE), K(AF_ATMPVC), K(AF_ATMSVC), K(AF_NFC), K(AF_PHONET),
	K(AF_IEEE802154), K(AF_CAIF), K(AF_ISDN), K(AF_RXRPC), K(AF_IUCV),
};
static const struct konst types[] = {
	K(SOCK_STREAM), K(SOCK_DGRAM), K(SOCK_RAW), K(SOCK_RDM),
	K(SOCK_SEQPACKET), K(SOCK_DCCP), K(SOCK_PACKET),
};
static const struct konst type_flags[] = {
	K(SOCK_NONBLOCK), K(SOCK_CLOEXEC),
};
static const struct konst protos[] = {
	K(IPPROTO_TCP), K(IPPROTO_UDP), K(IPPROTO_ICMP), K(IPPROTO_ICMPV6),
	K(IPPROTO_RAW), K(IPPROTO_SCTP), K(IPPROTO_UDPLITE),
	K(IPPROTO_MPTCP), K(IPPROTO_IGMP), K(IPPROTO_GRE),
};
static const struct konst ioctls[] = {
	K(TCGETS), K(TCSETS), K(TCSETSW), K(TCSETSF), K(TCGETA), K(TCSETA),
	K(TCSETAW), K(TCSETAF), K(TCSBRK), K(TCXONC), K(TCFLSH),
	K(TIOCEXCL), K(TIOCNXCL), K(TIOCSCTTY), K(TIOCGPGRP), K(TIOCSPGRP),
	K(TIOCOUTQ), K(TIOCSTI), K(TIOCGWINSZ), K(TIOCSWINSZ), K(TIOCMGET),
	K(TIOCMSET), K(FIONREAD), K(TIOCLINUX), K(TIOCCONS), K(TIOCNOTTY),
	K(TIOCSETD), K(TIOCGETD), K(TIOCGSID), K(TIOCGPTN), K(TIOCSPTLCK),
	K(TIOCGPTPEER), K(TIOCSIG), K(FIONBIO), K(FIONCLEX), K(FIOCLEX),
	K(FIOASYNC), K(FIOQSIZE),
};
static const struct konst fcntls[] = {
	K(F_DUPFD), K(F_GETFD), K(F_SETFD), K(F_GETFL), K(F_SETFL),
	K(F_GETLK), K(F_SETLK), K(F_SETLKW), K(F_SETOWN), K(F_GETOWN),
	K(F_SETSIG), K(F_GETSIG), K(F_SETOWN_EX), K(F_GETOWN_EX),
	K(F_OFD_GETLK), K(F_OFD_SETLK), K(F_OFD_SETLKW), K(F_SETLEASE),
	K(F_GETLEASE), K(F_NOTIFY), K(F_DUPFD_CLOEXEC), K(F_SETPIPE_SZ),
	K(F_GETPIPE_SZ), K(F_ADD_SEALS), K(F_GET_SEALS),
};
static const struct konst prctls[] = {
	K(PR_SET_PDEATHSIG), K(PR_GET_PDEATHSIG), K(PR_GET_DUMPABLE),
	K(PR_SET_DUMPABLE), K(PR_GET_KEEPCAPS), K(PR_SET_KEEPCAPS),
	K(PR_SET_NAME), K(PR_GET_NAME), K(PR_GET_SECCOMP),
	K(PR_SET_SECCOMP), K(PR_CAPBSET_READ), K(PR_CAPBSET_DROP),
	K(PR_GET_SECUREBITS), K(PR_SET_SECUREBITS), K(PR_SET_TIMERSLACK),
	K(PR_GET_TIMERSLACK), K(PR_SET_MM), K(PR_SET_CHILD_SUBREAPER),
	K(PR_GET_CHILD_SUBREAPER), K(PR_SET_NO_NEW_PRIVS),
	K(PR_GET_NO_NEW_PRIVS), K(PR_GET_TID_ADDRESS), K(PR_SET_THP_DISABLE),
	K(PR_GET_THP_DISABLE), K(PR_CAP_AMBIENT), K(PR_SET_PTRACER),
	K(PR_SET_VMA), K(PR_GET_SPECULATION_CTRL),
	K(PR_SET_SPECULATION_CTRL),
};
static const struct konst clones[] = {
	K(CLONE_VM), K(CLONE_FS), K(CLONE_FILES), K(CLONE_SIGHAND),
	K(CLONE_PIDFD), K(CLONE_PTRACE), K(CLONE_VFORK), K(CLONE_PARENT),
	K(CLONE_THREAD), K(CLONE_NEWNS), K(CLONE_SYSVSEM), K(CLONE_SETTLS),
	K(CLONE_PARENT_SETTID), K(CLONE_CHILD_CLEARTID), K(CLONE_DETACHED),
	K(CLONE_UNTRACED), K(CLONE_CHILD_SETTID), K(CLONE_NEWCGROUP),
	K(CLONE_NEWUTS), K(CLONE_NEWIPC), K(CLONE_NEWUSER), K(CLONE_NEWPID),
	K(CLONE_NEWNET), K(CLONE_IO), { 0x80, "CLONE_NEWTIME" },
};
static const struct konst prots[] = {
	K(PROT_READ), K(PROT_WRITE), K(PROT_EXEC), K(PROT_GROWSDOWN),
	K(PROT_GROWSUP),
};
static const struct konst maps[] = {
	K(MAP_SHARED), K(MAP_PRIVATE), K(MAP_SHARED_VALIDATE), K(MAP_FIXED),
	K(MAP_ANONYMOUS), K(MAP_GROWSDOWN), K(MAP_DENYWRITE),
	K(MAP_EXECUTABLE), K(MAP_LOCKED), K(MAP_NORESERVE), K(MAP_POPULATE),
	K(MAP_NONBLOCK), K(MAP_STACK), K(MAP_HUGETLB), K(MAP_SYNC),
	K(MAP_FIXED_NOREPLACE),
};
static const struct konst opens[] = {
	K(O_WRONLY), K(O_RDWR), K(O_CREAT), K(O_EXCL), K(O_NOCTTY),
	K(O_TRUNC), K(O_APPEND), K(O_NONBLOCK), K(O_DSYNC), K(O_DIRECT),
	{ 00100000, "O_LARGEFILE" }, K(O_DIRECTORY), K(O_NOFOLLOW),
	K(O_NOATIME), K(O_CLOEXEC), K(O_PATH), { 020000000, "O_TMPFILE" },
	{ 04010000, "O_SYNC" },
};
#define N(a) (sizeof(a) / sizeof((a)[0]))

void sysdecode_add(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strnlen(buf, len);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

const char *sysdecode_name(uint32_t nr)
{
	const char *p = names, *end = names + sizeof(names) - 1;
	uint32_t i;

	for (i = 0; i < nr && p < end; i++)
		p += strlen(p) + 1;
	return p < end && *p ? p : NULL;
}

static const char *one(const struct konst *k, size_t n, uint32_t v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (k[i].v == v)
			return k[i].n;
	return NULL;
}

/* A value by name, or in hex; bit sets as A|B|0x10. */
static void symbol(char *buf, size_t len, const struct konst *k, size_t n,
    uint32_t v, int bits)
{
	const char *s = one(k, n, v);
	const char *sep = "";
	size_t i;

	if (s || !bits) {
		if (s)
			sysdecode_add(buf, len, "%s", s);
		else
			sysdecode_add(buf, len, v < 4096 ? "%u" : "0x%x", v);
		return;
	}
	for (i = 0; i < n && v; i++)
		if (k[i].v && (k[i].v & (k[i].v - 1)) == 0 &&
		    (v & k[i].v) == k[i].v) {
			sysdecode_add(buf, len, "%s%s", sep, k[i].n);
			sep = "|";
			v &= ~k[i].v;
		}
	if (v || !*sep)
		sysdecode_add(buf, len, "%s0x%x", sep, v);
}

static void arg(char *buf, size_t len, char kind, uint64_t a)
{
	uint32_t v = (uint32_t)a;

	switch (kind) {
	case 'i': sysdecode_add(buf, len, "%d", (int)v); break;
	case 'u': sysdecode_add(buf, len, "%llu", (unsigned long long)a); break;
	case 'p': sysdecode_add(buf, len, a ? "..." : "NULL"); break;
	case 'd':
		if ((int)v == AT_FDCWD)
			sysdecode_add(buf, len, "AT_FDCWD");
		else
			sysdecode_add(buf, len, "%d", (int)v);
		break;
	case 'D': symbol(buf, len, domains, N(domains), v, 0); break;
	case 'T':
		symbol(buf, len, types, N(types), v & 0xf, 0);
		if (v & ~0xfu) {
			sysdecode_add(buf, len, "|");
			symbol(buf, len, type_flags, N(type_flags),
			    v & ~0xfu, 1);
		}
		break;
	case 'P':
		if (v == 0)
			sysdecode_add(buf, len, "0");
		else
			symbol(buf, len, protos, N(protos), v, 0);
		break;
	case 'R': symbol(buf, len, ioctls, N(ioctls), v, 0); break;
	case 'F': symbol(buf, len, fcntls, N(fcntls), v, 0); break;
	case 'O': symbol(buf, len, prctls, N(prctls), v, 0); break;
	case 'C':
		symbol(buf, len, clones, N(clones), v & ~0xffu, 1);
		if (v & 0xff)
			sysdecode_add(buf, len, "|%u", v & 0xff);
		break;
	case 'M':
		if (v == 0)
			sysdecode_add(buf, len, "PROT_NONE");
		else
			symbol(buf, len, prots, N(prots), v, 1);
		break;
	case 'm': symbol(buf, len, maps, N(maps), v, 1); break;
	case 'o':
		sysdecode_add(buf, len, "%s", (v & O_ACCMODE) == O_RDONLY ? "O_RDONLY" :
		    (v & O_ACCMODE) == O_WRONLY ? "O_WRONLY" : "O_RDWR");
		if (v & ~(uint32_t)O_ACCMODE) {
			sysdecode_add(buf, len, "|");
			symbol(buf, len, opens, N(opens),
			    v & ~(uint32_t)O_ACCMODE & ~0x8000u, 1);
		}
		break;
	default:
		sysdecode_add(buf, len, a ? "0x%llx" : "0", (unsigned long long)a);
		break;
	}
}

void sysdecode_call(uint32_t nr, const uint64_t args[6], char *buf,
    size_t len)
{
	const char *name = sysdecode_name(nr);
	const char *a = NULL;
	size_t i;

	if (len == 0)
		return;
	buf[0] = '\0';
	if (!name) {
		sysdecode_add(buf, len, "syscall_%u(...)", nr);
		return;
	}
	for (i = 0; i < N(sigs) && !a; i++)
		if (strcmp(sigs[i].name, name) == 0)
			a = sigs[i].args;
	sysdecode_add(buf, len, "%s(", name);
	if (!a)
		sysdecode_add(buf, len, "...");
	for (i = 0; a && a[i] && i < 6; i++) {
		if (i)
			sysdecode_add(buf, len, ", ");
		arg(buf, len, a[i], args[i]);
	}
	sysdecode_add(buf, len, ")");
}
