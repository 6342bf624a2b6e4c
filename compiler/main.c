/*
 * main.c - cordonc: subcommands from a table; compile and explain
 * (through the compile driver, compile.c).
 *
 * Exit status: 0 success, 1 policy errors (nothing written), 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "learn.h"
#include "auditcmd.h"
#include "compile.h"
#include "cliopt.h"
#include "cpol.h"
#include "explain.h"
#include "oci.h"
#include "outfile.h"
#include "parse.h"
#include "tables.h"

struct opts {
	const char *out;
	struct compile_opts c;     /* -I, -D, -Werror */
	int json;
	const char *file;
};

static int cmd_compile(int argc, char **argv);
static int cmd_explain(int argc, char **argv);

/* Option lines shared by several subcommands' help. */
#define HELP_I "  -I DIR            search DIR for includes (up to 32, in order)\n"
#define HELP_D "  -D NAME=VALUE     define NAME, overriding its define statement\n"
#define HELP_JSON "  --json            print one JSON object\n"
#define HELP_SUPPRESSED "  -v, --verbose     show suppressed findings too (a clean policy\n" \
    "                    prints nothing without it; JSON and SARIF\n" \
    "                    always carry them, marked)\n"

/* One text per subcommand: the usage line (also printed, alone, on bad
 * usage), what it does, and every option (`cordonc SUB --help`). */
static const struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
	const char *summary;
	const char *options;
} commands[] = {
	{ "compile", cmd_compile,
	    "compile [-Werror] [-o OUT] [-I DIR]... [-D NAME=VALUE]... FILE",
	    "compile a policy source into a blob",
	    "  -o OUT            write the blob to OUT (default: FILE with\n"
	    "                    .policy replaced by .cpol)\n"
	    "  -Werror           treat warnings as errors\n" HELP_I HELP_D },
	{ "explain", cmd_explain,
	    "explain [--json] [-I DIR]... [-D NAME=VALUE]... FILE",
	    "print everything a policy (source or blob) allows",
	    HELP_JSON HELP_I HELP_D },
	{ "test", auditcmd_test, AUDITCMD_USAGE_TEST,
	    "check each policy's expect statements",
	    "  -v, --verbose     print every passing expectation too\n"
	    HELP_JSON HELP_I HELP_D },
	{ "lint", auditcmd_lint, AUDITCMD_USAGE_LINT,
	    "report risky things a policy allows (rule ids CL000...)",
	    "  --strict          fail on warnings and notes too\n"
	    "  --list            print the lint rules\n"
	    HELP_SUPPRESSED HELP_JSON HELP_I HELP_D },
	{ "diff", auditcmd_diff, AUDITCMD_USAGE_DIFF,
	    "show what NEW allows that OLD did not, and the reverse",
	    HELP_JSON
	    "  --format FORMAT   text (the default), json or markdown\n"
	    HELP_I HELP_D },
	{ "verify", auditcmd_verify, AUDITCMD_USAGE_VERIFY,
	    "check that BLOB is what POLICY compiles to",
	    HELP_JSON HELP_I HELP_D },
	{ "audit", auditcmd_audit, AUDITCMD_USAGE_AUDIT,
	    "exposure scores, capability matrix and lint findings",
	    "  --format FORMAT   text (the default), json, markdown or sarif\n"
	    HELP_SUPPRESSED HELP_I HELP_D },
	{ "export", oci_export_cmd, OCI_USAGE_EXPORT,
	    "write a policy's seccomp part as an OCI seccomp profile",
	    "  --format oci      the one format\n"
	    "  -o OUT            write the profile to OUT (default: stdout)\n"
	    "  --report FILE     write what the profile cannot carry to FILE\n"
	    "                    as JSON (default: text on stderr)\n"
	    "  --widen-unknown   accept a default that lets unknown calls run\n"
	    HELP_I HELP_D },
	{ "import", oci_import_cmd, OCI_USAGE_IMPORT,
	    "write a policy source from an OCI or Docker seccomp profile",
	    "  --format oci      the one format\n"
	    "  -o OUT            write the policy to OUT (default: stdout)\n"
	    "  --name NAME       the imported policy's name (default: from\n"
	    "                    the file name)\n"
	    "  --cap CAP         resolve for a container holding CAP\n"
	    "                    (SYS_ADMIN or CAP_SYS_ADMIN; repeatable)\n"
	    "  --kernel X.Y      resolve minKernel for this kernel (default:\n"
	    "                    the running one)\n" },
	{ "learn", learn_cmd, LEARN_USAGE,
	    "write a first policy from trusted samples, then prove it",
	    "  -o OUT.policy     write the learned policy there (default:\n"
	    "                    learned.policy; its blob beside it)\n"
	    "  --cordon PATH     the cordon to run (default: $CORDON, else the\n"
	    "                    cordon next to cordonc)\n"
	    "  --hosts           learn the hosts reached through cordon's\n"
	    "                    egress proxy (the samples' only network)\n"
	    "  --resolve NAME:ADDR  cordon --resolve, for every run (tests,\n"
	    "                    local services; up to 16)\n" HELP_I },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: cordonc --version\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "       cordonc %s\n", commands[i].usage);
	fprintf(f, "includes: beside the including file, then each -I DIR, "
	    "then %s\n", parse_default_incdir);
}

/* cordonc --help: the usage, then a line per subcommand. */
static void help(void)
{
	size_t i;

	usage(stdout);
	printf("\ncommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		printf("  %-9s %s\n", commands[i].name, commands[i].summary);
	printf("\nRun cordonc COMMAND --help for the options of one.\n"
	    "Exit status: 0 success, 1 policy errors (nothing written), "
	    "2 usage.\n");
}

/* cordonc SUB --help. */
static void sub_help(const struct subcommand *c)
{
	printf("usage: cordonc %s\n%s.\n\noptions:\n%s", c->usage,
	    c->summary, c->options);
	printf("  -h, --help        print this help\n");
}

/* The short form after a usage error (the subcommand printed its line). */
static void sub_usage(const struct subcommand *c)
{
	fprintf(stderr, "usage: cordonc %s\n"
	    "cordonc %s --help describes every option\n", c->usage, c->name);
}

/* Options shared by the subcommands; -1 on a usage error. */
static int parse_opts(int argc, char **argv, struct opts *o, int compile)
{
	static const struct option lo[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "Werror", no_argument, NULL, 'W' },
		{ NULL, 0, NULL, 0 },
	};
	int ch, r;

	memset(o, 0, sizeof(*o));
	o->c.cli = 1;
	o->c.errf = stderr;
	optind = 1;
	while ((ch = getopt_long_only(argc, argv, compile ? "o:" CLIOPT_SOURCE :
	    CLIOPT_SOURCE, lo, NULL)) != -1) {
		if (ch == 'o') {
			o->out = optarg;
		} else if ((r = cliopt_source(&o->c, ch, optarg)) <= 0) {
			if (r < 0)
				return -1;
		} else if (ch == 'W' && compile) {
			o->c.werror = 1;
		} else if (ch == 'j' && !compile) {
			o->json = 1;
		} else {
			return -1;
		}
	}
	if (optind != argc - 1)
		return -1;
	o->file = argv[optind];
	return 0;
}

static char *default_out(const char *file)
{
	size_t n = strlen(file);
	char *out;

	if (n > 7 && strcmp(file + n - 7, ".policy") == 0)
		n -= 7;
	if (asprintf(&out, "%.*s.cpol", (int)n, file) < 0)
		return NULL;
	return out;
}

static int cmd_compile(int argc, char **argv)
{
	struct opts o;
	struct cpol pol;
	char err[256], werr[OUTFILE_ERRLEN], *out = NULL;
	uint8_t *buf = NULL;
	size_t len;
	int ret = CORDONC_EXIT_POLICY;

	if (parse_opts(argc, argv, &o, 1) < 0) {
		sub_usage(&commands[0]);
		return CORDONC_EXIT_USAGE;
	}
	if (compile_source(o.file, &o.c, &pol, NULL) < 0)
		return CORDONC_EXIT_POLICY;
	if (cpol_write(&pol, &buf, &len, err, sizeof(err)) < 0) {
		fprintf(stderr, "cordonc: error: %s: %s\n", o.file, err);
		goto out;
	}
	out = o.out ? strdup(o.out) : default_out(o.file);
	if (out && outfile_write(out, buf, len, OUTFILE_CORDONC, werr,
	    sizeof(werr)) == 0)
		ret = 0;
	else if (out)
		fprintf(stderr, "cordonc: error: %s\n", werr);
out:
	free(out);
	free(buf);
	cpol_free(&pol);
	return ret;
}

static int cmd_explain(int argc, char **argv)
{
	struct opts o;
	struct cpol pol;
	char err[256];
	int r;

	if (parse_opts(argc, argv, &o, 0) < 0) {
		sub_usage(&commands[1]);
		return CORDONC_EXIT_USAGE;
	}
	if (compile_is_blob(o.file)) {
		if (cpol_load(o.file, 0, &pol, err, sizeof(err)) < 0) {
			fprintf(stderr, "cordonc: error: %s: %s\n", o.file, err);
			return CORDONC_EXIT_POLICY;
		}
	} else if (compile_source(o.file, &o.c, &pol, NULL) < 0) {
		return CORDONC_EXIT_POLICY;
	}
	r = o.json ? explain_json(stdout, &pol) : explain_text(stdout, &pol);
	cpol_free(&pol);
	if (r < 0 || fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "cordonc: error: writing the explanation: %s\n",
		    strerror(errno));
		return CORDONC_EXIT_POLICY;
	}
	return 0;
}

/* --help or -h among a subcommand's arguments (before any "--"). */
static int wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return 1;
	return 0;
}

static int unknown_command(const char *word)
{
	const char *names[NCOMMANDS + 1], *near;
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		names[i] = commands[i].name;
	names[NCOMMANDS] = NULL;
	near = tables_suggest_among(word, names);
	if (near)
		fprintf(stderr, "cordonc: unknown command %s; did you mean "
		    "%s?\n", word, near);
	else
		fprintf(stderr, "cordonc: unknown command %s\n", word);
	usage(stderr);
	return CORDONC_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		printf("cordonc %s\n", CORDON_VERSION);   /* VERSION */
		return 0;
	}
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1],
	    "-h"))) {
		help();
		return 0;
	}
	if (argc < 2) {
		usage(stderr);
		return CORDONC_EXIT_USAGE;
	}
	for (i = 0; i < NCOMMANDS; i++) {
		if (strcmp(argv[1], commands[i].name) != 0)
			continue;
		if (wants_help(argc - 1, argv + 1)) {
			sub_help(&commands[i]);
			return 0;
		}
		return commands[i].run(argc - 1, argv + 1);
	}
	return unknown_command(argv[1]);
}
