/*
 * learnjudge.h - learn mode's judge: did a call cordon let through
 * succeed?  Only a call that did becomes a right in the trace (learn.c).
 */
#ifndef CORDON_LEARNJUDGE_H
#define CORDON_LEARNJUDGE_H

#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Permission bits a call needs, as in a mode's rwx. */
#define JUDGE_R 4
#define JUDGE_W 2
#define JUDGE_X 1

/* stat (follow) or lstat of path as pid sees it (its root, its mount
 * namespace: a private /tmp, the run tmpfs on the workdir).  0 or -1. */
int judge_there(pid_t pid, const char *path, struct stat *st, int follow);
/* Would the run's credentials be let do want to the file st: the mode
 * bits against cordon's uid, gid and groups (the run's user namespace
 * maps them to themselves and the run holds no capability), and a write
 * on a read-only mount refused.  1 or 0. */
int judge_may(pid_t pid, const char *path, const struct stat *st, int want);
/* A call that failed, foretold. */
void judge_fail(void);
/* A call whose result shows only after it ran: gone must be absent and
 * made present then.  Settled at tid's next notification. */
void judge_pend(pid_t tid, const char *gone, unsigned int rgone,
    const char *made, unsigned int rmade);
/* tid notifies again (its call before has run); group: it ends its
 * thread group (exit_group), settle its other threads too.  Each call
 * that ran hands grant the directories of its entries and their rights. */
void judge_settle(pid_t tid, int group,
    void (*grant)(const char *entry, unsigned int rights));
/* Calls judged failed, and those never settled (counted now). */
void judge_counts(uint64_t *failed, uint64_t *unsure);

#endif
