/*
 * learnmode.h - what the cold core sees of the two modes that watch a run's
 * calls from cordon: learn mode (cordon --observe, learn.c: let refused
 * calls through and record them) and cordon --landlock-watch (llwatch.c:
 * Landlock's refusals named where the kernel's audit cannot name them:
 * not root, audit off, ABI < 7).  pathcall.h and learnjudge.h are this
 * folder's own.
 */
#ifndef CORDON_LEARNMODE_H
#define CORDON_LEARNMODE_H

#include <linux/filter.h>
#include <stdint.h>
#include <sys/types.h>

#include "cpol.h"

struct audit;
struct bpf_input;

#define LLWATCH_RULES 256     /* path rules matched; more: not watched */

struct llwatch_rule {
	dev_t dev;
	ino_t ino;
	uint64_t access;
};

struct llwatch {
	int on;                       /* the filter sends the calls */
	int ready;                    /* rules found in the run's view */
	const struct cpol *pol;
	uint64_t handled;             /* the ruleset's fs rights */
	uint64_t tmp_access;          /* a private /tmp's and /dev/shm's */
	int private_tmp, private_shm, net;
	const char *workdir, *snippet;  /* as the run sees them */
	struct llwatch_rule r[LLWATCH_RULES];
	unsigned int n;
};

/* 1 in a program with these modes (learn.c: cordon-observe, the warm
 * pool's extension), 0 in cordon (nolearn.c: every function fails
 * closed; main.c executes cordon-observe for --observe and
 * --landlock-watch, companion.c). */
extern const int learn_built;

/* Is nr a call the watch is sent? */
int llwatch_watched(uint32_t nr);

/* A watched call the blob's program allows, from the run's process pid:
 * each right it needs that the policy's rules do not grant is added to
 * a's Landlock denials.  The call then proceeds: Landlock decides. */
void llwatch_call(struct llwatch *w, struct audit *a,
    const struct bpf_input *in, pid_t pid);

struct sup;
struct report;
/* learn.c: --observe, the learn mode of cordonc learn.  learn_begin
 * names the base (NULL: not learn mode), whose grants are not recorded,
 * and the workdir as the run sees it (both held while the run lasts). */
void learn_begin(const struct cpol *pol, const char *workdir);
void learn_take(int listener, const struct sup *sp);
int learn_write(const char *file, const struct report *r, char *err);

#endif
