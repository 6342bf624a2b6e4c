/*
 * incsearch.c - where includes are looked for, and a near name when an
 * include is not found.  The installed bases (CORDON_POLICY_DIR, from the
 * Makefile's PREFIX) come after the -I directories.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "tables.h"

#ifndef CORDON_POLICY_DIR
#define CORDON_POLICY_DIR "/usr/local/share/cordon/policies"
#endif

const char parse_default_incdir[] = CORDON_POLICY_DIR;

#define MAX_CANDS 256

struct cands {
	const char *v[MAX_CANDS + 1];   /* NULL-terminated for tables_suggest_among */
	unsigned int n;
};

/* Add "prefix" + name for each *.policy in dir (and its subdirectories,
 * once deep), so "bse/pyton.policy" finds "base/python.policy". */
static void collect(struct cands *c, const char *dir, const char *prefix,
    int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char sub[4200], rel[200];
	size_t n;

	if (!d)
		return;
	while ((e = readdir(d)) && c->n < MAX_CANDS) {
		n = strlen(e->d_name);
		if (e->d_name[0] == '.' || snprintf(rel, sizeof(rel), "%s%s",
		    prefix, e->d_name) >= (int)sizeof(rel))
			continue;
		if (n > 7 && !strcmp(e->d_name + n - 7, ".policy")) {
			char *name = strdup(rel);

			if (name)
				c->v[c->n++] = name;
		} else if (depth == 0 && (e->d_type == DT_DIR ||
		    e->d_type == DT_UNKNOWN) && snprintf(sub, sizeof(sub),
		    "%s/%s", dir, e->d_name) < (int)sizeof(sub)) {
			strcat(rel, "/");
			collect(c, sub, rel, 1);
		}
	}
	closedir(d);
}

int parse_include_suggest(const char *inc, const char *const *dirs,
    unsigned int ndirs, char *out, size_t outlen)
{
	struct cands c;
	const char *best;
	unsigned int i;
	int found;

	memset(&c, 0, sizeof(c));
	for (i = 0; i < ndirs; i++)
		collect(&c, dirs[i], "", 0);
	best = tables_suggest_among(inc, c.v);
	found = best && snprintf(out, outlen, "%s", best) < (int)outlen;
	for (i = 0; i < c.n; i++)
		free((void *)c.v[i]);
	return found;
}
