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
#include "cpol.h"
#include "explain.h"
#include "oci.h"
#include "outfile.h"

#define EXIT_POLICY 1
#define EXIT_USAGE 2

struct opts {
	const char *out;
	struct compile_opts c;     /* -I, -D, -Werror */
	int json;
	const char *file;
};

static int cmd_compile(int argc, char **argv);
static int cmd_explain(int argc, char **argv);

static const struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
} commands[] = {
	{ "compile", cmd_compile,
	    "compile [-Werror] [-o OUT] [-I DIR]... [-D NAME=VALUE]... FILE" },
	{ "explain", cmd_explain,
	    "explain [--json] [-I DIR]... [-D NAME=VALUE]... FILE" },
	{ "test", auditcmd_test, AUDITCMD_USAGE_TEST },
	{ "lint", auditcmd_lint, AUDITCMD_USAGE_LINT },
	{ "diff", auditcmd_diff, AUDITCMD_USAGE_DIFF },
	{ "verify", auditcmd_verify, AUDITCMD_USAGE_VERIFY },
	{ "audit", auditcmd_audit, AUDITCMD_USAGE_AUDIT },
	{ "export", oci_export_cmd, OCI_USAGE_EXPORT },
	{ "import", oci_import_cmd, OCI_USAGE_IMPORT },
	{ "learn", learn_cmd, LEARN_USAGE },
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

static int add_define(struct opts *o, char *arg)
{
	char *eq = strchr(arg, '=');
	int ok;

	if (eq)
		*eq = '\0';
	ok = eq && cpol_env_name_ok(arg);   /* a name: [A-Za-z_][A-Za-z0-9_]* */
	if (eq)
		*eq = '=';
	if (!ok) {
		fprintf(stderr, "cordonc: -D wants NAME=VALUE, not \"%s\"\n",
		    arg);
		return -1;
	}
	if (o->c.ndefines == PARSE_MAX_DEFINES) {
		fprintf(stderr, "cordonc: more than %d -D\n",
		    PARSE_MAX_DEFINES);
		return -1;
	}
	*eq = '\0';
	o->c.defines[o->c.ndefines++] = (struct parse_define){ arg, eq + 1 };
	return 0;
}

/* Options shared by the subcommands; -1 on a usage error. */
static int parse_opts(int argc, char **argv, struct opts *o, int compile)
{
	static const struct option lo[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "Werror", no_argument, NULL, 'W' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	memset(o, 0, sizeof(*o));
	o->c.cli = 1;
	o->c.errf = stderr;
	optind = 1;
	while ((ch = getopt_long_only(argc, argv, compile ? "o:I:D:" : "I:D:",
	    lo, NULL)) != -1) {
		if (ch == 'o') {
			o->out = optarg;
		} else if (ch == 'I' && o->c.nincdirs < PARSE_MAX_INCDIRS) {
			o->c.incdirs[o->c.nincdirs++] = optarg;
		} else if (ch == 'D') {
			if (add_define(o, optarg) < 0)
				return -1;
		} else if (ch == 'W' && compile) {
			o->c.werror = 1;
		} else if (ch == 'j' && !compile) {
			o->json = 1;
		} else {
			if (ch == 'I')
				fprintf(stderr, "cordonc: more than %d -I\n",
				    PARSE_MAX_INCDIRS);
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
	char err[256], *out = NULL;
	uint8_t *buf = NULL;
	size_t len;
	int ret = EXIT_POLICY;

	if (parse_opts(argc, argv, &o, 1) < 0) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (compile_source(o.file, &o.c, &pol, NULL) < 0)
		return EXIT_POLICY;
	if (cpol_write(&pol, &buf, &len, err, sizeof(err)) < 0) {
		fprintf(stderr, "cordonc: error: %s: %s\n", o.file, err);
		goto out;
	}
	out = o.out ? strdup(o.out) : default_out(o.file);
	if (out && outfile_write(out, buf, len) == 0)
		ret = 0;
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
		usage(stderr);
		return EXIT_USAGE;
	}
	if (compile_is_blob(o.file)) {
		if (cpol_load(o.file, 0, &pol, err, sizeof(err)) < 0) {
			fprintf(stderr, "cordonc: error: %s: %s\n", o.file, err);
			return EXIT_POLICY;
		}
	} else if (compile_source(o.file, &o.c, &pol, NULL) < 0) {
		return EXIT_POLICY;
	}
	r = o.json ? explain_json(stdout, &pol) : explain_text(stdout, &pol);
	cpol_free(&pol);
	if (r < 0 || fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "cordonc: error: writing the explanation: %s\n",
		    strerror(errno));
		return EXIT_POLICY;
	}
	return 0;
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		printf("%s\n", CHECK_COMPILER_VERSION);
		return 0;
	}
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1],
	    "-h"))) {
		usage(stdout);
		return 0;
	}
	for (i = 0; argc > 1 && i < NCOMMANDS; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	usage(stderr);
	return EXIT_USAGE;
}
