/*
 * warm.h - warm pools (cordon --serve, cordon --submit): the launcher's
 * only view of them.  A pool's template (warm.py with _cordon_warm.so,
 * pywarm.c) calls cordon in-process for each spare; the spare waits set
 * up (warmhold.c) until a request comes over the pool's socket.
 */
#ifndef CORDON_WARM_H
#define CORDON_WARM_H

#include "cordon.h"

/* serve.c: cordon --serve: exec the pool's template (warm.py) */
int serve_exec(const struct opts *o, const struct cpol *p, char **argv,
    char *err);
/* warmdir.c: the template's directory: dir ("...XXXXXX") made, locked
 * and marked (returns the lock's descriptor, or -1 with err); removed;
 * abandoned ones of this uid (lock free, mark there) removed */
int warmdir_make(char *dir, char *err);
int warmdir_remove(const char *dir, char *err, size_t len);
void warmdir_sweep(void);
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
