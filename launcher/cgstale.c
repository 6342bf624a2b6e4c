/*
 * cgstale.c - a run group's name says who made it, so that a group left
 * by a cordon that was killed (SIGKILL leaves no chance to remove it) is
 * removed by the next run made in the same place:
 *
 *   cordon-PIDNS-PID-START.XXXXXX
 *
 * PIDNS is the inode of the creator's PID namespace, PID its process ID
 * there and START its start time (field 22 of /proc/PID/stat, clock
 * ticks since boot), so that a reused PID is not taken for the creator;
 * XXXXXX is mkdtemp's.  A run sweeps the directory where it makes its
 * group: a group is removed when its name parses completely, its PIDNS
 * is this cordon's (another namespace's PIDs cannot be looked up here),
 * and no process PID with that START exists.  rmdir removes only an
 * empty group (the kernel refuses one with tasks or children): the tasks
 * still in a stale group (a killed cordon's run, still dying or outliving
 * it) are killed and the group removed once they are gone
 * (remove_stale), so that the next run leaves nothing of a killed one;
 * a group with child groups stays.  Anything else in the directory is
 * never touched.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cordon.h"

/* The start time of process pid: 0 with *start, -1 (errno) when there is
 * no such process or its stat cannot be read. */
static int start_time(long pid, unsigned long long *start)
{
	char path[64], buf[1024], *p, *end;
	int i;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (file_get(path, buf, sizeof(buf)) < 0)
		return -1;
	/* The name (field 2) is in parentheses and may hold anything. */
	if (!(p = strrchr(buf, ')'))) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < 20 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p) {
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	*start = strtoull(p + 1, &end, 10);
	if (errno || end == p + 1) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* This process: PID namespace, PID, start time (0 each when unknown:
 * such a name is never swept).  Read once per process (a warm spare is
 * a fork of its template: its own). */
static void self_id(unsigned long *ns, long *pid, unsigned long long *start)
{
	static long cached;
	static unsigned long cns;
	static unsigned long long cstart;
	struct stat st;

	if (cached != (long)getpid()) {
		cached = (long)getpid();
		cns = stat("/proc/self/ns/pid", &st) == 0 ?
		    (unsigned long)st.st_ino : 0;
		if (start_time(cached, &cstart) < 0)
			cstart = 0;
	}
	*ns = cns;
	*pid = cns && cstart ? cached : 0;
	*start = cstart;
}

int cgroup_name(char *dir, size_t len, const char *parent)
{
	unsigned long ns;
	long pid;
	unsigned long long start;

	self_id(&ns, &pid, &start);
	if (snprintf(dir, len, "%s/cordon-%lu-%ld-%llu.XXXXXX", parent, ns,
	    pid, start) >= (int)len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* The decimal number at *p, which must end at stop; *p moves past it. */
static int number(const char **p, char stop, unsigned long long *v)
{
	char *end;

	if (**p < '0' || **p > '9')
		return -1;
	errno = 0;
	*v = strtoull(*p, &end, 10);
	if (errno || *end != stop)
		return -1;
	*p = end + 1;
	return 0;
}

/* Was name made by a cordon of our PID namespace that is gone? */
static int stale(const char *name, unsigned long own_ns)
{
	unsigned long long ns, pid, start, now;
	const char *p;

	if (strncmp(name, "cordon-", 7) != 0)
		return 0;
	p = name + 7;
	if (number(&p, '-', &ns) < 0 ||
	    number(&p, '-', &pid) < 0 || number(&p, '.', &start) < 0 ||
	    strlen(p) != 6)
		return 0;
	if (ns != own_ns || ns == 0 || pid == 0 || pid > INT_MAX ||
	    start == 0)
		return 0;
	if (start_time((long)pid, &now) < 0)
		return errno == ENOENT || errno == ESRCH;
	return now != start;
}

/* The tasks of the stale group name in parent, sent SIGKILL: each
 * pinned by a pidfd and checked to be in the group still (its
 * /proc/PID/cgroup names it), so that a PID reused meanwhile is never
 * signalled.  How many it listed. */
static int kill_tasks(int dfd, const char *name)
{
	char path[CGROUP_PATH_MAX + 32], line[32], own[4096];
	FILE *f;
	int fd, pidfd, n = 0;
	long pid;

	snprintf(path, sizeof(path), "%s/cgroup.procs", name);
	if ((fd = openat(dfd, path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	if (!(f = fdopen(fd, "r"))) {
		close(fd);
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		n++;
		pid = strtol(line, NULL, 10);
		if (pid <= 0 || (pidfd = (int)syscall(SYS_pidfd_open, pid,
		    0)) < 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/cgroup", pid);
		if (file_get(path, own, sizeof(own)) == 0 &&
		    strstr(own, name) != NULL)
			(void)syscall(SYS_pidfd_send_signal, pidfd, SIGKILL,
			    NULL, 0);
		close(pidfd);
	}
	fclose(f);
	return n;
}

/* A stale group removed.  One that still has tasks (its run's
 * processes still dying after their cordon was killed, or ones that
 * outlived it: a run must not) has them killed, and is removed once the
 * kernel has let them go, waited for at most CGROUP_SWEEP_WAIT_MS: the
 * next run removes what a killed one left, not the one after.  One with
 * no task left but child groups stays, not waited for. */
static void remove_stale(int dfd, const char *name)
{
	int waited;

	for (waited = 0; ; waited += CGROUP_SWEEP_STEP_MS) {
		if (unlinkat(dfd, name, AT_REMOVEDIR) == 0 || errno != EBUSY ||
		    waited >= CGROUP_SWEEP_WAIT_MS || kill_tasks(dfd, name) == 0)
			return;
		(void)usleep(CGROUP_SWEEP_STEP_MS * 1000);
	}
}

void cgroup_sweep(const char *parent)
{
	unsigned long ns;
	long pid;
	unsigned long long start;
	struct dirent *e;
	DIR *d;

	self_id(&ns, &pid, &start);
	if (!ns || !(d = opendir(parent)))
		return;
	while ((e = readdir(d)) != NULL)
		if (e->d_type == DT_DIR && stale(e->d_name, ns))
			remove_stale(dirfd(d), e->d_name);
	closedir(d);
}
