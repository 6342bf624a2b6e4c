/*
 * pool.h - warm pools as the core sees them: whether this program has
 * them, --serve and --submit (main.c executes cordon-pool for them,
 * companion.c), and a spare's hold step (launch()'s hook, opts.hold).
 * The warm protocol and the pool's own files' names are warm.h's.
 */
#ifndef CORDON_POOL_H
#define CORDON_POOL_H

#include "cordon.h"

/* 1 in a program with warm pools (serve.c: cordon-pool, the pool's
 * extension), 0 in cordon (nowarm.c: every function fails closed; main.c
 * executes cordon-pool for --serve and --submit, companion.c). */
extern const int pool_built;
/* serve.c: cordon --serve: exec the pool's template (warm.py) */
int serve_exec(const struct opts *o, const struct cpol *p, char **argv,
    char *err);
/* submit.c: cordon --submit @NAME ...: one run in a warm pool */
int submit_main(int argc, char **argv);

/* warmhold.c: a warm spare, set up, waits for its run's warm-up and the
 * template's request; takes its options, descriptors and snippet.  It is
 * launch()'s hold step (struct held_run, cordon.h): main.c sets
 * opts.hold to warm_hold for a spare. */
extern int warm_spare_ctl;     /* set by the template's extension */
int warm_hold(struct opts *o, struct held_run *w, struct report *r,
    char *err);
/* cordon's exit status, to the template (for the caller), at the end */
void warm_said(int ctl, int rc);

#endif
