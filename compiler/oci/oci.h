/*
 * oci.h - `cordonc export --format oci` and `cordonc import --format
 * oci`: a policy's seccomp part as an OCI runtime-spec seccomp profile,
 * and a readable policy source from an OCI or Docker profile.
 *
 * Export is exact or refuses: the profile it writes makes a runtime's
 * libseccomp (one rule per name and args entry, as runc builds it) give
 * the answer the blob gives for every x86-64 syscall number the
 * compiler's table names and every argument value, except for what the
 * report lists (numbers the table does not know when the policy's
 * default is not ENOSYS; the bad-architecture action).  Everything else
 * the blob carries (Landlock, network ports, limits, timeout, output
 * cap, environment, command) is listed as not carried.
 */
#ifndef CORDON_OCI_H
#define CORDON_OCI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define OCI_USAGE_EXPORT "export --format oci [-o OUT] [--report FILE] " \
	"[--widen-unknown] [-I DIR]... [-D NAME=VALUE]... POLICY"
#define OCI_USAGE_IMPORT "import --format oci [-o OUT] [--name NAME] " \
	"[--cap CAP]... [--kernel X.Y] PROFILE.json"

int oci_export_cmd(int argc, char **argv);
int oci_import_cmd(int argc, char **argv);

/* Things the profile cannot say, collected while exporting. */
struct oci_note {
	char *kind;     /* "unknown-syscalls", "landlock", "limit", ... */
	char *detail;
	int seccomp;    /* 1: about the filter itself; 0: another layer */
};

struct oci_notes {
	struct oci_note *v;
	unsigned int n;
	int oom;
};

void oci_note_add(struct oci_notes *ns, int seccomp, const char *kind,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void oci_notes_free(struct oci_notes *ns);
struct cpol;
/* The layers of p that OCI seccomp does not carry (oci_report.c). */
void oci_report_layers(struct oci_notes *ns, const struct cpol *p);
/* The notes as text lines on f, or as a JSON object. */
void oci_report_text(FILE *f, const char *policy,
    const struct oci_notes *ns);
void oci_report_json(FILE *f, const char *policy, int exact,
    const struct oci_notes *ns);

/* OCI action name for a SECCOMP_RET_* value; *errno_ret gets the errno
 * (-1 if none).  NULL if OCI has no such action. */
const char *oci_action_name(uint32_t action, int *errno_ret);

#endif
