/*
 * learn.c - cordon --observe TRACE: learn mode, for trusted samples.
 *
 * The run gets every layer that does not decide what is learned (the
 * rlimits, timeout, output cap, environment, session, capabilities,
 * no_new_privs, private /tmp and the PID namespace), but no Landlock and
 * no network namespace, and a filter that lets every call through after
 * cordon has seen it: the blob's program with each refusing return
 * turned into USER_NOTIF, behind a prefix that also sends cordon the
 * calls that name paths and ports.  cordon records each, then answers
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE.  It reads path and address
 * arguments from the caller's memory: the caller could change them
 * between the read and the call (TOCTOU), which is why learn mode is for
 * trusted code only.  Only calls that succeeded become rights: which did
 * is learnjudge.c's question.  cordonc learn reads the trace (see
 * cordon(1)).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <netinet/in.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <unistd.h>

#include "bpf.h"
#include "cordon.h"
#include "learnjudge.h"
#include "llrights.h"
#include "pathcall.h"
#include "strindex.h"
#include "fsgrant.h"
#include "sysdecode.h"
#include "learnmode.h"

/* What the tables may hold, strings and index included: past it a
 * record is counted as dropped (the trace says how many, and cordonc
 * learn fails on it). */
#define LEARN_MEM_MAX (64u << 20)

/* A path's rights: CPOL_TR_* bits, letters in the trace
 * (common/llrights.c). */
struct lpath { char *path; unsigned int rights; uint64_t count; };
struct lcall { uint32_t nr; uint64_t args[6]; uint64_t count;
	char call[DENIAL_CALL_LEN]; };
struct lport { int bind; unsigned int port; uint64_t count; };

static struct {
	struct lpath *p;
	struct lcall *c;
	struct lport *n;
	unsigned int np, nc, nn, capp, capc, capn;
	struct strindex idx;          /* path -> its slot of p */
	size_t mem;                   /* bytes held, against LEARN_MEM_MAX */
	uint64_t dropped, granted, procs;
	const struct cpol *pol;       /* the base: what it grants */
	const char *workdir;          /* as the run sees it */
} lt;

void learn_begin(const struct cpol *pol, const char *workdir)
{
	lt.pol = pol;
	lt.workdir = workdir;
}

/* Room for one more of n in *arr (of cap, each size bytes) within the
 * budget: 0, or -1. */
static int room(void **arr, unsigned int n, unsigned int *cap, size_t size)
{
	unsigned int want = *cap ? *cap * 2 : 64;
	void *grown;

	if (n < *cap)
		return 0;
	if (want <= *cap || lt.mem + (size_t)(want - *cap) * size >
	    LEARN_MEM_MAX || !(grown = realloc(*arr, (size_t)want * size)))
		return -1;
	lt.mem += (size_t)(want - *cap) * size;
	*arr = grown;
	*cap = want;
	return 0;
}

/* Does the base already give path the rights? (named as cordonc learn
 * names it: the workdir as "$WORKDIR") */
static int granted(const char *path, unsigned int rights)
{
	size_t n = lt.workdir ? strlen(lt.workdir) : 0;
	char rel[PATH_MAX + 16];
	const char *name = path;

	if (!lt.pol)
		return 0;
	if (n && strncmp(path, lt.workdir, n) == 0 && (!path[n] ||
	    path[n] == '/')) {
		snprintf(rel, sizeof(rel), "$WORKDIR%s", path + n);
		name = rel;
	}
	return (cpol_trace_access(rights) & ~cpol_fs_granted(lt.pol, name))
	    == 0;
}

static void add_path(const char *path, unsigned int rights)
{
	uint32_t i = strindex_find(&lt.idx, path);
	size_t before = strindex_bytes(&lt.idx), len = strlen(path) + 1;
	char *copy;

	if (i != STRINDEX_NONE) {
		lt.p[i].rights |= rights;
		lt.p[i].count++;
		return;
	}
	if (granted(path, rights)) {     /* nothing to learn */
		lt.granted++;
		return;
	}
	if (lt.mem + len + before > LEARN_MEM_MAX ||
	    room((void **)&lt.p, lt.np, &lt.capp, sizeof(*lt.p)) < 0 ||
	    !(copy = malloc(len))) {
		lt.dropped++;
		return;
	}
	memcpy(copy, path, len);
	if (strindex_add(&lt.idx, copy, lt.np) < 0) {
		free(copy);
		lt.dropped++;
		return;
	}
	lt.mem += len + strindex_bytes(&lt.idx) - before;
	lt.p[lt.np++] = (struct lpath){ copy, rights, 1 };
}

/* The directory holding path (a created or removed entry). */
static void add_parent(const char *path, unsigned int rights)
{
	char dir[PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		return;
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	add_path(dir, rights);
}

static void add_port(int bind, const struct bpf_input *in, pid_t pid)
{
	char sa[32];
	unsigned int port, i;

	if (in->args[2] < 4 || pathcall_peek(pid, in->args[1], sa, sizeof(sa)) < 4)
		return;
	if (sa[0] != AF_INET && sa[0] != AF_INET6)
		return;
	port = ((unsigned int)(unsigned char)sa[2] << 8) |
	    (unsigned char)sa[3];
	for (i = 0; i < lt.nn; i++)
		if (lt.n[i].bind == bind && lt.n[i].port == port) {
			lt.n[i].count++;
			return;
		}
	if (room((void **)&lt.n, lt.nn, &lt.capn, sizeof(*lt.n)) < 0)
		lt.dropped++;
	else
		lt.n[lt.nn++] = (struct lport){ bind, port, 1 };
}

/* Would an open of what st describes fail before any permission?  A
 * missing file, O_EXCL on one there, O_DIRECTORY on a non-directory, a
 * write on a directory (EISDIR; not O_TMPFILE's, which makes a file in
 * it), O_NOFOLLOW on a symbolic link. */
static int open_fails(int exists, const struct stat *st, uint64_t flags)
{
	unsigned int acc = (unsigned int)flags & O_ACCMODE;

	return !exists || (flags & (O_CREAT | O_EXCL)) ==
	    (O_CREAT | O_EXCL) || ((flags & O_DIRECTORY) &&
	    !S_ISDIR(st->st_mode)) || (acc != O_RDONLY &&
	    S_ISDIR(st->st_mode) && (flags & O_TMPFILE) != O_TMPFILE) ||
	    S_ISLNK(st->st_mode);
}

/* What an open asks for: rights on the file, or on its directory (a
 * file it makes: judged when the call has run). */
static void add_open(pid_t pid, const char *path, uint64_t flags)
{
	unsigned int acc = (unsigned int)flags & O_ACCMODE, r = 0;
	struct stat st;
	int exists, want = 0;

	if (flags & O_PATH)
		return;
	exists = judge_there(pid, path, &st, !(flags & O_NOFOLLOW)) == 0;
	if (flags & O_CREAT && !exists && judge_there(pid, path, &st, 0)) {
		judge_pend(pid, NULL, 0, path, CPOL_TR_CREATE | CPOL_TR_WRITE);
		return;
	}
	if (open_fails(exists, &st, flags)) {
		judge_fail();
		return;
	}
	if (acc != O_WRONLY) {
		r |= S_ISDIR(st.st_mode) ? CPOL_TR_LIST : CPOL_TR_READ;
		want |= JUDGE_R;
	}
	if (acc != O_RDONLY || (flags & O_TRUNC)) {
		r |= acc != O_RDONLY ? CPOL_TR_WRITE : 0;
		want |= JUDGE_W;
	}
	if (flags & O_TRUNC)
		r |= CPOL_TR_TRUNC;
	if (!judge_may(pid, path, &st, want)) {
		judge_fail();
		return;
	}
	add_path(path, r);
}

/* A file used whole (exec, truncate): there, not a directory, and the
 * mode bits let it. */
static void add_used(pid_t pid, const char *path, int want,
    unsigned int rights)
{
	struct stat st;

	if (judge_there(pid, path, &st, 1) != 0 || S_ISDIR(st.st_mode) ||
	    !judge_may(pid, path, &st, want))
		judge_fail();
	else
		add_path(path, rights);
}

/* An entry made (made) or removed: there before it is made is EEXIST,
 * absent before it is removed ENOENT; else judged once it has run. */
static void add_entry(pid_t pid, const char *path, int made,
    unsigned int rights)
{
	struct stat st;
	int there = judge_there(pid, path, &st, 0) == 0;

	if (there == made)
		judge_fail();
	else if (made)
		judge_pend(pid, NULL, 0, path, rights);
	else
		judge_pend(pid, path, rights, NULL, 0);
}

static void add_call(const struct bpf_input *in)
{
	char call[DENIAL_CALL_LEN];
	unsigned int i;

	sysdecode_call(in->nr, in->args, call, sizeof(call));
	for (i = 0; i < lt.nc; i++)
		if (lt.c[i].nr == in->nr && strcmp(lt.c[i].call, call) == 0) {
			lt.c[i].count++;
			return;
		}
	if (room((void **)&lt.c, lt.nc, &lt.capc, sizeof(*lt.c)) < 0) {
		lt.dropped++;
		return;
	}
	lt.c[lt.nc].nr = in->nr;
	memcpy(lt.c[lt.nc].args, in->args, sizeof(in->args));
	lt.c[lt.nc].count = 1;
	snprintf(lt.c[lt.nc++].call, DENIAL_CALL_LEN, "%s", call);
}

/* mkdir, symlink, unlink, rmdir: which argument, which dirfd, what
 * right on the entry's directory. */
static void add_made(const struct bpf_input *in, pid_t pid)
{
	const uint64_t *a = in->args;
	int at = in->nr == SYS_mkdirat || in->nr == SYS_unlinkat;
	uint64_t name = in->nr == SYS_symlink ? a[1] :
	    in->nr == SYS_symlinkat ? a[2] : at ? a[1] : a[0];
	int dfd = at ? (int)a[0] : in->nr == SYS_symlinkat ? (int)a[1] :
	    AT_FDCWD;
	int mk = in->nr == SYS_mkdir || in->nr == SYS_mkdirat;
	int sym = in->nr == SYS_symlink || in->nr == SYS_symlinkat;
	unsigned int r = mk ? CPOL_TR_MKDIR : sym ? CPOL_TR_SYM :
	    in->nr == SYS_rmdir || (in->nr == SYS_unlinkat &&
	    (a[2] & AT_REMOVEDIR)) ? CPOL_TR_RMDIR : CPOL_TR_RMFILE;
	char p[PATH_MAX];

	if (pathcall_of(pid, dfd, name, p, sizeof(p), 1) == 0)
		add_entry(pid, p, mk || sym, r);
}

/* A rename: from must be there; judged once it has run (from gone, to
 * there: an exchange, which leaves both, is judged failed). */
static void add_moved(pid_t pid, const char *from, const char *to)
{
	struct stat st;

	if (judge_there(pid, from, &st, 0) != 0)
		judge_fail();
	else
		judge_pend(pid, from, CPOL_TR_RMFILE, to,
		    CPOL_TR_CREATE | CPOL_TR_WRITE);
}

/* Paths: which argument, which dirfd, what right. */
static void add_named(const struct bpf_input *in, pid_t pid)
{
	const uint64_t *a = in->args;
	char p[PATH_MAX], q[PATH_MAX];
	int cwd = AT_FDCWD, at = in->nr != SYS_rename;

	switch (in->nr) {
	case SYS_open:
	case SYS_creat:
		if (pathcall_of(pid, cwd, a[0], p, sizeof(p), 0) == 0)
			add_open(pid, p, in->nr == SYS_open ? a[1] :
			    O_CREAT | O_WRONLY | O_TRUNC);
		return;
	case SYS_openat:
		if (pathcall_of(pid, (int)a[0], a[1], p, sizeof(p), 0) == 0)
			add_open(pid, p, a[2]);
		return;
	case SYS_openat2:     /* struct open_how: flags first */
		if (pathcall_of(pid, (int)a[0], a[1], p, sizeof(p), 0) == 0 &&
		    pathcall_peek(pid, a[2], q, 9) == 8)
			add_open(pid, p, *(uint64_t *)(void *)q);
		return;
	case SYS_execve:
	case SYS_execveat:
		if (pathcall_of(pid, in->nr == SYS_execve ? cwd : (int)a[0],
		    in->nr == SYS_execve ? a[0] : a[1], p, sizeof(p), 0) == 0)
			add_used(pid, p, JUDGE_X, CPOL_TR_EXEC | CPOL_TR_READ);
		return;
	case SYS_mkdir:
	case SYS_mkdirat:
	case SYS_symlink:
	case SYS_symlinkat:
	case SYS_unlink:
	case SYS_rmdir:
	case SYS_unlinkat:
		add_made(in, pid);
		return;
	case SYS_rename:
	case SYS_renameat:
	case SYS_renameat2:
		if (pathcall_of(pid, at ? (int)a[0] : cwd, at ? a[1] : a[0], p,
		    sizeof(p), 1) == 0 && pathcall_of(pid, at ? (int)a[2] : cwd,
		    at ? a[3] : a[1], q, sizeof(q), 1) == 0)
			add_moved(pid, p, q);
		return;
	case SYS_truncate:
		if (pathcall_of(pid, cwd, a[0], p, sizeof(p), 0) == 0)
			add_used(pid, p, JUDGE_W, CPOL_TR_WRITE | CPOL_TR_TRUNC);
		return;
	case SYS_connect:
	case SYS_bind:
		add_port(in->nr == SYS_bind, in, pid);
		return;
	default:
		lt.procs += in->nr == SYS_clone || in->nr == SYS_clone3 ||
		    in->nr == SYS_fork || in->nr == SYS_vfork;
		return;
	}
}

const int learn_built = 1;

/* One notification in learn mode: record it, then let it through. */
void learn_take(int listener, const struct sup *sp)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	struct bpf_input in;
	uint32_t act;

	memset(&req, 0, sizeof(req));
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
		return;
	in.nr = (uint32_t)req.data.nr;
	in.arch = req.data.arch;
	in.ip = req.data.instruction_pointer;
	memcpy(in.args, req.data.args, sizeof(in.args));
	/* The caller's call before this one has run. */
	judge_settle((pid_t)req.pid, in.nr == SYS_exit_group &&
	    in.arch == AUDIT_ARCH_X86_64, add_parent);
	if (in.arch == AUDIT_ARCH_X86_64) {
		add_named(&in, (pid_t)req.pid);
		act = bpf_run(sp->prog, sp->nprog, &in);
		act &= BPF_ACT_FULL_MASK;
		if (act != BPF_ACT_ALLOW && act != BPF_ACT_LOG)
			add_call(&in);
	}
	memset(&resp, 0, sizeof(resp));
	resp.id = req.id;
	resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

/* The hosts and ports the proxy connected to (learn mode, egress.h):
 * "host NAME PORT COUNT", a name as the proxy's parser took it (a host
 * name or an address literal: no tab, no newline), and those past the
 * proxy's table counted as dropped. */
static void hosts_write(FILE *f, const struct report *r)
{
	const struct egress_shared *sh = &r->net;
	uint32_t i, n = sh->nseen;

	if (!r->egress)
		return;
	for (i = 0; i < n && i < EGRESS_SEEN_MAX; i++)
		if (sh->seen[i].ready && sh->seen[i].host[0] &&
		    !strpbrk(sh->seen[i].host, "\t\n"))
			fprintf(f, "host\t%s\t%u\t%u\n", sh->seen[i].host,
			    (unsigned int)sh->seen[i].port, sh->seen[i].count);
	if (n > EGRESS_SEEN_MAX)
		fprintf(f, "dropped\t%u\n", n - EGRESS_SEEN_MAX);
}

/* The trace: one record a line, tab-separated, the path last; built in
 * memory, then written as every named output is (sink_file). */
int learn_write(const char *file, const struct report *r, char *err)
{
	char rs[16], *buf = NULL;
	uint64_t failed, unsure;
	size_t len = 0;
	unsigned int i;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f) {
		snprintf(err, ERRLEN, "%s: %s", file, strerror(errno));
		return -1;
	}
	fprintf(f, "cordon-trace\t1\nusage\t%llu\t%llu\t%llu\t%llu\t%llu\t"
	    "%llu\t%llu\n", (unsigned long long)r->wall_ms,
	    (unsigned long long)r->user_ms + r->sys_ms,
	    (unsigned long long)r->max_rss_kb,
	    (unsigned long long)r->bounds.memory_peak,
	    (unsigned long long)lt.procs,
	    (unsigned long long)r->bounds.disk_used,
	    (unsigned long long)r->bounds.files_used);
	judge_counts(&failed, &unsure);
	fprintf(f, "exit\t%d\t%d\ndropped\t%llu\nworkdir\t%s\n",
	    (int)r->outcome, r->exit_code, (unsigned long long)lt.dropped,
	    r->workdir);
	fprintf(f, "judged\t%llu\t%llu\ngranted\t%llu\n",
	    (unsigned long long)failed, (unsigned long long)unsure,
	    (unsigned long long)lt.granted);
	for (i = 0; i < lt.nc; i++)
		fprintf(f, "call\t%u\t%llu\t%llx\t%llx\t%llx\t%llx\t%llx\t%llx"
		    "\t%s\n", lt.c[i].nr, (unsigned long long)lt.c[i].count,
		    (unsigned long long)lt.c[i].args[0],
		    (unsigned long long)lt.c[i].args[1],
		    (unsigned long long)lt.c[i].args[2],
		    (unsigned long long)lt.c[i].args[3],
		    (unsigned long long)lt.c[i].args[4],
		    (unsigned long long)lt.c[i].args[5], lt.c[i].call);
	for (i = 0; i < lt.nn; i++)
		if (!r->egress || lt.n[i].bind || lt.n[i].port !=
		    CPOL_PROXY_PORT)
			fprintf(f, "net\t%s\t%u\t%llu\n", lt.n[i].bind ?
			    "bind" : "connect", lt.n[i].port,
			    (unsigned long long)lt.n[i].count);
	hosts_write(f, r);
	for (i = 0; i < lt.np; i++) {
		cpol_trace_letters(lt.p[i].rights, rs);
		if (rs[0] && !strchr(lt.p[i].path, '\n') &&
		    !strchr(lt.p[i].path, '\t'))
			fprintf(f, "path\t%s\t%llu\t%s\n", rs,
			    (unsigned long long)lt.p[i].count, lt.p[i].path);
	}
	if (ferror(f) | fclose(f)) {
		snprintf(err, ERRLEN, "%s: out of memory", file);
		free(buf);
		return -1;
	}
	rc = sink_file(file, buf, len, clock_now_ms() + STATUS_WAIT_MS,
	    err, ERRLEN);
	free(buf);
	return rc;
}
