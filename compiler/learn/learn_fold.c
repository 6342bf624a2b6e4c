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

#include "strindex.h"

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

/* Sorting the paths into folders: by folder, then rights, then index
 * (so that each group's first is its first path). */
struct by_folder { const struct learn *l; const uint64_t *need; };

static int folder_cmp(const void *a, const void *b, void *ctx)
{
	const struct by_folder *c = ctx;
	unsigned int i = *(const unsigned int *)a, j = *(const unsigned int *)b;
	size_t n = parent_len(c->l->path[i].path);
	size_t m = parent_len(c->l->path[j].path);
	int d = strncmp(c->l->path[i].path, c->l->path[j].path,
	    n < m ? n : m);

	if (d || n != m)
		return d ? d : n < m ? -1 : 1;
	if (c->need[i] != c->need[j])
		return c->need[i] < c->need[j] ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* May path i be folded into its folder?  Learnable, outside every tree,
 * read rights alone, in a folder whose name fits. */
static int folder_candidate(const struct learn *l, const struct learn_fold *f,
    unsigned int i)
{
	size_t len = parent_len(l->path[i].path), t;

	for (t = 0; t < NTREES; t++)
		if (cpol_path_beneath(trees[t].path, l->path[i].path))
			return 0;
	return f->ok[i] && f->need[i] && !(f->need[i] & ~CPOL_LL_READ) &&
	    len && len < 4096;
}

/* One group (idx[0, n): one folder, the same rights): a rule on the
 * folder when LEARN_FOLD_MIN or more and the folder may hold one. */
static int fold_group(const struct learn *l, struct learn_fold *f,
    const unsigned int *idx, unsigned int n)
{
	char dir[4096];
	size_t len = parent_len(l->path[idx[0]].path);
	struct learn_rule *r;
	unsigned int k;

	memcpy(dir, l->path[idx[0]].path, len);
	dir[len] = '\0';
	if (n < LEARN_FOLD_MIN || !foldable(dir))
		return 0;
	r = rule_at(f, dir, NULL);
	if (!r)
		return -1;
	for (k = 0; k < n; k++) {
		hold(r, l, idx[k], f->need[idx[k]]);
		f->held[idx[k]] = 1;
	}
	return 0;
}

/* Outside every tree: LEARN_FOLD_MIN or more entries in one folder with
 * the same rights, read rights alone, become a rule on the folder; the
 * groups in the order of their first paths (sorted, not compared pair
 * by pair: learn keeps every path a sample used). */
static int fold_folders(const struct learn *l, struct learn_fold *f)
{
	struct by_folder c = { l, f->need };
	unsigned int *idx = malloc((l->npath + 1) * sizeof(*idx));
	unsigned int *first = malloc((l->npath + 1) * sizeof(*first));
	unsigned int i, n = 0, g = 0, k;
	int rc = 0;

	for (i = 0; idx && first && i < l->npath; i++)
		if (folder_candidate(l, f, i))
			idx[n++] = i;
	if (idx && first)
		qsort_r(idx, n, sizeof(*idx), folder_cmp, &c);
	for (i = 0; idx && first && i < n; i++)   /* each group's start */
		if (i == 0 || parent_len(l->path[idx[i - 1]].path) !=
		    parent_len(l->path[idx[i]].path) || f->need[idx[i - 1]] !=
		    f->need[idx[i]] || strncmp(l->path[idx[i - 1]].path,
		    l->path[idx[i]].path, parent_len(l->path[idx[i]].path)))
			first[g++] = i;
	for (k = 0; idx && first && rc == 0 && k < g; k++)
		rc = fold_group(l, f, idx + first[k], (k + 1 < g ?
		    first[k + 1] : n) - first[k]);
	if (!idx || !first)
		rc = -1;
	free(idx);
	free(first);
	return rc;
}

/* The next name above path (*k: where the last one ended; start at
 * strlen(path)) into buf: "/" is above every absolute path, "$WORKDIR"
 * above the names in it.  1, or 0 when none is left. */
static int up(const char *path, size_t *k, char *buf, size_t len)
{
	size_t i = *k;

	while (i > 0 && path[--i] != '/')
		;
	if (path[i] != '/' || (i == 0 && *k <= 1))
		return 0;
	*k = i;
	if (i == 0)
		i = 1;            /* the root: "/" itself */
	if (i >= len)
		return up(path, k, buf, len);
	memcpy(buf, path, i);
	buf[i] = '\0';
	return 1;
}

/* The rights of the rules on path's folders above it and, when self, on
 * path itself; and (paths non-NULL) of the learned lines above it. */
static uint64_t above_of(const struct learn_fold *f,
    const struct strindex *rules, const struct strindex *paths,
    const char *path, int self)
{
	char name[4200];
	uint64_t above = 0;
	size_t k = strlen(path);
	uint32_t at;

	if (self && (at = strindex_find(rules, path)) != STRINDEX_NONE)
		above |= f->rule[at].rights;
	while (up(path, &k, name, sizeof(name))) {
		if ((at = strindex_find(rules, name)) != STRINDEX_NONE)
			above |= f->rule[at].rights;
		if (paths && (at = strindex_find(paths, name)) !=
		    STRINDEX_NONE && f->ok[at])
			above |= f->need[at];
	}
	return above;
}

/* What is left for each line: its rights less those of every rule and
 * learned line on a folder above it (a rule's whole rights count: what
 * one leaves out, one above it gives).  The rules and paths found by
 * name (strindex), each folder above a path looked up once. */
static int cover(const struct learn *l, struct learn_fold *f)
{
	struct strindex rules = { 0 }, paths = { 0 };
	unsigned int i;
	uint32_t j;
	int rc = 0;

	for (i = 0; rc == 0 && i < l->npath; i++)
		if (strindex_find(&paths, l->path[i].path) == STRINDEX_NONE)
			rc = strindex_add(&paths, l->path[i].path, i);
	for (i = 0; rc == 0 && i < f->nrule; i++)
		if (f->rule[i].path)
			rc = strindex_add(&rules, f->rule[i].path, i);
	for (i = 0; rc == 0 && i < f->nrule; i++) {
		j = f->rule[i].path ? strindex_find(&paths, f->rule[i].path) :
		    STRINDEX_NONE;
		if (j == STRINDEX_NONE || !f->ok[j])
			continue;
		f->rule[i].rights |= f->need[j];
		f->target[j] = (int)i;
		if (j < f->rule[i].anchor)
			f->rule[i].anchor = j;
	}
	for (i = 0; rc == 0 && i < l->npath; i++) {
		f->own[i] = 0;
		if (f->ok[i] && f->target[i] < 0)
			f->own[i] = f->need[i] & ~above_of(f, &rules, &paths,
			    l->path[i].path, 1);
	}
	for (i = 0; rc == 0 && i < f->nrule; i++)
		f->rule[i].shown = f->rule[i].rights & ~(f->rule[i].path ?
		    above_of(f, &rules, NULL, f->rule[i].path, 0) : 0);
	strindex_free(&rules);
	strindex_free(&paths);
	return rc;
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
	if (fold_trees(l, f) < 0 || fold_folders(l, f) < 0 ||
	    cover(l, f) < 0)
		goto fail;
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
