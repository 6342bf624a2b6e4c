/*
 * supervise.h - the supervision room's one header: the parent's side of a
 * started run (supervise.c: timeout, output, reaping, the outcome), the
 * relay of its output (relay.c), the caller's descriptors written without
 * blocking (sink.c), a warm run's --stdin (feed.c), and what init sends
 * cordon when the payload ends (initend.c).  Included by cordon.h; it
 * includes nothing of the launcher's (the types it points to are
 * declared, not defined, here), so the arrow goes one way.
 */
#ifndef CORDON_SUPERVISE_H
#define CORDON_SUPERVISE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct audit;
struct cgroup;
struct cpol_insn;
struct denials;
struct llwatch;
struct pollfd;
struct report;

/* supervise.c: the parent's side of a started run. */
struct sup {
	pid_t pid;
	int pidfd, sigfd, out_r, err_r;
	int st_r;                     /* the run's init's status pipe, or -1 */
	int notify_r;                 /* where the listener comes, or -1 */
	int listener;                 /* the listener if already taken (a
	                               * warm spare's hold), or -1 */
	uint64_t deadline, cap;       /* CLOCK_MONOTONIC ms; output bytes */
	int watch_fd;                 /* a workdir to watch, or -1 */
	uint64_t watch_bytes, watch_files;  /* its bounds */
	int truncate;                 /* past the cap: drop, keep running */
	int frames;                   /* --session: stdout not capped */
	uint64_t cpu_limit_ms;        /* RLIMIT_CPU of the run: soft, hard */
	uint64_t cpu_hard_ms;         /*   (command_rlimit_pair); 0: none */
	const struct cgroup *cg;      /* the run's, for its OOM kills */
	const struct cpol_insn *prog; /* the blob's program, to tell what */
	size_t nprog;                 /*   a notified call was refused */
	struct denials *den;
	struct audit *audit;          /* the kernel's audit records */
	int learn;                    /* record and let through (learn.c) */
	struct llwatch *llw;          /* --landlock-watch (llwatch.c): on */
	int feed_w;                   /* a warm run's stdin pipe under
	                               * --stdin (feed.c; closed by
	                               * supervise), or -1 */
};
/* How long cordon waits, after the run, for the caller to take the
 * run's remaining output, then for it to take the status report. */
#define SUPERVISE_FLUSH_MS 2000
#define STATUS_WAIT_MS 5000
/* What init sends cordon: the payload's wait status and CPU time. */
struct fate {
	int32_t status;
	uint32_t pad;
	uint64_t cpu_us;              /* the payload's, clock_cpu_us */
};
/* initend.c: init, the payload started: (maps >= 0, a warm run's init:
 * its /proc/self/maps) the template's memory shed first, every signal
 * handler reset; then the payload's fate to st_w, and exit with its
 * status.  Makes system calls through syscall(2) only. */
void init_end(pid_t payload, int st_w, int maps) __attribute__((noreturn));
int supervise_exec(int msg_r, char *msg, size_t len);
void supervise(const struct sup *sp, struct report *r);

/* feed.c: a warm run's --stdin, the caller's relayed to the run. */
#define FEED_PENDING 65536            /* read from the caller, not yet
                                       * taken by the run */
struct feed {
	int in, out;                  /* cordon's fd 0, the run's pipe */
	size_t off, len;              /* pending: buf[off, off+len) */
	char buf[FEED_PENDING];
};
void feed_open(struct feed *f, int in, int out);
void feed_fds(const struct feed *f, struct pollfd *pf);
void feed_step(struct feed *f, const struct pollfd *pf);
void feed_end(struct feed *f);

/* sink.c: the caller's descriptors, written without blocking. */
enum sink_mode { SINK_GONE, SINK_WRITE, SINK_SEND, SINK_POLL };
struct sink {
	int fd, own;                  /* own: a descriptor sink_open made */
	enum sink_mode mode;
};
void sink_open(int fd, struct sink *s);
void sink_close(struct sink *s);
ssize_t sink_put(struct sink *s, const char *p, size_t n);
int sink_wait(const struct sink *s, uint64_t deadline);
int sink_write_all(struct sink *s, const char *p, size_t n,
    uint64_t deadline);
void sink_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *sink_shown(const char *s, char *buf, size_t len);
int sink_file(const char *path, const char *p, size_t n, uint64_t deadline,
    char *err, size_t errlen);

/* relay.c: the run's output relayed to the caller (supervise()'s loop) */
/* Bytes of one stream read from the run and not yet taken by the caller.
 * While it is full, cordon stops reading that stream, so the snippet's
 * writes wait (as they would on any pipe) but cordon never does. */
#define RELAY_PENDING 65536
struct stream {
	int in;                       /* the run's pipe; -1 at EOF */
	struct sink out;              /* cordon's stdout or stderr */
	char *pend;
	size_t off, len;              /* pending bytes: pend[off, off+len) */
	uint64_t *count;              /* everything the snippet wrote */
};
struct relay {
	struct stream s[2];
	uint64_t cap, taken;          /* taken: bytes kept for delivery */
	int truncate, over;           /* over: the snippet passed the cap */
	int frames;                   /* --session: stdout is not capped */
	struct report *r;
};
void relay_fds(const struct relay *rl, struct pollfd *pf, int drain);
void relay_step(struct relay *rl, const struct pollfd *pf, int drain);
void relay_finish(struct relay *rl);

#endif
