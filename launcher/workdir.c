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

/* The whole snippet, from a file or from stdin ("-"), in memory. */
char *snippet_read(const char *src, size_t *lenp, char *err, size_t errlen)
{
	int fd = strcmp(src, "-") == 0 ? 0 :
	    open(src, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	size_t len = 0, cap = 65536;
	char *buf = NULL, *p;
	ssize_t n;

	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", src, strerror(errno));
		return NULL;
	}
	for (;;) {
		if (!buf || len == cap) {
			if (buf)
				cap *= 2;
			p = realloc(buf, cap);
			if (!p) {
				snprintf(err, errlen, "out of memory");
				goto fail;
			}
			buf = p;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "%s: %s", src, strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > SNIPPET_MAX) {
			snprintf(err, errlen, "%s: larger than %u bytes", src,
			    SNIPPET_MAX);
			goto fail;
		}
	}
	if (fd != 0)
		close(fd);
	*lenp = len;
	return buf;
fail:
	free(buf);
	if (fd != 0)
		close(fd);
	return NULL;
}

/* Write the snippet as a new file in the workdir: "snippet.py" in a fresh
 * one, "snippet-XXXXXX.py" (never an existing name) in the caller's. */
int snippet_write(int dirfd, const char *data, size_t len, char *name,
    size_t namelen, char *err, size_t errlen)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	int fd = -1, tries;
	size_t off = 0;

	for (tries = 0; fd < 0 && tries < 100; tries++) {
		unsigned long r = (unsigned long)random() ^
		    ((unsigned long)getpid() << 16);

		if (tries == 0 && namelen > 0 && name[0] == '\0')
			snprintf(name, namelen, "snippet.py");
		else
			snprintf(name, namelen, "snippet-%c%c%c%c%c%c.py",
			    set[r % 36], set[r / 36 % 36], set[r / 1296 % 36],
			    set[r / 46656 % 36], set[r / 1679616 % 36],
			    set[(r >> 28) % 36]);
		fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL |
		    O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		snprintf(err, errlen, "snippet copy: %s", strerror(errno));
		return -1;
	}
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "snippet copy: %s",
			    strerror(errno));
			close(fd);
			return -1;
		}
		off += (size_t)n;
	}
	if (close(fd) < 0) {
		snprintf(err, errlen, "snippet copy: %s", strerror(errno));
		return -1;
	}
	return 0;
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

int workdir_remove(const char *path, char *err, size_t errlen)
{
	int fd;

	(void)chmod(path, 0700);  /* the snippet may have locked itself out */
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || empty(fd, 0) < 0 || rmdir(path) < 0) {
		snprintf(err, errlen, "cannot remove working directory %s: %s",
		    path, strerror(errno));
		return -1;
	}
	return 0;
}
