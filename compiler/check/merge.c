/*
 * merge.c - the merge rule (HACKING.md): every mention of a key, then the
 * last file's mentions kept, same key twice in one file an error.
 * Called by every section of check/; calls nothing of theirs back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkctx.h"

int mentions_add(struct mentions *ms, const char *key,
    const struct ast_stmt *s, const struct ast_item *it,
    const struct ast_val *v)
{
	struct mention *nm;

	if (ms->n == ms->cap) {
		nm = realloc(ms->m, (ms->cap ? ms->cap * 2 : 16) * sizeof(*nm));
		if (!nm)
			return -1;
		ms->m = nm;
		ms->cap = ms->cap ? ms->cap * 2 : 16;
	}
	nm = &ms->m[ms->n];
	*nm = (struct mention){ strdup(key), s, it, v, ms->n };
	if (!nm->key)
		return -1;
	ms->n++;
	return 0;
}

void mentions_free(struct mentions *ms)
{
	unsigned int i;

	for (i = 0; i < ms->n; i++)
		free(ms->m[i].key);
	free(ms->m);
	memset(ms, 0, sizeof(*ms));
}

static int by_key(const void *a, const void *b)
{
	const struct mention *x = a, *y = b;
	int r = strcmp(x->key, y->key);

	return r ? r : (x->seq > y->seq) - (x->seq < y->seq);
}

static const struct ast_loc *mention_loc(const struct mention *m)
{
	return m->it ? &m->it->loc : m->v ? &m->v->loc : &m->s->loc;
}

void mentions_merge(struct check_ctx *c, struct mentions *ms, int multi,
    const char *what)
{
	unsigned int i, j, k, out = 0;
	unsigned int owner;

	if (ms->n == 0)
		return;  /* qsort's base may not be NULL, even for 0 */
	qsort(ms->m, ms->n, sizeof(*ms->m), by_key);
	for (i = 0; i < ms->n; i = j) {
		for (j = i; j < ms->n && !strcmp(ms->m[j].key, ms->m[i].key); )
			j++;
		owner = ms->m[j - 1].s->file;
		for (k = i; k < j; k++) {
			if (ms->m[k].s->file != owner) {
				free(ms->m[k].key);
				continue;
			}
			if (!multi && out > 0 && ms->m[out - 1].s->file ==
			    owner && !strcmp(ms->m[out - 1].key, ms->m[k].key)) {
				diag_error(c->d, mention_loc(&ms->m[k]),
				    "%s%s%s given twice in one file", what,
				    *what ? " " : "", ms->m[k].key);
				diag_note(c->d, mention_loc(&ms->m[out - 1]),
				    "first given here");
				free(ms->m[k].key);
				continue;
			}
			ms->m[out++] = ms->m[k];
		}
	}
	ms->n = out;
	/* back to reading order */
	for (i = 1; i < ms->n; i++) {
		struct mention t = ms->m[i];

		for (k = i; k > 0 && ms->m[k - 1].seq > t.seq; k--)
			ms->m[k] = ms->m[k - 1];
		ms->m[k] = t;
	}
}

/* p, or after an "out of memory" error NULL: allocation failures are
 * errors, never a smaller policy. */
void *check_mem(struct check_ctx *c, void *p)
{
	if (!p)
		diag_error(c->d, NULL, "out of memory");
	return p;
}
