/*
 * ociload.c - test helper: build a seccomp filter from an OCI profile
 * the way runc does (libseccomp: defaultAction as the filter default,
 * each name of each entry one rule with the entry's args, the entry
 * skipped when its action is the default, names libseccomp does not
 * know skipped, an entry whose args repeat an index split into one rule
 * per arg), then run it and a cordon blob through cordon's BPF
 * interpreter for every syscall number 0..1023, the x32 range and a
 * foreign architecture, at the boundary values of every condition of
 * the blob (sysq_space_init).  The first point of each distinct
 * disagreement (arch, nr, blob's answer, the filter's) is one line:
 *
 *     DIFF arch nr args0..5 blob-return oci-return
 *
 * then "POINTS n DIFFS m".  Exit 0 when it ran, 2 on an error.
 *
 * With --profiles, two profiles are compared the same way (the second
 * in the blob's column): an original and the one exported from the
 * policy imported from it; the points are the blob's (that policy's)
 * plus the boundary values of the original's conditions.
 *
 * usage: ociload PROFILE.json BLOB.cpol
 *        ociload --profiles ORIGINAL.json EXPORTED.json BLOB.cpol
 */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bpf.h"
#include "cpol.h"
#include "json_read.h"
#include "sysq.h"

/* Distinct disagreements remembered per syscall number. */
#define MAX_KINDS 16

static uint32_t action(const struct json_val *ent, const char *akey,
    const char *ekey)
{
	const struct json_val *a = json_get(ent, akey), *e = json_get(ent, ekey);
	uint32_t er = e ? (uint32_t)e->num : EPERM;

	if (!a || a->type != JSON_STR)
		return UINT32_MAX;
	if (!strcmp(a->str, "SCMP_ACT_ALLOW"))
		return SCMP_ACT_ALLOW;
	if (!strcmp(a->str, "SCMP_ACT_LOG"))
		return SCMP_ACT_LOG;
	if (!strcmp(a->str, "SCMP_ACT_KILL_PROCESS"))
		return SCMP_ACT_KILL_PROCESS;
	if (!strcmp(a->str, "SCMP_ACT_KILL") ||
	    !strcmp(a->str, "SCMP_ACT_KILL_THREAD"))
		return SCMP_ACT_KILL_THREAD;
	if (!strcmp(a->str, "SCMP_ACT_TRAP"))
		return SCMP_ACT_TRAP;
	if (!strcmp(a->str, "SCMP_ACT_ERRNO"))
		return SCMP_ACT_ERRNO(er);
	return UINT32_MAX;
}

static int cond(const struct json_val *a, struct scmp_arg_cmp *c)
{
	static const struct { const char *n; enum scmp_compare op; } ops[] = {
		{ "SCMP_CMP_EQ", SCMP_CMP_EQ }, { "SCMP_CMP_NE", SCMP_CMP_NE },
		{ "SCMP_CMP_LT", SCMP_CMP_LT }, { "SCMP_CMP_LE", SCMP_CMP_LE },
		{ "SCMP_CMP_GT", SCMP_CMP_GT }, { "SCMP_CMP_GE", SCMP_CMP_GE },
		{ "SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ },
	};
	const struct json_val *op = json_get(a, "op"), *v = json_get(a, "value"),
	    *v2 = json_get(a, "valueTwo"), *i = json_get(a, "index");

	memset(c, 0, sizeof(*c));
	if (!op || !i)
		return -1;
	c->arg = (unsigned int)i->num;
	c->datum_a = v ? v->num : 0;
	c->datum_b = v2 ? v2->num : 0;
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		if (!strcmp(op->str, ops[k].n)) {
			c->op = ops[k].op;
			return 0;
		}
	return -1;
}

static int add_entry(scmp_filter_ctx ctx, uint32_t def,
    const struct json_val *ent)
{
	const struct json_val *names = json_get(ent, "names"),
	    *args = json_get(ent, "args");
	struct scmp_arg_cmp c[6];
	unsigned int n = args ? args->n : 0, split = 0;
	uint32_t act = action(ent, "action", "errnoRet");

	if (act == UINT32_MAX || !names || n > 6)
		return -1;
	if (act == def)
		return 0;
	for (unsigned int i = 0; i < n; i++)
		if (cond(&args->items[i], &c[i]) < 0)
			return -1;
	for (unsigned int i = 0; i < n; i++)
		for (unsigned int k = i + 1; k < n; k++)
			if (c[i].arg == c[k].arg)
				split = 1;
	for (unsigned int i = 0; i < names->n; i++) {
		int nr = seccomp_syscall_resolve_name(names->items[i].str);
		int rc = 0;

		if (nr == __NR_SCMP_ERROR) {
			fprintf(stderr, "ociload: skipping unknown %s\n",
			    names->items[i].str);
			continue;
		}
		if (split)
			for (unsigned int k = 0; k < n && rc == 0; k++)
				rc = seccomp_rule_add_array(ctx, act, nr, 1, &c[k]);
		else
			rc = seccomp_rule_add_array(ctx, act, nr, n, c);
		if (rc < 0) {
			fprintf(stderr, "ociload: %s: %s\n",
			    names->items[i].str, strerror(-rc));
			return -1;
		}
	}
	return 0;
}

static struct cpol_insn *build(const struct json_val *top, uint32_t *n)
{
	const struct json_val *sc = json_get(top, "syscalls");
	uint32_t def = action(top, "defaultAction", "defaultErrnoRet");
	struct cpol_insn *prog = NULL;
	scmp_filter_ctx ctx;
	uint8_t raw[8 * CPOL_MAX_INSNS];
	ssize_t got;
	int fd;

	if (def == UINT32_MAX || !(ctx = seccomp_init(def)))
		return NULL;
	for (unsigned int i = 0; sc && i < sc->n; i++)
		if (add_entry(ctx, def, &sc->items[i]) < 0)
			goto release;
	fd = memfd_create("ociload", MFD_CLOEXEC);
	if (fd < 0 || seccomp_export_bpf(ctx, fd) < 0)
		goto release;
	got = pread(fd, raw, sizeof(raw), 0);
	close(fd);
	if (got <= 0 || got % 8 || !(prog = calloc((size_t)got / 8,
	    sizeof(*prog))))
		goto release;
	*n = (uint32_t)(got / 8);
	for (uint32_t i = 0; i < *n; i++) {
		const uint8_t *b = raw + 8 * i;

		prog[i].code = (uint16_t)(b[0] | b[1] << 8);
		prog[i].jt = b[2];
		prog[i].jf = b[3];
		prog[i].k = (uint32_t)b[4] | (uint32_t)b[5] << 8 |
		    (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24;
	}
release:
	seccomp_release(ctx);
	return prog;
}

struct cmp_ctx {
	const struct cpol_insn *left, *oci;
	uint32_t nleft, noci, arch, nr;
	unsigned long points, diffs;
	uint32_t seen[MAX_KINDS][2];
	unsigned int nseen;
};

/* First time this (blob, oci) pair shows for the current number? */
static int first_seen(struct cmp_ctx *c, uint32_t a, uint32_t b)
{
	for (unsigned int i = 0; i < c->nseen; i++)
		if (c->seen[i][0] == a && c->seen[i][1] == b)
			return 0;
	if (c->nseen < MAX_KINDS) {
		c->seen[c->nseen][0] = a;
		c->seen[c->nseen++][1] = b;
	}
	return 1;
}

static int point(const uint64_t args[6], void *vctx)
{
	struct cmp_ctx *c = vctx;
	struct bpf_input in;
	uint32_t a, b;

	memset(&in, 0, sizeof(in));
	in.nr = c->nr;
	in.arch = c->arch;
	memcpy(in.args, args, sizeof(in.args));
	a = bpf_run(c->left, c->nleft, &in);
	b = bpf_run(c->oci, c->noci, &in);
	c->points++;
	if (a != b && ++c->diffs && first_seen(c, a, b))
		printf("DIFF 0x%08x %u 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx "
		    "0x%llx 0x%08x 0x%08x\n", c->arch, c->nr,
		    (unsigned long long)args[0], (unsigned long long)args[1],
		    (unsigned long long)args[2], (unsigned long long)args[3],
		    (unsigned long long)args[4], (unsigned long long)args[5],
		    a, b);
	return 0;
}

static void add_value(struct sysq_space *s, unsigned int arg, uint64_t v)
{
	for (unsigned int i = 0; i < s->n[arg]; i++)
		if (s->v[arg][i] == v)
			return;
	if (s->n[arg] < SYSQ_MAX_VALUES)
		s->v[arg][s->n[arg]++] = v;
}

/* The boundary values of prof's conditions on nr into s. */
static void profile_values(struct sysq_space *s, const struct json_val *prof,
    uint32_t nr)
{
	const struct json_val *sc = json_get(prof, "syscalls");

	for (unsigned int e = 0; sc && e < sc->n; e++) {
		const struct json_val *names = json_get(&sc->items[e], "names"),
		    *args = json_get(&sc->items[e], "args");
		struct scmp_arg_cmp c;
		int hit = 0;

		for (unsigned int i = 0; names && i < names->n; i++)
			hit |= names->items[i].type == JSON_STR &&
			    seccomp_syscall_resolve_name(names->items[i].str) ==
			    (int)nr;
		for (unsigned int i = 0; hit && args && i < args->n; i++) {
			if (cond(&args->items[i], &c) < 0 || c.arg > 5)
				continue;
			add_value(s, c.arg, c.datum_a);
			add_value(s, c.arg, c.datum_a + 1);
			add_value(s, c.arg, c.datum_a - 1);
			add_value(s, c.arg, c.datum_b);
			add_value(s, c.arg, c.datum_b | ~c.datum_a);
			add_value(s, c.arg, c.datum_a | 0xffffffff00000000ull);
		}
	}
}

int main(int argc, char **argv)
{
	static const uint32_t extra[] = { 0x3fffffff, 0x40000000, 0x40000001,
		0x40000200, 0x7fffffff, 0xffffffff };
	struct json_val top, exp;
	struct cpol blob;
	int two = argc == 5 && !strcmp(argv[1], "--profiles");
	struct sysq_space s;
	struct cmp_ctx c;
	char err[256];

	if (argc != 3 && !two) {
		fprintf(stderr, "usage: ociload PROFILE.json BLOB.cpol\n"
		    "       ociload --profiles ORIGINAL.json EXPORTED.json "
		    "BLOB.cpol\n");
		return 2;
	}
	if (json_load(argv[1 + two], &top, err, sizeof(err)) < 0 ||
	    (two && json_load(argv[3], &exp, err, sizeof(err)) < 0) ||
	    cpol_load(argv[2 + 2 * two], 0, &blob, err, sizeof(err)) < 0) {
		fprintf(stderr, "ociload: %s\n", err);
		return 2;
	}
	memset(&c, 0, sizeof(c));
	c.left = blob.insns;
	c.nleft = blob.ninsns;
	if (two)
		c.left = build(&exp, &c.nleft);
	c.oci = build(&top, &c.noci);
	if (!c.oci || !c.left || bpf_check(c.oci, c.noci, err,
	    sizeof(err)) < 0 || bpf_check(c.left, c.nleft, err,
	    sizeof(err)) < 0) {
		/* main returns: the filters need not be freed. */
		/* NOLINTBEGIN(clang-analyzer-unix.Malloc) */
		fprintf(stderr, "ociload: cannot build the filter %s\n",
		    c.oci ? err : "");
		return 2;
		/* NOLINTEND(clang-analyzer-unix.Malloc) */
	}
	for (uint32_t i = 0; i < 1024 + 6 + 8; i++) {
		c.arch = i < 1030 ? blob.arch : 0x40000003u; /* i386 */
		c.nr = i < 1024 ? i : i < 1030 ? extra[i - 1024] : i - 1030;
		c.nseen = 0;
		sysq_space_init(&s, &blob, NULL, c.nr);
		if (two)
			profile_values(&s, &top, c.nr);
		sysq_walk(&s, point, &c);
	}
	printf("POINTS %lu DIFFS %lu\n", c.points, c.diffs);
	free((void *)c.oci);
	if (two) {
		free((void *)c.left);
		json_free(&exp);
	}
	cpol_free(&blob);
	json_free(&top);
	return 0;
}
