/*
 * cordon.h - the launcher's modules and what they pass each other.
 *
 * main.c parses options and runs the steps in order (probe.c asks the
 * kernel, plan.c decides, launch.c carries the plan out); nothing but
 * main exits.  Every module returns -1 (or NULL) with a message in an err
 * buffer, and never prints on its own, except the child (run.c), which
 * reports through a close-on-exec pipe.
 */
#ifndef CORDON_LAUNCHER_H
#define CORDON_LAUNCHER_H

#include <stddef.h>
#include <stdint.h>
#include <getopt.h>
#include <linux/filter.h>
#include <sys/types.h>

#include "cpol.h"
#include "egress.h"

#define EXIT_TIMEOUT 124
#define EXIT_CORDON 125
#define EXIT_NOEXEC 126
#define EXIT_NOTFOUND 127
/* The output passed its cap and cordon ended the run with SIGKILL. */
#define EXIT_OUTPUT (128 + 9)

#define ERRLEN 512
/* Why a whole-run bound is held by less than a controller. */
#define BOUND_WHY_LEN 512
/* A snippet is source code; more than this is a mistake or an attack. */
#define SNIPPET_MAX (16u << 20)
/* Deepest tree copied into or out of a run tmpfs (one fd each): deeper
 * is skipped. */
#define RUNFS_DEPTH_MAX 64
/* Deepest tree the watch walks on the host (one fd a level: cordon
 * raises its own descriptor limit to hold them, watch_arm): deeper, or
 * past the descriptors the hard limit gives, is over every bound. */
#define RUNFS_WATCH_DEPTH_MAX 1024
/* The status's reason for a disk or files bound the watch held. */
#define RUNFS_WATCH_WHY "no run tmpfs (no mount namespace): a watch of " \
	"the workdir ends the run past the bound, after what the run writes " \
	"while it measures (not held exactly: cordon(1), NO NAMESPACES)"
/* How often the supervisor measures a watched workdir (no run tmpfs). */
#define RUNFS_WATCH_MS 50
#define RUNFS_WATCH_NEAR_MS 5         /* once past half of a bound */
/* A look takes at most 1/RUNFS_WATCH_SHARE of the time between looks
 * (its CPU time: cordon's own, outside the run's cgroup and --idle), so
 * a large tree is looked at less often. */
#define RUNFS_WATCH_SHARE 20
/* Between looks, how often the supervisor asks the workdir's file
 * system what it has in use (one fstatvfs: watchpace.c), to look at
 * once when the run may have passed a bound. */
#define RUNFS_WATCH_TICK_MS 1
/* The watch ends a run that grows on a file system left with less than
 * 1/RUNFS_WATCH_RESERVE_DIV of its inodes or blocks free: the caller's
 * file system is never filled. */
#define RUNFS_WATCH_RESERVE_DIV 32
/* Open files past this many, or processes nested deeper, are more than
 * the watch counts: over the bound. */
#define RUNFS_HELD_MAX (1u << 20)
#define RUNFS_HELD_DEPTH 64
#define CGROUP_PATH_MAX 512      /* a caller's group, and the run's name */
/* A stale group (cgstale.c) whose tasks are still going: how long the
 * next run waits for the kernel to let them go, and how often it looks.
 * Paid only after a killed cordon. */
#define CGROUP_SWEEP_WAIT_MS 2000
#define CGROUP_SWEEP_STEP_MS 10

struct held_run;
struct report;
struct opts;
/* launch()'s hold step: between the run's start and its supervision, a
 * started run (set up, not yet given its snippet) handed to the caller,
 * which fills in what the run's request brought.  Warm pools' spares
 * (pool.h: warm_hold); NULL for a cold run.  0, or -1 with err. */
typedef int (*launch_hold_fn)(struct opts *o, struct held_run *h,
    struct report *r, char *err);

struct opts {
	const char *policy;
	const char *snippet;          /* a file, or "-" for stdin */
	char **args;                  /* appended to the policy's command */
	int nargs;
	const char *workdir;          /* --workdir: exists, never removed */
	int keep_workdir;
	uint64_t timeout_ms;          /* 0: the policy's */
	uint64_t output_cap;          /* UINT64_MAX: the policy's */
	uint64_t limit[CPOL_RLIM_MAX + 1]; /* --limit; UINT64_MAX: unset */
	int status_fd;                /* -1: none */
	int null_fd;                  /* /dev/null, close-on-exec */
	const char *status_file;
	const char *cgroup;           /* --cgroup: a delegated v2 parent */
	int check, no_namespaces, quiet;
	int json;                     /* --check --json */
	int keep_stdin;               /* --stdin: the run's stdin is ours */
	int session;                  /* --session: the policy's session
	                               * bound, stdout uncapped (frames) */
	int ll_watch;                 /* --landlock-watch (llwatch.c) */
	int nice, idle;               /* --nice (0..19), --idle: the run's */
	struct egress_map resolve[EGRESS_MAP_MAX];  /* --resolve NAME:ADDR */
	int nresolve;
	struct tls_cred cred[CPOL_MAX_HTTP];  /* --credential NAME[=@PATH] */
	int ncred;
	const char *upstream_ca;      /* --upstream-ca FILE (tests) */
	const char *observe;          /* --observe TRACE: learn mode */
	int observe_hosts;            /* --observe-hosts: through the proxy */
	const char *serve;            /* --serve @NAME: a warm pool */
	int warm_ctl;                 /* a warm pool's spare: its socket to
	                               * the template (warmhold.c), or -1 */
	launch_hold_fn hold;          /* the hold step: a spare's, or NULL */
};

/* Nothing given: no limit, cap or descriptor (opts_parse starts here;
 * so does tests/unit/test_plan.c's table). */
static inline void opts_init(struct opts *o)
{
	*o = (struct opts){ .status_fd = -1, .warm_ctl = -1,
	    .output_cap = UINT64_MAX };
	for (int i = 0; i <= CPOL_RLIM_MAX; i++)
		o->limit[i] = UINT64_MAX;
}

/* What was applied (the status report's "layers"). */
struct layers {
	int no_new_privs, seccomp, landlock_abi, landlock_errata;
	int landlock_fs, landlock_net, scope_abstract_unix, scope_signal;
	int caps_dropped, rlimits, env, fds_closed, new_session;
	unsigned long ns_flags;       /* CLONE_NEW* used */
	int private_tmp, private_shm;
	int workdir_noexec;           /* the run tmpfs (noexec) holds what
	                               * the run writes: no ld.so of it */
};

/* How a run ended, as the status report names it (status.c holds the
 * names).  Each is a fact cordon observed; see classify() in supervise.c. */
enum outcome {
	OUT_EXITED, OUT_SIGNALED, OUT_TIMEOUT, OUT_SECCOMP, OUT_CPU,
	OUT_OOM, OUT_OUTPUT, OUT_INTERRUPTED, OUT_DISK, OUT_ERROR,
};

/* The whole-run bounds (CPOL_RLIM_MEMORY.. in order) and what held each. */
enum { B_MEMORY, B_PIDS, B_DISK, B_FILES, NBOUNDS };
enum bound_by {
	BY_NONE,                      /* nothing: unbounded */
	BY_CGROUP1, BY_CGROUP2,       /* a controller, for the whole run */
	BY_RLIMIT,                    /* RLIMIT_NPROC: per user (namespace) */
	BY_RLIMIT_PROC,               /* each process's rlimit: not the run */
	BY_TMPFS,                     /* the run tmpfs's size=, nr_inodes= */
	BY_WATCH,                     /* cordon measures and ends the run */
};
struct bounds {
	uint64_t limit[NBOUNDS];      /* UINT64_MAX: the policy sets none */
	enum bound_by by[NBOUNDS];
	uint64_t memory_peak, oom_kills, pids_refused;  /* UINT64_MAX: ? */
	uint64_t disk_used, files_used;                 /* UINT64_MAX: ? */
	unsigned int proxy_procs;     /* of the pids bound, the proxy's */
	char why[2][BOUND_WHY_LEN];   /* memory, pids: why no controller */
};

struct cgroup {
	int version;                  /* 0: none, 1, 2 */
	int memory, pids;             /* the controller holds that bound */
	char dir[2][CGROUP_PATH_MAX]; /* memory, pids (v2: both the same) */
	int procs[2];     /* v1 tasks or v2 cgroup.procs, or -1 */
	char why[256];                /* version 0: why none, or "" */
};

/* denials.c: each call the filter refused (see the status report). */
#define DENIALS_MAX 64        /* distinct entries; more are only counted */
#define DENIALS_SAY 8         /* lines of the summary on stderr */
#define DENIAL_CALL_LEN 160   /* a decoded call, cut there */
/* cordon's own work for a run's refused calls is bounded: it answers
 * DENIALS_BURST at once, then DENIALS_RATE a second (a token bucket);
 * past that the calls wait in the kernel, their threads asleep, and
 * cordon looks again after DENIALS_WAIT_MS.  Each costs cordon a few us
 * of CPU time (9 on a loaded 2-core VM), outside the run's bounds: at
 * the rate, under 5% of a core. */
#define DENIALS_BURST 10000
#define DENIALS_RATE 5000
#define DENIALS_WAIT_MS 10
struct denial {
	uint32_t nr;
	uint64_t count;
	char name[24];
	char call[DENIAL_CALL_LEN];
	char action[32];          /* errno(EPERM), kill */
	char rule[96];            /* "file:line", "default", ... */
	int expected;             /* the policy's intent: denials.c */
};
struct denials {
	int observed;             /* 0: why says why not */
	const char *why;
	int traps;                /* the program has trap returns */
	struct denial d[DENIALS_MAX];
	unsigned int n;
	uint64_t dropped;         /* calls not recorded: the table was full */
	int rate_limited;         /* cordon held calls back (DENIALS_RATE) */
	int low;                  /* a full table's least telling entry, */
	unsigned int least;       /*   its severity; -1: not known */
	const char *policy;       /* the blob, read again for the rules */
	const struct cpol *pol;
	struct cpol full;
	int rules;                /* 0: not read, 1: read, < 0: unusable */
};
struct bpf_input;
struct audit;
struct llwatch;
struct denials *denials_init(const char *policy, const struct cpol *p,
    int observed, const char *why);
void denials_add(struct denials *d, const struct bpf_input *in,
    uint32_t action);
void denials_say(const struct denials *d);
void denials_free(struct denials *d);

/* What a copy may still write and what it did: copy-back counts against
 * the disk and files bounds (the status's "copyback"). */
struct runfs_budget {
	uint64_t bytes, entries;      /* left; UINT64_MAX: unbounded */
	uint64_t wrote;               /* data bytes written (holes kept) */
	uint64_t made;                /* files and directories created */
	uint64_t skipped;             /* not a file or directory, too deep */
	uint64_t over;                /* left out: past the bytes or entries
	                               * (a directory once, not its tree) */
	const char *skip;             /* a name at the top not copied */
};

struct report {
	const char *policy;           /* NULL before the blob is read */
	const uint8_t *digest;        /* NULL before the blob is read */
	enum outcome outcome;
	int exit_code, signal;
	char reason[160];
	uint64_t stdout_bytes, stderr_bytes;
	uint64_t output_dropped;      /* within the cap, never delivered */
	int truncated;
	uint64_t wall_ms, user_ms, sys_ms, max_rss_kb;
	char workdir[4096];           /* "": none */
	int kept_workdir;
	char kept_reason[ERRLEN];     /* why it was kept; "" when removed */
	struct layers layers;
	struct bounds bounds;
	int egress;                   /* named hosts: the proxy's counts */
	struct egress_shared net;
	const struct denials *denials; /* NULL: no run */
	const struct audit *audit;    /* NULL: no run */
	int warm;                     /* run from a warm pool's template */
	int copied_back;              /* copyback holds a copy-back's counts */
	struct runfs_budget copyback;
};
/* egress.c: the proxy's refusals, on stderr after a run that failed */
void egress_say(const struct report *r);

struct rlim {
	int resource;                 /* RLIMIT_* */
	uint64_t value;
};

/* Everything the child needs, prepared by the parent: it parses nothing
 * and decides nothing (the plan, plan.h, holds the decisions). */
struct run_plan;
struct launch {
	const struct cpol *pol;
	const struct run_plan *plan;  /* rlimits, bounds, Landlock rights */
	char **argv, **envp;
	int ruleset_fd;               /* -1: Landlock unavailable (best effort) */
	int workdir_fd;               /* O_PATH|O_DIRECTORY */
	const char *workdir;
	const char *snippet_name;     /* in the workdir */
	struct cgroup cg;             /* joined first; version 0: none */
	uint64_t own_inodes;          /* the run tmpfs's own, on top of files */
	int mnt_w;                    /* child -> cordon: the run tmpfs */
	int net_w;                    /* child -> cordon: the proxy's
	                               * listener (named hosts), or -1 */
	int null_fd;                  /* the child's stdin: /dev/null, or
	                               * cordon's own (--stdin): 0 */
	int out_w, err_w, msg_w;      /* stdout, stderr, failure pipe */
	int st_w;                     /* init -> cordon: the payload's status */
	struct sock_filter *bpf;      /* the blob's seccomp program */
	struct sock_filter *bpf_notify; /* the same, kills -> USER_NOTIF */
	unsigned short nbpf, nbpf_notify;
	int notify_skipped;           /* program too long for the listener */
	int notify_w;                 /* init -> cordon: the listener, or -1 */
	unsigned long ns_flags;       /* CLONE_NEW* for the clone: the
	                               * plan's (re-planned if the kernel
	                               * refused them, launch.c) */
	int private_tmp, private_shm; /* the plan's, likewise */
	int nice, idle;               /* lower the run's priority (opts) */
	int go_r, ready_w;            /* a warm spare: the run's stdin (its
	                               * request) and fd 3 ("warm"), or -1 */
	int go_w, ready_r;            /* their other ends: cordon's only */
	char uid_map[32], gid_map[32]; /* "ID ID 1\n": our ids, mapped */
	const char *map_step;         /* the map's step, named as it fails
	                               * (ns_map_step, asked before the clone:
	                               * the child sees its new namespace) */
	int audit_fd;                 /* cordon's audit socket (audit.c),
	                               * closed in the child, or -1 */
	unsigned int ll_log;          /* landlock_restrict_self's flags */
};

/* run.c: set by cordon --serve's template (its Python extension); NULL
 * in cordon, whose payload execs. */
extern void (*warm_resume)(char **argv, char **envp);
/* A warm run's descriptors (run.c's warm_run; warm.h's protocol reads
 * them): its "warm" pipe, and its filter listener until cordon has taken
 * it. */
#define WARM_RUN_READY_FD 3
#define WARM_LISTENER_FD 4

/* launch.c's hold step's view of a started run (launch_hold_fn). */
struct held_run {
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


/* opts.c: the options (also a warm request's); -1 to go on, or an exit
 * status.  Call with optind 0 to parse a second argv. */
int opts_parse(int argc, char **argv, struct opts *o);
/* 1 (said on stderr) when the options parsed refuse each other. */
int opts_conflict(const struct opts *o);
extern const struct option cordon_options[];
extern const char warm_run_options[], warm_setup_options[];
/* A warm request's options (argv[0] a program name): each a run's own
 * (or, with setup, one that needs a spare made for it), its name written
 * in full.  Returns the index of the first operand, or -1 with msg. */
int opts_warm_scan(int argc, char **argv, int setup, char *msg,
    size_t len);

/* launch.c */
int launch(struct opts *o, const struct cpol *pol, struct run_plan *pl,
    struct report *r, char *err);
/* late.c: a descriptor kept (*fd taken, set to -1) until late_close(),
 * once the status is out */
void late_keep(int *fd);
void late_close(void);

/* landlock.c */
int landlock_probe(int *errata);
uint32_t landlock_needed(const struct cpol *p);
int landlock_check(const struct cpol *p, int abi, struct layers *l,
    char *err, size_t errlen);
int landlock_build(const struct cpol *p, int abi, char *err,
    size_t errlen);
int landlock_workdir(int ruleset, const struct cpol *p, uint64_t handled,
    int workdir_fd, const char *snippet_name, char *err, size_t errlen);
uint64_t landlock_fs_rights(int abi);
int landlock_confine(const struct cpol *p, int any_port);
uint64_t landlock_tmp_rights(uint64_t handled);
uint64_t landlock_rule_access(uint64_t access, uint64_t handled, int dir);
int landlock_add(int ruleset, int fd, uint64_t access);

/* workdir.c: a fresh workdir is $TMPDIR/cordon.XXXXXX, flock'ed by its
 * cordon until it is removed: one unlocked is a dead cordon's, removed
 * by the next workdir_fresh; --keep-workdir's is named apart. */
#define WORKDIR_PREFIX "cordon."
#define WORKDIR_KEPT_PREFIX "cordon-kept."
int workdir_make(const char *given, char *path, size_t pathlen,
    char *err, size_t errlen);
int workdir_fresh(int keep, char *path, size_t pathlen, char *err,
    size_t errlen);
/* The directories of tmp named prefix + mkdtemp's six characters whose
 * maker is gone (this uid's, their flock free, and holding mark where it
 * is not NULL), removed without following links: SIGKILLed cordons'
 * workdirs, abandoned pools' directories.  Returns how many stay. */
int workdir_sweep(const char *tmp, const char *prefix, const char *mark);
int snippet_open(const char *snippet, char *err, size_t errlen);
int snippet_fill(int in, const char *src, int out, char *err,
    size_t errlen);
int snippet_copy(int in, const char *src, const char *dir, int fresh,
    char *name, size_t namelen, char *err, size_t errlen);
int workdir_remove(const char *path, const char *snippet, char *err,
    size_t errlen);

/* bounds.c: how the whole-run bounds are held, and what the run used */
int bounds_prepare(struct run_plan *pl, const struct cpol *p,
    struct launch *ln, struct bounds *b, char *err);
void bounds_started(const struct run_plan *pl, struct bounds *b);
int bounds_finish(struct launch *ln, struct bounds *b, int mnt, int wfd,
    char *err);

/* fdpass.c: descriptors over a unix socket (SCM_RIGHTS): a message with
 * up to FDPASS_MAX, or one with a byte */
#define FDPASS_MAX 4
int fdpass_sendv(int sock, const void *buf, size_t len, const int *fds,
    int nfd);
ssize_t fdpass_recvv(int sock, void *buf, size_t len, int fds[FDPASS_MAX],
    int *nfd, int flags);
int fdpass_send(int sock, int fd);
int fdpass_recv(int sock, int flags);
/* A cold run's listener, after the payload's hello (its pid in *pid:
 * which process a seccomp kill's audit record names). */
#define FDPASS_HELLO 'P'
int fdpass_recv_hello(int sock, pid_t *pid);

/* cgroup.c: the memory and process bounds of the whole run */
int cgroup_make(struct cgroup *cg, const char *base, uint64_t memory,
    uint64_t pids, char *err, size_t errlen);
int cgroup_join(const struct cgroup *cg);
void cgroup_read(const struct cgroup *cg, struct bounds *b);
uint64_t cgroup_oom_kills(const struct cgroup *cg);
uint64_t cgroup_tasks_peak(const struct cgroup *cg);
int cgroup_remove(struct cgroup *cg, char *err, size_t errlen);
int cgroup_v1_parents(const int need[2], char parent[2][CGROUP_PATH_MAX],
    char *why, size_t whylen);
int cgroup_v2_usable(const char *base, const int need[2], char *why,
    size_t whylen);
/* cgown.c: cordon's own cgroup v1 groups (directories), per controller */
int cgroup_own(const char *const names[2], const int need[2],
    char dir[2][CGROUP_PATH_MAX], char *why, size_t whylen);
int cgroup_mount_dir(char *line, const char *controller, const char *group,
    char *dir, size_t len);
/* cgstale.c: a run group's name (its creator), and stale ones removed */
int cgroup_name(char *dir, size_t len, const char *parent);
void cgroup_sweep(const char *parent);

/* runfs.c: the bounded writable space (a run tmpfs, or a watched workdir) */
void runfs_budget_init(struct runfs_budget *b, uint64_t bytes,
    uint64_t entries, const char *skip);
int runfs_mount(uint64_t bytes, uint64_t inodes);
int runfs_make(int workdir_fd, uint64_t bytes, uint64_t inodes);
int runfs_attach(int mnt, const char *sub, const char *path);
int runfs_copy(int from, int to, struct runfs_budget *b);
int runfs_statfs(int mnt, uint64_t own, uint64_t *bytes, uint64_t *inodes);
uint64_t runfs_own_inodes(const char *workdir, int private_tmp,
    int private_shm);
int runfs_usage(int dirfd, uint64_t *bytes, uint64_t *inodes);
/* watch.c: the tree and the files the run holds outside it */
/* Why the watch could not see the whole run (watch_measure's *blind,
 * the status's reason). */
enum { WATCH_SAW_ALL, WATCH_BLIND_PROC, WATCH_BLIND_TREE };
int watch_measure(int dirfd, uint64_t *bytes, uint64_t *inodes,
    int *blind);
int watch_arm(int dirfd);
void watch_reason(int why, char *buf, size_t len);
int watch_count(int dirfd, uint64_t max, uint64_t *n);
/* watchpace.c: when the watch looks */
/* watch_due's answers: wait; walk by the schedule; walk early: the file
 * system gained past the disk bound (DISK), the files bound (COUNT: a
 * quick count first), or runs low (LOW) */
enum { WATCH_WAIT, WATCH_WALK, WATCH_DISK, WATCH_COUNT, WATCH_LOW };
struct watch_pace {
	uint64_t max_bytes, max_files;   /* the bounds */
	uint64_t bytes, files;           /* the run's, at the last walk */
	uint64_t start_bytes, start_files;   /* and at the first */
	uint64_t fs_bytes, fs_files;     /* its file system's in use, then */
	uint64_t snap_bytes, snap_files; /* and before the walk under way */
	int walked, fs_ok, snap_ok;      /* fs_ok: fstatvfs answers */
	uint64_t walk_at, soonest;       /* ms: scheduled, earliest walk */
};
void watch_pace_init(struct watch_pace *w, uint64_t max_bytes,
    uint64_t max_files);
int watch_due(struct watch_pace *w, int fd, uint64_t now);
void watch_before(struct watch_pace *w, int fd);
int watch_walked(struct watch_pace *w, uint64_t now,
    const uint64_t found[2], uint64_t cost_us, uint64_t next, int due);
uint64_t watch_wait(const struct watch_pace *w, uint64_t now);

/* command.c: argv and environment of the child, its rlimits, its bounds */
uint64_t command_limit(const struct cpol *p, const uint64_t *cli,
    unsigned int r);
uint64_t command_timeout_ms(const struct cpol *p, const struct opts *o);
int command_session_ok(const struct cpol *p, const struct opts *o,
    char *err, size_t errlen);
uint64_t command_output_cap(const struct cpol *p, uint64_t cli);
char **command_argv(const struct cpol *p, const char *workdir,
    const char *snippet, char **args, int nargs);
char **command_envp(const struct cpol *p, const char *workdir);
int command_proxy_env(char ***envp, const char *workdir);
int command_setenv(char ***envp, const char *name, const char *val,
    int replace);
int command_rlimits(const struct cpol *p, const uint64_t *cli,
    struct rlim *out);
struct rlimit;
void command_rlimit_pair(int resource, uint64_t value,
    const struct rlimit *old, struct rlimit *rl);
void command_free(char **v);

/* run.c */
int run_cap_held(unsigned cap);
int run_caps_drop(void);
/* The child, cloned with ln->ns_flags (the plan's): its pid, -1 with err,
 * or RUN_NS_REFUSED when the kernel refused the namespaces (nothing
 * decided here: the caller re-plans, plan_ns_refused, and calls again). */
#define RUN_NS_REFUSED (-2)
pid_t run_start(struct launch *ln, int *pidfd, char *err, size_t errlen);
/* nsprobe.c: for --check, would a run get its namespaces and set them
 * up?  0 with *err the clone's errno where the kernel refuses them; 1,
 * with why the set-up step a run's child would fail, or "". */
int run_probe_ns(unsigned long flags, int proxy, char *why, size_t len,
    int *err);
/* nscause.c: why the kernel refused namespaces (clone's errno e); the
 * uid map's step as a failing child names it (asked before the clone);
 * what would get a run past a set-up step its child failed */
void ns_cause(int e, char *buf, size_t len);
const char *ns_map_step(void);
void ns_broken_hint(char *buf, size_t len);
int run_workdir_private(const struct launch *ln);

/* sigs.c: SIGINT, SIGTERM, SIGHUP blocked and read through *sigfd;
 * SIGPIPE ignored.  -1 with errno. */
int signals_take(int *sigfd);

/* clock.c: deadlines (monotonic ms) and a dead process's CPU time */
uint64_t clock_now_ms(void);
uint64_t clock_cpu_us(pid_t pid);
/* ctlfile.c: a small /proc or control file, read or written whole */
int file_get(const char *file, char *buf, size_t len);
int file_put(const char *file, const char *text);
/* companion.c: a file that comes with cordon (warm/warm.py, cordon-tls)
 * beside the running program, or PREFIX/lib/cordon/; 0, or -1 (errno). */
int companion_path(const char *name, char *out, size_t len);
/* shmredirect.c: without a private /dev/shm, libcordon-shm.so preloaded
 * and readable; 0 also where there is none, -1 with err. */
int shm_redirect(struct launch *ln, const struct run_plan *pl, char *err);
/* The features a run may need that the plain cold core (the program
 * `cordon`) does not hold: each is in a program of its own, found by
 * companion_path and executed with the same command line (companion.c
 * lists them; HACKING.md "Features as programs").  Each room says whether
 * this program holds it (egress_built, tls_built, learn_built,
 * pool_built, audit_built: the room's code, or its no*.c); main.c adds
 * them up. */
enum { HOLD_EGRESS = 1, HOLD_TLS = 2, HOLD_LEARN = 4, HOLD_POOL = 8,
	HOLD_AUDIT = 16 };
/* needs (HOLD_*) not all in holds (this program's): executes the program
 * that holds them with argv; returns only on failure (EXIT_CORDON, err
 * says which program is missing or why it cannot run).  All held: 0. */
int companion_exec(unsigned int needs, unsigned int holds, char **argv,
    char *err);

/* The supervision room: supervise.c, relay.c, sink.c, feed.c, init's end. */
#include "supervise.h"

/* notes.c: the timeout, output cap, capped options and fallbacks said */
void notes_say(const struct opts *o, const struct cpol *p,
    const struct report *r);

/* status.c */
/* A bound's "by" as the status names it ("rlimit-per-process"). */
const char *status_bound_by(enum bound_by by);
int status_write(const struct report *r, int fd, const char *file,
    char *err, size_t errlen);

#endif
