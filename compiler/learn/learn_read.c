/*
 * learn_read.c - read `cordon --observe` traces into a struct learn:
 * every record kept (the tables grow; out of memory fails the read),
 * paths in the workdir as "$WORKDIR...", the counts summed over samples.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "learn.h"
#include "llrights.h"

static int field(char **s, char **out)
{
	char *tab;

	if (!*s)
		return -1;
	*out = *s;
	tab = strchr(*s, '\t');
	if (tab) {
		*tab = '\0';
		*s = tab + 1;
	} else {
		*s = NULL;
	}
	return 0;
}

static int num(char **s, int base, uint64_t *v)
{
	char *f, *end;

	if (field(s, &f) < 0 || !*f)
		return -1;
	errno = 0;
	*v = strtoull(f, &end, base);
	return errno || *end ? -1 : 0;
}

/* "$WORKDIR/..." for a path under the run's workdir. */
static char *relabel(const char *path, const char *wd)
{
	size_t n = strlen(wd);
	char *out;

	if (n && strncmp(path, wd, n) == 0 && (!path[n] || path[n] == '/')) {
		out = malloc(strlen(path) - n + 10);
		if (out)
			sprintf(out, "$WORKDIR%s", path + n);
		return out;
	}
	return strdup(path);
}

/* Room for one more of n in *arr (cap of them, size bytes each): 0, or
 * -1 (out of memory). */
static int room(void **arr, unsigned int n, unsigned int *cap, size_t size)
{
	unsigned int want = *cap ? *cap * 2 : 64;
	void *grown;

	if (n < *cap)
		return 0;
	if (want <= *cap || !(grown = realloc(*arr, (size_t)want * size)))
		return -1;
	*arr = grown;
	*cap = want;
	return 0;
}

static int add_path(struct learn *l, const char *path, uint64_t access,
    uint64_t count, const char *sample)
{
	uint32_t i = strindex_find(&l->pathidx, path);
	char *copy;

	if (i != STRINDEX_NONE) {
		l->path[i].access |= access;
		l->path[i].count += count;
		return 0;
	}
	if (room((void **)&l->path, l->npath, &l->cappath,
	    sizeof(*l->path)) < 0 || !(copy = strdup(path)))
		return -1;
	if (strindex_add(&l->pathidx, copy, l->npath) < 0) {
		free(copy);
		return -1;
	}
	l->path[l->npath++] = (struct learn_path){ copy, access, count,
	    sample };
	return 0;
}

static int line_path(struct learn *l, char *s, const char *wd,
    const char *sample)
{
	uint64_t rights = 0, one, count;
	char *r, *p, *q;
	int rc;

	if (field(&s, &r) < 0 || num(&s, 10, &count) < 0 || !s || *s != '/')
		return -1;
	for (; *r; r++) {       /* the trace's letters (common/llrights.c) */
		if (cpol_trace_right(*r, &one) < 0)
			return -1;
		rights |= one;
	}
	p = s;
	q = relabel(p, wd);
	if (!q)
		return -1;
	/* Probed and absent (ENOENT comes before Landlock; a trace of an
	 * older cordon holds failed calls): no rule, and a rule on a
	 * missing path would stop the launch. */
	rc = q[0] == '/' && access(q, F_OK) != 0 ? 0 :
	    add_path(l, q, rights, count, sample);
	free(q);
	return rc;
}

static int line_call(struct learn *l, char *s, const char *sample)
{
	struct learn_call c = { .sample = sample };
	uint64_t nr;
	unsigned int i;

	if (num(&s, 10, &nr) < 0 || nr > 0xffffffffu ||
	    num(&s, 10, &c.count) < 0)
		return -1;
	for (i = 0; i < 6; i++)
		if (num(&s, 16, &c.args[i]) < 0)
			return -1;
	if (!s)
		return -1;
	c.nr = (uint32_t)nr;
	for (i = 0; i < l->ncall; i++)
		if (l->call[i].nr == c.nr && !strcmp(l->call[i].call, s)) {
			l->call[i].count += c.count;
			return 0;
		}
	if (room((void **)&l->call, l->ncall, &l->capcall,
	    sizeof(*l->call)) < 0)
		return -1;
	c.call = strdup(s);
	l->call[l->ncall++] = c;
	return c.call ? 0 : -1;
}

static int line_net(struct learn *l, char *s, const char *sample)
{
	uint64_t port, count;
	char *kind;
	unsigned int i;
	int bind;

	if (field(&s, &kind) < 0 || num(&s, 10, &port) < 0 ||
	    num(&s, 10, &count) < 0 || port == 0 || port > 65535)
		return -1;
	bind = strcmp(kind, "bind") == 0;
	if (!bind && strcmp(kind, "connect") != 0)
		return -1;
	for (i = 0; i < l->nport; i++)
		if (l->port[i].bind == bind && l->port[i].port == port) {
			l->port[i].count += count;
			return 0;
		}
	if (room((void **)&l->port, l->nport, &l->capport,
	    sizeof(*l->port)) < 0)
		return -1;
	l->port[l->nport++] = (struct learn_port){ bind, (unsigned int)port,
	    count, sample };
	return 0;
}

/* name:port into hosts[0..*n), counted once. */
static int host_add(struct learn_host *hosts, unsigned int *n,
    struct learn *l, const char *name, uint64_t port, uint64_t count,
    const char *sample)
{
	unsigned int i;

	for (i = 0; i < *n; i++)
		if (hosts[i].port == port && !strcmp(hosts[i].host, name)) {
			hosts[i].count += count;
			return 0;
		}
	if (*n == LEARN_MAX_HOSTS) {
		l->dropped++;
		return 0;
	}
	hosts[*n] = (struct learn_host){ strdup(name), (unsigned int)port,
	    count, sample };
	return hosts[(*n)++].host ? 0 : -1;
}

/* "host NAME PORT COUNT": a host reached through the proxy. */
static int line_host(struct learn *l, char *s, const char *sample)
{
	uint64_t port, count;
	char *name;
	enum cpol_host_kind k;

	if (field(&s, &name) < 0 || num(&s, 10, &port) < 0 ||
	    num(&s, 10, &count) < 0 || port == 0 || port > 65535)
		return -1;
	k = cpol_host_kind(name);
	if (k != CPOL_HOST_NAME && k != CPOL_HOST_IPV4 && k != CPOL_HOST_IPV6)
		return -1;
	/* The host's own, its network's or its cloud's services: a rule
	 * only by a person's explicit "private", never a learned one. */
	if (cpol_host_special(name))
		return host_add(l->left, &l->nleft, l, name, port, count,
		    sample);
	return host_add(l->host, &l->nhost, l, name, port, count, sample);
}

static void max_of(uint64_t *to, uint64_t v)
{
	if (v != UINT64_MAX && (v > *to || *to == UINT64_MAX))
		*to = v;
}

/* "judged FAILED UNSURE": path calls left out of the path records. */
static int line_judged(struct learn *l, char *s)
{
	uint64_t failed, unsure;

	if (num(&s, 10, &failed) < 0 || num(&s, 10, &unsure) < 0)
		return -1;
	l->failed += failed;
	l->unsure += unsure;
	return 0;
}

/* "dropped N": records cordon (or the proxy) could not keep. */
static int line_dropped(struct learn *l, char *s)
{
	uint64_t n;

	if (num(&s, 10, &n) < 0)
		return -1;
	l->dropped += n;
	return 0;
}

static int line_usage(struct learn *l, char *s)
{
	uint64_t v[7];
	int i;

	for (i = 0; i < 7; i++)
		if (num(&s, 10, &v[i]) < 0)
			v[i] = UINT64_MAX;
	max_of(&l->wall_ms, v[0]);
	max_of(&l->cpu_ms, v[1]);
	max_of(&l->rss_kb, v[2]);
	max_of(&l->memory, v[3]);
	max_of(&l->procs, v[4]);
	max_of(&l->disk, v[5]);
	max_of(&l->files, v[6]);
	return 0;
}

int learn_read(FILE *f, const char *sample, struct learn *l, char *err,
    size_t errlen)
{
	char line[8192], wd[4096] = "", *s, *kind;
	unsigned int n = 0;
	int rc = 0;

	while (fgets(line, sizeof(line), f)) {
		n++;
		errno = 0;
		line[strcspn(line, "\n")] = '\0';
		s = line;
		if (field(&s, &kind) < 0)
			rc = -1;
		else if (n == 1)
			rc = strcmp(kind, "cordon-trace") || !s ||
			    strcmp(s, "1") ? -1 : 0;
		else if (!strcmp(kind, "workdir") && s)
			snprintf(wd, sizeof(wd), "%s", s);
		else if (!strcmp(kind, "path"))
			rc = line_path(l, s, wd, sample);
		else if (!strcmp(kind, "call"))
			rc = line_call(l, s, sample);
		else if (!strcmp(kind, "net"))
			rc = line_net(l, s, sample);
		else if (!strcmp(kind, "host"))
			rc = line_host(l, s, sample);
		else if (!strcmp(kind, "usage"))
			rc = line_usage(l, s);
		else if (!strcmp(kind, "judged"))
			rc = line_judged(l, s);
		else if (!strcmp(kind, "dropped"))
			rc = line_dropped(l, s);
		if (rc < 0) {
			snprintf(err, errlen, errno == ENOMEM ? "trace of %s: "
			    "out of memory at line %u" : "trace of %s: line %u "
			    "is not cordon's", sample, n);
			return -1;
		}
	}
	return n ? 0 : (snprintf(err, errlen, "trace of %s: empty", sample),
	    -1);
}

void learn_free(struct learn *l)
{
	unsigned int i;

	for (i = 0; i < l->npath; i++)
		free(l->path[i].path);
	for (i = 0; i < l->ncall; i++)
		free(l->call[i].call);
	for (i = 0; i < l->nhost; i++)
		free(l->host[i].host);
	for (i = 0; i < l->nleft; i++)
		free(l->left[i].host);
	free(l->path);
	free(l->call);
	free(l->port);
	strindex_free(&l->pathidx);
	l->path = NULL;
	l->call = NULL;
	l->port = NULL;
	l->cappath = l->capcall = l->capport = 0;
	l->npath = l->ncall = l->nport = l->nhost = l->nleft = 0;
}
