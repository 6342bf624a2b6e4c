/*
 * watch.c - the watch's measure (no run tmpfs: the workdir on the host):
 * the tree (runfs_usage) and what the run holds outside it, the files
 * its processes have open or mapped with no name left (unlinked while
 * open, O_TMPFILE) on the workdir's device.  The run's processes are
 * cordon's descendants (it is their subreaper), found through each
 * thread's /proc/PID/task/TID/children; their files through
 * /proc/PID/fd and /proc/PID/maps (the kernel shows a mapped file's
 * inode through /proc/PID/map_files to root only: to another uid a
 * deleted file mapped is seen only where a process of the run also
 * holds it open, as multiprocessing's arenas do).  What the watch
 * cannot look into counts as past every bound, but for a process with
 * no memory left (exiting, or a zombie): the kernel shows its /proc
 * files as root's, and what it held is gone or going.  It cannot see a
 * descriptor in flight in a unix socket.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cordon.h"

/* Files the run holds that are not in the tree: open (or mapped) by one
 * of its processes, unlinked or made O_TMPFILE (st_nlink 0), on the
 * workdir's device.  Each inode once, however many descriptors; bytes
 * UNSEEN for one mapped where its size could not be read (known only if
 * a descriptor holds it too). */
#define UNSEEN UINT64_MAX
struct held {
	struct held_file { ino_t ino; uint64_t bytes; } *v;
	size_t n, cap;
	int unknown;                  /* something the watch cannot see */
	dev_t dev;
};

static void held_put(struct held *h, ino_t ino, uint64_t bytes)
{
	struct held_file *nv;

	if (h->n == h->cap) {
		if (h->cap > RUNFS_HELD_MAX) {
			h->unknown = 1;   /* more than the watch will count */
			return;
		}
		nv = realloc(h->v, (h->cap ? h->cap * 2 : 64) * sizeof(*nv));
		if (!nv) {
			h->unknown = 1;
			return;
		}
		h->v = nv;
		h->cap = h->cap ? h->cap * 2 : 64;
	}
	h->v[h->n].ino = ino;
	h->v[h->n++].bytes = bytes;
}

static void held_add(struct held *h, const struct stat *st)
{
	if (S_ISREG(st->st_mode) && st->st_nlink == 0 && st->st_dev == h->dev)
		held_put(h, st->st_ino, (uint64_t)st->st_blocks * 512);
}

/* 1 when pid has no memory left: exiting (past exit_mm) or a zombie,
 * which the kernel shows as owned by root ("0 0 0 ..." in statm, which
 * anyone may read).  It cannot get its memory back, and its files are
 * closed or being closed: nothing it holds stays. */
static int gone(pid_t pid)
{
	char path[64], buf[32];

	snprintf(path, sizeof(path), "/proc/%d/statm", (int)pid);
	if (file_get(path, buf, sizeof(buf)) < 0)
		return errno == ENOENT || errno == ESRCH;
	return buf[0] == '0' && buf[1] == ' ';   /* size 0: no memory */
}

/* The files behind /proc/PID/fd.  A process the watch may not look
 * into holds what it cannot know: unknown. */
static void held_fds(struct held *h, pid_t pid)
{
	char path[64];
	struct dirent *e;
	struct stat st;
	DIR *d;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d) {
		if (errno != ENOENT && errno != ESRCH && !gone(pid))
			h->unknown = 1;
		return;
	}
	fd = dirfd(d);
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' && fstatat(fd, e->d_name, &st, 0) == 0)
			held_add(h, &st);
	closedir(d);
}

/* One line of /proc/PID/maps, "LO-HI PERMS OFFSET MAJ:MIN INODE PATH",
 * of a deleted file: counted if it is on the workdir's device. */
static void held_map(struct held *h, pid_t pid, const char *line)
{
	unsigned long lo, hi, maj, mi, ino;
	char path[96], *p;
	struct stat st;

	lo = strtoul(line, &p, 16);
	hi = *p == '-' ? strtoul(p + 1, &p, 16) : 0;
	p = strchr(p + 1, ' ');              /* past the permissions */
	p = p ? strchr(p + 1, ' ') : NULL;   /* past the offset */
	if (!p)
		return;
	maj = strtoul(p + 1, &p, 16);
	mi = *p == ':' ? strtoul(p + 1, &p, 16) : 0;
	ino = strtoul(p, NULL, 10);
	if (maj > UINT32_MAX || mi > UINT32_MAX || ino == 0 ||
	    makedev((unsigned int)maj, (unsigned int)mi) != h->dev)
		return;
	snprintf(path, sizeof(path), "/proc/%d/map_files/%lx-%lx", (int)pid,
	    lo, hi);
	if (stat(path, &st) == 0)
		held_add(h, &st);
	else if (errno == EPERM || errno == EACCES)
		held_put(h, (ino_t)ino, UNSEEN);
	else if (errno != ENOENT)
		h->unknown = 1;
}

/* The deleted files on the workdir's device mapped by pid: statted
 * through /proc/PID/map_files where the kernel lets cordon (root),
 * unknown where it does not. */
static void held_maps(struct held *h, pid_t pid)
{
	char path[64], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f) {
		if (errno != ENOENT && errno != ESRCH && !gone(pid))
			h->unknown = 1;
		return;
	}
	while (fgets(line, sizeof(line), f))
		if (strstr(line, " (deleted)\n"))
			held_map(h, pid, line);
	fclose(f);
}

/* The next number of a children file ("PID PID ... "), or 0 at its end
 * (or past what a pid can be). */
static pid_t next_pid(FILE *f)
{
	long v = 0;
	int ch;

	while ((ch = getc(f)) == ' ' || ch == '\n')
		;
	for (; ch >= '0' && ch <= '9'; ch = getc(f))
		if ((v = v * 10 + (ch - '0')) > 1L << 30)
			return 0;
	return (pid_t)v;
}

/* The run's processes: cordon's descendants (it is their subreaper),
 * through each thread's /proc/PID/task/TID/children; each looked into. */
static void held_tree(struct held *h, pid_t pid, int depth)
{
	char path[96];
	struct dirent *e;
	FILE *f;
	DIR *d;
	pid_t c;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (depth > RUNFS_HELD_DEPTH || !(d = opendir(path))) {
		if (depth > RUNFS_HELD_DEPTH || (errno != ENOENT &&
		    errno != ESRCH))
			h->unknown = 1;
		return;
	}
	while (!h->unknown && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || snprintf(path, sizeof(path),
		    "/proc/%d/task/%.20s/children", (int)pid, e->d_name) >=
		    (int)sizeof(path) || !(f = fopen(path, "re")))
			continue;
		while (!h->unknown && (c = next_pid(f)) > 0) {
			/* maps first: its open waits for an exec in flight
			 * (exec_update_lock), the one moment cordon's child,
			 * non-dumpable like cordon, is past the exec cordon
			 * saw and not yet dumpable. */
			held_maps(h, c);
			held_fds(h, c);
			held_tree(h, c, depth + 1);
		}
		fclose(f);
	}
	closedir(d);
}

/* By inode, a size seen before UNSEEN. */
static int ino_cmp(const void *a, const void *b)
{
	const struct held_file *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

static int count_tree(int fd, int depth, uint64_t max, uint64_t *n);

/* One entry counted, a folder's contents too; *n UINT64_MAX where the
 * tree is too deep or a folder unreadable, as runfs_usage. */
static int count_entry(int dirfd, const struct dirent *e, int depth,
    uint64_t max, uint64_t *n)
{
	struct stat st;
	int fd;

	*n += 1;
	if (e->d_type == DT_UNKNOWN) {
		if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return errno == ENOENT ? 0 : -1;
		if (!S_ISDIR(st.st_mode))
			return 0;
	} else if (e->d_type != DT_DIR)
		return 0;
	if (depth >= RUNFS_WATCH_DEPTH_MAX) {
		*n = UINT64_MAX;
		return 0;
	}
	fd = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EMFILE ||
	    errno == ENFILE)) {
		*n = UINT64_MAX;
		return 0;
	}
	if (fd < 0)   /* gone meanwhile, or replaced by a file */
		return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
	return count_tree(fd, depth + 1, max, n);
}

static int count_tree(int fd, int depth, uint64_t max, uint64_t *n)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	int rc = 0;

	if (!d) {
		close(fd);
		return -1;
	}
	while (rc == 0 && *n <= max && (e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			rc = count_entry(fd, e, depth, max, n);
	closedir(d);
	return rc;
}

/* The watch's quick count: the entries below dirfd by readdir alone (a
 * stat only where the type is unknown), stopping once past max.  Less
 * than watch_measure finds (no sizes, no held files), so past max here
 * is past the files bound; a walk of 20,000 entries takes a fraction
 * of a full one. */
int watch_count(int dirfd, uint64_t max, uint64_t *n)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	*n = 0;
	if (fd < 0)
		return -1;
	return count_tree(fd, 0, max, n);
}

/* The watch's measure: the tree below dirfd (runfs_usage) and the
 * files the run holds outside it; UINT64_MAX for both when something
 * cannot be seen, and *blind says what (cordon.h: WATCH_BLIND_...). */
int watch_measure(int dirfd, uint64_t *bytes, uint64_t *inodes,
    int *blind)
{
	struct held h = { .v = NULL };
	struct stat st;
	size_t i;

	*blind = WATCH_SAW_ALL;
	if (runfs_usage(dirfd, bytes, inodes) < 0 || fstat(dirfd, &st) < 0)
		return -1;
	if (*inodes == UINT64_MAX) {
		*blind = WATCH_BLIND_TREE;
		return 0;
	}
	h.dev = st.st_dev;
	held_tree(&h, getpid(), 0);
	if (h.n > 1)
		qsort(h.v, h.n, sizeof(*h.v), ino_cmp);
	for (i = 0; i < h.n && !h.unknown; i++)
		if (i == 0 || h.v[i].ino != h.v[i - 1].ino) {
			if ((h.unknown = h.v[i].bytes == UNSEEN))
				break;          /* mapped, held by no descriptor */
			*bytes += h.v[i].bytes;
			*inodes += 1;
		}
	if (h.unknown) {
		*bytes = *inodes = UINT64_MAX;
		*blind = WATCH_BLIND_PROC;
	}
	free(h.v);
	return 0;
}

/* Before the first walk: cordon's own descriptor limit raised (the soft
 * one, up to the hard one) to hold a walk RUNFS_WATCH_DEPTH_MAX deep
 * beside cordon's own descriptors; what the hard limit does not give
 * leaves a deeper tree over the bound (EMFILE, above).  Only cordon's:
 * the run's processes got their limits at the clone.  Returns dirfd. */
int watch_arm(int dirfd)
{
	struct rlimit r;
	rlim_t want = RUNFS_WATCH_DEPTH_MAX + 256;

	if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < want) {
		r.rlim_cur = r.rlim_max < want ? r.rlim_max : want;
		(void)setrlimit(RLIMIT_NOFILE, &r);
	}
	return dirfd;
}

/* The status's reason for a run the watch ended (why: look_at's). */
void watch_reason(int why, char *buf, size_t len)
{
	if (why == 1)
		snprintf(buf, len, "the watch could not look into a process "
		    "of the run (non-dumpable, or nested too deep), which "
		    "counts as past limit disk and limit files: cordon ended "
		    "the run");
	else if (why == 2)
		snprintf(buf, len, "the workdir's file system ran low on "
		    "free inodes or blocks while the run grew: cordon ended "
		    "the run before it filled the file system");
	else if (why == 3)
		snprintf(buf, len, "the watch could not walk the workdir's "
		    "whole tree (deeper than %d levels or than the descriptors "
		    "cordon may hold, or a folder it may not read), which "
		    "counts as past limit disk and limit files: cordon ended "
		    "the run", RUNFS_WATCH_DEPTH_MAX);
	else
		snprintf(buf, len, "the workdir passed limit disk or limit "
		    "files: cordon ended the run");
}
