/*
 * warm.h - warm pools (cordon --serve, cordon --submit): the launcher's
 * only view of them.  A pool's template (warm.py with _cordon_warm.so,
 * pywarm.c) calls cordon in-process for each spare; the spare waits set
 * up (warmhold.c) until a request comes over the pool's socket.
 */
#ifndef CORDON_WARM_H
#define CORDON_WARM_H

#include <limits.h>
#include <stdint.h>

#include "cordon.h"

/*
 * The warm protocol, defined here only: submit.c and warmhold.c use
 * these names; pywarm.c gives them to the template (warm*.py reads
 * _cordon_warm.REQUEST_MAX and the rest, never a copy); the Python
 * client's copy, clients/python/cordon/_warm.py, is generated from this
 * file by tools/gen_cpol_py.py (tests/test_cpol_constants.py fails when
 * it is stale, tests/test_warm.py when a number is written elsewhere).
 * That client also speaks the caller's side itself (cordon/_submit.py,
 * submit.c's rules: SO_PEERCRED checked, no NUL in a word), with no
 * cordon --submit between it and the pool.
 *
 * caller (cordon --submit) -> template, on the pool's abstract socket
 * (SOCK_SEQPACKET: one request, one message, with its descriptors):
 *   NUL-ended words: the caller's directory (absolute), then options and
 *   operands; with stdin, stdout, stderr and, for --status-fd
 *   WARM_STATUS_FD, the status descriptor.
 * template -> caller: WARM_MSG_EXIT and cordon's exit status (int32,
 *   little endian), or WARM_MSG_ERROR and why (up to WARM_ERROR_MAX).
 * run -> its cordon, on the run's fd WARM_RUN_READY_FD: WARM_MSG_WARM
 *   (warmed up; its listener is installed).
 * spare's cordon -> template, on the spare's fd WARM_CTL_FD
 *   (SOCK_SEQPACKET): WARM_MSG_READY, then WARM_READY_TMPFS or
 *   WARM_READY_PLAIN; at the end WARM_MSG_EXIT and the exit status.
 * template -> spare: the request as cordon's words (the directory, the
 *   run options with each value a word of its own, the policy's path,
 *   the operands), with the caller's descriptors.
 * spare's cordon -> run, on its stdin: WARM_MSG_GO, the length (uint32,
 *   little endian) and the run's arguments, NUL-ended; then EOF (or,
 *   with --stdin, the caller's stdin).
 */
#define WARM_REQUEST_MAX 65536        /* a request's bytes: the words of
                                       * a long command line, not data */
#define WARM_WORDS_MAX 1000           /* a request's words after the
                                       * directory (options, operands) */
/* What the template sends a spare: a request, plus the policy's path. */
#define WARM_SPARE_MAX (WARM_REQUEST_MAX + PATH_MAX)
/* A spare's argv: "cordon", each word (an option "--name=value" split
 * in two), the policy's path, NULL. */
#define WARM_ARGV_MAX (2 * WARM_WORDS_MAX + 3)
#define WARM_ERROR_MAX 500            /* an error's text to a caller */
#define WARM_HEAD_LEN 5               /* a letter and a 32-bit number */
#define WARM_FDS_MIN 3                /* stdin, stdout, stderr */
#define WARM_FDS_MAX 4                /* and the status descriptor */
#define WARM_STATUS_FD 3              /* its number in a request's words */
#define WARM_CTL_FD 3                 /* the template's socket, in a spare */
/* WARM_RUN_READY_FD, WARM_LISTENER_FD: the run's side, cordon.h. */
#define WARM_MSG_WARM 'W'
#define WARM_MSG_READY 'R'
#define WARM_READY_TMPFS 'T'          /* the spare has a run tmpfs */
#define WARM_READY_PLAIN '-'          /* it has none */
#define WARM_MSG_GO 'G'
#define WARM_MSG_EXIT 'X'
#define WARM_MSG_ERROR 'E'
/* The word of the line cordon --serve prints once its pool takes
 * requests (the client waits for it). */
#define WARM_READY_WORD "ready"

/* warmreq.c: the template's words to a spare, taken apart in place (no
 * system call). */
struct warmreq {
	const char *cwd;              /* the caller's directory */
	int argc;                     /* argv: "cordon", then the words */
	char *argv[WARM_ARGV_MAX];
};
enum warmreq_error {
	WARMREQ_OK = 0,
	WARMREQ_EMPTY,                /* nothing sent */
	WARMREQ_RELATIVE,             /* the directory is not absolute */
	WARMREQ_TOO_MANY,             /* more words than WARM_ARGV_MAX */
};
/* buf: len bytes, and room for one more (a last word's missing NUL). */
enum warmreq_error warmreq_split(char *buf, size_t len, struct warmreq *rq);
const char *warmreq_why(enum warmreq_error e);
/* The values of --status-fd among the options (argv[1] to argv[end - 1],
 * end: the policy's index) become num; operands are the snippet's, kept.
 * Returns how many. */
int warmreq_status_fd(struct warmreq *rq, int end, char *num);

/* A letter and a 32-bit number, little endian (WARM_HEAD_LEN bytes). */
static inline void warm_head_put(char *p, char letter, uint32_t v)
{
	p[0] = letter;
	p[1] = (char)(v & 0xff);
	p[2] = (char)((v >> 8) & 0xff);
	p[3] = (char)((v >> 16) & 0xff);
	p[4] = (char)(v >> 24);
}

static inline uint32_t warm_head_get(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;

	return (uint32_t)u[1] | (uint32_t)u[2] << 8 | (uint32_t)u[3] << 16 |
	    (uint32_t)u[4] << 24;
}

/* 1 in a program with warm pools (serve.c: cordon-pool, the pool's
 * extension), 0 in cordon (nowarm.c: every function fails closed; main.c
 * executes cordon-pool for --serve and --submit, companion.c). */
extern const int pool_built;
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
/* warmhuge.c: the template's anonymous memory in huge pages, best
 * effort; how many 2 MiB pages were made */
unsigned long warm_huge(void);
/* cordon's exit status, to the template (for the caller), at the end */
void warm_said(int ctl, int rc);

#endif
