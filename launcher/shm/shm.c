/*
 * shm.c - libcordon-shm.so, which cordon preloads (LD_PRELOAD) into a run
 * that has no private /dev/shm: no mount namespace (a pod under
 * containerd's RuntimeDefault profile, --no-namespaces).  glibc makes a
 * POSIX named semaphore or shared memory object as a file in /dev/shm, a
 * path it does not let be changed, and the run may not write there:
 * Landlock grants it no /dev/shm, as a file there would be outside every
 * bound of the run and beside other programs' objects.  So Python's
 * multiprocessing.Lock, and with it Queue, Pool and ProcessPoolExecutor,
 * failed with EACCES.  This library makes those objects in the folder
 * CORDON_SHM_DIR names instead: cordon sets it to WORKDIR/.cordon-shm,
 * which the run's disk and file bounds count and cordon's cleanup
 * removes with the workdir.
 *
 * It runs inside the sandbox, after every layer applies, as the run's own
 * code: it does nothing the snippet could not do itself with open(),
 * link() and mmap() in its workdir.  A semaphore is made as glibc makes
 * one: a file written whole under a temporary name, then linked to its
 * name, so that no opener ever maps a half-made one.  A semaphore
 * unlinked is renamed, not removed (.unlinked.PID.N, gone with the
 * workdir): multiprocessing unlinks each right after making it, and a
 * file mapped with no name left is one the watch of a run without
 * namespaces cannot measure unless it is root (watch.c), so it would end
 * the run.  Each costs the run a file (limit files) until it ends.
 * Without CORDON_SHM_DIR (a child given another environment) every call
 * fails with EACCES, as it would in /dev/shm.
 *
 * One more call is answered differently: statvfs of /dev/shm says it is
 * full.  CPython's multiprocessing.heap (Value, Array, the shared ctypes)
 * makes its arenas in /dev/shm when statvfs says there is room, by
 * open() (which no library can move), and otherwise in its temporary
 * folder, which the run can write.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "shm.h"

#define EXPORT __attribute__((visibility("default")))

/* The file for object name ("/name", as glibc takes it: leading slashes
 * skipped, no other, not empty, "." or "..") with prefix ("sem." for a
 * semaphore), in CORDON_SHM_DIR, which make makes if missing.  0, or -1
 * with errno. */
static int object_path(char *out, size_t len, const char *prefix,
    const char *name, int make)
{
	const char *dir = getenv(SHM_ENV);
	size_t n;

	while (*name == '/')
		name++;
	n = strlen(name);
	if (n == 0 || strchr(name, '/') || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0) {
		errno = EINVAL;
		return -1;
	}
	if (n + strlen(prefix) > NAME_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (!dir || dir[0] != '/') {
		errno = EACCES;
		return -1;
	}
	if (make && mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -1;
	if ((size_t)snprintf(out, len, "%s/%s%s", dir, prefix, name) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* A name no other process or thread makes, in path's folder: for what
 * ("tmp", "unlinked"). */
static void spare_name(char *out, size_t len, const char *path,
    const char *what)
{
	static unsigned int seq;

	snprintf(out, len, "%.*s/.%s.%ld.%u", (int)(strrchr(path, '/') -
	    path), path, what, (long)getpid(), __atomic_fetch_add(&seq, 1,
	    __ATOMIC_RELAXED));
}

/* A new semaphore file at path holding value: written whole under a
 * temporary name in the same folder, then linked to path (EEXIST when
 * another was there first).  Its descriptor (by path), or -1 with errno. */
static int sem_make(const char *path, mode_t mode, unsigned int value)
{
	char tmp[PATH_MAX + 32];
	ssize_t n;
	sem_t sem;
	int fd, e;

	memset(&sem, 0, sizeof(sem));
	if (sem_init(&sem, 1, value) < 0)
		return -1;
	do {
		spare_name(tmp, sizeof(tmp), path, "tmp");
		fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, mode);
	} while (fd < 0 && errno == EEXIST);
	if (fd < 0)
		return -1;
	errno = 0;
	n = write(fd, &sem, sizeof(sem));
	e = n == (ssize_t)sizeof(sem) ? 0 : errno ? errno : EIO;
	if (e == 0 && link(tmp, path) < 0)
		e = errno;
	(void)unlink(tmp);
	close(fd);
	if (e) {
		errno = e;
		return -1;
	}
	/* Opened again by its name: a mapping of the temporary one would
	 * show in /proc/PID/maps as a deleted file. */
	return open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
}

/* The semaphore in the file open at fd (closed here), mapped shared. */
static sem_t *sem_map(int fd)
{
	struct stat st;
	void *p = MAP_FAILED;

	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size >= (off_t)sizeof(sem_t))
		p = mmap(NULL, sizeof(sem_t), PROT_READ | PROT_WRITE,
		    MAP_SHARED, fd, 0);
	else
		errno = EINVAL;
	close(fd);
	return p == MAP_FAILED ? SEM_FAILED : (sem_t *)p;
}

EXPORT sem_t *sem_open(const char *name, int oflag, ...)
{
	char path[PATH_MAX];
	unsigned int value = 0;
	mode_t mode = 0;
	int fd = -1;

	if (oflag & O_CREAT) {
		va_list ap;

		va_start(ap, oflag);
		mode = va_arg(ap, mode_t);
		value = va_arg(ap, unsigned int);
		va_end(ap);
		if (value > SEM_VALUE_MAX) {
			errno = EINVAL;
			return SEM_FAILED;
		}
	}
	if (object_path(path, sizeof(path), "sem.", name,
	    (oflag & O_CREAT) != 0) < 0)
		return SEM_FAILED;
	for (;;) {
		if ((oflag & (O_CREAT | O_EXCL)) != (O_CREAT | O_EXCL)) {
			fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
			if (fd >= 0 || errno != ENOENT || !(oflag & O_CREAT))
				break;
		}
		fd = sem_make(path, mode, value);
		if (fd >= 0 || errno != EEXIST || (oflag & O_EXCL))
			break;
	}
	return fd < 0 ? SEM_FAILED : sem_map(fd);
}

/* Each sem_open maps its own view: glibc's sem_close, which looks the
 * address up in its own table of opened semaphores, would refuse it. */
EXPORT int sem_close(sem_t *sem)
{
	return munmap(sem, sizeof(sem_t));
}

/* The name gone, the file kept under a spare one (above). */
EXPORT int sem_unlink(const char *name)
{
	char path[PATH_MAX], gone[PATH_MAX + 32];

	if (object_path(path, sizeof(path), "sem.", name, 0) < 0)
		return -1;
	spare_name(gone, sizeof(gone), path, "unlinked");
	return renameat2(AT_FDCWD, path, AT_FDCWD, gone, RENAME_NOREPLACE);
}

EXPORT int shm_open(const char *name, int oflag, mode_t mode)
{
	char path[PATH_MAX];

	return object_path(path, sizeof(path), "", name,
	    (oflag & O_CREAT) != 0) < 0 ? -1 :
	    open(path, oflag | O_NOFOLLOW | O_CLOEXEC, mode);
}

EXPORT int shm_unlink(const char *name)
{
	char path[PATH_MAX];

	return object_path(path, sizeof(path), "", name, 0) < 0 ? -1 :
	    unlink(path);
}

/* Is path /dev/shm or below it? */
static int in_dev_shm(const char *path)
{
	return strncmp(path, "/dev/shm", 8) == 0 &&
	    (path[8] == '\0' || path[8] == '/');
}

/* statvfs and statvfs64 (the same call, two structures): the C
 * library's answer, with /dev/shm said full. */
#define SAID_FULL(name)							\
EXPORT int name(const char *path, struct name *st)			\
{									\
	static int (*real)(const char *, struct name *);		\
	int rc;								\
									\
	if (!real)							\
		*(void **)&real = dlsym(RTLD_NEXT, #name);		\
	if (!real) {							\
		errno = ENOSYS;						\
		return -1;						\
	}								\
	if ((rc = real(path, st)) == 0 && in_dev_shm(path))		\
		st->f_bavail = st->f_bfree = st->f_favail =		\
		    st->f_ffree = 0;					\
	return rc;							\
}
SAID_FULL(statvfs)
SAID_FULL(statvfs64)
