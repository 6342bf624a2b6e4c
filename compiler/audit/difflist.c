/*
 * difflist.c - the change list diff.c and diffsys.c fill: add, count, free.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

/* A diff longer than this is of two unrelated policies. */
#define DIFF_MAX_CHANGES 100000u

int diff_add(struct diff_list *l, int dir, const char *kind,
    const char *subject, const char *origin, const char *fmt, ...)
{
	struct diff_change *c;
	va_list ap;
	int r;

	if (l->n == l->cap) {
		unsigned int cap = l->cap ? l->cap * 2 : 32;
		struct diff_change *v;

		if (cap > DIFF_MAX_CHANGES)
			return -1;
		if (!(v = realloc(l->v, cap * sizeof(*v))))
			return -1;
		l->v = v;
		l->cap = cap;
	}
	c = &l->v[l->n];
	memset(c, 0, sizeof(*c));
	c->dir = dir;
	c->kind = kind;
	c->subject = strdup(subject);
	c->origin = origin ? strdup(origin) : NULL;
	va_start(ap, fmt);
	r = vasprintf(&c->detail, fmt, ap);
	va_end(ap);
	if (r < 0)
		c->detail = NULL;
	if (!c->subject || !c->detail || (origin && !c->origin)) {
		free(c->subject);
		free(c->origin);
		free(c->detail);
		return -1;
	}
	l->n++;
	return 0;
}

void diff_list_free(struct diff_list *l)
{
	for (unsigned int i = 0; i < l->n; i++) {
		free(l->v[i].subject);
		free(l->v[i].detail);
		free(l->v[i].origin);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

unsigned int diff_count(const struct diff_list *l, int dir)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < l->n; i++)
		n += l->v[i].dir == dir;
	return n;
}
