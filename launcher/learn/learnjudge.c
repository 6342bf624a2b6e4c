/*
 * learnjudge.c - did a call that learn mode let through succeed?
 *
 * cordon answers each notification with SECCOMP_USER_NOTIF_FLAG_CONTINUE
 * and the kernel runs the call afterwards: its result never comes back
 * to cordon.  So a call that makes or removes an entry (open with
 * O_CREAT of a missing file, mkdir, symlink, unlink, rmdir, rename) is
 * judged by its effect, looked at when the same thread notifies again
 * (its next watched call, or its exit: learn.c watches exit and
 * exit_group), when the call has run: the entry is there, or gone.  A
 * call with no effect to see (an open of an existing file, exec,
 * truncate) is foretold from what the kernel checks: the file's type
 * against the flags, a read-only mount, the mode bits (POSIX ACLs are
 * not read: a file only an ACL opens is judged refused, and left out).
 * A thread killed before it notified again leaves its call unsettled:
 * not learned, and counted.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "learnjudge.h"

#define JUDGE_PENDING 256     /* threads with a call in flight at once */

static struct pend {
	pid_t tid;
	char *gone, *made;
	unsigned int rgone, rmade;
} pend[JUDGE_PENDING];
static unsigned int npend;
static uint64_t failed, unsure;

static int rooted(pid_t pid, const char *path, char *buf, size_t len)
{
	int n = snprintf(buf, len, "/proc/%d/root%s", (int)pid, path);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int judge_there(pid_t pid, const char *path, struct stat *st, int follow)
{
	char p[PATH_MAX + 32];

	if (rooted(pid, path, p, sizeof(p)) < 0)
		return -1;
	return follow ? stat(p, st) : lstat(p, st);
}

static int in_groups(gid_t g)
{
	static gid_t groups[NGROUPS_MAX];
	int n = getgroups(NGROUPS_MAX, groups), i;

	if (g == getegid())
		return 1;
	for (i = 0; i < n; i++)
		if (groups[i] == g)
			return 1;
	return 0;
}

int judge_may(pid_t pid, const char *path, const struct stat *st, int want)
{
	char p[PATH_MAX + 32];
	struct statvfs vfs;
	unsigned int bits;

	if ((want & JUDGE_W) && rooted(pid, path, p, sizeof(p)) == 0 &&
	    statvfs(p, &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
		return 0;
	if (st->st_uid == geteuid())
		bits = (unsigned int)st->st_mode >> 6;
	else if (in_groups(st->st_gid))
		bits = (unsigned int)st->st_mode >> 3;
	else
		bits = (unsigned int)st->st_mode;
	return (bits & (unsigned int)want) == (unsigned int)want;
}

void judge_fail(void)
{
	failed++;
}

void judge_pend(pid_t tid, const char *gone, unsigned int rgone,
    const char *made, unsigned int rmade)
{
	struct pend *p;

	if (npend == JUDGE_PENDING) {
		unsure++;
		return;
	}
	p = &pend[npend];
	*p = (struct pend){ tid, gone ? strdup(gone) : NULL,
	    made ? strdup(made) : NULL, rgone, rmade };
	if ((gone && !p->gone) || (made && !p->made)) {
		free(p->gone);
		free(p->made);
		unsure++;
		return;
	}
	npend++;
}

/* Has p's call run and done what it asks, as via sees the files? */
static int ran(pid_t via, const struct pend *p)
{
	struct stat st;

	if (p->gone && (judge_there(via, p->gone, &st, 0) == 0 ||
	    errno != ENOENT))
		return 0;
	return !p->made || judge_there(via, p->made, &st, 0) == 0;
}

static int same_group(pid_t tid, pid_t other)
{
	char p[64];

	snprintf(p, sizeof(p), "/proc/%d/task/%d", (int)tid, (int)other);
	return access(p, F_OK) == 0;
}

void judge_settle(pid_t tid, int group,
    void (*grant)(const char *entry, unsigned int rights))
{
	unsigned int i = 0;

	while (i < npend) {
		struct pend *p = &pend[i];

		if (p->tid != tid && !(group && same_group(tid, p->tid))) {
			i++;
			continue;
		}
		if (!ran(tid, p))
			failed++;
		else {
			if (p->gone)
				grant(p->gone, p->rgone);
			if (p->made)
				grant(p->made, p->rmade);
		}
		free(p->gone);
		free(p->made);
		*p = pend[--npend];
	}
}

void judge_counts(uint64_t *f, uint64_t *u)
{
	while (npend) {
		npend--;
		free(pend[npend].gone);
		free(pend[npend].made);
		unsure++;
	}
	*f = failed;
	*u = unsure;
}
