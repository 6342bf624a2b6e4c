/*
 * nowarm.c - warm pools in cordon, the program without them (serve.c,
 * submit.c and the protocol's parser, warmreq.c, are in cordon-pool and
 * the pool's extension): cordon --serve and --submit are never run by
 * this program, main.c executes cordon-pool for them (companion.c)
 * before anything is made; and a warm spare is a fork of the pool's
 * template, never of this program.  So none of these is reached; each
 * fails closed if it were.
 */
#include <stdio.h>

#include "cordon.h"
#include "pool.h"

const int pool_built = 0;
int warm_spare_ctl = -1;        /* never a spare */

static const char no_pool[] = "this cordon has no warm pools (cordon-pool "
    "runs --serve and --submit)";

int serve_exec(const struct opts *o, const struct cpol *p, char **argv,
    char *err)
{
	(void)o, (void)p, (void)argv;
	snprintf(err, ERRLEN, "%s", no_pool);
	return EXIT_CORDON;
}

int submit_main(int argc, char **argv)
{
	(void)argc, (void)argv;
	fprintf(stderr, "cordon: %s\n", no_pool);
	return EXIT_CORDON;
}

int warm_hold(struct opts *o, struct held_run *w, struct report *r,
    char *err)
{
	(void)o, (void)w, (void)r;
	snprintf(err, ERRLEN, "%s", no_pool);
	return -1;
}

void warm_said(int ctl, int rc)
{
	(void)ctl, (void)rc;
}
