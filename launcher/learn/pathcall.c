/*
 * pathcall.c - a notified call's path argument, from the caller's memory
 * and its /proc links (see pathcall.h).  Used by learn mode (learn.c)
 * and the Landlock watch (llwatch.c).
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pathcall.h"

/* A NUL-terminated string from the caller's memory; -1 if unreadable. */
int pathcall_peek(pid_t pid, uint64_t addr, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = pread(fd, buf, len - 1, (off_t)addr);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return (int)n;
}

/* Lexically clean an absolute path in place: no ".", "..", "//". */
static void clean(char *p)
{
	char *out = p, *s = p;

	while (*s) {
		while (*s == '/')
			s++;
		if (!*s)
			break;
		if (s[0] == '.' && (s[1] == '/' || !s[1])) {
			s++;
			continue;
		}
		if (s[0] == '.' && s[1] == '.' && (s[2] == '/' || !s[2])) {
			s += 2;
			while (out > p && *--out != '/')
				;
			continue;
		}
		*out++ = '/';
		while (*s && *s != '/')
			*out++ = *s++;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
}

/* Landlock sees the resolved path (/lib -> /usr/lib); an entry made or
 * removed is its directory's, resolved, and its own name (an unlink of a
 * symbolic link removes the link). */
static void resolve(const char *base, int entry, char *out, size_t len)
{
	char dir[PATH_MAX], real[PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", base);
	slash = strrchr(dir, '/');
	if (!entry || !slash || slash == dir || !slash[1]) {
		if (!entry && realpath(base, real))
			snprintf(out, len, "%s", real);
		else
			snprintf(out, len, "%s", base);
		return;
	}
	*slash = '\0';
	if (realpath(dir, real) && strcmp(real, "/") != 0 &&
	    strlen(real) + strlen(slash + 1) + 2 <= len) {
		strcpy(out, real);
		strcat(out, "/");
		strcat(out, slash + 1);
	} else
		snprintf(out, len, "%s", base);
}

/* The absolute path a call names, as the caller sees it (its cwd or
 * dirfd, read through /proc), lexically cleaned; nothing resolved. */
int pathcall_abs(pid_t pid, int dirfd, uint64_t addr, char *out,
    size_t len)
{
	char rel[PATH_MAX], link[64], base[PATH_MAX];
	ssize_t n;

	if (pathcall_peek(pid, addr, rel, sizeof(rel)) < 0 || !rel[0])
		return -1;
	if (rel[0] == '/') {
		snprintf(base, sizeof(base), "%s", rel);
	} else {
		if (dirfd == AT_FDCWD)
			snprintf(link, sizeof(link), "/proc/%d/cwd", (int)pid);
		else
			snprintf(link, sizeof(link), "/proc/%d/fd/%d",
			    (int)pid, dirfd);
		n = readlink(link, base, sizeof(base) - 1);
		if (n <= 0)
			return -1;
		base[n] = '\0';
		if (strlen(base) + strlen(rel) + 2 > sizeof(base))
			return -1;
		strcat(base, "/");
		strcat(base, rel);
	}
	clean(base);
	if (strlen(base) >= len)
		return -1;
	memcpy(out, base, strlen(base) + 1);
	return 0;
}

/* The same, resolved as cordon sees the file system (learn mode: see
 * resolve); entry: see resolve. */
int pathcall_of(pid_t pid, int dirfd, uint64_t addr, char *out,
    size_t len, int entry)
{
	char base[PATH_MAX];

	if (pathcall_abs(pid, dirfd, addr, base, sizeof(base)) < 0)
		return -1;
	resolve(base, entry, out, len);
	return 0;
}
