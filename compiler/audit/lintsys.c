/*
 * lintsys.c - the lint rules on the syscall filter: a dangerous syscall
 * allowed (CL001), one allowed without the conditions it needs (CL002),
 * a default that allows (CL003), the loader's file mappings refused
 * (CL014), terminal ioctls allowed (CL015).  Findings are located at a
 * rule's origin, else at the default statement.
 */
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lint.h"
#include "sysq.h"
#include "tables.h"

struct danger {
	const char *name;
	const char *why;
};

static const struct danger dangers[] = {
	{ "ptrace", "reads and writes other processes" },
	{ "process_vm_readv", "reads another process's memory" },
	{ "process_vm_writev", "writes another process's memory" },
	{ "pidfd_getfd", "steals descriptors from other processes" },
	{ "kcmp", "probes other processes' kernel objects" },
	{ "bpf", "loads programs into the kernel" },
	{ "perf_event_open", "kernel profiling, a frequent exploit vector" },
	{ "userfaultfd", "stalls the kernel in page faults (exploit aid)" },
	{ "io_uring_setup", "I/O that seccomp never sees" },
	{ "io_uring_enter", "I/O that seccomp never sees" },
	{ "io_uring_register", "I/O that seccomp never sees" },
	{ "keyctl", "kernel keyrings are not namespaced" },
	{ "add_key", "kernel keyrings are not namespaced" },
	{ "request_key", "kernel keyrings are not namespaced" },
	{ "mount", "changes the mount table" },
	{ "umount2", "changes the mount table" },
	{ "fsopen", "mount API" },
	{ "fsconfig", "mount API" },
	{ "fsmount", "mount API" },
	{ "fspick", "mount API" },
	{ "move_mount", "mount API" },
	{ "open_tree", "mount API" },
	{ "open_tree_attr", "mount API" },
	{ "mount_setattr", "mount API" },
	{ "pivot_root", "changes the root" },
	{ "chroot", "changes the root (Landlock does not stop it)" },
	{ "unshare", "new namespaces: a large kernel attack surface" },
	{ "setns", "enters other namespaces" },
	{ "clone3", "seccomp cannot check its flags (CLONE_NEW*)" },
	{ "kexec_load", "replaces the kernel" },
	{ "kexec_file_load", "replaces the kernel" },
	{ "init_module", "loads kernel modules" },
	{ "finit_module", "loads kernel modules" },
	{ "delete_module", "unloads kernel modules" },
	{ "iopl", "raw I/O port access" },
	{ "ioperm", "raw I/O port access" },
	{ "swapon", "system administration" },
	{ "swapoff", "system administration" },
	{ "reboot", "system administration" },
	{ "quotactl", "system administration" },
	{ "quotactl_fd", "system administration" },
	{ "acct", "system administration" },
	{ "settimeofday", "sets the system clock" },
	{ "clock_settime", "sets the system clock" },
	{ "clock_adjtime", "sets the system clock" },
	{ "adjtimex", "sets the system clock" },
	{ "syslog", "reads the kernel log" },
	{ "vhangup", "hangs up terminals" },
	{ "lookup_dcookie", "kernel profiling interface" },
	{ "name_to_handle_at", "file handles bypass path checks" },
	{ "open_by_handle_at", "file handles bypass path checks" },
	{ "fanotify_init", "watches the whole filesystem" },
	{ "uselib", "obsolete loader interface" },
	{ "sysfs", "obsolete" },
	{ "ustat", "obsolete" },
	{ "_sysctl", "obsolete" },
	{ "nfsservctl", "obsolete" },
	{ "create_module", "obsolete" },
	{ "get_kernel_syms", "obsolete" },
	{ "query_module", "obsolete" },
};

/* Allowed without conditions, these are holes; with conditions, fine. */
static const struct danger needs_conds[] = {
	{ "personality", "READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE" },
	{ "clone", "CLONE_NEW* flags" },
	{ "ioctl", "TIOCSTI, TIOCLINUX" },
	{ "prctl", "PR_SET_MM and friends" },
};

int lint_dangerous(const char *name, const char **why)
{
	for (size_t i = 0; i < sizeof(dangers) / sizeof(dangers[0]); i++)
		if (strcmp(name, dangers[i].name) == 0) {
			if (why)
				*why = dangers[i].why;
			return 1;
		}
	return 0;
}

static int allows(uint32_t action)
{
	uint32_t a = action & SECCOMP_RET_ACTION_FULL;

	return a == SECCOMP_RET_ALLOW || a == SECCOMP_RET_LOG;
}

/* A finding at a rule's origin "file:line", message "NAME: detail". */
static int at_origin(struct finding_list *out, const struct cpol_rule *r,
    const char *id, int sev, const char *what, const char *why)
{
	unsigned int line = 0;
	char *file = cpol_origin_split(r->origin, &line);
	int ret = file ? finding_add(out, id, sev, file, line, "%s %s (%s)",
	    r->name, what, why) : -1;

	free(file);
	return ret;
}

/* CL001, CL002: rules that allow a dangerous or unconditioned syscall. */
int check_rules(const struct input *in, struct finding_list *out)
{
	const struct cpol *p = &in->pol;
	const char *why;

	for (uint32_t i = 0; i < p->nrules; i++) {
		const struct cpol_rule *r = &p->rules[i];

		if (!allows(r->action))
			continue;
		if (i > 0 && p->rules[i - 1].nr == r->nr &&
		    allows(p->rules[i - 1].action))
			continue;  /* one finding per syscall */
		if (lint_dangerous(r->name, &why)) {
			if (at_origin(out, r, "CL001", FINDING_ERROR,
			    r->ncond ? "is allowed, with conditions" :
			    "is allowed", why) < 0)
				return -1;
			continue;
		}
		if (r->ncond)
			continue;
		for (size_t k = 0; k < sizeof(needs_conds) /
		    sizeof(needs_conds[0]); k++) {
			if (strcmp(r->name, needs_conds[k].name) != 0)
				continue;
			if (at_origin(out, r, "CL002", k == 0 ? FINDING_ERROR :
			    FINDING_WARNING, "is allowed without argument "
			    "conditions", needs_conds[k].why) < 0)
				return -1;
		}
	}
	return 0;
}

static int has_rule(const struct cpol *p, const char *name)
{
	for (uint32_t i = 0; i < p->nrules; i++)
		if (strcmp(p->rules[i].name, name) == 0)
			return 1;
	return 0;
}

/* CL003: the default action lets unnamed syscalls run. */
int check_default(const struct input *in, struct finding_list *out)
{
	const struct cpol *p = &in->pol;
	unsigned int line, n = 0;
	const char *file, *first = NULL;

	if (!allows(p->default_action))
		return 0;
	for (size_t i = 0; i < sizeof(dangers) / sizeof(dangers[0]); i++)
		if (!has_rule(p, dangers[i].name)) {
			n++;
			if (!first)
				first = dangers[i].name;
		}
	file = input_where(in, INPUT_DEFAULT, NULL, &line);
	if (n == 0)
		return finding_add(out, "CL003", FINDING_ERROR, file, line,
		    "the default action allows every syscall not named");
	return finding_add(out, "CL003", FINDING_ERROR, file, line,
	    "the default action allows every syscall not named, including "
	    "%u dangerous ones (%s, ...)", n, first);
}

/* The first rule on nr (its origin locates a finding), or NULL. */
static const struct cpol_rule *rule_on(const struct cpol *p, int nr)
{
	for (uint32_t i = 0; nr >= 0 && i < p->nrules; i++)
		if (p->rules[i].nr == (uint32_t)nr)
			return &p->rules[i];
	return NULL;
}

/* CL014: the loader maps each library's code PROT_READ|PROT_EXEC,
 * MAP_PRIVATE (with or without MAP_FIXED, MAP_DENYWRITE) from a file. */
int check_loader(const struct input *in, struct finding_list *out)
{
	static const uint64_t flags[] = { 0x2, 0x12, 0x802, 0x812 };
	const struct cpol *p = &in->pol;
	int nr = tables_syscall_nr("mmap");
	const struct cpol_rule *r = rule_on(p, nr);
	unsigned int line;
	const char *file;

	if (nr < 0 || p->ninsns == 0)
		return 0;
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		const uint64_t a[6] = { 0, 0x1000, 0x5, flags[i], 3, 0 };

		if (sysq_allows(sysq_run(p, (uint32_t)nr, a)))
			return 0;
	}
	if (r)
		return at_origin(out, r, "CL014", FINDING_ERROR, "refuses "
		    "PROT_EXEC file mappings", "the dynamic loader cannot map "
		    "libraries: allow mmap(prot & PROT_EXEC == PROT_EXEC, "
		    "flags & MAP_ANONYMOUS == 0) or drop the condition");
	file = input_where(in, INPUT_DEFAULT, NULL, &line);
	return finding_add(out, "CL014", FINDING_ERROR, file, line,
	    "mmap is not allowed: the dynamic loader cannot map libraries");
}

/* CL015: TIOCSTI and TIOCLINUX, on any standard descriptor. */
int check_tty(const struct input *in, struct finding_list *out)
{
	static const struct { uint64_t req; const char *name, *why; } bad[] = {
		{ 0x5412, "TIOCSTI", "injects input into the terminal" },
		{ 0x541c, "TIOCLINUX", "drives the Linux console" },
	};
	const struct cpol *p = &in->pol;
	int nr = tables_syscall_nr("ioctl");
	const struct cpol_rule *r = rule_on(p, nr);
	unsigned int line;
	const char *file;
	char what[64];

	for (size_t i = 0; nr >= 0 && p->ninsns && i < 2; i++)
		for (uint64_t fd = 0; fd < 4; fd++) {
			const uint64_t a[6] = { fd, bad[i].req, 0x7ffd0000, 0,
			    0, 0 };

			if (!sysq_allows(sysq_run(p, (uint32_t)nr, a)))
				continue;
			snprintf(what, sizeof(what), "allows request %s",
			    bad[i].name);
			if (r && at_origin(out, r, "CL015", FINDING_ERROR, what,
			    bad[i].why) < 0)
				return -1;
			file = input_where(in, INPUT_DEFAULT, NULL, &line);
			if (!r && finding_add(out, "CL015", FINDING_ERROR, file,
			    line, "ioctl %s (%s)", what, bad[i].why) < 0)
				return -1;
			break;
		}
	return 0;
}
