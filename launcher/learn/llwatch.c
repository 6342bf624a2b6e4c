/*
 * llwatch.c - cordon --landlock-watch: Landlock's refusals named where
 * the kernel's audit cannot name them (cordon not root, audit off, or a
 * Landlock ABI below 7 that logs nothing).
 *
 * The listener's filter also sends cordon every call that names a path
 * or a TCP port and that the blob's program allows.  cordon finds, as
 * Landlock does, the rights the policy grants on the path's hierarchy
 * in the run's own view: the path is opened below the caller's root
 * (/proc/PID/root, RESOLVE_IN_ROOT), then walked up by "..", each
 * directory matched by device and inode against the policy's rules,
 * found the same way once.  A right the call needs that the ruleset
 * handles and no rule grants is a refusal foretold: it is recorded with
 * the audit's (kaudit.h), and the call continues, so that Landlock, not
 * cordon, decides.  Paths and addresses are read from the caller's
 * memory and can race (pathcall.h): the report may be wrong, never the
 * sandbox.  Each watched call costs a notification (see cordon(1)).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kaudit.h"
#include "bpf.h"
#include "cordon.h"
#include "filter.h"
#include "landlock_compat.h"
#include "learnmode.h"
#include "pathcall.h"

#define WALK_MAX 256          /* directories walked up from one path */

/* Landlock's rights by bit, as the kernel's audit records name them. */
static const char *const fs_names[] = {
	"fs.execute", "fs.write_file", "fs.read_file", "fs.read_dir",
	"fs.remove_dir", "fs.remove_file", "fs.make_char", "fs.make_dir",
	"fs.make_reg", "fs.make_sock", "fs.make_fifo", "fs.make_block",
	"fs.make_sym", "fs.refer", "fs.truncate", "fs.ioctl_dev",
};

int llwatch_watched(uint32_t nr)
{
	return nr == SYS_execve || filter_watches(FPROG_LLWATCH, nr);
}

/* path in the run's view: an O_PATH descriptor below root, or -1. */
static int open_in(int root, const char *path, int follow)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};

	return (int)syscall(SYS_openat2, root, path, &how, sizeof(how));
}

static void rule_add(struct llwatch *w, int root, const char *path,
    uint64_t access)
{
	struct stat st;
	int fd = open_in(root, path, 1);

	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && w->n < LLWATCH_RULES && access)
		w->r[w->n++] = (struct llwatch_rule){ st.st_dev, st.st_ino,
		    landlock_rule_access(access, w->handled,
		    S_ISDIR(st.st_mode)) };
	close(fd);
}

/* The policy's rules, found once below the run's root. */
static void rules_find(struct llwatch *w, int root)
{
	char path[PATH_MAX];
	uint32_t i;

	for (i = 0; i < w->pol->nfs; i++) {
		const char *rp = w->pol->fs[i].path;

		if (strcmp(rp, "$SNIPPET") == 0)
			snprintf(path, sizeof(path), "%s/%s", w->workdir,
			    w->snippet);
		else if (strncmp(rp, "$WORKDIR", 8) == 0)
			snprintf(path, sizeof(path), "%s%s", w->workdir,
			    rp + 8);
		else
			snprintf(path, sizeof(path), "%s", rp);
		rule_add(w, root, path, w->pol->fs[i].access);
	}
	if (w->private_tmp)
		rule_add(w, root, "/tmp", w->tmp_access);
	if (w->private_shm)
		rule_add(w, root, "/dev/shm", w->tmp_access);
	w->ready = 1;
}

static uint64_t rule_match(const struct llwatch *w, const struct stat *st)
{
	uint64_t g = 0;
	unsigned int i;

	for (i = 0; i < w->n; i++)
		if (w->r[i].dev == st->st_dev && w->r[i].ino == st->st_ino)
			g |= w->r[i].access;
	return g;
}

/* The folder that holds path's last entry, into dir. */
static void parent(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t k = slash && slash != path ? (size_t)(slash - path) : 1;

	snprintf(dir, len, "%.*s", (int)k, path);
}

/* The rights the rules grant on fd's hierarchy, up to root; closes fd.
 * fd is a folder: ".." walks up through mounts as Landlock does. */
static uint64_t granted_dir(const struct llwatch *w, int root, int fd)
{
	struct stat top, st, prev = { 0 };
	uint64_t g = 0;
	int up, i;

	if (fstat(root, &top) < 0) {
		close(fd);
		return 0;
	}
	for (i = 0; i < WALK_MAX && fstat(fd, &st) == 0; i++) {
		if (i > 0 && st.st_dev == prev.st_dev &&
		    st.st_ino == prev.st_ino)
			break;          /* cordon's own root: ".." is itself */
		g |= rule_match(w, &st);
		if (st.st_dev == top.st_dev && st.st_ino == top.st_ino)
			break;
		up = openat(fd, "..", O_PATH | O_CLOEXEC | O_DIRECTORY);
		close(fd);
		fd = up;
		prev = st;
		if (fd < 0)
			return g;
	}
	close(fd);
	return g;
}

/* The same for any file: a file's own rules, then its folder's, found
 * by the name the kernel gives its descriptor (a final symbolic link
 * followed: /lib/libc.so.6 -> libc.so.6's folder), checked to be the
 * same file in the run's view; else by the path as named.  That name
 * goes to shown (Landlock's rules name what links lead to). */
static uint64_t granted(const struct llwatch *w, int root, int fd,
    const char *path, char *shown)
{
	char link[64], real[PATH_MAX], dir[PATH_MAX];
	struct stat st, again;
	ssize_t n;
	int same, d;

	snprintf(shown, PATH_MAX, "%s", path);
	if (fstat(fd, &st) < 0 || S_ISDIR(st.st_mode))
		return granted_dir(w, root, fd);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, real, sizeof(real) - 1);
	close(fd);
	real[n > 0 ? n : 0] = '\0';
	fd = real[0] == '/' ? open_in(root, real, 0) : -1;
	same = fd >= 0 && fstat(fd, &again) == 0 &&
	    again.st_dev == st.st_dev && again.st_ino == st.st_ino;
	if (fd >= 0)
		close(fd);
	if (same)
		snprintf(shown, PATH_MAX, "%s", real);
	parent(shown, dir, sizeof(dir));
	d = open_in(root, dir, 1);
	return rule_match(w, &st) | (d < 0 ? 0 : granted_dir(w, root, d));
}

/* A refusal foretold: the rights missing, by the audit's names. */
static void record(struct audit *a, uint64_t missing, const char *object,
    int net, pid_t pid)
{
	char access[AUDITREC_ACCESS_LEN] = "", comm[32] = "", file[64];
	size_t i, o = 0;
	ssize_t k;
	int fd;

	for (i = 0; !net && i < sizeof(fs_names) / sizeof(fs_names[0]); i++)
		if ((missing & (1ULL << i)) && o + strlen(fs_names[i]) + 2 <
		    sizeof(access))
			o += (size_t)snprintf(access + o, sizeof(access) - o,
			    "%s%s", o ? "," : "", fs_names[i]);
	if (net)
		snprintf(access, sizeof(access), "%s", missing &
		    CORDON_LL_NET_BIND_TCP ? "net.bind_tcp" :
		    "net.connect_tcp");
	snprintf(file, sizeof(file), "/proc/%d/comm", (int)pid);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		k = read(fd, comm, sizeof(comm) - 1);
		comm[k > 0 ? k : 0] = '\0';
		comm[strcspn(comm, "\n")] = '\0';
		close(fd);
	}
	audit_denial_add(a, access, object, net, (long)pid, comm);
}

/* Rights on path itself, or (entry) on the folder where an entry is
 * made or removed.  A path that does not resolve is the kernel's
 * ENOENT, before Landlock: nothing to say. */
static void fs_check(const struct llwatch *w, struct audit *a, int root,
    pid_t pid, const char *path, int entry, uint64_t need)
{
	char dir[PATH_MAX], shown[PATH_MAX];
	const char *obj = path;
	uint64_t missing;
	int fd;

	if (entry) {
		parent(path, dir, sizeof(dir));
		obj = dir;
	}
	fd = open_in(root, obj, 1);
	if (fd < 0)
		return;
	missing = need & w->handled & ~granted(w, root, fd, obj, shown);
	if (missing)
		record(a, missing, shown, 0, pid);
}

/* What an open asks of Landlock: the file's read, write and truncate
 * rights, a folder's read_dir, or the folder's make_reg for a file it
 * creates. */
static void open_check(const struct llwatch *w, struct audit *a, int root,
    pid_t pid, const char *path, uint64_t flags)
{
	uint64_t need = 0, acc = flags & O_ACCMODE;
	struct stat st;
	int fd;

	if (flags & O_PATH)
		return;
	fd = open_in(root, path, !(flags & O_NOFOLLOW));
	if (fd < 0) {
		if ((flags & O_CREAT) && errno == ENOENT)
			fs_check(w, a, root, pid, path, 1,
			    CORDON_LL_FS_MAKE_REG);
		return;
	}
	if (fstat(fd, &st) < 0 || ((flags & O_CREAT) && (flags & O_EXCL))) {
		close(fd);
		return;
	}
	close(fd);
	if (S_ISDIR(st.st_mode))
		need = acc == O_RDONLY ? CORDON_LL_FS_READ_DIR : 0;
	else
		need = (acc != O_WRONLY ? CORDON_LL_FS_READ_FILE : 0) |
		    (acc != O_RDONLY ? CORDON_LL_FS_WRITE_FILE : 0) |
		    (flags & O_TRUNC ? CORDON_LL_FS_TRUNCATE : 0);
	if (need)
		fs_check(w, a, root, pid, path, 0, need);
}

/* Is the caller's fd a TCP socket (Landlock's ports are TCP's only)? */
static int tcp(pid_t pid, int fd)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0), s, proto = -1;
	socklen_t len = sizeof(proto);

	if (pfd < 0)
		return 0;
	s = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
	close(pfd);
	if (s < 0)
		return 0;
	if (getsockopt(s, SOL_SOCKET, SO_PROTOCOL, &proto, &len) < 0)
		proto = -1;
	close(s);
	return proto == IPPROTO_TCP;
}

/* A connect or bind to a TCP port no rule names. */
static void net_check(const struct llwatch *w, struct audit *a,
    const struct bpf_input *in, pid_t pid, int bind)
{
	char sa[sizeof(struct sockaddr_in6) + 1], addr[INET6_ADDRSTRLEN],
	    obj[INET6_ADDRSTRLEN + 8];
	const struct sockaddr_in *v4 = (const void *)sa;
	const struct sockaddr_in6 *v6 = (const void *)sa;
	uint8_t kind = bind ? CPOL_NET_BIND : CPOL_NET_CONNECT;
	unsigned int port;
	uint32_t i;
	int n;

	memset(sa, 0, sizeof(sa));
	n = pathcall_peek(pid, in->args[1], sa, sizeof(sa));
	if (!w->net || n < (int)sizeof(*v4) || (v4->sin_family != AF_INET &&
	    v4->sin_family != AF_INET6) || (v4->sin_family == AF_INET6 &&
	    n < (int)sizeof(*v6)) || !tcp(pid, (int)in->args[0]))
		return;
	if (v4->sin_family == AF_INET)
		inet_ntop(AF_INET, &v4->sin_addr, addr, sizeof(addr));
	else
		inet_ntop(AF_INET6, &v6->sin6_addr, addr, sizeof(addr));
	port = ntohs(v4->sin_port);
	for (i = 0; i < w->pol->nnet; i++)
		if (w->pol->net[i].kind == kind && w->pol->net[i].port == port)
			return;
	snprintf(obj, sizeof(obj), "%s:%u", addr, port);
	record(a, bind ? CORDON_LL_NET_BIND_TCP : CORDON_LL_NET_CONNECT_TCP,
	    obj, 1, pid);
}

/* The right to make an entry of mknod's mode. */
static uint64_t node_right(uint64_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFCHR: return CORDON_LL_FS_MAKE_CHAR;
	case S_IFBLK: return CORDON_LL_FS_MAKE_BLOCK;
	case S_IFIFO: return CORDON_LL_FS_MAKE_FIFO;
	case S_IFSOCK: return CORDON_LL_FS_MAKE_SOCK;
	default: return CORDON_LL_FS_MAKE_REG;
	}
}

/* One path argument: dirfd (or the cwd) and the string at addr, into
 * path; 0, or -1 when it cannot be read. */
static int arg_path(pid_t pid, int at, const uint64_t *a, int k,
    char *path)
{
	return pathcall_abs(pid, at ? (int)a[k - 1] : AT_FDCWD, a[k], path,
	    PATH_MAX);
}

/* Calls that make or remove one entry: the folder's right. */
static int entry_need(uint32_t nr, const uint64_t *a, int *at, int *k,
    uint64_t *need)
{
	*at = 0;
	*k = 0;
	switch (nr) {
	case SYS_mkdirat: *at = 1; *k = 1; /* fall through */
	case SYS_mkdir: *need = CORDON_LL_FS_MAKE_DIR; return 1;
	case SYS_mknodat: *at = 1; *k = 1;
		*need = node_right(a[2]); return 1;
	case SYS_mknod: *need = node_right(a[1]); return 1;
	case SYS_unlinkat: *at = 1; *k = 1;
		*need = a[2] & AT_REMOVEDIR ? CORDON_LL_FS_REMOVE_DIR :
		    CORDON_LL_FS_REMOVE_FILE;
		return 1;
	case SYS_unlink: *need = CORDON_LL_FS_REMOVE_FILE; return 1;
	case SYS_rmdir: *need = CORDON_LL_FS_REMOVE_DIR; return 1;
	case SYS_symlinkat: *at = 1; *k = 2;
		*need = CORDON_LL_FS_MAKE_SYM; return 1;
	case SYS_symlink: *k = 1; *need = CORDON_LL_FS_MAKE_SYM; return 1;
	case SYS_link: *k = 1; *need = CORDON_LL_FS_MAKE_REG; return 1;
	case SYS_linkat: *at = 1; *k = 3;
		*need = CORDON_LL_FS_MAKE_REG; return 1;
	}
	return 0;
}

/* A rename: the source folder loses an entry, the target's gains one. */
static void rename_check(const struct llwatch *w, struct audit *a,
    int root, pid_t pid, const char *from, const char *to)
{
	struct stat st;
	int fd = open_in(root, from, 0), dir;

	if (fd < 0)
		return;
	dir = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
	close(fd);
	fs_check(w, a, root, pid, from, 1, dir ? CORDON_LL_FS_REMOVE_DIR :
	    CORDON_LL_FS_REMOVE_FILE);
	fs_check(w, a, root, pid, to, 1, dir ? CORDON_LL_FS_MAKE_DIR :
	    S_ISLNK(st.st_mode) ? CORDON_LL_FS_MAKE_SYM :
	    CORDON_LL_FS_MAKE_REG);
}

/* The file calls: what each asks of which path. */
static void fs_call(const struct llwatch *w, struct audit *a, int root,
    const struct bpf_input *in, pid_t pid)
{
	char p[PATH_MAX], q[PATH_MAX];
	const uint64_t *x = in->args;
	uint64_t need, how = 0;
	int at, k;

	if (entry_need(in->nr, x, &at, &k, &need)) {
		if (arg_path(pid, at, x, k, p) == 0)
			fs_check(w, a, root, pid, p, 1, need);
		return;
	}
	at = in->nr != SYS_open && in->nr != SYS_creat &&
	    in->nr != SYS_execve && in->nr != SYS_truncate &&
	    in->nr != SYS_rename;
	if (arg_path(pid, at, x, at, p) < 0)
		return;
	switch (in->nr) {
	case SYS_open: open_check(w, a, root, pid, p, x[1]); break;
	case SYS_openat: open_check(w, a, root, pid, p, x[2]); break;
	case SYS_openat2:
		if (pathcall_peek(pid, x[2], (char *)q, 9) == 8) {
			memcpy(&how, q, sizeof(how));
			open_check(w, a, root, pid, p, how);
		}
		break;
	case SYS_creat: open_check(w, a, root, pid, p,
	    O_CREAT | O_WRONLY | O_TRUNC); break;
	case SYS_execve: case SYS_execveat:
		fs_check(w, a, root, pid, p, 0, CORDON_LL_FS_EXECUTE); break;
	case SYS_truncate:
		fs_check(w, a, root, pid, p, 0, CORDON_LL_FS_TRUNCATE); break;
	case SYS_rename:
		if (arg_path(pid, 0, x, 1, q) == 0)
			rename_check(w, a, root, pid, p, q);
		break;
	case SYS_renameat: case SYS_renameat2:
		if (arg_path(pid, 1, x, 3, q) == 0)
			rename_check(w, a, root, pid, p, q);
		break;
	}
}

void llwatch_call(struct llwatch *w, struct audit *a,
    const struct bpf_input *in, pid_t pid)
{
	char file[64];
	int root;

	if (in->nr == SYS_connect || in->nr == SYS_bind) {
		net_check(w, a, in, pid, in->nr == SYS_bind);
		return;
	}
	snprintf(file, sizeof(file), "/proc/%d/root", (int)pid);
	root = open(file, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return;
	if (!w->ready)
		rules_find(w, root);
	fs_call(w, a, root, in, pid);
	close(root);
}
