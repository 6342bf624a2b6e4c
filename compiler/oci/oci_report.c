/*
 * oci_report.c - what an exported OCI profile does not carry: notes
 * collected by the exporter, the other layers of the blob, and their
 * text and JSON forms.  (Output files are written by common/outfile.c.)
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpf.h"
#include "cpol.h"
#include "explain_fmt.h"
#include "jsonout.h"
#include "oci.h"

void oci_note_add(struct oci_notes *ns, int seccomp, const char *kind,
    const char *fmt, ...)
{
	struct oci_note *v;
	va_list ap;
	char *d = NULL;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&d, fmt, ap);
	va_end(ap);
	v = realloc(ns->v, (ns->n + 1) * sizeof(*v));
	if (v)
		ns->v = v;  /* realloc freed the old block: keep the new one */
	if (r < 0 || !v) {
		if (r >= 0)
			free(d);
		ns->oom = 1;
		return;
	}
	ns->v = v;
	v[ns->n].kind = strdup(kind);
	v[ns->n].detail = d;
	v[ns->n].seccomp = seccomp;
	if (!v[ns->n].kind) {
		free(d);
		ns->oom = 1;
		return;
	}
	ns->n++;
}

void oci_notes_free(struct oci_notes *ns)
{
	for (unsigned int i = 0; i < ns->n; i++) {
		free(ns->v[i].kind);
		free(ns->v[i].detail);
	}
	free(ns->v);
	memset(ns, 0, sizeof(*ns));
}

static void report_fs(struct oci_notes *ns, const struct cpol *p)
{
	char buf[EXPLAIN_LINE];

	oci_note_add(ns, 0, "landlock", "Landlock ABI %u%s is required",
	    p->landlock_abi_min, p->flags & CPOL_F_BEST_EFFORT_LANDLOCK ?
	    " (best effort)" : "");
	for (uint32_t i = 0; i < p->nfs; i++)
		oci_note_add(ns, 0, "path", "path %s%s %s",
		    p->fs[i].flags & CPOL_FS_OPTIONAL ? "optional " : "",
		    p->fs[i].path, explain_rights(p->fs[i].access, buf,
		    sizeof(buf)));
	if (p->flags & CPOL_F_PRIVATE_TMP)
		oci_note_add(ns, 0, "private", "private /tmp (a fresh tmpfs)");
	if (p->flags & CPOL_F_PRIVATE_SHM)
		oci_note_add(ns, 0, "private", "private /dev/shm");
}

static void report_net(struct oci_notes *ns, const struct cpol *p)
{
	if (p->flags & CPOL_F_NET_OFF)
		oci_note_add(ns, 0, "network", "network off (the filter "
		    "refuses socket(); the pod should have no egress)");
	for (uint32_t i = 0; i < p->nnet; i++)
		oci_note_add(ns, 0, "network", "network %s %u (Landlock TCP "
		    "port rule)", p->net[i].kind == CPOL_NET_BIND ? "bind" :
		    "connect", p->net[i].port);
}

void oci_report_layers(struct oci_notes *ns, const struct cpol *p)
{
	char buf[64];

	report_fs(ns, p);
	report_net(ns, p);
	for (uint32_t i = 0; i < p->nlimits; i++)
		oci_note_add(ns, 0, "limit", "limit %s %s",
		    cpol_rlim_name(p->limits[i].resource),
		    explain_limit(&p->limits[i], buf, sizeof(buf)));
	oci_note_add(ns, 0, "timeout", "timeout %s (whole process tree)",
	    explain_ms(p->timeout_ms, buf, sizeof(buf)));
	oci_note_add(ns, 0, "output", "output %s (stdout+stderr cap)",
	    explain_size(p->output_cap, buf, sizeof(buf)));
	for (uint32_t i = 0; i < p->nenv; i++) {
		if (p->env[i].kind == CPOL_ENV_KEEP)
			oci_note_add(ns, 0, "env", "env keep %s",
			    p->env[i].name);
		else
			oci_note_add(ns, 0, "env", "env set %s=%s",
			    p->env[i].name, p->env[i].value);
	}
	for (uint32_t i = 0; i < p->nargv; i++)
		oci_note_add(ns, 0, "command", "argv[%u] %s", i, p->argv[i]);
}

void oci_report_text(FILE *f, const char *policy, const struct oci_notes *ns)
{
	int any = 0;

	for (int pass = 1; pass >= 0; pass--) {
		for (unsigned int i = 0; i < ns->n; i++) {
			if (ns->v[i].seccomp != pass)
				continue;
			if (!any++)
				fprintf(f, "cordonc: export: %s: what the OCI "
				    "profile does not carry (apply it in the "
				    "pod spec or run cordon in the "
				    "container):\n", policy);
			fprintf(f, "  %s: %s: %s\n", pass ? "seccomp" :
			    "not carried", ns->v[i].kind, ns->v[i].detail);
		}
	}
}

void oci_report_json(FILE *f, const char *policy, int exact,
    const struct oci_notes *ns)
{
	static const char *const keys[] = { "not_carried", "seccomp" };
	int first;

	fputs("{", f);
	json_key(f, "policy");
	json_str(f, policy);
	fprintf(f, ",\"seccomp_exact\":%s", exact ? "true" : "false");
	for (int pass = 1; pass >= 0; pass--) {
		fputc(',', f);
		json_key(f, keys[pass]);
		fputc('[', f);
		first = 1;
		for (unsigned int i = 0; i < ns->n; i++) {
			if (ns->v[i].seccomp != pass)
				continue;
			json_sep(f, &first);
			fputs("\n  {", f);
			json_key(f, "kind");
			json_str(f, ns->v[i].kind);
			fputc(',', f);
			json_key(f, "detail");
			json_str(f, ns->v[i].detail);
			fputc('}', f);
		}
		fputs("]", f);
	}
	fputs("}\n", f);
}

const char *oci_action_name(uint32_t action, int *errno_ret)
{
	uint32_t data = action & BPF_ACT_DATA_MASK;

	*errno_ret = -1;
	switch (action & BPF_ACT_FULL_MASK) {
	case BPF_ACT_ALLOW:
		return data ? NULL : "SCMP_ACT_ALLOW";
	case BPF_ACT_LOG:
		return data ? NULL : "SCMP_ACT_LOG";
	case BPF_ACT_KILL_PROCESS:
		return data ? NULL : "SCMP_ACT_KILL_PROCESS";
	case BPF_ACT_KILL_THREAD:
		return data ? NULL : "SCMP_ACT_KILL_THREAD";
	case BPF_ACT_TRAP:
		/* OCI's trap carries no data: only trap(0) is exact. */
		return data ? NULL : "SCMP_ACT_TRAP";
	case BPF_ACT_ERRNO:
		*errno_ret = (int)data;
		return "SCMP_ACT_ERRNO";
	default:
		return NULL;
	}
}
