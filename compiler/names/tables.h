/*
 * tables.h - what the compiler knows by name: syscalls (through
 * libseccomp, for the target architecture), built-in @groups, symbolic
 * constants, and syscall argument names and widths.
 */
#ifndef CORDON_TABLES_H
#define CORDON_TABLES_H

#include <stddef.h>
#include <stdint.h>

struct cpol;

/* The one target architecture of this build (AUDIT_ARCH_X86_64 on x86-64). */
uint32_t tables_arch(void);

/* Syscall number for the target arch, or -1 if unknown. */
int tables_syscall_nr(const char *name);
/* Name of a syscall number, or NULL (static storage). */
const char *tables_syscall_name(int nr);
/* Whether the libseccomp this build links resolves name (OCI export
 * notes the names an older runtime's libseccomp may lack). */
int tables_libseccomp_knows(const char *name);
/* Highest syscall number the table knows (numbers above it are "unknown"). */
int tables_syscall_max(void);

/* Built-in group members (without the '@'), NULL-terminated; NULL if the
 * group does not exist.  Members may name other groups ("@signal"). */
const char *const *tables_group(const char *name);
/* Iterate groups: name of the i-th group or NULL past the end. */
const char *tables_group_at(unsigned int i);
/* One-line description of a group, for the man page and explain. */
const char *tables_group_doc(const char *name);

/* Symbolic constant (AF_UNIX, O_RDONLY, TCGETS, EPERM, ...): 0 and
 * *value set, or -1 if unknown. */
int tables_constant(const char *name, uint64_t *value);
const char *tables_constant_at(unsigned int i);

/* Argument by name for a syscall: 0 and *index (0..5), *width (32/64) set,
 * or -1.  tables_arg_width: width of argument index for that syscall (32
 * or 64), or 0 if the syscall's arguments are not in the table. */
int tables_arg(const char *syscall, const char *arg, unsigned int *index,
    unsigned int *width);
unsigned int tables_arg_width(const char *syscall, unsigned int index);
/* Name of argument index of syscall, or NULL. */
const char *tables_arg_name(const char *syscall, unsigned int index);

/* Best suggestion among the known names of a kind for a misspelling, or
 * NULL if nothing is close.  kind: 's' syscall, 'g' group, 'c' constant,
 * 'e' errno. */
const char *tables_suggest(char kind, const char *word);
/* The closest of a NULL-terminated list of candidates (at most two plain
 * edits, case counting), or NULL: for names the tables do not hold
 * (statements, arguments, rights, include files). */
const char *tables_suggest_among(const char *word, const char *const *cands);

/* The syscalls that answer ENOSYS unless a policy names them (clone3,
 * io_uring_*), NULL-terminated.  tables_fixed_action, their one owner:
 * 1 and *action set when nr is one of them and p has no rule for it yet,
 * else 0.  check/rules.c writes a rule wherever it says 1; validate.c
 * refuses a table where it still says 1 and the filter does not
 * answer *action; explain shows what it says for a blob. */
extern const char *const tables_fixed_enosys[];

/* The syscalls the network statement owns (cordon.policy(5)), and on
 * what: check/rules.c refuses rules on them, learn leaves them out. */
enum tables_net_owner {
	TABLES_NET_NONE,        /* not the network statement's */
	TABLES_NET_ALWAYS,      /* socket, socketpair: any network statement */
	TABLES_NET_TCP,         /* sendto, sendmsg, sendmmsg: network tcp */
	TABLES_NET_CONNECT,     /* connect: with a connect rule */
	TABLES_NET_BIND,        /* bind, listen, accept, accept4: a bind rule */
};
enum tables_net_owner tables_net_owner(const char *name);
int tables_fixed_action(const struct cpol *p, uint32_t nr, uint32_t *action);

/* Landlock filesystem rights (tables_rights.c).  The i-th of every right
 * name the language takes, singles then shorthands (NULL past the end;
 * *bits set when bits is not NULL); the name of single right bit (NULL
 * past TABLES_NRIGHTS); a name's bits (0, or -1 when unknown); the whole
 * shorthand (ro, rx, rw) that is exactly access, or NULL; the i-th pair
 * shorthand (read, write, create, remove), or NULL past the end. */
#define TABLES_NRIGHTS 16u
const char *tables_right_at(unsigned int i, uint64_t *bits);
const char *tables_right_name(unsigned int bit);
int tables_right(const char *name, uint64_t *bits);
const char *tables_rights_shorthand(uint64_t access);
/* The shorthand an author meant by another tool's spelling (readonly:
 * ro, read-write: rw, exec: rx), or NULL. */
const char *tables_right_alias(const char *word);
const char *tables_rights_pair(unsigned int i, uint64_t *bits);

/* The $NAMEs cordon binds (tables_vars.c) and where each may stand. */
#define TABLES_VAR_PATH 1     /* starts a path ($SNIPPET: is one) */
#define TABLES_VAR_COMMAND 2  /* in a command word */
#define TABLES_VAR_ENV 4      /* in an environment value */
/* Those bound where, into out (NULL-terminated, at most max - 1): the
 * count. */
unsigned int tables_vars(unsigned int where, const char **out,
    unsigned int max);
/* 1 if name[0..len) is bound where. */
int tables_var_bound(const char *name, size_t len, unsigned int where);
/* "$WORKDIR and $SNIPPET": those bound where, for a message. */
const char *tables_vars_say(unsigned int where, char *buf, size_t len);

#endif
