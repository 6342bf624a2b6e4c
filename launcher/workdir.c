/*
 * workdir.c - the working directory: make it (0700), copy the snippet in,
 * and remove it afterwards without following anything the snippet
 * planted.  Removal runs after every process of the run is dead, and
 * still trusts no name in the tree: each directory is entered with
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV) and
 * O_NOFOLLOW, entries are removed with unlinkat, which never follows.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cordon.h"

/* A fresh private directory under $TMPDIR (absolute) or /tmp, or the
 * caller's existing directory.  The path goes to path[]. */
int workdir_make(const char *given, char *path, size_t pathlen,
    char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	int n;

	if (given) {
		n = snprintf(path, pathlen, "%s", given);
		if (n < 0 || (size_t)n >= pathlen || given[0] != '/') {
			snprintf(err, errlen, "--workdir %s: need an absolute "
			    "path shorter than %zu bytes", given, pathlen);
			return -1;
		}
		return 0;
	}
	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	n = snprintf(path, pathlen, "%s/cordon.XXXXXX", tmp);
	if (n < 0 || (size_t)n >= pathlen) {
		snprintf(err, errlen, "TMPDIR is too long");
		return -1;
	}
	if (!mkdtemp(path)) {
		snprintf(err, errlen, "mkdtemp %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Copy the snippet (open at in; src names it in messages) into the
 * workdir as a new file: "snippet.py" in a fresh one, "snippet-XXXXXX.py"
 * (never an existing name) in the caller's.  Its name goes to name[]. */
int snippet_copy(int in, const char *src, const char *dir, int fresh,
    char *name, size_t namelen, char *err, size_t errlen)
{
	static char buf[65536];  /* touched as filled: see relay_one() */
	char path[4200];
	size_t total = 0, dirlen = strlen(dir);
	int fd, rc = -1;
	ssize_t n;

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
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (total += (size_t)n) > SNIPPET_MAX) {
			snprintf(err, errlen, "%s: %s", src, n < 0 ?
			    strerror(errno) : "larger than 16 MiB");
			goto close_fd;
		}
		if (supervise_write(fd, buf, (size_t)n) < 0) {
			snprintf(err, errlen, "snippet copy: %s",
			    strerror(errno));
			goto close_fd;
		}
	}
	rc = 0;
close_fd:
	if (close(fd) < 0 && rc == 0) {
		snprintf(err, errlen, "snippet copy: %s", strerror(errno));
		rc = -1;
	}
	return rc;
}

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
	return fd;
}

/* Empty the directory open at fd (consumed), depth levels deep at most. */
static int empty(int fd, int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	int rc = 0;

	if (!d) {
		close(fd);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		int sub;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (unlinkat(fd, e->d_name, 0) == 0)
			continue;
		if (errno != EISDIR || depth >= WORKDIR_DEPTH_MAX) {
			rc = -1;
			continue;
		}
		sub = enter(fd, e->d_name);
		if (sub < 0 || empty(sub, depth + 1) < 0 ||
		    unlinkat(fd, e->d_name, AT_REMOVEDIR) < 0)
			rc = -1;
	}
	closedir(d);
	return rc;
}

int workdir_remove(const char *path, const char *snippet, char *err,
    size_t errlen)
{
	char file[4200];
	int fd;

	/* The usual case: the snippet left nothing but its own copy. */
	if (snprintf(file, sizeof(file), "%s/%s", path, snippet) <
	    (int)sizeof(file) && unlink(file) == 0 && rmdir(path) == 0)
		return 0;
	(void)chmod(path, 0700);  /* the snippet may have locked itself out */
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || empty(fd, 0) < 0 || rmdir(path) < 0) {
		snprintf(err, errlen, "cannot remove working directory %s: %s",
		    path, strerror(errno));
		return -1;
	}
	return 0;
}
