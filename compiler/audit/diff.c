/*
 * diff.c - the table of what diff compares, one comparer per blob
 * section (diff_sections: a section without one is an error, never "no
 * change"), one entry per layer flag (flag_rules), and the comparers of
 * paths, limits, environment, command line, preload, layers and
 * metadata.  Syscalls: diffsys.c; network and named hosts: diffnet.c;
 * the list: difflist.c; its renderings: difffmt.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "explain_fmt.h"
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

static const struct cpol_fs *fs_find(const struct cpol *p, const char *path)
{
	for (uint32_t i = 0; i < p->nfs; i++)
		if (strcmp(p->fs[i].path, path) == 0)
			return &p->fs[i];
	return NULL;
}

/* Rights at each rule path, both ways; then a rule that became optional
 * (absent at launch: skipped) or required, which grants nothing. */
static int paths_diff(const struct cpol *old, const struct cpol *new,
    struct diff_list *out)
{
	if (paths_one_way(new, old, DIFF_WIDER, out) < 0 ||
	    paths_one_way(old, new, DIFF_NARROWER, out) < 0)
		return -1;
	for (uint32_t i = 0; i < new->nfs; i++) {
		const struct cpol_fs *n = &new->fs[i], *o = fs_find(old, n->path);
		uint8_t was;

		if (!o || fs_find(new, n->path) != n || o->flags == n->flags)
			continue;
		was = o->flags & CPOL_FS_OPTIONAL;
		if (diff_add(out, DIFF_CHANGED, "path", n->path, NULL,
		    "%s -> %s", was ? "optional" : "required",
		    (n->flags & CPOL_FS_OPTIONAL) ? "optional" : "required") < 0)
			return -1;
	}
	return 0;
}

static uint64_t limit_of(const struct cpol *p, unsigned int res)
{
	for (uint32_t i = 0; i < p->nlimits; i++)
		if (p->limits[i].resource == res)
			return p->limits[i].value;
	return CPOL_RLIM_INFINITY;
}

/* How the author writes a value of subject: a limit with its unit
 * (explain_limit: "4G", "2m", "64"), the timeout as a time, the output
 * cap as a size. */
static void fmt_value(const char *kind, unsigned int res, uint64_t v,
    char *buf, size_t len)
{
	struct cpol_limit l = { (uint8_t)res, v };

	if (v == CPOL_RLIM_INFINITY)
		snprintf(buf, len, "unlimited");
	else if (!strcmp(kind, "timeout") || !strcmp(kind, "session"))
		explain_ms(v, buf, len);
	else if (!strcmp(kind, "output"))
		explain_size(v, buf, len);
	else
		explain_limit(&l, buf, len);
}

/* One number that is wider when larger (res: the limit's resource, 0
 * for the timeout and the output cap). */
static int num_diff(struct diff_list *out, const char *kind,
    const char *subject, unsigned int res, uint64_t a, uint64_t b)
{
	char x[32], y[32];

	if (a == b)
		return 0;
	fmt_value(kind, res, a, x, sizeof(x));
	fmt_value(kind, res, b, y, sizeof(y));
	return diff_add(out, b > a ? DIFF_WIDER : DIFF_NARROWER, kind, subject,
	    NULL, "%s -> %s (%s)", x, y, b == CPOL_RLIM_INFINITY ? "removed" :
	    b > a ? "raised" : "lowered");
}

static int limits_diff(const struct cpol *old, const struct cpol *new,
    struct diff_list *out)
{
	for (unsigned int r = 1; r <= CPOL_RLIM_MAX; r++)
		if (num_diff(out, "limit", cpol_rlim_name(r), r,
		    limit_of(old, r), limit_of(new, r)) < 0)
			return -1;
	/* subject = kind: the statement's own name (`timeout 10m;`) */
	if (num_diff(out, "timeout", "timeout", 0, old->timeout_ms,
	    new->timeout_ms) < 0)
		return -1;
	return num_diff(out, "output", "output", 0, old->output_cap,
	    new->output_cap);
}

/* A session's lifetime: without the statement, the timeout's, so adding
 * `session 1h;` to a policy with `timeout 1m;` is a widening. */
static int session_diff(const struct cpol *old, const struct cpol *new,
    struct diff_list *out)
{
	return num_diff(out, "session", "session", 0, cpol_session_ms(old),
	    cpol_session_ms(new));
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


static int has_module(const struct cpol *p, const char *m)
{
	for (uint32_t i = 0; i < p->npreload; i++)
		if (strcmp(p->preload[i], m) == 0)
			return 1;
	return 0;
}

/* A preloaded module is code every warm run of the pool starts with. */
static int preload_diff(const struct cpol *old, const struct cpol *new,
    struct diff_list *out)
{
	for (uint32_t i = 0; i < new->npreload; i++)
		if (!has_module(old, new->preload[i]) && diff_add(out,
		    DIFF_WIDER, "preload", new->preload[i], NULL, "imported "
		    "by a warm pool's template (added)") < 0)
			return -1;
	for (uint32_t i = 0; i < old->npreload; i++)
		if (!has_module(new, old->preload[i]) && diff_add(out,
		    DIFF_NARROWER, "preload", old->preload[i], NULL,
		    "removed") < 0)
			return -1;
	return 0;
}

/*
 * Every layer flag and what NEW having it (OLD not) means; the reverse
 * is the opposite direction.  added 0: the network mode, compared by
 * diffnet.c.  subject NULL: the whole-run limit the flag makes required
 * (cpol_rlim_required_flag).
 */
static const struct diff_flag flag_rules[] = {
	{ CPOL_F_BEST_EFFORT_LANDLOCK, "layers", "best-effort", DIFF_WIDER,
	    "best-effort landlock" },
	{ CPOL_F_NET_OFF, "network", "mode", 0, NULL },
	{ CPOL_F_NET_TCP, "network", "mode", 0, NULL },
	{ CPOL_F_PRIVATE_TMP, "layers", "private", DIFF_CHANGED,
	    "private /tmp" },
	{ CPOL_F_PRIVATE_SHM, "layers", "private", DIFF_CHANGED,
	    "private /dev/shm" },
	{ CPOL_F_BEST_EFFORT_NS, "layers", "best-effort", DIFF_WIDER,
	    "best-effort private namespaces" },
	/* Truncating lets a run go on printing to its timeout: wider. */
	{ CPOL_F_OUTPUT_TRUNCATE, "limits", "output", DIFF_WIDER,
	    "output truncate" },
	{ CPOL_F_REQUIRE_MEMORY, "limit", NULL, DIFF_NARROWER,
	    "bound required" },
	{ CPOL_F_REQUIRE_PIDS, "limit", NULL, DIFF_NARROWER,
	    "bound required" },
	{ CPOL_F_REQUIRE_DISK, "limit", NULL, DIFF_NARROWER,
	    "bound required" },
	{ CPOL_F_REQUIRE_FILES, "limit", NULL, DIFF_NARROWER,
	    "bound required" },
	{ CPOL_F_NET_HOSTS, "network", "mode", 0, NULL },
};

const struct diff_flag *diff_flag(uint32_t bit)
{
	for (size_t i = 0; i < sizeof(flag_rules) / sizeof(flag_rules[0]); i++)
		if (flag_rules[i].bit == bit)
			return &flag_rules[i];
	return NULL;
}

static const char *required_name(uint32_t bit)
{
	for (unsigned int r = 1; r <= CPOL_RLIM_MAX; r++)
		if (cpol_rlim_required_flag(r) == bit)
			return cpol_rlim_name(r);
	return "?";
}

static int flags_diff(const struct cpol *old, const struct cpol *new,
    struct diff_list *out)
{
	static const int flip[4] = { 0, DIFF_NARROWER, DIFF_WIDER,
	    DIFF_CHANGED };
	uint32_t changed = old->flags ^ new->flags;

	for (uint32_t bit = 1; bit; bit <<= 1) {
		const struct diff_flag *f = diff_flag(bit);
		int gained = !!(new->flags & bit);

		if (!(changed & bit))
			continue;
		if (!f)
			return -1;   /* a flag diff does not know: no answer */
		if (f->added && diff_add(out, gained ? f->added :
		    flip[f->added], f->kind, f->subject ? f->subject :
		    required_name(bit), NULL, "%s %s", f->what, gained ?
		    "added" : "removed") < 0)
			return -1;
	}
	return 0;
}

static int layers_diff(const struct cpol *old, const struct cpol *new,
    struct diff_list *out)
{
	if (old->landlock_abi_min != new->landlock_abi_min && diff_add(out,
	    new->landlock_abi_min < old->landlock_abi_min ? DIFF_WIDER :
	    DIFF_NARROWER, "layers", "landlock", NULL, "minimum ABI %u -> %u",
	    (unsigned int)old->landlock_abi_min,
	    (unsigned int)new->landlock_abi_min) < 0)
		return -1;
	if (old->errata_min != new->errata_min && diff_add(out, DIFF_CHANGED,
	    "layers", "errata", NULL, "minimum errata %u -> %u",
	    (unsigned int)old->errata_min, (unsigned int)new->errata_min) < 0)
		return -1;
	return flags_diff(old, new, out);
}

/* Name and description: what the policy says it is.  The compiler
 * version and source digest say where a blob came from, not what it
 * allows: verify shows them. */
static int meta_diff(const struct cpol *old, const struct cpol *new,
    struct diff_list *out)
{
	if (strcmp(old->name, new->name) != 0 && diff_add(out, DIFF_CHANGED,
	    "meta", "name", NULL, "\"%s\" -> \"%s\"", old->name, new->name) < 0)
		return -1;
	if (strcmp(old->description, new->description) != 0 &&
	    diff_add(out, DIFF_CHANGED, "meta", "description", NULL,
	    "\"%s\" -> \"%s\"", old->description, new->description) < 0)
		return -1;
	return 0;
}

/* Every section and its comparer, in the order a reviewer reads them. */
static const struct diff_section diff_sections[] = {
	{ CPOL_S_RULES, "rules", diff_default },
	{ CPOL_S_SECCOMP, "seccomp", diff_syscalls },
	{ CPOL_S_FS, "fs", paths_diff },
	{ CPOL_S_NET, "net", diff_network },
	{ CPOL_S_HOSTS, "hosts", diff_hosts },
	{ CPOL_S_PRIVATE, "private", diff_private },
	{ CPOL_S_HTTP, "http", diff_http },
	{ CPOL_S_LIMITS, "limits", limits_diff },
	{ CPOL_S_SESSION, "session", session_diff },
	{ CPOL_S_ENV, "env", env_diff },
	{ CPOL_S_ARGV, "argv", command_diff },
	{ CPOL_S_PRELOAD, "preload", preload_diff },
	{ CPOL_S_LAYERS, "layers", layers_diff },
	{ CPOL_S_META, "meta", meta_diff },
};
#define DIFF_NSECTIONS (sizeof(diff_sections) / sizeof(diff_sections[0]))

const struct diff_section *diff_section(unsigned int type)
{
	for (size_t i = 0; i < DIFF_NSECTIONS; i++)
		if (diff_sections[i].type == type)
			return &diff_sections[i];
	return NULL;
}

int diff_run(const struct cpol *old, const struct cpol *new,
    struct diff_list *out)
{
	for (unsigned int t = 1; t <= CPOL_S_MAX; t++)
		if (!diff_section(t))
			return -1;   /* a section diff cannot compare */
	for (size_t i = 0; i < DIFF_NSECTIONS; i++)
		if (diff_sections[i].compare(old, new, out) < 0)
			return -1;
	return 0;
}
