/*
 * learn_write.c - write the policy source that would let the samples
 * run (from the traces learn_read.c read): an include of the base, then
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
		fprintf(out, "# INCOMPLETE: %llu observations were dropped "
		    "(cordon's or its proxy's tables full):\n# they are not "
		    "learned, and cordonc learn failed.\n",
		    (unsigned long long)l->dropped);
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
