/*
 * learn.h - cordonc learn: a first policy from trusted sample runs.
 *
 * learn.c drives: compile the base, run each sample under
 * `cordon --observe TRACE`, write the policy (learn_write.c), compile
 * and lint it, run the samples again under it.
 */
#ifndef CORDON_LEARN_H
#define CORDON_LEARN_H

#include <stdint.h>
#include <stdio.h>

#include "cpol.h"
#include "polquote.h"
#include "strindex.h"

#define LEARN_USAGE "learn [-o OUT.policy] [--cordon PATH] [-I DIR]... " \
	"[--hosts] [--resolve NAME:ADDR]... BASE.policy SAMPLE.py..."
#define LEARN_MAX_HOSTS 64    /* CPOL_MAX_HOSTS or fewer */

struct learn_path {
	char *path;               /* absolute, or "$WORKDIR..." */
	uint64_t access;          /* Landlock rights seen */
	uint64_t count;
	const char *sample;       /* where first seen */
};
struct learn_call {
	uint32_t nr;
	uint64_t args[6];
	uint64_t count;
	char *call;               /* decoded, as cordon wrote it */
	const char *sample;
};
struct learn_port {
	int bind;
	unsigned int port;
	uint64_t count;
	const char *sample;
};
struct learn_host {          /* reached through the proxy */
	char *host;               /* a name or an address literal */
	unsigned int port;
	uint64_t count;
	const char *sample;
};
/* Paths, calls and ports: as many as the traces hold (memory is the
 * bound: out of it, learn fails); hosts: as many as a policy may name. */
struct learn {
	struct learn_path *path;
	struct learn_call *call;
	struct learn_port *port;
	unsigned int cappath, capcall, capport;
	struct strindex pathidx;  /* path -> its slot of path */
	struct learn_host host[LEARN_MAX_HOSTS];
	struct learn_host left[LEARN_MAX_HOSTS];  /* special literals
	                          * reached: said in a comment, never a rule */
	unsigned int npath, ncall, nport, nhost, nleft;
	uint64_t wall_ms, cpu_ms, rss_kb, memory, procs, disk, files;
	uint64_t dropped;         /* the traces' and cordonc's own */
	uint64_t failed, unsure;  /* path calls that failed, or unseen */
};

/* Read one trace (from sample) into l.  Returns 0, or -1 with err. */
int learn_read(FILE *f, const char *sample, struct learn *l, char *err,
    size_t errlen);
/* Write the policy source.  Returns 0 or -1 (errno). */
int learn_write(FILE *out, const struct learn *l, const struct cpol *base,
    const char *include, const char *name, char **samples, int nsamples);
void learn_free(struct learn *l);
/* A comment's "first [CALL ]in SAMPLE", then end. */
void learn_first(FILE *out, const char *call, const char *sample,
    const char *end);
/* learn_net.c: the network statements, with what used each. */
void learn_write_net(FILE *out, const struct learn *l);

/* learn_fold.c: the path rules a reviewer reads.  LEARN_FOLD_MIN or
 * more entries of one folder used with the same read rights (read-file,
 * read-dir, nothing else) become one rule on the folder; the system
 * font, locale and time-zone trees one read rule each (cordonc(1)). */
#define LEARN_FOLD_MIN 4
struct learn_rule {
	char *path;               /* the folder or tree */
	uint64_t rights;          /* folded, and the folder's own */
	uint64_t shown;           /* less a rule above it gives: 0, none */
	uint64_t folded;          /* the read rights folded into it */
	uint64_t uses;
	unsigned int held;        /* learned paths folded into it */
	unsigned int anchor;      /* written where this path is */
	const char *tree;         /* what the tree holds, or NULL: a folder */
	const char *sample, *example;
};
struct learn_fold {
	uint64_t *need;           /* per path: beyond the base */
	uint64_t *own;            /* per path: rights on its own line */
	int *target;              /* per path: the rule on it, or -1 */
	unsigned char *ok, *held; /* per path: learnable; folded */
	struct learn_rule *rule;
	unsigned int nrule;
};
/* 0, or -1 (ENOMEM). */
int learn_fold(const struct learn *l, const struct cpol *base,
    struct learn_fold *f);
void learn_fold_free(struct learn_fold *f);
/* Why path is not learned (too wide, another process's /proc entry,
 * polq_path_problem), or NULL. */
const char *learn_path_problem(const char *path);

/* learn_copy.c: a sample's inputs, the files and folders beside it
 * but the samples, copied into a new folder OUT.inputs.XXXXXX (its name
 * into dir) that its run gets as --workdir.  0, or -1 with err (nothing
 * left behind). */
#define LEARN_COPY_BYTES (256ull << 20)
#define LEARN_COPY_BYTES_SAID "256M"
#define LEARN_COPY_ENTRIES 4096
#define LEARN_COPY_ENTRIES_SAID "4096"
#define LEARN_COPY_DEPTH 16
int learn_inputs(const char *sample, char **samples, int nsamples,
    const char *out, char *dir, size_t len, char *err, size_t errlen);
/* The folder and all in it, following nothing: 0, or -1 (said). */
int learn_inputs_remove(const char *dir);

int learn_cmd(int argc, char **argv);

#endif
