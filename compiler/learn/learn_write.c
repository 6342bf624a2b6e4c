/*
 * learn_write.c - read `cordon --observe` traces and write the policy
 * source that would let the samples run: an include of the base, then
 * only what the base lacks, each line with a comment saying what used it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf.h"
#include "explain_fmt.h"
#include "landlock_compat.h"
#include "learn.h"
#include "llrights.h"
#include "tables.h"

/* Arguments that decide a call, as the base conditions them. */
static const struct { const char *name; unsigned int arg; } decides[] = {
	{ "ioctl", 1 }, { "fcntl", 1 }, { "prctl", 0 }, { "clone", 0 },
	{ "mmap", 2 }, { "mprotect", 2 }, { "pkey_mprotect", 2 },
	{ "personality", 0 }, { "arch_prctl", 0 }, { "madvise", 2 },
};

/* The calls the network statement owns (cordon.policy(5)): connect
 * with a learned `network connect`, bind, listen and accept with a
 * learned `network bind`. */
static int network_owned(const struct learn *l, const char *name)
{
	enum tables_net_owner o = tables_net_owner(name);
	unsigned int i;
	int k = o == TABLES_NET_CONNECT ? 0 : o == TABLES_NET_BIND ? 1 : -1;

	if (o == TABLES_NET_ALWAYS || o == TABLES_NET_TCP)
		return 1;
	for (i = 0; k >= 0 && i < l->nport; i++)
		if (l->port[i].bind == k)
			return 1;
	return k == 0 && l->nhost > 0;
}

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

static int add_path(struct learn *l, const char *path, uint64_t access,
    uint64_t count, const char *sample)
{
	unsigned int i;

	for (i = 0; i < l->npath; i++)
		if (strcmp(l->path[i].path, path) == 0) {
			l->path[i].access |= access;
			l->path[i].count += count;
			return 0;
		}
	if (l->npath == LEARN_MAX_PATHS) {
		l->dropped++;
		return 0;
	}
	l->path[l->npath] = (struct learn_path){ strdup(path), access, count,
	    sample };
	return l->path[l->npath++].path ? 0 : -1;
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
	if (l->ncall == LEARN_MAX_CALLS) {
		l->dropped++;
		return 0;
	}
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
	if (l->nport < LEARN_MAX_PORTS)
		l->port[l->nport++] = (struct learn_port){ bind,
		    (unsigned int)port, count, sample };
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
		if (rc < 0) {
			snprintf(err, errlen, "trace of %s: line %u is not "
			    "cordon's", sample, n);
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
	l->npath = l->ncall = l->nhost = l->nleft = 0;
}

static void uses(FILE *out, uint64_t n, const char *sample)
{
	fprintf(out, "%llu use%s, ", (unsigned long long)n, n == 1 ? "" : "s");
	learn_first(out, NULL, sample, "\n");
}

/* A folder or tree rule: what it holds, said in its comment. */
static void write_rule(FILE *out, const struct learn_rule *r)
{
	char rs[256], fr[256];

	explain_rights(r->shown, rs, sizeof(rs));
	explain_rights(r->folded, fr, sizeof(fr));
	fprintf(out, "path ");
	polq_path(r->path, polq_put_file, out);
	fprintf(out, " %s;  # ", rs);
	if (r->tree)
		fprintf(out, "%s, a system tree: one rule for %u path%s "
		    "used %s beneath it", r->tree, r->held, r->held == 1 ?
		    "" : "s", fr);
	else
		fprintf(out, "folded: %u entries used %s in it (%d or more "
		    "fold)", r->held, fr, LEARN_FOLD_MIN);
	fputs(", e.g. ", out);
	polq_note(r->example ? r->example : "-", polq_put_file, out);
	fputs("; ", out);
	uses(out, r->uses, r->sample);
}

static int write_paths(FILE *out, const struct learn *l,
    const struct cpol *b)
{
	struct learn_fold f;
	char r[256];
	const char *why;
	unsigned int i, k;

	if (learn_fold(l, b, &f) < 0)
		return -1;
	fprintf(out, "\n# Paths: the rights each was used with, beyond the "
	    "base's.\n");
	if (l->failed || l->unsure)
		fprintf(out, "# Not learned: %llu path calls that failed, %llu "
		    "whose result cordon could not see.\n",
		    (unsigned long long)l->failed,
		    (unsigned long long)l->unsure);
	for (i = 0; i < l->npath; i++) {
		const struct learn_path *p = &l->path[i];

		for (k = 0; k < f.nrule; k++)
			if (f.rule[k].anchor == i && f.rule[k].shown)
				write_rule(out, &f.rule[k]);
		why = f.need[i] ? learn_path_problem(p->path) : NULL;
		if (why) {
			explain_rights(f.need[i], r, sizeof(r));
			fprintf(out, "# not learned: %s on ", r);
			polq_note(p->path, polq_put_file, out);
			fprintf(out, " (%s); ", why);
			uses(out, p->count, p->sample);
			continue;
		}
		if (!f.own[i])
			continue;
		explain_rights(f.own[i], r, sizeof(r));
		fprintf(out, "path ");
		polq_path(p->path, polq_put_file, out);
		fprintf(out, " %s;  # ", r);
		uses(out, p->count, p->sample);
	}
	learn_fold_free(&f);
	return 0;
}

static int decided_arg(const char *name, unsigned int *arg)
{
	size_t i;

	for (i = 0; i < sizeof(decides) / sizeof(decides[0]); i++)
		if (!strcmp(decides[i].name, name)) {
			*arg = decides[i].arg;
			return 1;
		}
	return 0;
}

/* The base's own conditional rules on one syscall, repeated (a later
 * file's rules on a syscall replace the base's), but for conditions the
 * samples need allowed. */
static void write_base_rules(FILE *out, const struct cpol *b, uint32_t nr,
    const struct learn *l, unsigned int arg)
{
	char act[64], c[EXPLAIN_LINE];
	uint32_t i;
	unsigned int j, k;

	for (i = 0; i < b->nrules; i++) {
		const struct cpol_rule *r = &b->rules[i];
		int learned = 0;

		if (r->nr != nr || r->ncond == 0)
			continue;
		for (j = 0; j < l->ncall && r->ncond == 1; j++)
			learned |= l->call[j].nr == nr &&
			    r->cond[0].arg == arg &&
			    r->cond[0].op == CPOL_OP_EQ &&
			    (l->call[j].args[arg] & 0xffffffffu) ==
			    (r->cond[0].value & 0xffffffffu);
		if (learned)
			continue;
		fprintf(out, "%s %s(", cpol_action_name(r->action, act,
		    sizeof(act)), r->name);
		for (k = 0; k < r->ncond; k++)
			fprintf(out, "%s%s", k ? ", " : "",
			    explain_cond(r->name, &r->cond[k], c, sizeof(c)));
		fprintf(out, ");  # the base's, ");
		polq_note(r->origin ? r->origin : "-", polq_put_file, out);
		fputc('\n', out);
	}
}

static void write_calls(FILE *out, const struct learn *l,
    const struct cpol *b)
{
	char v[256], a[32];
	unsigned int i, j, arg, width;
	int done;

	fprintf(out, "\n# System calls the base refused.\n");
	for (i = 0; i < l->ncall; i++) {
		const struct learn_call *c = &l->call[i];
		const char *name = tables_syscall_name((int)c->nr);

		for (done = 0, j = 0; j < i; j++)
			done |= l->call[j].nr == c->nr;
		if (done || !name)
			continue;
		if (network_owned(l, name)) {
			fprintf(out, "# %s: the network statement decides it "
			    "(%llu calls, ", name, (unsigned long long)c->count);
			learn_first(out, c->call, c->sample, ")\n");
			continue;
		}
		if (!strcmp(name, "clone3")) {
			fprintf(out, "# not learned: clone3 (seccomp cannot see "
			    "its flags; on the base's ENOSYS glibc falls back to "
			    "clone); %llu calls, ",
			    (unsigned long long)c->count);
			learn_first(out, NULL, c->sample, "\n");
			continue;
		}
		if (!decided_arg(name, &arg)) {
			fprintf(out, "allow %s;  # %llu calls, ", name,
			    (unsigned long long)c->count);
			learn_first(out, c->call, c->sample, "\n");
			continue;
		}
		write_base_rules(out, b, c->nr, l, arg);
		width = tables_arg_width(name, arg);
		for (j = i; j < l->ncall; j++) {
			if (l->call[j].nr != c->nr)
				continue;
			explain_value(name, arg, width ? width : 64,
			    l->call[j].args[arg], v, sizeof(v));
			fprintf(out, "allow %s(%s == %s);  # %llu calls, ",
			    name, explain_arg(name, arg, a, sizeof(a)), v,
			    (unsigned long long)l->call[j].count);
			learn_first(out, l->call[j].call, l->call[j].sample, "\n");
		}
	}
}

static uint64_t base_limit(const struct cpol *b, unsigned int r)
{
	uint32_t i;

	for (i = 0; i < b->nlimits; i++)
		if (b->limits[i].resource == r)
			return b->limits[i].value;
	return 0;
}

/* Margins: 4x the time seen (at least 10 s), 2x memory (at least
 * 256M), 2x processes and files (at least 64).  Bounds the base does not
 * set stay unset (a comment says what was seen). */
static void write_limits(FILE *out, const struct learn *l,
    const struct cpol *b)
{
	uint64_t t = l->wall_ms * 4 / 1000 + 1, cpu = l->cpu_ms * 4 / 1000 + 1;
	uint64_t mem = l->memory != UINT64_MAX ? l->memory :
	    l->rss_kb * 1024;
	uint64_t m = (mem * 2 >> 20) + 1, p = l->procs * 2 + 1;

	fprintf(out, "\n# Limits: what the samples used, with a margin "
	    "(time 4x, at least 10 s;\n# memory 2x, at least 256M; processes "
	    "and files 2x, at least 64).\n");
	fprintf(out, "timeout %llus;  # wall time seen: %llu ms\n",
	    (unsigned long long)(t < 10 ? 10 : t),
	    (unsigned long long)l->wall_ms);
	fprintf(out, "limit cpu %llus;  # CPU time seen: %llu ms\n",
	    (unsigned long long)(cpu < 10 ? 10 : cpu),
	    (unsigned long long)l->cpu_ms);
	fprintf(out, "%slimit memory %lluM;  # peak memory seen: %llu KiB\n",
	    base_limit(b, CPOL_RLIM_MEMORY) ? "" : "# ",
	    (unsigned long long)(m < 256 ? 256 : m),
	    (unsigned long long)(mem >> 10));
	fprintf(out, "%slimit pids %llu;  # processes started: %llu\n",
	    base_limit(b, CPOL_RLIM_PIDS) ? "" : "# ",
	    (unsigned long long)(p < 64 ? 64 : p),
	    (unsigned long long)l->procs);
	fprintf(out, "%slimit files %llu;  # files in the writable space: "
	    "%llu\n", base_limit(b, CPOL_RLIM_FILES) ? "" : "# ",
	    (unsigned long long)(l->files * 2 < 64 || l->files == UINT64_MAX ?
	    64 : l->files * 2), (unsigned long long)l->files);
}

int learn_write(FILE *out, const struct learn *l, const struct cpol *base,
    const char *include, const char *name, char **samples, int nsamples)
{
	int i;

	if (polq_string_problem(include) || polq_string_problem(name)) {
		errno = EINVAL;
		return -1;
	}
	fprintf(out, "# Learned by cordonc learn from trusted samples:");
	for (i = 0; i < nsamples; i++) {
		fputc(' ', out);
		polq_note(samples[i], polq_put_file, out);
	}
	fprintf(out, "\n# They ran with enforcement relaxed (cordon "
	    "--observe); review every line.\n# Each comment says what used "
	    "it: how many times, first example, sample.\n");
	if (l->dropped)
		fprintf(out, "# %llu observations past cordonc's tables were "
		    "not learned.\n", (unsigned long long)l->dropped);
	fputs("include ", out);
	polq_string(include, polq_put_file, out);
	fputs(";\npolicy ", out);
	polq_string(name, polq_put_file, out);
	fputs(";\n", out);
	write_calls(out, l, base);
	learn_write_net(out, l);
	if (write_paths(out, l, base) < 0)
		return -1;
	write_limits(out, l, base);
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
