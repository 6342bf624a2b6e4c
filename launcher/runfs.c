/*
 * runfs.c - the run's bounded writable space.
 *
 * With a mount namespace, everything a run can write lives on one tmpfs
 * made for it in the child (fsopen/fsmount: size= and nr_inodes= from
 * "limit disk" and "limit files", mounted nosuid, nodev, noexec, so no
 * file it writes can be executed, not even through ld.so).  Its root
 * holds w/ (attached on the workdir's path), tmp/ (on /tmp) and shm/ (on
 * /dev/shm): one bound for the three.  The workdir's contents at launch
 * (the snippet, the caller's inputs) are copied in, and count against
 * the bound.  The tmpfs's pages are charged to the run's memory cgroup.
 * The child hands the mount to cordon as a descriptor (fdpass.c), so
 * cordon can read the usage and copy the outputs back when the caller
 * keeps the workdir; when cordon closes it, the tmpfs is gone: nothing to
 * remove.
 *
 * Without a mount namespace, the workdir stays on the host, and cordon
 * watches it instead (watch_measure(), watch.c, every RUNFS_WATCH_MS, less often
 * when a look is dear): the tree, and the files the run holds open or
 * mapped outside it (unlinked, O_TMPFILE); a run that passes its bound
 * is ended.  That bound can be overshot by what the run writes between
 * two looks; man/cordon.1 states the measured figure.  The host's file
 * system is not noexec: what the run writes there runs through ld.so.
 *
 * Copy-back into the caller's folder counts against the bounds
 * (struct runfs_budget): data bytes written, holes kept, and entries
 * made, each hard link as its own file.
 *
 * Copies go through descriptors only: a directory is entered with
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, files are opened O_NOFOLLOW, and
 * only regular files and directories are copied (links, devices, fifos
 * and sockets are counted as skipped), RUNFS_DEPTH_MAX levels deep.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cordon.h"
#include "wall.h"

static int subdir(int dirfd, const char *name)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
		    RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};

	return (int)syscall(SYS_openat2, dirfd, name, &how, sizeof(how));
}

/* The bytes of data in the file open at in, size long: its holes left
 * out (SEEK_DATA/SEEK_HOLE; a filesystem without them: all of it). */
static int data_bytes(int in, uint64_t size, uint64_t *n)
{
	off_t at = 0, d, h;

	*n = 0;
	while ((uint64_t)at < size) {
		d = lseek(in, at, SEEK_DATA);
		if (d < 0 && errno == ENXIO)
			break;                  /* a hole to the end */
		if (d < 0 && errno == EINVAL) {
			*n = size;              /* no hole support: dense */
			return 0;
		}
		h = d < 0 ? -1 : lseek(in, d, SEEK_HOLE);
		if (h < 0)
			return -1;
		*n += (uint64_t)(h - d);
		at = h;
	}
	return 0;
}

/* Copy the data of in to out, holes kept as holes (out is sized by
 * ftruncate), never more than max bytes.  *wrote: bytes written. */
static int data_copy(int in, int out, uint64_t size, uint64_t max,
    uint64_t *wrote)
{
	static char buf[65536];  /* touched as filled: see relay_read() */
	off_t at = 0, d, h;
	ssize_t n;
	size_t want;

	while ((uint64_t)at < size) {
		d = lseek(in, at, SEEK_DATA);
		if (d < 0 && errno == ENXIO)
			break;
		h = d < 0 ? -1 : lseek(in, d, SEEK_HOLE);
		if (d < 0 && errno == EINVAL) {
			d = at;                 /* no hole support: dense */
			h = (off_t)size;
		} else if (h < 0) {
			return -1;
		}
		for (at = d; at < h; at += n) {
			want = (uint64_t)(h - at) < sizeof(buf) ?
			    (size_t)(h - at) : sizeof(buf);
			if (want > max - *wrote)
				want = (size_t)(max - *wrote);
			if (want == 0)
				return ftruncate(out, (off_t)size);
			n = pread(in, buf, want, at);
			if (n < 0 && errno == EINTR) {
				n = 0;
				continue;
			}
			if (n <= 0)
				break;          /* shorter than it said */
			if (lseek(out, at, SEEK_SET) < 0 ||
			    write_all(out, buf, (size_t)n) < 0)
				return -1;
			*wrote += (uint64_t)n;
		}
		at = h;
	}
	return ftruncate(out, (off_t)size);
}

/* Whether n bytes and one entry fit in the budget; if not, the entry
 * counts as left out. */
static int budget_fits(struct runfs_budget *b, uint64_t n)
{
	if (b->entries > 0 && n <= b->bytes)
		return 1;
	b->over++;
	return 0;
}

static void budget_take(struct runfs_budget *b, uint64_t n)
{
	b->entries--;
	b->bytes -= n;
	b->made++;
}

/* A regular file, made anew in to if its data fits in the budget; a
 * file left out leaves what is there under that name. */
static int file_copy(int from, int to, const char *name,
    const struct stat *st, struct runfs_budget *b)
{
	int in, out, rc = -1;
	uint64_t n, wrote = 0;

	in = openat(from, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	if (in < 0)
		return -1;
	if (data_bytes(in, (uint64_t)st->st_size, &n) < 0)
		goto close_in;
	rc = 0;
	if (!budget_fits(b, n))
		goto close_in;
	/* A fresh file, never through what is there (a link, a hard link
	 * to a file elsewhere): the old name goes first.  A directory by
	 * that name stays, and the file is skipped. */
	if (unlinkat(to, name, 0) < 0 && errno != ENOENT) {
		if (errno == EISDIR)
			b->skipped++;
		else
			rc = -1;
		goto close_in;
	}
	rc = -1;
	out = openat(to, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, st->st_mode & 0777);
	if (out < 0)
		goto close_in;
	budget_take(b, n);
	rc = data_copy(in, out, (uint64_t)st->st_size, n, &wrote);
	if (close(out) < 0)
		rc = -1;
close_in:
	b->wrote += wrote;
	close(in);
	return rc;
}

static int tree_copy(int from, int to, int depth, struct runfs_budget *b);

/* A directory: made (one entry of the budget) unless it is there. */
static int dir_copy(int from, int to, const char *name, int depth,
    struct runfs_budget *b)
{
	struct stat st;
	int a, c, rc;

	if (fstatat(to, name, &st, AT_SYMLINK_NOFOLLOW) < 0 &&
	    errno == ENOENT) {
		if (!budget_fits(b, 0))
			return 0;
		if (mkdirat(to, name, 0700) < 0)
			return -1;
		budget_take(b, 0);
	}
	if ((a = subdir(from, name)) < 0)
		return -1;
	if ((c = subdir(to, name)) < 0) {   /* not a directory there */
		close(a);
		b->skipped++;
		return 0;
	}
	rc = tree_copy(a, c, depth + 1, b);   /* closes a */
	close(c);
	return rc;
}

static int entry_copy(int from, int to, const char *name, int depth,
    struct runfs_budget *b)
{
	struct stat st;

	if (depth == 0 && b->skip && strcmp(name, b->skip) == 0)
		return 0;               /* cordon's own file */
	if (fstatat(from, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (S_ISREG(st.st_mode))
		return file_copy(from, to, name, &st, b);
	if (S_ISDIR(st.st_mode) && depth < RUNFS_DEPTH_MAX)
		return dir_copy(from, to, name, depth, b);
	b->skipped++;
	return 0;
}

/* Copy the tree at from (consumed) into to. */
static int tree_copy(int from, int to, int depth, struct runfs_budget *b)
{
	DIR *d = fdopendir(from);
	struct dirent *e;
	int rc = 0;

	if (!d) {
		close(from);
		return -1;
	}
	while (rc == 0 && (e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			rc = entry_copy(from, to, e->d_name, depth, b);
	closedir(d);
	return rc;
}

/* Copy the directory open at from (any kind of fd) into to, within
 * b's bytes and entries (b->over counts what did not fit; what is
 * there under that name stays).  Returns 0 or -1 (errno). */
int runfs_copy(int from, int to, struct runfs_budget *b)
{
	int fd = subdir(from, ".");

	if (fd < 0)
		return -1;
	return tree_copy(fd, to, 0, b);
}

/* A budget of bytes and entries (UINT64_MAX: unbounded); skip: a name
 * at the top not copied, or NULL. */
void runfs_budget_init(struct runfs_budget *b, uint64_t bytes,
    uint64_t entries, const char *skip)
{
	memset(b, 0, sizeof(*b));
	b->skip = skip;
	b->bytes = bytes;
	b->entries = entries;
}

static int cfg(int fs, const char *key, uint64_t v)
{
	char s[32];

	snprintf(s, sizeof(s), "%llu", (unsigned long long)v);
	return fsconfig(fs, FSCONFIG_SET_STRING, key, s, 0);
}

/* The run tmpfs's own inodes, on top of "limit files": its root, w/,
 * tmp/, shm/, and the directories of a workdir path made again under a
 * private /tmp or /dev/shm (see run.c). */
uint64_t runfs_own_inodes(const char *workdir, int private_tmp,
    int private_shm)
{
	static const char *const dirs[] = { "/tmp/", "/dev/shm/" };
	const int priv[] = { private_tmp, private_shm };
	uint64_t n = 4;
	const char *p;
	size_t i;

	for (i = 0; i < 2; i++) {
		if (!priv[i] || strncmp(workdir, dirs[i], strlen(dirs[i])))
			continue;
		for (p = workdir + strlen(dirs[i]) - 1; p; p = strchr(p + 1,
		    '/'))
			n++;
	}
	return n;
}

/* In the child: a fresh tmpfs (nosuid, nodev, noexec), detached, with
 * w/, tmp/ and shm/ in it.  inodes counts the tmpfs's own
 * (runfs_own_inodes).  Returns its mount fd, or -1.  bench/kwork.c makes
 * the floor's with it. */
int runfs_mount(uint64_t bytes, uint64_t inodes)
{
	int fs, mnt;

	fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
	if (fs < 0)
		return -1;
	if (fsconfig(fs, FSCONFIG_SET_STRING, "mode", "0700", 0) < 0 ||
	    (bytes != UINT64_MAX && cfg(fs, "size", bytes) < 0) ||
	    (inodes != UINT64_MAX && cfg(fs, "nr_inodes", inodes) < 0) ||
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0) {
		close(fs);
		return -1;
	}
	mnt = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID |
	    MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	close(fs);
	if (mnt >= 0 && (mkdirat(mnt, "w", 0700) < 0 ||
	    mkdirat(mnt, "tmp", 0700) < 0 || mkdirat(mnt, "shm", 0700) < 0)) {
		close(mnt);
		return -1;
	}
	return mnt;
}

/* runfs_mount, the workdir's contents copied into w/. */
int runfs_make(int workdir_fd, uint64_t bytes, uint64_t inodes)
{
	struct runfs_budget b;
	int mnt = runfs_mount(bytes, inodes), w;

	if (mnt < 0)
		return -1;
	if ((w = subdir(mnt, "w")) < 0) {
		close(mnt);
		return -1;
	}
	/* Unbounded here: the tmpfs itself refuses past its bounds. */
	runfs_budget_init(&b, UINT64_MAX, UINT64_MAX, NULL);
	if (runfs_copy(workdir_fd, w, &b) < 0) {
		close(w);
		close(mnt);
		return -1;
	}
	close(w);
	return mnt;
}

/* Attach the tmpfs's subdirectory sub on path (a mount point that
 * exists). */
int runfs_attach(int mnt, const char *sub, const char *path)
{
	int t = open_tree(mnt, sub, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	int rc;

	if (t < 0)
		return -1;
	rc = move_mount(t, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH);
	close(t);
	return rc;
}

/* Bytes and inodes the run tmpfs holds, its own inodes left out. */
int runfs_statfs(int mnt, uint64_t own, uint64_t *bytes, uint64_t *inodes)
{
	struct statfs sf;
	uint64_t files;

	if (fstatfs(mnt, &sf) < 0)
		return -1;
	*bytes = (uint64_t)(sf.f_blocks - sf.f_bfree) * (uint64_t)sf.f_bsize;
	files = (uint64_t)(sf.f_files - sf.f_ffree);
	*inodes = files > own ? files - own : 0;
	return 0;
}

static int tree_usage(int fd, int depth, uint64_t *bytes, uint64_t *inodes);

/* One entry's blocks; a directory's contents too.  A tree deeper than
 * RUNFS_WATCH_DEPTH_MAX, or a directory the watch cannot read, cannot be
 * watched: reported as over every bound. */
static int entry_usage(int dirfd, const char *name, int depth,
    uint64_t *bytes, uint64_t *inodes)
{
	struct stat st;
	int fd;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;   /* gone meanwhile */
	*bytes += (uint64_t)st.st_blocks * 512;
	*inodes += 1;
	if (!S_ISDIR(st.st_mode))
		return 0;
	if (depth >= RUNFS_WATCH_DEPTH_MAX) {
		*bytes = *inodes = UINT64_MAX;
		return 0;
	}
	fd = subdir(dirfd, name);
	/* made unreadable (mkdir 0300), or deeper than the descriptors
	 * cordon may hold: what it hides is unknown */
	if (fd < 0 && (errno == EACCES || errno == EMFILE ||
	    errno == ENFILE)) {
		*bytes = *inodes = UINT64_MAX;
		return 0;
	}
	if (fd < 0)   /* gone meanwhile, or replaced by a file (counted) */
		return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
	return tree_usage(fd, depth + 1, bytes, inodes);
}

static int tree_usage(int fd, int depth, uint64_t *bytes, uint64_t *inodes)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	int rc = 0;

	if (!d) {
		close(fd);
		return -1;
	}
	while (rc == 0 && *inodes != UINT64_MAX && (e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			rc = entry_usage(fd, e->d_name, depth, bytes, inodes);
	closedir(d);
	return rc;
}

/* Bytes (allocated blocks) and inodes below the directory at dirfd,
 * itself left out; UINT64_MAX for both when the tree is too deep. */
int runfs_usage(int dirfd, uint64_t *bytes, uint64_t *inodes)
{
	int fd = subdir(dirfd, ".");

	*bytes = *inodes = 0;
	if (fd < 0)
		return -1;
	return tree_usage(fd, 0, bytes, inodes);
}
