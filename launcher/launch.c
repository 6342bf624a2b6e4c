/*
 * launch.c - one run, from a validated policy: make the workdir and copy
 * the snippet in, build the Landlock ruleset (opening every rule path),
 * prepare the child's command, environment, rlimits and filter, start it,
 * supervise it, fill the report, clean up.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "filter.h"
#include "kaudit.h"
#include "learnmode.h"
#include "landlock_compat.h"
#include "plan.h"

enum { P_OUT, P_ERR, P_MSG, P_ST, NPIPES };

struct res {
	char workdir[4096];
	char snippet[64];
	int made, wfd;
	int lock;                     /* a fresh workdir's flock, or -1 */
	int given;                    /* wfd: a warm request's --workdir */
	int pipe[NPIPES][2];          /* [0] read end, [1] write end */
	int mnt_sock[2];              /* the run tmpfs's way to cordon */
	int mnt;                      /* the run tmpfs, or -1 */
	int notify[2];                /* [0] cordon's end, [1] init's */
	int go[2], ready[2];          /* a warm spare's (cordon.h) */
	struct egress_run egress;     /* named hosts: the run's proxy */
	struct sup sup;
	struct launch ln;
	struct llwatch llw;           /* --landlock-watch (llwatch.c) */
	struct run_plan *pl;          /* ln.plan, which a warm request's
	                               * options re-plan (plan_request) */
};

static void closefd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Open the snippet (so a missing one fails first), make the workdir,
 * copy the snippet in. */
static int files_make(const struct opts *o, struct res *s, char *err)
{
	/* A warm spare's is empty until its request (warmhold.c). */
	int in = o->warm_ctl >= 0 ? dup(o->null_fd) :
	    snippet_open(o->snippet, err, ERRLEN);
	int rc = -1;

	if (in < 0) {
		if (o->warm_ctl >= 0)
			snprintf(err, ERRLEN, "dup: %s", strerror(errno));
		return -1;
	}
	if (o->workdir ? workdir_make(o->workdir, s->workdir,
	    sizeof(s->workdir), err, ERRLEN) < 0 : (s->lock = workdir_fresh(
	    o->keep_workdir, s->workdir, sizeof(s->workdir), err, ERRLEN)) < 0)
		goto close_in;
	s->made = !o->workdir;
	s->wfd = open(s->workdir, O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (s->wfd < 0) {
		snprintf(err, ERRLEN, "%.400s: %s", s->workdir,
		    strerror(errno));
		goto close_in;
	}
	rc = snippet_copy(in, o->snippet, s->workdir, s->made, s->snippet,
	    sizeof(s->snippet), err, ERRLEN);
close_in:
	if (in > 0)
		close(in);
	return rc;
}

/* The plan's filter (plan_filter chose it, and it fits), made and proven
 * by filter.c: with its listener cordon KNOWS which call the filter
 * stopped (denials.c), answers an errno with the policy's own, and for a
 * kill ends the run without answering.  Cordon's text across a 4 GiB
 * line (this process's fact, not the plan's) leaves no listener (the
 * status says so; learn mode refuses the run).  A warm run's text range
 * is empty (launcher/build.mk): no call is let through as cordon's.
 * A cold run's end passes credentials: the payload's hello (fdpass.c). */
static int notify_prepare(struct launch *ln, struct res *s, char *err)
{
	static const enum filter_prog prog[] = { [FILTER_NOTIFY] =
	    FPROG_NOTIFY, [FILTER_LEARN] = FPROG_LEARN, [FILTER_LLWATCH] =
	    FPROG_LLWATCH };
	enum plan_filter pf = ln->plan->filter;
	enum filter_result fr;

	ln->notify_skipped = ln->plan->notify_skipped;
	if (pf == FILTER_BLOB)
		return 0;
	fr = filter_make(prog[pf], ln->pol, &ln->bpf_notify,
	    &ln->nbpf_notify, err, ERRLEN);
	s->llw.on = pf == FILTER_LLWATCH && fr == FILTER_MADE;
	ln->notify_skipped |= fr == FILTER_NO_FIT;
	if (fr == FILTER_NO_FIT && pf == FILTER_LEARN)
		snprintf(err, ERRLEN, "learn mode's filter: cordon's text "
		    "crosses a 4 GiB line");
	if (fr != FILTER_MADE)
		return fr == FILTER_FAILED || pf == FILTER_LEARN ? -1 : 0;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    s->notify) < 0 || (!warm_resume && setsockopt(s->notify[0],
	    SOL_SOCKET, SO_PASSCRED, &(int){ 1 }, sizeof(int)) < 0)) {
		snprintf(err, ERRLEN, "seccomp listener: %s", strerror(errno));
		return -1;
	}
	ln->notify_w = s->notify[1];
	return 0;
}

/* A warm spare's: the run's request (its stdin) and "warm" (its fd 3). */
static int spare_pipes(const struct opts *o, struct res *s, char *err)
{
	struct launch *ln = &s->ln;

	ln->go_r = ln->ready_w = ln->go_w = ln->ready_r = -1;
	if (o->warm_ctl < 0)
		return 0;
	if (pipe2(s->go, O_CLOEXEC) < 0 || pipe2(s->ready, O_CLOEXEC) < 0) {
		snprintf(err, ERRLEN, "pipe: %s", strerror(errno));
		return -1;
	}
	ln->go_r = s->go[0];
	ln->go_w = s->go[1];
	ln->ready_r = s->ready[0];
	ln->ready_w = s->ready[1];
	return 0;
}

/* The child's descriptors, command and filter, as the plan says. */
static int child_prepare(const struct opts *o, const struct cpol *p,
    const struct run_plan *pl, struct res *s, char *err)
{
	struct launch *ln = &s->ln;
	char path[4200];
	int j;

	ln->pol = p;
	ln->plan = pl;
	ln->workdir = s->workdir;
	ln->workdir_fd = s->wfd;
	ln->snippet_name = s->snippet;
	ln->null_fd = o->keep_stdin ? 0 : o->null_fd;
	ln->nice = o->nice;
	ln->idle = o->idle;
	snprintf(path, sizeof(path), "%s/%s", s->workdir, s->snippet);
	ln->argv = command_argv(p, s->workdir, path, o->args, o->nargs);
	ln->envp = command_envp(p, s->workdir);
	ln->ns_flags = pl->ns_flags;
	s->egress.observe = pl->egress_observe;
	ln->notify_w = -1;
	if (spare_pipes(o, s, err) < 0)
		return -1;
	ln->bpf = filter_sock(p->insns, p->ninsns);
	if (!ln->argv || !ln->envp || !ln->bpf) {
		snprintf(err, ERRLEN, "out of memory");
		return -1;
	}
	ln->nbpf = (unsigned short)p->ninsns;  /* bpf_check: <= 4096 */
	if (notify_prepare(ln, s, err) < 0)
		return -1;
	if (ln->ns_flags) {
		snprintf(ln->uid_map, sizeof(ln->uid_map), "%u %u 1\n",
		    getuid(), getuid());
		snprintf(ln->gid_map, sizeof(ln->gid_map), "%u %u 1\n",
		    getgid(), getgid());
		ln->map_step = ns_map_step();
	}
	ln->private_tmp = pl->private_tmp;
	ln->private_shm = pl->private_shm;
	ln->own_inodes = runfs_own_inodes(s->workdir, ln->private_tmp,
	    ln->private_shm);
	for (j = 0; j < (ln->ns_flags ? NPIPES : P_ST); j++)
		if (pipe2(s->pipe[j], O_CLOEXEC) < 0) {
			snprintf(err, ERRLEN, "pipe: %s", strerror(errno));
			return -1;
		}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    s->mnt_sock) < 0) {
		snprintf(err, ERRLEN, "socketpair: %s", strerror(errno));
		return -1;
	}
	ln->mnt_w = s->mnt_sock[1];
	if (egress_prepare(&s->egress, p, pl->proxy_procs, o->resolve,
	    o->nresolve, &(struct egress_creds){ o->cred, o->ncred,
	    o->upstream_ca, s->wfd }, err, ERRLEN) < 0 || (pl->env_proxy &&
	    command_proxy_env(&ln->envp, pl->env_ca ? s->workdir : NULL) < 0))
		return -1;
	ln->net_w = s->egress.sock[1];
	ln->out_w = s->pipe[P_OUT][1];
	ln->err_w = s->pipe[P_ERR][1];
	ln->msg_w = s->pipe[P_MSG][1];
	ln->st_w = s->pipe[P_ST][1];
	return 0;
}

static void layers_fill(struct layers *l, const struct launch *ln)
{
	l->no_new_privs = l->seccomp = l->caps_dropped = l->env = 1;
	l->fds_closed = l->new_session = 1;
	l->rlimits = ln->plan->nrlim > 0;
	if (ln->ruleset_fd < 0)
		l->landlock_fs = l->landlock_net = l->scope_signal =
		    l->scope_abstract_unix = 0;
	l->ns_flags = ln->ns_flags;
	l->private_tmp = ln->private_tmp;
	l->private_shm = ln->private_shm;
	l->workdir_noexec = (ln->ns_flags & CLONE_NEWNS) != 0;  /* runfs.c */
}

/* The run's CPU time limits in ms, soft and hard (0: none): what the
 * child sets (command_rlimit_pair), or cordon's own where the policy
 * sets none (the child inherits them). */
static void cpu_limits(const struct launch *ln, struct sup *sp)
{
	struct rlimit own, rl;
	int i;

	if (getrlimit(RLIMIT_CPU, &own) < 0)
		own.rlim_cur = own.rlim_max = RLIM_INFINITY;
	rl = own;
	for (i = 0; i < ln->plan->nrlim; i++)
		if (ln->plan->rlim[i].resource == RLIMIT_CPU)
			command_rlimit_pair(RLIMIT_CPU, ln->plan->rlim[i].value,
			    &own, &rl);
	sp->cpu_limit_ms = rl.rlim_cur >= RLIM_INFINITY / 1000 ? 0 :
	    rl.rlim_cur * 1000;
	sp->cpu_hard_ms = rl.rlim_max >= RLIM_INFINITY / 1000 ? 0 :
	    rl.rlim_max * 1000;
}

/* The hold step (o->hold: a warm spare waits here, set up, for its
 * request), then what it brought put in place. */
static int hold(struct opts *o, const struct cpol *p, struct res *s,
    struct report *r, char *err)
{
	struct held_run w = { .ctl = o->warm_ctl, .pidfd = s->sup.pidfd,
	    .ready_r = s->ready[0], .go_w = s->go[1], .mnt = s->mnt,
	    .wfd = s->wfd, .snippet = s->snippet, .given = -1,
	    .notify_sock = s->sup.notify_r, .listener = -1, .run = -1 };
	int rc;

	closefd(&s->go[0]);
	closefd(&s->ready[1]);
	rc = o->hold(o, &w, r, err);
	if (rc == 0)          /* the request's options: the plan's bounds */
		rc = plan_request(s->pl, p, o, err, ERRLEN);
	s->sup.listener = w.listener;  /* supervise() answers it */
	if (rc < 0)
		closefd(&s->sup.listener);
	if (rc == 0 && o->keep_stdin) {   /* --stdin: supervise's feed */
		s->sup.feed_w = s->go[1];
		s->go[1] = -1;
	}
	closefd(&s->go[1]);
	closefd(&s->ready[0]);
	if (w.given >= 0) {           /* outputs go there (finish) */
		closefd(&s->wfd);
		s->wfd = w.given;
		s->given = 1;
	}
	return rc;
}

/* The timeout and output cap: from here on, the run's, as the plan says
 * (a warm spare's request re-planned them: hold). */
static void bounds_arm(const struct opts *o, struct res *s)
{
	struct sup *sp = &s->sup;

	sp->deadline = s->ln.plan->timeout_ms;
	sp->frames = o->session;
	sp->cap = s->ln.plan->output_cap;
	sp->deadline += clock_now_ms();
	sp->truncate = s->ln.plan->truncate;
	cpu_limits(&s->ln, sp);
}

/* The kernel refused the clone's namespaces: the plan without them
 * (plan_ns_refused), applied, and the clone again. */
static pid_t ns_refused_start(const struct opts *o, const struct cpol *p,
    struct res *s, char *err)
{
	char why[240];

	ns_cause(errno, why, sizeof(why));      /* the clone's */
	if (plan_ns_refused(s->pl, p, o, why, err, ERRLEN) < 0)
		return -1;
	s->ln.ns_flags = s->pl->ns_flags;
	s->ln.private_tmp = s->pl->private_tmp;
	s->ln.private_shm = s->pl->private_shm;
	if (shm_redirect(&s->ln, s->pl, err) < 0)
		return -1;
	return run_start(&s->ln, &s->sup.pidfd, err, ERRLEN);
}

/* The kernel's audit records of the run (audit.c, kaudit/): the group joined
 * before the clone, so that none of the run's records is missed. */
static void audit_start(struct res *s)
{
	int abi = s->ln.plan->layers.landlock_abi, on = s->ln.ruleset_fd >= 0;

	s->sup.audit = audit_open(abi, on);
	if (s->sup.audit->fd >= 0)
		audit_join(s->sup.audit, abi, on);
	s->sup.audit->named = s->ln.net_w >= 0;
	if (s->llw.on)
		audit_watched(s->sup.audit);
	s->ln.audit_fd = s->sup.audit->fd;
	s->ln.ll_log = audit_restrict_flags(s->sup.audit);
}

/* The Landlock watch (llwatch.c): the rules as the run sees them; on
 * only with the listener (a PID namespace). */
static void llwatch_started(struct res *s, const struct opts *o,
    const struct report *r)
{
	struct llwatch *w = &s->llw;
	struct audit *a = s->sup.audit;

	w->on = w->on && s->ln.plan->filter == FILTER_LLWATCH;  /* re-planned */
	if (o->ll_watch && !w->on) {  /* the plan's why, or this text's */
		a->watch = 0;
		a->by = NULL;
		snprintf(a->why, sizeof(a->why), "%s", s->ln.plan->llwatch_why ?
		    s->ln.plan->llwatch_why : "cordon's text crosses a 4 GiB "
		    "line: no listener");
	}
	w->pol = s->ln.pol;
	w->handled = s->ln.plan->ll_handled;
	w->tmp_access = s->ln.plan->tmp_access;
	w->private_tmp = s->ln.private_tmp;
	w->private_shm = s->ln.private_shm;
	w->net = r->layers.landlock_abi >= 4;
	w->workdir = s->ln.workdir;
	w->snippet = s->ln.snippet_name;
	s->sup.llw = w->on ? w : NULL;
}

/* The workdir cordon made, once its files are in the run tmpfs and the
 * run sees it below its private /tmp (run_workdir_private): removed
 * now, so that a cordon killed during the run leaves no directory on the
 * host (one killed before this point leaves one for the next run's
 * sweep, workdir.c).  Returns 0, or -1 with err. */
static int early_remove(const struct opts *o, struct res *s, char *err)
{
	if (!s->made || s->given || o->keep_workdir || s->mnt < 0 ||
	    o->warm_ctl >= 0 || !run_workdir_private(&s->ln))
		return 0;
	if (workdir_remove(s->workdir, s->snippet, err, ERRLEN) < 0)
		return -1;
	s->made = 0;
	return 0;
}

static int go(struct opts *o, const struct cpol *p, struct res *s,
    struct report *r, char *err)
{
	struct sup *sp = &s->sup;
	int status = 0, i;

	if (signals_take(&sp->sigfd) < 0 ||
	    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
		snprintf(err, ERRLEN, "supervisor set-up: %s", strerror(errno));
		return EXIT_CORDON;
	}
	audit_start(s);
	sp->pid = run_start(&s->ln, &sp->pidfd, err, ERRLEN);
	if (sp->pid == RUN_NS_REFUSED)
		sp->pid = ns_refused_start(o, p, s, err);
	sp->audit->pid = sp->pid;
	sp->audit->private_tmp = s->ln.private_tmp;
	sp->audit->private_shm = s->ln.private_shm;
	r->audit = sp->audit;
	/* The plan's filter (re-planned if the clone had no namespace),
	 * unless this process's text left the run without its listener. */
	sp->den = denials_init(o->policy, p, (s->ln.ns_flags &
	    CLONE_NEWPID) && !s->ln.notify_skipped, s->ln.notify_skipped &&
	    !s->ln.plan->notify_skipped ? "cordon's text crosses a 4 GiB "
	    "line: no listener" : s->ln.plan->filter_why);
	sp->prog = p->insns;
	sp->nprog = p->ninsns;
	sp->learn = o->observe != NULL;
	learn_begin(sp->learn ? p : NULL, s->workdir);
	llwatch_started(s, o, r);
	r->denials = sp->den;
	if (sp->pid < 0)
		return EXIT_CORDON;
	layers_fill(&r->layers, &s->ln);   /* the child applies them */
	bounds_started(s->ln.plan, &r->bounds);
	closefd(&s->mnt_sock[1]);
	for (i = 0; i < NPIPES; i++)
		closefd(&s->pipe[i][1]);
	closefd(&s->notify[1]);
	closefd(&s->egress.sock[1]);
	sp->notify_r = s->ln.ns_flags & CLONE_NEWPID ? s->notify[0] : -1;
	if (supervise_exec(s->pipe[P_MSG][0], err, ERRLEN)) {
		/* Failed before its exec: nothing ran, nothing applied. */
		r->layers = (struct layers){ .landlock_abi = r->layers.
		    landlock_abi, .landlock_errata = r->layers.landlock_errata };
		while (waitpid(sp->pid, &status, 0) < 0 && errno == EINTR)
			;
		r->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) :
		    EXIT_CORDON;
		return r->exit_code;
	}
	/* Sent before the exec, so here now when there is one. */
	if (s->ln.ns_flags & CLONE_NEWNS)
		s->mnt = fdpass_recv(s->mnt_sock[0], MSG_DONTWAIT);
	if (early_remove(o, s, err) < 0 ||
	    egress_go(&s->egress, o->null_fd, err, ERRLEN) < 0 ||
	    (o->hold && hold(o, p, s, r, err) < 0)) {
		kill(sp->pid, SIGKILL);
		while (waitpid(sp->pid, &status, 0) < 0 && errno == EINTR)
			;
		return EXIT_CORDON;
	}
	bounds_arm(o, s);
	sp->cg = &s->ln.cg;
	sp->watch_fd = -1;
	if (r->bounds.by[B_DISK] == BY_WATCH ||
	    r->bounds.by[B_FILES] == BY_WATCH) {
		sp->watch_fd = watch_arm(s->wfd);
		sp->watch_bytes = r->bounds.limit[B_DISK];
		sp->watch_files = r->bounds.limit[B_FILES];
	}
	sp->out_r = s->pipe[P_OUT][0];
	sp->err_r = s->pipe[P_ERR][0];
	sp->st_r = s->ln.ns_flags & CLONE_NEWPID ? s->pipe[P_ST][0] : -1;
	supervise(sp, r);
	s->pipe[P_OUT][0] = s->pipe[P_ERR][0] = -1;   /* closed at EOF */
	return r->exit_code;
}

/* After the run: what the bounds saw, the cgroup gone, and the outputs
 * copied out of the run tmpfs when the caller keeps the workdir.
 * Returns 0, or -1 with err (something left behind, or lost). */
static int finish(const struct opts *o, struct res *s, struct report *r,
    char *err)
{
	struct runfs_budget *b = &r->copyback;
	int w, rc;

	rc = bounds_finish(&s->ln, &r->bounds, s->mnt, s->wfd, err);
	if (s->mnt < 0 || !(o->keep_workdir || o->workdir))
		return rc;
	/* What comes back is bounded as the run was: hard links and holes
	 * must not multiply the bound in the caller's folder. */
	runfs_budget_init(b, r->bounds.limit[B_DISK], r->bounds.limit[B_FILES],
	    s->snippet);
	r->copied_back = 1;
	w = openat(s->mnt, "w", O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (w < 0 || runfs_copy(w, s->wfd, b) < 0) {
		snprintf(err, ERRLEN, "copying the outputs out of the run "
		    "tmpfs into %.300s: %s", s->workdir, strerror(errno));
		rc = -1;
	} else if ((b->skipped || b->over) && !o->quiet) {
		fprintf(stderr, "cordon: %llu entries of the workdir not "
		    "copied back (links, devices, fifos, sockets, or deeper "
		    "than %d levels), %llu past limit disk or limit files\n",
		    (unsigned long long)b->skipped, RUNFS_DEPTH_MAX,
		    (unsigned long long)b->over);
	}
	if (w >= 0)
		close(w);
	return rc;
}

/* Remove what cordon made: the workdir it created, or its copy of the
 * snippet in the caller's.  -1 with msg when something stays. */
static int leftovers(const struct res *s, char *msg, size_t len)
{
	if (s->made && (!s->given || unlinkat(s->wfd, s->snippet, 0) == 0 ||
	    errno == ENOENT))
		return workdir_remove(s->workdir, s->snippet, msg, len);
	if (s->made) {
		snprintf(msg, len, "cannot remove the snippet's copy from "
		    "the warm run's --workdir: %s", strerror(errno));
		return -1;
	}
	if (s->wfd < 0 || !s->snippet[0] ||
	    unlinkat(s->wfd, s->snippet, 0) == 0 || errno == ENOENT)
		return 0;
	snprintf(msg, len, "cannot remove the snippet's copy %.400s/%s: %s",
	    s->workdir, s->snippet, strerror(errno));
	return -1;
}

/* Nothing made yet: every descriptor -1. */
static void res_init(struct res *s)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->wfd = s->sup.sigfd = s->sup.pidfd = s->ln.ruleset_fd = s->lock = -1;
	s->sup.listener = s->sup.feed_w = -1;
	s->mnt = s->mnt_sock[0] = s->mnt_sock[1] = -1;
	s->ln.cg.procs[0] = s->ln.cg.procs[1] = -1;
	for (i = 0; i < NPIPES; i++)
		s->pipe[i][0] = s->pipe[i][1] = -1;
	s->notify[0] = s->notify[1] = s->sup.notify_r = -1;
	s->go[0] = s->go[1] = s->ready[0] = s->ready[1] = -1;
	s->ln.net_w = -1;
	s->ln.audit_fd = -1;
	egress_init(&s->egress);
}

int launch(struct opts *o, const struct cpol *p, struct run_plan *pl,
    struct report *r, char *err)
{
	struct res s;
	int rc = EXIT_CORDON, i;
	char msg[ERRLEN];

	res_init(&s);
	s.pl = pl;
	if (files_make(o, &s, err) < 0)
		goto cleanup;
	memcpy(r->workdir, s.workdir, sizeof(r->workdir));
	/* The plan's: none in learn mode, or below ABI 1 (best effort). */
	if (pl->landlock && (s.ln.ruleset_fd = landlock_build(p,
	    pl->layers.landlock_abi, err, ERRLEN)) == -1)
		goto cleanup;
	if (s.ln.ruleset_fd < 0)
		s.ln.ruleset_fd = -1;
	if (child_prepare(o, p, pl, &s, err) < 0 ||
	    shm_redirect(&s.ln, pl, err) < 0 ||
	    bounds_prepare(pl, p, &s.ln, &r->bounds, err) < 0)
		goto cleanup;
	rc = go(o, p, &s, r, err);
	if (r->truncated && !o->quiet)
		fprintf(stderr, "\ncordon: output truncated at the %llu-byte "
		    "cap (stdout and stderr together)%s\n", (unsigned long long)
		    s.sup.cap, r->outcome == OUT_OUTPUT ? ": the run was killed" :
		    "");
	if (finish(o, &s, r, err) < 0)
		rc = EXIT_CORDON;
cleanup:
	if (s.made && o->keep_workdir) {
		r->kept_workdir = 1;
		snprintf(r->kept_reason, sizeof(r->kept_reason),
		    "--keep-workdir");
		if (!o->quiet)
			sink_say("cordon: kept %s", s.workdir);
	} else if (leftovers(&s, msg, sizeof(msg)) < 0) {
		/* Never a success with something left behind. */
		sink_say("cordon: %s", msg);
		r->kept_workdir = 1;
		snprintf(r->kept_reason, sizeof(r->kept_reason), "%s", msg);
		rc = EXIT_CORDON;
	}
	for (i = 0; i < NPIPES; i++) {
		closefd(&s.pipe[i][0]);
		closefd(&s.pipe[i][1]);
	}
	closefd(&s.mnt_sock[0]);
	closefd(&s.mnt_sock[1]);
	late_keep(&s.mnt);            /* late.c: closed after the status */
	if (cgroup_remove(&s.ln.cg, msg, sizeof(msg)) < 0) {
		sink_say("cordon: %s", msg);
		rc = EXIT_CORDON;
	}
	closefd(&s.notify[0]);
	closefd(&s.notify[1]);
	for (i = 0; i < 2; i++) {
		closefd(&s.go[i]);
		closefd(&s.ready[i]);
	}
	r->egress = s.egress.on;
	egress_end(&s.egress, &r->net);
	late_keep(&s.wfd);
	late_keep(&s.lock);           /* after the removal */
	closefd(&s.sup.sigfd);
	closefd(&s.sup.pidfd);
	closefd(&s.ln.ruleset_fd);
	command_free(s.ln.argv);
	command_free(s.ln.envp);
	free(s.ln.bpf);
	free(s.ln.bpf_notify);
	return rc;
}
