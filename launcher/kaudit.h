/*
 * kaudit.h - the kernel's audit records of a run's own refusals: Landlock's
 * (AUDIT_LANDLOCK_ACCESS, named by the run's domain) and the seccomp
 * filter's kills (AUDIT_SECCOMP, named by the run's first process, or
 * under a PID namespace by its payload, init's child).  audit.c says
 * whether they can be read and keeps the run's denials; the reader
 * (kaudit/reader.c, with kaudit/auditrec.c's parser) is in cordon-audit
 * and the programs with a room, kaudit/noaudit.c in cordon.
 */
#ifndef CORDON_AUDIT_H
#define CORDON_AUDIT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define AUDITREC_OBJ_LEN 512          /* a path or address, cut there */
#define AUDITREC_ACCESS_LEN 96        /* "fs.read_file,fs.read_dir" */

/* One record, the fields cordon reads; -1 or "" where absent. */
struct auditrec {
	int type;
	uint64_t serial;              /* the event: records sharing it */
	uint64_t domain;              /* Landlock's domain id; 0: none */
	char access[AUDITREC_ACCESS_LEN];  /* blockers= */
	char object[AUDITREC_OBJ_LEN];     /* path, or address:port */
	int net;                      /* object is address:port */
	int allocated;                /* a domain record: status=allocated */
	long pid, syscall, sig;       /* -1: absent */
	uint32_t code;                /* seccomp's action */
	char comm[32];
};

/* Bounds of the reader (kaudit/reader.c).  Distinct Landlock denials kept;
 * records of one read of the socket; records read in all (the host's
 * records come too); events waiting for their SYSCALL record; how long
 * cordon waits after the run for its end mark. */
#define AUDIT_DENIALS_MAX 32
#define AUDIT_BATCH 256
#define AUDIT_RECORDS_MAX 200000
#define AUDIT_OPEN 8
#define AUDIT_DRAIN_MS 2000

struct audit_denial {
	char access[AUDITREC_ACCESS_LEN];
	char object[AUDITREC_OBJ_LEN];
	int net;
	long pid;                     /* -1: not known */
	char comm[32];
	uint64_t count;
	uint64_t serial;              /* of its event, until the SYSCALL */
};

struct audit_event {
	uint64_t serial;              /* 0: free */
	int waiting;                  /* wait holds an access of a domain */
	struct auditrec wait;         /*   not known yet */
};

struct audit {
	int fd;                       /* the multicast socket; -1: none */
	int landlock;                 /* Landlock's records are read */
	int watch;                    /* or foretold by llwatch.c */
	const char *by;               /* "audit", or NULL: not observed */
	char why[240];                /* NULL by: why not */
	pid_t pid;                    /* the run's first process */
	uint64_t domain;              /* the run's domain; 0: not seen */
	int named, private_tmp, private_shm;
	struct audit_event ev[AUDIT_OPEN];
	struct audit_denial d[AUDIT_DENIALS_MAX];
	unsigned int n;
	uint64_t dropped;             /* denials past the table */
	uint64_t records;
	int lost;                     /* the socket overflowed, or the
	                               * kernel dropped records (backlog) */
	uint32_t lost_before;         /* the kernel's count at the start */
	int incomplete;               /* the end mark did not come */
	long seccomp_nr;              /* a kill of pid; -1: none seen */
	pid_t payload;                /* under a PID namespace, the cold
	                               * payload (init's child: its hello,
	                               * fdpass.c); 0: not known */
	struct { long pid, nr; } kills[AUDIT_OPEN];  /* kill records of
	                               * other pids, until payload is known */
	unsigned int nkills;
	pid_t probe;                  /* the end mark's process */
	int probe_seen;
};

/* audit.c: whether the records can be read (audit_wanted: the kernel's
 * audit is on and answers cordon), the run's denials kept */
struct audit *audit_open(int landlock_abi, int landlock_on);
int audit_wanted(void);
int audit_enabled(uint32_t *lost);
struct audit *audit_nope(struct audit *a, const char *why);
unsigned int audit_restrict_flags(const struct audit *a);
void audit_watched(struct audit *a);
struct audit_denial *audit_denial_add(struct audit *a, const char *access,
    const char *object, int net, long pid, const char *comm);
/* kaudit/reader.c: the group joined, the records read (noaudit.c, in
 * cordon: audit_built 0, audit_join says why not, the rest do nothing) */
extern const int audit_built;
struct audit *audit_join(struct audit *a, int landlock_abi, int landlock_on);
void audit_read(struct audit *a);
/* a->payload was set (cordon's PID namespace): a kill of it already
 * read is the run's too.  a may be NULL. */
void audit_payload(struct audit *a);
void audit_finish(struct audit *a, int sigsys);
/* auditsay.c */
void audit_say(const struct audit *a);
/* The advice's line: "path " and a quoted path (each byte at most two)
 * and its right, or a sentence about it. */
#define AUDIT_ADVICE_LEN (2 * AUDITREC_OBJ_LEN + 160)
const char *audit_advice(const struct audit *a,
    const struct audit_denial *d, char *buf, size_t len);

#endif
