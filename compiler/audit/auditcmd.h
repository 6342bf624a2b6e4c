/*
 * auditcmd.h - the command lines of `cordonc test`, `lint`, `diff`,
 * `verify` and `audit`.  Each takes the subcommand's own argv (argv[0] is
 * the subcommand name) and returns the exit status: 0 clean, 1 the check
 * failed (expectation false, lint error, NEW wider, blob mismatch),
 * 2 usage or an input that could not be loaded.
 */
#ifndef CORDON_AUDITCMD_H
#define CORDON_AUDITCMD_H

#define AUDITCMD_USAGE_TEST \
	"test [-v] [--json] [-I DIR]... [-D NAME=VALUE]... FILE..."
#define AUDITCMD_USAGE_LINT \
	"lint [-v] [--json] [--strict] [--list] [-I DIR]... " \
	"[-D NAME=VALUE]... FILE..."
#define AUDITCMD_USAGE_DIFF \
	"diff [--json] [--format text|json|markdown] [-I DIR]... " \
	"[-D NAME=VALUE]... OLD NEW"
#define AUDITCMD_USAGE_VERIFY \
	"verify [--json] [-I DIR]... [-D NAME=VALUE]... POLICY BLOB"
#define AUDITCMD_USAGE_AUDIT \
	"audit [-v] [--format text|json|markdown|sarif] [-I DIR]... " \
	"[-D NAME=VALUE]... FILE..."

int auditcmd_test(int argc, char **argv);
int auditcmd_lint(int argc, char **argv);
int auditcmd_diff(int argc, char **argv);
int auditcmd_verify(int argc, char **argv);
int auditcmd_audit(int argc, char **argv);

#endif
