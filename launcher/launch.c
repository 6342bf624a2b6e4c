/*
 * launch.c - one run, from a validated policy: read the snippet, make the
 * workdir and copy the snippet in, build the Landlock ruleset (opening
 * every rule path), prepare the child's command, environment, rlimits and
 * filter, start it, supervise it, fill the report, clean up.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cordon.h"
#include "landlock_compat.h"

/* Rights on a private /tmp and /dev/shm: files and directories, no exec,
 * no devices, sockets, fifos or links. */
#define TMP_RIGHTS (CORDON_LL_FS_READ_FILE | CORDON_LL_FS_READ_DIR | \
    CORDON_LL_FS_WRITE_FILE | CORDON_LL_FS_TRUNCATE | \
    CORDON_LL_FS_MAKE_REG | CORDON_LL_FS_MAKE_DIR | \
    CORDON_LL_FS_REMOVE_FILE | CORDON_LL_FS_REMOVE_DIR)

struct res {
	char workdir[4096];
	char snippet[64];
	int made, wfd, sigfd, pidfd;
	int pipe_out[2], pipe_err[2], pipe_msg[2];
	struct launch ln;
};

/* The kernel's count of OOM kills, to tell an OOM kill from a SIGKILL. */
static long oom_kills(void)
{
	char buf[8192], *p;
	ssize_t n;
	int fd = open("/proc/vmstat", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, "\noom_kill ");
	return p ? strtol(p + 10, NULL, 10) : -1;
}

static int signals_block(int *sigfd)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR ||
	    sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -1;
	*sigfd = signalfd(-1, &set, SFD_CLOEXEC);
	return *sigfd < 0 ? -1 : 0;
}

static int files_make(const struct opts *o, struct res *s, char *err)
{
	size_t len = 0;
	char *code = snippet_read(o->snippet, &len, err, ERRLEN);
	int rc = -1;

	if (!code)
		return -1;
	if (workdir_make(o->workdir, s->workdir, sizeof(s->workdir), err,
	    ERRLEN) < 0)
		goto free_code;
	s->made = !o->workdir;
	s->wfd = open(s->workdir, O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (s->wfd < 0) {
		snprintf(err, ERRLEN, "%.400s: %s", s->workdir,
		    strerror(errno));
		goto free_code;
	}
	s->snippet[0] = s->made ? '\0' : 'x';
	rc = snippet_write(s->wfd, code, len, s->snippet, sizeof(s->snippet),
	    err, ERRLEN);
free_code:
	free(code);
	return rc;
}

static int child_prepare(const struct opts *o, const struct cpol *p,
    struct res *s, char *err)
{
	struct launch *ln = &s->ln;
	char path[4200];
	uint32_t i;

	ln->pol = p;
	ln->workdir = s->workdir;
	ln->workdir_fd = s->wfd;
	ln->uid = getuid();
	ln->gid = getgid();
	ln->tmp_access = TMP_RIGHTS & landlock_fs_rights(4);
	snprintf(path, sizeof(path), "%s/%s", s->workdir, s->snippet);
	ln->argv = command_argv(p, s->workdir, path, o->args, o->nargs);
	ln->envp = command_envp(p, s->workdir);
	ln->nrlim = command_rlimits(p, o->limit, ln->rlim);
	ln->bpf = calloc(p->ninsns, sizeof(*ln->bpf));
	if (!ln->argv || !ln->envp || !ln->bpf) {
		snprintf(err, ERRLEN, "out of memory");
		return -1;
	}
	for (i = 0; i < p->ninsns; i++) {
		ln->bpf[i].code = p->insns[i].code;
		ln->bpf[i].jt = p->insns[i].jt;
		ln->bpf[i].jf = p->insns[i].jf;
		ln->bpf[i].k = p->insns[i].k;
	}
	ln->nbpf = (unsigned short)p->ninsns;
	ln->ns_flags = o->no_namespaces ? 0 : ns_wanted(p);
	ln->ns_required = (p->flags & (CPOL_F_PRIVATE_TMP |
	    CPOL_F_PRIVATE_SHM)) && !(p->flags & CPOL_F_BEST_EFFORT_NS);
	ln->private_tmp = (p->flags & CPOL_F_PRIVATE_TMP) != 0;
	ln->private_shm = (p->flags & CPOL_F_PRIVATE_SHM) != 0;
	if (pipe2(s->pipe_out, O_CLOEXEC) < 0 ||
	    pipe2(s->pipe_err, O_CLOEXEC) < 0 ||
	    pipe2(s->pipe_msg, O_CLOEXEC) < 0) {
		snprintf(err, ERRLEN, "pipe: %s", strerror(errno));
		return -1;
	}
	ln->out_w = s->pipe_out[1];
	ln->err_w = s->pipe_err[1];
	ln->msg_w = s->pipe_msg[1];
	return 0;
}

static void layers_fill(struct layers *l, const struct launch *ln)
{
	l->no_new_privs = l->seccomp = l->caps_dropped = l->env = 1;
	l->fds_closed = l->new_session = 1;
	l->rlimits = ln->nrlim > 0;
	if (ln->ruleset_fd < 0)
		l->landlock_fs = l->landlock_net = l->scope_signal =
		    l->scope_abstract_unix = 0;
	l->ns_user = (ln->ns_flags & CLONE_NEWUSER) != 0;
	l->ns_net = (ln->ns_flags & CLONE_NEWNET) != 0;
	l->ns_mnt = (ln->ns_flags & CLONE_NEWNS) != 0;
	l->ns_pid = (ln->ns_flags & CLONE_NEWPID) != 0;
	l->private_tmp = ln->private_tmp;
	l->private_shm = ln->private_shm;
}

/* Start the child and supervise it; returns cordon's exit status. */
static int go(const struct opts *o, const struct cpol *p, struct res *s,
    struct report *r, char *err)
{
	uint64_t deadline = p->timeout_ms, cap = p->output_cap;
	long ooms = oom_kills();
	int status, e, how;
	pid_t pid;

	if (o->timeout_ms && o->timeout_ms < deadline)
		deadline = o->timeout_ms;
	if (o->output_cap < cap)
		cap = o->output_cap;
	deadline += supervise_now_ms();
	if (signals_block(&s->sigfd) < 0 ||
	    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
		snprintf(err, ERRLEN, "supervisor set-up: %s", strerror(errno));
		return EXIT_CORDON;
	}
	pid = run_start(&s->ln, &s->pidfd, err, ERRLEN);
	layers_fill(&r->layers, &s->ln);
	if (pid < 0)
		return EXIT_CORDON;
	close(s->pipe_out[1]);
	close(s->pipe_err[1]);
	close(s->pipe_msg[1]);
	s->pipe_out[1] = s->pipe_err[1] = s->pipe_msg[1] = -1;
	e = supervise_exec(s->pipe_msg[0], err, ERRLEN);
	if (e) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		r->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) :
		    EXIT_CORDON;
		return r->exit_code;
	}
	how = supervise(pid, s->pidfd, s->pipe_out[0], s->pipe_err[0],
	    s->sigfd, deadline, cap, r);
	s->pipe_out[0] = s->pipe_err[0] = -1;
	if (how == 0 && r->signal == SIGKILL && ooms >= 0 &&
	    oom_kills() > ooms) {
		r->outcome = OUT_OOM;
		snprintf(r->reason, sizeof(r->reason), "killed by the kernel's"
		    " out-of-memory killer");
	}
	return r->exit_code;
}

static void closefd(int fd)
{
	if (fd >= 0)
		close(fd);
}

int launch(const struct opts *o, const struct cpol *p, struct report *r,
    char *err)
{
	struct res s;
	int rc = EXIT_CORDON, i;
	char msg[ERRLEN];

	memset(&s, 0, sizeof(s));
	s.wfd = s.sigfd = s.pidfd = s.ln.ruleset_fd = -1;
	for (i = 0; i < 2; i++)
		s.pipe_out[i] = s.pipe_err[i] = s.pipe_msg[i] = -1;
	if (files_make(o, &s, err) < 0)
		goto cleanup;
	memcpy(r->workdir, s.workdir, sizeof(r->workdir));
	s.ln.ruleset_fd = landlock_build(p, r->layers.landlock_abi, s.wfd,
	    s.snippet, err, ERRLEN);
	if (s.ln.ruleset_fd == -1)
		goto cleanup;
	if (s.ln.ruleset_fd == -2)
		s.ln.ruleset_fd = -1;
	if (child_prepare(o, p, &s, err) < 0)
		goto cleanup;
	rc = go(o, p, &s, r, err);
cleanup:
	if (s.made && o->keep_workdir) {
		r->kept_workdir = 1;
		if (!o->quiet)
			fprintf(stderr, "cordon: kept %s\n", s.workdir);
	} else if (s.made && workdir_remove(s.workdir, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "cordon: %s\n", msg);
	} else if (!s.made && s.wfd >= 0 && s.snippet[0]) {
		(void)unlinkat(s.wfd, s.snippet, 0);
	}
	for (i = 0; i < 2; i++) {
		closefd(s.pipe_out[i]);
		closefd(s.pipe_err[i]);
		closefd(s.pipe_msg[i]);
	}
	closefd(s.wfd);
	closefd(s.sigfd);
	closefd(s.pidfd);
	closefd(s.ln.ruleset_fd);
	command_free(s.ln.argv);
	command_free(s.ln.envp);
	free(s.ln.bpf);
	return rc;
}
