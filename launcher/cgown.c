/*
 * cgown.c - where cordon's own cgroup v1 group is, for one controller:
 * the caller's group, below which the run's group is made, so that every
 * limit of the caller's (a systemd service's, a CI job's, an outer
 * sandbox's) still holds for the run.
 *
 * /proc/self/cgroup names the group ("4:memory:/a/b") relative to the
 * cgroup namespace's root; /proc/self/mountinfo says where the
 * controller's hierarchy is mounted and which group the mount shows at
 * its top (its root field, relative to the same namespace root).  The
 * group is the first mount, by mountinfo's order, whose root is the group
 * or one of its ancestors.  No parsing here trusts a line it does not
 * fully understand: such a line is skipped, and no group found is said.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cordon.h"

/* Is word one of the comma-separated items of list (len bytes)? */
static int listed(const char *list, size_t len, const char *word)
{
	size_t w = strlen(word);
	const char *p = list, *end = list + len, *c;

	while (p < end) {
		c = memchr(p, ',', (size_t)(end - p));
		if (!c)
			c = end;
		if ((size_t)(c - p) == w && memcmp(p, word, w) == 0)
			return 1;
		p = c + 1;
	}
	return 0;
}

/* The group of ours in controller's hierarchy, from /proc/self/cgroup's
 * text ("ID:CONTROLLERS:PATH" per line), into path.  -1: none listed. */
static int own_path(const char *text, const char *controller, char *path,
    size_t len)
{
	const char *line, *end, *c1, *c2;

	for (line = text; *line; line = *end ? end + 1 : end) {
		if (!(end = strchr(line, '\n')))
			end = line + strlen(line);
		if (!(c1 = memchr(line, ':', (size_t)(end - line))) ||
		    !(c2 = memchr(c1 + 1, ':', (size_t)(end - c1 - 1))))
			continue;
		if (!listed(c1 + 1, (size_t)(c2 - c1 - 1), controller) ||
		    c2[1] != '/' || (size_t)(end - c2 - 1) >= len)
			continue;
		memcpy(path, c2 + 1, (size_t)(end - c2 - 1));
		path[end - c2 - 1] = '\0';
		return 0;
	}
	return -1;
}

/* mountinfo's octal escapes (\040 for a space), decoded in place. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++, o++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
			    (s[3] - '0'));
			s += 3;
		} else {
			*o = *s;
		}
	}
	*o = '\0';
}

/* One mountinfo line: "ID PARENT MAJ:MIN ROOT POINT OPTS [TAGS] - TYPE
 * SOURCE SUPER".  Where it is a v1 mount of controller showing group
 * (or an ancestor) at its root, the group's directory into dir: 0, or
 * -1 (the line modified either way). */
int cgroup_mount_dir(char *line, const char *controller, const char *group,
    char *dir, size_t len)
{
	char *f[6], *save = NULL, *type, *super, *dash;
	size_t rl;
	int i;

	if (!(dash = strstr(line, " - ")))
		return -1;
	*dash = '\0';
	type = strtok_r(dash + 3, " \n", &save);
	(void)strtok_r(NULL, " \n", &save);
	super = strtok_r(NULL, " \n", &save);
	if (!type || !super || strcmp(type, "cgroup") != 0 ||
	    !listed(super, strlen(super), controller))
		return -1;
	save = NULL;
	for (i = 0; i < 6; i++)
		if (!(f[i] = strtok_r(i ? NULL : line, " ", &save)))
			return -1;
	unescape(f[3]);
	unescape(f[4]);
	rl = strcmp(f[3], "/") == 0 ? 0 : strlen(f[3]);
	if (strncmp(group, f[3], rl) != 0 || (group[rl] != '/' &&
	    group[rl] != '\0'))
		return -1;
	if (snprintf(dir, len, "%s%s", f[4], group[rl] == '/' &&
	    group[rl + 1] ? group + rl : "") >= (int)len)
		return -1;
	return 0;
}

/* The first mount (mountinfo's order) that shows each group: dir[i]
 * for each group[i] still to find (dir[i] ""); how many are left. */
static int mounts_scan(FILE *mi, const char *const names[2],
    char group[2][CGROUP_PATH_MAX], char dir[2][CGROUP_PATH_MAX], int left)
{
	char *line = NULL, *copy;
	size_t cap = 0;
	int i;

	while (left && getline(&line, &cap, mi) > 0)
		for (i = 0; i < 2; i++) {
			if (!group[i][0] || dir[i][0] || !(copy = strdup(line)))
				continue;
			if (cgroup_mount_dir(copy, names[i], group[i], dir[i],
			    CGROUP_PATH_MAX) == 0)
				left--;
			else
				dir[i][0] = '\0';
			free(copy);
		}
	free(line);
	return left;
}

int cgroup_own(const char *const names[2], const int need[2],
    char dir[2][CGROUP_PATH_MAX], char *why, size_t whylen)
{
	static char text[4096];
	char group[2][CGROUP_PATH_MAX];
	FILE *mi;
	int i, left = 0;

	if (file_get("/proc/self/cgroup", text, sizeof(text)) < 0) {
		snprintf(why, whylen, "/proc/self/cgroup: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < 2; i++) {
		group[i][0] = dir[i][0] = '\0';
		if (need[i] && own_path(text, names[i], group[i],
		    sizeof(group[i])) < 0) {
			snprintf(why, whylen, "cordon is in no cgroup v1 %s "
			    "hierarchy", names[i]);
			return -1;
		}
		left += need[i] != 0;
	}
	if (!(mi = fopen("/proc/self/mountinfo", "re"))) {
		snprintf(why, whylen, "/proc/self/mountinfo: %s",
		    strerror(errno));
		return -1;
	}
	left = mounts_scan(mi, names, group, dir, left);
	fclose(mi);
	for (i = 0; left && i < 2; i++)
		if (group[i][0] && !dir[i][0]) {
			snprintf(why, whylen, "no mount of the cgroup v1 %s "
			    "hierarchy shows cordon's group %.200s", names[i],
			    group[i]);
			return -1;
		}
	return 0;
}
