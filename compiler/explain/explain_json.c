/*
 * explain_json.c - explain for machines: one JSON object, keys in a fixed
 * order, every string escaped (jsonout.c).  64-bit condition values are
 * written as "0x..." strings: JSON numbers lose precision above 2^53.
 */
#include <inttypes.h>
#include <stdio.h>

#include "bpf.h"
#include "explain.h"
#include "explain_fmt.h"
#include "jsonout.h"
#include "tables.h"

static void kv_str(FILE *f, int *first, const char *k, const char *v)
{
	json_sep(f, first);
	json_key(f, k);
	json_str(f, v);
}

static void kv_u64(FILE *f, int *first, const char *k, uint64_t v)
{
	json_sep(f, first);
	json_key(f, k);
	fprintf(f, "%" PRIu64, v);
}

static void kv_bool(FILE *f, int *first, const char *k, int v)
{
	json_sep(f, first);
	json_key(f, k);
	fputs(v ? "true" : "false", f);
}

static void kv_hex(FILE *f, int *first, const char *k, uint64_t v)
{
	char b[24];

	snprintf(b, sizeof(b), "0x%" PRIx64, v);
	kv_str(f, first, k, b);
}

static void meta(FILE *f, const struct cpol *p, int *top)
{
	char d[65];
	int first = 1;

	json_sep(f, top);
	json_key(f, "policy");
	fputc('{', f);
	kv_str(f, &first, "name", p->name);
	kv_str(f, &first, "description", p->description);
	kv_str(f, &first, "compiler", p->compiler_version);
	kv_str(f, &first, "source_sha256",
	    explain_digest(p->source_digest, d, sizeof(d)));
	kv_str(f, &first, "blob_sha256",
	    explain_digest(p->blob_digest, d, sizeof(d)));
	fputc('}', f);
}

static void ports(FILE *f, int *first, const struct cpol *p,
    const char *key, uint8_t kind)
{
	uint32_t i;
	int one = 1;

	json_sep(f, first);
	json_key(f, key);
	fputc('[', f);
	for (i = 0; i < p->nnet; i++)
		if (p->net[i].kind == kind) {
			json_sep(f, &one);
			fprintf(f, "%u", p->net[i].port);
		}
	fputc(']', f);
}

static void hosts(FILE *f, int *first, const struct cpol *p)
{
	uint32_t i;
	int one = 1;

	if (!p->nhosts)
		return;
	json_sep(f, first);
	json_key(f, "hosts");
	fputc('[', f);
	for (i = 0; i < p->nhosts; i++) {
		int k = 1;

		json_sep(f, &one);
		fputc('{', f);
		kv_str(f, &k, "host", p->hosts[i].host);
		kv_u64(f, &k, "port", p->hosts[i].port);
		kv_bool(f, &k, "private",
		    p->hosts[i].flags & CPOL_HOST_PRIVATE);
		fputc('}', f);
	}
	fputc(']', f);
}

static void http_rules(FILE *f, const struct cpol_http *h)
{
	uint32_t j;
	int one = 1;

	json_key(f, "rules");
	fputc('[', f);
	for (j = 0; j < h->nrules; j++) {
		int k = 1;

		json_sep(f, &one);
		fputc('{', f);
		kv_str(f, &k, "method", h->rules[j].method);
		kv_str(f, &k, "prefix", h->rules[j].prefix);
		fputc('}', f);
	}
	fputc(']', f);
}

/* "http": [{"host","port","plain","credential","header","rules"}];
 * credential and header null when none, rules [] for any request. */
static void http(FILE *f, int *first, const struct cpol *p)
{
	uint32_t i;
	int one = 1;

	if (!p->nhttp)
		return;
	json_sep(f, first);
	json_key(f, "http");
	fputc('[', f);
	for (i = 0; i < p->nhttp; i++) {
		const struct cpol_http *h = &p->http[i];
		int k = 1;

		json_sep(f, &one);
		fputc('{', f);
		kv_str(f, &k, "host", h->host);
		kv_u64(f, &k, "port", h->port);
		kv_bool(f, &k, "plain", h->flags & CPOL_HTTP_PLAIN);
		kv_str(f, &k, "credential", *h->credential ? h->credential :
		    NULL);
		kv_str(f, &k, "header", *h->header ? h->header : NULL);
		json_sep(f, &k);
		http_rules(f, h);
		fputc('}', f);
	}
	fputc(']', f);
}

static void layers(FILE *f, const struct cpol *p, int *top)
{
	int first = 1;

	json_sep(f, top);
	json_key(f, "layers");
	fputc('{', f);
	kv_u64(f, &first, "landlock_abi_min", p->landlock_abi_min);
	kv_bool(f, &first, "best_effort_landlock",
	    p->flags & CPOL_F_BEST_EFFORT_LANDLOCK);
	kv_str(f, &first, "network", (p->flags & CPOL_F_NET_TCP) ? "tcp" :
	    "off");
	ports(f, &first, p, "connect", CPOL_NET_CONNECT);
	ports(f, &first, p, "bind", CPOL_NET_BIND);
	hosts(f, &first, p);
	http(f, &first, p);
	kv_bool(f, &first, "private_tmp", p->flags & CPOL_F_PRIVATE_TMP);
	kv_bool(f, &first, "private_shm", p->flags & CPOL_F_PRIVATE_SHM);
	kv_bool(f, &first, "best_effort_private",
	    p->flags & CPOL_F_BEST_EFFORT_NS);
	fputc('}', f);
}

static void cond(FILE *f, const struct cpol_rule *r,
    const struct cpol_cond *c, int *outer)
{
	char b[EXPLAIN_LINE];
	int first = 1;

	json_sep(f, outer);
	fputc('{', f);
	kv_u64(f, &first, "arg", c->arg);
	kv_str(f, &first, "name", explain_arg(r->name, c->arg, b, sizeof(b)));
	kv_u64(f, &first, "width", c->width);
	kv_str(f, &first, "op", cpol_op_name(c->op));
	if (c->op == CPOL_OP_MASKED_EQ)
		kv_hex(f, &first, "mask", c->mask);
	kv_hex(f, &first, "value", c->value);
	kv_str(f, &first, "symbol", explain_symbol(r->name, c->arg, c->width,
	    c->value, b, sizeof(b)));
	kv_str(f, &first, "text", explain_cond(r->name, c, b, sizeof(b)));
	fputc('}', f);
}

static void rule(FILE *f, const struct cpol_rule *r, int *outer)
{
	char b[EXPLAIN_LINE];
	unsigned int i;
	int first = 1, cfirst = 1;

	json_sep(f, outer);
	fputc('{', f);
	kv_str(f, &first, "syscall", r->name);
	kv_u64(f, &first, "nr", r->nr);
	kv_str(f, &first, "action", cpol_action_name(r->action, b, sizeof(b)));
	kv_u64(f, &first, "action_value", r->action);
	json_sep(f, &first);
	json_key(f, "conditions");
	fputc('[', f);
	for (i = 0; i < r->ncond && i < CPOL_MAX_CONDS; i++)
		cond(f, r, &r->cond[i], &cfirst);
	fputc(']', f);
	kv_str(f, &first, "text", explain_rule(r, b, sizeof(b)));
	kv_str(f, &first, "origin", r->origin);
	fputc('}', f);
}

static void fixed(FILE *f, const struct cpol *p, int *outer)
{
	const char *const *names = tables_fixed_enosys;
	char a[64];
	uint32_t act;
	size_t i;
	int first = 1;

	json_sep(f, outer);
	json_key(f, "fixed");
	fputc('{', f);
	kv_str(f, &first, "other_arch", "kill");
	kv_str(f, &first, "x32", "kill");
	kv_u64(f, &first, "syscall_max", (uint64_t)tables_syscall_max());
	kv_str(f, &first, "unknown", "errno(ENOSYS)");
	for (i = 0; names[i]; i++) {
		int nr = tables_syscall_nr(names[i]);

		if (nr >= 0 && tables_fixed_action(p, (uint32_t)nr, &act))
			kv_str(f, &first, names[i],
			    cpol_action_name(act, a, sizeof(a)));
	}
	fputc('}', f);
}

static void syscalls(FILE *f, const struct cpol *p, int *top)
{
	char a[64];
	uint32_t i;
	int first = 1, rfirst = 1;

	json_sep(f, top);
	json_key(f, "seccomp");
	fputc('{', f);
	kv_u64(f, &first, "instructions", p->ninsns);
	kv_str(f, &first, "default", cpol_action_name(p->default_action, a,
	    sizeof(a)));
	kv_u64(f, &first, "default_value", p->default_action);
	fixed(f, p, &first);
	json_sep(f, &first);
	json_key(f, "rules");
	fputc('[', f);
	for (i = 0; i < p->nrules; i++)
		rule(f, &p->rules[i], &rfirst);
	fputs("]}", f);
}

static void paths(FILE *f, const struct cpol *p, int *top)
{
	char b[512];
	uint32_t i;
	unsigned int bit;
	int outer = 1;

	json_sep(f, top);
	json_key(f, "paths");
	fputc('[', f);
	for (i = 0; i < p->nfs; i++) {
		int first = 1, rfirst = 1;

		json_sep(f, &outer);
		fputc('{', f);
		kv_str(f, &first, "path", p->fs[i].path);
		kv_bool(f, &first, "optional",
		    p->fs[i].flags & CPOL_FS_OPTIONAL);
		json_sep(f, &first);
		json_key(f, "rights");
		fputc('[', f);
		for (bit = 0; bit < 64; bit++) {
			const char *n = tables_right_name(bit);

			if (!(p->fs[i].access >> bit & 1))
				continue;
			json_sep(f, &rfirst);
			if (n) {
				json_str(f, n);
			} else {
				snprintf(b, sizeof(b), "bit%u", bit);
				json_str(f, b);
			}
		}
		fputc(']', f);
		kv_str(f, &first, "shorthand",
		    tables_rights_shorthand(p->fs[i].access));
		kv_str(f, &first, "text",
		    explain_rights(p->fs[i].access, b, sizeof(b)));
		fputc('}', f);
	}
	fputc(']', f);
}

static void limits(FILE *f, const struct cpol *p, int *top)
{
	char b[64];
	uint32_t i;
	int outer = 1;

	json_sep(f, top);
	json_key(f, "limits");
	fputc('[', f);
	for (i = 0; i < p->nlimits; i++) {
		const struct cpol_limit *l = &p->limits[i];
		int first = 1;

		json_sep(f, &outer);
		fputc('{', f);
		kv_str(f, &first, "resource", cpol_rlim_name(l->resource));
		json_sep(f, &first);
		json_key(f, "value");
		if (l->value == CPOL_RLIM_INFINITY)
			fputs("null", f);
		else
			fprintf(f, "%" PRIu64, l->value);
		kv_bool(f, &first, "unlimited", l->value == CPOL_RLIM_INFINITY);
		kv_bool(f, &first, "required",
		    p->flags & cpol_rlim_required_flag(l->resource));
		kv_str(f, &first, "text", explain_limit(l, b, sizeof(b)));
		fputc('}', f);
	}
	fputc(']', f);
	kv_u64(f, top, "timeout_ms", p->timeout_ms);
	kv_u64(f, top, "session_ms", cpol_session_ms(p));
	kv_u64(f, top, "output_cap", p->output_cap);
	kv_bool(f, top, "output_truncate", p->flags & CPOL_F_OUTPUT_TRUNCATE);
}

/* The environment, the command line and, when there is one, the list a
 * warm template preloads. */
static void env_argv(FILE *f, const struct cpol *p, int *top)
{
	uint32_t i;
	int outer = 1;

	json_sep(f, top);
	json_key(f, "env");
	fputc('[', f);
	for (i = 0; i < p->nenv; i++) {
		int first = 1;

		json_sep(f, &outer);
		fputc('{', f);
		kv_str(f, &first, "kind", p->env[i].kind == CPOL_ENV_KEEP ?
		    "keep" : "set");
		kv_str(f, &first, "name", p->env[i].name);
		if (p->env[i].kind != CPOL_ENV_KEEP)
			kv_str(f, &first, "value", p->env[i].value);
		fputc('}', f);
	}
	fputc(']', f);
	json_sep(f, top);
	json_key(f, "argv");
	fputc('[', f);
	outer = 1;
	for (i = 0; i < p->nargv; i++) {
		json_sep(f, &outer);
		json_str(f, p->argv[i]);
	}
	fputc(']', f);
	if (!p->npreload)
		return;
	json_sep(f, top);
	json_key(f, "preload");
	fputc('[', f);
	outer = 1;
	for (i = 0; i < p->npreload; i++) {
		json_sep(f, &outer);
		json_str(f, p->preload[i]);
	}
	fputc(']', f);
}

int explain_json(FILE *f, const struct cpol *p)
{
	int top = 1;

	fputc('{', f);
	meta(f, p, &top);
	layers(f, p, &top);
	syscalls(f, p, &top);
	paths(f, p, &top);
	limits(f, p, &top);
	env_argv(f, p, &top);
	fputs("}\n", f);
	fflush(f);
	return ferror(f) ? -1 : 0;
}
