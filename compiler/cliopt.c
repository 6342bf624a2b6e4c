/* cliopt.c - the subcommands' -I and -D (cliopt.h). */
#include <stdio.h>
#include <string.h>

#include "cliopt.h"
#include "cpol.h"

/* -D NAME=VALUE: NAME as an environment variable's ([A-Za-z_][A-Za-z0-9_]*,
 * cpol_env_name_ok), VALUE anything. */
static int define(struct compile_opts *o, char *arg)
{
	char *eq = strchr(arg, '=');
	int ok;

	if (eq)
		*eq = '\0';
	ok = eq && cpol_env_name_ok(arg);
	if (eq)
		*eq = '=';
	if (!ok) {
		fprintf(stderr, "cordonc: -D wants NAME=VALUE, not \"%s\"\n",
		    arg);
		return -1;
	}
	if (o->ndefines == PARSE_MAX_DEFINES) {
		fprintf(stderr, "cordonc: more than %d -D\n",
		    PARSE_MAX_DEFINES);
		return -1;
	}
	*eq = '\0';
	o->defines[o->ndefines++] = (struct parse_define){ arg, eq + 1 };
	return 0;
}

int cliopt_source(struct compile_opts *o, int ch, char *arg)
{
	if (ch == 'D')
		return define(o, arg);
	if (ch != 'I')
		return 1;
	if (o->nincdirs == PARSE_MAX_INCDIRS) {
		fprintf(stderr, "cordonc: more than %d -I\n",
		    PARSE_MAX_INCDIRS);
		return -1;
	}
	o->incdirs[o->nincdirs++] = arg;
	return 0;
}
