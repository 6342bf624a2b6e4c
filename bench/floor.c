/*
 * floor.c - the least any launcher can do, as a yardstick for cordon.
 *
 *   floor [--kernel-work [-v]] [-s SNIPPET] BLOB COMMAND [ARG...]
 *   floor --dump-bpf BLOB        (raw struct sock_filter array on stdout,
 *                                 as bwrap --seccomp reads it)
 *   floor --info BLOB            (name, command, sizes; one "key<TAB>value"
 *                                 line each, for the bench driver)
 *
 * Loads the blob (the same validating reader cordon uses), forks; the
 * child starts a session, sets the blob's rlimits, no_new_privs, a
 * Landlock ruleset with the blob's absolute path rules (plus read access
 * to SNIPPET), the blob's seccomp program, and execs COMMAND with an
 * empty environment.  The parent waits on a pidfd with the blob's
 * timeout and exits with the child's status.  No working directory, no
 * output capture, no namespaces, no status report: everything cordon does
 * beyond this is its overhead over the floor.
 *
 * --kernel-work adds the kernel work of cordon's default path for the
 * blob (kwork.c): its namespaces, its run tmpfs, its cgroup.  The rest
 * is this floor's.  -v: one line on stderr after the run, what it did.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpol.h"
#include "filter.h"
#include "kwork.h"
#include "landlock_compat.h"

/* Exit codes, as cordon's: own failure, and a failed exec. */
#define FLOOR_EXIT_FAIL 125
#define FLOOR_EXIT_NOEXEC 126


static int set_limits(const struct cpol *p)
{
	uint32_t i;

	for (i = 0; i < p->nlimits; i++) {
		struct rlimit rl;
		uint8_t r = p->limits[i].resource;

		/* The whole-run bounds are cordon's (cgroup, run tmpfs):
		 * the floor has none of them. */
		if (r > CPOL_RLIM_KERNEL_MAX)
			continue;
		if (r == 0)
			return -1;
		rl.rlim_cur = p->limits[i].value == CPOL_RLIM_INFINITY ?
		    RLIM_INFINITY : p->limits[i].value;
		rl.rlim_max = rl.rlim_cur;
		if (setrlimit((__rlimit_resource_t)cpol_rlim_kernel(r), &rl) < 0)
			return -1;
	}
	return 0;
}

static uint64_t fs_rights(int abi)
{
	if (abi >= 5)
		return CORDON_LL_FS_ABI5;
	if (abi >= 3)
		return CORDON_LL_FS_ABI3;
	if (abi >= 2)
		return CORDON_LL_FS_ABI2;
	return CORDON_LL_FS_ABI1;
}

/* Files (not directories) take only file rights. */
#define FILE_RIGHTS (CORDON_LL_FS_EXECUTE | CORDON_LL_FS_WRITE_FILE | \
	CORDON_LL_FS_READ_FILE | CORDON_LL_FS_TRUNCATE | CORDON_LL_FS_IOCTL_DEV)

static int add_fd(int ruleset, int fd, uint64_t access)
{
	struct cordon_ll_path_beneath_attr pb;
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode))
		access &= FILE_RIGHTS;
	pb.allowed_access = access;
	pb.parent_fd = fd;
	return (int)syscall(__NR_landlock_add_rule, ruleset,
	    CORDON_LL_RULE_PATH_BENEATH, &pb, 0) < 0 ? -1 : 0;
}

static int add_path(int ruleset, const char *path, uint64_t access,
    int optional)
{
	int fd = open(path, O_PATH | O_CLOEXEC);

	if (fd < 0)
		return optional && errno == ENOENT ? 0 : -1;
	if (add_fd(ruleset, fd, access) < 0) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int landlock(const struct cpol *p, int snippet_fd)
{
	struct cordon_ll_ruleset_attr attr = { 0 };
	uint64_t all;
	uint32_t i;
	int abi, rs;

	abi = (int)syscall(__NR_landlock_create_ruleset, NULL, 0,
	    CORDON_LL_CREATE_RULESET_VERSION);
	if (abi < 1)
		return -1;
	all = fs_rights(abi);
	attr.handled_access_fs = all;
	if (abi >= 4)
		attr.handled_access_net = CORDON_LL_NET_BIND_TCP |
		    CORDON_LL_NET_CONNECT_TCP;
	if (abi >= 6)
		attr.scoped = CORDON_LL_SCOPE_ABSTRACT_UNIX_SOCKET |
		    CORDON_LL_SCOPE_SIGNAL;
	rs = (int)syscall(__NR_landlock_create_ruleset, &attr, sizeof(attr),
	    0);
	if (rs < 0)
		return -1;
	for (i = 0; i < p->nfs; i++) {
		const struct cpol_fs *f = &p->fs[i];

		if (f->path[0] != '/' || (f->access & all) == 0)
			continue;   /* $WORKDIR, $SNIPPET: floor makes neither */
		if (add_path(rs, f->path, f->access & all,
		    f->flags & CPOL_FS_OPTIONAL) < 0)
			goto close_rs;
	}
	if (snippet_fd >= 0 &&
	    add_fd(rs, snippet_fd, CORDON_LL_FS_READ_FILE) < 0)
		goto close_rs;
	if (syscall(__NR_landlock_restrict_self, rs, 0) < 0)
		goto close_rs;
	return close(rs);
close_rs:
	close(rs);
	return -1;
}

/* Where --kernel-work's run tmpfs hides the snippet (a build folder
 * under /tmp, as on a fresh machine), COMMAND names it by the file
 * opened before: /proc/self/fd/N, left open across the exec.  cordon
 * itself runs its copy in the run folder. */
static int snippet_rename(int fd, const char *snippet, char **argv,
    char *name, size_t len)
{
	if (access(snippet, F_OK) == 0)
		return 0;
	if (errno != ENOENT || fcntl(fd, F_SETFD, 0) < 0)
		return -1;
	snprintf(name, len, "/proc/self/fd/%d", fd);
	for (; *argv; argv++)
		if (strcmp(*argv, snippet) == 0)
			*argv = name;
	return 0;
}

static void child(const struct cpol *p, const struct sock_fprog *prog,
    const char *snippet, int kernel_work, char **argv)
{
	char *envp[] = { NULL }, name[32];
	int fd = -1;

	if (snippet && (fd = open(snippet, O_RDONLY | O_CLOEXEC)) < 0) {
		fprintf(stderr, "floor: %s: %s\n", snippet, strerror(errno));
		_exit(FLOOR_EXIT_FAIL);
	}
	if ((kernel_work && kwork_child() < 0) ||
	    (fd >= 0 && snippet_rename(fd, snippet, argv, name,
	    sizeof(name)) < 0) || setsid() < 0 ||
	    prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 ||
	    set_limits(p) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    landlock(p, fd) < 0 || filter_install(prog) < 0) {
		perror("floor: child set-up");
		_exit(FLOOR_EXIT_FAIL);
	}
	execve(argv[0], argv, envp);
	_exit(FLOOR_EXIT_NOEXEC);
}

/* Wait on a pidfd with the policy's timeout; kill on expiry. */
static int supervise(pid_t pid, uint64_t timeout_ms)
{
	struct pollfd pfd;
	int pidfd, status, n;

	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		return -1;
	pfd.fd = pidfd;
	pfd.events = POLLIN;
	do
		n = poll(&pfd, 1, timeout_ms > 86400000 ? 86400000 :
		    (int)timeout_ms);
	while (n < 0 && errno == EINTR);
	if (n == 0 && syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL,
	    0) < 0)
		goto close_pidfd;
	if (n < 0)
		goto close_pidfd;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			goto close_pidfd;
	if (close(pidfd) < 0)
		return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
close_pidfd:
	close(pidfd);
	return -1;
}

static int dump_bpf(const struct sock_fprog *prog)
{
	size_t len = prog->len * sizeof(prog->filter[0]), off = 0;
	const char *b = (const char *)prog->filter;

	while (off < len) {
		ssize_t n = write(STDOUT_FILENO, b + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		off += (size_t)n;
	}
	return close(STDOUT_FILENO);
}

static int info(const struct cpol *p)
{
	uint32_t i, nconds = 0;

	for (i = 0; i < p->nrules; i++)
		nconds += p->rules[i].ncond > 0;
	printf("name\t%s\ninsns\t%u\nrules\t%u\nconditional_rules\t%u\n"
	    "fs_rules\t%u\nhosts\t%u\ntimeout_ms\t%llu\nargv", p->name,
	    p->ninsns, p->nrules, nconds, p->nfs, p->nhosts,
	    (unsigned long long)p->timeout_ms);
	for (i = 0; i < p->nargv; i++)
		printf("\t%s", p->argv[i]);
	printf("\n");
	return fflush(stdout) == EOF ? -1 : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: floor [--kernel-work [-v]] [-s SNIPPET] BLOB "
	    "COMMAND [ARG...]\n"
	    "       floor --dump-bpf BLOB\n       floor --info BLOB\n");
	exit(2);
}

struct floor_opts {
	int dump, show, kernel_work, verbose;
	const char *snippet;
};

/* The options; returns the index of BLOB. */
static int parse(int argc, char **argv, struct floor_opts *o)
{
	int i = 1;

	memset(o, 0, sizeof(*o));
	if (i < argc && strcmp(argv[i], "--dump-bpf") == 0) {
		o->dump = 1;
		i++;
	} else if (i < argc && strcmp(argv[i], "--info") == 0) {
		o->dump = o->show = 1;
		i++;
	}
	for (; !o->dump && i < argc; i++) {
		if (strcmp(argv[i], "--kernel-work") == 0)
			o->kernel_work = 1;
		else if (strcmp(argv[i], "-v") == 0 && o->kernel_work)
			o->verbose = 1;
		else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc)
			o->snippet = argv[++i];
		else
			break;
	}
	if (i >= argc || (!o->dump && i + 1 >= argc) ||
	    (o->dump && i + 1 != argc))
		usage();
	return i;
}

/* Fork (with the kernel work, if asked), the child's set-up and exec,
 * the wait; the child's status, or -1 after saying why. */
static int launch(const struct cpol *p, const struct sock_fprog *prog,
    const struct floor_opts *o, char **cmd)
{
	char say[768];
	pid_t pid;
	int rc;

	if (o->kernel_work && kwork_prepare(p, say, sizeof(say)) < 0) {
		fprintf(stderr, "floor: %s\n", say);
		return -1;
	}
	pid = o->kernel_work ? kwork_spawn() : fork();
	if (pid < 0) {
		perror("floor: fork");
		if (o->kernel_work)
			(void)kwork_finish();
		return -1;
	}
	if (pid == 0)
		child(p, prog, o->snippet, o->kernel_work, cmd);
	rc = supervise(pid, p->timeout_ms);
	if (rc < 0)
		perror("floor: wait");
	if (o->kernel_work && kwork_finish() < 0) {
		perror("floor: removing the cgroup");
		rc = -1;
	}
	if (o->verbose)
		fprintf(stderr, "floor --kernel-work: %s%s%s\n", say,
		    kwork_note()[0] ? "; " : "", kwork_note());
	return rc;
}

int main(int argc, char **argv)
{
	struct floor_opts o;
	struct cpol p;
	struct sock_fprog prog;
	char err[512];
	int i, rc;

	i = parse(argc, argv, &o);
	/* Like cordon, keep the rules table only when it is shown. */
	if (cpol_load(argv[i], o.show ? 0 : CPOL_READ_NO_RULES, &p, err,
	    sizeof(err)) < 0 ||
	    filter_from_blob(&p, &prog, err, sizeof(err)) < 0) {
		fprintf(stderr, "floor: %s\n", err);
		return FLOOR_EXIT_FAIL;
	}
	if (o.dump) {
		rc = o.show ? info(&p) : dump_bpf(&prog);
		if (rc < 0)
			perror("floor: write");
		return rc < 0 ? FLOOR_EXIT_FAIL : 0;
	}
	rc = launch(&p, &prog, &o, argv + i + 1);
	filter_free(&prog);
	cpol_free(&p);
	return rc < 0 ? FLOOR_EXIT_FAIL : rc;
}
