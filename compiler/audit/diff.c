/*
 * diff.c - everything diff compares except syscalls (diffsys.c): paths,
 * network, limits, timeout, output cap, environment, command line,
 * layers and metadata; and the change list's two renderings (the list
 * itself: difflist.c).
 */
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "jsonout.h"
#include "pathq.h"

static int paths_one_way(const struct cpol *from, const struct cpol *to,
    int dir, struct diff_list *out)
{
	for (uint32_t i = 0; i < from->nfs; i++) {
		const char *path = from->fs[i].path;
		uint64_t extra = pathq_rights(from, path) & ~pathq_rights(to, path);
		char buf[256];
		int seen = 0;

		for (uint32_t k = 0; k < i && !seen; k++)
			seen = strcmp(from->fs[k].path, path) == 0;
		if (!extra || seen)
			continue;
		pathq_format(extra, buf, sizeof(buf));
		if (diff_add(out, dir, "path", path, NULL, "%s %s", buf,
		    dir == DIFF_WIDER ? "added" : "removed") < 0)
			return -1;
	}
	return 0;
}

static const char *net_mode(const struct cpol *p)
{
	if (p->flags & CPOL_F_NET_TCP)
		return "tcp";
	if (p->flags & CPOL_F_NET_OFF)
		return "off";
	return "unrestricted";
}

static int has_port(const struct cpol *p, const struct cpol_net *n)
{
	for (uint32_t i = 0; i < p->nnet; i++)
		if (p->net[i].kind == n->kind && p->net[i].port == n->port)
			return 1;
	return 0;
}

/* The port rules of a that b lacks, each a change of kind ("what"). */
static int ports_only_in(const struct cpol *a, const struct cpol *b,
    int kind, const char *what, struct diff_list *out)
{
	for (uint32_t i = 0; i < a->nnet; i++) {
		const struct cpol_net *n = &a->net[i];
		char port[8];

		snprintf(port, sizeof(port), "%u", (unsigned int)n->port);
		if (!has_port(b, n) && diff_add(out, kind, "network", port,
		    NULL, "%s to TCP port %s %s", n->kind == CPOL_NET_BIND ?
		    "bind" : "connect", port, what) < 0)
			return -1;
	}
	return 0;
}

static int net_diff(const struct cpol *old, const struct cpol *new,
    struct diff_list *out)
{
	const char *a = net_mode(old), *b = net_mode(new);

	if (strcmp(a, b) != 0 && diff_add(out, strcmp(a, "off") == 0 ||
	    strcmp(b, "unrestricted") == 0 ? DIFF_WIDER : DIFF_NARROWER,
	    "network", "mode", NULL, "%s -> %s", a, b) < 0)
		return -1;
	if (ports_only_in(new, old, DIFF_WIDER, "added", out) < 0 ||
	    ports_only_in(old, new, DIFF_NARROWER, "removed", out) < 0)
		return -1;
	return 0;
}

static uint64_t limit_of(const struct cpol *p, unsigned int res)
{
	for (uint32_t i = 0; i < p->nlimits; i++)
		if (p->limits[i].resource == res)
			return p->limits[i].value;
	return CPOL_RLIM_INFINITY;
}

static void fmt_limit(uint64_t v, char *buf, size_t len)
{
	if (v == CPOL_RLIM_INFINITY)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
}

/* One number that is wider when larger. */
static int num_diff(struct diff_list *out, const char *kind,
    const char *subject, uint64_t a, uint64_t b)
{
	char x[32], y[32];

	if (a == b)
		return 0;
	fmt_limit(a, x, sizeof(x));
	fmt_limit(b, y, sizeof(y));
	return diff_add(out, b > a ? DIFF_WIDER : DIFF_NARROWER, kind, subject,
	    NULL, "%s -> %s (%s)", x, y, b == CPOL_RLIM_INFINITY ? "removed" :
	    b > a ? "raised" : "lowered");
}

static int limits_diff(const struct cpol *old, const struct cpol *new,
    struct diff_list *out)
{
	for (unsigned int r = 1; r <= CPOL_RLIM_MAX; r++)
		if (num_diff(out, "limit", cpol_rlim_name(r), limit_of(old, r),
		    limit_of(new, r)) < 0)
			return -1;
	if (num_diff(out, "timeout", "timeout_ms", old->timeout_ms,
	    new->timeout_ms) < 0)
		return -1;
	return num_diff(out, "output", "output_cap", old->output_cap,
	    new->output_cap);
}

static const struct cpol_env *env_find(const struct cpol *p, const char *n)
{
	for (uint32_t i = 0; i < p->nenv; i++)
		if (strcmp(p->env[i].name, n) == 0)
			return &p->env[i];
	return NULL;
}

static int env_diff(const struct cpol *old, const struct cpol *new,
    struct diff_list *out)
{
	for (uint32_t i = 0; i < new->nenv; i++) {
		const struct cpol_env *e = &new->env[i], *o;

		o = env_find(old, e->name);
		if (!o && diff_add(out, DIFF_WIDER, "env", e->name, NULL,
		    e->kind == CPOL_ENV_KEEP ? "kept (added)" :
		    "set to \"%s\" (added)", e->value) < 0)
			return -1;
		if (o && (o->kind != e->kind || strcmp(o->value, e->value)) &&
		    diff_add(out, e->kind == CPOL_ENV_KEEP ? DIFF_WIDER :
		    DIFF_CHANGED, "env", e->name, NULL, "%s -> %s",
		    o->kind == CPOL_ENV_KEEP ? "kept" : o->value,
		    e->kind == CPOL_ENV_KEEP ? "kept" : e->value) < 0)
			return -1;
	}
	for (uint32_t i = 0; i < old->nenv; i++)
		if (!env_find(new, old->env[i].name) && diff_add(out,
		    DIFF_NARROWER, "env", old->env[i].name, NULL, "removed") < 0)
			return -1;
	return 0;
}

static char *join(char **v, uint32_t n)
{
	size_t len = 1;
	char *s;

	for (uint32_t i = 0; i < n; i++)
		len += strlen(v[i]) + 1;
	if (!(s = calloc(1, len)))
		return NULL;
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, v[i]);
	}
	return s;
}

static int command_diff(const struct cpol *old, const struct cpol *new,
    struct diff_list *out)
{
	char *a = join(old->argv, old->nargv), *b = join(new->argv, new->nargv);
	int r = 0;

	if (!a || !b)
		r = -1;
	else if (strcmp(a, b) != 0)
		r = diff_add(out, DIFF_WIDER, "command", "command", NULL,
		    "\"%s\" -> \"%s\"", a, b);
	free(a);
	free(b);
	return r;
}

static int layers_diff(const struct cpol *old, const struct cpol *new,
    struct diff_list *out)
{
	uint32_t added = new->flags & ~old->flags, gone = old->flags &
	    ~new->flags, be = CPOL_F_BEST_EFFORT_LANDLOCK | CPOL_F_BEST_EFFORT_NS;

	if (old->landlock_abi_min != new->landlock_abi_min && diff_add(out,
	    new->landlock_abi_min < old->landlock_abi_min ? DIFF_WIDER :
	    DIFF_NARROWER, "layers", "landlock", NULL, "minimum ABI %u -> %u",
	    (unsigned int)old->landlock_abi_min,
	    (unsigned int)new->landlock_abi_min) < 0)
		return -1;
	if ((added & be) && diff_add(out, DIFF_WIDER, "layers", "best-effort",
	    NULL, "best-effort %s added", added & CPOL_F_BEST_EFFORT_LANDLOCK
	    ? "landlock" : "private namespaces") < 0)
		return -1;
	if ((gone & be) && diff_add(out, DIFF_NARROWER, "layers",
	    "best-effort", NULL, "best-effort removed") < 0)
		return -1;
	if (((added | gone) & (CPOL_F_PRIVATE_TMP | CPOL_F_PRIVATE_SHM)) &&
	    diff_add(out, DIFF_CHANGED, "layers", "private", NULL,
	    "private /tmp or /dev/shm changed") < 0)
		return -1;
	/* Truncating lets a run go on printing to its timeout: wider. */
	if (((added | gone) & CPOL_F_OUTPUT_TRUNCATE) && diff_add(out,
	    (added & CPOL_F_OUTPUT_TRUNCATE) ? DIFF_WIDER : DIFF_NARROWER,
	    "limits", "output", NULL, "output truncate %s",
	    (added & CPOL_F_OUTPUT_TRUNCATE) ? "added" : "removed") < 0)
		return -1;
	if (strcmp(old->name, new->name) != 0 && diff_add(out, DIFF_CHANGED,
	    "meta", "name", NULL, "\"%s\" -> \"%s\"", old->name, new->name) < 0)
		return -1;
	return 0;
}

int diff_run(const struct cpol *old, const struct cpol *new,
    struct diff_list *out)
{
	if (diff_syscalls(old, new, out) < 0 ||
	    paths_one_way(new, old, DIFF_WIDER, out) < 0 ||
	    paths_one_way(old, new, DIFF_NARROWER, out) < 0 ||
	    net_diff(old, new, out) < 0 || limits_diff(old, new, out) < 0 ||
	    env_diff(old, new, out) < 0 || command_diff(old, new, out) < 0)
		return -1;
	return layers_diff(old, new, out);
}

static const char mark[4] = { '?', '+', '-', '~' };

void diff_print_text(FILE *f, const struct diff_list *l, const char *old,
    const char *new)
{
	unsigned int w = diff_count(l, DIFF_WIDER);

	for (unsigned int i = 0; i < l->n; i++) {
		const struct diff_change *c = &l->v[i];

		fprintf(f, "%c %s %s: %s", mark[c->dir & 3], c->kind,
		    c->subject, c->detail);
		if (c->origin)
			fprintf(f, " (%s)", c->origin);
		fputc('\n', f);
	}
	if (w)
		fprintf(f, "%s is wider than %s: %u widening%s, %u narrowing%s\n",
		    new, old, w, w == 1 ? "" : "s",
		    diff_count(l, DIFF_NARROWER),
		    diff_count(l, DIFF_NARROWER) == 1 ? "" : "s");
	else
		fprintf(f, "%s allows nothing %s does not (%u change%s)\n",
		    new, old, l->n, l->n == 1 ? "" : "s");
}

void diff_print_json(FILE *f, const struct diff_list *l, const char *old,
    const char *new)
{
	static const char *const dirs[4] = { "?", "wider", "narrower",
	    "changed" };
	int first = 1;

	fputs("{\"old\":", f);
	json_str(f, old);
	fputs(",\"new\":", f);
	json_str(f, new);
	fprintf(f, ",\"wider\":%s,\"changes\":[",
	    diff_count(l, DIFF_WIDER) ? "true" : "false");
	for (unsigned int i = 0; i < l->n; i++) {
		const struct diff_change *c = &l->v[i];

		json_sep(f, &first);
		fputs("{\"direction\":", f);
		json_str(f, dirs[c->dir & 3]);
		fputs(",\"kind\":", f);
		json_str(f, c->kind);
		fputs(",\"subject\":", f);
		json_str(f, c->subject);
		fputs(",\"detail\":", f);
		json_str(f, c->detail);
		fputs(",\"origin\":", f);
		json_str(f, c->origin);
		fputc('}', f);
	}
	fputs("]}\n", f);
}
