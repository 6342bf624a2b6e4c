/*
 * workdir.c - the working directory: make it (0700), copy the snippet in,
 * and remove it afterwards without following anything the snippet
 * planted.  Removal runs after every process of the run is dead, and
 * still trusts no name in the tree: each directory is entered with
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV) and
 * O_NOFOLLOW, entries are removed with unlinkat, which never follows.
 * It has no depth limit and holds two descriptors at most: it goes back
 * up by "..", checked against the device and inode recorded on the way
 * down.  What cannot be removed is counted and named, never ignored.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cordon.h"
#include "infile.h"
#include "wall.h"

/* The caller's --workdir, made absolute against the current directory
 * (joined, not resolved: the last name is still opened O_NOFOLLOW). */
static int workdir_given(const char *given, char *path, size_t pathlen,
    char *err, size_t errlen)
{
	char cwd[4096];
	int n;

	if (given[0] == '/')
		n = snprintf(path, pathlen, "%s", given);
	else if (!getcwd(cwd, sizeof(cwd))) {
		snprintf(err, errlen, "--workdir %s: relative, and the current "
		    "directory is unknown (%s): give an absolute path", given,
		    strerror(errno));
		return -1;
	} else
		n = snprintf(path, pathlen, "%s/%s", cwd, given);
	if (n < 0 || (size_t)n >= pathlen) {
		snprintf(err, errlen, "--workdir %s: the path is longer than "
		    "%zu bytes", given, pathlen - 1);
		return -1;
	}
	return 0;
}

int workdir_make(const char *given, char *path, size_t pathlen,
    char *err, size_t errlen)
{
	return workdir_given(given, path, pathlen, err, errlen);
}

/* The snippet for reading: "-" is the caller's standard input, whatever
 * it is (a pipe, a file: the caller chose it); a named one must be a
 * regular file, opened without blocking (a FIFO would hang cordon).  The
 * descriptor (0 for "-"), or -1 with err. */
int snippet_open(const char *snippet, char *err, size_t errlen)
{
	struct stat st;
	int in = strcmp(snippet, "-") == 0 ? 0 : infile_open(snippet, 0, &st);

	if (in < 0)
		snprintf(err, errlen, "%s: %s", snippet,
		    infile_strerror(errno));
	return in;
}

/* The snippet from in (src names it in messages) to out, at most
 * SNIPPET_MAX bytes.  0, or -1 with err. */
int snippet_fill(int in, const char *src, int out, char *err,
    size_t errlen)
{
	static char buf[65536];  /* touched as filled: see relay_read() */
	size_t total = 0;
	ssize_t n;

	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (total += (size_t)n) > SNIPPET_MAX) {
			snprintf(err, errlen, "%s: %s", src, n < 0 ?
			    strerror(errno) : "larger than 16 MiB");
			return -1;
		}
		if (write_all(out, buf, (size_t)n) < 0) {
			snprintf(err, errlen, "snippet copy: %s",
			    strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Copy the snippet (open at in; src names it in messages) into the
 * workdir as a new file: "snippet.py" in a fresh one, "snippet-XXXXXX.py"
 * (never an existing name) in the caller's.  Its name goes to name[]. */
int snippet_copy(int in, const char *src, const char *dir, int fresh,
    char *name, size_t namelen, char *err, size_t errlen)
{
	char path[4200];
	size_t dirlen = strlen(dir);
	int fd, rc;

	if (snprintf(path, sizeof(path), "%s/snippet%s.py", dir, fresh ? "" :
	    "-XXXXXX") >= (int)sizeof(path) || dirlen + 20 > sizeof(path)) {
		snprintf(err, errlen, "working directory path too long");
		return -1;
	}
	fd = fresh ? open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
	    O_NOFOLLOW, 0600) : mkostemps(path, 3, O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "snippet copy: %s", strerror(errno));
		return -1;
	}
	snprintf(name, namelen, "%s", path + dirlen + 1);
	rc = snippet_fill(in, src, fd, err, errlen);
	if (close(fd) < 0 && rc == 0) {
		snprintf(err, errlen, "snippet copy: %s", strerror(errno));
		rc = -1;
	}
	return rc;
}

/* One directory's identity: coming back up by "..", the directory
 * reached must be the one we came down from. */
struct id {
	dev_t dev;
	ino_t ino;
};

/* Removal holds one directory open at a time, whatever the depth: it
 * goes down by name (beneath, no link, same device) and back up by "..",
 * checked against the identities recorded on the way down. */
struct walk {
	struct id *up;                /* up[0]: the root .. up[depth]: here */
	size_t depth, nup;
	struct id *kept;              /* entries that could not be removed */
	size_t nkept;
	unsigned long left;           /* how many (each counted once) */
	int fatal;                    /* errno: removal cannot go on */
	char first[ERRLEN - 160];     /* the first of them, and why */
};

static int id_push(struct id **v, size_t *n, dev_t dev, ino_t ino)
{
	struct id *nv;

	/* Grow by doubling: n is a power of two or not yet 16. */
	if (*n >= 16 && (*n & (*n - 1)) == 0) {
		if (*n > SIZE_MAX / 2 / sizeof(**v))
			return -1;
		nv = realloc(*v, *n * 2 * sizeof(**v));
		if (!nv)
			return -1;
		*v = nv;
	} else if (*n == 0 && !(*v = malloc(16 * sizeof(**v)))) {
		return -1;
	}
	(*v)[*n].dev = dev;
	(*v)[(*n)++].ino = ino;
	return 0;
}

static int id_kept(const struct walk *w, const struct stat *st)
{
	size_t i;

	for (i = 0; i < w->nkept; i++)
		if (w->kept[i].dev == st->st_dev && w->kept[i].ino == st->st_ino)
			return 1;
	return 0;
}

/* Record an entry that stays (err: why), once: a later pass over the
 * same directory skips it. */
static void keep(struct walk *w, int dirfd, const char *name, int err)
{
	struct stat st;

	if (w->left++ == 0)
		snprintf(w->first, sizeof(w->first), "\"%.200s\" %zu level%s "
		    "down: %s", name, w->depth + 1, w->depth ? "s" : "",
		    strerror(err));
	/* Unrecorded, it would be met and counted again: stop there. */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    id_push(&w->kept, &w->nkept, st.st_dev, st.st_ino) < 0)
		w->fatal = errno ? errno : ENOMEM;
}

/* Open the directory name below dirfd, never through a link, never off
 * the tree or its device, and make it ours (rwx) to empty. */
static int enter(int dirfd, const char *name)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
		    RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	int fd = (int)syscall(SYS_openat2, dirfd, name, &how, sizeof(how));
	struct stat st;

	/* A directory the snippet made unreadable: it is ours, open it up.
	 * fchmodat follows links, so first make sure this is none. */
	if (fd < 0 && errno == EACCES &&
	    fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode) && fchmodat(dirfd, name, 0700, 0) == 0)
		fd = (int)syscall(SYS_openat2, dirfd, name, &how, sizeof(how));
	/* Unlinking needs write and search on the directory itself. */
	if (fd >= 0 && fstat(fd, &st) == 0 && (st.st_mode & 0700) != 0700)
		(void)fchmod(fd, 0700);
	return fd;
}

/* One entry of the directory at fd: removed (0), staying (2: recorded
 * now or before), or a non-empty directory to go down into (1, *sub). */
static int entry(struct walk *w, int fd, const char *name, int *sub)
{
	struct stat st;
	int e;

	if (unlinkat(fd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno == EISDIR && (unlinkat(fd, name, AT_REMOVEDIR) == 0 ||
	    errno == ENOENT))
		return 0;
	e = errno;
	if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    id_kept(w, &st))
		return 2;
	if (e != ENOTEMPTY && e != EEXIST) {
		keep(w, fd, name, e);
		return 2;
	}
	*sub = enter(fd, name);
	if (*sub < 0) {
		keep(w, fd, name, errno);
		return 2;
	}
	return 1;
}

/* One pass over the directory at fd (not consumed): 1 with *sub open
 * when a subdirectory must be emptied first, 0 at the end (*busy: some
 * entry stays), -1 when it cannot be read. */
static int pass(struct walk *w, int fd, int *sub, int *busy)
{
	struct dirent *e;
	int dfd = dup(fd), r;
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	*busy = 0;
	for (;;) {
		errno = 0;
		if ((e = readdir(d)) == NULL) {
			r = errno ? -1 : 0;
			break;
		}
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		r = entry(w, fd, e->d_name, sub);
		if (r == 2)
			*busy = 1;
		if (r == 1 || w->fatal)
			break;
	}
	closedir(d);
	return r;
}

/* Back up from the directory at *fd to its parent, which must be the
 * one recorded on the way down (nothing moved the tree meanwhile). */
static int climb(struct walk *w, int *fd)
{
	int up = openat(*fd, "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	struct stat st;

	if (up < 0 || fstat(up, &st) < 0 || w->nup < 2) {
		w->fatal = up < 0 || w->nup >= 2 ? errno : EXDEV;
		if (up >= 0)
			close(up);
		return -1;
	}
	w->nup--;
	if (st.st_dev != w->up[w->nup - 1].dev ||
	    st.st_ino != w->up[w->nup - 1].ino) {
		close(up);
		w->fatal = EXDEV;
		return -1;
	}
	close(*fd);
	*fd = up;
	w->depth--;
	return 0;
}

/* Empty the tree whose root is open at fd (consumed).  0 when it is
 * empty; -1 with w->left entries staying, or w->fatal set. */
static int walk(struct walk *w, int fd)
{
	struct stat st;
	int sub = -1, busy = 0, r;

	if (fstat(fd, &st) < 0 || id_push(&w->up, &w->nup, st.st_dev, st.st_ino) < 0)
		w->fatal = errno ? errno : ENOMEM;
	while (!w->fatal) {
		r = pass(w, fd, &sub, &busy);
		if (r < 0 && !w->fatal) {
			w->fatal = errno;
			break;
		}
		if (r == 1) {
			if (fstat(sub, &st) < 0 ||
			    id_push(&w->up, &w->nup, st.st_dev, st.st_ino) < 0) {
				w->fatal = errno ? errno : ENOMEM;
				close(sub);
				break;
			}
			close(fd);
			fd = sub;
			w->depth++;
			continue;
		}
		/* This directory stays: its parent's passes skip it. */
		if (busy && !w->fatal && id_push(&w->kept, &w->nkept,
		    w->up[w->nup - 1].dev, w->up[w->nup - 1].ino) < 0)
			w->fatal = ENOMEM;
		if (w->depth == 0 || w->fatal || climb(w, &fd) < 0)
			break;
	}
	close(fd);
	return w->fatal || w->left ? -1 : 0;
}

int workdir_remove(const char *path, const char *snippet, char *err,
    size_t errlen)
{
	struct walk w;
	char file[4200], what[ERRLEN];
	int fd, rc;

	/* The usual case: the snippet left nothing but its own copy. */
	if (snprintf(file, sizeof(file), "%s/%s", path, snippet) <
	    (int)sizeof(file) && unlink(file) == 0 && rmdir(path) == 0)
		return 0;
	memset(&w, 0, sizeof(w));
	(void)chmod(path, 0700);  /* the snippet may have locked itself out */
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		w.fatal = errno;
	rc = fd < 0 ? -1 : walk(&w, fd);
	if (rc == 0 && rmdir(path) < 0)
		w.fatal = errno;
	if (w.left)
		snprintf(what, sizeof(what), "%lu entr%s left, the first %s",
		    w.left, w.left == 1 ? "y" : "ies", w.first);
	if (w.fatal || rc < 0)
		snprintf(err, errlen, "cannot remove working directory %s: "
		    "%s%s%s", path, w.fatal ? strerror(w.fatal) : "",
		    w.fatal && w.left ? "; " : "", w.left ? what : "");
	free(w.up);
	free(w.kept);
	return w.fatal || rc < 0 ? -1 : 0;
}

/* A name cordon makes: prefix then six [A-Za-z0-9], as mkdtemp fills
 * it. */
static int made_name(const char *name, const char *prefix)
{
	size_t i, n = strlen(prefix);

	if (strncmp(name, prefix, n) != 0 || strlen(name) != n + 6)
		return 0;
	for (i = n; name[i]; i++)
		if (!(name[i] >= 'a' && name[i] <= 'z') && !(name[i] >= 'A' &&
		    name[i] <= 'Z') && !(name[i] >= '0' && name[i] <= '9'))
			return 0;
	return 1;
}

/* One entry of tmp: a directory whose maker is gone (ours, a directory,
 * not a link, its lock free: the maker held it to its end, and the mark
 * inside where one is asked), emptied and removed, never through a link
 * (walk).  -1 when some of it stays. */
static int sweep_one(int tmp, const char *name, const char *mark)
{
	struct walk w;
	struct stat st;
	int rc = 0, fd = openat(tmp, name, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && st.st_uid == geteuid() &&
	    flock(fd, LOCK_EX | LOCK_NB) == 0 && (!mark || faccessat(fd,
	    mark, F_OK, AT_SYMLINK_NOFOLLOW) == 0)) {
		memset(&w, 0, sizeof(w));
		(void)fchmod(fd, 0700);   /* the run may have locked it */
		/* walk consumes its descriptor; the lock stays on fd's. */
		rc = walk(&w, dup(fd)) == 0 && unlinkat(tmp, name,
		    AT_REMOVEDIR) == 0 ? 0 : -1;
		free(w.up);
		free(w.kept);
	}
	close(fd);
	return rc;
}

int workdir_sweep(const char *tmp, const char *prefix, const char *mark)
{
	int fd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int dfd = fd < 0 ? -1 : dup(fd);
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	struct dirent *e;
	int left = 0;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
	} else {
		while ((e = readdir(d)) != NULL)
			if (made_name(e->d_name, prefix) &&
			    sweep_one(fd, e->d_name, mark) < 0)
				left++;
		closedir(d);
	}
	if (fd >= 0)
		close(fd);
	return left;
}

/* Lock the directory made at path; the descriptor holding the lock, or
 * -1 when a sweep holds it (then it is the sweep's to remove). */
static int claim(const char *path)
{
	struct stat a, b;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0 || fstat(fd, &a) < 0 ||
	    lstat(path, &b) < 0 || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A fresh private directory under $TMPDIR (absolute) or /tmp, path to
 * path[], after removing what dead cordons left there.  It is locked
 * (flock) for as long as the returned descriptor is open, so that the
 * next run's sweep can tell it from one whose cordon is gone; a kept
 * one (keep) has a name no sweep takes.  Returns the descriptor, or -1
 * with err. */
int workdir_fresh(int keep, char *path, size_t pathlen, char *err,
    size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	int n, tries, fd;

	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	(void)workdir_sweep(tmp, WORKDIR_PREFIX, NULL);
	for (tries = 0; tries < 8; tries++) {
		n = snprintf(path, pathlen, "%s/%sXXXXXX", tmp, keep ?
		    WORKDIR_KEPT_PREFIX : WORKDIR_PREFIX);
		if (n < 0 || (size_t)n >= pathlen) {
			snprintf(err, errlen, "TMPDIR is too long");
			return -1;
		}
		if (!mkdtemp(path)) {
			snprintf(err, errlen, "mkdtemp %s: %s", path,
			    strerror(errno));
			return -1;
		}
		if ((fd = claim(path)) >= 0)
			return fd;
	}
	snprintf(err, errlen, "mkdtemp %s: another cordon's sweep took "
	    "each directory made", path);
	return -1;
}
