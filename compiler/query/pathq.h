/*
 * pathq.h - questions about a policy's Landlock rules, answered the way
 * Landlock answers them: a path gets the union of the rights of every
 * rule whose path is the path itself or one of its ancestors (a prefix
 * ending on a component boundary).  "$WORKDIR..." paths are matched only
 * by "$WORKDIR..." rules and absolute paths only by absolute rules: where
 * the launcher puts the working directory is decided at run time.
 */
#ifndef CORDON_PATHQ_H
#define CORDON_PATHQ_H

#include <stddef.h>
#include <stdint.h>

#include "cpol.h"

/* 1 if rule is path or an ancestor of it, on a component boundary. */
int pathq_covers(const char *rule, const char *path);
/* Union of the rights the rules of p give path. */
uint64_t pathq_rights(const struct cpol *p, const char *path);

/*
 * Rights named in an expectation: "read" (read-file), "write"
 * (write-file), "exec" or "execute", the language's shorthands (ro, rx,
 * rw, create, remove) and every Landlock right name.  *need is what a
 * positive expectation requires (all of it); *deny what a "no-" one
 * forbids (any of it: "no-read" forbids read-dir too, "no-write" every
 * modifying right).  Returns 0, or -1 for an unknown name.
 */
int pathq_right(const char *name, uint64_t *need, uint64_t *deny);

/* Write the rights in mask as "read-file,write-file,..." into buf. */
void pathq_format(uint64_t mask, char *buf, size_t len);

/* 1 if path is "$WORKDIR" or below it. */
int pathq_in_workdir(const char *path);

/* "/tmp" or "/dev/shm" when path lies in a private directory of p (the
 * run's own fresh tmpfs: with a mount namespace the host's folder there
 * is out of its sight, whatever the rules say), else NULL. */
const char *pathq_hidden(const struct cpol *p, const char *path);

/* 1 if writing to path is harmless: below $WORKDIR, $SNIPPET, /dev/null
 * and friends, or a private /tmp or /dev/shm that the policy requires. */
int pathq_write_ok(const struct cpol *p, const char *path);

/* A sensitive path that reading path exposes ("/etc" for "/", ".ssh"
 * for "/home/u/.ssh"), or NULL. */
const char *pathq_sensitive(const char *path);

#endif
