/*
 * cliopt.h - what cordonc's subcommands share on their command line:
 * the exit statuses, and -I DIR and -D NAME=VALUE, read the one way
 * (compile, explain, check, lint, test, diff, audit, verify, export,
 * learn).
 */
#ifndef CORDON_CLIOPT_H
#define CORDON_CLIOPT_H

#include "compile.h"

/* Exit statuses: 0 fine; 1 the policy failed (an error, a finding, a
 * wider diff); 2 a usage error. */
#define CORDONC_EXIT_POLICY 1
#define CORDONC_EXIT_USAGE 2

/* The getopt letters of -I and -D, for a subcommand's option string. */
#define CLIOPT_SOURCE "I:D:"

/* Take option ch with argument arg into o when it is -I or -D: 0 taken;
 * -1 after a message (a -D that is not NAME=VALUE with NAME a valid
 * name, or one -I or -D too many); 1 when ch is neither.  A -D's '=' is
 * replaced by a NUL: NAME and VALUE point into arg. */
int cliopt_source(struct compile_opts *o, int ch, char *arg);

#endif
