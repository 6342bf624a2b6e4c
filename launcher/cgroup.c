/*
 * cgroup.c - the run's memory and process bounds, for the whole run (every
 * process, thread and tmpfs page of it), through a fresh cgroup per run,
 * made only for the bounds that are set:
 *
 *   cgroup v2: a child of the directory named by --cgroup or
 *     $CORDON_CGROUP, a delegated subtree whose cgroup.subtree_control
 *     enables memory and pids (systemd Delegate=, a pod's cgroup
 *     namespace); cordon never guesses one.
 *   cgroup v1: a child of cordon's own group in each controller's
 *     hierarchy (cgown.c), where cordon may write (as root, in practice),
 *     so every limit of the caller's group and its ancestors holds for
 *     the run too.  Where a group cannot be made there, there is none:
 *     never one outside the caller's, which would slip its limits.
 *
 * Each group is named after its creator (cgstale.c), and a run first
 * removes the empty groups of killed cordons beside its own.
 * The parent makes the groups and writes the bounds; the child joins by
 * writing "0" to the descriptors opened here, before it has forked
 * anything or started a thread, so nothing of the run is ever outside.
 * On v1 that is the groups' "tasks" file: the calling thread (the whole
 * child, which has one) moves itself, which the kernel does without
 * write-locking the global threadgroup semaphore; "cgroup.procs" takes
 * it, and waits for an RCU grace period (1 to 12 ms here while other
 * processes come and go).  v2 has no per-thread move for a domain group:
 * cgroup.procs.  After the run
 * (every process reaped) the parent reads the peak and the kernel's event
 * counts, then removes the groups.  Where no controller can be used, the
 * bounds fall back to the per-process rlimits, cg->why says why, and the
 * report says both.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "cordon.h"

#define CGROUP2_MAGIC 0x63677270

/* One control file: write text, or read it into buf. */
static int ctl_put(const char *dir, const char *file, const char *text)
{
	char path[CGROUP_PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return file_put(path, text);
}

static int ctl_get(const char *dir, const char *file, char *buf,
    size_t len)
{
	char path[CGROUP_PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return file_get(path, buf, len);
}

/* A number from a control file: the whole file, or the value after
 * "key " in a flat keyed file.  UINT64_MAX when it cannot be read. */
static uint64_t ctl_num(const char *dir, const char *file, const char *key)
{
	char buf[1024], *p = buf;
	size_t k = key ? strlen(key) : 0;

	if (!dir[0] || ctl_get(dir, file, buf, sizeof(buf)) < 0)
		return UINT64_MAX;
	while (key && p && !(strncmp(p, key, k) == 0 && p[k] == ' '))
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	if (!p)
		return UINT64_MAX;
	return strtoull(p + k, NULL, 10);
}

/* A fresh group for this run below parent, the stale ones swept first. */
static int group_make(const char *parent, char *dir)
{
	cgroup_sweep(parent);
	if (cgroup_name(dir, CGROUP_PATH_MAX, parent) < 0)
		return -1;
	if (!mkdtemp(dir)) {
		dir[0] = '\0';
		return -1;
	}
	return 0;
}

/* Where the child writes "0" to join (see the top of this file). */
static int procs_open(const char *dir, int version)
{
	char path[CGROUP_PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, version == 1 ? "tasks" :
	    "cgroup.procs");
	return open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
}

/* Write the bound (v1 and v2 name the files differently). */
static int bounds_write(struct cgroup *cg, uint64_t memory, uint64_t pids)
{
	char v[32];

	if (memory != UINT64_MAX) {
		snprintf(v, sizeof(v), "%llu", (unsigned long long)memory);
		if (ctl_put(cg->dir[0], cg->version == 2 ? "memory.max" :
		    "memory.limit_in_bytes", v) < 0)
			return -1;
		/* No swap beyond the bound: v2 swap.max is on top of max,
		 * v1 memsw is the sum.  Absent without swap accounting. */
		if (cg->version == 2)
			(void)ctl_put(cg->dir[0], "memory.swap.max", "0");
		else
			(void)ctl_put(cg->dir[0], "memory.memsw.limit_in_bytes",
			    v);
		cg->memory = 1;
	}
	if (pids != UINT64_MAX) {
		snprintf(v, sizeof(v), "%llu", (unsigned long long)pids);
		if (ctl_put(cg->dir[1], "pids.max", v) < 0)
			return -1;
		cg->pids = 1;
	}
	return 0;
}

/* v2: one group under the delegated directory base (cgroup_v2_usable
 * has said it is one, enabling the controllers needed). */
static int v2_make(struct cgroup *cg, const char *base)
{
	if (group_make(base, cg->dir[0]) < 0)
		return -1;
	memcpy(cg->dir[1], cg->dir[0], sizeof(cg->dir[1]));
	cg->version = 2;
	return 0;
}

/* A group cannot be made in cordon's own: 0 with why where the errno
 * says no permission (the bounds fall back), else -1. */
static int no_group(int i, const char *parent, char *why, size_t whylen)
{
	if (errno != EACCES && errno != EPERM && errno != EROFS)
		return -1;
	snprintf(why, whylen, "cannot make a group in cordon's own %s "
	    "cgroup %.160s (%s): a run gets all its groups or none",
	    i ? "pids" : "memory", parent, strerror(errno));
	return 0;
}

/* Is word one of the space-separated words of text? */
static int word_in(const char *text, const char *word)
{
	size_t n = strlen(word);
	const char *p = text;

	while ((p = strstr(p, word)) != NULL) {
		if ((p == text || p[-1] == ' ') && (p[n] == ' ' ||
		    p[n] == '\n' || p[n] == '\0'))
			return 1;
		p += n;
	}
	return 0;
}

static int v1_none(struct cgroup *cg)
{
	int i;

	for (i = 0; i < 2; i++)
		if (cg->dir[i][0]) {
			(void)rmdir(cg->dir[i]);
			cg->dir[i][0] = '\0';
		}
	return 0;
}

static const char *const ctl_names[2] = { "memory", "pids" };

/* Where a v1 group can be made: cordon's own group in each hierarchy
 * needed (memory, pids), writable.  1 with parent; 0 with why (none can
 * be made there: the bounds fall back); -1 on another error (errno).
 * Reads only: --check's probe asks it too (probe.c). */
int cgroup_v1_parents(const int need[2], char parent[2][CGROUP_PATH_MAX],
    char *why, size_t whylen)
{
	int i;

	if (cgroup_own(ctl_names, need, parent, why, whylen) < 0)
		return 0;
	for (i = 0; i < 2; i++)
		if (need[i] && access(parent[i], W_OK) < 0)
			return no_group(i, parent[i], why, whylen);
	return 1;
}

/* v2: can a group under base hold the bounds needed?  1, or 0 with why,
 * the whole message (a run fails: cordon never guesses another).  Reads
 * only: cgroup_make and --check's probe both ask. */
int cgroup_v2_usable(const char *base, const int need[2], char *why,
    size_t whylen)
{
	char text[256];
	struct statfs sf;
	int i;

	if (statfs(base, &sf) < 0 || sf.f_type != CGROUP2_MAGIC) {
		snprintf(why, whylen, "cgroup %.200s (--cgroup or "
		    "CORDON_CGROUP) is not a cgroup v2 directory", base);
		return 0;
	}
	if (ctl_get(base, "cgroup.subtree_control", text, sizeof(text)) < 0)
		text[0] = '\0';
	for (i = 0; i < 2; i++)
		if (need[i] && !word_in(text, ctl_names[i])) {
			snprintf(why, whylen, "cgroup %.200s (--cgroup or "
			    "CORDON_CGROUP): its cgroup.subtree_control does "
			    "not enable %s", base, ctl_names[i]);
			return 0;
		}
	if (access(base, W_OK) < 0) {
		snprintf(why, whylen, "cgroup %.200s (--cgroup or "
		    "CORDON_CGROUP): %s", base, strerror(errno));
		return 0;
	}
	return 1;
}

/* v1: a group below cordon's own in each hierarchy needed (memory,
 * pids).  Where one cannot be made there, none at all (version 0, and
 * cg->why says why); -1 when making one fails otherwise. */
static int v1_make(struct cgroup *cg, const int need[2])
{
	char parent[2][CGROUP_PATH_MAX];
	int i, rc;

	if ((rc = cgroup_v1_parents(need, parent, cg->why,
	    sizeof(cg->why))) <= 0)
		return rc;
	for (i = 0; i < 2; i++)
		if (need[i] && group_make(parent[i], cg->dir[i]) < 0) {
			if (no_group(i, parent[i], cg->why, sizeof(cg->why)) < 0)
				return -1;
			return v1_none(cg);
		}
	cg->version = 1;
	return 0;
}

int cgroup_make(struct cgroup *cg, const char *base, uint64_t memory,
    uint64_t pids, char *err, size_t errlen)
{
	const int need[2] = { memory != UINT64_MAX, pids != UINT64_MAX };
	int i, v2 = base && base[0];

	memset(cg, 0, sizeof(*cg));
	cg->procs[0] = cg->procs[1] = -1;
	if (!need[0] && !need[1])
		return 0;
	if (v2 && !cgroup_v2_usable(base, need, err, errlen))
		return -1;
	if ((v2 ? v2_make(cg, base) : v1_make(cg, need)) < 0)
		goto fail;
	if (!cg->version)
		return 0;
	for (i = 0; i < (v2 ? 1 : 2); i++)
		if (cg->dir[i][0] &&
		    (cg->procs[i] = procs_open(cg->dir[i], cg->version)) < 0)
			goto fail;
	if (bounds_write(cg, memory, pids) < 0)
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "cgroup %s: %s", v2 ? base :
	    "v1 memory and pids", strerror(errno));
	cgroup_remove(cg, NULL, 0);
	return -1;
}

/* In the child, first thing: the whole run starts inside. */
int cgroup_join(const struct cgroup *cg)
{
	int i;

	for (i = 0; i < 2; i++)
		if (cg->procs[i] >= 0 && write(cg->procs[i], "0", 1) != 1)
			return -1;
	return 0;
}

uint64_t cgroup_oom_kills(const struct cgroup *cg)
{
	uint64_t n = ctl_num(cg->dir[0], cg->version == 2 ? "memory.events" :
	    "memory.oom_control", "oom_kill");

	return n == UINT64_MAX ? 0 : n;
}

/* The most tasks (processes and threads) the run's pids group held at
 * once, or UINT64_MAX when it cannot be read (no pids controller, v2
 * without pids in the parent's subtree_control): whether the main
 * process was ever alone (see died() in supervise.c). */
uint64_t cgroup_tasks_peak(const struct cgroup *cg)
{
	return cg->version ? ctl_num(cg->dir[1], "pids.peak", NULL) :
	    UINT64_MAX;
}

/* After the run: what the controller saw. */
void cgroup_read(const struct cgroup *cg, struct bounds *b)
{
	int v2 = cg->version == 2;

	if (cg->memory) {
		b->memory_peak = ctl_num(cg->dir[0], v2 ? "memory.peak" :
		    "memory.max_usage_in_bytes", NULL);
		b->oom_kills = ctl_num(cg->dir[0], v2 ? "memory.events" :
		    "memory.oom_control", "oom_kill");
	}
	if (cg->pids)
		b->pids_refused = ctl_num(cg->dir[1], "pids.events", "max");
}

/* Close and remove the groups (empty once every process is reaped).
 * Returns 0, or -1 with what is left in err. */
int cgroup_remove(struct cgroup *cg, char *err, size_t errlen)
{
	int i, rc = 0, tries;

	for (i = 0; i < 2; i++) {
		if (cg->procs[i] >= 0)
			close(cg->procs[i]);
		cg->procs[i] = -1;
	}
	for (i = 0; i < (cg->version == 2 ? 1 : 2); i++) {
		if (!cg->dir[i][0])
			continue;
		/* A reaped task may take a moment to leave a v1 group. */
		for (tries = 0; rmdir(cg->dir[i]) < 0 && errno == EBUSY &&
		    tries < 100; tries++)
			usleep(1000);
		if (access(cg->dir[i], F_OK) == 0) {
			if (err)
				snprintf(err, errlen, "cannot remove cgroup "
				    "%.400s: %s", cg->dir[i], strerror(errno));
			rc = -1;
		}
		cg->dir[i][0] = '\0';
	}
	return rc;
}
