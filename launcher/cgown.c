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

/* The group of ours in controller's hierarchy, from /proc/self/cgroup
 * ("ID:CONTROLLERS:PATH" per line), into path.  -1: none listed. */
static int own_path(const char *controller, char *path, size_t len)
{
	static char buf[4096];
	char *line, *next, *c1, *c2;

	if (file_get("/proc/self/cgroup", buf, sizeof(buf)) < 0)
		return -1;
	for (line = buf; line && *line; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (!(c1 = strchr(line, ':')) || !(c2 = strchr(c1 + 1, ':')))
			continue;
		if (!listed(c1 + 1, (size_t)(c2 - c1 - 1), controller) ||
		    c2[1] != '/' || strlen(c2 + 1) >= len)
			continue;
		strcpy(path, c2 + 1);
		return 0;
	}
	errno = ENOENT;
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

int cgroup_own(const char *controller, char *dir, size_t len, char *why,
    size_t whylen)
{
	char group[CGROUP_PATH_MAX], *line = NULL;
	size_t cap = 0;
	FILE *mi;
	int rc = -1;

	if (own_path(controller, group, sizeof(group)) < 0) {
		snprintf(why, whylen, "cordon is in no cgroup v1 %s hierarchy",
		    controller);
		return -1;
	}
	if (!(mi = fopen("/proc/self/mountinfo", "re"))) {
		snprintf(why, whylen, "/proc/self/mountinfo: %s",
		    strerror(errno));
		return -1;
	}
	while (rc < 0 && getline(&line, &cap, mi) > 0)
		rc = cgroup_mount_dir(line, controller, group, dir, len);
	free(line);
	fclose(mi);
	if (rc < 0)
		snprintf(why, whylen, "no mount of the cgroup v1 %s hierarchy "
		    "shows cordon's group %.200s", controller, group);
	return rc;
}
