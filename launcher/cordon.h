/*
 * cordon.h - the launcher's modules and what they pass each other.
 *
 * main.c parses options and runs the steps in order; nothing but main
 * exits.  Every module returns -1 (or NULL) with a message in an err
 * buffer, and never prints on its own, except the child (run.c), which
 * reports through a close-on-exec pipe.
 */
#ifndef CORDON_LAUNCHER_H
#define CORDON_LAUNCHER_H

#include <stddef.h>
#include <stdint.h>
#include <linux/filter.h>
#include <sys/types.h>

#include "cpol.h"

#define CORDON_VERSION "0.1"

#define EXIT_TIMEOUT 124
#define EXIT_CORDON 125
#define EXIT_NOEXEC 126
#define EXIT_NOTFOUND 127

#define ERRLEN 512
/* A snippet is source code; more than this is a mistake or an attack. */
#define SNIPPET_MAX (16u << 20)
/* Deepest directory tree the workdir cleanup descends (one fd each). */
#define WORKDIR_DEPTH_MAX 256

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
	int check, no_namespaces, quiet;
	int nice, idle;               /* --nice (0..19), --idle: the run's */
};

/* What was applied (the status report's "layers"). */
struct layers {
	int no_new_privs, seccomp, landlock_abi, landlock_errata;
	int landlock_fs, landlock_net, scope_abstract_unix, scope_signal;
	int caps_dropped, rlimits, env, fds_closed, new_session;
	unsigned long ns_flags;       /* CLONE_NEW* used */
	int private_tmp, private_shm;
};

enum outcome {
	OUT_EXITED, OUT_SIGNALED, OUT_TIMEOUT, OUT_SECCOMP, OUT_CPU,
	OUT_FSIZE, OUT_OOM, OUT_ERROR,
};

struct report {
	const char *policy;           /* NULL before the blob is read */
	const uint8_t *digest;        /* NULL before the blob is read */
	enum outcome outcome;
	int exit_code, signal;
	char reason[160];
	uint64_t stdout_bytes, stderr_bytes;
	int truncated;
	uint64_t wall_ms, user_ms, sys_ms, max_rss_kb;
	char workdir[4096];           /* "": none */
	int kept_workdir;
	struct layers layers;
};

struct rlim {
	int resource;                 /* RLIMIT_* */
	uint64_t value;
};

/* Everything the child needs, prepared by the parent: it parses nothing. */
struct launch {
	const struct cpol *pol;
	char **argv, **envp;
	struct rlim rlim[CPOL_RLIM_MAX];
	int nrlim;
	int ruleset_fd;               /* -1: Landlock unavailable (best effort) */
	uint64_t tmp_access;          /* rights on a private /tmp, /dev/shm */
	int workdir_fd;               /* O_PATH|O_DIRECTORY */
	const char *workdir;
	int null_fd;                  /* /dev/null, the child's stdin */
	int out_w, err_w, msg_w;      /* stdout, stderr, failure pipe */
	int st_w;                     /* init -> cordon: the payload's status */
	struct sock_filter *bpf;      /* the blob's seccomp program */
	unsigned short nbpf;
	unsigned long ns_flags;       /* CLONE_NEW* the clone got */
	int ns_required;              /* no namespace: refuse (private tmp) */
	int private_tmp, private_shm;
	int nice, idle;               /* lower the run's priority (opts) */
	char uid_map[32], gid_map[32]; /* "ID ID 1\n": our ids, mapped */
};

/* launch.c */
int launch(const struct opts *o, const struct cpol *pol, struct report *r,
    char *err);

/* landlock.c */
int landlock_probe(int *errata);
int landlock_check(const struct cpol *p, int abi, struct layers *l,
    char *err, size_t errlen);
int landlock_build(const struct cpol *p, int abi, int workdir_fd,
    const char *snippet_name, char *err, size_t errlen);
uint64_t landlock_fs_rights(int abi);
int landlock_add(int ruleset, int fd, uint64_t access);

/* workdir.c */
int workdir_make(const char *given, char *path, size_t pathlen,
    char *err, size_t errlen);
int snippet_copy(int in, const char *src, const char *dir, int fresh,
    char *name, size_t namelen, char *err, size_t errlen);
int workdir_remove(const char *path, const char *snippet, char *err,
    size_t errlen);

/* command.c: argv and environment of the child, and its rlimits */
struct command_rlim {
	const char *name;             /* as in the policy and --limit */
	int resource;                 /* RLIMIT_* */
};
extern const struct command_rlim command_rlims[CPOL_RLIM_MAX + 1];
char **command_argv(const struct cpol *p, const char *workdir,
    const char *snippet, char **args, int nargs);
char **command_envp(const struct cpol *p, const char *workdir);
int command_rlimits(const struct cpol *p, const uint64_t *cli,
    struct rlim *out);
void command_free(char **v);

/* run.c */
unsigned long run_ns_wanted(const struct cpol *p);
pid_t run_start(struct launch *ln, int *pidfd, char *err, size_t errlen);
int run_probe_ns(unsigned long flags);

/* supervise.c: the parent's side of a started run. */
struct sup {
	pid_t pid;
	int pidfd, sigfd, out_r, err_r;
	int st_r;                     /* the run's init's status pipe, or -1 */
	uint64_t deadline, cap;       /* CLOCK_MONOTONIC ms; output bytes */
};
uint64_t supervise_now_ms(void);
int supervise_write(int fd, const char *p, size_t n);
int supervise_exec(int msg_r, char *msg, size_t len);
int supervise(const struct sup *sp, struct report *r);

/* status.c */
int status_write(const struct report *r, int fd, const char *file,
    char *err, size_t errlen);

#endif
