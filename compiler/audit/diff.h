/*
 * diff.h - what one policy allows that another does not.  Syscalls are
 * compared by running both seccomp programs in the interpreter over the
 * boundary values of both policies' conditions (not by comparing rule
 * text), paths by the rights Landlock would give each rule path, named
 * hosts by the names each rule reaches (reach.h), the rest field by
 * field.
 */
#ifndef CORDON_DIFF_H
#define CORDON_DIFF_H

#include <stdint.h>
#include <stdio.h>

#include "cpol.h"

enum diff_dir {
	DIFF_WIDER = 1,      /* NEW allows something OLD did not */
	DIFF_NARROWER,       /* NEW no longer allows something */
	DIFF_CHANGED,        /* different, neither wider nor narrower */
};

struct diff_change {
	int dir;
	const char *kind;    /* "syscall", "path", "network", ... (static) */
	char *subject;       /* "ptrace", "/usr", "nproc" */
	char *detail;        /* what changed, for people */
	char *origin;        /* "file:line" in NEW (or OLD), or NULL */
};

struct diff_list {
	struct diff_change *v;
	unsigned int n;
	unsigned int cap;
};

/* diff_run: append every change from old to new.  Returns 0, -1 on
 * ENOMEM. */
int diff_run(const struct cpol *old, const struct cpol *new,
    struct diff_list *out);
void diff_list_free(struct diff_list *l);
/* Number of changes in l with direction dir. */
unsigned int diff_count(const struct diff_list *l, int dir);

/* The one way to add a change (origin may be NULL; detail
 * printf-style).  0, or -1 on ENOMEM. */
int diff_add(struct diff_list *l, int dir, const char *kind,
    const char *subject, const char *origin, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* One comparer per blob section (CPOL_S_*): diff_run runs them all, in
 * a reviewer's order, and fails (-1) when a section has none, so a new
 * section cannot go uncompared.  diff_section(type) is NULL then. */
struct diff_section {
	unsigned int type;         /* CPOL_S_* */
	const char *name;
	int (*compare)(const struct cpol *old, const struct cpol *new,
	    struct diff_list *out);
};
const struct diff_section *diff_section(unsigned int type);

/* What a layer flag (one bit of CPOL_F_ALL) means to diff; NULL for a
 * bit it does not know (diff_run then fails). */
struct diff_flag {
	uint32_t bit;
	const char *kind;
	const char *subject;       /* NULL: the limit the bit makes required */
	int added;                 /* NEW has it, OLD not; 0: network mode */
	const char *what;
};
const struct diff_flag *diff_flag(uint32_t bit);

/* The comparers of other files: the RULES table's default action and
 * the SECCOMP program (diffsys.c), the network mode and ports and the
 * named hosts (diffnet.c). */
int diff_default(const struct cpol *old, const struct cpol *new,
    struct diff_list *out);
int diff_syscalls(const struct cpol *old, const struct cpol *new,
    struct diff_list *out);
int diff_network(const struct cpol *old, const struct cpol *new,
    struct diff_list *out);
int diff_http(const struct cpol *old, const struct cpol *new,
    struct diff_list *out);   /* diffhttp.c: credentials, HTTP rules */
int diff_hosts(const struct cpol *old, const struct cpol *new,
    struct diff_list *out);
/* diffnet.c: the "private" word on a host rule in both. */
int diff_private(const struct cpol *old, const struct cpol *new,
    struct diff_list *out);

/* Origins, from the sources' statements, for the changes the blobs
 * give none (diffloc.c; struct input is input.h's).  0, or -1 on
 * ENOMEM. */
struct input;
int diff_locate(struct diff_list *l, const struct input *old,
    const struct input *new);

/* Print l for people ("+ syscall ptrace: newly allowed ..."), as one
 * JSON object with the two names, or as Markdown (a review comment). */
void diff_print_text(FILE *f, const struct diff_list *l, const char *old,
    const char *new);
void diff_print_json(FILE *f, const struct diff_list *l, const char *old,
    const char *new);
void diff_print_markdown(FILE *f, const struct diff_list *l,
    const char *old, const char *new);

#endif
