/*
 * oci_export.c - `cordonc export --format oci POLICY`: the blob's
 * seccomp rules as an OCI runtime-spec seccomp profile (see oci.h).
 *
 * The mapping, rule by rule, mirrors emit.c's lowering to libseccomp:
 *   - defaultAction is the policy's default; a rule repeating it is
 *     left out (libseccomp and runc both skip it);
 *   - unconditional rules with one action form one entry (names in
 *     number order); each conditional rule is an entry of its own;
 *   - a 32-bit condition is SCMP_CMP_MASKED_EQ with value = mask (low
 *     32 bits, 0xffffffff for ==) and valueTwo = value, exactly as
 *     emit.c gives it to libseccomp; 64-bit ones keep their operator;
 *   - runc turns several conditions on one argument into separate rules
 *     (OR), so they are merged here into one masked equality (AND), and
 *     the export refuses when they cannot be (two ranges on one
 *     argument);
 *   - clone3 and io_uring_* get explicit ERRNO(ENOSYS) entries unless
 *     named (cordon's fixed lowering);
 *   - numbers the compiler's table does not know answer ENOSYS in the
 *     blob whatever the default; a runtime gives them defaultAction.
 *     Exact when the default is ENOSYS; otherwise reported, and refused
 *     when the default lets calls run (that would widen).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf.h"
#include "cliopt.h"
#include "input.h"
#include "oci.h"
#include "outfile.h"
#include "sysq.h"
#include "tables.h"

struct exp {
	const struct cpol *p;
	FILE *f;
	struct oci_notes notes;
	int first_entry;
	int refused;
	int exact;
	int widen_unknown;  /* --widen-unknown: the user accepts it */
};

static void entry_head(struct exp *e)
{
	fputs(e->first_entry ? "\n" : ",\n", e->f);
	e->first_entry = 0;
	fputs("    {\n      \"names\": [", e->f);
}

static void entry_tail(struct exp *e, uint32_t action)
{
	int eret;
	const char *name = oci_action_name(action, &eret);

	fprintf(e->f, "],\n      \"action\": \"%s\"", name);
	if (eret >= 0)
		fprintf(e->f, ",\n      \"errnoRet\": %d", eret);
}

/* One entry with every unconditional rule (or fixed ENOSYS) whose action
 * is action. */
static void entry_unconditional(struct exp *e, uint32_t action)
{
	const struct cpol *p = e->p;
	uint32_t nr, a, r;
	int any = 0;

	for (nr = 0; nr <= (uint32_t)tables_syscall_max(); nr++) {
		const char *name = tables_syscall_name((int)nr);
		int hit = 0;

		for (r = 0; r < p->nrules; r++)
			if (p->rules[r].nr == nr && p->rules[r].ncond == 0 &&
			    p->rules[r].action == action)
				hit = 1;
		if (!hit && tables_fixed_action(p, nr, &a) && a == action)
			hit = 1;
		if (!hit)
			continue;
		if (!any)
			entry_head(e);
		fprintf(e->f, "%s\n        \"%s\"", any ? "," : "", name);
		any = 1;
	}
	if (!any)
		return;
	fputs("\n      ", e->f);
	entry_tail(e, action);
	fputs("\n    }", e->f);
}

/* Merge conditions on the same argument (runc would OR them).  out gets
 * at most one condition per argument, as 64-bit comparisons the way
 * emit.c hands them to libseccomp.  Returns the count, 0 when the rule
 * can never match, -1 when the conditions cannot be merged. */
static int merge_conds(const struct cpol_rule *r, struct cpol_cond *out)
{
	int n = 0;

	for (unsigned int i = 0; i < r->ncond; i++) {
		struct cpol_cond c = r->cond[i];
		int k;

		if (c.width == 32) {
			c.mask = c.op == CPOL_OP_EQ ? 0xffffffffu :
			    c.mask & 0xffffffffu;
			c.value &= 0xffffffffu;
			c.op = CPOL_OP_MASKED_EQ;
		}
		for (k = 0; k < n && out[k].arg != c.arg; k++)
			;
		if (k == n) {
			out[n++] = c;
			continue;
		}
		if (out[k].op == CPOL_OP_EQ && out[k].width == 64) {
			out[k].op = CPOL_OP_MASKED_EQ;
			out[k].mask = UINT64_MAX;
		}
		if (c.op == CPOL_OP_EQ && c.width == 64) {
			c.op = CPOL_OP_MASKED_EQ;
			c.mask = UINT64_MAX;
		}
		if (out[k].op != CPOL_OP_MASKED_EQ || c.op != CPOL_OP_MASKED_EQ)
			return -1;
		if ((out[k].value & c.mask) != (c.value & out[k].mask))
			return 0;
		out[k].mask |= c.mask;
		out[k].value |= c.value;
	}
	return n;
}

static const char *cmp_name(unsigned int op)
{
	static const char *const names[] = {
		[CPOL_OP_EQ] = "SCMP_CMP_EQ", [CPOL_OP_NE] = "SCMP_CMP_NE",
		[CPOL_OP_LT] = "SCMP_CMP_LT", [CPOL_OP_LE] = "SCMP_CMP_LE",
		[CPOL_OP_GT] = "SCMP_CMP_GT", [CPOL_OP_GE] = "SCMP_CMP_GE",
		[CPOL_OP_MASKED_EQ] = "SCMP_CMP_MASKED_EQ",
	};

	return op >= CPOL_OP_EQ && op <= CPOL_OP_MAX ? names[op] : NULL;
}

static void entry_conditional(struct exp *e, const struct cpol_rule *r)
{
	struct cpol_cond c[CPOL_MAX_CONDS];
	int n = merge_conds(r, c);

	if (n < 0) {
		oci_note_add(&e->notes, 1, "refused", "%s (%s): two range "
		    "conditions on one argument; runc would OR them",
		    r->name, r->origin);
		e->refused = 1;
		return;
	}
	if (n == 0) {
		oci_note_add(&e->notes, 1, "dropped", "%s (%s): its "
		    "conditions contradict each other; the rule never matches",
		    r->name, r->origin);
		return;
	}
	entry_head(e);
	fprintf(e->f, "\n        \"%s\"\n      ", r->name);
	entry_tail(e, r->action);
	fputs(",\n      \"args\": [", e->f);
	for (int i = 0; i < n; i++) {
		int masked = c[i].op == CPOL_OP_MASKED_EQ;

		fprintf(e->f, "%s\n        {\"index\": %u, \"value\": %llu, "
		    "\"valueTwo\": %llu, \"op\": \"%s\"}", i ? "," : "",
		    c[i].arg, (unsigned long long)(masked ? c[i].mask :
		    c[i].value), (unsigned long long)(masked ? c[i].value : 0),
		    cmp_name(c[i].op));
	}
	fputs("\n      ]\n    }", e->f);
}

/* The distinct actions of unconditional rules (and the fixed ENOSYS)
 * other than the default, sorted: one entry each. */
static int collect_actions(const struct cpol *p, uint32_t *acts)
{
	uint32_t a;
	int n = 0;

	for (uint32_t r = 0; r <= p->nrules; r++) {
		int k;

		if (r < p->nrules) {
			if (p->rules[r].ncond)
				continue;
			a = p->rules[r].action;
		} else {
			a = BPF_ACT_ERRNO | ENOSYS;
		}
		for (k = 0; k < n && acts[k] != a; k++)
			;
		if (k == n && a != p->default_action && n < 64)
			acts[n++] = a;
	}
	/* Insertion sort: deterministic entry order. */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && acts[j - 1] > acts[j]; j--) {
			a = acts[j];
			acts[j] = acts[j - 1];
			acts[j - 1] = a;
		}
	return n;
}

/* Numbers below the table's maximum with no name, as "a-b, c" text. */
static void note_unknown(struct exp *e)
{
	char buf[512], act[64];
	size_t o = 0;
	int max = tables_syscall_max(), lo = -1;

	buf[0] = '\0';
	for (int nr = 0; nr <= max + 1; nr++) {
		int hole = nr <= max && !tables_syscall_name(nr);

		if (hole && lo < 0)
			lo = nr;
		if (!hole && lo >= 0 && o < sizeof(buf) - 32) {
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%d%s",
			    o ? ", " : "", lo, "");
			if (nr - 1 > lo)
				o += (size_t)snprintf(buf + o, sizeof(buf) - o,
				    "-%d", nr - 1);
			lo = -1;
		}
	}
	bpf_action_str(e->p->default_action, act, sizeof(act));
	oci_note_add(&e->notes, 1, "unknown-syscalls", "numbers %s and %d "
	    "and above (not in cordonc's table): the blob answers ENOSYS, a "
	    "runtime answers defaultAction (%s)%s", buf, max + 1, act,
	    !sysq_allows(e->p->default_action) ? "; both refuse the call" :
	    e->widen_unknown ? "; accepted by --widen-unknown: identical "
	    "while the kernel assigns none of them (true up to Linux 6.18), "
	    "wider on a kernel with syscalls newer than cordonc's table" :
	    "; that would let them run: refused (--widen-unknown accepts "
	    "it)");
	e->exact = 0;
	if (sysq_allows(e->p->default_action) && !e->widen_unknown)
		e->refused = 1;
}

static void notes_seccomp(struct exp *e)
{
	const struct cpol *p = e->p;

	if (p->default_action != (BPF_ACT_ERRNO | ENOSYS))
		note_unknown(e);
	oci_note_add(&e->notes, 1, "architecture", "ia32, x32 and every "
	    "other architecture: the blob kills the process; OCI lists only "
	    "SCMP_ARCH_X86_64 and the runtime's libseccomp answers its "
	    "bad-architecture action (kill)");
	for (uint32_t r = 0; r < p->nrules; r++) {
		if (r > 0 && p->rules[r - 1].nr == p->rules[r].nr)
			continue;
		if (tables_libseccomp_knows(p->rules[r].name))
			continue;
		e->exact = 0;
		oci_note_add(&e->notes, 1, "name", "%s (number %u) is "
		    "unknown to this libseccomp; a runtime with an older "
		    "libseccomp skips its entries (it then gets "
		    "defaultAction)", p->rules[r].name, p->rules[r].nr);
	}
}

static int check_actions(struct exp *e)
{
	int er;

	if (!oci_action_name(e->p->default_action, &er)) {
		oci_note_add(&e->notes, 1, "refused", "the default action "
		    "0x%08x has no OCI name", e->p->default_action);
		e->refused = 1;
	}
	for (uint32_t r = 0; r < e->p->nrules; r++)
		if (!oci_action_name(e->p->rules[r].action, &er)) {
			oci_note_add(&e->notes, 1, "refused", "%s (%s): action "
			    "0x%08x has no OCI name", e->p->rules[r].name,
			    e->p->rules[r].origin, e->p->rules[r].action);
			e->refused = 1;
		}
	return e->refused ? -1 : 0;
}

static void profile(struct exp *e)
{
	const struct cpol *p = e->p;
	uint32_t acts[64];
	int n, er;

	fprintf(e->f, "{\n  \"defaultAction\": \"%s\",\n",
	    oci_action_name(p->default_action, &er));
	if (er >= 0)
		fprintf(e->f, "  \"defaultErrnoRet\": %d,\n", er);
	fputs("  \"architectures\": [\n    \"SCMP_ARCH_X86_64\"\n  ],\n"
	    "  \"syscalls\": [", e->f);
	e->first_entry = 1;
	n = collect_actions(p, acts);
	for (int i = 0; i < n; i++)
		entry_unconditional(e, acts[i]);
	for (uint32_t r = 0; r < p->nrules; r++)
		if (p->rules[r].ncond && p->rules[r].action != p->default_action)
			entry_conditional(e, &p->rules[r]);
	fputs(e->first_entry ? "]\n}\n" : "\n  ]\n}\n", e->f);
}

struct eopts {
	const char *out, *report;
	int widen_unknown;
	struct compile_opts in;
};

static int parse_args(int argc, char **argv, struct eopts *o)
{
	static const struct option lo[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "report", required_argument, NULL, 'r' },
		{ "widen-unknown", no_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	int ch, r;

	memset(o, 0, sizeof(*o));
	o->out = "-";
	o->in.errf = stderr;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "o:" CLIOPT_SOURCE, lo, NULL)) !=
	    -1) {
		if (ch == 'f' && strcmp(optarg, "oci") != 0) {
			fprintf(stderr, "cordonc: export: unknown format "
			    "\"%s\" (oci is the one format)\n", optarg);
			return -1;
		} else if (ch == 'o') {
			o->out = optarg;
		} else if (ch == 'r') {
			o->report = optarg;
		} else if (ch == 'w') {
			o->widen_unknown = 1;
		} else if ((r = cliopt_source(&o->in, ch, optarg)) <= 0) {
			if (r < 0)
				return -1;
		} else if (ch != 'f') {
			return -1;
		}
	}
	return optind == argc - 1 ? optind : -1;
}

static int emit_report(const struct eopts *o, struct exp *e)
{
	char *buf = NULL, werr[OUTFILE_ERRLEN];
	size_t len = 0;
	FILE *f;
	int r;

	if (!o->report) {
		oci_report_text(stderr, e->p->name, &e->notes);
		return 0;
	}
	f = open_memstream(&buf, &len);
	if (!f)
		return -1;
	oci_report_json(f, e->p->name, e->exact, &e->notes);
	if (fclose(f) != 0) {
		free(buf);
		return -1;
	}
	r = outfile_write(o->report, buf, len, OUTFILE_CORDONC, werr,
	    sizeof(werr));
	if (r < 0)
		fprintf(stderr, "cordonc: error: %s\n", werr);
	free(buf);
	return r;
}

int oci_export_cmd(int argc, char **argv)
{
	struct eopts o;
	struct input in;
	struct exp e;
	char *buf = NULL, werr[OUTFILE_ERRLEN];
	size_t len = 0;
	int i, ret = CORDONC_EXIT_POLICY;

	if ((i = parse_args(argc, argv, &o)) < 0) {
		fprintf(stderr, "usage: cordonc %s\ncordonc export --help "
		    "describes every option\n", OCI_USAGE_EXPORT);
		return CORDONC_EXIT_USAGE;
	}
	if (input_load(argv[i], &o.in, &in) < 0)
		return CORDONC_EXIT_POLICY;
	memset(&e, 0, sizeof(e));
	e.p = &in.pol;
	e.exact = 1;
	e.widen_unknown = o.widen_unknown;
	if (check_actions(&e) == 0) {
		e.f = open_memstream(&buf, &len);
		if (!e.f)
			goto out;
		notes_seccomp(&e);
		profile(&e);
		if (fclose(e.f) != 0 || e.notes.oom)
			goto out;
	}
	oci_report_layers(&e.notes, e.p);
	if (e.refused) {
		oci_report_text(stderr, in.pol.name, &e.notes);
		fprintf(stderr, "cordonc: export: %s: the OCI profile cannot "
		    "mean what the blob means; nothing written\n", argv[i]);
		goto out;
	}
	if (outfile_write(o.out, buf, len, OUTFILE_CORDONC, werr,
	    sizeof(werr)) < 0)
		fprintf(stderr, "cordonc: error: %s\n", werr);
	else if (emit_report(&o, &e) == 0)
		ret = 0;
out:
	free(buf);
	oci_notes_free(&e.notes);
	input_free(&in);
	return ret;
}
