/*
 * kwork.h - floor --kernel-work: the kernel work of cordon's default
 * path for a blob (namespaces, the run tmpfs, the cgroup), done by the
 * floor around its own fork and exec.  See kwork.c.
 */
#ifndef CORDON_BENCH_KWORK_H
#define CORDON_BENCH_KWORK_H

#include <stddef.h>
#include <sys/types.h>

struct cpol;

/* In the parent, before the fork: what the blob asks for, the cgroup
 * made (as root on cgroup v1; else skipped, and say tells why).  say:
 * one line of what will be done.  -1 on an error (say holds it). */
int kwork_prepare(const struct cpol *p, char *say, size_t len);
/* fork() with the namespaces; refused namespaces: a plain fork, and
 * kwork_note() says so. */
pid_t kwork_spawn(void);
/* In the child, first: join the cgroup, map the ids, make the mounts. */
int kwork_child(void);
/* In the parent, after the child is reaped: remove the cgroup. */
int kwork_finish(void);
/* What kwork_spawn found (namespaces refused), or "". */
const char *kwork_note(void);

#endif
