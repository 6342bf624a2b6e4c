/*
 * explain.c - what a policy allows, for people (explain_json.c: the same
 * for machines).  Reads only the struct cpol, so a source and its blob
 * explain alike; the output depends on nothing else.
 */
#include <stdio.h>

#include "bpf.h"
#include "explain.h"
#include "explain_fmt.h"
#include "tables.h"

static void meta(FILE *f, const struct cpol *p)
{
	char d[65];

	fprintf(f, "policy %s\n", p->name ? p->name : "(unnamed)");
	if (p->description && *p->description)
		fprintf(f, "  %s\n", p->description);
	if (p->compiler_version)
		fprintf(f, "  compiler: %s\n", p->compiler_version);
	if (explain_digest(p->source_digest, d, sizeof(d)))
		fprintf(f, "  source sha256: %s\n", d);
	if (explain_digest(p->blob_digest, d, sizeof(d)))
		fprintf(f, "  blob sha256: %s\n", d);
}

/* The hosts the proxy speaks HTTP to: rules, credentials by name. */
static void http(FILE *f, const struct cpol *p)
{
	uint32_t i, j;

	if (p->nhttp)
		fprintf(f, "  http (the proxy reads each request; refused ones "
		    "get 403):\n");
	for (i = 0; i < p->nhttp; i++) {
		const struct cpol_http *h = &p->http[i];

		fprintf(f, "    \"%s\":%u %s: ", h->host, h->port,
		    h->flags & CPOL_HTTP_PLAIN ? "plain http" :
		    "https, ended by the proxy");
		if (!h->nrules)
			fprintf(f, "any method and path");
		for (j = 0; j < h->nrules; j++)
			fprintf(f, "%s%s \"%s\"", j ? ", " : "",
			    h->rules[j].method, h->rules[j].prefix);
		if (*h->credential)
			fprintf(f, "; credential %s as \"%s\"",
			    h->credential, h->header);
		fputc('\n', f);
	}
}

static void layers(FILE *f, const struct cpol *p)
{
	uint32_t i;

	fprintf(f, "\nlayers\n  landlock: ABI %u or newer%s\n",
	    p->landlock_abi_min, (p->flags & CPOL_F_BEST_EFFORT_LANDLOCK) ?
	    " (best effort: runs on older kernels with less)" :
	    " (required)");
	if (p->flags & CPOL_F_NET_TCP) {
		fprintf(f, "  network: %s", p->flags & CPOL_F_NET_HOSTS ?
		    "named hosts, TCP to cordon's proxy alone" : "tcp");
		for (i = 0; i < p->nnet; i++)
			fprintf(f, "%s %s %u", i ? "," : ";",
			    p->net[i].kind == CPOL_NET_BIND ? "bind" :
			    "connect", p->net[i].port);
		fputc('\n', f);
		for (i = 0; i < p->nhosts; i++)
			fprintf(f, "%s\"%s\":%u%s", i ? ", " : "  named hosts "
			    "(by cordon's proxy, in a network namespace): ",
			    p->hosts[i].host, p->hosts[i].port,
			    p->hosts[i].flags & CPOL_HOST_PRIVATE ?
			    " private" : "");
		if (p->nhosts)
			fputc('\n', f);
		http(f, p);
	} else {
		fprintf(f, "  network: off\n");
	}
	if (p->flags & (CPOL_F_PRIVATE_TMP | CPOL_F_PRIVATE_SHM))
		fprintf(f, "  private:%s%s (%s)\n",
		    (p->flags & CPOL_F_PRIVATE_TMP) ? " /tmp" : "",
		    (p->flags & CPOL_F_PRIVATE_SHM) ? " /dev/shm" : "",
		    (p->flags & CPOL_F_BEST_EFFORT_NS) ? "best effort" :
		    "required");
	else
		fprintf(f, "  private: none (no access to /tmp, /dev/shm "
		    "unless a path rule grants it)\n");
}

/* Fixed lowering that applies to this policy (see emit.c, tables.h). */
static void fixed(FILE *f, const struct cpol *p)
{
	const char *const *names = tables_fixed_enosys;
	char a[64];
	size_t i;
	uint32_t act;

	fprintf(f, "  other architectures, ia32, x32: kill\n");
	fprintf(f, "  syscall numbers above %d or unknown: errno(ENOSYS)\n",
	    tables_syscall_max());
	for (i = 0; names[i]; i++) {
		int nr = tables_syscall_nr(names[i]);

		if (nr >= 0 && tables_fixed_action(p, (uint32_t)nr, &act))
			fprintf(f, "  %s: %s (not named by the policy)\n",
			    names[i], cpol_action_name(act, a, sizeof(a)));
	}
}

static void syscalls(FILE *f, const struct cpol *p)
{
	char a[64], line[EXPLAIN_LINE];
	uint32_t i;

	fprintf(f, "\nsyscalls (%u BPF instructions)\n", p->ninsns);
	fprintf(f, "  default: %s\n", cpol_action_name(p->default_action, a,
	    sizeof(a)));
	fixed(f, p);
	for (i = 0; i < p->nrules; i++) {
		const struct cpol_rule *r = &p->rules[i];

		cpol_action_name(r->action, a, sizeof(a));
		explain_rule(r, line, sizeof(line));
		fprintf(f, "  %-13s %-40s  # %s\n", a, line,
		    r->origin ? r->origin : "?");
	}
}

static void paths(FILE *f, const struct cpol *p)
{
	char r[512];
	uint32_t i;

	fprintf(f, "\npaths\n");
	if (!p->nfs)
		fprintf(f, "  (none)\n");
	for (i = 0; i < p->nfs; i++)
		fprintf(f, "  %s%s %s\n", p->fs[i].path,
		    (p->fs[i].flags & CPOL_FS_OPTIONAL) ? " (optional)" : "",
		    explain_rights(p->fs[i].access, r, sizeof(r)));
}

static void limits(FILE *f, const struct cpol *p)
{
	char v[64];
	uint32_t i;

	fprintf(f, "\nlimits\n");
	for (i = 0; i < p->nlimits; i++) {
		const char *n = cpol_rlim_name(p->limits[i].resource);

		fprintf(f, "  %s %s%s\n", n ? n : "?",
		    explain_limit(&p->limits[i], v, sizeof(v)),
		    p->flags & cpol_rlim_required_flag(p->limits[i].resource)
		    ? " (required: no fallback)" : "");
	}
	fprintf(f, "  timeout %s\n", explain_ms(p->timeout_ms, v, sizeof(v)));
	fprintf(f, "  session %s%s\n", explain_ms(cpol_session_ms(p), v,
	    sizeof(v)), p->session_ms ? " (each cell: the timeout)" :
	    " (no session statement: the timeout)");
	fprintf(f, "  output %s (%s)\n", explain_size(p->output_cap, v,
	    sizeof(v)), p->flags & CPOL_F_OUTPUT_TRUNCATE ? "past it: "
	    "truncated, the run goes on" : "past it: the run ends");
}

/* A string the way the policy language writes it: quoted, with \" and
 * \\ escaped, control bytes as \xNN. */
static void quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void environment(FILE *f, const struct cpol *p)
{
	uint32_t i;

	fprintf(f, "\nenvironment\n");
	if (!p->nenv)
		fprintf(f, "  (empty)\n");
	for (i = 0; i < p->nenv; i++) {
		if (p->env[i].kind == CPOL_ENV_KEEP)
			fprintf(f, "  keep %s\n", p->env[i].name);
		else {
			fprintf(f, "  set %s = ", p->env[i].name);
			quoted(f, p->env[i].value);
			fputc('\n', f);
		}
	}
}

static void command(FILE *f, const struct cpol *p)
{
	uint32_t i;

	fprintf(f, "\ncommand\n ");
	for (i = 0; i < p->nargv; i++) {
		fputc(' ', f);
		quoted(f, p->argv[i]);
	}
	fprintf(f, " [snippet arguments...]\n");
	if (!p->npreload)
		return;
	fprintf(f, "\npreload (a warm pool's template, cordon --serve)\n ");
	for (i = 0; i < p->npreload; i++)
		fprintf(f, " %s", p->preload[i]);
	fputc('\n', f);
}

int explain_text(FILE *f, const struct cpol *p)
{
	/* what a reviewer reads first, then the syscalls */
	meta(f, p);
	command(f, p);
	paths(f, p);
	layers(f, p);
	limits(f, p);
	environment(f, p);
	syscalls(f, p);
	fflush(f);
	return ferror(f) ? -1 : 0;
}
