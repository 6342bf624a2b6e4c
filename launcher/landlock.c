/*
 * landlock.c - probe the running Landlock ABI and build the ruleset
 * (llplan.c decides whether the policy can run on it, and which rights
 * each rule grants; here in the parent, before fork, so a
 * missing path is reported before anything irreversible happens; the
 * rules inside the workdir are added by the child, once the workdir is
 * the one the run will see: see runfs.c).
 *
 * Every right the running ABI knows is handled; the policy's rules only
 * grant.  Rule paths: "$WORKDIR..." is resolved beneath the working
 * directory with no symlink at all (the snippet may have planted one);
 * "$SNIPPET" is the copied snippet, never a link; an absolute path has its
 * final component opened without following, and a final symlink is
 * followed only when root owns it (system links such as /etc/localtime),
 * otherwise the rule is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cordon.h"
#include "landlock_compat.h"
#include "llrights.h"

/* Returns the ABI (0: no Landlock); *errata gets the errata bitmask. */
int landlock_probe(int *errata)
{
	long abi = syscall(__NR_landlock_create_ruleset, NULL, 0,
	    CORDON_LL_CREATE_RULESET_VERSION);
	long e;

	*errata = 0;
	if (abi <= 0)
		return 0;
	e = syscall(__NR_landlock_create_ruleset, NULL, 0,
	    CORDON_LL_CREATE_RULESET_ERRATA);
	if (e > 0)
		*errata = (int)e;
	return abi > 255 ? 255 : (int)abi;
}

int landlock_add(int ruleset, int fd, uint64_t access)
{
	struct cordon_ll_path_beneath_attr pb = {
		.allowed_access = access, .parent_fd = fd,
	};

	return (int)syscall(__NR_landlock_add_rule, ruleset,
	    CORDON_LL_RULE_PATH_BENEATH, &pb, 0);
}

/* Open one rule path as O_PATH (see the top of the file); stat it. */
static int open_rule(const char *path, int workdir_fd, const char *snippet,
    struct stat *st)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC | O_NOFOLLOW,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
		    RESOLVE_NO_MAGICLINKS,
	};
	int fd;

	if (strcmp(path, "$SNIPPET") == 0)
		fd = openat(workdir_fd, snippet, O_PATH | O_CLOEXEC |
		    O_NOFOLLOW);
	else if (strncmp(path, "$WORKDIR", 8) == 0)
		fd = (int)syscall(SYS_openat2, workdir_fd,
		    path[8] ? path + 9 : ".", &how, sizeof(how));
	else
		fd = open(path, O_PATH | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || fstat(fd, st) < 0)
		goto close_fd;
	if (!S_ISLNK(st->st_mode))
		return fd;
	close(fd);              /* a final symlink: root's, or refused */
	errno = ELOOP;
	if (path[0] != '/' || st->st_uid != 0)
		return -1;
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, st) == 0)
		return fd;
close_fd:
	if (fd >= 0)
		close(fd);
	return -1;
}

static int in_workdir(const char *path)
{
	return strncmp(path, "$WORKDIR", 8) == 0 ||
	    strcmp(path, "$SNIPPET") == 0;
}

/* The path rules outside the workdir (workdir_fd < 0: in cordon, before
 * the clone), or those inside it (in the child, once the workdir is the
 * one the run will see: a run tmpfs's, or the host's). */
static int add_paths(int rs, const struct cpol *p, uint64_t handled,
    int workdir_fd, const char *snippet, char *err, size_t errlen)
{
	uint32_t i;

	for (i = 0; i < p->nfs; i++) {
		const struct cpol_fs *r = &p->fs[i];
		uint64_t access;
		struct stat st;
		int fd;

		if (in_workdir(r->path) != (workdir_fd >= 0))
			continue;
		fd = open_rule(r->path, workdir_fd, snippet, &st);
		if (fd < 0 && errno == ENOENT && (r->flags & CPOL_FS_OPTIONAL))
			continue;
		if (fd < 0) {
			snprintf(err, errlen, "path rule %s: %s%s", r->path,
			    strerror(errno), errno == ELOOP ?
			    " (a symbolic link; name its target)" : "");
			return -1;
		}
		access = landlock_rule_access(r->access, handled,
		    S_ISDIR(st.st_mode));
		if (access && landlock_add(rs, fd, access) < 0) {
			snprintf(err, errlen, "path rule %s: landlock_add_rule:"
			    " %s", r->path, strerror(errno));
			close(fd);
			return -1;
		}
		close(fd);
	}
	return 0;
}

int landlock_workdir(int ruleset, const struct cpol *p, uint64_t handled,
    int workdir_fd, const char *snippet, char *err, size_t errlen)
{
	return add_paths(ruleset, p, handled, workdir_fd, snippet, err,
	    errlen);
}

static int add_ports(int rs, const struct cpol *p, char *err, size_t errlen)
{
	uint32_t i;

	for (i = 0; i < p->nnet; i++) {
		struct cordon_ll_net_port_attr np = {
			.allowed_access = p->net[i].kind == CPOL_NET_BIND ?
			    CORDON_LL_NET_BIND_TCP : CORDON_LL_NET_CONNECT_TCP,
			.port = p->net[i].port,
		};

		if (syscall(__NR_landlock_add_rule, rs,
		    CORDON_LL_RULE_NET_PORT, &np, 0) < 0) {
			snprintf(err, errlen, "port rule %u: %s",
			    p->net[i].port, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* A ruleset handling every right ABI abi knows: all file rights, TCP
 * bind and connect from 4, abstract-socket and signal scoping from 6.
 * *attr says what it handles.  Returns the fd, or -1 with errno set. */
static int ruleset(int abi, struct cordon_ll_ruleset_attr *attr, int net)
{
	size_t size = sizeof(attr->handled_access_fs);

	memset(attr, 0, sizeof(*attr));
	attr->handled_access_fs = landlock_fs_rights(abi);
	if (abi >= 4) {
		attr->handled_access_net = net ? CORDON_LL_NET_BIND_TCP |
		    CORDON_LL_NET_CONNECT_TCP : 0;
		size = offsetof(struct cordon_ll_ruleset_attr, scoped);
	}
	if (abi >= 6) {
		attr->scoped = CORDON_LL_SCOPE_ABSTRACT_UNIX_SOCKET |
		    CORDON_LL_SCOPE_SIGNAL;
		size = sizeof(*attr);
	}
	return (int)syscall(__NR_landlock_create_ruleset, attr, size, 0);
}

static int create_ruleset(int abi, struct cordon_ll_ruleset_attr *attr)
{
	return ruleset(abi, attr, 1);
}

/* Returns the ruleset fd (O_CLOEXEC), -1 on error, -2 when there is no
 * Landlock at all (only reached for a best-effort policy). */
int landlock_build(const struct cpol *p, int abi, char *err,
    size_t errlen)
{
	struct cordon_ll_ruleset_attr attr;
	int rs;

	if (abi < 1)
		return -2;
	rs = create_ruleset(abi, &attr);
	if (rs < 0) {
		snprintf(err, errlen, "landlock_create_ruleset: %s",
		    strerror(errno));
		return -1;
	}
	if (add_paths(rs, p, attr.handled_access_fs, -1, "", err,
	    errlen) < 0 || (abi >= 4 && add_ports(rs, p, err,
	    errlen) < 0)) {
		close(rs);
		return -1;
	}
	return rs;
}

/* The egress proxy's own sandbox: no file at all, TCP connect only to the
 * ports the policy's host rules name (any_port, learn mode's proxy: any
 * port), no signal or abstract socket outside.  Where the kernel has no Landlock (a best-effort policy), it
 * has none; a failure is an error. */
int landlock_confine(const struct cpol *p, int any_port)
{
	struct cordon_ll_ruleset_attr attr;
	int errata, abi = landlock_probe(&errata), rs, rc = 0;
	uint32_t i;

	if (abi < 1)
		return 0;
	rs = ruleset(abi, &attr, !any_port);
	if (rs < 0)
		return -1;
	for (i = 0; abi >= 4 && !any_port && i < p->nhosts && rc == 0; i++) {
		struct cordon_ll_net_port_attr np = {
			.allowed_access = CORDON_LL_NET_CONNECT_TCP,
			.port = p->hosts[i].port,
		};

		if (syscall(__NR_landlock_add_rule, rs,
		    CORDON_LL_RULE_NET_PORT, &np, 0) < 0)
			rc = -1;
	}
	if (rc == 0 && syscall(__NR_landlock_restrict_self, rs, 0) < 0)
		rc = -1;
	close(rs);
	return rc;
}
