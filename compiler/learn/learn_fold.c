/*
 * learn_fold.c - the path rules of a learned policy, as a reviewer reads
 * them: what each path needs beyond the base; the system's font, locale
 * and time-zone trees as one read rule each; LEARN_FOLD_MIN or more
 * entries of one folder used with the same read rights as one rule on
 * the folder; and no path listed whose rights a rule on a folder above
 * it already gives.  Only read rights (read-file, read-dir) are ever
 * folded: a write, a truncate, an exec or a change to a directory stays
 * on its own path's line.  cordonc(1) states what each fold grants.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fsgrant.h"
#include "landlock_compat.h"
#include "learn.h"
#include "secret.h"
#include "llrights.h"

/* Never granted as a whole directory: too wide to learn.  Nor is one
 * folded into (nor a user's home, nor any top-level directory). */
static const char *const too_wide[] = {
	"/", "/etc", "/home", "/root", "/proc", "/sys", "/dev", "/tmp",
	"/usr", "/var",
};

/* The system trees written as one read rule each (cordonc(1)). */
static const struct { const char *path, *what; } trees[] = {
	{ "/etc/fonts", "font configuration" },
	{ "/usr/share/fontconfig", "font configuration" },
	{ "/usr/share/fonts", "fonts" },
	{ "/usr/local/share/fonts", "fonts" },
	{ "/var/cache/fontconfig", "font cache" },
	{ "/usr/lib/locale", "locales" },
	{ "/usr/share/locale", "message catalogues" },
	{ "/usr/share/i18n", "locale sources" },
	{ "/usr/share/zoneinfo", "time zones" },
};
#define NTREES (sizeof(trees) / sizeof(trees[0]))

const char *learn_path_problem(const char *path)
{
	size_t k;

	for (k = 0; k < sizeof(too_wide) / sizeof(too_wide[0]); k++)
		if (!strcmp(path, too_wide[k]))
			return "too wide: a whole system directory";
	if (strncmp(path, "/proc/", 6) == 0 && isdigit((unsigned char)path[6]))
		return "another process's /proc entry";
	if (secret_path(path))
		return "a credential file (cordon(1): landlock_denials)";
	if (secret_below(path))
		return "it holds a credential file of the host's";
	return polq_path_problem(path);
}

/* May entries be folded into dir?  Not a too-wide one, a top-level one
 * or a user's home (/home/NAME), and a name the policy can hold. */
static int foldable(const char *dir)
{
	const char *s = strchr(dir + 1, '/');

	if (dir[0] != '/' ? strncmp(dir, "$WORKDIR", 8) != 0 : !s)
		return 0;
	if (strncmp(dir, "/home/", 6) == 0 && !strchr(dir + 6, '/'))
		return 0;
	return learn_path_problem(dir) == NULL;
}

/* The rule on path, made if it is not there yet; NULL: out of memory. */
static struct learn_rule *rule_at(struct learn_fold *f, const char *path,
    const char *tree)
{
	unsigned int i;
	char *copy;

	for (i = 0; i < f->nrule; i++)
		if (f->rule[i].path && strcmp(f->rule[i].path, path) == 0)
			return &f->rule[i];
	copy = strdup(path);
	if (!copy)
		return NULL;
	f->rule[f->nrule] = (struct learn_rule){ .path = copy, .tree = tree,
	    .anchor = UINT32_MAX };
	return &f->rule[f->nrule++];
}

static void hold(struct learn_rule *r, const struct learn *l,
    unsigned int i, uint64_t rights)
{
	const struct learn_path *p = &l->path[i];
	const char *slash = strrchr(p->path, '/');

	r->rights |= rights;
	r->folded |= rights;
	r->uses += p->count;
	r->held++;
	if (r->anchor == UINT32_MAX || i < r->anchor) {
		r->anchor = i;
		r->sample = p->sample;
		r->example = slash ? slash + 1 : p->path;
	}
}

/* The trees: every read right used beneath one, on the tree. */
static int fold_trees(const struct learn *l, struct learn_fold *f)
{
	struct learn_rule *r;
	unsigned int i;
	size_t t;

	for (i = 0; i < l->npath; i++)
		for (t = 0; t < NTREES && f->ok[i]; t++)
			if (cpol_path_beneath(trees[t].path, l->path[i].path) &&
			    (f->need[i] & CPOL_LL_READ)) {
				r = rule_at(f, trees[t].path, trees[t].what);
				if (!r)
					return -1;
				hold(r, l, i, f->need[i] & CPOL_LL_READ);
			}
	return 0;
}

/* The length of path's folder ("/a/b" of "/a/b/c"), 0 for none. */
static size_t parent_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash != path ? (size_t)(slash - path) : 0;
}

/* Do i and j lie in one folder, used with the same rights? */
static int same_group(const struct learn *l, const struct learn_fold *f,
    unsigned int i, unsigned int j)
{
	size_t n = parent_len(l->path[i].path);

	return f->ok[j] && f->need[j] == f->need[i] &&
	    parent_len(l->path[j].path) == n &&
	    strncmp(l->path[i].path, l->path[j].path, n) == 0;
}

/* Outside every tree: LEARN_FOLD_MIN or more entries in one folder with
 * the same rights, read rights alone, become a rule on the folder. */
static int fold_folders(const struct learn *l, struct learn_fold *f)
{
	char dir[4096];
	struct learn_rule *r;
	unsigned int i, j, n;
	size_t len, t;
	int in_tree;

	for (i = 0; i < l->npath; i++) {
		len = parent_len(l->path[i].path);
		for (in_tree = 0, t = 0; t < NTREES; t++)
			in_tree |= cpol_path_beneath(trees[t].path, l->path[i].path);
		if (!f->ok[i] || in_tree || !f->need[i] ||
		    (f->need[i] & ~CPOL_LL_READ) || !len || len >= sizeof(dir))
			continue;
		for (n = 0, j = 0; j < l->npath; j++)
			n += (unsigned int)same_group(l, f, i, j);
		memcpy(dir, l->path[i].path, len);
		dir[len] = '\0';
		if (n < LEARN_FOLD_MIN || !foldable(dir))
			continue;
		r = rule_at(f, dir, NULL);
		if (!r)
			return -1;
		for (j = 0; j < l->npath; j++)
			if (same_group(l, f, i, j) && !f->held[j]) {
				hold(r, l, j, f->need[j]);
				f->held[j] = 1;
			}
	}
	return 0;
}

/* What is left for each line: its rights less those of every rule and
 * learned line on a folder above it (a rule's whole rights count: what
 * one leaves out, one above it gives). */
static void cover(const struct learn *l, struct learn_fold *f)
{
	unsigned int i, j;
	uint64_t above;

	for (i = 0; i < f->nrule; i++) {
		for (j = 0; j < l->npath; j++)
			if (f->ok[j] && f->rule[i].path &&
			    !strcmp(l->path[j].path, f->rule[i].path)) {
				f->rule[i].rights |= f->need[j];
				f->target[j] = (int)i;
				if (j < f->rule[i].anchor)
					f->rule[i].anchor = j;
			}
	}
	for (i = 0; i < l->npath; i++) {
		f->own[i] = 0;
		if (!f->ok[i] || f->target[i] >= 0)
			continue;
		for (above = 0, j = 0; j < f->nrule; j++)
			if (f->rule[j].path && cpol_path_beneath(f->rule[j].path,
			    l->path[i].path))
				above |= f->rule[j].rights;
		for (j = 0; j < l->npath; j++)
			if (j != i && f->ok[j] && cpol_path_beneath(l->path[j].path,
			    l->path[i].path) && strcmp(l->path[j].path,
			    l->path[i].path))
				above |= f->need[j];
		f->own[i] = f->need[i] & ~above;
	}
	for (i = 0; i < f->nrule; i++) {
		for (above = 0, j = 0; j < f->nrule; j++)
			if (j != i && f->rule[j].path && f->rule[i].path &&
			    cpol_path_beneath(f->rule[j].path, f->rule[i].path))
				above |= f->rule[j].rights;
		f->rule[i].shown = f->rule[i].rights & ~above;
	}
}

int learn_fold(const struct learn *l, const struct cpol *b,
    struct learn_fold *f)
{
	unsigned int i, n = l->npath ? l->npath : 1;

	memset(f, 0, sizeof(*f));
	f->need = calloc(n, sizeof(*f->need));
	f->own = calloc(n, sizeof(*f->own));
	f->target = calloc(n, sizeof(*f->target));
	f->ok = calloc(n, 1);
	f->held = calloc(n, 1);
	f->rule = calloc(n + NTREES, sizeof(*f->rule));
	if (!f->need || !f->own || !f->target || !f->ok || !f->held ||
	    !f->rule)
		goto fail;
	for (i = 0; i < l->npath; i++) {
		f->need[i] = l->path[i].access & ~cpol_fs_granted(b,
		    l->path[i].path);
		f->ok[i] = f->need[i] && !learn_path_problem(l->path[i].path);
		f->target[i] = -1;
	}
	if (fold_trees(l, f) < 0 || fold_folders(l, f) < 0)
		goto fail;
	cover(l, f);
	return 0;
fail:
	learn_fold_free(f);
	errno = ENOMEM;
	return -1;
}

void learn_fold_free(struct learn_fold *f)
{
	unsigned int i;

	for (i = 0; f->rule && i < f->nrule; i++)
		free(f->rule[i].path);
	free(f->need);
	free(f->own);
	free(f->target);
	free(f->ok);
	free(f->held);
	free(f->rule);
	memset(f, 0, sizeof(*f));
}
