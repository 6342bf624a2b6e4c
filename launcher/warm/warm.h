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
 * template's request; takes its options, descriptors and snippet. */
struct warm_spare {
	int ctl;                      /* the template's socket */
	int pidfd;                    /* the run's init */
	int ready_r, go_w;            /* the run's fd 3 and stdin */
	int notify_sock;              /* where init sends the run's pidfd */
	int run;                      /* the run's pidfd, until its listener
	                               * is taken, or -1 */
	int listener;                 /* out: the listener, or -1 */
	int mnt;                      /* the run tmpfs, or -1 */
	int wfd;                      /* the spare's own workdir */
	const char *snippet;          /* its snippet's name there */
	int given;                    /* out: a request's --workdir, or -1 */
};
/* A warm run's filter listener, until cordon has taken it (run.c). */
#define WARM_LISTENER_FD 4
extern int warm_spare_ctl;     /* set by the template's extension */
int warm_hold(struct opts *o, struct warm_spare *w,
    struct report *r, char *err);
/* cordon's exit status, to the template (for the caller), at the end */
void warm_said(int ctl, int rc);

#endif
